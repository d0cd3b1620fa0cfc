//! Go templates outside a chart's `templates/`: a chart's templates read other files of the chart with
//! `.Files.Get` and render them with `tpl` (`files/runtimes.yaml`), projects keep fragments that a
//! script copies into a chart, and tools render templates of their own (clusterloader, krew). Such a
//! file is no YAML as it stands: its actions stand where YAML reads a node, as whole lines (`{{- if
//! .Values.on }}`, `{{- end }}`), keys, or values (`annotations: {{ toYaml . | nindent 4 }}`), which
//! YAML reads as a flow mapping with a mapping for a key, an error. Whatever its role, such a file is
//! read as a template: its actions masked, only its literal YAML checked ([`FileMode::Template`]). Below
//! a directory with `Chart.yaml` it is a template of that chart ([`FileRole::HelmTemplate`]), with the
//! chart's hint.
//!
//! A file whose YAML is broken where no action stands (an action inside a quoted value, `"{{ .Name
//! }}"`, breaks nothing) keeps its syntax error: the API server would read it as written.

use std::path::Path;

use crdls_check::FileMode;
use crdls_diagnostics::codes;
use crdls_yaml::template::{has_actions, mask_go_template};
use crdls_yaml::Stream;

use super::{FileRole, Roles};

/// How many directories above a file a chart's `Chart.yaml` may be for the file to be the chart's
/// (`chart/files/runtimes/x.yaml` is two levels below).
const CHART_DEPTH: usize = 6;
/// The directories of a chart whose files Helm applies as they are, never rendered: `crds/`; and
/// `charts/`, where dependencies keep their own `Chart.yaml`.
const UNRENDERED_DIRS: &[&str] = &["crds", "charts"];

/// Whether `text`, parsed as `stream`, is a template rather than YAML: its YAML as written is broken,
/// and one of its actions stands where YAML reads a node.
pub(super) fn stands_as_template(text: &str, stream: &Stream) -> bool {
    is_broken(stream) && has_structural_action(text)
}

/// Whether a parsed text is no YAML as it stands: a syntax error, or a collection for a key.
pub(super) fn is_broken(stream: &Stream) -> bool {
    stream.documents.iter().flat_map(|d| &d.diagnostics).any(|d| d.code == codes::YAML_SYNTAX || d.code == codes::YAML_COMPLEX_KEY)
}

/// Whether an action of `text` stands where YAML reads a node: alone at the start of its line (after
/// the indentation and any list markers, `- {{ . }}`), or as a value after a key and a blank (`key: {{
/// . }}`). Inside a quoted or plain scalar (`"{{ .Name }}"`, `repo:{{ .Tag }}`) an action is text.
pub(super) fn has_structural_action(text: &str) -> bool {
    if !has_actions(text) {
        return false;
    }
    let masked = mask_go_template(text);
    masked.actions.iter().any(|action| {
        let line_start = text[..action.start].rfind('\n').map_or(0, |i| i + 1);
        let before = &text[line_start..action.start];
        if !before.ends_with([' ', '\t']) && !before.is_empty() {
            return false;
        }
        let before = before.trim_end();
        let markers = before.trim_start().trim_start_matches(['-', ' ']);
        markers.is_empty() || (before.ends_with(':') && !before.contains(['"', '\'']))
    })
}

/// What `role`'s reading made of `text`, or a template's reading when the text stands as one.
pub(super) fn or_template(text: &str, (stream, mode): (Stream, FileMode)) -> (Stream, FileMode) {
    if !matches!(mode, FileMode::Template { .. }) && stands_as_template(text, &stream) {
        return super::template(text);
    }
    (stream, mode)
}

impl Roles {
    /// The chart a file belongs to when it lies below a directory with `Chart.yaml` (outside the chart's
    /// `templates/`, decided before, and outside the directories Helm does not render) and its text
    /// stands as a template: a file the chart's templates render with `tpl`.
    pub(super) fn chart_fragment(&mut self, path: &Path, dir: &Path) -> Option<FileRole> {
        for ancestor in dir.ancestors().take(CHART_DEPTH) {
            let Some(name) = self.facts(ancestor).chart.clone() else { continue };
            let below = path.strip_prefix(ancestor).ok()?;
            let first = below.components().next()?.as_os_str().to_str();
            if below.components().count() < 2 || first.is_some_and(|f| UNRENDERED_DIRS.contains(&f)) {
                return None;
            }
            let text = crate::files::read_text(path).ok()?;
            if !has_structural_action(&text) || !stands_as_template(&text, &crdls_yaml::parse(&text)) {
                return None;
            }
            return Some(FileRole::HelmTemplate { chart_dir: ancestor.to_path_buf(), chart_name: name });
        }
        None
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn actions_standing_as_lines_keys_or_values_are_structural() {
        assert!(has_structural_action("{{- if .Values.on }}\nkind: A\n{{- end }}\n"));
        assert!(has_structural_action("metadata:\n  annotations: {{ toYaml . | nindent 4 }}\n"));
        assert!(has_structural_action("spec:\n  resources:\n    {{- toYaml . | nindent 6 }}\n"));
        assert!(has_structural_action("args:\n  - {{ .Values.arg }}\n"));
        // Inside a scalar, an action is text.
        assert!(!has_structural_action("metadata:\n  name: \"{{ .Release.Name }}\"\n"));
        assert!(!has_structural_action("image: repo:{{ .Values.tag }}\n"));
        assert!(!has_structural_action("name: prefix-{{ .Name }}\n"));
        assert!(!has_structural_action("kind: A\n"));
    }

    #[test]
    fn only_broken_yaml_with_structural_actions_stands_as_template() {
        let template = "apiVersion: v1\nkind: Service\nmetadata:\n  name: s\n  {{- with .Values.annotations }}\n  annotations: {{ toYaml . | nindent 4 }}\n  {{- end }}\n";
        assert!(stands_as_template(template, &crdls_yaml::parse(template)));
        // A real YAML error beside an action inside a value is the file's own.
        let broken = "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: \"{{ .Name }}\"\ndata:\n  a: b\n   c: d\n";
        assert!(!stands_as_template(broken, &crdls_yaml::parse(broken)));
        // Valid YAML whose block scalar holds template lines is YAML.
        let block = "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: t\ndata:\n  t: |\n    {{ range .Alerts }}x{{ end }}\n";
        assert!(!stands_as_template(block, &crdls_yaml::parse(block)));
    }
}
