//! Text synchronisation: `didOpen`, `didChange`, `didSave` and `didClose`. Each changes the server's
//! state before any `.await` (tower-lsp runs handlers concurrently, so the order of edits must be
//! fixed here) and then schedules a check.

use std::sync::Arc;

use tower_lsp::lsp_types::{DidChangeTextDocumentParams, DidCloseTextDocumentParams, DidOpenTextDocumentParams, DidSaveTextDocumentParams};

use crate::document::Document;
use crate::session::{lock, Backend, Open};

/// `didOpen`: the document enters the store at the client's version and is checked.
pub(crate) async fn did_open(backend: &Backend, params: DidOpenTextDocumentParams) {
    let doc = params.text_document;
    lock(&backend.state.documents).insert(doc.uri.clone(), Open::new(Document::new(&doc.text, doc.version)));
    backend.schedule(doc.uri);
}

/// `didChange`: the edits are applied in order and the new version is checked.
pub(crate) async fn did_change(backend: &Backend, params: DidChangeTextDocumentParams) {
    let uri = params.text_document.uri;
    let encoding = backend.state.session().encoding;
    {
        let mut docs = lock(&backend.state.documents);
        let Some(open) = docs.get_mut(&uri) else { return };
        open.document.apply(params.content_changes, params.text_document.version, encoding);
    }
    backend.schedule(uri);
}

/// `didSave`: the old versions git gave are forgotten (the user may have committed or checked out
/// since git was asked), and the saved document is checked again, so transition rules and ratcheting
/// are checked against what the revision holds now.
pub(crate) async fn did_save(backend: &Backend, params: DidSaveTextDocumentParams) {
    backend.state.git.clear();
    backend.recheck_one(params.text_document.uri);
}

/// `didClose`: the document leaves the store; the CRDs it declared give way to the file on disk, and its
/// diagnostics are cleared.
pub(crate) async fn did_close(backend: &Backend, params: DidCloseTextDocumentParams) {
    let uri = params.text_document.uri;
    lock(&backend.state.documents).remove(&uri);
    let had_crds = backend.state.update(|session| session.buffer_crds.remove(&uri)).is_some_and(|f| f != 0);
    if had_crds {
        // The file on disk is what counts again.
        let crds = crate::index::file_crds(&uri);
        backend.set_source(Arc::from(uri.as_str()), crds);
        backend.recheck_all_except(None);
    }
    if !backend.state.session().flags.pull_diagnostics {
        backend.client.publish_diagnostics(uri, Vec::new(), None).await;
    }
}
