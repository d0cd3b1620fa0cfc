//! Parsing a YAML stream into documents. It never fails: each document is parsed on its own, so a
//! syntax error leaves the documents around it intact, and the broken one keeps what came before the error.

use std::collections::HashMap;

use saphyr_parser::{Event, Parser, ScalarStyle, Span};

use crate::implicit_keys::{first_overlong_key, OverlongKey, GO_MAX_IMPLICIT_KEY};
use crate::scalar::{key_text, resolve_plain, resolve_tagged};
use crate::{Entry, Node, Style, Value};
use crdls_diagnostics::codes;
use crdls_diagnostics::{Diagnostic, Severity, TextRange};

/// The most nodes a document may expand to through aliases before it is refused, like the
/// API server's decoder refuses a "billion laughs" document.
pub const MAX_EXPANDED_NODES: usize = 1_000_000;

/// The deepest nesting of collections (sequences and mappings, block or flow) crdls reads. This is
/// the one nesting limit of the YAML tree: saphyr-parser counts flow levels in a byte and refuses
/// the 256th, and block collections are held to the same depth here, so every walker over a tree
/// (validation, CEL values, outline, JSON output, dropping the tree) recurses at most this deep
/// and a hostile file cannot exhaust the stack. The API server's decoders allow more (see
/// [`GO_MAX_DEPTH`]); no real manifest comes near either.
pub const MAX_NESTING: usize = 255;

/// The depth beyond which the API server's decoders refuse a document: goyaml's scanner allows
/// 10,000 block indentation levels and 10,000 flow levels (each counted on its own), as does
/// encoding/json for JSON bodies.
const GO_MAX_DEPTH: usize = 10_000;

/// The words of saphyr's error for a flow collection nested past its byte-sized counter.
const SAPHYR_FLOW_LIMIT: &str = "recursion limit exceeded";

/// A parsed YAML stream.
#[derive(Clone, Debug, Default)]
pub struct Stream {
    /// The documents, in source order. Documents holding nothing (only comments) are left out.
    pub documents: Vec<Document>,
    /// The text that was parsed (ranges are byte offsets into it).
    pub text: std::sync::Arc<str>,
}

/// One document of a stream.
#[derive(Clone, Debug)]
pub struct Document {
    /// The text the document spans, its `---` line included.
    pub range: TextRange,
    /// The root node, or `None` for a document with no content.
    pub root: Option<Node>,
    /// Syntax errors, duplicate keys and aliasing errors in this document.
    pub diagnostics: Vec<Diagnostic>,
    /// Whether a syntax error cut the document short (the root then holds only what came before it).
    pub has_syntax_error: bool,
}

/// Parses a whole stream. A leading byte-order mark is skipped; ranges still count it.
pub fn parse(text: &str) -> Stream {
    let bom = if text.starts_with('\u{feff}') { '\u{feff}'.len_utf8() } else { 0 };
    let mut documents = Vec::new();
    for chunk in split_documents(text, bom) {
        if let Some(doc) = parse_document(text, chunk) {
            documents.push(doc);
        }
    }
    Stream { documents, text: std::sync::Arc::from(text) }
}

/// Parses only the document that holds byte `offset` (for completion and hover, which need no other):
/// the result is the same as that document's entry in [`parse`], at a fraction of the cost on long files.
pub fn parse_at(text: &str, offset: usize) -> Stream {
    let bom = if text.starts_with('\u{feff}') { '\u{feff}'.len_utf8() } else { 0 };
    let chunks = split_documents(text, bom);
    // The cursor at a chunk's very end belongs to that chunk (typing at the end of a document).
    let chunk = chunks.iter().find(|c| c.start <= offset && offset <= c.end).or(chunks.last());
    Stream { documents: chunk.and_then(|&c| parse_document(text, c)).into_iter().collect(), text: std::sync::Arc::from(text) }
}

/// Splits the text at document markers (`---` or `...` at the start of a line). YAML gives these
/// lines that meaning wherever they are, so splitting first is safe and isolates syntax errors.
fn split_documents(text: &str, start: usize) -> Vec<TextRange> {
    if let Some(values) = split_json_values(text, start) {
        return values;
    }
    let mut chunks = Vec::new();
    let mut chunk_start = start;
    let mut line_start = start;
    let bytes = text.as_bytes();
    while line_start < text.len() {
        // Lines end as YAML ends them: at `\n`, `\r\n` or a lone `\r`.
        let line_end = match text[line_start..].find(['\n', '\r']).map(|i| line_start + i) {
            None => text.len(),
            Some(at) if bytes[at] == b'\r' && bytes.get(at + 1) == Some(&b'\n') => at + 2,
            Some(at) => at + 1,
        };
        let line = &bytes[line_start..line_end];
        let is_marker = |m: &[u8]| line.starts_with(m) && line.get(3).is_none_or(|c| matches!(c, b' ' | b'\t' | b'\r' | b'\n'));
        if is_marker(b"---") {
            if line_start > chunk_start {
                chunks.push(TextRange::new(chunk_start, line_start));
            }
            chunk_start = line_start;
        } else if is_marker(b"...") {
            chunks.push(TextRange::new(chunk_start, line_end));
            chunk_start = line_end;
        }
        line_start = line_end;
    }
    if chunk_start < text.len() || chunks.is_empty() {
        chunks.push(TextRange::new(chunk_start, text.len()));
    }
    // A chunk with only directives (`%YAML`), comments and blank lines belongs to the next one.
    let mut merged: Vec<TextRange> = Vec::new();
    let mut carry: Option<usize> = None;
    for chunk in chunks {
        let only_preamble = text[chunk.start..chunk.end].lines().all(|l| {
            let l = l.trim();
            l.is_empty() || l.starts_with('#') || l.starts_with('%')
        });
        let start = carry.take().unwrap_or(chunk.start);
        if only_preamble && text[chunk.start..chunk.end].lines().any(|l| l.trim_start().starts_with('%')) {
            carry = Some(start);
            continue;
        }
        merged.push(TextRange::new(start, chunk.end));
    }
    if let Some(start) = carry {
        merged.push(TextRange::new(start, text.len()));
    }
    merged
}

