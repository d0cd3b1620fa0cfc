//! The `LanguageServer` implementation tower-lsp calls: each LSP method is routed to its handler in
//! `handlers/`, and nothing else happens here.

use tower_lsp::jsonrpc::Result as RpcResult;
use tower_lsp::lsp_types::*;
use tower_lsp::LanguageServer;

use crate::handlers;
use crate::session::Backend;

#[tower_lsp::async_trait]
impl LanguageServer for Backend {
    async fn initialize(&self, params: InitializeParams) -> RpcResult<InitializeResult> {
        handlers::lifecycle::initialize(self, params).await
    }

    async fn initialized(&self, params: InitializedParams) {
        handlers::lifecycle::initialized(self, params).await;
    }

    async fn shutdown(&self) -> RpcResult<()> {
        handlers::lifecycle::shutdown(self).await
    }

    async fn did_open(&self, params: DidOpenTextDocumentParams) {
        handlers::text_document::did_open(self, params).await;
    }

    async fn did_change(&self, params: DidChangeTextDocumentParams) {
        handlers::text_document::did_change(self, params).await;
    }

    async fn did_save(&self, params: DidSaveTextDocumentParams) {
        handlers::text_document::did_save(self, params).await;
    }

    async fn did_close(&self, params: DidCloseTextDocumentParams) {
        handlers::text_document::did_close(self, params).await;
    }

    async fn did_change_watched_files(&self, params: DidChangeWatchedFilesParams) {
        handlers::workspace::did_change_watched_files(self, params).await;
    }

    async fn did_change_workspace_folders(&self, params: DidChangeWorkspaceFoldersParams) {
        handlers::workspace::did_change_workspace_folders(self, params).await;
    }

    async fn did_change_configuration(&self, params: DidChangeConfigurationParams) {
        handlers::workspace::did_change_configuration(self, params).await;
    }

    async fn diagnostic(&self, params: DocumentDiagnosticParams) -> RpcResult<DocumentDiagnosticReportResult> {
        handlers::diagnostic::diagnostic(self, params).await
    }

    async fn completion(&self, params: CompletionParams) -> RpcResult<Option<CompletionResponse>> {
        handlers::completion::completion(self, params).await
    }

    async fn hover(&self, params: HoverParams) -> RpcResult<Option<Hover>> {
        handlers::hover::hover(self, params).await
    }

    async fn goto_definition(&self, params: GotoDefinitionParams) -> RpcResult<Option<GotoDefinitionResponse>> {
        handlers::definition::goto_definition(self, params).await
    }

    async fn document_symbol(&self, params: DocumentSymbolParams) -> RpcResult<Option<DocumentSymbolResponse>> {
        handlers::outline::document_symbol(self, params).await
    }

    async fn folding_range(&self, params: FoldingRangeParams) -> RpcResult<Option<Vec<FoldingRange>>> {
        handlers::outline::folding_range(self, params).await
    }

    async fn code_action(&self, params: CodeActionParams) -> RpcResult<Option<CodeActionResponse>> {
        handlers::code_action::code_action(self, params).await
    }

    async fn inlay_hint(&self, params: InlayHintParams) -> RpcResult<Option<Vec<InlayHint>>> {
        handlers::inlay_hint::inlay_hint(self, params).await
    }

    async fn execute_command(&self, params: ExecuteCommandParams) -> RpcResult<Option<serde_json::Value>> {
        handlers::workspace::execute_command(self, params).await
    }
}
