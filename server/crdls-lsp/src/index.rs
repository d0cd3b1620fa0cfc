//! The shared CRD index and how it is kept current: the workspace scan (workspace folders and the
//! configured CRD paths, with progress), the CRDs of open buffers (whose text wins over the file on
//! disk), and files the client reports changed on disk. The index is an `Arc` replaced as a whole, so
//! a check holds a consistent one. Scans (with the fetch that follows them) run one at a time, asks
//! during one coalescing into one more (`flight.rs`).

use std::collections::{HashMap, HashSet};
use std::panic::AssertUnwindSafe;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Instant;

use crdls_crd::{Crd, CrdIndex, Origin, SourceId, SourceKind};
use crdls_sources::Network;
use crdls_workspace::external::Unavailable;
use crdls_workspace::resolver::{self, Resolver};
use futures::FutureExt;
use tower_lsp::lsp_types::notification::Progress;
use tower_lsp::lsp_types::request::WorkDoneProgressCreate;
use tower_lsp::lsp_types::{
    MessageType, NumberOrString, ProgressParams, ProgressParamsValue, Url, WorkDoneProgress, WorkDoneProgressBegin,
    WorkDoneProgressCreateParams, WorkDoneProgressEnd,
};

use crate::fetch::{self, Indexed, SourceErrors};
use crate::session::{lock, panic_text, Backend};

impl Backend {
    /// Records the CRDs an open buffer declares; returns whether they changed.
    /// The fingerprint and the index change together, in one session update.
    pub(crate) fn update_buffer_crds(&self, uri: &Url, crds: Vec<Crd>) -> bool {
        let fingerprint = fingerprint(&crds);
        // Most checks change nothing: they are answered from the snapshot, without a new one.
        if self.state.session().buffer_crds.get(uri) == Some(&fingerprint) {
            return false;
        }
        let changed = self.state.update(|session| {
            let previous = session.buffer_crds.insert(uri.clone(), fingerprint);
            if previous == Some(fingerprint) {
                return false;
            }
            // A buffer's first check replaces what the scan read from disk for it, if anything.
            if previous.is_none() && crds.is_empty() && session.index.crds_of(uri.as_str()).is_empty() {
                return false;
            }
            replace_source(Arc::make_mut(&mut session.index), Arc::from(uri.as_str()), crds);
            true
        });
        if changed {
            crdls_crd::intern::prune();
        }
        changed
    }

    /// Replaces the CRDs one source contributes to the index (see [`replace_source`]).
    pub(crate) fn set_source(&self, source: SourceId, crds: Vec<Crd>) {
        self.state.update_index(|index| replace_source(index, source, crds));
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
        let origin = self.state.session().index.origin_of(uri.as_str());
        if matches!(origin.kind, SourceKind::Url | SourceKind::Cluster) {
            return self.reindex_download(uri, origin, deleted);
        }
        // The cache's other files (archive members extracted for go-to-definition) are not the workspace's.
        if uri.to_file_path().is_ok_and(|p| in_cache(&p, crdls_sources::Cache::from_env().as_ref())) {
            return false;
        }
        let crds = if deleted { Vec::new() } else { file_crds(uri) };
        let had = !self.state.session().index.crds_of(uri.as_str()).is_empty();
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
        let Some(crds) = resolver::read_cached_crds(&path) else { return false };
        self.state.update_index(|index| index.set_source_from(Arc::from(uri.as_str()), origin, crds));
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
        let progress = self.state.session().flags.progress
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
        let roots = self.state.session().roots.clone();
        let config = self.state.session().config.clone();
        let refresh = network == Some(Network::Refresh);
        let scanned = self
            .blocking("indexing the workspace", move || {
                let disk = scan_disk(&roots, &config);
                // Downloads come from the cache here; what it lacks is fetched after the scan.
                let root = roots.first().cloned().unwrap_or_default();
                let remote = (!refresh).then(|| fetch::read_remote(&config, &root, Network::Offline));
                (disk, remote)
            })
            .await;
        let Some((disk, remote)) = scanned else {
            // The scan failed (and said so): what the index holds is all there will be.
            self.state.index_ready.send_replace(true);
            self.recheck_all_pushed();
            return;
        };
        let DiskScan { files: file_count, unread, archive_errors, .. } = &disk;
        let (file_count, archive_errors) = (*file_count, archive_errors.clone());
        for file in unread {
            self.log(MessageType::WARNING, format!("not read: {file}")).await;
        }
        // Buffers already checked have put their own CRDs in the index, and their text wins; for the
        // others (opened but not checked yet, as after a restart) the file on disk stands in until then.
        // Read with the index, in the one update, so a buffer checked meanwhile is not overwritten.
        self.state.update(|session| {
            let open: HashSet<String> = session.buffer_crds.keys().map(|u| u.to_string()).collect();
            disk.apply(Arc::make_mut(&mut session.index), &open)
        });
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
        let crd_count = self.state.session().index.len();
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
        let flags = self.state.session().flags;
        if flags.pull_diagnostics && flags.diagnostic_refresh {
            let _ = self.client.workspace_diagnostic_refresh().await;
        }
        // Within this run of the flight, so a refresh asked meanwhile waits for this fetch to end.
        if let Some(network) = fetch {
            self.fetch_remote(network).await;
        }
    }
}

