//! The `glob` target: a pattern and a list of paths (the first line, then one path a line) through
//! `crdls_workspace::files::glob_match` and `expand`. Matching never panics, finishes within the
//! deadline however many `*` and `**` meet however long a name, and agrees with a small reference
//! matcher of the documented semantics; `expand`, over a scratch tree of the listed paths, returns only
//! files that exist there and that `glob_match` accepts.

use std::collections::HashMap;

use crdls_workspace::files::{expand, glob_match};

use crate::rng::Rng;
use crate::scratch::Scratch;

/// The most paths of an input made into files for `expand`.
const MAX_FILES: usize = 48;
/// The longest path made into a file (a file system takes 255 bytes a name, 4096 a path).
const MAX_FILE_PATH: usize = 1024;
/// The largest input the mutator builds.
const MAX_LEN: usize = 64 * 1024;

/// Pieces the mutator inserts into patterns and paths.
const PIECES: &[&str] = &[
    "*",
    "**",
    "**/",
    "/**",
    "/**/",
    "*/",
    "/*",
    "/",
    "./",
    "../",
    ".",
    "..",
    "a",
    "b",
    "x.yaml",
    ".yaml",
    ".json",
    ".tgz",
    "crds",
    "charts",
    ".hidden",
    "node_modules",
    "[",
    "]",
    "{a,b}",
    "?",
    "\\",
    " ",
    "é",
    "//",
    "*a*",
    "a*b",
    "***",
];

const SEEDS: &[&str] = &[
    "crds/**/*.yaml\ncrds/a.yaml\ncrds/sub/b.yaml\ncrds/sub/deep/c.yml\nother/d.yaml\ncrds/e.txt\n",
    "./config/*/crd-*.yml\nconfig/base/crd-widgets.yml\nconfig/base/other.yml\nconfig/a/b/crd-x.yml\n",
    "**/*.yaml\nx.yaml\na/b/c/x.yaml\n.hidden/y.yaml\nnode_modules/z.yaml\na/.b/c.yaml\n",
    "a/**/**/b/*.json\na/b/c.json\na/x/y/b/c.json\na/b/b/c.json\nb/c.json\n",
    "a/c**d.yaml\na/cxd.yaml\na/c/d.yaml\na/cd.yaml\n",
    "crds/[a]{b,c}?\\*.yaml\ncrds/[a]{b,c}?\\x.yaml\ncrds/ab.yaml\ncrds/[a]b?.yaml\n",
    "d/*a*a*a*a*a*b.yaml\nd/aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa.yaml\n",
    "**/**/**/**/**/**/**/**/**/x.yaml\nd/d/d/d/d/d/d/d/d/d/d/d/d/d/d/d/d/d/d/d/x.json\nd/x.yaml\n",
    "charts/*.tgz\ncharts/app-1.0.0.tgz\ncharts/app/crds/a.yaml\n",
    "*\na.yaml\nb\n",
];

/// The `glob` target: a pattern and the paths to lay out, one per line.
pub fn target(regressions: Vec<String>) -> super::FnTarget {
    super::FnTarget {
        name: "glob",
        extension: "txt",
        seeds: SEEDS.iter().map(|s| s.to_string()).chain(regressions).collect(),
        mutate,
        run,
        deadline: super::DEFAULT_DEADLINE,
        lines_only: false,
    }
}

