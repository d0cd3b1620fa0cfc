//! The `lsp` target: the in-process language server (`crdls_lsp::serve` over a tokio duplex) is sent a
//! document and a sequence of incremental edits (random ranges, positions in UTF-16 or UTF-8, past the
//! ends of lines and inside multi-byte characters). The diagnostics it publishes for the last version,
//! its outline and its folding ranges must equal those of a fresh server sent the final text, as the
//! client computes it (lines end at `\n`; a column past a line's end clamps to it; a column inside a
//! character means that character's start), and the published positions must be valid in that text.
//!
//! An input is a script, one step a line: `encoding utf-16`, `open <JSON string>`, then per version
//! `change <line> <col> <line> <col> <JSON string>` or `full <JSON string>`; a step that starts with
//! `and ` belongs to the same `didChange` as the one before.

use std::time::Duration;

use serde_json::{json, Value};
use tokio::io::{AsyncBufReadExt, AsyncReadExt, AsyncWriteExt, BufReader};
use tokio::sync::mpsc;

use crdls_yaml::{ColumnUnit, LineCol, LineIndex};

use crate::rng::Rng;

/// How long one wait on the server may take before the target reports it.
const WAIT: Duration = Duration::from_secs(8);
/// The largest document the target opens.
pub const MAX_TEXT: usize = 16 * 1024;
/// The most `didChange` notifications one script sends.
const MAX_CHANGES: usize = 24;

/// Text pieces edits insert: YAML structure, multi-byte characters, line endings of every kind.
const PIECES: &[&str] = &[
    "",
    "a",
    " ",
    "\n",
    "\r\n",
    "\r",
    "\t",
    ": ",
    "- ",
    "  ",
    "é",
    "日本",
    "🎉",
    "a🎉b",
    "\u{2028}",
    "\u{85}",
    "\u{b}",
    "\u{c}",
    "\u{feff}",
    "e\u{301}",
    "x: 1\n",
    "---\n",
    "spec:\n  replicas: 3\n",
    "  - name: a\n",
    "{{ .Values.x }}",
    "kind: Widget\n",
    "apiVersion: demo.crdls.dev/v1\n",
    "\"",
    "'",
    "#",
    "[",
    "{",
    "*a",
    "&a ",
    "<<: *a\n",
];

/// One content change: a range (lines and columns in the script's encoding) or the whole text.
#[derive(Clone, Debug, PartialEq)]
pub enum Change {
    /// A ranged edit.
    Range(LineCol, LineCol, String),
    /// A full replacement.
    Full(String),
}

/// A parsed script.
#[derive(Clone, Debug, PartialEq)]
pub struct Script {
    /// Columns in UTF-8 bytes (`true`) or UTF-16 units.
    pub utf8: bool,
    /// The text opened.
    pub text: String,
    /// The content changes of each `didChange`, in order.
    pub changes: Vec<Vec<Change>>,
}

impl Script {
    fn unit(&self) -> ColumnUnit {
        if self.utf8 {
            ColumnUnit::Utf8
        } else {
            ColumnUnit::Utf16
        }
    }

    /// Parses a script; unknown or malformed lines are ignored (so a mutated script still runs).
    pub fn parse(text: &str) -> Script {
        let mut script = Script { utf8: false, text: String::new(), changes: Vec::new() };
        for line in text.lines() {
            let (joined, line) = match line.strip_prefix("and ") {
                Some(rest) => (true, rest),
                None => (false, line),
            };
            let (word, rest) = line.split_once(' ').unwrap_or((line, ""));
            let change = match word {
                "encoding" => {
                    script.utf8 = rest.trim() == "utf-8";
                    None
                }
                "open" => {
                    script.text = serde_json::from_str::<String>(rest).unwrap_or_default();
                    None
                }
                "full" => serde_json::from_str::<String>(rest).ok().map(Change::Full),
                "change" => {
                    let mut parts = rest.splitn(5, ' ');
                    let mut number = || parts.next().and_then(|p| p.parse::<u32>().ok());
                    match (number(), number(), number(), number()) {
                        (Some(l1), Some(c1), Some(l2), Some(c2)) => parts
                            .next()
                            .and_then(|t| serde_json::from_str::<String>(t).ok())
                            .map(|t| Change::Range(LineCol { line: l1, col: c1 }, LineCol { line: l2, col: c2 }, t)),
                        _ => None,
                    }
                }
                _ => None,
            };
            if let Some(change) = change {
                match script.changes.last_mut() {
                    Some(group) if joined => group.push(change),
                    _ => script.changes.push(vec![change]),
                }
            }
        }
        script
    }

