//! The state the handlers share and what every handler uses on it. What they read (the CRD index,
//! the settings, what the client supports) is one `Session` snapshot, replaced whole under one lock
//! (`State::update`), as ruff_server's `Session` hands out snapshots; the bookkeeping of open
//! documents, checks, scans and messages sits beside it. Also here: locks that survive a panic,
//! document snapshots, the position-request recipe (`Backend::at_cursor`), log lines, and blocking
//! work whose panic becomes a logged error instead of a dead server.

use std::collections::HashMap;
use std::path::PathBuf;
use std::sync::{Arc, Mutex, RwLock};

use crdls_crd::CrdIndex;
use crdls_diagnostics::Diagnostic;
use crdls_workspace::Config;
use tower_lsp::jsonrpc::{Error as RpcError, Result as RpcResult};
use tower_lsp::lsp_types::{self as lsp_types, MessageType, Position, Url};
use tower_lsp::Client;

use crate::capabilities::ClientFlags;
use crate::document::Document;
use crate::git::GitOld;
use crate::proto::{Encoding, Lines};

/// What every handler and check reads of the server's state, taken whole at one moment (ruff_server's
/// `Session` hands out snapshots the same way): the CRD index, the settings, and what was negotiated
/// at `initialize`. It is never changed in place: [`State::update`] replaces it as a whole under one
/// lock, so a reader sees one consistent moment, and an index replaced while a check runs does not
/// change the check's.
#[derive(Clone, Default)]
pub(crate) struct Session {
    pub(crate) index: Arc<CrdIndex>,
    /// The settings in force: `base` with the client's current settings on top.
    pub(crate) config: Config,
    /// Defaults, `crdls.toml` and the initialization options: what the client's settings apply to
    /// (each time afresh, so a setting the user removes goes back to its `crdls.toml` value).
    pub(crate) base: Config,
    /// The position encoding negotiated at `initialize`.
    pub(crate) encoding: Encoding,
    /// The workspace folders.
    pub(crate) roots: Vec<PathBuf>,
    /// What the client supports.
    pub(crate) flags: ClientFlags,
    /// A fingerprint of the CRDs each checked open buffer puts in `index` in place of its file on
    /// disk: kept with the index, so that a buffer's CRDs and the scan's never overwrite each other.
    pub(crate) buffer_crds: HashMap<Url, u64>,
    /// What `crdls.toml` asked for and was withheld in a workspace the user has not trusted, until it
    /// has been said.
    pub(crate) withheld: Option<String>,
}

/// Everything the handlers share: the session snapshot, and the bookkeeping of documents, checks,
/// scans and messages, each behind its own lock (none is held across an `.await` or while taking
/// another).
pub(crate) struct State {
    /// The current snapshot; see [`Session`].
    session: RwLock<Arc<Session>>,
    /// The open documents, each with the lock of its checks.
    pub(crate) documents: Mutex<HashMap<Url, Open>>,
    /// Old versions of open files, from git.
    pub(crate) git: GitOld,
    /// What each file is (a chart template, a patch, a test assertion), from the files around it.
    pub(crate) roles: Mutex<crdls_workspace::Roles>,
    /// The CRD sources that could not be read, and how they were shown.
    pub(crate) source_problems: Mutex<crate::fetch::SourceProblems>,
    /// Whether the first workspace scan has finished: until it has, the index is partial, and no
    /// document's diagnostics are computed against it (the scan's end checks them all).
    pub(crate) index_ready: tokio::sync::watch::Sender<bool>,
    /// The workspace scan with its network follow-up, one at a time: `Some(Network::Refresh)` when a
    /// run must fetch the URLs and the cluster again, `None` when it fetches only what the cache lacks.
    pub(crate) scans: crate::flight::Flight<Option<crdls_sources::Network>>,
    /// The custom resources read from the workspace's files for a changed CRD (`objects.rs`), until
    /// the next scan or change on disk.
    pub(crate) objects: Mutex<Option<Arc<crate::objects::DiskObjects>>>,
    /// The API documents read for the hovers of built-in kinds, when the user turned `fieldDocs` on.
    pub(crate) docs: crdls_workspace::docs::KubeDocs,
}

/// An open document, and the lock that lets only one check of it run at a time: a tokio lock, held
/// across the check's `.await`s, never while the map's lock is held. Both leave with `didClose`.
pub(crate) struct Open {
    pub(crate) document: Document,
    pub(crate) flight: Arc<tokio::sync::Mutex<()>>,
}

impl Open {
    pub(crate) fn new(document: Document) -> Open {
        Open { document, flight: Arc::default() }
    }
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

impl State {
    /// The session as it is now: a snapshot that later updates do not change.
    pub(crate) fn session(&self) -> Arc<Session> {
        read(&self.session).clone()
    }

    /// Changes the session: `change` works on a copy, which then replaces the snapshot whole. Updates
    /// run one at a time.
    pub(crate) fn update<R>(&self, change: impl FnOnce(&mut Session) -> R) -> R {
        let mut guard = write(&self.session);
        let mut next = Session::clone(&guard);
        let result = change(&mut next);
        *guard = Arc::new(next);
        result
    }

