//! The wiring around tower-lsp: the client's input goes through the filter of `input.rs` into
//! tower-lsp, tower-lsp's output and the filter's own error replies are merged onto the client's output
//! a whole message at a time, and the session's end decides the exit status.
//!
//! The input's end (`exit`, or the end of the stream) ends the session promptly: the guard drops the
//! handlers still waiting then (they may wait for answers the client will never send), and what is
//! left to write gets [`DRAIN`] at most, so a client that stopped reading the server's output cannot
//! keep the process alive either.

use std::sync::{Arc, Mutex};
use std::time::Duration;

use tokio::io::{AsyncRead, AsyncWrite, AsyncWriteExt};
use tokio::sync::{mpsc, watch};
use tower_lsp::{Client, ClientSocket, LanguageServer, LspService, Server};

use crate::framing::{Frame, FrameReader};
use crate::guard::Guard;
use crate::input::{self, InputEnd, Seen};
use crate::session::lock;

/// How long the session may go on writing after the client's input has ended.
const DRAIN: Duration = Duration::from_secs(5);

/// How a session ended, which decides the process's exit status.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Ending {
    /// `exit` (or the end of the input) after `shutdown`: status 0.
    Clean,
    /// `exit` or the end of the input without `shutdown` first: status 1, as the specification says.
    WithoutShutdown,
    /// The JSON-RPC layer stopped reading on its own, which the filter exists to prevent: status 1.
    Failed,
}

impl Ending {
    /// The process exit status for this ending.
    pub fn exit_code(self) -> i32 {
        match self {
            Ending::Clean => 0,
            Ending::WithoutShutdown | Ending::Failed => 1,
        }
    }
}

/// Serves `service` over the given streams until the client exits; logs why when the end is not clean.
pub(crate) async fn serve<I, O, S>(input: I, output: O, service: LspService<S>, socket: ClientSocket, client: Client) -> Ending
where
    I: AsyncRead + Unpin + Send + 'static,
    O: AsyncWrite,
    S: LanguageServer,
{
    let (to_library, library_input) = tokio::io::duplex(1 << 16);
    let (library_output, from_library) = tokio::io::duplex(1 << 16);
    let (replies, outgoing) = mpsc::channel(64);
    let replies_from_library = replies.clone();
    let seen = Arc::new(Mutex::new(Seen::default()));
    let (input_over, input_ended) = watch::channel(false);
    let filter = tokio::spawn({
        let seen = seen.clone();
        async move {
            input::filter(input, to_library, replies, seen).await;
            input_over.send_replace(true);
        }
    });
    let mut ended = input_ended.clone();
    let library = async {
        Server::new(library_input, library_output, socket).serve(Guard::new(service, client, input_ended)).await;
        // Normally the filter has ended already; if tower-lsp stopped by itself, stop reading too.
        filter.abort();
    };
    let session = async {
        tokio::join!(library, relay(from_library, replies_from_library), write(output, outgoing));
    };
    let drained = async {
        // An error means the filter was aborted: tower-lsp has stopped already, and the session ends.
        let _ = ended.wait_for(|ended| *ended).await;
        tokio::time::sleep(DRAIN).await;
    };
    tokio::select! {
        () = session => {}
        () = drained => crate::log_stderr(&format!(
            "the session did not wind down within {} s of the input's end (is the client still reading?): stopping anyway",
            DRAIN.as_secs()
        )),
    }
    let (ended, shutdown) = {
        let seen = lock(&seen);
        (seen.ended, seen.shutdown)
    };
    match (ended, shutdown) {
        (Some(_), true) => Ending::Clean,
        (Some(InputEnd::Exit), false) => {
            crate::log_stderr("exit without shutdown first: exiting with status 1");
            Ending::WithoutShutdown
        }
        (Some(InputEnd::Closed), false) => {
            crate::log_stderr("the client's input ended without shutdown and exit: exiting with status 1");
            Ending::WithoutShutdown
        }
        (None, _) => {
            crate::log_stderr("the JSON-RPC layer stopped reading the client's messages: exiting with status 1");
            Ending::Failed
        }
    }
}

/// Passes tower-lsp's output on, one message body at a time, until tower-lsp closes it.
async fn relay(from_library: impl AsyncRead + Unpin, to_client: mpsc::Sender<Vec<u8>>) {
    let mut reader = FrameReader::new(from_library);
    while let Some(frame) = reader.next().await {
        match frame {
            Frame::Body(body) => {
                if to_client.send(body).await.is_err() {
                    return;
                }
            }
            Frame::Broken(reason) => crate::log_stderr(&format!("tower-lsp wrote a broken frame: {reason}")),
        }
    }
}

/// Writes each body, framed, to the client's output until every sender is gone.
async fn write(output: impl AsyncWrite, mut bodies: mpsc::Receiver<Vec<u8>>) {
    tokio::pin!(output);
    while let Some(body) = bodies.recv().await {
        let header = format!("Content-Length: {}\r\n\r\n", body.len());
        let written = async {
            output.write_all(header.as_bytes()).await?;
            output.write_all(&body).await?;
            output.flush().await
        };
        if let Err(e) = written.await {
            crate::log_stderr(&format!("cannot write to the client: {e}"));
            // Keep receiving so that senders never block on a client that is gone.
            while bodies.recv().await.is_some() {}
            return;
        }
    }
}
