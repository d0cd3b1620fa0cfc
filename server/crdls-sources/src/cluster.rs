//! CRDs from the cluster of a kubeconfig context: the `apiextensions.k8s.io/v1` CRDs it serves, listed
//! read-only page by page through kube-rs (which does the rest of the kubeconfig: bearer tokens and
//! token files, client certificates, CA data, proxies), and cached like a URL.
//!
//! What kube-rs would do without limits is done here instead. The kubeconfig is read through the
//! bounded reader and handed to kube-rs parsed. An exec credential plugin is run here, in a process
//! group of its own, with its output capped and a deadline at which the group is killed; kube-rs then
//! gets the credential it printed. Each page of the listing, and all pages together, have a byte limit.
//!
//! Concurrency: at most one listing (with its plugin) runs at a time in a process. A caller that
//! finds one running waits for it, and if it was for the same cluster, takes its outcome instead of
//! listing again, so an editor's repeated refreshes cannot pile up plugins.

use std::path::{Path, PathBuf};
use std::sync::{Mutex, PoisonError};
use std::time::{Duration, Instant};

use kube::config::{KubeConfigOptions, Kubeconfig};
use serde_json::{Map, Value};

use crate::cache::{now, read_cached, MAX_ENTRY_BYTES};
use crate::{Cache, Fetched, Network, SourceError};

mod plugin;

pub use plugin::stop_plugins;
use plugin::{run_exec_plugin, Deadline};

/// CRDs asked for per page (kubectl asks for 500; CRDs are large, so fewer keeps a page small).
const PAGE_SIZE: usize = 100;
/// How long the whole listing may take, the exec plugin included.
const LIST_TIMEOUT: Duration = Duration::from_secs(120);
/// The most pages read (100,000 CRDs); a server that never stops giving continue tokens is cut off.
const MAX_PAGES: usize = 1000;
/// The largest page of the listing accepted.
const MAX_PAGE_BYTES: u64 = 64 * 1024 * 1024;
/// The most the pages of a listing may hold together: a URL may be 64 MiB; clusters with every
/// Crossplane provider family installed list a few hundred MiB of CRDs with their managed fields.
const MAX_LIST_BYTES: u64 = 256 * 1024 * 1024;
/// The largest kubeconfig read (they hold a few certificates; 16 MiB is the limit of a workspace file).
const MAX_KUBECONFIG_BYTES: u64 = 16 * 1024 * 1024;
/// How much of a failed plugin's standard error is kept for the message.
const MAX_PLUGIN_ERROR: u64 = 64 * 1024;

/// Which cluster to read.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct ClusterOptions {
    /// The kubeconfig file; `None` means `$KUBECONFIG` (a list of files), else `~/.kube/config`.
    pub kubeconfig: Option<PathBuf>,
    /// The context; `None` means the kubeconfig's current context.
    pub context: Option<String>,
    /// Whether an exec credential plugin may talk to the user through standard input. A language
    /// server must say no: its standard input carries the editor's messages.
    pub interactive: bool,
}

/// The outcome of the last listing, for callers that waited for it (see the module's concurrency).
struct LastListing {
    path: PathBuf,
    finished: Instant,
    outcome: Outcome,
}

/// How a listing ended, as a caller that waited for it takes it.
#[derive(Clone)]
enum Outcome {
    /// Listed and cached: the waiting caller reads the cache.
    Cached,
    /// Listed, but the cache could not be written, so the listing cannot be handed on.
    NotCached,
    /// The listing failed, for this reason.
    Failed(String),
}

/// Why a caller that waited for a listing of the same cluster has nothing: the listing could not be
/// cached, so there is no copy to hand on (listing again would run the plugin again).
const UNSHARED: &str = "the listing that ended while this one waited could not be cached; ask again";

/// Held while a listing runs.
static LISTING: Mutex<Option<LastListing>> = Mutex::new(None);

