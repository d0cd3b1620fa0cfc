//! The session's workspace folder on disk: created per session under the temporary directory, written and
//! removed by the script, and read back to render definitions in files that are not open.

use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicUsize, Ordering};

use super::Session;

impl Session {
    /// Writes a file into the workspace folder (the server is not told; see `watched_files_changed`).
    pub fn write_file(&mut self, path: &str, text: &str) {
        write_workspace_file(&self.workspace, path, text);
        self.record(format!("(disk) wrote {path}"));
    }

    /// Removes a file from the workspace folder (the server is not told; see `watched_files_changed`).
    pub fn remove_file(&mut self, path: &str) {
        let file = self.workspace.join(path);
        std::fs::remove_file(&file).unwrap_or_else(|e| panic!("cannot remove {}: {e}", file.display()));
        self.record(format!("(disk) removed {path}"));
    }

    /// The text of a workspace file on disk, by its URI (for a definition in a file that is not open).
    pub(super) fn read_workspace_uri(&self, uri: &str) -> Option<String> {
        let relative = uri.strip_prefix(&self.workspace_uri)?.strip_prefix('/')?;
        std::fs::read_to_string(self.workspace.join(relative)).ok()
    }
}

/// A fresh workspace folder under the temporary directory, filled with `files`; and its URI.
pub(super) fn create_workspace(options: &super::SessionOptions) -> (PathBuf, String) {
    let (files, binary_files, fifos) = (&options.files, &options.binary_files, &options.fifos);
    static COUNTER: AtomicUsize = AtomicUsize::new(0);
    let name = format!("crdls-lsp-{}-{}", std::process::id(), COUNTER.fetch_add(1, Ordering::Relaxed));
    let dir = std::env::temp_dir().join(name);
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap_or_else(|e| panic!("cannot create {}: {e}", dir.display()));
    for (path, text) in files {
        write_workspace_file(&dir, path, text);
    }
    for (path, bytes) in binary_files {
        let file = dir.join(path);
        if let Some(parent) = file.parent() {
            std::fs::create_dir_all(parent).unwrap_or_else(|e| panic!("cannot create {}: {e}", parent.display()));
        }
        std::fs::write(&file, bytes).unwrap_or_else(|e| panic!("cannot write {}: {e}", file.display()));
    }
    for path in fifos {
        let file = dir.join(path);
        let made = std::process::Command::new("mkfifo").arg(&file).status();
        assert!(made.is_ok_and(|s| s.success()), "mkfifo {} failed", file.display());
    }
    for (path, target) in &options.links {
        let link = dir.join(path);
        #[cfg(unix)]
        std::os::unix::fs::symlink(target, &link).unwrap_or_else(|e| panic!("cannot link {}: {e}", link.display()));
        #[cfg(not(unix))]
        panic!("symbolic links in test workspaces need Unix: {} -> {}", link.display(), target.display());
    }
    let shown = dir.display().to_string();
    assert!(
        shown.starts_with('/') && shown.chars().all(|c| c.is_ascii_alphanumeric() || "/-_.".contains(c)),
        "the temporary directory {shown} needs percent-encoding in a URI, which the harness does not do"
    );
    (dir, format!("file://{shown}"))
}

fn write_workspace_file(root: &Path, path: &str, text: &str) {
    let file = root.join(path);
    if let Some(parent) = file.parent() {
        std::fs::create_dir_all(parent).unwrap_or_else(|e| panic!("cannot create {}: {e}", parent.display()));
    }
    std::fs::write(&file, text).unwrap_or_else(|e| panic!("cannot write {}: {e}", file.display()));
}
