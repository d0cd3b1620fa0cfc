//! The second pass of `crdls check`: each reported file read again and checked with the one
//! `check_file` the language server also runs, with its chart hint, and what reporting it needs.

use std::borrow::Cow;
use std::collections::HashMap;

use crdls_check::CheckOptions;
use crdls_crd::CrdIndex;
use crdls_diagnostics::Diagnostic;
use crdls_workspace::check::{chart_hint, check_file, CheckedFile, FileContext};
use crdls_workspace::roles::Workspace;
use crdls_workspace::{Config, FileRole};
use crdls_yaml::Stream;

use super::coverage::count_coverage;
use super::inputs::{self, display_path, Input};
use super::rendered;
use crate::report::Coverage;

/// One hint per Helm chart whose templates were among the checked files: on its `Chart.yaml` when that
/// was checked too, else on the chart's first template. Keyed by the input that gets it.
pub(super) fn chart_hints(inputs: &[Input], roles: &[FileRole], cwd: &std::path::Path) -> HashMap<usize, Diagnostic> {
    let mut charts: Vec<(&std::path::Path, &str, Vec<usize>)> = Vec::new();
    for (i, role) in roles.iter().enumerate() {
        if let FileRole::HelmTemplate { chart_dir, chart_name } = role {
            match charts.iter_mut().find(|(dir, _, _)| *dir == chart_dir.as_path()) {
                Some((_, _, templates)) => templates.push(i),
                None => charts.push((chart_dir, chart_name, vec![i])),
            }
        }
    }
    let mut hints = HashMap::new();
    for (dir, name, templates) in charts {
        let chart_file = dir.join("Chart.yaml");
        let at = inputs.iter().position(|i| i.report && i.path.as_deref() == Some(chart_file.as_path())).unwrap_or(templates[0]);
        let shown = display_path(dir, cwd);
        let shown = if shown.is_empty() { ".".to_string() } else { shown };
        let hint = chart_hint(name, &shown, Some(templates.len()));
        if inputs[at].report {
            hints.insert(at, hint);
        }
    }
    hints
}

/// What checking one file needs, shared by the threads that check files.
pub(super) struct Checker<'a> {
    pub(super) inputs: &'a [Input],
    pub(super) roles: &'a [FileRole],
    pub(super) index: &'a CrdIndex,
    pub(super) options: &'a CheckOptions,
    pub(super) config: &'a Config,
    /// The Helm chart hints, by the input that gets one.
    pub(super) hints: &'a HashMap<usize, Diagnostic>,
    /// The workspace the roles were decided in: a kustomization's references out of it are said.
    pub(super) workspace: &'a Workspace,
    /// `--verbose`: say which definition each object used of a CRD defined more than once.
    pub(super) verbose: bool,
}

/// One file checked, with what reporting it needs; its parse is dropped.
pub(super) struct Checked<'a> {
    pub(super) text: Cow<'a, str>,
    pub(super) diagnostics: Vec<Diagnostic>,
    pub(super) documents: usize,
    pub(super) coverage: Coverage,
    /// For rendered output (`# Source:` lines), what locating its diagnostics in templates needs.
    pub(super) rendered: Option<rendered::Rendered>,
    /// With `--verbose`, a line per object whose CRD is defined more than once: the definition used.
    pub(super) choices: Vec<String>,
    /// The mutating webhooks that may set missing required fields, each with how many such fields it
    /// turned from errors into warnings (see `crdls_check`'s admission rule), for the summary; with
    /// `--verbose`, a line per object too (in `choices`).
    pub(super) webhooks: Vec<(String, usize)>,
}

