//! Property tests of the scalar map: scalars of every style written at random from random values, whose
//! every character must map into the scalar, in order; and arbitrary text, on which the map never panics
//! and never points outside the text.

use super::ScalarMap;
use crate::{parse, Node, Style, Value};
use crdls_diagnostics::TextRange;

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
        let fold_space = c == ' ' && !raw_white && previous.is_some_and(|p| !p.is_whitespace()) && next.is_some_and(|n| !n.is_whitespace());
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
    let text = if nested { format!("spec:\n  items:\n  - rule: {scalar}\n    next: 1\n") } else { format!("rule: {scalar}\nnext: 1\n") };
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
        "rule: ", "- ", "  ", "   ", "\n", "\r\n", "\r", "|", ">", "-", "+", "2", "'", "\"", "\\", "a", "self.b", "é", "#", " # c", ": ",
        "!!str ", "&x ", "*x", "\t", "\\u00e9", "\\x4", "''", "{", "}", "[", "]", ",", "---\n", "...\n", "?", "\\\n",
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
