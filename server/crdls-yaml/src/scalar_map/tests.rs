//! Tests of the scalar map on hand-written cases: each style's folding and escapes, empty and clamped
//! ranges, character offsets, and the nodes that get no map.

use super::ScalarMap;
use crate::{parse, Node, Value};
use crdls_diagnostics::TextRange;

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
    let text = "rule: >\n\n  folded\n  line\n\n  next\n  line\n    * bullet\n\n    * list\n    * lines\n\n  last\n  line\n\n# Comment\n";
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
