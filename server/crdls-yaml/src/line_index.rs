//! Maps byte offsets to lines and columns (bytes, characters or UTF-16 units) and back.

use crdls_diagnostics::TextRange;

/// A line and column, both 0-based. What the column counts depends on the call that made it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub struct LineCol {
    /// 0-based line number.
    pub line: u32,
    /// 0-based column.
    pub col: u32,
}

/// The unit a column is counted in.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ColumnUnit {
    /// UTF-8 bytes.
    Utf8,
    /// UTF-16 code units (the LSP default).
    Utf16,
    /// Unicode scalar values (what the CLI prints).
    Char,
}

/// Line starts of one text. Lines end at `\n`, `\r\n` or a lone `\r`: the line endings of LSP 3.17
/// and of YAML 1.2 (`b-break`), which the parser follows, so positions and the parse agree. Nothing
/// else ends a line (not U+2028, U+0085, a vertical tab or a form feed, which LSP does not count).
#[derive(Clone, Debug)]
pub struct LineIndex {
    line_starts: Vec<usize>,
    len: usize,
}

impl LineIndex {
    /// Indexes `text`.
    pub fn new(text: &str) -> LineIndex {
        let bytes = text.as_bytes();
        let mut line_starts = vec![0];
        for (i, &b) in bytes.iter().enumerate() {
            // A `\r` followed by `\n` is one line ending, which the `\n` closes.
            let ends = b == b'\n' || (b == b'\r' && bytes.get(i + 1) != Some(&b'\n'));
            if ends {
                line_starts.push(i + 1);
            }
        }
        LineIndex { line_starts, len: text.len() }
    }

    /// The number of lines (a text ending in a newline has an empty last line).
    pub fn line_count(&self) -> usize {
        self.line_starts.len()
    }

    /// The byte offset where 0-based `line` starts, or the text length past the end.
    pub fn line_start(&self, line: u32) -> usize {
        self.line_starts.get(line as usize).copied().unwrap_or(self.len)
    }

    /// The 0-based line holding `offset`.
    pub fn line_of(&self, offset: usize) -> u32 {
        let offset = offset.min(self.len);
        match self.line_starts.binary_search(&offset) {
            Ok(line) => line as u32,
            Err(next) => (next - 1) as u32,
        }
    }

    /// Line and column of `offset`, the column counted in `unit`. An offset inside a character counts as its start.
    pub fn line_col(&self, text: &str, offset: usize, unit: ColumnUnit) -> LineCol {
        let mut offset = offset.min(text.len());
        while !text.is_char_boundary(offset) {
            offset -= 1;
        }
        let line = self.line_of(offset);
        let start = self.line_starts[line as usize];
        let prefix = &text[start..offset];
        let col = match unit {
            ColumnUnit::Utf8 => prefix.len(),
            ColumnUnit::Utf16 => prefix.chars().map(char::len_utf16).sum(),
            ColumnUnit::Char => prefix.chars().count(),
        };
        LineCol { line, col: col as u32 }
    }

    /// The byte offset of a line and column counted in `unit`. Columns past the line's end clamp to it
    /// (the line ending is never entered), lines past the end clamp to the text's end.
    pub fn offset(&self, text: &str, pos: LineCol, unit: ColumnUnit) -> usize {
        if pos.line as usize >= self.line_starts.len() {
            return text.len();
        }
        let start = self.line_starts[pos.line as usize];
        let end = self.line_starts.get(pos.line as usize + 1).copied().unwrap_or(text.len());
        let line = &text[start..end];
        let line = line.strip_suffix("\r\n").or_else(|| line.strip_suffix(['\n', '\r'])).unwrap_or(line);
        let mut remaining = pos.col as usize;
        for (i, c) in line.char_indices() {
            let width = match unit {
                ColumnUnit::Utf8 => c.len_utf8(),
                ColumnUnit::Utf16 => c.len_utf16(),
                ColumnUnit::Char => 1,
            };
            if remaining < width {
                return start + i;
            }
            remaining -= width;
        }
        start + line.len()
    }

    /// Both ends of a range as line and column.
    pub fn range(&self, text: &str, range: TextRange, unit: ColumnUnit) -> (LineCol, LineCol) {
        (self.line_col(text, range.start, unit), self.line_col(text, range.end, unit))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn columns_in_every_unit_on_non_ascii_and_crlf() {
        let text = "a: x\r\nb: h\u{e9}\u{1F600}z\r\n";
        let index = LineIndex::new(text);
        let z = text.find('z').unwrap();
        assert_eq!(index.line_col(text, z, ColumnUnit::Utf8), LineCol { line: 1, col: 10 });
        assert_eq!(index.line_col(text, z, ColumnUnit::Utf16), LineCol { line: 1, col: 7 });
        assert_eq!(index.line_col(text, z, ColumnUnit::Char), LineCol { line: 1, col: 6 });
        for unit in [ColumnUnit::Utf8, ColumnUnit::Utf16, ColumnUnit::Char] {
            let pos = index.line_col(text, z, unit);
            assert_eq!(index.offset(text, pos, unit), z);
        }
        // A column past the end of a CRLF line stops before the line ending.
        assert_eq!(index.offset(text, LineCol { line: 0, col: 99 }, ColumnUnit::Utf16), 4);
        assert_eq!(index.line_col(text, text.len(), ColumnUnit::Char), LineCol { line: 2, col: 0 });
    }

    #[test]
    fn a_lone_cr_ends_a_line_as_lsp_and_yaml_say() {
        // Lines: "a: 1" (CR), "b: 2" (CRLF), "" (CR), "c: 3" (LF), "d\u{2028}e\u{85}f\x0bg\x0ch" (no break).
        let text = "a: 1\rb: 2\r\n\rc: 3\nd\u{2028}e\u{85}f\x0bg\x0ch";
        let index = LineIndex::new(text);
        assert_eq!(index.line_count(), 5);
        let b = text.find('b').unwrap();
        assert_eq!(index.line_col(text, b, ColumnUnit::Char), LineCol { line: 1, col: 0 });
        let c = text.find('c').unwrap();
        assert_eq!(index.line_col(text, c, ColumnUnit::Char), LineCol { line: 3, col: 0 });
        let h = text.find('h').unwrap();
        assert_eq!(index.line_col(text, h, ColumnUnit::Char), LineCol { line: 4, col: 8 });
        for unit in [ColumnUnit::Utf8, ColumnUnit::Utf16, ColumnUnit::Char] {
            for offset in [b, c, h] {
                assert_eq!(index.offset(text, index.line_col(text, offset, unit), unit), offset);
            }
        }
        // A column past the end of a line stops before its line ending, whichever it is.
        assert_eq!(index.offset(text, LineCol { line: 0, col: 99 }, ColumnUnit::Utf16), 4);
        assert_eq!(index.offset(text, LineCol { line: 1, col: 99 }, ColumnUnit::Utf16), b + 4);
        assert_eq!(index.offset(text, LineCol { line: 2, col: 99 }, ColumnUnit::Utf16), b + 6);
    }
}
