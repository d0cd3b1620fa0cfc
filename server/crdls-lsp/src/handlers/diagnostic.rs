//! Pull diagnostics (`textDocument/diagnostic`), for clients that can be asked to pull again: the same
//! check as a pushed one, answered to the request, and its CRDs indexed as a pushed check's are.

use tower_lsp::jsonrpc::{Error as RpcError, Result as RpcResult};
use tower_lsp::lsp_types::{
    DocumentDiagnosticParams, DocumentDiagnosticReport, DocumentDiagnosticReportResult, FullDocumentDiagnosticReport,
    RelatedFullDocumentDiagnosticReport,
};

use crate::session::{internal, Backend};

/// `textDocument/diagnostic`: the document's diagnostics, in full.
pub(crate) async fn diagnostic(backend: &Backend, params: DocumentDiagnosticParams) -> RpcResult<DocumentDiagnosticReportResult> {
    let uri = params.text_document.uri;
    // Not against a partial index: the answer waits for the first workspace scan.
    backend.wait_for_index().await;
    // One check of a document at a time, pulls included, so an older one never indexes last.
    let not_open = || RpcError::invalid_params(format!("{uri} is not open"));
    let flight = backend.flight(&uri).ok_or_else(not_open)?;
    let _guard = flight.lock().await;
    let snapshot = backend.snapshot(&uri).ok_or_else(not_open)?;
    let (diagnostics, crds) = backend.analyze(&uri, snapshot.text.clone()).await.ok_or_else(|| internal("checking"))?;
    if backend.generation(&uri) == Some(snapshot.generation) && backend.update_buffer_crds(&uri, crds) {
        backend.recheck_all_except(Some(&uri));
    }
    Ok(DocumentDiagnosticReportResult::Report(DocumentDiagnosticReport::Full(RelatedFullDocumentDiagnosticReport {
        related_documents: None,
        full_document_diagnostic_report: FullDocumentDiagnosticReport {
            result_id: None,
            items: backend.to_lsp(&snapshot.text, &diagnostics),
        },
    })))
}
