//! What a session starts with: workspace files, initialization options, and the client's capabilities,
//! rendered as `initialize` params and as the one-line description the transcript shows.

use serde_json::{json, Map, Value};

use super::render::compact;
use super::Encoding;

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

/// What a session starts with: workspace files, settings and the client's capabilities.
#[derive(Clone, Debug)]
pub struct SessionOptions {
    pub(super) files: Vec<(String, String)>,
    init_options: Map<String, Value>,
    encoding: Encoding,
    diagnostics: DiagnosticsMode,
    pub(super) progress: bool,
    watch_files: bool,
    pub(super) configuration: Option<Value>,
    pub(super) wait_for_index: bool,
    /// The client never answers the server's requests; they are queued like its notifications.
    pub(super) unanswering: bool,
    index_status: bool,
    /// Files with bytes rather than text (chart archives).
    pub(super) binary_files: Vec<(String, Vec<u8>)>,
    /// FIFOs (named pipes) in the workspace, made with `mkfifo`.
    pub(super) fifos: Vec<String>,
    /// Symbolic links in the workspace, each with its target.
    pub(super) links: Vec<(String, std::path::PathBuf)>,
    /// Environment variables of the binary (`start_binary` only; the in-process server shares the
    /// test's environment).
    pub(super) env: Vec<(String, String)>,
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
            unanswering: false,
            index_status: false,
            binary_files: Vec::new(),
            fifos: Vec::new(),
            links: Vec::new(),
            env: Vec::new(),
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

    /// A file in the workspace folder copied byte for byte from the repository (a chart archive).
    pub fn repo_binary_file(mut self, path: &str, source: &str) -> SessionOptions {
        let bytes = std::fs::read(crate::repo_root().join(source)).unwrap_or_else(|e| panic!("cannot read {source}: {e}"));
        self.binary_files.push((path.to_string(), bytes));
        self
    }

    /// A FIFO (named pipe) at `path` in the workspace folder, which nothing ever writes to.
    pub fn fifo(mut self, path: &str) -> SessionOptions {
        self.fifos.push(path.to_string());
        self
    }

    /// A symbolic link at `path` in the workspace folder that leads to `target` (a hostile repository's
    /// link out of itself, say).
    pub fn symlink(mut self, path: &str, target: &std::path::Path) -> SessionOptions {
        self.links.push((path.to_string(), target.to_path_buf()));
        self
    }

    /// An environment variable of the server binary; `{workspace}` in `value` is the workspace folder.
    /// Only `Session::start_binary` can honour it.
    pub fn env(mut self, key: &str, value: &str) -> SessionOptions {
        self.env.push((key.to_string(), value.to_string()));
        self
    }

    /// One key of the `initializationOptions` object.
    pub fn setting(mut self, key: &str, value: Value) -> SessionOptions {
        self.init_options.insert(key.to_string(), value);
        self
    }

    /// Tells the server the user trusts the workspace (`trustedWorkspace` in the initialization
    /// options), so `crdls.toml` may ask for the cluster, URLs and git.
    pub fn trusted(self) -> SessionOptions {
        self.setting("trustedWorkspace", Value::Bool(true))
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

    /// The client never answers the server's requests (a hung or broken editor): they are queued, for
    /// the script to consume with `expect`. Implies `no_index_wait`, since the server waits for the
    /// answers to `initialized`'s requests before it scans.
    pub fn unanswering(mut self) -> SessionOptions {
        self.unanswering = true;
        self.wait_for_index = false;
        self
    }

    pub(super) fn initialize_params(&self, workspace_uri: &str) -> Value {
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

    pub(super) fn describe_client(&self) -> String {
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
