//! Why a layer of settings was refused: which layer, and what in it. A refused layer applies not at
//! all, so one bad value never leaves half a layer in force. Front ends match on [`Problem`] when
//! they say it in their own terms (`crdls explain-field --field-docs` names its flag, not the key).

use std::fmt;

use super::CONFIG_FILE;

/// Where a refused layer came from.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum LayerOrigin {
    /// The workspace's `crdls.toml` (or a text of its form).
    File,
    /// JSON settings: the client's initialization options or its `crdls` configuration section.
    Settings,
}

/// A layer of settings that was refused, whole.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ConfigError {
    /// Which layer.
    pub origin: LayerOrigin,
    /// What is wrong with it.
    pub problem: Problem,
}

/// What is wrong with a layer of settings.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Problem {
    /// Not TOML or JSON of the settings' form: a syntax error, an unknown key, a value of the wrong
    /// type. The text is the parser's.
    Malformed(String),
    /// A key of the `severity` table that names no diagnostic code.
    UnknownCode {
        /// The key as written.
        code: String,
        /// The code it is closest to, if one is close.
        suggestion: Option<String>,
    },
    /// `kubeVersion` is not a Kubernetes version crdls knows (the text says why).
    KubeVersion(String),
    /// `fieldDocs` is not `true`, `false` or an http(s) URL.
    FieldDocs(FieldDocsError),
}

/// A `fieldDocs` value that is not `true`, `false` or an http(s) URL.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct FieldDocsError {
    /// The value as written, trimmed.
    pub value: String,
}

impl ConfigError {
    pub(super) fn new(origin: LayerOrigin, problem: Problem) -> ConfigError {
        ConfigError { origin, problem }
    }
}

impl fmt::Display for LayerOrigin {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            LayerOrigin::File => f.write_str(CONFIG_FILE),
            LayerOrigin::Settings => f.write_str("crdls settings"),
        }
    }
}

impl fmt::Display for ConfigError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}: {}", self.origin, self.problem)
    }
}

impl fmt::Display for Problem {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Problem::Malformed(message) => f.write_str(message),
            Problem::UnknownCode { code, suggestion } => {
                write!(f, "severity: no diagnostic code \"{code}\"")?;
                if let Some(s) = suggestion {
                    write!(f, "; did you mean \"{s}\"?")?;
                }
                f.write_str(" (`crdls explain` lists them)")
            }
            Problem::KubeVersion(reason) => write!(f, "kubeVersion: {reason}"),
            Problem::FieldDocs(e) => write!(f, "fieldDocs: {e}"),
        }
    }
}

impl fmt::Display for FieldDocsError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "\"{}\" is not true, false or an http(s) URL", self.value)
    }
}

impl std::error::Error for ConfigError {}
