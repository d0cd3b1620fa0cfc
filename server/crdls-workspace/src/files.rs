//! Finding the files crdls reads: YAML and JSON files below a directory (skipping hidden directories,
//! `node_modules`, `target` and a Go module's `vendor` tree, and, unless asked, test material: `testdata` directories and expected
//! outputs such as golden files), and configured paths that may be globs (`crds/**/*.yaml`).

use std::path::{Component, Path, PathBuf};

/// The largest file crdls reads. The API server takes at most 3 MiB in one request; generated bundles
/// of several CRDs are larger, so the limit is generous.
pub const MAX_FILE_BYTES: u64 = 16 * 1024 * 1024;

/// Why a file's text could not be read: the one error of every bounded read crdls makes (the
/// workspace's files here, the cache's entries and kubeconfigs in `crdls-sources`).
pub use crdls_sources::read::ReadError;

/// The text of the file at `path` (symbolic links followed): only a regular file, at most
/// [`MAX_FILE_BYTES`], in UTF-8. It never blocks on a FIFO nor reads a device without end. The rules
/// are `crdls_sources::read`'s, which the cache and the kubeconfig are read through as well.
pub fn read_text(path: &Path) -> Result<String, ReadError> {
    crdls_sources::read::read_text(path, MAX_FILE_BYTES)
}

/// Whether `path` lies inside `root` once `..` and symbolic links are resolved, and outside its `.git`
/// directory (where a clone's credentials may sit in a remote's URL): the places a reference written in
/// a workspace file may lead (a kustomization's patch, a policy generator, a CRD path of an untrusted
/// `crdls.toml`). An empty path stands for the working directory. A path that cannot be resolved (it
/// does not exist, or its links loop) is an error of its own.
pub fn stays_inside(root: &Path, path: &Path) -> std::io::Result<bool> {
    let here = |p: &Path| if p.as_os_str().is_empty() { PathBuf::from(".") } else { p.to_path_buf() };
    // The target first: most names a directory is looked at for are missing, and cost one call so.
    let target = std::fs::canonicalize(here(path))?;
    let root = std::fs::canonicalize(here(root))?;
    Ok(crdls_sources::read::resolved_inside(&root, &target))
}

/// The text of a file that a workspace file refers to, when it stays inside `root` (see
/// [`stays_inside`]); read as [`read_text`] reads (a regular file, at most [`MAX_FILE_BYTES`], UTF-8).
/// This is how a reference written in a repository is followed: `../../../etc/passwd`, `/root/.kube/config`
/// or a link to `~/.ssh` is [`ReadError::Outside`], and never opened. What is opened is the path as
/// resolved by the check, and where the opened file lies is checked again before reading (see
/// `crdls_sources::read::read_text_inside`), so swapping a directory for a link meanwhile does not
/// lead out.
pub fn read_inside(root: &Path, path: &Path) -> Result<String, ReadError> {
    crdls_sources::read::read_text_inside(root, path, MAX_FILE_BYTES)
}

/// Whether a path names a file crdls reads.
pub fn is_yaml_or_json(path: &Path) -> bool {
    path.extension().and_then(|e| e.to_str()).is_some_and(|e| matches!(e, "yaml" | "yml" | "json"))
}

/// `path` with `.` and `..` resolved lexically, so that names from different files compare equal.
pub fn normalize(path: &Path) -> PathBuf {
    let mut out = PathBuf::new();
    for component in path.components() {
        match component {
            Component::CurDir => {}
            Component::ParentDir => {
                if !out.pop() {
                    out.push("..");
                }
            }
            other => out.push(other),
        }
    }
    out
}

/// Whether a path found while walking is a Helm chart archive whose CRDs count: a `.tgz` in a
/// `charts/` directory, where `helm dependency build` puts a chart's dependencies.
pub fn is_dependency_archive(path: &Path) -> bool {
    crdls_sources::archive::is_chart_archive(path) && path.parent().and_then(Path::file_name).is_some_and(|n| n == "charts")
}

/// What a walk found.
#[derive(Debug, Default)]
pub struct Walk {
    /// YAML and JSON files.
    pub files: Vec<PathBuf>,
    /// Helm chart archives in `charts/` directories (see [`is_dependency_archive`]).
    pub archives: Vec<PathBuf>,
    /// Hidden directories (`.git` aside) and hidden files skipped, so a run can say that test
    /// directories such as `.chainsaw-test`, or tools' settings such as `.markdownlint.json`, were not
    /// looked at.
    pub hidden: Vec<PathBuf>,
    /// Symbolic links whose target lies outside the walked directory, or in a hidden directory of it:
    /// not followed, since a repository's link could otherwise make crdls read, and print, a file such
    /// as a kubeconfig or `.git/config`.
    pub links_out: Vec<PathBuf>,
    /// Test material skipped (see [`WalkOptions::include_testdata`]): `testdata` directories and
    /// expected outputs ([`is_expected_output`]).
    pub test_material: Vec<PathBuf>,
}

/// What a directory walk looks at beyond the manifests.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct WalkOptions {
    /// Whether `testdata` directories and expected outputs are walked too. They are not by default:
    /// the Go tool ignores `testdata` directories, which hold a test's inputs and expected outputs,
    /// often invalid on purpose, and a golden file is what a program printed, not what anyone applies.
    pub include_testdata: bool,
}

/// The name the Go tool gives a directory of test data, which it leaves out of packages; projects in
/// every language of the Kubernetes ecosystem follow it.
pub const TESTDATA_DIR: &str = "testdata";

/// The directories where snapshot tests keep what a program printed: helm-unittest's `__snapshot__`
/// and Jest's `__snapshots__`. Their YAML is output (often placeholder values for every field), not
/// something anyone applies.
pub const SNAPSHOT_DIRS: &[&str] = &["__snapshot__", "__snapshots__"];

