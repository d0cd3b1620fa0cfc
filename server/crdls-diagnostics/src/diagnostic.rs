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
    /// For a change from a CRD's previous version (`crd-change/...`) that a quick fix can undo: the
    /// value, as YAML, that the keyword whose name is at `range` is to hold again.
    pub restore: Option<String>,
    /// For a change from a CRD's previous version (`crd-change/...`): what changed, for structured
    /// output (`--format json`).
    pub change: Option<Box<Change>>,
}

/// What a `crd-change/...` finding changed: the version, the value before and after, and for
/// `crd-change/breaks-objects` the objects it breaks.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Change {
    /// The CRD version the change is in (`v1`); empty for a change of the whole CRD (its scope).
    pub version: String,
    /// The previous value, as JSON text (`"Managed"`, `10`, `["A","B"]`); `None` when there was none.
    pub old: Option<String>,
    /// The new value, as JSON text; `None` when there is none now.
    pub new: Option<String>,
    /// The objects the change breaks (`crd-change/breaks-objects` only).
    pub objects: Vec<BrokenObject>,
}

/// A custom resource that the previous CRD accepts and the changed one rejects.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct BrokenObject {
    /// Where it is, as the front end names its file.
    pub file: String,
    /// Its 1-based line.
    pub line: u32,
    /// Its `metadata.name`.
    pub name: String,
    /// The first error the changed CRD gives it, in the API server's words.
    pub error: String,
}

impl Diagnostic {
    /// A diagnostic with no field path and no API-server cause. A registered code must come with a
    /// severity its row in the registry allows (its default, or the one `also` names), which debug
    /// builds check, so that the registry (and the documentation and SARIF rules made from it) cannot
    /// drift from what is reported. Settings that change severities do so afterwards.
    pub fn new(range: TextRange, severity: Severity, code: &'static str, message: impl Into<String>) -> Diagnostic {
        debug_assert!(
            crate::codes::lookup(code).is_none_or(|c| c.allows(severity)),
            "{code} is reported as {}, which its row in the registry does not allow",
            severity.as_str()
        );
        Diagnostic { range, severity, code, message: message.into(), path: None, cause: None, restore: None, change: None }
    }

    /// Sets the severity, as a setting does (`[severity]`, `--fail-unchecked`): what the registry allows
    /// a check to report is not checked here.
    pub fn with_severity(mut self, severity: Severity) -> Diagnostic {
        self.severity = severity;
        self
    }

    /// Sets the field path.
    pub fn with_path(mut self, path: impl Into<String>) -> Diagnostic {
        self.path = Some(path.into());
        self
    }

    /// Sets the value a quick fix restores (see [`Diagnostic::restore`]).
    pub fn with_restore(mut self, value: impl Into<String>) -> Diagnostic {
        self.restore = Some(value.into());
        self
    }

    /// Sets the API-server cause.
    pub fn with_cause(mut self, cause: impl Into<String>) -> Diagnostic {
        self.cause = Some(cause.into());
        self
    }
}

/// How many values a crdls message lists before it says how many more there are.
pub const MAX_LISTED: usize = 10;

/// `items` joined with `, ` for a message, the first [`MAX_LISTED`] of a longer list followed by
/// `… and 99,990 more`: a schema can declare 100,000 enum values, and every message would carry them.
pub fn listed(items: &[String]) -> String {
    listed_of(items, items.len())
}

/// [`listed`] for a list of `total` values of which `first` holds the first ones (at least
/// [`MAX_LISTED`] of them, or all), so that a long list need not be written out to be listed.
pub fn listed_of(first: &[String], total: usize) -> String {
    listed_up_to(first, total, MAX_LISTED)
}

/// [`listed_of`] showing up to `max` values.
pub fn listed_up_to(first: &[String], total: usize, max: usize) -> String {
    let items = &first[..first.len().min(max)];
    if total <= max {
        return items.join(", ");
    }
    let more = (total - items.len()).to_string();
    let mut grouped = String::new();
    for (i, digit) in more.chars().enumerate() {
        if i > 0 && (more.len() - i).is_multiple_of(3) {
            grouped.push(',');
        }
        grouped.push(digit);
    }
    format!("{} … and {grouped} more", items.join(", "))
}

#[cfg(test)]
mod listed_tests {
    #[test]
    fn long_lists_are_cut_with_a_count() {
        let values = |n: usize| (0..n).map(|i| format!("\"v{i}\"")).collect::<Vec<_>>();
        expect_test::expect![[r#"
            "v0", "v1", "v2"
            "v0", "v1", "v2", "v3", "v4", "v5", "v6", "v7", "v8", "v9"
            "v0", "v1", "v2", "v3", "v4", "v5", "v6", "v7", "v8", "v9" … and 1 more
            "v0", "v1", "v2", "v3", "v4", "v5", "v6", "v7", "v8", "v9" … and 99,990 more
        "#]]
        .assert_eq(&[3, 10, 11, 100_000].map(|n| super::listed(&values(n)) + "\n").concat());
    }
}
