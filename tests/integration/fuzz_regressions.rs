//! The fuzzing harness kept honest: every finding it ever wrote to `tests/fuzz-regressions/` replays
//! through the same target function with no finding, and each target runs a fixed number of inputs
//! from a fixed seed, so the harness itself cannot rot.

use std::time::Duration;

use crdls_fuzz::corpus::regressions;
use crdls_fuzz::fuzz::Options;
use crdls_fuzz::guard::run_guarded;
use crdls_fuzz::targets::Sources;
use crdls_fuzz::{fuzz, target, Budget, Verdict, TARGET_NAMES};

#[test]
fn every_fuzz_regression_fixture_replays_without_a_finding() {
    // The schema target indexes the corpus's CRDs when it is there, as the fuzzer did; without it the
    // fixtures that need a corpus CRD replay against the repository's fixtures only.
    let corpus = crdls_tests::corpus_dir();
    if corpus.is_none() {
        crdls_tests::announce_skip(crdls_tests::Missing::Corpus, Some("the corpus CRDs in the schema target's index"));
    }
    let sources = Sources { corpus };
    let mut failures = Vec::new();
    let mut replayed = 0;
    for name in TARGET_NAMES {
        let fixtures = regressions(name);
        if fixtures.is_empty() {
            continue;
        }
        let t = target(name, &sources).expect("a known target");
        for fixture in fixtures {
            let (runner, text) = (t.clone(), fixture.text.clone());
            replayed += 1;
            if let Verdict::Finding(f) = run_guarded(t.deadline(), move || runner.run(&text)) {
                failures.push(format!("{}: {}", fixture.path.display(), f.summary()));
            }
        }
    }
    assert!(failures.is_empty(), "{replayed} fixtures replayed, {} failed:\n{}", failures.len(), failures.join("\n"));
}

#[test]
fn each_fuzz_target_runs_from_a_fixed_seed_without_a_finding() {
    // The repository's fixtures only, on purpose: the same inputs on every machine.
    let sources = Sources { corpus: None };
    for (name, inputs) in
        [("yaml", 300), ("cel", 300), ("schema", 40), ("lsp", 4), ("archive", 10), ("glob", 30), ("kubeconfig", 30), ("cache", 30)]
    {
        let t = target(name, &sources).expect("a known target");
        let options =
            Options { seed: 20_261_124, budget: Budget::Iterations(inputs), write_fixtures: false, minimize_for: Duration::from_secs(10) };
        let report = fuzz(&t, &options, &mut |_| {});
        assert_eq!(report.iterations, inputs, "{name}");
        let found: Vec<String> = report.findings.iter().map(|f| format!("{}\n  input: {:?}", f.finding.summary(), f.input)).collect();
        assert!(found.is_empty(), "{name}: the fixed-seed run found:\n{}", found.join("\n"));
    }
}
