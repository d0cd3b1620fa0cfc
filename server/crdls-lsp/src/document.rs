//! Open documents: a rope that takes incremental edits, the version the client gave it, and the
//! positions of edits converted in the negotiated encoding.

use ropey::Rope;
use tower_lsp::lsp_types::{Position, TextDocumentContentChangeEvent};

use crate::proto::Encoding;

/// One open document.
#[derive(Clone, Debug)]
pub struct Document {
    /// The text.
    pub rope: Rope,
    /// The client's version of it.
    pub version: i32,
    /// Bumped on every change; a check started at an older generation is stale.
    pub generation: u64,
}

impl Document {
    /// A newly opened document.
    pub fn new(text: &str, version: i32) -> Document {
        Document { rope: Rope::from_str(text), version, generation: 0 }
    }

    /// Applies the client's changes in order (full replacements or ranged edits).
    pub fn apply(&mut self, changes: Vec<TextDocumentContentChangeEvent>, version: i32, encoding: Encoding) {
        for change in changes {
            match change.range {
                None => self.rope = Rope::from_str(&change.text),
                Some(range) => {
                    let start = self.char_index(range.start, encoding);
                    let end = self.char_index(range.end, encoding).max(start);
                    self.rope.remove(start..end);
                    self.rope.insert(start, &change.text);
                }
            }
        }
        self.version = version;
        self.generation += 1;
    }

    /// The character index of an LSP position, clamped to the line (its line ending excluded) and the text.
    fn char_index(&self, position: Position, encoding: Encoding) -> usize {
        let line = position.line as usize;
        if line >= self.rope.len_lines() {
            return self.rope.len_chars();
        }
        let line_start = self.rope.line_to_char(line);
        let slice = self.rope.line(line);
        let mut len = slice.len_chars();
        // The line ending is not part of the addressable columns.
        while len > 0 && matches!(slice.char(len - 1), '\n' | '\r') {
            len -= 1;
        }
        let mut remaining = position.character as usize;
        for (i, c) in slice.chars().take(len).enumerate() {
            let width = match encoding {
                Encoding::Utf8 => c.len_utf8(),
                Encoding::Utf16 => c.len_utf16(),
            };
            if remaining < width {
                return line_start + i;
            }
            remaining -= width;
        }
        line_start + len
    }

    /// The whole text.
    pub fn text(&self) -> String {
        self.rope.to_string()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use tower_lsp::lsp_types::Range;

    fn edit(line: u32, from: u32, to: u32, text: &str) -> TextDocumentContentChangeEvent {
        TextDocumentContentChangeEvent {
            range: Some(Range { start: Position { line, character: from }, end: Position { line, character: to } }),
            range_length: None,
            text: text.into(),
        }
    }

    #[test]
    fn edits_in_utf16_and_utf8_on_multibyte_crlf_text() {
        let mut doc = Document::new("a: \u{1F600}x\r\nb: 1\r\n", 1);
        // In UTF-16 the emoji is 2 units wide: column 5 is just after it.
        doc.apply(vec![edit(0, 5, 6, "y")], 2, Encoding::Utf16);
        assert_eq!(doc.text(), "a: \u{1F600}y\r\nb: 1\r\n");
        // In UTF-8 it is 4 bytes wide: column 7 is just after it.
        doc.apply(vec![edit(0, 7, 8, "z")], 3, Encoding::Utf8);
        assert_eq!(doc.text(), "a: \u{1F600}z\r\nb: 1\r\n");
        // Past the end of a CRLF line, the edit lands before the line ending.
        doc.apply(vec![edit(1, 3, 99, "2")], 4, Encoding::Utf16);
        assert_eq!(doc.text(), "a: \u{1F600}z\r\nb: 2\r\n");
        assert_eq!((doc.version, doc.generation), (4, 3));
    }

    #[test]
    fn a_lone_cr_ends_a_line_and_u2028_does_not() {
        // Lines as LSP counts them: "a: 1" (CR), "b: 2\u{2028}c" (CRLF), "d: 3".
        let mut doc = Document::new("a: 1\rb: 2\u{2028}c\r\nd: 3", 1);
        doc.apply(vec![edit(1, 3, 4, "5")], 2, Encoding::Utf16);
        assert_eq!(doc.text(), "a: 1\rb: 5\u{2028}c\r\nd: 3");
        // An edit that brings a lone CR of its own moves the lines after it down.
        doc.apply(vec![edit(0, 4, 4, "\rx: 0")], 3, Encoding::Utf16);
        doc.apply(vec![edit(3, 3, 4, "4")], 4, Encoding::Utf16);
        assert_eq!(doc.text(), "a: 1\rx: 0\rb: 5\u{2028}c\r\nd: 4");
    }
}
