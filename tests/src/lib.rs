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
