//! `crdls-bench`: benchmarks of crdls, printed as medians and ratios.
//!
//! - `crdls-bench corpus [CORPUS_DIR] [RUNS]`: time and peak memory to parse, to index every CRD and to
//!   check every custom resource of the shared corpus (defaults: `../shared/corpus`, 7 runs).
//!   It also indexes the CRDs read whole and read identity first, each in a process of its own
//!   (`crdls-bench heap whole|identity|built CORPUS_DIR`), for the time and resident memory of each.
//! - `crdls-bench lsp [CRDLS_BINARY] [ROUNDS]`: drives the real language server over stdio (see `lsp.rs`),
//!   with the corpus CRDs indexed when `../shared/corpus` is present.
//! - `crdls-bench scale [N] [RUNS]`: generated inputs growing in one dimension (N properties, long
//!   rules), timed at N and N/2 (defaults: 50,000, 3 runs; see `scale.rs`).
//! - `crdls-bench check [COPIES] [RUNS] [CRDLS_BINARY]`: the real `crdls check` on the corpus's custom
//!   resources copied COPIES times (defaults: 40 copies = 46,080 files, 3 runs, `target/profiling/crdls`, built by `cargo build --profile profiling -p crdls`):
//!   median wall time, peak RSS and cores busy (see `check.rs`).
//! - `crdls-bench ecosystem [OPTIONS]`: `crdls check` over pinned public repositories checked out
//!   beside the project, compared with a committed baseline, with precision from a ledger of judged
//!   errors (see `ecosystem.rs` and docs/src/ecosystem-check.md).
//! - `crdls-bench peers [OPTIONS]`: crdls and kubectl-validate, a real peer, on the same files of those
//!   repositories, compared per object: what the peer alone rejects (candidate missed errors) and
//!   what crdls alone rejects (see `peers.rs` and docs/src/ecosystem-check.md).

#![allow(clippy::print_stdout)]

use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::{Duration, Instant};

use crdls_check::{check_stream, CheckOptions};
use crdls_crd::{Crd, CrdIndex};

fn yaml_files(dir: &Path, out: &mut Vec<PathBuf>) {
    let Ok(entries) = std::fs::read_dir(dir) else { return };
    for entry in entries.flatten() {
        let path = entry.path();
        if path.is_dir() {
            yaml_files(&path, out);
        } else if path.extension().is_some_and(|e| e == "yaml" || e == "yml" || e == "json") {
            out.push(path);
        }
    }
}

fn read_all(dir: &Path) -> Vec<(String, String)> {
    let mut files = Vec::new();
    yaml_files(dir, &mut files);
    files.sort();
    files.into_iter().filter_map(|f| Some((f.display().to_string(), std::fs::read_to_string(&f).ok()?))).collect()
}

/// Peak resident memory of this process, in KiB (Linux `VmHWM`).
fn peak_rss_kib() -> Option<u64> {
    let status = std::fs::read_to_string("/proc/self/status").ok()?;
    let line = status.lines().find(|l| l.starts_with("VmHWM:"))?;
    line.split_whitespace().nth(1)?.parse().ok()
}

/// Resets the peak so the next phase is measured on its own (Linux: write 5 to clear_refs).
fn reset_peak() {
    let _ = std::fs::write("/proc/self/clear_refs", "5");
}

fn median(mut samples: Vec<Duration>) -> Duration {
    samples.sort();
    samples[samples.len() / 2]
}

fn index_corpus(crds: &[(String, String)]) -> CrdIndex {
    let mut index = CrdIndex::new();
    for (name, text) in crds {
        let parsed: Vec<Crd> = crdls_yaml::parse(text).documents.iter().flat_map(Crd::from_document).collect();
        index.set_source(Arc::from(name.as_str()), parsed);
    }
    index
}

mod builtins;
mod check;
mod ecosystem;
mod lsp;
mod peers;
mod scale;

