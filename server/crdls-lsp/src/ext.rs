//! The protocol extension: `crdls/indexStatus`, a notification of how many CRDs the server knows, sent
//! only to clients that declare `experimental.crdlsIndexStatus`; and `crdls/crdForDocument`, a request
//! for where the CRD behind a document is defined (answered in `handlers/definition.rs`).

use tower_lsp::lsp_types::notification::Notification;
use tower_lsp::lsp_types::{Position, TextDocumentIdentifier};

/// The method of the `crdls/crdForDocument` request.
pub(crate) const CRD_FOR_DOCUMENT: &str = "crdls/crdForDocument";

/// `crdls/indexStatus`: how many CRDs the server knows, sent to clients that ask for it whenever the
/// index changes (editors show it in a status bar).
pub(crate) enum IndexStatus {}

/// The parameters of `crdls/indexStatus`.
#[derive(Debug, serde::Serialize, serde::Deserialize)]
pub(crate) struct IndexStatusParams {
    /// CRDs indexed.
    pub(crate) crds: usize,
    /// Files (or buffers) they come from.
    pub(crate) files: usize,
}

impl Notification for IndexStatus {
    type Params = IndexStatusParams;
    const METHOD: &'static str = "crdls/indexStatus";
}

/// The parameters of `crdls/crdForDocument`: a document and, optionally, a position in it (which
/// document of a multi-document file).
#[derive(Debug, serde::Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct CrdForDocumentParams {
    /// The document.
    pub text_document: TextDocumentIdentifier,
    /// A position in it; the first document when absent.
    pub position: Option<Position>,
}
