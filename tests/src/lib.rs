//! Helpers shared by the integration tests: running the CLI in-process, finding the repository's files and
//! the data some tests need, and announcing loudly when a test is skipped without that data.

pub mod json_schema;
pub mod loopback;
pub mod lsp;

use std::path::{Path, PathBuf};

/// The repository root.
pub fn repo_root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).parent().expect("tests/ has a parent").to_path_buf()
}

/// Where the shared corpus is looked for: `../shared/corpus`, beside the repository.
fn corpus_path() -> PathBuf {
    repo_root().join("../shared/corpus")
}

/// The shared corpus beside the repository, when it is there.
pub fn corpus_dir() -> Option<PathBuf> {
    let dir = corpus_path();
    dir.is_dir().then_some(dir)
}

/// The shared corpus, or `None` once the running test has announced that it is skipped without it.
pub fn corpus_or_skip() -> Option<PathBuf> {
    let dir = corpus_dir();
    if dir.is_none() {
        announce_skip(Missing::Corpus, None);
    }
    dir
}

/// Where `tests/cel-spec/prepare.sh` writes the cel-spec conformance data.
pub fn cel_spec_data() -> PathBuf {
    repo_root().join("tests/cel-spec/conformance.json")
}

/// Something a test needs that a fresh clone may not have.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Missing {
    /// The shared corpus, `../shared/corpus` beside the repository.
    Corpus,
    /// The cel-spec conformance data, `tests/cel-spec/conformance.json`.
    CelSpec,
    /// A `git` that can create and commit to a repository.
    Git,
    /// `man`, to render the manual pages `crdls man` writes.
    Man,
    /// A `go` that builds the differential oracle in `tests/oracle`.
    Go,
    /// `script` (util-linux), to give a process a terminal as its standard input.
    Script,
    /// A checkout of openshift/api, named by `CRDLS_OPENSHIFT_API`.
    OpenshiftApi,
}

impl Missing {
    /// What is absent, and where it was looked for.
    fn what(self) -> String {
        match self {
            Missing::Corpus => {
                format!("the shared corpus ../shared/corpus is absent (looked for {})", corpus_path().display())
            }
            Missing::CelSpec => format!("the cel-spec conformance data is absent (looked for {})", cel_spec_data().display()),
            Missing::Git => "git is not available (or cannot commit in a temporary directory)".to_string(),
            Missing::Man => "man is not available".to_string(),
            Missing::Go => "the differential oracle tests/oracle did not build (go is missing, or its build failed; see above)".to_string(),
            Missing::Script => "script (util-linux) is not available".to_string(),
            Missing::OpenshiftApi => match std::env::var_os("CRDLS_OPENSHIFT_API") {
                Some(path) => {
                    format!("CRDLS_OPENSHIFT_API names {}, which holds no openshift/api checkout", std::path::Path::new(&path).display())
                }
                None => "CRDLS_OPENSHIFT_API is not set (the path of an openshift/api checkout)".to_string(),
            },
        }
    }

    /// How to get it.
    fn how(self) -> &'static str {
        match self {
            Missing::Corpus => {
                "put the shared corpus beside the repository as ../shared/corpus, as CI has it: real CRDs and custom resources \
                 copied from public projects (gateway-api, cert-manager, ...) and kubectl-validate's test cases; \
                 docs/src/contributing/tests.md says how to build an equivalent from their repositories"
            }
            Missing::CelSpec => "run tests/cel-spec/prepare.sh (needs node and npm; .ci/run runs it)",
            Missing::Git => "install git",
            Missing::Man => "install man-db",
            Missing::Script => "install util-linux (bsdutils on Debian)",
            Missing::Go => {
                "install Go 1.26 or newer (the first build fetches modules from the Go module proxy); with CI set, a failed build fails"
            }
            Missing::OpenshiftApi => {
                "clone https://github.com/openshift/api and set CRDLS_OPENSHIFT_API to its path (its <group>/<version>/tests suites, zz_generated.crd-manifests and payload-manifests/featuregates are read)"
            }
        }
    }
}

/// Says, on one line starting with `SKIPPED:`, that the running test skips `part` of itself (all of it
/// when `None`) because `missing` is absent, and how to get it; the caller then returns or carries on
/// without it. Such a test passes, so the line is what tells a reader that something was not run.
///
/// The line goes straight to the process's standard error rather than through `eprintln!`: the test
/// harness captures `eprintln!` and shows it only for failing tests, and a skip must show in the output
/// of a passing one too.
pub fn announce_skip(missing: Missing, part: Option<&str>) {
    use std::io::Write;
    let thread = std::thread::current();
    let test = thread.name().filter(|name| *name != "main").unwrap_or("a test");
    let skipped = part.map_or_else(String::new, |part| format!(" ({part})"));
    let line = format!("SKIPPED: {test}{skipped}: {}; to run it, {}\n", missing.what(), missing.how());
    // Nothing to do when standard error cannot be written to.
    let _ = std::io::stderr().write_all(line.as_bytes());
}

