//! The editor's side of CRD sources beyond the workspace's YAML files (the twin of `crdls check`'s
//! `check/fetch.rs`; both read through `crdls_workspace::external`): the chart archives the scan finds,
//! and the URLs and the cluster the settings name. The scan reads downloads from the cache only; what
//! is not cached is fetched afterwards in the background, never on a keystroke's path, and a source
//! that cannot be read becomes a warning on `crdls.toml` (when it is named there) and a message.

use std::collections::HashSet;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use crdls_crd::{Crd, Origin, SourceKind};
use crdls_diagnostics::{codes, Diagnostic, Severity, TextRange};
use crdls_sources::{Network, SourceError};
use crdls_workspace::external::{External, Unavailable};
use tower_lsp::lsp_types::{MessageType, Url};

use crate::session::{lock, Backend};

/// The two groups of source problems, found at different times: the scan reads the archives, the
/// background fetch the URLs and the cluster.
#[derive(Clone, Copy)]
pub(crate) enum SourceErrors {
    Archives,
    Remote,
}

/// The CRD sources that could not be read, and how they were shown: one record, so that a refresh
/// forgets what it must at once.
#[derive(Default)]
pub(crate) struct SourceProblems {
    /// What the scan could not read: chart archives, and CRD paths of an untrusted workspace that lead
    /// out of it.
    archives: Vec<Unavailable>,
    /// The URLs and the cluster that could not be read (found by the fetch).
    remote: Vec<Unavailable>,
    /// Whether `crdls.toml` carries warnings about sources (so they are cleared when fixed).
    published: bool,
    /// The messages already shown since the last refresh.
    shown: HashSet<String>,
}

/// The command that fetches URLs and the cluster again and re-reads the chart archives.
pub(crate) const REFRESH_COMMAND: &str = "crdls.refreshCrdSources";

/// The CRDs of one source outside the workspace's YAML files, ready for the index.
pub(crate) struct Indexed {
    pub(crate) id: String,
    pub(crate) origin: Origin,
    pub(crate) crds: Vec<Crd>,
}

/// The id of an archive member in the index: the archive's URI, `!/`, the member.
fn member_id(archive: &Path, member: &str) -> Option<String> {
    Url::from_file_path(archive).ok().map(|uri| format!("{uri}{}{member}", crdls_sources::archive::SEPARATOR))
}

/// The CRDs of chart archives, each member a source; with a message for each archive that is unreadable.
pub(crate) fn read_archives(archives: &[PathBuf]) -> (Vec<Indexed>, Vec<Unavailable>) {
    let mut found = Vec::new();
    let mut errors = Vec::new();
    for archive in archives {
        match crdls_workspace::external::archive_members(archive) {
            Ok(members) => found.extend(members.into_iter().filter_map(|m| indexed(archive, m))),
            Err(e) => errors.push(Unavailable { kind: SourceKind::ChartArchive, error: SourceError::Archive(e) }),
        }
    }
    (found, errors)
}

/// One external text as an index source: a member by its archive id, a download by its cached file.
fn indexed(archive: &Path, source: External) -> Option<Indexed> {
    let id = match &source.member {
        Some(member) => member_id(archive, member)?,
        None => Url::from_file_path(&source.file).ok()?.to_string(),
    };
    let label = source.member.is_none().then(|| Arc::from(source.label.as_str()));
    // A download's schemas are read again from its cached file; an archive member's text is kept,
    // rather than inflating the archive again.
    let reader = match &source.member {
        Some(_) => crdls_workspace::files::reader_of_text(Arc::from(source.text.as_str())),
        None if source.not_cached.is_some() => crdls_workspace::files::reader_of_text(Arc::from(source.text.as_str())),
        None => crdls_workspace::files::reader_of_cached(source.file.clone()),
    };
    let crds = crdls_workspace::resolver::crds_of(&source.text, &crdls_workspace::FileRole::Manifest, reader);
    Some(Indexed { id, origin: Origin { kind: source.kind, label }, crds })
}

/// The URLs and the cluster of `config`, through the cache as `network` allows.
/// A refresh that failed, where the cached copy stands in, is among the problems shown.
pub(crate) fn read_remote(config: &crdls_workspace::Config, root: &Path, network: Network) -> (Vec<Indexed>, Vec<Unavailable>) {
    // Standard input carries the editor's messages: no credential plugin may read it.
    let prompting = crdls_workspace::external::Prompting::Never;
    let (found, mut errors) = crdls_workspace::external::fetch_remote(config, root, network, prompting);
    for source in &found {
        if let Some(reason) = &source.refresh_failed {
            let error = SourceError::Fetch { label: source.label.clone(), reason: format!("{reason}; the cached copy is used") };
            errors.push(Unavailable { kind: source.kind, error });
        }
        errors.extend(source.not_cached_warning().map(|error| Unavailable { kind: source.kind, error }));
    }
    let file = PathBuf::new();
    (found.into_iter().filter_map(|source| indexed(&file, source)).collect(), errors)
}

/// Whether an index source came from a URL or the cluster.
fn is_remote(origin: &Origin) -> bool {
    matches!(origin.kind, SourceKind::Url | SourceKind::Cluster)
}

