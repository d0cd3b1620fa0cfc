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

fn causes(text: &str, kubernetes: u32) -> Vec<String> {
    let stream = crdls_yaml::parse(text);
    let options = CheckOptions { kubernetes: Some(kubernetes), ..CheckOptions::default() };
    check_stream(&stream, &CrdIndex::new(), &options).diagnostics().iter().filter_map(|d| d.cause.clone()).collect()
}

#[test]
fn built_in_names_follow_their_kinds_rules() {
    let object = |kind: &str, api: &str, name: &str| format!("apiVersion: {api}\nkind: {kind}\nmetadata:\n  name: {name}\n");
    let dots = vec!["metadata.name: Invalid value: \"a.b\": must not contain dots".to_string()];
    // Namespaces and StatefulSets take DNS labels; Deployments DNS subdomains.
    assert_eq!(causes(&object("Namespace", "v1", "a.b"), 37), dots);
    assert!(causes(&object("StatefulSet", "apps/v1", "a.b"), 37).contains(&dots[0]));
    assert!(!causes(&object("Deployment", "apps/v1", "a.b"), 37).iter().any(|c| c.starts_with("metadata.name")));
    // Services: DNS-1035 labels (a letter first) before 1.36, DNS labels since.
    let service = |name: &str| format!("{}spec:\n  ports: [{{port: 80}}]\n", object("Service", "v1", name));
    assert_eq!(causes(&service("a.b"), 37), dots);
    assert_eq!(causes(&service("1ab"), 37), Vec::<String>::new());
    assert_eq!(causes(&service("1ab"), 35).len(), 1, "{:?}", causes(&service("1ab"), 35));
    assert!(causes(&service("1ab"), 35)[0].contains("a DNS-1035 label must consist of lower case alphanumeric characters"));
    // generateName is checked as a prefix of such a name.
    let generated = "apiVersion: v1\nkind: Namespace\nmetadata:\n  generateName: te.am-\n";
    assert_eq!(causes(generated, 37), vec!["metadata.generateName: Invalid value: \"te.am-\": must not contain dots".to_string()]);
}

#[test]
fn built_in_duplicates_are_reported_in_the_native_rules_words() {
    // Two unnamed containers, and a Service port twice: the API server's Duplicate errors, on the name
    // and with its own value, not the list type's.
    let pod = "apiVersion: v1\nkind: Pod\nmetadata:\n  name: p\nspec:\n  containers:\n    - image: a\n    - image: b\n";
    let found = causes(pod, 37);
    assert!(found.contains(&"spec.containers[1].name: Duplicate value: \"\"".to_string()), "{found:?}");
    assert!(!found.iter().any(|c| c.starts_with("spec.containers[1]: ")), "{found:?}");
    let service = "apiVersion: v1\nkind: Service\nmetadata:\n  name: s\nspec:\n  ports:\n    - {name: a, port: 53, protocol: UDP}\n    - {name: b, port: 53, protocol: UDP}\n";
    assert_eq!(
        causes(service, 37),
        vec![r#"spec.ports[1]: Duplicate value: {"Name":"","Protocol":"UDP","AppProtocol":null,"Port":53,"TargetPort":0,"NodePort":0}"#
            .to_string()]
    );
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
