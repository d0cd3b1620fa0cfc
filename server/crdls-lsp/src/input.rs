//! The client's messages checked and repaired before tower-lsp sees them, because tower-lsp 0.20 stops
//! reading for good at the first message it cannot decode. Each body from the frame reader is one of:
//! a request, notification or response tower-lsp can decode (forwarded, `"params": null` dropped as
//! JSON-RPC allows params to be omitted but tower-lsp rejects a null); text that is not JSON (a
//! ParseError reply, and the reader skips to the next header); JSON that is not a message (an
//! InvalidRequest reply); or a malformed response (logged and skipped: nobody waits for an answer to
//! it). The input ends right after `exit`, so a client that keeps the pipe open cannot keep the server
//! running, and whether `shutdown` came first is recorded for the exit status.

use std::sync::{Arc, Mutex};

use serde_json::{json, Map, Value};
use tokio::io::{AsyncRead, AsyncWrite, AsyncWriteExt};
use tokio::sync::mpsc;

use crate::framing::{Frame, FrameReader};
use crate::session::lock;

/// JSON-RPC's code for text that is not JSON.
const PARSE_ERROR: i64 = -32700;
/// JSON-RPC's code for JSON that is not a valid request.
const INVALID_REQUEST: i64 = -32600;

/// What the filter saw of the session's end.
#[derive(Debug, Default)]
pub(crate) struct Seen {
    /// A `shutdown` request was passed on.
    pub(crate) shutdown: bool,
    /// How the input ended, once it has.
    pub(crate) ended: Option<InputEnd>,
}

/// How the client's input ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum InputEnd {
    /// The client sent `exit`.
    Exit,
    /// The stream ended (or could not be read) without `exit`.
    Closed,
}

/// Copies the client's messages from `input` to `library` (tower-lsp's input), checked and repaired;
/// sends the replies to broken messages, as bodies, to `replies`. Returns when the input ends.
pub(crate) async fn filter<R, W>(input: R, mut library: W, replies: mpsc::Sender<Vec<u8>>, seen: Arc<Mutex<Seen>>)
where
    R: AsyncRead + Unpin,
    W: AsyncWrite + Unpin,
{
    let mut reader = FrameReader::new(input);
    let ended = loop {
        let frame = reader.next().await;
        for note in reader.take_notes() {
            crate::log_stderr(&note);
        }
        let body = match frame {
            None => break InputEnd::Closed,
            Some(Frame::Broken(reason)) => {
                crate::log_stderr(&format!("{reason}; skipped to the next Content-Length header"));
                let _ = replies.send(error_reply(Value::Null, PARSE_ERROR, &format!("Parse error: {reason}"))).await;
                continue;
            }
            Some(Frame::Body(body)) => body,
        };
        match check(&body) {
            Verdict::Forward { message, repaired } => {
                let method = message.get("method").and_then(Value::as_str).unwrap_or_default();
                if method == "shutdown" && message.get("id").is_some() {
                    lock(&seen).shutdown = true;
                }
                let exit = method == "exit";
                let body = if repaired { Value::Object(message).to_string().into_bytes() } else { body };
                let header = format!("Content-Length: {}\r\n\r\n", body.len());
                if library.write_all(header.as_bytes()).await.is_err() || library.write_all(&body).await.is_err() {
                    crate::log_stderr("the JSON-RPC layer stopped reading; dropping the client's input");
                    break InputEnd::Closed;
                }
                if exit {
                    break InputEnd::Exit;
                }
            }
            Verdict::NotJson(reason) => {
                crate::log_stderr(&format!("a message body is not JSON ({reason}); skipped to the next Content-Length header"));
                let _ = replies.send(error_reply(Value::Null, PARSE_ERROR, &format!("Parse error: {reason}"))).await;
                reader.resync();
            }
            Verdict::Invalid { id, reason } => {
                crate::log_stderr(&format!("{reason}: {}", excerpt(&body)));
                let _ = replies.send(error_reply(id, INVALID_REQUEST, &format!("Invalid request: {reason}"))).await;
            }
            Verdict::Skip(reason) => crate::log_stderr(&format!("{reason}; skipped: {}", excerpt(&body))),
        }
    };
    // Recorded before `library` is dropped, which ends tower-lsp's input and so the session.
    lock(&seen).ended = Some(ended);
}

/// What to do with one message body.
#[derive(Debug, PartialEq)]
enum Verdict {
    /// Pass it on; `repaired` when it differs from the body received.
    Forward { message: Map<String, Value>, repaired: bool },
    /// Not JSON: a ParseError reply.
    NotJson(String),
    /// JSON but not a valid message: an InvalidRequest reply to `id` (null when it cannot be told).
    Invalid { id: Value, reason: String },
    /// A response that is not valid: logged only.
    Skip(String),
}

