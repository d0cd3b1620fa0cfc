//! go-yaml's limit on implicit keys. libyaml, and go-yaml v2 after it (the decoder of kubectl and the
//! API server, through sigs.k8s.io/yaml), forgets a key written without `?` once its `:` lies more
//! than 1,024 characters after the key's first character. saphyr has the same limit in block
//! collections, where both refuse the key; in a flow collection saphyr has none, while go-yaml's
//! scanner reads the `:` as a value with no key, which its parser then refuses: "did not find
//! expected ',' or '}'" (or `']'` in a flow sequence, whose single-pair mappings are written there).
//! So crdls looks for such keys in flow collections of a document saphyr read without error.
//!
//! kubectl reads a stream that starts with `{` as JSON, with no such limit: JSON text is left alone.

use crate::{Node, Style, Value};
use crdls_diagnostics::TextRange;

/// The most characters go-yaml's scanner lets lie between an implicit key's first character and
/// its `:` (libyaml's simple-key staleness check).
pub(crate) const GO_MAX_IMPLICIT_KEY: usize = 1024;

/// An implicit key of a flow collection that go-yaml would forget.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct OverlongKey {
    /// The key as written.
    pub key: TextRange,
    /// The byte offset of the key's `:`.
    pub colon: usize,
    /// The closing bracket of the flow collection the key is written in (`}` or `]`).
    pub closing: char,
}

impl OverlongKey {
    /// go-yaml's problem for this key (without the `yaml: line N:` prefix): its parser's.
    pub(crate) fn go_problem(&self) -> String {
        format!("did not find expected ',' or '{}'", self.closing)
    }
}

/// The first implicit key of `root` (in the order go-yaml meets their `:`) whose `:` lies too far
/// from its start, if any. `text` is the whole file the ranges index.
pub(crate) fn first_overlong_key(root: &Node, text: &str, chunk: TextRange) -> Option<OverlongKey> {
    // A key and its `:` share a line, so only a document with a line that long can hold one; most
    // documents are passed over here without a walk.
    let long_line = text[chunk.start..chunk.end].split('\n').any(|line| line.len() > GO_MAX_IMPLICIT_KEY);
    if !long_line {
        return None;
    }
    let mut first = None;
    walk(root, text, None, &mut first);
    first
}

/// Walks `node`, written inside a flow collection closed by `closing` if any.
fn walk(node: &Node, text: &str, closing: Option<char>, first: &mut Option<OverlongKey>) {
    match &node.value {
        Value::Seq(items) => {
            let closing = if node.style == Style::Flow { Some(']') } else { closing };
            items.iter().for_each(|item| walk(item, text, closing, first));
        }
        Value::Map(entries) => {
            let closing = if node.style == Style::Flow { Some('}') } else { closing };
            for entry in entries {
                if let Some(closing) = closing {
                    if let Some(colon) = overlong_colon(entry.key_range, text) {
                        if first.is_none_or(|f| colon < f.colon) {
                            *first = Some(OverlongKey { key: entry.key_range, colon, closing });
                        }
                    }
                }
                walk(&entry.value, text, closing, first);
            }
        }
        _ => {}
    }
}

/// The offset of the `:` after a key written at `key`, when it lies more than
/// [`GO_MAX_IMPLICIT_KEY`] characters after the key's start on the same line. Keys written with
/// `?` (explicit keys) have no such limit.
fn overlong_colon(key: TextRange, text: &str) -> Option<usize> {
    let (start, end) = (key.start.min(text.len()), key.end.min(text.len()));
    let colon = end + text[end..].bytes().take_while(|b| *b == b' ' || *b == b'\t').count();
    // Characters are never more than bytes: a short key is passed over without counting.
    if colon - start <= GO_MAX_IMPLICIT_KEY || text.as_bytes().get(colon) != Some(&b':') {
        return None;
    }
    let line_start = text[..start].rfind('\n').map_or(0, |i| i + 1);
    if text[line_start..start].trim_end_matches([' ', '\t']).ends_with('?') {
        return None;
    }
    (text[start..colon].chars().count() > GO_MAX_IMPLICIT_KEY).then_some(colon)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::parse;

    /// The first three characters of the overlong key crdls finds in `text`, and go-yaml's problem.
    fn found(text: &str) -> Option<(String, String)> {
        let stream = parse(text);
        let doc = stream.documents.first()?;
        let key = first_overlong_key(doc.root.as_ref()?, text, doc.range)?;
        Some((text[key.key.start..key.key.end].chars().take(3).collect(), key.go_problem()))
    }

    #[test]
    fn a_flow_key_of_1024_characters_is_read_and_one_more_is_not() {
        let k = "k".repeat(1022);
        assert_eq!(found(&format!("a: {{{k}: 1}}\n")), None);
        let k = "k".repeat(1025);
        assert_eq!(found(&format!("a: {{{k}: 1}}\n")), Some(("kkk".into(), "did not find expected ',' or '}'".into())));
    }

    #[test]
    fn blanks_before_the_colon_and_quotes_count_and_characters_not_bytes() {
        let k = "k".repeat(1020);
        assert_eq!(found(&format!("a: {{{k}    : 1}}\n")), None);
        assert!(found(&format!("a: {{{k}     : 1}}\n")).is_some());
        assert!(found(&format!("a: {{b: 1, \"{k}\"   : 2}}\n")).is_some());
        assert_eq!(found(&format!("a: {{b: 1, \"{k}\"  : 2}}\n")), None);
        let k = "é".repeat(1024);
        assert_eq!(found(&format!("a: {{{k}: 1}}\n")), None);
    }

    #[test]
    fn the_bracket_is_the_innermost_flow_collections() {
        let k = "k".repeat(1100);
        assert_eq!(found(&format!("a: [{k}: 2]\n")).map(|f| f.1), Some("did not find expected ',' or ']'".into()));
        assert_eq!(found(&format!("a: {{b: [x, {k}: 2]}}\n")).map(|f| f.1), Some("did not find expected ',' or ']'".into()));
        assert_eq!(found(&format!("a: [{{{k}: 2}}]\n")).map(|f| f.1), Some("did not find expected ',' or '}'".into()));
    }

    #[test]
    fn block_keys_long_values_and_explicit_keys_are_not_its_business() {
        let k = "k".repeat(1100);
        // saphyr refuses an overlong block key itself.
        assert!(parse(&format!("{k}: 1\n")).documents[0].has_syntax_error);
        let v = "v".repeat(3000);
        assert_eq!(found(&format!("a: {{b: {v}, c: \"{v}\"}}\n")), None);
        assert_eq!(found(&format!("a: {{? {v} : 1}}\n")), None);
    }
}
