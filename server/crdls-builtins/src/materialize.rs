//! Interned nodes turned into a `crdls_yaml::Node` tree that `crdls_crd::Schema::from_node` reads, with
//! recursive types cut where a node would repeat on its own path, and without the `default: {}` of
//! struct fields (see [`schema`]).

use crdls_yaml::{Entry, Node, Style, Value};

use crdls_diagnostics::TextRange;
use serde_json::Value as Json;

use crate::format::{children, Children};

/// The schema tree of node `root`. A node met again below itself (a recursive type such as
/// `JSONSchemaProps`) becomes `x-kubernetes-preserve-unknown-fields: true` there, so the tree is
/// finite: the outer levels of a recursive type are checked, and what lies below the first repeated
/// node is kept as written.
pub(crate) fn tree(nodes: &[Json], root: u32) -> Node {
    let mut path = Vec::new();
    schema(nodes, root, &mut path)
}

fn schema(nodes: &[Json], id: u32, path: &mut Vec<u32>) -> Node {
    if path.contains(&id) {
        return map(vec![entry("x-kubernetes-preserve-unknown-fields", node(Value::Bool(true), Style::Plain))]);
    }
    let Some(Json::Object(keywords)) = nodes.get(id as usize) else {
        // The generator writes only objects and valid ids; the data's own test holds it to that.
        return map(Vec::new());
    };
    path.push(id);
    let mut entries = Vec::with_capacity(keywords.len());
    for (key, value) in keywords {
        if key == "default" && (value.is_object() || value.is_array()) {
            // `default: {}` marks a Go struct field without `omitempty`: the API server's decoder makes
            // the empty struct, it does not default it. Applied, it would create objects the user did
            // not write and hold them to their required fields.
            continue;
        }
        let value = match (children(key), value) {
            (Some(Children::ByName), Json::Object(props)) => {
                map(props.iter().map(|(name, child)| entry(name, child_schema(nodes, child, path))).collect())
            }
            (Some(Children::One), Json::Number(_)) => child_schema(nodes, value, path),
            (Some(Children::List), Json::Array(items)) => {
                node(Value::Seq(items.iter().map(|child| child_schema(nodes, child, path)).collect()), Style::Flow)
            }
            _ => json(value),
        };
        entries.push(entry(key, value));
    }
    path.pop();
    map(entries)
}

fn child_schema(nodes: &[Json], id: &Json, path: &mut Vec<u32>) -> Node {
    match id.as_u64().and_then(|id| u32::try_from(id).ok()) {
        Some(id) => schema(nodes, id, path),
        None => map(Vec::new()),
    }
}

/// A JSON value as the YAML tree holds it: integral numbers are integers, as the API server's decoder
/// makes them.
fn json(value: &Json) -> Node {
    match value {
        Json::Null => node(Value::Null, Style::Plain),
        Json::Bool(b) => node(Value::Bool(*b), Style::Plain),
        Json::Number(n) => {
            let value = match (n.as_i64(), n.as_f64()) {
                (Some(i), _) => Value::Int(i),
                (None, Some(f)) if f.fract() == 0.0 && f.abs() < 9.2e18 => Value::Int(f as i64),
                (None, Some(f)) => Value::Float(f),
                (None, None) => Value::Null,
            };
            node(value, Style::Plain)
        }
        Json::String(s) => node(Value::Str(s.clone()), Style::DoubleQuoted),
        Json::Array(items) => node(Value::Seq(items.iter().map(json).collect()), Style::Flow),
        Json::Object(entries) => {
            let mut out = map(entries.iter().map(|(k, v)| entry(k, json(v))).collect());
            out.style = Style::Flow;
            out
        }
    }
}

fn node(value: Value, style: Style) -> Node {
    Node { range: TextRange::default(), value, style }
}

fn map(entries: Vec<Entry>) -> Node {
    node(Value::Map(entries), Style::Block)
}

fn entry(key: &str, value: Node) -> Entry {
    Entry { key: key.to_string(), key_range: TextRange::default(), value }
}