/// The directories of golden-file tests: a renderer's output, compared as text (its documents often
/// run together). Plainer words than [`SNAPSHOT_DIRS`], so they count only below the root of a walk or
/// of the workspace (a project may itself live in a directory named so).
///
/// `compare` is where shell-driven end-to-end suites keep what they diff `kubectl get -o yaml` against
/// (objects with the server's fields deleted: containers without `image`, owner references without
/// `uid`), beside the `conf` directory of what they apply.
pub const GOLDEN_DIRS: &[&str] = &["expected", "golden", "goldens", "compare"];

/// The directories of fakes: Go's convention (`k8s.io/client-go/kubernetes/fake`) for the stand-ins a
/// unit test uses instead of an API server. The YAML there is what the fake serves to the code under
/// test (a Pod under whatever apiVersion the test decodes it with), not something anyone applies.
pub const FAKE_DIRS: &[&str] = &["fake", "fakes"];

/// The names of the output half of a conversion test's fixture pair (see [`is_paired_output_dir`]).
pub const OUTPUT_DIRS: &[&str] = &["output", "outputs", "out"];
/// The names of the input half of a conversion test's fixture pair (see [`is_paired_output_dir`]).
pub const INPUT_DIRS: &[&str] = &["input", "inputs", "in"];
/// The most entries of each directory of a fixture pair looked at: a hostile tree costs no more.
const MAX_PAIR_ENTRIES: usize = 10_000;

/// Whether the directory at `path` holds the expected outputs of a conversion test: it is named
/// `output` (or `outputs`, `out`), and a sibling directory named `input` (`inputs`, `in`) holds a YAML
/// or JSON file of the same name as one of its own. A converter's test reads each input and compares
/// what the program printed with the output of the same name (`fixtures/input/ingress.yaml` and
/// `fixtures/output/ingress.yaml`): a golden, often with the program's warnings printed before the
/// YAML, not something anyone applies. Neither name alone says so (a build's `out/` is what users
/// apply); the pair of files does.
pub fn is_paired_output_dir(path: &Path) -> bool {
    let Some(name) = path.file_name().map(|n| n.to_string_lossy()) else { return false };
    if !OUTPUT_DIRS.contains(&&*name) {
        return false;
    }
    let Some(parent) = path.parent() else { return false };
    let names = |dir: &Path| -> std::collections::BTreeSet<std::ffi::OsString> {
        let Ok(entries) = std::fs::read_dir(dir) else { return Default::default() };
        entries
            .flatten()
            .take(MAX_PAIR_ENTRIES)
            .filter(|e| e.file_type().is_ok_and(|t| t.is_file()) && is_yaml_or_json(&e.path()))
            .map(|e| e.file_name())
            .collect()
    };
    let outputs = names(path);
    !outputs.is_empty()
        && INPUT_DIRS.iter().any(|input| {
            let dir = parent.join(input);
            dir.is_dir() && names(&dir).iter().any(|n| outputs.contains(n))
        })
}

/// Whether a directory of this name holds test material that a walk skips unless asked. `_testdata` is
/// a `testdata` directory too: the Go tool ignores every directory whose name starts with `_`, and
/// projects name their test data so when it lies beside code that is not a package of its own.
pub fn is_test_material_dir(name: &str) -> bool {
    is_testdata_dir(name) || SNAPSHOT_DIRS.contains(&name) || GOLDEN_DIRS.contains(&name) || FAKE_DIRS.contains(&name)
}

/// Whether a directory of this name is a `testdata` directory: `testdata` or `_testdata`.
pub fn is_testdata_dir(name: &str) -> bool {
    name.strip_prefix('_').unwrap_or(name) == TESTDATA_DIR
}

/// Whether a file is, by its name, an expected output of a test rather than an input: a golden file
/// (`deploy.golden.yaml`, `golden.json`, `out_golden.yml`, as Go's golden-file tests and others name
/// them) or an expected output (`expected.yaml`, `gateway.expected.yaml`, `expected-patch.yaml`).
/// The words of the name are told apart at `.`, `-` and `_`, so `goldengate.yaml` or
/// `unexpected.yaml` are not. A file in a snapshot directory ([`SNAPSHOT_DIRS`]) is one too; one in a
/// golden directory ([`GOLDEN_DIRS`]) is when that directory lies below the workspace's root (see
/// `Workspace::golden_dir_of`).
pub fn is_expected_output(path: &Path) -> bool {
    let in_snapshots =
        path.parent().is_some_and(|dir| dir.components().any(|c| SNAPSHOT_DIRS.contains(&&*c.as_os_str().to_string_lossy())));
    in_snapshots || named_as_expected_output(path)
}

/// Whether a file's own name says it is an expected output (the first half of [`is_expected_output`]):
/// what a walk skips, since a snapshot directory named as the walk's root was asked for.
fn named_as_expected_output(path: &Path) -> bool {
    let Some(name) = path.file_name().map(|n| n.to_string_lossy().to_ascii_lowercase()) else { return false };
    name.split(['.', '-', '_']).any(|word| matches!(word, "golden" | "goldens" | "expected")) || is_paired_output_file(path)
}

