//! Positions in a document's text: the encodings a client can offer, LSP positions and content changes, and
//! the harness's own arithmetic between byte offsets and positions (independent of the server's).

use serde_json::{json, Value};

/// The position encodings a client can offer.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Encoding {
    /// Columns in UTF-16 code units; the client offers only `utf-16` (the LSP default).
    Utf16,
    /// Columns in UTF-8 bytes; the client offers `utf-8` first, then `utf-16`.
    Utf8,
}

impl Encoding {
    /// The LSP name.
    pub fn name(self) -> &'static str {
        match self {
            Encoding::Utf16 => "utf-16",
            Encoding::Utf8 => "utf-8",
        }
    }

    pub(super) fn width(self, c: char) -> usize {
        match self {
            Encoding::Utf16 => c.len_utf16(),
            Encoding::Utf8 => c.len_utf8(),
        }
    }
}

/// A zero-based LSP position, in the session's negotiated encoding.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Position {
    /// The line.
    pub line: u32,
    /// The column, in the negotiated encoding's units.
    pub character: u32,
}

impl Position {
    /// A position.
    pub fn new(line: u32, character: u32) -> Position {
        Position { line, character }
    }

    pub(super) fn json(self) -> Value {
        json!({"line": self.line, "character": self.character})
    }
}

/// One content change of a `textDocument/didChange`.
#[derive(Clone, Debug)]
pub struct Change {
    pub(super) range: Option<(Position, Position)>,
    pub(super) text: String,
}

impl Change {
    /// Replaces the whole text.
    pub fn full(text: &str) -> Change {
        Change { range: None, text: text.to_string() }
    }

    /// Replaces a range (positions in the negotiated encoding; they may be out of bounds on purpose).
    pub fn range(start: Position, end: Position, text: &str) -> Change {
        Change { range: Some((start, end)), text: text.to_string() }
    }

    pub(super) fn json(&self) -> Value {
        match self.range {
            None => json!({"text": self.text}),
            Some((start, end)) => json!({"range": {"start": start.json(), "end": end.json()}, "text": self.text}),
        }
    }
}

pub(super) fn lsp_position(value: &Value) -> Option<Position> {
    Some(Position { line: u32::try_from(value["line"].as_u64()?).ok()?, character: u32::try_from(value["character"].as_u64()?).ok()? })
}

/// `text` without its `$0` cursor marker, and the marker's byte offset.
pub fn cursor(marked: &str) -> (String, usize) {
    let offset = marked.find("$0").expect("a $0 cursor marker");
    assert_eq!(marked.matches("$0").count(), 1, "more than one $0 marker");
    (format!("{}{}", &marked[..offset], &marked[offset + 2..]), offset)
}

/// The lines of a text, each without its line ending, with the byte offset it starts at. Lines end as
/// LSP 3.17 says: at `\n`, `\r\n` or a lone `\r`.
fn lines(text: &str) -> Vec<(usize, &str)> {
    let mut out = Vec::new();
    let mut start = 0;
    let mut rest = text;
    while let Some(at) = rest.find(['\n', '\r']) {
        let ending = if rest[at..].starts_with("\r\n") { 2 } else { 1 };
        out.push((start, &rest[..at]));
        start += at + ending;
        rest = &rest[at + ending..];
    }
    out.push((start, rest));
    out
}

/// A byte offset as a position in `encoding`.
pub fn position_at(text: &str, offset: usize, encoding: Encoding) -> Position {
    let lines = lines(text);
    let line = lines.iter().rposition(|(start, _)| *start <= offset).unwrap_or(0);
    let (start, content) = lines[line];
    let column: usize = content[..(offset - start).min(content.len())].chars().map(|c| encoding.width(c)).sum();
    Position { line: u32::try_from(line).expect("a line number"), character: u32::try_from(column).expect("a column") }
}

/// The byte offset of a position that lies exactly on a character boundary within a line, or `None`.
pub fn exact_offset(text: &str, position: Position, encoding: Encoding) -> Option<usize> {
    let (start, content) = *lines(text).get(position.line as usize)?;
    let mut column = 0;
    for (i, c) in content.char_indices() {
        if column == position.character as usize {
            return Some(start + i);
        }
        column += encoding.width(c);
    }
    (column == position.character as usize).then_some(start + content.len())
}

/// The byte offset of a position, clamped as the LSP asks: past the line's end means its end (before
/// the line ending), past the last line means the end of the text, inside a character means before it.
pub(super) fn clamped_offset(text: &str, position: Position, encoding: Encoding) -> usize {
    let all = lines(text);
    let Some(&(start, content)) = all.get(position.line as usize) else { return text.len() };
    let mut column = 0;
    for (i, c) in content.char_indices() {
        let width = encoding.width(c);
        if column + width > position.character as usize {
            return start + i;
        }
        column += width;
    }
    start + content.len()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn positions_in_both_encodings_on_multibyte_crlf_text() {
        let text = "a: 日本🎉x\r\nb: 1\n";
        let x = text.find('x').unwrap();
        assert_eq!(position_at(text, x, Encoding::Utf16), Position::new(0, 7));
        assert_eq!(position_at(text, x, Encoding::Utf8), Position::new(0, 13));
        assert_eq!(exact_offset(text, Position::new(0, 7), Encoding::Utf16), Some(x));
        assert_eq!(exact_offset(text, Position::new(0, 6), Encoding::Utf16), None, "inside the emoji's surrogate pair");
        assert_eq!(exact_offset(text, Position::new(0, 9), Encoding::Utf16), None, "past the end of the line");
        assert_eq!(exact_offset(text, Position::new(2, 0), Encoding::Utf16), Some(text.len()));
        assert_eq!(clamped_offset(text, Position::new(0, 99), Encoding::Utf16), text.find('\r').unwrap());
        assert_eq!(clamped_offset(text, Position::new(9, 0), Encoding::Utf16), text.len());
    }

    #[test]
    fn a_lone_cr_ends_a_line() {
        let text = "a\rb\r\nc\n\rd";
        let starts: Vec<(usize, &str)> = lines(text);
        assert_eq!(starts, [(0, "a"), (2, "b"), (5, "c"), (7, ""), (8, "d")]);
        assert_eq!(position_at(text, text.find('d').unwrap(), Encoding::Utf16), Position::new(4, 0));
    }
}
