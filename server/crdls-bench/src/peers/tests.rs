//! Tests of `peers`: kubectl's document split, both reports read, and the join per object.

use super::*;

#[test]
fn documents_split_as_kubectl_reads_them() {
    let text = "---\napiVersion: v1\nkind: A\n--- # two\n# only a comment\n---\n---\napiVersion: v1\nkind: B\n";
    let chunks = split_documents(text, false).unwrap();
    // The leading and doubled separators give no document; the comment-only one counts, empty.
    assert_eq!(chunks.len(), 3, "{chunks:?}");
    assert_eq!((chunks[0].first, chunks[0].last, chunks[0].empty), (2, 3, false));
    assert_eq!((chunks[1].first, chunks[1].last, chunks[1].empty), (5, 5, true));
    assert_eq!((chunks[2].first, chunks[2].last, chunks[2].empty), (8, 9, false));
    assert_eq!(&text[chunks[2].start..chunks[2].end], "apiVersion: v1\nkind: B\n");
    // A separator with text after it is refused whole; inside a line it is no separator.
    assert_eq!(split_documents("a: 1\n--- b: 2\n", false), None);
    assert_eq!(split_documents("a: |\n  x --- y\n", false).unwrap().len(), 1);
    // A JSON file is one document.
    assert_eq!(split_documents("{\n\"a\": 1\n}\n", true).unwrap().len(), 1);
}

#[test]
fn upstream_documents_are_laid_out_for_the_peer() {
    assert_eq!(schema_target("api__v1_openapi.json").as_deref(), Some("api/v1.json"));
    assert_eq!(schema_target("apis__apps__v1_openapi.json").as_deref(), Some("apis/apps/v1.json"));
    assert_eq!(
        schema_target("apis__flowcontrol.apiserver.k8s.io__v1_openapi.json").as_deref(),
        Some("apis/flowcontrol.apiserver.k8s.io/v1.json")
    );
    assert_eq!(schema_target("api_openapi.json"), None);
    assert_eq!(schema_target("apis_openapi.json"), None);
}

/// The peer's JSON report as kubectl-validate 0.0.4 prints it (`-o json`).
const PEER: &str = r#"{
    "./a.yaml": [
        {"metadata": {}, "status": "Failure",
         "message": "Deployment.apps \"x\" is invalid: spec.replicas: Invalid value: \"string\": spec.replicas in body must be of type integer: \"string\"",
         "reason": "Invalid",
         "details": {"causes": [{"reason": "FieldValueInvalid", "message": "Invalid value: \"string\": spec.replicas in body must be of type integer: \"string\"", "field": "spec.replicas"}]},
         "code": 422},
        {"metadata": {}, "status": "Success"},
        {"metadata": {}, "status": "Success"},
        {"metadata": {}, "status": "Failure",
         "message": "Internal error occurred: failed to retrieve validator: failed to locate OpenAPI spec for GV: example.com/v1",
         "reason": "InternalError", "details": {"causes": [{"message": "failed to retrieve validator: failed to locate OpenAPI spec for GV: example.com/v1"}]},
         "code": 500},
        {"metadata": {}, "status": "Success"}
    ]
}"#;

const FILE: &str = "apiVersion: apps/v1\nkind: Deployment\nspec:\n  replicas: \"3\"\n---\n# nothing\n---\napiVersion: v1\nkind: ConfigMap\ndata:\n  a: 1\n---\napiVersion: example.com/v1\nkind: Widget\n---\napiVersion: v1\nkind: Secret\n";

