//! The completion context, read from the text around the cursor rather than from the tree, so that it
//! works while the document is mid-edit (`spec:\n  rep` parses as `spec: "rep"`): what the cursor's line is
//! being typed as, and the path from the document's root to the mapping or sequence the cursor is in,
//! found by scanning up for the less-indented `key:` line or `- ` item that owns it.

use crdls_yaml::Segment;

use crdls_diagnostics::TextRange;

/// Where the cursor is, as far as completion cares.
#[derive(Clone, Debug)]
pub(crate) struct Context<'t> {
    /// The text of the cursor's document, between its `---` markers.
    pub doc: TextRange,
    /// The cursor's line, without its line break.
    pub line: TextRange,
    /// What is being typed.
    pub what: What<'t>,
}

/// What is being typed at the cursor.
#[derive(Clone, Debug)]
pub(crate) enum What<'t> {
    /// The document holds nothing but the word typed: a new object.
    NewDocument {
        /// The word typed so far, replaced by the completion.
        word: TextRange,
    },
    /// A key of the mapping at `path`.
    Key {
        /// The path from the root to the mapping.
        path: Vec<Segment<'t>>,
        /// The column the key starts at (nested lines of a snippet are indented from it).
        column: usize,
        /// The key typed so far, replaced by the completion.
        word: TextRange,
        /// Whether a `:` already follows the word, so only the key is to be inserted.
        colon_follows: bool,
        /// Whether the key starts a new list item (`- |`): when the items are scalars, a value is wanted.
        item_start: bool,
        /// The other keys of the mapping found in the text.
        siblings: Vec<&'t str>,
    },
    /// The value at `path`: a key's value, or a list item.
    Value {
        /// The path from the root to the value.
        path: Vec<Segment<'t>>,
        /// The value typed so far, replaced by the completion.
        word: TextRange,
        /// Whether the cursor is right after the `:`, so a space must be inserted first.
        space_needed: bool,
    },
}

