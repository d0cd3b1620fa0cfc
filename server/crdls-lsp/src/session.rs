//! The state the handlers share (open documents, the CRD index, settings, what the client supports)
//! and what every handler uses on it: locks that survive a panic, document snapshots, log lines, and
//! blocking work whose panic becomes a logged error instead of a dead server.

use std::collections::HashMap;
use std::path::PathBuf;
use std::sync::{Arc, Mutex, RwLock};

use crdls_crd::CrdIndex;
use crdls_diagnostics::Diagnostic;
use crdls_workspace::Config;
use tower_lsp::jsonrpc::Error as RpcError;
use tower_lsp::lsp_types::{self as lsp_types, MessageType, Position, Url};
use tower_lsp::Client;

use crate::capabilities::ClientFlags;
use crate::document::Document;
use crate::git::GitOld;
use crate::proto::{Encoding, Lines};

/// Everything the handlers share.
pub(crate) struct State {
    pub(crate) documents: Mutex<HashMap<Url, Document>>,
    pub(crate) index: RwLock<Arc<CrdIndex>>,
    /// The settings in force: `base` with the client's current settings on top.
    pub(crate) config: RwLock<Config>,
    /// Defaults, `crdls.toml` and the initialization options: what the client's settings apply to
    /// (each time afresh, so a setting the user removes goes back to its `crdls.toml` value).
    pub(crate) base: RwLock<Config>,
    pub(crate) encoding: RwLock<Encoding>,
    pub(crate) roots: RwLock<Vec<PathBuf>>,
    pub(crate) flags: RwLock<ClientFlags>,
    /// One lock per document so only one check of it runs at a time.
    pub(crate) flights: Mutex<HashMap<Url, Arc<tokio::sync::Mutex<()>>>>,
    /// A fingerprint of the CRDs each open buffer contributes, to notice when they change.
    pub(crate) buffer_crds: Mutex<HashMap<Url, u64>>,
    /// Old versions of open files, from git.
    pub(crate) git: GitOld,
    /// What each file is (a chart template, a patch, a test assertion), from the files around it.
    pub(crate) roles: Mutex<crdls_workspace::Roles>,
    /// The CRD sources that could not be read: chart archives, then URLs and the cluster.
    pub(crate) source_errors: Mutex<(Vec<crdls_sources::SourceError>, Vec<crdls_sources::SourceError>)>,
    /// Whether `crdls.toml` carries warnings about sources (so they are cleared when fixed).
    pub(crate) source_warnings: Mutex<bool>,
    /// The source problems already shown as messages since the last refresh.
    pub(crate) shown_messages: Mutex<std::collections::HashSet<String>>,
    /// What `crdls.toml` asked for and was withheld in a workspace the user has not trusted, until
    /// it has been said.
    pub(crate) withheld: Mutex<Option<String>>,
    /// Whether the first workspace scan has finished: until it has, the index is partial, and no
    /// document's diagnostics are computed against it (the scan's end checks them all).
    pub(crate) index_ready: tokio::sync::watch::Sender<bool>,
    /// The workspace scan with its network follow-up, one at a time: `Some(Network::Refresh)` when a
    /// run must fetch the URLs and the cluster again, `None` when it fetches only what the cache lacks.
    pub(crate) scans: crate::flight::Flight<Option<crdls_sources::Network>>,
    /// The custom resources read from the workspace's files for a changed CRD (`objects.rs`), until
    /// the next scan or change on disk.
    pub(crate) objects: Mutex<Option<Arc<crate::objects::DiskObjects>>>,
}

/// The server: the connection to the client and the shared state. Cloning it is cheap, so work that
/// runs in the background takes its own.
#[derive(Clone)]
pub struct Backend {
    pub(crate) client: Client,
    pub(crate) state: Arc<State>,
}

/// Locks a mutex, recovering the data if a panicking thread poisoned it (state stays usable).
pub(crate) fn lock<T>(m: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    m.lock().unwrap_or_else(|e| e.into_inner())
}

/// Read-locks a lock, recovering the data if a panicking thread poisoned it.
pub(crate) fn read<T>(l: &RwLock<T>) -> std::sync::RwLockReadGuard<'_, T> {
    l.read().unwrap_or_else(|e| e.into_inner())
}

/// Write-locks a lock, recovering the data if a panicking thread poisoned it.
pub(crate) fn write<T>(l: &RwLock<T>) -> std::sync::RwLockWriteGuard<'_, T> {
    l.write().unwrap_or_else(|e| e.into_inner())
}

