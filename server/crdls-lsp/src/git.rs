//! Old versions of open files from git, so the editor checks an edit as the update it will be:
//! transition rules (`oldSelf`) run and unchanged invalid values are ratcheted. Lookups are cached for
//! a few seconds (a check runs on every keystroke); files outside a repository or not in the revision
//! have no old version.

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

/// How long a lookup is reused.
const FRESH: Duration = Duration::from_secs(5);

/// A file and a revision.
type Key = (PathBuf, String);
/// When a lookup was made, and what it found.
type Lookup = (Instant, Option<Arc<str>>);

/// Cached `git show REV:file` results.
#[derive(Default)]
pub struct GitOld {
    cache: Mutex<HashMap<Key, Lookup>>,
}

impl GitOld {
    /// The text of `path` at revision `rev`, when git has one.
    pub fn text(&self, path: &Path, rev: &str) -> Option<Arc<str>> {
        let key = (path.to_path_buf(), rev.to_string());
        if let Some((at, text)) = self.cache.lock().unwrap_or_else(|e| e.into_inner()).get(&key) {
            if at.elapsed() < FRESH {
                return text.clone();
            }
        }
        let text = show(path, rev).map(Arc::from);
        self.cache.lock().unwrap_or_else(|e| e.into_inner()).insert(key, (Instant::now(), text.clone()));
        text
    }

    /// Forgets every lookup (after a save, or a change of settings or of watched files): the revision or
    /// what it holds may have moved.
    pub fn clear(&self) {
        self.cache.lock().unwrap_or_else(|e| e.into_inner()).clear();
    }
}

fn show(path: &Path, rev: &str) -> Option<String> {
    crdls_workspace::git::show(path, rev).ok().flatten()
}