    /// The script as text.
    pub fn render(&self) -> String {
        let mut out = format!("encoding {}\nopen {}\n", if self.utf8 { "utf-8" } else { "utf-16" }, json!(self.text));
        for group in &self.changes {
            for (i, change) in group.iter().enumerate() {
                if i > 0 {
                    out.push_str("and ");
                }
                match change {
                    Change::Full(t) => out.push_str(&format!("full {}\n", json!(t))),
                    Change::Range(a, b, t) => out.push_str(&format!("change {} {} {} {} {}\n", a.line, a.col, b.line, b.col, json!(t))),
                }
            }
        }
        out
    }

    /// The text after every change, as the client applies them.
    pub fn final_text(&self) -> String {
        let mut text = self.text.clone();
        for change in self.changes.iter().flatten() {
            text = apply(&text, change, self.unit());
        }
        text
    }
}

/// One change applied to `text`: positions converted as the LSP (and crdls's `LineIndex`) convert them.
pub fn apply(text: &str, change: &Change, unit: ColumnUnit) -> String {
    match change {
        Change::Full(t) => t.clone(),
        Change::Range(a, b, t) => {
            let lines = LineIndex::new(text);
            let start = lines.offset(text, *a, unit);
            let end = lines.offset(text, *b, unit).max(start);
            format!("{}{t}{}", &text[..start], &text[end..])
        }
    }
}

/// A new script: one of the seeds opened, and random edits.
pub fn generate(rng: &mut Rng, seeds: &[String]) -> String {
    let mut text = rng.pick(seeds).clone();
    if text.len() > MAX_TEXT {
        let mut cut = MAX_TEXT;
        while !text.is_char_boundary(cut) {
            cut -= 1;
        }
        text.truncate(cut);
    }
    let mut script = Script { utf8: rng.one_in(3), text, changes: Vec::new() };
    extend(rng, &mut script, seeds);
    script.render()
}

/// A script mutated: edits added, removed or changed, or a new one made.
pub fn mutate(rng: &mut Rng, input: &str, seeds: &[String]) -> String {
    let mut script = Script::parse(input);
    match rng.below(4) {
        0 => return generate(rng, seeds),
        1 if !script.changes.is_empty() => {
            let i = rng.below(script.changes.len());
            script.changes.remove(i);
        }
        2 => script.utf8 = !script.utf8,
        _ => {}
    }
    extend(rng, &mut script, seeds);
    script.render()
}

/// Adds a few random `didChange`s, each aimed at the text as it will be by then.
fn extend(rng: &mut Rng, script: &mut Script, seeds: &[String]) {
    let mut text = script.final_text();
    let unit = script.unit();
    for _ in 0..1 + rng.below(8) {
        if script.changes.len() >= MAX_CHANGES {
            break;
        }
        let mut group = Vec::new();
        for _ in 0..1 + rng.small_len(3) {
            let change = random_change(rng, &text, unit, seeds);
            text = apply(&text, &change, unit);
            group.push(change);
        }
        script.changes.push(group);
    }
}

fn random_change(rng: &mut Rng, text: &str, unit: ColumnUnit, seeds: &[String]) -> Change {
    if rng.one_in(40) {
        let seed = rng.pick(seeds);
        return Change::Full(seed[..seed.floor_char_boundary_compat(MAX_TEXT)].to_string());
    }
    let lines = LineIndex::new(text);
    let position = |rng: &mut Rng| -> LineCol {
        match rng.below(6) {
            // Past the end of a line or of the text.
            0 => LineCol { line: rng.below(lines.line_count() + 2) as u32, col: rng.below(200) as u32 },
            // Anywhere inside the text, possibly inside a character's UTF-16 pair.
            1 => {
                let p = lines.line_col(text, crate::mutate::boundary(rng, text), unit);
                LineCol { line: p.line, col: p.col + rng.below(2) as u32 }
            }
            _ => lines.line_col(text, crate::mutate::boundary(rng, text), unit),
        }
    };
    let a = position(rng);
    let b = if rng.one_in(3) { a } else { position(rng) };
    let (a, b) = if rng.one_in(8) { (b, a) } else { (a, b) };
    let mut piece = String::new();
    for _ in 0..rng.small_len(4) {
        piece.push_str(PIECES[rng.below(PIECES.len())]);
    }
    Change::Range(a, b, piece)
}

