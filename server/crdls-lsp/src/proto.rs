//! The edge between crdls's byte offsets and LSP positions, in the encoding negotiated at initialize
//! (UTF-8 when the client offers it, UTF-16 otherwise), plus diagnostics in LSP form.

use crdls_yaml::{ColumnUnit, LineCol, LineIndex};

use crdls_diagnostics::{Diagnostic, Severity, TextRange};
use tower_lsp::lsp_types::{self as lsp, DiagnosticSeverity, NumberOrString, Position};

/// The negotiated position encoding.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Encoding {
    /// Columns in UTF-8 bytes.
    Utf8,
    /// Columns in UTF-16 code units (the LSP default).
    #[default]
    Utf16,
}

impl Encoding {
    /// Picks UTF-8 when the client offers it.
    pub fn negotiate(offered: Option<&[lsp::PositionEncodingKind]>) -> Encoding {
        match offered {
            Some(kinds) if kinds.contains(&lsp::PositionEncodingKind::UTF8) => Encoding::Utf8,
            _ => Encoding::Utf16,
        }
    }

    /// The LSP name of the encoding.
    pub fn kind(self) -> lsp::PositionEncodingKind {
        match self {
            Encoding::Utf8 => lsp::PositionEncodingKind::UTF8,
            Encoding::Utf16 => lsp::PositionEncodingKind::UTF16,
        }
    }

    fn unit(self) -> ColumnUnit {
        match self {
            Encoding::Utf8 => ColumnUnit::Utf8,
            Encoding::Utf16 => ColumnUnit::Utf16,
        }
    }
}

/// A text with its line index, for converting positions.
pub struct Lines<'a> {
    /// The text.
    pub text: &'a str,
    /// Its line starts.
    pub index: LineIndex,
    /// The encoding columns are counted in.
    pub encoding: Encoding,
}

impl<'a> Lines<'a> {
    /// Indexes `text`.
    pub fn new(text: &'a str, encoding: Encoding) -> Lines<'a> {
        Lines { text, index: LineIndex::new(text), encoding }
    }

    /// A byte offset as an LSP position.
    pub fn position(&self, offset: usize) -> Position {
        let LineCol { line, col } = self.index.line_col(self.text, offset, self.encoding.unit());
        Position { line, character: col }
    }

    /// A byte range as an LSP range.
    pub fn range(&self, range: TextRange) -> lsp::Range {
        lsp::Range { start: self.position(range.start), end: self.position(range.end) }
    }

    /// An LSP position as a byte offset (clamped into the text).
    pub fn offset(&self, position: Position) -> usize {
        self.index.offset(self.text, LineCol { line: position.line, col: position.character }, self.encoding.unit())
    }

    /// A crdls diagnostic in LSP form. What a code action needs later travels in `data`.
    pub fn diagnostic(&self, d: &Diagnostic) -> lsp::Diagnostic {
        let severity = match d.severity {
            Severity::Error => DiagnosticSeverity::ERROR,
            Severity::Warning => DiagnosticSeverity::WARNING,
            Severity::Information => DiagnosticSeverity::INFORMATION,
            Severity::Hint => DiagnosticSeverity::HINT,
        };
        let message = match &d.cause {
            Some(cause) => format!("{}\nAPI server: {cause}", d.message),
            None => d.message.clone(),
        };
        lsp::Diagnostic {
            range: self.range(d.range),
            severity: Some(severity),
            code: Some(NumberOrString::String(d.code.to_string())),
            source: Some("crdls".into()),
            message,
            data: Some(serde_json::json!({ "path": d.path, "cause": d.cause, "restore": d.restore })),
            ..lsp::Diagnostic::default()
        }
    }
}
