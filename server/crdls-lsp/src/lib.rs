//! The crdls language server, the only crate that knows LSP. Handlers either mutate state (fast,
//! synchronous, no `.await` before the state is updated) or read a snapshot on a blocking thread.
//! Checking a document is the same function `crdls check` runs, debounced, single-flight per
//! document, and published only while the document is still at the checked version.

mod document;
mod git;
mod input;
mod proto;
mod workspace;

use std::collections::{HashMap, HashSet};
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex, RwLock};
use std::time::Instant;

use crdls_crd::{is_crd, Crd, CrdIndex, SourceId};
use crdls_ide::Config;
use crdls_yaml::Diagnostic;
use tokio::io::{AsyncRead, AsyncWrite};
use tower_lsp::jsonrpc::{Error as RpcError, Result as RpcResult};
use tower_lsp::lsp_types::notification::Progress;
use tower_lsp::lsp_types::request::WorkDoneProgressCreate;
use tower_lsp::lsp_types::{self as lsp_types, *};
use tower_lsp::{Client, LanguageServer, LspService, Server};

use crate::document::Document;
use crate::proto::{Encoding, Lines};

/// Serves LSP over the given streams until the client exits.
pub async fn serve<I: AsyncRead + Unpin + Send + 'static, O: AsyncWrite>(input: I, output: O) {
    let (service, socket) = LspService::build(Backend::new).custom_method("crdls/crdForDocument", Backend::crd_for_document).finish();
    Server::new(input::filtered(input), output, socket).serve(service).await;
}

/// Serves LSP over stdin and stdout (stdout carries JSON-RPC only; logs go to stderr and the client).
pub fn run_stdio() {
    let runtime = match tokio::runtime::Builder::new_multi_thread().worker_threads(2).enable_all().build() {
        Ok(runtime) => runtime,
        Err(e) => {
            log_stderr(&format!("cannot start the async runtime: {e}"));
            return;
        }
    };
    runtime.block_on(serve(tokio::io::stdin(), tokio::io::stdout()));
    // The stdin reader blocks in a read that only the client closing stdin would end: do not wait for it.
    runtime.shutdown_background();
}

#[allow(clippy::print_stderr)]
fn log_stderr(message: &str) {
    eprintln!("crdls: {message}");
}

/// What the client said it supports, as far as the server cares.
#[derive(Clone, Copy, Debug, Default)]
struct ClientFlags {
    progress: bool,
    watch_files: bool,
    configuration: bool,
    pull_diagnostics: bool,
    diagnostic_refresh: bool,
    inlay_hint_refresh: bool,
    /// The client asked for `crdls/indexStatus` notifications (`experimental.crdlsIndexStatus`).
    index_status: bool,
}

/// Everything the handlers share.
struct State {
    documents: Mutex<HashMap<Url, Document>>,
    index: RwLock<Arc<CrdIndex>>,
    /// The settings in force: `base` with the client's current settings on top.
    config: RwLock<Config>,
    /// Defaults, `crdls.toml` and the initialization options: what the client's settings apply to
    /// (each time afresh, so a setting the user removes goes back to its `crdls.toml` value).
    base: RwLock<Config>,
    encoding: RwLock<Encoding>,
    roots: RwLock<Vec<PathBuf>>,
    flags: RwLock<ClientFlags>,
    /// One lock per document so only one check of it runs at a time.
    flights: Mutex<HashMap<Url, Arc<tokio::sync::Mutex<()>>>>,
    /// A fingerprint of the CRDs each open buffer contributes, to notice when they change.
    buffer_crds: Mutex<HashMap<Url, u64>>,
    /// Old versions of open files, from git.
    git: git::GitOld,
    /// What each file is (a chart template, a patch, a test assertion), from the files around it.
    roles: Mutex<crdls_ide::Roles>,
}

/// The server.
pub struct Backend {
    client: Client,
    state: Arc<State>,
}

/// Locks a mutex, recovering the data if a panicking thread poisoned it (state stays usable).
fn lock<T>(m: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    m.lock().unwrap_or_else(|e| e.into_inner())
}

fn read<T>(l: &RwLock<T>) -> std::sync::RwLockReadGuard<'_, T> {
    l.read().unwrap_or_else(|e| e.into_inner())
}

fn write<T>(l: &RwLock<T>) -> std::sync::RwLockWriteGuard<'_, T> {
    l.write().unwrap_or_else(|e| e.into_inner())
}

/// A document's text and version at one moment.
struct Snapshot {
    text: String,
    version: i32,
    generation: u64,
}

impl Backend {
    fn new(client: Client) -> Backend {
        Backend {
            client,
            state: Arc::new(State {
                documents: Mutex::new(HashMap::new()),
                index: RwLock::new(Arc::new(CrdIndex::new())),
                config: RwLock::new(Config::default()),
                base: RwLock::new(Config::default()),
                encoding: RwLock::new(Encoding::Utf16),
                roots: RwLock::new(Vec::new()),
                flags: RwLock::new(ClientFlags::default()),
                flights: Mutex::new(HashMap::new()),
                buffer_crds: Mutex::new(HashMap::new()),
                git: git::GitOld::default(),
                roles: Mutex::new(crdls_ide::Roles::new()),
            }),
        }
    }

    fn snapshot(&self, uri: &Url) -> Option<Snapshot> {
        let docs = lock(&self.state.documents);
        docs.get(uri).map(|d| Snapshot { text: d.text(), version: d.version, generation: d.generation })
    }