/// `str::floor_char_boundary`, which is not stable yet.
trait FloorBoundary {
    fn floor_char_boundary_compat(&self, at: usize) -> usize;
}

impl FloorBoundary for String {
    fn floor_char_boundary_compat(&self, at: usize) -> usize {
        let mut at = at.min(self.len());
        while !self.is_char_boundary(at) {
            at -= 1;
        }
        at
    }
}

/// What a session saw of the document at its last version.
#[derive(Debug, PartialEq)]
struct Observed {
    diagnostics: Value,
    symbols: Value,
    folding: Value,
}

/// Runs a script against two servers and compares them.
pub fn run(text: &str) -> Result<(), String> {
    let script = Script::parse(text);
    if script.text.len() > 4 * MAX_TEXT {
        return Ok(());
    }
    let final_text = script.final_text();
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .thread_name_fn(crate::guard::thread_name)
        .enable_all()
        .build()
        .map_err(|e| format!("cannot start a runtime: {e}"))?;
    let result = runtime.block_on(async {
        let edited = session(&script, &script.text, &script.changes).await?;
        let fresh = session(&script, &final_text, &[]).await?;
        check_positions(&final_text, &edited.diagnostics, script.unit())?;
        // A CRD with a syntax error keeps the CRDs its buffer last indexed (on purpose, so that the
        // resources using it keep their schema while it is typed): then history matters.
        let broken_crd = crdls_yaml::parse(&final_text)
            .documents
            .iter()
            .any(|d| d.has_syntax_error && d.root.as_ref().is_some_and(|r| crdls_crd::is_crd(r).is_some()));
        if edited != fresh && !broken_crd {
            return Err(describe_mismatch(&edited, &fresh, &final_text));
        }
        Ok(())
    });
    runtime.shutdown_background();
    result
}

fn describe_mismatch(edited: &Observed, fresh: &Observed, text: &str) -> String {
    let what = if edited.diagnostics != fresh.diagnostics {
        format!("diagnostics after the edits: {}\ndiagnostics of a fresh server: {}", edited.diagnostics, fresh.diagnostics)
    } else if edited.symbols != fresh.symbols {
        format!("outline after the edits: {}\noutline of a fresh server: {}", edited.symbols, fresh.symbols)
    } else {
        format!("folding after the edits: {}\nfolding of a fresh server: {}", edited.folding, fresh.folding)
    };
    format!("the edited document and a fresh one disagree (final text {})\n{what}", json!(text))
}

/// Checks that every published position is inside `text`, in `unit`s, and not inside a character.
fn check_positions(text: &str, diagnostics: &Value, unit: ColumnUnit) -> Result<(), String> {
    // Lines end as LSP 3.17 ends them, at `\n`, `\r\n` and a lone `\r` (and nowhere else); written
    // here apart from `LineIndex`, which is what is checked.
    let lines = lsp_lines(text);
    for d in diagnostics.as_array().into_iter().flatten() {
        for end in ["start", "end"] {
            let p = &d["range"][end];
            let (line, col) = (p["line"].as_u64().unwrap_or(u64::MAX) as usize, p["character"].as_u64().unwrap_or(u64::MAX) as usize);
            let Some(content) = lines.get(line) else { return Err(format!("a diagnostic's {end} is on line {line} of {}", lines.len())) };
            let mut at = 0;
            let mut ok = col == 0;
            for c in content.chars() {
                at += if unit == ColumnUnit::Utf8 { c.len_utf8() } else { c.len_utf16() };
                ok |= at == col;
            }
            if !ok {
                return Err(format!("a diagnostic's {end} {line}:{col} is not a character boundary of the line {content:?}"));
            }
        }
    }
    Ok(())
}

