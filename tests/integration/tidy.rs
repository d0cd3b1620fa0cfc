//! Tidy checks: every Rust file says what it is for in a `//!` first line; the documentation site's
//! reference of codes is generated from the registry, and its links lead somewhere.

use std::collections::BTreeSet;

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

/// The documentation site's reference of diagnostic codes, `docs/src/codes.md`, is what
/// `crdls explain --markdown` prints from the registry: one source for the terminal and the site.
#[test]
fn the_site_documents_every_diagnostic_code_as_crdls_explain_does() {
    let path = repo_root().join("docs/src/codes.md");
    let run = crdls_tests::run_cli(&["explain", "--markdown"], "");
    assert_eq!(run.code, 0, "{run:?}");
    for code in crdls_diagnostics::codes::ALL {
        assert!(run.stdout.contains(&format!("\n## {}\n", code.name)), "{} has a section", code.name);
    }
    let written = std::fs::read_to_string(&path).unwrap_or_default();
    if written != run.stdout {
        if std::env::var_os("UPDATE_EXPECT").is_some() {
            std::fs::write(&path, &run.stdout).unwrap();
            return;
        }
        panic!("docs/src/codes.md is not what `crdls explain --markdown` prints; run `UPDATE_EXPECT=1 cargo test -p crdls-tests --test integration tidy` and review the diff");
    }
}

/// A Markdown file's links: the targets of `[text](target)` outside code, with their line numbers.
fn markdown_links(text: &str) -> Vec<(usize, String)> {
    let mut links = Vec::new();
    let mut fenced = false;
    let mut commented = false;
    for (i, line) in text.lines().enumerate() {
        if line.trim_start().starts_with("```") && !commented {
            fenced = !fenced;
            continue;
        }
        if fenced {
            continue;
        }
        // HTML comments are not rendered: their links are not links.
        let mut visible = String::new();
        let mut rest = line;
        loop {
            if commented {
                let Some(end) = rest.find("-->") else { break };
                rest = &rest[end + 3..];
                commented = false;
            } else if let Some(start) = rest.find("<!--") {
                visible.push_str(&rest[..start]);
                rest = &rest[start + 4..];
                commented = true;
            } else {
                visible.push_str(rest);
                break;
            }
        }
        // Inline code holds no links: drop it (`[a](b)` written as an example).
        let mut prose = String::new();
        for (j, part) in visible.split('`').enumerate() {
            if j % 2 == 0 {
                prose.push_str(part);
            }
        }
        let mut rest = prose.as_str();
        while let Some(at) = rest.find("](") {
            let after = &rest[at + 2..];
            let Some(end) = after.find(')') else { break };
            let target = after[..end].split_whitespace().next().unwrap_or_default();
            links.push((i + 1, target.to_string()));
            rest = &after[end..];
        }
    }
    links
}

/// The anchors mdBook gives a page's headings: the heading's text without its Markdown, lower case,
/// spaces as dashes, other punctuation dropped, and `-1`, `-2` after repeats.
fn heading_anchors(text: &str) -> BTreeSet<String> {
    let mut anchors = BTreeSet::new();
    let mut fenced = false;
    for line in text.lines() {
        if line.trim_start().starts_with("```") {
            fenced = !fenced;
            continue;
        }
        let level = line.len() - line.trim_start_matches('#').len();
        if fenced || level == 0 || level > 6 || !line[level..].starts_with(' ') {
            continue;
        }
        let heading = line[level..].trim();
        // `[text](target)` reads as its text.
        let mut plain = String::new();
        let mut rest = heading;
        while let Some(open) = rest.find('[') {
            plain.push_str(&rest[..open]);
            let inner = &rest[open + 1..];
            match (inner.find("]("), inner.find(')')) {
                (Some(close), Some(end)) if close < end => {
                    plain.push_str(&inner[..close]);
                    rest = &inner[end + 1..];
                }
                _ => {
                    plain.push('[');
                    rest = inner;
                }
            }
        }
        plain.push_str(rest);
        let id: String = plain
            .trim()
            .to_lowercase()
            .chars()
            .filter_map(|c| match c {
                c if c.is_alphanumeric() || c == '_' || c == '-' => Some(c),
                c if c.is_whitespace() => Some('-'),
                _ => None,
            })
            .collect();
        let mut unique = id.clone();
        let mut n = 1;
        while !anchors.insert(unique.clone()) {
            unique = format!("{id}-{n}");
            n += 1;
        }
    }
    anchors
}