/// A document's text and version at one moment.
pub(crate) struct Snapshot {
    pub(crate) text: String,
    pub(crate) version: i32,
    pub(crate) generation: u64,
}

impl Backend {
    /// A server with nothing open, nothing indexed and the default settings, until `initialize`.
    pub(crate) fn new(client: Client) -> Backend {
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
                git: GitOld::default(),
                roles: Mutex::new(crdls_workspace::Roles::new()),
                source_errors: Mutex::new((Vec::new(), Vec::new())),
                source_warnings: Mutex::new(false),
                shown_messages: Mutex::new(std::collections::HashSet::new()),
                withheld: Mutex::new(None),
                index_ready: tokio::sync::watch::Sender::new(false),
                scans: crate::flight::Flight::default(),
                objects: Mutex::new(None),
            }),
        }
    }

    /// The text and version of an open document.
    pub(crate) fn snapshot(&self, uri: &Url) -> Option<Snapshot> {
        let docs = lock(&self.state.documents);
        docs.get(uri).map(|d| Snapshot { text: d.text(), version: d.version, generation: d.generation })
    }

    /// The document's text and position as a byte offset, for the read-only features.
    pub(crate) fn position_snapshot(&self, uri: &Url, position: Position) -> Option<(String, usize, Encoding)> {
        let snapshot = self.snapshot(uri)?;
        let encoding = *read(&self.state.encoding);
        let offset = Lines::new(&snapshot.text, encoding).offset(position);
        Some((snapshot.text, offset, encoding))
    }

    /// The text behind a URI a CRD came from: the open buffer if there is one, else the file on disk.
    pub(crate) fn source_text(&self, uri: &Url) -> Option<String> {
        match self.snapshot(uri) {
            Some(s) => Some(s.text),
            None => uri.to_file_path().ok().and_then(|p| crdls_workspace::files::read_text(&p).ok()),
        }
    }

    /// Whether the first workspace scan has finished.
    pub(crate) fn index_is_ready(&self) -> bool {
        *self.state.index_ready.borrow()
    }

    /// Waits until the first workspace scan has finished.
    pub(crate) async fn wait_for_index(&self) {
        let mut ready = self.state.index_ready.subscribe();
        let _ = ready.wait_for(|ready| *ready).await;
    }

    /// The lock that lets only one check of `uri` run at a time.
    pub(crate) fn flight(&self, uri: &Url) -> Arc<tokio::sync::Mutex<()>> {
        lock(&self.state.flights).entry(uri.clone()).or_default().clone()
    }

    /// Diagnostics of `text` in LSP form, in the negotiated encoding.
    pub(crate) fn to_lsp(&self, text: &str, diagnostics: &[Diagnostic]) -> Vec<lsp_types::Diagnostic> {
        let lines = Lines::new(text, *read(&self.state.encoding));
        diagnostics.iter().map(|d| lines.diagnostic(d)).collect()
    }

    /// Logs a line to stderr and to the client.
    pub(crate) async fn log(&self, level: MessageType, message: String) {
        crate::log_stderr(&message);
        self.client.log_message(level, message).await;
    }

    /// Runs `f` on a blocking thread; a panic becomes a logged error instead of a dead server.
    pub(crate) async fn blocking<T: Send + 'static>(&self, what: &str, f: impl FnOnce() -> T + Send + 'static) -> Option<T> {
        match tokio::task::spawn_blocking(f).await {
            Ok(value) => Some(value),
            Err(e) => {
                let detail = if e.is_panic() { panic_text(e.into_panic()) } else { e.to_string() };
                self.log(MessageType::ERROR, format!("{what} failed: {detail}")).await;
                None
            }
        }
    }
}

/// The message a panic carried.
pub(crate) fn panic_text(payload: Box<dyn std::any::Any + Send>) -> String {
    if let Some(s) = payload.downcast_ref::<&str>() {
        s.to_string()
    } else if let Some(s) = payload.downcast_ref::<String>() {
        s.clone()
    } else {
        "a panic".into()
    }
}

/// What the file behind a document URI is (a manifest when it is not a file on disk).
pub(crate) fn role_of(state: &State, uri: &str) -> crdls_workspace::FileRole {
    match Url::parse(uri).ok().and_then(|u| u.to_file_path().ok()) {
        Some(path) => lock(&state.roles).role_of(&path),
        None => crdls_workspace::FileRole::Manifest,
    }
}

/// The error response of a request whose work failed (the log has the details).
pub(crate) fn internal(what: &str) -> RpcError {
    let mut e = RpcError::internal_error();
    e.message = format!("crdls: {what} failed; see the server log").into();
    e
}
