//! Where things are defined: `textDocument/definition` (the schema node in the CRD behind a key) and
//! the extension request `crdls/crdForDocument` (the CRD behind a document). The target's text is its
//! open buffer if there is one, else the file on disk; a chart archive's member is extracted into the
//! cache for the editor to open.

use tower_lsp::jsonrpc::Result as RpcResult;
use tower_lsp::lsp_types::{GotoDefinitionParams, GotoDefinitionResponse, Location};

use crate::ext::CrdForDocumentParams;
use crate::proto::Lines;
use crate::session::{internal, Backend};

/// `textDocument/definition`: where the schema of the key under the cursor is written.
pub(crate) async fn goto_definition(backend: &Backend, params: GotoDefinitionParams) -> RpcResult<Option<GotoDefinitionResponse>> {
    let position = params.text_document_position_params;
    let uri = &position.text_document.uri;
    let target = backend
        .at_cursor("definition", uri, position.position, |cursor| {
            crdls_ide::definition(cursor.text, cursor.stream, cursor.index, cursor.offset)
        })
        .await?;
    let encoding = backend.state.session().encoding;
    let Some(target) = target.flatten() else { return Ok(None) };
    // An empty source is the document itself.
    let (uri, text) = if target.source.is_empty() {
        let uri = position.text_document.uri.clone();
        let Some(text) = backend.source_text(&uri) else { return Ok(None) };
        (uri, text)
    } else {
        let Some(found) = crate::fetch::openable(backend, &target.source) else { return Ok(None) };
        found
    };
    let range = Lines::new(&text, encoding).range(target.range);
    Ok(Some(GotoDefinitionResponse::Scalar(Location { uri, range })))
}

/// `crdls/crdForDocument`: where the CRD serving the document's `apiVersion`/`kind` is defined.
pub(crate) async fn crd_for_document(backend: &Backend, params: CrdForDocumentParams) -> RpcResult<Option<Location>> {
    let Some(snapshot) = backend.snapshot(&params.text_document.uri) else { return Ok(None) };
    let encoding = backend.state.session().encoding;
    let index = backend.state.session().index.seen_from(params.text_document.uri.as_str());
    let found = backend
        .blocking("finding the CRD", move || {
            let lines = Lines::new(&snapshot.text, encoding);
            let offset = params.position.map_or(0, |p| lines.offset(p));
            let stream = crdls_yaml::parse_at(&snapshot.text, offset);
            let root = stream.documents.first()?.root.as_ref()?;
            let (api_version, kind) = (root.get_str("apiVersion")?, root.get_str("kind")?);
            match index.resolve(api_version, kind) {
                crdls_crd::Resolution::Found { crd, .. } | crdls_crd::Resolution::UnknownVersion { crd } => {
                    Some((crd.written_in(), crd.crd.kind_range))
                }
                _ => None,
            }
        })
        .await
        .ok_or_else(|| internal("finding the CRD"))?;
    let Some((source, range)) = found else { return Ok(None) };
    let Some((uri, text)) = crate::fetch::openable(backend, &source) else { return Ok(None) };
    let range = Lines::new(&text, encoding).range(range);
    Ok(Some(Location { uri, range }))
}
