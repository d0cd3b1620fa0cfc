//! Mapping offsets inside a string scalar's decoded value back to the source text, so that an error at some
//! characters of a string (a CEL rule, a pattern) is underlined at those characters of the file.
//!
//! The node's source is scanned again by the YAML 1.2 rules of its style (escapes, line folding, block
//! indentation and chomping), recording where every decoded byte came from. The rebuilt value must equal the
//! parser's; when it does not, there is no map and callers fall back to the whole node.
//!
//! `flow` decodes plain and quoted scalars (they fold lines by the same rules), `block` the literal and
//! folded ones; both rebuild the value with a `Decoder` (`decoder`), which records the source of every run.

mod block;
mod decoder;
mod flow;
#[cfg(test)]
mod property_tests;
#[cfg(test)]
mod tests;

use crate::{Node, Style, Value};

use crdls_diagnostics::TextRange;

pub(crate) use flow::decode_quoted;
use flow::Quote;

/// Where each byte of a string scalar's decoded value came from in the source.
#[derive(Clone, Debug)]
pub struct ScalarMap {
    value: String,
    /// Runs of decoded bytes, in order; each starts where the previous one ends.
    pieces: Vec<Piece>,
    /// Where an empty range at the very end of the value maps to.
    end: usize,
}

/// A run of decoded bytes and the source bytes it came from.
#[derive(Clone, Copy, Debug)]
struct Piece {
    /// The run's first decoded byte; the run ends where the next piece starts.
    decoded: usize,
    /// The source bytes.
    source: TextRange,
    /// Whether the run is a copy of its source (decoded byte `i` of the run is source byte `i`), rather than
    /// an escape or a folded line break, whose every decoded byte maps to the whole source range.
    verbatim: bool,
}

impl ScalarMap {
    /// Builds the map for a string scalar node of `text`. `None` when the node is not a string scalar (an
    /// alias, a number, a mapping) or when its source does not decode to the node's value; callers then fall
    /// back to the node's whole range.
    pub fn new(text: &str, node: &Node) -> Option<ScalarMap> {
        let Value::Str(value) = &node.value else { return None };
        let range = node.range;
        if range.start > range.end || !text.is_char_boundary(range.start) || !text.is_char_boundary(range.end) {
            return None;
        }
        let decoded = match node.style {
            Style::Plain => flow::plain(text, range),
            Style::SingleQuoted => flow::quoted(text, range.start, Quote::Single),
            Style::DoubleQuoted => flow::quoted(text, range.start, Quote::Double),
            Style::Literal | Style::Folded => return block::block(text, range, node.style == Style::Literal, value),
            Style::Block | Style::Flow | Style::Empty => None,
        };
        decoded?.finish(value)
    }

    /// The source range of decoded bytes `start..end` (end exclusive). Offsets past the value are clamped, offsets
    /// inside a character widen to the whole character, and an empty range maps to an empty range. A range that
    /// takes part of an escape or of a folded line break covers all of it.
    pub fn source_range(&self, start: usize, end: usize) -> TextRange {
        let len = self.value.len();
        let mut start = start.min(len);
        while !self.value.is_char_boundary(start) {
            start -= 1;
        }
        let mut end = end.clamp(start, len);
        while !self.value.is_char_boundary(end) {
            end += 1;
        }
        if start == end {
            return TextRange::empty(if start < len { self.source_of(start).start } else { self.end });
        }
        TextRange::new(self.source_of(start).start, self.source_of(end - 1).end)
    }

    /// [`ScalarMap::source_range`] for offsets counted in characters (Unicode scalar values), as CEL parsers
    /// report them.
    pub fn source_range_chars(&self, start_char: usize, end_char: usize) -> TextRange {
        self.source_range(self.char_to_byte(start_char), self.char_to_byte(end_char))
    }

    fn char_to_byte(&self, char_offset: usize) -> usize {
        if self.value.is_ascii() {
            return char_offset.min(self.value.len());
        }
        self.value.char_indices().nth(char_offset).map_or(self.value.len(), |(i, _)| i)
    }

    /// The source of one decoded byte.
    fn source_of(&self, byte: usize) -> TextRange {
        let index = self.pieces.partition_point(|p| p.decoded <= byte).saturating_sub(1);
        match self.pieces.get(index) {
            Some(p) if p.verbatim => {
                let at = (p.source.start + byte.saturating_sub(p.decoded)).min(p.source.end.saturating_sub(1));
                TextRange::new(at, at + 1)
            }
            Some(p) => p.source,
            None => TextRange::empty(self.end),
        }
    }
}
