//! Tests of how documents are checked in each file mode: what reading YAML finds in documents that cannot be objects.
use super::*;
use crdls_diagnostics::{codes, Severity};

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

/// The index of the webhook tests: one CRD whose spec requires a boolean, an integer with a minimum, an
/// integer, a string and an object, from `kind` of source, and the webhooks of `webhooks`.
fn webhook_index(kind: crdls_crd::SourceKind, webhooks: &str) -> CrdIndex {
    let crd = "apiVersion: apiextensions.k8s.io/v1\nkind: CustomResourceDefinition\nmetadata:\n  name: widgets.demo.crdls.dev\nspec:\n  group: demo.crdls.dev\n  names: {kind: Widget, plural: widgets}\n  scope: Namespaced\n  versions:\n  - name: v1\n    served: true\n    storage: true\n    schema:\n      openAPIV3Schema:\n        type: object\n        properties:\n          spec:\n            type: object\n            required: [paused, size, count, owner, limits, mode]\n            properties:\n              paused: {type: boolean}\n              size: {type: integer, minimum: 1}\n              count: {type: integer}\n              owner: {type: string}\n              limits: {type: object}\n              mode: {type: integer, enum: [1, 2]}\n              note: {type: string}\n";
    let stream = crdls_yaml::parse(crd);
    let mut index = CrdIndex::new();
    let origin = crdls_crd::Origin { kind, label: None };
    index.set_source_from(
        std::sync::Arc::from("crd.yaml"),
        origin,
        stream.documents.iter().flat_map(crdls_crd::Crd::from_document).collect(),
    );
    let stream = crdls_yaml::parse(webhooks);
    let found = stream.documents.iter().filter_map(|d| d.root.as_ref()).flat_map(|r| crdls_crd::admission::mutating_webhooks(r, &|_| true));
    index.set_webhooks("webhooks.yaml", found.collect());
    index
}

/// Each missing required field of a Widget without spec fields, with its severity.
fn missing_fields(index: &CrdIndex) -> Vec<(String, Severity)> {
    let widget = "apiVersion: demo.crdls.dev/v1\nkind: Widget\nmetadata:\n  name: w\nspec:\n  note: x\n";
    let stream = crdls_yaml::parse(widget);
    let found = check_stream(&stream, index, &CheckOptions::default()).diagnostics();
    let mut out: Vec<(String, Severity)> =
        found.iter().filter(|d| d.code == codes::SCHEMA_REQUIRED).map(|d| (d.path.clone().unwrap_or_default(), d.severity)).collect();
    out.sort();
    out
}

const MUTATING: &str = "apiVersion: admissionregistration.k8s.io/v1\nkind: MutatingWebhookConfiguration\nmetadata:\n  name: defaults\nwebhooks:\n- name: defaults.demo.crdls.dev\n";

#[test]
fn a_mutating_webhook_may_set_missing_booleans_and_numbers_before_validation() {
    use crdls_crd::SourceKind;
    let all_errors: Vec<(String, Severity)> = ["spec.count", "spec.limits", "spec.mode", "spec.owner", "spec.paused", "spec.size"]
        .iter()
        .map(|p| (p.to_string(), Severity::Error))
        .collect();
    let softened = |fields: &[&str]| -> Vec<(String, Severity)> {
        all_errors.iter().map(|(p, s)| (p.clone(), if fields.contains(&&p[5..]) { Severity::Warning } else { *s })).collect()
    };
    // Without a webhook, every missing field is an error.
    assert_eq!(missing_fields(&webhook_index(SourceKind::Workspace, "")), all_errors);
    // A webhook without rules covers the workspace's own CRDs: the boolean and the unbounded integer
    // become warnings; the integer whose minimum or enum refuses 0, the string and the object do not.
    assert_eq!(missing_fields(&webhook_index(SourceKind::Workspace, MUTATING)), softened(&["count", "paused"]));
    // Not a CRD that only the CRD paths give, nor for a validating webhook.
    assert_eq!(missing_fields(&webhook_index(SourceKind::Configured, MUTATING)), all_errors);
    let validating = MUTATING.replace("Mutating", "Validating");
    assert_eq!(missing_fields(&webhook_index(SourceKind::Workspace, &validating)), all_errors);
    // A rule that names the resource's create covers it wherever its CRD comes from; one for another
    // resource or only for updates does not.
    let rule = |resources: &str, operations: &str| {
        format!("{MUTATING}  rules:\n  - apiGroups: [demo.crdls.dev]\n    apiVersions: ['*']\n    resources: [{resources}]\n    operations: [{operations}]\n")
    };
    assert_eq!(missing_fields(&webhook_index(SourceKind::Configured, &rule("widgets", "CREATE"))), softened(&["count", "paused"]));
    assert_eq!(missing_fields(&webhook_index(SourceKind::Workspace, &rule("gadgets", "CREATE"))), all_errors);
    assert_eq!(missing_fields(&webhook_index(SourceKind::Workspace, &rule("widgets", "UPDATE"))), all_errors);
    // The warning names the webhook and says why.
    let stream = crdls_yaml::parse("apiVersion: demo.crdls.dev/v1\nkind: Widget\nmetadata:\n  name: w\nspec:\n  note: x\n");
    let found = check_stream(&stream, &webhook_index(SourceKind::Workspace, MUTATING), &CheckOptions::default()).diagnostics();
    let paused = found.iter().find(|d| d.path.as_deref() == Some("spec.paused")).unwrap();
    assert!(paused.message.starts_with("missing required field \"paused\"; the project's mutating webhook defaults.demo.crdls.dev (MutatingWebhookConfiguration defaults in webhooks.yaml)"), "{}", paused.message);
    assert!(paused.message.contains("writes `false`"), "{}", paused.message);
    // A status update is no create: its missing fields keep their errors.
    let status = CheckOptions { subresource: Subresource::Status, ..CheckOptions::default() };
    let found = check_stream(&stream, &webhook_index(SourceKind::Workspace, MUTATING), &status).diagnostics();
    assert!(found.iter().all(|d| d.severity != Severity::Warning || d.code != codes::SCHEMA_REQUIRED), "{found:?}");
}
