//! Reports for `crdls check`: the same diagnostics rendered for people, scripts, GitHub Actions and code scanning.
//!
//! The checker speaks byte offsets; lines and columns are made here, at the edge, once per file. Every format
//! counts lines and columns from 1. Columns count characters (Unicode scalar values), except in SARIF, whose
//! default unit is the UTF-16 code unit. End positions are exclusive: they name the column just past the range.

mod github;
mod human;
mod json;
mod sarif;
pub mod terminal;

use std::collections::BTreeMap;
use std::io;

use crdls_yaml::{ColumnUnit, LineIndex};

use crdls_diagnostics::{Diagnostic, TextRange};

/// An output format of `crdls check` (`--format`, whose values and help these variants are).
#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
pub enum Format {
    /// Source excerpts with carets under each problem, for a terminal.
    Human,
    /// One JSON document whose shape is a stable contract for scripts.
    Json,
    /// GitHub Actions workflow commands, which GitHub turns into annotations.
    Github,
    /// SARIF 2.1.0, for GitHub code scanning and other SARIF viewers.
    Sarif,
}

/// One checked file: its display path (as given on the command line, or "<stdin>"), its text and its
/// diagnostics (sorted by position).
#[derive(Clone, Copy, Debug)]
pub struct FileReport<'a> {
    /// The path shown to the user and written into machine-readable output.
    pub path: &'a str,
    /// The file's text, which the diagnostics' byte ranges point into.
    pub text: &'a str,
    /// What was found in the file, in the order to report it.
    pub diagnostics: &'a [Diagnostic],
    /// For rendered output (`helm template`), where each diagnostic's document came from, in the
    /// diagnostics' order; empty for an ordinary file.
    pub origins: &'a [Option<Origin>],
}

impl FileReport<'_> {
    /// The origin of the `i`th diagnostic, when the file is rendered output.
    fn origin(&self, i: usize) -> Option<&Origin> {
        self.origins.get(i).and_then(Option::as_ref)
    }
}

/// The template a document of rendered output came from (`# Source: chart/templates/x.yaml` from
/// `helm template`), and where in it the diagnostic's field is written, when that could be found.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Origin {
    /// The template's path: relative to the working directory when the file was found, else as the
    /// `# Source:` line gives it.
    pub file: String,
    /// The template's text, when the file was found.
    pub text: Option<std::sync::Arc<str>>,
    /// Where in the template the diagnostic's field is written, when it could be found.
    pub range: Option<TextRange>,
}

impl Origin {
    /// The template's text and the located range, when both are known.
    fn located(&self) -> Option<(&str, TextRange)> {
        Some((self.text.as_deref()?, self.range?))
    }
}

/// Counts over the whole run, for the closing lines of the human report and the JSON `summary`.
#[derive(Default, Clone, Debug, PartialEq, Eq)]
pub struct Summary {
    /// Files whose problems are reported.
    pub files: usize,
    /// YAML documents in those files.
    pub documents: usize,
    /// CRDs known to the run, from the checked files and from `--crds`.
    pub crds: usize,
    /// The sources beyond the files the user named that gave CRDs (a URL, `cluster NAME`, a chart
    /// archive), with how many each gave.
    pub crd_sources: Vec<(String, usize)>,
    /// Diagnostics of severity error.
    pub errors: usize,
    /// Diagnostics of severity warning.
    pub warnings: usize,
    /// What the documents turned out to be, and so how far each was checked.
    pub coverage: Coverage,
    /// Things the user should know about the run itself: nothing found, directories skipped.
    pub notes: Vec<String>,
    /// One note per CRD defined more than once, naming the definition used. A repository of test
    /// scenarios can have hundreds: the human report shows them only with `--verbose` (else one line
    /// counts them); the machine formats list them after the other notes.
    pub shadowing: Vec<String>,
}

impl Summary {
    /// Every note, those on shadowed CRDs last: what the machine formats list.
    pub fn all_notes(&self) -> Vec<String> {
        self.notes.iter().chain(&self.shadowing).cloned().collect()
    }

