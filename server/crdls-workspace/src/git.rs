//! Old versions of files from git (`git show REV:./file`), for checking an edit as the update it
//! will be: transition rules (`oldSelf`) run and unchanged invalid values are ratcheted.

use std::path::Path;
use std::process::Command;

/// The text of `path` at revision `rev`; `None` when the file did not exist there; an error when git
/// cannot be run, the directory is not in a repository, or git rejects the revision.
pub fn show(path: &Path, rev: &str) -> Result<Option<String>, String> {
    let dir = path.parent().filter(|d| !d.as_os_str().is_empty()).unwrap_or(Path::new("."));
    let name = path.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_default();
    let output = Command::new("git")
        .arg("-C")
        .arg(dir)
        .args(["show", &format!("{rev}:./{name}")])
        .output()
        .map_err(|e| format!("cannot run git: {e}"))?;
    if output.status.success() {
        return Ok(Some(String::from_utf8_lossy(&output.stdout).into_owned()));
    }
    let stderr = String::from_utf8_lossy(&output.stderr);
    if stderr.contains("exists on disk, but not in") || stderr.contains("does not exist in") {
        return Ok(None);
    }
    Err(stderr.trim().to_string())
}
