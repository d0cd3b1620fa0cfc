//! The one integration-test binary of crdls: CLI behaviour, fixture snapshots, the kubectl-validate
//! conformance cases, the corpus run, the fuzzing harness's regression fixtures and tidy checks.

// The conformance and corpus runs print their pass rates and counts for the CI log.
#![allow(clippy::print_stderr)]

mod cel_spec;
mod cli;
mod conformance;
mod corpus;
mod crd_validation;
mod fixtures;
mod fuzz_regressions;
mod lsp;
mod sources;
mod tidy;
