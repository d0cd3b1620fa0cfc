//! The editor features of crdls as pure functions: given a document's text, its parsed stream and the
//! CRD index, compute completions, hovers, definitions, code actions and hints (diagnostics come from
//! `crdls_workspace::check::check_file`, the one both front ends run). No LSP types here: positions
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

pub use actions::{automatic_edits, code_actions, FixRequest};
pub use completion::completions;
pub use hints::{inlay_hints, InlayHint};
pub use hover::{explain_builtin_field, hover, hover_with_docs};
pub use navigation::{definition, Target};
pub use outline::{document_symbols, folding_ranges, Symbol, SymbolKind};
pub use types::{apply_edits, CodeAction, CompletionItem, CompletionKind, Edit, HoverResult};
