//! Tests of how documents are checked in each file mode: what reading YAML finds in documents that cannot be objects.
use super::*;

fn codes(text: &str) -> Vec<&'static str> {
    let stream = crdls_yaml::parse(text);
    check_stream(&stream, &CrdIndex::new(), &CheckOptions::default()).diagnostics().iter().map(|d| d.code).collect()
}

#[test]
fn yaml_errors_of_documents_that_cannot_be_objects_are_not_reported() {
    // Another tool's files: JSON with comments, a key twice in a data file, a proposal's metadata.
    assert_eq!(codes("{\n  // comment\n  \"extends\": \"./base.json\"\n}\n"), Vec::<&str>::new());
    assert_eq!(codes("{\"a\": 1, \"b\": 2, \"a\": 3}\n"), Vec::<&str>::new());
    assert_eq!(codes("title: x\nreviewers:\n  - @two\n"), Vec::<&str>::new());
    // A document that names a kind keeps them, whether it parsed or not, as does the one of a stream
    // beside another tool's document.
    assert!(codes("apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: a\n  name: b\n").contains(&"yaml/duplicate-key"));
    assert!(codes("apiVersion: v1\nkind: ConfigMap\ndata:\n  a: \"1\n").contains(&"yaml/syntax"));
    assert!(codes("{\"kind\" : \"ConfigMap\", \"apiVersion\": \"v1\", \"data\": {\"a\": [}\n").contains(&"yaml/syntax"));
    assert!(codes("metadata:\n  labels: [a\n\"apiVersion\": v1\nkind: ConfigMap\n").contains(&"yaml/syntax"));
    assert!(codes("{apiVersion: v1, kind: ConfigMap, data: {a: [}\n").contains(&"yaml/syntax"));
    // A cloud template whose nested resources have an `apiVersion` and a `kind`, in JSON with comments
    // (which no YAML reader takes): not an object, whatever its items hold.
    let template = "{\n  \"schema\": \"x\", /* the {[ */\n  \"resources\": [\n    // one\n    {\"apiVersion\": \"2020-01-01\", \"kind\": \"Store\"}\n  ]\n}\n";
    assert_eq!(codes(template), Vec::<&str>::new());
    // A template action first is not JSON: the manifest below it keeps its errors.
    assert!(codes("{{- if .Values.x }}\napiVersion: v1\nkind: ConfigMap\ndata:\n   - a\n  b: c\n").contains(&"yaml/syntax"));
    // Text that is not ASCII is walked by bytes (a fuzz finding: `{e` then a character of three bytes).
    assert_eq!(codes("{e\u{2028}x: [\n"), Vec::<&str>::new());
    assert!(codes("{é: 1, kind: ConfigMap, apiVersion: v1, data: {a: [}\n").contains(&"yaml/syntax"));
    // Nor does a key deeper in a block mapping, or a word that only ends in `kind`, make one.
    assert_eq!(codes("tool:\n  kind: x\n  a: [\n"), Vec::<&str>::new());
    assert_eq!(codes("{\"subkind\": 1, \"a\": [}\n"), Vec::<&str>::new());
    // A Helm chart's metadata has an `apiVersion` but is Helm's file: a key set twice there is not reported.
    assert_eq!(codes("apiVersion: v1\nname: autoscaler\nversion: 0.3.3\ndeprecated: true\ndeprecated: true\n"), Vec::<&str>::new());
    assert!(codes("apiVersion: v1\nname: autoscaler\nname: b\n").contains(&"yaml/duplicate-key"));
    let both = codes("a: 1\na: 2\n---\nkind: ConfigMap\napiVersion: v1\nmetadata:\n  name: x\n  name: y\n");
    assert_eq!(both.iter().filter(|c| **c == "yaml/duplicate-key").count(), 1, "{both:?}");
}

#[test]
fn type_headers_are_no_objects_but_a_document_cut_short_is_still_checked() {
    // Only an apiVersion and a kind: a header, not an object that lacks its name.
    assert_eq!(codes("apiVersion: v1\nkind: ConfigMap\n"), Vec::<&str>::new());
    // A syntax error after them leaves a tree of those two keys: that is a broken object, not a header.
    let broken = codes("apiVersion: extensions/v1beta1\nkind: Ingress\nmetadata: [\n");
    assert!(broken.contains(&"yaml/syntax"), "{broken:?}");
    assert!(broken.contains(&"resource/api-not-served"), "{broken:?}");
}
