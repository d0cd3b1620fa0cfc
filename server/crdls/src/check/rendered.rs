//! Rendered charts: `helm template` writes `# Source: <chart>/templates/<file>` at the top of every
//! document. A diagnostic in such a document is reported against that template, so that a CI
//! annotation lands on a file of the repository, on the line that writes the field when the field can
//! be found in the template (read with its actions masked).

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use crdls_diagnostics::{Diagnostic, TextRange};
use crdls_yaml::template::mask_go_template;
use crdls_yaml::{Entry, Node, Stream, Value};

use super::inputs::display_path;
use crate::report::Origin;

/// How deep below the working directory charts are looked for, by the name their `Chart.yaml` gives.
const CHART_SEARCH_DEPTH: usize = 5;

/// The `# Source:` path of each document of `stream` (`None` where a document has none).
pub(crate) fn sources(stream: &Stream) -> Vec<Option<String>> {
    stream
        .documents
        .iter()
        .map(|doc| {
            let end = doc.root.as_ref().map_or(doc.range.end, |r| r.range.start).min(stream.text.len());
            let head = stream.text.get(doc.range.start..end).unwrap_or_default();
            head.lines().find_map(|line| line.trim().strip_prefix("# Source:").map(|s| s.trim().to_string())).filter(|s| !s.is_empty())
        })
        .collect()
}

/// What locating diagnostics in templates needs of a file of rendered output, kept once its parse is
/// dropped: where each document starts, its `# Source:` and its kind.
pub(crate) struct Rendered {
    documents: Vec<RenderedDocument>,
}

struct RenderedDocument {
    start: usize,
    source: Option<String>,
    kind: Option<String>,
}

impl Rendered {
    /// The documents of `stream`, or `None` when it has no `# Source:` line (it is not rendered output).
    pub(crate) fn of(stream: &Stream) -> Option<Rendered> {
        let sources = sources(stream);
        if sources.iter().all(Option::is_none) {
            return None;
        }
        let documents = stream
            .documents
            .iter()
            .zip(sources)
            .map(|(doc, source)| RenderedDocument {
                start: doc.range.start,
                source,
                kind: doc.root.as_ref().and_then(|r| r.get_str("kind")).map(str::to_string),
            })
            .collect();
        Some(Rendered { documents })
    }
}

/// Finds templates on disk and fields in them, reading each chart and template once.
pub(crate) struct Locator {
    cwd: PathBuf,
    /// Chart directories by the name their `Chart.yaml` gives, found on first need.
    charts: Option<HashMap<String, PathBuf>>,
    /// Templates read, with their masked parse.
    templates: HashMap<PathBuf, Option<(Arc<str>, Stream)>>,
}

impl Locator {
    pub(crate) fn new(cwd: &Path) -> Locator {
        Locator { cwd: cwd.to_path_buf(), charts: None, templates: HashMap::new() }
    }

    /// The origin of every diagnostic of a file of rendered output, in order; empty when the file has
    /// no `# Source:` lines.
    pub(crate) fn origins(&mut self, rendered: Option<&Rendered>, diagnostics: &[Diagnostic]) -> Vec<Option<Origin>> {
        let Some(rendered) = rendered else { return Vec::new() };
        diagnostics
            .iter()
            .map(|d| {
                let doc = rendered.documents.iter().rposition(|doc| doc.start <= d.range.start)?;
                let doc = &rendered.documents[doc];
                let source = doc.source.as_deref()?;
                Some(self.origin(source, doc.kind.as_deref(), d.path.as_deref()))
            })
            .collect()
    }

    fn origin(&mut self, source: &str, kind: Option<&str>, path: Option<&str>) -> Origin {
        let Some(file) = self.find(source) else { return Origin { file: source.to_string(), text: None, range: None } };
        let shown = display_path(&file, &self.cwd);
        let Some((text, stream)) = self.template(&file) else { return Origin { file: shown, text: None, range: None } };
        let range = path.and_then(|path| locate(&stream, kind, path));
        Origin { file: shown, text: Some(text), range }
    }

    /// The file a `# Source:` path names: below the working directory as written, or below the chart
    /// directory whose `Chart.yaml` has the path's first segment as its name. Rendered output is the
    /// repository's text like any other: a path that leads out of the working directory (`../..`, an
    /// absolute path, a symbolic link) names no file, since its lines would be printed with the
    /// diagnostic (a kubeconfig's token, on the line a crafted field path points at).
    fn find(&mut self, source: &str) -> Option<PathBuf> {
        let inside = |file: &Path| file.is_file() && crdls_workspace::files::stays_inside(&self.cwd, file).unwrap_or(false);
        let direct = self.cwd.join(source);
        if inside(&direct) {
            return Some(direct);
        }
        let (chart, rest) = source.split_once('/')?;
        let charts = self.charts.get_or_insert_with(|| charts_below(&self.cwd));
        let file = charts.get(chart)?.join(rest);
        inside(&file).then_some(file)
    }