#[test]
fn the_peer_report_is_read_per_document() {
    let report = parse_peer_output(PEER).unwrap();
    let verdicts = &report["a.yaml"];
    assert_eq!(verdicts.len(), 5);
    assert_eq!(
        verdicts[0],
        PeerVerdict::Rejects(vec![
            "spec.replicas: Invalid value: \"string\": spec.replicas in body must be of type integer: \"string\"".to_string()
        ])
    );
    assert_eq!(verdicts[1], PeerVerdict::Accepts);
    assert!(matches!(verdicts[3], PeerVerdict::NoSchema(_)));
    assert!(parse_peer_output("Error: not json").is_err());
    // A kind the group does not have is no schema too.
    let missing = serde_json::json!({"status": "Failure", "message": "Internal error occurred: failed to retrieve validator: kind Pod not found in apps/v1 groupversion"});
    assert!(matches!(peer_verdict(&missing), PeerVerdict::NoSchema(_)));
    // A values file is no object.
    let values = serde_json::json!({"status": "Failure", "message": "GVK cannot be empty"});
    assert_eq!(peer_verdict(&values), PeerVerdict::NotAnObject);
    let list = serde_json::json!({"status": "Failure", "message": "failed to parse yaml: error unmarshaling JSON: while decoding JSON: json: cannot unmarshal array into Go value of type v1.TypeMeta"});
    assert_eq!(peer_verdict(&list), PeerVerdict::NotAnObject);
}

#[test]
fn causes_are_classed_without_values_or_indices() {
    assert_eq!(
        cause_class("spec.containers[12].ports[0]: Invalid value: \"string\": must be of type integer: \"string\""),
        "spec.containers[].ports[]: Invalid value: \"…\": must be of type integer: \"…\""
    );
    assert_eq!(cause_class("spec.replicas: Invalid value: 300: must be <= 10"), "spec.replicas: Invalid value: N: must be <= N");
}

#[test]
fn both_reports_join_per_object() {
    let crdls = parse_crdls_output(
        r#"{"diagnostics": [
            {"file": "./a.yaml", "range": {"start": {"line": 11, "column": 6}}, "severity": "error", "code": "schema/type", "message": "must be a string"},
            {"file": "a.yaml", "range": {"start": {"line": 17, "column": 1}}, "severity": "warning", "code": "schema/unknown-field", "message": "unknown field \"x\""},
            {"file": "a.yaml", "range": {"start": {"line": 14, "column": 1}}, "severity": "info", "code": "resource/no-crd", "message": "no CRD"}
        ], "summary": {}}"#,
    )
    .unwrap();
    let errors = &crdls["a.yaml"];
    assert_eq!(errors.len(), 2);
    assert!(errors[1].strict_only);
    let peer = parse_peer_output(PEER).unwrap();
    let joined = join_file("a.yaml", FILE, &peer["a.yaml"], errors, &BTreeSet::new()).unwrap();
    let outcomes: Vec<(u32, &str, Outcome)> = joined.iter().map(|c| (c.line, c.kind.as_str(), c.outcome)).collect();
    assert_eq!(
        outcomes,
        vec![
            (1, "Deployment", Outcome::PeerOnly),
            (8, "ConfigMap", Outcome::CrdlsOnly),
            (13, "Widget", Outcome::PeerNoSchema),
            (16, "Secret", Outcome::CrdlsOnly),
        ]
    );
    // A kind defined differently in several places is set aside.
    let ambiguous = BTreeSet::from([("example.com".to_string(), "Widget".to_string())]);
    let joined = join_file("a.yaml", FILE, &peer["a.yaml"], errors, &ambiguous).unwrap();
    assert_eq!(joined[2].outcome, Outcome::AmbiguousCrd);
    // An empty file is one empty document to the peer, none here.
    assert!(join_file("e.yaml", "\n", &[PeerVerdict::Accepts], &[], &BTreeSet::new()).unwrap().is_empty());
    // A report that numbers the documents otherwise is not joined.
    assert!(join_file("a.yaml", FILE, &peer["a.yaml"][..4], errors, &BTreeSet::new()).is_err());
}

#[test]
fn copies_of_a_crd_differing_only_in_metadata_are_one_definition() {
    let crd = |labels: &str, kind_type: &str| {
        FoundCrd {
        group: "example.com".into(),
        kind: "Widget".into(),
        file: "x.yaml".into(),
        text: format!("apiVersion: apiextensions.k8s.io/v1\nkind: CustomResourceDefinition\nmetadata:\n  labels: {labels}\nspec:\n  type: {kind_type}\n"),
    }
    };
    assert!(ambiguous_kinds(&[crd("{a: b}", "string"), crd("{c: d}", "string")]).is_empty());
    assert_eq!(ambiguous_kinds(&[crd("{a: b}", "string"), crd("{a: b}", "integer")]).len(), 1);
}