/// The completion context at `offset`, which must be a character boundary of `text`. `None` where
/// nothing can be completed: in a comment, on a document marker, inside a block scalar, or in a line
/// the indentation does not explain.
pub(crate) fn context(text: &str, offset: usize) -> Option<Context<'_>> {
    let lines = lines(text);
    let at = lines.iter().rposition(|l| l.start <= offset)?;
    let line = lines[at];
    let line_text = &text[line.start..line.end];
    if is_marker(line_text) {
        return None;
    }
    let first = lines[..at].iter().rposition(|l| is_marker(&text[l.start..l.end])).map_or(0, |i| i + 1);
    let last = lines[at + 1..].iter().position(|l| is_marker(&text[l.start..l.end])).map_or(lines.len(), |i| at + 1 + i);
    let doc = TextRange::new(lines[first].start, lines[last - 1].end);
    let above = || lines[first..at].iter().rev().map(|l| &text[l.start..l.end]);
    let below = lines[at + 1..last].iter().map(|l| &text[l.start..l.end]);

    let cursor = offset.clamp(line.start, line.end) - line.start;
    let prefix = &line_text[..cursor];
    let suffix = &line_text[cursor..];
    let head = shape(prefix);
    if head.dashes.last().is_some_and(|&d| d + 1 == prefix.len()) {
        // `-` right before the cursor: the item's space is not typed yet.
        return None;
    }
    let rest_start = head.dashes.last().map_or(head.indent, |&d| skip_spaces(prefix, d + 1));
    let rest = &prefix[rest_start..];
    if rest.starts_with('#') || rest.contains(" #") {
        return None;
    }

    if let Some((name, name_offset, colon)) = split_key(rest) {
        // `key: va|`: the value of `key`.
        let after = &rest[colon + 1..];
        let value_start = line.start + rest_start + colon + 1 + (after.len() - after.trim_start().len());
        let value_text = &text[value_start..line.end];
        let comment = if value_text.starts_with('#') { Some(0) } else { value_text.find(" #") };
        let value_end = value_start + comment.unwrap_or(value_text.len());
        let value_end = value_start + text[value_start..value_end].trim_end().len();
        let mut reversed = Vec::new();
        let looking = enter(&head.dashes, rest_start + name_offset, &mut reversed);
        let mut path = owner(above(), looking, reversed, &mut Vec::new())?;
        path.push(Segment::Key(name));
        let word = TextRange::new(value_start, value_end.max(line.start + cursor));
        return Some(Context { doc, line, what: What::Value { path, word, space_needed: after.is_empty() } });
    }
    if rest.starts_with(['[', '{', '"', '\'', '&', '*', '!', '|', '>']) {
        return None;
    }
    if rest.contains(' ') {
        // Several words after `- `: a list item's scalar value.
        if head.dashes.is_empty() {
            return None;
        }
        let mut reversed = Vec::new();
        let looking = enter(&head.dashes, rest_start, &mut reversed);
        let path = owner(above(), looking, reversed, &mut Vec::new())?;
        let start = line.start + rest_start;
        let end = start + text[start..line.end].trim_end().len();
        return Some(Context { doc, line, what: What::Value { path, word: TextRange::new(start, end), space_needed: false } });
    }

    // A key being typed (or a list item's first word).
    let word_tail = suffix.find([':', ' ', '\t', '#']).unwrap_or(suffix.len());
    let word = TextRange::new(line.start + rest_start, line.start + cursor + word_tail);
    let colon_follows = suffix[word_tail..].starts_with(':');
    let others_blank = lines[first..last].iter().enumerate().all(|(i, l)| first + i == at || shape(&text[l.start..l.end]).blank);
    if others_blank && head.dashes.is_empty() && rest_start == 0 && !colon_follows {
        return Some(Context { doc, line, what: What::NewDocument { word } });
    }
    let column = rest_start;
    let mut siblings = Vec::new();
    let mut reversed = Vec::new();
    let looking = enter(&head.dashes, column, &mut reversed);
    let path = owner(above(), looking, reversed, &mut siblings)?;
    for below in below {
        let s = shape(below);
        if s.blank {
            continue;
        }
        if s.indent < column {
            break;
        }
        if let (true, true, Some(key)) = (s.indent == column, s.dashes.is_empty(), &s.key) {
            siblings.push(key.name);
        }
    }
    let item_start = !head.dashes.is_empty();
    Some(Context { doc, line, what: What::Key { path, column, word, colon_follows, item_start, siblings } })
}

/// The scalar value of a root key of the document (`apiVersion: x`), read from the text.
pub(crate) fn root_scalar<'t>(text: &'t str, doc: TextRange, key: &str) -> Option<&'t str> {
    let doc_text = text.get(doc.start..doc.end)?;
    doc_text.lines().find_map(|line| {
        let s = shape(line);
        let k = s.key.filter(|k| s.indent == 0 && s.dashes.is_empty() && k.name == key)?;
        let value = k.after.split(" #").next().unwrap_or_default().trim();
        let value = value.trim_matches(|c| c == '"' || c == '\'');
        (!value.is_empty()).then_some(value)
    })
}

/// The lines of the text, without their line breaks (`\n` or `\r\n`). A text that is empty or ends with
/// a line break has an empty last line.
fn lines(text: &str) -> Vec<TextRange> {
    let mut out = Vec::new();
    let mut start = 0;
    for piece in text.split_inclusive('\n') {
        let content = piece.strip_suffix('\n').unwrap_or(piece);
        let content = content.strip_suffix('\r').unwrap_or(content);
        out.push(TextRange::new(start, start + content.len()));
        start += piece.len();
    }
    if text.is_empty() || text.ends_with('\n') {
        out.push(TextRange::empty(text.len()));
    }
    out
}

/// Whether a line is a document marker (`---` or `...`), as the parser splits documents.
fn is_marker(line: &str) -> bool {
    (line.starts_with("---") || line.starts_with("...")) && line[3..].chars().next().is_none_or(char::is_whitespace)
}

