//! Quick fixes (`textDocument/codeAction`). They are stateless: what a fix needs travels in the
//! diagnostics the client holds (code, range, and the field path in `data`), re-located in the
//! current text.

use tower_lsp::jsonrpc::Result as RpcResult;
use tower_lsp::lsp_types::{self as lsp_types, CodeActionKind, CodeActionParams, CodeActionResponse};

use crate::convert::{self, fix_request};
use crate::proto::Lines;
use crate::session::{internal, Backend};

/// `textDocument/codeAction`: the quick fixes of the crdls diagnostics the client sends, when the client
/// asks for quick fixes at all.
pub(crate) async fn code_action(backend: &Backend, params: CodeActionParams) -> RpcResult<Option<CodeActionResponse>> {
    let wants_fixes =
        params.context.only.as_ref().is_none_or(|only| only.iter().any(|k| CodeActionKind::QUICKFIX.as_str().starts_with(k.as_str())));
    let uri = params.text_document.uri;
    let Some(snapshot) = backend.snapshot(&uri) else { return Ok(None) };
    if !wants_fixes || params.context.diagnostics.is_empty() {
        return Ok(Some(Vec::new()));
    }
    let encoding = backend.state.session().encoding;
    let index = backend.state.session().index.seen_from(uri.as_str());
    let diagnostics = params.context.diagnostics;
    backend
        .blocking("code actions", move || {
            let text = snapshot.text;
            let lines = Lines::new(&text, encoding);
            let (held, requests): (Vec<&lsp_types::Diagnostic>, Vec<crdls_ide::FixRequest<'_>>) =
                diagnostics.iter().filter_map(|d| fix_request(&lines, d).map(|r| (d, r))).unzip();
            if requests.is_empty() {
                return Some(Vec::new());
            }
            let stream = crdls_yaml::parse(&text);
            let actions = crdls_ide::code_actions(&text, &stream, &index, &requests);
            Some(actions.into_iter().map(|action| convert::code_action(&lines, &uri, &held, action)).collect())
        })
        .await
        .ok_or_else(|| internal("code actions"))
}