    /// Documents checked as Kubernetes objects or CRDs, in whole or in part, validated or not: a run
    /// where this is zero checked nothing, whatever it read.
    pub fn checked(&self) -> usize {
        let c = &self.coverage;
        c.validated + c.crds + c.builtin_validated + c.builtin + c.unchecked_total() + c.templates + c.partial
    }
}

/// Why an object was not validated, which decides the advice the summary gives.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub enum Unvalidated {
    /// No known CRD serves its group or declares its kind (`resource/no-crd`, `resource/undeclared-kind`):
    /// adding the CRD helps.
    NoCrd,
    /// Its kind misspells one its group has (`resource/unknown-kind`).
    MisspeltKind,
    /// Its apiVersion is one the target Kubernetes release does not serve (`resource/api-not-served`).
    UnservedApi,
    /// Its apiVersion names a version its CRD does not declare or serve.
    UnknownVersion,
    /// Anything else: a CRD version without a schema, a built-in kind newer than crdls knows, an
    /// apiVersion or kind that a template computes.
    NoSchema,
}

impl Unvalidated {
    /// Why a document was not validated, from the codes of its diagnostics (before any severity
    /// override drops them).
    pub fn from_codes<'a>(codes: impl IntoIterator<Item = &'a str>) -> Unvalidated {
        let mut why = Unvalidated::NoSchema;
        for code in codes {
            let this = match code {
                c if c == crdls_diagnostics::codes::RESOURCE_NO_CRD || c == crdls_diagnostics::codes::RESOURCE_UNDECLARED_KIND => {
                    Unvalidated::NoCrd
                }
                c if c == crdls_diagnostics::codes::RESOURCE_UNKNOWN_KIND => Unvalidated::MisspeltKind,
                c if c == crdls_diagnostics::codes::RESOURCE_API_NOT_SERVED => Unvalidated::UnservedApi,
                c if c == crdls_diagnostics::codes::RESOURCE_UNKNOWN_VERSION
                    || c == crdls_diagnostics::codes::RESOURCE_VERSION_NOT_SERVED =>
                {
                    Unvalidated::UnknownVersion
                }
                _ => continue,
            };
            why = why.min(this);
        }
        why
    }
}

/// How far the documents of a run were checked, so that a clean run that checked nothing does not
/// pass for a clean run.
#[derive(Default, Clone, Debug, PartialEq, Eq)]
pub struct Coverage {
    /// Custom resources validated against their CRD version's schema.
    pub validated: usize,
    /// CRDs validated as the API server validates them on create.
    pub crds: usize,
    /// Objects of built-in kinds validated against the target Kubernetes release's schema.
    pub builtin_validated: usize,
    /// Objects of built-in kinds checked for their kind and ObjectMeta only: lists, subresource
    /// bodies, kinds crdls ships no schema of.
    pub builtin: usize,
    /// Kubernetes objects not validated against any schema, by API group (`""` is the core group):
    /// no known CRD serves them, or their CRD version has no schema.
    pub unchecked: BTreeMap<String, usize>,
    /// The same objects by why they were not validated.
    pub unchecked_why: BTreeMap<Unvalidated, usize>,
    /// Documents of templates (Helm charts, Jinja, FreeMarker), checked only where they are literal YAML.
    pub templates: usize,
    /// Documents of patches, test steps that merge into existing objects, test assertions and expected outputs, checked as partial objects.
    pub partial: usize,
}

impl Coverage {
    /// Adds the counts of `other` (another file's) to these.
    pub fn add(&mut self, other: &Coverage) {
        self.validated += other.validated;
        self.crds += other.crds;
        self.builtin_validated += other.builtin_validated;
        self.builtin += other.builtin;
        for (group, n) in &other.unchecked {
            *self.unchecked.entry(group.clone()).or_default() += n;
        }
        for (why, n) in &other.unchecked_why {
            *self.unchecked_why.entry(*why).or_default() += n;
        }
        self.templates += other.templates;
        self.partial += other.partial;
    }

    /// The number of objects that were not validated.
    pub fn unchecked_total(&self) -> usize {
        self.unchecked.values().sum()
    }
}

