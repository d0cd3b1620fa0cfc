//! CRDs from URLs (a project's release asset such as `cert-manager.crds.yaml`): fetched once into the
//! cache and reused without the network afterwards, fetched again on request or when the cached copy
//! does not match its pinned sha256.

use std::time::Duration;

use crate::cache::{now, read_cached};
use crate::{sha256_hex, Cache, Fetched, Network, SourceError, UrlSource};

/// The largest download accepted.
const MAX_BYTES: u64 = 64 * 1024 * 1024;
/// How long a connection may take to open.
const CONNECT_TIMEOUT: Duration = Duration::from_secs(10);
/// How long a whole download may take.
const DOWNLOAD_TIMEOUT: Duration = Duration::from_secs(60);

/// The cache file of `url`.
pub fn cache_path(cache: &Cache, url: &str) -> std::path::PathBuf {
    let tail = url.split(['?', '#']).next().unwrap_or(url).rsplit('/').find(|s| !s.is_empty()).unwrap_or("download");
    cache.entry("urls", url, tail)
}

/// The text of `source`: from the cache when `network` allows and the copy matches its pin, else
/// downloaded (and cached) unless `network` is [`Network::Offline`].
pub fn fetch(source: &UrlSource, cache: &Cache, network: Network) -> Result<Fetched, SourceError> {
    let path = cache_path(cache, &source.url);
    let label = source.url.clone();
    if network != Network::Refresh {
        if let Some((text, fetched_at)) = read_cached(&path) {
            let matches = source.sha256.as_ref().is_none_or(|pin| *pin == sha256_hex(text.as_bytes()));
            if matches {
                return Ok(Fetched { label, path, text, downloaded: false, fetched_at, refresh_failed: None });
            }
            if network == Network::Offline {
                let actual = sha256_hex(text.as_bytes());
                return Err(SourceError::Pin { label, expected: source.sha256.clone().unwrap_or_default(), actual });
            }
        }
    }
    if network == Network::Offline {
        return Err(SourceError::NotCached { label });
    }
    let bytes = match download(&source.url) {
        Ok(bytes) => bytes,
        Err(reason) => {
            // A refresh that fails keeps the copy that worked before, if it still matches its pin.
            let cached =
                read_cached(&path).filter(|(text, _)| source.sha256.as_ref().is_none_or(|pin| *pin == sha256_hex(text.as_bytes())));
            return match cached {
                Some((text, fetched_at)) if network == Network::Refresh => {
                    Ok(Fetched { label, path, text, downloaded: false, fetched_at, refresh_failed: Some(reason) })
                }
                _ => Err(SourceError::Fetch { label, reason }),
            };
        }
    };
    let actual = sha256_hex(&bytes);
    if let Some(pin) = &source.sha256 {
        if *pin != actual {
            return Err(SourceError::Pin { label, expected: pin.clone(), actual });
        }
    }
    let text = String::from_utf8(bytes)
        .map_err(|_| SourceError::Fetch { label: label.clone(), reason: "the content is not UTF-8 text".into() })?;
    cache
        .write(&path, text.as_bytes())
        .map_err(|e| SourceError::Fetch { label: label.clone(), reason: format!("cannot write the cache {}: {e}", path.display()) })?;
    Ok(Fetched { label, path, text, downloaded: true, fetched_at: now(), refresh_failed: None })
}

/// The body of a GET of `url`, or why there is none.
fn download(url: &str) -> Result<Vec<u8>, String> {
    let config = ureq::Agent::config_builder()
        .timeout_connect(Some(CONNECT_TIMEOUT))
        .timeout_global(Some(DOWNLOAD_TIMEOUT))
        .user_agent(concat!("crdls/", env!("CARGO_PKG_VERSION")))
        .build();
    let agent = ureq::Agent::new_with_config(config);
    let mut response = agent.get(url).call().map_err(describe)?;
    response.body_mut().with_config().limit(MAX_BYTES).read_to_vec().map_err(describe)
}