/// Whether a file is the output half of a pair of files: `NAME.out.yaml` beside `NAME.in.yaml` or
/// `NAME.yaml` (any YAML or JSON extension on either). A test renders or converts the input and compares
/// the result with the output of the same name (`helm template -f x.in.yaml > x.out.yaml`, a round
/// trip through a serializer): a golden, not something anyone applies. `.out` alone says nothing (a
/// build may write `app.out.yaml` for users); the input beside it does. Two lookups of file metadata.
pub fn is_paired_output_file(path: &Path) -> bool {
    let Some(name) = path.file_name().and_then(|n| n.to_str()) else { return false };
    let Some((stem, ext)) = name.rsplit_once('.') else { return false };
    let Some(stem) = stem.strip_suffix(".out").filter(|s| !s.is_empty()) else { return false };
    if !matches!(ext.to_ascii_lowercase().as_str(), "yaml" | "yml" | "json") {
        return false;
    }
    let dir = path.parent().unwrap_or(Path::new(""));
    ["yaml", "yml", "json"].iter().any(|e| dir.join(format!("{stem}.in.{e}")).is_file() || dir.join(format!("{stem}.{e}")).is_file())
}

/// Whether the directory at `path`, named `name`, holds dependencies or build output rather than the
/// project's files: `node_modules`, `target`, or a Go module's `vendor` tree (it holds `modules.txt`,
/// which `go mod vendor` writes): copies of other modules' files at whatever version they were
/// vendored, which the project does not apply.
pub fn is_dependency_dir(path: &Path, name: &str) -> bool {
    match name {
        "node_modules" | "target" => true,
        "vendor" => path.join("modules.txt").is_file(),
        _ => false,
    }
}

/// Every YAML or JSON file below `root` (hidden directories, dependencies (see [`is_dependency_dir`])
/// and test material skipped).
pub fn files_below(root: &Path, out: &mut Vec<PathBuf>) {
    let mut found = walk_below(root, WalkOptions::default());
    out.append(&mut found.files);
}

/// The YAML and JSON files, the chart archives and the skipped hidden directories and test material
/// below `root`.
pub fn walk_below(root: &Path, options: WalkOptions) -> Walk {
    let mut found = Walk::default();
    let top = std::fs::canonicalize(root).ok();
    walk(root, top.as_deref(), options, &mut found);
    found
}

/// Whether the symbolic link at `path` leads to a place inside `top` (canonical) that is not hidden.
fn link_stays_inside(path: &Path, top: Option<&Path>) -> bool {
    let (Some(top), Ok(target)) = (top, std::fs::canonicalize(path)) else { return false };
    let Ok(inside) = target.strip_prefix(top) else { return false };
    !inside.components().any(|c| c.as_os_str().to_string_lossy().starts_with('.'))
}

/// Walks `root` depth first, each directory's entries in the order the system lists them. The walk
/// keeps its own stack of directories still to finish, each as a list of its entries (no directory stays
/// open), so a hostile tree as deep as paths may be costs memory, not the thread's stack: a walk on
/// the editor's 2 MiB blocking threads once overflowed it, which aborts the whole server.
fn walk(root: &Path, top: Option<&Path>, options: WalkOptions, found: &mut Walk) {
    if root.is_file() {
        if is_yaml_or_json(root) {
            found.files.push(root.to_path_buf());
        } else if crdls_sources::archive::is_chart_archive(root) {
            found.archives.push(root.to_path_buf());
        }
        return;
    }
    let list = |dir: &Path| -> std::vec::IntoIter<(PathBuf, std::fs::FileType)> {
        let Ok(entries) = std::fs::read_dir(dir) else { return Vec::new().into_iter() };
        entries.flatten().filter_map(|e| e.file_type().ok().map(|ty| (e.path(), ty))).collect::<Vec<_>>().into_iter()
    };
    let mut pending = vec![list(root)];
    while let Some(entries) = pending.last_mut() {
        let Some((path, ty)) = entries.next() else {
            pending.pop();
            continue;
        };
        let name = path.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_default();
        if ty.is_dir() {
            if name.starts_with('.') {
                if name != ".git" {
                    found.hidden.push(path);
                }
            } else if (is_test_material_dir(&name) || is_paired_output_dir(&path)) && !options.include_testdata {
                found.test_material.push(path);
            } else if !is_dependency_dir(&path, &name) {
                pending.push(list(&path));
            }
        } else if name.starts_with('.') {
            if is_yaml_or_json(&path) {
                found.hidden.push(path);
            }
        } else if !options.include_testdata && is_yaml_or_json(&path) && named_as_expected_output(&path) {
            found.test_material.push(path);
        } else if ty.is_symlink() && (is_yaml_or_json(&path) || is_dependency_archive(&path)) && !link_stays_inside(&path, top) {
            found.links_out.push(path);
        } else if is_yaml_or_json(&path) {
            found.files.push(path);
        } else if ty.is_file() && is_dependency_archive(&path) {
            found.archives.push(path);
        }
    }
}

/// The deepest a glob with `**` walks below the directory its literal part names. Deeper files are
/// not looked at (a glob without `**` walks only as deep as it has segments).
pub const MAX_GLOB_DEPTH: usize = 64;
/// The most directory entries a glob looks at before it stops, so that `/**/*.yaml` cannot walk a
/// whole file system.
pub const MAX_GLOB_ENTRIES: usize = 1_000_000;

/// What a configured CRD path stood for.
#[derive(Debug, Default)]
pub struct Expansion {
    /// The files (and chart archives) found, in the order of the walk.
    pub files: Vec<PathBuf>,
    /// Why the walk of a glob did not look at everything, when it did not (too many entries, too
    /// deep): what it found is in `files` all the same.
    pub limited: Option<String>,
}

/// The files a configured CRD path stands for: a file, a directory, or a glob with `*` and `**`. Chart
/// archives are among them when named, matched by the glob, or in a `charts/` directory below. A
/// relative glob is matched against paths relative to `root`, an absolute one against whole paths.
pub fn expand(root: &Path, pattern: &str) -> Expansion {
    expand_within(root, pattern, Limits { depth: MAX_GLOB_DEPTH, entries: MAX_GLOB_ENTRIES })
}

