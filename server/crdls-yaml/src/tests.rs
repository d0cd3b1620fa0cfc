//! Tests of the YAML layer: trees with their ranges, recovery from syntax errors, and the limits.

use expect_test::{expect, Expect};

use crate::{parse, Node, Value};

/// Renders every document as an indented tree of `range value` lines plus its diagnostics.
fn check(text: &str, expect: Expect) {
    let stream = parse(text);
    let mut out = String::new();
    for doc in &stream.documents {
        out.push_str(&format!("doc {}\n", doc.range));
        if let Some(root) = &doc.root {
            render(text, root, 1, &mut out);
        }
        for d in &doc.diagnostics {
            out.push_str(&format!("  ! {} {} {}\n", d.code, d.range, d.message));
        }
    }
    expect.assert_eq(&out);
}

fn render(text: &str, node: &Node, depth: usize, out: &mut String) {
    let pad = "  ".repeat(depth);
    let src = &text[node.range.start..node.range.end];
    match &node.value {
        Value::Map(entries) => {
            out.push_str(&format!("{pad}map {}\n", node.range));
            for e in entries {
                out.push_str(&format!(
                    "{pad}  key {:?} {}\n",
                    e.key,
                    crdls_diagnostics::TextRange::new(e.key_range.start, e.key_range.end)
                ));
                render(text, &e.value, depth + 2, out);
            }
        }
        Value::Seq(items) => {
            out.push_str(&format!("{pad}seq {}\n", node.range));
            for item in items {
                render(text, item, depth + 1, out);
            }
        }
        v => out.push_str(&format!("{pad}{v:?} {} {src:?}\n", node.range)),
    }
}

