//! Completion (`textDocument/completion`): keys, values, API versions, kinds and snippets at the cursor,
//! computed on the text the file's role gives the editor features (a template's actions masked).

use tower_lsp::jsonrpc::Result as RpcResult;
use tower_lsp::lsp_types::{CompletionList, CompletionParams, CompletionResponse};

use crate::convert::completion_item;
use crate::session::Backend;

/// `textDocument/completion`: every item at once (the list is complete).
pub(crate) async fn completion(backend: &Backend, params: CompletionParams) -> RpcResult<Option<CompletionResponse>> {
    let position = params.text_document_position;
    let items = backend
        .at_cursor("completion", &position.text_document.uri, position.position, |cursor| {
            let items = crdls_ide::completions(
                cursor.text,
                cursor.stream,
                cursor.index,
                cursor.offset,
                crdls_check::kubernetes_release(cursor.config.kube_version),
            );
            items.into_iter().map(|item| completion_item(cursor.lines, item)).collect::<Vec<_>>()
        })
        .await?;
    Ok(items.map(|items| CompletionResponse::List(CompletionList { is_incomplete: false, items })))
}