/// A mutant: pieces inserted into or replacing parts of the pattern or a path, paths added, removed or
/// lengthened, a line of `other` taken, or a plain text mutation.
fn mutate(rng: &mut Rng, input: &str, other: &str) -> String {
    let mut lines: Vec<String> = input.lines().map(str::to_string).collect();
    if lines.is_empty() {
        lines.push(String::new());
    }
    for _ in 0..1 + rng.small_len(4) {
        let at = if rng.one_in(2) { 0 } else { rng.below(lines.len()) };
        match rng.below(9) {
            0..=2 => {
                let piece = *rng.pick(PIECES);
                let line = &mut lines[at];
                let i = crate::mutate::boundary(rng, line);
                line.insert_str(i, piece);
            }
            3 => {
                let line = &mut lines[at];
                let (a, b) = (crate::mutate::boundary(rng, line), crate::mutate::boundary(rng, line));
                let piece = *rng.pick(PIECES);
                line.replace_range(a.min(b)..a.max(b), piece);
            }
            4 => {
                // A path the pattern may match: the pattern with its stars filled in.
                let filled = fill(rng, &lines[0]);
                lines.push(filled);
            }
            5 if lines.len() > 1 => {
                lines.remove(1 + rng.below(lines.len() - 1));
            }
            6 => {
                // Long names and many segments, where a backtracking matcher is slow.
                let unit = *rng.pick(&["a", "a/", "ab", "d/", "*a", "**/", "x"]);
                let run = unit.repeat(1 + rng.small_len(400));
                let line = &mut lines[at];
                let i = crate::mutate::boundary(rng, line);
                line.insert_str(i, &run);
            }
            7 => {
                let theirs: Vec<&str> = other.lines().collect();
                if !theirs.is_empty() {
                    lines.push(rng.pick(&theirs).to_string());
                }
            }
            _ => {
                let text = lines.join("\n");
                let mutated = crate::mutate::mutate(rng, &text, other, crate::mutate::Dialect::Yaml, MAX_LEN);
                lines = mutated.lines().map(str::to_string).collect();
                if lines.is_empty() {
                    lines.push(String::new());
                }
            }
        }
    }
    let mut out = lines.join("\n");
    out.push('\n');
    if out.len() > MAX_LEN {
        let mut cut = MAX_LEN;
        while !out.is_char_boundary(cut) {
            cut -= 1;
        }
        out.truncate(cut);
    }
    out
}

/// The pattern with each `*` replaced by a few random characters, and each `**` segment by a few
/// segments: a path it likely matches.
fn fill(rng: &mut Rng, pattern: &str) -> String {
    let segments: Vec<String> = pattern
        .trim_start_matches("./")
        .split('/')
        .map(|s| match s {
            "**" => (0..rng.below(3)).map(|i| format!("s{i}")).collect::<Vec<_>>().join("/"),
            s => s.split('*').collect::<Vec<_>>().join(*rng.pick(&["", "x", "abc", "a.b"])),
        })
        .collect();
    segments.join("/").replace("//", "/")
}

/// Runs one input: the first line is the pattern, the others the paths.
pub fn run(input: &str) -> Result<(), String> {
    let mut lines = input.split('\n');
    let pattern = lines.next().unwrap_or_default();
    let paths: Vec<&str> = lines.collect();
    for path in &paths {
        let got = glob_match(pattern, path);
        let want = reference_match(pattern, path);
        if got != want {
            return Err(format!(
                "glob_match disagrees with the reference: {pattern:?} against {path:?} is {got}, the reference says {want}"
            ));
        }
    }
    check_expand(pattern, &paths)
}

/// The documented semantics (see `Glob` in `crdls-workspace/src/files.rs`), matched segment by segment:
/// `*` matches any characters within a segment (stars together are one star), `**` alone in a segment
/// matches any number of whole segments (none included, but for a trailing `**`), a leading `./` of the
/// pattern is dropped with the slashes after it, and
/// every other character stands for itself; a pattern without `*` matches only itself.
pub fn reference_match(pattern: &str, path: &str) -> bool {
    let mut pattern = pattern;
    while let Some(rest) = pattern.strip_prefix("./") {
        // `.//x` is `./x`: the slashes after a `./` do not make the pattern absolute.
        pattern = rest.trim_start_matches('/');
    }
    if !pattern.contains('*') {
        return pattern == path;
    }
    let ps: Vec<&str> = pattern.split('/').collect();
    let ss: Vec<&str> = path.split('/').collect();
    // A deviation of `globset` from the documentation, reported and left alone: a pattern of nothing but
    // `**/` segments (`**/`, `**/**/`) matches every path, as `**` does, where the documented semantics
    // would want a last segment that is empty. No file's path ends in `/`, so only `crdPaths: ["**/"]`
    // shows it (it finds every file instead of none).
    if ps.len() > 1 && ps.last() == Some(&"") && ps[..ps.len() - 1].iter().all(|p| *p == "**") {
        return true;
    }
    let mut memo = HashMap::new();
    segments_match(&ps, &ss, 0, 0, &mut memo)
}

fn segments_match(ps: &[&str], ss: &[&str], i: usize, j: usize, memo: &mut HashMap<(usize, usize), bool>) -> bool {
    if let Some(&known) = memo.get(&(i, j)) {
        return known;
    }
    let result = match ps.get(i) {
        None => j == ss.len(),
        // A `**` that ends the pattern after a segment matches everything below it, not the segment
        // itself (`crds/**` is not `crds`), as in `.gitignore` and `globset`; the documentation's "none
        // included" holds everywhere else.
        Some(&"**") if i > 0 && i + 1 == ps.len() => j < ss.len(),
        Some(&"**") => (j..=ss.len()).any(|k| segments_match(ps, ss, i + 1, k, memo)),
        Some(p) => j < ss.len() && segment_match(p, ss[j]) && segments_match(ps, ss, i + 1, j + 1, memo),
    };
    memo.insert((i, j), result);
    result
}

