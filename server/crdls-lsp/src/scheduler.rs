//! When documents are checked. Every edit schedules a check that waits out the debounce delay, runs
//! one at a time per document, is dropped when a newer edit supersedes it, and publishes only while
//! the document is still at the checked version. Nothing is checked before the first workspace scan
//! ends, so no diagnostic comes from a partial index. When the CRDs change, every open document is
//! checked again (or, for a client that pulls, the client is asked to pull again).

use tower_lsp::lsp_types::Url;

use crate::capabilities::ClientFlags;
use crate::ext::{IndexStatus, IndexStatusParams};
use crate::session::{lock, Backend};

impl Backend {
    /// Schedules a check of `uri` after the debounce delay; newer edits supersede it.
    pub(crate) fn schedule(&self, uri: Url) {
        let backend = self.clone();
        tokio::spawn(async move { backend.check(uri).await });
    }

    /// Checks one open document and publishes its diagnostics, unless a newer edit came in meanwhile.
    async fn check(&self, uri: Url) {
        let Some(start) = self.snapshot(&uri) else { return };
        let debounce = self.state.session().config.debounce;
        if !debounce.is_zero() {
            tokio::time::sleep(debounce).await;
        }
        let Some(flight) = self.flight(&uri) else { return };
        let _guard = flight.lock().await;
        // Superseded while waiting: a later check has (or will have) the newer text.
        let Some(snapshot) = self.snapshot(&uri) else { return };
        if snapshot.generation != start.generation {
            return;
        }
        // Against a partial index, objects whose CRD is not read yet would get "no CRD" diagnostics
        // that the end of the scan takes back: the scan checks every open document when it is done.
        if !self.index_is_ready() {
            return;
        }
        let Some((diagnostics, crds)) = self.analyze(&uri, snapshot.text.clone()).await else { return };
        // A newer edit came in meanwhile: its own check indexes its CRDs and publishes; this result
        // must not overwrite either.
        if self.generation(&uri) != Some(snapshot.generation) {
            return;
        }
        if self.update_buffer_crds(&uri, crds) {
            self.recheck_all_except(Some(&uri));
        }
        if !self.state.session().flags.pull_diagnostics {
            let lsp = self.to_lsp(&snapshot.text, &diagnostics);
            self.client.publish_diagnostics(uri, lsp, Some(snapshot.version)).await;
        }
    }

    /// Checks one open document again, its text unchanged (what it is checked against changed): pushes
    /// its new diagnostics, or asks a client that pulls to pull again.
    pub(crate) fn recheck_one(&self, uri: Url) {
        let flags = self.state.session().flags;
        if flags.pull_diagnostics {
            if flags.diagnostic_refresh {
                self.spawn_diagnostic_refresh();
            }
            return;
        }
        self.schedule(uri);
    }

    /// Re-checks every open document but `skip`: pushes new diagnostics, or in pull mode asks the
    /// client to pull again (when it supports being asked).
    pub(crate) fn recheck_all_except(&self, skip: Option<&Url>) {
        let flags = self.announce_index_change();
        if flags.pull_diagnostics {
            if flags.diagnostic_refresh {
                self.spawn_diagnostic_refresh();
            }
            return;
        }
        self.schedule_open_documents(skip);
    }

    /// Re-checks every open document for a client that is pushed diagnostics; asking a client that
    /// pulls to pull again is left to the caller (the workspace scan does it after its log line).
    pub(crate) fn recheck_all_pushed(&self) {
        let flags = self.announce_index_change();
        if !flags.pull_diagnostics {
            self.schedule_open_documents(None);
        }
    }

    /// Tells the client what follows from a change of the index: the `crdls/indexStatus` notification
    /// (to clients that asked for it) and a refresh of inlay hints. Returns the client's flags.
    fn announce_index_change(&self) -> ClientFlags {
        let flags = self.state.session().flags;
        if flags.index_status {
            let index = self.state.session().index.clone();
            let params = IndexStatusParams { crds: index.len(), files: index.sources().count() };
            let client = self.client.clone();
            tokio::spawn(async move { client.send_notification::<IndexStatus>(params).await });
        }
        if flags.inlay_hint_refresh {
            // Defaults come from the CRDs, which may just have changed.
            let client = self.client.clone();
            tokio::spawn(async move {
                let _ = client.inlay_hint_refresh().await;
            });
        }
        flags
    }

    /// Asks the client to pull diagnostics again, without waiting for its answer.
    fn spawn_diagnostic_refresh(&self) {
        let client = self.client.clone();
        tokio::spawn(async move {
            let _ = client.workspace_diagnostic_refresh().await;
        });
    }

    /// Schedules a check of every open document but `skip`.
    fn schedule_open_documents(&self, skip: Option<&Url>) {
        let uris: Vec<Url> = lock(&self.state.documents).keys().filter(|u| Some(*u) != skip).cloned().collect();
        for uri in uris {
            self.schedule(uri);
        }
    }
}
