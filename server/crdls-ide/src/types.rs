//! The values the editor features return and share: edits and quick fixes, completion items, hovers,
//! and the line arithmetic on text they all do. A module of its own, so that a feature that offers
//! another's results (CEL completion inside a rule, cost fixes among quick fixes) depends on these
//! types rather than on the other feature.

use crdls_diagnostics::TextRange;

/// One text replacement.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Edit {
    /// The range replaced.
    pub range: TextRange,
    /// The new text.
    pub new_text: String,
}

/// A quick fix.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct CodeAction {
    /// What the editor shows.
    pub title: String,
    /// The edits, non-overlapping.
    pub edits: Vec<Edit>,
    /// Whether it is the fix to apply without asking (the editor's "auto fix").
    pub preferred: bool,
    /// Whether it may be applied unattended (`crdls check --fix`): a preferred replacement of one
    /// scalar or key by what was clearly meant. Fixes that add placeholders or delete text are not.
    pub automatic: bool,
    /// The requests (by index) it fixes.
    pub fixes: Vec<usize>,
}

/// `text` with non-overlapping `edits` applied.
pub fn apply_edits(text: &str, edits: &[Edit]) -> String {
    let mut sorted: Vec<&Edit> = edits.iter().collect();
    sorted.sort_by_key(|e| std::cmp::Reverse(e.range.start));
    let mut out = text.to_string();
    for edit in sorted {
        out.replace_range(edit.range.start..edit.range.end.min(text.len()), &edit.new_text);
    }
    out
}

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

/// A hover: the range it concerns and its Markdown.
#[derive(Clone, Debug, PartialEq)]
pub struct HoverResult {
    /// The key or value hovered.
    pub range: TextRange,
    /// Markdown.
    pub markdown: String,
}

/// The start of the line holding `offset`.
pub(crate) fn line_start(text: &str, offset: usize) -> usize {
    text[..offset.min(text.len())].rfind('\n').map_or(0, |i| i + 1)
}

/// The end of the line holding `offset` (before a `\r\n`).
pub(crate) fn line_end(text: &str, offset: usize) -> usize {
    let offset = offset.min(text.len());
    let end = text[offset..].find('\n').map_or(text.len(), |i| offset + i);
    if end > offset && text.as_bytes()[end - 1] == b'\r' {
        end - 1
    } else {
        end
    }
}
