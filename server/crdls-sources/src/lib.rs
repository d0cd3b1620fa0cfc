//! Where CRDs come from besides the YAML files of the workspace: the `crds/` directories of Helm chart
//! archives (read in place), URLs (fetched once into a cache and reused offline), and the CRDs a
//! cluster serves (listed through its kubeconfig and cached the same way). Each source yields texts
//! with an origin that names it, so reports, hovers and definitions can say where a CRD came from.
//!
//! The network is only touched here, and only when a caller asks: the CLI before it checks, the
//! language server in a background task.

pub mod archive;
pub mod cache;
pub mod cluster;
pub mod openapi;
pub mod read;
pub mod url;

pub use cache::Cache;
pub use url::UrlPolicy;

/// How a run may use the network for URL and cluster sources.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Network {
    /// Use the cached copy when there is one (and it matches its pin); fetch otherwise.
    #[default]
    CacheFirst,
    /// Fetch again even when a cached copy exists (`--refresh`, or the editor's refresh command).
    Refresh,
    /// Never touch the network: what is not cached is an error (`--offline`).
    Offline,
}

/// A CRD location as written in `--crds`, `crdPaths` or the editor settings.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Location {
    /// A file, a directory or a glob, relative to where it was configured.
    Path(String),
    /// An `http://` or `https://` URL.
    Url(UrlSource),
}

/// A URL to read CRDs from, with the sha256 its content is pinned to, if any.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct UrlSource {
    /// The URL, without the pin.
    pub url: String,
    /// The pinned sha256 (lowercase hex), written as a `#sha256=…` fragment.
    pub sha256: Option<String>,
}

impl Location {
    /// Reads a configured location: a URL when it starts with `http://` or `https://` (a trailing
    /// `#sha256=HEX` pins its content), a path otherwise.
    pub fn parse(spec: &str) -> Location {
        let lower = spec.get(..8).unwrap_or(spec).to_ascii_lowercase();
        if !(lower.starts_with("http://") || lower.starts_with("https://")) {
            return Location::Path(spec.to_string());
        }
        match spec.rsplit_once("#sha256=") {
            Some((url, pin)) => Location::Url(UrlSource { url: url.to_string(), sha256: Some(pin.trim().to_ascii_lowercase()) }),
            None => Location::Url(UrlSource { url: spec.to_string(), sha256: None }),
        }
    }
}

/// A text read from a URL or the cluster, and where it is cached.
#[derive(Clone, Debug)]
pub struct Fetched {
    /// What the source is called in reports: the URL, or `cluster <context>`.
    pub label: String,
    /// The cached file, which an editor can open.
    pub path: std::path::PathBuf,
    /// The text.
    pub text: String,
    /// Whether it came from the network in this call (false: from the cache).
    pub downloaded: bool,
    /// When the cached copy was written, as seconds since the Unix epoch.
    pub fetched_at: Option<u64>,
    /// Why a refresh failed, when the cached copy stands in for the fresh one.
    pub refresh_failed: Option<String>,
    /// Why a download could not be written to the cache (a full disk, a read-only directory): the text
    /// is used all the same, but `path` does not hold it, and the next run fetches again.
    pub not_cached: Option<String>,
}

impl Fetched {
    /// The warning to show when the text could not be cached.
    pub fn not_cached_warning(&self) -> Option<SourceError> {
        self.not_cached.as_ref().map(|reason| SourceError::Uncached { label: self.label.clone(), reason: reason.clone() })
    }
}

/// Why a URL or the cluster gave no CRDs.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum SourceError {
    /// `--offline`, and the source was never fetched.
    NotCached {
        /// The source.
        label: String,
    },
    /// The download failed.
    Fetch {
        /// The source.
        label: String,
        /// What went wrong.
        reason: String,
    },
    /// The download is used, but could not be written to the cache (a warning, not a failure).
    Uncached {
        /// The source.
        label: String,
        /// Why it could not be cached.
        reason: String,
    },
    /// A chart archive could not be read (it names its path).
    Archive(archive::ArchiveError),
    /// The content does not match the pinned sha256.
    Pin {
        /// The URL.
        label: String,
        /// The pin.
        expected: String,
        /// The content's sha256.
        actual: String,
    },
    /// A CRD path that an untrusted workspace's `crdls.toml` names leads out of the workspace once its
    /// symbolic links are resolved (or into its `.git` directory): not read.
    Outside {
        /// The path or glob as `crdls.toml` writes it.
        pattern: String,
        /// The file or directory it led to, as found (the pattern itself, or a glob's match).
        path: String,
    },
}

impl SourceError {
    /// The source the error is about.
    pub fn label(&self) -> std::borrow::Cow<'_, str> {
        match self {
            SourceError::NotCached { label }
            | SourceError::Fetch { label, .. }
            | SourceError::Uncached { label, .. }
            | SourceError::Pin { label, .. } => label.into(),
            SourceError::Archive(e) => e.path.to_string_lossy(),
            SourceError::Outside { pattern, .. } => pattern.into(),
        }
    }
}