/// The lines of `text` as LSP counts them, without their line ends (but the `\r` of a `\r\n`).
fn lsp_lines(text: &str) -> Vec<&str> {
    let mut lines = Vec::new();
    let mut start = 0;
    let bytes = text.as_bytes();
    let mut i = 0;
    while i < bytes.len() {
        match bytes[i] {
            b'\n' => {
                lines.push(&text[start..i]);
                start = i + 1;
            }
            // A `\r` before a `\n` stays in its line, as `LineIndex` counts it: a position between the
            // two clamps to the line's end in the client, which is harmless.
            b'\r' if bytes.get(i + 1) != Some(&b'\n') => {
                lines.push(&text[start..i]);
                start = i + 1;
            }
            _ => {}
        }
        i += 1;
    }
    lines.push(&text[start..]);
    lines
}

/// The server's end of a session, and the client's.
struct Client {
    writer: tokio::io::WriteHalf<tokio::io::DuplexStream>,
    incoming: mpsc::UnboundedReceiver<Value>,
    next_id: i64,
    /// Notifications received while waiting for something else.
    pending: Vec<Value>,
}

const URI: &str = "file:///crdls-fuzz/document.yaml";

/// One server: opened with `text`, sent `changes`; what it shows for the last version.
async fn session(script: &Script, text: &str, changes: &[Vec<Change>]) -> Result<Observed, String> {
    let (client, server) = tokio::io::duplex(1 << 20);
    let (server_read, server_write) = tokio::io::split(server);
    let (client_read, writer) = tokio::io::split(client);
    tokio::spawn(crdls_lsp::serve(server_read, server_write));
    let mut client = Client { writer, incoming: spawn_reader(client_read), next_id: 1, pending: Vec::new() };
    let encodings = if script.utf8 { json!(["utf-8", "utf-16"]) } else { json!(["utf-16"]) };
    let init = json!({
        "processId": null,
        "rootUri": null,
        "capabilities": {"general": {"positionEncodings": encodings}, "textDocument": {"publishDiagnostics": {"versionSupport": true}}},
        "initializationOptions": {"debounceMs": 0},
    });
    client.request("initialize", init).await?;
    client.notify("initialized", json!({})).await?;
    client
        .wait_for("the index's log line", |m| {
            m["method"] == "window/logMessage" && m["params"]["message"].as_str().is_some_and(|s| s.contains("indexed "))
        })
        .await?;
    client.notify("textDocument/didOpen", json!({"textDocument": {"uri": URI, "languageId": "yaml", "version": 1, "text": text}})).await?;
    let mut version = 1;
    for group in changes {
        version += 1;
        let content: Vec<Value> = group
            .iter()
            .map(|c| match c {
                Change::Full(t) => json!({"text": t}),
                Change::Range(a, b, t) => json!({"range": {"start": {"line": a.line, "character": a.col}, "end": {"line": b.line, "character": b.col}}, "text": t}),
            })
            .collect();
        client
            .notify("textDocument/didChange", json!({"textDocument": {"uri": URI, "version": version}, "contentChanges": content}))
            .await?;
    }
    let published = client
        .wait_for(&format!("diagnostics for version {version}"), |m| {
            m["method"] == "textDocument/publishDiagnostics" && m["params"]["uri"] == URI && m["params"]["version"] == version
        })
        .await?;
    let document = json!({"textDocument": {"uri": URI}});
    let symbols = client.request("textDocument/documentSymbol", document.clone()).await?;
    let folding = client.request("textDocument/foldingRange", document).await?;
    let _ = client.request("shutdown", Value::Null).await;
    let _ = client.notify("exit", Value::Null).await;
    Ok(Observed { diagnostics: published["params"]["diagnostics"].clone(), symbols, folding })
}

impl Client {
    async fn send(&mut self, message: Value) -> Result<(), String> {
        let body = message.to_string();
        let frame = format!("Content-Length: {}\r\n\r\n{body}", body.len());
        self.writer.write_all(frame.as_bytes()).await.map_err(|e| format!("cannot write to the server: {e}"))?;
        self.writer.flush().await.map_err(|e| format!("cannot write to the server: {e}"))
    }

