//! Tests of the generator: on small documents written here (what it keeps, drops, derives and
//! merges), the list of releases, the reading of a Kubernetes tree, and, when `go` can download the
//! `k8s.io/kubernetes` modules, that it writes the committed data file byte for byte.

use std::io::Write;
use std::path::Path;
use std::process::Command;

use expect_test::expect;
use serde_json::{json, Value};

use crdls_builtins::KubeVersion;

use super::generate::{Document, Generator, Release};
use super::{run, source, DATA_FILE, RELEASES_FILE};

/// A document of group `widgets.example` (or the core group when `group` is empty) with `schemas`
/// and `paths`.
fn document(group: &str, version: &str, schemas: Value, paths: Value) -> Document {
    Document {
        group: group.to_string(),
        version: version.to_string(),
        json: json!({ "components": { "schemas": schemas }, "paths": paths }),
    }
}

fn gvk(group: &str, version: &str, kind: &str) -> Value {
    json!([{ "group": group, "version": version, "kind": kind }])
}

/// The schemas of one release of a small group: a namespaced `Widget` with a reference carrying a
/// default, an int-or-string, a raw-JSON field, a recursive type, and prose to drop.
fn widget_schemas(replicas_format: &str) -> Value {
    json!({
        "example.Widget": {
            "description": "A widget.",
            "type": "object",
            "x-kubernetes-group-version-kind": gvk("widgets.example", "v1", "Widget"),
            "properties": {
                "spec": { "allOf": [{ "$ref": "#/components/schemas/example.WidgetSpec" }], "default": {}, "description": "The spec." },
                "raw": { "$ref": "#/components/schemas/io.k8s.apimachinery.pkg.runtime.RawExtension" },
                "tree": { "$ref": "#/components/schemas/example.Tree" }
            }
        },
        "example.WidgetList": {
            "type": "object",
            "x-kubernetes-group-version-kind": gvk("widgets.example", "v1", "WidgetList"),
            "properties": { "items": { "type": "array", "items": { "$ref": "#/components/schemas/example.Widget" } } }
        },
        "example.WidgetSpec": {
            "type": "object",
            "required": ["size"],
            "x-kubernetes-patch-strategy": "merge",
            "properties": {
                "size": { "$ref": "#/components/schemas/io.k8s.apimachinery.pkg.util.intstr.IntOrString" },
                "replicas": { "type": "integer", "format": replicas_format, "description": "How many." },
                "ports": {
                    "type": "array",
                    "x-kubernetes-list-type": "map",
                    "x-kubernetes-list-map-keys": ["port"],
                    "items": { "type": "object", "properties": { "port": { "type": "integer", "default": 0 } } }
                }
            }
        },
        "example.Tree": {
            "type": "object",
            "properties": { "children": { "type": "array", "items": { "$ref": "#/components/schemas/example.Tree" } } }
        },
        "io.k8s.apimachinery.pkg.util.intstr.IntOrString": {
            "format": "int-or-string",
            "oneOf": [{ "type": "integer" }, { "type": "string" }]
        },
        "io.k8s.apimachinery.pkg.runtime.RawExtension": { "type": "object", "description": "Raw JSON." },
        "example.Unused": { "type": "string" }
    })
}

fn widget_paths() -> Value {
    let post = |kind: &str| json!({ "x-kubernetes-group-version-kind": { "group": "widgets.example", "version": "v1", "kind": kind } });
    json!({
        "/apis/widgets.example/v1/widgets": { "get": post("Widget") },
        "/apis/widgets.example/v1/namespaces/{namespace}/widgets": { "post": post("Widget") },
        "/apis/widgets.example/v1/namespaces/{namespace}/widgets/{name}": { "get": post("Widget") }
    })
}

fn generate(releases: Vec<Release>) -> (Value, Vec<String>) {
    let mut generator = Generator::new();
    for release in releases {
        generator.add(release).unwrap();
    }
    let output = generator.finish().unwrap();
    let inflated = miniz_oxide::inflate::decompress_to_vec(&output.deflated).unwrap();
    assert_eq!(inflated, output.json.as_bytes());
    (serde_json::from_str(&output.json).unwrap(), output.report)
}

/// The file one line per release and per node, to read in a snapshot.
fn lines(file: &Value) -> String {
    let mut out = format!("format {}\n", file["format"]);
    for release in file["releases"].as_array().unwrap() {
        out.push_str(&format!("{} {}\n", release["version"].as_str().unwrap(), release["kinds"]));
    }
    for (id, node) in file["nodes"].as_array().unwrap().iter().enumerate() {
        out.push_str(&format!("{id}: {node}\n"));
    }
    out
}