/// The CRDs the cluster serves, as one YAML stream: from the cache when `network` allows, else listed.
/// A listing that cannot be cached is used all the same, with the reason in [`Fetched::not_cached`].
pub fn fetch(options: &ClusterOptions, cache: &Cache, network: Network) -> Result<Fetched, SourceError> {
    fetch_within(options, cache, network, LIST_TIMEOUT)
}

/// [`fetch`], with the listing and its plugin given `timeout` rather than [`LIST_TIMEOUT`].
pub(crate) fn fetch_within(options: &ClusterOptions, cache: &Cache, network: Network, timeout: Duration) -> Result<Fetched, SourceError> {
    let failed = |label: &str, reason: String| SourceError::Fetch { label: label.to_string(), reason };
    let kubeconfig = load_kubeconfig(options.kubeconfig.as_deref()).map_err(|e| failed("the cluster", e))?;
    let context = options.context.clone().or_else(|| kubeconfig.current_context.clone()).unwrap_or_default();
    let label = if context.is_empty() { "the cluster".to_string() } else { format!("cluster {context}") };
    let server = kubeconfig
        .contexts
        .iter()
        .find(|c| c.name == context)
        .and_then(|c| c.context.as_ref())
        .and_then(|c| kubeconfig.clusters.iter().find(|cluster| cluster.name == c.cluster))
        .and_then(|c| c.cluster.as_ref())
        .and_then(|c| c.server.clone());
    let Some(server) = server else {
        let reason = if context.is_empty() {
            "the kubeconfig has no current context; name one with --context".to_string()
        } else {
            format!("the kubeconfig has no context {context} with a cluster server")
        };
        return Err(failed(&label, reason));
    };
    let path = cache.entry("cluster", &format!("{context}@{server}"), &context);
    if network != Network::Refresh {
        if let Some((text, fetched_at)) = read_cached(&path) {
            return Ok(Fetched { label, path, text, downloaded: false, fetched_at, refresh_failed: None, not_cached: None });
        }
    }
    if network == Network::Offline {
        return Err(SourceError::NotCached { label });
    }

    let waiting_since = Instant::now();
    let mut last = LISTING.lock().unwrap_or_else(PoisonError::into_inner);
    let shared = last.as_ref().filter(|l| l.path == path && l.finished >= waiting_since).map(|l| l.outcome.clone());
    let outcome = match shared {
        // The listing this call waited for was of the same cluster: its outcome stands for this one.
        Some(Outcome::Cached) => match read_cached(&path) {
            Some((text, fetched_at)) => {
                return Ok(Fetched { label, path, text, downloaded: false, fetched_at, refresh_failed: None, not_cached: None })
            }
            None => Err(UNSHARED.to_string()),
        },
        Some(Outcome::NotCached) => Err(UNSHARED.to_string()),
        Some(Outcome::Failed(reason)) => Err(reason),
        None => {
            let deadline = Deadline { at: Instant::now() + timeout, total: timeout };
            list_with_deadline(kubeconfig, &context, options.interactive, deadline)
                .map(|listed| render(&context, &server, &listed))
                .and_then(|text| match text.len() as u64 > MAX_ENTRY_BYTES {
                    true => Err(format!("the CRD list is larger than {} MiB written out", MAX_ENTRY_BYTES / (1024 * 1024))),
                    false => Ok(text),
                })
        }
    };
    let result = match outcome {
        Ok(text) => {
            let not_cached = cache.write(&path, text.as_bytes()).err().map(|e| format!("cannot write the cache {}: {e}", path.display()));
            // Only a cached listing can be shared with a caller that waited.
            let shared = if not_cached.is_some() { Outcome::NotCached } else { Outcome::Cached };
            *last = Some(LastListing { path: path.clone(), finished: Instant::now(), outcome: shared });
            Ok(Fetched { label, path, text, downloaded: true, fetched_at: now(), refresh_failed: None, not_cached })
        }
        Err(reason) => {
            *last = Some(LastListing { path: path.clone(), finished: Instant::now(), outcome: Outcome::Failed(reason.clone()) });
            // A refresh that fails keeps the listing that worked before.
            match read_cached(&path) {
                Some((text, fetched_at)) if network == Network::Refresh => {
                    Ok(Fetched { label, path, text, downloaded: false, fetched_at, refresh_failed: Some(reason), not_cached: None })
                }
                _ => Err(failed(&label, reason)),
            }
        }
    };
    drop(last);
    result
}