/// What the scan read from disk: the CRDs of the workspace's files and of the CRD paths, each with its
/// rank, and of the chart archives among them.
pub(crate) struct DiskScan {
    /// How many files and archives were looked at.
    pub(crate) files: usize,
    /// Each file with its rank and CRDs, in the resolver's order.
    pub(crate) found: Vec<(PathBuf, SourceKind, Vec<Crd>)>,
    /// The mutating admission webhooks the workspace's files install, by the file's URI.
    pub(crate) webhooks: Vec<(String, Vec<crdls_crd::admission::MutatingWebhook>)>,
    /// The files of `found` with CRDs that lie in an OLM bundle: packaging copies, which yield to the
    /// project's own definitions (see `resolver::in_olm_bundle`).
    pub(crate) packaged: HashSet<PathBuf>,
    pub(crate) archived: Vec<Indexed>,
    pub(crate) archive_errors: Vec<Unavailable>,
    /// Files not read (not regular, too large, not text), with why.
    pub(crate) unread: Vec<String>,
}

/// Reads the CRDs below the workspace folders `roots` and of the configured CRD paths (relative to
/// each folder, or to the working directory without one), with the resolver `crdls check` uses.
pub(crate) fn scan_disk(roots: &[PathBuf], config: &crdls_workspace::Config) -> DiskScan {
    let mut resolver = Resolver::new(config.walk_options());
    for root in roots {
        resolver.add_root(root);
    }
    let bases = if roots.is_empty() { vec![PathBuf::new()] } else { roots.to_vec() };
    let (users, confined) = config.crd_path_sets();
    resolver.add_crd_paths(users, &bases);
    resolver.add_confined_crd_paths(confined, &bases);
    // A folder or CRD path that is missing is not an error in the editor: nothing is read from it.
    let resolution = resolver.finish(roots);
    let files: Vec<(PathBuf, SourceKind)> = resolution.files.into_iter().filter_map(|f| Some((f.path?, f.kind))).collect();
    let paths: Vec<PathBuf> = files.iter().map(|(p, _)| p.clone()).collect();
    let mut found = Vec::new();
    let mut unread = Vec::new();
    // Roles are decided in the workspace, as `crdls check` decides them: what its files name is read only
    // inside it.
    let workspace = crdls_workspace::roles::Workspace::new(roots.iter().cloned(), Path::new("/"), config.whole_test_inputs);
    let mut webhooks = Vec::new();
    for ((path, kind), read) in files.into_iter().zip(resolver::read_files_definitions(&paths, &workspace)) {
        match read {
            Ok((crds, hooks)) => {
                if !hooks.is_empty() && matches!(kind, SourceKind::Workspace | SourceKind::Configured) {
                    webhooks.extend(Url::from_file_path(&path).ok().map(|uri| (uri.to_string(), hooks)));
                }
                found.push((path, kind, crds));
            }
            Err(crdls_workspace::files::ReadError::Io(_)) => {}
            Err(e) => unread.push(format!("{}: {e}", path.display())),
        }
    }
    let mut bundles: HashMap<PathBuf, bool> = HashMap::new();
    let packaged = found
        .iter()
        .filter(|(_, kind, crds)| !crds.is_empty() && matches!(kind, SourceKind::Workspace | SourceKind::Configured))
        .filter(|(path, ..)| {
            let dir = path.parent().map(Path::to_path_buf).unwrap_or_default();
            *bundles.entry(dir).or_insert_with(|| resolver::in_olm_bundle(path))
        })
        .map(|(path, ..)| path.clone())
        .collect();
    let (archived, mut archive_errors) = fetch::read_archives(&resolution.archives);
    // CRD paths refused are shown where archives that cannot be read are: on crdls.toml.
    archive_errors.extend(resolution.refused.into_iter().map(|error| Unavailable { kind: SourceKind::Configured, error }));
    DiskScan { files: paths.len() + resolution.archives.len(), found, webhooks, packaged, archived, archive_errors, unread }
}

