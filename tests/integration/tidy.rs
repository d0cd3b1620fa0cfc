//! Tidy checks: every Rust file says what it is for in a `//!` first line.

use crdls_tests::repo_root;

fn rust_files(dir: &std::path::Path, out: &mut Vec<std::path::PathBuf>) {
    for entry in std::fs::read_dir(dir).unwrap() {
        let path = entry.unwrap().path();
        let name = path.file_name().unwrap().to_string_lossy().into_owned();
        if path.is_dir() {
            if name != "target" && !name.starts_with('.') && name != "node_modules" {
                rust_files(&path, out);
            }
        } else if name.ends_with(".rs") {
            out.push(path);
        }
    }
}

#[test]
fn every_rust_file_starts_with_a_doc_line() {
    let mut files = Vec::new();
    rust_files(&repo_root().join("server"), &mut files);
    rust_files(&repo_root().join("tests"), &mut files);
    assert!(files.len() > 10);
    let offenders: Vec<_> = files
        .iter()
        .filter(|f| !std::fs::read_to_string(f).unwrap().starts_with("//!"))
        .map(|f| f.strip_prefix(repo_root()).unwrap().display().to_string())
        .collect();
    assert!(offenders.is_empty(), "files without a `//!` first line: {offenders:?}");
}
