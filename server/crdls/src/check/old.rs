//! `crdls check --old`: the objects' old versions, to check an update as the API server does.

use crdls_workspace::files;

use super::inputs::{collect_files, Input};

/// The old objects from `--old` sources: files and directories, or each checked file at a git revision.
pub(super) fn old_objects(sources: &[String], inputs: &[Input], cwd: &std::path::Path) -> Result<crdls_check::OldObjects, String> {
    let mut old = crdls_check::OldObjects::new();
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
