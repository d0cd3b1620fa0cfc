//! One scripted session: starting the server (in-process or the `crdls` binary) and initializing it, and
//! the client's side of the script: requests, notifications and document edits, applied to the client's
//! own copy of each document.

use std::collections::{BTreeMap, HashMap, VecDeque};
use std::path::{Path, PathBuf};

use serde_json::{json, Value};
use tokio::io::{AsyncReadExt, AsyncWrite};
use tokio::sync::mpsc;

use super::render::compact;
use super::text::{clamped_offset, cursor, position_at};
use super::transport::spawn_reader;
use super::workspace::create_workspace;
use super::{Change, Encoding, Position, SessionOptions};

/// Where the server runs.
pub(super) enum Server {
    /// `crdls_lsp::serve` on the session's runtime.
    InProcess(Option<tokio::task::JoinHandle<crdls_lsp::Ending>>),
    /// The `crdls` binary, with what it wrote to stderr so far (watched, so a test can wait for a line).
    Process { child: tokio::process::Child, stderr: tokio::sync::watch::Receiver<String> },
}

/// One scripted LSP session. Every method that waits fails the test after `TIMEOUT`.
pub struct Session {
    pub(super) runtime: Option<tokio::runtime::Runtime>,
    /// The client→server stream; `None` once closed.
    pub(super) writer: Option<Box<dyn AsyncWrite + Unpin + Send>>,
    pub(super) incoming: mpsc::UnboundedReceiver<Result<Value, String>>,
    pub(super) server: Server,
    /// Server messages received but not consumed yet, in arrival order.
    pub(super) queue: VecDeque<Value>,
    pub(super) transcript: Vec<String>,
    pub(super) next_id: i64,
    /// The method and params of each client request, by id, to render its response.
    pub(super) requests: HashMap<i64, (String, Value)>,
    /// Every version of every open document's text, as the client sees it.
    pub(super) documents: HashMap<String, BTreeMap<i32, String>>,
    pub(super) workspace: PathBuf,
    pub(super) workspace_uri: String,
    pub(super) options: SessionOptions,
    pub(super) initialize_result: Value,
    /// The version and diagnostics last consumed for each URI, to drop identical republications.
    pub(super) published: HashMap<String, (Value, Value)>,
    /// Server requests the harness does not know how to answer.
    pub(super) unexpected: Vec<String>,
    pub(super) finished: bool,
}

impl Session {
    /// Starts the server in-process, initializes it and, unless told otherwise, waits until it has
    /// indexed the workspace (its `indexed N CRDs` log line, and its progress when the client has it).
    pub fn start(options: SessionOptions) -> Session {
        assert!(options.env.is_empty(), "the in-process server cannot have environment variables of its own; use start_binary");
        let runtime = runtime();
        let (workspace, workspace_uri) = create_workspace(&options);
        let (client, server) = tokio::io::duplex(1 << 20);
        let (server_read, server_write) = tokio::io::split(server);
        let (client_read, client_write) = tokio::io::split(client);
        let handle = runtime.spawn(crdls_lsp::serve(server_read, server_write));
        let incoming = spawn_reader(&runtime, client_read);
        Session::initialize(runtime, Box::new(client_write), incoming, Server::InProcess(Some(handle)), workspace, workspace_uri, options)
    }

