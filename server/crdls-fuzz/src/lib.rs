//! crdls-fuzz: a fuzzing harness that runs on stable Rust. Eight targets (the YAML parser, CEL, the
//! whole check pipeline, language-server edit sequences, and the readers of what comes from outside
//! the workspace: chart archives, globs, kubeconfigs, cached downloads) take inputs mutated from seeds, run them
//! under the panic and hang oracles of [`guard`] and their own consistency checks, and every finding
//! is minimized and written to `tests/fuzz-regressions/<target>/` as a fixture the tests replay. A
//! ninth, `differential`, compares crdls's verdicts with the API server's own code ([`oracle`]).

pub mod corpus;
pub mod fuzz;
pub mod guard;
pub mod minimize;
pub mod mutate;
pub mod oracle;
pub mod rng;
pub mod scratch;
pub mod targets;

use std::path::{Path, PathBuf};

use crdls_diagnostics::{Diagnostic, TextRange};

pub use fuzz::{fuzz, Budget, Report};
pub use guard::{Finding, FindingKind, Verdict};
pub use targets::{target, Target, DIFFERENTIAL, TARGET_NAMES};

/// The repository root (this crate is `server/crdls-fuzz`).
pub fn repo_root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../..")
        .canonicalize()
        .unwrap_or_else(|_| Path::new(env!("CARGO_MANIFEST_DIR")).join("../.."))
}

/// The directory of regression fixtures of one target.
pub fn regressions_dir(target: &str) -> PathBuf {
    repo_root().join("tests/fuzz-regressions").join(target)
}

/// Checks that a range lies inside `text` and on character boundaries.
pub fn check_range(text: &str, range: TextRange, what: &str) -> Result<(), String> {
    if range.start > range.end || range.end > text.len() {
        return Err(format!("{what}: range {}..{} is outside the text of {} bytes", range.start, range.end, text.len()));
    }
    if !text.is_char_boundary(range.start) || !text.is_char_boundary(range.end) {
        return Err(format!("{what}: range {}..{} is not on character boundaries", range.start, range.end));
    }
    Ok(())
}

/// Checks every diagnostic's range (see [`check_range`]).
pub fn check_diagnostics(text: &str, diagnostics: &[Diagnostic]) -> Result<(), String> {
    for d in diagnostics {
        check_range(text, d.range, &format!("diagnostic {} ({})", d.code, d.message))?;
    }
    Ok(())
}
