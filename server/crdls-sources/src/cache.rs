//! The cache of fetched sources: `$CRDLS_CACHE_DIR`, else `$XDG_CACHE_HOME/crdls`, else
//! `~/.cache/crdls`. Each source is one file named after a hash of its address plus a readable
//! name, written atomically, so a reader never sees half a download and an editor can open it.
//!
//! Writers in several processes and threads may write the same entry at once (two editors, a CLI run
//! during an editor's refresh): each writes a temporary file of its own and renames it into place, so
//! the last rename wins and no writer sees another's half-written file. A temporary file is removed on
//! every path that does not rename it.

use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::UNIX_EPOCH;

use crate::read::ReadError;

/// The largest cache entry read back: a download is at most 64 MiB, a cluster's listing, written out
/// as indented JSON, can be larger.
pub const MAX_ENTRY_BYTES: u64 = 512 * 1024 * 1024;

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
        let temp = dir.join(format!(".{name}.{}.part", unique_suffix()));
        let written = write_new(&temp, bytes).and_then(|()| std::fs::rename(&temp, path));
        if written.is_err() {
            // A full disk leaves part of the file behind, a failed rename all of it.
            let _ = std::fs::remove_file(&temp);
        }
        written
    }
}

/// Writes `bytes` to a file that must not exist yet (a temporary name nobody else uses).
fn write_new(path: &Path, bytes: &[u8]) -> std::io::Result<()> {
    use std::io::Write;
    let mut file = std::fs::OpenOptions::new().write(true).create_new(true).open(path)?;
    file.write_all(bytes)?;
    file.flush()
}

/// A suffix no other writer uses at the same time: the process, a counter within it, and the clock's
/// nanoseconds (which differ between processes that reuse an id, as containers do).
fn unique_suffix() -> String {
    static COUNTER: AtomicU64 = AtomicU64::new(0);
    let count = COUNTER.fetch_add(1, Ordering::Relaxed);
    let nanos = std::time::SystemTime::now().duration_since(UNIX_EPOCH).map_or(0, |d| d.subsec_nanos());
    format!("{}.{count}.{nanos:08x}", std::process::id())
}

/// The text of the cache entry at `path`: a regular file of at most [`MAX_ENTRY_BYTES`], in UTF-8. Any
/// file can be planted in a cache directory; a FIFO or a device there is refused, not read.
pub fn read_entry(path: &Path) -> Result<String, ReadError> {
    crate::read::read_text(path, MAX_ENTRY_BYTES)
}

/// The cached text at `path` and when it was written, if it is there and is readable text.
pub(crate) fn read_cached(path: &Path) -> Option<(String, Option<u64>)> {
    let text = read_entry(path).ok()?;
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

    /// Writers of one entry at once each use a temporary file of their own: none fails because another
    /// renamed or removed a shared one, and no temporary file is left.
    #[test]
    fn concurrent_writers_of_one_entry_all_succeed() {
        let dir = std::env::temp_dir().join(format!("crdls-cache-race-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        let cache = Cache::at(&dir);
        let path = cache.entry("urls", "https://example.com/a.yaml", "a.yaml");
        let payload = "kind: A\n".repeat(64 * 1024);
        let failures: usize = std::thread::scope(|scope| {
            let writers: Vec<_> =
                (0..8).map(|_| scope.spawn(|| (0..20).filter(|_| cache.write(&path, payload.as_bytes()).is_err()).count())).collect();
            writers.into_iter().map(|w| w.join().unwrap()).sum()
        });
        assert_eq!(failures, 0);
        assert_eq!(read_entry(&path).unwrap(), payload);
        let names: Vec<String> =
            std::fs::read_dir(path.parent().unwrap()).unwrap().map(|e| e.unwrap().file_name().to_string_lossy().into_owned()).collect();
        assert_eq!(names.len(), 1, "{names:?}");
        let _ = std::fs::remove_dir_all(&dir);
    }

    /// A write that fails part way (the disk is full; here the file size limit of `ulimit -f`, in a
    /// child process that ignores the signal so that the write fails instead) leaves no temporary file.
    #[cfg(target_os = "linux")]
    #[test]
    fn a_failed_write_leaves_no_temporary_file() {
        let dir = std::env::temp_dir().join(format!("crdls-cache-full-{}", std::process::id()));
        if let Some(child_dir) = std::env::var_os("CRDLS_TEST_FULL_DISK") {
            let cache = Cache::at(&child_dir);
            let path = cache.entry("urls", "https://example.com/big.yaml", "big.yaml");
            let err = cache.write(&path, &vec![b'#'; 256 * 1024]).unwrap_err();
            assert!(err.to_string().contains("too large"), "{err}");
            return;
        }
        let _ = std::fs::remove_dir_all(&dir);
        let test = std::env::current_exe().unwrap();
        let child = std::process::Command::new("sh")
            .args([
                "-c",
                "trap '' XFSZ; ulimit -f 16; exec \"$0\" --exact cache::tests::a_failed_write_leaves_no_temporary_file --test-threads 1",
            ])
            .arg(&test)
            .env("CRDLS_TEST_FULL_DISK", &dir)
            .output()
            .unwrap();
        let said = String::from_utf8_lossy(&child.stdout);
        assert!(child.status.success() && said.contains("1 passed"), "the child's write did not fail as expected: {said}");
        let names: Vec<String> =
            std::fs::read_dir(dir.join("urls")).unwrap().map(|e| e.unwrap().file_name().to_string_lossy().into_owned()).collect();
        assert_eq!(names, Vec::<String>::new());
        let _ = std::fs::remove_dir_all(&dir);
    }

    /// A FIFO or a device planted in the cache is refused, not waited on or read without end.
    #[cfg(unix)]
    #[test]
    fn planted_entries_are_refused() {
        let dir = std::env::temp_dir().join(format!("crdls-cache-fifo-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).unwrap();
        let fifo = dir.join("entry.yaml");
        assert!(std::process::Command::new("mkfifo").arg(&fifo).status().unwrap().success());
        assert!(matches!(read_entry(&fifo), Err(ReadError::NotRegular("a FIFO"))));
        let zero = dir.join("zero.yaml");
        std::os::unix::fs::symlink("/dev/zero", &zero).unwrap();
        assert!(matches!(read_entry(&zero), Err(ReadError::NotRegular("a device"))));
        assert!(read_cached(&fifo).is_none());
        let _ = std::fs::remove_dir_all(&dir);
    }
}
