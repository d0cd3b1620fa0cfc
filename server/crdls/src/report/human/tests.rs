//! Tests of `human`.

use crdls_diagnostics::{Diagnostic, Severity, TextRange};
use expect_test::expect;

use super::super::fixture::{render_files, render_fixture};
use super::super::{FileReport, Format, Summary};

#[test]
fn fixture() {
    let output = render_fixture(Format::Human, false);
    assert!(!output.contains('\r'), "no carriage return reaches the terminal");
    expect![[r#"
        info[resource/deprecated-version]: demo.crdls.dev/v1 Widget is deprecated; use demo.crdls.dev/v2 Widget
         --> deploy/my widget.yaml:1:13
          |
        1 | apiVersion: demo.crdls.dev/v1
          |             ^^^^^^^^^^^^^^^^^

        error[metadata/label-value]: invalid label value
         --> deploy/my widget.yaml:6:11
          |
        6 |     team: 日本語チーム
          |           ^^^^^^^^^^^^
          = path: metadata.labels.team
          = cause: metadata.labels: Invalid value: "日本語チーム": a valid label must be an empty string or consist of alphanumeric characters, '-', '_' or '.'

        error[schema/maximum]: must be less than or equal to 10
         --> deploy/my widget.yaml:8:9
          |
        8 |   size: 11
          |         ^^
          = path: spec.size
          = cause: spec.size: Invalid value: 11: spec.size in body should be less than or equal to 10

        warning[schema/pattern]: should match '^[a-z]+$'
         --> deploy/my widget.yaml:9:13
          |
        9 |   owner: "😀    team"
          |                 ^^^^
          = path: spec.owner

        error[schema/list-map-duplicate]: duplicate entries for key [name="http"]
          --> deploy/my widget.yaml:11:3
           |
        11 |   - name: http
           |   ^^^^^^^^^^^^
        12 |     port: 80
           |     ^^^^^^^^
        13 |   - name: http
           |   ^^^^^^^^^^^^
        14 |     port: 8080
           |     ^^^^^^^^^^
           = path: spec.ports[1]
           = cause: spec.ports[1]: Duplicate value: map[string]interface {}{"name":"http"}

        error[yaml/syntax]: unexpected end of the stream
          --> deploy/my widget.yaml:15:1
           |
        15 |
           | ^

        4 errors, 1 warning in 2 files (3 documents, 1 CRD known)
    "#]]
    .assert_eq(&output);
}

#[test]
fn colors_only_when_asked() {
    let text = "a: 1\n";
    let diagnostics = [Diagnostic::new(TextRange::new(3, 4), Severity::Error, "schema/type", "must be a string")];
    let files = [FileReport { path: "a.yaml", text, diagnostics: &diagnostics, origins: &[] }];
    let summary = Summary { files: 1, documents: 1, crds: 0, errors: 1, warnings: 0, ..Summary::default() };
    let colored = render_files(Format::Human, &files, &summary, true).replace('\x1b', "␛");
    expect![[r#"
        ␛[1;31merror[schema/type]␛[0m␛[1m: must be a string␛[0m
         ␛[1;34m-->␛[0m a.yaml:1:4
          ␛[1;34m|␛[0m
        ␛[1;34m1 |␛[0m a: 1
          ␛[1;34m|␛[0m    ␛[1;31m^␛[0m

        ␛[1;31m1 error in 1 file (1 document, 0 CRDs known)␛[0m
    "#]]
    .assert_eq(&colored);
    assert!(!render_files(Format::Human, &files, &summary, false).contains('\x1b'));
}

#[test]
fn a_clean_run_says_so() {
    let files = [FileReport { path: "a.yaml", text: "a: 1\n", diagnostics: &[], origins: &[] }];
    let summary = Summary { files: 1, documents: 1, crds: 2, errors: 0, warnings: 0, ..Summary::default() };
    expect![[r#"
        no problems in 1 file (1 document, 2 CRDs known)
    "#]]
    .assert_eq(&render_files(Format::Human, &files, &summary, false));
}

/// Renders `text` with one diagnostic per `(start, end)` byte range, without the summary.
fn excerpts(text: &str, ranges: &[(usize, usize)]) -> String {
    let diagnostics: Vec<Diagnostic> =
        ranges.iter().map(|&(start, end)| Diagnostic::new(TextRange::new(start, end), Severity::Error, "schema/type", "bad")).collect();
    let files = [FileReport { path: "a.json", text, diagnostics: &diagnostics, origins: &[] }];
    let out = render_files(Format::Human, &files, &Summary::default(), false);
    out.split("\n\n").filter(|part| part.starts_with("error[")).collect::<Vec<_>>().join("\n\n")
}

#[test]
fn a_wide_line_is_shown_as_a_window_around_its_underline() {
    // Two-column characters and tabs either side of the cuts, a value near the start, one in the middle,
    // an empty range at the end, and a range longer than the window.
    let filler = "日本語\tabc ".repeat(40);
    let text = format!("{{\"a\":1,\"b\":\"{filler}\",\"c\":2,\"d\":\"{filler}\"}}\n");
    let a = text.find('1').unwrap();
    let c = text.find("2,").unwrap();
    let end = text.len() - 1;
    let long = text.find("\"d").unwrap();
    let out = excerpts(&text, &[(a, a + 1), (c, c + 1), (end, end), (long, end)]);
    expect![[r#"
        error[schema/type]: bad
         --> a.json:1:6
          |
        1 | {"a":1,"b":"日本語    abc 日本語    abc 日本語    abc 日本語    abc 日本語    abc 日本語    abc 日本語    abc 日本語    abc 日本語    abc 日本語    abc 日本語...
          |      ^

        error[schema/type]: bad
         --> a.json:1:339
          |
        1 | ...bc 日本語    abc 日本語    abc 日本語    abc 日本語    abc 日本語    abc ","c":2,"d":"日本語    abc 日本語    abc 日本語    abc 日本語    abc 日本語    abc 日本...
          |                                                                                   ^

        error[schema/type]: bad
         --> a.json:1:668
          |
        1 | ...abc 日本語    abc 日本語    abc 日本語    abc 日本語    abc 日本語    abc 日本語    abc 日本語    abc 日本語    abc 日本語    abc 日本語    abc 日本語    abc "}
          |                                                                                                                                                                    ^

        error[schema/type]: bad
         --> a.json:1:341
          |
        1 | ...本語    abc ","c":2,"d":"日本語    abc 日本語    abc 日本語    abc 日本語    abc 日本語    abc 日本語    abc 日本語    abc 日本語    abc 日本語    abc 日本語...
          |                        ^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^"#]]
    .assert_eq(&out);
    // Every shown line fits: the window and its two cut marks, whatever the characters' widths.
    for line in out.lines().filter(|l| l.starts_with("1 | ")) {
        let width: usize = line[4..].chars().map(|c| unicode_width::UnicodeWidthChar::width(c).unwrap_or(0)).sum();
        assert!(width <= super::MAX_LINE_WIDTH + 2 * super::CUT.len(), "{width}: {line}");
    }
}

#[test]
fn a_range_over_wide_lines_shows_a_window_of_each() {
    let wide = "x".repeat(300);
    let text = format!("a: {wide}\n\n  b: {wide}\n");
    let start = text.find('x').unwrap();
    let end = text.rfind('x').unwrap() + 1;
    expect![[r#"
        error[schema/type]: bad
         --> a.json:1:4
          |
        1 | a: xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx...
          |    ^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^
        2 |
        3 |   b: xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx...
          |   ^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^"#]]
    .assert_eq(&excerpts(&text, &[(start, end)]));
}

/// Information that repeats per object what the summary counts (`resource/no-crd`) and notes on
/// shadowed CRDs are counted, not listed, unless `--verbose`; a `resource/no-crd` raised to an
/// error (`--fail-unchecked`) is always shown.
#[test]
fn repeated_information_is_collapsed_into_the_summary_unless_verbose() {
    let text = "apiVersion: a.example.com/v1\nkind: A\n---\napiVersion: b.example.com/v1\nkind: B\n";
    let at = |needle: &str| {
        let start = text.find(needle).unwrap();
        TextRange::new(start, start + needle.len())
    };
    let no_crd = |needle: &str| Diagnostic::new(at(needle), Severity::Information, "resource/no-crd", format!("no CRD for {needle}"));
    let diagnostics = [no_crd("a.example.com/v1"), no_crd("b.example.com/v1")];
    let files = [FileReport { path: "x.yaml", text, diagnostics: &diagnostics, origins: &[] }];
    let summary = Summary {
        files: 1,
        documents: 2,
        shadowing: vec!["CRD a is defined in 2 places (x, y)".into(), "CRD b is defined in 2 places (x, z)".into()],
        ..Summary::default()
    };
    let render = |verbose: bool| {
        let mut out = Vec::new();
        super::super::render(Format::Human, &files, &summary, &super::super::RenderOptions { color: false, verbose }, &mut out).unwrap();
        String::from_utf8(out).unwrap()
    };
    expect![[r#"
        no problems in 1 file (2 documents, 0 CRDs known)
        note: 2 objects of groups no known CRD serves are not shown one by one (resource/no-crd information); --verbose shows each
        note: 2 CRDs are defined in several places: each object uses a definition that serves its version, the nearest to its file first; --verbose names each
    "#]]
    .assert_eq(&render(false));
    let verbose = render(true);
    assert_eq!(verbose.matches("info[resource/no-crd]").count(), 2, "{verbose}");
    assert!(verbose.contains("note: CRD b is defined in 2 places (x, z)"), "{verbose}");
    // The machine formats keep everything.
    let json = render_files(Format::Json, &files, &summary, false);
    assert_eq!(json.matches("resource/no-crd").count(), 2, "{json}");
    assert!(json.contains("CRD b is defined in 2 places (x, z)"), "{json}");
    // Raised to an error, it is shown.
    let raised = [Diagnostic { severity: Severity::Error, ..diagnostics[0].clone() }];
    let files = [FileReport { path: "x.yaml", text, diagnostics: &raised, origins: &[] }];
    assert!(render_files(Format::Human, &files, &Summary::default(), false).contains("error[resource/no-crd]"));
}

#[test]
fn long_ranges_are_elided_and_stray_control_characters_are_shown() {
    // (A lone CR would end the line, as LSP 3.17 and YAML count lines: ESC stays within it.)
    let text = "items:\n- 1\n- 2\n- 3\n- 4\n- 5\nbell: \u{7}\u{1b}x\n";
    let start = text.find("- 1").unwrap();
    let end = text.find("bell").unwrap();
    let bell = text.find('\u{7}').unwrap();
    let diagnostics = [
        Diagnostic::new(TextRange::new(start, end), Severity::Error, "schema/max-items", "too many items").with_severity(Severity::Hint),
        Diagnostic::new(TextRange::new(bell, bell + 3), Severity::Warning, "yaml/control", "a control character"),
    ];
    let files = [FileReport { path: "list.yaml", text, diagnostics: &diagnostics, origins: &[] }];
    let summary = Summary { files: 1, documents: 1, crds: 0, errors: 0, warnings: 1, ..Summary::default() };
    expect![[r#"
        hint[schema/max-items]: too many items
         --> list.yaml:2:1
          |
        2 | - 1
          | ^^^
        3 | - 2
          | ^^^
        ...
        6 | - 5
          | ^^^

        warning[yaml/control]: a control character
         --> list.yaml:7:7
          |
        7 | bell: ␇␛x
          |       ^^^

        1 warning in 1 file (1 document, 0 CRDs known)
    "#]]
    .assert_eq(&render_files(Format::Human, &files, &summary, false));
}

#[test]
fn escape_sequences_from_the_input_are_shown_not_obeyed() {
    // A key that writes the clipboard when printed raw, in a file whose name clears the screen.
    let key = "x\x1b]52;c;aGk=\x07";
    let text = format!("\"{key}\": 1\n");
    let diagnostics =
        [Diagnostic::new(TextRange::new(0, 3), Severity::Warning, "schema/unknown-field", format!("unknown field \"{key}\""))
            .with_path(format!("spec.{key}"))
            .with_cause(format!("spec: unknown field \"{key}\"\r"))];
    let files = [FileReport { path: "a\x1b[2J.yaml", text: &text, diagnostics: &diagnostics, origins: &[] }];
    let mut summary = Summary { files: 1, documents: 1, crds: 0, errors: 0, warnings: 1, ..Summary::default() };
    summary.coverage.unchecked.insert("evil\x1b[5m.io".into(), 1);
    summary.notes.push("CRD w in \u{9b}2J.yaml shadows the one in b.yaml".into());
    let output = render_files(Format::Human, &files, &summary, false);
    expect![[r#"
        warning[schema/unknown-field]: unknown field "x␛]52;c;aGk=␇"
         --> a␛[2J.yaml:1:1
          |
        1 | "x␛]52;c;aGk=␇": 1
          | ^^^
          = path: spec.x␛]52;c;aGk=␇
          = cause: spec: unknown field "x␛]52;c;aGk=␇"␍

        1 warning in 1 file (1 document, 0 CRDs known)
        not validated, no schema known: 1 object (evil␛[5m.io 1)
          add their CRDs with --crds (or crdPaths in crdls.toml); --fail-unchecked makes this fail
        note: CRD w in �2J.yaml shadows the one in b.yaml
    "#]]
    .assert_eq(&output);
}
