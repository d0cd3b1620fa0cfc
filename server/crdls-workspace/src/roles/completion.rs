//! What a kustomization's own strategic-merge patches add to the resources it names: kustomize merges
//! them before anything reaches the API server, so a field a resource file leaves out and a patch of
//! the same kustomization writes into that object (by kind and name) is not missing. A base completed
//! by its own patch (`resources: [cluster.yaml]`, `patches: [{path: identity-ref.yaml}]`) is common
//! where one patch file serves several kustomizations.

use std::path::Path;

use crdls_diagnostics::{codes, Diagnostic};
use crdls_yaml::{Node, Stream, Value};

/// The fields one patch document writes into the objects it targets.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PatchedFields {
    /// The kind of the objects it lands on.
    pub kind: String,
    /// Their name; `None` for any (a `target` without one).
    pub name: Option<String>,
    /// The field paths it writes, as the API server's field paths print them (`spec.identityRef`):
    /// every mapping key below the root, not into lists.
    pub paths: Vec<String>,
}

/// How deep a patch's fields are followed.
const MAX_DEPTH: usize = 32;

/// The fields the strategic-merge patches of one `patches` (or `patchesStrategicMerge`) entry write: its
/// file's documents (or its inline `patch` text), each landing on the objects of its own kind and name,
/// or on those the entry's `target` selects.
/// The file is read only when it stays inside `bound` (see `Roles::bound`).
pub(super) fn patched_fields(entry: &Node, dir: &Path, bound: &Path) -> Vec<PatchedFields> {
    let text = match (entry.get_str("patch"), entry.get_str("path").or_else(|| entry.as_str())) {
        (Some(inline), _) => inline.to_string(),
        (None, Some(path)) if super::within_root(path) || path.starts_with("../") => {
            match crate::files::read_inside(bound, &crate::files::normalize(&dir.join(path))) {
                Ok(text) => text,
                Err(_) => return Vec::new(),
            }
        }
        _ => return Vec::new(),
    };
    let target = entry.get("target");
    let mut out = Vec::new();
    for root in crdls_yaml::parse(&text).documents.iter().filter_map(|d| d.root.as_ref()) {
        // A list of JSON 6902 operations is not an object.
        if root.as_map().is_none() {
            continue;
        }
        let kind = target.and_then(|t| t.get_str("kind")).or_else(|| root.get_str("kind"));
        let name = match target {
            Some(t) => t.get_str("name"),
            None => root.get("metadata").and_then(|m| m.get_str("name")),
        };
        let Some(kind) = kind else { continue };
        let mut paths = Vec::new();
        if let Some(spec) = root.get("spec") {
            written(spec, "spec", 0, &mut paths);
        }
        if !paths.is_empty() {
            out.push(PatchedFields { kind: kind.to_string(), name: name.map(str::to_string), paths });
        }
    }
    out
}

/// The paths of the mapping keys at and below `node`, which lies at `path`.
fn written(node: &Node, path: &str, depth: usize, out: &mut Vec<String>) {
    let Value::Map(entries) = &node.value else { return };
    if depth > MAX_DEPTH {
        return;
    }
    for entry in entries {
        // A key with a dot or a bracket is printed otherwise in a field path; such keys are not followed.
        if entry.key.contains(['.', '[', ']']) || entry.key.starts_with('$') {
            continue;
        }
        let below = format!("{path}.{}", entry.key);
        written(&entry.value, &below, depth + 1, out);
        out.push(below);
    }
}

/// Drops the diagnostics about a field a document leaves out when a patch of its kustomization writes
/// that field into the document's object: a required field, or anything else about completeness.
pub(super) fn drop_completed(stream: &Stream, patched: &[PatchedFields], diagnostics: &mut Vec<Diagnostic>) {
    if patched.is_empty() {
        return;
    }
    diagnostics.retain(|d| {
        let Some(path) = d.path.as_deref() else { return true };
        if !codes::lookup(d.code).is_some_and(|c| c.completeness) {
            return true;
        }
        let Some(root) = stream.documents.iter().find(|doc| doc.range.start <= d.range.start && d.range.end <= doc.range.end) else {
            return true;
        };
        let Some(root) = root.root.as_ref() else { return true };
        let (kind, name) = (root.get_str("kind"), root.get("metadata").and_then(|m| m.get_str("name")));
        let completes = |p: &PatchedFields| {
            Some(p.kind.as_str()) == kind && p.name.as_deref().is_none_or(|n| Some(n) == name) && p.paths.iter().any(|w| w == path)
        };
        // Kept unless a patch writes it and the document itself does not.
        !patched.iter().any(completes) || crdls_yaml::follow(root, path).complete()
    });
}

#[cfg(test)]
mod tests {
    use super::*;
    use crdls_diagnostics::{Severity, TextRange};

    #[test]
    fn a_patch_completes_the_fields_it_writes_into_its_own_kind_and_name() {
        let patch = crdls_yaml::parse("path: x\n").documents[0].root.clone().unwrap();
        let inline = "patch: |\n  kind: ControlPlane\n  metadata:\n    name: cp\n  spec:\n    identityRef:\n      name: id\n";
        let entry = crdls_yaml::parse(inline).documents[0].root.clone().unwrap();
        let fields = patched_fields(&entry, Path::new("."), Path::new("."));
        assert_eq!(
            fields,
            [PatchedFields {
                kind: "ControlPlane".into(),
                name: Some("cp".into()),
                paths: vec!["spec.identityRef.name".into(), "spec.identityRef".into()]
            }]
        );
        assert!(patched_fields(&patch, Path::new("/nonexistent"), Path::new("/nonexistent")).is_empty());

        let text = "kind: ControlPlane\nmetadata:\n  name: cp\nspec:\n  location: here\n---\nkind: ControlPlane\nmetadata:\n  name: other\nspec: {}\n";
        let stream = crdls_yaml::parse(text);
        let required = |at: &str, path: &str| {
            let start = text.find(at).unwrap();
            let mut d = Diagnostic::new(TextRange::new(start, start + 4), Severity::Error, codes::SCHEMA_REQUIRED, "missing");
            d.path = Some(path.into());
            d
        };
        let mut diagnostics = vec![
            required("spec:\n  location", "spec.identityRef"),
            required("spec: {}", "spec.identityRef"),
            required("spec:\n  location", "spec.location2"),
        ];
        drop_completed(&stream, &fields, &mut diagnostics);
        // Only the object the patch lands on, and only the field it writes.
        let left: Vec<(usize, &str)> = diagnostics.iter().map(|d| (d.range.start, d.path.as_deref().unwrap())).collect();
        assert_eq!(
            left,
            [(text.find("spec: {}").unwrap(), "spec.identityRef"), (text.find("spec:\n  location").unwrap(), "spec.location2")]
        );
    }
}
