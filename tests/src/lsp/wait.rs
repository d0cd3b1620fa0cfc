//! Waiting for server messages and ending a session: messages are consumed by content (a diagnostics
//! version, a log line, a response id) with a deadline, the server's own requests are answered as an
//! editor would, and `finish` fails the test on any message nobody consumed.

use std::time::Instant;

use serde_json::{json, Value};

use super::render::{compact, render_id};
use super::session::Server;
use super::{Session, TIMEOUT};

impl Session {
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
    /// input. Waits for the server to stop (with status 0) and fails if any server message was never
    /// consumed. Returns the transcript.
    pub fn finish(self) -> String {
        self.finish_with(Ending { shutdown: true, exit: true, close_input: true, status: 0 })
    }

    /// As `finish`, but keeps the server's input open after `exit`, as Helix does: the server must stop
    /// on the `exit` notification alone.
    pub fn finish_keeping_input_open(self) -> String {
        self.finish_with(Ending { shutdown: true, exit: true, close_input: false, status: 0 })
    }

    /// Ends a session whose script has sent `shutdown` itself: `exit`, then status 0.
    pub fn finish_after_shutdown(self) -> String {
        self.finish_with(Ending { shutdown: false, exit: true, close_input: true, status: 0 })
    }

    /// Sends `exit` without `shutdown`: the server must stop with status 1, as the specification says.
    pub fn finish_without_shutdown(self) -> String {
        self.finish_with(Ending { shutdown: false, exit: true, close_input: true, status: 1 })
    }

    /// Sends `exit` without `shutdown` and keeps the input open: the server must stop with status 1 on
    /// `exit` alone.
    pub fn finish_without_shutdown_keeping_input_open(self) -> String {
        self.finish_with(Ending { shutdown: false, exit: true, close_input: false, status: 1 })
    }

    /// Closes the server's input without `shutdown` or `exit` (an editor that crashed): the server must
    /// stop with status 1.
    pub fn finish_by_closing_input(self) -> String {
        self.finish_with(Ending { shutdown: false, exit: false, close_input: true, status: 1 })
    }

    fn finish_with(mut self, how: Ending) -> String {
        if how.shutdown {
            let result = self.request("shutdown", Value::Null);
            if !result.is_null() {
                self.fail(&format!("shutdown returned {}", compact(&result)));
            }
        }
        if how.exit {
            self.notify("exit", Value::Null);
        }
        let close_input = how.close_input;
        if close_input {
            self.close_input();
        }
        let runtime = self.runtime.take().expect("the runtime lives until finish");
        let ended = match &mut self.server {
            Server::InProcess(handle) => {
                let handle = handle.take().expect("the server task is awaited once");
                match runtime.block_on(async { tokio::time::timeout(TIMEOUT, handle).await }) {
                    Ok(Ok(ending)) if ending.exit_code() == how.status => Ok(()),
                    Ok(Ok(ending)) => {
                        Err(format!("the server ended with {ending:?} (status {}), not status {}", ending.exit_code(), how.status))
                    }
                    Ok(Err(e)) => Err(format!("the server task failed: {e}")),
                    Err(_) => Err(format!("the server did not stop within {TIMEOUT:?} of exit or the end of its input")),
                }
            }
            Server::Process { child, stderr } => match runtime.block_on(async { tokio::time::timeout(TIMEOUT, child.wait()).await }) {
                Ok(Ok(status)) if status.code() == Some(how.status) => {
                    // The whole of stderr (the pipe closes with the process): the session must have
                    // wound down by itself, not by the transport's last-resort deadline.
                    let mut stderr = stderr.clone();
                    let _ =
                        runtime.block_on(async { tokio::time::timeout(TIMEOUT, async { while stderr.changed().await.is_ok() {} }).await });
                    let text = stderr.borrow().clone();
                    if text.contains("stopping anyway") {
                        Err(format!("the server stopped only at the transport's deadline:\n{text}"))
                    } else {
                        Ok(())
                    }
                }
                Ok(Ok(status)) => Err(format!("the server exited with {status}")),
                Ok(Err(e)) => Err(format!("cannot wait for the server: {e}")),
                Err(_) => Err(format!("the server process did not exit within {TIMEOUT:?} of exit or the end of its input")),
            },
        };
        // Whatever the server wrote before its output closed.
        loop {
            match runtime.block_on(async { tokio::time::timeout(TIMEOUT, self.incoming.recv()).await }) {
                Ok(Some(Ok(message))) => self.queue.push_back(message),
                Ok(Some(Err(e))) => self.unexpected.push(format!("unreadable server message: {e}")),
                Ok(None) => break,
                Err(_) => {
                    self.unexpected.push(format!("the server's output did not close within {TIMEOUT:?} of exit or the end of its input"));
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

    /// Receives one server message: answers it if it is a request, queues it otherwise.
    fn pump(&mut self, deadline: Instant, waiting_for: &str) {
        let remaining = deadline.saturating_duration_since(Instant::now());
        let runtime = self.runtime.as_ref().expect("the runtime lives until finish");
        let received = runtime.block_on(async { tokio::time::timeout(remaining, self.incoming.recv()).await });
        match received {
            Err(_) => self.fail(&format!("timed out after {TIMEOUT:?} waiting for {waiting_for}")),
            Ok(None) => self.fail(&format!("the server closed the connection while the client waited for {waiting_for}")),
            Ok(Some(Err(e))) => self.fail(&format!("unreadable server message while waiting for {waiting_for}: {e}")),
            Ok(Some(Ok(message))) if message.get("method").is_some() && message.get("id").is_some() && !self.options.unanswering => {
                self.answer(message)
            }
            Ok(Some(Ok(message))) => self.queue.push_back(message),
        }
    }

    /// Consumes the first queued message that matches, receiving more until one does.
    pub(super) fn take(&mut self, what: &str, mut matches: impl FnMut(&Value) -> bool) -> Value {
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

    pub(super) fn fail(&self, why: &str) -> ! {
        let mut report = format!("{why}\n\nserver messages not consumed:\n");
        for message in &self.queue {
            report.push_str(&format!("  {}\n", self.redact(compact(message))));
        }
        for problem in &self.unexpected {
            report.push_str(&format!("  {problem}\n"));
        }
        report.push_str(&format!("\ntranscript so far:\n{}", self.transcript()));
        if let Server::Process { stderr, .. } = &self.server {
            report.push_str(&format!("\nserver stderr:\n{}", *stderr.borrow()));
        }
        panic!("{report}");
    }
}

/// How a session is ended, and the exit status the server must end with.
struct Ending {
    shutdown: bool,
    exit: bool,
    close_input: bool,
    status: i32,
}

fn is_publish(message: &Value, uri: &str) -> bool {
    message["method"] == "textDocument/publishDiagnostics" && message["params"]["uri"] == uri
}
