//! Inlay hints: the defaults the API server will write into a custom resource, shown where they will
//! land, so the user reads the object as it will be stored. A field absent from an object gets
//! `replicas: 1 (default)` at the end of the object's key line (after a flow object's `}`); a field
//! written as null, which the API server drops before defaulting, gets `→ 1 (default)` after the null.

use crdls_check::defaulted_value;
use crdls_crd::{CrdIndex, Resolution, Schema};
use crdls_diagnostics::TextRange;
use crdls_yaml::{Node, Segment, Stream, Style, Value};

use crate::render::yaml_inline;
use crate::schema_walk::Step;
use crate::types::line_end;

/// One hint.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct InlayHint {
    /// Where it is shown, a byte offset.
    pub offset: usize,
    /// The text shown.
    pub label: String,
    /// Markdown shown on hover.
    pub tooltip: String,
}

/// Labels longer than this are cut (the tooltip has the whole value).
const MAX_LABEL: usize = 48;

/// Object nesting deeper than this is not searched for defaults.
const MAX_DEPTH: usize = 64;

/// The hints of the documents overlapping `range`, in text order. Documents the parser could not finish
/// get none: a partial tree would show defaults for fields that are written further down.
pub fn inlay_hints(text: &str, stream: &Stream, index: &CrdIndex, range: TextRange) -> Vec<InlayHint> {
    let mut out = Vec::new();
    for doc in &stream.documents {
        if doc.has_syntax_error || doc.range.end < range.start || doc.range.start > range.end {
            continue;
        }
        let Some(root) = &doc.root else { continue };
        let (Some(api_version), Some(kind)) = (root.get_str("apiVersion"), root.get_str("kind")) else { continue };
        let Resolution::Found { crd, version } = index.resolve(api_version, kind) else { continue };
        let Some(schema) = version.schema().map(|s| &**s) else { continue };
        let anchor = root.get("kind").map_or(root.range.start, |k| line_end(text, k.range.end));
        let mut hints = Hints { text, crd: &crd.crd.name, out: &mut out };
        hints.node(root, &Step::root(Some(schema)), anchor, 0);
    }
    crate::cost_assist::hints(text, stream, range, &mut out);
    out.retain(|h| range.contains_inclusive(h.offset));
    out.sort_by_key(|h| h.offset);
    out
}

struct Hints<'a> {
    text: &'a str,
    crd: &'a str,
    out: &'a mut Vec<InlayHint>,
}

impl Hints<'_> {
    /// Hints for `node` and below. `anchor` is where an absent field of a block object is shown.
    fn node(&mut self, node: &Node, step: &Step<'_>, anchor: usize, depth: usize) {
        if depth > MAX_DEPTH || step.builtin {
            return;
        }
        match &node.value {
            Value::Map(entries) => {
                let anchor = if node.style == Style::Flow { node.range.end } else { anchor };
                for prop in &step.schema.properties {
                    let Some(default) = &prop.schema.default else { continue };
                    match entries.iter().find(|e| e.key == prop.name) {
                        None => self.push(anchor, &prop.name, default, &prop.schema, true),
                        Some(e) if e.value.value == Value::Null && !prop.schema.nullable => {
                            let at = if e.value.style == Style::Empty { line_end(self.text, e.key_range.end) } else { e.value.range.end };
                            self.push(at, &prop.name, default, &prop.schema, false);
                        }
                        Some(_) => {}
                    }
                }
                for entry in entries {
                    if let Some(child) = step.child(Segment::Key(&entry.key)) {
                        self.node(&entry.value, &child, line_end(self.text, entry.key_range.end), depth + 1);
                    }
                }
            }
            Value::Seq(items) => {
                for (i, item) in items.iter().enumerate() {
                    let Some(child) = step.child(Segment::Index(i)) else { return };
                    match &child.schema.default {
                        Some(default) if item.value == Value::Null && !child.schema.nullable => {
                            self.push(item.range.end, "", default, child.schema, false);
                        }
                        _ => self.node(item, &child, line_end(self.text, item.range.start), depth + 1),
                    }
                }
            }
            _ => {}
        }
    }

    fn push(&mut self, offset: usize, name: &str, default: &Node, schema: &Schema, absent: bool) {
        let value = yaml_inline(&defaulted_value(default, schema));
        let shown = if value.chars().count() > MAX_LABEL {
            format!("{}…", value.chars().take(MAX_LABEL - 1).collect::<String>())
        } else {
            value.clone()
        };
        let label = if absent { format!("{name}: {shown} (default)") } else { format!("→ {shown} (default)") };
        let what = if absent { "absent" } else { "null, which the API server drops," };
        let field = if name.is_empty() { "This item".to_string() } else { format!("`{name}`") };
        let tooltip =
            format!("{field} is {what} so the API server writes its default, `{value}`, on create and update (CRD `{}`).", self.crd);
        self.out.push(InlayHint { offset, label, tooltip });
    }
}

#[cfg(test)]
mod tests {
    use crdls_test_fixture as fixture;
    use expect_test::{expect, Expect};

    use super::*;

    fn crd() -> String {
        fixture::Crd::new("Pump")
            .schema(
                r#"
                type: object
                properties:
                  spec:
                    type: object
                    properties:
                      rate: {type: integer, default: 10}
                      mode: {type: string, default: Steady}
                      note: {type: string, nullable: true, default: none}
                      outlet:
                        type: object
                        default: {}
                        properties:
                          size: {type: integer, default: 2}
                          valve: {type: string}
                      ports:
                        type: array
                        items:
                          type: object
                          properties:
                            port: {type: integer}
                            protocol: {type: string, default: TCP}
                      weights:
                        type: array
                        items: {type: integer, default: 1}
                  status:
                    type: object
                    properties:
                      phase: {type: string, default: Pending}
                "#,
            )
            .yaml()
    }

    /// Renders the text with each hint inlined as `⟨label⟩`.
    fn check_hints(doc: &str, expect: Expect) {
        let stream = crdls_yaml::parse(doc);
        let hints = inlay_hints(doc, &stream, &fixture::index(&crd()), TextRange::new(0, doc.len()));
        let mut text = doc.to_string();
        for hint in hints.iter().rev() {
            text.insert_str(hint.offset, &format!("⟨{}⟩", hint.label));
        }
        expect.assert_eq(&text);
    }

    #[test]
    fn absent_and_null_fields_show_their_defaults() {
        check_hints(
            "apiVersion: demo.crdls.dev/v1\nkind: Pump\nmetadata: {name: p}\nspec:\n  mode: ~\n  note: null\n  ports:\n  - port: 80\n  - {port: 81, protocol: UDP}\n  weights: [3, null]\n---\napiVersion: demo.crdls.dev/v1\nkind: Pump\nmetadata: {name: q}\nspec: {rate: 1, outlet: {size: 1}}\nstatus:\n",
            expect![[r#"
                apiVersion: demo.crdls.dev/v1
                kind: Pump
                metadata: {name: p}
                spec:⟨rate: 10 (default)⟩⟨outlet: {size: 2} (default)⟩
                  mode: ~⟨→ Steady (default)⟩
                  note: null
                  ports:
                  - port: 80⟨protocol: TCP (default)⟩
                  - {port: 81, protocol: UDP}
                  weights: [3, null⟨→ 1 (default)⟩]
                ---
                apiVersion: demo.crdls.dev/v1
                kind: Pump
                metadata: {name: q}
                spec: {rate: 1, outlet: {size: 1}}⟨mode: Steady (default)⟩⟨note: none (default)⟩
                status:
            "#]],
        );
    }
}
