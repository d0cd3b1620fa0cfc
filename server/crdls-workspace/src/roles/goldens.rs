//! Directories a project's tests write their output into: a Go golden-file test renders something and,
//! when asked to update (`-update`, an environment variable), writes it over the expected file
//! (`os.WriteFile("./baseline/manifests/"+name, out)`), then compares. What such a directory holds is
//! what a program printed, an expected output, whatever its name: not an object anyone applies.

use std::path::{Path, PathBuf};

use crate::files::normalize;

/// How many Go test files of one directory are read.
const MAX_TEST_SOURCES: usize = 64;

/// The directories the Go test files (`*_test.go`) of `dir` write files into, resolved against `dir`:
/// per line that calls a function whose name has `write` in any case (`os.WriteFile`, `writeGolden`), each string
/// literal that is a relative path ending in `/` (a directory the line appends a name to) or naming a
/// YAML or JSON file in a directory, when that directory lies below the test's.
pub(super) fn written_dirs(dir: &Path) -> Vec<PathBuf> {
    let mut out = Vec::new();
    for path in super::files_in(dir, |name| name.ends_with("_test.go"), MAX_TEST_SOURCES) {
        let Ok(text) = crate::files::read_text(&path) else { continue };
        for written in written_paths(&text) {
            let resolved = normalize(&dir.join(written));
            if !out.contains(&resolved) {
                out.push(resolved);
            }
        }
    }
    out
}

/// The directories a Go source's `Write…` calls name, as written (see [`written_dirs`]).
fn written_paths(text: &str) -> Vec<PathBuf> {
    let mut out = Vec::new();
    for line in text.lines().filter(|l| l.to_ascii_lowercase().contains("write") && !l.trim_start().starts_with("//")) {
        let mut parts = line.split('"');
        parts.next();
        // The odd parts are the insides of string literals (Go's interpreted strings hold no raw `"`
        // but an escaped one, which no path here has).
        while let Some(literal) = parts.next() {
            parts.next();
            let path = Path::new(literal);
            let relative = path.is_relative()
                && path.components().all(|c| matches!(c, std::path::Component::Normal(_) | std::path::Component::CurDir));
            if !relative || literal.contains(['%', '*', ' ']) {
                continue;
            }
            // A directory below the test's own: a file name alone (`"config.yaml"`, often joined to a
            // temporary directory) or `./` says nothing about where the test writes.
            let dir = if literal.ends_with('/') {
                path
            } else if [".yaml", ".yml", ".json"].iter().any(|e| literal.ends_with(e)) {
                path.parent().unwrap_or(Path::new(""))
            } else {
                continue;
            };
            if dir.components().any(|c| matches!(c, std::path::Component::Normal(_))) {
                out.push(dir.to_path_buf());
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_directories_a_go_test_writes_into() {
        let source = r#"
func TestBaseline(t *testing.T) {
    manifest := render(t, "./baseline/values/"+name)
    if update {
        common.WriteToFile(t, "./baseline/manifests/"+name, manifest)
        writeGolden("out/rendered.yaml", []byte(manifest))
    }
    // os.WriteFile("commented/", nil, 0)
    os.WriteFile(filepath.Join(dir, "x"), nil, 0)
    os.WriteFile("/tmp/abs/", nil, 0)
    os.WriteFile("../up/", nil, 0)
    os.WriteFile(filepath.Join(tmp, "config.yaml"), nil, 0)
    os.WriteFile("./"+name, nil, 0)
}
"#;
        assert_eq!(written_paths(source), [PathBuf::from("./baseline/manifests/"), PathBuf::from("out")]);
    }
}