fn main() {
    let mut args = std::env::args().skip(1).peekable();
    match args.peek().map(String::as_str) {
        Some("lsp") => {
            args.next();
            let binary = PathBuf::from(args.next().unwrap_or_else(|| "target/profiling/crdls".into()));
            let rounds = args.next().and_then(|r| r.parse().ok()).unwrap_or(5).max(1);
            let copies = args.next().and_then(|r| r.parse().ok()).unwrap_or(1);
            let corpus = Path::new("../shared/corpus/crds");
            if !corpus.is_dir() {
                println!("SKIPPED: ../shared/corpus/crds not found; the workspace holds the fixture CRD only");
            }
            lsp::run(&binary, Path::new("fixtures/crds/widgets.yaml"), corpus.is_dir().then_some(corpus), rounds, copies);
            return;
        }
        Some("builtins") => {
            args.next();
            let runs = args.next().and_then(|r| r.parse().ok()).unwrap_or(21).max(1);
            builtins::run(Path::new("fixtures/crds/widgets.yaml"), runs);
            return;
        }
        Some("scale") => {
            args.next();
            let n = args.next().and_then(|n| n.parse().ok()).unwrap_or(50_000).max(2);
            let runs = args.next().and_then(|r| r.parse().ok()).unwrap_or(3).max(1);
            scale::run(n, runs);
            return;
        }
        Some("heap") => {
            args.next();
            let mode = args.next().unwrap_or_default();
            let corpus = PathBuf::from(args.next().unwrap_or_else(|| "../shared/corpus".into()));
            heap(&mode, &corpus);
            return;
        }
        Some("check") => {
            args.next();
            let copies = args.next().and_then(|n| n.parse().ok()).unwrap_or(40).max(1);
            let runs = args.next().and_then(|r| r.parse().ok()).unwrap_or(3).max(1);
            let binary = PathBuf::from(args.next().unwrap_or_else(|| "target/profiling/crdls".into()));
            check::run(copies, runs, &binary);
            return;
        }
        Some("ecosystem") => {
            args.next();
            ecosystem::run(args);
            return;
        }
        Some("peers") => {
            args.next();
            peers::run(args);
            return;
        }
        Some("corpus") => {
            args.next();
        }
        _ => {}
    }
    let corpus = PathBuf::from(args.next().unwrap_or_else(|| "../shared/corpus".into()));
    let runs: usize = args.next().and_then(|r| r.parse().ok()).unwrap_or(7).max(1);
    if !corpus.join("crds").is_dir() {
        println!("no corpus at {} (expected crds/ and crs/ below it)", corpus.display());
        std::process::exit(2);
    }
    let crds = read_all(&corpus.join("crds"));
    let crs = read_all(&corpus.join("crs"));
    let crd_bytes: usize = crds.iter().map(|(_, t)| t.len()).sum();
    let cr_bytes: usize = crs.iter().map(|(_, t)| t.len()).sum();
    println!(
        "corpus: {} CRD files ({:.1} MiB), {} CR files ({:.1} MiB); {runs} runs each, medians",
        crds.len(),
        crd_bytes as f64 / 1048576.0,
        crs.len(),
        cr_bytes as f64 / 1048576.0
    );

    reset_peak();
    let base_rss = peak_rss_kib().unwrap_or(0);
    let mut index_times = Vec::new();
    let mut index = CrdIndex::new();
    for _ in 0..runs {
        let start = Instant::now();
        index = index_corpus(&crds);
        index_times.push(start.elapsed());
    }
    let index_peak = peak_rss_kib().unwrap_or(0).saturating_sub(base_rss);
    println!(
        "index:  {:>8.1} ms  ({} CRDs; peak RSS +{:.1} MiB)",
        median(index_times).as_secs_f64() * 1e3,
        index.len(),
        index_peak as f64 / 1024.0
    );

    index_identity_first(&corpus);

    let mut parse_times = Vec::new();
    for _ in 0..runs {
        let start = Instant::now();
        let mut documents = 0;
        for (_, text) in &crs {
            documents += crdls_yaml::parse(text).documents.len();
        }
        std::hint::black_box(documents);
        parse_times.push(start.elapsed());
    }

    reset_peak();
    let base_rss = peak_rss_kib().unwrap_or(0);
    let options = CheckOptions::default();
    let mut check_times = Vec::new();
    let mut diagnostics = 0;
    for _ in 0..runs {
        let start = Instant::now();
        diagnostics = 0;
        for (_, text) in &crs {
            let stream = crdls_yaml::parse(text);
            diagnostics += check_stream(&stream, &index, &options).documents.iter().map(|d| d.diagnostics.len()).sum::<usize>();
        }
        check_times.push(start.elapsed());
    }
    let check_peak = peak_rss_kib().unwrap_or(0).saturating_sub(base_rss);
    let parse = median(parse_times);
    let check = median(check_times);
    println!("parse:  {:>8.1} ms  (CR files, YAML only)", parse.as_secs_f64() * 1e3);
    println!(
        "check:  {:>8.1} ms  (parse + resolve + prune + default + validate; {diagnostics} diagnostics; peak RSS +{:.1} MiB)",
        check.as_secs_f64() * 1e3,
        check_peak as f64 / 1024.0
    );
    println!("ratio check/parse: {:.2}", check.as_secs_f64() / parse.as_secs_f64());
    println!("peak RSS of the process: {:.1} MiB", peak_rss_kib().unwrap_or(0) as f64 / 1024.0);
}

