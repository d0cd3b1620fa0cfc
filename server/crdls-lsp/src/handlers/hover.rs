//! Hover (`textDocument/hover`): the schema's description, type and constraints of the key or value
//! under the cursor, and the cost of a rule, in Markdown.

use tower_lsp::jsonrpc::Result as RpcResult;
use tower_lsp::lsp_types::{Hover, HoverParams, MessageType};

use crate::convert;
use crate::proto::Lines;
use crate::session::{internal, read, role_of, Backend};

/// `textDocument/hover`: nothing where there is nothing to say.
pub(crate) async fn hover(backend: &Backend, params: HoverParams) -> RpcResult<Option<Hover>> {
    let position = params.text_document_position_params;
    let Some((text, offset, encoding)) = backend.position_snapshot(&position.text_document.uri, position.position) else {
        return Ok(None);
    };
    let index = read(&backend.state.index).seen_from(position.text_document.uri.as_str());
    let (kube, field_docs) = {
        let config = read(&backend.state.config);
        (crdls_check::kubernetes_release(config.kube_version), config.field_docs.clone())
    };
    let state = backend.state.clone();
    let uri = position.text_document.uri.clone();
    let hover = backend
        .blocking("hover", move || {
            let role = role_of(&state, uri.as_str());
            let features = role.text_for_features(&text);
            let stream = crdls_yaml::parse_at(&features, offset);
            // The documents come from the cache, else the network (on this blocking thread, bounded).
            let cache = field_docs.as_ref().and_then(|_| crdls_sources::Cache::from_env());
            let docs = state.docs.source(field_docs.as_deref(), cache.as_ref(), crdls_sources::Network::CacheFirst);
            let hover = crdls_ide::hover_with_docs(&features, &stream, &index, offset, kube, &docs)?;
            let lines = Lines::new(&text, encoding);
            Some(convert::hover(&lines, hover))
        })
        .await
        .ok_or_else(|| internal("hover"));
    // A document that could not be had is said once in the log; the hover goes without it.
    for failure in backend.state.docs.take_failures() {
        backend.log(MessageType::WARNING, failure).await;
    }
    hover
}
