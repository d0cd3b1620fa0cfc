//! `crdls-bench lsp`: drives the real `crdls` binary over stdio, as an editor would, on a generated
//! custom-resource file of about 5,000 lines (100 documents), and reports medians and p90 of
//! open → diagnostics, edit → diagnostics, completion and hover, plus the server's peak RSS.

use std::io::{BufRead, BufReader, Read, Write};
use std::path::{Path, PathBuf};
use std::process::{Child, ChildStdin, Command, Stdio};
use std::sync::mpsc::{Receiver, RecvTimeoutError};
use std::time::{Duration, Instant};

use serde_json::{json, Value};

/// One widget document; `{i}` is replaced by its index. 50 lines.
pub(crate) const DOCUMENT: &str = "apiVersion: demo.crdls.dev/v1
kind: Widget
metadata:
  name: widget-{i}
  labels:
    app.kubernetes.io/name: widget
    app.kubernetes.io/instance: widget-{i}
spec:
  size: 3
  ratio: 0.5
  step: 10
  owner: team-a
  tier: gold
  port: 8080
  startedAt: \"2024-05-01T12:00:00Z\"
  timeout: 1h30m
  contact: team-a@example.com
  address: 10.0.0.1
  note: a note
  tags:
  - a
  - b
  - c
  ports:
  - containerPort: 80
    protocol: TCP
    name: http
  - containerPort: 443
    protocol: TCP
    name: https
  labels:
    env: prod
  config:
    mode: fast
    anything: goes
  template:
    apiVersion: v1
    kind: ConfigMap
    metadata:
      name: inner-{i}
  shape:
    circle:
      radius: 2
  window:
    start: 1
    end: 2
  weights:
  - 0.5
  - 1.5
  formats:
    id: 123e4567-e89b-12d3-a456-426614174000
    host: example.com
";

struct Server {
    child: Child,
    stdin: ChildStdin,
    messages: Receiver<Value>,
    next_id: i64,
}

impl Server {
    fn start(binary: &Path) -> Server {
        let mut child = Command::new(binary)
            .arg("--stdio")
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .unwrap_or_else(|e| panic!("cannot start {}: {e}", binary.display()));
        let stdin = child.stdin.take().expect("stdin");
        let stdout = child.stdout.take().expect("stdout");
        let (tx, messages) = std::sync::mpsc::channel();
        std::thread::spawn(move || {
            let mut reader = BufReader::new(stdout);
            loop {
                let mut length = 0usize;
                loop {
                    let mut line = String::new();
                    if reader.read_line(&mut line).unwrap_or(0) == 0 {
                        return;
                    }
                    let line = line.trim_end();
                    if line.is_empty() {
                        break;
                    }
                    if let Some(n) = line.strip_prefix("Content-Length: ") {
                        length = n.parse().unwrap_or(0);
                    }
                }
                let mut body = vec![0; length];
                if reader.read_exact(&mut body).is_err() {
                    return;
                }
                if let Ok(value) = serde_json::from_slice::<Value>(&body) {
                    if tx.send(value).is_err() {
                        return;
                    }
                }
            }
        });
        Server { child, stdin, messages, next_id: 1 }
    }

    fn send(&mut self, message: Value) {
        let body = message.to_string();
        let _ = write!(self.stdin, "Content-Length: {}\r\n\r\n{body}", body.len());
        let _ = self.stdin.flush();
    }

    fn notify(&mut self, method: &str, params: Value) {
        self.send(json!({"jsonrpc": "2.0", "method": method, "params": params}));
    }

    fn request(&mut self, method: &str, params: Value) -> Value {
        let id = self.next_id;
        self.next_id += 1;
        self.send(json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params}));
        self.wait(|m| m["id"] == id && m.get("method").is_none()).get("result").cloned().unwrap_or(Value::Null)
    }

    /// Consumes messages until one matches, answering the server's own requests on the way.
    fn wait(&mut self, want: impl Fn(&Value) -> bool) -> Value {
        loop {
            let message = match self.messages.recv_timeout(Duration::from_secs(60)) {
                Ok(m) => m,
                Err(RecvTimeoutError::Timeout) => panic!("the server said nothing for 60 s"),
                Err(RecvTimeoutError::Disconnected) => panic!("the server exited"),
            };
            if message.get("method").is_some() && message.get("id").is_some() {
                let id = message["id"].clone();
                self.send(json!({"jsonrpc": "2.0", "id": id, "result": null}));
                continue;
            }
            if want(&message) {
                return message;
            }
        }
    }

    /// A memory figure of the server process in KiB: `VmHWM` (peak) or `VmRSS` (current).
    fn memory_kib(&self, field: &str) -> Option<u64> {
        let status = std::fs::read_to_string(format!("/proc/{}/status", self.child.id())).ok()?;
        status.lines().find(|l| l.starts_with(field))?.split_whitespace().nth(1)?.parse().ok()
    }
}

