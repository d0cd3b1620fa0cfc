//! An LSP session harness: runs the language server in-process on `tokio::io::duplex` pipes (or the
//! `crdls` binary over stdio), scripts a session message by message, answers the server's own
//! requests, and records a transcript of every message in the order the script consumed it.
//!
//! Waits are on content (a diagnostics version, a log line, a response id), never on time; each wait
//! has a generous deadline that fails the test. Server messages that arrive while the script waits for
//! something else stay queued, in order, until a later call consumes them, and `finish` shuts the server
//! down and fails if any was never consumed. Because messages enter the transcript when the script
//! consumes them (the client's own messages when they are sent), a transcript depends on the script
//! and the server's answers, not on how the server's concurrent tasks happened to interleave. For the
//! same reason, a `publishDiagnostics` that repeats exactly what was last consumed for its document
//! (same version, same items) is dropped, and so is an older version queued before an awaited one.
//!
//! The transcript is rendered for reading and for snapshots: the workspace's temporary URI becomes
//! `file:///WORKSPACE`, durations such as `in 12 ms` become `in <N> ms`, positions stay as sent
//! (zero-based `line:character` in the negotiated encoding), and every diagnostic range is followed by
//! the text it covers, cut out of the document by the harness's own position arithmetic.

use std::collections::{BTreeMap, HashMap, VecDeque};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use serde_json::{json, Map, Value};
use tokio::io::{AsyncBufReadExt, AsyncRead, AsyncReadExt, AsyncWrite, AsyncWriteExt, BufReader};
use tokio::sync::mpsc;

/// How long any one wait may take before the test fails (debug builds on two shared cores are slow).
pub const TIMEOUT: Duration = Duration::from_secs(60);

/// What the workspace folder's URI is rendered as in transcripts.
pub const WORKSPACE_URI: &str = "file:///WORKSPACE";

/// The position encodings a client can offer.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Encoding {
    /// Columns in UTF-16 code units; the client offers only `utf-16` (the LSP default).
    Utf16,
    /// Columns in UTF-8 bytes; the client offers `utf-8` first, then `utf-16`.
    Utf8,
}

impl Encoding {
    /// The LSP name.
    pub fn name(self) -> &'static str {
        match self {
            Encoding::Utf16 => "utf-16",
            Encoding::Utf8 => "utf-8",
        }
    }

    fn width(self, c: char) -> usize {
        match self {
            Encoding::Utf16 => c.len_utf16(),
            Encoding::Utf8 => c.len_utf8(),
        }
    }
}

/// How the client wants diagnostics.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum DiagnosticsMode {
    /// The server pushes `textDocument/publishDiagnostics` (no `textDocument.diagnostic` capability).
    Push,
    /// The client pulls with `textDocument/diagnostic` (it declares `textDocument.diagnostic`, and
    /// `workspace/diagnostic/refresh` support).
    Pull,
    /// The client could pull but cannot be asked to pull again (Neovim 0.10 and 0.11).
    PullWithoutRefresh,
}

/// A zero-based LSP position, in the session's negotiated encoding.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Position {
    /// The line.
    pub line: u32,
    /// The column, in the negotiated encoding's units.
    pub character: u32,
}

impl Position {
    /// A position.
    pub fn new(line: u32, character: u32) -> Position {
        Position { line, character }
    }

    fn json(self) -> Value {
        json!({"line": self.line, "character": self.character})
    }
}

/// One content change of a `textDocument/didChange`.
#[derive(Clone, Debug)]
pub struct Change {
    range: Option<(Position, Position)>,
    text: String,
}

impl Change {
    /// Replaces the whole text.
    pub fn full(text: &str) -> Change {
        Change { range: None, text: text.to_string() }
    }

    /// Replaces a range (positions in the negotiated encoding; they may be out of bounds on purpose).
    pub fn range(start: Position, end: Position, text: &str) -> Change {
        Change { range: Some((start, end)), text: text.to_string() }
    }

    fn json(&self) -> Value {
        match self.range {
            None => json!({"text": self.text}),
            Some((start, end)) => json!({"range": {"start": start.json(), "end": end.json()}, "text": self.text}),
        }
    }
}

/// What a session starts with: workspace files, settings and the client's capabilities.
#[derive(Clone, Debug)]
pub struct SessionOptions {
    files: Vec<(String, String)>,
    init_options: Map<String, Value>,
    encoding: Encoding,
    diagnostics: DiagnosticsMode,
    progress: bool,
    watch_files: bool,
    configuration: Option<Value>,
    wait_for_index: bool,
    index_status: bool,
}

impl Default for SessionOptions {
    fn default() -> SessionOptions {
        SessionOptions::new()
    }
}

impl SessionOptions {
    /// An empty workspace, `{"debounceMs": 0}` as initialization options, and a UTF-16 push client
    /// without progress, file watching or configuration; `start` waits for the workspace index.
    pub fn new() -> SessionOptions {
        let mut init_options = Map::new();
        init_options.insert("debounceMs".into(), json!(0));
        SessionOptions {
            files: Vec::new(),
            init_options,
            encoding: Encoding::Utf16,
            diagnostics: DiagnosticsMode::Push,
            progress: false,
            watch_files: false,
            configuration: None,
            wait_for_index: true,
            index_status: false,
        }
    }

    /// The client asks for `crdls/indexStatus` notifications (`experimental.crdlsIndexStatus`).
    pub fn index_status(mut self) -> SessionOptions {
        self.index_status = true;
        self
    }

    /// A file in the workspace folder (`path` is relative, `/`-separated).
    pub fn file(mut self, path: &str, text: &str) -> SessionOptions {
        self.files.push((path.to_string(), text.to_string()));
        self
    }