/// The kubeconfig at `path`, else those `$KUBECONFIG` lists (merged, the first to set a value wins),
/// else `~/.kube/config`, each read through the bounded reader, with the relative paths in it made
/// absolute from its directory, as kube-rs does when it reads one itself.
fn load_kubeconfig(path: Option<&Path>) -> Result<Kubeconfig, String> {
    let paths: Vec<PathBuf> = match path {
        Some(path) => vec![path.to_path_buf()],
        None => match std::env::var_os("KUBECONFIG") {
            Some(list) if std::env::split_paths(&list).any(|p| !p.as_os_str().is_empty()) => {
                std::env::split_paths(&list).filter(|p| !p.as_os_str().is_empty()).collect()
            }
            _ => {
                let home = std::env::var_os("HOME").or_else(|| std::env::var_os("USERPROFILE"));
                let home = home.ok_or("cannot read the kubeconfig: there is no $KUBECONFIG and no home directory")?;
                vec![PathBuf::from(home).join(".kube").join("config")]
            }
        },
    };
    read_kubeconfigs(&paths)
}

/// Reads the kubeconfig files at `paths` and merges them (the first to set a value wins), each through
/// the bounded reader, with the relative paths in it made absolute from its directory. It only reads
/// and parses: it runs no exec plugin, reads none of the files a kubeconfig names and makes no
/// connection (the fuzzer's `kubeconfig` target calls it for that reason).
pub fn read_kubeconfigs(paths: &[PathBuf]) -> Result<Kubeconfig, String> {
    let mut merged: Option<Kubeconfig> = None;
    for path in paths {
        let text = crate::read::read_text(path, MAX_KUBECONFIG_BYTES)
            .map_err(|e| format!("cannot read the kubeconfig {}: {e}", path.display()))?;
        let mut config =
            Kubeconfig::from_yaml(&text).map_err(|e| format!("cannot read the kubeconfig {}: {}", path.display(), error_chain(&e)))?;
        if let Some(dir) = path.parent() {
            make_paths_absolute(&mut config, dir);
        }
        merged = Some(match merged {
            Some(first) => {
                first.merge(config).map_err(|e| format!("cannot merge the kubeconfig {}: {}", path.display(), error_chain(&e)))?
            }
            None => config,
        });
    }
    Ok(merged.unwrap_or_default())
}

/// Makes the files a kubeconfig names (CA, client certificate and key, token file, and a plugin
/// command given as a path) absolute from `dir`, the kubeconfig's directory, as kubectl does.
fn make_paths_absolute(config: &mut Kubeconfig, dir: &Path) {
    let absolute = |path: &mut Option<String>| {
        if let Some(p) = path.as_mut().filter(|p| !p.is_empty() && Path::new(p.as_str()).is_relative()) {
            *p = dir.join(&*p).to_string_lossy().into_owned();
        }
    };
    for cluster in config.clusters.iter_mut().filter_map(|c| c.cluster.as_mut()) {
        absolute(&mut cluster.certificate_authority);
    }
    for user in config.auth_infos.iter_mut().filter_map(|u| u.auth_info.as_mut()) {
        absolute(&mut user.client_certificate);
        absolute(&mut user.client_key);
        absolute(&mut user.token_file);
        if let Some(exec) = user.exec.as_mut() {
            // A bare command name is looked up in PATH; only one with a separator is a path.
            if exec.command.as_deref().is_some_and(|c| c.contains(std::path::MAIN_SEPARATOR)) {
                absolute(&mut exec.command);
            }
        }
    }
}

