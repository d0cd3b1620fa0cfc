//! One file checked, the one way both front ends check it (`crdls check` per file, the language
//! server per buffer): the file's role decides how it is parsed, the index it is checked against is
//! built from what the parse found, `crdls_check` runs its pipeline, the run's hint joins, and the
//! user's severities apply last, to every diagnostic the hint included. ruff's `generate_diagnostics`
//! serves its CLI and its server the same way, so the order of these steps cannot drift apart.

use crdls_check::{check_stream_as, CheckOptions, FileCheck, FileMode};
use crdls_crd::CrdIndex;
use crdls_diagnostics::{codes, Diagnostic, Severity, TextRange};
use crdls_yaml::Stream;

use crate::config::Config;
use crate::roles::{helm_template_hint, refused_references, FileRole, Workspace};

/// What checking a file needs besides its text and its index.
pub struct FileContext<'a> {
    /// What the file is (a chart template, a patch, a test assertion), which decides how it is read.
    pub role: &'a FileRole,
    /// The settings: their severities apply to every diagnostic.
    pub config: &'a Config,
    /// The pipeline's options (the settings' own, with what the front end adds: old objects, a
    /// subresource).
    pub options: &'a CheckOptions,
    /// Where the file lies and in which workspace, when it is a file on disk: a kustomization's
    /// references that lead out of the workspace are said on it ([`refused_references`]).
    pub place: Option<(&'a std::path::Path, &'a Workspace)>,
}

/// One file checked: its parse, what the pipeline found, and the diagnostics to show.
pub struct CheckedFile {
    /// The documents as parsed in the file's role.
    pub stream: Stream,
    /// How they were read.
    pub mode: FileMode,
    /// The index they were checked against.
    pub index: CrdIndex,
    /// What the pipeline found, per document.
    pub check: FileCheck,
    /// The diagnostics to show, the hint first, with the user's severities applied.
    pub diagnostics: Vec<Diagnostic>,
}

/// Checks `text` in its role: parses it, builds the index from the parse (`index`: the editor adds a
/// buffer's own CRDs), runs the pipeline, drops what the role knows the API server never sees
/// ([`FileRole::filter`]), puts `hint` first, then applies the user's severities to all.
pub fn check_file(
    text: &str,
    cx: &FileContext<'_>,
    hint: Option<Diagnostic>,
    index: impl FnOnce(&Stream, &FileMode) -> CrdIndex,
) -> CheckedFile {
    let (stream, mode) = cx.role.parse(text);
    let index = index(&stream, &mode);
    let check = check_stream_as(&stream, &index, cx.options, &mode);
    let mut diagnostics = check.diagnostics();
    cx.role.filter(&stream, &mut diagnostics);
    soften_where_another_definition_accepts(&stream, &index, cx, &mode, &mut diagnostics);
    if let Some((path, workspace)) = cx.place {
        diagnostics.extend(refused_references(path, &stream, workspace));
    }
    diagnostics.splice(0..0, hint);
    // Last, so the user's overrides hold for every diagnostic, the hint included.
    cx.config.apply_severity(&mut diagnostics);
    CheckedFile { stream, mode, index, check, diagnostics }
}

/// How many other definitions of a CRD an object with errors is checked against.
const MAX_ALTERNATIVES: usize = 4;

