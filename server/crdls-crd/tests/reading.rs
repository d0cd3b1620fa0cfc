//! Tests of CRD reading and of the index.

use std::sync::Arc;

use expect_test::expect;

use crdls_crd::{Crd, CrdApiVersion, CrdIndex, Resolution};
use crdls_test_fixture as fixture;

fn crds(text: &str) -> Vec<Crd> {
    crdls_yaml::parse(text).documents.iter().flat_map(Crd::from_document).collect()
}

// The reader's own input, written out rather than with `fixture::Crd`: its versions are out of priority
// order on purpose, and a document that is not a CRD follows.
const V1: &str = "\
apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata:
  name: widgets.example.com
spec:
  group: example.com
  scope: Namespaced
  names: {kind: Widget, plural: widgets, shortNames: [wd]}
  versions:
  - name: v1alpha1
    served: true
    storage: false
    deprecated: true
    deprecationWarning: use v1
    schema:
      openAPIV3Schema:
        type: object
  - name: v1
    served: true
    storage: true
    schema:
      openAPIV3Schema:
        type: object
        properties:
          spec:
            type: object
            required: [size]
            properties:
              size: {type: integer, maximum: 10}
---
apiVersion: v1
kind: ConfigMap
metadata: {name: not-a-crd}
";

#[test]
fn reads_v1_crds_in_priority_order() {
    let crds = crds(V1);
    assert_eq!(crds.len(), 1);
    let crd = &crds[0];
    assert_eq!(crd.api_version, CrdApiVersion::V1);
    assert_eq!((crd.group.as_str(), crd.names.kind.as_str(), crd.names.plural.as_str()), ("example.com", "Widget", "widgets"));
    let names: Vec<&str> = crd.versions.iter().map(|v| v.name.as_str()).collect();
    assert_eq!(names, ["v1", "v1alpha1"]);
    let alpha = crd.version("v1alpha1").unwrap();
    assert!(alpha.deprecated && !alpha.storage && alpha.served);
    assert_eq!(alpha.deprecation_warning.as_deref(), Some("use v1"));
    let spec = crd.version("v1").unwrap().schema().unwrap().property("spec").unwrap();
    assert_eq!(&*spec.schema.required, ["size"]);
    let size = &spec.schema.property("size").unwrap().schema;
    assert_eq!((size.ty.as_deref(), size.rare().maximum), (Some("integer"), Some(10.0)));
    assert_eq!(&V1[size.range.start..size.range.end], "{type: integer, maximum: 10}");
}

#[test]
fn reads_legacy_v1beta1_and_json_and_lists() {
    let legacy = crds(
        "apiVersion: apiextensions.k8s.io/v1beta1\nkind: CustomResourceDefinition\nmetadata: {name: olds.example.com}\nspec:\n  group: example.com\n  version: v1beta1\n  names: {kind: Old, plural: olds}\n  validation:\n    openAPIV3Schema:\n      type: object\n      properties:\n        spec: {type: string}\n",
    );
    assert_eq!(legacy[0].api_version, CrdApiVersion::V1beta1);
    let v = legacy[0].version("v1beta1").unwrap();
    assert!(v.served && v.storage);
    assert!(v.schema().unwrap().property("spec").is_some());

    let json = crds(
        r#"{"apiVersion": "apiextensions.k8s.io/v1", "kind": "CustomResourceDefinition", "metadata": {"name": "js.example.com"},
        "spec": {"group": "example.com", "names": {"kind": "J", "plural": "js"}, "scope": "Cluster",
        "versions": [{"name": "v1", "served": true, "storage": true, "schema": {"openAPIV3Schema": {"type": "object"}}}]}}"#,
    );
    assert_eq!(json[0].names.kind, "J");

    let list = format!("apiVersion: v1\nkind: List\nitems:\n- {}\n", V1.split("---").next().unwrap().replace('\n', "\n  "));
    assert_eq!(crds(&list).len(), 1);
}

