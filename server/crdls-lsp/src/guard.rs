//! The service tower-lsp calls, wrapped in three guards. A panic in a handler, in its synchronous part
//! or after an `.await`, becomes a logged error and an InternalError reply, and the server goes on
//! serving (tower-lsp runs handlers inside its own serving future, so an unguarded panic would end it).
//! A request for an unknown `$/` method gets MethodNotFound: tower-lsp answers nothing for `$/` methods,
//! which the specification allows only for notifications. And once the client's input has ended
//! (after `exit`, or at the end of the stream), a handler still waiting is dropped: its wait can be for
//! the client's answer to one of the server's own requests (`initialized` asks for the settings and
//! registers the file watcher), which can no longer arrive, and tower-lsp stops only when every
//! handler has returned.

use std::panic::AssertUnwindSafe;
use std::task::{Context, Poll};

use futures::future::BoxFuture;
use futures::FutureExt;
use tokio::sync::watch;
use tower_lsp::jsonrpc::{Error as RpcError, Request, Response};
use tower_lsp::lsp_types::MessageType;
use tower_lsp::{Client, ExitedError};
use tower_service::Service;

use crate::session::{internal, panic_text};

/// `inner` with panics caught, `$/` requests answered, and handlers dropped once the input has ended;
/// `client` receives the log line of a panic.
pub(crate) struct Guard<S> {
    inner: S,
    client: Client,
    /// Becomes `true` when the client's input has ended (the filter stopped reading it).
    input_ended: watch::Receiver<bool>,
}

impl<S> Guard<S> {
    pub(crate) fn new(inner: S, client: Client, input_ended: watch::Receiver<bool>) -> Self {
        Guard { inner, client, input_ended }
    }
}

impl<S> Service<Request> for Guard<S>
where
    S: Service<Request, Response = Option<Response>, Error = ExitedError>,
    S::Future: Send + 'static,
{
    type Response = Option<Response>;
    type Error = ExitedError;
    type Future = BoxFuture<'static, Result<Option<Response>, ExitedError>>;

    fn poll_ready(&mut self, cx: &mut Context<'_>) -> Poll<Result<(), ExitedError>> {
        self.inner.poll_ready(cx)
    }

    fn call(&mut self, request: Request) -> Self::Future {
        let method = request.method().to_string();
        let id = request.id().cloned();
        let client = self.client.clone();
        let mut input_ended = self.input_ended.clone();
        let call = std::panic::catch_unwind(AssertUnwindSafe(|| self.inner.call(request)));
        Box::pin(async move {
            let handled = async {
                let outcome = match call {
                    Ok(future) => AssertUnwindSafe(future).catch_unwind().await,
                    Err(panic) => Err(panic),
                };
                match outcome {
                    Ok(Ok(None)) if method.starts_with("$/") => {
                        Ok(id.clone().map(|id| Response::from_error(id, RpcError::method_not_found())))
                    }
                    Ok(result) => result,
                    Err(panic) => {
                        let message = format!("{method} failed: {}", panic_text(panic));
                        crate::log_stderr(&message);
                        client.log_message(MessageType::ERROR, message).await;
                        Ok(id.clone().map(|id| Response::from_error(id, internal(&method))))
                    }
                }
            };
            // A handler that is done when first polled answers even after the input's end (`shutdown`
            // sent right before `exit`); one that is still waiting then is dropped. The sender is
            // dropped without `true` only when tower-lsp has stopped by itself: the input is not read
            // any more then either.
            tokio::select! {
                biased;
                result = handled => result,
                _ = input_ended.wait_for(|ended| *ended) => {
                    crate::log_stderr(&format!("{method} was still being handled when the client's input ended: dropped"));
                    Ok(id.clone().map(|id| Response::from_error(id, RpcError::request_cancelled())))
                }
            }
        })
    }
}

#[cfg(test)]
mod tests;
