//! Tests of `hover`.

use crdls_test_fixture as fixture;
use expect_test::{expect, Expect};

use super::*;

#[test]
fn sources_that_are_uris_become_links() {
    assert_eq!(source_link("file:///w/crds/my_widgets.yaml"), "[my\\_widgets.yaml](file:///w/crds/my_widgets.yaml)");
    assert_eq!(source_link("crds/widgets.yaml"), "`crds/widgets.yaml`");
    assert_eq!(source_link("file:///w/a (copy).yaml"), "`file:///w/a (copy).yaml`");
}

#[test]
fn sources_outside_the_workspace_are_named_by_where_they_came_from() {
    use crdls_crd::{Origin, SourceKind};
    let mut index = CrdIndex::new();
    let crds = || fixture::index(&crd()).iter().map(|c| (*c.crd).clone()).collect::<Vec<_>>();
    let url = Origin { kind: SourceKind::Url, label: Some("https://example.com/widgets.yaml".into()) };
    index.set_source_from("file:///cache/urls/ab-widgets.yaml".into(), url, crds());
    assert_eq!(
        source_name(&index, "file:///cache/urls/ab-widgets.yaml"),
        "`https://example.com/widgets.yaml` (cached as [ab-widgets.yaml](file:///cache/urls/ab-widgets.yaml))"
    );
    let cluster = Origin { kind: SourceKind::Cluster, label: Some("cluster kind-dev".into()) };
    index.set_source_from("file:///cache/cluster/cd-kind-dev.yaml".into(), cluster, crds());
    assert_eq!(
        source_name(&index, "file:///cache/cluster/cd-kind-dev.yaml"),
        "cluster kind-dev (cached as [cd-kind-dev.yaml](file:///cache/cluster/cd-kind-dev.yaml))"
    );
    let member = "file:///w/charts/app-1.0.0.tgz!/app/crds/widgets.yaml";
    index.set_source_from(member.into(), Origin { kind: SourceKind::ChartArchive, label: None }, crds());
    assert_eq!(source_name(&index, member), "chart archive `app-1.0.0.tgz`, `app/crds/widgets.yaml`");
    assert_eq!(source_name(&index, "file:///w/crds/widgets.yaml"), "[widgets.yaml](file:///w/crds/widgets.yaml)");

    // The archive's definition wins over the URL's and the cluster's, and the hover says so.
    let used = match index.resolve("demo.crdls.dev/v1", "Widget") {
        Resolution::Found { crd, .. } => crd.clone(),
        other => panic!("{other:?}"),
    };
    assert_eq!(&*used.source, member);
    assert_eq!(
        choice(&index, "demo.crdls.dev/v1", "Widget"),
        " Chosen for this file among 3 definitions: `https://example.com/widgets.yaml` (cached as \
         [ab-widgets.yaml](file:///cache/urls/ab-widgets.yaml)) comes later in precedence (a URL source); cluster kind-dev \
         (cached as [cd-kind-dev.yaml](file:///cache/cluster/cd-kind-dev.yaml)) comes later in precedence (a cluster source)."
    );
}

fn crd() -> String {
    fixture::Crd::new("Widget")
        .short_names(&["wdg"])
        .categories(&["all"])
        .schema(
            r#"
            type: object
            properties:
              spec:
                type: object
                required: [size]
                x-kubernetes-validations:
                - rule: "self.size <= self.maxSize"
                  message: size must not exceed maxSize
                properties:
                  size:
                    type: integer
                    minimum: 1
                    maximum: 10
                    description: The size of the widget.
                  maxSize: {type: integer, default: 10}
                  owner: {type: string, pattern: '^[a-z]+$', maxLength: 16}
                  ports:
                    type: array
                    x-kubernetes-list-type: map
                    x-kubernetes-list-map-keys: [name]
                    items:
                      type: object
                      properties:
                        name: {type: string}
                        protocol: {type: string, enum: [TCP, UDP], default: TCP, description: "The protocol."}
                  labels:
                    type: object
                    additionalProperties: {type: string}
            "#,
        )
        .version(fixture::Version::new("v1beta1").deprecated().schema("{type: object}"))
        .yaml()
}

/// Hovers at `$0` and renders the hovered text, then the Markdown.
fn check_hover(crd_yaml: &str, doc_with_cursor: &str, expect: Expect) {
    let offset = doc_with_cursor.find("$0").expect("the fixture has a $0 cursor");
    let text = doc_with_cursor.replacen("$0", "", 1);
    let stream = crdls_yaml::parse(&text);
    let got = match hover(&text, &stream, &fixture::index(crd_yaml), offset, crdls_builtins::newest()) {
        Some(h) => format!("{:?}\n{}", &text[h.range.start..h.range.end], h.markdown),
        None => "none".to_string(),
    };
    expect.assert_eq(&got);
}

const DOC: &str = "apiVersion: demo.crdls.dev/v1\nkind: Widget\nmetadata:\n  name: w\n  labels:\n    app: web\nspec:\n  size: 3\n  maxSize: 5\n  owner: me\n  ports:\n  - name: http\n    protocol: TCP\n";