#[test]
fn index_resolves_and_updates_one_source_at_a_time() {
    let mut index = CrdIndex::new();
    index.set_source(Arc::from("a.yaml"), crds(&fixture::Crd::new("Widget").group("example.com").yaml()));
    index.set_source(Arc::from("b.yaml"), crds(&fixture::Crd::new("Gadget").group("example.com").yaml()));
    assert_eq!(index.len(), 2);
    assert!(matches!(index.resolve("example.com/v1", "Widget"), Resolution::Found { version, .. } if version.name == "v1"));
    assert!(matches!(index.resolve("example.com/v2", "Widget"), Resolution::UnknownVersion { .. }));
    match index.resolve("example.com/v1", "Widgit") {
        Resolution::UnknownKind { known_kinds } => assert_eq!(known_kinds, ["Gadget", "Widget"]),
        other => panic!("{other:?}"),
    }
    assert!(matches!(index.resolve("apps/v1", "Deployment"), Resolution::UnknownGroup));
    index.set_source(Arc::from("a.yaml"), Vec::new());
    assert_eq!(index.len(), 1);
    assert!(matches!(index.resolve("example.com/v1", "Widget"), Resolution::UnknownKind { .. }));
    assert!(matches!(index.resolve("example.com/v1", "Gadget"), Resolution::Found { .. }));
}

#[test]
fn an_object_resolves_to_the_nearest_definition_that_serves_its_version() {
    use crdls_crd::PassedOver;
    let only = |version: &str| crds(&fixture::Crd::new("Widget").group("example.com").storage_version(version).yaml());
    let mut index = CrdIndex::new();
    // An old test fixture, found (and indexed) first, that serves only v1alpha2.
    index.set_source(Arc::from("test/fixtures/old/crd.yaml"), only("v1alpha2"));
    index.set_source(Arc::from("config/crd/widgets.yaml"), only("v1"));
    index.set_source(Arc::from("config/samples/crd.yaml"), only("v1"));
    index.set_source(Arc::from("deploy/crd.yaml"), only("v1"));
    index.set_source(Arc::from("test/scenarios/a/crd.yaml"), only("v1beta1"));
    index.set_source(Arc::from("test/scenarios/b/crd.yaml"), only("v1beta2"));
    let used = |from: &str, api_version: &str| match index.seen_from(from).resolve(api_version, "Widget") {
        Resolution::Found { crd, .. } => crd.source.to_string(),
        Resolution::UnknownVersion { crd } => format!("unknown version, nearest {}", crd.source),
        other => panic!("{other:?}"),
    };
    // A definition that serves the version beats a nearer one that does not.
    assert_eq!(used("test/fixtures/old/widget.yaml", "example.com/v1"), "deploy/crd.yaml");
    assert_eq!(used("test/fixtures/old/widget.yaml", "example.com/v1alpha2"), "test/fixtures/old/crd.yaml");
    // Among those that serve it, the one sharing the most directories with the object's file.
    assert_eq!(used("config/samples/widget.yaml", "example.com/v1"), "config/samples/crd.yaml");
    assert_eq!(used("config/overlays/prod/widget.yaml", "example.com/v1"), "config/crd/widgets.yaml");
    assert_eq!(used("./deploy/widget.yaml", "example.com/v1"), "deploy/crd.yaml");
    // As near (nothing shared): the shallowest, then the first by name.
    assert_eq!(used("examples/widget.yaml", "example.com/v1"), "deploy/crd.yaml");
    assert_eq!(used("widget.yaml", "example.com/v1"), "deploy/crd.yaml");
    // A directory of alternatives: each version finds the alternative that serves it.
    assert_eq!(used("test/e2e/widget.yaml", "example.com/v1beta1"), "test/scenarios/a/crd.yaml");
    assert_eq!(used("test/e2e/widget.yaml", "example.com/v1beta2"), "test/scenarios/b/crd.yaml");
    assert_eq!(used("test/e2e/widget.yaml", "example.com/v2"), "unknown version, nearest test/fixtures/old/crd.yaml");
    // URIs compare alike, and the choice does not depend on the order sources were indexed in.
    let mut uris = CrdIndex::new();
    uris.set_source(Arc::from("file:///w/b/crd.yaml"), only("v1"));
    uris.set_source(Arc::from("file:///w/a/crd.yaml"), only("v1"));
    let seen = uris.seen_from("file:///w/x.yaml");
    let Resolution::Found { crd, .. } = seen.resolve("example.com/v1", "Widget") else { panic!() };
    assert_eq!(&*crd.source, "file:///w/a/crd.yaml");
    // Why the others were passed over.
    let seen = index.seen_from("config/samples/widget.yaml");
    let why: Vec<(String, Option<PassedOver>)> =
        seen.definitions("example.com/v1", "Widget").iter().map(|d| (d.crd.source.to_string(), d.passed_over)).collect();
    assert_eq!(
        why,
        [
            ("config/samples/crd.yaml".to_string(), None),
            ("config/crd/widgets.yaml".to_string(), Some(PassedOver::Farther)),
            ("deploy/crd.yaml".to_string(), Some(PassedOver::Farther)),
            ("test/fixtures/old/crd.yaml".to_string(), Some(PassedOver::Version)),
            ("test/scenarios/a/crd.yaml".to_string(), Some(PassedOver::Version)),
            ("test/scenarios/b/crd.yaml".to_string(), Some(PassedOver::Version)),
        ]
    );
}

