//! The client's message stream as tower-lsp reads it, with two repairs: a body that is not JSON is
//! dropped with a log line (tower-lsp would stop reading for good), and the input ends right after
//! `exit` (tower-lsp would otherwise wait for another message before stopping, so a client that keeps
//! the pipe open would leave the server running).

use serde_json::Value;
use tokio::io::{AsyncBufReadExt, AsyncRead, AsyncReadExt, AsyncWriteExt, BufReader, DuplexStream};

/// Bodies larger than this are read and dropped: no LSP message comes near it.
const MAX_BODY_BYTES: usize = 256 * 1024 * 1024;

/// Starts copying framed messages from `input`, filtered, into the returned stream.
pub fn filtered<R: AsyncRead + Unpin + Send + 'static>(input: R) -> DuplexStream {
    let (mut writer, reader) = tokio::io::duplex(1 << 16);
    tokio::spawn(async move {
        let mut input = BufReader::new(input);
        while let Some(body) = next_body(&mut input).await {
            let message: Value = match serde_json::from_slice(&body) {
                Ok(message) => message,
                Err(e) => {
                    crate::log_stderr(&format!("dropped a message that is not JSON ({e})"));
                    continue;
                }
            };
            let header = format!("Content-Length: {}\r\n\r\n", body.len());
            if writer.write_all(header.as_bytes()).await.is_err() || writer.write_all(&body).await.is_err() {
                return;
            }
            if message.get("method").and_then(Value::as_str) == Some("exit") {
                // Dropping the writer ends tower-lsp's input, so the server stops now.
                return;
            }
        }
    });
    reader
}

/// Reads one framed body; `None` at the end of the input or on a broken frame.
async fn next_body<R: AsyncRead + Unpin>(input: &mut BufReader<R>) -> Option<Vec<u8>> {
    let mut length: Option<usize> = None;
    loop {
        let mut line = Vec::new();
        if input.read_until(b'\n', &mut line).await.ok()? == 0 {
            return None;
        }
        let line = String::from_utf8_lossy(&line);
        let line = line.trim_end();
        if line.is_empty() {
            if length.is_some() {
                break;
            }
            continue;
        }
        if let Some((name, value)) = line.split_once(':') {
            if name.trim().eq_ignore_ascii_case("content-length") {
                length = value.trim().parse().ok();
            }
        }
    }
    let length = length?;
    if length > MAX_BODY_BYTES {
        crate::log_stderr(&format!("dropped a message of {length} bytes"));
        let mut rest = input.take(length as u64);
        tokio::io::copy(&mut rest, &mut tokio::io::sink()).await.ok()?;
        return Some(b"not json".to_vec());
    }
    let mut body = vec![0; length];
    input.read_exact(&mut body).await.ok()?;
    Some(body)
}