/// Converts the parser's character indexes into byte offsets of the whole text.
struct Offsets {
    base: usize,
    /// Byte offset of each character, when the chunk is not ASCII.
    table: Option<Vec<u32>>,
    len: usize,
}

impl Offsets {
    fn new(chunk: &str, base: usize) -> Offsets {
        let table = (!chunk.is_ascii()).then(|| chunk.char_indices().map(|(i, _)| i as u32).collect());
        Offsets { base, table, len: chunk.len() }
    }

    fn byte(&self, char_index: usize) -> usize {
        self.base
            + match &self.table {
                None => char_index.min(self.len),
                Some(t) => t.get(char_index).map_or(self.len, |&b| b as usize),
            }
    }

    fn range(&self, span: Span) -> TextRange {
        TextRange::new(self.byte(span.start.index()), self.byte(span.end.index()))
    }
}

enum Frame {
    Seq { start: usize, anchor: usize, flow: bool, items: Vec<Node> },
    Map { start: usize, anchor: usize, flow: bool, entries: Vec<Entry>, key: Option<(String, TextRange, bool)>, merges: Vec<Node> },
}

struct Builder<'a> {
    text: &'a str,
    stack: Vec<Frame>,
    root: Option<Node>,
    /// Each anchored node with its node count and height.
    anchors: HashMap<usize, (Node, usize, usize)>,
    expanded: usize,
    aliasing_reported: bool,
    diagnostics: Vec<Diagnostic>,
}

fn parse_document(text: &str, chunk: TextRange) -> Option<Document> {
    let mut document = read_document(text, chunk)?;
    if !document.has_syntax_error && !is_json(text) {
        if let Some(key) = document.root.as_ref().and_then(|root| first_overlong_key(root, text, chunk)) {
            // saphyr read it; go-yaml refuses it. The tree is kept, as for any syntax error, with
            // what follows the key in it too (only the error is go-yaml's).
            document.has_syntax_error = true;
            let range = TextRange::new(key.key.start, key.colon + 1);
            document.diagnostics.push(
                Diagnostic::new(
                    range,
                    Severity::Error,
                    codes::YAML_SYNTAX,
                    format!(
                        "YAML syntax error: this key is too long: kubectl and the API server forget a key written without `?` once its `:` is more than {GO_MAX_IMPLICIT_KEY} characters from its start"
                    ),
                )
                .with_cause(overlong_key_error(text, chunk, &key)),
            );
            document.diagnostics.sort_by_key(|d| d.range.start);
        }
    }
    Some(document)
}

/// go-yaml's error for an overlong key of a flow collection: its parser's, counting lines in the
/// document as kubectl sends it (without its `---` line).
fn overlong_key_error(text: &str, chunk: TextRange, key: &OverlongKey) -> String {
    let start = kubectl_start(text, chunk);
    crate::go_words::go_parser_error(&key.go_problem(), &text[start..chunk.end], key.colon.saturating_sub(start))
}

/// Where the document `chunk` starts as kubectl reads it: each document apart, without its `---`
/// line, and go-yaml counts lines from there.
fn kubectl_start(text: &str, chunk: TextRange) -> usize {
    if text[chunk.start..chunk.end].starts_with("---") {
        text[chunk.start..chunk.end].find('\n').map_or(chunk.end, |i| chunk.start + i + 1)
    } else {
        chunk.start
    }
}

