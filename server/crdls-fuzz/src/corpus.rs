//! Seeds: the repository's fixtures, the shared corpus beside the repository (`../shared/corpus`, when
//! it is there), and earlier findings. Files are read once, as text, up to a size that keeps an
//! iteration fast.

use std::path::{Path, PathBuf};

/// The largest file taken as a seed; larger CRDs still reach the schema target's index.
pub const MAX_SEED_BYTES: usize = 128 * 1024;

/// Where the shared corpus is looked for by default: `../shared/corpus` beside the repository.
pub fn default_corpus() -> PathBuf {
    crate::repo_root().join("../shared/corpus")
}

/// A YAML file read as a seed.
#[derive(Clone, Debug)]
pub struct SeedFile {
    /// Where it was read from.
    pub path: PathBuf,
    /// Its text.
    pub text: String,
}

/// Every `.yaml`, `.yml` and `.json` file below `dir` (sorted, so runs are reproducible), of at most
/// `max_bytes` bytes; unreadable and non-UTF-8 files are left out.
pub fn yaml_files(dir: &Path, max_bytes: usize) -> Vec<SeedFile> {
    let mut paths = Vec::new();
    walk(dir, &mut paths);
    paths.sort();
    paths
        .into_iter()
        .filter(|p| p.extension().is_some_and(|e| e == "yaml" || e == "yml" || e == "json"))
        .filter(|p| std::fs::metadata(p).is_ok_and(|m| m.is_file() && m.len() as usize <= max_bytes))
        .filter_map(|p| std::fs::read_to_string(&p).ok().map(|text| SeedFile { path: p, text }))
        .collect()
}

fn walk(dir: &Path, out: &mut Vec<PathBuf>) {
    let Ok(entries) = std::fs::read_dir(dir) else { return };
    for entry in entries.flatten() {
        let path = entry.path();
        let Ok(kind) = entry.file_type() else { continue };
        if kind.is_dir() {
            walk(&path, out);
        } else if kind.is_file() {
            out.push(path);
        }
    }
}

/// The regression fixtures of a target (earlier findings), in name order.
pub fn regressions(target: &str) -> Vec<SeedFile> {
    let dir = crate::regressions_dir(target);
    let mut paths = Vec::new();
    walk(&dir, &mut paths);
    paths.sort();
    paths
        .into_iter()
        .filter(|p| p.file_name().is_some_and(|n| n != "README.md"))
        .filter_map(|p| std::fs::read_to_string(&p).ok().map(|text| SeedFile { path: p, text }))
        .collect()
}
