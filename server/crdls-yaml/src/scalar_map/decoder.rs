//! The decoded value being rebuilt, with the source of every run, and the scanning of the source that every
//! scalar style shares (properties, white space, line breaks).

use super::{Piece, ScalarMap};
use crdls_diagnostics::TextRange;

/// The value being rebuilt, with the source of every run.
pub(super) struct Decoder<'t> {
    pub(super) text: &'t str,
    pub(super) out: String,
    pieces: Vec<Piece>,
    end: usize,
    /// Set when a slice of the source could not be taken; the decoding is then worthless.
    pub(super) broken: bool,
}

impl<'t> Decoder<'t> {
    pub(super) fn new(text: &'t str, start: usize) -> Decoder<'t> {
        Decoder { text, out: String::new(), pieces: Vec::new(), end: start, broken: false }
    }

    /// Copies source bytes `start..end` to the value.
    pub(super) fn copy(&mut self, start: usize, end: usize) {
        if start >= end {
            return;
        }
        let Some(s) = self.text.get(start..end) else {
            self.broken = true;
            return;
        };
        match self.pieces.last_mut() {
            Some(last) if last.verbatim && last.source.end == start => last.source.end = end,
            _ => self.pieces.push(Piece { decoded: self.out.len(), source: TextRange::new(start, end), verbatim: true }),
        }
        self.out.push_str(s);
        self.end = end;
    }

    /// Appends `s`, which stands for the source bytes `source` (an escape, a folded line break).
    pub(super) fn emit(&mut self, s: &str, source: TextRange) {
        if s.is_empty() {
            return;
        }
        self.pieces.push(Piece { decoded: self.out.len(), source, verbatim: false });
        self.out.push_str(s);
        self.end = source.end;
    }

    /// The map, when the rebuilt value is the parser's.
    pub(super) fn finish(self, value: &str) -> Option<ScalarMap> {
        (!self.broken && self.out == value).then_some(ScalarMap { value: self.out, pieces: self.pieces, end: self.end })
    }
}

/// Skips a node's properties (tags and anchors) and the white space, line breaks and comments after them.
pub(super) fn skip_properties(text: &str, mut i: usize, limit: usize) -> usize {
    let b = text.as_bytes();
    while i < limit && matches!(b[i], b'!' | b'&') {
        while i < limit && !matches!(b[i], b' ' | b'\t' | b'\n' | b'\r') {
            i += 1;
        }
        loop {
            while i < limit && matches!(b[i], b' ' | b'\t' | b'\n' | b'\r') {
                i += 1;
            }
            if i < limit && b[i] == b'#' {
                while i < limit && !matches!(b[i], b'\n' | b'\r') {
                    i += 1;
                }
            } else {
                break;
            }
        }
    }
    i
}

pub(super) fn is_white(c: u8) -> bool {
    c == b' ' || c == b'\t'
}

/// The length of the line break at `i` (`\r\n`, `\r` or `\n`), 0 when there is none.
pub(super) fn break_len(b: &[u8], i: usize) -> usize {
    match (b.get(i), b.get(i + 1)) {
        (Some(b'\r'), Some(b'\n')) => 2,
        (Some(b'\r' | b'\n'), _) => 1,
        _ => 0,
    }
}