/// How to render, beyond the format itself.
#[derive(Default, Clone, Copy, Debug, PartialEq, Eq)]
pub struct RenderOptions {
    /// Whether the human report uses ANSI colours. The other formats ignore it.
    pub color: bool,
    /// Whether the human report lists everything: each object no known CRD serves (`resource/no-crd`
    /// information), each shadowed CRD. Without it those are counted in the summary. The machine
    /// formats always list everything.
    pub verbose: bool,
}

/// Writes the report for `files` to `out` in `format`.
pub fn render(
    format: Format,
    files: &[FileReport<'_>],
    summary: &Summary,
    options: &RenderOptions,
    out: &mut dyn io::Write,
) -> io::Result<()> {
    let mut reporter = Reporter::new(format, *options);
    for file in files {
        reporter.file(file, out)?;
    }
    reporter.finish(summary, out)
}

/// A report written as the run goes: each file's diagnostics as soon as the file is checked (SARIF
/// excepted, which must list its rules first and so writes everything at the end), the summary last.
/// Rendering file by file writes the same bytes as [`render`] with every file at once.
pub struct Reporter {
    options: RenderOptions,
    state: State,
}

enum State {
    /// How many diagnostics the human report left out, to be counted in the summary.
    Human(human::Collapsed),
    Json(json::JsonReport),
    Github,
    Sarif(sarif::SarifReport),
}

impl Reporter {
    /// A report in `format` that has written nothing yet.
    pub fn new(format: Format, options: RenderOptions) -> Reporter {
        let state = match format {
            Format::Human => State::Human(human::Collapsed::default()),
            Format::Json => State::Json(json::JsonReport::default()),
            Format::Github => State::Github,
            Format::Sarif => State::Sarif(sarif::SarifReport::default()),
        };
        Reporter { options, state }
    }

    /// Reports one file, after the files reported before it.
    pub fn file(&mut self, file: &FileReport<'_>, out: &mut dyn io::Write) -> io::Result<()> {
        match &mut self.state {
            State::Human(collapsed) => human::file(file, &self.options, collapsed, out),
            State::Json(report) => report.file(file, out),
            State::Github => github::file(file, out),
            State::Sarif(report) => {
                report.file(file);
                Ok(())
            }
        }
    }

    /// Ends the report with the run's summary.
    pub fn finish(self, summary: &Summary, out: &mut dyn io::Write) -> io::Result<()> {
        match self.state {
            State::Human(collapsed) => human::finish(summary, &self.options, &collapsed, out),
            State::Json(report) => report.finish(summary, out),
            State::Github => github::finish(summary, out),
            State::Sarif(report) => report.finish(summary, out),
        }
    }
}

/// A 1-based line and column; what the column counts depends on the call that made it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Position {
    line: u32,
    column: u32,
}

/// Both ends of `range` as 1-based positions, the column counted in `unit`. A range that runs past the text or
/// backwards is clamped first, so that no diagnostic can make a reporter fail.
fn span(index: &LineIndex, text: &str, range: TextRange, unit: ColumnUnit) -> (Position, Position) {
    let range = clamp(range, text.len());
    let at = |offset| {
        let pos = index.line_col(text, offset, unit);
        Position { line: pos.line + 1, column: pos.col + 1 }
    };
    (at(range.start), at(range.end))
}

/// Where `range` starts, 1-based, the column counted in characters.
fn position(index: &LineIndex, text: &str, range: TextRange) -> Position {
    span(index, text, range, ColumnUnit::Char).0
}

/// `range` made to lie inside a text of `len` bytes, its end never before its start.
fn clamp(range: TextRange, len: usize) -> TextRange {
    let start = range.start.min(len);
    TextRange { start, end: range.end.clamp(start, len) }
}

/// The closing line of a report: `2 errors, 1 warning in 3 files (5 documents, 2 CRDs)`, or `no problems in ...`.
fn summary_line(summary: &Summary) -> String {
    let problems = match (summary.errors, summary.warnings) {
        (0, 0) => "no problems".to_owned(),
        (errors, 0) => counted(errors, "error"),
        (0, warnings) => counted(warnings, "warning"),
        (errors, warnings) => format!("{}, {}", counted(errors, "error"), counted(warnings, "warning")),
    };
    format!(
        "{problems} in {} ({}, {})",
        counted(summary.files, "file"),
        counted(summary.documents, "document"),
        counted(summary.crds, "CRD") + " known"
    )
}

