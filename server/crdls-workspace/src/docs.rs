//! The field documentation of built-in kinds for hovers, shared by the language server and the CLI:
//! the OpenAPI v3 document of a kind's group/version for the configured release, read from the cache
//! or downloaded once (`crdls-sources/src/openapi.rs`), parsed once and kept for the session.
//!
//! Nothing is fetched unless [`Config::field_docs`] names a base, which only the user can set (a
//! workspace's `crdls.toml` is withheld unless trusted, see `trust.rs`); without it, [`KubeDocs::source`]
//! answers nothing and hovers are what they were.
//!
//! Concurrency: the documents are a map under one mutex, held only to find or insert a document's
//! cell; each cell is a `OnceLock`, so concurrent hovers on one group/version wait for one download
//! rather than starting their own. A failed document is remembered for [`RETRY_AFTER`], so a hover
//! does not wait for a dead network every time.

use std::collections::HashMap;
use std::sync::{Arc, Mutex, OnceLock, PoisonError};
use std::time::{Duration, Instant};

use crdls_builtins::docs::{document_file, module_version, DocStep, FieldDoc, FieldDocs, OpenApiDocs};
use crdls_builtins::KubeVersion;
use crdls_sources::{openapi, Cache, Network};

/// How long a document that could not be had is not asked for again.
pub const RETRY_AFTER: Duration = Duration::from_secs(600);

/// One document: being fetched, fetched, or failed (with when).
type Cell = Arc<OnceLock<Result<Arc<OpenApiDocs>, (String, Instant)>>>;

/// The documents read in this process, by URL, and the failures not yet reported.
#[derive(Default)]
pub struct KubeDocs {
    documents: Mutex<HashMap<String, Cell>>,
    failures: Mutex<Vec<String>>,
}

impl KubeDocs {
    /// An empty store.
    pub fn new() -> KubeDocs {
        KubeDocs::default()
    }

    /// The documentation source for the editor features: the documents under `base` (`None`: nothing,
    /// the setting is off), read from `cache` and, as `network` allows, downloaded.
    pub fn source<'a>(&'a self, base: Option<&'a str>, cache: Option<&'a Cache>, network: Network) -> Source<'a> {
        Source { store: self, place: base.zip(cache), network }
    }

    /// The reasons documents could not be had since the last call, each said once.
    pub fn take_failures(&self) -> Vec<String> {
        std::mem::take(&mut *self.failures.lock().unwrap_or_else(PoisonError::into_inner))
    }

    /// The document at `url`, fetched at most once at a time.
    fn document(&self, url: &str, readable: &str, cache: &Cache, network: Network) -> Option<Arc<OpenApiDocs>> {
        let cell = {
            let mut documents = self.documents.lock().unwrap_or_else(PoisonError::into_inner);
            let expired = documents.get(url).and_then(|c| c.get()).is_some_and(|r| matches!(r, Err((_, at)) if at.elapsed() > RETRY_AFTER));
            if expired {
                documents.remove(url);
            }
            documents.entry(url.to_string()).or_default().clone()
        };
        let mut fresh_failure = None;
        let outcome = cell.get_or_init(|| match openapi::fetch(url, readable, cache, network, OpenApiDocs::parse) {
            Ok(document) => Ok(Arc::new(document.parsed)),
            Err(error) => {
                let reason = format!("field documentation: {error}");
                fresh_failure = Some(reason.clone());
                Err((reason, Instant::now()))
            }
        });
        if let Some(reason) = fresh_failure {
            self.failures.lock().unwrap_or_else(PoisonError::into_inner).push(reason);
        }
        outcome.as_ref().ok().cloned()
    }
}

/// The documents of one base URL, as the editor features ask for them.
pub struct Source<'a> {
    store: &'a KubeDocs,
    place: Option<(&'a str, &'a Cache)>,
    network: Network,
}

impl FieldDocs for Source<'_> {
    fn describe(&self, kube: KubeVersion, group: &str, version: &str, kind: &str, steps: &[DocStep]) -> Option<FieldDoc> {
        let (base, cache) = self.place?;
        let tag = module_version(kube)?;
        let file = document_file(group, version)?;
        let url = openapi::document_url(base, tag, &file);
        let document = self.store.document(&url, &format!("{tag}-{file}"), cache, self.network)?;
        let text = document.describe(group, version, kind, steps)?;
        let from = if base == openapi::DEFAULT_BASE { String::new() } else { format!(", from {}", crdls_sources::redact_url(base)) };
        Some(FieldDoc { text, source: format!("Kubernetes {tag}'s API documentation{from}") })
    }
}