/// An OLM bundle's copy of a CRD (generated by `make bundle`, as old as the last release) is nearer to
/// an example by the tree rule, but among definitions that serve the version the project's own wins;
/// the copy still serves a version only it declares, and objects of the bundle itself use it.
#[test]
fn a_packaging_copy_yields_to_the_projects_own_definition() {
    use crdls_crd::PassedOver;
    let only = |version: &str| crds(&fixture::Crd::new("Widget").group("example.com").storage_version(version).yaml());
    let mut index = CrdIndex::new();
    index.set_source(Arc::from("bundle/manifests/example.com_widgets.yaml"), only("v1"));
    index.set_source(Arc::from("config/crd/bases/v1/example.com_widgets.yaml"), only("v1"));
    index.set_source(Arc::from("olm/manifests/example.com_widgets.yaml"), only("v1alpha1"));
    let used = |index: &CrdIndex, from: &str, api_version: &str| match index.seen_from(from).resolve(api_version, "Widget") {
        Resolution::Found { crd, .. } => crd.source.to_string(),
        other => panic!("{other:?}"),
    };
    // Unmarked, the bundle's copy is the nearer (fewer directories below the common ancestor).
    assert_eq!(used(&index, "examples/widget.yaml", "example.com/v1"), "bundle/manifests/example.com_widgets.yaml");
    index.set_packaged("bundle/manifests/example.com_widgets.yaml", true);
    index.set_packaged("olm/manifests/example.com_widgets.yaml", true);
    assert_eq!(used(&index, "examples/widget.yaml", "example.com/v1"), "config/crd/bases/v1/example.com_widgets.yaml");
    // Serving the version still comes first.
    assert_eq!(used(&index, "examples/widget.yaml", "example.com/v1alpha1"), "olm/manifests/example.com_widgets.yaml");
    // An object of the bundle itself uses the bundle's definition.
    assert_eq!(used(&index, "bundle/manifests/widget.yaml", "example.com/v1"), "bundle/manifests/example.com_widgets.yaml");
    let seen = index.seen_from("examples/widget.yaml");
    let why: Vec<(String, Option<PassedOver>)> =
        seen.definitions("example.com/v1", "Widget").iter().map(|d| (d.crd.source.to_string(), d.passed_over)).collect();
    assert_eq!(
        why,
        [
            ("config/crd/bases/v1/example.com_widgets.yaml".to_string(), None),
            ("bundle/manifests/example.com_widgets.yaml".to_string(), Some(PassedOver::Packaged)),
            ("olm/manifests/example.com_widgets.yaml".to_string(), Some(PassedOver::Version)),
        ]
    );
    // Unmarked again (the CSV went away), the tree rule decides.
    index.set_packaged("bundle/manifests/example.com_widgets.yaml", false);
    assert_eq!(used(&index, "examples/widget.yaml", "example.com/v1"), "bundle/manifests/example.com_widgets.yaml");
}

