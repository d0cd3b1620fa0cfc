//! The service tower-lsp calls, wrapped in two guards. A panic in a handler, in its synchronous part or
//! after an `.await`, becomes a logged error and an InternalError reply, and the server goes on serving
//! (tower-lsp runs handlers inside its own serving future, so an unguarded panic would end it). And a
//! request for an unknown `$/` method gets MethodNotFound: tower-lsp answers nothing for `$/` methods,
//! which the specification allows only for notifications.

use std::panic::AssertUnwindSafe;
use std::task::{Context, Poll};

use futures::future::BoxFuture;
use futures::FutureExt;
use tower_lsp::jsonrpc::{Error as RpcError, Request, Response};
use tower_lsp::lsp_types::MessageType;
use tower_lsp::{Client, ExitedError};
use tower_service::Service;

use crate::session::{internal, panic_text};

/// `inner` with panics caught and `$/` requests answered; `client` receives the log line of a panic.
pub(crate) struct Guard<S> {
    inner: S,
    client: Client,
}

impl<S> Guard<S> {
    pub(crate) fn new(inner: S, client: Client) -> Self {
        Guard { inner, client }
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
        let call = std::panic::catch_unwind(AssertUnwindSafe(|| self.inner.call(request)));
        Box::pin(async move {
            let outcome = match call {
                Ok(future) => AssertUnwindSafe(future).catch_unwind().await,
                Err(panic) => Err(panic),
            };
            match outcome {
                Ok(Ok(None)) if method.starts_with("$/") => Ok(id.map(|id| Response::from_error(id, RpcError::method_not_found()))),
                Ok(result) => result,
                Err(panic) => {
                    let message = format!("{method} failed: {}", panic_text(panic));
                    crate::log_stderr(&message);
                    client.log_message(MessageType::ERROR, message).await;
                    Ok(id.map(|id| Response::from_error(id, internal(&method))))
                }
            }
        })
    }
}

#[cfg(test)]
mod tests;