/// Runs the context's exec plugin (if its user has one) and the listing, all before `deadline`.
fn list_with_deadline(mut kubeconfig: Kubeconfig, context: &str, interactive: bool, deadline: Deadline) -> Result<Vec<Value>, String> {
    inline_named_files(&mut kubeconfig, context)?;
    run_exec_plugin(&mut kubeconfig, context, interactive, deadline)?;
    let kube_options = KubeConfigOptions { context: Some(context.to_string()), ..KubeConfigOptions::default() };
    // The listing runs on a runtime of its own, on a thread of its own, so that it can be called from
    // plain code and from a blocking task of the language server's runtime alike.
    std::thread::scope(|scope| {
        scope
            .spawn(|| {
                let runtime = tokio::runtime::Builder::new_current_thread().enable_all().build().map_err(|e| e.to_string())?;
                runtime.block_on(async {
                    match tokio::time::timeout(deadline.left(), list(kubeconfig, &kube_options)).await {
                        Ok(result) => result,
                        Err(_) => Err(format!("no answer within {} s", deadline.total.as_secs())),
                    }
                })
            })
            .join()
            .unwrap_or_else(|_| Err("the listing failed unexpectedly".into()))
    })
}

/// The largest certificate, key or token file a kubeconfig may name.
const MAX_CREDENTIAL_FILE_BYTES: u64 = 1024 * 1024;

/// Reads the files that the cluster and user of `context` name (certificate authority, client
/// certificate and key, token file) through the bounded reader and puts their contents in the
/// kubeconfig in their place, so that kube-rs opens no file itself: a FIFO, a device or a huge file
/// named there gets a clear error instead of a hang. It refuses a legacy auth-provider that would run
/// a command (`cmd-path`), which kube-rs would run without a deadline; an exec plugin does that job.
fn inline_named_files(kubeconfig: &mut Kubeconfig, context: &str) -> Result<(), String> {
    let Some(ctx) = kubeconfig.contexts.iter().find(|c| c.name == context).and_then(|c| c.context.clone()) else { return Ok(()) };
    let read = |what: &str, path: &str| {
        crate::read::read_bytes(Path::new(path), MAX_CREDENTIAL_FILE_BYTES)
            .map_err(|e| format!("cannot read the {what} {path} that the kubeconfig names: {e}"))
    };
    if let Some(cluster) = kubeconfig.clusters.iter_mut().find(|c| c.name == ctx.cluster).and_then(|c| c.cluster.as_mut()) {
        if let Some(path) = cluster.certificate_authority.take().filter(|p| !p.is_empty()) {
            if cluster.certificate_authority_data.is_none() {
                cluster.certificate_authority_data = Some(base64(&read("certificate authority", &path)?));
            }
        }
    }
    let Some(user_name) = ctx.user.clone() else { return Ok(()) };
    let Some(user) = kubeconfig.auth_infos.iter_mut().find(|u| u.name == user_name).and_then(|u| u.auth_info.as_mut()) else {
        return Ok(());
    };
    if let Some(provider) = &user.auth_provider {
        if provider.config.contains_key("cmd-path") {
            return Err(format!(
                "the kubeconfig's user {user_name} has an auth-provider ({}) that runs a command; crdls does not run those (kubectl stopped in 1.26): use an exec credential plugin",
                provider.name
            ));
        }
    }
    // kube-rs keeps secrets in its own string type; it is made through its deserializer.
    let secret = |key: &str, value: String| {
        serde_json::from_value::<kube::config::AuthInfo>(serde_json::json!({ key: value })).map_err(|e| e.to_string())
    };
    if let Some(path) = user.client_certificate.take().filter(|p| !p.is_empty()) {
        if user.client_certificate_data.is_none() {
            user.client_certificate_data = Some(base64(&read("client certificate", &path)?));
        }
    }
    if let Some(path) = user.client_key.take().filter(|p| !p.is_empty()) {
        if user.client_key_data.is_none() {
            user.client_key_data = secret("client-key-data", base64(&read("client key", &path)?))?.client_key_data;
        }
    }
    if let Some(path) = user.token_file.take().filter(|p| !p.is_empty()) {
        // As in client-go, a token given inline wins over the token file.
        if user.token.is_none() {
            let token = String::from_utf8(read("token file", &path)?).map_err(|_| format!("the token file {path} is not UTF-8"))?;
            user.token = secret("token", token.trim().to_string())?.token;
        }
    }
    Ok(())
}

