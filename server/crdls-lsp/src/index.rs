//! The shared CRD index and how it is kept current: the workspace scan (workspace folders and the
//! configured CRD paths, with progress), the CRDs of open buffers (whose text wins over the file on
//! disk), and files the client reports changed on disk. The index is an `Arc` replaced as a whole, so
//! a check holds a consistent one. Scans (with the fetch that follows them) run one at a time, asks
//! during one coalescing into one more (`flight.rs`).

use std::collections::HashSet;
use std::panic::AssertUnwindSafe;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Instant;

use crdls_crd::{Crd, Origin, SourceId, SourceKind};
use crdls_sources::Network;
use futures::FutureExt;
use tower_lsp::lsp_types::notification::Progress;
use tower_lsp::lsp_types::request::WorkDoneProgressCreate;
use tower_lsp::lsp_types::{
    MessageType, NumberOrString, ProgressParams, ProgressParamsValue, Url, WorkDoneProgress, WorkDoneProgressBegin,
    WorkDoneProgressCreateParams, WorkDoneProgressEnd,
};

use crate::scan;
use crate::session::{lock, panic_text, read, write, Backend};
use crate::sources::{self, SourceErrors};

impl Backend {
    /// Records the CRDs an open buffer declares; returns whether they changed.
    pub(crate) fn update_buffer_crds(&self, uri: &Url, crds: Vec<Crd>) -> bool {
        let fingerprint = fingerprint(&crds);
        let mut known = lock(&self.state.buffer_crds);
        let previous = known.get(uri).copied();
        if previous == Some(fingerprint) {
            return false;
        }
        known.insert(uri.clone(), fingerprint);
        drop(known);
        // A buffer's first check replaces what the scan read from disk for it, if anything.
        if previous.is_none() && crds.is_empty() && read(&self.state.index).crds_of(uri.as_str()).is_empty() {
            return false;
        }
        self.set_source(Arc::from(uri.as_str()), crds);
        true
    }

    /// Replaces the CRDs one source contributes to the index.
    pub(crate) fn set_source(&self, source: SourceId, crds: Vec<Crd>) {
        let mut guard = write(&self.state.index);
        let mut index = (**guard).clone();
        index.set_source(source, crds);
        *guard = Arc::new(index);
        drop(guard);
        // The texts of the CRDs just replaced need no shared copy any more.
        crdls_crd::intern::prune();
    }

    /// Re-reads one file from disk into the index (unless it is open: then the buffer wins).
    pub(crate) fn reindex_file(&self, uri: &Url, deleted: bool) -> bool {
        // Objects read for a changed CRD may be in this file.
        crate::objects::invalidate(&self.state);
        if lock(&self.state.documents).contains_key(uri) {
            return false;
        }
        let origin = read(&self.state.index).origin_of(uri.as_str());
        if matches!(origin.kind, SourceKind::Url | SourceKind::Cluster) {
            return self.reindex_download(uri, origin, deleted);
        }
        // The cache's other files (archive members extracted for go-to-definition) are not the workspace's.
        if uri.to_file_path().is_ok_and(|p| in_cache(&p, crdls_sources::Cache::from_env().as_ref())) {
            return false;
        }
        let crds = if deleted { Vec::new() } else { uri.to_file_path().ok().and_then(|p| scan::read_crds(&p)).unwrap_or_default() };
        let had = !read(&self.state.index).crds_of(uri.as_str()).is_empty();
        if crds.is_empty() && !had {
            return false;
        }
        self.set_source(Arc::from(uri.as_str()), crds);
        true
    }

    /// Re-reads a download's cached copy that changed on disk (written by a fetch, or by `crdls check
    /// --refresh` in a terminal) as the fetch and the CLI read it: whole, whatever its size (a workspace
    /// file's 16 MiB limit would drop a large download's CRDs), keeping its origin. A deleted copy
    /// keeps its CRDs until the next fetch, which owns the download.
    fn reindex_download(&self, uri: &Url, origin: Origin, deleted: bool) -> bool {
        let Ok(path) = uri.to_file_path() else { return false };
        if deleted {
            return false;
        }
        let reader = crdls_workspace::files::reader_of_cached(path);
        let Some(text) = reader() else { return false };
        let crds = scan::crds_in(&text, reader);
        let mut guard = write(&self.state.index);
        let mut index = (**guard).clone();
        index.set_source_from(Arc::from(uri.as_str()), origin, crds);
        *guard = Arc::new(index);
        drop(guard);
        crdls_crd::intern::prune();
        true
    }

