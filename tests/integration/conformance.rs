//! Conformance with kubectl-validate's test cases (`../shared/corpus/kubectl-validate-testcases`):
//! each manifest document carries the API server's expected `metav1.Status` in a leading comment,
//! and crdls must produce the same causes. Skipped, with a message, when the corpus is absent.
//!
//! Cases whose errors come from a built-in kind's schema (Pod, Deployment, ...) need the built-in OpenAPI
//! schemas, which crdls does not ship: they count as out of scope. Cases that expect success (crdls must stay
//! silent), decoding errors, and ObjectMeta errors (which apply to every object) are in scope.

use std::collections::BTreeMap;
use std::sync::Arc;

use crdls_check::{check_stream, CheckOptions, DocumentKind};
use crdls_crd::{Crd, CrdIndex};
use crdls_yaml::Severity;

/// The outcome of one case.
#[derive(Debug, PartialEq, Eq, PartialOrd, Ord, Clone, Copy)]
enum Outcome {
    Pass,
    Fail,
    OutOfScope,
}

/// Splits a manifest file into document texts at `---` lines.
fn documents(text: &str) -> Vec<String> {
    let mut docs = vec![String::new()];
    for line in text.split_inclusive('\n') {
        if line.trim_end() == "---" || line.starts_with("--- ") {
            docs.push(String::new());
        } else {
            docs.last_mut().unwrap().push_str(line);
        }
    }
    docs
}

/// The expected status of a document: its leading `#` block parsed as JSON, or success when it has none.
fn expected(doc: &str) -> serde_json::Value {
    let lines: Vec<&str> = doc.lines().skip_while(|l| l.trim().is_empty()).take_while(|l| l.starts_with('#')).map(|l| &l[1..]).collect();
    let json = lines.join("\n");
    serde_json::from_str(&json).unwrap_or_else(|_| serde_json::json!({"status": "Success"}))
}

fn run_case(doc: &str, index: &CrdIndex) -> (Outcome, String) {
    let want = expected(doc);
    let stream = crdls_yaml::parse(doc);
    let result = check_stream(&stream, index, &CheckOptions { strict: true, ..CheckOptions::default() });
    let errors: Vec<&crdls_yaml::Diagnostic> =
        result.documents.iter().flat_map(|d| &d.diagnostics).filter(|d| d.severity == Severity::Error).collect();
    let served_by_crd = result.documents.iter().any(|d| matches!(d.kind, DocumentKind::CustomResource { .. }));
    let got: Vec<String> = errors.iter().filter_map(|d| d.cause.clone()).collect();
    if want["status"] == "Success" {
        return if errors.is_empty() { (Outcome::Pass, String::new()) } else { (Outcome::Fail, format!("expected success, got {got:?}")) };
    }
    let code = want["code"].as_i64().unwrap_or(0);
    if code == 400 {
        // A decoding error (duplicate key): any YAML-level error matches.
        let ok = errors.iter().any(|d| d.code.starts_with("yaml/"));
        return (if ok { Outcome::Pass } else { Outcome::Fail }, format!("expected a decode error, got {got:?}"));
    }
    if code == 500 {
        // The object cannot be decoded or has no kind: crdls must report it, in its own words or the API server's.
        let message = want["message"].as_str().unwrap_or_default();
        let ok = errors.iter().any(|d| d.cause.as_deref().is_some_and(|c| message.contains(c)) || d.code == "resource/unknown-kind");
        return (if ok { Outcome::Pass } else { Outcome::Fail }, format!("expected {message:?}, got {got:?}"));
    }
    let metadata_only = want["details"]["causes"]
        .as_array()
        .is_some_and(|causes| causes.iter().all(|c| c["field"].as_str().is_some_and(|f| f.starts_with("metadata"))));
    if !served_by_crd && !metadata_only {
        return (Outcome::OutOfScope, "needs the built-in kind's schema".into());
    }
    let mut want_causes: Vec<String> = want["details"]["causes"]
        .as_array()
        .map(|causes| {
            causes.iter().map(|c| format!("{}: {}", c["field"].as_str().unwrap_or("<nil>"), c["message"].as_str().unwrap_or(""))).collect()
        })
        .unwrap_or_default();
    let mut got_sorted = got.clone();
    want_causes.sort();
    got_sorted.sort();
    if want_causes == got_sorted {
        (Outcome::Pass, String::new())
    } else {
        (Outcome::Fail, format!("expected {want_causes:?}\n        got {got_sorted:?}"))
    }
}

#[test]
fn kubectl_validate_testcases() {
    let Some(corpus) = crdls_tests::corpus_or_skip() else { return };
    let cases = corpus.join("kubectl-validate-testcases");
    let mut index = CrdIndex::new();
    for entry in std::fs::read_dir(cases.join("crds")).unwrap() {
        let path = entry.unwrap().path();
        let text = std::fs::read_to_string(&path).unwrap();
        let crds: Vec<Crd> = crdls_yaml::parse(&text).documents.iter().flat_map(Crd::from_document).collect();
        index.set_source(Arc::from(path.display().to_string()), crds);
    }
    let mut files: Vec<_> = std::fs::read_dir(cases.join("manifests"))
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "yaml"))
        .collect();
    files.sort();
    let mut outcomes: BTreeMap<String, (Outcome, String)> = BTreeMap::new();
    for file in &files {
        let text = std::fs::read_to_string(file).unwrap();
        for (i, doc) in documents(&text).iter().enumerate() {
            let name = format!("{}#{i}", file.file_name().unwrap().to_string_lossy());
            outcomes.insert(name, run_case(doc, &index));
        }
    }
    let count = |o: Outcome| outcomes.values().filter(|(x, _)| *x == o).count();
    let (pass, fail, out) = (count(Outcome::Pass), count(Outcome::Fail), count(Outcome::OutOfScope));
    for (name, (outcome, why)) in &outcomes {
        if *outcome != Outcome::Pass {
            eprintln!("{outcome:?} {name}: {why}");
        }
    }
    eprintln!(
        "kubectl-validate conformance: {pass} passed, {fail} failed, {out} out of scope (built-in schemas); {pass}/{} of in-scope cases",
        pass + fail
    );
    let failing: Vec<&String> = outcomes.iter().filter(|(_, (o, _))| *o == Outcome::Fail).map(|(n, _)| n).collect();
    assert!(failing.is_empty(), "conformance cases failing: {failing:?}");
}
