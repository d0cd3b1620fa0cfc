//! Diagnostics shared by every crdls crate: a byte range in a document, a severity, a stable code
//! from the registry (`codes`) and the API server's words.

pub mod codes;
mod diagnostic;

pub use diagnostic::{listed, listed_of, listed_up_to, BrokenObject, Change, Diagnostic, Severity, TextRange, MAX_LISTED};
