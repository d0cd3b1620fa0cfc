//! `crdls check --old`: the objects' old versions, to check an update as the API server does.

use std::borrow::Cow;

use crdls_crd::SourceKind;
use crdls_workspace::files;

use super::inputs::{collect_files, Input};

/// The CRDs named `names` that the cluster sources serve, as old objects. A listing is a stream of
/// JSON documents crdls wrote (see `crdls_sources::cluster`), which can hold hundreds of MiB: only the
/// documents that name one of `names` are parsed.
pub(super) fn served_crds(inputs: &[Input], names: &[String]) -> crdls_check::OldObjects {
    let mut served = crdls_check::OldObjects::new();
    if names.is_empty() {
        return served;
    }
    let wanted: Vec<String> = names.iter().map(|n| format!("\"name\": {}", serde_json::Value::from(n.as_str()))).collect();
    for input in inputs.iter().filter(|i| i.kind == SourceKind::Cluster) {
        let text = match (&input.text, &input.path) {
            (Some(text), _) => Cow::Borrowed(text.as_str()),
            (None, Some(path)) => match crdls_sources::cache::read_entry(path) {
                Ok(text) => Cow::Owned(text),
                Err(_) => continue,
            },
            (None, None) => continue,
        };
        for document in text.split("\n---\n").filter(|d| wanted.iter().any(|w| d.contains(w.as_str()))) {
            served.add_stream(&crdls_yaml::parse(document));
        }
    }
    served
}

/// The old objects: `served` (the cluster's CRDs), then those of each `--old` source, which take the
/// place of a served one of the same name.
pub(super) fn old_objects(
    served: crdls_check::OldObjects,
    sources: &[String],
    inputs: &[Input],
    cwd: &std::path::Path,
) -> Result<crdls_check::OldObjects, String> {
    let mut old = served;
    for source in sources {
        if let Some(rev) = source.strip_prefix("git:") {
            crdls_workspace::git::check_revision(rev).map_err(|e| format!("--old git:{rev}: {e}"))?;
            for input in inputs.iter().filter(|i| i.report) {
                let Some(path) = &input.path else { continue };
                if let Some(text) = crdls_workspace::git::show(path, rev).map_err(|e| format!("--old git:{rev}: {e}"))? {
                    old.add_stream(&crdls_yaml::parse(&text));
                }
            }
            continue;
        }
        let path = cwd.join(source);
        let files = collect_files(&path).map_err(|e| format!("--old {source}: {e}"))?;
        for file in files {
            let text = files::read_text(&file).map_err(|e| format!("--old {}: {e}", file.display()))?;
            old.add_stream(&crdls_yaml::parse(&text));
        }
    }
    Ok(old)
}