    /// Changes the CRD index (see [`State::update`]).
    pub(crate) fn update_index<R>(&self, change: impl FnOnce(&mut CrdIndex) -> R) -> R {
        self.update(|session| change(Arc::make_mut(&mut session.index)))
    }
}

/// What a request at a cursor reads (see [`Backend::at_cursor`]).
pub(crate) struct Cursor<'a> {
    /// The text the editor features read: the document's, a template's actions masked.
    pub(crate) text: &'a str,
    /// That text parsed for the cursor.
    pub(crate) stream: &'a crdls_yaml::Stream,
    /// The cursor, in bytes.
    pub(crate) offset: usize,
    /// The index as the document sees it.
    pub(crate) index: &'a CrdIndex,
    /// The settings in force.
    pub(crate) config: &'a Config,
    /// The document's lines, to answer in the negotiated encoding.
    pub(crate) lines: &'a Lines<'a>,
    /// How the file is read, in a sentence (see [`crdls_workspace::FileRole::reading`]); `None` for a
    /// plain manifest.
    pub(crate) reading: Option<String>,
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
                session: RwLock::new(Arc::new(Session::default())),
                documents: Mutex::new(HashMap::new()),
                git: GitOld::default(),
                roles: Mutex::new(crdls_workspace::Roles::new()),
                source_problems: Mutex::new(crate::fetch::SourceProblems::default()),
                index_ready: tokio::sync::watch::Sender::new(false),
                scans: crate::flight::Flight::default(),
                objects: Mutex::new(None),
                docs: crdls_workspace::docs::KubeDocs::new(),
            }),
        }
    }

    /// The text and version of an open document.
    pub(crate) fn snapshot(&self, uri: &Url) -> Option<Snapshot> {
        let docs = lock(&self.state.documents);
        docs.get(uri).map(|Open { document: d, .. }| Snapshot { text: d.text(), version: d.version, generation: d.generation })
    }

    /// The generation of an open document now: a check that began at another one is stale.
    pub(crate) fn generation(&self, uri: &Url) -> Option<u64> {
        lock(&self.state.documents).get(uri).map(|open| open.document.generation)
    }

    /// The recipe every request at a cursor follows (hover, definition, completion): the document's
    /// text and the cursor's byte offset now, the index as the document sees it and the settings from
    /// one session snapshot; then, on a blocking thread, the text the file's role gives the editor
    /// features (a template's actions masked) parsed for the cursor, which `answer` reads. `Ok(None)`
    /// when the document is not open; an error response when the work failed (the log says why).
    pub(crate) async fn at_cursor<T: Send + 'static>(
        &self,
        what: &'static str,
        uri: &Url,
        position: Position,
        answer: impl FnOnce(&Cursor<'_>) -> T + Send + 'static,
    ) -> RpcResult<Option<T>> {
        let Some(snapshot) = self.snapshot(uri) else { return Ok(None) };
        let session = self.state.session();
        let offset = Lines::new(&snapshot.text, session.encoding).offset(position);
        let index = session.index.seen_from(uri.as_str());
        let state = self.state.clone();
        let uri = uri.clone();
        let answered = self
            .blocking(what, move || {
                let role = role_of(&state, uri.as_str());
                let features = role.text_for_features(&snapshot.text);
                let stream = crdls_yaml::parse_at(&features, offset);
                let lines = Lines::new(&snapshot.text, session.encoding);
                let reading = uri.to_file_path().ok().and_then(|path| role.reading(&path));
                let cursor =
                    Cursor { text: &features, stream: &stream, offset, index: &index, config: &session.config, lines: &lines, reading };
                answer(&cursor)
            })
            .await;
        answered.map(Some).ok_or_else(|| internal(what))
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

    /// The lock that lets only one check of `uri` run at a time; `None` when it is not open.
    pub(crate) fn flight(&self, uri: &Url) -> Option<Arc<tokio::sync::Mutex<()>>> {
        lock(&self.state.documents).get(uri).map(|open| open.flight.clone())
    }

    /// Diagnostics of `text` in LSP form, in the negotiated encoding.
    pub(crate) fn to_lsp(&self, text: &str, diagnostics: &[Diagnostic]) -> Vec<lsp_types::Diagnostic> {
        let lines = Lines::new(text, self.state.session().encoding);
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

/// The workspace the session has now: its folders, and whether test inputs are read whole.
pub(crate) fn workspace_of(state: &State) -> crdls_workspace::roles::Workspace {
    let session = state.session();
    crdls_workspace::roles::Workspace::new(session.roots.iter().cloned(), std::path::Path::new("/"), session.config.whole_test_inputs)
}

/// What the file behind a document URI is (a manifest when it is not a file on disk), decided in the
/// workspace the session has now: its folders, and whether test inputs are read whole.
pub(crate) fn role_of(state: &State, uri: &str) -> crdls_workspace::FileRole {
    match Url::parse(uri).ok().and_then(|u| u.to_file_path().ok()) {
        Some(path) => {
            let workspace = workspace_of(state);
            let mut roles = lock(&state.roles);
            roles.set_workspace(&workspace);
            roles.role_of(&path)
        }
        None => crdls_workspace::FileRole::Manifest,
    }
}

/// The error response of a request whose work failed (the log has the details).
pub(crate) fn internal(what: &str) -> RpcError {
    let mut e = RpcError::internal_error();
    e.message = format!("crdls: {what} failed; see the server log").into();
    e
}