/// Whether one segment matches a pattern segment where `*` matches any characters (linear in the
/// segment's length times the pattern's, by dynamic programming over the pattern's prefixes).
fn segment_match(pattern: &str, segment: &str) -> bool {
    let p: Vec<char> = pattern.chars().collect();
    let s: Vec<char> = segment.chars().collect();
    // reach[k]: the first k characters of the pattern can match the segment's prefix read so far.
    let mut reach = vec![false; p.len() + 1];
    reach[0] = true;
    for k in 0..p.len() {
        if p[k] == '*' && reach[k] {
            reach[k + 1] = true;
        }
    }
    for &c in &s {
        let mut next = vec![false; p.len() + 1];
        for k in 0..p.len() {
            if reach[k] && (p[k] == '*' || p[k] == c) {
                next[k + if p[k] == '*' { 0 } else { 1 }] = true;
            }
        }
        for k in 0..p.len() {
            if p[k] == '*' && next[k] {
                next[k + 1] = true;
            }
        }
        reach = next;
    }
    reach[p.len()]
}

/// `expand` over a scratch tree of the input's paths: everything it returns exists there and is accepted
/// by `glob_match`. Patterns that could walk out of the scratch tree (absolute, with `..`) or that are
/// plain paths are left out.
fn check_expand(pattern: &str, paths: &[&str]) -> Result<(), String> {
    let escapes = pattern.starts_with('/') || pattern.split('/').any(|s| s == "..");
    if !pattern.contains('*') || escapes || pattern.contains('\0') {
        return Ok(());
    }
    let scratch = Scratch::new("glob")?;
    let root = scratch.path();
    let mut made = 0;
    for path in paths {
        let fits = !path.is_empty() && path.len() <= MAX_FILE_PATH && path.split('/').all(|s| s.len() <= 200 && s != "..");
        if !fits || path.starts_with('/') || path.contains('\0') || made >= MAX_FILES {
            continue;
        }
        let file = root.join(path);
        if let Some(parent) = file.parent() {
            let _ = std::fs::create_dir_all(parent);
        }
        if std::fs::write(&file, "").is_ok() {
            made += 1;
        }
    }
    let expansion = expand(root, pattern);
    for file in &expansion.files {
        let Ok(relative) = file.strip_prefix(root) else {
            return Err(format!("expand({pattern:?}) returned {}, outside the tree it was given", file.display()));
        };
        if !file.is_file() {
            return Err(format!("expand({pattern:?}) returned {}, which is not a file of the tree", relative.display()));
        }
        let relative = relative.to_string_lossy();
        if !glob_match(pattern, &relative) {
            return Err(format!("expand returned a file glob_match rejects: {pattern:?} and {relative:?}"));
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_reference_follows_the_documented_examples() {
        assert!(reference_match("crds/**/*.yaml", "crds/a/b/x.yaml"));
        assert!(reference_match("crds/**/*.yaml", "crds/x.yaml"));
        assert!(!reference_match("crds/*.yaml", "crds/a/x.yaml"));
        assert!(reference_match("./config/*/crd-*.yml", "config/base/crd-widgets.yml"));
        assert!(reference_match("a/**/**/b/*.json", "a/b/c.json"));
        assert!(reference_match("a/c**d.yaml", "a/cxd.yaml"));
        assert!(!reference_match("a/c**d.yaml", "a/c/d.yaml"));
        assert!(reference_match("crds/[a]{b,c}?\\*.yaml", "crds/[a]{b,c}?\\x.yaml"));
        assert!(!reference_match("crds/x?*.yaml", "crds/xy.yaml"));
        assert!(reference_match("./crds/a.yaml", "crds/a.yaml"));
        assert!(reference_match(".//crds/*.yaml", "crds/a.yaml"));
        assert!(reference_match("crds/**", "crds/a/b"));
        assert!(!reference_match("crds/**", "crds"));
        assert!(reference_match("**/**/", "x/y"));
        assert!(!reference_match("a/**/", "a/x"));
        assert!(!reference_match("d/*a*a*a*a*a*b.yaml", &format!("d/{}.yaml", "a".repeat(200))));
    }

    #[test]
    fn the_seeds_pass() {
        for seed in SEEDS {
            assert_eq!(run(seed), Ok(()), "{seed}");
        }
    }
}