/// Standard base64, as kubeconfig's `*-data` fields hold PEM.
fn base64(bytes: &[u8]) -> String {
    const ALPHABET: &[u8] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    let mut out = String::with_capacity(bytes.len().div_ceil(3) * 4);
    for chunk in bytes.chunks(3) {
        let n = chunk.iter().enumerate().fold(0u32, |n, (i, b)| n | u32::from(*b) << (16 - 8 * i));
        for i in 0..4 {
            out.push(if i <= chunk.len() { ALPHABET[(n >> (18 - 6 * i) & 63) as usize] as char } else { '=' });
        }
    }
    out
}

/// Every CRD of the cluster, page by page, each page and all of them within their byte limits.
async fn list(kubeconfig: Kubeconfig, options: &KubeConfigOptions) -> Result<Vec<Value>, String> {
    let mut config = kube::Config::from_custom_kubeconfig(kubeconfig, options).await.map_err(|e| error_chain(&e))?;
    config.connect_timeout = Some(Duration::from_secs(10));
    config.read_timeout = Some(Duration::from_secs(60));
    let client = kube::Client::try_from(config).map_err(|e| error_chain(&e))?;
    let mut items = Vec::new();
    let mut token: Option<String> = None;
    let mut pages = 0;
    let mut total = 0u64;
    loop {
        let mut uri = format!("/apis/apiextensions.k8s.io/v1/customresourcedefinitions?limit={PAGE_SIZE}");
        if let Some(token) = &token {
            uri.push_str("&continue=");
            uri.push_str(&percent_encode(token));
        }
        let request = http::Request::get(uri).body(kube::client::Body::empty()).map_err(|e| e.to_string())?;
        let response = client.send(request).await.map_err(|e| error_chain(&e))?;
        let status = response.status();
        let limit = MAX_PAGE_BYTES.min(MAX_LIST_BYTES - total);
        let (body, complete) = read_body(response.into_body(), if status.is_success() { limit } else { MAX_PLUGIN_ERROR }).await?;
        if !status.is_success() {
            return Err(api_error(status.as_u16(), &body));
        }
        if !complete {
            return Err(if limit < MAX_PAGE_BYTES {
                format!("the CRD list is larger than {} MiB in all; not read", MAX_LIST_BYTES / (1024 * 1024))
            } else {
                format!("a page of the CRD list is larger than {} MiB; not read", MAX_PAGE_BYTES / (1024 * 1024))
            });
        }
        total += body.len() as u64;
        let mut page: Value = serde_json::from_slice(&body).map_err(|e| format!("the CRD list is not JSON: {e}"))?;
        if let Some(Value::Array(page_items)) = page.get_mut("items").map(Value::take) {
            items.extend(page_items);
        }
        let next = page.pointer("/metadata/continue").and_then(Value::as_str).filter(|t| !t.is_empty()).map(str::to_string);
        if next.is_none() {
            return Ok(items);
        }
        if next == token {
            return Err("the server gave the same continue token twice".into());
        }
        pages += 1;
        if pages >= MAX_PAGES {
            return Err(format!("the CRD list goes on for more than {MAX_PAGES} pages"));
        }
        token = next;
    }
}

