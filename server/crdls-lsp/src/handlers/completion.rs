//! Completion (`textDocument/completion`): keys, values, API versions, kinds and snippets at the cursor,
//! computed on the text the file's role gives the editor features (a template's actions masked).

use tower_lsp::jsonrpc::Result as RpcResult;
use tower_lsp::lsp_types::{CompletionList, CompletionParams, CompletionResponse};

use crate::convert::completion_item;
use crate::proto::Lines;
use crate::session::{internal, read, role_of, Backend};

/// `textDocument/completion`: every item at once (the list is complete).
pub(crate) async fn completion(backend: &Backend, params: CompletionParams) -> RpcResult<Option<CompletionResponse>> {
    let position = params.text_document_position;
    let Some((text, offset, encoding)) = backend.position_snapshot(&position.text_document.uri, position.position) else {
        return Ok(None);
    };
    let index = read(&backend.state.index).seen_from(position.text_document.uri.as_str());
    let kube = crdls_check::kubernetes_release(read(&backend.state.config).kube_version);
    let state = backend.state.clone();
    let uri = position.text_document.uri.clone();
    let items = backend
        .blocking("completion", move || {
            let role = role_of(&state, uri.as_str());
            let features = role.text_for_features(&text);
            let stream = crdls_yaml::parse_at(&features, offset);
            let items = crdls_ide::completions(&features, &stream, &index, offset, kube);
            let lines = Lines::new(&text, encoding);
            items.into_iter().map(|item| completion_item(&lines, item)).collect::<Vec<_>>()
        })
        .await
        .ok_or_else(|| internal("completion"))?;
    Ok(Some(CompletionResponse::List(CompletionList { is_incomplete: false, items })))
}