/// How far a glob's walk goes.
#[derive(Clone, Copy)]
struct Limits {
    /// Directory levels below the glob's base, for a glob with `**`.
    depth: usize,
    /// Directory entries looked at.
    entries: usize,
}

fn expand_within(root: &Path, pattern: &str, limits: Limits) -> Expansion {
    let Some(glob) = Glob::new(pattern) else {
        let found = walk_below(&root.join(pattern), WalkOptions::default());
        let mut files = found.files;
        files.extend(found.archives);
        return Expansion { files, limited: None };
    };
    let base = root.join(&glob.base);
    let mut walk = GlobWalk { glob: &glob, root, limits, entries: 0, too_deep: false, found: Expansion::default() };
    if base.is_file() {
        walk.consider(&base);
    } else {
        walk.directory(&base, 0, false);
    }
    if walk.too_deep && walk.found.limited.is_none() {
        walk.found.limited = Some(format!("did not look deeper than {} directories below the pattern's literal part", limits.depth));
    }
    walk.found
}

/// A glob as crdls reads one: `*` matches within a path segment, `**` alone in a segment spans any
/// number of segments (none included), a leading `./` is dropped (with the slashes after it), and
/// every other character stands for itself. Matching runs in time linear in the path's length (`globset`, which compiles to a regular
/// expression), whatever the pattern.
struct Glob {
    matcher: globset::GlobMatcher,
    /// The leading segments without `*`, where the walk starts.
    base: PathBuf,
    /// How deep below `base` a matching file can be, or `None` with `**`.
    depth: Option<usize>,
    /// Whether the pattern names chart archives, which are then looked for wherever they are.
    archives: bool,
    /// Whether the pattern is an absolute path, matched against whole paths.
    absolute: bool,
}

impl Glob {
    /// The glob of `pattern`, or `None` when it holds no `*` (a plain path).
    fn new(pattern: &str) -> Option<Glob> {
        if !pattern.contains('*') {
            return None;
        }
        let pattern = without_dot_slash(pattern);
        let segments: Vec<&str> = pattern.split('/').collect();
        let literal = segments.iter().take_while(|part| !part.contains('*')).count();
        let rest = &segments[literal..];
        // globset's syntax knows more than `*` and `**`: everything else is escaped, so that `[`, `{`
        // and `?` in a name stand for themselves as they always did here.
        let mut translated = String::with_capacity(pattern.len() + 8);
        for (i, segment) in segments.iter().enumerate() {
            if i > 0 {
                translated.push('/');
            }
            if *segment == "**" {
                translated.push_str("**");
                continue;
            }
            let mut star = false;
            for c in segment.chars() {
                match c {
                    // Stars together within a segment are one star.
                    '*' if star => {}
                    '*' => translated.push('*'),
                    '?' | '[' | ']' | '{' | '}' | '\\' => {
                        translated.push('\\');
                        translated.push(c);
                    }
                    c => translated.push(c),
                }
                star = c == '*';
            }
        }
        let matcher = globset::GlobBuilder::new(&translated)
            .literal_separator(true)
            .backslash_escape(true)
            .empty_alternates(false)
            .build()
            .ok()?
            .compile_matcher();
        // `/*.yaml` starts from the root directory, whose segment before the first `/` is empty.
        let base = match segments[..literal].join("/") {
            base if base.is_empty() && pattern.starts_with('/') => PathBuf::from("/"),
            base => PathBuf::from(base),
        };
        Some(Glob {
            matcher,
            base,
            depth: (!rest.contains(&"**")).then_some(rest.len()),
            archives: crdls_sources::archive::is_chart_archive(Path::new(pattern)),
            absolute: Path::new(pattern).is_absolute(),
        })
    }

    /// Whether `path` (relative to the root the glob is read from, or whole for an absolute glob) matches.
    fn is_match(&self, path: &Path) -> bool {
        self.matcher.is_match(path)
    }
}

/// One walk of a glob's base directory, bounded in depth and in entries looked at.
struct GlobWalk<'a> {
    glob: &'a Glob,
    root: &'a Path,
    limits: Limits,
    entries: usize,
    too_deep: bool,
    found: Expansion,
}

impl GlobWalk<'_> {
    /// Walks `dir`, `depth` levels below the glob's base. Hidden directories are skipped, as are
    /// dependencies (`node_modules`, `target`, a Go `vendor` tree; `excluded` below them), where only
    /// chart archives are looked for.
    fn directory(&mut self, dir: &Path, depth: usize, excluded: bool) {
        let Ok(entries) = std::fs::read_dir(dir) else { return };
        for entry in entries.flatten() {
            if self.found.limited.is_some() {
                return;
            }
            self.entries += 1;
            if self.entries > self.limits.entries {
                self.found.limited = Some(format!("stopped after looking at {} directory entries", self.limits.entries));
                return;
            }
            let path = entry.path();
            let Ok(ty) = entry.file_type() else { continue };
            if ty.is_dir() {
                let name = entry.file_name();
                let name = name.to_string_lossy();
                let skipped = is_dependency_dir(&path, &name);
                if name.starts_with('.') || (skipped && !self.glob.archives) {
                    continue;
                }
                match self.glob.depth {
                    // A file below this directory would be deeper than the glob reaches.
                    Some(depth_limit) if depth + 1 >= depth_limit => {}
                    None if depth + 1 >= self.limits.depth => self.too_deep = true,
                    _ => self.directory(&path, depth + 1, excluded || skipped),
                }
            } else if (!excluded && is_yaml_or_json(&path))
                || (self.glob.archives && ty.is_file() && crdls_sources::archive::is_chart_archive(&path))
            {
                self.consider(&path);
            }
        }
    }

    /// Keeps `path` if the glob matches it.
    fn consider(&mut self, path: &Path) {
        let matched = if self.glob.absolute {
            self.glob.is_match(path)
        } else {
            path.strip_prefix(self.root).is_ok_and(|relative| self.glob.is_match(relative))
        };
        if matched {
            self.found.files.push(path.to_path_buf());
        }
    }
}

