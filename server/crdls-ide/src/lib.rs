//! The editor features of crdls as pure functions: given a document's text, its parsed stream and the
//! CRD index, compute diagnostics, completions, hovers and definitions. No LSP types here: positions
//! are byte offsets, and the language server converts at its edge.

pub mod actions;
mod builtin_crd;
mod builtin_kinds;
mod cel_assist;
pub mod completion;
mod context;
mod cost_assist;
#[cfg(test)]
mod depth_tests;
pub mod hints;
pub mod hover;
pub mod navigation;
pub mod outline;
mod render;
mod schema_walk;
mod skeleton;
mod types;
pub mod v1beta1_to_v1;

use crdls_check::{check_stream, check_stream_as, CheckOptions, FileMode};
use crdls_crd::CrdIndex;
use crdls_diagnostics::Diagnostic;
use crdls_yaml::Stream;

pub use actions::{automatic_edits, code_actions, FixRequest};
pub use completion::completions;
pub use hints::{inlay_hints, InlayHint};
pub use hover::hover;
pub use navigation::{definition, Target};
pub use outline::{document_symbols, folding_ranges, Symbol, SymbolKind};
pub use types::{apply_edits, CodeAction, CompletionItem, CompletionKind, Edit, HoverResult};

/// The diagnostics of one document of whole objects: the same pipeline `crdls check` runs.
pub fn diagnostics(stream: &Stream, index: &CrdIndex, options: &CheckOptions) -> Vec<Diagnostic> {
    check_stream(stream, index, options).diagnostics()
}

/// The diagnostics of one document read in `mode` (see [`FileRole::parse`]).
pub fn diagnostics_as(stream: &Stream, index: &CrdIndex, options: &CheckOptions, mode: &FileMode) -> Vec<Diagnostic> {
    check_stream_as(stream, index, options, mode).diagnostics()
}