/// Decides what to do with a message body.
fn check(body: &[u8]) -> Verdict {
    let value: Value = match serde_json::from_slice(body) {
        Ok(value) => value,
        Err(e) => return Verdict::NotJson(e.to_string()),
    };
    let invalid = |id: &Value, reason: &str| Verdict::Invalid { id: id.clone(), reason: reason.into() };
    let mut message = match value {
        Value::Object(message) => message,
        Value::Array(_) => return invalid(&Value::Null, "a batch of messages (LSP does not use JSON-RPC batches)"),
        _ => return invalid(&Value::Null, "a message that is not a JSON object"),
    };
    let id = match message.get("id") {
        None | Some(Value::Null) | Some(Value::String(_)) => message.get("id").cloned().unwrap_or(Value::Null),
        Some(Value::Number(n)) if n.is_i64() => Value::Number(n.clone()),
        Some(_) => return invalid(&Value::Null, "an id that is neither an integer nor a string"),
    };
    let is_response = message.contains_key("result") || message.contains_key("error");
    if message.get("jsonrpc") != Some(&json!("2.0")) {
        if is_response && !message.contains_key("method") {
            return Verdict::Skip("a response without \"jsonrpc\": \"2.0\"".into());
        }
        return invalid(&id, "a message without \"jsonrpc\": \"2.0\"");
    }
    match message.get("method") {
        Some(Value::String(_)) if is_response => invalid(&id, "a message with both a method and a result or error"),
        Some(Value::String(_)) => {
            let repaired = message.get("params") == Some(&Value::Null);
            if repaired {
                message.remove("params");
            }
            // The last word is tower-lsp's own decoder: what it cannot read would stop it.
            match serde_json::from_value::<tower_lsp::jsonrpc::Request>(Value::Object(message.clone())) {
                Ok(_) => Verdict::Forward { message, repaired },
                Err(e) => invalid(&id, &format!("a message tower-lsp cannot read ({e})")),
            }
        }
        Some(_) => invalid(&id, "a method that is not a string"),
        None if is_response && message.contains_key("id") => {
            match serde_json::from_value::<tower_lsp::jsonrpc::Response>(Value::Object(message.clone())) {
                Ok(_) => Verdict::Forward { message, repaired: false },
                Err(e) => Verdict::Skip(format!("a response that cannot be read ({e})")),
            }
        }
        None if is_response => Verdict::Skip("a response without an id".into()),
        None => invalid(&id, "neither a request, a notification nor a response"),
    }
}

/// A JSON-RPC error response, as a body.
fn error_reply(id: Value, code: i64, message: &str) -> Vec<u8> {
    json!({"jsonrpc": "2.0", "id": id, "error": {"code": code, "message": message}}).to_string().into_bytes()
}

/// The start of a body, for a log line.
fn excerpt(body: &[u8]) -> String {
    let text = String::from_utf8_lossy(body);
    match text.char_indices().nth(200) {
        Some((cut, _)) => format!("{}…", &text[..cut]),
        None => text.into_owned(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn verdict(body: &str) -> String {
        verdict_of(body.as_bytes())
    }

    fn verdict_of(body: &[u8]) -> String {
        match check(body) {
            Verdict::Forward { message, repaired } => {
                format!("forward{} {}", if repaired { " (repaired)" } else { "" }, Value::Object(message))
            }
            Verdict::NotJson(reason) => format!("not JSON: {reason}"),
            Verdict::Invalid { id, reason } => format!("invalid (reply to {id}): {reason}"),
            Verdict::Skip(reason) => format!("skip: {reason}"),
        }
    }

    #[test]
    fn messages_are_forwarded_repaired_or_answered() {
        let cases = [
            r#"{"jsonrpc":"2.0","id":1,"method":"shutdown"}"#,
            r#"{"jsonrpc":"2.0","id":"a","method":"shutdown","params":null}"#,
            r#"{"jsonrpc":"2.0","method":"exit","params":null}"#,
            r#"{"jsonrpc":"2.0","id":3,"result":null}"#,
            r#"{"jsonrpc":"2.0","id":3,"error":{"code":-1,"message":"no"}}"#,
            r#"{"jsonrpc":"2.0","id":3,"error":{"code":"x"}}"#,
            r#"{"jsonrpc":"2.0","result":1}"#,
            r#"{}"#,
            r#"{"jsonrpc":"2.0","id":4}"#,
            r#"{"jsonrpc":"1.0","id":5,"method":"x"}"#,
            r#"{"jsonrpc":"2.0","id":1.5,"method":"x"}"#,
            r#"{"jsonrpc":"2.0","id":6,"method":7}"#,
            r#"{"jsonrpc":"2.0","id":7,"method":"x","result":1}"#,
            r#"[{"jsonrpc":"2.0","id":8,"method":"x"}]"#,
            r#"null"#,
            r#"{"jsonrpc":"2.0","#,
            r#"{"id":10,"result":null}"#,
        ];
        let mut out: Vec<String> = cases.iter().map(|c| verdict(c)).collect();
        out.push(verdict_of(b"{\"jsonrpc\":\"2.0\",\"method\":\"\xff\"}"));
        expect_test::expect![[r#"
            forward {"jsonrpc":"2.0","id":1,"method":"shutdown"}
            forward (repaired) {"jsonrpc":"2.0","id":"a","method":"shutdown"}
            forward (repaired) {"jsonrpc":"2.0","method":"exit"}
            forward {"jsonrpc":"2.0","id":3,"result":null}
            forward {"jsonrpc":"2.0","id":3,"error":{"code":-1,"message":"no"}}
            skip: a response that cannot be read (data did not match any variant of untagged enum Kind)
            skip: a response without an id
            invalid (reply to null): a message without "jsonrpc": "2.0"
            invalid (reply to 4): neither a request, a notification nor a response
            invalid (reply to 5): a message without "jsonrpc": "2.0"
            invalid (reply to null): an id that is neither an integer nor a string
            invalid (reply to 6): a method that is not a string
            invalid (reply to 7): a message with both a method and a result or error
            invalid (reply to null): a batch of messages (LSP does not use JSON-RPC batches)
            invalid (reply to null): a message that is not a JSON object
            not JSON: EOF while parsing a value at line 1 column 17
            skip: a response without "jsonrpc": "2.0"
            not JSON: invalid unicode code point at line 1 column 28
        "#]]
        .assert_eq(&(out.join("\n") + "\n"));
    }
}