/// Reads one document with saphyr, reading again the ways go-yaml differs where saphyr refused it.
fn read_document(text: &str, chunk: TextRange) -> Option<Document> {
    let (unglued, colons) = mask_flow_colons(&text[chunk.start..chunk.end], chunk.start);
    if !colons.is_empty() {
        // In a flow collection, the Go YAML decoder ends a plain scalar at `:` only before a blank:
        // `[1.2.3.4, 2001:db8::]` holds the string `2001:db8::`, where YAML 1.2 (and saphyr) read a
        // mapping. Such colons are masked for saphyr, and the scalars holding them read from the text.
        if let Some(mut document) = parse_chunk(text, chunk, &unglued).filter(|d| !d.has_syntax_error) {
            if let Some(root) = &mut document.root {
                restore_plain(root, text, &colons);
            }
            return Some(document);
        }
    }
    let document = parse_chunk(text, chunk, &text[chunk.start..chunk.end])?;
    if document.diagnostics.iter().any(|d| d.message.contains(INVALID_UNICODE_ESCAPE)) && is_json(text) {
        // goyaml refuses any `\u` escape of a UTF-16 surrogate (as saphyr does), so a YAML file with
        // one is an error; but kubectl sends a stream that starts with `{` through encoding/json,
        // which joins a surrogate pair into its code point (`"\ud83d\ude00"` is 😀) and reads a lone
        // surrogate as U+FFFD. Such escapes are masked for saphyr (same length, offsets unchanged)
        // and the strings holding them decoded from the original text. Keys keep the mask.
        let (masked, starts) = mask_surrogate_escapes(&text[chunk.start..chunk.end], chunk.start);
        if let Some(mut fixed) = parse_chunk(text, chunk, &masked).filter(|d| !d.has_syntax_error) {
            if let Some(root) = &mut fixed.root {
                redecode_quoted(root, text, &starts);
            }
            return Some(fixed);
        }
    }
    if document.diagnostics.iter().any(|d| d.message.contains(TAB_AFTER_COLON)) {
        // The Go YAML decoder takes a tab after a mapping's `:` as the blank that ends the key
        // (`a:\tb`); saphyr does not. Such tabs are read as spaces (offsets unchanged).
        let spaced = tabs_after_colons(&text[chunk.start..chunk.end]);
        if let Some(fixed) = parse_chunk(text, chunk, &spaced).filter(|d| !d.has_syntax_error) {
            return Some(fixed);
        }
    }
    if document.diagnostics.iter().any(|d| d.message.contains(UNDER_INDENTED) && !d.message.contains(UNDER_INDENTED_QUOTE)) {
        // The Go YAML decoder does not look at indentation inside a flow collection (`[`…`]`, `{`…`}`):
        // a continuation line, or the closing bracket, may sit at or left of the block around it, and
        // the API server accepts such files; saphyr rejects them. The collections are read again with
        // their line breaks made spaces and their comments blanked (offsets unchanged), which is what
        // a line break inside a flow collection means.
        // Quoted scalars' own continuation lines are joined too (see below), and decoded from the text.
        let (joined, starts) = join_quoted_lines(&join_flow_lines(&text[chunk.start..chunk.end]), chunk.start);
        if let Some(mut fixed) = parse_chunk(text, chunk, &joined).filter(|d| !d.has_syntax_error) {
            if let Some(root) = &mut fixed.root {
                redecode_quoted(root, text, &starts);
            }
            return Some(fixed);
        }
    }
    if !document.diagnostics.iter().any(|d| d.message.contains(UNDER_INDENTED_QUOTE)) {
        return Some(document);
    }
    // The Go YAML decoder (a port of libyaml) folds a quoted scalar's continuation lines whatever their
    // indentation, and the API server accepts such files; saphyr rejects lines indented no deeper than
    // the block. Such scalars are read again with their line breaks made spaces (offsets unchanged),
    // and their values decoded from the original text.
    let (repaired, starts) = join_quoted_lines(&text[chunk.start..chunk.end], chunk.start);
    let mut fixed = parse_chunk(text, chunk, &repaired)?;
    if fixed.has_syntax_error {
        return Some(document);
    }
    if let Some(root) = &mut fixed.root {
        redecode_quoted(root, text, &starts);
    }
    Some(fixed)
}

/// The words of saphyr's error for a `\u` escape that is no character (a UTF-16 surrogate).
const INVALID_UNICODE_ESCAPE: &str = "found invalid Unicode character escape code";

/// Whether kubectl reads the stream as JSON: its first character other than white space is `{`
/// (apimachinery's YAML-or-JSON decoder looks at that prefix).
/// The values of a JSON stream of more than one (`{...}\n{...}`, as `mongoexport` or `jq -c` writes),
/// one chunk each: kubectl reads a stream that starts with `{` with encoding/json, value after value,
/// where YAML would see one document with text after its end. `None` for a single value, or text that
/// is not a stream of whole objects and arrays (it is then read as YAML, which reports what is wrong).
fn split_json_values(text: &str, start: usize) -> Option<Vec<TextRange>> {
    if !is_json(text) {
        return None;
    }
    let bytes = text.as_bytes();
    let mut values = Vec::new();
    let mut at = start;
    loop {
        // Blanks before a value belong to it; after the last one, to the last.
        while at < bytes.len() && matches!(bytes[at], b' ' | b'\t' | b'\r' | b'\n') {
            at += 1;
        }
        if at == bytes.len() {
            break;
        }
        if !matches!(bytes[at], b'{' | b'[') {
            return None;
        }
        let value_start = values.last().map_or(start, |v: &TextRange| v.end);
        let (mut depth, mut in_string, mut escaped) = (0usize, false, false);
        let mut end = None;
        for (i, &b) in bytes.iter().enumerate().skip(at) {
            if in_string {
                match b {
                    _ if escaped => escaped = false,
                    b'\\' => escaped = true,
                    b'"' => in_string = false,
                    _ => {}
                }
                continue;
            }
            match b {
                b'"' => in_string = true,
                b'{' | b'[' => depth += 1,
                b'}' | b']' => {
                    depth = depth.checked_sub(1)?;
                    if depth == 0 {
                        end = Some(i + 1);
                        break;
                    }
                }
                _ => {}
            }
        }
        let end = end?;
        values.push(TextRange::new(value_start, end));
        at = end;
    }
    if values.len() < 2 {
        return None;
    }
    if let Some(last) = values.last_mut() {
        last.end = text.len();
    }
    Some(values)
}

fn is_json(text: &str) -> bool {
    text.trim_start_matches(['\u{feff}', ' ', '\t', '\r', '\n']).starts_with('{')
}

/// `src` with every `\u` escape of a UTF-16 surrogate inside a double-quoted string replaced by
/// `\u003F` (as long), and the offsets (in the whole text, `base` being `src`'s) of those strings.
fn mask_surrogate_escapes(src: &str, base: usize) -> (String, Vec<usize>) {
    let b = src.as_bytes();
    let mut out = b.to_vec();
    let mut starts = Vec::new();
    let mut open: Option<usize> = None;
    let mut i = 0;
    while i < b.len() {
        match (b[i], open) {
            (b'"', None) => open = Some(i),
            (b'"', Some(_)) => open = None,
            (b'\\', Some(start)) => {
                let code = src.get(i + 2..i + 6).filter(|_| b.get(i + 1) == Some(&b'u')).and_then(|h| u32::from_str_radix(h, 16).ok());
                if code.is_some_and(|c| (0xD800..=0xDFFF).contains(&c)) {
                    out[i + 2..i + 6].copy_from_slice(b"003F");
                    if starts.last() != Some(&(base + start)) {
                        starts.push(base + start);
                    }
                }
                i += 1;
            }
            _ => {}
        }
        i += 1;
    }
    (String::from_utf8(out).unwrap_or_else(|_| src.to_string()), starts)
}

