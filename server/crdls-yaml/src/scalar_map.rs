//! Mapping offsets inside a string scalar's decoded value back to the source text, so that an error at some
//! characters of a string (a CEL rule, a pattern) is underlined at those characters of the file.
//!
//! The node's source is scanned again by the YAML 1.2 rules of its style (escapes, line folding, block
//! indentation and chomping), recording where every decoded byte came from. The rebuilt value must equal the
//! parser's; when it does not, there is no map and callers fall back to the whole node.

use crate::{Node, Style, TextRange, Value};

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
            Style::Plain => plain(text, range),
            Style::SingleQuoted => quoted(text, range.start, Quote::Single),
            Style::DoubleQuoted => quoted(text, range.start, Quote::Double),
            Style::Literal | Style::Folded => return block(text, range, node.style == Style::Literal, value),
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

/// The value being rebuilt, with the source of every run.
struct Decoder<'t> {
    text: &'t str,
    out: String,
    pieces: Vec<Piece>,
    end: usize,
    /// Set when a slice of the source could not be taken; the decoding is then worthless.
    broken: bool,
}

impl<'t> Decoder<'t> {
    fn new(text: &'t str, start: usize) -> Decoder<'t> {
        Decoder { text, out: String::new(), pieces: Vec::new(), end: start, broken: false }
    }

    /// Copies source bytes `start..end` to the value.
    fn copy(&mut self, start: usize, end: usize) {
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
    fn emit(&mut self, s: &str, source: TextRange) {
        if s.is_empty() {
            return;
        }
        self.pieces.push(Piece { decoded: self.out.len(), source, verbatim: false });
        self.out.push_str(s);
        self.end = source.end;
    }

    /// The map, when the rebuilt value is the parser's.
    fn finish(self, value: &str) -> Option<ScalarMap> {
        (!self.broken && self.out == value).then_some(ScalarMap { value: self.out, pieces: self.pieces, end: self.end })
    }

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
                (char::from_u32(u32::from_str_radix(hex, 16).ok()?)?, 2 + digits)
            }
        };
        self.emit(ch.encode_utf8(&mut [0; 4]), TextRange::new(at, at + len));
        Some(at + len)
    }
}

#[derive(Clone, Copy, PartialEq, Eq)]
enum Quote {
    Plain,
    Single,
    Double,
}

fn plain(text: &str, range: TextRange) -> Option<Decoder<'_>> {
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

fn quoted(text: &str, start: usize, quote: Quote) -> Option<Decoder<'_>> {
    let open = skip_properties(text, start, text.len());
    let mark = if quote == Quote::Single { b'\'' } else { b'"' };
    if text.as_bytes().get(open) != Some(&mark) {
        return None;
    }
    let mut decoder = Decoder::new(text, open + 1);
    decoder.flow(open + 1, text.len(), quote)?;
    Some(decoder)
}

/// Block scalars. The parser's range starts at the first content line (or, with a tag or an anchor, at
/// those), so the header is looked for above; the content indentation depends on the parent's, which the
/// node does not record. Each reading that fits is tried, and the first that yields the value wins.
fn block(text: &str, range: TextRange, literal: bool, value: &str) -> Option<ScalarMap> {
    for at in header_candidates(text, range) {
        let Some(header) = Header::read(text, at) else { continue };
        if header.literal != literal {
            continue;
        }
        for indent in indent_candidates(text, range, &header) {
            if let Some(map) = block_content(text, &header, indent).finish(value) {
                return Some(map);
            }
        }
    }
    None
}

#[derive(Clone, Copy, PartialEq, Eq)]
enum Chomp {
    Strip,
    Clip,
    Keep,
}

/// A block scalar's header line: `|` or `>`, then indentation and chomping indicators and a comment.
struct Header {
    /// The `|` or `>`.
    at: usize,
    literal: bool,
    chomp: Chomp,
    /// The explicit indentation indicator.
    indent: Option<usize>,
    /// The first byte after the header line.
    content: usize,
}

impl Header {
    fn read(text: &str, at: usize) -> Option<Header> {
        let b = text.as_bytes();
        let literal = match b.get(at)? {
            b'|' => true,
            b'>' => false,
            _ => return None,
        };
        let (mut chomp, mut indent) = (None, None);
        let mut i = at + 1;
        while i < b.len() {
            match b[i] {
                b'-' if chomp.is_none() => chomp = Some(Chomp::Strip),
                b'+' if chomp.is_none() => chomp = Some(Chomp::Keep),
                d @ b'1'..=b'9' if indent.is_none() => indent = Some(usize::from(d - b'0')),
                _ => break,
            }
            i += 1;
        }
        let mut j = i;
        while j < b.len() && is_white(b[j]) {
            j += 1;
        }
        if b.get(j) == Some(&b'#') {
            if j == i {
                return None;
            }
            while j < b.len() && !matches!(b[j], b'\n' | b'\r') {
                j += 1;
            }
        }
        if j < b.len() && break_len(b, j) == 0 {
            return None;
        }
        Some(Header { at, literal, chomp: chomp.unwrap_or(Chomp::Clip), indent, content: j + break_len(b, j) })
    }
}

