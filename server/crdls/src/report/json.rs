//! The JSON report, a stable contract for scripts: every diagnostic with its file and 1-based range, then the
//! run's counts. Keys keep the order of the structs below; absent paths and causes are `null`, never missing.

use std::io;

use crdls_yaml::{ColumnUnit, LineIndex};
use serde::Serialize;

use super::{span, FileReport, Position, Summary};

#[derive(Serialize)]
struct JsonDiagnostic<'a> {
    file: &'a str,
    range: JsonRange,
    severity: &'static str,
    code: &'static str,
    message: &'a str,
    path: Option<&'a str>,
    cause: Option<&'a str>,
    /// For rendered output (`helm template`), the template the document came from, and where in it the
    /// field is written when that was found; `null` otherwise.
    template: Option<JsonTemplate<'a>>,
    /// For a change from a CRD's previous version (`crd-change/...`), what changed; `null` otherwise.
    change: Option<JsonChange<'a>>,
}

/// A change record (`docs/src/report.schema.json`, `$defs/change`).
#[derive(Serialize)]
struct JsonChange<'a> {
    /// The CRD version, `null` for a change of the whole CRD.
    version: Option<&'a str>,
    /// The value before and after, as JSON values; `null` where there was or is none.
    old: serde_json::Value,
    new: serde_json::Value,
    /// The objects the change breaks (`crd-change/breaks-objects`), else empty.
    objects: Vec<JsonBrokenObject<'a>>,
}

#[derive(Serialize)]
struct JsonBrokenObject<'a> {
    file: &'a str,
    line: u32,
    name: &'a str,
    error: &'a str,
}

/// A change record as a JSON value, for the SARIF report's result properties.
pub(super) fn change_value(change: &crdls_diagnostics::Change) -> serde_json::Value {
    serde_json::to_value(JsonChange::new(change)).unwrap_or_default()
}

impl<'a> JsonChange<'a> {
    fn new(change: &'a crdls_diagnostics::Change) -> JsonChange<'a> {
        // The values are JSON text; one that does not parse (none should) is given as a string.
        let value = |text: &Option<String>| match text {
            None => serde_json::Value::Null,
            Some(text) => serde_json::from_str(text).unwrap_or_else(|_| serde_json::Value::String(text.clone())),
        };
        JsonChange {
            version: Some(change.version.as_str()).filter(|v| !v.is_empty()),
            old: value(&change.old),
            new: value(&change.new),
            objects: change
                .objects
                .iter()
                .map(|o| JsonBrokenObject { file: &o.file, line: o.line, name: &o.name, error: &o.error })
                .collect(),
        }
    }
}

#[derive(Serialize)]
struct JsonTemplate<'a> {
    file: &'a str,
    range: Option<JsonRange>,
}

#[derive(Serialize)]
struct JsonRange {
    start: JsonPosition,
    end: JsonPosition,
}

/// A 1-based line and column, the column counted in characters.
#[derive(Serialize)]
struct JsonPosition {
    line: u32,
    column: u32,
}

impl From<Position> for JsonPosition {
    fn from(pos: Position) -> JsonPosition {
        JsonPosition { line: pos.line, column: pos.column }
    }
}

#[derive(Serialize)]
struct JsonCrdSource<'a> {
    source: &'a str,
    crds: usize,
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct JsonSummary<'a> {
    files: usize,
    documents: usize,
    crds: usize,
    /// The chart archives, URLs and clusters that gave CRDs, with how many each gave (left out when none).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    crd_sources: Vec<JsonCrdSource<'a>>,
    errors: usize,
    warnings: usize,
    /// Custom resources validated against their CRD schema.
    validated: usize,
    /// CRD documents validated.
    crd_documents: usize,
    /// Built-in objects validated against the target Kubernetes release's schema.
    builtin_validated: usize,
    /// Built-in objects checked for kind and metadata only.
    builtin: usize,
    /// Objects not validated against any schema, in all.
    unchecked: usize,
    /// The same, by API group (`""` is the core group).
    unchecked_by_group: &'a std::collections::BTreeMap<String, usize>,
    /// Documents of templates (Helm charts, Jinja, FreeMarker), checked only where literal.
    templates: usize,
    /// Documents of patches, test steps that merge into existing objects, test assertions and expected outputs, checked as partial objects.
    partial: usize,
    /// Notes about the run itself, shadowed CRDs included.
    notes: Vec<String>,
}

