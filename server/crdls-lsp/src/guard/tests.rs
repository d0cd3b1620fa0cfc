//! A server whose handlers panic, driven through the whole transport (filter, tower-lsp, guard, output):
//! each panic must become an InternalError reply and a logged error, and the server must go on serving
//! and end cleanly.

use std::time::Duration;

use serde_json::{json, Value};
use tokio::io::{AsyncWriteExt, DuplexStream, ReadHalf, WriteHalf};
use tower_lsp::jsonrpc::Result as RpcResult;
use tower_lsp::lsp_types::{DidChangeTextDocumentParams, Hover, HoverParams, InitializeParams, InitializeResult};
use tower_lsp::{Client, LanguageServer, LspService};

use crate::framing::{Frame, FrameReader};
use crate::transport::{self, Ending};

/// How long a wait may take before the test fails.
const TIMEOUT: Duration = Duration::from_secs(60);

/// Panics in hover (synchronously) and in every edit (after an `.await`).
struct Fragile {
    client: Client,
}

#[tower_lsp::async_trait]
impl LanguageServer for Fragile {
    async fn initialize(&self, _: InitializeParams) -> RpcResult<InitializeResult> {
        Ok(InitializeResult::default())
    }

    async fn shutdown(&self) -> RpcResult<()> {
        Ok(())
    }

    async fn hover(&self, _: HoverParams) -> RpcResult<Option<Hover>> {
        panic!("hover broke")
    }

    async fn did_change(&self, _: DidChangeTextDocumentParams) {
        tokio::task::yield_now().await;
        panic!("an edit broke")
    }
}

/// The client's end: sends messages, and takes the server's by content, keeping the others queued.
struct Peer {
    write: WriteHalf<DuplexStream>,
    frames: FrameReader<ReadHalf<DuplexStream>>,
    queue: Vec<Value>,
}

impl Peer {
    async fn send(&mut self, message: Value) {
        let body = message.to_string();
        let frame = format!("Content-Length: {}\r\n\r\n{body}", body.len());
        self.write.write_all(frame.as_bytes()).await.expect("the server reads its input");
    }

    async fn take(&mut self, what: &str, matches: impl Fn(&Value) -> bool) -> Value {
        let found = tokio::time::timeout(TIMEOUT, async {
            loop {
                if let Some(i) = self.queue.iter().position(&matches) {
                    return self.queue.remove(i);
                }
                match self.frames.next().await {
                    Some(Frame::Body(body)) => self.queue.push(serde_json::from_slice(&body).expect("the server writes JSON")),
                    other => panic!("the server's output ended or broke ({other:?}) while waiting for {what}"),
                }
            }
        })
        .await;
        found.unwrap_or_else(|_| panic!("timed out waiting for {what}"))
    }

    async fn response(&mut self, id: i64) -> Value {
        self.take(&format!("the response to #{id}"), |m| m["id"] == id && m.get("method").is_none()).await
    }

    async fn log(&mut self, needle: &str) -> Value {
        self.take(&format!("a log line containing {needle:?}"), |m| {
            m["method"] == "window/logMessage" && m["params"]["message"].as_str().is_some_and(|s| s.contains(needle))
        })
        .await
    }
}

#[test]
fn a_panicking_handler_gets_an_error_reply_and_the_server_goes_on() {
    let runtime = tokio::runtime::Builder::new_multi_thread().worker_threads(2).enable_all().build().expect("a runtime");
    runtime.block_on(async {
        let (client_end, server_end) = tokio::io::duplex(1 << 16);
        let (server_read, server_write) = tokio::io::split(server_end);
        let (service, socket) = LspService::new(|client| Fragile { client });
        let client = service.inner().client.clone();
        let server = tokio::spawn(transport::serve(server_read, server_write, service, socket, client));
        let (read, write) = tokio::io::split(client_end);
        let mut peer = Peer { write, frames: FrameReader::new(read), queue: Vec::new() };

        peer.send(json!({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {"capabilities": {}}})).await;
        assert!(peer.response(1).await.get("result").is_some());
        peer.send(json!({"jsonrpc": "2.0", "method": "initialized", "params": {}})).await;

        let hover = json!({"textDocument": {"uri": "file:///a.yaml"}, "position": {"line": 0, "character": 0}});
        peer.send(json!({"jsonrpc": "2.0", "id": 2, "method": "textDocument/hover", "params": hover})).await;
        let reply = peer.response(2).await;
        assert_eq!(reply["error"]["code"], -32603, "{reply}");
        let log = peer.log("textDocument/hover failed: hover broke").await;
        assert_eq!(log["params"]["type"], 1, "logged as an error: {log}");

        let edit = json!({"textDocument": {"uri": "file:///a.yaml", "version": 2}, "contentChanges": [{"text": "a: 1\n"}]});
        peer.send(json!({"jsonrpc": "2.0", "method": "textDocument/didChange", "params": edit})).await;
        peer.log("textDocument/didChange failed: an edit broke").await;

        // Still serving: another request is answered, and the session ends cleanly.
        peer.send(json!({"jsonrpc": "2.0", "id": 3, "method": "textDocument/hover", "params": hover})).await;
        assert_eq!(peer.response(3).await["error"]["code"], -32603);
        peer.log("textDocument/hover failed: hover broke").await;
        peer.send(json!({"jsonrpc": "2.0", "id": 4, "method": "shutdown"})).await;
        assert_eq!(peer.response(4).await, json!({"jsonrpc": "2.0", "id": 4, "result": null}));
        peer.send(json!({"jsonrpc": "2.0", "method": "exit"})).await;
        let ending = tokio::time::timeout(TIMEOUT, server).await.expect("the server stops after exit").expect("the server task ends");
        assert_eq!(ending, Ending::Clean);
        assert!(peer.queue.is_empty(), "messages nobody expected: {:?}", peer.queue);
    });
}