    async fn log(&self, level: MessageType, message: String) {
        log_stderr(&message);
        self.client.log_message(level, message).await;
    }

    /// Runs `f` on a blocking thread; a panic becomes a logged error instead of a dead server.
    async fn blocking<T: Send + 'static>(&self, what: &str, f: impl FnOnce() -> T + Send + 'static) -> Option<T> {
        match tokio::task::spawn_blocking(f).await {
            Ok(value) => Some(value),
            Err(e) => {
                let detail = if e.is_panic() { panic_text(e.into_panic()) } else { e.to_string() };
                self.log(MessageType::ERROR, format!("{what} failed: {detail}")).await;
                None
            }
        }
    }

    /// Schedules a check of `uri` after the debounce delay; newer edits supersede it.
    fn schedule(&self, uri: Url) {
        let backend = Backend { client: self.client.clone(), state: self.state.clone() };
        tokio::spawn(async move { backend.check(uri).await });
    }

    /// Checks one open document and publishes its diagnostics, unless a newer edit came in meanwhile.
    async fn check(&self, uri: Url) {
        let Some(start) = self.snapshot(&uri) else { return };
        let debounce = read(&self.state.config).debounce;
        if !debounce.is_zero() {
            tokio::time::sleep(debounce).await;
        }
        let flight = lock(&self.state.flights).entry(uri.clone()).or_default().clone();
        let _guard = flight.lock().await;
        // Superseded while waiting: a later check has (or will have) the newer text.
        let Some(snapshot) = self.snapshot(&uri) else { return };
        if snapshot.generation != start.generation {
            return;
        }
        let Some((diagnostics, crds)) = self.analyze(&uri, snapshot.text.clone()).await else { return };
        // A newer edit came in meanwhile: its own check indexes its CRDs and publishes; this result
        // must not overwrite either.
        let current = lock(&self.state.documents).get(&uri).map(|d| d.generation);
        if current != Some(snapshot.generation) {
            return;
        }
        if self.update_buffer_crds(&uri, crds) {
            self.recheck_all_except(Some(&uri));
        }
        if !read(&self.state.flags).pull_diagnostics {
            let lsp = self.to_lsp(&snapshot.text, &diagnostics);
            self.client.publish_diagnostics(uri, lsp, Some(snapshot.version)).await;
        }
    }

    /// Parses and checks a text on a blocking thread: the diagnostics and the CRDs the text declares.
    async fn analyze(&self, uri: &Url, text: String) -> Option<(Vec<Diagnostic>, Vec<Crd>)> {
        let state = self.state.clone();
        let source: SourceId = Arc::from(uri.as_str());
        self.blocking("checking a document", move || {
            let role = role_of(&state, &source);
            let (stream, mode) = role.parse(&text);
            // A chart template's CRDs have the names the template computes: they are not indexed. A CRD
            // being edited that has a syntax error for now keeps what the buffer last indexed, so the
            // resources that use it do not lose their schema at every keystroke.
            let broken_crd = stream.documents.iter().any(|d| d.has_syntax_error && d.root.as_ref().is_some_and(|r| is_crd(r).is_some()));
            let crds: Vec<Crd> = match mode {
                crdls_check::FileMode::Template { .. } => Vec::new(),
                _ if broken_crd => read(&state.index).crds_of(&source).iter().map(|c| (**c).clone()).collect(),
                _ => stream.documents.iter().flat_map(Crd::from_document).collect(),
            };
            // A buffer's own CRDs count when checking it, before the shared index is updated.
            let index = {
                let shared = read(&state.index).clone();
                if crds.is_empty() && shared.crds_of(&source).is_empty() {
                    shared
                } else {
                    let mut local = (*shared).clone();
                    local.set_source(source.clone(), crds.clone());
                    Arc::new(local)
                }
            };
            let config = read(&state.config).clone();
            let mut options = config.check_options();
            // The file's version at the configured git revision is what this edit updates.
            let path = Url::parse(&source).ok().and_then(|u| u.to_file_path().ok());
            if let (Some(rev), Some(path)) = (&config.old_object, path) {
                if let Some(old_text) = state.git.text(&path, rev) {
                    let mut old = crdls_check::OldObjects::new();
                    old.add_stream(&crdls_yaml::parse(&old_text));
                    options.old = Some(Arc::new(old));
                }
            }
            let mut diagnostics = crdls_ide::diagnostics_as(&stream, &index, &options, &mode);
            if let crdls_ide::FileRole::HelmTemplate { chart_dir, chart_name } = &role {
                let hint = crdls_ide::helm_template_hint(chart_name, &chart_dir.to_string_lossy(), None);
                diagnostics.insert(0, Diagnostic::new(crdls_yaml::TextRange::empty(0), crdls_yaml::Severity::Hint, "helm/templates", hint));
            }
            config.apply_severity(&mut diagnostics);
            (diagnostics, crds)
        })
        .await
    }

    /// Records the CRDs an open buffer declares; returns whether they changed.
    fn update_buffer_crds(&self, uri: &Url, crds: Vec<Crd>) -> bool {
        let fingerprint = fingerprint(&crds);
        let mut known = lock(&self.state.buffer_crds);
        let previous = known.get(uri).copied();
        if previous == Some(fingerprint) {
            return false;
        }
        known.insert(uri.clone(), fingerprint);
        drop(known);
        // A buffer's first check replaces what the scan read from disk for it, if anything.
        if previous.is_none() && crds.is_empty() && read(&self.state.index).crds_of(uri.as_str()).is_empty() {
            return false;
        }
        self.set_source(Arc::from(uri.as_str()), crds);
        true
    }

    fn set_source(&self, source: SourceId, crds: Vec<Crd>) {
        let mut guard = write(&self.state.index);
        let mut index = (**guard).clone();
        index.set_source(source, crds);
        *guard = Arc::new(index);
    }

    /// Re-checks every open document but `skip`: pushes new diagnostics, or in pull mode asks the
    /// client to pull again (when it supports being asked).
    fn recheck_all_except(&self, skip: Option<&Url>) {
        self.recheck(skip, true);
    }

    /// Re-checks open documents; a pull client is asked to pull again when `refresh` is set.
    fn recheck(&self, skip: Option<&Url>, refresh: bool) {
        let flags = *read(&self.state.flags);
        if flags.index_status {
            let index = read(&self.state.index).clone();
            let params = IndexStatusParams { crds: index.len(), files: index.sources().count() };
            let client = self.client.clone();
            tokio::spawn(async move { client.send_notification::<IndexStatus>(params).await });
        }
        if flags.inlay_hint_refresh {
            // Defaults come from the CRDs, which may just have changed.
            let client = self.client.clone();
            tokio::spawn(async move {
                let _ = client.inlay_hint_refresh().await;
            });
        }
        if flags.pull_diagnostics {
            if refresh && flags.diagnostic_refresh {
                let client = self.client.clone();
                tokio::spawn(async move {
                    let _ = client.workspace_diagnostic_refresh().await;
                });
            }
            return;
        }
        let uris: Vec<Url> = lock(&self.state.documents).keys().filter(|u| Some(*u) != skip).cloned().collect();
        for uri in uris {
            self.schedule(uri);
        }
    }

    fn to_lsp(&self, text: &str, diagnostics: &[Diagnostic]) -> Vec<tower_lsp::lsp_types::Diagnostic> {
        let lines = Lines::new(text, *read(&self.state.encoding));
        diagnostics.iter().map(|d| lines.diagnostic(d)).collect()
    }

    /// Reads `crdls.toml` from the first workspace root, then the client's settings on top.
    async fn load_config(&self, init_options: Option<serde_json::Value>) {
        let mut config = Config::default();
        let root = read(&self.state.roots).first().cloned();
        if let Some(root) = root {
            if let Ok(text) = std::fs::read_to_string(root.join(crdls_ide::CONFIG_FILE)) {
                if let Err(e) = config.merge_toml(&text) {
                    self.log(MessageType::WARNING, e).await;
                }
            }
        }
        if let Some(options) = init_options {
            if let Err(e) = config.merge_json(&options) {
                self.log(MessageType::WARNING, e).await;
            }
        }
        *write(&self.state.base) = config.clone();
        *write(&self.state.config) = config;
    }

    /// Asks the client for the `crdls` section (when it can be asked): its current settings.
    async fn pull_configuration(&self) -> Option<Vec<serde_json::Value>> {
        if !read(&self.state.flags).configuration {
            return None;
        }
        let items = vec![ConfigurationItem { scope_uri: None, section: Some("crdls".into()) }];
        match self.client.configuration(items).await {
            Ok(values) => Some(values),
            Err(e) => {
                self.log(MessageType::WARNING, format!("workspace/configuration failed: {e}")).await;
                None
            }
        }
    }

    /// Puts the client's settings on top of the base settings, replacing the client's previous ones.
    /// Returns whether the CRD paths changed (the workspace must then be scanned again).
    async fn apply_client_settings(&self, layers: &[serde_json::Value]) -> bool {
        let mut config = read(&self.state.base).clone();
        for layer in layers {
            if let Err(e) = config.merge_json(layer) {
                self.log(MessageType::WARNING, e).await;
            }
        }
        let mut current = write(&self.state.config);
        let paths_changed = current.crd_paths != config.crd_paths;
        *current = config;
        paths_changed
    }

    /// Scans the workspace in the background (the scan re-checks open documents when it is done).
    fn spawn_scan(&self) {
        let backend = Backend { client: self.client.clone(), state: self.state.clone() };
        tokio::spawn(async move { backend.scan_workspace().await });
    }

    /// Indexes every CRD in the workspace folders and configured paths, reporting progress.
    async fn scan_workspace(&self) {
        let token = NumberOrString::String("crdls/index".into());
        let progress = read(&self.state.flags).progress
            && self.client.send_request::<WorkDoneProgressCreate>(WorkDoneProgressCreateParams { token: token.clone() }).await.is_ok();
        if progress {
            let begin = WorkDoneProgressBegin { title: "Indexing CRDs".into(), cancellable: Some(false), message: None, percentage: None };
            self.client
                .send_notification::<Progress>(ProgressParams {
                    token: token.clone(),
                    value: ProgressParamsValue::WorkDone(WorkDoneProgress::Begin(begin)),
                })
                .await;
        }
        let started = Instant::now();
        let roots = read(&self.state.roots).clone();
        let patterns = read(&self.state.config).crd_paths.clone();
        let scanned = self
            .blocking("indexing the workspace", move || {
                let mut files = Vec::new();
                for root in &roots {
                    crdls_ide::files::files_below(root, &mut files);
                    for pattern in &patterns {
                        files.extend(crdls_ide::files::expand(root, pattern));
                    }
                }
                if roots.is_empty() {
                    for pattern in &patterns {
                        files.extend(crdls_ide::files::expand(Path::new(""), pattern));
                    }
                }
                files.sort();
                files.dedup();
                let count = files.len();
                let found: Vec<(PathBuf, Vec<Crd>)> = files.into_iter().filter_map(|f| workspace::read_crds(&f).map(|c| (f, c))).collect();
                (count, found)
            })
            .await;
        let Some((file_count, found)) = scanned else { return };
        // Buffers already checked have put their own CRDs in the index, and their text wins; for the
        // others (opened but not checked yet, as after a restart) the file on disk stands in until then.
        let open: HashSet<String> = lock(&self.state.buffer_crds).keys().map(|u| u.to_string()).collect();
        {
            let mut guard = write(&self.state.index);
            let mut index = (**guard).clone();
            // What the scan no longer finds (a CRD path the settings dropped) leaves the index; open
            // buffers stay, as their text is what counts.
            let found_uris: HashSet<String> = found
                .iter()
                .filter(|(_, crds)| !crds.is_empty())
                .filter_map(|(path, _)| Url::from_file_path(path).ok())
                .map(|u| u.to_string())
                .collect();
            let stale: Vec<String> =
                index.sources().filter(|s| !open.contains(s.as_ref()) && !found_uris.contains(s.as_ref())).map(|s| s.to_string()).collect();
            for source in stale {
                index.remove_source(&source);
            }
            for (path, crds) in found {
                let Ok(uri) = Url::from_file_path(&path) else { continue };
                if !open.contains(uri.as_str()) && !crds.is_empty() {
                    index.set_source(Arc::from(uri.as_str()), crds);
                }
            }
            *guard = Arc::new(index);
        }
        let crd_count = read(&self.state.index).len();
        let message = format!("indexed {crd_count} CRDs from {file_count} files in {} ms", started.elapsed().as_millis());
        if progress {
            self.client
                .send_notification::<Progress>(ProgressParams {
                    token,
                    value: ProgressParamsValue::WorkDone(WorkDoneProgress::End(WorkDoneProgressEnd { message: Some(message.clone()) })),
                })
                .await;
        }
        // Re-check first, so the log line means "ready" to a client that waits for it; a pull client
        // is asked to pull again right after it.
        self.recheck(None, false);
        self.log(MessageType::INFO, message).await;
        let flags = *read(&self.state.flags);
        if flags.pull_diagnostics && flags.diagnostic_refresh {
            let _ = self.client.workspace_diagnostic_refresh().await;
        }
    }

    /// Re-reads one file from disk into the index (unless it is open: then the buffer wins).
    fn reindex_file(&self, uri: &Url, deleted: bool) -> bool {
        if lock(&self.state.documents).contains_key(uri) {
            return false;
        }
        let crds = if deleted { Vec::new() } else { uri.to_file_path().ok().and_then(|p| workspace::read_crds(&p)).unwrap_or_default() };
        let had = !read(&self.state.index).crds_of(uri.as_str()).is_empty();
        if crds.is_empty() && !had {
            return false;
        }
        self.set_source(Arc::from(uri.as_str()), crds);
        true
    }

    /// The document's text and position as a byte offset, for the read-only features.
    fn position_snapshot(&self, uri: &Url, position: Position) -> Option<(String, usize, Encoding)> {
        let snapshot = self.snapshot(uri)?;
        let encoding = *read(&self.state.encoding);
        let offset = Lines::new(&snapshot.text, encoding).offset(position);
        Some((snapshot.text, offset, encoding))
    }
}

