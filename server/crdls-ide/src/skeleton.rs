//! Skeletons of required fields, written as block YAML: as LSP snippets with tab stops for completion,
//! or as plain text with placeholder values for code actions.

use crdls_crd::Schema;

use crate::render::{choice_escape, snippet_escape, yaml_inline, yaml_string};
use crate::schema_walk::{shape, Shape};

/// How far nested required objects are written out.
const MAX_DEPTH: usize = 8;

/// What goes where the user has to type a value.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Fill {
    /// LSP snippet tab stops, numbered from `next_tab`.
    Snippet {
        /// The number of the next tab stop.
        next_tab: usize,
    },
    /// Plain YAML: the default, the first enum member, or the type's zero value (`""`, `0`, `false`, `{}`, `[]`).
    Plain,
}

impl Fill {
    fn snippet(self) -> bool {
        matches!(self, Fill::Snippet { .. })
    }

    /// A tab stop (with its placeholder text, already escaped) in snippet mode.
    fn stop(&mut self, out: &mut String, text: Option<String>) {
        if let Fill::Snippet { next_tab } = self {
            match text {
                Some(t) => out.push_str(&format!("${{{next_tab}:{t}}}")),
                None => out.push_str(&format!("${next_tab}")),
            }
            *next_tab += 1;
        }
    }

    fn key(self, name: &str) -> String {
        let key = yaml_string(name);
        if self.snippet() {
            snippet_escape(&key)
        } else {
            key
        }
    }
}

/// Writes one required field at `indent` (a line per field, each ending in a newline), with its own
/// required fields below it.
pub(crate) fn skeleton_field(name: &str, schema: &Schema, indent: usize, out: &mut String, fill: &mut Fill, depth: usize) {
    let pad = " ".repeat(indent);
    let key = fill.key(name);
    let required: Vec<(&String, &Schema)> = match shape(schema) {
        Shape::Object | Shape::Map if depth < MAX_DEPTH => {
            let fields = schema.required.iter().filter_map(|r| schema.property(r).map(|p| (r, &*p.schema)));
            // In plain text a field with a default is left to the API server to fill in.
            fields.filter(|(_, s)| fill.snippet() || s.default.is_none()).collect()
        }
        _ => Vec::new(),
    };
    match shape(schema) {
        Shape::Object | Shape::Map if required.is_empty() && !fill.snippet() => out.push_str(&format!("{pad}{key}: {{}}\n")),
        Shape::Object | Shape::Map => {
            out.push_str(&format!("{pad}{key}:\n"));
            if required.is_empty() {
                out.push_str(&format!("{pad}  "));
                fill.stop(out, None);
                out.push('\n');
            }
            for (r, s) in required {
                skeleton_field(r, s, indent + 2, out, fill, depth + 1);
            }
        }
        Shape::List => {
            let item = schema.items.as_deref().filter(|i| shape(i) == Shape::Object && !i.required.is_empty() && depth < MAX_DEPTH);
            match item {
                Some(item) => {
                    out.push_str(&format!("{pad}{key}:\n"));
                    // The item's fields at indent + 2, its first line's indentation turned into `- `.
                    let mut fields = String::new();
                    for r in &item.required {
                        if let Some(p) = item.property(r).filter(|p| fill.snippet() || p.schema.default.is_none()) {
                            skeleton_field(r, &p.schema, indent + 2, &mut fields, fill, depth + 1);
                        }
                    }
                    out.push_str(&format!("{pad}- "));
                    out.push_str(fields.get(indent + 2..).unwrap_or_default());
                }
                None if fill.snippet() => {
                    out.push_str(&format!("{pad}{key}:\n{pad}- "));
                    fill.stop(out, None);
                    out.push('\n');
                }
                None => out.push_str(&format!("{pad}{key}: []\n")),
            }
        }
        Shape::Scalar => {
            out.push_str(&format!("{pad}{key}: "));
            match fill {
                Fill::Snippet { .. } => snippet_scalar(schema, out, fill),
                Fill::Plain => out.push_str(&plain_scalar(schema)),
            }
            out.push('\n');
        }
    }
}

