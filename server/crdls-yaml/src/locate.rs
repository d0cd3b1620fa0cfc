//! What is at a byte offset of a parsed stream: the document holding it, the chain of keys and indexes
//! from that document's root to the innermost node holding it, and whether the offset is on a key or a value.

use crate::{Document, Entry, Node, Stream, Value};

use crdls_diagnostics::TextRange;

/// One step from a collection to one of its children.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Segment<'a> {
    /// The value of a mapping's key.
    Key(&'a str),
    /// An item of a sequence.
    Index(usize),
}

/// What lies at an offset.
#[derive(Clone, Debug)]
pub struct Location<'a> {
    /// The document holding the offset.
    pub document: &'a Document,
    /// The steps from the document's root to `node`.
    pub path: Vec<Segment<'a>>,
    /// The innermost node holding the offset. When the offset is on a key, this is that key's value.
    pub node: &'a Node,
    /// The entry whose key the offset is on, if it is on a key (the last step of `path` is then that key).
    pub key: Option<&'a Entry>,
}

impl Location<'_> {
    /// Whether the offset is on a key.
    pub fn on_key(&self) -> bool {
        self.key.is_some()
    }

    /// Whether the offset is on a scalar value (a key's value or a sequence item, not a collection).
    pub fn on_scalar(&self) -> bool {
        self.key.is_none() && !matches!(self.node.value, Value::Map(_) | Value::Seq(_))
    }

    /// The range of what the offset is on: the key, or else the innermost node.
    pub fn range(&self) -> TextRange {
        self.key.map_or(self.node.range, |e| e.key_range)
    }
}

/// The document of `stream` whose text holds byte `offset`. At the boundary between two documents the
/// later one wins (the offset is then at the start of its `---` line); the end of the text belongs to the last.
pub fn document_at(stream: &Stream, offset: usize) -> Option<&Document> {
    stream
        .documents
        .iter()
        .find(|d| d.range.start <= offset && offset < d.range.end)
        .or_else(|| stream.documents.iter().rev().find(|d| d.range.end == offset))
}

/// What lies at byte `offset`: `None` when no document with content holds it. A key or value is "at" an
/// offset that touches it from either side, so a cursor right after a word is on that word.
pub fn locate(stream: &Stream, offset: usize) -> Option<Location<'_>> {
    let document = document_at(stream, offset)?;
    let mut node = document.root.as_ref()?;
    let mut path = Vec::new();
    loop {
        match &node.value {
            Value::Map(entries) => {
                if let Some(entry) = entries.iter().find(|e| e.key_range.contains_inclusive(offset)) {
                    path.push(Segment::Key(&entry.key));
                    return Some(Location { document, path, node: &entry.value, key: Some(entry) });
                }
                match entries.iter().find(|e| !e.value.range.is_empty() && e.value.range.contains_inclusive(offset)) {
                    Some(entry) => {
                        path.push(Segment::Key(&entry.key));
                        node = &entry.value;
                    }
                    None => break,
                }
            }
            Value::Seq(items) => match items.iter().position(|i| !i.range.is_empty() && i.range.contains_inclusive(offset)) {
                Some(index) => {
                    path.push(Segment::Index(index));
                    node = &items[index];
                }
                None => break,
            },
            _ => break,
        }
    }
    Some(Location { document, path, node, key: None })
}

#[cfg(test)]
mod tests {
    use expect_test::{expect, Expect};

    use super::*;
    use crate::parse;

    /// Renders what `locate` finds at the `$0` marker: the path, then what the offset is on and the text it covers.
    fn check(text_with_cursor: &str, expect: Expect) {
        let offset = text_with_cursor.find("$0").unwrap_or(text_with_cursor.len());
        let text = text_with_cursor.replacen("$0", "", 1);
        let stream = parse(&text);
        let got = match locate(&stream, offset) {
            None => "none".to_string(),
            Some(loc) => {
                let path: Vec<String> = loc
                    .path
                    .iter()
                    .map(|s| match s {
                        Segment::Key(k) => k.to_string(),
                        Segment::Index(i) => format!("[{i}]"),
                    })
                    .collect();
                let what = if loc.on_key() {
                    "key"
                } else if loc.on_scalar() {
                    "value"
                } else {
                    "collection"
                };
                let range = loc.range();
                format!("/{} {what} {:?}", path.join("/"), &text[range.start..range.end])
            }
        };
        expect.assert_eq(&got);
    }

    #[test]
    fn keys_values_and_items() {
        check("spec:\n  ports:\n  - na$0me: http\n", expect![[r#"/spec/ports/[0]/name key "name""#]]);
        check("spec:\n  ports:\n  - name: ht$0tp\n", expect![[r#"/spec/ports/[0]/name value "http""#]]);
        check("spec:\n  tags: [a, b$0]\n", expect![[r#"/spec/tags/[1] value "b""#]]);
        check("spec:\n  size: 3$0\n", expect![[r#"/spec/size value "3""#]]);
        check("spec:\n  siz$0e:\n", expect![[r#"/spec/size key "size""#]]);
        check("spec:\n  size: $0\n", expect![[r#"/ collection "spec:\n  size""#]]);
        check("a: 1\n---\nb: ü$0\n", expect![[r#"/b value "ü""#]]);
        check("spec:\n  x: 1\n\n  $0\n  y: 2\n", expect![[r#"/spec collection "x: 1\n\n  \n  y: 2""#]]);
    }

    #[test]
    fn odd_offsets() {
        check("$0", expect!["none"]);
        check("# only a comment\n$0", expect!["none"]);
        let stream = parse("a: 1\n");
        assert!(locate(&stream, 1000).is_none());
        assert!(document_at(&stream, 5).is_some());
    }
}