    /// A file in the workspace folder copied from the repository (`source` relative to its root).
    pub fn repo_file(self, path: &str, source: &str) -> SessionOptions {
        let text = std::fs::read_to_string(crate::repo_root().join(source)).unwrap_or_else(|e| panic!("cannot read {source}: {e}"));
        self.file(path, &text)
    }

    /// One key of the `initializationOptions` object.
    pub fn setting(mut self, key: &str, value: Value) -> SessionOptions {
        self.init_options.insert(key.to_string(), value);
        self
    }

    /// The position encoding the client offers.
    pub fn encoding(mut self, encoding: Encoding) -> SessionOptions {
        self.encoding = encoding;
        self
    }

    /// How the client wants diagnostics.
    pub fn diagnostics(mut self, mode: DiagnosticsMode) -> SessionOptions {
        self.diagnostics = mode;
        self
    }

    /// The client declares `window.workDoneProgress`.
    pub fn progress(mut self) -> SessionOptions {
        self.progress = true;
        self
    }

    /// The client declares dynamic registration of `workspace/didChangeWatchedFiles`.
    pub fn watch_files(mut self) -> SessionOptions {
        self.watch_files = true;
        self
    }

    /// The client declares `workspace.configuration` and answers every item with `settings`.
    pub fn configuration(mut self, settings: Value) -> SessionOptions {
        self.configuration = Some(settings);
        self
    }

    /// `start` returns right after `initialized`, without waiting for the workspace index.
    pub fn no_index_wait(mut self) -> SessionOptions {
        self.wait_for_index = false;
        self
    }

    fn initialize_params(&self, workspace_uri: &str) -> Value {
        let encodings = match self.encoding {
            Encoding::Utf16 => json!(["utf-16"]),
            Encoding::Utf8 => json!(["utf-8", "utf-16"]),
        };
        let mut text_document = json!({
            "synchronization": {"dynamicRegistration": false, "didSave": true},
            "publishDiagnostics": {"versionSupport": true},
            "completion": {"completionItem": {"snippetSupport": true}},
            "codeAction": {"codeActionLiteralSupport": {"codeActionKind": {"valueSet": ["quickfix"]}}, "isPreferredSupport": true},
            "inlayHint": {"dynamicRegistration": false},
            "hover": {"contentFormat": ["markdown", "plaintext"]},
        });
        if self.diagnostics != DiagnosticsMode::Push {
            text_document["diagnostic"] = json!({"dynamicRegistration": false, "relatedDocumentSupport": false});
        }
        let mut workspace = json!({"workspaceFolders": true});
        if self.diagnostics == DiagnosticsMode::Pull {
            workspace["diagnostic"] = json!({"refreshSupport": true});
        }
        if self.watch_files {
            workspace["didChangeWatchedFiles"] = json!({"dynamicRegistration": true});
        }
        if self.configuration.is_some() {
            workspace["configuration"] = json!(true);
        }
        let mut window = json!({});
        if self.progress {
            window["workDoneProgress"] = json!(true);
        }
        let experimental = if self.index_status { json!({"crdlsIndexStatus": true}) } else { json!({}) };
        json!({
            "processId": null,
            "clientInfo": {"name": "crdls-tests"},
            "rootUri": workspace_uri,
            "workspaceFolders": [{"uri": workspace_uri, "name": "WORKSPACE"}],
            "initializationOptions": Value::Object(self.init_options.clone()),
            "capabilities": {
                "general": {"positionEncodings": encodings},
                "textDocument": text_document,
                "workspace": workspace,
                "window": window,
                "experimental": experimental,
            },
        })
    }

    fn describe_client(&self) -> String {
        let mut features = vec![format!("positionEncodings {}", self.encoding.name())];
        features.push(match self.diagnostics {
            DiagnosticsMode::Push => "push diagnostics".into(),
            DiagnosticsMode::Pull => "pull diagnostics".into(),
            DiagnosticsMode::PullWithoutRefresh => "pull diagnostics without refresh".into(),
        });
        if self.progress {
            features.push("workDoneProgress".into());
        }
        if self.watch_files {
            features.push("didChangeWatchedFiles registration".into());
        }
        if self.index_status {
            features.push("crdls/indexStatus".into());
        }
        if let Some(settings) = &self.configuration {
            features.push(format!("configuration {}", compact(settings)));
        }
        features.join(", ")
    }
}

/// Where the server runs.
enum Server {
    /// `crdls_lsp::serve` on the session's runtime.
    InProcess(Option<tokio::task::JoinHandle<()>>),
    /// The `crdls` binary, with what it wrote to stderr so far.
    Process { child: tokio::process::Child, stderr: Arc<Mutex<String>> },
}

/// One scripted LSP session. Every method that waits fails the test after `TIMEOUT`.
pub struct Session {
    runtime: Option<tokio::runtime::Runtime>,
    /// The client→server stream; `None` once closed.
    writer: Option<Box<dyn AsyncWrite + Unpin + Send>>,
    incoming: mpsc::UnboundedReceiver<Result<Value, String>>,
    server: Server,
    /// Server messages received but not consumed yet, in arrival order.
    queue: VecDeque<Value>,
    transcript: Vec<String>,
    next_id: i64,
    /// The method and params of each client request, by id, to render its response.
    requests: HashMap<i64, (String, Value)>,
    /// Every version of every open document's text, as the client sees it.
    documents: HashMap<String, BTreeMap<i32, String>>,
    workspace: PathBuf,
    workspace_uri: String,
    options: SessionOptions,
    initialize_result: Value,
    /// The version and diagnostics last consumed for each URI, to drop identical republications.
    published: HashMap<String, (Value, Value)>,
    /// Server requests the harness does not know how to answer.
    unexpected: Vec<String>,
    finished: bool,
}

