//! The outline of a YAML file: one symbol per document (`Widget my-widget`) with its keys as
//! children, and the ranges an editor can fold (documents, and keys whose values span lines).

use crdls_yaml::{Node, Stream, Value};

use crdls_diagnostics::TextRange;

/// What a symbol stands for.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SymbolKind {
    /// A whole document (a Kubernetes object, or other YAML).
    Document,
    /// A key whose value is a mapping.
    Object,
    /// A key whose value is a sequence.
    Array,
    /// A key with a scalar value.
    Field,
}

/// One outline entry.
#[derive(Clone, Debug, PartialEq)]
pub struct Symbol {
    /// The name shown (`spec`, `[0] http`, `Widget my-widget`).
    pub name: String,
    /// A short detail (the scalar value, or `apiVersion` for documents).
    pub detail: Option<String>,
    /// What it is.
    pub kind: SymbolKind,
    /// The whole range (key and value).
    pub range: TextRange,
    /// The part to select (the key).
    pub selection: TextRange,
    /// Nested entries.
    pub children: Vec<Symbol>,
}

/// The outline of every document.
pub fn document_symbols(text: &str, stream: &Stream) -> Vec<Symbol> {
    let mut out = Vec::new();
    for (i, doc) in stream.documents.iter().enumerate() {
        let Some(root) = &doc.root else { continue };
        let kind = root.get_str("kind");
        let name = root.get("metadata").and_then(|m| m.get_str("name"));
        let title = match (kind, name) {
            (Some(k), Some(n)) => format!("{k} {n}"),
            (Some(k), None) => k.to_string(),
            _ => format!("document {}", i + 1),
        };
        let range = TextRange::new(root.range.start, doc.range.end.min(text.len()).max(root.range.end));
        let selection = root.get("kind").map_or(TextRange::empty(root.range.start), |k| k.range);
        out.push(Symbol {
            name: title,
            detail: root.get_str("apiVersion").map(str::to_string),
            kind: SymbolKind::Document,
            range,
            selection,
            children: children(root),
        });
    }
    out
}

fn children(node: &Node) -> Vec<Symbol> {
    match &node.value {
        Value::Map(entries) => entries
            .iter()
            .map(|e| Symbol {
                name: e.key.clone(),
                detail: scalar_detail(&e.value),
                kind: kind_of(&e.value),
                range: e.key_range.cover(e.value.range),
                selection: e.key_range,
                children: children(&e.value),
            })
            .collect(),
        Value::Seq(items) => items
            .iter()
            .enumerate()
            .map(|(i, item)| {
                // A list item is named by its `name` (or first scalar) field when it has one.
                let label = item.get_str("name").or_else(|| item.as_map().and_then(|m| m.first()).and_then(|e| e.value.as_str()));
                Symbol {
                    name: match label {
                        Some(l) => format!("[{i}] {l}"),
                        None => format!("[{i}]"),
                    },
                    detail: scalar_detail(item),
                    kind: kind_of(item),
                    range: item.range,
                    selection: item.range,
                    children: children(item),
                }
            })
            .collect(),
        _ => Vec::new(),
    }
}

fn kind_of(node: &Node) -> SymbolKind {
    match node.value {
        Value::Map(_) => SymbolKind::Object,
        Value::Seq(_) => SymbolKind::Array,
        _ => SymbolKind::Field,
    }
}

fn scalar_detail(node: &Node) -> Option<String> {
    match &node.value {
        Value::Map(_) | Value::Seq(_) => None,
        Value::Str(s) => Some(s.lines().next().unwrap_or_default().chars().take(60).collect()),
        Value::Null => None,
        Value::Bool(b) => Some(b.to_string()),
        Value::Int(i) => Some(i.to_string()),
        Value::Float(f) => Some(f.to_string()),
    }
}

/// Ranges worth folding: each document, and each key or list item whose value spans more than one line.
/// The editor folds by lines; ranges within one line are left out.
pub fn folding_ranges(text: &str, stream: &Stream) -> Vec<TextRange> {
    let mut out = Vec::new();
    for doc in &stream.documents {
        if let Some(root) = &doc.root {
            push_if_multiline(text, root.range, &mut out);
            fold(text, root, &mut out);
        }
    }
    out.sort_by_key(|r| (r.start, std::cmp::Reverse(r.end)));
    out.dedup();
    out
}

fn fold(text: &str, node: &Node, out: &mut Vec<TextRange>) {
    match &node.value {
        Value::Map(entries) => {
            for e in entries {
                push_if_multiline(text, e.key_range.cover(e.value.range), out);
                fold(text, &e.value, out);
            }
        }
        Value::Seq(items) => {
            for item in items {
                push_if_multiline(text, item.range, out);
                fold(text, item, out);
            }
        }
        _ => {}
    }
}

fn push_if_multiline(text: &str, range: TextRange, out: &mut Vec<TextRange>) {
    let end = range.end.min(text.len());
    let start = range.start.min(end);
    // Trailing line breaks do not make a range multi-line.
    let inner = text[start..end].trim_end();
    if inner.contains('\n') {
        out.push(TextRange::new(start, start + inner.len()));
    }
}

#[cfg(test)]
mod tests {
    use expect_test::{expect, Expect};

    use super::*;

    fn check_symbols(text: &str, expect: Expect) {
        let stream = crdls_yaml::parse(text);
        let mut out = String::new();
        fn render(s: &Symbol, depth: usize, text: &str, out: &mut String) {
            let key = &text[s.selection.start..s.selection.end];
            out.push_str(&format!("{}{:?} {} [{}] {:?}\n", "  ".repeat(depth), s.kind, s.name, key, s.detail));
            for c in &s.children {
                render(c, depth + 1, text, out);
            }
        }
        for s in document_symbols(text, &stream) {
            render(&s, 0, text, &mut out);
        }
        expect.assert_eq(&out);
    }

    fn check_folds(text: &str, expect: Expect) {
        let stream = crdls_yaml::parse(text);
        let index = crdls_yaml::LineIndex::new(text);
        let out: Vec<String> =
            folding_ranges(text, &stream).iter().map(|r| format!("{}-{}", index.line_of(r.start) + 1, index.line_of(r.end) + 1)).collect();
        expect.assert_eq(&out.join(" "));
    }

    const TEXT: &str = "apiVersion: demo.crdls.dev/v1\nkind: Widget\nmetadata:\n  name: w1\nspec:\n  size: 3\n  ports:\n  - name: http\n    port: 80\n  - port: 81\n---\nreplicaCount: 2\n";

    #[test]
    fn symbols_name_documents_by_kind_and_name() {
        check_symbols(
            TEXT,
            expect![[r#"
                Document Widget w1 [Widget] Some("demo.crdls.dev/v1")
                  Field apiVersion [apiVersion] Some("demo.crdls.dev/v1")
                  Field kind [kind] Some("Widget")
                  Object metadata [metadata] None
                    Field name [name] Some("w1")
                  Object spec [spec] None
                    Field size [size] Some("3")
                    Array ports [ports] None
                      Object [0] http [name: http
                    port: 80] None
                        Field name [name] Some("http")
                        Field port [port] Some("80")
                      Object [1] [port: 81] None
                        Field port [port] Some("81")
                Document document 2 [] None
                  Field replicaCount [replicaCount] Some("2")
            "#]],
        );
    }

    #[test]
    fn folds_multi_line_values_only() {
        check_folds(TEXT, expect!["1-10 3-4 5-10 7-10 8-9"]);
        check_folds("", expect![""]);
    }
}
