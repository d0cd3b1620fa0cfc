//! Reading what `crdls check` was pointed at: files, directories (walked, with hidden directories
//! noted), standard input, and the `--crds` sources, each read once.

use std::io::Read;
use std::path::{Path, PathBuf};

use crdls_workspace::files;

/// One input file read into memory.
pub(crate) struct Input {
    /// The path shown to the user (relative to the working directory), or `<stdin>`.
    pub display: String,
    /// The file it was read from (`None` for standard input).
    pub path: Option<PathBuf>,
    pub text: String,
    /// Whether its problems are reported (false for `--crds` sources).
    pub report: bool,
}

/// What reading the inputs found besides the files.
#[derive(Default)]
pub(crate) struct Found {
    pub inputs: Vec<Input>,
    /// Hidden directories skipped while walking the checked paths (not the `--crds` ones).
    pub hidden: Vec<PathBuf>,
    /// Messages for inputs that could not be read; any makes the run a usage error.
    pub errors: Vec<String>,
}

/// Reads the checked `paths` (reported) and the `crd_sources` (not reported). A file named both
/// ways is read once, and reported.
pub(crate) fn read(paths: &[PathBuf], crd_sources: &[PathBuf], stdin: &mut dyn Read, cwd: &Path) -> Found {
    let mut found = Found::default();
    for (paths, report) in [(paths, true), (crd_sources, false)] {
        for path in paths {
            if path.as_os_str() == "-" {
                let mut text = String::new();
                match stdin.read_to_string(&mut text) {
                    Ok(_) => found.inputs.push(Input { display: "<stdin>".into(), path: None, text, report }),
                    Err(e) => found.errors.push(format!("cannot read standard input: {e}")),
                }
                continue;
            }
            let path = cwd.join(path);
            let mut hidden = Vec::new();
            let files = match collect_files_noting_hidden(&path, &mut hidden) {
                Ok(files) => files,
                Err(e) => {
                    found.errors.push(format!("{}: {e}", path.display()));
                    continue;
                }
            };
            if report {
                found.hidden.extend(hidden);
            }
            for file in files {
                match std::fs::read(&file) {
                    Ok(bytes) => match String::from_utf8(bytes) {
                        Ok(text) => found.inputs.push(Input { display: display_path(&file, cwd), path: Some(file), text, report }),
                        Err(_) => found.errors.push(format!("{}: not UTF-8 text", file.display())),
                    },
                    Err(e) => found.errors.push(format!("cannot read {}: {e}", file.display())),
                }
            }
        }
    }
    let mut seen = std::collections::HashSet::new();
    found.inputs.retain(|i| seen.insert(i.display.clone()));
    // A hidden directory that was also named as a path (or holds one) was checked after all.
    let named: Vec<PathBuf> = paths.iter().map(|p| files::normalize(&cwd.join(p))).collect();
    found.hidden.retain(|dir| {
        let dir = files::normalize(dir);
        !named.iter().any(|p| p.starts_with(&dir))
    });
    found
}

/// The files a path stands for: itself (whatever its extension), or the YAML and JSON files below a directory, sorted.
pub(crate) fn collect_files(path: &Path) -> std::io::Result<Vec<PathBuf>> {
    collect_files_noting_hidden(path, &mut Vec::new())
}

fn collect_files_noting_hidden(path: &Path, hidden: &mut Vec<PathBuf>) -> std::io::Result<Vec<PathBuf>> {
    let meta = std::fs::metadata(path)?;
    if meta.is_file() {
        return Ok(vec![path.to_path_buf()]);
    }
    let mut out = Vec::new();
    files::files_below_noting_hidden(path, &mut out, hidden);
    out.sort();
    Ok(out)
}

/// A path as users expect to see it: relative to the working directory when below it, with forward
/// slashes, without `./`.
pub(crate) fn display_path(path: &Path, cwd: &Path) -> String {
    let shown = path.strip_prefix(cwd).unwrap_or(path);
    let s = shown.to_string_lossy().replace('\\', "/");
    let s = s.replace("/./", "/");
    s.strip_prefix("./").map(str::to_string).unwrap_or(s)
}

/// The note on hidden directories that were skipped, naming a few of the most common names.
pub(crate) fn hidden_note(hidden: &[PathBuf]) -> Option<String> {
    if hidden.is_empty() {
        return None;
    }
    let mut names: std::collections::BTreeMap<String, usize> = std::collections::BTreeMap::new();
    for dir in hidden {
        *names.entry(dir.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_default()).or_default() += 1;
    }
    let mut names: Vec<(String, usize)> = names.into_iter().collect();
    names.sort_by(|a, b| b.1.cmp(&a.1).then(a.0.cmp(&b.0)));
    let shown: Vec<String> = names.iter().take(4).map(|(n, c)| if *c == 1 { n.clone() } else { format!("{n} ({c})") }).collect();
    let more = if names.len() > 4 { ", ..." } else { "" };
    let count = hidden.len();
    let dirs = if count == 1 { "hidden directory was" } else { "hidden directories were" };
    Some(format!("{count} {dirs} skipped: {}{more}; name one as a path to check it", shown.join(", ")))
}
