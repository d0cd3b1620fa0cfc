//! The cache of fetched sources: `$CRDLS_CACHE_DIR`, else `$XDG_CACHE_HOME/crdls`, else
//! `~/.cache/crdls`. Each source is one file named after a hash of its address plus a readable
//! name, written atomically, so a reader never sees half a download and an editor can open it.

use std::path::{Path, PathBuf};
use std::time::UNIX_EPOCH;

/// A cache directory.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Cache {
    dir: PathBuf,
}

impl Cache {
    /// The cache at `dir`.
    pub fn at(dir: impl Into<PathBuf>) -> Cache {
        Cache { dir: dir.into() }
    }

    /// The cache the environment names, if it names one (a relative directory is taken from the
    /// working directory, so the files' URIs are absolute).
    pub fn from_env() -> Option<Cache> {
        let var =
            |name: &str| std::env::var_os(name).filter(|v| !v.is_empty()).map(PathBuf::from).and_then(|p| std::path::absolute(p).ok());
        if let Some(dir) = var("CRDLS_CACHE_DIR") {
            return Some(Cache::at(dir));
        }
        if let Some(dir) = var("XDG_CACHE_HOME") {
            return Some(Cache::at(dir.join("crdls")));
        }
        var("HOME").or_else(|| var("USERPROFILE")).map(|home| Cache::at(home.join(".cache").join("crdls")))
    }

    /// The directory.
    pub fn dir(&self) -> &Path {
        &self.dir
    }

    /// The file for `key` (a URL, a cluster's address) in the section `section`: a hash of the key
    /// keeps names unique, the readable tail makes them recognisable.
    pub fn entry(&self, section: &str, key: &str, readable: &str) -> PathBuf {
        let hash = &crate::sha256_hex(key.as_bytes())[..16];
        let readable: String =
            readable.chars().map(|c| if c.is_ascii_alphanumeric() || matches!(c, '.' | '-' | '_') { c } else { '_' }).take(80).collect();
        let readable = readable.trim_matches('_');
        let name = if readable.is_empty() { format!("{hash}.yaml") } else { format!("{hash}-{readable}") };
        let name = if name.ends_with(".yaml") || name.ends_with(".yml") || name.ends_with(".json") { name } else { format!("{name}.yaml") };
        self.dir.join(section).join(name)
    }

    /// Writes `bytes` to `path` through a temporary file and a rename, creating the directories.
    pub fn write(&self, path: &Path, bytes: &[u8]) -> std::io::Result<()> {
        let dir = path.parent().unwrap_or(&self.dir);
        std::fs::create_dir_all(dir)?;
        let name = path.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_default();
        let temp = dir.join(format!(".{name}.{}.part", std::process::id()));
        std::fs::write(&temp, bytes)?;
        std::fs::rename(&temp, path).inspect_err(|_| {
            let _ = std::fs::remove_file(&temp);
        })
    }
}

/// The cached text at `path` and when it was written, if it is there and is text.
pub(crate) fn read_cached(path: &Path) -> Option<(String, Option<u64>)> {
    let text = std::fs::read_to_string(path).ok()?;
    let written =
        std::fs::metadata(path).and_then(|m| m.modified()).ok().and_then(|t| t.duration_since(UNIX_EPOCH).ok()).map(|d| d.as_secs());
    Some((text, written))
}

/// Seconds since the Unix epoch, now.
pub(crate) fn now() -> Option<u64> {
    std::time::SystemTime::now().duration_since(UNIX_EPOCH).ok().map(|d| d.as_secs())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn entries_are_unique_and_readable() {
        let cache = Cache::at("/c");
        let a = cache.entry("urls", "https://example.com/v1/crds.yaml", "crds.yaml");
        let b = cache.entry("urls", "https://example.com/v2/crds.yaml", "crds.yaml");
        assert_ne!(a, b);
        assert!(a.starts_with("/c/urls"));
        assert!(a.to_string_lossy().ends_with("-crds.yaml"), "{a:?}");
        let c = cache.entry("cluster", "https://10.0.0.1:6443", "kind dev");
        assert!(c.to_string_lossy().ends_with("-kind_dev.yaml"), "{c:?}");
    }
}