/// A download error in a sentence.
fn describe(error: ureq::Error) -> String {
    match error {
        ureq::Error::StatusCode(code) => format!("the server answered HTTP {code}"),
        ureq::Error::Timeout(_) => "it timed out".into(),
        ureq::Error::BodyExceedsLimit(limit) => format!("it is larger than {} MiB", limit / (1024 * 1024)),
        other => other.to_string(),
    }
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;
    use std::io::{BufRead, BufReader, Write};
    use std::net::TcpListener;
    use std::sync::atomic::{AtomicUsize, Ordering};
    use std::sync::Arc;

    /// A loopback HTTP server answering every GET with `status` and `body`; counts the requests.
    pub(crate) fn serve(status: u16, body: &'static str) -> (String, Arc<AtomicUsize>) {
        let listener = TcpListener::bind("127.0.0.1:0").unwrap();
        let address = format!("http://{}", listener.local_addr().unwrap());
        let count = Arc::new(AtomicUsize::new(0));
        let counter = count.clone();
        std::thread::spawn(move || {
            for stream in listener.incoming().flatten() {
                counter.fetch_add(1, Ordering::SeqCst);
                let mut reader = BufReader::new(stream.try_clone().unwrap());
                let mut line = String::new();
                while reader.read_line(&mut line).is_ok_and(|n| n > 0) && line != "\r\n" {
                    line.clear();
                }
                let mut stream = stream;
                let _ = write!(stream, "HTTP/1.1 {status} X\r\nContent-Length: {}\r\nConnection: close\r\n\r\n{body}", body.len());
            }
        });
        (address, count)
    }

    #[test]
    fn fetches_once_then_reads_the_cache() {
        let dir = std::env::temp_dir().join(format!("crdls-url-cache-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        let cache = Cache::at(&dir);
        let (address, count) = serve(200, "kind: CustomResourceDefinition\n");
        let source = UrlSource { url: format!("{address}/v1/widgets.crds.yaml"), sha256: None };

        let offline = fetch(&source, &cache, Network::Offline).unwrap_err();
        assert_eq!(offline, SourceError::NotCached { label: source.url.clone() });
        assert_eq!(count.load(Ordering::SeqCst), 0);

        let first = fetch(&source, &cache, Network::CacheFirst).unwrap();
        assert!(first.downloaded);
        assert!(first.path.to_string_lossy().ends_with("-widgets.crds.yaml"));
        let again = fetch(&source, &cache, Network::Offline).unwrap();
        assert!(!again.downloaded);
        assert_eq!(again.text, "kind: CustomResourceDefinition\n");
        fetch(&source, &cache, Network::CacheFirst).unwrap();
        assert_eq!(count.load(Ordering::SeqCst), 1);
        assert!(fetch(&source, &cache, Network::Refresh).unwrap().downloaded);
        assert_eq!(count.load(Ordering::SeqCst), 2);

        // A pin the cached copy does not match fetches again; a download that does not match is refused.
        let pinned = UrlSource { sha256: Some("00".repeat(32)), ..source.clone() };
        let err = fetch(&pinned, &cache, Network::CacheFirst).unwrap_err();
        assert!(matches!(err, SourceError::Pin { .. }), "{err}");
        assert_eq!(count.load(Ordering::SeqCst), 3);
        let good = UrlSource { sha256: Some(sha256_hex(b"kind: CustomResourceDefinition\n")), ..source.clone() };
        assert!(!fetch(&good, &cache, Network::CacheFirst).unwrap().downloaded);

        // A refresh that fails falls back to the cached copy and says why.
        let unreachable = UrlSource { url: "http://127.0.0.1:9/v1/widgets.crds.yaml".into(), sha256: None };
        cache.write(&cache_path(&cache, &unreachable.url), b"kind: Cached\n").unwrap();
        let stale = fetch(&unreachable, &cache, Network::Refresh).unwrap();
        assert_eq!((stale.text.as_str(), stale.downloaded), ("kind: Cached\n", false));
        assert!(stale.refresh_failed.is_some());
        let _ = std::fs::remove_dir_all(&dir);
    }

    #[test]
    fn reports_http_errors() {
        let dir = std::env::temp_dir().join(format!("crdls-url-404-{}", std::process::id()));
        let (address, _) = serve(404, "not found");
        let source = UrlSource { url: format!("{address}/missing.yaml"), sha256: None };
        let err = fetch(&source, &Cache::at(&dir), Network::CacheFirst).unwrap_err();
        assert_eq!(err.to_string(), format!("cannot fetch {address}/missing.yaml: the server answered HTTP 404"));
        let _ = std::fs::remove_dir_all(&dir);
    }
}

/// `url` as shown to users: the credentials of its userinfo (`https://user:secret@host/`) become
/// `***`, so notes, errors and reports never echo a password or token.
pub fn redact(url: &str) -> String {
    let Some(scheme_end) = url.find("://").map(|i| i + 3) else { return url.to_string() };
    let rest = &url[scheme_end..];
    let authority_end = rest.find(['/', '?', '#']).unwrap_or(rest.len());
    let Some(at) = rest[..authority_end].rfind('@') else { return url.to_string() };
    let userinfo = &rest[..at];
    let shown = match userinfo.split_once(':') {
        Some((user, _)) => format!("{user}:***"),
        None => "***".to_string(),
    };
    format!("{}{shown}{}", &url[..scheme_end], &rest[at..])
}

#[cfg(test)]
mod redact_tests {
    #[test]
    fn credentials_in_urls_are_hidden() {
        assert_eq!(super::redact("https://u:p@h.example/a@b"), "https://u:***@h.example/a@b");
        assert_eq!(super::redact("http://tok3n@h:8080/x"), "http://***@h:8080/x");
        assert_eq!(super::redact("https://h.example/x?a=b@c"), "https://h.example/x?a=b@c");
        assert_eq!(super::redact("not a url"), "not a url");
    }
}