fn release(version: &str, documents: Vec<Document>) -> Release {
    Release { version: version.parse().unwrap(), documents }
}

#[test]
fn facts_are_kept_prose_dropped_and_equal_nodes_shared() {
    let (file, report) = generate(vec![
        release("1.2", vec![document("widgets.example", "v1", widget_schemas("int32"), widget_paths())]),
        release("1.1", vec![document("widgets.example", "v1", widget_schemas("int64"), widget_paths())]),
    ]);
    expect![[r#"
        format 1
        1.1 [["widgets.example","v1","Widget",0,"namespaced"],["widgets.example","v1","WidgetList",10,"none"]]
        1.2 [["widgets.example","v1","Widget",12,"namespaced"],["widgets.example","v1","WidgetList",15,"none"]]
        0: {"type":"object","properties":{"spec":1,"raw":7,"tree":8}}
        1: {"type":"object","default":{},"required":["size"],"properties":{"size":2,"replicas":3,"ports":4}}
        2: {"x-kubernetes-int-or-string":true}
        3: {"type":"integer","format":"int64"}
        4: {"type":"array","items":5,"x-kubernetes-list-type":"map","x-kubernetes-list-map-keys":["port"]}
        5: {"type":"object","properties":{"port":6}}
        6: {"type":"integer","default":0}
        7: {"type":"object","x-kubernetes-preserve-unknown-fields":true}
        8: {"type":"object","properties":{"children":9}}
        9: {"type":"array","items":8}
        10: {"type":"object","properties":{"items":11}}
        11: {"type":"array","items":0}
        12: {"type":"object","properties":{"spec":13,"raw":7,"tree":8}}
        13: {"type":"object","default":{},"required":["size"],"properties":{"size":2,"replicas":14,"ports":4}}
        14: {"type":"integer","format":"int32"}
        15: {"type":"object","properties":{"items":16}}
        16: {"type":"array","items":12}
    "#]]
    .assert_eq(&lines(&file));
    assert!(report.iter().any(|line| line.contains("1.1: 1 documents, 2 kinds (1 of them resources)")), "{report:?}");
}

#[test]
fn an_unknown_keyword_stops_the_generator() {
    let mut schemas = widget_schemas("int32");
    schemas["example.WidgetSpec"]["properties"]["replicas"]["x-kubernetes-something-new"] = json!(true);
    let mut generator = Generator::new();
    let error = generator.add(release("1.1", vec![document("widgets.example", "v1", schemas, widget_paths())])).unwrap_err();
    assert!(error.contains("example.WidgetSpec.replicas.x-kubernetes-something-new"), "{error}");
}

#[test]
fn the_1_23_documents_are_read_from_their_bodies() {
    // Operations without `x-kubernetes-group-version-kind`: the kind is the body's (or, for a read of
    // one object, the response's); a list's response does not make the list a resource.
    let body = |schema: &str| json!({ "application/json": { "schema": { "$ref": format!("#/components/schemas/{schema}") } } });
    let paths = json!({
        "/api/v1/namespaces": { "get": { "responses": { "200": { "content": body("core.NamespaceList") } } }, "post": { "requestBody": { "content": body("core.Namespace") } } },
        "/api/v1/namespaces/{name}": { "get": { "responses": { "200": { "content": body("core.Namespace") } } } }
    });
    let schemas = json!({
        "core.Namespace": { "type": "object", "x-kubernetes-group-version-kind": gvk("", "v1", "Namespace") },
        "core.NamespaceList": { "type": "object", "x-kubernetes-group-version-kind": gvk("", "v1", "NamespaceList"), "properties": { "items": { "type": "array", "items": { "$ref": "#/components/schemas/core.Namespace" } } } },
        "io.k8s.apimachinery.pkg.api.resource.Quantity": { "type": "string" }
    });
    let (file, _) = generate(vec![release("1.23", vec![document("", "v1", schemas, paths)])]);
    let kinds: Vec<(&str, &str)> =
        file["releases"][0]["kinds"].as_array().unwrap().iter().map(|k| (k[2].as_str().unwrap(), k[4].as_str().unwrap())).collect();
    assert_eq!(kinds, [("Namespace", "cluster"), ("NamespaceList", "none")]);
}

/// Says a test was skipped, past the test harness's capture (it keeps `eprintln!` of passing tests).
fn announce_skip(test: &str, why: &str) {
    let line = format!("\n*** SKIPPED: {test}: {why} ***\n\n");
    let _ = std::io::stderr().write_all(line.as_bytes());
}

#[test]
fn the_committed_data_is_what_the_generator_writes() {
    // The releases listed in data/kubernetes-releases.txt, downloaded through the Go module proxy into
    // the target directory (about 20 MB each, once), then generated: the file must come out byte for byte.
    let test = "the_committed_data_is_what_the_generator_writes";
    if Command::new("go").arg("version").output().is_err() {
        announce_skip(test, "`go` is not installed, so the k8s.io/kubernetes modules cannot be downloaded");
        return;
    }
    let out = std::env::temp_dir().join(format!("crdls-builtins-gen-{}.deflate", std::process::id()));
    let result = run(vec!["--out".to_string(), out.display().to_string()]);
    let written = std::fs::read(&out);
    let _ = std::fs::remove_file(&out);
    if let Err(error) = &result {
        if error.contains("go mod download") && std::env::var_os("CI").is_none() {
            announce_skip(test, &format!("the modules could not be downloaded (offline?): {error}"));
            return;
        }
    }
    result.unwrap();
    let committed = std::fs::read(DATA_FILE).unwrap();
    assert!(
        written.unwrap() == committed,
        "the generator no longer writes the committed {DATA_FILE}; run server/crdls-builtins/update.sh and review the diff"
    );
}

#[test]
fn the_list_of_releases_is_the_shipped_one() {
    let releases = source::read_releases(Path::new(RELEASES_FILE)).unwrap();
    let minors: Vec<KubeVersion> = releases.iter().map(|(minor, _)| *minor).collect();
    assert_eq!(minors, crdls_builtins::kubernetes_versions());
}

#[test]
fn releases_are_added_by_module_version() {
    let mut releases = source::read_releases(Path::new(RELEASES_FILE)).unwrap();
    let count = releases.len();
    let (minor, version) = source::add_release(&mut releases, "1.99.0").unwrap();
    assert_eq!((minor.to_string(), version.as_str()), ("1.99".to_string(), "v1.99.0"));
    assert_eq!(releases.last().unwrap().1, "v1.99.0");
    source::add_release(&mut releases, "v1.99.3").unwrap();
    assert_eq!((releases.len(), releases.last().unwrap().1.as_str()), (count + 1, "v1.99.3"));
    for bad in ["v1.99", "v1.99.0-rc.1", "latest", "v1.x.0"] {
        assert!(source::add_release(&mut releases, bad).unwrap_err().contains("vMAJOR.MINOR.PATCH"), "{bad}");
    }
    let file = std::env::temp_dir().join(format!("crdls-releases-{}.txt", std::process::id()));
    source::write_releases(&file, &releases).unwrap();
    let read = source::read_releases(&file);
    std::fs::write(&file, "1.30 v1.31.0\n").unwrap();
    let mismatch = source::read_releases(&file).unwrap_err();
    let _ = std::fs::remove_file(&file);
    assert_eq!(read.unwrap(), releases);
    assert!(mismatch.contains("v1.31.0 is not a release of Kubernetes 1.30"), "{mismatch}");
}

#[test]
fn a_tree_is_read_by_file_name_and_an_old_one_borrows_apiregistration() {
    let dir = std::env::temp_dir().join(format!("crdls-builtins-tree-{}", std::process::id()));
    let write = |path: &str, value: &Value| {
        let path = dir.join(path);
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(path, value.to_string()).unwrap();
    };
    let doc = |group: &str, kind: &str| json!({ "components": { "schemas": { "k": { "type": "object", "x-kubernetes-group-version-kind": gvk(group, "v1", kind) } } }, "paths": {} });
    write("old/api/openapi-spec/v3/api__v1_openapi.json", &doc("", "Pod"));
    write("old/api/openapi-spec/v3/api_openapi.json", &json!({}));
    write("old/api/openapi-spec/v3/apis__apps_openapi.json", &json!({}));
    write("old/api/openapi-spec/v3/version_openapi.json", &json!({}));
    write("new/apis__apps__v1_openapi.json", &doc("apps", "Deployment"));
    write("new/apis__apiregistration.k8s.io__v1_openapi.json", &doc("apiregistration.k8s.io", "APIService"));
    let releases: Vec<Release> = source::read(&[(KubeVersion::new(1, 2), dir.join("new")), (KubeVersion::new(1, 1), dir.join("old"))])
        .unwrap()
        .map(Result::unwrap)
        .collect();
    let _ = std::fs::remove_dir_all(&dir);
    let listed: Vec<(String, Vec<String>)> = releases
        .iter()
        .map(|r| (r.version.to_string(), r.documents.iter().map(|d| format!("{}/{}", d.group, d.version)).collect()))
        .collect();
    assert_eq!(
        listed,
        [
            ("1.1".to_string(), vec!["/v1".to_string(), "apiregistration.k8s.io/v1".to_string()]),
            ("1.2".to_string(), vec!["apiregistration.k8s.io/v1".to_string(), "apps/v1".to_string()]),
        ]
    );
}