/// Matches a `/`-separated path against a glob where `*` stays within a segment and `**` spans
/// segments (see `Glob`); a pattern without `*` matches only itself.
pub fn glob_match(pattern: &str, path: &str) -> bool {
    match Glob::new(pattern) {
        Some(glob) => glob.is_match(Path::new(path)),
        None => without_dot_slash(pattern) == path,
    }
}

/// A pattern without its leading `./` (any number of them), nor the slashes that follow one: `.//x` is
/// `./x`, relative, as a shell reads it, and never the absolute `/x`.
fn without_dot_slash(pattern: &str) -> &str {
    let mut rest = pattern;
    while let Some(after) = rest.strip_prefix("./") {
        rest = after.trim_start_matches('/');
    }
    rest
}

/// Reads the file at `path` again, as it is then, for what is built from it later (a CRD's schemas,
/// built on first use).
pub fn reader_of(path: std::path::PathBuf) -> crdls_crd::TextReader {
    std::sync::Arc::new(move || read_text(&path).ok().map(std::sync::Arc::from))
}

/// Like [`reader_of`], for a file crdls wrote to its cache (a download, a cluster's listing): read up
/// to the cache's own limit (a cluster of a thousand CRDs lists far more than the 16 MiB a workspace
/// file may have), and only if it is still a regular file.
pub fn reader_of_cached(path: std::path::PathBuf) -> crdls_crd::TextReader {
    std::sync::Arc::new(move || crdls_sources::cache::read_entry(&path).ok().map(std::sync::Arc::from))
}