impl Session {
    /// Starts the server in-process, initializes it and, unless told otherwise, waits until it has
    /// indexed the workspace (its `indexed N CRDs` log line, and its progress when the client has it).
    pub fn start(options: SessionOptions) -> Session {
        let runtime = runtime();
        let (workspace, workspace_uri) = create_workspace(&options.files);
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
        let (workspace, workspace_uri) = create_workspace(&options.files);
        let guard = runtime.enter();
        let mut child = tokio::process::Command::new(binary)
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
        let stderr = Arc::new(Mutex::new(String::new()));
        let sink = stderr.clone();
        runtime.spawn(async move {
            let mut buf = vec![0; 4096];
            while let Ok(n) = stderr_pipe.read(&mut buf).await {
                if n == 0 {
                    break;
                }
                sink.lock().unwrap_or_else(|e| e.into_inner()).push_str(&String::from_utf8_lossy(&buf[..n]));
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

    /// Writes a file into the workspace folder (the server is not told; see `watched_files_changed`).
    pub fn write_file(&mut self, path: &str, text: &str) {
        write_workspace_file(&self.workspace, path, text);
        self.record(format!("(disk) wrote {path}"));
    }

    /// Removes a file from the workspace folder (the server is not told; see `watched_files_changed`).
    pub fn remove_file(&mut self, path: &str) {
        let file = self.workspace.join(path);
        std::fs::remove_file(&file).unwrap_or_else(|e| panic!("cannot remove {}: {e}", file.display()));
        self.record(format!("(disk) removed {path}"));
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

    // Waiting for server messages.

    /// Consumes the `publishDiagnostics` of `path` at `version`, dropping older versions of it queued
    /// before (superseded checks may or may not publish). Returns its params.
    pub fn wait_for_diagnostics(&mut self, path: &str, version: i32) -> Value {
        let uri = self.uri(path);
        let deadline = Instant::now() + TIMEOUT;
        loop {
            self.drop_repeats();
            self.queue.retain(|m| !(is_publish(m, &uri) && m["params"]["version"].as_i64().is_some_and(|v| v < i64::from(version))));
            if let Some(i) = self.queue.iter().position(|m| is_publish(m, &uri) && m["params"]["version"] == json!(version)) {
                return self.consume(i)["params"].clone();
            }
            self.pump(deadline, &format!("diagnostics of {path} at version {version}"));
        }
    }

    /// Consumes the next `publishDiagnostics` of `path`, whatever its version. Returns its params.
    pub fn wait_for_next_diagnostics(&mut self, path: &str) -> Value {
        let uri = self.uri(path);
        self.take(&format!("the next diagnostics of {path}"), |m| is_publish(m, &uri))["params"].clone()
    }

    /// Consumes the first `window/logMessage` containing `needle`; returns its message.
    pub fn expect_log_containing(&mut self, needle: &str) -> String {
        let message = self.take(&format!("a log message containing {needle:?}"), |m| {
            m["method"] == "window/logMessage" && m["params"]["message"].as_str().is_some_and(|s| s.contains(needle))
        });
        message["params"]["message"].as_str().unwrap_or_default().to_string()
    }

    /// Consumes the first `$/progress` whose value is of `kind` (`begin`, `report`, `end`); returns its params.
    pub fn expect_progress(&mut self, kind: &str) -> Value {
        self.take(&format!("a $/progress {kind}"), |m| m["method"] == "$/progress" && m["params"]["value"]["kind"] == kind)["params"]
            .clone()
    }

    /// Consumes the first queued server message that `matches` (receiving more until one does).
    pub fn expect(&mut self, what: &str, matches: impl FnMut(&Value) -> bool) -> Value {
        self.take(what, matches)
    }

    /// Consumes the first notification of `method`; returns its params.
    pub fn expect_notification(&mut self, method: &str) -> Value {
        self.take(&format!("a {method} notification"), |m| m["method"] == method && m.get("id").is_none())["params"].clone()
    }

    /// Shuts the server down as editors such as VS Code do: `shutdown`, `exit`, then closes the server's
    /// input. Waits for the server to stop (a process must exit with status 0) and fails if any server
    /// message was never consumed. Returns the transcript.
    pub fn finish(self) -> String {
        self.finish_with(true)
    }

    /// As `finish`, but keeps the server's input open after `exit`, as Helix does: the server must stop
    /// on the `exit` notification alone.
    pub fn finish_keeping_input_open(self) -> String {
        self.finish_with(false)
    }

    fn finish_with(mut self, close_input: bool) -> String {
        let result = self.request("shutdown", Value::Null);
        if !result.is_null() {
            self.fail(&format!("shutdown returned {}", compact(&result)));
        }
        self.notify("exit", Value::Null);
        if close_input {
            self.close_input();
        }
        let runtime = self.runtime.take().expect("the runtime lives until finish");
        let ended = match &mut self.server {
            Server::InProcess(handle) => {
                let handle = handle.take().expect("the server task is awaited once");
                match runtime.block_on(async { tokio::time::timeout(TIMEOUT, handle).await }) {
                    Ok(Ok(())) => Ok(()),
                    Ok(Err(e)) => Err(format!("the server task failed: {e}")),
                    Err(_) => Err(format!("the server did not stop within {TIMEOUT:?} of exit")),
                }
            }
            Server::Process { child, .. } => match runtime.block_on(async { tokio::time::timeout(TIMEOUT, child.wait()).await }) {
                Ok(Ok(status)) if status.success() => Ok(()),
                Ok(Ok(status)) => Err(format!("the server exited with {status}")),
                Ok(Err(e)) => Err(format!("cannot wait for the server: {e}")),
                Err(_) => Err(format!("the server process did not exit within {TIMEOUT:?} of exit")),
            },
        };
        // Whatever the server wrote before its output closed.
        loop {
            match runtime.block_on(async { tokio::time::timeout(TIMEOUT, self.incoming.recv()).await }) {
                Ok(Some(Ok(message))) => self.queue.push_back(message),
                Ok(Some(Err(e))) => self.unexpected.push(format!("unreadable server message: {e}")),
                Ok(None) => break,
                Err(_) => {
                    self.unexpected.push(format!("the server's output did not close within {TIMEOUT:?} of exit"));
                    break;
                }
            }
        }
        self.runtime = Some(runtime);
        self.drop_repeats();
        if let Err(e) = ended {
            self.fail(&e);
        }
        if !self.queue.is_empty() || !self.unexpected.is_empty() {
            self.fail("the session ended with server messages nobody consumed or the harness could not answer");
        }
        self.finished = true;
        self.transcript()
    }

    // Plumbing.

    /// Closes the client→server stream (the server reads the end of its input).
    fn close_input(&mut self) {
        let runtime = self.runtime.as_ref().expect("the runtime lives until finish");
        let Some(mut writer) = self.writer.take() else { return };
        let closed = runtime.block_on(async { tokio::time::timeout(TIMEOUT, writer.shutdown()).await });
        drop(writer);
        self.record("(client closed the server's input)".into());
        if !matches!(closed, Ok(Ok(()))) {
            self.fail("cannot close the server's input");
        }
    }

    fn send(&mut self, message: &Value) {
        let body = message.to_string();
        let frame = format!("Content-Length: {}\r\n\r\n{body}", body.len());
        self.write(frame.as_bytes());
    }

    fn write(&mut self, bytes: &[u8]) {
        let runtime = self.runtime.as_ref().expect("the runtime lives until finish");
        let Some(writer) = self.writer.as_mut() else { self.fail("the server's input is closed") };
        let written = runtime.block_on(async {
            let result = async {
                writer.write_all(bytes).await?;
                writer.flush().await
            };
            tokio::time::timeout(TIMEOUT, result).await
        });
        match written {
            Ok(Ok(())) => {}
            Ok(Err(e)) => self.fail(&format!("cannot write to the server: {e}")),
            Err(_) => self.fail("the server stopped reading its input"),
        }
    }

    /// Receives one server message: answers it if it is a request, queues it otherwise.
    fn pump(&mut self, deadline: Instant, waiting_for: &str) {
        let remaining = deadline.saturating_duration_since(Instant::now());
        let runtime = self.runtime.as_ref().expect("the runtime lives until finish");
        let received = runtime.block_on(async { tokio::time::timeout(remaining, self.incoming.recv()).await });
        match received {
            Err(_) => self.fail(&format!("timed out after {TIMEOUT:?} waiting for {waiting_for}")),
            Ok(None) => self.fail(&format!("the server closed the connection while the client waited for {waiting_for}")),
            Ok(Some(Err(e))) => self.fail(&format!("unreadable server message while waiting for {waiting_for}: {e}")),
            Ok(Some(Ok(message))) if message.get("method").is_some() && message.get("id").is_some() => self.answer(message),
            Ok(Some(Ok(message))) => self.queue.push_back(message),
        }
    }

    /// Consumes the first queued message that matches, receiving more until one does.
    fn take(&mut self, what: &str, mut matches: impl FnMut(&Value) -> bool) -> Value {
        let deadline = Instant::now() + TIMEOUT;
        loop {
            self.drop_repeats();
            if let Some(i) = self.queue.iter().position(&mut matches) {
                return self.consume(i);
            }
            self.pump(deadline, what);
        }
    }

    /// Drops queued `publishDiagnostics` that repeat, for the same version, exactly what was last consumed
    /// for their URI: a check that runs twice (a recheck racing an edit or the workspace scan) tells the
    /// client nothing new, and whether it happens depends on timing.
    fn drop_repeats(&mut self) {
        let published = &self.published;
        self.queue.retain(|m| {
            let params = &m["params"];
            let repeat = m["method"] == "textDocument/publishDiagnostics"
                && params["uri"]
                    .as_str()
                    .and_then(|uri| published.get(uri))
                    .is_some_and(|(version, diagnostics)| *version == params["version"] && *diagnostics == params["diagnostics"]);
            !repeat
        });
    }

    fn consume(&mut self, i: usize) -> Value {
        let message = self.queue.remove(i).expect("an index into the queue");
        if message["method"] == "textDocument/publishDiagnostics" {
            let params = &message["params"];
            let uri = params["uri"].as_str().unwrap_or_default().to_string();
            self.published.insert(uri, (params["version"].clone(), params["diagnostics"].clone()));
        }
        let line = self.render_server(&message);
        self.record(line);
        message
    }

    /// Answers a server→client request as an editor would, and records both.
    fn answer(&mut self, request: Value) {
        let method = request["method"].as_str().unwrap_or_default().to_string();
        let id = request["id"].clone();
        let params = request.get("params").cloned().unwrap_or(Value::Null);
        let line = format!("<- #s{} {method} {}", render_id(&id), compact(&params));
        self.record(line);
        let response = match method.as_str() {
            "client/registerCapability"
            | "client/unregisterCapability"
            | "window/workDoneProgress/create"
            | "workspace/diagnostic/refresh"
            | "workspace/inlayHint/refresh"
            | "workspace/codeLens/refresh"
            | "workspace/semanticTokens/refresh" => json!({"jsonrpc": "2.0", "id": id, "result": null}),
            "workspace/configuration" => {
                let settings = self.options.configuration.clone().unwrap_or(Value::Null);
                let items = params["items"].as_array().map_or(0, Vec::len);
                json!({"jsonrpc": "2.0", "id": id, "result": vec![settings; items]})
            }
            _ => {
                self.unexpected.push(format!("server request {method} {}", compact(&params)));
                json!({"jsonrpc": "2.0", "id": id, "error": {"code": -32601, "message": format!("the test client does not handle {method}")}})
            }
        };
        let answer = match response.get("result") {
            Some(result) => compact(result),
            None => format!("error {}", compact(&response["error"])),
        };
        self.record(format!("-> #s{} {answer}", render_id(&id)));
        self.send(&response);
    }

    fn record(&mut self, line: String) {
        let line = self.redact(line);
        self.transcript.push(line);
    }

    /// Replaces what changes from run to run: the workspace's location and durations.
    fn redact(&self, text: String) -> String {
        let text = text.replace(&self.workspace_uri, WORKSPACE_URI).replace(&self.workspace.display().to_string(), "/WORKSPACE");
        redact_durations(&text)
    }

    fn fail(&self, why: &str) -> ! {
        let mut report = format!("{why}\n\nserver messages not consumed:\n");
        for message in &self.queue {
            report.push_str(&format!("  {}\n", self.redact(compact(message))));
        }
        for problem in &self.unexpected {
            report.push_str(&format!("  {problem}\n"));
        }
        report.push_str(&format!("\ntranscript so far:\n{}", self.transcript()));
        if let Server::Process { stderr, .. } = &self.server {
            report.push_str(&format!("\nserver stderr:\n{}", stderr.lock().unwrap_or_else(|e| e.into_inner())));
        }
        panic!("{report}");
    }

    // Rendering.

    fn render_client(&self, id: Option<i64>, method: &str, params: &Value) -> String {
        let head = match id {
            Some(id) => format!("-> #{id} {method}"),
            None => format!("-> {method}"),
        };
        match method {
            "initialize" => format!(
                "{head} {} ({}) initializationOptions {}",
                params["rootUri"].as_str().unwrap_or_default(),
                self.options.describe_client(),
                compact(&params["initializationOptions"])
            ),
            "textDocument/didOpen" => {
                let doc = &params["textDocument"];
                let mut out = format!("{head} {} v{}", doc["uri"].as_str().unwrap_or_default(), doc["version"]);
                for (i, line) in doc["text"].as_str().unwrap_or_default().split_inclusive('\n').enumerate() {
                    out.push_str(&format!("\n   {i:>3}| {}", line.trim_end_matches(['\n', '\r'])));
                }
                out
            }
            "textDocument/codeAction" => {
                let held: Vec<String> = params["context"]["diagnostics"]
                    .as_array()
                    .into_iter()
                    .flatten()
                    .map(|d| format!("{} {}", d["source"].as_str().unwrap_or("?"), compact(&d["code"])))
                    .collect();
                format!(
                    "{head} {} {} with diagnostics [{}]",
                    params["textDocument"]["uri"].as_str().unwrap_or_default(),
                    render_range(&params["range"]),
                    held.join(", ")
                )
            }
            "textDocument/didChange" => {
                let doc = &params["textDocument"];
                let mut out = format!("{head} {} v{}", doc["uri"].as_str().unwrap_or_default(), doc["version"]);
                for change in params["contentChanges"].as_array().into_iter().flatten() {
                    let text = compact(&change["text"]);
                    match change.get("range") {
                        Some(range) => out.push_str(&format!("\n     {} => {text}", render_range(range))),
                        None => out.push_str(&format!("\n     (whole text) => {text}")),
                    }
                }
                out
            }
            _ => match params {
                Value::Null => head,
                Value::Object(map) if map.contains_key("textDocument") => {
                    let mut out = format!("{head} {}", params["textDocument"]["uri"].as_str().unwrap_or_default());
                    if let Some(position) = map.get("position") {
                        out.push_str(&format!(" {}", render_position(position)));
                    }
                    let rest: Map<String, Value> = map
                        .iter()
                        .filter(|(k, _)| !matches!(k.as_str(), "textDocument" | "position"))
                        .map(|(k, v)| (k.clone(), v.clone()))
                        .collect();
                    if !rest.is_empty() {
                        out.push_str(&format!(" {}", compact(&Value::Object(rest))));
                    }
                    out
                }
                _ => format!("{head} {}", compact(params)),
            },
        }
    }

    fn render_server(&self, message: &Value) -> String {
        if let Some(method) = message["method"].as_str() {
            let params = &message["params"];
            return match method {
                "textDocument/publishDiagnostics" => {
                    let uri = params["uri"].as_str().unwrap_or_default();
                    let version = params.get("version").filter(|v| !v.is_null());
                    let text = version.and_then(Value::as_i64).and_then(|v| self.text_at(uri, Some(v)));
                    let head = format!("<- {method} {uri} {}", version.map_or_else(|| "(no version)".to_string(), |v| format!("v{v}")));
                    format!("{head}{}", self.render_diagnostics(&params["diagnostics"], text))
                }
                "window/logMessage" | "window/showMessage" => {
                    let level = match params["type"].as_i64() {
                        Some(1) => "error",
                        Some(2) => "warning",
                        Some(3) => "info",
                        Some(4) => "log",
                        _ => "?",
                    };
                    format!("<- {method} {level}: {}", params["message"].as_str().unwrap_or_default())
                }
                _ => format!("<- {method} {}", compact(params)),
            };
        }
        let id = message["id"].as_i64().unwrap_or(-1);
        let head = format!("<- #{id}");
        if let Some(error) = message.get("error") {
            return format!("{head} error {}: {}", error["code"], error["message"].as_str().unwrap_or_default());
        }
        let result = &message["result"];
        let Some((method, params)) = self.requests.get(&id) else { return format!("{head} {}", compact(result)) };
        let uri = params["textDocument"]["uri"].as_str().unwrap_or_default();
        match method.as_str() {
            "initialize" => {
                let caps = &result["capabilities"];
                format!(
                    "{head} positionEncoding {}, textDocumentSync {}, diagnosticProvider {}",
                    compact(&caps["positionEncoding"]),
                    compact(&caps["textDocumentSync"]),
                    compact(&caps["diagnosticProvider"])
                )
            }
            "textDocument/diagnostic" if !result.is_null() => {
                let text = self.text_at(uri, None);
                format!("{head} {} report{}", result["kind"].as_str().unwrap_or("?"), self.render_diagnostics(&result["items"], text))
            }
            "textDocument/hover" if !result.is_null() => {
                let text = self.text_at(uri, None);
                let mut out = format!("{head} hover");
                if let Some(range) = result.get("range") {
                    out.push_str(&format!(" {}", render_range_with_text(range, text, self.encoding())));
                }
                let contents = &result["contents"];
                let body = contents["value"].as_str().map_or_else(|| compact(contents), str::to_string);
                if let Some(kind) = contents["kind"].as_str() {
                    out.push_str(&format!(" ({kind})"));
                }
                for line in body.lines() {
                    out.push_str(&format!("\n     | {line}"));
                }
                out
            }
            "textDocument/completion" if !result.is_null() => {
                let text = self.text_at(uri, None);
                let items = result["items"].as_array().or_else(|| result.as_array()).cloned().unwrap_or_default();
                let mut out = format!("{head} {} completion items, isIncomplete {}", items.len(), compact(&result["isIncomplete"]));
                for item in &items {
                    out.push_str(&format!("\n     {}", render_completion(item, text, self.encoding())));
                }
                out
            }
            "textDocument/definition" if !result.is_null() => {
                let locations = if result.is_array() { result.as_array().cloned().unwrap_or_default() } else { vec![result.clone()] };
                let mut out = format!("{head} definition");
                for location in &locations {
                    let target = location["uri"].as_str().or_else(|| location["targetUri"].as_str()).unwrap_or_default();
                    let range = location.get("range").or_else(|| location.get("targetSelectionRange")).unwrap_or(&Value::Null);
                    let text = self.text_at(target, None).map(str::to_string).or_else(|| self.read_workspace_uri(target));
                    out.push_str(&format!("\n     {target} {}", render_range_with_text(range, text.as_deref(), self.encoding())));
                }
                out
            }
            "textDocument/codeAction" if result.is_array() => {
                let text = self.text_at(uri, None);
                let actions = result.as_array().cloned().unwrap_or_default();
                let mut out = format!("{head} {} code action{}", actions.len(), if actions.len() == 1 { "" } else { "s" });
                for action in &actions {
                    let preferred = if action["isPreferred"] == json!(true) { " (preferred)" } else { "" };
                    let fixes: Vec<String> = action["diagnostics"].as_array().into_iter().flatten().map(|d| compact(&d["code"])).collect();
                    out.push_str(&format!(
                        "\n     {} [{}]{preferred} fixes {}",
                        compact(&action["title"]),
                        action["kind"].as_str().unwrap_or("no kind"),
                        fixes.join(", ")
                    ));
                    let changes = action["edit"]["changes"].as_object().cloned().unwrap_or_default();
                    for (target, edits) in &changes {
                        for edit in edits.as_array().into_iter().flatten() {
                            let shown = render_range_with_text(&edit["range"], text, self.encoding());
                            let target = if target == uri { String::new() } else { format!("{target} ") };
                            out.push_str(&format!("\n       {target}{shown} => {}", compact(&edit["newText"])));
                        }
                    }
                }
                out
            }
            "textDocument/inlayHint" if result.is_array() => {
                let hints = result.as_array().cloned().unwrap_or_default();
                let mut out = format!("{head} {} inlay hint{}", hints.len(), if hints.len() == 1 { "" } else { "s" });
                for hint in &hints {
                    let label = hint["label"].as_str().map_or_else(|| compact(&hint["label"]), |l| format!("{l:?}"));
                    out.push_str(&format!("\n     {} {label}", render_position(&hint["position"])));
                }
                out
            }
            _ => format!("{head} {}", compact(result)),
        }
    }

    fn render_diagnostics(&self, diagnostics: &Value, text: Option<&str>) -> String {
        let items = diagnostics.as_array().cloned().unwrap_or_default();
        if items.is_empty() {
            return ": no diagnostics".into();
        }
        let mut out = format!(": {} diagnostic{}", items.len(), if items.len() == 1 { "" } else { "s" });
        for d in &items {
            let severity = match d["severity"].as_i64() {
                Some(1) => "error",
                Some(2) => "warning",
                Some(3) => "info",
                Some(4) => "hint",
                _ => "(no severity)",
            };
            let code = d["code"].as_str().map_or_else(|| compact(&d["code"]), str::to_string);
            out.push_str(&format!("\n     {} {severity} {code}", render_range_with_text(&d["range"], text, self.encoding())));
            if let Some(path) = d["data"]["path"].as_str() {
                out.push_str(&format!(" at {path}"));
            }
            for line in d["message"].as_str().unwrap_or_default().lines() {
                out.push_str(&format!("\n       {line}"));
            }
            let known = ["range", "severity", "code", "source", "message", "data"];
            let extra: Map<String, Value> = d
                .as_object()
                .into_iter()
                .flatten()
                .filter(|(k, _)| !known.contains(&k.as_str()))
                .map(|(k, v)| (k.clone(), v.clone()))
                .collect();
            if !extra.is_empty() {
                out.push_str(&format!("\n       also {}", compact(&Value::Object(extra))));
            }
            if d["source"] != "crdls" {
                out.push_str(&format!("\n       source {}", compact(&d["source"])));
            }
        }
        out
    }

    /// The text of a document at a version (the latest when `None`), as the client sent it.
    fn text_at(&self, uri: &str, version: Option<i64>) -> Option<&str> {
        let versions = self.documents.get(uri)?;
        match version {
            Some(v) => versions.get(&i32::try_from(v).ok()?).map(String::as_str),
            None => versions.values().next_back().map(String::as_str),
        }
    }

    fn read_workspace_uri(&self, uri: &str) -> Option<String> {
        let relative = uri.strip_prefix(&self.workspace_uri)?.strip_prefix('/')?;
        std::fs::read_to_string(self.workspace.join(relative)).ok()
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

fn runtime() -> tokio::runtime::Runtime {
    tokio::runtime::Builder::new_multi_thread().worker_threads(2).enable_all().build().expect("a tokio runtime")
}

/// A fresh workspace folder under the temporary directory, filled with `files`; and its URI.
fn create_workspace(files: &[(String, String)]) -> (PathBuf, String) {
    static COUNTER: AtomicUsize = AtomicUsize::new(0);
    let name = format!("crdls-lsp-{}-{}", std::process::id(), COUNTER.fetch_add(1, Ordering::Relaxed));
    let dir = std::env::temp_dir().join(name);
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap_or_else(|e| panic!("cannot create {}: {e}", dir.display()));
    for (path, text) in files {
        write_workspace_file(&dir, path, text);
    }
    let shown = dir.display().to_string();
    assert!(
        shown.starts_with('/') && shown.chars().all(|c| c.is_ascii_alphanumeric() || "/-_.".contains(c)),
        "the temporary directory {shown} needs percent-encoding in a URI, which the harness does not do"
    );
    (dir, format!("file://{shown}"))
}

fn write_workspace_file(root: &Path, path: &str, text: &str) {
    let file = root.join(path);
    if let Some(parent) = file.parent() {
        std::fs::create_dir_all(parent).unwrap_or_else(|e| panic!("cannot create {}: {e}", parent.display()));
    }
    std::fs::write(&file, text).unwrap_or_else(|e| panic!("cannot write {}: {e}", file.display()));
}

/// Reads Content-Length framed messages into a channel until the stream ends.
fn spawn_reader(
    runtime: &tokio::runtime::Runtime,
    reader: impl AsyncRead + Unpin + Send + 'static,
) -> mpsc::UnboundedReceiver<Result<Value, String>> {
    let (tx, rx) = mpsc::unbounded_channel();
    runtime.spawn(async move {
        let mut reader = BufReader::new(reader);
        loop {
            let message = match read_frame(&mut reader).await {
                Ok(None) => return,
                Ok(Some(body)) => {
                    serde_json::from_slice::<Value>(&body).map_err(|e| format!("not JSON ({e}): {}", String::from_utf8_lossy(&body)))
                }
                Err(e) => Err(e),
            };
            let failed = message.is_err();
            if tx.send(message).is_err() || failed {
                return;
            }
        }
    });
    rx
}

/// One message body, or `None` at the end of the stream. Headers must end in CRLF.
async fn read_frame(reader: &mut (impl tokio::io::AsyncBufRead + Unpin)) -> Result<Option<Vec<u8>>, String> {
    let mut length = None;
    let mut first = true;
    let mut line = String::new();
    loop {
        line.clear();
        let n = reader.read_line(&mut line).await.map_err(|e| format!("cannot read a header: {e}"))?;
        if n == 0 {
            return if first { Ok(None) } else { Err("the stream ended inside a message's headers".into()) };
        }
        first = false;
        let Some(header) = line.strip_suffix("\r\n") else { return Err(format!("a header line not ended by CRLF: {line:?}")) };
        if header.is_empty() {
            break;
        }
        let Some((name, value)) = header.split_once(':') else { return Err(format!("a malformed header: {header:?}")) };
        if name.eq_ignore_ascii_case("content-length") {
            length = Some(value.trim().parse::<usize>().map_err(|e| format!("a bad Content-Length {value:?}: {e}"))?);
        }
    }
    let length = length.ok_or("a message without Content-Length")?;
    let mut body = vec![0; length];
    reader.read_exact(&mut body).await.map_err(|e| format!("the stream ended inside a message body: {e}"))?;
    Ok(Some(body))
}

fn is_publish(message: &Value, uri: &str) -> bool {
    message["method"] == "textDocument/publishDiagnostics" && message["params"]["uri"] == uri
}

/// JSON on one line.
pub fn compact(value: &Value) -> String {
    value.to_string()
}

fn render_id(id: &Value) -> String {
    id.as_str().map_or_else(|| id.to_string(), str::to_string)
}

fn render_position(position: &Value) -> String {
    format!("{}:{}", position["line"], position["character"])
}

fn render_range(range: &Value) -> String {
    format!("{}-{}", render_position(&range["start"]), render_position(&range["end"]))
}

/// A range followed by the text it covers, cut out by the harness (or a note that it is not valid).
fn render_range_with_text(range: &Value, text: Option<&str>, encoding: Encoding) -> String {
    let shown = render_range(range);
    let Some(text) = text else { return shown };
    let offsets = (|| {
        let start = exact_offset(text, lsp_position(&range["start"])?, encoding)?;
        let end = exact_offset(text, lsp_position(&range["end"])?, encoding)?;
        (start <= end).then_some((start, end))
    })();
    match offsets {
        Some((start, end)) => {
            let covered: String = text[start..end].chars().take(60).collect();
            let ellipsis = if text[start..end].chars().count() > 60 { "…" } else { "" };
            format!("{shown} `{}{ellipsis}`", covered.replace('\n', "\\n").replace('\r', "\\r"))
        }
        None => format!("{shown} (NOT A VALID RANGE OF THE DOCUMENT)"),
    }
}

fn render_completion(item: &Value, text: Option<&str>, encoding: Encoding) -> String {
    let kind = match item["kind"].as_i64() {
        Some(5) => "field".to_string(),
        Some(7) => "class".to_string(),
        Some(9) => "module".to_string(),
        Some(12) => "value".to_string(),
        Some(15) => "snippet".to_string(),
        Some(k) => format!("kind {k}"),
        None => "no kind".to_string(),
    };
    let mut out = format!("{} ({kind})", compact(&item["label"]));
    if let Some(detail) = item["detail"].as_str() {
        out.push_str(&format!(" {detail:?}"));
    }
    if let Some(edit) = item.get("textEdit") {
        let range = edit.get("range").or_else(|| edit.get("replace")).unwrap_or(&Value::Null);
        out.push_str(&format!(" edit {} => {}", render_range_with_text(range, text, encoding), compact(&edit["newText"])));
    } else if let Some(insert) = item.get("insertText") {
        out.push_str(&format!(" insert {}", compact(insert)));
    }
    if item["tags"].as_array().is_some_and(|t| t.contains(&json!(1))) {
        out.push_str(" deprecated");
    }
    out
}

fn lsp_position(value: &Value) -> Option<Position> {
    Some(Position { line: u32::try_from(value["line"].as_u64()?).ok()?, character: u32::try_from(value["character"].as_u64()?).ok()? })
}

/// `text` without its `$0` cursor marker, and the marker's byte offset.
pub fn cursor(marked: &str) -> (String, usize) {
    let offset = marked.find("$0").expect("a $0 cursor marker");
    assert_eq!(marked.matches("$0").count(), 1, "more than one $0 marker");
    (format!("{}{}", &marked[..offset], &marked[offset + 2..]), offset)
}

/// The lines of a text, each without its line ending, with the byte offset it starts at.
fn lines(text: &str) -> Vec<(usize, &str)> {
    let mut out = Vec::new();
    let mut start = 0;
    for line in text.split_inclusive('\n') {
        out.push((start, line.trim_end_matches('\n').trim_end_matches('\r')));
        start += line.len();
    }
    if text.is_empty() || text.ends_with('\n') {
        out.push((text.len(), ""));
    }
    out
}

/// A byte offset as a position in `encoding`.
pub fn position_at(text: &str, offset: usize, encoding: Encoding) -> Position {
    let lines = lines(text);
    let line = lines.iter().rposition(|(start, _)| *start <= offset).unwrap_or(0);
    let (start, content) = lines[line];
    let column: usize = content[..(offset - start).min(content.len())].chars().map(|c| encoding.width(c)).sum();
    Position { line: u32::try_from(line).expect("a line number"), character: u32::try_from(column).expect("a column") }
}

/// The byte offset of a position that lies exactly on a character boundary within a line, or `None`.
pub fn exact_offset(text: &str, position: Position, encoding: Encoding) -> Option<usize> {
    let (start, content) = *lines(text).get(position.line as usize)?;
    let mut column = 0;
    for (i, c) in content.char_indices() {
        if column == position.character as usize {
            return Some(start + i);
        }
        column += encoding.width(c);
    }
    (column == position.character as usize).then_some(start + content.len())
}

/// The byte offset of a position, clamped as the LSP asks: past the line's end means its end (before
/// the line ending), past the last line means the end of the text, inside a character means before it.
fn clamped_offset(text: &str, position: Position, encoding: Encoding) -> usize {
    let all = lines(text);
    let Some(&(start, content)) = all.get(position.line as usize) else { return text.len() };
    let mut column = 0;
    for (i, c) in content.char_indices() {
        let width = encoding.width(c);
        if column + width > position.character as usize {
            return start + i;
        }
        column += width;
    }
    start + content.len()
}

/// `in 12 ms` becomes `in <N> ms`.
fn redact_durations(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    while let Some(at) = rest.find(" in ") {
        let after = &rest[at + 4..];
        let digits = after.len() - after.trim_start_matches(|c: char| c.is_ascii_digit()).len();
        if digits > 0 && after[digits..].starts_with(" ms") {
            out.push_str(&rest[..at]);
            out.push_str(" in <N> ms");
            rest = &after[digits + 3..];
        } else {
            out.push_str(&rest[..at + 4]);
            rest = after;
        }
    }
    out.push_str(rest);
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn positions_in_both_encodings_on_multibyte_crlf_text() {
        let text = "a: 日本🎉x\r\nb: 1\n";
        let x = text.find('x').unwrap();
        assert_eq!(position_at(text, x, Encoding::Utf16), Position::new(0, 7));
        assert_eq!(position_at(text, x, Encoding::Utf8), Position::new(0, 13));
        assert_eq!(exact_offset(text, Position::new(0, 7), Encoding::Utf16), Some(x));
        assert_eq!(exact_offset(text, Position::new(0, 6), Encoding::Utf16), None, "inside the emoji's surrogate pair");
        assert_eq!(exact_offset(text, Position::new(0, 9), Encoding::Utf16), None, "past the end of the line");
        assert_eq!(exact_offset(text, Position::new(2, 0), Encoding::Utf16), Some(text.len()));
        assert_eq!(clamped_offset(text, Position::new(0, 99), Encoding::Utf16), text.find('\r').unwrap());
        assert_eq!(clamped_offset(text, Position::new(9, 0), Encoding::Utf16), text.len());
    }

    #[test]
    fn durations_are_redacted() {
        assert_eq!(redact_durations("indexed 1 CRDs from 2 files in 13 ms"), "indexed 1 CRDs from 2 files in <N> ms");
        assert_eq!(redact_durations("in 3 files in x ms in 7 ms"), "in 3 files in x ms in <N> ms");
    }

    #[test]
    fn frames_are_read_and_checked() {
        let runtime = runtime();
        let input = b"Content-Length: 2\r\n\r\n{}Content-Length: 4\r\nContent-Type: x\r\n\r\nnull".to_vec();
        let mut reader = BufReader::new(&input[..]);
        runtime.block_on(async {
            assert_eq!(read_frame(&mut reader).await.unwrap().unwrap(), b"{}");
            assert_eq!(read_frame(&mut reader).await.unwrap().unwrap(), b"null");
            assert_eq!(read_frame(&mut reader).await.unwrap(), None);
            let bad = b"Content-Length: 2\n\n{}".to_vec();
            assert!(read_frame(&mut BufReader::new(&bad[..])).await.unwrap_err().contains("CRLF"));
        });
    }
}