    /// Starts the `crdls` binary at `binary` (speaking LSP over stdio, run in the workspace folder),
    /// then proceeds as `start` does.
    pub fn start_binary(binary: &Path, options: SessionOptions) -> Session {
        let runtime = runtime();
        let (workspace, workspace_uri) = create_workspace(&options);
        let guard = runtime.enter();
        let shown = workspace.display().to_string();
        let mut child = tokio::process::Command::new(binary)
            .envs(options.env.iter().map(|(k, v)| (k.clone(), v.replace("{workspace}", &shown))))
            .current_dir(&workspace)
            .stdin(std::process::Stdio::piped())
            .stdout(std::process::Stdio::piped())
            .stderr(std::process::Stdio::piped())
            .kill_on_drop(true)
            .spawn()
            .unwrap_or_else(|e| panic!("cannot start {}: {e}", binary.display()));
        let stdin = child.stdin.take().expect("piped stdin");
        let stdout = child.stdout.take().expect("piped stdout");
        let mut stderr_pipe = child.stderr.take().expect("piped stderr");
        let (sink, stderr) = tokio::sync::watch::channel(String::new());
        runtime.spawn(async move {
            let mut buf = vec![0; 4096];
            while let Ok(n) = stderr_pipe.read(&mut buf).await {
                if n == 0 {
                    break;
                }
                sink.send_modify(|text| text.push_str(&String::from_utf8_lossy(&buf[..n])));
            }
        });
        drop(guard);
        let incoming = spawn_reader(&runtime, stdout);
        Session::initialize(runtime, Box::new(stdin), incoming, Server::Process { child, stderr }, workspace, workspace_uri, options)
    }

    fn initialize(
        runtime: tokio::runtime::Runtime,
        writer: Box<dyn AsyncWrite + Unpin + Send>,
        incoming: mpsc::UnboundedReceiver<Result<Value, String>>,
        server: Server,
        workspace: PathBuf,
        workspace_uri: String,
        options: SessionOptions,
    ) -> Session {
        let mut session = Session {
            runtime: Some(runtime),
            writer: Some(writer),
            incoming,
            server,
            queue: VecDeque::new(),
            transcript: Vec::new(),
            next_id: 1,
            requests: HashMap::new(),
            documents: HashMap::new(),
            workspace,
            workspace_uri,
            options,
            initialize_result: Value::Null,
            published: HashMap::new(),
            unexpected: Vec::new(),
            finished: false,
        };
        let params = session.options.initialize_params(&session.workspace_uri);
        session.initialize_result = session.request("initialize", params);
        session.notify("initialized", json!({}));
        if session.options.wait_for_index {
            if session.options.progress {
                session.expect_progress("begin");
                session.expect_progress("end");
            }
            session.expect_log_containing("indexed ");
        }
        session
    }

    /// The server's answer to `initialize`.
    pub fn initialize_result(&self) -> &Value {
        &self.initialize_result
    }

    /// The encoding the server chose, as positions are counted in this session.
    pub fn encoding(&self) -> Encoding {
        match self.initialize_result["capabilities"]["positionEncoding"].as_str() {
            Some("utf-8") => Encoding::Utf8,
            _ => Encoding::Utf16,
        }
    }

    /// The workspace folder on disk.
    pub fn workspace(&self) -> &Path {
        &self.workspace
    }

    /// The URI of a workspace file.
    pub fn uri(&self, path: &str) -> String {
        format!("{}/{path}", self.workspace_uri)
    }

    /// The transcript so far.
    pub fn transcript(&self) -> String {
        let mut out = self.transcript.join("\n");
        out.push('\n');
        out
    }

    // Sending.

    /// Sends a request and returns its result; other server messages stay queued. Fails on an error.
    pub fn request(&mut self, method: &str, params: Value) -> Value {
        let response = self.request_response(method, params);
        match response.get("error") {
            Some(error) => self.fail(&format!("{method} failed: {}", compact(error))),
            None => response.get("result").cloned().unwrap_or(Value::Null),
        }
    }

    /// Sends a request and returns the whole response (`result` or `error`).
    pub fn request_response(&mut self, method: &str, params: Value) -> Value {
        let id = self.next_id;
        self.next_id += 1;
        let line = self.render_client(Some(id), method, &params);
        self.record(line);
        self.requests.insert(id, (method.to_string(), params.clone()));
        let mut message = json!({"jsonrpc": "2.0", "id": id, "method": method});
        if !params.is_null() {
            message["params"] = params;
        }
        self.send(&message);
        self.take(&format!("the response to #{id} {method}"), |m| m.get("method").is_none() && m.get("id") == Some(&json!(id)))
    }

    /// Changes what the client answers to `workspace/configuration` from now on (a user editing their
    /// settings); send `workspace/didChangeConfiguration` to tell the server.
    pub fn set_configuration(&mut self, settings: Value) {
        self.options.configuration = Some(settings);
    }