/// `crdls/indexStatus`: how many CRDs the server knows, sent to clients that ask for it whenever the
/// index changes (editors show it in a status bar).
enum IndexStatus {}

/// The parameters of `crdls/indexStatus`.
#[derive(Debug, serde::Serialize, serde::Deserialize)]
struct IndexStatusParams {
    /// CRDs indexed.
    crds: usize,
    /// Files (or buffers) they come from.
    files: usize,
}

impl lsp_types::notification::Notification for IndexStatus {
    type Params = IndexStatusParams;
    const METHOD: &'static str = "crdls/indexStatus";
}

/// The parameters of `crdls/crdForDocument`: a document and, optionally, a position in it (which
/// document of a multi-document file).
#[derive(Debug, serde::Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct CrdForDocumentParams {
    /// The document.
    pub text_document: TextDocumentIdentifier,
    /// A position in it; the first document when absent.
    pub position: Option<Position>,
}

/// A stable fingerprint of a list of CRDs: their names, groups, versions and schema ranges.
fn fingerprint(crds: &[Crd]) -> u64 {
    use std::hash::{Hash, Hasher};
    if crds.is_empty() {
        return 0;
    }
    let mut hasher = std::collections::hash_map::DefaultHasher::new();
    for crd in crds {
        format!("{crd:?}").hash(&mut hasher);
    }
    hasher.finish() | 1
}

