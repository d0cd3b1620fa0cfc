//! Flow scalars, plain and quoted: one scanner decodes both, folding line breaks into spaces and dropping
//! the white space around them, and in double-quoted scalars decoding escapes.

use super::decoder::{break_len, is_white, skip_properties, Decoder};
use crdls_diagnostics::TextRange;

#[derive(Clone, Copy, PartialEq, Eq)]
pub(super) enum Quote {
    Plain,
    Single,
    Double,
}

impl Decoder<'_> {
    /// Decodes the text of a flow scalar (plain or quoted) from `start`, up to `limit` or to its closing quote,
    /// whose position is returned.
    fn flow(&mut self, start: usize, limit: usize, quote: Quote) -> Option<usize> {
        let b = self.text.as_bytes();
        let mut i = start;
        // Where the run of unescaped white space before `i` starts: it is dropped before a line break.
        let mut white: Option<usize> = None;
        while i < limit {
            let c = b[i];
            if is_white(c) {
                white.get_or_insert(i);
                i += 1;
                continue;
            }
            if break_len(b, i) > 0 {
                let from = white.take().unwrap_or(i);
                i = self.fold(from, i, limit, true);
                continue;
            }
            if let Some(w) = white.take() {
                self.copy(w, i);
            }
            match (quote, c) {
                (Quote::Single, b'\'') if b.get(i + 1) == Some(&b'\'') => {
                    self.emit("'", TextRange::new(i, i + 2));
                    i += 2;
                }
                (Quote::Single, b'\'') | (Quote::Double, b'"') => return Some(i),
                (Quote::Double, b'\\') => i = self.escape(i, limit)?,
                _ => {
                    let mut j = i + 1;
                    while j < limit && !matches!(b[j], b' ' | b'\t' | b'\n' | b'\r' | b'\'' | b'"' | b'\\') {
                        j += 1;
                    }
                    self.copy(i, j);
                    i = j;
                }
            }
        }
        // A plain scalar ends at the limit (its trailing white space is not part of it); a quoted one must not.
        (quote == Quote::Plain).then_some(limit)
    }

    /// Folds the line break at `at` and the empty lines after it, up to the next line's first character, whose
    /// position is returned: each empty line gives a `\n`; with no empty line, the break gives a space when
    /// `space` (a plain break, from `white` where the dropped white space before it starts) or nothing (a break
    /// escaped with `\`).
    fn fold(&mut self, white: usize, at: usize, limit: usize, space: bool) -> usize {
        let b = self.text.as_bytes();
        let mut i = (at + break_len(b, at)).min(limit);
        let mut empty_lines = false;
        loop {
            while i < limit && is_white(b[i]) {
                i += 1;
            }
            let len = if i < limit { break_len(b, i) } else { 0 };
            if len == 0 {
                if space && !empty_lines {
                    self.emit(" ", TextRange::new(white, i));
                }
                return i;
            }
            self.emit("\n", TextRange::new(i, i + len));
            empty_lines = true;
            i += len;
        }
    }

    /// Decodes the double-quoted escape at `at` (a backslash); returns the position after it.
    fn escape(&mut self, at: usize, limit: usize) -> Option<usize> {
        let b = self.text.as_bytes();
        let c = *b.get(at + 1)?;
        if break_len(b, at + 1) > 0 {
            return Some(self.fold(at, at + 1, limit, false));
        }
        let simple = match c {
            b'0' => Some('\0'),
            b'a' => Some('\u{7}'),
            b'b' => Some('\u{8}'),
            b't' | b'\t' => Some('\t'),
            b'n' => Some('\n'),
            b'v' => Some('\u{b}'),
            b'f' => Some('\u{c}'),
            b'r' => Some('\r'),
            b'e' => Some('\u{1b}'),
            b' ' => Some(' '),
            b'"' => Some('"'),
            b'/' => Some('/'),
            b'\\' => Some('\\'),
            b'N' => Some('\u{85}'),
            b'_' => Some('\u{a0}'),
            b'L' => Some('\u{2028}'),
            b'P' => Some('\u{2029}'),
            _ => None,
        };
        let (ch, len) = match simple {
            Some(ch) => (ch, 2),
            None => {
                let digits = match c {
                    b'x' => 2,
                    b'u' => 4,
                    b'U' => 8,
                    _ => return None,
                };
                let hex = self.text.get(at + 2..at + 2 + digits)?;
                if !hex.bytes().all(|h| h.is_ascii_hexdigit()) {
                    return None;
                }
                let code = u32::from_str_radix(hex, 16).ok()?;
                match char::from_u32(code) {
                    Some(ch) => (ch, 2 + digits),
                    // A UTF-16 surrogate, which only a JSON stream gets this far with (see `parse.rs`):
                    // encoding/json joins a high and a low one into their code point and makes any
                    // other U+FFFD.
                    None if digits == 4 && (0xD800..=0xDFFF).contains(&code) => {
                        let low = self
                            .text
                            .get(at + 6..at + 12)
                            .filter(|l| l.starts_with("\\u"))
                            .and_then(|l| u32::from_str_radix(&l[2..], 16).ok());
                        match low.filter(|l| (0xD800..0xDC00).contains(&code) && (0xDC00..=0xDFFF).contains(l)) {
                            Some(low) => (char::from_u32(0x10000 + ((code - 0xD800) << 10) + (low - 0xDC00))?, 12),
                            None => ('\u{FFFD}', 6),
                        }
                    }
                    None => return None,
                }
            }
        };
        self.emit(ch.encode_utf8(&mut [0; 4]), TextRange::new(at, at + len));
        Some(at + len)
    }
}

pub(super) fn plain(text: &str, range: TextRange) -> Option<Decoder<'_>> {
    let start = skip_properties(text, range.start, range.end);
    // An alias (`*name`) keeps its own range but the value of the node it names.
    if start >= range.end || text.as_bytes()[start] == b'*' {
        return None;
    }
    let mut decoder = Decoder::new(text, start);
    decoder.flow(start, range.end, Quote::Plain)?;
    Some(decoder)
}

/// The value of the single- or double-quoted scalar that starts at `start` (its opening quote, or a
/// tag or anchor before it), decoded from the source by YAML's folding and escaping rules.
pub(crate) fn decode_quoted(text: &str, start: usize, single: bool) -> Option<String> {
    let decoder = quoted(text, start, if single { Quote::Single } else { Quote::Double })?;
    (!decoder.broken).then_some(decoder.out)
}

pub(super) fn quoted(text: &str, start: usize, quote: Quote) -> Option<Decoder<'_>> {
    let open = skip_properties(text, start, text.len());
    let mark = if quote == Quote::Single { b'\'' } else { b'"' };
    if text.as_bytes().get(open) != Some(&mark) {
        return None;
    }
    let mut decoder = Decoder::new(text, open + 1);
    decoder.flow(open + 1, text.len(), quote)?;
    Some(decoder)
}