/// The lines after the closing line that say how far the documents were checked: what was validated,
/// and which objects were not, by group. Empty when there was nothing to say.
fn coverage_lines(coverage: &Coverage) -> Vec<String> {
    let mut lines = Vec::new();
    let mut validated = Vec::new();
    if coverage.validated > 0 {
        validated.push(counted(coverage.validated, "custom resource"));
    }
    if coverage.crds > 0 {
        validated.push(counted(coverage.crds, "CRD"));
    }
    if coverage.builtin_validated > 0 {
        validated.push(counted(coverage.builtin_validated, "built-in object"));
    }
    if !validated.is_empty() {
        lines.push(format!("validated: {}", validated.join(", ")));
    }
    if coverage.partial > 0 {
        lines.push(format!(
            "as partial objects: {} of patches, test steps, assertions, expected outputs and docs fragments",
            counted(coverage.partial, "document")
        ));
    }
    if coverage.templates > 0 {
        lines.push(format!(
            "literal YAML only: {} of templates (check what they render; for a chart, `helm template ... | crdls check -`)",
            counted(coverage.templates, "document")
        ));
    }
    if coverage.builtin > 0 {
        lines.push(format!(
            "kind and metadata only: {} (lists, subresource bodies, kinds crdls has no schema of)",
            counted(coverage.builtin, "built-in object")
        ));
    }
    let unchecked = coverage.unchecked_total();
    if unchecked > 0 {
        let mut groups: Vec<(&String, &usize)> = coverage.unchecked.iter().collect();
        groups.sort_by(|a, b| b.1.cmp(a.1).then(a.0.cmp(b.0)));
        let shown: Vec<String> = groups.iter().take(8).map(|(g, n)| format!("{} {n}", group_name(g))).collect();
        let more = if groups.len() > 8 { format!(", and {} more groups", groups.len() - 8) } else { String::new() };
        lines.push(format!("not validated, no schema known: {} ({}{more})", counted(unchecked, "object"), shown.join(", ")));
        lines.extend(advice(coverage));
    }
    lines
}

/// What to do about the objects that were not validated, one line per reason, each with the advice that
/// fits it: only a missing CRD is fixed by adding CRDs.
fn advice(coverage: &Coverage) -> Vec<String> {
    let mut lines = Vec::new();
    // Counts made before reasons were kept (or by hand) have none: the groups decide, as they did.
    if coverage.unchecked_why.is_empty() {
        if coverage.unchecked.keys().any(|g| !crdls_check::is_builtin_group(g)) {
            lines.push("  add their CRDs with --crds (or crdPaths in crdls.toml); --fail-unchecked makes this fail".into());
        }
        return lines;
    }
    let reasons = coverage.unchecked_why.len();
    for (why, n) in &coverage.unchecked_why {
        let what = match why {
            Unvalidated::NoCrd => "no known CRD serves them: add their CRDs with --crds (or crdPaths in crdls.toml); --fail-unchecked makes this fail",
            Unvalidated::MisspeltKind => "their kind is not one their group has: correct it as the resource/unknown-kind errors suggest",
            Unvalidated::UnservedApi => {
                "the Kubernetes release checked against serves no such apiVersion for their kind: use the one the resource/api-not-served diagnostics name (for an older cluster, name its release with --kube-version)"
            }
            Unvalidated::UnknownVersion => {
                "their CRD does not declare or serve their version: use a version it serves, as the resource/unknown-version and resource/version-not-served errors list"
            }
            Unvalidated::NoSchema => {
                "no schema to validate them against (a CRD version without one, a built-in kind newer than crdls knows, or an apiVersion or kind a template computes)"
            }
        };
        if reasons == 1 {
            lines.push(format!("  {what}"));
        } else {
            lines.push(format!("  {n}: {what}"));
        }
    }
    lines
}

/// A group as the summary names it.
fn group_name(group: &str) -> &str {
    if group.is_empty() {
        "core"
    } else {
        group
    }
}

/// `1 file`, `2 files`, `0 files`.
fn counted(n: usize, noun: &str) -> String {
    if n == 1 {
        format!("1 {noun}")
    } else {
        format!("{n} {noun}s")
    }
}