fn panic_text(payload: Box<dyn std::any::Any + Send>) -> String {
    if let Some(s) = payload.downcast_ref::<&str>() {
        s.to_string()
    } else if let Some(s) = payload.downcast_ref::<String>() {
        s.clone()
    } else {
        "a panic".into()
    }
}

/// What the file behind a document URI is (a manifest when it is not a file on disk).
fn role_of(state: &State, uri: &str) -> crdls_ide::FileRole {
    match Url::parse(uri).ok().and_then(|u| u.to_file_path().ok()) {
        Some(path) => lock(&state.roles).role_of(&path),
        None => crdls_ide::FileRole::Manifest,
    }
}

fn internal(what: &str) -> RpcError {
    let mut e = RpcError::internal_error();
    e.message = format!("crdls: {what} failed; see the server log").into();
    e
}

impl Backend {
    /// `crdls/crdForDocument`: where the CRD serving the document's `apiVersion`/`kind` is defined.
    async fn crd_for_document(&self, params: CrdForDocumentParams) -> RpcResult<Option<Location>> {
        let Some(snapshot) = self.snapshot(&params.text_document.uri) else { return Ok(None) };
        let encoding = *read(&self.state.encoding);
        let index = read(&self.state.index).clone();
        let found = self
            .blocking("finding the CRD", move || {
                let lines = Lines::new(&snapshot.text, encoding);
                let offset = params.position.map_or(0, |p| lines.offset(p));
                let stream = crdls_yaml::parse_at(&snapshot.text, offset);
                let root = stream.documents.first()?.root.as_ref()?;
                let (api_version, kind) = (root.get_str("apiVersion")?, root.get_str("kind")?);
                match index.resolve(api_version, kind) {
                    crdls_crd::Resolution::Found { crd, .. } | crdls_crd::Resolution::UnknownVersion { crd } => {
                        Some((crd.source.clone(), crd.crd.kind_range))
                    }
                    _ => None,
                }
            })
            .await
            .ok_or_else(|| internal("finding the CRD"))?;
        let Some((source, range)) = found else { return Ok(None) };
        let Ok(uri) = Url::parse(&source) else { return Ok(None) };
        let text = match self.snapshot(&uri) {
            Some(s) => s.text,
            None => match uri.to_file_path().ok().and_then(|p| std::fs::read_to_string(p).ok()) {
                Some(text) => text,
                None => return Ok(None),
            },
        };
        let range = Lines::new(&text, encoding).range(range);
        Ok(Some(Location { uri, range }))
    }
}