impl DiskScan {
    /// Puts what the scan found in `index`: what it no longer finds (a CRD path the settings dropped)
    /// leaves, open buffers (`open`, their URIs) stay as their text is what counts, and downloads are
    /// left to `replace_remote`.
    pub(crate) fn apply(self, index: &mut CrdIndex, open: &HashSet<String>) {
        let mut found_uris: HashSet<String> = self
            .found
            .iter()
            .filter(|(_, _, crds)| !crds.is_empty())
            .filter_map(|(path, _, _)| Url::from_file_path(path).ok())
            .map(|u| u.to_string())
            .collect();
        found_uris.extend(self.archived.iter().map(|a| a.id.clone()));
        let stale: Vec<String> = index
            .sources()
            .filter(|s| !open.contains(s.as_ref()) && !found_uris.contains(s.as_ref()))
            .filter(|s| !matches!(index.origin_of(s).kind, SourceKind::Url | SourceKind::Cluster))
            .map(|s| s.to_string())
            .collect();
        for source in stale {
            index.remove_source(&source);
        }
        index.clear_webhooks();
        for (uri, webhooks) in self.webhooks {
            index.set_webhooks(&uri, webhooks);
        }
        for (path, kind, crds) in self.found {
            let Ok(uri) = Url::from_file_path(&path) else { continue };
            index.set_packaged(uri.as_str(), self.packaged.contains(&path));
            if !open.contains(uri.as_str()) && !crds.is_empty() {
                index.set_source_from(Arc::from(uri.as_str()), Origin { kind, label: None }, crds);
            }
        }
        for source in self.archived {
            index.set_source_from(Arc::from(source.id.as_str()), source.origin, source.crds);
        }
    }
}

/// The CRDs of the file behind `uri` as it is on disk, read in its role (none when it cannot be read).
pub(crate) fn file_crds(uri: &Url) -> Vec<Crd> {
    let Ok(path) = uri.to_file_path() else { return Vec::new() };
    resolver::read_file_crds(&path, &mut crdls_workspace::Roles::new()).unwrap_or_default()
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

/// Replaces the CRDs one source contributes to `index`, keeping its rank (a file of the CRD paths
/// stays one when it is open or changes on disk).
fn replace_source(index: &mut CrdIndex, source: SourceId, crds: Vec<Crd>) {
    let origin = index.origin_of(&source);
    index.set_source_from(source, origin, crds);
}
