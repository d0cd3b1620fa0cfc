//! Kubernetes minor versions (`1.35`), as `--kube-version` and `kubeVersion` will name them.

use std::fmt;
use std::str::FromStr;

/// A Kubernetes minor version, such as 1.35. Ordered by major, then minor number.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct KubeVersion {
    major: u16,
    minor: u16,
}

impl KubeVersion {
    /// The version `major.minor`.
    pub const fn new(major: u16, minor: u16) -> KubeVersion {
        KubeVersion { major, minor }
    }

    /// The major number (1).
    pub fn major(self) -> u16 {
        self.major
    }

    /// The minor number (35 in 1.35).
    pub fn minor(self) -> u16 {
        self.minor
    }
}

impl fmt::Display for KubeVersion {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}.{}", self.major, self.minor)
    }
}

/// Why a text is not a Kubernetes version.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ParseKubeVersionError {
    text: String,
}

impl fmt::Display for ParseKubeVersionError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "`{}` is not a Kubernetes version: expected MAJOR.MINOR, such as 1.35 or v1.35", self.text)
    }
}

impl std::error::Error for ParseKubeVersionError {}

impl FromStr for KubeVersion {
    type Err = ParseKubeVersionError;

    /// Reads `1.35` or `v1.35`. A patch number (`1.35.2`) is accepted and ignored, since schemas and
    /// served APIs change only between minor versions.
    fn from_str(text: &str) -> Result<KubeVersion, ParseKubeVersionError> {
        let error = || ParseKubeVersionError { text: text.to_string() };
        let bare = text.strip_prefix('v').unwrap_or(text);
        let mut parts = bare.split('.');
        let mut number = || -> Result<u16, ParseKubeVersionError> {
            let part = parts.next().ok_or_else(error)?;
            if part.is_empty() || !part.bytes().all(|b| b.is_ascii_digit()) || (part.len() > 1 && part.starts_with('0')) {
                return Err(error());
            }
            part.parse().map_err(|_| error())
        };
        let major = number()?;
        let minor = number()?;
        match parts.next() {
            None => {}
            Some(patch) if !patch.is_empty() && patch.bytes().all(|b| b.is_ascii_digit()) && parts.next().is_none() => {}
            Some(_) => return Err(error()),
        }
        Ok(KubeVersion { major, minor })
    }
}