impl Backend {
    /// Fetches what the cache does not hold (or everything, on refresh), then puts the URLs' and the
    /// cluster's CRDs in the index and re-checks the open documents. The scan calls it at its end, in
    /// the background and one at a time (see `index.rs`).
    pub(crate) async fn fetch_remote(&self, network: Network) {
        let config = self.state.session().config.clone();
        let root = self.state.session().roots.first().cloned().unwrap_or_default();
        let fetched = self.blocking("fetching CRD sources", move || read_remote(&config, &root, network)).await;
        let Some((found, errors)) = fetched else { return };
        let count: usize = found.iter().map(|f| f.crds.len()).sum();
        let names: Vec<String> = found.iter().filter_map(|f| f.origin.label.as_deref().map(str::to_string)).collect();
        self.replace_remote(found);
        self.set_source_errors(SourceErrors::Remote, errors).await;
        if !names.is_empty() {
            self.log(MessageType::INFO, format!("indexed {count} CRDs from {}", names.join(", "))).await;
        }
        self.recheck_all_pushed();
    }

    /// Replaces the URL and cluster sources of the index with `found`.
    pub(crate) fn replace_remote(&self, found: Vec<Indexed>) {
        self.state.update_index(|index| {
            let keep: HashSet<&str> = found.iter().map(|f| f.id.as_str()).collect();
            let stale: Vec<String> =
                index.sources().filter(|s| is_remote(&index.origin_of(s)) && !keep.contains(s.as_ref())).map(|s| s.to_string()).collect();
            for source in stale {
                index.remove_source(&source);
            }
            for source in found {
                index.set_source_from(Arc::from(source.id.as_str()), source.origin, source.crds);
            }
        });
        crdls_crd::intern::prune();
    }

    /// Records the problems of one group of sources and shows all that are current.
    pub(crate) async fn set_source_errors(&self, group: SourceErrors, errors: Vec<Unavailable>) {
        let all = {
            let mut current = lock(&self.state.source_problems);
            match group {
                SourceErrors::Archives => current.archives = errors,
                SourceErrors::Remote => current.remote = errors,
            }
            current.archives.iter().chain(&current.remote).cloned().collect::<Vec<Unavailable>>()
        };
        self.report_source_errors(&all).await;
    }

    /// Shows each source that could not be read: as a warning on `crdls.toml` where the file names it,
    /// and as a message once per problem. An empty list clears the warnings.
    async fn report_source_errors(&self, errors: &[Unavailable]) {
        let Some(root) = self.state.session().roots.first().cloned() else {
            for Unavailable { error, .. } in errors {
                self.notify_once(error.to_string()).await;
            }
            return;
        };
        let config_path = root.join(crdls_workspace::CONFIG_FILE);
        let text = crdls_workspace::files::read_text(&config_path).unwrap_or_default();
        let mut diagnostics = Vec::new();
        for Unavailable { kind, error } in errors {
            // What names the source in crdls.toml: the `cluster` key, else the URL or path as shown.
            let label = error.label();
            let needle = if *kind == SourceKind::Cluster { "cluster" } else { &label };
            if let Some(at) = (!text.is_empty()).then(|| text.find(needle)).flatten() {
                let range = TextRange::new(at, at + needle.len());
                let code = match error {
                    SourceError::Outside { .. } => codes::SOURCE_OUTSIDE_WORKSPACE,
                    _ => codes::SOURCE_UNAVAILABLE,
                };
                diagnostics.push(Diagnostic::new(range, Severity::Warning, code, error.to_string()));
            }
            self.notify_once(error.to_string()).await;
        }
        let Ok(uri) = Url::from_file_path(&config_path) else { return };
        let was_published = std::mem::replace(&mut lock(&self.state.source_problems).published, !diagnostics.is_empty());
        if diagnostics.is_empty() && !was_published {
            return;
        }
        let diagnostics = self.to_lsp(&text, &diagnostics);
        self.client.publish_diagnostics(uri, diagnostics, None).await;
    }

    /// Logs `message` and shows it to the user, unless it was shown already since the last refresh.
    async fn notify_once(&self, message: String) {
        let message = format!("crdls: {message}");
        let first = lock(&self.state.source_problems).shown.insert(message.clone());
        self.log(MessageType::WARNING, message.clone()).await;
        if first {
            self.client.show_message(MessageType::WARNING, message).await;
        }
    }

    /// `crdls.refreshCrdSources`: reads the archives and fetches the URLs and the cluster again.
    pub(crate) fn refresh_sources(&self) {
        // What the refresh finds is what will be shown; earlier problems are forgotten.
        {
            let mut problems = lock(&self.state.source_problems);
            problems.shown.clear();
            problems.remote.clear();
        }
        self.spawn_scan_then(Some(Network::Refresh));
    }
}

/// The text behind an index source for an editor to open: a file as it is (or its open buffer), an
/// archive member extracted into the cache (archives themselves are read in place).
pub(crate) fn openable(backend: &Backend, source: &str) -> Option<(Url, String)> {
    if let Some((archive, member)) = crdls_sources::archive::split_source(source) {
        let archive = Url::parse(archive).ok()?.to_file_path().ok()?;
        let text = crdls_sources::archive::read_member(&archive, member)?;
        let cache = crdls_sources::Cache::from_env().unwrap_or_else(|| crdls_sources::Cache::at(std::env::temp_dir().join("crdls")));
        let name = member.rsplit('/').next().unwrap_or(member);
        let path = cache.entry("archives", source, name);
        if crdls_sources::cache::read_entry(&path).ok().as_deref() != Some(text.as_str()) {
            cache.write(&path, text.as_bytes()).ok()?;
        }
        return Some((Url::from_file_path(&path).ok()?, text));
    }
    let uri = Url::parse(source).ok()?;
    let text = backend.source_text(&uri)?;
    Some((uri, text))
}