/// `src` with every `:` that a plain scalar inside a flow collection holds right before a flow
/// indicator (`,`, `?`, `[`, `]`, `{`, `}`) replaced by `x`, and those colons' offsets in the whole text
/// (`base` being `src`'s). Quoted scalars, comments and block scalars are skipped as in
/// [`join_flow_lines`].
fn mask_flow_colons(src: &str, base: usize) -> (String, Vec<usize>) {
    let b = src.as_bytes();
    if !src.contains(':') || !(src.contains('[') || src.contains('{')) {
        return (src.to_string(), Vec::new());
    }
    let mut out = b.to_vec();
    let mut masked = Vec::new();
    let mut depth = 0usize;
    let mut can_start = true;
    let mut lines = BlockScalarLines::default();
    let mut i = 0;
    while i < b.len() {
        if let Some(next) = lines.skip(b, i) {
            i = next;
            continue;
        }
        let c = b[i];
        match c {
            b'\'' | b'"' if can_start => {
                i = closing_quote(b, i);
                can_start = false;
            }
            b'#' if i == 0 || matches!(b[i - 1], b' ' | b'\t' | b'\n' | b'\r') => {
                while i < b.len() && b[i] != b'\n' {
                    i += 1;
                }
                continue;
            }
            b'\n' | b'\r' => can_start = true,
            b' ' | b'\t' => {}
            b'[' | b'{' if can_start || depth > 0 => {
                depth += 1;
                can_start = true;
            }
            b']' | b'}' if depth > 0 => {
                depth -= 1;
                can_start = false;
            }
            b'|' | b'>' if depth == 0 && can_start => {
                lines.open();
                can_start = false;
            }
            b':' if depth > 0 && !can_start && matches!(b.get(i + 1), Some(b',' | b'?' | b'[' | b']' | b'{' | b'}')) => {
                // Inside a plain scalar (something not blank came before it on this token).
                out[i] = b'x';
                masked.push(base + i);
            }
            b'-' | b'?' | b':' | b',' => {
                can_start = c == b',' || matches!(b.get(i + 1), Some(b' ' | b'\t' | b'\n' | b'\r') | None);
            }
            _ => can_start = false,
        }
        i += 1;
    }
    (String::from_utf8(out).unwrap_or_else(|_| src.to_string()), masked)
}

/// Gives every plain scalar and key that holds one of the masked colons its text from `text`.
fn restore_plain(node: &mut Node, text: &str, colons: &[usize]) {
    let holds = |range: TextRange| colons.iter().any(|&c| range.start <= c && c < range.end);
    match &mut node.value {
        Value::Map(entries) => {
            for entry in entries.iter_mut() {
                if holds(entry.key_range) {
                    entry.key = text[entry.key_range.start..entry.key_range.end].to_string();
                }
                restore_plain(&mut entry.value, text, colons);
            }
        }
        Value::Seq(items) => items.iter_mut().for_each(|i| restore_plain(i, text, colons)),
        _ if node.style == Style::Plain && holds(node.range) => node.value = Value::Str(text[node.range.start..node.range.end].to_string()),
        _ => {}
    }
}

/// The words of saphyr's error for a tab right after a mapping's `:`.
const TAB_AFTER_COLON: &str = "':' must be followed by a valid YAML whitespace";

/// Where the pre-passes are with respect to block scalars, whose lines are text and are skipped.
#[derive(Default)]
struct BlockScalarLines {
    /// The indentation of the current line.
    indent: usize,
    /// Inside a block scalar: the indentation of the line that opened it; its lines are deeper.
    opened: Option<usize>,
}

impl BlockScalarLines {
    /// At the start of a line (`i`), notes its indentation; when the line belongs to an open block
    /// scalar (deeper, or blank), the index of the next line, to skip it.
    fn skip(&mut self, b: &[u8], i: usize) -> Option<usize> {
        if i != 0 && b[i - 1] != b'\n' {
            return None;
        }
        self.indent = b[i..].iter().take_while(|&&c| c == b' ').count();
        let opened = self.opened?;
        let blank = matches!(b.get(i + self.indent), Some(b'\n' | b'\r') | None);
        if blank || self.indent > opened {
            return Some(i + b[i..].iter().position(|&c| c == b'\n').map_or(b.len() - i, |p| p + 1));
        }
        self.opened = None;
        None
    }

    /// A block scalar's header on the current line: the lines deeper than it are its text.
    fn open(&mut self) {
        self.opened = Some(self.indent);
    }
}

/// The index of the quote that closes the quoted scalar opened at `open` (`'` or `"`), or the end of
/// `b`: backslash escapes in double quotes and doubled quotes in single ones do not close it.
fn closing_quote(b: &[u8], open: usize) -> usize {
    let quote = b[open];
    let mut i = open + 1;
    while i < b.len() {
        match b[i] {
            b'\\' if quote == b'"' => i += 1,
            b'\'' if quote == b'\'' && b.get(i + 1) == Some(&b'\'') => i += 1,
            q if q == quote => break,
            _ => {}
        }
        i += 1;
    }
    i
}

