//! Finding the files crdls reads: YAML and JSON files below a directory (skipping hidden directories,
//! `node_modules` and `target`), and configured paths that may be globs (`crds/**/*.yaml`).

use std::path::{Component, Path, PathBuf};

/// The largest file crdls reads. The API server takes at most 3 MiB in one request; generated bundles
/// of several CRDs are larger, so the limit is generous.
pub const MAX_FILE_BYTES: u64 = 16 * 1024 * 1024;

/// Why a file's text could not be read.
#[derive(Debug)]
pub enum ReadError {
    /// Not a regular file: a FIFO, a device, a socket, a directory. Reading one could block forever
    /// or never end.
    NotRegular(&'static str),
    /// Larger than [`MAX_FILE_BYTES`].
    TooLarge(u64),
    /// Not UTF-8.
    NotText,
    /// The system said no.
    Io(std::io::Error),
}

impl std::fmt::Display for ReadError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            ReadError::NotRegular(what) => write!(f, "not a regular file ({what}); crdls reads only regular files"),
            ReadError::TooLarge(size) => write!(
                f,
                "{:.1} MiB, larger than the {} MiB crdls reads (the API server takes at most 3 MiB in one request)",
                *size as f64 / (1024.0 * 1024.0),
                MAX_FILE_BYTES / (1024 * 1024)
            ),
            ReadError::NotText => write!(f, "not UTF-8 text"),
            ReadError::Io(e) => write!(f, "{e}"),
        }
    }
}

/// The text of the file at `path` (symbolic links followed): only a regular file, at most
/// [`MAX_FILE_BYTES`], in UTF-8. It never blocks on a FIFO nor reads a device without end. The rules
/// are `crdls_sources::read`'s, which the cache and the kubeconfig are read through as well.
pub fn read_text(path: &Path) -> Result<String, ReadError> {
    crdls_sources::read::read_text(path, MAX_FILE_BYTES).map_err(|e| match e {
        crdls_sources::read::ReadError::NotRegular(what) => ReadError::NotRegular(what),
        crdls_sources::read::ReadError::TooLarge { size, .. } => ReadError::TooLarge(size),
        crdls_sources::read::ReadError::NotText => ReadError::NotText,
        crdls_sources::read::ReadError::Io(e) => ReadError::Io(e),
    })
}

/// Whether a path names a file crdls reads.
pub fn is_yaml_or_json(path: &Path) -> bool {
    path.extension().and_then(|e| e.to_str()).is_some_and(|e| matches!(e, "yaml" | "yml" | "json"))
}

/// `path` with `.` and `..` resolved lexically, so that names from different files compare equal.
pub fn normalize(path: &Path) -> PathBuf {
    let mut out = PathBuf::new();
    for component in path.components() {
        match component {
            Component::CurDir => {}
            Component::ParentDir => {
                if !out.pop() {
                    out.push("..");
                }
            }
            other => out.push(other),
        }
    }
    out
}

/// Whether a path found while walking is a Helm chart archive whose CRDs count: a `.tgz` in a
/// `charts/` directory, where `helm dependency build` puts a chart's dependencies.
pub fn is_dependency_archive(path: &Path) -> bool {
    crdls_sources::archive::is_chart_archive(path) && path.parent().and_then(Path::file_name).is_some_and(|n| n == "charts")
}

/// What a walk found.
#[derive(Debug, Default)]
pub struct Walk {
    /// YAML and JSON files.
    pub files: Vec<PathBuf>,
    /// Helm chart archives in `charts/` directories (see [`is_dependency_archive`]).
    pub archives: Vec<PathBuf>,
    /// Hidden directories skipped (`.git` aside), so a run can say that test directories such as
    /// `.chainsaw-test` were not looked at.
    pub hidden: Vec<PathBuf>,
}

/// Every YAML or JSON file below `root` (hidden directories, `node_modules` and `target` skipped).
pub fn files_below(root: &Path, out: &mut Vec<PathBuf>) {
    let mut found = Walk::default();
    walk(root, &mut found);
    out.append(&mut found.files);
}

/// The YAML and JSON files, the chart archives and the skipped hidden directories below `root`.
pub fn walk_below(root: &Path) -> Walk {
    let mut found = Walk::default();
    walk(root, &mut found);
    found
}

fn walk(root: &Path, found: &mut Walk) {
    if root.is_file() {
        if is_yaml_or_json(root) {
            found.files.push(root.to_path_buf());
        } else if crdls_sources::archive::is_chart_archive(root) {
            found.archives.push(root.to_path_buf());
        }
        return;
    }
    let Ok(entries) = std::fs::read_dir(root) else { return };
    for entry in entries.flatten() {
        let path = entry.path();
        let name = entry.file_name();
        let name = name.to_string_lossy();
        let Ok(ty) = entry.file_type() else { continue };
        if ty.is_dir() {
            if name.starts_with('.') {
                if name != ".git" {
                    found.hidden.push(path);
                }
            } else if name != "node_modules" && name != "target" {
                walk(&path, found);
            }
        } else if is_yaml_or_json(&path) {
            found.files.push(path);
        } else if ty.is_file() && is_dependency_archive(&path) {
            found.archives.push(path);
        }
    }
}