/// A text kept in memory, for what is built from it later.
pub fn reader_of_text(text: std::sync::Arc<str>) -> crdls_crd::TextReader {
    std::sync::Arc::new(move || Some(text.clone()))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn expected_outputs_are_told_by_the_words_of_their_names() {
        for name in [
            "deploy.golden.yaml",
            "golden.json",
            "out_golden.yml",
            "expected.yaml",
            "gateway.expected.yaml",
            "expected-patch.yaml",
            "x.goldens.yaml",
            "tests/__snapshot__/deployment_test.yaml.snap",
            "charts/x/tests/__snapshot__/crd.yaml",
            "web/__snapshots__/manifest.yaml",
        ] {
            assert!(is_expected_output(Path::new(name)), "{name}");
        }
        for name in ["goldengate.yaml", "unexpected.yaml", "expectations.yaml", "deploy.yaml", "golden", "tests/expected/bundle.yaml"] {
            assert_eq!(is_expected_output(Path::new(name)), name == "golden", "{name}");
        }
    }

    #[test]
    fn an_out_file_is_an_output_only_beside_its_input() {
        let dir = std::env::temp_dir().join(format!("crdls-paired-out-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).unwrap();
        for file in ["labels.in.yaml", "labels.out.yaml", "round.yaml", "round.out.yml", "alone.out.yaml", "in.out.yaml"] {
            std::fs::write(dir.join(file), "a: 1\n").unwrap();
        }
        assert!(is_expected_output(&dir.join("labels.out.yaml")), "beside its .in input");
        assert!(is_expected_output(&dir.join("round.out.yml")), "beside the file it round-trips");
        assert!(!is_expected_output(&dir.join("alone.out.yaml")), "no input beside it: a build's output, applied");
        assert!(!is_expected_output(&dir.join("labels.in.yaml")));
        assert!(!is_expected_output(&dir.join("round.yaml")));
        assert!(!is_paired_output_file(&dir.join(".out.yaml")));
        let _ = std::fs::remove_dir_all(&dir);
    }

    #[test]
    fn a_walk_skips_testdata_and_expected_outputs_unless_asked() {
        let dir = std::env::temp_dir().join(format!("crdls-walk-testdata-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        for file in [
            "app/deploy.yaml",
            "app/testdata/in.yaml",
            "cli/_testdata/resources.yaml",
            "injector/fake/data/pod.yaml",
            "app/deploy.golden.yaml",
            "app/expected.json",
            "app/notes.golden",
            "chart/tests/__snapshot__/all.yaml",
            "tests/expected/bundle.yaml",
            "e2e-tests/limits/compare/statefulset.yml",
            "helm/labels.in.yaml",
            "helm/labels.out.yaml",
        ] {
            write_small_file(&dir.join(file));
        }
        let names = |paths: &[PathBuf]| relative_names(&dir, paths);
        let walked = walk_below(&dir, WalkOptions::default());
        assert_eq!(names(&walked.files), ["app/deploy.yaml", "helm/labels.in.yaml"]);
        assert_eq!(
            names(&walked.test_material),
            [
                "app/deploy.golden.yaml",
                "app/expected.json",
                "app/testdata",
                "chart/tests/__snapshot__",
                "cli/_testdata",
                "e2e-tests/limits/compare",
                "helm/labels.out.yaml",
                "injector/fake",
                "tests/expected"
            ]
        );
        let walked = walk_below(&dir, WalkOptions { include_testdata: true });
        assert_eq!(
            names(&walked.files),
            [
                "app/deploy.golden.yaml",
                "app/deploy.yaml",
                "app/expected.json",
                "app/testdata/in.yaml",
                "chart/tests/__snapshot__/all.yaml",
                "cli/_testdata/resources.yaml",
                "e2e-tests/limits/compare/statefulset.yml",
                "helm/labels.in.yaml",
                "helm/labels.out.yaml",
                "injector/fake/data/pod.yaml",
                "tests/expected/bundle.yaml"
            ]
        );
        assert!(walked.test_material.is_empty());
        // Only `testdata` with an underscore before it is one: other words are not.
        assert!(is_testdata_dir("_testdata") && !is_testdata_dir("__testdata") && !is_testdata_dir("testdata_old"));
        // A testdata directory walked from itself is walked: it was named.
        assert_eq!(names(&walk_below(&dir.join("app/testdata"), WalkOptions::default()).files), ["app/testdata/in.yaml"]);
        let snapshots = walk_below(&dir.join("chart/tests/__snapshot__"), WalkOptions::default());
        assert_eq!(names(&snapshots.files), ["chart/tests/__snapshot__/all.yaml"]);
        let _ = std::fs::remove_dir_all(&dir);
    }

    #[test]
    fn a_walk_skips_the_outputs_of_a_conversion_tests_fixture_pairs() {
        let dir = scratch("walk-fixture-pairs");
        let _ = std::fs::remove_dir_all(&dir);
        for file in [
            // A converter's fixtures: each output has the name of the input it was printed from.
            "convert/fixtures/input/ingress.yaml",
            "convert/fixtures/output/ingress.yaml",
            "plural/inputs/a.yaml",
            "plural/outputs/a.yaml",
            // A build's output beside an input that shares no file name: what users apply.
            "build/in/values.yaml",
            "build/out/install.yaml",
            // An output directory without an input beside it.
            "render/output/bundle.yaml",
        ] {
            write_small_file(&dir.join(file));
        }
        let names = |paths: &[PathBuf]| relative_names(&dir, paths);
        let walked = walk_below(&dir, WalkOptions::default());
        assert_eq!(names(&walked.test_material), ["convert/fixtures/output", "plural/outputs"]);
        assert_eq!(
            names(&walked.files),
            [
                "build/in/values.yaml",
                "build/out/install.yaml",
                "convert/fixtures/input/ingress.yaml",
                "plural/inputs/a.yaml",
                "render/output/bundle.yaml"
            ]
        );
        assert!(is_paired_output_dir(&dir.join("convert/fixtures/output")));
        assert!(!is_paired_output_dir(&dir.join("convert/fixtures/input")) && !is_paired_output_dir(&dir.join("build/out")));
        let walked = walk_below(&dir, WalkOptions { include_testdata: true });
        assert!(walked.test_material.is_empty() && walked.files.len() == 7);
        let _ = std::fs::remove_dir_all(&dir);
    }

    #[test]
    fn a_walk_skips_a_go_vendor_tree_but_not_a_directory_named_vendor() {
        let dir = scratch("walk-vendor");
        let _ = std::fs::remove_dir_all(&dir);
        for sub in ["go/vendor/github.com/x/api", "web/vendor"] {
            std::fs::create_dir_all(dir.join(sub)).unwrap();
        }
        std::fs::write(dir.join("go/vendor/modules.txt"), "# github.com/x/api v0.1.0\n").unwrap();
        std::fs::write(dir.join("go/vendor/github.com/x/api/crd.yaml"), "kind: CustomResourceDefinition\n").unwrap();
        std::fs::write(dir.join("web/vendor/app.yaml"), "kind: Service\n").unwrap();
        let found = walk_below(&dir, WalkOptions::default());
        let names: Vec<String> = found.files.iter().map(|f| f.strip_prefix(&dir).unwrap().display().to_string()).collect();
        assert_eq!(names, ["web/vendor/app.yaml"]);
        // A glob skips it too.
        let globbed = expand(&dir, "**/*.yaml");
        assert_eq!(globbed.files.len(), 1, "{:?}", globbed.files);
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn only_regular_text_files_of_a_bounded_size_are_read() {
        let dir = std::env::temp_dir().join(format!("crdls-read-text-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        std::fs::write(dir.join("a.yaml"), "a: 1\n").unwrap();
        assert_eq!(read_text(&dir.join("a.yaml")).unwrap(), "a: 1\n");
        std::fs::write(dir.join("b.yaml"), [0xff, 0xfe]).unwrap();
        assert!(matches!(read_text(&dir.join("b.yaml")), Err(ReadError::NotText)));
        assert!(matches!(read_text(&dir), Err(ReadError::NotRegular("a directory"))));
        #[cfg(unix)]
        {
            // A symbolic link to an endless device is not read.
            let _ = std::fs::remove_file(dir.join("zero.yaml"));
            std::os::unix::fs::symlink("/dev/zero", dir.join("zero.yaml")).unwrap();
            assert!(matches!(read_text(&dir.join("zero.yaml")), Err(ReadError::NotRegular("a device"))));
            // A FIFO is not opened (opening one blocks until a writer comes).
            let fifo = dir.join("pipe.yaml");
            let _ = std::fs::remove_file(&fifo);
            if std::process::Command::new("mkfifo").arg(&fifo).status().is_ok_and(|s| s.success()) {
                assert!(matches!(read_text(&fifo), Err(ReadError::NotRegular("a FIFO"))));
            }
        }
        let big = std::fs::File::create(dir.join("big.yaml")).unwrap();
        big.set_len(MAX_FILE_BYTES + 1).unwrap();
        let err = read_text(&dir.join("big.yaml")).unwrap_err();
        assert_eq!(err.to_string(), "16.0 MiB, larger than the 16 MiB crdls reads (the API server takes at most 3 MiB in one request)");
        let _ = std::fs::remove_dir_all(&dir);
    }

    /// A reference a workspace file makes is followed only inside the workspace: never through `..`
    /// above it, an absolute path, a symbolic link out, a link loop, nor into `.git`; and inside, only to
    /// a regular file (a FIFO named so would block the run).
    #[cfg(unix)]
    #[test]
    fn references_are_read_only_inside_the_workspace() {
        let top = std::env::temp_dir().join(format!("crdls-read-inside-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&top);
        let root = top.join("repo");
        std::fs::create_dir_all(root.join("a/.git")).unwrap();
        std::fs::write(top.join("secret.yaml"), "token: s3cret\n").unwrap();
        std::fs::write(root.join("a/ok.yaml"), "ok: 1\n").unwrap();
        std::fs::write(root.join("a/.git/config"), "[remote]\n").unwrap();
        let link = |target: &Path, name: &str| std::os::unix::fs::symlink(target, root.join(name)).unwrap();
        link(&top.join("secret.yaml"), "a/out.yaml");
        link(Path::new("ok.yaml"), "a/in.yaml");
        link(Path::new("loop2.yaml"), "a/loop1.yaml");
        link(Path::new("loop1.yaml"), "a/loop2.yaml");
        link(&top, "a/up");
        assert!(std::process::Command::new("mkfifo").arg(root.join("a/pipe.yaml")).status().unwrap().success());

        assert_eq!(read_inside(&root, &root.join("a/ok.yaml")).unwrap(), "ok: 1\n");
        assert_eq!(read_inside(&root, &root.join("a/in.yaml")).unwrap(), "ok: 1\n", "a link inside is followed");
        for outside in ["a/../../secret.yaml", "a/out.yaml", "a/up/secret.yaml", "a/.git/config"] {
            let err = read_inside(&root, &root.join(outside)).unwrap_err();
            assert!(matches!(err, ReadError::Outside), "{outside}: {err:?}");
        }
        assert!(matches!(read_inside(&root, &top.join("secret.yaml")), Err(ReadError::Outside)), "an absolute path");
        assert!(matches!(read_inside(&root, Path::new("/etc/passwd")), Err(ReadError::Outside)));
        assert!(matches!(read_inside(&root, &root.join("a/loop1.yaml")), Err(ReadError::Io(_))), "a loop ends");
        assert!(matches!(read_inside(&root, &root.join("a/pipe.yaml")), Err(ReadError::NotRegular("a FIFO"))));
        assert_eq!(
            ReadError::Outside.to_string(),
            "it leads outside the workspace (through `..`, an absolute path or a symbolic link); crdls does not follow it"
        );
        std::fs::remove_dir_all(&top).unwrap();
    }

    /// Directory links are not followed by walks nor globs, so a link loop (`loop -> .`, `up -> ..`)
    /// ends nowhere: each finds the one file once.
    #[cfg(unix)]
    #[test]
    fn walks_and_globs_end_on_directory_link_loops() {
        let dir = std::env::temp_dir().join(format!("crdls-link-loops-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(dir.join("a")).unwrap();
        std::fs::write(dir.join("a/x.yaml"), "a: 1\n").unwrap();
        std::os::unix::fs::symlink(".", dir.join("a/loop")).unwrap();
        std::os::unix::fs::symlink("..", dir.join("a/up")).unwrap();
        let walked = walk_below(&dir, WalkOptions::default());
        assert_eq!(walked.files, [dir.join("a/x.yaml")]);
        for pattern in ["**/*.yaml", "**/**/**/*.yaml", "a/*/*.yaml"] {
            let found = expand(&dir, pattern);
            let expected: &[PathBuf] = if pattern == "a/*/*.yaml" { &[] } else { &[dir.join("a/x.yaml")] };
            assert_eq!(found.files, expected, "{pattern}");
        }
        std::fs::remove_dir_all(&dir).unwrap();
    }

    /// A walk of a hostile tree as deep as the system lets a path be (4096 bytes: 2047 levels of
    /// one-letter directories) ends, on a thread with the 2 MiB stack of the editor's blocking tasks.
    #[cfg(unix)]
    #[test]
    fn a_walk_of_the_deepest_tree_fits_a_small_stack() {
        let top = std::env::temp_dir().join(format!("crdls-deep-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&top);
        std::fs::create_dir_all(&top).unwrap();
        // Built relative to each level, since the whole path soon exceeds what one call may name.
        let deep = std::process::Command::new("sh")
            .arg("-c")
            .arg("cd \"$0\" && p=$(printf 'a/%.0s' $(seq 500)) && i=0; while [ $i -lt 2000 ] && mkdir -p $p && cd $p; do i=$((i+500)); done; echo $i")
            .arg(&top)
            .output()
            .unwrap();
        let levels: usize = String::from_utf8_lossy(&deep.stdout).trim().parse().unwrap();
        assert!(levels > 1000, "only {levels} levels");
        let root = top.clone();
        let walked =
            std::thread::Builder::new().stack_size(2 << 20).spawn(move || walk_below(&root, WalkOptions::default())).unwrap().join();
        assert!(walked.is_ok(), "the walk overflowed its stack at {levels} levels");
        let _ = std::process::Command::new("rm").arg("-rf").arg(&top).status();
    }

    #[test]
    fn globs() {
        assert!(glob_match("crds/**/*.yaml", "crds/a/b/x.yaml"));
        assert!(glob_match("crds/**/*.yaml", "crds/x.yaml"));
        assert!(glob_match("crds/*.yaml", "crds/x.yaml"));
        assert!(!glob_match("crds/*.yaml", "crds/a/x.yaml"));
        assert!(!glob_match("crds/*.yaml", "other/x.yaml"));
        assert!(glob_match("./config/*/crd-*.yml", "config/base/crd-widgets.yml"));
        // `**` spans segments only alone in one; stars together within a segment are one star.
        assert!(glob_match("**/*.yaml", "x.yaml"));
        assert!(glob_match("a/**/**/b/*.json", "a/b/c.json"));
        assert!(glob_match("a/c**d.yaml", "a/cxd.yaml"));
        assert!(!glob_match("a/c**d.yaml", "a/c/d.yaml"));
        // Only `*` is special: brackets, braces, `?` and backslashes stand for themselves.
        assert!(glob_match("crds/[a]{b,c}?\\*.yaml", "crds/[a]{b,c}?\\x.yaml"));
        assert!(!glob_match("crds/[a]*.yaml", "crds/a.yaml"));
        assert!(!glob_match("crds/x?*.yaml", "crds/xy.yaml"));
        assert!(glob_match("./crds/a.yaml", "crds/a.yaml"));
        // A `./` followed by more slashes is still relative (it once became the absolute `/crds/*.yaml`).
        assert!(glob_match(".//crds/*.yaml", "crds/a.yaml"));
        assert!(!glob_match(".//crds/*.yaml", "/crds/a.yaml"));
        assert!(glob_match("././/crds/a.yaml", "crds/a.yaml"));
    }

    /// Runs `work` on a thread and fails if it takes longer than `limit`, so that a slow algorithm
    /// fails the test rather than hanging it (the thread is left to finish on its own).
    fn within<T: Send + 'static>(limit: std::time::Duration, work: impl FnOnce() -> T + Send + 'static) -> T {
        let (send, receive) = std::sync::mpsc::channel();
        std::thread::spawn(move || send.send(work()));
        receive.recv_timeout(limit).unwrap_or_else(|_| panic!("took longer than {limit:?}"))
    }

    #[test]
    fn matching_takes_linear_time_whatever_the_pattern() {
        // A backtracking matcher tries every way of placing the stars: over 10^10 for each.
        let long = format!("d/{}.yaml", "a".repeat(200));
        let deep = format!("{}/x.json", ["d"; 60].join("/"));
        let limit = std::time::Duration::from_secs(20);
        assert!(!within(limit, move || glob_match("d/*a*a*a*a*a*b.yaml", &long)));
        assert!(!within(limit, move || glob_match("**/**/**/**/**/**/**/**/**/x.yaml", &deep)));
    }

    /// A fresh directory for one test.
    /// Writes `a: 1` at `path`, making its directories.
    fn write_small_file(path: &Path) {
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(path, "a: 1\n").unwrap();
    }

    /// The paths below `dir`, relative to it with `/` between parts, sorted.
    fn relative_names(dir: &Path, paths: &[PathBuf]) -> Vec<String> {
        let mut names: Vec<String> = paths.iter().map(|p| p.strip_prefix(dir).unwrap().to_string_lossy().replace('\\', "/")).collect();
        names.sort();
        names
    }

    fn scratch(name: &str) -> PathBuf {
        let dir = std::env::temp_dir().join(format!("crdls-{name}-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).unwrap();
        dir
    }

    #[test]
    fn absolute_and_relative_globs_find_the_same_files() {
        let dir = scratch("glob-absolute");
        std::fs::create_dir_all(dir.join("crds/sub")).unwrap();
        std::fs::create_dir_all(dir.join("crds/.hidden")).unwrap();
        for file in ["crds/a.yaml", "crds/b.yml", "crds/c.txt", "crds/sub/d.yaml", "crds/.hidden/e.yaml"] {
            std::fs::write(dir.join(file), "").unwrap();
        }
        let names = |found: Expansion| {
            assert!(found.limited.is_none());
            let mut names: Vec<String> = found.files.iter().map(|f| f.strip_prefix(&dir).unwrap().to_string_lossy().into_owned()).collect();
            names.sort();
            names
        };
        assert_eq!(names(expand(&dir, "crds/*.yaml")), ["crds/a.yaml"]);
        assert_eq!(names(expand(&dir, "crds/**/*.yaml")), ["crds/a.yaml", "crds/sub/d.yaml"]);
        let absolute = format!("{}/crds/*.yaml", dir.display());
        assert_eq!(names(expand(Path::new("/somewhere/else"), &absolute)), ["crds/a.yaml"]);
        let absolute = format!("{}/**/*.y*ml", dir.display());
        assert_eq!(names(expand(Path::new(""), &absolute)), ["crds/a.yaml", "crds/b.yml", "crds/sub/d.yaml"]);
        let _ = std::fs::remove_dir_all(&dir);
    }

    #[test]
    fn a_glob_walk_is_bounded_in_depth_and_entries() {
        let dir = scratch("glob-bounds");
        let deep = dir.join(["d"; 8].join("/"));
        std::fs::create_dir_all(&deep).unwrap();
        std::fs::write(deep.join("x.yaml"), "").unwrap();
        std::fs::write(dir.join("d/y.yaml"), "").unwrap();
        let limits = Limits { depth: 4, entries: 100 };
        let found = expand_within(&dir, "**/*.yaml", limits);
        assert_eq!(found.files, [dir.join("d/y.yaml")]);
        assert_eq!(found.limited.as_deref(), Some("did not look deeper than 4 directories below the pattern's literal part"));
        // A glob without `**` walks only as deep as its segments go, and is not limited.
        let found = expand_within(&dir, "d/*/*.yaml", limits);
        assert!(found.files.is_empty() && found.limited.is_none(), "{found:?}");
        for i in 0..10 {
            std::fs::write(dir.join(format!("f{i}.yaml")), "").unwrap();
        }
        let found = expand_within(&dir, "*.yaml", Limits { depth: 4, entries: 5 });
        assert!(found.files.len() <= 5, "{found:?}");
        assert_eq!(found.limited.as_deref(), Some("stopped after looking at 5 directory entries"));
        let _ = std::fs::remove_dir_all(&dir);
    }
}