    /// Scans the workspace in the background (the scan re-checks open documents when it is done).
    pub(crate) fn spawn_scan(&self) {
        self.spawn_scan_then(None);
    }

    /// Scans the workspace in the background; then, with `Some(Network::Refresh)`, fetches the URLs
    /// and the cluster again (otherwise only what the cache lacks). Scans run one at a time: asked while
    /// one runs, the scan runs once more after it, a refresh if any of the asks was one.
    pub(crate) fn spawn_scan_then(&self, network: Option<Network>) {
        let refresh = |a: Option<Network>, b: Option<Network>| if a == Some(Network::Refresh) { a } else { b.or(a) };
        let Some(first) = self.state.scans.ask(network, refresh) else { return };
        let backend = self.clone();
        tokio::spawn(async move {
            let mut next = Some(first);
            while let Some(network) = next {
                // A panic must not leave the flight busy for good: it is logged, and the next run goes on.
                if let Err(panic) = AssertUnwindSafe(backend.scan_workspace(network)).catch_unwind().await {
                    backend.log(MessageType::ERROR, format!("indexing the workspace failed: {}", panic_text(panic))).await;
                    backend.state.index_ready.send_replace(true);
                }
                next = backend.state.scans.next();
            }
        });
    }

    /// Indexes every CRD in the workspace folders, their chart archives and the configured paths, and
    /// the cached copies of the configured URLs and cluster, reporting progress.
    async fn scan_workspace(&self, network: Option<Network>) {
        let token = NumberOrString::String("crdls/index".into());
        let progress = read(&self.state.flags).progress
            && self.client.send_request::<WorkDoneProgressCreate>(WorkDoneProgressCreateParams { token: token.clone() }).await.is_ok();
        if progress {
            let begin = WorkDoneProgressBegin { title: "Indexing CRDs".into(), cancellable: Some(false), message: None, percentage: None };
            self.client
                .send_notification::<Progress>(ProgressParams {
                    token: token.clone(),
                    value: ProgressParamsValue::WorkDone(WorkDoneProgress::Begin(begin)),
                })
                .await;
        }
        let started = Instant::now();
        crate::objects::invalidate(&self.state);
        let roots = read(&self.state.roots).clone();
        let config = read(&self.state.config).clone();
        let refresh = network == Some(Network::Refresh);
        let scanned = self
            .blocking("indexing the workspace", move || {
                let patterns = crdls_workspace::sources::local_paths(&config.crd_paths);
                let mut files = Vec::new();
                let mut archives = Vec::new();
                // The cache's files are sources of their own (downloads read with the download limit,
                // archive members), even when the cache lies inside the workspace.
                let cache = crdls_sources::Cache::from_env();
                let mut add = |paths: Vec<PathBuf>| {
                    for path in paths {
                        if in_cache(&path, cache.as_ref()) {
                            continue;
                        }
                        if crdls_sources::archive::is_chart_archive(&path) {
                            archives.push(path);
                        } else {
                            files.push(path);
                        }
                    }
                };
                for root in &roots {
                    let walked = crdls_workspace::files::walk_below(root, config.walk_options());
                    add(walked.files);
                    add(walked.archives);
                    for pattern in &patterns {
                        add(crdls_workspace::files::expand(root, pattern).files);
                    }
                }
                if roots.is_empty() {
                    for pattern in &patterns {
                        add(crdls_workspace::files::expand(Path::new(""), pattern).files);
                    }
                }
                files.sort();
                files.dedup();
                archives.sort();
                archives.dedup();
                let count = files.len() + archives.len();
                let (found, unread) = scan::read_all_crds(files);
                let (archived, archive_errors) = sources::read_archives(&archives);
                // Downloads come from the cache here; what it lacks is fetched after the scan.
                let root = roots.first().cloned().unwrap_or_default();
                let remote = (!refresh).then(|| sources::read_remote(&config, &root, Network::Offline));
                (count, found, archived, archive_errors, remote, unread)
            })
            .await;
        let Some((file_count, found, archived, archive_errors, remote, unread)) = scanned else {
            // The scan failed (and said so): what the index holds is all there will be.
            self.state.index_ready.send_replace(true);
            self.recheck_all_pushed();
            return;
        };
        for file in unread {
            self.log(MessageType::WARNING, format!("not read: {file}")).await;
        }
        // Buffers already checked have put their own CRDs in the index, and their text wins; for the
        // others (opened but not checked yet, as after a restart) the file on disk stands in until then.
        let open: HashSet<String> = lock(&self.state.buffer_crds).keys().map(|u| u.to_string()).collect();
        {
            let mut guard = write(&self.state.index);
            let mut index = (**guard).clone();
            // What the scan no longer finds (a CRD path the settings dropped) leaves the index; open
            // buffers stay, as their text is what counts.
            let mut found_uris: HashSet<String> = found
                .iter()
                .filter(|(_, crds)| !crds.is_empty())
                .filter_map(|(path, _)| Url::from_file_path(path).ok())
                .map(|u| u.to_string())
                .collect();
            found_uris.extend(archived.iter().map(|a| a.id.clone()));
            // Downloads are kept up to date by `replace_remote`, not by the scan.
            let stale: Vec<String> = index
                .sources()
                .filter(|s| !open.contains(s.as_ref()) && !found_uris.contains(s.as_ref()))
                .filter(|s| !matches!(index.origin_of(s).kind, SourceKind::Url | SourceKind::Cluster))
                .map(|s| s.to_string())
                .collect();
            for source in stale {
                index.remove_source(&source);
            }
            for (path, crds) in found {
                let Ok(uri) = Url::from_file_path(&path) else { continue };
                if !open.contains(uri.as_str()) && !crds.is_empty() {
                    index.set_source(Arc::from(uri.as_str()), crds);
                }
            }
            for source in archived {
                index.set_source_from(Arc::from(source.id.as_str()), source.origin, source.crds);
            }
            *guard = Arc::new(index);
        }
        // Cached downloads join the index now; missing ones are fetched in the background.
        let fetch = match remote {
            None => Some(Network::Refresh),
            Some((cached, errors)) => {
                self.replace_remote(cached);
                (!errors.is_empty()).then_some(Network::CacheFirst)
            }
        };
        crdls_crd::intern::prune();
        // The index is whole now: checks may run, and the recheck below checks every open document.
        self.state.index_ready.send_replace(true);
        self.set_source_errors(SourceErrors::Archives, archive_errors).await;
        if fetch.is_none() {
            self.set_source_errors(SourceErrors::Remote, Vec::new()).await;
        }
        let crd_count = read(&self.state.index).len();
        let message = format!("indexed {crd_count} CRDs from {file_count} files in {} ms", started.elapsed().as_millis());
        if progress {
            self.client
                .send_notification::<Progress>(ProgressParams {
                    token,
                    value: ProgressParamsValue::WorkDone(WorkDoneProgress::End(WorkDoneProgressEnd { message: Some(message.clone()) })),
                })
                .await;
        }
        // Re-check first, so the log line means "ready" to a client that waits for it; a pull client
        // is asked to pull again right after it.
        self.recheck_all_pushed();
        self.log(MessageType::INFO, message).await;
        let flags = *read(&self.state.flags);
        if flags.pull_diagnostics && flags.diagnostic_refresh {
            let _ = self.client.workspace_diagnostic_refresh().await;
        }
        // Within this run of the flight, so a refresh asked meanwhile waits for this fetch to end.
        if let Some(network) = fetch {
            self.fetch_remote(network).await;
        }
    }
}

/// Whether `path` lies in crdls's cache directory.
fn in_cache(path: &Path, cache: Option<&crdls_sources::Cache>) -> bool {
    cache.is_some_and(|cache| path.starts_with(cache.dir()))
}

/// A stable fingerprint of a list of CRDs: their names, groups, versions and schema ranges.
fn fingerprint(crds: &[Crd]) -> u64 {
    use std::hash::{Hash, Hasher};
    if crds.is_empty() {
        return 0;
    }
    let mut hasher = std::collections::hash_map::DefaultHasher::new();
    for crd in crds {
        format!("{crd:?}").hash(&mut hasher);
    }
    hasher.finish() | 1
}
