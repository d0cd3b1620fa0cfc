//! Hover (`textDocument/hover`): the schema's description, type and constraints of the key or value
//! under the cursor, and the cost of a rule, in Markdown. On a document's `apiVersion` or `kind`, it
//! also says how the file is read when it is not a plain manifest (a patch, a test input, a template).

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
            let hover = crdls_ide::hover_with_docs(cursor.text, cursor.stream, cursor.index, cursor.offset, kube, &docs);
            let hover = with_reading(cursor, hover)?;
            Some(convert::hover(cursor.lines, hover))
        })
        .await;
    // A document that could not be had is said once in the log; the hover goes without it.
    for failure in backend.state.docs.take_failures() {
        backend.log(MessageType::WARNING, failure).await;
    }
    Ok(hover?.flatten())
}

/// `hover` followed by how the file is read, when the cursor is on the document's `apiVersion` or
/// `kind` (key or value) and the file is not a plain manifest: the reason a missing field goes
/// unreported. Alone when there is nothing else to say there (a kind no schema describes).
fn with_reading(cursor: &crate::session::Cursor<'_>, hover: Option<crdls_ide::HoverResult>) -> Option<crdls_ide::HoverResult> {
    let Some(reading) = &cursor.reading else { return hover };
    let Some(location) = crdls_yaml::locate(cursor.stream, cursor.offset) else { return hover };
    let on_identity = matches!(location.path.as_slice(), [crdls_yaml::Segment::Key("apiVersion" | "kind")]);
    if !on_identity || !(location.on_key() || location.on_scalar()) {
        return hover;
    }
    Some(match hover {
        Some(mut hover) => {
            hover.markdown = format!("{}\n\n---\n\n{reading}", hover.markdown);
            hover
        }
        None => crdls_ide::HoverResult { range: location.range(), markdown: reading.clone() },
    })
}