#[tower_lsp::async_trait]
impl LanguageServer for Backend {
    async fn initialize(&self, params: InitializeParams) -> RpcResult<InitializeResult> {
        let caps = &params.capabilities;
        let encoding = Encoding::negotiate(caps.general.as_ref().and_then(|g| g.position_encodings.as_deref()));
        *write(&self.state.encoding) = encoding;
        let workspace = caps.workspace.as_ref();
        let diagnostic_refresh = workspace.and_then(|w| w.diagnostic.as_ref()).and_then(|d| d.refresh_support).unwrap_or(false);
        let flags = ClientFlags {
            progress: caps.window.as_ref().and_then(|w| w.work_done_progress).unwrap_or(false),
            watch_files: workspace.and_then(|w| w.did_change_watched_files.as_ref()).and_then(|d| d.dynamic_registration).unwrap_or(false),
            configuration: workspace.and_then(|w| w.configuration).unwrap_or(false),
            // Pull only from clients that can be asked to pull again: results change when CRDs do (the
            // first scan included), and a client that cannot refresh would keep stale ones. The others
            // get pushed diagnostics.
            pull_diagnostics: caps.text_document.as_ref().and_then(|t| t.diagnostic.as_ref()).is_some() && diagnostic_refresh,
            diagnostic_refresh,
            inlay_hint_refresh: workspace.and_then(|w| w.inlay_hint.as_ref()).and_then(|d| d.refresh_support).unwrap_or(false),
            index_status: caps
                .experimental
                .as_ref()
                .and_then(|e| e.get("crdlsIndexStatus"))
                .and_then(serde_json::Value::as_bool)
                .unwrap_or(false),
        };
        *write(&self.state.flags) = flags;
        let mut roots: Vec<PathBuf> = params.workspace_folders.iter().flatten().filter_map(|f| f.uri.to_file_path().ok()).collect();
        #[allow(deprecated)]
        if roots.is_empty() {
            if let Some(path) = params.root_uri.as_ref().and_then(|u| u.to_file_path().ok()) {
                roots.push(path);
            }
        }
        *write(&self.state.roots) = roots;
        self.load_config(params.initialization_options).await;

        let diagnostic_provider = flags.pull_diagnostics.then(|| {
            DiagnosticServerCapabilities::Options(DiagnosticOptions {
                identifier: Some("crdls".into()),
                inter_file_dependencies: true,
                workspace_diagnostics: false,
                work_done_progress_options: WorkDoneProgressOptions::default(),
            })
        });
        Ok(InitializeResult {
            server_info: Some(ServerInfo { name: "crdls".into(), version: Some(env!("CARGO_PKG_VERSION").into()) }),
            capabilities: ServerCapabilities {
                position_encoding: Some(encoding.kind()),
                text_document_sync: Some(TextDocumentSyncCapability::Options(TextDocumentSyncOptions {
                    open_close: Some(true),
                    change: Some(TextDocumentSyncKind::INCREMENTAL),
                    save: Some(TextDocumentSyncSaveOptions::Supported(true)),
                    ..TextDocumentSyncOptions::default()
                })),
                completion_provider: Some(CompletionOptions {
                    trigger_characters: Some(vec![":".into(), " ".into(), "/".into(), "-".into()]),
                    ..CompletionOptions::default()
                }),
                hover_provider: Some(HoverProviderCapability::Simple(true)),
                definition_provider: Some(OneOf::Left(true)),
                document_symbol_provider: Some(OneOf::Left(true)),
                folding_range_provider: Some(FoldingRangeProviderCapability::Simple(true)),
                code_action_provider: Some(CodeActionProviderCapability::Options(CodeActionOptions {
                    code_action_kinds: Some(vec![CodeActionKind::QUICKFIX]),
                    ..CodeActionOptions::default()
                })),
                inlay_hint_provider: Some(OneOf::Left(true)),
                diagnostic_provider,
                ..ServerCapabilities::default()
            },
        })
    }

