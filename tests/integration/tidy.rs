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

/// The README's table of codes, as the registry gives it.
fn codes_table() -> String {
    let mut table = String::from("| code | default | what it reports |\n|---|---|---|\n");
    for code in crdls_yaml::codes::ALL {
        table.push_str(&format!("| `{}` | {} | {} |\n", code.name, code.severity.as_str(), code.summary));
    }
    table
}

#[test]
fn the_readme_lists_every_diagnostic_code() {
    let path = repo_root().join("README.md");
    let readme = std::fs::read_to_string(&path).unwrap();
    let (start, end) = ("<!-- codes:start -->\n", "<!-- codes:end -->");
    let from = readme.find(start).expect("the README marks where the codes go") + start.len();
    let to = readme.find(end).expect("the README marks where the codes end");
    let expected = codes_table();
    if readme[from..to] != expected {
        if std::env::var_os("UPDATE_EXPECT").is_some() {
            std::fs::write(&path, format!("{}{expected}{}", &readme[..from], &readme[to..])).unwrap();
            return;
        }
        panic!("README.md's list of codes is not the registry's; run `UPDATE_EXPECT=1 cargo test --workspace` and review the diff");
    }
}

#[test]
fn diagnostics_name_their_codes_through_the_registry() {
    let mut files = Vec::new();
    rust_files(&repo_root().join("server"), &mut files);
    let literal = regex::Regex::new(r#""(yaml|schema|metadata|resource|crd|cel|helm)/[a-z0-9-]+""#).unwrap();
    let mut offenders = Vec::new();
    for file in files {
        let shown = file.strip_prefix(repo_root()).unwrap().display().to_string();
        // The registry itself, and tests, which assert on codes as users see them.
        if shown.contains("crdls-yaml/src/codes") || shown.ends_with("tests.rs") || shown.contains("/tests/") {
            continue;
        }
        let text = std::fs::read_to_string(&file).unwrap();
        let code = text.split("#[cfg(test)]").next().unwrap_or_default();
        for (i, line) in code.lines().enumerate() {
            if !line.trim_start().starts_with("//") && literal.is_match(line) {
                offenders.push(format!("{shown}:{}: {}", i + 1, line.trim()));
            }
        }
    }
    assert!(offenders.is_empty(), "codes written as string literals instead of crdls_yaml::codes constants:\n{}", offenders.join("\n"));
}
