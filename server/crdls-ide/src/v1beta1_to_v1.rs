//! Converting a legacy `apiextensions.k8s.io/v1beta1` CRD to `v1`, the one fix for a CRD the API server
//! has not served since Kubernetes 1.22. The document is rewritten in block YAML (comments inside it
//! are not kept): `spec.version` becomes a `versions` entry, the top-level `validation`,
//! `subresources` and `additionalPrinterColumns` move into every version (`JSONPath` becomes
//! `jsonPath`), a version without a schema gets one that keeps unknown fields (v1 requires a schema),
//! `preserveUnknownFields: true` becomes `x-kubernetes-preserve-unknown-fields` on the root schema,
//! and a conversion webhook moves to `conversion.webhook`.

use crdls_yaml::{Entry, Node, Style, Value};

use crdls_diagnostics::TextRange;

use crate::render::{yaml_inline, yaml_string};

/// The v1 form of a v1beta1 CRD, as the text of a whole document; `None` when `root` is not one.
pub fn crd_v1beta1_to_v1(root: &Node) -> Option<String> {
    if root.get_str("apiVersion") != Some("apiextensions.k8s.io/v1beta1") || root.get_str("kind") != Some("CustomResourceDefinition") {
        return None;
    }
    let mut out = root.clone();
    set(&mut out, "apiVersion", scalar("apiextensions.k8s.io/v1"));
    let Some(spec) = root.get("spec") else { return Some(emit(&out)) };
    let mut spec = spec.clone();
    let shared_schema = spec.get("validation").and_then(|v| v.get("openAPIV3Schema")).cloned();
    let shared_subresources = spec.get("subresources").cloned();
    let shared_columns = spec.get("additionalPrinterColumns").cloned();
    let preserve = matches!(spec.get("preserveUnknownFields").map(|n| &n.value), Some(Value::Bool(true)));
    let mut versions: Vec<Node> = spec.get("versions").and_then(Node::as_seq).map(<[Node]>::to_vec).unwrap_or_default();
    if versions.is_empty() {
        if let Some(name) = spec.get_str("version") {
            versions.push(map(vec![("name", scalar(name)), ("served", boolean(true)), ("storage", boolean(true))]));
        }
    }
    for version in &mut versions {
        if version.get("served").is_none() {
            set(version, "served", boolean(true));
        }
        if version.get("storage").is_none() {
            set(version, "storage", boolean(false));
        }
        let mut schema = version.get("schema").and_then(|s| s.get("openAPIV3Schema")).cloned().or_else(|| shared_schema.clone());
        if preserve {
            let s = schema.get_or_insert_with(|| map(vec![("type", scalar("object"))]));
            set(s, "x-kubernetes-preserve-unknown-fields", boolean(true));
        }
        let schema =
            schema.unwrap_or_else(|| map(vec![("type", scalar("object")), ("x-kubernetes-preserve-unknown-fields", boolean(true))]));
        set(version, "schema", map(vec![("openAPIV3Schema", schema)]));
        if version.get("subresources").is_none() {
            if let Some(s) = &shared_subresources {
                set(version, "subresources", s.clone());
            }
        }
        let columns = version.get("additionalPrinterColumns").cloned().or_else(|| shared_columns.clone());
        if let Some(mut columns) = columns {
            if let Value::Seq(items) = &mut columns.value {
                for column in items {
                    rename(column, "JSONPath", "jsonPath");
                }
            }
            set(version, "additionalPrinterColumns", columns);
        }
    }
    for gone in ["version", "validation", "subresources", "additionalPrinterColumns", "preserveUnknownFields"] {
        remove(&mut spec, gone);
    }
    if !versions.is_empty() {
        set(&mut spec, "versions", Node { range: TextRange::default(), value: Value::Seq(versions), style: Style::Block });
    }
    if let Some(conversion) = spec.get("conversion").cloned() {
        let mut conversion = conversion;
        let client = conversion.get("webhookClientConfig").cloned();
        let review = conversion.get("conversionReviewVersions").cloned();
        remove(&mut conversion, "webhookClientConfig");
        remove(&mut conversion, "conversionReviewVersions");
        if conversion.get_str("strategy") == Some("Webhook") {
            let mut webhook = vec![];
            if let Some(client) = client {
                webhook.push(("clientConfig", client));
            }
            webhook.push(("conversionReviewVersions", review.unwrap_or_else(|| seq(vec![scalar("v1beta1")]))));
            set(&mut conversion, "webhook", map(webhook));
        }
        set(&mut spec, "conversion", conversion);
    }
    set(&mut out, "spec", spec);
    Some(emit(&out))
}

fn scalar(s: &str) -> Node {
    Node { range: TextRange::default(), value: Value::Str(s.to_string()), style: Style::Plain }
}

fn boolean(b: bool) -> Node {
    Node { range: TextRange::default(), value: Value::Bool(b), style: Style::Plain }
}

fn map(entries: Vec<(&str, Node)>) -> Node {
    let entries = entries.into_iter().map(|(k, v)| Entry { key: k.to_string(), key_range: TextRange::default(), value: v }).collect();
    Node { range: TextRange::default(), value: Value::Map(entries), style: Style::Block }
}