/// `DOC` with the cursor after the first occurrence of `at`.
fn doc_at(at: &str) -> String {
    let i = DOC.find(at).map_or(0, |i| i + at.len());
    format!("{}$0{}", &DOC[..i], &DOC[i..])
}

#[test]
fn hover_on_a_key_with_a_cel_rule() {
    check_hover(
        &crd(),
        &doc_at("spe"),
        expect![[r#"
        "spec"
        `spec`: **object**

        Validation rules:
        - `self.size <= self.maxSize`: size must not exceed maxSize

        Defined by CRD `widgets.demo.crdls.dev`, version `v1`, in `crd.yaml`."#]],
    );
}

#[test]
fn a_built_in_kind_is_described_by_the_release_the_settings_name() {
    // Pod's `spec.schedulingGroup` is new in 1.36 (it took the place of 1.35's `workloadRef`).
    let text = "apiVersion: v1\nkind: Pod\nmetadata:\n  name: p\nspec:\n  schedulingGroup: {}\n  containers: []\n";
    let stream = crdls_yaml::parse(text);
    let at = text.find("schedulingGroup").unwrap() + 3;
    let hover_in = |minor: u16| hover(text, &stream, &CrdIndex::new(), at, crdls_builtins::KubeVersion::new(1, minor));
    assert!(hover_in(36).unwrap().markdown.ends_with("Part of the built-in kind `Pod` (`v1`), Kubernetes 1.36."));
    assert!(hover_in(37).unwrap().markdown.ends_with("Kubernetes 1.37."));
    assert_eq!(hover_in(35), None);
    let at = text.find("containers").unwrap() + 3;
    let old = hover(text, &stream, &CrdIndex::new(), at, crdls_builtins::KubeVersion::new(1, 35)).unwrap();
    assert!(old.markdown.ends_with("Kubernetes 1.35."), "{}", old.markdown);
}

#[test]
fn hover_on_a_field_of_a_built_in_kind() {
    check_hover(
        "",
        "apiVersion: v1\nkind: Service\nmetadata:\n  name: web\nspec:\n  ports:\n    - port: 80\n      proto$0col: TCP\n",
        expect![[r#"
            "protocol"
            `spec.ports[0].protocol`: **string**

            Default: `TCP`.

            Part of the built-in kind `Service` (`v1`), Kubernetes 1.37."#]],
    );
}

#[test]
fn hover_on_a_value_with_bounds() {
    check_hover(
        &crd(),
        &doc_at("size: 3"),
        expect![[r#"
        "3"
        `spec.size`: **integer**

        Required.

        - minimum: `1`
        - maximum: `10`

        The size of the widget.

        Defined by CRD `widgets.demo.crdls.dev`, version `v1`, in `crd.yaml`."#]],
    );
}

#[test]
fn hover_on_a_list_item_key_with_a_default() {
    check_hover(
        &crd(),
        &doc_at("    protoc"),
        expect![[r#"
        "protocol"
        `spec.ports[0].protocol`: **string**

        Default: `TCP`.

        - one of: `TCP`, `UDP`

        The protocol.

        Defined by CRD `widgets.demo.crdls.dev`, version `v1`, in `crd.yaml`."#]],
    );
    check_hover(
        &crd(),
        &doc_at("ports"),
        expect![[r#"
        "ports"
        `spec.ports`: **[]object**

        - list type: `map`, keys `name`

        Defined by CRD `widgets.demo.crdls.dev`, version `v1`, in `crd.yaml`."#]],
    );
}

#[test]
fn hover_on_metadata_and_map_keys() {
    check_hover(
        &crd(),
        &doc_at("  na"),
        expect![[r#"
        "name"
        `metadata.name`: **string**

        Name must be unique within a namespace. It is required when creating resources, unless `generateName` is set, and cannot be updated.

        Defined by Kubernetes for every object."#]],
    );
    check_hover(
        &crd(),
        &doc_at("    ap"),
        expect![[r#"
        "app"
        `metadata.labels[app]`: **string**

        Defined by Kubernetes for every object."#]],
    );
    check_hover(
        &crd(),
        &doc_at("ap"),
        expect![[r#"
        "apiVersion"
        `apiVersion`: **string**

        Required.

        APIVersion defines the versioned schema of this representation of an object: `group/version`.

        Defined by Kubernetes for every object."#]],
    );
}

#[test]
fn hover_on_api_version_and_kind() {
    check_hover(
        &crd(),
        &doc_at("demo.crdls"),
        expect![[r#"
        "demo.crdls.dev/v1"
        **Widget** (CRD `widgets.demo.crdls.dev`)

        - group: `demo.crdls.dev`
        - scope: Namespaced
        - plural: `widgets`
        - versions: **`v1`** (served, storage), `v1beta1` (served, deprecated)
        - short names: `wdg`
        - categories: `all`

        Defined in `crd.yaml`."#]],
    );
    check_hover(
        &crd(),
        &doc_at("kind: Wid"),
        expect![[r#"
        "Widget"
        **Widget** (CRD `widgets.demo.crdls.dev`)

        - group: `demo.crdls.dev`
        - scope: Namespaced
        - plural: `widgets`
        - versions: **`v1`** (served, storage), `v1beta1` (served, deprecated)
        - short names: `wdg`
        - categories: `all`

        Defined in `crd.yaml`."#]],
    );
    check_hover(
        &crd(),
        &doc_at("kin"),
        expect![[r#"
        "kind"
        `kind`: **string**

        Required.

        Kind is a string value representing the REST resource this object represents.

        Defined by Kubernetes for every object."#]],
    );
}

#[test]
fn no_hover_on_unknown_fields_or_odd_offsets() {
    check_hover(&crd(), "apiVersion: demo.crdls.dev/v1\nkind: Widget\nspec:\n  bogus$0: 1\n", expect!["none"]);
    check_hover(
        &crd(),
        "apiVersion: demo.crdls.dev/v1\nkind: Widget\nspec:\n  owner: é$0\n",
        expect![[r#"
        "é"
        `spec.owner`: **string**

        - max length: `16`
        - pattern: `^[a-z]+$`

        Defined by CRD `widgets.demo.crdls.dev`, version `v1`, in `crd.yaml`."#]],
    );
    let index = fixture::index(&crd());
    for text in ["", "é", DOC] {
        let stream = crdls_yaml::parse(text);
        for offset in 0..=text.len() + 2 {
            let _ = hover(text, &stream, &index, offset, crdls_builtins::newest());
        }
    }
}

/// Documentation that names what it was asked for, so the test sees the way down to the field.
struct EchoDocs;

impl FieldDocs for EchoDocs {
    fn describe(
        &self,
        kube: KubeVersion,
        group: &str,
        version: &str,
        kind: &str,
        steps: &[DocStep],
    ) -> Option<crdls_builtins::docs::FieldDoc> {
        let steps: Vec<String> = steps
            .iter()
            .map(|s| match s {
                DocStep::Property(name) => name.clone(),
                DocStep::Item => "[]".into(),
                DocStep::Value => "{}".into(),
            })
            .collect();
        Some(crdls_builtins::docs::FieldDoc {
            text: format!("Asked for {kind} of {group:?} {version} at {}.", steps.join(" ")),
            source: format!("Echo of {kube}"),
        })
    }
}

/// A built-in object's field is followed by what the documentation says, below today's hover;
/// custom resources are not asked about.
#[test]
fn built_in_fields_are_followed_by_their_documentation() {
    let text = "apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  labels:\n    app: web\nspec:\n  template:\n    spec:\n      containers:\n      - name: web\n        image: nginx\n";
    let stream = crdls_yaml::parse(text);
    let index = CrdIndex::new();
    let kube = crdls_builtins::newest();
    let at = |needle: &str| text.find(needle).unwrap() + 1;
    let with = crate::hover_with_docs(text, &stream, &index, at("image"), kube, &EchoDocs).unwrap().markdown;
    let without = hover(text, &stream, &index, at("image"), kube).unwrap().markdown;
    assert_eq!(
        with,
        format!("{without}\n\n---\n\nAsked for Deployment of \"apps\" v1 at spec template spec containers [] image.\n\n*Echo of {kube}.*")
    );
    let labels = crate::hover_with_docs(text, &stream, &index, at("app:"), kube, &EchoDocs).unwrap().markdown;
    assert!(labels.contains("Asked for Deployment of \"apps\" v1 at metadata labels {}."), "{labels}");
    let explained = crate::explain_builtin_field("apps/v1", "Deployment", "spec.template.spec.containers.image", kube, &EchoDocs).unwrap();
    assert_eq!(explained, with, "the command line shows what the hover shows");
    assert_eq!(
        crate::explain_builtin_field("apps/v1", "Deployment", "spec.template.spec.containers[].image", kube, &EchoDocs),
        Ok(explained)
    );
    let replicas = text.replace("spec:\n  template", "spec:\n  replicas: 1\n  template");
    let hovered = hover(&replicas, &crdls_yaml::parse(&replicas), &index, replicas.find("replicas").unwrap() + 1, kube).unwrap();
    assert_eq!(crate::explain_builtin_field("apps/v1", "Deployment", "spec.replicas", kube, &NoDocs), Ok(hovered.markdown));
    assert_eq!(
        crate::explain_builtin_field("apps/v1", "Deployment", "spec.tempalte", kube, &NoDocs),
        Err(format!("Deployment spec has no field tempalte in Kubernetes {kube}"))
    );
    assert_eq!(
        crate::explain_builtin_field("apps/v1", "Deploymnet", "spec", kube, &NoDocs),
        Err(format!("Kubernetes {kube} serves no built-in kind Deploymnet in apps/v1; did you mean Deployment?"))
    );
    assert!(crate::explain_builtin_field("apps/v1", "Deployment", "spec..x", kube, &NoDocs).is_err());
    let size = DOC.find("size").unwrap() + 1;
    let widget = crate::hover_with_docs(DOC, &crdls_yaml::parse(DOC), &fixture::index(&crd()), size, kube, &EchoDocs).unwrap();
    assert!(widget.markdown.starts_with("`spec.size`") && !widget.markdown.contains("Asked for"), "{}", widget.markdown);
}
