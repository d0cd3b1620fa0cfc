//! The document's shape: its outline (`textDocument/documentSymbol`, one entry per YAML document, named
//! by kind and name) and its folding ranges (`textDocument/foldingRange`).

use tower_lsp::jsonrpc::Result as RpcResult;
use tower_lsp::lsp_types::{DocumentSymbolParams, DocumentSymbolResponse, FoldingRange, FoldingRangeParams};

use crate::convert;
use crate::proto::Lines;
use crate::session::{internal, Backend};

/// `textDocument/documentSymbol`: the outline, nested.
pub(crate) async fn document_symbol(backend: &Backend, params: DocumentSymbolParams) -> RpcResult<Option<DocumentSymbolResponse>> {
    let Some(snapshot) = backend.snapshot(&params.text_document.uri) else { return Ok(None) };
    let encoding = backend.state.session().encoding;
    backend
        .blocking("document symbols", move || {
            let text = snapshot.text;
            let stream = crdls_yaml::parse(&text);
            let lines = Lines::new(&text, encoding);
            let symbols = crdls_ide::document_symbols(&text, &stream).into_iter().map(|s| convert::document_symbol(&lines, s)).collect();
            Some(DocumentSymbolResponse::Nested(symbols))
        })
        .await
        .ok_or_else(|| internal("document symbols"))
}

/// `textDocument/foldingRange`: the ranges of mappings and sequences, as whole lines.
pub(crate) async fn folding_range(backend: &Backend, params: FoldingRangeParams) -> RpcResult<Option<Vec<FoldingRange>>> {
    let Some(snapshot) = backend.snapshot(&params.text_document.uri) else { return Ok(None) };
    let encoding = backend.state.session().encoding;
    backend
        .blocking("folding ranges", move || {
            let text = snapshot.text;
            let stream = crdls_yaml::parse(&text);
            let lines = Lines::new(&text, encoding);
            let ranges = crdls_ide::folding_ranges(&text, &stream).into_iter().map(|r| convert::folding_range(&lines, r)).collect();
            Some(ranges)
        })
        .await
        .ok_or_else(|| internal("folding ranges"))
}
