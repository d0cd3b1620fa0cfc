//! `crdls-bench scale [N] [RUNS]`: inputs that grow in one dimension, generated here, each timed at N
//! and N/2 so that the ratio shows the growth (about 2 when it is linear): a CRD with N properties
//! under `spec`, a custom resource setting all of them, one setting N fields it does not declare (each
//! one edit from a declared one, for the did-you-mean hints), and a CRD whose one rule chains N/10
//! comparisons with `||` (N/10 keeps the rule under cel-go's 100,000 code points at the default N).

use std::time::{Duration, Instant};

use crdls_check::{check_stream, CheckOptions};
use crdls_crd::CrdIndex;
use crdls_test_fixture as fixture;

use crate::median;

fn properties_crd(n: usize) -> String {
    let props: String = (0..n).map(|i| format!("    p{i}: {{type: string}}\n")).collect();
    fixture::Crd::new("Thing").schema(&format!("type: object\nproperties:\n  spec:\n   type: object\n   properties:\n{props}")).yaml()
}

fn properties_cr(n: usize, prefix: char) -> String {
    let fields: String = (0..n).map(|i| format!("  {prefix}{i}: v\n")).collect();
    format!("apiVersion: {}/v1\nkind: Thing\nmetadata:\n  name: t\nspec:\n{fields}", fixture::GROUP)
}

fn long_rule_crd(terms: usize) -> String {
    let rule = (0..terms).map(|i| format!("self.a == {i}")).collect::<Vec<_>>().join(" || ");
    fixture::Crd::new("Thing")
        .schema(&format!(
            "type: object\nproperties:\n  spec:\n    type: object\n    properties:\n      a: {{type: integer}}\n    x-kubernetes-validations:\n    - rule: \"{rule}\"\n"
        ))
        .yaml()
}

/// The median time to parse and check `text` against `index`.
fn time_check(text: &str, index: &CrdIndex, runs: usize) -> Duration {
    let options = CheckOptions::default();
    let mut times = Vec::new();
    for _ in 0..runs {
        let start = Instant::now();
        let stream = crdls_yaml::parse(text);
        std::hint::black_box(check_stream(&stream, index, &options).documents.len());
        times.push(start.elapsed());
    }
    median(times)
}

fn row(what: &str, n: usize, runs: usize, time: impl Fn(usize, usize) -> Duration) {
    let (half, full) = (time(n / 2, runs), time(n, runs));
    println!(
        "{what:<34} {:>9.1} ms at {:>6}, {:>9.1} ms at {:>6}  (ratio {:.2})",
        half.as_secs_f64() * 1e3,
        n / 2,
        full.as_secs_f64() * 1e3,
        n,
        full.as_secs_f64() / half.as_secs_f64()
    );
}

pub fn run(n: usize, runs: usize) {
    println!("scale: {runs} runs each, medians");
    row("CRD with N properties", n, runs, |n, runs| time_check(&properties_crd(n), &CrdIndex::new(), runs));
    row("resource setting N properties", n, runs, |n, runs| time_check(&properties_cr(n, 'p'), &fixture::index(&properties_crd(n)), runs));
    row("resource with N unknown fields", n, runs, |n, runs| time_check(&properties_cr(n, 'q'), &fixture::index(&properties_crd(n)), runs));
    row("CRD with a rule of N/10 || terms", n, runs, |n, runs| time_check(&long_rule_crd(n / 10), &CrdIndex::new(), runs));
}