/// `src` with every tab that follows a `:` outside quoted scalars made a space.
fn tabs_after_colons(src: &str) -> String {
    let b = src.as_bytes();
    let mut out = b.to_vec();
    let mut quote: Option<u8> = None;
    let mut i = 0;
    while i < b.len() {
        match (b[i], quote) {
            (b'\\', Some(b'"')) => i += 1,
            (b'\'', Some(b'\'')) if b.get(i + 1) == Some(&b'\'') => i += 1,
            (q, Some(open)) if q == open => quote = None,
            (b'"' | b'\'', None) if i == 0 || matches!(b[i - 1], b' ' | b'\t' | b'\n' | b'[' | b'{' | b',') => quote = Some(b[i]),
            (b'\t', None) if i > 0 && b[i - 1] == b':' => out[i] = b' ',
            _ => {}
        }
        i += 1;
    }
    String::from_utf8(out).unwrap_or_else(|_| src.to_string())
}

/// The words of saphyr's errors for a line indented too little (in a flow collection among others).
const UNDER_INDENTED: &str = "invalid indentation";

/// `src` with the line breaks inside flow collections replaced by spaces and the comments there
/// blanked, so that no line inside a flow collection starts a line of its own. Quoted scalars are
/// skipped whole; brackets count where a flow collection can open (after indentation, `- `, `: `,
/// `? `, another bracket or `,`) and inside one; block scalars' lines are left alone.
fn join_flow_lines(src: &str) -> String {
    let b = src.as_bytes();
    let mut out = b.to_vec();
    let mut depth = 0usize;
    let mut can_start = true;
    let mut lines = BlockScalarLines::default();
    let mut i = 0;
    while i < b.len() {
        if let Some(next) = lines.skip(b, i) {
            i = next;
            continue;
        }
        let c = b[i];
        match c {
            b'\'' | b'"' if can_start || depth > 0 => {
                i = closing_quote(b, i);
                can_start = false;
            }
            b'#' if i == 0 || matches!(b[i - 1], b' ' | b'\t' | b'\n' | b'\r') => {
                while i < b.len() && b[i] != b'\n' && b[i] != b'\r' {
                    if depth > 0 {
                        out[i] = b' ';
                    }
                    i += 1;
                }
                continue;
            }
            b'\n' | b'\r' => {
                if depth > 0 {
                    out[i] = b' ';
                }
                can_start = true;
            }
            b' ' | b'\t' => {}
            b'[' | b'{' if can_start || depth > 0 => {
                depth += 1;
                can_start = true;
            }
            b']' | b'}' if depth > 0 => {
                depth -= 1;
                can_start = false;
            }
            b'|' | b'>' if depth == 0 && can_start => {
                // A block scalar's header: its lines are deeper than this line.
                lines.open();
                can_start = false;
            }
            b'-' | b'?' | b':' | b',' => {
                can_start = c == b',' || matches!(b.get(i + 1), Some(b' ' | b'\t' | b'\n' | b'\r') | None);
            }
            _ => can_start = false,
        }
        i += 1;
    }
    String::from_utf8(out).unwrap_or_else(|_| src.to_string())
}

/// The words of saphyr's error for a quoted scalar's continuation line indented too little.
const UNDER_INDENTED_QUOTE: &str = "invalid indentation in quoted scalar";

/// `src` with the line breaks inside multi-line quoted scalars replaced by spaces, and the offsets
/// (in the whole text, `base` being `src`'s) where those scalars start. A quote opens a scalar only
/// where a scalar can start: after indentation, `- `, `: `, `? `, `[`, `{` or `,`.
fn join_quoted_lines(src: &str, base: usize) -> (String, Vec<usize>) {
    let b = src.as_bytes();
    let mut out = b.to_vec();
    let mut starts = Vec::new();
    let mut i = 0;
    let mut can_start = true;
    while i < b.len() {
        let c = b[i];
        match c {
            b'\'' | b'"' if can_start => {
                let open = i;
                let mut joined = false;
                i += 1;
                while i < b.len() {
                    match b[i] {
                        // An escaped line break is joined as any other (`\ `, an escaped blank, parses
                        // the same way; the value is decoded from the original text).
                        b'\\' if c == b'"' && !matches!(b.get(i + 1), Some(b'\n' | b'\r')) => i += 1,
                        b'\'' if c == b'\'' && b.get(i + 1) == Some(&b'\'') => i += 1,
                        q if q == c => break,
                        b'\n' | b'\r' => {
                            out[i] = b' ';
                            joined = true;
                        }
                        _ => {}
                    }
                    i += 1;
                }
                if joined {
                    starts.push(base + open);
                }
                can_start = false;
            }
            b'#' if can_start || i == 0 || matches!(b[i - 1], b' ' | b'\t') => {
                while i < b.len() && b[i] != b'\n' {
                    i += 1;
                }
                continue;
            }
            b'\n' => can_start = true,
            b' ' | b'\t' | b'\r' => {}
            b'-' | b'?' | b':' | b'[' | b'{' | b',' => {
                can_start = matches!(c, b'[' | b'{' | b',') || matches!(b.get(i + 1), Some(b' ' | b'\t' | b'\n' | b'\r') | None);
            }
            _ => can_start = false,
        }
        i += 1;
    }
    (String::from_utf8(out).unwrap_or_else(|_| src.to_string()), starts)
}

/// Gives every quoted scalar that starts at one of `starts` its value decoded from `text`.
fn redecode_quoted(node: &mut Node, text: &str, starts: &[usize]) {
    match &mut node.value {
        Value::Map(entries) => entries.iter_mut().for_each(|e| redecode_quoted(&mut e.value, text, starts)),
        Value::Seq(items) => items.iter_mut().for_each(|i| redecode_quoted(i, text, starts)),
        Value::Str(value) if matches!(node.style, Style::SingleQuoted | Style::DoubleQuoted) => {
            let open = text[node.range.start..node.range.end].find(['\'', '"']).map(|i| node.range.start + i);
            if let Some(open) = open.filter(|o| starts.contains(o)) {
                if let Some(decoded) = crate::scalar_map::decode_quoted(text, open, node.style == Style::SingleQuoted) {
                    *value = decoded;
                }
            }
        }
        _ => {}
    }
}

