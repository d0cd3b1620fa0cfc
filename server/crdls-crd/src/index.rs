//! The CRD index: every CRD known to a workspace or a CLI run, looked up by group, version and kind.
//! Files are indexed one by one, so re-indexing a changed file leaves the others untouched.

use std::collections::HashMap;
use std::sync::Arc;

use crate::crd::{Crd, CrdVersion};

/// Where a CRD came from: a path or URI chosen by the caller.
pub type SourceId = Arc<str>;

/// What kind of source a CRD came from. The order is the precedence when two sources define the same
/// CRD: the workspace's own files first, the cluster last.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum SourceKind {
    /// A file among the checked paths or in the workspace, or an open buffer.
    #[default]
    Workspace,
    /// A local file or directory named by `--crds` or `crdPaths`.
    Configured,
    /// The `crds/` directory of a Helm chart archive (`charts/*.tgz`).
    ChartArchive,
    /// A URL, read through the cache.
    Url,
    /// The cluster of a kubeconfig context, read through the cache.
    Cluster,
}

impl SourceKind {
    /// How a report names the kind of source.
    pub fn describe(self) -> &'static str {
        match self {
            SourceKind::Workspace => "workspace file",
            SourceKind::Configured => "--crds/crdPaths",
            SourceKind::ChartArchive => "chart archive",
            SourceKind::Url => "URL",
            SourceKind::Cluster => "cluster",
        }
    }
}

/// Where a source's CRDs came from, beyond its id.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Origin {
    /// The kind of source, which decides precedence.
    pub kind: SourceKind,
    /// How to name it when the id is not the name users know: the URL of a cached download,
    /// `cluster NAME` for a cluster's listing.
    pub label: Option<Arc<str>>,
}

/// A CRD and the source it was read from.
#[derive(Clone, Debug)]
pub struct IndexedCrd {
    /// The file (or buffer) the CRD is in.
    pub source: SourceId,
    /// What kind of source that is.
    pub kind: SourceKind,
    /// The CRD.
    pub crd: Arc<Crd>,
}

/// What an `apiVersion` and `kind` resolve to.
#[derive(Clone, Debug)]
pub enum Resolution<'a> {
    /// A CRD serves (or declares) this version of this kind.
    Found {
        /// The CRD.
        crd: &'a IndexedCrd,
        /// The version.
        version: &'a CrdVersion,
    },
    /// The kind is known in this group, but not at this version.
    UnknownVersion {
        /// The CRD that declares the kind.
        crd: &'a IndexedCrd,
    },
    /// The group is declared by some CRD, but none declares this kind.
    UnknownKind {
        /// The kinds the group declares, for a did-you-mean.
        known_kinds: Vec<&'a str>,
    },
    /// No indexed CRD declares this group.
    UnknownGroup,
}

/// The index.
#[derive(Clone, Debug, Default)]
pub struct CrdIndex {
    by_source: HashMap<SourceId, Vec<Arc<Crd>>>,
    /// Kept in precedence order: by source kind, then in the order sources were indexed.
    by_group: HashMap<String, Vec<IndexedCrd>>,
    origins: HashMap<SourceId, Origin>,
}

impl CrdIndex {
    /// An empty index.
    pub fn new() -> CrdIndex {
        CrdIndex::default()
    }

    /// Replaces what `source` contributes with `crds` (an empty list removes the source). CRDs that
    /// cannot serve anything (see [`Crd::is_indexable`]) are left out.
    pub fn set_source(&mut self, source: SourceId, crds: Vec<Crd>) {
        self.set_source_from(source, Origin::default(), crds);
    }

    /// Like [`CrdIndex::set_source`], for a source of another kind than a workspace file: its CRDs
    /// yield to those of kinds that come before (see [`SourceKind`]).
    pub fn set_source_from(&mut self, source: SourceId, origin: Origin, mut crds: Vec<Crd>) {
        self.remove_source(&source);
        crds.retain(Crd::is_indexable);
        if crds.is_empty() {
            return;
        }
        let crds: Vec<Arc<Crd>> = crds.into_iter().map(Arc::new).collect();
        for crd in &crds {
            let list = self.by_group.entry(crd.group.clone()).or_default();
            let at = list.iter().position(|c| c.kind > origin.kind).unwrap_or(list.len());
            list.insert(at, IndexedCrd { source: source.clone(), kind: origin.kind, crd: crd.clone() });
        }
        if origin != Origin::default() {
            self.origins.insert(source.clone(), origin);
        }
        self.by_source.insert(source, crds);
    }

    /// Where `source` came from (a workspace file unless it was indexed with another origin).
    pub fn origin_of(&self, source: &str) -> Origin {
        self.origins.get(source).cloned().unwrap_or_default()
    }

    /// Forgets everything `source` contributed.
    pub fn remove_source(&mut self, source: &str) {
        self.origins.remove(source);
        let Some(old) = self.by_source.remove(source) else { return };
        for crd in old {
            if let Some(list) = self.by_group.get_mut(&crd.group) {
                list.retain(|c| &*c.source != source);
                if list.is_empty() {
                    self.by_group.remove(&crd.group);
                }
            }
        }
    }

    /// The number of CRDs indexed.
    pub fn len(&self) -> usize {
        self.by_source.values().map(Vec::len).sum()
    }

    /// The sources that hold CRDs.
    pub fn sources(&self) -> impl Iterator<Item = &SourceId> {
        self.by_source.iter().filter(|(_, crds)| !crds.is_empty()).map(|(s, _)| s)
    }

    /// Whether no CRD is indexed.
    pub fn is_empty(&self) -> bool {
        self.by_source.is_empty()
    }

    /// Every indexed CRD, in no particular order.
    pub fn iter(&self) -> impl Iterator<Item = &IndexedCrd> {
        self.by_group.values().flatten()
    }

    /// The CRDs of `source`.
    pub fn crds_of(&self, source: &str) -> &[Arc<Crd>] {
        self.by_source.get(source).map_or(&[], Vec::as_slice)
    }

    /// Whether some CRD declares `group`.
    pub fn has_group(&self, group: &str) -> bool {
        self.by_group.contains_key(group)
    }

    /// Resolves an `apiVersion` (`group/version`) and `kind`. When two sources declare the same
    /// kind, the one of the kind of source that comes first wins (see [`SourceKind`]), and among
    /// sources of one kind the first one indexed.
    pub fn resolve(&self, api_version: &str, kind: &str) -> Resolution<'_> {
        let (group, version) = split_api_version(api_version);
        let Some(crds) = self.by_group.get(group) else { return Resolution::UnknownGroup };
        match crds.iter().find(|c| c.crd.names.kind == kind) {
            Some(crd) => match crd.crd.version(version) {
                Some(version) => Resolution::Found { crd, version },
                None => Resolution::UnknownVersion { crd },
            },
            None => {
                let mut known_kinds: Vec<&str> = crds.iter().map(|c| c.crd.names.kind.as_str()).collect();
                known_kinds.sort_unstable();
                known_kinds.dedup();
                Resolution::UnknownKind { known_kinds }
            }
        }
    }
}

/// Splits `group/version`; a bare version is the core group (`""`).
pub fn split_api_version(api_version: &str) -> (&str, &str) {
    match api_version.rsplit_once('/') {
        Some((group, version)) => (group, version),
        None => ("", api_version),
    }
}
