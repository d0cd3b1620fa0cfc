//! Printing values the way the Kubernetes API server's Go code prints them in error messages:
//! `%q` for strings, `%v` for numbers, and JSON for objects and arrays.

use crdls_yaml::{Node, Value};

use crdls_go::print::json_float;
pub use crdls_go::print::{float, json_string_into, quote};

/// How `field.Error` prints a bad value: `%q` for strings, `%v` for numbers and booleans, `null`,
/// and JSON for objects and arrays.
pub fn value(node: &Node) -> String {
    match &node.value {
        Value::Str(s) => quote(s),
        Value::Null => "null".into(),
        Value::Bool(b) => b.to_string(),
        Value::Int(i) => i.to_string(),
        Value::Float(f) => float(*f),
        Value::Seq(_) | Value::Map(_) => json(node),
    }
}

/// Go's `json.Marshal` of an unstructured value: compact, object keys sorted, HTML characters escaped.
pub fn json(node: &Node) -> String {
    let mut out = String::new();
    write_json(node, &mut out);
    out
}

fn write_json(node: &Node, out: &mut String) {
    match &node.value {
        Value::Null => out.push_str("null"),
        Value::Bool(b) => out.push_str(if *b { "true" } else { "false" }),
        Value::Int(i) => out.push_str(&i.to_string()),
        Value::Float(f) => out.push_str(&json_float(*f)),
        Value::Str(s) => json_string_into(s, out),
        Value::Seq(items) => {
            out.push('[');
            for (i, item) in items.iter().enumerate() {
                if i > 0 {
                    out.push(',');
                }
                write_json(item, out);
            }
            out.push(']');
        }
        Value::Map(entries) => {
            // The last of duplicate keys wins, as in a Go map; keys print sorted.
            let mut sorted: Vec<(&str, &Node)> = Vec::with_capacity(entries.len());
            for e in entries {
                match sorted.iter_mut().find(|(k, _)| *k == e.key) {
                    Some(slot) => slot.1 = &e.value,
                    None => sorted.push((&e.key, &e.value)),
                }
            }
            sorted.sort_by(|a, b| a.0.cmp(b.0));
            out.push('{');
            for (i, (k, v)) in sorted.into_iter().enumerate() {
                if i > 0 {
                    out.push(',');
                }
                json_string_into(k, out);
                out.push(':');
                write_json(v, out);
            }
            out.push('}');
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn objects_print_as_go_json() {
        // `quote` and `float` are crdls-go's, tested there.
        let doc = crdls_yaml::parse("{protocol: TCP, containerPort: 88, x: [1, 2.5, null, '<']}");
        assert_eq!(json(doc.documents[0].root.as_ref().unwrap()), r#"{"containerPort":88,"protocol":"TCP","x":[1,2.5,null,"\u003c"]}"#);
    }
}