    /// Sends a notification.
    pub fn notify(&mut self, method: &str, params: Value) {
        let line = self.render_client(None, method, &params);
        self.record(line);
        let mut message = json!({"jsonrpc": "2.0", "method": method});
        if !params.is_null() {
            message["params"] = params;
        }
        self.send(&message);
    }

    /// Sends bytes as they are, framed with a Content-Length header (for malformed JSON).
    pub fn send_raw_body(&mut self, body: &str) {
        self.record(format!("-> (raw) {body}"));
        let frame = format!("Content-Length: {}\r\n\r\n{body}", body.len());
        self.write(frame.as_bytes());
    }

    /// Sends bytes as they are, headers included (for broken framing); the transcript shows them with
    /// line breaks escaped.
    pub fn send_raw_bytes(&mut self, bytes: &str) {
        self.record(format!("-> (raw bytes) {}", bytes.replace('\r', "\\r").replace('\n', "\\n")));
        self.write(bytes.as_bytes());
    }

    /// Consumes the response whose id is `id` (`null` for errors the server could not attribute).
    pub fn expect_response(&mut self, id: Value) -> Value {
        self.take(&format!("a response with id {id}"), |m| m.get("method").is_none() && m.get("id") == Some(&id))
    }

    /// Waits until the `crdls` binary has written `needle` to stderr; returns all it wrote so far.
    pub fn expect_stderr_containing(&mut self, needle: &str) -> String {
        let Server::Process { stderr, .. } = &self.server else { panic!("only the binary's stderr can be read") };
        let mut stderr = stderr.clone();
        let runtime = self.runtime.as_ref().expect("the runtime lives until finish");
        let found = runtime.block_on(async {
            tokio::time::timeout(super::TIMEOUT, stderr.wait_for(|text| text.contains(needle))).await.map(|r| r.map(|text| text.clone()))
        });
        match found {
            Ok(Ok(text)) => text,
            _ => self.fail(&format!("the server did not write {needle:?} to stderr within {:?}", super::TIMEOUT)),
        }
    }

    /// Opens a workspace document at version 1.
    pub fn open(&mut self, path: &str, text: &str) {
        let uri = self.uri(path);
        self.documents.entry(uri.clone()).or_default().insert(1, text.to_string());
        self.notify("textDocument/didOpen", json!({"textDocument": {"uri": uri, "languageId": "yaml", "version": 1, "text": text}}));
    }

    /// Opens a document whose text marks a cursor with `$0`; returns the cursor's position.
    pub fn open_with_cursor(&mut self, path: &str, marked: &str) -> Position {
        let (text, offset) = cursor(marked);
        self.open(path, &text);
        self.position(path, offset)
    }

    /// Sends changes that bring the document to `version`; the harness applies them to its own copy.
    pub fn change(&mut self, path: &str, version: i32, changes: &[Change]) {
        let uri = self.uri(path);
        let encoding = self.encoding();
        let mut text = self.text(path).to_string();
        for change in changes {
            match change.range {
                None => text = change.text.clone(),
                Some((start, end)) => {
                    let from = clamped_offset(&text, start, encoding);
                    let to = clamped_offset(&text, end, encoding).max(from);
                    text.replace_range(from..to, &change.text);
                }
            }
        }
        self.documents.entry(uri.clone()).or_default().insert(version, text);
        let changes: Vec<Value> = changes.iter().map(Change::json).collect();
        self.notify("textDocument/didChange", json!({"textDocument": {"uri": uri, "version": version}, "contentChanges": changes}));
    }

    /// Replaces the one occurrence of `needle` in the document with a ranged edit, as version `version`.
    pub fn replace(&mut self, path: &str, version: i32, needle: &str, replacement: &str) {
        let start = self.find(path, needle);
        let from = self.position(path, start);
        let to = self.position(path, start + needle.len());
        self.change(path, version, &[Change::range(from, to, replacement)]);
    }

    /// Closes a document.
    pub fn close(&mut self, path: &str) {
        let uri = self.uri(path);
        self.documents.remove(&uri);
        self.notify("textDocument/didClose", json!({"textDocument": {"uri": uri}}));
    }