fn parse_chunk(text: &str, chunk: TextRange, src: &str) -> Option<Document> {
    let offsets = Offsets::new(src, chunk.start);
    let mut builder = Builder {
        text,
        stack: Vec::new(),
        root: None,
        anchors: HashMap::new(),
        expanded: 0,
        aliasing_reported: false,
        diagnostics: Vec::new(),
    };
    let mut parser = Parser::new_from_str(src);
    let mut has_syntax_error = false;
    while let Some(next) = parser.next_event() {
        match next {
            Ok((event, span)) => {
                let range = offsets.range(span);
                let alias = matches!(event, Event::Alias(_));
                if !builder.event(event, range) {
                    // A collection one level deeper than `MAX_NESTING`: the document is read no further.
                    // (goyaml counts no depth through aliases, so only a written collection can earn its words.)
                    has_syntax_error = true;
                    let go = if alias {
                        None
                    } else {
                        go_depth_error(&mut parser, &offsets, builder.stack.len(), builder.flow_depth(), range, text)
                    };
                    builder.report_too_deep(range, go);
                    builder.close_all_quietly(range.start);
                    break;
                }
            }
            Err(err) if err.info() == SAPHYR_FLOW_LIMIT => {
                // saphyr's own flow limit, the same depth as `MAX_NESTING`, met before the builder saw the level.
                has_syntax_error = true;
                let at = offsets.byte(err.marker().index());
                builder.report_too_deep(TextRange::new(at, (at + 1).min(chunk.end)), None);
                builder.close_all_quietly(at);
                break;
            }
            Err(err) => {
                has_syntax_error = true;
                let at = offsets.byte(err.marker().index());
                let doc_start = kubectl_start(text, chunk);
                let line_end = text[at..chunk.end].find(['\n', '\r']).map_or(chunk.end, |i| at + i);
                // At the end of a line, the range is the character before the error, whatever its width.
                let before = text[..at].chars().next_back().map_or(at, |c| at - c.len_utf8()).max(chunk.start);
                let range = if line_end > at { TextRange::new(at, line_end) } else { TextRange::new(before, at) };
                builder.diagnostics.push(
                    Diagnostic::new(range, Severity::Error, codes::YAML_SYNTAX, format!("YAML syntax error: {}", err.info())).with_cause(
                        crate::go_words::go_syntax_error(err.info(), &text[doc_start..chunk.end], at.saturating_sub(doc_start))
                            .unwrap_or_else(|| format!("yaml: line {}: {}", line_of(text, range.start) + 1, err.info())),
                    ),
                );
                builder.close_all(at);
                break;
            }
        }
    }
    let mut diagnostics = builder.diagnostics;
    diagnostics.sort_by_key(|d| d.range.start);
    if matches!(&builder.root, Some(Node { style: Style::Empty, .. })) {
        builder.root = None;
    }
    if builder.root.is_none() && diagnostics.is_empty() {
        return None;
    }
    Some(Document { range: chunk, root: builder.root, diagnostics, has_syntax_error })
}

/// Reads the rest of a document that went past [`MAX_NESTING`] (`range` is the collection that did,
/// `depth` and `flow` the open collections around it, flow ones among them), counting depth only, and
/// returns the API server's words if the document also goes past [`GO_MAX_DEPTH`]: the scanner error
/// of goyaml, whose line is left out when it is the first (its line numbers start at zero there).
fn go_depth_error(
    parser: &mut Parser<'_, saphyr_parser::StrInput<'_>>,
    offsets: &Offsets,
    depth: usize,
    flow: usize,
    range: TextRange,
    text: &str,
) -> Option<String> {
    let (mut block, mut flow) = (depth - flow, flow);
    let mut kinds: Vec<bool> = Vec::new();
    let mut next = Some((text[range.start..].starts_with(['[', '{']), range));
    loop {
        if let Some((is_flow, range)) = next.take() {
            let level = if is_flow { &mut flow } else { &mut block };
            *level += 1;
            kinds.push(is_flow);
            if *level > GO_MAX_DEPTH {
                let line = line_of(text, range.start);
                let at = if line == 0 { String::new() } else { format!("line {}: ", line + 1) };
                return Some(format!("yaml: {at}exceeded max depth of {GO_MAX_DEPTH}"));
            }
        }
        match parser.next_event()? {
            Ok((Event::SequenceStart(..) | Event::MappingStart(..), span)) => {
                let range = offsets.range(span);
                next = Some((text[range.start..].starts_with(['[', '{']), range));
            }
            Ok((Event::SequenceEnd | Event::MappingEnd, _)) => match kinds.pop() {
                Some(true) => flow -= 1,
                Some(false) => block -= 1,
                // A collection opened before the one that went too deep.
                None if flow > 0 => flow -= 1,
                None => block = block.saturating_sub(1),
            },
            Ok((Event::DocumentEnd | Event::StreamEnd, _)) | Err(_) => return None,
            Ok(_) => {}
        }
    }
}

/// The number of lines before `offset`, so that chunk-relative line numbers become file line numbers.
fn line_of(text: &str, offset: usize) -> usize {
    text.as_bytes()[..offset].iter().filter(|&&b| b == b'\n').count()
}

