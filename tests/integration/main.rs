//! The one integration-test binary of crdls: CLI behaviour, fixture snapshots, the kubectl-validate
//! conformance cases, the corpus run, the fuzzing harness's regression fixtures, tidy checks and the
//! ways crdls is packaged (completions, man pages, the GitHub Action, the pre-commit hook, the Python
//! package).

// The conformance and corpus runs print their pass rates and counts for the CI log.
#![allow(clippy::print_stderr)]

mod cel_spec;
mod cli;
mod conformance;
mod corpus;
mod crd_validation;
mod distribution;
mod evolution;
mod fixtures;
mod fuzz_regressions;
mod lsp;
mod openshift;
mod oracle;
mod sources;
mod tidy;