/// What one CLI run printed and returned.
#[derive(Debug)]
pub struct CliRun {
    /// The exit code.
    pub code: i32,
    /// Standard output.
    pub stdout: String,
    /// Standard error.
    pub stderr: String,
}

/// Runs `crdls ARGS...` in-process from the repository root, with `stdin` as standard input.
pub fn run_cli(args: &[&str], stdin: &str) -> CliRun {
    run_cli_in(&repo_root(), args, stdin)
}

/// Runs `crdls ARGS...` in-process from `cwd`, with `stdin` as standard input.
pub fn run_cli_in(cwd: &Path, args: &[&str], stdin: &str) -> CliRun {
    let mut input = stdin.as_bytes();
    let mut stdout = Vec::new();
    let mut stderr = Vec::new();
    let mut io =
        crdls::io::Io { stdin: &mut input, stdout: &mut stdout, stderr: &mut stderr, stdout_is_terminal: false, cwd: cwd.to_path_buf() };
    let argv = std::iter::once("crdls".to_string()).chain(args.iter().map(|s| s.to_string()));
    let code = crdls::cli::run(argv, &mut io);
    CliRun { code, stdout: String::from_utf8(stdout).expect("UTF-8 stdout"), stderr: String::from_utf8(stderr).expect("UTF-8 stderr") }
}

/// A fresh, empty directory for one test, holding `files` (path relative to it, text); removed when
/// the value is dropped.
pub struct TempTree {
    /// The directory.
    pub path: PathBuf,
}

impl TempTree {
    /// Creates `crdls-<name>-<pid>` under the system's temporary directory with `files` in it.
    pub fn new(name: &str, files: &[(&str, &str)]) -> TempTree {
        let path = std::env::temp_dir().join(format!("crdls-{name}-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&path);
        std::fs::create_dir_all(&path).expect("the temporary directory can be created");
        let tree = TempTree { path };
        for (file, text) in files {
            tree.write(file, text);
        }
        tree
    }

    /// Writes `text` to `file` below the directory, creating its parents.
    pub fn write(&self, file: &str, text: &str) {
        let full = self.path.join(file);
        std::fs::create_dir_all(full.parent().expect("a file has a parent")).expect("parents can be created");
        std::fs::write(full, text).expect("the file can be written");
    }

    /// The text of `file` below the directory.
    pub fn read(&self, file: &str) -> String {
        std::fs::read_to_string(self.path.join(file)).expect("the file can be read")
    }
}

impl Drop for TempTree {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.path);
    }
}

/// Cargo's target directory: `CARGO_TARGET_DIR` (relative to the repository when relative) or `target/`.
pub fn target_dir() -> PathBuf {
    let root = repo_root();
    std::env::var_os("CARGO_TARGET_DIR").map_or_else(|| root.join("target"), |dir| root.join(dir))
}

/// The debug build of the `crdls` binary, built once per test run.
pub fn crdls_binary() -> PathBuf {
    static BINARY: std::sync::OnceLock<PathBuf> = std::sync::OnceLock::new();
    BINARY
        .get_or_init(|| {
            let root = repo_root();
            let cargo = std::env::var_os("CARGO").unwrap_or_else(|| "cargo".into());
            let status = std::process::Command::new(cargo)
                .args(["build", "--quiet", "-p", "crdls", "--bin", "crdls"])
                .current_dir(&root)
                .status()
                .expect("cargo runs");
            assert!(status.success(), "cargo build -p crdls failed: {status}");
            let binary = target_dir().join("debug").join(format!("crdls{}", std::env::consts::EXE_SUFFIX));
            assert!(binary.is_file(), "{} was not built", binary.display());
            binary
        })
        .clone()
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The corpus's `SKIPPED:` line names the page that says what the corpus is and how to build one.
    #[test]
    fn the_corpus_skip_names_the_page_that_says_how_to_build_an_equivalent() {
        let how = Missing::Corpus.how();
        let page = how.split_whitespace().find(|word| word.starts_with("docs/")).expect("the line names a page");
        let text = std::fs::read_to_string(repo_root().join(page)).expect("the page exists");
        assert!(text.contains("### Building an equivalent from public sources"), "{page}");
        assert!(text.contains("kubectl-validate-testcases"), "{page}");
    }
}