/// A project that keeps one bundle per release beside each other (`docs/crds-v1.10.0.yaml` …
/// `docs/crds-v3.31.0.yaml`): all as near to an example, the newest wins, not the first in byte order;
/// and an `apiextensions.k8s.io/v1beta1` definition, which no cluster since 1.22 installs, loses to a v1
/// one as near whatever the names.
#[test]
fn among_definitions_as_near_the_newest_release_a_cluster_can_install_wins() {
    use crdls_crd::PassedOver;
    let v1 = |schema: &str| {
        crds(&format!(
            "apiVersion: apiextensions.k8s.io/v1\nkind: CustomResourceDefinition\nmetadata: {{name: widgets.example.com}}\nspec:\n  group: example.com\n  names: {{kind: Widget, plural: widgets}}\n  scope: Namespaced\n  versions:\n  - name: v1alpha1\n    served: true\n    storage: true\n    schema:\n      openAPIV3Schema: {{type: object, properties: {{spec: {{type: {schema}}}}}}}\n"
        ))
    };
    let legacy = crds("apiVersion: apiextensions.k8s.io/v1beta1\nkind: CustomResourceDefinition\nmetadata: {name: widgets.example.com}\nspec:\n  group: example.com\n  version: v1alpha1\n  names: {kind: Widget, plural: widgets}\n  validation:\n    openAPIV3Schema:\n      type: object\n      properties:\n        spec: {type: string}\n");
    let mut index = CrdIndex::new();
    index.set_source(Arc::from("docs/crds-v1.10.0.yaml"), legacy.clone());
    index.set_source(Arc::from("docs/crds-v1.13.6.yaml"), v1("string"));
    index.set_source(Arc::from("docs/crds-v3.9.0.yaml"), v1("string"));
    index.set_source(Arc::from("docs/crds-v3.31.0-rc1.yaml"), v1("object"));
    index.set_source(Arc::from("docs/crds-v3.31.0.yaml"), v1("object"));
    let seen = index.seen_from("docs/examples/widget.yaml");
    let Resolution::Found { crd, .. } = seen.resolve("example.com/v1alpha1", "Widget") else { panic!() };
    assert_eq!(&*crd.source, "docs/crds-v3.31.0.yaml");
    let why: Vec<(String, Option<PassedOver>)> =
        seen.definitions("example.com/v1alpha1", "Widget").iter().map(|d| (d.crd.source.to_string(), d.passed_over)).collect();
    assert_eq!(
        why,
        [
            ("docs/crds-v3.31.0.yaml".to_string(), None),
            ("docs/crds-v3.31.0-rc1.yaml".to_string(), Some(PassedOver::Order)),
            ("docs/crds-v3.9.0.yaml".to_string(), Some(PassedOver::Order)),
            ("docs/crds-v1.13.6.yaml".to_string(), Some(PassedOver::Order)),
            ("docs/crds-v1.10.0.yaml".to_string(), Some(PassedOver::Legacy)),
        ]
    );
    // Names that differ in no number keep byte order; a v1beta1 definition as near loses whatever its name.
    let mut plain = CrdIndex::new();
    plain.set_source(Arc::from("b/crd.yaml"), v1("object"));
    plain.set_source(Arc::from("a/crd.yaml"), legacy);
    plain.set_source(Arc::from("c/crd.yaml"), v1("object"));
    let seen = plain.seen_from("x.yaml");
    let Resolution::Found { crd, .. } = seen.resolve("example.com/v1alpha1", "Widget") else { panic!() };
    assert_eq!(&*crd.source, "b/crd.yaml");
}

#[test]
fn the_kind_of_source_decides_which_definition_wins() {
    use crdls_crd::{Origin, SourceKind};
    let widget = || crds(&fixture::Crd::new("Widget").group("example.com").yaml());
    let from = |kind, label: &str| Origin { kind, label: Some(Arc::from(label)) };
    let mut index = CrdIndex::new();
    // Indexed in the reverse of their precedence, as a language server may find them.
    index.set_source_from(Arc::from("cache/cluster.yaml"), from(SourceKind::Cluster, "cluster dev"), widget());
    index.set_source_from(Arc::from("cache/url.yaml"), from(SourceKind::Url, "https://example.com/crds.yaml"), widget());
    index.set_source_from(Arc::from("charts/a.tgz!/a/crds/w.yaml"), Origin { kind: SourceKind::ChartArchive, label: None }, widget());
    let winner = |index: &CrdIndex| match index.resolve("example.com/v1", "Widget") {
        Resolution::Found { crd, .. } => (crd.source.to_string(), crd.kind),
        other => panic!("{other:?}"),
    };
    assert_eq!(winner(&index), ("charts/a.tgz!/a/crds/w.yaml".to_string(), SourceKind::ChartArchive));
    index.set_source(Arc::from("crds/w.yaml"), widget());
    assert_eq!(winner(&index), ("crds/w.yaml".to_string(), SourceKind::Workspace));
    assert_eq!(index.origin_of("cache/url.yaml").label.as_deref(), Some("https://example.com/crds.yaml"));
    assert_eq!(index.origin_of("crds/w.yaml"), Origin::default());
    index.remove_source("crds/w.yaml");
    index.remove_source("charts/a.tgz!/a/crds/w.yaml");
    assert_eq!(winner(&index), ("cache/url.yaml".to_string(), SourceKind::Url));
    index.remove_source("cache/url.yaml");
    assert_eq!(index.origin_of("cache/url.yaml"), Origin::default());
    assert_eq!(winner(&index).1, SourceKind::Cluster);
}

