//! The shipped data: inflated and parsed on first use, then the kind tables and each root's `Schema`,
//! built once and shared by every release whose kind has that root.

use std::sync::{Arc, OnceLock};

use crdls_crd::Schema;
use serde::Deserialize;
use serde_json::Value as Json;

use crate::format::{Scope, FORMAT};
use crate::{materialize, KubeVersion, Lookup};

/// The generator's output, deflated (see the crate's documentation for the format).
static DEFLATED: &[u8] = include_bytes!("../data/kubernetes.json.deflate");

/// The data file, as written.
#[derive(Deserialize)]
struct File {
    format: u64,
    releases: Vec<FileRelease>,
    nodes: Vec<Json>,
}

#[derive(Deserialize)]
struct FileRelease {
    version: String,
    kinds: Vec<(String, String, String, u32, String)>,
}

/// One kind a release knows.
#[derive(Debug)]
pub(crate) struct Kind {
    pub(crate) group: Box<str>,
    pub(crate) version: Box<str>,
    pub(crate) kind: Box<str>,
    pub(crate) root: u32,
    pub(crate) scope: Scope,
}

/// Everything the file holds, ready for look-ups.
#[derive(Debug)]
pub(crate) struct Data {
    /// The releases, oldest first.
    pub(crate) versions: Vec<KubeVersion>,
    /// Per release (parallel to `versions`), its kinds sorted by group, version and kind.
    kinds: Vec<Vec<Kind>>,
    nodes: Vec<Json>,
    /// The schema of each node that is some kind's root, built on first request.
    schemas: Vec<OnceLock<Arc<Schema>>>,
}

/// The data of one process, or of one test: loaded on the first call that needs it.
pub(crate) struct Builtins {
    data: OnceLock<Data>,
}

impl Builtins {
    /// Nothing loaded yet.
    pub(crate) const fn new() -> Builtins {
        Builtins { data: OnceLock::new() }
    }

    /// Whether the data has been loaded.
    #[cfg(test)]
    pub(crate) fn is_loaded(&self) -> bool {
        self.data.get().is_some()
    }

    /// The data, loaded now if it was not.
    pub(crate) fn data(&self) -> &Data {
        self.data.get_or_init(|| Data::load(DEFLATED).unwrap_or_else(|e| panic!("the shipped built-in schemas do not load: {e}")))
    }
}

impl Data {
    /// Inflates and reads a data file.
    pub(crate) fn load(deflated: &[u8]) -> Result<Data, String> {
        let json = miniz_oxide::inflate::decompress_to_vec(deflated).map_err(|e| format!("cannot inflate: {e:?}"))?;
        let file: File = serde_json::from_slice(&json).map_err(|e| format!("not the expected JSON: {e}"))?;
        if file.format != FORMAT {
            return Err(format!("format {} where {FORMAT} was expected", file.format));
        }
        let mut releases = Vec::with_capacity(file.releases.len());
        for release in file.releases {
            let version: KubeVersion = release.version.parse().map_err(|e| format!("{e}"))?;
            let mut kinds = Vec::with_capacity(release.kinds.len());
            for (group, api_version, kind, root, scope) in release.kinds {
                if root as usize >= file.nodes.len() {
                    return Err(format!("{version} {group}/{api_version} {kind}: root {root} is not a node"));
                }
                let scope = Scope::from_name(&scope).ok_or_else(|| format!("{version} {kind}: unknown scope `{scope}`"))?;
                kinds.push(Kind { group: group.into(), version: api_version.into(), kind: kind.into(), root, scope });
            }
            kinds.sort_by(|a, b| (&a.group, &a.version, &a.kind).cmp(&(&b.group, &b.version, &b.kind)));
            releases.push((version, kinds));
        }
        releases.sort_by_key(|(version, _)| *version);
        let schemas = (0..file.nodes.len()).map(|_| OnceLock::new()).collect();
        let (versions, kinds) = releases.into_iter().unzip();
        Ok(Data { versions, kinds, nodes: file.nodes, schemas })
    }

    /// The kinds of release `kube`, if it is shipped.
    fn release(&self, kube: KubeVersion) -> Option<&[Kind]> {
        let at = self.versions.binary_search(&kube).ok()?;
        Some(&self.kinds[at])
    }

    /// The entry of a kind in release `kube`.
    pub(crate) fn find(&self, kube: KubeVersion, group: &str, version: &str, kind: &str) -> Option<&Kind> {
        let kinds = self.release(kube)?;
        let at = kinds.binary_search_by(|k| (&*k.group, &*k.version, &*k.kind).cmp(&(group, version, kind))).ok()?;
        Some(&kinds[at])
    }

    /// What release `kube` says about a group/version/kind.
    pub(crate) fn lookup(&self, kube: KubeVersion, group: &str, version: &str, kind: &str) -> Lookup {
        if let Some(k) = self.find(kube, group, version, kind) {
            return Lookup::Served { scope: k.scope };
        }
        let served_in: Vec<KubeVersion> =
            self.versions.iter().copied().filter(|&other| self.find(other, group, version, kind).is_some()).collect();
        if served_in.is_empty() {
            Lookup::Unknown
        } else {
            Lookup::NotServed { served_in }
        }
    }

    /// The schema of a kind in release `kube`.
    pub(crate) fn schema(&self, kube: KubeVersion, group: &str, version: &str, kind: &str) -> Option<&Arc<Schema>> {
        let root = self.find(kube, group, version, kind)?.root;
        let cell = &self.schemas[root as usize];
        Some(cell.get_or_init(|| Arc::new(Schema::from_node(&materialize::tree(&self.nodes, root)))))
    }

    /// The resource kinds release `kube` serves in `group`, as (version, kind), sorted.
    pub(crate) fn kinds(&self, kube: KubeVersion, group: &str) -> Vec<(&str, &str)> {
        let kinds = self.release(kube).unwrap_or_default();
        kinds.iter().filter(|k| &*k.group == group && k.scope.is_resource()).map(|k| (&*k.version, &*k.kind)).collect()
    }

    /// The number of interned nodes.
    #[cfg(test)]
    pub(crate) fn node_count(&self) -> usize {
        self.nodes.len()
    }

    /// The kinds of release `kube`.
    #[cfg(test)]
    pub(crate) fn all_kinds(&self, kube: KubeVersion) -> &[Kind] {
        self.release(kube).unwrap_or_default()
    }

    /// The node that is the root of a kind.
    #[cfg(test)]
    pub(crate) fn root(&self, kube: KubeVersion, group: &str, version: &str, kind: &str) -> Option<u32> {
        self.find(kube, group, version, kind).map(|k| k.root)
    }
}