impl std::fmt::Display for SourceError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            SourceError::NotCached { label } => {
                write!(f, "{label} is not in the cache, and the network is off (--offline); run once without --offline to fetch it")
            }
            SourceError::Fetch { label, reason } => write!(f, "cannot fetch {label}: {reason}"),
            SourceError::Uncached { label, reason } => write!(f, "{label} was fetched but not cached: {reason}"),
            SourceError::Archive(e) => write!(f, "{e}"),
            SourceError::Pin { label, expected, actual } => {
                write!(f, "{label} has sha256 {actual}, but it is pinned to {expected}; not used (check the pin, or the URL)")
            }
            SourceError::Outside { pattern, path } => {
                let named =
                    if pattern == path { format!("the CRD path {path}") } else { format!("{path}, matched by the CRD path {pattern},") };
                write!(
                    f,
                    "{named} leads out of the workspace (through a symbolic link, or into .git); not read, because the workspace is not trusted"
                )
            }
        }
    }
}

/// `url` as it may be shown to users: a password in its user information (`http://user:pass@host/`)
/// is replaced by `***`, and a user name alone, which is often a token, likewise. So is the value of a
/// query parameter whose name says it carries a secret (`?token=`, `X-Amz-Signature=`, `sig=`, ...), as
/// pre-signed download links do. Only labels are redacted; the cache is keyed by the whole URL.
pub fn redact_url(url: &str) -> String {
    let Some((scheme, rest)) = url.split_once("://") else { return url.to_string() };
    let authority_end = rest.find(['/', '?', '#']).unwrap_or(rest.len());
    let (authority, tail) = rest.split_at(authority_end);
    let authority = match authority.rfind('@') {
        Some(at) => {
            let user_info = &authority[..at];
            let shown = match user_info.split_once(':') {
                Some((user, _)) => format!("{user}:***"),
                None => "***".to_string(),
            };
            format!("{shown}@{}", &authority[at + 1..])
        }
        None => authority.to_string(),
    };
    format!("{scheme}://{authority}{}", redact_query(tail))
}

/// The path, query and fragment of a URL, with the values of secret-looking query parameters hidden.
fn redact_query(tail: &str) -> String {
    let Some(question) = tail.find('?') else { return tail.to_string() };
    let (path, query_and_fragment) = tail.split_at(question + 1);
    let (query, fragment) = match query_and_fragment.find('#') {
        Some(hash) => query_and_fragment.split_at(hash),
        None => (query_and_fragment, ""),
    };
    let pairs: Vec<String> = query
        .split('&')
        .map(|pair| match pair.split_once('=') {
            Some((name, value)) if !value.is_empty() && names_a_secret(name) => format!("{name}=***"),
            _ => pair.to_string(),
        })
        .collect();
    format!("{path}{}{fragment}", pairs.join("&"))
}

/// Whether a query parameter's name says that its value is a credential: tokens, keys, signatures,
/// passwords and session ids, in the spellings that object stores and APIs use.
fn names_a_secret(name: &str) -> bool {
    let name = name.to_ascii_lowercase();
    ["token", "key", "sig", "secret", "password", "passwd", "auth", "credential", "session"].iter().any(|word| name.contains(word))
}

/// The sha256 of `bytes`, lowercase hex.
pub fn sha256_hex(bytes: &[u8]) -> String {
    use sha2::Digest;
    sha2::Sha256::digest(bytes).iter().map(|b| format!("{b:02x}")).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn locations() {
        assert_eq!(Location::parse("crds/"), Location::Path("crds/".into()));
        assert_eq!(
            Location::parse("https://example.com/a.yaml"),
            Location::Url(UrlSource { url: "https://example.com/a.yaml".into(), sha256: None })
        );
        assert_eq!(
            Location::parse("HTTP://example.com/a.yaml#sha256=ABC"),
            Location::Url(UrlSource { url: "HTTP://example.com/a.yaml".into(), sha256: Some("abc".into()) })
        );
        assert_eq!(sha256_hex(b""), "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
    }

    #[test]
    fn urls_are_shown_without_credentials() {
        assert_eq!(redact_url("https://user:s3cret@example.com/a.yaml"), "https://user:***@example.com/a.yaml");
        assert_eq!(redact_url("https://ghp_t0ken@example.com/a.yaml"), "https://***@example.com/a.yaml");
        assert_eq!(redact_url("https://a:b:c@example.com:8443"), "https://a:***@example.com:8443");
        assert_eq!(redact_url("https://example.com/a@b.yaml?x=@"), "https://example.com/a@b.yaml?x=@");
        assert_eq!(redact_url("https://example.com/a.yaml"), "https://example.com/a.yaml");
        assert_eq!(
            redact_url("https://bucket.example.com/crds.yaml?X-Amz-Credential=AKIA%2F1&X-Amz-Signature=ab12&ref=v1#sha256=00"),
            "https://bucket.example.com/crds.yaml?X-Amz-Credential=***&X-Amz-Signature=***&ref=v1#sha256=00"
        );
        assert_eq!(
            redact_url("https://t:p@example.com/?access_token=ghp_x&api_key="),
            "https://t:***@example.com/?access_token=***&api_key="
        );
        assert_eq!(redact_url("https://example.com/a.yaml?sv=2020&sig=c2lnbmF0dXJl"), "https://example.com/a.yaml?sv=2020&sig=***");
    }
}
