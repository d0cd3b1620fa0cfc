//! Hover (`textDocument/hover`): the schema's description, type and constraints of the key or value
//! under the cursor, and the cost of a rule, in Markdown.

use tower_lsp::jsonrpc::Result as RpcResult;
use tower_lsp::lsp_types::{Hover, HoverParams, MessageType};

use crate::convert;
use crate::session::Backend;

/// `textDocument/hover`: nothing where there is nothing to say.
pub(crate) async fn hover(backend: &Backend, params: HoverParams) -> RpcResult<Option<Hover>> {
    let position = params.text_document_position_params;
    let state = backend.state.clone();
    let hover = backend
        .at_cursor("hover", &position.text_document.uri, position.position, move |cursor| {
            let field_docs = cursor.config.field_docs.clone();
            // The documents come from the cache, else the network (on this blocking thread, bounded).
            let cache = field_docs.as_ref().and_then(|_| crdls_sources::Cache::from_env());
            let docs = state.docs.source(field_docs.as_deref(), cache.as_ref(), crdls_sources::Network::CacheFirst);
            let kube = crdls_check::kubernetes_release(cursor.config.kube_version);
            let hover = crdls_ide::hover_with_docs(cursor.text, cursor.stream, cursor.index, cursor.offset, kube, &docs)?;
            Some(convert::hover(cursor.lines, hover))
        })
        .await;
    // A document that could not be had is said once in the log; the hover goes without it.
    for failure in backend.state.docs.take_failures() {
        backend.log(MessageType::WARNING, failure).await;
    }
    Ok(hover?.flatten())
}