#[test]
fn block_flow_quoted_and_block_scalars() {
    check(
        "a: h\u{e9}llo  # c\nb: \"q\\\"x\"\nc: |\n  l1\n  l2\nd:\n  - {x: 1, y: [on, 1.5]}\n  - 'it''s'\n",
        expect![[r#"
            doc 0..80
              map 0..79
                key "a" 0..1
                  Str("héllo") 3..9 "héllo"
                key "b" 15..16
                  Str("q\"x") 18..24 "\"q\\\"x\""
                key "c" 25..26
                  Str("l1\nl2\n") 32..40 "l1\n  l2\n"
                key "d" 40..41
                  seq 45..79
                    map 47..67
                      key "x" 48..49
                        Int(1) 51..52 "1"
                      key "true" 54..55
                        seq 57..66
                          Bool(true) 58..60 "on"
                          Float(1.5) 62..65 "1.5"
                    Str("it's") 72..79 "'it''s'"
        "#]],
    );
}

#[test]
fn syntax_error_keeps_other_documents_and_the_partial_tree() {
    check(
        "a: 1\n---\nb: 2\nc: [1, 2\nd: 3\n---\ne: 5\n",
        expect![[r#"
            doc 0..5
              map 0..4
                key "a" 0..1
                  Int(1) 3..4 "1"
            doc 5..28
              map 9..24
                key "b" 9..10
                  Int(2) 12..13 "2"
                key "c" 14..15
                  seq 17..24
                    Int(1) 18..19 "1"
              ! yaml/syntax 24..27 YAML syntax error: illegal placement of ':' indicator
            doc 28..37
              map 32..36
                key "e" 32..33
                  Int(5) 35..36 "5"
        "#]],
    );
}

#[test]
fn duplicate_keys_anchors_aliases_and_merge_keys() {
    check(
        "base: &b {x: 1, y: 2}\nuse:\n  <<: *b\n  y: 3\nuse: again\n",
        expect![[r#"
            doc 0..54
              map 0..53
                key "base" 0..4
                  map 6..20
                    key "x" 10..11
                      Int(1) 13..14 "1"
                    key "true" 16..17
                      Int(2) 19..20 "2"
                key "use" 22..25
                  map 29..42
                    key "true" 38..39
                      Int(3) 41..42 "3"
                    key "x" 10..11
                      Int(1) 13..14 "1"
                key "use" 43..46
                  Str("again") 48..53 "again"
              ! yaml/duplicate-key 43..46 duplicate key "use" (first set on line 2): kubectl silently keeps the last value, strict decoding rejects the object
        "#]],
    );
}

#[test]
fn a_second_object_without_its_own_separator_line_is_named() {
    let messages = |text: &str| -> Vec<String> {
        parse(text).documents[0].diagnostics.iter().filter(|d| d.code == "yaml/duplicate-key").map(|d| d.message.clone()).collect()
    };
    // The separator written at the end of a value: only the first duplicate says so.
    let glued = messages("apiVersion: v1\nkind: ConfigMap\ndata:\n  t: 300s---\n\n# next\napiVersion: v1\nkind: Secret\n");
    assert_eq!(glued.len(), 2, "{glued:?}");
    assert!(
        glued[0].ends_with(
            "; line 4 ends with `---`, which YAML reads as part of its value: a document separator must stand alone on its line"
        ),
        "{glued:?}"
    );
    assert!(!glued[1].contains("---"), "{glued:?}");
    // No separator at all.
    let missing = messages("kind: A\nmetadata: {}\nkind: B\n");
    assert_eq!(missing.len(), 1);
    assert!(
        missing[0].ends_with("; a second object seems to start on line 3: separate documents with a line holding only `---`"),
        "{missing:?}"
    );
    // Any other key, or one nested deeper, is only a duplicate.
    for text in ["name: a\nname: b\n", "spec:\n  kind: A\n  kind: B\n"] {
        let plain = messages(text);
        assert_eq!(plain.len(), 1);
        assert!(plain[0].ends_with("strict decoding rejects the object"), "{plain:?}");
    }
}

#[test]
fn billion_laughs_is_refused() {
    let mut text = String::from("a: &a [x, x, x, x, x, x, x, x, x, x]\n");
    let names: Vec<String> = (b'b'..=b'j').map(|c| (c as char).to_string()).collect();
    let mut prev = "a".to_string();
    for n in &names {
        text.push_str(&format!("{n}: &{n} [*{prev}, *{prev}, *{prev}, *{prev}, *{prev}, *{prev}, *{prev}, *{prev}, *{prev}, *{prev}]\n"));
        prev = n.clone();
    }
    let stream = parse(&text);
    let doc = &stream.documents[0];
    assert!(doc.diagnostics.iter().any(|d| d.code == "yaml/excessive-aliasing"), "{:?}", doc.diagnostics);
    assert!(doc.root.as_ref().unwrap().count() <= crate::MAX_EXPANDED_NODES + 1000);
}

#[test]
fn bom_crlf_and_json() {
    check(
        "\u{feff}a: 1\r\nb:\r\n  - x\r\n",
        expect![[r#"
            doc 3..20
              map 3..18
                key "a" 3..4
                  Int(1) 6..7 "1"
                key "b" 9..10
                  seq 15..18
                    Str("x") 17..18 "x"
        "#]],
    );
    check(
        "{\n\t\"kind\": \"X\",\n\t\"n\": [1, 2.5, null, true]\n}\n",
        expect![[r#"
        doc 0..45
          map 0..44
            key "kind" 3..9
              Str("X") 11..14 "\"X\""
            key "n" 17..20
              seq 22..42
                Int(1) 23..24 "1"
                Float(2.5) 26..29 "2.5"
                Null 31..35 "null"
                Bool(true) 37..41 "true"
    "#]],
    );
}

#[test]
fn empty_and_comment_only_documents() {
    check(
        "# just a comment\n---\n---\na: 1\n...\n",
        expect![[r#"
        doc 21..34
          map 25..29
            key "a" 25..26
              Int(1) 28..29 "1"
    "#]],
    );
}

#[test]
fn parse_at_yields_the_document_under_the_cursor() {
    let text = "a: 1\n---\nb: 2\n---\nc: 3\n";
    for (offset, key) in [(0, "a"), (3, "a"), (10, "b"), (14, "b"), (20, "c"), (text.len(), "c")] {
        let stream = crate::parse_at(text, offset);
        let full = parse(text);
        let doc = &stream.documents[0];
        let same = full.documents.iter().find(|d| d.range == doc.range).expect("the same document");
        assert_eq!(doc.root, same.root);
        assert!(doc.root.as_ref().unwrap().get(key).is_some(), "offset {offset}");
    }
    assert!(crate::parse_at("", 0).documents.is_empty());
}

#[test]
fn quoted_scalars_with_under_indented_continuation_lines_are_folded_as_go_yaml_folds_them() {
    // A generated CRD (argo-rollouts' e2e Istio CRDs): the continuation lines sit at the indentation of
    // the sequence item. saphyr rejects this; the Go decoder (and so kubectl and the API server) folds them.
    let text = "versions:\n  - additionalPrinterColumns:\n      - description: 'CreationTimestamp is a timestamp\n      when this object was created. It''s\n\n      set by the system'\n        name: Age\n    note: \"a \\\"b\\\"\n    c\"\n";
    let stream = parse(text);
    let doc = &stream.documents[0];
    assert!(doc.diagnostics.is_empty(), "{:?}", doc.diagnostics);
    let root = doc.root.as_ref().unwrap();
    let item = &root.get("versions").unwrap().as_seq().unwrap()[0];
    let column = &item.get("additionalPrinterColumns").unwrap().as_seq().unwrap()[0];
    assert_eq!(
        column.get_str("description"),
        Some("CreationTimestamp is a timestamp when this object was created. It's\nset by the system")
    );
    assert_eq!(column.get_str("name"), Some("Age"));
    assert_eq!(item.get_str("note"), Some("a \"b\" c"));
    // The ranges still point into the original text.
    let description = column.get("description").unwrap();
    assert!(text[description.range.start..description.range.end].starts_with("'CreationTimestamp"));
    // An escaped line break (`\` at the end of a line) continued at the parent's column, as in a
    // shell command written over several lines: goyaml.v2 joins the lines with nothing between them.
    let escaped = "command:\n    - sh\n    - \"exec run \\\n  --a=1 \\\n  --b=2\"\nnext: x\n";
    let doc = &parse(escaped).documents[0];
    assert!(doc.diagnostics.is_empty(), "{:?}", doc.diagnostics);
    let root = doc.root.as_ref().unwrap();
    assert_eq!(root.get("command").unwrap().as_seq().unwrap()[1].as_str(), Some("exec run --a=1 --b=2"));
    assert_eq!(root.get_str("next"), Some("x"));
    // A quote inside a plain scalar does not open a quoted one, and real syntax errors stay.
    let broken = parse("a: it's\nb: 'x\n  y\nc: [\n");
    assert!(broken.documents[0].has_syntax_error);
}

/// Parses a deep document and says how deep its tree went and what was reported (the message of
/// the nesting limit is left out: it is always the same).
fn depth_report(text: &str) -> String {
    let stream = parse(text);
    let mut out = String::new();
    for doc in &stream.documents {
        let height = doc.root.as_ref().map_or(0, Node::height);
        out.push_str(&format!("doc height {height} cut {}\n", doc.has_syntax_error));
        for d in &doc.diagnostics {
            out.push_str(&format!("  ! {} {} {:?}\n", d.code, d.range, d.cause));
        }
    }
    out
}

#[test]
fn nesting_is_limited_alike_for_block_and_flow_collections() {
    let limit = crate::parse::MAX_NESTING;
    // The deepest document read whole, in both styles, and one level more. saphyr meets the flow
    // limit while looking ahead, before it hands over the first level, so that tree is empty.
    let seq = |n: usize| format!("{}1\n", "- ".repeat(n));
    let flow = |n: usize| format!("{}1{}\n", "[".repeat(n), "]".repeat(n));
    let map = |n: usize| (0..n).map(|i| format!("{}k{i}:\n", " ".repeat(i))).collect::<String>() + &" ".repeat(n) + "v\n";
    let report = [seq(limit), flow(limit), map(limit), seq(limit + 1), flow(limit + 1), map(limit + 1)].map(|t| depth_report(&t)).concat();
    expect![[r#"
        doc height 255 cut false
        doc height 255 cut false
        doc height 255 cut false
        doc height 255 cut true
          ! yaml/too-deep 510..511 None
        doc height 0 cut true
          ! yaml/too-deep 255..256 None
        doc height 255 cut true
          ! yaml/too-deep 34060..34061 None
    "#]]
    .assert_eq(&report);
}

#[test]
fn a_document_nested_200_000_deep_is_cut_at_the_limit_with_the_api_servers_words() {
    // One line of block sequences, one line of block mappings with explicit keys (whose keys are
    // collections, so the partial tree keeps only the first key's text), and a sequence whose
    // 10,001st level is on its second line (goyaml then names the line) followed by a document that
    // is read as usual.
    let seq = format!("{}1\n", "- ".repeat(200_000));
    let map = format!("{}k\n", "? ".repeat(200_000));
    let two_lines = format!("{}\n{}{}1\n---\na: 1\n", "- ".repeat(5_000), " ".repeat(10_000), "- ".repeat(5_001));
    let report = [seq, map, two_lines].map(|t| depth_report(&t)).concat();
    expect![[r#"
        doc height 255 cut true
          ! yaml/too-deep 510..511 Some("yaml: exceeded max depth of 10000")
        doc height 1 cut true
          ! yaml/too-deep 510..511 Some("yaml: exceeded max depth of 10000")
        doc height 255 cut true
          ! yaml/too-deep 510..511 Some("yaml: line 2: exceeded max depth of 10000")
        doc height 1 cut false
    "#]]
    .assert_eq(&report);
}

#[test]
fn aliases_cannot_deepen_a_tree_past_the_limit() {
    // Each alias nests the anchored tree 200 levels deeper than it was written.
    let deep = |n: usize, inner: &str| format!("{}{inner}{}", "[".repeat(n), "]".repeat(n));
    let text = format!("a: &a {}\nb: &b {}\nc: {}\n", deep(200, "1"), deep(50, "*a"), deep(200, "*b"));
    expect![[r#"
        doc height 251 cut true
          ! yaml/too-deep 720..721 None
    "#]]
    .assert_eq(&depth_report(&text));
}

#[test]
fn surrogate_escapes_decode_in_json_streams_as_encoding_json_decodes_them() {
    let value = |text: &str| {
        let stream = parse(text);
        let doc = &stream.documents[0];
        let codes: Vec<&str> = doc.diagnostics.iter().map(|d| d.code).collect();
        format!("{:?} {codes:?}\n", doc.root.as_ref().and_then(|r| r.get("a")).map(|n| n.value.clone()))
    };
    // A pair is one code point; a lone surrogate, or a high one before anything but a low one, is
    // U+FFFD. YAML streams keep goyaml's refusal of every surrogate escape.
    let report = [
        r#"{"a": "\ud83d\ude00!"}"#,
        r#"  {"a": "x\uD83Dy\udE00z\ud83d\u0041", "b": 1}"#,
        r#"{"a": "\ud83d\ude00", "b": "no escape here"}"#,
        "a: \"\\ud83d\\ude00\"\n",
    ]
    .map(value)
    .concat();
    expect![[r#"
        Some(Str("😀!")) []
        Some(Str("x�y�z�A")) []
        Some(Str("😀")) []
        Some(Null) ["yaml/syntax"]
    "#]]
    .assert_eq(&report);
}

/// kubectl reads a stream that starts with `{` as JSON, value after value (`jq -c`, `mongoexport`
/// output): each value is a document of its own, where YAML would stop at the second.
#[test]
fn a_stream_of_json_values_is_a_document_per_value() {
    check(
        "{\"a\": \"}{\"}\n{\"b\": [1, {\"c\": 2}]} [3]\n",
        expect![[r#"
            doc 0..11
              map 0..11
                key "a" 1..4
                  Str("}{") 6..10 "\"}{\""
            doc 11..32
              map 12..32
                key "b" 13..16
                  seq 18..31
                    Int(1) 19..20 "1"
                    map 22..30
                      key "c" 23..26
                        Int(2) 28..29 "2"
            doc 32..37
              seq 33..36
                Int(3) 34..35 "3"
        "#]],
    );
    // A single value, or text after the values that is not one, is read as YAML, as it was.
    assert_eq!(parse("{\"a\": 1}\n").documents.len(), 1);
    let broken = parse("{\"a\": 1}\nb: 2\n");
    assert!(broken.documents.iter().any(|d| d.diagnostics.iter().any(|x| x.code == "yaml/syntax")));
}

/// The Go YAML decoder (goyaml.v2, which kubectl and the API server read YAML with) ignores indentation
/// inside flow collections: a continuation line or the closing bracket may sit at or left of the block
/// around it. saphyr rejects that; crdls reads such collections as the Go decoder does.
#[test]
fn flow_collections_are_read_whatever_the_indentation_of_their_lines() {
    let text = "spec:\n  items: [\n    a, b # first two\n]\n  m: {x: 1,\n  z: \"q\n  r\"}\n  next: [c]\n";
    let stream = parse(text);
    let doc = &stream.documents[0];
    assert!(doc.diagnostics.is_empty(), "{:?}", doc.diagnostics);
    let spec = doc.root.as_ref().unwrap().get("spec").unwrap();
    let items: Vec<&str> = spec.get("items").unwrap().as_seq().unwrap().iter().filter_map(|n| n.as_str()).collect();
    assert_eq!(items, ["a", "b"]);
    assert_eq!(spec.get("m").unwrap().get_str("z"), Some("q r"));
    assert_eq!(spec.get("next").unwrap().as_seq().unwrap().len(), 1);
    // The ranges still point into the original text, and a block scalar's brackets are text.
    let closing = spec.get("items").unwrap().range;
    assert_eq!(&text[closing.start..closing.end], "[\n    a, b # first two\n]");
    let scalar = parse("a: |\n  if [ -f x\n]\n");
    assert!(scalar.documents[0].has_syntax_error, "a block scalar's lines are not a flow collection");
}

/// In a flow collection the Go decoder ends a plain scalar at `:` only before a blank, so a colon
/// right before a flow indicator belongs to the scalar: `[1.2.3.4, 2001:db8::]` holds two strings.
#[test]
fn a_colon_before_a_flow_indicator_stays_in_its_plain_scalar() {
    check(
        "ips: [1.2.3.4, 2001:db8::]\nm: {a:, b: c:}\nq: 'x:]'\n",
        expect![[r#"
            doc 0..51
              map 0..50
                key "ips" 0..3
                  seq 5..26
                    Str("1.2.3.4") 6..13 "1.2.3.4"
                    Str("2001:db8::") 15..25 "2001:db8::"
                key "m" 27..28
                  map 30..41
                    key "a:" 31..33
                      Null 33..35 ", "
                    key "b" 35..36
                      Str("c:") 38..40 "c:"
                key "q" 42..43
                  Str("x:]") 45..50 "'x:]'"
        "#]],
    );
}

/// The Go decoder takes a tab after a mapping's `:` as a blank; crdls too, outside quoted scalars.
#[test]
fn a_tab_after_a_colon_separates_key_and_value() {
    let stream = parse("a:\tb\nc: \"d:\te\"\n");
    let doc = &stream.documents[0];
    assert!(doc.diagnostics.is_empty(), "{:?}", doc.diagnostics);
    let root = doc.root.as_ref().unwrap();
    assert_eq!((root.get_str("a"), root.get_str("c")), (Some("b"), Some("d:\te")));
}

/// The Go decoder reads an alias of a scalar used as a key (`*app :`) as that scalar: a common way to
/// name a HelmRelease's controller after the release. An alias of a mapping there is still a
/// collection used as a key.
#[test]
fn an_alias_of_a_scalar_is_a_key() {
    let stream = parse("metadata:\n  name: &app autobrr\nspec:\n  controllers:\n    *app :\n      replicas: 1\n");
    let doc = &stream.documents[0];
    assert!(doc.diagnostics.is_empty(), "{:?}", doc.diagnostics);
    let controllers = doc.root.as_ref().unwrap().get("spec").unwrap().get("controllers").unwrap();
    assert!(controllers.get("autobrr").is_some_and(|c| c.get("replicas").is_some()));
    let collection = parse("base: &b {a: 1}\nm:\n  *b : x\n");
    assert!(
        collection.documents[0].diagnostics.iter().any(|d| d.code == crdls_diagnostics::codes::YAML_COMPLEX_KEY),
        "{:?}",
        collection.documents[0].diagnostics
    );
}
