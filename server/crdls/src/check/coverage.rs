//! How far `crdls check` checked each document, counted for the summary: validated, built-in, partial
//! (patches, assertions), templates, or unchecked and why.

use crdls_check::{DocumentKind, FileCheck, FileMode};

use crate::report::{Coverage, Unvalidated};

/// Adds what the documents of one file were to the run's coverage.
pub(super) fn count_coverage(check: &FileCheck, mode: &FileMode, coverage: &mut Coverage) {
    match mode {
        FileMode::Template { .. } => {
            coverage.templates += check.documents.len();
            return;
        }
        // A CRD among a test's fragments is checked as a whole CRD.
        FileMode::Fragments => {
            for doc in &check.documents {
                match doc.kind {
                    DocumentKind::Crd => coverage.crds += 1,
                    _ => coverage.partial += 1,
                }
            }
            return;
        }
        FileMode::Patches | FileMode::JsonPatches | FileMode::Assertions | FileMode::TestObjects { merges: true } => {
            coverage.partial += check.documents.len();
            return;
        }
        FileMode::Objects | FileMode::Assembled { .. } | FileMode::TestObjects { merges: false } | FileMode::TestInputs => {}
    }
    for doc in &check.documents {
        match &doc.kind {
            DocumentKind::Crd => coverage.crds += 1,
            DocumentKind::CustomResource { .. } => coverage.validated += 1,
            DocumentKind::BuiltIn { validated: true } => coverage.builtin_validated += 1,
            DocumentKind::BuiltIn { validated: false } => coverage.builtin += 1,
            DocumentKind::Unchecked { group } => {
                *coverage.unchecked.entry(group.clone()).or_default() += 1;
                *coverage.unchecked_why.entry(Unvalidated::from_codes(doc.diagnostics.iter().map(|d| d.code))).or_default() += 1;
            }
            DocumentKind::ConfigFile | DocumentKind::NotAnObject => {}
        }
    }
}
