//! Hover (placeholder: being written).

use crdls_crd::CrdIndex;
use crdls_yaml::{Stream, TextRange};

/// A hover: the range it concerns and its Markdown.
#[derive(Clone, Debug, PartialEq)]
pub struct HoverResult {
    /// The key or value hovered.
    pub range: TextRange,
    /// Markdown.
    pub markdown: String,
}

/// The hover at byte `offset`.
pub fn hover(_text: &str, _stream: &Stream, _index: &CrdIndex, _offset: usize) -> Option<HoverResult> {
    None
}
