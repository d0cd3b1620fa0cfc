//! Helpers shared by the integration tests: running the CLI in-process and finding the repository's files.

pub mod lsp;

use std::path::{Path, PathBuf};

/// The repository root.
pub fn repo_root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).parent().expect("tests/ has a parent").to_path_buf()
}

/// The shared corpus beside the repository, when it is there.
pub fn corpus_dir() -> Option<PathBuf> {
    let dir = repo_root().join("../shared/corpus");
    dir.is_dir().then_some(dir)
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
        crdls::cli::Io { stdin: &mut input, stdout: &mut stdout, stderr: &mut stderr, stdout_is_terminal: false, cwd: cwd.to_path_buf() };
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
            let target = std::env::var_os("CARGO_TARGET_DIR").map_or_else(|| root.join("target"), |dir| root.join(dir));
            let binary = target.join("debug").join(format!("crdls{}", std::env::consts::EXE_SUFFIX));
            assert!(binary.is_file(), "{} was not built", binary.display());
            binary
        })
        .clone()
}