    async fn notify(&mut self, method: &str, params: Value) -> Result<(), String> {
        let mut message = json!({"jsonrpc": "2.0", "method": method});
        if !params.is_null() {
            message["params"] = params;
        }
        self.send(message).await
    }

    async fn request(&mut self, method: &str, params: Value) -> Result<Value, String> {
        let id = self.next_id;
        self.next_id += 1;
        let mut message = json!({"jsonrpc": "2.0", "id": id, "method": method});
        if !params.is_null() {
            message["params"] = params;
        }
        self.send(message).await?;
        let response = self.wait_for(&format!("the response to {method}"), |m| m.get("method").is_none() && m["id"] == id).await?;
        match response.get("error") {
            Some(error) => Err(format!("{method} failed: {error}")),
            None => Ok(response.get("result").cloned().unwrap_or(Value::Null)),
        }
    }

    /// The first message (queued or to come) that `matches`; the server's requests are answered meanwhile.
    async fn wait_for(&mut self, what: &str, matches: impl Fn(&Value) -> bool) -> Result<Value, String> {
        if let Some(i) = self.pending.iter().position(&matches) {
            return Ok(self.pending.remove(i));
        }
        let deadline = tokio::time::Instant::now() + WAIT;
        loop {
            let message = match tokio::time::timeout_at(deadline, self.incoming.recv()).await {
                Ok(Some(message)) => message,
                Ok(None) => return Err(format!("the server ended before {what}")),
                Err(_) => return Err(format!("no {what} within {} s", WAIT.as_secs())),
            };
            if matches(&message) {
                return Ok(message);
            }
            if message.get("method").is_some() && message.get("id").is_some() {
                let id = message["id"].clone();
                self.send(json!({"jsonrpc": "2.0", "id": id, "result": null})).await?;
            } else {
                self.pending.push(message);
            }
        }
    }
}

/// Reads the server's Content-Length frames into a channel.
fn spawn_reader(reader: tokio::io::ReadHalf<tokio::io::DuplexStream>) -> mpsc::UnboundedReceiver<Value> {
    let (tx, rx) = mpsc::unbounded_channel();
    tokio::spawn(async move {
        let mut reader = BufReader::new(reader);
        loop {
            let mut length = None;
            let mut line = String::new();
            loop {
                line.clear();
                match reader.read_line(&mut line).await {
                    Ok(0) | Err(_) => return,
                    Ok(_) => {}
                }
                let header = line.trim_end();
                if header.is_empty() {
                    break;
                }
                if let Some((name, value)) = header.split_once(':') {
                    if name.eq_ignore_ascii_case("content-length") {
                        length = value.trim().parse::<usize>().ok();
                    }
                }
            }
            let Some(length) = length else { return };
            let mut body = vec![0; length];
            if reader.read_exact(&mut body).await.is_err() {
                return;
            }
            let Ok(message) = serde_json::from_slice::<Value>(&body) else { return };
            if tx.send(message).is_err() {
                return;
            }
        }
    });
    rx
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lines_end_where_lsp_ends_them() {
        assert_eq!(lsp_lines("a\nb\r\nc\rd\r\re"), ["a", "b\r", "c", "d", "", "e"]);
        assert_eq!(lsp_lines("x\u{2028}y\r"), ["x\u{2028}y", ""]);
    }

    #[test]
    fn scripts_render_and_parse_back() {
        let mut rng = Rng::new(11);
        let seeds = vec!["a: 1\nb: é🎉\r\nc: [x]\n".to_string()];
        for _ in 0..50 {
            let text = generate(&mut rng, &seeds);
            let script = Script::parse(&text);
            assert_eq!(script.render(), text);
        }
        let text = "a: 日本🎉x\r\nb: 1\n";
        let change = Change::Range(LineCol { line: 0, col: 6 }, LineCol { line: 0, col: 99 }, "!".into());
        assert_eq!(apply(text, &change, ColumnUnit::Utf16), "a: 日本!\r\nb: 1\n", "inside the emoji's pair, then past the line's end");
    }
}