#[test]
fn schema_nodes_stay_small() {
    // A large CRD set holds tens of thousands of schema nodes: rare keywords live behind one box.
    assert!(std::mem::size_of::<crdls_crd::Schema>() <= 232, "Schema grew to {} bytes", std::mem::size_of::<crdls_crd::Schema>());
}

#[test]
fn the_fixture_writes_a_whole_crd_around_a_schema() {
    let widget = fixture::Crd::new("Widget")
        .short_names(&["wdg"])
        .categories(&["all"])
        .schema(
            r#"
            type: object
            properties:
              spec:
                type: object
                properties:
                  size: {type: integer}
            "#,
        )
        .version(fixture::Version::new("v1beta1").deprecation_warning("use \"v1\""))
        .version(fixture::Version::new("v1alpha1").not_served().schema("{type: object}"));
    let gadget = fixture::Crd::new("Gadget").group("example.com").cluster_scoped().storage_version("v1alpha1");
    let yaml = fixture::join(&[widget, gadget]);
    expect![[r#"
        apiVersion: apiextensions.k8s.io/v1
        kind: CustomResourceDefinition
        metadata:
          name: widgets.demo.crdls.dev
        spec:
          group: demo.crdls.dev
          scope: Namespaced
          names:
            kind: Widget
            plural: widgets
            singular: widget
            listKind: WidgetList
            shortNames: [wdg]
            categories: [all]
          versions:
          - name: v1
            served: true
            storage: true
            schema:
              openAPIV3Schema:
                type: object
                properties:
                  spec:
                    type: object
                    properties:
                      size: {type: integer}
          - name: v1beta1
            served: true
            storage: false
            deprecated: true
            deprecationWarning: "use \"v1\""
            schema:
              openAPIV3Schema:
                type: object
          - name: v1alpha1
            served: false
            storage: false
            schema:
              openAPIV3Schema: {type: object}
        ---
        apiVersion: apiextensions.k8s.io/v1
        kind: CustomResourceDefinition
        metadata:
          name: gadgets.example.com
        spec:
          group: example.com
          scope: Cluster
          names:
            kind: Gadget
            plural: gadgets
            singular: gadget
            listKind: GadgetList
          versions:
          - name: v1alpha1
            served: true
            storage: true
            schema:
              openAPIV3Schema:
                type: object
    "#]]
    .assert_eq(&yaml);

    // The reader takes every fact back as written.
    let index = fixture::index(&yaml);
    assert_eq!(index.sources().map(|s| &**s).collect::<Vec<_>>(), [fixture::SOURCE]);
    let Resolution::Found { crd, version } = index.resolve("demo.crdls.dev/v1", "Widget") else { panic!("Widget/v1 resolves") };
    let names = &crd.crd.names;
    assert_eq!(
        (names.plural.as_str(), names.singular.as_deref(), names.list_kind.as_deref()),
        ("widgets", Some("widget"), Some("WidgetList"))
    );
    assert_eq!((names.short_names.as_slice(), names.categories.as_slice()), (&["wdg".to_string()][..], &["all".to_string()][..]));
    assert!(version.storage && version.schema().unwrap().property("spec").unwrap().schema.property("size").is_some());
    let beta = crd.crd.version("v1beta1").unwrap();
    assert!(beta.served && !beta.storage && beta.deprecated);
    assert_eq!(beta.deprecation_warning.as_deref(), Some("use \"v1\""));
    assert!(!crd.crd.version("v1alpha1").unwrap().served);
    let Resolution::Found { crd, version } = index.resolve("example.com/v1alpha1", "Gadget") else { panic!("Gadget/v1alpha1 resolves") };
    assert_eq!((crd.crd.scope.as_str(), version.storage), ("Cluster", true));
}

#[test]
fn properties_are_found_by_binary_search_first_written_first() {
    // 50,000 properties in reverse order, and one name written twice (YAML reports the duplicate;
    // the first one is the property, as a scan in source order finds it).
    let mut text = String::from("type: object\nproperties:\n");
    for i in (0..50_000).rev() {
        text.push_str(&format!("  p{i}: {{type: string, description: d{i}}}\n"));
    }
    text.push_str("  p7: {type: integer}\n");
    let stream = crdls_yaml::parse(&text);
    let schema = crdls_crd::Schema::from_node(stream.documents[0].root.as_ref().unwrap());
    // The index is a permutation sorted by name: what makes a lookup logarithmic, not linear.
    let names: Vec<&str> = schema.property_order.iter().map(|&i| schema.properties[i as usize].name.as_str()).collect();
    assert_eq!(names.len(), schema.properties.len());
    assert!(names.windows(2).all(|w| w[0] <= w[1]));
    let found = |s: &crdls_crd::Schema, name: &str| s.property(name).map(|p| format!("{:?} {:?}", p.schema.ty, p.schema.description));
    let lookups: Vec<_> = ["p0", "p7", "p49999", "p50000", ""].iter().map(|n| found(&schema, n)).collect();
    expect![[r#"
        [
            Some(
                "Some(\"string\") Some(\"d0\")",
            ),
            Some(
                "Some(\"string\") Some(\"d7\")",
            ),
            Some(
                "Some(\"string\") Some(\"d49999\")",
            ),
            None,
            None,
        ]
    "#]]
    .assert_debug_eq(&lookups);
    // A schema built by hand, without the index, is searched in order.
    let mut by_hand = crdls_crd::Schema::default();
    by_hand.properties = schema.properties.clone();
    assert_eq!(found(&by_hand, "p7"), found(&schema, "p7"));
}

fn reader(text: &str) -> crdls_crd::TextReader {
    let text: Arc<str> = Arc::from(text);
    Arc::new(move || Some(text.clone()))
}

/// Reads `text` identity first and whole, and checks both read the same (schemas and ranges
/// included); returns whether the schemas were cut out before parsing.
fn identities_agree(text: &str) -> bool {
    let lazy = Crd::read_identities(text, reader(text));
    assert!(lazy.iter().flat_map(|c| &c.versions).all(|v| !v.schema_is_built()), "schemas are built on first use only");
    if let Err(e) = fixture::readings_agree(&lazy, &crds(text)) {
        panic!("identity-first reading differs for:\n{text}\n{e}");
    }
    Crd::identities_are_read_cut(text)
}

#[test]
fn identity_first_reading_agrees_with_reading_whole() {
    // Block style: the schemas are cut out.
    assert!(identities_agree(V1));
    assert!(identities_agree(&format!("# leading comment\n---\n{V1}---\n{V1}")));
    for file in ["widgets.yaml", "scalers.yaml", "gadgets-v1beta1.yaml"] {
        let text = std::fs::read_to_string(format!("{}/../../fixtures/crds/{file}", env!("CARGO_MANIFEST_DIR"))).unwrap();
        assert!(identities_agree(&text), "{file} is written in block style");
        assert!(!crds(&text).is_empty());
    }
    // JSON and flow style are read whole.
    let json = std::fs::read_to_string(format!("{}/../../fixtures/crds/things.json", env!("CARGO_MANIFEST_DIR"))).unwrap();
    assert!(!identities_agree(&json));
    // Comments and blank lines at any indentation inside a schema, a block scalar whose lines are
    // indented less than its first, CRLF line ends, a schema ending the file, a legacy schema shared by
    // every version, a List, and a key after dashes.
    let tricky = "\
apiVersion: apiextensions.k8s.io/v1beta1\r
kind: CustomResourceDefinition\r
metadata: {name: gadgets.example.com}\r
spec:\r
  group: example.com\r
  names: {kind: Gadget, plural: gadgets}\r
  versions: [{name: v1beta1, served: true, storage: true}, {name: v1alpha1, served: false, storage: false}]\r
  validation:\r
    openAPIV3Schema:   # the shared schema\r
# a comment at column 0\r
      type: object\r
\r
      description: |2\r
          indented more than the first line\r
        first line\r
\r
      properties:\r
        size: {type: integer}\r
---\r
apiVersion: v1\r
kind: List\r
items:\r
- apiVersion: apiextensions.k8s.io/v1\r
  kind: CustomResourceDefinition\r
  metadata: {name: sprockets.example.com}\r
  spec:\r
    group: example.com\r
    names: {kind: Sprocket, plural: sprockets}\r
    scope: Cluster\r
    versions:\r
    - name: v1\r
      served: true\r
      storage: true\r
      schema:\r
        openAPIV3Schema:\r
          type: object\r
          x-kubernetes-preserve-unknown-fields: true\r
    - - openAPIV3Schema:\r
          type: string\r
";
    assert!(identities_agree(tricky));
    let lazy = Crd::read_identities(tricky, reader(tricky));
    assert_eq!(lazy.len(), 2);
    assert!(
        Arc::ptr_eq(lazy[0].versions[0].schema().unwrap(), lazy[0].versions[1].schema().unwrap()),
        "one legacy schema for both versions"
    );
    // An alias of an anchor inside a cut schema: the cut text does not parse, so the whole is read.
    let anchored = V1.replacen("openAPIV3Schema:\n        type: object\n", "openAPIV3Schema: &common\n        type: object\n", 1);
    let aliased = format!("{anchored}---\n{}", V1.replacen("metadata:\n  name: widgets", "metadata:\n  name: gizmos", 1));
    assert!(identities_agree(&aliased), "a schema written with an anchor is kept, the others are cut");
    // A schema ending the text, without a line end; and with CRLF.
    assert!(identities_agree(V1.trim_end()));
    assert!(identities_agree(&format!("{}\r\n", V1.trim_end())));
    let null_at_end = "apiVersion: apiextensions.k8s.io/v1\nkind: CustomResourceDefinition\nspec:\nopenAPIV3Schema:";
    assert!(identities_agree(null_at_end));
    assert!(identities_agree(&format!("{null_at_end}\n:")));
    let alias_out = "\
apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata: {name: widgets.example.com}
spec:
  group: example.com
  names: {kind: Widget, plural: widgets}
  versions:
  - name: v1
    served: true
    storage: true
    schema:
      openAPIV3Schema:
        type: object
        description: &version v1
  - name: *version
    served: false
    storage: false
";
    assert!(!identities_agree(alias_out), "read whole");
    let read = Crd::read_identities(alias_out, reader(alias_out));
    assert_eq!(
        read[0].versions.iter().map(|v| v.name.as_str()).collect::<Vec<_>>(),
        ["v1", "v1"],
        "the alias resolved, so the whole was read"
    );
}

#[test]
fn a_deferred_schema_is_built_from_the_source_as_it_is_then() {
    let widgets = std::fs::read_to_string(format!("{}/../../fixtures/crds/widgets.yaml", env!("CARGO_MANIFEST_DIR"))).unwrap();
    let now: Arc<std::sync::Mutex<Option<Arc<str>>>> = Arc::new(std::sync::Mutex::new(Some(Arc::from(widgets.as_str()))));
    let source = now.clone();
    let reader: crdls_crd::TextReader = Arc::new(move || source.lock().unwrap().clone());
    let read = Crd::read_identities(&widgets, reader.clone());
    // The file gained a document before the CRD: the CRD is found by its name, its ranges are the new ones.
    let moved = format!("apiVersion: v1\nkind: ConfigMap\nmetadata: {{name: x}}\n---\n{widgets}");
    *now.lock().unwrap() = Some(Arc::from(moved.as_str()));
    let version = &read[0].versions[0];
    let described = format!("{read:?}");
    assert!(version.schema().is_some(), "found again by name");
    assert_eq!(format!("{read:?}"), described, "a CRD's text does not change when a schema is first built");
    let fresh = crds(&moved);
    let located = version.located_schema().unwrap();
    assert_eq!(format!("{located:?}"), format!("{:?}", fresh[0].versions[0].schema().unwrap()));
    assert_ne!(format!("{located:?}"), format!("{:?}", crds(&widgets)[0].versions[0].schema().unwrap()), "located in the changed text");
    // Once built, a schema stays; one never built from a source now gone is missing.
    *now.lock().unwrap() = None;
    assert!(read[0].versions[0].schema().is_some());
    let again = Crd::read_identities(&widgets, reader);
    assert!(again[0].versions.iter().all(|v| v.schema().is_none()));
}

#[test]
fn equal_sub_schemas_read_identity_first_are_held_once() {
    let yaml = |kind: &str| {
        fixture::Crd::new(kind)
            .schema(
                r#"
                type: object
                properties:
                  spec:
                    type: object
                    properties:
                      podRef: {type: object, properties: {name: {type: string}, namespace: {type: string}}}
                      replicas: {type: integer, default: 1}
                      rules:
                        type: array
                        items: {type: string}
                        x-kubernetes-validations: [{rule: "self.size() < 10"}]
                "#,
            )
            .yaml()
    };
    let text = format!("{}---\n{}", yaml("Widget"), yaml("Gadget"));
    let read = Crd::read_identities(&text, reader(&text));
    let schemas: Vec<&Arc<crdls_crd::Schema>> = read.iter().map(|c| c.versions[0].schema().unwrap()).collect();
    assert!(!Arc::ptr_eq(schemas[0], schemas[1]), "each version keeps its own root");
    let spec = |s: &crdls_crd::Schema| s.property("spec").unwrap().schema.clone();
    assert!(Arc::ptr_eq(&spec(schemas[0]), &spec(schemas[1])), "one spec for both CRDs");
    assert!(spec(schemas[0]).property("replicas").unwrap().schema.default.as_ref().unwrap().range.is_empty());
    // A difference anywhere below makes two sub-schemas two.
    let other = text.replacen("default: 1", "default: 2", 1);
    let read = Crd::read_identities(&other, reader(&other));
    let a = spec(read[0].versions[0].schema().unwrap());
    let b = spec(read[1].versions[0].schema().unwrap());
    assert!(!Arc::ptr_eq(&a, &b));
    assert!(Arc::ptr_eq(&a.property("podRef").unwrap().schema, &b.property("podRef").unwrap().schema));
    // Read whole (an open buffer), a schema keeps its positions and shares nothing.
    let whole = crds(&text);
    assert!(!Arc::ptr_eq(&spec(whole[0].versions[0].schema().unwrap()), &spec(whole[1].versions[0].schema().unwrap())));
}

/// A CRD as a kustomization outputs it patched (indexed under the kustomization, naming the file it
/// patched) is used rather than that file as written, whatever the distance; another copy of the CRD
/// is not superseded by it, and a version only the file as written serves is still served by it.
#[test]
fn a_kustomizations_patched_output_supersedes_the_file_it_patches() {
    use crdls_crd::PassedOver;
    let only = |version: &str| crds(&fixture::Crd::new("Widget").group("example.com").storage_version(version).yaml());
    let patched = |version: &str, from: &str| {
        let mut crds = only(version);
        crds.iter_mut().for_each(|c| c.patched_from = Some(from.to_string()));
        crds
    };
    for (kustomization, base) in [
        ("config/crd/kustomization.yaml", "config/crd/bases/widgets.yaml"),
        ("file:///w/config/crd/kustomization.yaml", "file:///w/config/crd/bases/widgets.yaml"),
        ("/w/overlays/crds/kustomization.yaml", "/w/base/widgets.yaml"),
    ] {
        let from = if kustomization.starts_with("/w/overlays") { "../../base/./widgets.yaml" } else { "bases/widgets.yaml" };
        assert_eq!(crdls_crd::relative_source(kustomization, from), base);
        let mut index = CrdIndex::new();
        index.set_source(Arc::from(base), only("v1"));
        index.set_source(Arc::from(kustomization), patched("v1", from));
        let object = base.replace("widgets.yaml", "sample.yaml");
        let seen = index.seen_from(&object);
        let Resolution::Found { crd, .. } = seen.resolve("example.com/v1", "Widget") else { panic!() };
        assert_eq!(&*crd.source, kustomization, "{object}");
        assert_eq!(&*crd.written_in(), base);
        let why: Vec<Option<PassedOver>> = seen.definitions("example.com/v1", "Widget").iter().map(|d| d.passed_over).collect();
        assert_eq!(why, [None, Some(PassedOver::Patched)]);
    }
    // Another copy of the CRD, not the one patched, is compared by distance as before.
    let mut index = CrdIndex::new();
    index.set_source(Arc::from("config/crd/bases/widgets.yaml"), only("v1"));
    index.set_source(Arc::from("config/crd/kustomization.yaml"), patched("v1", "bases/widgets.yaml"));
    index.set_source(Arc::from("charts/app/crds/widgets.yaml"), only("v1"));
    let seen = index.seen_from("charts/app/templates/widget.yaml");
    let Resolution::Found { crd, .. } = seen.resolve("example.com/v1", "Widget") else { panic!() };
    assert_eq!(&*crd.source, "charts/app/crds/widgets.yaml");
    // The patched output does not serve v2; the file as written, which does, is used for it.
    let mut index = CrdIndex::new();
    index.set_source(Arc::from("config/crd/bases/widgets.yaml"), only("v2"));
    index.set_source(Arc::from("config/crd/kustomization.yaml"), patched("v1", "bases/widgets.yaml"));
    let seen = index.seen_from("config/samples/w.yaml");
    let Resolution::Found { crd, .. } = seen.resolve("example.com/v2", "Widget") else { panic!() };
    assert_eq!(&*crd.source, "config/crd/bases/widgets.yaml");
}
