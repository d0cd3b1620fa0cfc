//! Tests of `report`.

use super::*;

#[test]
fn summary_lines_count_in_words() {
    let mut summary = Summary { files: 3, documents: 5, crds: 2, errors: 2, warnings: 1, ..Summary::default() };
    assert_eq!(summary_line(&summary), "2 errors, 1 warning in 3 files (5 documents, 2 CRDs known)");
    summary.warnings = 0;
    assert_eq!(summary_line(&summary), "2 errors in 3 files (5 documents, 2 CRDs known)");
    summary = Summary { files: 1, documents: 1, crds: 1, errors: 0, warnings: 2, ..Summary::default() };
    assert_eq!(summary_line(&summary), "2 warnings in 1 file (1 document, 1 CRD known)");
    summary.warnings = 0;
    assert_eq!(summary_line(&summary), "no problems in 1 file (1 document, 1 CRD known)");
}

#[test]
fn coverage_lines_say_what_was_and_was_not_validated() {
    assert!(coverage_lines(&Coverage::default()).is_empty());
    let coverage = Coverage {
        validated: 3,
        crds: 1,
        builtin_validated: 4,
        builtin: 2,
        unchecked: BTreeMap::from([("argoproj.io".to_string(), 2), (String::new(), 1), ("example.com".to_string(), 2)]),
        ..Coverage::default()
    };
    assert_eq!(
        coverage_lines(&coverage),
        [
            "validated: 3 custom resources, 1 CRD, 4 built-in objects",
            "kind and metadata only: 2 built-in objects (lists, subresource bodies, kinds crdls has no schema of)",
            "not validated, no schema known: 5 objects (argoproj.io 2, example.com 2, core 1)",
            "  add their CRDs with --crds (or crdPaths in crdls.toml); --fail-unchecked makes this fail",
        ]
    );
}

#[test]
fn advice_fits_why_objects_were_not_validated() {
    let coverage = Coverage {
        unchecked: BTreeMap::from([("apps".to_string(), 2), ("example.com".to_string(), 1)]),
        unchecked_why: BTreeMap::from([(Unvalidated::UnservedApi, 1), (Unvalidated::MisspeltKind, 1), (Unvalidated::NoCrd, 1)]),
        ..Coverage::default()
    };
    let lines = coverage_lines(&coverage);
    assert_eq!(lines[0], "not validated, no schema known: 3 objects (apps 2, example.com 1)");
    assert!(lines[1].starts_with("  1: no known CRD serves them: add their CRDs with --crds"), "{lines:?}");
    assert!(lines[2].starts_with("  1: their kind is not one their group has"), "{lines:?}");
    assert!(lines[3].starts_with("  1: the Kubernetes release checked against serves no such apiVersion"), "{lines:?}");
    assert_eq!(lines.len(), 4);
    // Built-in objects of an unserved version alone get no advice about CRDs.
    let coverage = Coverage {
        unchecked: BTreeMap::from([("extensions".to_string(), 1)]),
        unchecked_why: BTreeMap::from([(Unvalidated::UnservedApi, 1)]),
        ..Coverage::default()
    };
    let lines = coverage_lines(&coverage);
    assert!(!lines.iter().any(|l| l.contains("--crds")), "{lines:?}");
    assert_eq!(Unvalidated::from_codes(["schema/type", "resource/api-not-served"]), Unvalidated::UnservedApi);
    assert_eq!(Unvalidated::from_codes(["resource/unknown-kind"]), Unvalidated::MisspeltKind);
    assert_eq!(Unvalidated::from_codes([]), Unvalidated::NoSchema);
}

#[test]
fn spans_are_one_based_and_clamped() {
    let text = "a: é😀x\r\n";
    let index = LineIndex::new(text);
    let x = text.find('x').unwrap();
    let range = TextRange::new(x, x + 1);
    let char_span = span(&index, text, range, ColumnUnit::Char);
    assert_eq!(char_span, (Position { line: 1, column: 6 }, Position { line: 1, column: 7 }));
    let utf16_span = span(&index, text, range, ColumnUnit::Utf16);
    assert_eq!(utf16_span, (Position { line: 1, column: 7 }, Position { line: 1, column: 8 }));
    // A range past the end, or backwards, still yields positions inside the text.
    let wild = TextRange { start: 100, end: 3 };
    assert_eq!(span(&index, text, wild, ColumnUnit::Char), (Position { line: 2, column: 1 }, Position { line: 2, column: 1 }));
}
