//! `crdls-builtins-gen`: writes the crate's data file from the Kubernetes OpenAPI v3 documents of the
//! releases listed in `data/kubernetes-releases.txt`, as the `k8s.io/kubernetes` Go module of each
//! carries them (`api/openapi-spec/v3`), downloaded through the Go module proxy.
//!
//! ```text
//! crdls-builtins-gen [--out FILE] [--json FILE] [--cache DIR] [--add MODULE-VERSION]
//! crdls-builtins-gen [--out FILE] [--json FILE] <minor>=<dir>...
//! ```
//!
//! The first form reads the list of releases (`--add v1.38.0` first adds or replaces that minor's
//! line), downloads each module with `go mod download` into `--cache` (default: the Cargo target
//! directory's `kubernetes-modules/`) and generates. The second form reads documents already on disk:
//! `<dir>` is a Kubernetes source tree (or module) or its `api/openapi-spec/v3` directory. The file goes
//! to `server/crdls-builtins/data/kubernetes.json.deflate` unless `--out` says otherwise; `--json` also
//! writes the JSON before deflating, to read. What it found is reported on standard error.

// A command-line tool of its own, not the language server: standard error is its to write.
#![allow(clippy::print_stderr)]

mod generate;
mod source;

use std::path::{Path, PathBuf};

use crdls_builtins::KubeVersion;
use generate::{Generator, Output};

/// Where the data file goes by default.
const DATA_FILE: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/data/kubernetes.json.deflate");

/// The releases shipped, each with the module version it is generated from.
const RELEASES_FILE: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/data/kubernetes-releases.txt");

const USAGE: &str = "usage: crdls-builtins-gen [--out FILE] [--json FILE] [--cache DIR] [--add MODULE-VERSION]\n\
                     \x20      crdls-builtins-gen [--out FILE] [--json FILE] <minor>=<dir>...\n\
                     e.g. crdls-builtins-gen --add v1.38.0   (or server/crdls-builtins/update.sh v1.38.0)";

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

/// The options of one run.
#[derive(Default)]
struct Options {
    out: Option<PathBuf>,
    json: Option<PathBuf>,
    cache: Option<PathBuf>,
    releases: Option<PathBuf>,
    add: Option<String>,
    dirs: Vec<(KubeVersion, PathBuf)>,
}

fn parse(args: Vec<String>) -> Result<Options, String> {
    let mut options = Options::default();
    let mut args = args.into_iter();
    while let Some(arg) = args.next() {
        let mut value = || args.next().ok_or_else(|| USAGE.to_string());
        match arg.as_str() {
            "--out" => options.out = Some(PathBuf::from(value()?)),
            "--json" => options.json = Some(PathBuf::from(value()?)),
            "--cache" => options.cache = Some(PathBuf::from(value()?)),
            "--releases" => options.releases = Some(PathBuf::from(value()?)),
            "--add" => options.add = Some(value()?),
            "-h" | "--help" => return Err(USAGE.to_string()),
            _ => {
                let (minor, dir) = arg.split_once('=').ok_or_else(|| format!("`{arg}` is not <minor>=<dir>\n{USAGE}"))?;
                options.dirs.push((minor.parse().map_err(|e| format!("{e}"))?, PathBuf::from(dir)));
            }
        }
    }
    if !options.dirs.is_empty() && (options.add.is_some() || options.cache.is_some() || options.releases.is_some()) {
        return Err(format!("<minor>=<dir> reads documents on disk; it takes no --add, --cache or --releases\n{USAGE}"));
    }
    Ok(options)
}

/// Reads the arguments, generates and writes the file.
fn run(args: Vec<String>) -> Result<Output, String> {
    let options = parse(args)?;
    let mut report = Vec::new();
    let dirs = if options.dirs.is_empty() {
        let list = options.releases.clone().unwrap_or_else(|| PathBuf::from(RELEASES_FILE));
        let mut releases = source::read_releases(&list)?;
        if let Some(module_version) = &options.add {
            let (minor, version) = source::add_release(&mut releases, module_version)?;
            source::write_releases(&list, &releases)?;
            report.push(format!("{}: Kubernetes {minor} is now generated from k8s.io/kubernetes {version}", list.display()));
        }
        let cache = options.cache.clone().unwrap_or_else(source::default_cache);
        let mut dirs = Vec::new();
        for (minor, version) in &releases {
            dirs.push((*minor, source::download(version, &cache)?));
        }
        dirs
    } else {
        options.dirs.clone()
    };
    let mut generator = Generator::new();
    for release in source::read(&dirs)? {
        generator.add(release?)?;
    }
    let mut output = generator.finish()?;
    output.report.splice(0..0, report);
    let out = options.out.unwrap_or_else(|| PathBuf::from(DATA_FILE));
    std::fs::write(&out, &output.deflated).map_err(|e| format!("cannot write {}: {e}", out.display()))?;
    output.report.push(format!("wrote {}", out.display()));
    if let Some(json) = options.json {
        std::fs::write(&json, &output.json).map_err(|e| format!("cannot write {}: {e}", json.display()))?;
        output.report.push(format!("wrote {}", json.display()));
    }
    Ok(output)
}

/// The name of a path's last component.
fn name(path: &Path) -> String {
    path.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_default()
}

#[cfg(test)]
mod tests;