fn percentile(samples: &[Duration], p: f64) -> Duration {
    let mut sorted = samples.to_vec();
    sorted.sort();
    sorted[((sorted.len() - 1) as f64 * p).round() as usize]
}

fn report(what: &str, samples: &[Duration]) {
    println!(
        "{what:<22} median {:>7.2} ms   p90 {:>7.2} ms   ({} samples)",
        percentile(samples, 0.5).as_secs_f64() * 1e3,
        percentile(samples, 0.9).as_secs_f64() * 1e3,
        samples.len()
    );
}

/// Runs the benchmark. `crds` is a directory of extra CRDs to index (the corpus), if any.
/// `copies` copies of the corpus CRDs go in the workspace (ten make a platform repository of about
/// 3,000 CRDs); the document is opened right after `initialized`, so its first diagnostics show how
/// soon a user sees correct ones.
pub fn run(binary: &Path, fixtures_crd: &Path, crds: Option<&Path>, rounds: usize, copies: usize) {
    let workspace = std::env::temp_dir().join(format!("crdls-lsp-bench-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&workspace);
    std::fs::create_dir_all(workspace.join("crds")).expect("temp dir");
    std::fs::copy(fixtures_crd, workspace.join("crds/widgets.yaml")).expect("copy the fixture CRD");
    if let Some(crds) = crds {
        for copy in 0..copies.max(1) {
            copy_tree(crds, &workspace.join(format!("crds/corpus-{copy}")));
        }
    }
    let text: String = (0..100).map(|i| DOCUMENT.replace("{i}", &i.to_string())).collect::<Vec<_>>().join("---\n");
    let lines = text.lines().count();
    let file = workspace.join("widgets.yaml");
    std::fs::write(&file, &text).expect("write the CR file");
    let root_uri = format!("file://{}", workspace.display());
    let uri = format!("file://{}", file.display());

    let mut server = Server::start(binary);
    let started = Instant::now();
    server.request(
        "initialize",
        json!({"processId": null, "rootUri": root_uri, "capabilities": {"window": {"workDoneProgress": false}},
               "workspaceFolders": [{"uri": root_uri, "name": "bench"}], "initializationOptions": {"debounceMs": 0}}),
    );
    server.notify("initialized", json!({}));
    // Opened at once, as an editor restores its tabs: the first diagnostics wait for the index.
    server.notify("textDocument/didOpen", json!({"textDocument": {"uri": uri, "languageId": "yaml", "version": 1, "text": text}}));
    let is_index_log =
        |m: &Value| m["method"] == "window/logMessage" && m["params"]["message"].as_str().is_some_and(|s| s.starts_with("indexed"));
    let is_first_diagnostics = |m: &Value| m["method"] == "textDocument/publishDiagnostics" && m["params"]["uri"] == uri.as_str();
    let (mut indexed, mut first) = (None, None);
    while indexed.is_none() || first.is_none() {
        let message = server.wait(|m| is_index_log(m) || is_first_diagnostics(m));
        if is_index_log(&message) {
            indexed = Some((message["params"]["message"].as_str().unwrap_or_default().to_string(), started.elapsed()));
        } else if first.is_none() {
            let wrong = message["params"]["diagnostics"]
                .as_array()
                .into_iter()
                .flatten()
                .filter(|d| d["code"] == crdls_diagnostics::codes::RESOURCE_NO_CRD)
                .count();
            first = Some((started.elapsed(), wrong));
        }
    }
    let (log, indexed_at) = indexed.unwrap_or_default();
    let (first_at, wrong) = first.unwrap_or_default();
    println!("workspace: {log} ({} ms after start)", indexed_at.as_millis());
    println!(
        "first diagnostics of a document opened at start: {} ms after start, {wrong} of them \"no CRD\" (from a partial index)",
        first_at.as_millis()
    );
    println!("server RSS after indexing: {:.1} MiB", server.memory_kib("VmRSS:").unwrap_or(0) as f64 / 1024.0);
    println!("document: {lines} lines, 100 documents, {:.0} KiB", text.len() as f64 / 1024.0);

    let mut open = Vec::new();
    let mut edit = Vec::new();
    let mut completion = Vec::new();
    let mut hover = Vec::new();
    let mut version = 1;
    for round in 0..rounds {
        // Open: the first diagnostics for the new version.
        version += 1;
        let t = Instant::now();
        server
            .notify("textDocument/didOpen", json!({"textDocument": {"uri": uri, "languageId": "yaml", "version": version, "text": text}}));
        wait_diagnostics(&mut server, &uri, version);
        open.push(t.elapsed());
        // Edits in the middle of the file: `size: 3` (line 2508, document 50) toggles between valid and too large.
        let line = 50 * 51 + 8;
        for i in 0..10 {
            version += 1;
            let value = if (round + i) % 2 == 0 { "15" } else { "3" };
            let old_len = if (round + i) % 2 == 0 { 1 } else { 2 };
            let t = Instant::now();
            server.notify(
                "textDocument/didChange",
                json!({"textDocument": {"uri": uri, "version": version},
                       "contentChanges": [{"range": {"start": {"line": line, "character": 8}, "end": {"line": line, "character": 8 + old_len}}, "text": value}]}),
            );
            wait_diagnostics(&mut server, &uri, version);
            edit.push(t.elapsed());
            // Leave the document valid at the end of each round.
            if i == 9 && value == "15" {
                version += 1;
                server.notify(
                    "textDocument/didChange",
                    json!({"textDocument": {"uri": uri, "version": version},
                           "contentChanges": [{"range": {"start": {"line": line, "character": 8}, "end": {"line": line, "character": 10}}, "text": "3"}]}),
                );
                wait_diagnostics(&mut server, &uri, version);
            }
        }
        for _ in 0..10 {
            let t = Instant::now();
            server.request(
                "textDocument/completion",
                json!({"textDocument": {"uri": uri}, "position": {"line": 50 * 51 + 10, "character": 2}}),
            );
            completion.push(t.elapsed());
            let t = Instant::now();
            server.request("textDocument/hover", json!({"textDocument": {"uri": uri}, "position": {"line": 50 * 51 + 8, "character": 3}}));
            hover.push(t.elapsed());
        }
        server.notify("textDocument/didClose", json!({"textDocument": {"uri": uri}}));
        server.wait(|m| m["method"] == "textDocument/publishDiagnostics" && m["params"]["uri"] == uri.as_str());
    }
    report("open -> diagnostics", &open);
    report("edit -> diagnostics", &edit);
    report("completion", &completion);
    report("hover", &hover);
    let peak = server.memory_kib("VmHWM:").unwrap_or(0);
    let current = server.memory_kib("VmRSS:").unwrap_or(0);
    println!("server RSS: peak {:.1} MiB, at the end {:.1} MiB", peak as f64 / 1024.0, current as f64 / 1024.0);
    server.request("shutdown", Value::Null);
    server.notify("exit", Value::Null);
    let _ = server.child.wait();
    let _ = std::fs::remove_dir_all(&workspace);
}

fn wait_diagnostics(server: &mut Server, uri: &str, version: i64) {
    server.wait(|m| m["method"] == "textDocument/publishDiagnostics" && m["params"]["uri"] == uri && m["params"]["version"] == version);
}

fn copy_tree(from: &Path, to: &Path) {
    let mut files: Vec<PathBuf> = Vec::new();
    collect(from, &mut files);
    for file in files {
        let Ok(relative) = file.strip_prefix(from) else { continue };
        let target = to.join(relative);
        if let Some(parent) = target.parent() {
            let _ = std::fs::create_dir_all(parent);
        }
        let _ = std::fs::copy(&file, &target);
    }
}

fn collect(dir: &Path, out: &mut Vec<PathBuf>) {
    let Ok(entries) = std::fs::read_dir(dir) else { return };
    for entry in entries.flatten() {
        let path = entry.path();
        if path.is_dir() {
            collect(&path, out);
        } else {
            out.push(path);
        }
    }
}