    async fn initialized(&self, _: InitializedParams) {
        if read(&self.state.flags).watch_files {
            let options = DidChangeWatchedFilesRegistrationOptions {
                watchers: vec![FileSystemWatcher { glob_pattern: GlobPattern::String("**/*.{yaml,yml,json}".into()), kind: None }],
            };
            let registration = Registration {
                id: "crdls-watch".into(),
                method: "workspace/didChangeWatchedFiles".into(),
                register_options: serde_json::to_value(options).ok(),
            };
            if let Err(e) = self.client.register_capability(vec![registration]).await {
                self.log(MessageType::WARNING, format!("file watching unavailable: {e}")).await;
            }
        }
        if let Some(values) = self.pull_configuration().await {
            self.apply_client_settings(&values).await;
        }
        self.spawn_scan();
    }

    async fn shutdown(&self) -> RpcResult<()> {
        Ok(())
    }

    async fn did_open(&self, params: DidOpenTextDocumentParams) {
        let doc = params.text_document;
        lock(&self.state.documents).insert(doc.uri.clone(), Document::new(&doc.text, doc.version));
        self.schedule(doc.uri);
    }

    async fn did_change(&self, params: DidChangeTextDocumentParams) {
        let uri = params.text_document.uri;
        let encoding = *read(&self.state.encoding);
        {
            let mut docs = lock(&self.state.documents);
            let Some(doc) = docs.get_mut(&uri) else { return };
            doc.apply(params.content_changes, params.text_document.version, encoding);
        }
        self.schedule(uri);
    }

    async fn did_close(&self, params: DidCloseTextDocumentParams) {
        let uri = params.text_document.uri;
        lock(&self.state.documents).remove(&uri);
        lock(&self.state.flights).remove(&uri);
        let had_crds = lock(&self.state.buffer_crds).remove(&uri).is_some_and(|f| f != 0);
        if had_crds {
            // The file on disk is what counts again.
            let crds = uri.to_file_path().ok().and_then(|p| workspace::read_crds(&p)).unwrap_or_default();
            self.set_source(Arc::from(uri.as_str()), crds);
            self.recheck_all_except(None);
        }
        if !read(&self.state.flags).pull_diagnostics {
            self.client.publish_diagnostics(uri, Vec::new(), None).await;
        }
    }

    async fn did_change_watched_files(&self, params: DidChangeWatchedFilesParams) {
        // A checkout or commit may have moved what the old versions are, and a kustomization, chart
        // or test may have changed what a file is.
        self.state.git.clear();
        lock(&self.state.roles).clear();
        let mut changed = false;
        for event in params.changes {
            changed |= self.reindex_file(&event.uri, event.typ == FileChangeType::DELETED);
        }
        if changed {
            self.recheck_all_except(None);
        }
    }

    async fn did_change_configuration(&self, params: DidChangeConfigurationParams) {
        // A client that answers workspace/configuration is asked (VS Code sends no settings here);
        // the others send their settings with the notification.
        let layers = match self.pull_configuration().await {
            Some(values) => values,
            None => vec![params.settings],
        };
        if self.apply_client_settings(&layers).await {
            self.spawn_scan();
        } else {
            self.recheck_all_except(None);
        }
    }

    async fn diagnostic(&self, params: DocumentDiagnosticParams) -> RpcResult<DocumentDiagnosticReportResult> {
        let uri = params.text_document.uri;
        // One check of a document at a time, pulls included, so an older one never indexes last.
        let flight = lock(&self.state.flights).entry(uri.clone()).or_default().clone();
        let _guard = flight.lock().await;
        let Some(snapshot) = self.snapshot(&uri) else {
            return Err(RpcError::invalid_params(format!("{uri} is not open")));
        };
        let (diagnostics, crds) = self.analyze(&uri, snapshot.text.clone()).await.ok_or_else(|| internal("checking"))?;
        let current = lock(&self.state.documents).get(&uri).map(|d| d.generation);
        if current == Some(snapshot.generation) && self.update_buffer_crds(&uri, crds) {
            self.recheck_all_except(Some(&uri));
        }
        Ok(DocumentDiagnosticReportResult::Report(DocumentDiagnosticReport::Full(RelatedFullDocumentDiagnosticReport {
            related_documents: None,
            full_document_diagnostic_report: FullDocumentDiagnosticReport {
                result_id: None,
                items: self.to_lsp(&snapshot.text, &diagnostics),
            },
        })))
    }

    async fn completion(&self, params: CompletionParams) -> RpcResult<Option<CompletionResponse>> {
        let position = params.text_document_position;
        let Some((text, offset, encoding)) = self.position_snapshot(&position.text_document.uri, position.position) else {
            return Ok(None);
        };
        let index = read(&self.state.index).clone();
        let state = self.state.clone();
        let uri = position.text_document.uri.clone();
        let items = self
            .blocking("completion", move || {
                let role = role_of(&state, uri.as_str());
                let features = role.text_for_features(&text);
                let stream = crdls_yaml::parse_at(&features, offset);
                let items = crdls_ide::completions(&features, &stream, &index, offset);
                let lines = Lines::new(&text, encoding);
                items.into_iter().map(|item| completion_item(&lines, item)).collect::<Vec<_>>()
            })
            .await
            .ok_or_else(|| internal("completion"))?;
        Ok(Some(CompletionResponse::List(CompletionList { is_incomplete: false, items })))
    }

