//! Temporary directories for the targets that read files (archives, kubeconfigs, cache entries, glob
//! trees): one per run, unique in the process, removed when the run ends, whatever it returned.

use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};

/// A directory of its own for one run, removed on drop.
pub struct Scratch {
    dir: PathBuf,
}

impl Scratch {
    /// A fresh, empty directory below the system's temporary directory, named after `target`.
    pub fn new(target: &str) -> Result<Scratch, String> {
        static NEXT: AtomicU64 = AtomicU64::new(0);
        let n = NEXT.fetch_add(1, Ordering::Relaxed);
        let dir = std::env::temp_dir().join(format!("crdls-fuzz-{target}-{}-{n}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).map_err(|e| format!("cannot make the scratch directory {}: {e}", dir.display()))?;
        Ok(Scratch { dir })
    }

    /// The directory.
    pub fn path(&self) -> &Path {
        &self.dir
    }

    /// Writes `bytes` to `name` in the directory; returns its path.
    pub fn write(&self, name: &str, bytes: &[u8]) -> Result<PathBuf, String> {
        let path = self.dir.join(name);
        std::fs::write(&path, bytes).map_err(|e| format!("cannot write the scratch file {}: {e}", path.display()))?;
        Ok(path)
    }
}

impl Drop for Scratch {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.dir);
    }
}
