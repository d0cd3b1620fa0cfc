//! Hover (`textDocument/hover`): the schema's description, type and constraints of the key or value
//! under the cursor, and the cost of a rule, in Markdown.

use tower_lsp::jsonrpc::Result as RpcResult;
use tower_lsp::lsp_types::{Hover, HoverParams};

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
    let kube = crdls_check::kubernetes_release(read(&backend.state.config).kube_version);
    let state = backend.state.clone();
    let uri = position.text_document.uri.clone();
    backend
        .blocking("hover", move || {
            let role = role_of(&state, uri.as_str());
            let features = role.text_for_features(&text);
            let stream = crdls_yaml::parse_at(&features, offset);
            let hover = crdls_ide::hover(&features, &stream, &index, offset, kube)?;
            let lines = Lines::new(&text, encoding);
            Some(convert::hover(&lines, hover))
        })
        .await
        .ok_or_else(|| internal("hover"))
}