impl Builder<'_> {
    /// Feeds one event; returns false when the document should stop being read.
    fn event(&mut self, event: Event<'_>, range: TextRange) -> bool {
        match event {
            Event::Scalar(value, style, anchor, tag) => {
                let tag = tag.map(|t| format!("{}{}", t.handle, t.suffix));
                let node_style = match style {
                    ScalarStyle::Plain if range.is_empty() => Style::Empty,
                    ScalarStyle::Plain => Style::Plain,
                    ScalarStyle::SingleQuoted => Style::SingleQuoted,
                    ScalarStyle::DoubleQuoted => Style::DoubleQuoted,
                    ScalarStyle::Literal => Style::Literal,
                    ScalarStyle::Folded => Style::Folded,
                };
                // A key about to be opened: keep the raw text so keys keep their spelling.
                if let Some(Frame::Map { key: key @ None, .. }) = self.stack.last_mut() {
                    let plain = matches!(style, ScalarStyle::Plain);
                    let text = if plain && tag.is_none() { key_text(&value) } else { value.into_owned() };
                    *key = Some((text, range, plain));
                    return true;
                }
                let value = match (&tag, style) {
                    (Some(tag), _) => resolve_tagged(tag, &value),
                    (None, ScalarStyle::Plain) => resolve_plain(&value),
                    (None, _) => Value::Str(value.into_owned()),
                };
                let node = Node { range, value, style: node_style };
                self.finish(node, anchor);
            }
            Event::SequenceStart(..) | Event::MappingStart(..) if self.stack.len() >= MAX_NESTING => return false,
            Event::SequenceStart(anchor, _) => {
                let flow = self.text[range.start..].starts_with('[');
                self.stack.push(Frame::Seq { start: range.start, anchor, flow, items: Vec::new() });
            }
            Event::MappingStart(anchor, _) => {
                let flow = self.text[range.start..].starts_with('{');
                self.stack.push(Frame::Map { start: range.start, anchor, flow, entries: Vec::new(), key: None, merges: Vec::new() });
            }
            Event::SequenceEnd | Event::MappingEnd => self.close(range.end),
            Event::Alias(id) => {
                // An alias of a scalar used as a key (`*name :`) is that scalar's text, as the Go decoder
                // reads it; an alias of a collection there is a collection used as a key, reported below.
                if let (Some(Frame::Map { key: key @ None, .. }), Some((anchored, _, _))) = (self.stack.last_mut(), self.anchors.get(&id)) {
                    let text = match &anchored.value {
                        Value::Map(_) | Value::Seq(_) => None,
                        Value::Str(s) => Some(s.clone()),
                        // A number, boolean or null, as written (its anchor and tag are not part of it).
                        _ => self.text.get(anchored.range.start..anchored.range.end).map(|written| {
                            let mut rest = written.trim();
                            while rest.starts_with(['&', '!']) {
                                rest = rest.split_once(char::is_whitespace).map_or("", |(_, after)| after).trim_start();
                            }
                            rest.to_string()
                        }),
                    };
                    if let Some(text) = text {
                        *key = Some((text, range, false));
                        return true;
                    }
                }
                // An alias expanded where its tree would go past `MAX_NESTING` (aliases of aliases can
                // deepen a tree at every step) is a collection too deep like any other.
                if self.anchors.get(&id).is_some_and(|(_, _, height)| self.stack.len() + height > MAX_NESTING) {
                    return false;
                }
                let node = match self.anchors.get(&id) {
                    Some((node, count, _)) if self.expanded + count <= MAX_EXPANDED_NODES => {
                        self.expanded += count;
                        let mut node = node.clone();
                        node.range = range;
                        node
                    }
                    Some(_) => {
                        if !self.aliasing_reported {
                            self.aliasing_reported = true;
                            self.diagnostics.push(
                                Diagnostic::new(range, Severity::Error, codes::YAML_EXCESSIVE_ALIASING, format!("this document expands aliases to more than {MAX_EXPANDED_NODES} nodes; the rest of its aliases are not expanded"))
                                    .with_cause("yaml: document contains excessive aliasing"),
                            );
                        }
                        Node { range, value: Value::Null, style: Style::Plain }
                    }
                    None => Node { range, value: Value::Null, style: Style::Plain },
                };
                self.finish(node, 0);
            }
            Event::DocumentEnd | Event::StreamEnd => {}
            Event::StreamStart | Event::DocumentStart(_) | Event::Nothing => {}
        }
        true
    }

    /// How many of the open collections are flow collections.
    fn flow_depth(&self) -> usize {
        self.stack.iter().filter(|f| matches!(f, Frame::Seq { flow: true, .. } | Frame::Map { flow: true, .. })).count()
    }

    /// Reports the collection at `range`, one level deeper than [`MAX_NESTING`], with the API
    /// server's words when it would refuse the document too.
    fn report_too_deep(&mut self, range: TextRange, go: Option<String>) {
        let range = TextRange::new(range.start, range.start + self.text[range.start..].chars().next().map_or(0, char::len_utf8));
        let message = format!("collections are nested more than {MAX_NESTING} levels deep here; crdls reads no further in this document");
        let diagnostic = Diagnostic::new(range, Severity::Error, codes::YAML_TOO_DEEP, message);
        self.diagnostics.push(match go {
            Some(cause) => diagnostic.with_cause(cause),
            None => diagnostic,
        });
    }

    /// Closes the innermost collection, ending at `end`.
    fn close(&mut self, end: usize) {
        let Some(frame) = self.stack.pop() else { return };
        let (node, anchor) = match frame {
            Frame::Seq { start, anchor, flow, items } => {
                let end = if flow { end } else { items.last().map_or(end, |n| n.range.end) };
                (
                    Node {
                        range: TextRange::new(start, end),
                        value: Value::Seq(items),
                        style: if flow { Style::Flow } else { Style::Block },
                    },
                    anchor,
                )
            }
            Frame::Map { start, anchor, flow, mut entries, key, merges } => {
                if let Some((key, key_range, _)) = key {
                    // A key with no value yet (the stream was cut short): keep it with an empty value.
                    let at = key_range.end;
                    entries.push(Entry {
                        key,
                        key_range,
                        value: Node { range: TextRange::empty(at), value: Value::Null, style: Style::Empty },
                    });
                }
                let last_end = entries.iter().map(|e| e.value.range.end.max(e.key_range.end)).max();
                let end = if flow { end } else { last_end.unwrap_or(end) };
                self.report_duplicates(&entries);
                apply_merges(&mut entries, merges);
                (
                    Node {
                        range: TextRange::new(start, end),
                        value: Value::Map(entries),
                        style: if flow { Style::Flow } else { Style::Block },
                    },
                    anchor,
                )
            }
        };
        self.finish(node, anchor);
    }

    /// Closes every open collection after a syntax error, so the partial tree stays usable.
    fn close_all(&mut self, at: usize) {
        while !self.stack.is_empty() {
            self.close(at);
        }
    }

    /// Closes every open collection of a document cut short for its depth. Such documents nest
    /// collections as keys (`? ? ? a`), each of which would earn a complex-key report; one report of
    /// the depth says enough.
    fn close_all_quietly(&mut self, at: usize) {
        let before = self.diagnostics.len();
        self.close_all(at);
        let mut index = 0;
        self.diagnostics.retain(|d| {
            index += 1;
            index <= before || d.code != codes::YAML_COMPLEX_KEY
        });
    }

    /// Records an anchor and attaches a finished node to its parent.
    fn finish(&mut self, node: Node, anchor: usize) {
        if anchor != 0 {
            let (count, height) = (node.count(), node.height());
            self.anchors.insert(anchor, (node.clone(), count, height));
        }
        match self.stack.last_mut() {
            None => {
                if self.root.is_none() {
                    self.root = Some(node);
                }
            }
            Some(Frame::Seq { items, .. }) => items.push(node),
            Some(Frame::Map { entries, key, merges, .. }) => match key.take() {
                Some((key, _, true)) if key == "<<" => match &node.value {
                    Value::Map(_) => merges.push(node),
                    Value::Seq(items) => merges.extend(items.iter().filter(|n| matches!(n.value, Value::Map(_))).cloned()),
                    _ => {}
                },
                Some((key, key_range, _)) => entries.push(Entry { key, key_range, value: node }),
                None => {
                    // A collection used as a key: JSON cannot hold it.
                    self.diagnostics.push(
                        Diagnostic::new(
                            node.range,
                            Severity::Error,
                            codes::YAML_COMPLEX_KEY,
                            "a mapping or sequence cannot be used as a key in Kubernetes YAML",
                        )
                        .with_cause(format!("yaml: invalid map key: {}", crate::go_words::go_sharp_v(&node))),
                    );
                    let text = self.text[node.range.start..node.range.end].to_string();
                    if let Some(Frame::Map { key, .. }) = self.stack.last_mut() {
                        *key = Some((text, node.range, false));
                    }
                }
            },
        }
    }

    fn report_duplicates(&mut self, entries: &[Entry]) {
        if entries.len() < 2 {
            return;
        }
        let mut seen: HashMap<&str, &Entry> = HashMap::with_capacity(entries.len());
        let mut hinted = false;
        for entry in entries {
            if let Some(first) = seen.insert(entry.key.as_str(), entry) {
                let first_line = line_of(self.text, first.key_range.start) + 1;
                let line = line_of(self.text, entry.key_range.start) + 1;
                let mut message = format!("duplicate key \"{}\" (first set on line {first_line}): kubectl silently keeps the last value, strict decoding rejects the object", entry.key);
                if !hinted {
                    if let Some(hint) = self.second_object_hint(first, entry) {
                        message.push_str("; ");
                        message.push_str(&hint);
                        hinted = true;
                    }
                }
                self.diagnostics.push(
                    Diagnostic::new(entry.key_range, Severity::Error, codes::YAML_DUPLICATE_KEY, message)
                        .with_cause(format!("yaml: unmarshal errors:\n  line {line}: key \"{}\" already set in map", entry.key)),
                );
            }
        }
    }

    /// When a document's top-level `apiVersion` or `kind` comes twice, a second object most likely
    /// starts there without a separator of its own: either the `---` was written at the end of the
    /// line before (`timeout: 300s---`, which YAML reads as part of the value), or it is missing.
    fn second_object_hint(&self, first: &Entry, again: &Entry) -> Option<String> {
        let at_column_zero = |offset: usize| offset == 0 || self.text.as_bytes().get(offset - 1) == Some(&b'\n');
        if !matches!(again.key.as_str(), "apiVersion" | "kind")
            || !at_column_zero(first.key_range.start)
            || !at_column_zero(again.key_range.start)
        {
            return None;
        }
        let line = line_of(self.text, again.key_range.start);
        let lines: Vec<&str> = self.text[..again.key_range.start].lines().collect();
        let before = lines.iter().enumerate().rev().find(|(_, l)| !l.trim().is_empty() && !l.trim_start().starts_with('#'));
        Some(match before {
            Some((index, text)) if text.trim_end().ends_with("---") && text.trim() != "---" => format!(
                "line {} ends with `---`, which YAML reads as part of its value: a document separator must stand alone on its line",
                index + 1
            ),
            _ => format!("a second object seems to start on line {}: separate documents with a line holding only `---`", line + 1),
        })
    }
}

/// Applies YAML merge keys (`<<: *base`): merged entries fill in keys the mapping does not set itself,
/// earlier merged mappings winning over later ones.
fn apply_merges(entries: &mut Vec<Entry>, merges: Vec<Node>) {
    for merged in merges {
        if let Value::Map(merged_entries) = merged.value {
            for entry in merged_entries {
                if !entries.iter().any(|e| e.key == entry.key) {
                    entries.push(entry);
                }
            }
        }
    }
}