/// Where the workspace defines an object's CRD in several places that all serve its version, the
/// nearest one is used. When that one is test material (a file below a test directory: an old release's
/// CRD kept for an upgrade test, a scenario's variant) and the object breaks its rules, but a definition
/// outside test material (as near or farther, the same kind of source, not a packaging or pre-patch copy)
/// accepts it whole, which definition a cluster has installed decides, and the workspace cannot tell. The
/// object's errors become warnings that name the definition that accepts it.
fn soften_where_another_definition_accepts(
    stream: &Stream,
    index: &CrdIndex,
    cx: &FileContext<'_>,
    mode: &FileMode,
    diagnostics: &mut [Diagnostic],
) {
    use crdls_crd::PassedOver;
    for document in &stream.documents {
        let inside = |d: &Diagnostic| document.range.start <= d.range.start && d.range.end <= document.range.end;
        if !diagnostics.iter().any(|d| d.severity == Severity::Error && inside(d)) {
            continue;
        }
        let Some(root) = document.root.as_ref() else { continue };
        let (Some(api_version), Some(kind)) = (root.get_str("apiVersion"), root.get_str("kind")) else { continue };
        if crdls_crd::is_crd(root).is_some() {
            continue;
        }
        let definitions = index.definitions(api_version, kind);
        let Some((chosen, others)) = definitions.split_first() else { continue };
        if chosen.version != crdls_crd::VersionFit::Served || !in_test_material(&chosen.crd.source) {
            continue;
        }
        let equal = |d: &&crdls_crd::Definition<'_>| {
            matches!(d.passed_over, Some(PassedOver::Farther | PassedOver::Order)) && !in_test_material(&d.crd.source)
        };
        let one = Stream { documents: vec![document.clone()], text: stream.text.clone() };
        let mut hidden = vec![chosen.crd.source.clone()];
        for other in others.iter().filter(equal).take(MAX_ALTERNATIVES) {
            let mut alternative = index.clone();
            for source in &hidden {
                alternative.remove_source(source);
            }
            let accepted =
                !check_stream_as(&one, &alternative, cx.options, mode).diagnostics().iter().any(|d| d.severity == Severity::Error);
            if accepted {
                let note = format!(
                    "; {} also defines CRD {} and accepts this object, so which definition the cluster has decides",
                    other.crd.source, other.crd.crd.name
                );
                for d in diagnostics.iter_mut().filter(|d| d.severity == Severity::Error && inside(d)) {
                    d.severity = Severity::Warning;
                    d.message.push_str(&note);
                }
                break;
            }
            hidden.push(other.crd.source.clone());
        }
    }
}

/// Whether a source (a path) lies below a test directory ([`crate::roles::TEST_DIRS`], or Go's `testdata`).
fn in_test_material(source: &str) -> bool {
    std::path::Path::new(source).components().any(|c| {
        let std::path::Component::Normal(name) = c else { return false };
        crate::roles::TEST_DIRS.iter().any(|t| name == *t) || name == crate::files::TESTDATA_DIR
    })
}

/// The hint a chart's template gets (see [`helm_template_hint`]): `chart_dir` as users see it, and
/// `templates`, for the command line's one hint per chart, how many of the chart's templates it checked.
pub fn chart_hint(chart_name: &str, chart_dir: &str, templates: Option<usize>) -> Diagnostic {
    Diagnostic::new(TextRange::empty(0), Severity::Hint, codes::HELM_TEMPLATES, helm_template_hint(chart_name, chart_dir, templates))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_users_severities_hold_for_the_hint_too() {
        let mut config = Config::default();
        config.merge_workspace_toml("[severity]\n\"helm/templates\" = \"off\"\n").unwrap();
        let role = FileRole::HelmTemplate { chart_dir: "chart".into(), chart_name: "app".into() };
        let options = config.check_options();
        let cx = FileContext { role: &role, config: &config, options: &options, place: None };
        let text = "apiVersion: demo.crdls.dev/v1\nkind: Widget\nmetadata:\n  name: {{ .Release.Name }}\n";
        let checked = check_file(text, &cx, Some(chart_hint("app", "chart", None)), |_, _| CrdIndex::new());
        let codes: Vec<&str> = checked.diagnostics.iter().map(|d| d.code).collect();
        assert!(!codes.contains(&codes::HELM_TEMPLATES), "{codes:?}");
        let without = Config::default();
        let cx = FileContext { role: &role, config: &without, options: &options, place: None };
        let checked = check_file(text, &cx, Some(chart_hint("app", "chart", None)), |_, _| CrdIndex::new());
        assert_eq!(checked.diagnostics.first().map(|d| d.code), Some(codes::HELM_TEMPLATES));
    }
}
