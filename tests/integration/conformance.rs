//! Conformance with kubectl-validate's test cases (`../shared/corpus/kubectl-validate-testcases`):
//! each manifest document carries the API server's expected `metav1.Status` in a leading comment,
//! and crdls must produce the same causes. Skipped, with a message, when the corpus is absent.
//!
//! Every case is in scope (custom resources, built-in kinds against the shipped schemas and the API
//! server's own validation, decoding and ObjectMeta errors) except CRD documents, which
//! kubectl-validate checks against the CRD kind's schema with paths of its own, and crdls as the API
//! server does (`crd_validation.rs`).

use std::collections::BTreeMap;
use std::sync::Arc;

use crdls_check::{check_stream, CheckOptions, DocumentKind};
use crdls_crd::{Crd, CrdIndex};
use crdls_diagnostics::Severity;

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
    let errors: Vec<&crdls_diagnostics::Diagnostic> =
        result.documents.iter().flat_map(|d| &d.diagnostics).filter(|d| d.severity == Severity::Error).collect();
    let validated =
        result.documents.iter().any(|d| matches!(d.kind, DocumentKind::CustomResource { .. } | DocumentKind::BuiltIn { validated: true }));
    // kubectl-validate words a strict unknown-field error its own way; the field is what must match.
    // With strict field validation the API server stops at decoding when a field is unknown, so only
    // those errors are its answer; crdls reports the others too.
    let strict_stop = errors.iter().any(|d| d.code == "schema/unknown-field");
    let got: Vec<String> = errors
        .iter()
        .filter(|d| !strict_stop || d.code == "schema/unknown-field")
        .filter_map(|d| match (d.code, &d.path) {
            ("schema/unknown-field", Some(path)) => Some(format!("{path}: Invalid value: value provided for unknown field")),
            _ => d.cause.clone(),
        })
        .collect();
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
    if result.documents.iter().any(|d| d.kind == DocumentKind::Crd) {
        // kubectl-validate checks a CRD as an object of its schema, with paths of its own
        // (`spec.validation` in a v1 CRD); crdls checks CRDs as the API server does (crd_validation.rs).
        return (Outcome::OutOfScope, "a CRD, which kubectl-validate checks against its own schema".into());
    }
    if !validated && !metadata_only {
        return (Outcome::OutOfScope, "not validated against a schema".into());
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

/// Cases where kubectl-validate expects what the API server does not say, with the reason; each must
/// still differ (the test fails when crdls starts agreeing with kubectl-validate).
const API_SERVER_DIFFERS: &[(&str, &str)] = &[
    (
        "error_x_list_map_duplicate_key.yaml#0",
        "a container port listed twice: kubectl-validate applies the list type, the API server only warns \
         (\"duplicate port definition\", k8s.io/kubernetes pkg/api/pod/warnings.go) and creates the Pod",
    ),
    (
        "error_quantity.yaml#0",
        "a quantity written as a boolean: kubectl-validate checks the OpenAPI schema's oneOf, the API server \
         refuses the body while Go decodes the quantity (`Pod in version \"v1\" cannot be handled as a Pod: \
         quantities must match ...`, crdls-oracle's native answer)",
    ),
    (
        "error_array_instead_of_map.yaml#0",
        "a list where ConfigMap data goes: kubectl-validate words the schema's type, the API server refuses the \
         body while Go decodes it (`ConfigMap in version \"v1\" cannot be handled as a ConfigMap: json: cannot \
         unmarshal array into Go struct field ConfigMap.data of type map[string]string`, crdls-oracle's native \
         answer, which crdls gives)",
    ),
    (
        "error_invalid_protocol_type.yaml#0",
        "a number where a port's protocol goes: kubectl-validate words the schema's type, the API server refuses \
         the body while Go decodes it (`... into Go struct field ContainerPort.spec.containers.ports.protocol of \
         type v1.Protocol`, crdls-oracle's native answer, which crdls gives)",
    ),
    (
        "error_map_instead_of_array.yaml#0",
        "a mapping where metadata.finalizers goes: kubectl-validate's expected text lacks the `metadata.` the \
         API server's decoder prints (`ConfigMap in version \"v1\" cannot be handled as a ConfigMap: json: cannot \
         unmarshal object into Go struct field ObjectMeta.metadata.finalizers of type []string`, crdls-oracle's \
         native answer, which crdls gives)",
    ),
];

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
            let outcome = match API_SERVER_DIFFERS.iter().find(|(case, _)| *case == name) {
                // The case must still differ: once crdls agrees with kubectl-validate, the exception goes.
                Some((_, reason)) => match run_case(doc, &index) {
                    (Outcome::Fail, _) => (Outcome::OutOfScope, (*reason).to_string()),
                    (other, why) => (Outcome::Fail, format!("listed in API_SERVER_DIFFERS but now {other:?} {why}")),
                },
                None => run_case(doc, &index),
            };
            outcomes.insert(name, outcome);
        }
    }
    let count = |o: Outcome| outcomes.values().filter(|(x, _)| *x == o).count();
    let (pass, fail, out) = (count(Outcome::Pass), count(Outcome::Fail), count(Outcome::OutOfScope));
    for (name, (outcome, why)) in &outcomes {
        if *outcome != Outcome::Pass {
            eprintln!("{outcome:?} {name}: {why}");
        }
    }
    eprintln!("kubectl-validate conformance: {pass} passed, {fail} failed, {out} out of scope; {pass}/{} of in-scope cases", pass + fail);
    let failing: Vec<&String> = outcomes.iter().filter(|(_, (o, _))| *o == Outcome::Fail).map(|(n, _)| n).collect();
    assert!(failing.is_empty(), "conformance cases failing: {failing:?}");
}