/// The index read identity first (as `crdls check` and the language server read CRD files) against
/// read whole, each in a process of its own (see [`heap`]): time, resident memory after indexing, and
/// resident memory once every version's schema is built.
fn index_identity_first(corpus: &Path) {
    let Ok(me) = std::env::current_exe() else { return };
    for mode in ["whole", "identity", "built"] {
        let out = std::process::Command::new(&me).args(["heap", mode]).arg(corpus).output();
        match out {
            Ok(out) if out.status.success() => print!("{}", String::from_utf8_lossy(&out.stdout)),
            _ => println!("heap {mode}: the measuring process failed"),
        }
    }
}

/// `crdls-bench heap whole|identity|built CORPUS`: indexes the corpus's CRD files read whole, or
/// identity first (schemas read again from the files when built), optionally building every schema,
/// and prints the time and this process's resident memory (Linux `VmRSS`) before and after.
fn heap(mode: &str, corpus: &Path) {
    let rss_kib = || -> u64 {
        let status = std::fs::read_to_string("/proc/self/status").unwrap_or_default();
        status.lines().find(|l| l.starts_with("VmRSS:")).and_then(|l| l.split_whitespace().nth(1)?.parse().ok()).unwrap_or(0)
    };
    let mut files = Vec::new();
    yaml_files(&corpus.join("crds"), &mut files);
    files.sort();
    let before = rss_kib();
    let start = Instant::now();
    let mut index = CrdIndex::new();
    for file in &files {
        let Ok(text) = std::fs::read_to_string(file) else { continue };
        let crds = if mode == "whole" {
            crdls_yaml::parse(&text).documents.iter().flat_map(Crd::from_document).collect()
        } else {
            let path = file.clone();
            Crd::read_identities(&text, Arc::new(move || std::fs::read_to_string(&path).ok().map(Arc::from)))
        };
        index.set_source(Arc::from(file.display().to_string()), crds);
    }
    let indexed = start.elapsed();
    let mut built = 0;
    if mode == "built" {
        for crd in index.iter() {
            built += crd.crd.versions.iter().filter(|v| v.schema().is_some()).count();
        }
    }
    let all = start.elapsed();
    let label = match mode {
        "whole" => "read whole:            ".to_string(),
        "identity" => "read identity first:   ".to_string(),
        _ => "identity first, built: ".to_string(),
    };
    println!(
        "{label}{:>4} CRDs indexed in {:>6.1} ms{}; RSS +{:.1} MiB",
        index.len(),
        indexed.as_secs_f64() * 1e3,
        if mode == "built" {
            format!(", {built} schemas built in {:.1} ms more", (all - indexed).as_secs_f64() * 1e3)
        } else {
            String::new()
        },
        rss_kib().saturating_sub(before) as f64 / 1024.0
    );
    std::hint::black_box(index);
}
