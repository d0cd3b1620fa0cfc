//! The Kubernetes API's OpenAPI v3 documents (one per group/version, as `api/openapi-spec/v3` of the
//! Kubernetes repository holds them) for the field documentation of built-in kinds in hovers: fetched
//! only when the user turned it on, once per document into the cache, and read from the cache after.
//!
//! The cache is hostile input like any file: an entry is read only when it is a regular file of at
//! most [`MAX_DOCUMENT_BYTES`], and used only when the caller's parser accepts it; an entry it refuses
//! is fetched again (or, offline, is an error). Entry names are made by [`Cache::entry`] from a hash
//! of the URL and a readable name of safe characters, so no name a document or a setting holds reaches
//! a path.

use std::path::Path;
use std::time::Duration;

use crate::{redact_url, Cache, Network, SourceError, UrlPolicy};

/// Where the documents of each release are read by default: the Kubernetes repository at the
/// release's tag (`{base}/{tag}/api/openapi-spec/v3/{file}`).
pub const DEFAULT_BASE: &str = "https://raw.githubusercontent.com/kubernetes/kubernetes";
/// The largest document accepted, downloaded or cached (the core group's is about 2 MiB).
pub const MAX_DOCUMENT_BYTES: u64 = 16 * 1024 * 1024;
/// How long a document's download may take: a hover waits for it.
const TIMEOUT: Duration = Duration::from_secs(20);
/// The cache's section for the documents.
const SECTION: &str = "kubernetes-openapi";

/// The URL of the document `file` (`apis__apps__v1_openapi.json`) of the release tagged `tag`
/// (`v1.37.2`) under `base`.
pub fn document_url(base: &str, tag: &str, file: &str) -> String {
    format!("{}/{tag}/api/openapi-spec/v3/{file}", base.trim_end_matches('/'))
}

/// A document, parsed by the caller's parser, and whether it came from the network in this call.
#[derive(Debug)]
pub struct Document<T> {
    /// What `parse` made of the text.
    pub parsed: T,
    /// Whether it was downloaded in this call (false: read from the cache).
    pub downloaded: bool,
    /// Why a download could not be cached (it is used all the same).
    pub not_cached: Option<String>,
}

/// The document at `url` as `parse` reads it: from the cache when it is there and `parse` accepts it,
/// else downloaded (at most [`MAX_DOCUMENT_BYTES`], within 20 seconds, redirects only to the same
/// host) unless `network` is [`Network::Offline`], and cached once `parse` accepted it. `readable`
/// names the cache file for people (`v1.37.2-apis__apps__v1_openapi.json`).
pub fn fetch<T>(
    url: &str,
    readable: &str,
    cache: &Cache,
    network: Network,
    parse: impl Fn(&str) -> Result<T, String>,
) -> Result<Document<T>, SourceError> {
    let path = cache.entry(SECTION, url, readable);
    let label = redact_url(url);
    if network != Network::Refresh {
        if let Some(parsed) = read_cached(&path, &parse) {
            return Ok(Document { parsed, downloaded: false, not_cached: None });
        }
    }
    if network == Network::Offline {
        return Err(SourceError::NotCached { label });
    }
    let failed = |reason: String| SourceError::Fetch { label: label.clone(), reason };
    let bytes =
        crate::url::download(url, &UrlPolicy::default(), MAX_DOCUMENT_BYTES, TIMEOUT).map_err(|e| failed(e.replace(url, &label)))?;
    let text = String::from_utf8(bytes).map_err(|_| failed("the content is not UTF-8 text".into()))?;
    let parsed = parse(&text).map_err(failed)?;
    let not_cached = cache.write(&path, text.as_bytes()).err().map(|e| format!("cannot write the cache {}: {e}", path.display()));
    Ok(Document { parsed, downloaded: true, not_cached })
}