/// At most `limit` bytes of `body`, and whether that was all of it.
async fn read_body(mut body: kube::client::Body, limit: u64) -> Result<(Vec<u8>, bool), String> {
    use http_body_util::BodyExt;
    let mut bytes = Vec::new();
    while let Some(frame) = body.frame().await {
        let frame = frame.map_err(|e| error_chain(&e))?;
        if let Ok(data) = frame.into_data() {
            if (bytes.len() + data.len()) as u64 > limit {
                return Ok((bytes, false));
            }
            bytes.extend_from_slice(&data);
        }
    }
    Ok((bytes, true))
}

/// The API server's refusal in a sentence: its `Status` message, else the start of what it said.
fn api_error(code: u16, body: &[u8]) -> String {
    let status: Option<Value> = serde_json::from_slice(body).ok();
    let message = status.as_ref().and_then(|s| s.get("message")).and_then(Value::as_str).map(str::to_string);
    let reason = status.as_ref().and_then(|s| s.get("reason")).and_then(Value::as_str).filter(|r| !r.is_empty());
    let said = message.unwrap_or_else(|| String::from_utf8_lossy(&body[..body.len().min(200)]).trim().to_string());
    match reason {
        Some(reason) if !said.contains(reason) => format!("the API server answered HTTP {code} ({reason}): {said}"),
        _ => format!("the API server answered HTTP {code}: {said}"),
    }
}

/// The listed CRDs as a YAML stream of JSON documents (JSON is YAML), each with the `apiVersion` and
/// `kind` a list leaves out, without server bookkeeping (managed fields, the last applied copy, the
/// status but for `status.storedVersions`, which says the versions objects may be stored in: a CRD
/// of the workspace compared with the cluster's must not drop them).
fn render(context: &str, server: &str, items: &[Value]) -> String {
    let mut out = format!("# The CRDs served by {server} (kubeconfig context {context}), listed by crdls.\n");
    for item in items {
        let mut crd = Map::new();
        crd.insert("apiVersion".into(), Value::from("apiextensions.k8s.io/v1"));
        crd.insert("kind".into(), Value::from("CustomResourceDefinition"));
        if let Value::Object(fields) = item {
            for (key, value) in fields {
                if !matches!(key.as_str(), "apiVersion" | "kind" | "status") {
                    crd.insert(key.clone(), value.clone());
                }
            }
        }
        if let Some(stored) = item.pointer("/status/storedVersions").filter(|v| v.is_array()) {
            crd.insert("status".into(), serde_json::json!({ "storedVersions": stored }));
        }
        if let Some(Value::Object(metadata)) = crd.get_mut("metadata") {
            metadata.remove("managedFields");
            if let Some(Value::Object(annotations)) = metadata.get_mut("annotations") {
                annotations.remove("kubectl.kubernetes.io/last-applied-configuration");
                if annotations.is_empty() {
                    metadata.remove("annotations");
                }
            }
        }
        out.push_str("---\n");
        out.push_str(&serde_json::to_string_pretty(&Value::Object(crd)).unwrap_or_default());
        out.push('\n');
    }
    out
}

/// An error and its causes in one line.
fn error_chain(error: &(dyn std::error::Error + 'static)) -> String {
    let mut text = error.to_string();
    let mut source = error.source();
    while let Some(cause) = source {
        let cause_text = cause.to_string();
        if !text.contains(&cause_text) {
            text.push_str(": ");
            text.push_str(&cause_text);
        }
        source = cause.source();
    }
    text
}

/// `token` escaped for a query string.
fn percent_encode(token: &str) -> String {
    token
        .bytes()
        .map(|b| {
            if b.is_ascii_alphanumeric() || matches!(b, b'-' | b'_' | b'.' | b'~') {
                (b as char).to_string()
            } else {
                format!("%{b:02X}")
            }
        })
        .collect()
}

#[cfg(test)]
mod tests;
