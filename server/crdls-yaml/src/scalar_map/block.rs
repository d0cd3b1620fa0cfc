//! Block scalars, literal (`|`) and folded (`>`): the header with its indentation and chomping indicators,
//! the content indentation (which the node does not record, so each reading that fits is tried), and the
//! content's line folding and chomping.

use super::decoder::{break_len, is_white, skip_properties, Decoder};
use super::ScalarMap;
use crdls_diagnostics::TextRange;

/// Block scalars. The parser's range starts at the first content line (or, with a tag or an anchor, at
/// those), so the header is looked for above; the content indentation depends on the parent's, which the
/// node does not record. Each reading that fits is tried, and the first that yields the value wins.
pub(super) fn block(text: &str, range: TextRange, literal: bool, value: &str) -> Option<ScalarMap> {
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

/// The start of the line holding byte `i`.
fn line_start(b: &[u8], i: usize) -> usize {
    b[..i].iter().rposition(|&c| matches!(c, b'\n' | b'\r')).map_or(0, |p| p + 1)
}

/// Whether a line is `---` or `...`, which ends a document (and so any scalar in it).
fn is_document_marker(line: &[u8]) -> bool {
    (line.starts_with(b"---") || line.starts_with(b"...")) && line.get(3).is_none_or(|&c| is_white(c))
}
