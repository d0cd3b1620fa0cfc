//! CRDs from URLs (a project's release asset such as `cert-manager.crds.yaml`): fetched once into the
//! cache and reused without the network afterwards, fetched again on request or when the cached copy
//! does not match its pinned sha256.

use std::time::{Duration, Instant};

use crate::cache::{now, read_cached};
use crate::{redact_url, sha256_hex, Cache, Fetched, Network, SourceError, UrlSource};

/// The largest download accepted.
const MAX_BYTES: u64 = 64 * 1024 * 1024;
/// How long a connection may take to open.
const CONNECT_TIMEOUT: Duration = Duration::from_secs(10);
/// How long a whole download may take, redirects included.
const DOWNLOAD_TIMEOUT: Duration = Duration::from_secs(60);
/// The most redirects followed (what browsers and ureq allow by default, or about).
const MAX_REDIRECTS: usize = 10;

/// What a URL fetch may do beyond the address it was given.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct UrlPolicy {
    /// The hosts (`host` or `host:port`; `*` for any) a redirect may lead to besides the URL's own
    /// scheme, host and port. Empty by default: a configured URL could otherwise send crdls to any
    /// address (an internal service, a tracking beacon), so a redirect elsewhere is an error that
    /// names where it pointed. A redirect from `https` never leads to `http`.
    pub redirect_hosts: Vec<String>,
}

impl UrlPolicy {
    /// Whether a redirect from `first` (the URL as configured) may lead to `next`.
    fn allows(&self, first: &::url::Url, next: &::url::Url) -> bool {
        if same_origin(first, next) {
            return true;
        }
        if first.scheme() == "https" && next.scheme() != "https" {
            return false;
        }
        let host = next.host_str().unwrap_or_default();
        let with_port = next.port_or_known_default().map(|port| format!("{host}:{port}"));
        self.redirect_hosts.iter().any(|allowed| {
            allowed == "*" || allowed.eq_ignore_ascii_case(host) || with_port.as_deref().is_some_and(|p| allowed.eq_ignore_ascii_case(p))
        })
    }
}

/// The cache file of `url`.
pub fn cache_path(cache: &Cache, url: &str) -> std::path::PathBuf {
    let tail = url.split(['?', '#']).next().unwrap_or(url).rsplit('/').find(|s| !s.is_empty()).unwrap_or("download");
    cache.entry("urls", url, tail)
}