/// A scalar's tab stop: a choice of enum members or booleans, else the default as placeholder.
fn snippet_scalar(schema: &Schema, out: &mut String, fill: &mut Fill) {
    let choices: Option<Vec<String>> = match (&schema.enumeration, schema.ty.as_deref()) {
        (Some(members), _) if !members.is_empty() => Some(members.iter().map(|m| choice_escape(&yaml_inline(m))).collect()),
        (None, Some("boolean")) => Some(vec!["true".to_string(), "false".to_string()]),
        _ => None,
    };
    match (choices, &schema.default) {
        (Some(choices), _) => {
            if let Fill::Snippet { next_tab } = fill {
                out.push_str(&format!("${{{next_tab}|{}|}}", choices.join(",")));
                *next_tab += 1;
            }
        }
        (None, Some(default)) => fill.stop(out, Some(snippet_escape(&yaml_inline(default)))),
        (None, None) => fill.stop(out, None),
    }
}

/// A scalar's plain placeholder: the default, the first enum member, or the type's zero value.
pub(crate) fn plain_scalar(schema: &Schema) -> String {
    if let Some(default) = &schema.default {
        return yaml_inline(default);
    }
    if let Some(first) = schema.enumeration.as_ref().and_then(|m| m.first()) {
        return yaml_inline(first);
    }
    if schema.int_or_string {
        return "0".to_string();
    }
    match schema.ty.as_deref() {
        Some("integer") | Some("number") => "0".to_string(),
        Some("boolean") => "false".to_string(),
        Some("string") => "\"\"".to_string(),
        Some("object") => "{}".to_string(),
        Some("array") => "[]".to_string(),
        _ => "null".to_string(),
    }
}

/// A required field's value on one line, for flow collections: `{a: "", b: 0}`, `[]`, `""`.
pub(crate) fn inline_value(schema: &Schema, depth: usize) -> String {
    match shape(schema) {
        Shape::Object | Shape::Map if depth < MAX_DEPTH => {
            let fields: Vec<String> = schema
                .required
                .iter()
                .filter_map(|r| schema.property(r).filter(|p| p.schema.default.is_none()))
                .map(|p| format!("{}: {}", yaml_string(&p.name), inline_value(&p.schema, depth + 1)))
                .collect();
            format!("{{{}}}", fields.join(", "))
        }
        Shape::Object | Shape::Map => "{}".to_string(),
        Shape::List => match schema.items.as_deref().filter(|i| !i.required.is_empty() && depth < MAX_DEPTH) {
            Some(item) => format!("[{}]", inline_value(item, depth + 1)),
            None => "[]".to_string(),
        },
        Shape::Scalar => plain_scalar(schema),
    }
}

#[cfg(test)]
mod tests {
    use crdls_test_fixture as fixture;

    use super::*;

    #[test]
    fn plain_skeletons_use_placeholders_that_parse_as_the_right_type() {
        let crd = fixture::Crd::new("Thing").schema(
            r#"
            type: object
            properties:
              spec:
                type: object
                required: [name, size, mode, enabled, ports, labels, extra]
                properties:
                  name: {type: string}
                  size: {type: integer, default: 3}
                  mode: {type: string, enum: [Fast, Slow]}
                  enabled: {type: boolean}
                  labels: {type: object, additionalProperties: {type: string}}
                  extra: {type: object, properties: {a: {type: string}}}
                  ports:
                    type: array
                    items:
                      type: object
                      required: [port, protocol]
                      properties:
                        port: {type: integer}
                        protocol: {type: string, enum: ["TCP", "UDP"]}
            "#,
        );
        let index = fixture::index(&crd.yaml());
        let crd = index.iter().next().unwrap();
        let root = crd.crd.versions[0].schema().map(|s| &**s).unwrap();
        let spec = &root.property("spec").unwrap().schema;
        let mut out = String::new();
        skeleton_field("spec", spec, 2, &mut out, &mut Fill::Plain, 0);
        assert_eq!(
            out,
            "  spec:\n    name: \"\"\n    mode: Fast\n    enabled: false\n    ports:\n    - port: 0\n      protocol: TCP\n    labels: {}\n    extra: {}\n"
        );
        assert_eq!(
            inline_value(spec, 0),
            "{name: \"\", mode: Fast, enabled: false, ports: [{port: 0, protocol: TCP}], labels: {}, extra: {}}"
        );
        let mut snippet = String::new();
        skeleton_field("spec", spec, 0, &mut snippet, &mut Fill::Snippet { next_tab: 1 }, 0);
        assert!(snippet.starts_with("spec:\n  name: $1\n  size: ${2:3}\n  mode: ${3|Fast,Slow|}\n"), "{snippet}");
    }
}