/// Where the `|` or `>` may be: on the closest non-blank line above the range's start when the range starts
/// at content, and right after the properties the range starts with.
fn header_candidates(text: &str, range: TextRange) -> Vec<usize> {
    let b = text.as_bytes();
    let mut found = Vec::new();
    let line = line_start(b, range.start);
    if b[line..range.start].iter().all(|&c| is_white(c)) {
        let mut end = line;
        while end > 0 {
            let content_end = if end >= 2 && &b[end - 2..end] == b"\r\n" { end - 2 } else { end - 1 };
            let start = line_start(b, content_end);
            if b[start..content_end].iter().any(|&c| !is_white(c)) {
                found.extend((start..content_end).filter(|&p| matches!(b[p], b'|' | b'>') && (p == start || is_white(b[p - 1]))));
                break;
            }
            end = start;
        }
    }
    let own = skip_properties(text, range.start, text.len());
    if matches!(b.get(own), Some(b'|' | b'>')) && !found.contains(&own) {
        found.push(own);
    }
    found
}

/// The content indentations to try: the column the range starts at when it starts at content (the parser
/// skips the indentation), then the explicit indicator added to each column where a parent node may start, or
/// the indentation of the first non-blank line and, for an empty scalar, none at all.
fn indent_candidates(text: &str, range: TextRange, header: &Header) -> Vec<usize> {
    let b = text.as_bytes();
    let mut found = Vec::new();
    if range.start >= header.content {
        found.push(range.start - line_start(b, range.start));
    }
    match header.indent {
        Some(m) => {
            let line = line_start(b, header.at);
            found.push(m);
            found.extend((line..header.at).filter(|&p| b[p] != b' ' && (p == line || b[p - 1] == b' ')).map(|p| m + p - line));
        }
        None => {
            let mut i = header.content;
            while i < b.len() {
                let spaces = b[i..].iter().take_while(|&&c| c == b' ').count();
                let j = i + spaces;
                let len = break_len(b, j);
                if len == 0 {
                    if j < b.len() {
                        found.push(spaces);
                    }
                    break;
                }
                i = j + len;
            }
            found.push(usize::MAX);
        }
    }
    let mut unique = Vec::with_capacity(found.len());
    for k in found {
        if !unique.contains(&k) {
            unique.push(k);
        }
    }
    unique
}

#[derive(Clone, Copy, PartialEq, Eq)]
enum LineKind {
    /// Only indentation.
    Empty,
    /// Text starting with a non-white character: folded scalars fold it with its neighbours.
    Text,
    /// Text starting with white space (more indented): its line breaks are kept.
    Spaced,
}

struct Line {
    kind: LineKind,
    /// The first byte after the indentation.
    text: usize,
    /// The line break.
    end: usize,
    /// The byte after the line break.
    next: usize,
}

/// Decodes a block scalar's content with content indentation `indent` (`usize::MAX`: the scalar is empty).
fn block_content<'t>(text: &'t str, header: &Header, indent: usize) -> Decoder<'t> {
    let b = text.as_bytes();
    let mut lines = Vec::new();
    let mut i = header.content;
    while i < b.len() {
        let start = i;
        let end = start + b[start..].iter().position(|&c| matches!(c, b'\n' | b'\r')).unwrap_or(b.len() - start);
        let next = end + break_len(b, end);
        let spaces = b[start..end].iter().take_while(|&&c| c == b' ').count();
        let blank = start + spaces == end;
        let kind = if blank && spaces <= indent {
            LineKind::Empty
        } else if spaces < indent || (indent == 0 && is_document_marker(&b[start..end])) {
            break;
        } else if is_white(b[start + indent]) {
            LineKind::Spaced
        } else {
            LineKind::Text
        };
        let text = if kind == LineKind::Empty { end } else { start + indent };
        lines.push(Line { kind, text, end, next });
        if next == end {
            break;
        }
        i = next;
    }
    let mut decoder = Decoder::new(text, header.content);
    let last_text = lines.iter().rposition(|l| l.kind != LineKind::Empty).map_or(0, |l| l + 1);
    let mut previous: Option<&Line> = None;
    let mut empty = Vec::new();
    for line in &lines[..last_text] {
        if line.kind == LineKind::Empty {
            empty.push(line);
            continue;
        }
        if let Some(p) = previous {
            let folds = !header.literal && p.kind == LineKind::Text && line.kind == LineKind::Text;
            if !folds {
                decoder.emit("\n", TextRange::new(p.end, p.next));
            } else if empty.is_empty() {
                decoder.emit(" ", TextRange::new(p.end, line.text));
            }
        }
        for e in empty.drain(..) {
            decoder.emit("\n", TextRange::new(e.end, e.next));
        }
        decoder.copy(line.text, line.end);
        previous = Some(line);
    }
    if let Some(p) = previous.filter(|_| header.chomp != Chomp::Strip) {
        decoder.emit("\n", TextRange::new(p.end, p.next));
    }
    if header.chomp == Chomp::Keep {
        for e in &lines[last_text..] {
            decoder.emit("\n", TextRange::new(e.end, e.next));
        }
    }
    decoder
}