/// What a line's value after `key:` is.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum ValueKind {
    /// Nothing (or only an anchor, tag or comment): the value is on the lines below.
    Empty,
    /// A block scalar (`|`, `>`): the lines below are text.
    Block,
    /// A value on the same line.
    Inline,
}

/// A key on a line.
#[derive(Clone, Copy, Debug)]
struct KeyAt<'t> {
    /// The column of the key (of its quote, when quoted).
    column: usize,
    /// The key, without quotes.
    name: &'t str,
    /// What follows the `:`.
    value: ValueKind,
    /// The text after the `:`.
    after: &'t str,
}

/// The block structure of a line: its indentation, its `- ` indicators and its key.
#[derive(Clone, Debug)]
struct Shape<'t> {
    indent: usize,
    /// The columns of the `- ` sequence-entry indicators that start the line.
    dashes: Vec<usize>,
    key: Option<KeyAt<'t>>,
    /// Whether nothing (but a comment) follows the indicators.
    rest_empty: bool,
    /// Whether the line holds nothing but spaces and a comment.
    blank: bool,
}

fn shape(line: &str) -> Shape<'_> {
    let bytes = line.as_bytes();
    let indent = skip_spaces(line, 0);
    let mut dashes = Vec::new();
    let mut i = indent;
    while bytes.get(i) == Some(&b'-') && matches!(bytes.get(i + 1), None | Some(b' ')) {
        dashes.push(i);
        i = skip_spaces(line, i + 1);
    }
    let rest = &line[i..];
    let rest_empty = rest.is_empty() || rest.starts_with('#');
    let key = split_key(rest).map(|(name, name_offset, colon)| {
        let after = &rest[colon + 1..];
        KeyAt { column: i + name_offset, name, value: value_kind(after), after }
    });
    Shape { indent, blank: rest_empty && dashes.is_empty(), dashes, key, rest_empty }
}

fn skip_spaces(line: &str, from: usize) -> usize {
    from + line.as_bytes().get(from..).map_or(0, |b| b.iter().take_while(|&&c| c == b' ').count())
}

/// Splits `key: value` text: the key (unquoted), its offset in `text`, and the offset of its `:`.
fn split_key(text: &str) -> Option<(&str, usize, usize)> {
    let colon_ok = |at: usize| text[at..].starts_with(':') && matches!(text.as_bytes().get(at + 1), None | Some(b' ' | b'\t'));
    if let Some(quote) = text.chars().next().filter(|&c| c == '"' || c == '\'') {
        let close = 1 + text[1..].find(quote)?;
        return colon_ok(close + 1).then(|| (&text[1..close], 1, close + 1));
    }
    if text.is_empty() || text.starts_with(['[', '{', '#', '&', '*', '!', '|', '>', '%', '@', '`']) {
        return None;
    }
    let colon = text.char_indices().find(|&(i, c)| c == ':' && colon_ok(i)).map(|(i, _)| i)?;
    let name = text[..colon].trim_end();
    (!name.is_empty() && !name.contains(" #")).then_some((name, 0, colon))
}

fn value_kind(after: &str) -> ValueKind {
    let v = after.trim();
    if v.is_empty() || v.starts_with('#') {
        return ValueKind::Empty;
    }
    if v.starts_with(['|', '>']) {
        return ValueKind::Block;
    }
    // An anchor or tag alone (`key: &base`) still leaves the value on the lines below.
    let first_word = v.split_whitespace().next().unwrap_or_default();
    let rest = v[first_word.len()..].trim_start();
    if first_word.starts_with(['&', '!']) && (rest.is_empty() || rest.starts_with('#')) {
        return ValueKind::Empty;
    }
    ValueKind::Inline
}

/// What the upward scan is looking for.
#[derive(Clone, Copy, Debug)]
enum Looking {
    /// The owner of a mapping whose keys are at this column.
    Map(usize),
    /// The owner of a sequence whose `- ` indicators are at `column`, counting the items above.
    Seq { column: usize, count: usize },
}