impl<'a> Checker<'a> {
    /// Reads input `i` again and checks it with the one `check_file` the language server also runs.
    pub(super) fn check(&self, i: usize) -> Result<Checked<'a>, String> {
        let text = self.read(i)?;
        let checked = self.check_file(i, &text);
        let mut coverage = Coverage::default();
        count_coverage(&checked.check, &checked.mode, &mut coverage);
        let mut choices = if self.verbose { self.choices(i, &text, &checked.stream, &checked.index) } else { Vec::new() };
        let webhooks = self.webhooks(i, &text, &checked, &mut choices);
        Ok(Checked {
            webhooks,
            documents: checked.stream.documents.len(),
            rendered: rendered::Rendered::of(&checked.stream),
            diagnostics: checked.diagnostics,
            coverage,
            text,
            choices,
        })
    }

    /// The index as input `i` sees it: of a CRD defined more than once, its objects use the nearest
    /// definition that serves their version.
    pub(super) fn index_for(&self, i: usize) -> CrdIndex {
        self.index.seen_from(&self.inputs[i].display)
    }

    /// For `--verbose`: which definition each object of input `i` used, where its CRD has several,
    /// and why each other one was not.
    pub(super) fn choices(&self, i: usize, text: &str, stream: &Stream, index: &CrdIndex) -> Vec<String> {
        let mut lines = None;
        let mut out = Vec::new();
        for root in stream.documents.iter().filter_map(|d| d.root.as_ref()) {
            let (Some(api_version), Some(kind)) =
                (root.get("apiVersion").and_then(|n| n.as_str()), root.get("kind").and_then(|n| n.as_str()))
            else {
                continue;
            };
            let definitions = index.definitions(api_version, kind);
            let [used, _, ..] = definitions.as_slice() else { continue };
            if crdls_crd::is_crd(root).is_some() {
                continue;
            }
            let version = crdls_crd::split_api_version(api_version).1;
            let line = lines.get_or_insert_with(|| crdls_yaml::LineIndex::new(text)).line_of(root.range.start) + 1;
            let why = crdls_crd::why_not_used(&definitions, version, |c| c.source.to_string());
            out.push(format!(
                "crdls: {}:{line}: {kind} {api_version} uses CRD {} in {}; {why}",
                self.inputs[i].display, used.crd.crd.name, used.crd.source
            ));
        }
        out
    }

    /// The mutating webhooks that turned missing required fields of input `i` into warnings, with how
    /// many each; with `--verbose`, a line per object in `lines`. A field counts when the pipeline
    /// reported it as a warning and it is still shown (the user's severities may have changed it since).
    fn webhooks(&self, i: usize, text: &str, checked: &CheckedFile, lines: &mut Vec<String>) -> Vec<(String, usize)> {
        let softened: Vec<&Diagnostic> = checked
            .check
            .documents
            .iter()
            .flat_map(|d| &d.diagnostics)
            .filter(|d| d.code == crdls_diagnostics::codes::SCHEMA_REQUIRED && d.severity == crdls_diagnostics::Severity::Warning)
            .filter(|d| checked.diagnostics.iter().any(|shown| shown.code == d.code && shown.range == d.range && shown.path == d.path))
            .collect();
        let mut out: Vec<(String, usize)> = Vec::new();
        if softened.is_empty() {
            return out;
        }
        let mut line_index = None;
        for root in checked.stream.documents.iter().filter_map(|d| d.root.as_ref()) {
            let count = softened.iter().filter(|d| root.range.start <= d.range.start && d.range.end <= root.range.end).count();
            let Some((webhooks, _)) = crdls_check::mutating_webhooks_of(root, &checked.index).filter(|_| count > 0) else { continue };
            let name = format!("{} {}", if webhooks.len() == 1 { "webhook" } else { "webhooks" }, crdls_check::name_webhooks(&webhooks));
            match out.iter_mut().find(|(n, _)| *n == name) {
                Some((_, n)) => *n += count,
                None => out.push((name.clone(), count)),
            }
            if self.verbose {
                let line = line_index.get_or_insert_with(|| crdls_yaml::LineIndex::new(text)).line_of(root.range.start) + 1;
                lines.push(format!(
                    "crdls: {}:{line}: {} may be set by the mutating {name} before validation: reported as {}",
                    self.inputs[i].display,
                    super::notes::plural_count(count, "missing required field"),
                    if count == 1 { "a warning" } else { "warnings" }
                ));
            }
        }
        out
    }

    pub(super) fn read(&self, i: usize) -> Result<Cow<'a, str>, String> {
        self.inputs[i].read().map_err(|unread| match unread {
            inputs::Unread::Skipped(e) | inputs::Unread::Error(e) => e,
        })
    }

    /// Checks the text of input `i` in its role, with its chart hint if it gets one.
    pub(super) fn check_file(&self, i: usize, text: &str) -> CheckedFile {
        let place = self.inputs[i].path.as_deref().map(|path| (path, self.workspace));
        let cx = FileContext { role: &self.roles[i], config: self.config, options: self.options, place };
        check_file(text, &cx, self.hints.get(&i).cloned(), |_, _| self.index_for(i))
    }

    /// The automatic fixes of input `i`, with the text they apply to.
    pub(super) fn fixes(&self, i: usize) -> Result<(Cow<'a, str>, Vec<crdls_ide::Edit>), String> {
        let text = self.read(i)?;
        let checked = self.check_file(i, &text);
        let edits = crdls_ide::automatic_edits(&text, &checked.stream, &checked.index, &checked.diagnostics);
        Ok((text, edits))
    }
}