/// The cached document at `path`, when it is a regular file within the limit that `parse` accepts.
fn read_cached<T>(path: &Path, parse: &impl Fn(&str) -> Result<T, String>) -> Option<T> {
    let text = crate::read::read_text(path, MAX_DOCUMENT_BYTES).ok()?;
    parse(&text).ok()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::url::tests::serve;
    use std::sync::atomic::Ordering;

    /// A stand-in for the documents' parser: JSON objects with a `components` key.
    fn parse(text: &str) -> Result<usize, String> {
        let value: serde_json::Value = serde_json::from_str(text).map_err(|e| e.to_string())?;
        value.get("components").map(|_| text.len()).ok_or_else(|| "no components".to_string())
    }

    fn scratch(name: &str) -> Cache {
        let dir = std::env::temp_dir().join(format!("crdls-openapi-{name}-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        Cache::at(dir)
    }

    #[test]
    fn fetched_once_then_read_from_the_cache() {
        let cache = scratch("once");
        let (address, count) = serve(200, r#"{"components": {}}"#);
        let url = document_url(&format!("{address}/"), "v1.37.2", "apis__apps__v1_openapi.json");
        assert_eq!(url, format!("{address}/v1.37.2/api/openapi-spec/v3/apis__apps__v1_openapi.json"));
        let offline = fetch(&url, "v1.37.2-apps", &cache, Network::Offline, parse).unwrap_err();
        assert!(matches!(offline, SourceError::NotCached { .. }), "{offline}");
        assert_eq!(count.load(Ordering::SeqCst), 0);
        let first = fetch(&url, "v1.37.2-apps", &cache, Network::CacheFirst, parse).unwrap();
        assert!(first.downloaded && first.not_cached.is_none());
        let again = fetch(&url, "v1.37.2-apps", &cache, Network::Offline, parse).unwrap();
        assert!(!again.downloaded);
        assert_eq!(again.parsed, first.parsed);
        assert_eq!(count.load(Ordering::SeqCst), 1);
        let _ = std::fs::remove_dir_all(cache.dir());
    }

    #[test]
    fn a_download_the_parser_refuses_is_not_cached() {
        let cache = scratch("refused");
        let (address, count) = serve(200, "<html>a login page</html>");
        let url = document_url(&address, "v1.37.2", "api__v1_openapi.json");
        let err = fetch(&url, "core", &cache, Network::CacheFirst, parse).unwrap_err().to_string();
        assert!(err.starts_with(&format!("cannot fetch {url}: ")), "{err}");
        assert!(matches!(fetch(&url, "core", &cache, Network::Offline, parse), Err(SourceError::NotCached { .. })));
        assert_eq!(count.load(Ordering::SeqCst), 1);
        let _ = std::fs::remove_dir_all(cache.dir());
    }

    /// What is planted in the cache is used only when it is a regular file within the limit that the
    /// parser accepts; anything else is fetched again, or offline is an error.
    #[test]
    fn the_cache_is_read_within_bounds() {
        let cache = scratch("bounds");
        let (address, count) = serve(200, r#"{"components": {"fresh": 1}}"#);
        let url = document_url(&address, "v1.37.2", "api__v1_openapi.json");
        let path = cache.entry(SECTION, &url, "core");
        let planted = |bytes: &[u8]| {
            let _ = std::fs::remove_dir_all(&path);
            cache.write(&path, bytes).unwrap();
        };

        planted(r#"{"components": {"planted": 1}}"#.as_bytes());
        assert_eq!(fetch(&url, "core", &cache, Network::Offline, parse).unwrap().parsed, 30);

        planted(b"not json");
        assert!(matches!(fetch(&url, "core", &cache, Network::Offline, parse), Err(SourceError::NotCached { .. })));

        // Larger than the limit: not read, even though it would parse.
        let mut large = br#"{"components": {}, "pad": ""#.to_vec();
        large.resize(MAX_DOCUMENT_BYTES as usize + 1, b' ');
        large.extend_from_slice(br#""}"#);
        planted(&large);
        assert!(matches!(fetch(&url, "core", &cache, Network::Offline, parse), Err(SourceError::NotCached { .. })));
        assert_eq!(count.load(Ordering::SeqCst), 0);
        // Online, the refused entry is replaced by a download.
        let fresh = fetch(&url, "core", &cache, Network::CacheFirst, parse).unwrap();
        assert!(fresh.downloaded);
        assert_eq!(std::fs::read_to_string(&path).unwrap(), r#"{"components": {"fresh": 1}}"#);

        // A directory where the entry should be is not read.
        std::fs::remove_file(&path).unwrap();
        std::fs::create_dir_all(&path).unwrap();
        assert!(matches!(fetch(&url, "core", &cache, Network::Offline, parse), Err(SourceError::NotCached { .. })));

        // The entry's name comes from the URL's hash and safe characters, whatever `readable` says.
        let odd = cache.entry(SECTION, &url, "../../etc/passwd");
        assert_eq!(odd.parent(), Some(cache.dir().join(SECTION).as_path()), "{}", odd.display());
        let _ = std::fs::remove_dir_all(cache.dir());
    }
}