/// The state for a mapping at `column` that starts on a line after `dashes`: for `- - key:`, the mapping
/// is the first item of the inner sequence, itself an item of the outer one.
fn enter<'t>(dashes: &[usize], column: usize, reversed: &mut Vec<Segment<'t>>) -> Looking {
    match dashes.split_first() {
        None => Looking::Map(column),
        Some((&outer, inner)) => {
            reversed.extend(inner.iter().map(|_| Segment::Index(0)));
            Looking::Seq { column: outer, count: 0 }
        }
    }
}

/// The path from the root to the collection described by `looking`, scanning `above` (the lines above,
/// nearest first). `reversed` holds the steps found so far, innermost first; `siblings` receives the keys
/// of the first mapping, the one the cursor is in.
fn owner<'t>(
    above: impl Iterator<Item = &'t str>,
    mut looking: Looking,
    mut reversed: Vec<Segment<'t>>,
    siblings: &mut Vec<&'t str>,
) -> Option<Vec<Segment<'t>>> {
    let mut collecting = matches!(looking, Looking::Map(_));
    for line in above {
        let s = shape(line);
        if s.blank {
            continue;
        }
        looking = match looking {
            Looking::Map(column) => {
                if s.indent >= column {
                    if let (true, true, true, Some(key)) = (collecting, s.indent == column, s.dashes.is_empty(), &s.key) {
                        siblings.push(key.name);
                    }
                    continue;
                }
                let next = match &s.key {
                    // `- key:` on the item's first line: a sibling, and the mapping is that item.
                    Some(key) if key.column == column && !s.dashes.is_empty() => {
                        if collecting {
                            siblings.push(key.name);
                        }
                        enter(&s.dashes, column, &mut reversed)
                    }
                    Some(key) if key.column < column && key.value == ValueKind::Empty => {
                        reversed.push(Segment::Key(key.name));
                        enter(&s.dashes, key.column, &mut reversed)
                    }
                    None if s.rest_empty && s.dashes.last().is_some_and(|&d| d < column) => enter(&s.dashes, column, &mut reversed),
                    _ => return None,
                };
                collecting = false;
                next
            }
            Looking::Seq { column, count } => {
                if s.indent > column {
                    continue;
                }
                match s.dashes.iter().position(|&d| d == column) {
                    // An item above, at the start of its line.
                    Some(0) => {
                        looking = Looking::Seq { column, count: count + 1 };
                        continue;
                    }
                    // The first item, on the line of an outer item (`- - a`): the sequence starts here.
                    Some(j) => {
                        reversed.push(Segment::Index(count + 1));
                        looking = enter(&s.dashes[..j], column, &mut reversed);
                        continue;
                    }
                    None => {}
                }
                match &s.key {
                    // `key:` above its items, indented or not (`key:\n- a`).
                    Some(key) if key.column <= column && key.value == ValueKind::Empty => {
                        reversed.push(Segment::Index(count));
                        reversed.push(Segment::Key(key.name));
                        enter(&s.dashes, key.column, &mut reversed)
                    }
                    None if s.rest_empty && s.dashes.last().is_some_and(|&d| d < column) => {
                        reversed.push(Segment::Index(count));
                        enter(&s.dashes, column, &mut reversed)
                    }
                    _ => return None,
                }
            }
        };
    }
    if let Looking::Seq { count, .. } = looking {
        reversed.push(Segment::Index(count));
    }
    reversed.reverse();
    Some(reversed)
}

#[cfg(test)]
mod tests {
    use expect_test::{expect, Expect};

    use super::*;

