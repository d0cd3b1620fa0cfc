//! Inlay hints (`textDocument/inlayHint`): the defaults the API server will write, and rule costs,
//! shown where they apply; off when the `inlayHints` setting is false.

use tower_lsp::jsonrpc::Result as RpcResult;
use tower_lsp::lsp_types::{InlayHint, InlayHintParams};

use crate::convert;
use crate::proto::Lines;
use crate::session::{internal, Backend};

/// `textDocument/inlayHint`: the hints in the requested range.
pub(crate) async fn inlay_hint(backend: &Backend, params: InlayHintParams) -> RpcResult<Option<Vec<InlayHint>>> {
    if !backend.state.session().config.inlay_hints {
        return Ok(None);
    }
    let Some(snapshot) = backend.snapshot(&params.text_document.uri) else { return Ok(None) };
    let encoding = backend.state.session().encoding;
    let index = backend.state.session().index.seen_from(params.text_document.uri.as_str());
    backend
        .blocking("inlay hints", move || {
            let text = snapshot.text;
            let lines = Lines::new(&text, encoding);
            let range = crdls_diagnostics::TextRange::new(lines.offset(params.range.start), lines.offset(params.range.end));
            let stream = crdls_yaml::parse(&text);
            let hints = crdls_ide::inlay_hints(&text, &stream, &index, range).into_iter().map(|h| convert::inlay_hint(&lines, h)).collect();
            Some(hints)
        })
        .await
        .ok_or_else(|| internal("inlay hints"))
}