    async fn hover(&self, params: HoverParams) -> RpcResult<Option<Hover>> {
        let position = params.text_document_position_params;
        let Some((text, offset, encoding)) = self.position_snapshot(&position.text_document.uri, position.position) else {
            return Ok(None);
        };
        let index = read(&self.state.index).clone();
        let state = self.state.clone();
        let uri = position.text_document.uri.clone();
        self.blocking("hover", move || {
            let role = role_of(&state, uri.as_str());
            let features = role.text_for_features(&text);
            let stream = crdls_yaml::parse_at(&features, offset);
            let hover = crdls_ide::hover(&features, &stream, &index, offset)?;
            let lines = Lines::new(&text, encoding);
            Some(Hover {
                contents: HoverContents::Markup(MarkupContent { kind: MarkupKind::Markdown, value: hover.markdown }),
                range: Some(lines.range(hover.range)),
            })
        })
        .await
        .ok_or_else(|| internal("hover"))
    }

    async fn goto_definition(&self, params: GotoDefinitionParams) -> RpcResult<Option<GotoDefinitionResponse>> {
        let position = params.text_document_position_params;
        let Some((text, offset, encoding)) = self.position_snapshot(&position.text_document.uri, position.position) else {
            return Ok(None);
        };
        let index = read(&self.state.index).clone();
        let state = self.state.clone();
        let uri = position.text_document.uri.clone();
        let target = self
            .blocking("definition", move || {
                let role = role_of(&state, uri.as_str());
                let features = role.text_for_features(&text);
                let stream = crdls_yaml::parse_at(&features, offset);
                crdls_ide::definition(&features, &stream, &index, offset)
            })
            .await
            .ok_or_else(|| internal("definition"))?;
        let Some(target) = target else { return Ok(None) };
        // An empty source is the document itself.
        let uri = if target.source.is_empty() {
            position.text_document.uri.clone()
        } else {
            let Ok(uri) = Url::parse(&target.source) else { return Ok(None) };
            uri
        };
        // The CRD's text: the open buffer if there is one, else the file on disk.
        let text = match self.snapshot(&uri) {
            Some(s) => s.text,
            None => match uri.to_file_path().ok().and_then(|p| std::fs::read_to_string(p).ok()) {
                Some(text) => text,
                None => return Ok(None),
            },
        };
        let range = Lines::new(&text, encoding).range(target.range);
        Ok(Some(GotoDefinitionResponse::Scalar(Location { uri, range })))
    }

    async fn document_symbol(&self, params: DocumentSymbolParams) -> RpcResult<Option<DocumentSymbolResponse>> {
        let Some(snapshot) = self.snapshot(&params.text_document.uri) else { return Ok(None) };
        let encoding = *read(&self.state.encoding);
        self.blocking("document symbols", move || {
            let text = snapshot.text;
            let stream = crdls_yaml::parse(&text);
            let lines = Lines::new(&text, encoding);
            let symbols = crdls_ide::document_symbols(&text, &stream).into_iter().map(|s| document_symbol(&lines, s)).collect();
            Some(DocumentSymbolResponse::Nested(symbols))
        })
        .await
        .ok_or_else(|| internal("document symbols"))
    }