fn seq(items: Vec<Node>) -> Node {
    Node { range: TextRange::default(), value: Value::Seq(items), style: Style::Block }
}

/// Sets `key` (replacing it in place, or appending it).
fn set(node: &mut Node, key: &str, value: Node) {
    if let Value::Map(entries) = &mut node.value {
        match entries.iter_mut().find(|e| e.key == key) {
            Some(e) => e.value = value,
            None => entries.push(Entry { key: key.to_string(), key_range: TextRange::default(), value }),
        }
    }
}

fn remove(node: &mut Node, key: &str) {
    if let Value::Map(entries) = &mut node.value {
        entries.retain(|e| e.key != key);
    }
}

fn rename(node: &mut Node, from: &str, to: &str) {
    if let Value::Map(entries) = &mut node.value {
        for e in entries.iter_mut().filter(|e| e.key == from) {
            e.key = to.to_string();
        }
    }
}

/// Block YAML for a node, ending with a newline.
pub fn emit(node: &Node) -> String {
    let mut out = String::new();
    match &node.value {
        Value::Map(entries) if !entries.is_empty() => write_entries(entries, 0, &mut out),
        _ => {
            out.push_str(&yaml_inline(node));
            out.push('\n');
        }
    }
    out
}

fn write_entries(entries: &[Entry], indent: usize, out: &mut String) {
    for (i, e) in entries.iter().enumerate() {
        if i > 0 {
            out.push_str(&" ".repeat(indent));
        }
        out.push_str(&yaml_string(&e.key));
        out.push(':');
        write_value(&e.value, indent, out);
    }
}

/// Writes a value after `key:` (or `- `): inline for scalars and empty collections, else on the
/// following lines.
fn write_value(node: &Node, indent: usize, out: &mut String) {
    match &node.value {
        Value::Map(entries) if !entries.is_empty() => {
            out.push('\n');
            out.push_str(&" ".repeat(indent + 2));
            write_entries(entries, indent + 2, out);
        }
        Value::Seq(items) if !items.is_empty() => {
            out.push('\n');
            for item in items {
                out.push_str(&" ".repeat(indent));
                out.push_str("- ");
                match &item.value {
                    Value::Map(entries) if !entries.is_empty() => write_entries(entries, indent + 2, out),
                    Value::Seq(inner) if !inner.is_empty() => {
                        write_value(item, indent + 2, out);
                    }
                    _ => {
                        out.push_str(&scalar_text(item, indent + 2));
                        out.push('\n');
                    }
                }
            }
        }
        _ => {
            out.push(' ');
            out.push_str(&scalar_text(node, indent + 2));
            out.push('\n');
        }
    }
}

/// A scalar, with multi-line strings as literal blocks.
fn scalar_text(node: &Node, indent: usize) -> String {
    match &node.value {
        Value::Str(s) if s.contains('\n') && !s.contains(|c: char| c.is_control() && c != '\n') && !s.starts_with(' ') => {
            let chomp = if s.ends_with('\n') { "" } else { "-" };
            let pad = " ".repeat(indent);
            let body: Vec<String> =
                s.trim_end_matches('\n').split('\n').map(|l| if l.is_empty() { String::new() } else { format!("{pad}{l}") }).collect();
            format!("|{chomp}\n{}", body.join("\n"))
        }
        _ => yaml_inline(node),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_v1beta1_crd_becomes_v1() {
        // Written out rather than with `crdls_test_fixture`, which writes only v1: the input is a
        // v1beta1 CRD, with the version-independent fields that conversion moves into the version.
        let text = r#"apiVersion: apiextensions.k8s.io/v1beta1
kind: CustomResourceDefinition
metadata:
  name: widgets.demo.crdls.dev
spec:
  group: demo.crdls.dev
  version: v1
  scope: Namespaced
  names: {kind: Widget, plural: widgets}
  preserveUnknownFields: false
  subresources: {status: {}}
  additionalPrinterColumns:
  - {name: Size, type: integer, JSONPath: .spec.size}
  validation:
    openAPIV3Schema:
      type: object
      description: |
        A widget.
        Two lines.
      properties:
        spec:
          type: object
          properties:
            size: {type: integer, minimum: 1}
"#;
        let stream = crdls_yaml::parse(text);
        let converted = crd_v1beta1_to_v1(stream.documents[0].root.as_ref().unwrap()).unwrap();
        expect_test::expect![[r#"
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
              versions:
              - name: v1
                served: true
                storage: true
                schema:
                  openAPIV3Schema:
                    type: object
                    description: |
                      A widget.
                      Two lines.
                    properties:
                      spec:
                        type: object
                        properties:
                          size:
                            type: integer
                            minimum: 1
                subresources:
                  status: {}
                additionalPrinterColumns:
                - name: Size
                  type: integer
                  jsonPath: .spec.size
        "#]]
        .assert_eq(&converted);
        // The result is a v1 CRD crdls reads, with the schema in the version.
        let parsed = crdls_yaml::parse(&converted);
        let crds = crdls_crd::Crd::from_document(&parsed.documents[0]);
        assert!(crds[0].versions[0].schema().is_some_and(|s| s.property("spec").is_some()));
    }
}
