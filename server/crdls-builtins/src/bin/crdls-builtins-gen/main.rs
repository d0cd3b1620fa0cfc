//! `crdls-builtins-gen`: writes the crate's data file from the Kubernetes OpenAPI v3 documents of the
//! given minor versions, laid out as kubectl-validate carries them.
//!
//! ```text
//! cargo run -p crdls-builtins --bin crdls-builtins-gen -- [--out FILE] [--json FILE] <builtins-dir> <version>...
//! ```
//!
//! `<builtins-dir>/<version>/api/v1.json` and `<builtins-dir>/<version>/apis/<group>/<version>.json`
//! are read; the file goes to `server/crdls-builtins/data/kubernetes.json.deflate` unless `--out` says
//! otherwise; `--json` also writes the JSON before deflating, to read. What it found is reported on
//! standard error.

// A command-line tool of its own, not the language server: standard error is its to write.
#![allow(clippy::print_stderr)]

mod generate;

use std::path::{Path, PathBuf};

use crdls_builtins::KubeVersion;
use generate::{Document, Generator, Output, Release};

/// Where the data file goes by default.
const DATA_FILE: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/data/kubernetes.json.deflate");

const USAGE: &str = "usage: crdls-builtins-gen [--out FILE] [--json FILE] <builtins-dir> <version>...\n\
                     e.g. crdls-builtins-gen ../shared-builtins/pkg/openapiclient/builtins 1.32 1.33 1.34 1.35";

fn main() {
    match run(std::env::args().skip(1).collect()) {
        Ok(output) => {
            for line in output.report {
                eprintln!("{line}");
            }
        }
        Err(error) => {
            eprintln!("crdls-builtins-gen: {error}");
            std::process::exit(2);
        }
    }
}

/// Reads the arguments, generates and writes the file.
fn run(args: Vec<String>) -> Result<Output, String> {
    let mut out = PathBuf::from(DATA_FILE);
    let mut json = None;
    let mut positional = Vec::new();
    let mut args = args.into_iter();
    while let Some(arg) = args.next() {
        match arg.as_str() {
            "--out" => out = args.next().map(PathBuf::from).ok_or(USAGE)?,
            "--json" => json = Some(args.next().map(PathBuf::from).ok_or(USAGE)?),
            "-h" | "--help" => return Err(USAGE.to_string()),
            _ => positional.push(arg),
        }
    }
    let Some((dir, versions)) = positional.split_first() else { return Err(USAGE.to_string()) };
    if versions.is_empty() {
        return Err(USAGE.to_string());
    }
    let mut generator = Generator::new();
    for version in versions {
        let version: KubeVersion = version.parse().map_err(|e| format!("{e}"))?;
        generator.add(read_release(Path::new(dir), version)?)?;
    }
    let mut output = generator.finish()?;
    std::fs::write(&out, &output.deflated).map_err(|e| format!("cannot write {}: {e}", out.display()))?;
    output.report.push(format!("wrote {}", out.display()));
    if let Some(json) = json {
        std::fs::write(&json, &output.json).map_err(|e| format!("cannot write {}: {e}", json.display()))?;
        output.report.push(format!("wrote {}", json.display()));
    }
    Ok(output)
}

/// The documents of one release: `<dir>/<version>/api/v1.json` and `apis/<group>/<version>.json`.
fn read_release(dir: &Path, version: KubeVersion) -> Result<Release, String> {
    let root = dir.join(version.to_string());
    let mut files = Vec::new();
    for (sub, grouped) in [("api", false), ("apis", true)] {
        let base = root.join(sub);
        if grouped {
            for group in list(&base)? {
                if group.is_dir() {
                    for file in list(&group)? {
                        files.push((name(&group), file));
                    }
                }
            }
        } else {
            for file in list(&base)? {
                files.push((String::new(), file));
            }
        }
    }
    let mut documents = Vec::new();
    for (group, file) in files {
        let Some(api_version) = name(&file).strip_suffix(".json").map(str::to_string) else { continue };
        let text = std::fs::read_to_string(&file).map_err(|e| format!("cannot read {}: {e}", file.display()))?;
        let json = serde_json::from_str(&text).map_err(|e| format!("{}: {e}", file.display()))?;
        documents.push(Document { group, version: api_version, json });
    }
    if documents.is_empty() {
        return Err(format!("no OpenAPI documents under {}", root.display()));
    }
    Ok(Release { version, documents })
}

/// The entries of a directory, sorted.
fn list(dir: &Path) -> Result<Vec<PathBuf>, String> {
    let entries = std::fs::read_dir(dir).map_err(|e| format!("cannot read {}: {e}", dir.display()))?;
    let mut paths: Vec<PathBuf> = entries.filter_map(|e| e.ok().map(|e| e.path())).collect();
    paths.sort();
    Ok(paths)
}

fn name(path: &Path) -> String {
    path.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_default()
}

#[cfg(test)]
mod tests;
