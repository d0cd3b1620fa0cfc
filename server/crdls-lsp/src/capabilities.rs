//! Capabilities both ways: what the client supports, as far as the server cares (read once at
//! initialize), and what the server offers in return, including the file watcher it registers.

use tower_lsp::lsp_types::{
    ClientCapabilities, CodeActionKind, CodeActionOptions, CodeActionProviderCapability, CompletionOptions, DiagnosticOptions,
    DiagnosticServerCapabilities, DidChangeWatchedFilesRegistrationOptions, ExecuteCommandOptions, FileSystemWatcher,
    FoldingRangeProviderCapability, GlobPattern, HoverProviderCapability, OneOf, Registration, ServerCapabilities,
    TextDocumentSyncCapability, TextDocumentSyncKind, TextDocumentSyncOptions, TextDocumentSyncSaveOptions, WorkDoneProgressOptions,
    WorkspaceFoldersServerCapabilities, WorkspaceServerCapabilities,
};

use crate::proto::Encoding;

/// What the client said it supports, as far as the server cares.
#[derive(Clone, Copy, Debug, Default)]
pub(crate) struct ClientFlags {
    pub(crate) progress: bool,
    pub(crate) watch_files: bool,
    pub(crate) configuration: bool,
    pub(crate) pull_diagnostics: bool,
    pub(crate) diagnostic_refresh: bool,
    pub(crate) inlay_hint_refresh: bool,
    /// The client asked for `crdls/indexStatus` notifications (`experimental.crdlsIndexStatus`).
    pub(crate) index_status: bool,
}

impl ClientFlags {
    /// Reads the flags from the capabilities the client sent at initialize.
    pub(crate) fn new(caps: &ClientCapabilities) -> ClientFlags {
        let workspace = caps.workspace.as_ref();
        let diagnostic_refresh = workspace.and_then(|w| w.diagnostic.as_ref()).and_then(|d| d.refresh_support).unwrap_or(false);
        ClientFlags {
            progress: caps.window.as_ref().and_then(|w| w.work_done_progress).unwrap_or(false),
            watch_files: workspace.and_then(|w| w.did_change_watched_files.as_ref()).and_then(|d| d.dynamic_registration).unwrap_or(false),
            configuration: workspace.and_then(|w| w.configuration).unwrap_or(false),
            // Pull only from clients that can be asked to pull again: results change when CRDs do (the
            // first scan included), and a client that cannot refresh would keep stale ones. The others
            // get pushed diagnostics.
            pull_diagnostics: caps.text_document.as_ref().and_then(|t| t.diagnostic.as_ref()).is_some() && diagnostic_refresh,
            diagnostic_refresh,
            inlay_hint_refresh: workspace.and_then(|w| w.inlay_hint.as_ref()).and_then(|d| d.refresh_support).unwrap_or(false),
            index_status: caps
                .experimental
                .as_ref()
                .and_then(|e| e.get("crdlsIndexStatus"))
                .and_then(serde_json::Value::as_bool)
                .unwrap_or(false),
        }
    }
}

/// What the server offers a client with these flags, its positions in `encoding`.
pub(crate) fn server_capabilities(encoding: Encoding, flags: ClientFlags) -> ServerCapabilities {
    let diagnostic_provider = flags.pull_diagnostics.then(|| {
        DiagnosticServerCapabilities::Options(DiagnosticOptions {
            identifier: Some("crdls".into()),
            inter_file_dependencies: true,
            workspace_diagnostics: false,
            work_done_progress_options: WorkDoneProgressOptions::default(),
        })
    });
    ServerCapabilities {
        position_encoding: Some(encoding.kind()),
        text_document_sync: Some(TextDocumentSyncCapability::Options(TextDocumentSyncOptions {
            open_close: Some(true),
            change: Some(TextDocumentSyncKind::INCREMENTAL),
            // A save re-checks the document against a fresh look at git (see `handlers/text_document.rs`).
            save: Some(TextDocumentSyncSaveOptions::Supported(true)),
            ..TextDocumentSyncOptions::default()
        })),
        completion_provider: Some(CompletionOptions {
            trigger_characters: Some(vec![":".into(), " ".into(), "/".into(), "-".into()]),
            ..CompletionOptions::default()
        }),
        hover_provider: Some(HoverProviderCapability::Simple(true)),
        definition_provider: Some(OneOf::Left(true)),
        document_symbol_provider: Some(OneOf::Left(true)),
        folding_range_provider: Some(FoldingRangeProviderCapability::Simple(true)),
        code_action_provider: Some(CodeActionProviderCapability::Options(CodeActionOptions {
            code_action_kinds: Some(vec![CodeActionKind::QUICKFIX]),
            ..CodeActionOptions::default()
        })),
        inlay_hint_provider: Some(OneOf::Left(true)),
        diagnostic_provider,
        // Folders added to or removed from the editor's workspace are scanned (or forgotten) at once.
        workspace: Some(WorkspaceServerCapabilities {
            workspace_folders: Some(WorkspaceFoldersServerCapabilities {
                supported: Some(true),
                change_notifications: Some(OneOf::Left(true)),
            }),
            file_operations: None,
        }),
        execute_command_provider: Some(ExecuteCommandOptions {
            commands: vec![crate::fetch::REFRESH_COMMAND.into()],
            work_done_progress_options: WorkDoneProgressOptions::default(),
        }),
        ..ServerCapabilities::default()
    }
}

/// The registration of the watcher for YAML and JSON files and chart archives, whose changes may add or
/// remove CRDs, and for the other files that decide what a manifest is (its role): shell scripts and
/// Makefiles that fill it in or add it as a patch, Go tests that write expected outputs, and
/// documentation pages that include examples.
pub(crate) fn watched_files_registration() -> Registration {
    let options = DidChangeWatchedFilesRegistrationOptions {
        watchers: vec![
            FileSystemWatcher { glob_pattern: GlobPattern::String("**/*.{yaml,yml,json}".into()), kind: None },
            FileSystemWatcher { glob_pattern: GlobPattern::String("**/charts/*.{tgz,tar.gz}".into()), kind: None },
            FileSystemWatcher { glob_pattern: GlobPattern::String("**/*.{sh,bash}".into()), kind: None },
            FileSystemWatcher { glob_pattern: GlobPattern::String("**/{Makefile,GNUmakefile,makefile}".into()), kind: None },
            FileSystemWatcher { glob_pattern: GlobPattern::String("**/*_test.go".into()), kind: None },
            FileSystemWatcher { glob_pattern: GlobPattern::String("**/*.{md,markdown,mdx}".into()), kind: None },
        ],
    };
    Registration {
        id: "crdls-watch".into(),
        method: "workspace/didChangeWatchedFiles".into(),
        register_options: serde_json::to_value(options).ok(),
    }
}
