//! Workspace notifications: files changed on disk (`didChangeWatchedFiles`), changed settings
//! (`didChangeConfiguration`) and folders added or removed (`didChangeWorkspaceFolders`), all of which
//! can change what every open document is checked against; and the one command, which refreshes the
//! CRD sources (`workspace/executeCommand`).

use tower_lsp::jsonrpc::{Error as RpcError, Result as RpcResult};
use tower_lsp::lsp_types::{
    DidChangeConfigurationParams, DidChangeWatchedFilesParams, DidChangeWorkspaceFoldersParams, ExecuteCommandParams, FileChangeType,
};

use crate::session::{lock, Backend};

/// `didChangeWatchedFiles`: the changed YAML and JSON files are indexed again, and open documents
/// re-checked when their CRDs changed or when a file that may decide their role did.
pub(crate) async fn did_change_watched_files(backend: &Backend, params: DidChangeWatchedFilesParams) {
    // A checkout or commit may have moved what the old versions are, and a kustomization, chart
    // or test may have changed what a file is.
    backend.state.git.clear();
    lock(&backend.state.roles).clear();
    let mut changed = false;
    let mut archives = false;
    // A file that is not open changed on disk: a kustomization, chart, test, script, Makefile or Go
    // test may now say something else about what the open documents are. (An open document's own
    // saves are already checked from its text.)
    let mut roles = false;
    for event in params.changes {
        if event.uri.to_file_path().is_ok_and(|p| crdls_sources::archive::is_chart_archive(&p)) {
            archives = true;
            continue;
        }
        roles |= !lock(&backend.state.documents).contains_key(&event.uri);
        let yaml = event.uri.path().rsplit('/').next().is_some_and(|name| {
            let name = name.to_ascii_lowercase();
            name.ends_with(".yaml") || name.ends_with(".yml") || name.ends_with(".json")
        });
        if yaml {
            changed |= backend.reindex_file(&event.uri, event.typ == FileChangeType::DELETED);
        }
    }
    // A chart archive came, went or changed (`helm dependency build`): the scan reads them all again.
    if archives {
        backend.spawn_scan();
    } else if changed || roles {
        backend.recheck_all_except(None);
    }
}

/// `workspace/didChangeWorkspaceFolders`: the folders removed are forgotten and those added are
/// scanned, and every open document is checked again (what a file is, and which CRDs there are, depend
/// on the folders). The settings stay those read at the start (`crdls.toml` of the first folder).
pub(crate) async fn did_change_workspace_folders(backend: &Backend, params: DidChangeWorkspaceFoldersParams) {
    let path = |f: &tower_lsp::lsp_types::WorkspaceFolder| f.uri.to_file_path().ok();
    let removed: Vec<_> = params.event.removed.iter().filter_map(path).collect();
    let added: Vec<_> = params.event.added.iter().filter_map(path).collect();
    backend.state.update(|session| {
        session.roots.retain(|root| !removed.contains(root));
        for root in added {
            if !session.roots.contains(&root) {
                session.roots.push(root);
            }
        }
    });
    // What was read within the old folders' bounds is read again within the new ones.
    backend.state.git.clear();
    lock(&backend.state.roles).clear();
    backend.spawn_scan();
}

/// `workspace/executeCommand`: `crdls.refreshCrdSources` reads the chart archives and fetches the URLs
/// and the cluster again, in the background.
pub(crate) async fn execute_command(backend: &Backend, params: ExecuteCommandParams) -> RpcResult<Option<serde_json::Value>> {
    if params.command == crate::fetch::REFRESH_COMMAND {
        backend.refresh_sources();
        return Ok(None);
    }
    Err(RpcError::invalid_params(format!("crdls has no command {}", params.command)))
}

/// `didChangeConfiguration`: the client's settings replace its previous ones; a change of CRD paths
/// rescans the workspace, any other change re-checks the open documents.
pub(crate) async fn did_change_configuration(backend: &Backend, params: DidChangeConfigurationParams) {
    // The revision old versions come from may be another one now, and the user may have committed
    // meanwhile: git is asked afresh.
    backend.state.git.clear();
    // A client that answers workspace/configuration is asked (VS Code sends no settings here);
    // the others send their settings with the notification.
    let layers = match backend.pull_configuration().await {
        Some(values) => values,
        None => vec![params.settings],
    };
    if backend.apply_client_settings(&layers).await {
        backend.spawn_scan();
    } else {
        backend.recheck_all_except(None);
    }
}