/// Every relative link of the documentation site (`docs/src`) leads to a page of the site, and every
/// `#anchor` to a heading of its page; the site's links may not leave `docs/src`, whose files are all
/// the site has. The README's relative links lead to files of the repository. mdBook has no link
/// checker of its own; `.ci/run` builds the site after the tests.
#[test]
fn documentation_links_lead_somewhere() {
    let root = repo_root();
    let src = root.join("docs/src");
    let mut pages = Vec::new();
    let mut dirs = vec![src.clone()];
    while let Some(dir) = dirs.pop() {
        for entry in std::fs::read_dir(&dir).unwrap() {
            let path = entry.unwrap().path();
            if path.is_dir() {
                dirs.push(path);
            } else if path.extension().is_some_and(|e| e == "md") {
                pages.push(path);
            }
        }
    }
    assert!(pages.len() > 10, "the site's pages: {pages:?}");
    pages.push(root.join("README.md"));
    let mut broken = Vec::new();
    for page in &pages {
        let text = std::fs::read_to_string(page).unwrap();
        let shown = page.strip_prefix(&root).unwrap().display().to_string();
        let in_site = page.starts_with(&src);
        for (line, target) in markdown_links(&text) {
            if target.contains("://") || target.starts_with("mailto:") {
                continue;
            }
            let (file, anchor) = target.split_once('#').unwrap_or((&target, ""));
            let linked = if file.is_empty() { page.clone() } else { page.parent().unwrap().join(file) };
            // `a/../b` as the site will resolve it.
            let mut resolved = std::path::PathBuf::new();
            for part in linked.components() {
                match part {
                    std::path::Component::ParentDir => {
                        resolved.pop();
                    }
                    std::path::Component::CurDir => {}
                    other => resolved.push(other),
                }
            }
            let problem = if !resolved.exists() {
                Some("no such file")
            } else if in_site && !resolved.starts_with(&src) {
                Some("outside docs/src, which the site does not have (name the repository's file in code instead)")
            } else if !anchor.is_empty() && resolved.extension().is_some_and(|e| e == "md") {
                let anchors = heading_anchors(&std::fs::read_to_string(&resolved).unwrap());
                (!anchors.contains(anchor)).then_some("no heading with this anchor")
            } else {
                None
            };
            if let Some(problem) = problem {
                broken.push(format!("{shown}:{line}: {target}: {problem}"));
            }
        }
    }
    assert!(broken.is_empty(), "broken links:\n{}", broken.join("\n"));
}

/// Every page of the site is in its table of contents, `docs/src/SUMMARY.md` (mdBook builds only
/// those, so a page left out is a page nobody finds).
#[test]
fn every_page_of_the_site_is_in_its_summary() {
    let src = repo_root().join("docs/src");
    let summary = std::fs::read_to_string(src.join("SUMMARY.md")).unwrap();
    let listed: BTreeSet<String> = markdown_links(&summary).into_iter().map(|(_, target)| target).collect();
    let mut missing = Vec::new();
    let mut dirs = vec![src.clone()];
    while let Some(dir) = dirs.pop() {
        for entry in std::fs::read_dir(&dir).unwrap() {
            let path = entry.unwrap().path();
            let name = path.strip_prefix(&src).unwrap().display().to_string();
            if path.is_dir() {
                dirs.push(path);
            } else if name.ends_with(".md") && name != "SUMMARY.md" && !listed.contains(&name) {
                missing.push(name);
            }
        }
    }
    assert!(missing.is_empty(), "pages not in docs/src/SUMMARY.md: {missing:?}");
}

/// The checker above finds what it should: a missing file, a missing anchor, a link out of the site.
#[test]
fn the_link_checker_reads_links_and_anchors_as_mdbook_does() {
    let text = "# Where CRDs come from\n## `crdls check`\n## The [JSON](x.md) contract\n## Notes\n## Notes\n```\n# not a heading [a](b)\n```\nSee [x](a.md#b) and `[y](c)`.\n<!-- [z](d)\n[w](e) -->[v](f)\n";
    let anchors: Vec<String> = heading_anchors(text).into_iter().collect();
    assert_eq!(anchors, ["crdls-check", "notes", "notes-1", "the-json-contract", "where-crds-come-from"]);
    assert_eq!(markdown_links(text), [(3, "x.md".to_string()), (9, "a.md#b".to_string()), (11, "f".to_string())]);
}