/// The files a configured CRD path stands for: a file, a directory, or a glob with `*` and `**`. Chart
/// archives are among them when named, matched by the glob, or in a `charts/` directory below.
pub fn expand(root: &Path, pattern: &str) -> Vec<PathBuf> {
    let mut out = Vec::new();
    if !pattern.contains('*') {
        let found = walk_below(&root.join(pattern));
        out.extend(found.files);
        out.extend(found.archives);
        return out;
    }
    // Walk from the longest literal prefix, then match the rest of each path against the glob.
    let literal: Vec<&str> = pattern.split('/').take_while(|part| !part.contains('*')).collect();
    let base = root.join(literal.join("/"));
    let mut candidates = walk_below(&base).files;
    if crdls_sources::archive::is_chart_archive(Path::new(pattern)) {
        candidates.extend(archives_below(&base));
    }
    for file in candidates {
        if let Ok(relative) = file.strip_prefix(root) {
            if glob_match(pattern, &relative.to_string_lossy().replace('\\', "/")) {
                out.push(file);
            }
        }
    }
    out
}

/// Every `.tgz` or `.tar.gz` below `root`, for a glob that names archives wherever they are.
fn archives_below(root: &Path) -> Vec<PathBuf> {
    let mut out = Vec::new();
    let Ok(entries) = std::fs::read_dir(root) else { return out };
    for entry in entries.flatten() {
        let path = entry.path();
        let Ok(ty) = entry.file_type() else { continue };
        let hidden = entry.file_name().to_string_lossy().starts_with('.');
        if ty.is_dir() && !hidden {
            out.extend(archives_below(&path));
        } else if ty.is_file() && crdls_sources::archive::is_chart_archive(&path) {
            out.push(path);
        }
    }
    out
}

/// Matches a `/`-separated path against a glob where `*` stays within a segment and `**` spans segments.
pub fn glob_match(pattern: &str, path: &str) -> bool {
    fn segments(p: &[&str], s: &[&str]) -> bool {
        match (p.first(), s.first()) {
            (None, None) => true,
            (Some(&"**"), _) => segments(&p[1..], s) || (!s.is_empty() && segments(p, &s[1..])),
            (Some(pat), Some(seg)) => segment(pat.as_bytes(), seg.as_bytes()) && segments(&p[1..], &s[1..]),
            _ => false,
        }
    }
    fn segment(p: &[u8], s: &[u8]) -> bool {
        match (p.first(), s.first()) {
            (None, None) => true,
            (Some(b'*'), _) => segment(&p[1..], s) || (!s.is_empty() && segment(p, &s[1..])),
            (Some(a), Some(b)) => a == b && segment(&p[1..], &s[1..]),
            _ => false,
        }
    }
    let p: Vec<&str> = pattern.trim_start_matches("./").split('/').collect();
    let s: Vec<&str> = path.split('/').collect();
    segments(&p, &s)
}

/// Reads the file at `path` again, as it is then, for what is built from it later (a CRD's schemas,
/// built on first use).
pub fn reader_of(path: std::path::PathBuf) -> crdls_crd::TextReader {
    std::sync::Arc::new(move || read_text(&path).ok().map(std::sync::Arc::from))
}

/// Like [`reader_of`], for a file crdls wrote to its cache (a download, a cluster's listing): read up
/// to the cache's own limit (a cluster of a thousand CRDs lists far more than the 16 MiB a workspace
/// file may have), and only if it is still a regular file.
pub fn reader_of_cached(path: std::path::PathBuf) -> crdls_crd::TextReader {
    std::sync::Arc::new(move || crdls_sources::cache::read_entry(&path).ok().map(std::sync::Arc::from))
}

/// A text kept in memory, for what is built from it later.
pub fn reader_of_text(text: std::sync::Arc<str>) -> crdls_crd::TextReader {
    std::sync::Arc::new(move || Some(text.clone()))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_regular_text_files_of_a_bounded_size_are_read() {
        let dir = std::env::temp_dir().join(format!("crdls-read-text-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        std::fs::write(dir.join("a.yaml"), "a: 1\n").unwrap();
        assert_eq!(read_text(&dir.join("a.yaml")).unwrap(), "a: 1\n");
        std::fs::write(dir.join("b.yaml"), [0xff, 0xfe]).unwrap();
        assert!(matches!(read_text(&dir.join("b.yaml")), Err(ReadError::NotText)));
        assert!(matches!(read_text(&dir), Err(ReadError::NotRegular("a directory"))));
        #[cfg(unix)]
        {
            // A symbolic link to an endless device is not read.
            let _ = std::fs::remove_file(dir.join("zero.yaml"));
            std::os::unix::fs::symlink("/dev/zero", dir.join("zero.yaml")).unwrap();
            assert!(matches!(read_text(&dir.join("zero.yaml")), Err(ReadError::NotRegular("a device"))));
            // A FIFO is not opened (opening one blocks until a writer comes).
            let fifo = dir.join("pipe.yaml");
            let _ = std::fs::remove_file(&fifo);
            if std::process::Command::new("mkfifo").arg(&fifo).status().is_ok_and(|s| s.success()) {
                assert!(matches!(read_text(&fifo), Err(ReadError::NotRegular("a FIFO"))));
            }
        }
        let big = std::fs::File::create(dir.join("big.yaml")).unwrap();
        big.set_len(MAX_FILE_BYTES + 1).unwrap();
        let err = read_text(&dir.join("big.yaml")).unwrap_err();
        assert_eq!(err.to_string(), "16.0 MiB, larger than the 16 MiB crdls reads (the API server takes at most 3 MiB in one request)");
        let _ = std::fs::remove_dir_all(&dir);
    }

    #[test]
    fn globs() {
        assert!(glob_match("crds/**/*.yaml", "crds/a/b/x.yaml"));
        assert!(glob_match("crds/**/*.yaml", "crds/x.yaml"));
        assert!(glob_match("crds/*.yaml", "crds/x.yaml"));
        assert!(!glob_match("crds/*.yaml", "crds/a/x.yaml"));
        assert!(!glob_match("crds/*.yaml", "other/x.yaml"));
        assert!(glob_match("./config/*/crd-*.yml", "config/base/crd-widgets.yml"));
    }
}
