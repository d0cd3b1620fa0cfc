//! Hover (`textDocument/hover`): the schema's description, type and constraints of the key or value
//! under the cursor, and the cost of a rule, in Markdown.

use tower_lsp::jsonrpc::Result as RpcResult;
use tower_lsp::lsp_types::{Hover, HoverParams};

use crate::convert;
use crate::session::Backend;

/// `textDocument/hover`: nothing where there is nothing to say.
pub(crate) async fn hover(backend: &Backend, params: HoverParams) -> RpcResult<Option<Hover>> {
    let position = params.text_document_position_params;
    let hover = backend
        .at_cursor("hover", &position.text_document.uri, position.position, |cursor| {
            let hover = crdls_ide::hover(
                cursor.text,
                cursor.stream,
                cursor.index,
                cursor.offset,
                crdls_check::kubernetes_release(cursor.config.kube_version),
            )?;
            Some(convert::hover(cursor.lines, hover))
        })
        .await?;
    Ok(hover.flatten())
}