/// The report written as it goes: the opening and each file's diagnostics as they come, the summary
/// at the end. The bytes are those of the whole report pretty-printed at once (`{"diagnostics": [...],
/// "summary": {...}}`): each diagnostic is pretty-printed on its own and indented to its depth, which
/// is safe because JSON text holds no raw line break inside a string.
#[derive(Default)]
pub(super) struct JsonReport {
    /// Whether the opening has been written.
    opened: bool,
    /// Whether a diagnostic has been written.
    any: bool,
}

impl JsonReport {
    fn open(&mut self, out: &mut dyn io::Write) -> io::Result<()> {
        if !self.opened {
            self.opened = true;
            out.write_all(b"{\n  \"diagnostics\": [")?;
        }
        Ok(())
    }

    /// Writes the diagnostics of one file.
    pub(super) fn file(&mut self, file: &FileReport<'_>, out: &mut dyn io::Write) -> io::Result<()> {
        self.open(out)?;
        if file.diagnostics.is_empty() {
            return Ok(());
        }
        let index = LineIndex::new(file.text);
        for (i, diagnostic) in file.diagnostics.iter().enumerate() {
            let (start, end) = span(&index, file.text, diagnostic.range, ColumnUnit::Char);
            let template = file.origin(i).map(|origin| JsonTemplate {
                file: &origin.file,
                range: origin.located().map(|(text, range)| {
                    let (s, e) = span(&LineIndex::new(text), text, range, ColumnUnit::Char);
                    JsonRange { start: s.into(), end: e.into() }
                }),
            });
            let diagnostic = JsonDiagnostic {
                file: file.path,
                range: JsonRange { start: start.into(), end: end.into() },
                severity: diagnostic.severity.as_str(),
                code: diagnostic.code,
                message: &diagnostic.message,
                path: diagnostic.path.as_deref(),
                cause: diagnostic.cause.as_deref(),
                template,
                change: diagnostic.change.as_deref().map(JsonChange::new),
            };
            out.write_all(if self.any { b",\n    " } else { b"\n    " })?;
            self.any = true;
            out.write_all(indented(&diagnostic, "    ")?.as_bytes())?;
        }
        Ok(())
    }

    /// Closes the list of diagnostics and writes the summary.
    pub(super) fn finish(mut self, summary: &Summary, out: &mut dyn io::Write) -> io::Result<()> {
        self.open(out)?;
        out.write_all(if self.any { b"\n  ]" } else { b"]" })?;
        let coverage = &summary.coverage;
        let summary = JsonSummary {
            files: summary.files,
            documents: summary.documents,
            crds: summary.crds,
            crd_sources: summary.crd_sources.iter().map(|(source, crds)| JsonCrdSource { source, crds: *crds }).collect(),
            errors: summary.errors,
            warnings: summary.warnings,
            validated: coverage.validated,
            crd_documents: coverage.crds,
            builtin_validated: coverage.builtin_validated,
            builtin: coverage.builtin,
            unchecked: coverage.unchecked_total(),
            unchecked_by_group: &coverage.unchecked,
            templates: coverage.templates,
            partial: coverage.partial,
            notes: summary.all_notes(),
        };
        write!(out, ",\n  \"summary\": {}\n}}\n", indented(&summary, "  ")?)
    }
}

/// `value` pretty-printed as it would be at a depth whose lines start with `indent`: its first line
/// is not indented, since it follows a key or the separator.
fn indented(value: &impl Serialize, indent: &str) -> io::Result<String> {
    let text = serde_json::to_string_pretty(value)?;
    Ok(text.replace('\n', &format!("\n{indent}")))
}

#[cfg(test)]
mod tests {
    use expect_test::expect;

    use super::super::fixture::{render_files, render_fixture};
    use super::super::{FileReport, Format, Summary};