    /// Renders the context at `$0`: its kind, the path, the replaced text and the extras.
    fn check(text_with_cursor: &str, expect: Expect) {
        let offset = text_with_cursor.find("$0").unwrap_or(text_with_cursor.len());
        let text = text_with_cursor.replacen("$0", "", 1);
        let path = |path: &[Segment<'_>]| {
            path.iter()
                .map(|s| match s {
                    Segment::Key(k) => format!("/{k}"),
                    Segment::Index(i) => format!("/[{i}]"),
                })
                .collect::<String>()
        };
        let got = match context(&text, offset) {
            None => "none".to_string(),
            Some(ctx) => match ctx.what {
                What::NewDocument { word } => format!("new document {:?}", &text[word.start..word.end]),
                What::Key { path: p, column, word, colon_follows, item_start, siblings } => format!(
                    "key at {}{} col {column} {:?}{}{} siblings {siblings:?}",
                    path(&p),
                    if p.is_empty() { "/" } else { "" },
                    &text[word.start..word.end],
                    if colon_follows { " colon" } else { "" },
                    if item_start { " item" } else { "" },
                ),
                What::Value { path: p, word, space_needed } => {
                    format!("value at {} {:?}{}", path(&p), &text[word.start..word.end], if space_needed { " space" } else { "" })
                }
            },
        };
        expect.assert_eq(&got);
    }

    #[test]
    fn keys_mid_typing() {
        check("spec:\n  rep$0", expect![[r#"key at /spec col 2 "rep" siblings []"#]]);
        check("spec:\n  size: 1\n  $0\n  owner: x\nstatus: {}\n", expect![[r#"key at /spec col 2 "" siblings ["size", "owner"]"#]]);
        check("spec:\n  template:\n    spec:\n      $0\n", expect![[r#"key at /spec/template/spec col 6 "" siblings []"#]]);
        check("spec:\n  ports:\n  - name: a\n    $0\n", expect![[r#"key at /spec/ports/[0] col 4 "" siblings ["name"]"#]]);
        check("spec:\n  ports:\n  - name: a\n  - na$0\n", expect![[r#"key at /spec/ports/[1] col 4 "na" item siblings []"#]]);
        check(
            "spec:\n  ports:\n    - name: a\n      protocol: TCP\n    -\n      $0\n",
            expect![[r#"key at /spec/ports/[1] col 6 "" siblings []"#]],
        );
        check("spec:\n  ports:\n  - name: a\n  $0\n", expect![[r#"key at /spec col 2 "" siblings ["ports"]"#]]);
        check("spec:\n  mat:\n  - - a: 1\n    - b: 2\n      $0\n", expect![[r#"key at /spec/mat/[0]/[1] col 6 "" siblings ["b"]"#]]);
        check("spec:\n  rep$0: 3\n", expect![[r#"key at /spec col 2 "rep" colon siblings []"#]]);
        check("kind: Widget\n\n$0", expect![[r#"key at / col 0 "" siblings ["kind"]"#]]);
    }

    #[test]
    fn values_mid_typing() {
        check("spec:\n  tier: $0\n", expect![[r#"value at /spec/tier """#]]);
        check("spec:\n  tier:$0\n", expect![[r#"value at /spec/tier "" space"#]]);
        check("spec:\n  tier: go$0ld # the best\n", expect![[r#"value at /spec/tier "gold""#]]);
        check("spec:\n  ports:\n  - protocol: T$0\n", expect![[r#"value at /spec/ports/[0]/protocol "T""#]]);
        check("spec:\n  tags:\n  - one two$0\n", expect![[r#"value at /spec/tags/[0] "one two""#]]);
        check("kind: $0", expect![[r#"value at /kind """#]]);
    }

    #[test]
    fn new_documents_and_nothing_to_complete() {
        check("$0", expect![[r#"new document """#]]);
        check("Wid$0", expect![[r#"new document "Wid""#]]);
        check("a: 1\n---\n# comment\n$0\n---\nb: 2\n", expect![[r#"new document """#]]);
        check("a: 1 # co$0", expect!["none"]);
        check("---$0\n", expect!["none"]);
        check("spec:\n  script: |\n    echo\n    $0\n", expect!["none"]);
        check("spec:\n  size: 1\n    $0\n", expect!["none"]);
        check("spec:\n  -$0\n", expect!["none"]);
        check("spec:\r\n  rep$0\r\n", expect![[r#"key at /spec col 2 "rep" siblings []"#]]);
        check("metadata:\n  name: ü\n  la$0", expect![[r#"key at /metadata col 2 "la" siblings ["name"]"#]]);
    }
}
