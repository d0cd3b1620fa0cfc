//! Files a documentation page includes: a Markdown page that shows a YAML file's text in a code block
//! through an include directive, where the file's objects have no name, shows a fragment of an example
//! (a spec without its name, a monitor without its selector), not an object to create. Found from the
//! pages' side: the directives that name the file.
//!
//! The directives read, each with the directory its path is relative to:
//! - mdox (`` ```yaml mdox-exec="cat example/x.yaml" ``), from the repository's root, where mdox runs;
//! - mdBook's `{{#include x.yaml}}` (with an optional `:anchor` or line range), from the page;
//! - MkDocs' snippets (`--8<-- "x.yaml"`), from the root (the extension's default base path) or the
//!   page;
//! - embedme (`<!-- embedme x.yaml -->`), from the page;
//! - Hugo's `readfile` and `code` shortcodes (`{{< readfile file="x.yaml" >}}`), from the root or the
//!   page.

use std::collections::HashMap;
use std::path::{Path, PathBuf};

/// How many Markdown pages below one root are read at most.
const MAX_PAGES: usize = 4096;
/// How many directories below one root are listed at most.
const MAX_DIRS: usize = 20_000;
/// How deep below the root pages are looked for.
const MAX_DEPTH: usize = 12;
/// The largest page read, in bytes; larger ones are skipped.
const MAX_PAGE_BYTES: u64 = 1024 * 1024;
/// How many bytes of pages below one root are read at most.
const MAX_TOTAL_BYTES: u64 = 64 * 1024 * 1024;

/// The YAML and JSON files that the Markdown pages below `root` include, resolved, each with the first
/// page (in walk order) that includes it.
pub(super) fn included_by_pages(root: &Path) -> HashMap<PathBuf, PathBuf> {
    let walk = super::RootWalk { depth: MAX_DEPTH, dirs: MAX_DIRS, files: MAX_PAGES, skip_testdata: false };
    let pages =
        super::files_below_root(root, walk, |name| [".md", ".markdown", ".mdx"].iter().any(|e| name.to_ascii_lowercase().ends_with(e)));
    let mut out = HashMap::new();
    let mut read = 0;
    for page in pages {
        let Ok(size) = std::fs::metadata(&page).map(|m| m.len()) else { continue };
        if size > MAX_PAGE_BYTES || read + size > MAX_TOTAL_BYTES {
            continue;
        }
        read += size;
        let Ok(text) = crate::files::read_text(&page) else { continue };
        let page_dir = page.parent().unwrap_or(root);
        for (written, bases) in includes(&text) {
            let written = Path::new(&written);
            if written.is_absolute() || !crate::files::is_yaml_or_json(written) {
                continue;
            }
            for base in bases {
                let dir = match base {
                    Base::Root => root,
                    Base::Page => page_dir,
                };
                let file = crate::files::normalize(&dir.join(written));
                if file.starts_with(root) {
                    out.entry(file).or_insert_with(|| page.clone());
                }
            }
        }
    }
    out
}

/// Whether a file a page includes shows a fragment rather than an object to copy: one of its objects
/// (a document with `apiVersion` and `kind`) has no `metadata.name` nor `generateName`.
pub(super) fn shows_a_fragment(stream: &crdls_yaml::Stream) -> bool {
    stream.documents.iter().filter_map(|d| d.root.as_ref()).any(|root| {
        let object = root.get("apiVersion").is_some() && root.get("kind").is_some();
        let named = root.get("metadata").is_some_and(|m| m.get("name").is_some() || m.get("generateName").is_some());
        object && !named
    })
}

/// What an included path is relative to.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Base {
    /// The repository's root.
    Root,
    /// The page's directory.
    Page,
}

/// The paths a page's include directives name, as written, each with the directories it may be
/// relative to.
fn includes(text: &str) -> Vec<(String, &'static [Base])> {
    let mut out = Vec::new();
    for line in text.lines() {
        let line = line.trim();
        if let Some(at) = line.find("mdox-exec=") {
            let command = quoted(&line[at + "mdox-exec=".len()..]);
            if let Some(path) = command.as_deref().and_then(|c| c.strip_prefix("cat ")) {
                out.push((path.trim().to_string(), &[Base::Root][..]));
            }
        }
        if let Some(at) = line.find("{{#include ") {
            let rest = &line[at + "{{#include ".len()..];
            if let Some(end) = rest.find("}}") {
                let path = rest[..end].trim();
                let path = path.split(':').next().unwrap_or(path);
                out.push((path.to_string(), &[Base::Page][..]));
            }
        }
        if let Some(rest) = line.strip_prefix("--8<--") {
            if let Some(path) = quoted(rest.trim()) {
                let path = path.split(':').next().unwrap_or(&path).to_string();
                out.push((path, &[Base::Root, Base::Page][..]));
            }
        }
        if let Some(at) = line.find("<!-- embedme ") {
            let rest = &line[at + "<!-- embedme ".len()..];
            if let Some(path) = rest.split_whitespace().next() {
                let path = path.split('#').next().unwrap_or(path);
                out.push((path.to_string(), &[Base::Page][..]));
            }
        }
        for shortcode in ["{{< readfile ", "{{% readfile ", "{{< code ", "{{% code "] {
            if let Some(at) = line.find(shortcode) {
                let rest = &line[at + shortcode.len()..];
                if let Some(value) = rest.find("file=").and_then(|i| quoted(&rest[i + "file=".len()..])) {
                    out.push((value, &[Base::Root, Base::Page][..]));
                }
            }
        }
    }
    out
}

/// The text between the quotes that open `text` (`"…"` or `'…'`).
fn quoted(text: &str) -> Option<String> {
    let quote = text.chars().next().filter(|c| *c == '"' || *c == '\'')?;
    let rest = &text[1..];
    rest.find(quote).map(|end| rest[..end].to_string())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn include_directives_of_several_tools_are_read() {
        let page = "# Guide\n```yaml mdox-exec=\"cat example/guide/monitor.yaml\"\n```\n{{#include ../examples/pod.yaml:spec}}\n\
                    --8<-- \"docs/snippets/svc.yaml\"\n<!-- embedme ./deploy.yaml#L1-L9 -->\n{{< readfile file=\"/static/x.yaml\" code=\"true\" >}}\n\
                    {{< code file='cm.json' >}}\nmdox-exec=\"go run ./cmd\"\n";
        let found: Vec<(String, Vec<Base>)> = includes(page).into_iter().map(|(p, b)| (p, b.to_vec())).collect();
        assert_eq!(
            found,
            [
                ("example/guide/monitor.yaml".to_string(), vec![Base::Root]),
                ("../examples/pod.yaml".to_string(), vec![Base::Page]),
                ("docs/snippets/svc.yaml".to_string(), vec![Base::Root, Base::Page]),
                ("./deploy.yaml".to_string(), vec![Base::Page]),
                ("/static/x.yaml".to_string(), vec![Base::Root, Base::Page]),
                ("cm.json".to_string(), vec![Base::Root, Base::Page]),
            ]
        );
    }
}
