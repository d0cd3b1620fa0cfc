//! Field errors as the API server builds and prints them (`k8s.io/apimachinery/pkg/util/validation/field`),
//! turned into located crdls diagnostics.

use crdls_diagnostics::{Diagnostic, Severity, TextRange};

/// The kinds of `field.Error` the API server returns.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ErrorType {
    /// `Invalid value`.
    Invalid,
    /// `Invalid value`, for a value of the wrong type.
    TypeInvalid,
    /// `Unsupported value`.
    NotSupported,
    /// `Required value`.
    Required,
    /// `Forbidden`.
    Forbidden,
    /// `Too long`.
    TooLong,
    /// `Too many`.
    TooMany,
    /// `Duplicate value`.
    Duplicate,
    /// `Not found`.
    NotFound,
    /// `Internal error`.
    Internal,
}

impl ErrorType {
    /// The words `field.ErrorType.String()` prints.
    pub fn as_str(self) -> &'static str {
        match self {
            ErrorType::Invalid | ErrorType::TypeInvalid => "Invalid value",
            ErrorType::NotSupported => "Unsupported value",
            ErrorType::Required => "Required value",
            ErrorType::Forbidden => "Forbidden",
            ErrorType::TooLong => "Too long",
            ErrorType::TooMany => "Too many",
            ErrorType::Duplicate => "Duplicate value",
            ErrorType::NotFound => "Not found",
            ErrorType::Internal => "Internal error",
        }
    }
}

/// One field error: its type, path, printed bad value (already formatted the Go way) and detail.
#[derive(Clone, Debug)]
pub struct FieldError {
    /// The error type.
    pub ty: ErrorType,
    /// The field path; empty for the object's root (printed as `<nil>` by the API server).
    pub path: String,
    /// The bad value as the API server prints it, when it prints one.
    pub value: Option<String>,
    /// The detail after the value.
    pub detail: String,
}

impl FieldError {
    /// What `field.Error.ErrorBody()` prints: the type, the value when shown, then the detail.
    pub fn body(&self) -> String {
        let mut s = self.ty.as_str().to_string();
        if let Some(value) = &self.value {
            s.push_str(": ");
            s.push_str(value);
        }
        if !self.detail.is_empty() {
            s.push_str(": ");
            s.push_str(&self.detail);
        }
        s
    }

    /// What `field.Error.Error()` prints: the path, then the body.
    pub fn cause(&self) -> String {
        let path = if self.path.is_empty() { "<nil>" } else { &self.path };
        format!("{path}: {}", self.body())
    }

    /// A located diagnostic carrying this error as its cause.
    pub fn diagnostic(&self, range: TextRange, severity: Severity, code: &'static str, message: impl Into<String>) -> Diagnostic {
        let mut d = Diagnostic::new(range, severity, code, message).with_cause(self.cause());
        if !self.path.is_empty() {
            d = d.with_path(self.path.clone());
        }
        d
    }
}
