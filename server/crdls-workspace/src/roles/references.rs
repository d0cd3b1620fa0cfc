//! The files a kustomization names that crdls reads to decide roles (its patches, transformer and
//! generator configurations) and that lead out of the workspace: a warning on the path, since crdls does
//! not read them (see `Roles::bound`) and what they hold (a patch's fields, whether it is a list of
//! operations) is then unknown to it. Kustomize itself refuses such files unless told otherwise.

use std::path::Path;

use crdls_diagnostics::{codes, Diagnostic, Severity};
use crdls_yaml::{Node, Stream};

use super::{Workspace, KUSTOMIZATION_FILES};
use crate::files::normalize;

/// The warnings of the kustomization at `path` (parsed as `stream`) on the files it names that lead out of
/// the workspace root that holds it (its own directory, when no root does), through `..`, an absolute
/// path or a symbolic link, or into `.git`. Another file, or a path that names nothing, gets none.
pub fn refused_references(path: &Path, stream: &Stream, workspace: &Workspace) -> Vec<Diagnostic> {
    let named = path.file_name().and_then(|n| n.to_str()).is_some_and(|n| KUSTOMIZATION_FILES.contains(&n));
    let Some(dir) = path.parent().filter(|_| named) else { return Vec::new() };
    let bound = workspace.root_of(dir).unwrap_or(dir);
    let mut out = Vec::new();
    for root in stream.documents.iter().filter_map(|d| d.root.as_ref()) {
        for node in read_references(root) {
            let Some(value) = node.as_str() else { continue };
            let file = normalize(&dir.join(value));
            if crate::files::stays_inside(bound, &file).is_ok_and(|inside| !inside) {
                let message = format!(
                    "crdls does not read {value}: it leads outside the workspace (through `..`, an absolute path or a symbolic link), \
                     so what it holds is not known here; check from a folder that holds it"
                );
                out.push(Diagnostic::new(node.range, Severity::Warning, codes::SOURCE_OUTSIDE_WORKSPACE, message));
            }
        }
    }
    out
}

/// The path nodes of the files a kustomization names that crdls reads: `patches` (`path`, or a bare
/// path), `patchesStrategicMerge` paths, `patchesJson6902` paths, and the YAML files of `transformers`
/// and `generators`.
fn read_references(root: &Node) -> Vec<&Node> {
    let seq = |key: &str| root.get(key).and_then(Node::as_seq).unwrap_or_default();
    let bare = |entry: &'_ Node| entry.as_str().is_some_and(|p| !p.contains('\n') && !p.contains(": "));
    let yaml = |entry: &'_ Node| entry.as_str().is_some_and(|p| [".yaml", ".yml"].iter().any(|e| p.ends_with(e)) && !p.contains("://"));
    let mut out = Vec::new();
    for entry in seq("patches") {
        match entry.get("path") {
            Some(path) => out.push(path),
            None if bare(entry) => out.push(entry),
            None => {}
        }
    }
    out.extend(seq("patchesStrategicMerge").iter().filter(|e| bare(e)));
    out.extend(seq("patchesJson6902").iter().filter_map(|e| e.get("path")));
    out.extend(seq("transformers").iter().chain(seq("generators").iter()).filter(|e| yaml(e)));
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Each spelling of a reference that leads out gets a warning on its path; one inside, a missing
    /// file, or a file that is not a kustomization gets none.
    #[cfg(unix)]
    #[test]
    fn a_kustomizations_references_out_of_the_workspace_are_said() {
        let top = std::env::temp_dir().join(format!("crdls-refused-references-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&top);
        let repo = top.join("repo");
        std::fs::create_dir_all(repo.join("overlay")).unwrap();
        for file in ["outside.yaml", "repo/overlay/in.yaml", "repo/shared.yaml"] {
            std::fs::write(top.join(file), "a: 1\n").unwrap();
        }
        std::os::unix::fs::symlink(top.join("outside.yaml"), repo.join("overlay/link.yaml")).unwrap();
        let text = format!(
            "patches:\n- path: ../../outside.yaml\n- link.yaml\n- path: in.yaml\n- path: ../shared.yaml\n- path: missing.yaml\n\
             patchesStrategicMerge:\n- {}\npatchesJson6902:\n- path: link.yaml\ntransformers:\n- link.yaml\ngenerators:\n- in.yaml\n",
            top.join("outside.yaml").display()
        );
        let stream = crdls_yaml::parse(&text);
        let workspace = Workspace::new([repo.clone()], Path::new("/"), false);
        let warnings = refused_references(&repo.join("overlay/kustomization.yaml"), &stream, &workspace);
        let flagged: Vec<&str> = warnings.iter().map(|d| &text[d.range.start..d.range.end]).collect();
        let absolute = top.join("outside.yaml").display().to_string();
        assert_eq!(flagged, ["../../outside.yaml", "link.yaml", absolute.as_str(), "link.yaml", "link.yaml"]);
        assert!(warnings.iter().all(|d| d.code == codes::SOURCE_OUTSIDE_WORKSPACE && d.severity == Severity::Warning));
        assert_eq!(
            warnings[0].message,
            "crdls does not read ../../outside.yaml: it leads outside the workspace (through `..`, an absolute path or a symbolic link), \
             so what it holds is not known here; check from a folder that holds it"
        );
        assert!(refused_references(&repo.join("overlay/other.yaml"), &stream, &workspace).is_empty());
        std::fs::remove_dir_all(&top).unwrap();
    }
}