/// The fixture every format's tests render: CRLF line endings, CJK, an emoji and a tab, diagnostics with and
/// without a field path and a cause, a range over several lines and an empty range at the end of the file.
#[cfg(test)]
mod fixture {
    use crdls_diagnostics::{Diagnostic, Severity, TextRange};

    use super::{render, FileReport, Format, RenderOptions, Summary};

    pub(super) const TEXT: &str = concat!(
        "apiVersion: demo.crdls.dev/v1\r\n",
        "kind: Widget\r\n",
        "metadata:\r\n",
        "  name: w\r\n",
        "  labels:\r\n",
        "    team: 日本語チーム\r\n",
        "spec:\r\n",
        "  size: 11\r\n",
        "  owner: \"😀\tteam\"\r\n",
        "  ports:\r\n",
        "  - name: http\r\n",
        "    port: 80\r\n",
        "  - name: http\r\n",
        "    port: 8080\r\n",
    );

    /// The range of the first `needle` in `TEXT` that comes after `after`.
    pub(super) fn find(after: &str, needle: &str) -> TextRange {
        let from = TEXT.find(after).expect("`after` is in the fixture");
        let start = from + TEXT[from..].find(needle).expect("`needle` is in the fixture");
        TextRange::new(start, start + needle.len())
    }

    pub(super) fn diagnostics() -> Vec<Diagnostic> {
        let ports = find("ports:", "- name").start;
        let ports_end = find("port: 8080", "8080").end;
        vec![
            Diagnostic::new(
                find("apiVersion", "demo.crdls.dev/v1"),
                Severity::Warning,
                "resource/deprecated-version",
                "demo.crdls.dev/v1 Widget is deprecated; use demo.crdls.dev/v2 Widget",
            )
            .with_severity(Severity::Information),
            Diagnostic::new(find("team:", "日本語チーム"), Severity::Error, "metadata/label-value", "invalid label value")
                .with_path("metadata.labels.team")
                .with_cause("metadata.labels: Invalid value: \"日本語チーム\": a valid label must be an empty string or consist of alphanumeric characters, '-', '_' or '.'"),
            Diagnostic::new(find("size", "11"), Severity::Error, "schema/maximum", "must be less than or equal to 10")
                .with_path("spec.size")
                .with_cause("spec.size: Invalid value: 11: spec.size in body should be less than or equal to 10"),
            Diagnostic::new(find("owner", "team"), Severity::Error, "schema/pattern", "should match '^[a-z]+$'")
                .with_severity(Severity::Warning)
                .with_path("spec.owner"),
            Diagnostic::new(TextRange::new(ports, ports_end), Severity::Error, "schema/list-map-duplicate", "duplicate entries for key [name=\"http\"]")
                .with_path("spec.ports[1]")
                .with_cause("spec.ports[1]: Duplicate value: map[string]interface {}{\"name\":\"http\"}"),
            Diagnostic::new(TextRange::empty(TEXT.len()), Severity::Error, "yaml/syntax", "unexpected end of the stream"),
        ]
    }

    pub(super) fn summary() -> Summary {
        Summary { files: 2, documents: 3, crds: 1, errors: 4, warnings: 1, ..Summary::default() }
    }

    /// Renders the fixture, followed by a clean file, as `format` would print it.
    pub(super) fn render_fixture(format: Format, color: bool) -> String {
        let diagnostics = diagnostics();
        let files = [
            FileReport { path: "deploy/my widget.yaml", text: TEXT, diagnostics: &diagnostics, origins: &[] },
            FileReport { path: "clean.yaml", text: "kind: Widget\n", diagnostics: &[], origins: &[] },
        ];
        render_files(format, &files, &summary(), color)
    }

    /// Renders `files` into a string.
    pub(super) fn render_files(format: Format, files: &[FileReport<'_>], summary: &Summary, color: bool) -> String {
        let mut out = Vec::new();
        render(format, files, summary, &RenderOptions { color, verbose: false }, &mut out).expect("writing to a Vec does not fail");
        String::from_utf8(out).expect("reports are UTF-8")
    }
}

#[cfg(test)]
mod tests;