/// Skips a node's properties (tags and anchors) and the white space, line breaks and comments after them.
fn skip_properties(text: &str, mut i: usize, limit: usize) -> usize {
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

fn is_white(c: u8) -> bool {
    c == b' ' || c == b'\t'
}

/// The length of the line break at `i` (`\r\n`, `\r` or `\n`), 0 when there is none.
fn break_len(b: &[u8], i: usize) -> usize {
    match (b.get(i), b.get(i + 1)) {
        (Some(b'\r'), Some(b'\n')) => 2,
        (Some(b'\r' | b'\n'), _) => 1,
        _ => 0,
    }
}

/// The start of the line holding byte `i`.
fn line_start(b: &[u8], i: usize) -> usize {
    b[..i].iter().rposition(|&c| matches!(c, b'\n' | b'\r')).map_or(0, |p| p + 1)
}

/// Whether a line is `---` or `...`, which ends a document (and so any scalar in it).
fn is_document_marker(line: &[u8]) -> bool {
    (line.starts_with(b"---") || line.starts_with(b"...")) && line.get(3).is_none_or(|&c| is_white(c))
}

#[cfg(test)]
mod tests {
    use super::ScalarMap;
    use crate::{parse, Node, Style, TextRange, Value};

    /// The `rule` node of the first document, which must parse cleanly.
    fn rule(text: &str) -> Node {
        let stream = parse(text);
        let doc = stream.documents.first().expect("a document");
        assert!(doc.diagnostics.is_empty(), "{text:?}: {:?}", doc.diagnostics);
        doc.root.as_ref().and_then(|root| root.get("rule")).expect("a rule").clone()
    }

    /// The source text that the first `needle` in the rule's decoded value came from.
    fn source_of<'t>(text: &'t str, needle: &str) -> &'t str {
        let node = rule(text);
        let value = node.as_str().expect("a string");
        let at = value.find(needle).unwrap_or_else(|| panic!("{needle:?} is not in {value:?}"));
        let map = ScalarMap::new(text, &node).unwrap_or_else(|| panic!("no map for {text:?}"));
        let range = map.source_range(at, at + needle.len());
        &text[range.start..range.end]
    }

    /// Checks `(document, decoded value, needle, source of the needle)` cases.
    fn check(cases: &[(&str, &str, &str, &str)]) {
        for &(text, value, needle, source) in cases {
            assert_eq!(rule(text).as_str(), Some(value), "{text:?}");
            assert_eq!(source_of(text, needle), source, "{needle:?} in {text:?}");
        }
    }

    #[test]
    fn plain() {
        check(&[
            ("rule: self.a == self.b\n", "self.a == self.b", "self.b", "self.b"),
            ("rule: self.a &&\n  self.b\n", "self.a && self.b", "&& self.b", "&&\n  self.b"),
            ("rule: self.a &&  \t\n   \t self.b   # comment\nx: 1\n", "self.a && self.b", "&& s", "&&  \t\n   \t s"),
            ("rule: self.a\n\n   \n  self.b\n", "self.a\n\nself.b", "a\n\ns", "a\n\n   \n  s"),
            ("rule: self.a\n\n  self.b\n", "self.a\nself.b", "\n", "\n"),
            ("rule: !!str &anchor  self.a\n  self.b\n", "self.a self.b", "self.b", "self.b"),
            ("rule: !!str\n  self.a\n", "self.a", "self.a", "self.a"),
            ("{rule: self.a\n  self.b , x: 1}", "self.a self.b", "a self.b", "a\n  self.b"),
            ("rule: café ==\r\n  self.b\r\n", "café == self.b", "é == self", "é ==\r\n  self"),
        ]);
    }

    #[test]
    fn single_quoted() {
        check(&[
            ("rule: 'self.a == ''x'' && self.b'\n", "self.a == 'x' && self.b", "'x'", "''x''"),
            ("rule: 'self.a == ''x'' && self.b'\n", "self.a == 'x' && self.b", "self.b", "self.b"),
            ("rule: 'self.a &&   \n     self.b'  # comment\n", "self.a && self.b", "&& self", "&&   \n     self"),
            ("rule: 'a  \n\n  \t\n  b'\n", "a\n\nb", "a\n\nb", "a  \n\n  \t\n  b"),
            ("rule: ' self.a '\n", " self.a ", " self.a ", " self.a "),
            ("rule: ''\n", "", "", ""),
            ("rule: !!str 'a\r\n  b'\r\n", "a b", "a b", "a\r\n  b"),
        ]);
    }

    #[test]
    fn double_quoted() {
        check(&[
            ("rule: \"caf\\u00e9 == self.b\"\n", "café == self.b", "é", "\\u00e9"),
            ("rule: \"caf\\u00e9 == self.b\"\n", "café == self.b", "self.b", "self.b"),
            ("rule: \"\\\"x\\\" in self.b\"\n", "\"x\" in self.b", "\"x\"", "\\\"x\\\""),
            ("rule: \"self.a && \\\n    self.b\"\n", "self.a && self.b", "&& self", "&& \\\n    self"),
            ("rule: \"self.a\\\n\n    self.b\"\n", "self.a\nself.b", "a\nself", "a\\\n\n    self"),
            ("rule: \"self.a  \n   self.b\"\n", "self.a self.b", "a self", "a  \n   self"),
            ("rule: \"self.a\\t \n\n  self.b\"\n", "self.a\t\nself.b", "\t\n", "\\t \n\n"),
            ("rule: \"a\\\r\n  b\\\tc\"\r\n", "ab\tc", "b\tc", "b\\\tc"),
            ("rule: \"\\U0001F600 self.b\"\n", "\u{1F600} self.b", "self.b", "self.b"),
        ]);
    }

    #[test]
    fn every_double_quoted_escape() {
        let escapes = [
            ("\\0", "\0"),
            ("\\a", "\u{7}"),
            ("\\b", "\u{8}"),
            ("\\t", "\t"),
            ("\\\t", "\t"),
            ("\\n", "\n"),
            ("\\v", "\u{b}"),
            ("\\f", "\u{c}"),
            ("\\r", "\r"),
            ("\\e", "\u{1b}"),
            ("\\ ", " "),
            ("\\\"", "\""),
            ("\\/", "/"),
            ("\\\\", "\\"),
            ("\\N", "\u{85}"),
            ("\\_", "\u{a0}"),
            ("\\L", "\u{2028}"),
            ("\\P", "\u{2029}"),
            ("\\x41", "A"),
            ("\\xe9", "é"),
            ("\\u00E9", "é"),
            ("\\u65e5", "日"),
            ("\\U0001f600", "\u{1F600}"),
        ];
        for (escape, decoded) in escapes {
            let text = format!("rule: \"x{escape}y\"\n");
            let value = format!("x{decoded}y");
            check(&[(&text, &value, decoded, escape), (&text, &value, "y", "y")]);
        }
    }

    #[test]
    fn literal() {
        check(&[
            ("rule: |\n  self.a\n  self.b\nx: 1\n", "self.a\nself.b\n", "self.b", "self.b"),
            ("rule: |\n  self.a\n  self.b\nx: 1\n", "self.a\nself.b\n", "a\nself", "a\n  self"),
            ("rule: |\r\n  self.a\r\n\r\n  self.b\r\n", "self.a\n\nself.b\n", "a\n\nself", "a\r\n\r\n  self"),
            ("rule: |2-  # comment | >\n   self.a\n  self.b\n\n", " self.a\nself.b", " self.a", " self.a"),
            ("rule: |-\n    self.a\n      && self.b\n", "self.a\n  && self.b", "  && self.b", "  && self.b"),
            ("rule: |+\n  self.b\n\n\nx: 1\n", "self.b\n\n\n", "b\n\n\n", "b\n\n\n"),
            ("rule: !!str &r |\n  self.a\n  self.b\n", "self.a\nself.b\n", "self.b", "self.b"),
            ("rule: |\n\n  \n  self.b\n", "\n\nself.b\n", "self.b", "self.b"),
            ("rule: |\n  # not a comment\n", "# not a comment\n", "# not", "# not"),
        ]);
        let items = "items:\n- rule: |1\n     self.a\n    self.b\n";
        let node = parse(items).documents[0].root.as_ref().and_then(|r| r.get("items")?.as_seq()?[0].get("rule").cloned());
        // The indentation indicator counts from the parent mapping's column.
        let node = node.expect("a rule");
        assert_eq!(node.as_str(), Some("  self.a\n self.b\n"));
        let map = ScalarMap::new(items, &node).expect("a map");
        let range = map.source_range(0, 8);
        assert_eq!(&items[range.start..range.end], "  self.a");
    }

    #[test]
    fn folded() {
        check(&[
            ("rule: >\n  self.a &&\n  self.b\n", "self.a && self.b\n", "&& self.b", "&&\n  self.b"),
            ("rule: >-\n  self.a\n\n  self.b\n", "self.a\nself.b", "a\nself", "a\n\n  self"),
            ("rule: >-\n  self.a\r\n  self.b\r\n", "self.a self.b", "a self", "a\r\n  self"),
            ("rule: >2 # note\n    self.a\n  self.b\n", "  self.a\nself.b\n", "  self.a\n", "  self.a\n"),
            ("rule: &r >+\n  self.a\n\nnext: 1\n", "self.a\n\n", "a\n\n", "a\n\n"),
        ]);
        // The YAML specification's example 8.10: more indented lines keep their line breaks.
        let text =
            "rule: >\n\n  folded\n  line\n\n  next\n  line\n    * bullet\n\n    * list\n    * lines\n\n  last\n  line\n\n# Comment\n";
        let value = "\nfolded line\nnext line\n  * bullet\n\n  * list\n  * lines\n\nlast line\n";
        check(&[
            (text, value, "folded line", "folded\n  line"),
            (text, value, "line\nnext", "line\n\n  next"),
            (text, value, "line\n  * bullet\n\n  * list", "line\n    * bullet\n\n    * list"),
            (text, value, "lines\n\nlast", "lines\n\n  last"),
        ]);
    }

    #[test]
    fn empty_block_scalars() {
        check(&[("rule: |\nx: 1\n", "", "", ""), ("rule: >-\n\nx: 1\n", "", "", ""), ("rule: |+\n\n\nx: 1\n", "\n\n", "\n\n", "\n\n")]);
    }

    #[test]
    fn empty_and_clamped_ranges() {
        let text = "rule: \"ab\\n\"\n";
        let map = ScalarMap::new(text, &rule(text)).expect("a map");
        assert_eq!(map.source_range(0, 0), TextRange::empty(7));
        assert_eq!(map.source_range(1, 1), TextRange::empty(8));
        assert_eq!(map.source_range(2, 2), TextRange::empty(9));
        assert_eq!(map.source_range(3, 3), TextRange::empty(11));
        assert_eq!(map.source_range(0, 100), TextRange::new(7, 11));
        assert_eq!(map.source_range(5, 1), TextRange::empty(11));
        assert_eq!(map.source_range(2, 3), TextRange::new(9, 11));
    }

    #[test]
    fn character_offsets() {
        let text = "rule: \"é\\t日本 self.b\"\n";
        let node = rule(text);
        assert_eq!(node.as_str(), Some("é\t日本 self.b"));
        let map = ScalarMap::new(text, &node).expect("a map");
        let source = |range: TextRange| &text[range.start..range.end];
        assert_eq!(source(map.source_range_chars(5, 11)), "self.b");
        assert_eq!(source(map.source_range_chars(1, 2)), "\\t");
        assert_eq!(source(map.source_range_chars(2, 4)), "日本");
        assert_eq!(source(map.source_range_chars(0, 100)), "é\\t日本 self.b");
        assert_eq!(map.source_range_chars(11, 11), TextRange::empty(text.len() - 2));
        // Offsets inside a character widen to the whole character.
        assert_eq!(source(map.source_range(1, 2)), "é");
        assert_eq!(source(map.source_range(4, 5)), "日");
    }

    #[test]
    fn no_map_for_other_nodes() {
        for text in ["rule: 12\n", "rule: yes\n", "rule: {a: 1}\n", "rule: [a]\n", "rule:\n", "rule: null\n"] {
            assert!(ScalarMap::new(text, &rule(text)).is_none(), "{text:?}");
        }
        // An alias has its own range but the value of the node it names.
        for text in ["a: &x 'self.b'\nrule: *x\n", "a: &x |\n  self.b\nrule: *x\n", "a: &x self.b\nrule: *x\n"] {
            let node = rule(text);
            assert_eq!(node.as_str().map(str::trim_end), Some("self.b"));
            assert!(ScalarMap::new(text, &node).is_none(), "{text:?}");
        }
        // A value the source does not decode to.
        let text = "rule: 'self.b'\n";
        let mut node = rule(text);
        node.value = Value::Str("self.c".to_string());
        assert!(ScalarMap::new(text, &node).is_none());
    }

    /// A small deterministic generator (xorshift), so that the property tests need no dependency.
    struct Rng(u64);

    impl Rng {
        fn next(&mut self) -> u64 {
            self.0 ^= self.0 << 13;
            self.0 ^= self.0 >> 7;
            self.0 ^= self.0 << 17;
            self.0
        }

        fn below(&mut self, n: usize) -> usize {
            (self.next() % n as u64) as usize
        }

        fn one_in(&mut self, n: usize) -> bool {
            self.below(n) == 0
        }

        fn pick<T: Copy>(&mut self, items: &[T]) -> T {
            items[self.below(items.len())]
        }

        fn string(&mut self, alphabet: &[&str], max_pieces: usize) -> String {
            (0..self.below(max_pieces + 1)).map(|_| self.pick(alphabet)).collect()
        }
    }

    const TEXT: &[&str] = &[
        "a",
        "b",
        "self",
        "x",
        ".",
        "(",
        ")",
        "==",
        "&",
        "|",
        ">",
        "#",
        ":",
        "-",
        "'",
        "\"",
        "\\",
        " ",
        " ",
        " ",
        "  ",
        "\t",
        "\n",
        "\n",
        "é",
        "日",
        "\u{1F600}",
        "0",
        "!",
        "[",
        "]",
        "{",
        "}",
        ",",
        "%",
        "*",
    ];
    const CONTROL: &[&str] = &["\u{0}", "\u{7}", "\u{1b}", "\r", "\u{85}", "\u{a0}", "\u{2028}", "\u{2029}", "\u{feff}"];
    const WORDS: &[&str] = &["self", "a", "b", "x.y", "has(self.b)", "c==d", "é", "日本", "size()", "q'r", "s\"t", "u\\v", "w-x"];

    fn is_white(c: char) -> bool {
        c == ' ' || c == '\t'
    }

    /// An escape for `c` in a double-quoted scalar, chosen at random among those that can spell it.
    fn escape(rng: &mut Rng, c: char) -> String {
        let simple = match c {
            '\0' => Some("\\0"),
            '\u{7}' => Some("\\a"),
            '\u{8}' => Some("\\b"),
            '\t' => Some(if rng.one_in(2) { "\\t" } else { "\\\t" }),
            '\n' => Some("\\n"),
            '\u{b}' => Some("\\v"),
            '\u{c}' => Some("\\f"),
            '\r' => Some("\\r"),
            '\u{1b}' => Some("\\e"),
            ' ' => Some("\\ "),
            '"' => Some("\\\""),
            '/' => Some("\\/"),
            '\\' => Some("\\\\"),
            '\u{85}' => Some("\\N"),
            '\u{a0}' => Some("\\_"),
            '\u{2028}' => Some("\\L"),
            '\u{2029}' => Some("\\P"),
            _ => None,
        };
        let code = u32::from(c);
        match rng.below(4) {
            0 if simple.is_some() => simple.unwrap_or_default().to_string(),
            1 if code < 0x100 => format!("\\x{code:02x}"),
            2 if code < 0x10000 => format!("\\u{code:04X}"),
            _ if c == '"' || c == '\\' => simple.unwrap_or_default().to_string(),
            _ => format!("\\U{code:08x}"),
        }
    }

    fn write_double_quoted(rng: &mut Rng, value: &str, indent: &str) -> String {
        let chars: Vec<char> = value.chars().collect();
        let mut out = String::from("\"");
        // Raw white space is dropped at the start of a continuation line and before a raw line break.
        let mut line_start = false;
        let mut raw_white = false;
        for (i, &c) in chars.iter().enumerate() {
            let previous = i.checked_sub(1).map(|p| chars[p]);
            let next = chars.get(i + 1).copied();
            if i > 0 && !c.is_whitespace() && rng.one_in(8) {
                out.push_str("\\\n");
                out.push_str(indent);
            }
            let fold_space =
                c == ' ' && !raw_white && previous.is_some_and(|p| !p.is_whitespace()) && next.is_some_and(|n| !n.is_whitespace());
            let fold_newline = c == '\n' && !raw_white && previous != Some('\n') && next.is_some_and(|n| n != '\n');
            if fold_space && rng.one_in(3) {
                out.push('\n');
                out.push_str(indent);
                (line_start, raw_white) = (true, false);
                continue;
            }
            if fold_newline && rng.one_in(2) {
                out.push_str("\n\n");
                out.push_str(indent);
                (line_start, raw_white) = (true, false);
                continue;
            }
            let raw = match c {
                ' ' | '\t' => !line_start && !rng.one_in(4),
                '"' | '\\' => false,
                // Letters and digits stay raw, so that the test can find them in the source.
                c if c.is_ascii_alphanumeric() => true,
                c if c.is_ascii_graphic() => !rng.one_in(10),
                'é' | '日' | '\u{1F600}' | '\u{a0}' => !rng.one_in(3),
                _ => false,
            };
            if raw {
                out.push(c);
            } else {
                out.push_str(&escape(rng, c));
            }
            (line_start, raw_white) = (false, raw && is_white(c));
        }
        out.push('"');
        out
    }

    fn write_single_quoted(rng: &mut Rng, value: &str, indent: &str) -> Option<String> {
        let chars: Vec<char> = value.chars().collect();
        let mut out = String::from("'");
        let mut i = 0;
        while i < chars.len() {
            let c = chars[i];
            let previous = i.checked_sub(1).map(|p| chars[p]);
            match c {
                '\'' => out.push_str("''"),
                '\n' => {
                    // A run of n line feeds is written as n + 1 line breaks, between non-white characters.
                    let run = chars[i..].iter().take_while(|&&c| c == '\n').count();
                    if previous.is_some_and(is_white) || chars.get(i + run).is_none_or(|n| is_white(*n)) {
                        return None;
                    }
                    out.push_str(&"\n".repeat(run + 1));
                    out.push_str(indent);
                    i += run;
                    continue;
                }
                ' ' if previous.is_some_and(|p| !p.is_whitespace())
                    && chars.get(i + 1).is_some_and(|n| !n.is_whitespace())
                    && rng.one_in(3) =>
                {
                    out.push('\n');
                    out.push_str(indent);
                }
                c => out.push(c),
            }
            i += 1;
        }
        out.push('\'');
        Some(out)
    }

    fn write_plain(rng: &mut Rng, indent: &str) -> (String, String) {
        let (mut value, mut source) = (String::new(), String::new());
        for i in 0..1 + rng.below(6) {
            if i > 0 {
                match rng.below(5) {
                    0 => {
                        let run = 1 + rng.below(2);
                        value.push_str(&"\n".repeat(run));
                        source.push_str(&"\n".repeat(run + 1));
                        source.push_str(indent);
                    }
                    1 => {
                        value.push(' ');
                        source.push('\n');
                        source.push_str(indent);
                    }
                    _ => {
                        value.push(' ');
                        source.push(' ');
                    }
                }
            }
            let word = rng.pick(WORDS);
            value.push_str(word);
            source.push_str(word);
        }
        (value, source)
    }

    /// A block scalar header and lines (not ending in a line break) spelling `value`, `parent` being the column
    /// of the mapping holding it.
    fn write_block(rng: &mut Rng, value: &str, parent: usize, literal: bool) -> String {
        let indent = parent + 2;
        let trailing = value.len() - value.trim_end_matches('\n').len();
        let core = &value[..value.len() - trailing];
        let empty_line = |rng: &mut Rng| " ".repeat(rng.below(indent + 1));
        let mut lines = Vec::new();
        let chomp = match (core.is_empty(), trailing) {
            (true, 0) => "-",
            (true, _) => {
                lines.extend((0..trailing).map(|_| empty_line(rng)));
                "+"
            }
            (false, 0) => "-",
            (false, 1) => "",
            (false, _) => "+",
        };
        let mut previous_text = None;
        let mut empty = 0;
        for segment in core.split('\n').filter(|_| !core.is_empty()) {
            if segment.is_empty() {
                empty += 1;
                continue;
            }
            let text = !segment.starts_with([' ', '\t']);
            // In a folded scalar, a line feed between two lines of text is written as an empty line: a bare line
            // break between them reads as a space.
            let extra = usize::from(!literal && text && previous_text == Some(true));
            lines.extend((0..empty + extra).map(|_| empty_line(rng)));
            empty = 0;
            let mut line = " ".repeat(indent);
            let chars: Vec<char> = segment.chars().collect();
            for (i, &c) in chars.iter().enumerate() {
                let between = i > 0 && !chars[i - 1].is_whitespace() && chars.get(i + 1).is_some_and(|n| !n.is_whitespace());
                if !literal && text && c == ' ' && between && rng.one_in(3) {
                    lines.push(std::mem::replace(&mut line, " ".repeat(indent)));
                } else {
                    line.push(c);
                }
            }
            lines.push(line);
            previous_text = Some(text);
        }
        if !core.is_empty() {
            lines.extend((1..trailing).map(|_| empty_line(rng)));
        }
        let spaced_first = core.split('\n').find(|l| !l.is_empty()).is_some_and(|l| l.starts_with(' '));
        let digit = if spaced_first || rng.one_in(3) { "2" } else { "" };
        let indicators = if rng.one_in(2) { format!("{digit}{chomp}") } else { format!("{chomp}{digit}") };
        let comment = if rng.one_in(4) { "  # a | comment" } else { "" };
        let mut out = format!("{}{indicators}{comment}", if literal { '|' } else { '>' });
        for line in lines {
            out.push('\n');
            out.push_str(&line);
        }
        out
    }

    /// Places a scalar in a document; returns the document and the range the scalar spans, its lines included.
    fn place(scalar: &str, nested: bool, crlf: bool) -> (String, TextRange) {
        let text =
            if nested { format!("spec:\n  items:\n  - rule: {scalar}\n    next: 1\n") } else { format!("rule: {scalar}\nnext: 1\n") };
        let text = if crlf { text.replace('\n', "\r\n") } else { text };
        let start = text.find("rule: ").map_or(0, |i| i + 6);
        let end = text.rfind("next: 1").map_or(0, |i| text[..i].trim_end_matches(' ').len());
        (text, TextRange::new(start, end))
    }

    fn find_rule(text: &str, nested: bool) -> Node {
        let stream = parse(text);
        let doc = stream.documents.first().expect("a document");
        assert!(doc.diagnostics.is_empty(), "{text:?}: {:?}", doc.diagnostics);
        let root = doc.root.as_ref().expect("a root");
        let node = if nested { root.get("spec").and_then(|s| s.get("items")?.as_seq()?.first()?.get("rule")) } else { root.get("rule") };
        node.expect("a rule").clone()
    }

    /// Every decoded character maps to a non-empty range inside the scalar, in order, and letters and digits map
    /// to themselves.
    fn check_every_char(text: &str, node: &Node, extent: TextRange) {
        let value = node.as_str().expect("a string");
        let map = ScalarMap::new(text, node).unwrap_or_else(|| panic!("no map for {:?} in {text:?}", node.style));
        // A block scalar's range starts at its first content line, after the header and any leading empty lines.
        let within = if matches!(node.style, Style::Literal | Style::Folded) { extent } else { node.range };
        let mut last = 0;
        for (i, c) in value.char_indices() {
            let range = map.source_range(i, i + c.len_utf8());
            let context = format!("{c:?} at {i} of {value:?} maps to {range} in {text:?}");
            assert!(!range.is_empty() && extent.start <= range.start && range.end <= extent.end, "{context}");
            assert!(within.start <= range.start && range.end <= within.end, "{context}");
            assert!(range.start >= last, "{context}");
            last = range.start;
            if c.is_ascii_alphanumeric() {
                assert_eq!(text[range.start..range.end], c.to_string(), "{context}");
            }
        }
        let whole = map.source_range(0, value.len());
        assert!(extent.start <= whole.start && whole.end <= extent.end);
    }

    #[test]
    fn every_char_maps_into_its_scalar() {
        let mut rng = Rng(0x5eed_cafe_f00d_1234);
        let mut checked = [0usize; 5];
        for round in 0..600 {
            let nested = round % 2 == 1;
            let parent = if nested { 4 } else { 0 };
            let indent = " ".repeat(parent + 2);
            let text_value = rng.string(TEXT, 12);
            let mut double_value = rng.string(TEXT, 10);
            double_value.push_str(&rng.string(CONTROL, 2));
            double_value.push_str(&rng.string(TEXT, 4));
            let (plain_value, plain_source) = write_plain(&mut rng, &indent);
            let scalars = [
                (Style::Plain, plain_value, Some(plain_source)),
                (Style::SingleQuoted, text_value.clone(), write_single_quoted(&mut rng, &text_value, &indent)),
                (Style::DoubleQuoted, double_value.clone(), Some(write_double_quoted(&mut rng, &double_value, &indent))),
                (Style::Literal, text_value.clone(), Some(write_block(&mut rng, &text_value, parent, true))),
                (Style::Folded, text_value.clone(), Some(write_block(&mut rng, &text_value, parent, false))),
            ];
            for (n, (style, value, scalar)) in scalars.into_iter().enumerate() {
                let Some(scalar) = scalar else { continue };
                for crlf in [false, true] {
                    let (text, extent) = place(&scalar, nested, crlf);
                    let node = find_rule(&text, nested);
                    assert_eq!(node.style, style, "{text:?}");
                    match &node.value {
                        Value::Str(s) => assert_eq!(s, &value, "{text:?}"),
                        // A plain scalar may resolve to something else (`b`, `y`).
                        _ if style == Style::Plain => continue,
                        other => panic!("{other:?} from {text:?}"),
                    }
                    check_every_char(&text, &node, extent);
                    checked[n] += 1;
                }
            }
        }
        assert!(checked.iter().all(|&n| n > 300), "{checked:?}");
    }

    /// Visits every string node of a tree.
    fn strings<'n>(node: &'n Node, out: &mut Vec<&'n Node>) {
        match &node.value {
            Value::Str(_) => out.push(node),
            Value::Seq(items) => items.iter().for_each(|n| strings(n, out)),
            Value::Map(entries) => entries.iter().for_each(|e| strings(&e.value, out)),
            _ => {}
        }
    }

    /// Whatever the map says stays inside the text and on character boundaries.
    fn check_in_bounds(text: &str, map: &ScalarMap, len: usize) {
        for start in 0..=len + 1 {
            for end in [start, start + 1, start + 3, len + 2] {
                let range = map.source_range(start, end);
                assert!(range.start <= range.end && range.end <= text.len(), "{range} in {text:?}");
                assert!(text.is_char_boundary(range.start) && text.is_char_boundary(range.end), "{range} in {text:?}");
            }
        }
    }

    #[test]
    fn arbitrary_text_never_panics() {
        const SNIPPETS: &[&str] = &[
            "rule: ", "- ", "  ", "   ", "\n", "\r\n", "\r", "|", ">", "-", "+", "2", "'", "\"", "\\", "a", "self.b", "é", "#", " # c",
            ": ", "!!str ", "&x ", "*x", "\t", "\\u00e9", "\\x4", "''", "{", "}", "[", "]", ",", "---\n", "...\n", "?", "\\\n",
        ];
        let mut rng = Rng(0x0123_4567_89ab_cdef);
        let mut mapped = 0;
        for _ in 0..3000 {
            let text = rng.string(SNIPPETS, 30);
            for doc in parse(&text).documents {
                let mut nodes = Vec::new();
                if let Some(root) = &doc.root {
                    strings(root, &mut nodes);
                }
                for node in nodes {
                    if let Some(map) = ScalarMap::new(&text, node) {
                        mapped += 1;
                        check_in_bounds(&text, &map, node.as_str().map_or(0, str::len));
                    }
                }
            }
            // Nodes that do not fit the text at all.
            for style in [Style::Plain, Style::SingleQuoted, Style::DoubleQuoted, Style::Literal, Style::Folded] {
                let mut start = rng.below(text.len() + 1);
                let mut end = (start + rng.below(12)).min(text.len());
                while !text.is_char_boundary(start) {
                    start -= 1;
                }
                while !text.is_char_boundary(end) {
                    end += 1;
                }
                let value = text[start..end].to_string();
                let node = Node { range: TextRange::new(start, end), value: Value::Str(value.clone()), style };
                if let Some(map) = ScalarMap::new(&text, &node) {
                    check_in_bounds(&text, &map, value.len());
                }
                let beyond = Node { range: TextRange::new(start, text.len() + 5), ..node };
                assert!(ScalarMap::new(&text, &beyond).is_none());
            }
        }
        assert!(mapped > 1000, "{mapped}");
    }
}