#[test]
fn diagnostics_name_their_codes_through_the_registry() {
    let mut files = Vec::new();
    rust_files(&repo_root().join("server"), &mut files);
    // Every family the registry has (`native/`, `source/`, `crd-change/`, ...), so that a new family is
    // covered the day its first code is registered.
    let mut families: Vec<&str> = crdls_diagnostics::codes::ALL.iter().filter_map(|c| c.name.split_once('/')).map(|(f, _)| f).collect();
    families.sort_unstable();
    families.dedup();
    for family in ["yaml", "schema", "metadata", "resource", "crd", "crd-change", "cel", "helm", "native", "source"] {
        assert!(families.contains(&family), "the registry has no {family}/ code any more: is this list out of date?");
    }
    let literal = regex::Regex::new(&format!(r#""({})/[a-z0-9-]+""#, families.join("|"))).unwrap();
    let mut offenders = Vec::new();
    for file in files {
        let shown = file.strip_prefix(repo_root()).unwrap().display().to_string();
        // The registry itself, and tests, which assert on codes as users see them.
        if shown.contains("crdls-diagnostics/src/codes") || shown.ends_with("tests.rs") || shown.contains("/tests/") {
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
    assert!(
        offenders.is_empty(),
        "codes written as string literals instead of crdls_diagnostics::codes constants:\n{}",
        offenders.join("\n")
    );
}

/// ARCHITECTURE.md lists every workspace crate with the workspace crates it depends on; that list is
/// what `cargo metadata` says, and no crate `crdls` is built from depends on the test fixtures.
#[test]
fn architecture_states_the_crate_graph() {
    use std::collections::BTreeMap;
    let text = std::fs::read_to_string(repo_root().join("ARCHITECTURE.md")).unwrap();
    let after = text.split_once("compares this list with `cargo metadata`").expect("ARCHITECTURE.md states the crate graph").1;
    let block = after.split_once("```text\n").unwrap().1.split_once("```").unwrap().0;
    let stated: BTreeMap<String, BTreeSet<String>> = block
        .lines()
        .map(|line| {
            let (name, deps) = line.split_once(':').unwrap_or_else(|| panic!("`crate: deps` expected, not {line:?}"));
            (name.trim().to_string(), deps.split_whitespace().map(str::to_string).collect())
        })
        .collect();

    let cargo = std::env::var("CARGO").unwrap_or_else(|_| "cargo".to_string());
    let output = std::process::Command::new(cargo)
        .args(["metadata", "--format-version", "1", "--no-deps", "--offline"])
        .current_dir(repo_root())
        .output()
        .unwrap();
    assert!(output.status.success(), "cargo metadata failed: {}", String::from_utf8_lossy(&output.stderr));
    let metadata: serde_json::Value = serde_json::from_slice(&output.stdout).unwrap();
    let packages = metadata["packages"].as_array().unwrap();
    let members: BTreeSet<&str> = packages.iter().map(|p| p["name"].as_str().unwrap()).collect();
    let actual: BTreeMap<String, BTreeSet<String>> = packages
        .iter()
        .map(|p| {
            let deps = p["dependencies"].as_array().unwrap().iter();
            // Normal dependencies (`kind` null); dev- and build-dependencies are left out.
            let deps = deps.filter(|d| d["kind"].is_null()).map(|d| d["name"].as_str().unwrap()).filter(|d| members.contains(d));
            (p["name"].as_str().unwrap().to_string(), deps.map(str::to_string).collect())
        })
        .collect();
    let names: BTreeSet<&String> = stated.keys().chain(actual.keys()).collect();
    let wrong: Vec<String> = names
        .into_iter()
        .filter(|name| stated.get(*name) != actual.get(*name))
        .map(|name| format!("{name}: ARCHITECTURE.md says {:?}, cargo metadata {:?}", stated.get(name), actual.get(name)))
        .collect();
    assert!(wrong.is_empty(), "ARCHITECTURE.md's crate graph is out of date:\n{}", wrong.join("\n"));

    let mut shipped = BTreeSet::new();
    let mut next = vec!["crdls".to_string()];
    while let Some(name) = next.pop() {
        if shipped.insert(name.clone()) {
            next.extend(actual[&name].iter().cloned());
        }
    }
    assert!(!shipped.contains("crdls-test-fixture"), "the binary is built from the test fixtures: {shipped:?}");
}
