//! The session's start and end: `initialize` negotiates the position encoding, reads the client's
//! capabilities, the workspace roots and the base settings; `initialized` registers the file watcher,
//! asks for the client's settings and starts the workspace scan; `shutdown` has nothing to release.

use std::path::PathBuf;

use tower_lsp::jsonrpc::Result as RpcResult;
use tower_lsp::lsp_types::{InitializeParams, InitializeResult, InitializedParams, MessageType, ServerInfo};

use crate::capabilities::{server_capabilities, watched_files_registration, ClientFlags};
use crate::proto::Encoding;
use crate::session::Backend;

/// `initialize`: what the client supports, where the workspace is, and what the server offers.
pub(crate) async fn initialize(backend: &Backend, params: InitializeParams) -> RpcResult<InitializeResult> {
    let caps = &params.capabilities;
    let encoding = Encoding::negotiate(caps.general.as_ref().and_then(|g| g.position_encodings.as_deref()));
    let flags = ClientFlags::new(caps);
    let mut roots: Vec<PathBuf> = params.workspace_folders.iter().flatten().filter_map(|f| f.uri.to_file_path().ok()).collect();
    #[allow(deprecated)]
    if roots.is_empty() {
        if let Some(path) = params.root_uri.as_ref().and_then(|u| u.to_file_path().ok()) {
            roots.push(path);
        }
    }
    backend.state.update(|session| {
        session.encoding = encoding;
        session.flags = flags;
        session.roots = roots;
    });
    backend.load_config(params.initialization_options).await;
    Ok(InitializeResult {
        server_info: Some(ServerInfo { name: "crdls".into(), version: Some(env!("CARGO_PKG_VERSION").into()) }),
        capabilities: server_capabilities(encoding, flags),
    })
}

/// `initialized`: registers the file watcher, applies the client's settings, and scans the workspace.
pub(crate) async fn initialized(backend: &Backend, _: InitializedParams) {
    if backend.state.session().flags.watch_files {
        if let Err(e) = backend.client.register_capability(vec![watched_files_registration()]).await {
            backend.log(MessageType::WARNING, format!("file watching unavailable: {e}")).await;
        }
    }
    if let Some(values) = backend.pull_configuration().await {
        backend.apply_client_settings(&values).await;
    }
    backend.report_withheld().await;
    backend.spawn_scan();
}

/// `shutdown`: nothing to release; the server stops at `exit`.
pub(crate) async fn shutdown(_: &Backend) -> RpcResult<()> {
    Ok(())
}