/// The text of `source`: from the cache when `network` allows and the copy matches its pin, else
/// downloaded (and cached) unless `network` is [`Network::Offline`], following redirects as `policy`
/// allows. The source is named by its URL without credentials (see [`redact_url`]). A download that
/// cannot be cached is used all the same, with the reason in [`Fetched::not_cached`].
pub fn fetch(source: &UrlSource, cache: &Cache, network: Network, policy: &UrlPolicy) -> Result<Fetched, SourceError> {
    let path = cache_path(cache, &source.url);
    let label = redact_url(&source.url);
    if network != Network::Refresh {
        if let Some((text, fetched_at)) = read_cached(&path) {
            let matches = source.sha256.as_ref().is_none_or(|pin| *pin == sha256_hex(text.as_bytes()));
            if matches {
                return Ok(Fetched { label, path, text, downloaded: false, fetched_at, refresh_failed: None, not_cached: None });
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
    let bytes = match download(&source.url, policy, MAX_BYTES, DOWNLOAD_TIMEOUT) {
        Ok(bytes) => bytes,
        Err(reason) => {
            let reason = scrub(&reason, &source.url, &label);
            // A refresh that fails keeps the copy that worked before, if it still matches its pin.
            let cached =
                read_cached(&path).filter(|(text, _)| source.sha256.as_ref().is_none_or(|pin| *pin == sha256_hex(text.as_bytes())));
            return match cached {
                Some((text, fetched_at)) if network == Network::Refresh => {
                    Ok(Fetched { label, path, text, downloaded: false, fetched_at, refresh_failed: Some(reason), not_cached: None })
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
    let not_cached = cache.write(&path, text.as_bytes()).err().map(|e| format!("cannot write the cache {}: {e}", path.display()));
    Ok(Fetched { label, path, text, downloaded: true, fetched_at: now(), refresh_failed: None, not_cached })
}

/// `reason` without the credentials of `url`, should an error have quoted it.
fn scrub(reason: &str, url: &str, label: &str) -> String {
    if url == label {
        return reason.to_string();
    }
    let mut out = reason.replace(url, label);
    // An error may quote the address without its path: drop the user information wherever it is.
    if let Some(user_info) =
        url.split_once("://").and_then(|(_, rest)| rest.split(['/', '?', '#']).next()?.rsplit_once('@')).map(|(u, _)| u)
    {
        out = out.replace(&format!("{user_info}@"), "");
    }
    out
}

/// The body of a GET of `url`, at most `max_bytes` of it and within `timeout`, following at most
/// [`MAX_REDIRECTS`] redirects, and only to the same scheme, host and port unless `policy` allows
/// others; or why there is none.
pub(crate) fn download(url: &str, policy: &UrlPolicy, max_bytes: u64, timeout: Duration) -> Result<Vec<u8>, String> {
    let config = ureq::Agent::config_builder()
        .timeout_connect(Some(CONNECT_TIMEOUT))
        .user_agent(concat!("crdls/", env!("CARGO_PKG_VERSION")))
        // Redirects are followed here, one by one, so that each target is looked at first.
        .max_redirects(0)
        .build();
    let agent = ureq::Agent::new_with_config(config);
    let deadline = Instant::now() + timeout;
    let first = ::url::Url::parse(url).map_err(|e| format!("it is not a URL ({e})"))?;
    let mut current = first.clone();
    for _ in 0..=MAX_REDIRECTS {
        let left = deadline.saturating_duration_since(Instant::now());
        if left.is_zero() {
            return Err("it timed out".into());
        }
        let mut response = agent.get(current.as_str()).config().timeout_global(Some(left)).build().call().map_err(describe)?;
        let status = response.status().as_u16();
        if !matches!(status, 301 | 302 | 303 | 307 | 308) {
            if !response.status().is_success() {
                return Err(format!("the server answered HTTP {status}"));
            }
            return response.body_mut().with_config().limit(max_bytes).read_to_vec().map_err(describe);
        }
        let location = response.headers().get(http::header::LOCATION).and_then(|v| v.to_str().ok());
        let Some(location) = location else {
            return Err(format!("the server answered HTTP {status} without saying where to"));
        };
        let next = current.join(location).map_err(|e| format!("the server redirected to an address that is not a URL ({e})"))?;
        if !policy.allows(&first, &next) {
            return Err(format!(
                "the server redirected to {}, another scheme, host or port than the URL's; the redirect was not followed (allow the host with --redirect-host or redirectHosts)",
                origin(&next)
            ));
        }
        current = next;
    }
    Err(format!("the server redirected more than {MAX_REDIRECTS} times"))
}

/// Whether two URLs have the same scheme, host and port (the port a scheme implies counts as given).
fn same_origin(a: &::url::Url, b: &::url::Url) -> bool {
    a.scheme() == b.scheme() && a.host_str() == b.host_str() && a.port_or_known_default() == b.port_or_known_default()
}

/// The scheme, host and port of `url`, without user information, path or query.
fn origin(url: &::url::Url) -> String {
    let host = url.host_str().unwrap_or_default();
    match url.port() {
        Some(port) => format!("{}://{host}:{port}", url.scheme()),
        None => format!("{}://{host}", url.scheme()),
    }
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

        let offline = fetch(&source, &cache, Network::Offline, &UrlPolicy::default()).unwrap_err();
        assert_eq!(offline, SourceError::NotCached { label: source.url.clone() });
        assert_eq!(count.load(Ordering::SeqCst), 0);

        let first = fetch(&source, &cache, Network::CacheFirst, &UrlPolicy::default()).unwrap();
        assert!(first.downloaded);
        assert!(first.path.to_string_lossy().ends_with("-widgets.crds.yaml"));
        let again = fetch(&source, &cache, Network::Offline, &UrlPolicy::default()).unwrap();
        assert!(!again.downloaded);
        assert_eq!(again.text, "kind: CustomResourceDefinition\n");
        fetch(&source, &cache, Network::CacheFirst, &UrlPolicy::default()).unwrap();
        assert_eq!(count.load(Ordering::SeqCst), 1);
        assert!(fetch(&source, &cache, Network::Refresh, &UrlPolicy::default()).unwrap().downloaded);
        assert_eq!(count.load(Ordering::SeqCst), 2);

        // A pin the cached copy does not match fetches again; a download that does not match is refused.
        let pinned = UrlSource { sha256: Some("00".repeat(32)), ..source.clone() };
        let err = fetch(&pinned, &cache, Network::CacheFirst, &UrlPolicy::default()).unwrap_err();
        assert!(matches!(err, SourceError::Pin { .. }), "{err}");
        assert_eq!(count.load(Ordering::SeqCst), 3);
        let good = UrlSource { sha256: Some(sha256_hex(b"kind: CustomResourceDefinition\n")), ..source.clone() };
        assert!(!fetch(&good, &cache, Network::CacheFirst, &UrlPolicy::default()).unwrap().downloaded);

        // A refresh that fails falls back to the cached copy and says why.
        let unreachable = UrlSource { url: "http://127.0.0.1:9/v1/widgets.crds.yaml".into(), sha256: None };
        cache.write(&cache_path(&cache, &unreachable.url), b"kind: Cached\n").unwrap();
        let stale = fetch(&unreachable, &cache, Network::Refresh, &UrlPolicy::default()).unwrap();
        assert_eq!((stale.text.as_str(), stale.downloaded), ("kind: Cached\n", false));
        assert!(stale.refresh_failed.is_some());
        let _ = std::fs::remove_dir_all(&dir);
    }

    #[test]
    fn reports_http_errors() {
        let dir = std::env::temp_dir().join(format!("crdls-url-404-{}", std::process::id()));
        let (address, _) = serve(404, "not found");
        let source = UrlSource { url: format!("{address}/missing.yaml"), sha256: None };
        let err = fetch(&source, &Cache::at(&dir), Network::CacheFirst, &UrlPolicy::default()).unwrap_err();
        assert_eq!(err.to_string(), format!("cannot fetch {address}/missing.yaml: the server answered HTTP 404"));
        let _ = std::fs::remove_dir_all(&dir);
    }

    /// A loopback server whose every answer is `response(request line)`, raw HTTP.
    fn serve_raw(response: impl Fn(&str) -> String + Send + 'static) -> String {
        let listener = TcpListener::bind("127.0.0.1:0").unwrap();
        let address = format!("http://{}", listener.local_addr().unwrap());
        std::thread::spawn(move || {
            for stream in listener.incoming().flatten() {
                let mut reader = BufReader::new(stream.try_clone().unwrap());
                let mut request = String::new();
                let _ = reader.read_line(&mut request);
                let mut line = String::new();
                while reader.read_line(&mut line).is_ok_and(|n| n > 0) && line != "\r\n" {
                    line.clear();
                }
                let mut stream = stream;
                let _ = stream.write_all(response(request.trim_end()).as_bytes());
            }
        });
        address
    }

    fn redirect_to(location: String) -> impl Fn(&str) -> String {
        move |_| format!("HTTP/1.1 302 Found\r\nLocation: {location}\r\nContent-Length: 0\r\nConnection: close\r\n\r\n")
    }

    /// A redirect to another port (another host, as far as the web's origins go) is not followed
    /// unless the policy allows it; one to the same host and port is.
    #[test]
    fn the_redirect_policy_names_hosts_and_never_downgrades() {
        let url = |s: &str| ::url::Url::parse(s).unwrap();
        let policy = UrlPolicy { redirect_hosts: vec!["objects.example.com".into(), "cdn.example.com:8443".into()] };
        let first = url("https://github.example/a/releases/download/v1/crds.yaml");
        assert!(policy.allows(&first, &url("https://github.example/other")));
        assert!(policy.allows(&first, &url("https://OBJECTS.example.com/x")));
        assert!(!policy.allows(&first, &url("http://objects.example.com/x")), "https never leads to http");
        assert!(policy.allows(&first, &url("https://cdn.example.com:8443/x")));
        assert!(!policy.allows(&first, &url("https://cdn.example.com/x")));
        assert!(!policy.allows(&first, &url("https://169.254.169.254/latest/meta-data")));
        assert!(!UrlPolicy::default().allows(&first, &url("https://objects.example.com/x")));
        assert!(UrlPolicy { redirect_hosts: vec!["*".into()] }.allows(&first, &url("https://anywhere.example/x")));
    }

    #[test]
    fn redirects_stay_on_the_same_host_unless_allowed() {
        let dir = std::env::temp_dir().join(format!("crdls-url-redirect-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        let cache = Cache::at(&dir);
        let (target, target_count) = serve(200, "kind: Elsewhere\n");
        let away = serve_raw(redirect_to(format!("{target}/crds.yaml")));
        let source = UrlSource { url: format!("{away}/crds.yaml"), sha256: None };
        let err = fetch(&source, &cache, Network::CacheFirst, &UrlPolicy::default()).unwrap_err().to_string();
        assert_eq!(
            err,
            format!(
                "cannot fetch {away}/crds.yaml: the server redirected to {target}, another scheme, host or port than the URL's; the redirect was not followed (allow the host with --redirect-host or redirectHosts)"
            )
        );
        assert_eq!(target_count.load(Ordering::SeqCst), 0);
        let port = target.rsplit(':').next().unwrap();
        let allowed = UrlPolicy { redirect_hosts: vec![format!("127.0.0.1:{port}")] };
        assert_eq!(fetch(&source, &cache, Network::Refresh, &allowed).unwrap().text, "kind: Elsewhere\n");
        assert_eq!(target_count.load(Ordering::SeqCst), 1);

        // On the same host and port, relative and absolute Locations are followed.
        let same = serve_raw(|request| {
            if request.starts_with("GET /final.yaml ") {
                "HTTP/1.1 200 OK\r\nContent-Length: 10\r\nConnection: close\r\n\r\nkind: Here".to_string()
            } else {
                "HTTP/1.1 301 Moved\r\nLocation: final.yaml\r\nContent-Length: 0\r\nConnection: close\r\n\r\n".to_string()
            }
        });
        let source = UrlSource { url: format!("{same}/start.yaml"), sha256: None };
        assert_eq!(fetch(&source, &cache, Network::CacheFirst, &UrlPolicy::default()).unwrap().text, "kind: Here");
        let _ = std::fs::remove_dir_all(&dir);
    }

    /// Credentials in a URL are not shown: not in the label, not in an error.
    #[test]
    fn labels_and_errors_hide_credentials() {
        let dir = std::env::temp_dir().join(format!("crdls-url-secret-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        let cache = Cache::at(&dir);
        let (address, _) = serve(200, "kind: A\n");
        let with_secret = address.replace("http://", "http://me:s3cret@");
        let fetched =
            fetch(&UrlSource { url: format!("{with_secret}/a.yaml"), sha256: None }, &cache, Network::CacheFirst, &UrlPolicy::default())
                .unwrap();
        assert_eq!(fetched.label, format!("{}/a.yaml", address.replace("http://", "http://me:***@")));
        let (missing, _) = serve(404, "no");
        let url = format!("{}/b.yaml", missing.replace("http://", "http://me:s3cret@"));
        let err = fetch(&UrlSource { url, sha256: None }, &cache, Network::CacheFirst, &UrlPolicy::default()).unwrap_err().to_string();
        assert!(!err.contains("s3cret"), "{err}");
        let unreachable = UrlSource { url: "http://me:s3cret@127.0.0.1:9/c.yaml".into(), sha256: None };
        let err = fetch(&unreachable, &cache, Network::CacheFirst, &UrlPolicy::default()).unwrap_err().to_string();
        assert!(!err.contains("s3cret") && err.starts_with("cannot fetch http://me:***@127.0.0.1:9/c.yaml: "), "{err}");
        let _ = std::fs::remove_dir_all(&dir);
    }

    /// A download that cannot be written to the cache is used, with a warning, rather than refused.
    #[test]
    fn a_download_that_cannot_be_cached_is_used_with_a_warning() {
        let dir = std::env::temp_dir().join(format!("crdls-url-readonly-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        // The cache directory is a file: nothing can be created below it.
        std::fs::write(&dir, "not a directory").unwrap();
        let (address, _) = serve(200, "kind: A\n");
        let source = UrlSource { url: format!("{address}/a.yaml"), sha256: None };
        let fetched = fetch(&source, &Cache::at(&dir), Network::CacheFirst, &UrlPolicy::default()).unwrap();
        assert_eq!((fetched.text.as_str(), fetched.downloaded), ("kind: A\n", true));
        let warning = fetched.not_cached_warning().unwrap().to_string();
        assert!(warning.starts_with(&format!("{address}/a.yaml was fetched but not cached: cannot write the cache ")), "{warning}");
        let _ = std::fs::remove_file(&dir);
    }
}