    /// Tells the server that workspace files changed on disk (1 created, 2 changed, 3 deleted).
    pub fn watched_files_changed(&mut self, changes: &[(&str, u32)]) {
        let changes: Vec<Value> = changes.iter().map(|(path, typ)| json!({"uri": self.uri(path), "type": typ})).collect();
        self.notify("workspace/didChangeWatchedFiles", json!({"changes": changes}));
    }

    /// `textDocument/diagnostic` for a document: the response's result.
    pub fn pull_diagnostics(&mut self, path: &str) -> Value {
        let uri = self.uri(path);
        self.request("textDocument/diagnostic", json!({"textDocument": {"uri": uri}}))
    }

    /// `textDocument/completion` at a position.
    pub fn completion(&mut self, path: &str, position: Position) -> Value {
        let params = self.position_params(path, position);
        self.request("textDocument/completion", params)
    }

    /// `textDocument/hover` at a position.
    pub fn hover(&mut self, path: &str, position: Position) -> Value {
        let params = self.position_params(path, position);
        self.request("textDocument/hover", params)
    }

    /// `textDocument/codeAction` for a range, with the diagnostics the client holds there.
    pub fn code_actions(&mut self, path: &str, start: Position, end: Position, diagnostics: Value) -> Value {
        let uri = self.uri(path);
        let range =
            json!({"start": {"line": start.line, "character": start.character}, "end": {"line": end.line, "character": end.character}});
        self.request(
            "textDocument/codeAction",
            json!({"textDocument": {"uri": uri}, "range": range, "context": {"diagnostics": diagnostics}}),
        )
    }

    /// `textDocument/inlayHint` over the whole document.
    pub fn inlay_hints(&mut self, path: &str) -> Value {
        let uri = self.uri(path);
        let lines = self.text(path).lines().count() + 1;
        self.request(
            "textDocument/inlayHint",
            json!({"textDocument": {"uri": uri}, "range": {"start": {"line": 0, "character": 0}, "end": {"line": lines, "character": 0}}}),
        )
    }

    /// `textDocument/definition` at a position.
    pub fn definition(&mut self, path: &str, position: Position) -> Value {
        let params = self.position_params(path, position);
        self.request("textDocument/definition", params)
    }

    fn position_params(&self, path: &str, position: Position) -> Value {
        json!({"textDocument": {"uri": self.uri(path)}, "position": position.json()})
    }

    // Positions in the client's copy of a document.

    /// The latest text of an open document.
    pub fn text(&self, path: &str) -> &str {
        let uri = self.uri(path);
        match self.documents.get(&uri).and_then(|versions| versions.values().next_back()) {
            Some(text) => text,
            None => panic!("{path} is not open"),
        }
    }

    /// The byte offset of the one occurrence of `needle` in an open document.
    pub fn find(&self, path: &str, needle: &str) -> usize {
        let text = self.text(path);
        let start = text.find(needle).unwrap_or_else(|| panic!("{needle:?} is not in {path}"));
        assert_eq!(text.matches(needle).count(), 1, "{needle:?} occurs more than once in {path}");
        start
    }

    /// A byte offset of an open document as a position in the negotiated encoding.
    pub fn position(&self, path: &str, offset: usize) -> Position {
        position_at(self.text(path), offset, self.encoding())
    }

    /// The position where the one occurrence of `needle` starts.
    pub fn position_of(&self, path: &str, needle: &str) -> Position {
        self.position(path, self.find(path, needle))
    }
}

impl Drop for Session {
    fn drop(&mut self) {
        if let Some(runtime) = self.runtime.take() {
            runtime.shutdown_background();
        }
        let _ = std::fs::remove_dir_all(&self.workspace);
        if !self.finished && !std::thread::panicking() {
            panic!("a Session was dropped without finish(): call it to shut down and check every message was consumed");
        }
    }
}

pub(super) fn runtime() -> tokio::runtime::Runtime {
    tokio::runtime::Builder::new_multi_thread().worker_threads(2).enable_all().build().expect("a tokio runtime")
}