    #[test]
    fn fixture() {
        let output = render_fixture(Format::Json, false);
        expect![[r#"
            {
              "diagnostics": [
                {
                  "file": "deploy/my widget.yaml",
                  "range": {
                    "start": {
                      "line": 1,
                      "column": 13
                    },
                    "end": {
                      "line": 1,
                      "column": 30
                    }
                  },
                  "severity": "info",
                  "code": "resource/deprecated-version",
                  "message": "demo.crdls.dev/v1 Widget is deprecated; use demo.crdls.dev/v2 Widget",
                  "path": null,
                  "cause": null,
                  "template": null,
                  "change": null
                },
                {
                  "file": "deploy/my widget.yaml",
                  "range": {
                    "start": {
                      "line": 6,
                      "column": 11
                    },
                    "end": {
                      "line": 6,
                      "column": 17
                    }
                  },
                  "severity": "error",
                  "code": "metadata/label-value",
                  "message": "invalid label value",
                  "path": "metadata.labels.team",
                  "cause": "metadata.labels: Invalid value: \"日本語チーム\": a valid label must be an empty string or consist of alphanumeric characters, '-', '_' or '.'",
                  "template": null,
                  "change": null
                },
                {
                  "file": "deploy/my widget.yaml",
                  "range": {
                    "start": {
                      "line": 8,
                      "column": 9
                    },
                    "end": {
                      "line": 8,
                      "column": 11
                    }
                  },
                  "severity": "error",
                  "code": "schema/maximum",
                  "message": "must be less than or equal to 10",
                  "path": "spec.size",
                  "cause": "spec.size: Invalid value: 11: spec.size in body should be less than or equal to 10",
                  "template": null,
                  "change": null
                },
                {
                  "file": "deploy/my widget.yaml",
                  "range": {
                    "start": {
                      "line": 9,
                      "column": 13
                    },
                    "end": {
                      "line": 9,
                      "column": 17
                    }
                  },
                  "severity": "warning",
                  "code": "schema/pattern",
                  "message": "should match '^[a-z]+$'",
                  "path": "spec.owner",
                  "cause": null,
                  "template": null,
                  "change": null
                },
                {
                  "file": "deploy/my widget.yaml",
                  "range": {
                    "start": {
                      "line": 11,
                      "column": 3
                    },
                    "end": {
                      "line": 14,
                      "column": 15
                    }
                  },
                  "severity": "error",
                  "code": "schema/list-map-duplicate",
                  "message": "duplicate entries for key [name=\"http\"]",
                  "path": "spec.ports[1]",
                  "cause": "spec.ports[1]: Duplicate value: map[string]interface {}{\"name\":\"http\"}",
                  "template": null,
                  "change": null
                },
                {
                  "file": "deploy/my widget.yaml",
                  "range": {
                    "start": {
                      "line": 15,
                      "column": 1
                    },
                    "end": {
                      "line": 15,
                      "column": 1
                    }
                  },
                  "severity": "error",
                  "code": "yaml/syntax",
                  "message": "unexpected end of the stream",
                  "path": null,
                  "cause": null,
                  "template": null,
                  "change": null
                }
              ],
              "summary": {
                "files": 2,
                "documents": 3,
                "crds": 1,
                "errors": 4,
                "warnings": 1,
                "validated": 0,
                "crdDocuments": 0,
                "builtinValidated": 0,
                "builtin": 0,
                "unchecked": 0,
                "uncheckedByGroup": {},
                "templates": 0,
                "partial": 0,
                "notes": []
              }
            }
        "#]]
        .assert_eq(&output);
        let value: serde_json::Value = serde_json::from_str(&output).expect("the report is JSON");
        assert_eq!(value["diagnostics"].as_array().map(Vec::len), Some(6));
    }

    #[test]
    fn a_clean_run_has_an_empty_list() {
        let files = [FileReport { path: "a.yaml", text: "a: 1\n", diagnostics: &[], origins: &[] }];
        let summary = Summary { files: 1, documents: 1, crds: 0, errors: 0, warnings: 0, ..Summary::default() };
        expect![[r#"
            {
              "diagnostics": [],
              "summary": {
                "files": 1,
                "documents": 1,
                "crds": 0,
                "errors": 0,
                "warnings": 0,
                "validated": 0,
                "crdDocuments": 0,
                "builtinValidated": 0,
                "builtin": 0,
                "unchecked": 0,
                "uncheckedByGroup": {},
                "templates": 0,
                "partial": 0,
                "notes": []
              }
            }
        "#]]
        .assert_eq(&render_files(Format::Json, &files, &summary, false));
    }
}