    fn template(&mut self, file: &Path) -> Option<(Arc<str>, Stream)> {
        self.templates
            .entry(file.to_path_buf())
            .or_insert_with(|| {
                let text: Arc<str> = Arc::from(crdls_workspace::files::read_inside(&self.cwd, file).ok()?);
                let stream = crdls_yaml::parse(&mask_go_template(&text).text);
                Some((text, stream))
            })
            .clone()
    }
}

/// Where a field path is written in a template: in the document of the same kind (or the first), as
/// deep as the path leads, at the key that writes the field; `None` when not even the path's first
/// step is there. Where a template writes a key twice (`{{ if }}` and `{{ else }}` branches), the
/// first is taken.
fn locate(stream: &Stream, kind: Option<&str>, path: &str) -> Option<TextRange> {
    let roots: Vec<Node> = stream.documents.iter().filter_map(|d| d.root.as_ref()).map(first_keys_only).collect();
    let of_kind = roots.iter().filter(|r| kind.is_some() && r.get_str("kind") == kind);
    for root in of_kind.chain(roots.iter()) {
        let followed = crdls_yaml::follow(root, path);
        if followed.segments.is_empty() {
            continue;
        }
        return Some(followed.entry.map_or(followed.node().range, |e| e.key_range));
    }
    None
}

/// A copy of `node` in which every map keeps only the first entry of each key.
fn first_keys_only(node: &Node) -> Node {
    let value = match &node.value {
        Value::Map(entries) => {
            let mut kept: Vec<Entry> = Vec::with_capacity(entries.len());
            for e in entries {
                if !kept.iter().any(|k| k.key == e.key) {
                    kept.push(Entry { key: e.key.clone(), key_range: e.key_range, value: first_keys_only(&e.value) });
                }
            }
            Value::Map(kept)
        }
        Value::Seq(items) => Value::Seq(items.iter().map(first_keys_only).collect()),
        other => other.clone(),
    };
    Node { range: node.range, value, style: node.style }
}

/// Every chart directory below `root`, by its `Chart.yaml` name (hidden directories, `node_modules`
/// and `target` skipped).
fn charts_below(root: &Path) -> HashMap<String, PathBuf> {
    fn walk(root: &Path, dir: &Path, depth: usize, out: &mut HashMap<String, PathBuf>) {
        if let Ok(text) = crdls_workspace::files::read_inside(root, &dir.join("Chart.yaml")) {
            let stream = crdls_yaml::parse(&text);
            if let Some(name) = stream.documents.first().and_then(|d| d.root.as_ref()).and_then(|r| r.get_str("name")) {
                out.entry(name.to_string()).or_insert_with(|| dir.to_path_buf());
            }
        }
        if depth == 0 {
            return;
        }
        let Ok(entries) = std::fs::read_dir(dir) else { return };
        let mut dirs: Vec<PathBuf> = entries
            .flatten()
            .filter(|e| e.file_type().is_ok_and(|t| t.is_dir()))
            .filter(|e| !e.file_name().to_string_lossy().starts_with('.') && e.file_name() != "node_modules" && e.file_name() != "target")
            .map(|e| e.path())
            .collect();
        dirs.sort();
        for sub in dirs {
            walk(root, &sub, depth - 1, out);
        }
    }
    let mut out = HashMap::new();
    walk(root, root, CHART_SEARCH_DEPTH, &mut out);
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sources_are_read_per_document() {
        let text = "---\n# Source: web/templates/a.yaml\napiVersion: v1\nkind: ConfigMap\n---\n# Source: web/templates/b.yaml\n# another comment\nkind: Secret\n---\nkind: Plain\n";
        let stream = crdls_yaml::parse(text);
        assert_eq!(sources(&stream), [Some("web/templates/a.yaml".to_string()), Some("web/templates/b.yaml".to_string()), None]);
    }

    #[test]
    fn fields_are_located_in_the_template_of_the_same_kind() {
        let template = "apiVersion: v1\nkind: Service\nmetadata:\n  name: {{ .Release.Name }}\n---\napiVersion: demo/v1\nkind: Widget\nspec:\n  {{- if .Values.x }}\n  size: {{ .Values.size }}\n  {{- end }}\n";
        let stream = crdls_yaml::parse(&mask_go_template(template).text);
        let at = |kind, path| locate(&stream, Some(kind), path).map(|r| template[..r.start].matches('\n').count() + 1);
        assert_eq!(at("Widget", "spec.size"), Some(10));
        // A field the template does not write is located at the deepest step it does.
        assert_eq!(at("Widget", "spec.owner"), Some(8));
        assert_eq!(at("Service", "metadata.name"), Some(4));
    }
}
