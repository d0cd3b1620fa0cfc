//! Completion (placeholder: being written).

use crdls_crd::CrdIndex;
use crdls_yaml::{Stream, TextRange};

/// What a completion item is.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum CompletionKind {
    /// A key of an object.
    Field,
    /// A value (enum member, boolean, default).
    Value,
    /// An `apiVersion`.
    ApiVersion,
    /// A `kind`.
    Kind,
    /// A whole-document skeleton.
    Snippet,
}

/// One completion item.
#[derive(Clone, Debug, PartialEq)]
pub struct CompletionItem {
    /// The label shown in the list.
    pub label: String,
    /// What it is.
    pub kind: CompletionKind,
    /// A one-line detail (type, format).
    pub detail: Option<String>,
    /// Markdown documentation (the description).
    pub documentation: Option<String>,
    /// The text inserted.
    pub insert_text: String,
    /// Whether `insert_text` is an LSP snippet (`$1`, `${2:default}`).
    pub snippet: bool,
    /// The range of the document replaced by `insert_text`.
    pub replace: TextRange,
    /// Sorts items (required keys first).
    pub sort_text: String,
    /// Whether the item is deprecated (deprecated versions).
    pub deprecated: bool,
}

/// The completions at byte `offset`.
pub fn completions(_text: &str, _stream: &Stream, _index: &CrdIndex, _offset: usize) -> Vec<CompletionItem> {
    Vec::new()
}
