//! Content-Length framing between the harness and the server: writing the client's messages, reading the
//! server's into a channel, and closing the server's input.

use serde_json::Value;
use tokio::io::{AsyncBufReadExt, AsyncRead, AsyncReadExt, AsyncWriteExt, BufReader};
use tokio::sync::mpsc;

use super::{Session, TIMEOUT};

impl Session {
    /// Closes the client→server stream (the server reads the end of its input).
    pub(super) fn close_input(&mut self) {
        let runtime = self.runtime.as_ref().expect("the runtime lives until finish");
        let Some(mut writer) = self.writer.take() else { return };
        let closed = runtime.block_on(async { tokio::time::timeout(TIMEOUT, writer.shutdown()).await });
        drop(writer);
        self.record("(client closed the server's input)".into());
        if !matches!(closed, Ok(Ok(()))) {
            self.fail("cannot close the server's input");
        }
    }

    pub(super) fn send(&mut self, message: &Value) {
        let body = message.to_string();
        let frame = format!("Content-Length: {}\r\n\r\n{body}", body.len());
        self.write(frame.as_bytes());
    }

    pub(super) fn write(&mut self, bytes: &[u8]) {
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
}

/// Reads Content-Length framed messages into a channel until the stream ends.
pub(super) fn spawn_reader(
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::lsp::session::runtime;

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
