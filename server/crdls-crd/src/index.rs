//! The CRD index: every CRD known to a workspace or a CLI run, looked up by group, version and kind.
//! Files are indexed one by one, so re-indexing a changed file leaves the others untouched.

use std::collections::HashMap;
use std::sync::Arc;

use crate::crd::{Crd, CrdVersion};

/// Where a CRD came from: a path or URI chosen by the caller.
pub type SourceId = Arc<str>;

/// A CRD and the source it was read from.
#[derive(Clone, Debug)]
pub struct IndexedCrd {
    /// The file (or buffer) the CRD is in.
    pub source: SourceId,
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
    by_group: HashMap<String, Vec<IndexedCrd>>,
}

impl CrdIndex {
    /// An empty index.
    pub fn new() -> CrdIndex {
        CrdIndex::default()
    }

    /// Replaces what `source` contributes with `crds` (an empty list removes the source). CRDs that
    /// cannot serve anything (see [`Crd::is_indexable`]) are left out.
    pub fn set_source(&mut self, source: SourceId, mut crds: Vec<Crd>) {
        self.remove_source(&source);
        crds.retain(Crd::is_indexable);
        if crds.is_empty() {
            return;
        }
        let crds: Vec<Arc<Crd>> = crds.into_iter().map(Arc::new).collect();
        for crd in &crds {
            self.by_group.entry(crd.group.clone()).or_default().push(IndexedCrd { source: source.clone(), crd: crd.clone() });
        }
        self.by_source.insert(source, crds);
    }

    /// Forgets everything `source` contributed.
    pub fn remove_source(&mut self, source: &str) {
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
    /// kind, the first one indexed wins.
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