    async fn code_action(&self, params: CodeActionParams) -> RpcResult<Option<CodeActionResponse>> {
        let wants_fixes =
            params.context.only.as_ref().is_none_or(|only| only.iter().any(|k| CodeActionKind::QUICKFIX.as_str().starts_with(k.as_str())));
        let uri = params.text_document.uri;
        let Some(snapshot) = self.snapshot(&uri) else { return Ok(None) };
        if !wants_fixes || params.context.diagnostics.is_empty() {
            return Ok(Some(Vec::new()));
        }
        let encoding = *read(&self.state.encoding);
        let index = read(&self.state.index).clone();
        let diagnostics = params.context.diagnostics;
        self.blocking("code actions", move || {
            let text = snapshot.text;
            let lines = Lines::new(&text, encoding);
            let (held, requests): (Vec<&lsp_types::Diagnostic>, Vec<crdls_ide::FixRequest<'_>>) =
                diagnostics.iter().filter_map(|d| fix_request(&lines, d).map(|r| (d, r))).unzip();
            if requests.is_empty() {
                return Some(Vec::new());
            }
            let stream = crdls_yaml::parse(&text);
            let actions = crdls_ide::code_actions(&text, &stream, &index, &requests);
            let response = actions
                .into_iter()
                .map(|action| {
                    let edits =
                        action.edits.iter().map(|e| TextEdit { range: lines.range(e.range), new_text: e.new_text.clone() }).collect();
                    CodeActionOrCommand::CodeAction(lsp_types::CodeAction {
                        title: action.title,
                        kind: Some(CodeActionKind::QUICKFIX),
                        diagnostics: Some(action.fixes.iter().map(|i| held[*i].clone()).collect()),
                        edit: Some(WorkspaceEdit { changes: Some(HashMap::from([(uri.clone(), edits)])), ..WorkspaceEdit::default() }),
                        is_preferred: action.preferred.then_some(true),
                        ..lsp_types::CodeAction::default()
                    })
                })
                .collect();
            Some(response)
        })
        .await
        .ok_or_else(|| internal("code actions"))
    }

    async fn inlay_hint(&self, params: InlayHintParams) -> RpcResult<Option<Vec<InlayHint>>> {
        if !read(&self.state.config).inlay_hints {
            return Ok(None);
        }
        let Some(snapshot) = self.snapshot(&params.text_document.uri) else { return Ok(None) };
        let encoding = *read(&self.state.encoding);
        let index = read(&self.state.index).clone();
        self.blocking("inlay hints", move || {
            let text = snapshot.text;
            let lines = Lines::new(&text, encoding);
            let range = crdls_yaml::TextRange::new(lines.offset(params.range.start), lines.offset(params.range.end));
            let stream = crdls_yaml::parse(&text);
            let hints = crdls_ide::inlay_hints(&text, &stream, &index, range)
                .into_iter()
                .map(|h| InlayHint {
                    position: lines.position(h.offset),
                    label: InlayHintLabel::String(h.label),
                    kind: None,
                    text_edits: None,
                    tooltip: Some(InlayHintTooltip::MarkupContent(MarkupContent { kind: MarkupKind::Markdown, value: h.tooltip })),
                    padding_left: Some(true),
                    padding_right: None,
                    data: None,
                })
                .collect();
            Some(hints)
        })
        .await
        .ok_or_else(|| internal("inlay hints"))
    }

    async fn folding_range(&self, params: FoldingRangeParams) -> RpcResult<Option<Vec<FoldingRange>>> {
        let Some(snapshot) = self.snapshot(&params.text_document.uri) else { return Ok(None) };
        let encoding = *read(&self.state.encoding);
        self.blocking("folding ranges", move || {
            let text = snapshot.text;
            let stream = crdls_yaml::parse(&text);
            let lines = Lines::new(&text, encoding);
            let ranges = crdls_ide::folding_ranges(&text, &stream)
                .into_iter()
                .map(|r| {
                    let range = lines.range(r);
                    FoldingRange { start_line: range.start.line, end_line: range.end.line, ..FoldingRange::default() }
                })
                .collect();
            Some(ranges)
        })
        .await
        .ok_or_else(|| internal("folding ranges"))
    }
}

/// The fixes a client-held diagnostic asks for: its code, its range, and the path carried in `data`.
fn fix_request<'d>(lines: &Lines<'_>, d: &'d lsp_types::Diagnostic) -> Option<crdls_ide::FixRequest<'d>> {
    if d.source.as_deref() != Some("crdls") {
        return None;
    }
    let Some(NumberOrString::String(code)) = &d.code else { return None };
    let range = crdls_yaml::TextRange::new(lines.offset(d.range.start), lines.offset(d.range.end));
    let path = d.data.as_ref().and_then(|data| data.get("path")).and_then(|p| p.as_str());
    Some(crdls_ide::FixRequest { code, range, path })
}

/// An outline entry in LSP form.
#[allow(deprecated)] // `DocumentSymbol::deprecated` must still be spelled out.
fn document_symbol(lines: &Lines<'_>, symbol: crdls_ide::Symbol) -> DocumentSymbol {
    let kind = match symbol.kind {
        crdls_ide::SymbolKind::Document => SymbolKind::MODULE,
        crdls_ide::SymbolKind::Object => SymbolKind::OBJECT,
        crdls_ide::SymbolKind::Array => SymbolKind::ARRAY,
        crdls_ide::SymbolKind::Field => SymbolKind::FIELD,
    };
    let range = lines.range(symbol.range);
    // LSP requires the selection to lie inside the range.
    let selection = if symbol.selection.start >= symbol.range.start && symbol.selection.end <= symbol.range.end {
        lines.range(symbol.selection)
    } else {
        lsp_types::Range { start: range.start, end: range.start }
    };
    DocumentSymbol {
        name: if symbol.name.is_empty() { "\"\"".into() } else { symbol.name },
        detail: symbol.detail,
        kind,
        tags: None,
        deprecated: None,
        range,
        selection_range: selection,
        children: (!symbol.children.is_empty()).then(|| symbol.children.into_iter().map(|c| document_symbol(lines, c)).collect()),
    }
}

/// A crdls completion item in LSP form: a text edit over the replaced range.
fn completion_item(lines: &Lines<'_>, item: crdls_ide::CompletionItem) -> CompletionItem {
    let kind = match item.kind {
        crdls_ide::CompletionKind::Field => CompletionItemKind::FIELD,
        crdls_ide::CompletionKind::Value => CompletionItemKind::VALUE,
        crdls_ide::CompletionKind::ApiVersion => CompletionItemKind::MODULE,
        crdls_ide::CompletionKind::Kind => CompletionItemKind::CLASS,
        crdls_ide::CompletionKind::Snippet => CompletionItemKind::SNIPPET,
    };
    CompletionItem {
        label: item.label,
        kind: Some(kind),
        detail: item.detail,
        documentation: item.documentation.map(|value| Documentation::MarkupContent(MarkupContent { kind: MarkupKind::Markdown, value })),
        sort_text: Some(item.sort_text),
        tags: item.deprecated.then(|| vec![CompletionItemTag::DEPRECATED]),
        insert_text_format: Some(if item.snippet { InsertTextFormat::SNIPPET } else { InsertTextFormat::PLAIN_TEXT }),
        // Multi-line inserts carry their own indentation: the editor must not add the line's again.
        insert_text_mode: Some(InsertTextMode::AS_IS),
        text_edit: Some(CompletionTextEdit::Edit(TextEdit { range: lines.range(item.replace), new_text: item.insert_text })),
        ..CompletionItem::default()
    }
}
