//! Diagnostics shared by every crdls crate: a byte range, a severity, a stable code and the API server's words.

use std::fmt;

/// A half-open range of byte offsets into a document's text.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct TextRange {
    /// First byte of the range.
    pub start: usize,
    /// One past the last byte of the range.
    pub end: usize,
}

impl TextRange {
    /// Makes a range; `end` is clamped so that it is never before `start`.
    pub fn new(start: usize, end: usize) -> TextRange {
        TextRange { start, end: end.max(start) }
    }

    /// An empty range at `offset`.
    pub fn empty(offset: usize) -> TextRange {
        TextRange { start: offset, end: offset }
    }

    /// The number of bytes covered.
    pub fn len(&self) -> usize {
        self.end - self.start
    }

    /// Whether the range covers no byte.
    pub fn is_empty(&self) -> bool {
        self.start == self.end
    }

    /// Whether `offset` lies inside the range, its end included (a cursor right after a word is "in" it).
    pub fn contains_inclusive(&self, offset: usize) -> bool {
        self.start <= offset && offset <= self.end
    }

    /// The smallest range that covers both.
    pub fn cover(self, other: TextRange) -> TextRange {
        TextRange { start: self.start.min(other.start), end: self.end.max(other.end) }
    }
}

impl fmt::Display for TextRange {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}..{}", self.start, self.end)
    }
}

/// How serious a diagnostic is. The order is from most to least severe.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Severity {
    /// The API server would reject the object.
    Error,
    /// The API server would accept it, but with a warning, or a change the user likely did not mean.
    Warning,
    /// Worth knowing; nothing is wrong.
    Information,
    /// A hint for the editor (faded text and the like).
    Hint,
}

impl Severity {
    /// The lowercase name used by the CLI and the JSON contract.
    pub fn as_str(self) -> &'static str {
        match self {
            Severity::Error => "error",
            Severity::Warning => "warning",
            Severity::Information => "info",
            Severity::Hint => "hint",
        }
    }
}

/// One finding about a document.
#[derive(Clone, Debug, PartialEq)]
pub struct Diagnostic {
    /// Where it is, in bytes of the document's text.
    pub range: TextRange,
    /// How serious it is.
    pub severity: Severity,
    /// A stable code users can search for and suppress, such as `schema/pattern`.
    pub code: &'static str,
    /// The message shown to the user.
    pub message: String,
    /// The field path in API-server notation (`spec.ports[0].name`), when the finding concerns a field.
    pub path: Option<String>,
    /// The exact cause text the API server would return, when it would return one.
    pub cause: Option<String>,
}

impl Diagnostic {
    /// A diagnostic with no field path and no API-server cause.
    pub fn new(range: TextRange, severity: Severity, code: &'static str, message: impl Into<String>) -> Diagnostic {
        Diagnostic { range, severity, code, message: message.into(), path: None, cause: None }
    }

    /// Sets the field path.
    pub fn with_path(mut self, path: impl Into<String>) -> Diagnostic {
        self.path = Some(path.into());
        self
    }

    /// Sets the API-server cause.
    pub fn with_cause(mut self, cause: impl Into<String>) -> Diagnostic {
        self.cause = Some(cause.into());
        self
    }
}
