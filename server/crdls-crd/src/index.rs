//! The CRD index: every CRD known to a workspace or a CLI run, looked up by group, version and kind.
//! Files are indexed one by one, so re-indexing a changed file leaves the others untouched.

use std::collections::HashMap;
use std::sync::Arc;

use crate::admission::{CreatedResource, MutatingWebhook, WebhookMatch};
use crate::crd::{Crd, CrdApiVersion, CrdVersion};

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

impl IndexedCrd {
    /// The source that holds the CRD's text, where its ranges lie: the file a kustomization patched
    /// ([`Crd::patched_from`]; ranges a patch wrote aside), or the source itself.
    pub fn written_in(&self) -> SourceId {
        match &self.crd.patched_from {
            Some(from) => Arc::from(relative_source(&self.source, from)),
            None => self.source.clone(),
        }
    }
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

/// The index. Cloning it is cheap: the CRDs are shared, and a copy of them is made only when one of
/// two clones changes (the language server replaces its index as a whole on every change).
///
/// An index may be seen from a file ([`CrdIndex::seen_from`]): when several sources define the same
/// CRD, a lookup then prefers the definition nearest that file (see [`CrdIndex::resolve`]).
#[derive(Clone, Debug, Default)]
pub struct CrdIndex {
    data: Arc<Data>,
    /// The file whose objects are resolved, when known.
    from: Option<SourceId>,
}

#[derive(Clone, Debug, Default)]
struct Data {
    by_source: HashMap<SourceId, Vec<Arc<Crd>>>,
    /// Kept in precedence order: by source kind, then in the order sources were indexed.
    by_group: HashMap<String, Vec<IndexedCrd>>,
    origins: HashMap<SourceId, Origin>,
    /// The sources that are packaging copies: files of an OLM bundle (see [`CrdIndex::set_packaged`]).
    packaged: std::collections::HashSet<SourceId>,
    /// The mutating admission webhooks each source installs (see [`CrdIndex::set_webhooks`]).
    webhooks: std::collections::BTreeMap<SourceId, Vec<Arc<MutatingWebhook>>>,
}

/// Whether a definition of a CRD serves an object's version.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum VersionFit {
    /// The version is declared and served.
    Served,
    /// The version is declared with `served: false`.
    NotServed,
    /// The version is not declared.
    Undeclared,
}

impl VersionFit {
    fn of(crd: &Crd, version: &str) -> VersionFit {
        match crd.version(version) {
            Some(v) if v.served => VersionFit::Served,
            Some(_) => VersionFit::NotServed,
            None => VersionFit::Undeclared,
        }
    }
}

/// How near a definition is to the file of an object, in the directory tree. Paths are compared as
/// written, directory by directory (a front end names the files of one run alike: as given on the
/// command line, or as URIs). The more leading directories the two paths share, the nearer; among
/// definitions that share as many, the fewer directories lie between that common ancestor and the
/// definition, the nearer.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Distance {
    /// The number of leading directories shared, reversed so that more sorts first.
    shared: std::cmp::Reverse<usize>,
    /// The directories below the common ancestor on the definition's side.
    below: usize,
}

impl Distance {
    /// The distance from the file `from` to the definition in `source` (paths or URIs).
    pub fn between(from: &str, source: &str) -> Distance {
        let (from, source) = (directories(from), directories(source));
        let shared = from.iter().zip(&source).take_while(|(a, b)| a == b).count();
        Distance { shared: std::cmp::Reverse(shared), below: source.len() - shared }
    }
}

/// The directories of a path or URI, outermost first: `/` and `\` separate them, the last part is
/// the file, empty parts and `.` do not count.
fn directories(path: &str) -> Vec<&str> {
    let mut parts: Vec<&str> = path.split(['/', '\\']).collect();
    parts.pop();
    parts.retain(|p| !p.is_empty() && *p != ".");
    parts
}

/// How well a definition fits an object: the best is the least, compared field by field.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
struct Fit<'a> {
    version: VersionFit,
    kind: SourceKind,
    /// Whether the definition is a packaging copy (a file of an OLM bundle, generated from the project's
    /// own CRDs by `make bundle`, and as old as its last release) and the object's file lies outside its
    /// directory: the project's own definition wins.
    packaged: bool,
    /// Whether the definition is a file as written that a kustomization including it patches (another
    /// definition is that kustomization's output, see [`Crd::patched_from`]): what is installed is the
    /// patched one.
    superseded: bool,
    /// Only for workspace files and configured paths: downloads and archives have no place in the
    /// tree, and keep the order they were indexed in (their configured order).
    distance: Option<Distance>,
    /// Whether the definition is written as `apiextensions.k8s.io/v1beta1`, which no API server since
    /// 1.22 accepts: among definitions as near, one a cluster can install wins.
    legacy: bool,
    /// Last, the source's name ([`SourceName`]), among workspace files and configured paths, so the
    /// choice does not depend on the order files were found or opened in.
    name: SourceName<'a>,
}

/// A source's name, ordered for choosing among definitions as near: where two names first differ in
/// a number, the higher number first (`crds-v3.31.0.yaml` before `crds-v1.10.0.yaml`: projects keep one
/// bundle per release beside each other, and the newest is the one installed today), and a release
/// before its pre-releases (`v0.20.0/` before `v0.20.0-rc0/`); otherwise in byte order (`a/crd.yaml`
/// before `b/crd.yaml`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct SourceName<'a>(&'a str);

impl Ord for SourceName<'_> {
    fn cmp(&self, other: &Self) -> std::cmp::Ordering {
        let (mut a, mut b) = (Runs(self.0), Runs(other.0));
        // Whether the runs before were equal and ended with a number.
        let mut after_number = false;
        loop {
            match (a.next(), b.next()) {
                (None, None) => return self.0.cmp(other.0),
                (None, Some(_)) => return std::cmp::Ordering::Less,
                (Some(_), None) => return std::cmp::Ordering::Greater,
                (Some(x), Some(y)) => {
                    let numbers = x.starts_with(|c: char| c.is_ascii_digit()) && y.starts_with(|c: char| c.is_ascii_digit());
                    let order = if numbers {
                        by_value(y, x)
                    } else if after_number {
                        is_prerelease(x).cmp(&is_prerelease(y)).then_with(|| x.cmp(y))
                    } else {
                        x.cmp(y)
                    };
                    if order.is_ne() {
                        return order;
                    }
                    after_number = numbers;
                }
            }
        }
    }
}

impl PartialOrd for SourceName<'_> {
    fn partial_cmp(&self, other: &Self) -> Option<std::cmp::Ordering> {
        Some(self.cmp(other))
    }
}

/// Whether the text after a version number starts a pre-release (`-rc0`, `-beta1`): `-` and a letter.
fn is_prerelease(run: &str) -> bool {
    run.strip_prefix('-').is_some_and(|r| r.starts_with(|c: char| c.is_ascii_alphabetic()))
}

/// Two runs of ASCII digits compared by the number they write (leading zeros aside), then as text.
fn by_value(a: &str, b: &str) -> std::cmp::Ordering {
    let (x, y) = (a.trim_start_matches('0'), b.trim_start_matches('0'));
    x.len().cmp(&y.len()).then_with(|| x.cmp(y)).then_with(|| a.cmp(b))
}

/// The maximal runs of a text that are all ASCII digits or hold none.
struct Runs<'a>(&'a str);

impl<'a> Iterator for Runs<'a> {
    type Item = &'a str;
    fn next(&mut self) -> Option<&'a str> {
        let first = self.0.chars().next()?;
        let digit = first.is_ascii_digit();
        let end = self.0.find(|c: char| c.is_ascii_digit() != digit).unwrap_or(self.0.len());
        let (run, rest) = self.0.split_at(end);
        self.0 = rest;
        Some(run)
    }
}

/// A definition of a CRD and how it compares with the one an object resolved to, for a hover or a
/// verbose report that says why that one was chosen.
#[derive(Clone, Debug)]
pub struct Definition<'a> {
    /// The definition.
    pub crd: &'a IndexedCrd,
    /// Whether it serves the object's version.
    pub version: VersionFit,
    /// Why it was not chosen; `None` for the one chosen.
    pub passed_over: Option<PassedOver>,
}

/// Why a definition of a CRD was not the one an object resolved to: the first criterion in which the
/// chosen one was better.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum PassedOver {
    /// It does not serve the object's version, and the chosen one does (or declares it).
    Version,
    /// Its kind of source comes later (see [`SourceKind`]).
    Precedence,
    /// It is a packaging copy (a file of an OLM bundle), and the chosen one is not.
    Packaged,
    /// It is the file as written, and a kustomization that includes it patches it: the chosen one is
    /// what that kustomization outputs.
    Patched,
    /// It is farther from the object's file.
    Farther,
    /// It is as near, but written as `apiextensions.k8s.io/v1beta1`, which no cluster since 1.22 installs.
    Legacy,
    /// It is as near, and its name comes later (see [`SourceName`]; or it was indexed later).
    Order,
}

/// Why the definitions after the first of `definitions` (as [`CrdIndex::definitions`] lists them)
/// were not used for an object of `version`, in clauses joined by `; `, the definitions passed over for
/// one reason together, each named by `name`: "b.yaml is farther from the file; c.yaml and d.yaml do
/// not declare v1". Empty when there is only one definition.
pub fn why_not_used(definitions: &[Definition<'_>], version: &str, name: impl Fn(&IndexedCrd) -> String) -> String {
    // Each reason in the singular and in the plural, with the definitions it holds for.
    let mut clauses: Vec<(String, String, Vec<String>)> = Vec::new();
    for d in definitions.iter().skip(1) {
        let Some(passed_over) = d.passed_over else { continue };
        let (one, many) = match passed_over {
            PassedOver::Version if d.version == VersionFit::NotServed => {
                (format!("does not serve {version} (served: false)"), format!("do not serve {version} (served: false)"))
            }
            PassedOver::Version => (format!("does not declare {version}"), format!("do not declare {version}")),
            PassedOver::Precedence => {
                let kind = d.crd.kind.describe();
                (format!("comes later in precedence (a {kind} source)"), format!("come later in precedence ({kind} sources)"))
            }
            PassedOver::Packaged => (
                "is a packaging copy (in an OLM bundle, beside a ClusterServiceVersion)".to_string(),
                "are packaging copies (in OLM bundles, beside a ClusterServiceVersion)".to_string(),
            ),
            PassedOver::Patched => (
                "is the file as written, which a kustomization that includes it patches (the CRD it outputs is used)".to_string(),
                "are files as written, which a kustomization that includes them patches (the CRD it outputs is used)".to_string(),
            ),
            PassedOver::Farther => ("is farther from the file".to_string(), "are farther from the file".to_string()),
            PassedOver::Legacy => (
                "is as near, but written as apiextensions.k8s.io/v1beta1, which no cluster since 1.22 installs".to_string(),
                "are as near, but written as apiextensions.k8s.io/v1beta1, which no cluster since 1.22 installs".to_string(),
            ),
            PassedOver::Order => {
                ("is as near, and its name sorts later".to_string(), "are as near, and their names sort later".to_string())
            }
        };
        match clauses.iter_mut().find(|(reason, _, _)| *reason == one) {
            Some((_, _, names)) => names.push(name(d.crd)),
            None => clauses.push((one, many, vec![name(d.crd)])),
        }
    }
    let clauses: Vec<String> = clauses
        .into_iter()
        .map(|(one, many, names)| match names.as_slice() {
            [single] => format!("{single} {one}"),
            [first @ .., last] => format!("{} and {last} {many}", first.join(", ")),
            [] => String::new(),
        })
        .collect();
    clauses.join("; ")
}

impl CrdIndex {
    /// An empty index.
    pub fn new() -> CrdIndex {
        CrdIndex::default()
    }

    /// This index as seen from the file `source` (a path or URI named as the index names sources):
    /// where several sources define one CRD, its objects resolve to the nearest definition.
    pub fn seen_from(&self, source: &str) -> CrdIndex {
        CrdIndex { data: self.data.clone(), from: Some(Arc::from(source)) }
    }

    /// The file this index is seen from, if any.
    pub fn viewpoint(&self) -> Option<&str> {
        self.from.as_deref()
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
        let data = Arc::make_mut(&mut self.data);
        let crds: Vec<Arc<Crd>> = crds.into_iter().map(Arc::new).collect();
        for crd in &crds {
            let list = data.by_group.entry(crd.group.clone()).or_default();
            let at = list.iter().position(|c| c.kind > origin.kind).unwrap_or(list.len());
            list.insert(at, IndexedCrd { source: source.clone(), kind: origin.kind, crd: crd.clone() });
        }
        if origin != Origin::default() {
            data.origins.insert(source.clone(), origin);
        }
        data.by_source.insert(source, crds);
    }

    /// Where `source` came from (a workspace file unless it was indexed with another origin).
    pub fn origin_of(&self, source: &str) -> Origin {
        self.data.origins.get(source).cloned().unwrap_or_default()
    }

    /// Forgets everything `source` contributed.
    pub fn remove_source(&mut self, source: &str) {
        if !self.data.by_source.contains_key(source) && !self.data.origins.contains_key(source) {
            return;
        }
        let data = Arc::make_mut(&mut self.data);
        data.origins.remove(source);
        let Some(old) = data.by_source.remove(source) else { return };
        for crd in old {
            if let Some(list) = data.by_group.get_mut(&crd.group) {
                list.retain(|c| &*c.source != source);
                if list.is_empty() {
                    data.by_group.remove(&crd.group);
                }
            }
        }
    }

    /// Marks `source` as a packaging copy, or not: a file of an OLM bundle (its directory holds a
    /// ClusterServiceVersion), which `make bundle` generates from the project's own CRDs and which is as
    /// old as the release it packages. Among definitions that serve an object's version, of the same
    /// kind of source, such a copy comes after one that is not, unless the object's file lies in the
    /// copy's directory (an object of the bundle itself). Kept whatever the source's CRDs become.
    pub fn set_packaged(&mut self, source: &str, packaged: bool) {
        if self.data.packaged.contains(source) == packaged {
            return;
        }
        let data = Arc::make_mut(&mut self.data);
        if packaged {
            data.packaged.insert(Arc::from(source));
        } else {
            data.packaged.remove(source);
        }
    }

    /// Replaces the mutating admission webhooks `source` installs (its `MutatingWebhookConfiguration`s)
    /// with `webhooks`; an empty list forgets them. Kept apart from the source's CRDs: a file may hold
    /// either, and replacing its CRDs leaves its webhooks.
    pub fn set_webhooks(&mut self, source: &str, webhooks: Vec<MutatingWebhook>) {
        if webhooks.is_empty() && !self.data.webhooks.contains_key(source) {
            return;
        }
        let data = Arc::make_mut(&mut self.data);
        if webhooks.is_empty() {
            data.webhooks.remove(source);
        } else {
            data.webhooks.insert(Arc::from(source), webhooks.into_iter().map(Arc::new).collect());
        }
    }

    /// Forgets every source's mutating webhooks (before a scan sets them all again).
    pub fn clear_webhooks(&mut self) {
        if !self.data.webhooks.is_empty() {
            Arc::make_mut(&mut self.data).webhooks.clear();
        }
    }

    /// The mutating webhooks that may change a create of `resource` before the API server validates it,
    /// each with the source that installs it, and how they match: those whose rules name the resource
    /// if any, else those without rules when `own_type` (the resource's CRD is the workspace's); sources
    /// in order of their names.
    pub fn mutating_webhooks_for(
        &self,
        resource: &CreatedResource<'_>,
        own_type: bool,
    ) -> Option<(Vec<(&SourceId, &MutatingWebhook)>, WebhookMatch)> {
        [WebhookMatch::Rule, WebhookMatch::RuntimeRules].into_iter().find_map(|wanted| {
            let found: Vec<(&SourceId, &MutatingWebhook)> = self
                .data
                .webhooks
                .iter()
                .flat_map(|(source, hooks)| hooks.iter().map(move |h| (source, &**h)))
                .filter(|(_, hook)| hook.matches(resource, own_type) == Some(wanted))
                .collect();
            (!found.is_empty()).then_some((found, wanted))
        })
    }

    /// The number of CRDs indexed.
    pub fn len(&self) -> usize {
        self.data.by_source.values().map(Vec::len).sum()
    }

    /// The sources that hold CRDs.
    pub fn sources(&self) -> impl Iterator<Item = &SourceId> {
        self.data.by_source.iter().filter(|(_, crds)| !crds.is_empty()).map(|(s, _)| s)
    }

    /// Whether no CRD is indexed.
    pub fn is_empty(&self) -> bool {
        self.data.by_source.is_empty()
    }

    /// Every indexed CRD, in no particular order.
    pub fn iter(&self) -> impl Iterator<Item = &IndexedCrd> {
        self.data.by_group.values().flatten()
    }

    /// The CRDs of `source`.
    pub fn crds_of(&self, source: &str) -> &[Arc<Crd>] {
        self.data.by_source.get(source).map_or(&[], Vec::as_slice)
    }

    /// Whether some CRD declares `group`.
    pub fn has_group(&self, group: &str) -> bool {
        self.data.by_group.contains_key(group)
    }

    /// How well `crd` fits an object of `version` in the file the index is seen from.
    fn fit<'a>(&self, crd: &'a IndexedCrd, version: &str) -> Fit<'a> {
        let placed = matches!(crd.kind, SourceKind::Workspace | SourceKind::Configured);
        Fit {
            version: VersionFit::of(&crd.crd, version),
            kind: crd.kind,
            packaged: placed
                && self.data.packaged.contains(&crd.source)
                && !self.from.as_deref().is_some_and(|from| in_dir_of(from, &crd.source)),
            superseded: placed && self.is_patched_elsewhere(crd),
            distance: self.from.as_deref().filter(|_| placed).map(|from| Distance::between(from, &crd.source)),
            legacy: crd.crd.api_version == CrdApiVersion::V1beta1,
            name: SourceName(if placed { &crd.source } else { "" }),
        }
    }

    /// Whether `crd`, a definition as written, is the input of a CRD a kustomization outputs patched: an
    /// indexed definition of the same CRD whose [`Crd::patched_from`] leads to `crd`'s source.
    fn is_patched_elsewhere(&self, crd: &IndexedCrd) -> bool {
        if crd.crd.patched_from.is_some() {
            return false;
        }
        let Some(list) = self.data.by_group.get(&crd.crd.group) else { return false };
        list.iter().any(|other| {
            other.crd.name == crd.crd.name
                && other.crd.patched_from.as_deref().is_some_and(|from| relative_source(&other.source, from) == *crd.source)
        })
    }

    /// Resolves an `apiVersion` (`group/version`) and `kind`. When several sources define the kind,
    /// the definition used is, in this order of criteria:
    /// 1. one that serves the version (then one that declares it unserved);
    /// 2. one of the kind of source that comes first (see [`SourceKind`]);
    /// 3. one that is not a packaging copy (see [`CrdIndex::set_packaged`]);
    /// 4. one that is not a file as written which a kustomization that includes it patches: that
    ///    kustomization's output (see [`Crd::patched_from`]) is what is installed;
    /// 5. among workspace files and configured paths, the nearest to the file the index is seen from
    ///    (see [`Distance`]); among those as near, one written as `apiextensions.k8s.io/v1` (a cluster can
    ///    install it) before a `v1beta1` one, and then the first by name (see [`SourceName`]: the newest
    ///    of bundles named by release first, otherwise in byte order);
    /// 6. the first one indexed.
    pub fn resolve(&self, api_version: &str, kind: &str) -> Resolution<'_> {
        let (group, version) = split_api_version(api_version);
        let Some(crds) = self.data.by_group.get(group) else { return Resolution::UnknownGroup };
        // `min_by_key` keeps the first of equals: the one indexed first.
        match crds.iter().filter(|c| c.crd.names.kind == kind).min_by_key(|c| self.fit(c, version)) {
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

    /// Every definition of `kind` in the group of `api_version`, the one [`CrdIndex::resolve`] chooses
    /// first, each with why it was passed over; empty when the group does not declare the kind.
    pub fn definitions(&self, api_version: &str, kind: &str) -> Vec<Definition<'_>> {
        let (group, version) = split_api_version(api_version);
        let Some(crds) = self.data.by_group.get(group) else { return Vec::new() };
        let mut ranked: Vec<(Fit<'_>, &IndexedCrd)> =
            crds.iter().filter(|c| c.crd.names.kind == kind).map(|c| (self.fit(c, version), c)).collect();
        // A stable sort keeps equals in the order they were indexed, as `resolve` does.
        ranked.sort_by_key(|(fit, _)| *fit);
        let Some(&(best, _)) = ranked.first() else { return Vec::new() };
        ranked
            .iter()
            .enumerate()
            .map(|(i, (fit, crd))| {
                let passed_over = (i > 0).then(|| {
                    if fit.version != best.version {
                        PassedOver::Version
                    } else if fit.kind != best.kind {
                        PassedOver::Precedence
                    } else if fit.packaged != best.packaged {
                        PassedOver::Packaged
                    } else if fit.superseded != best.superseded {
                        PassedOver::Patched
                    } else if fit.distance != best.distance {
                        PassedOver::Farther
                    } else if fit.legacy != best.legacy {
                        PassedOver::Legacy
                    } else {
                        PassedOver::Order
                    }
                });
                Definition { crd, version: fit.version, passed_over }
            })
            .collect()
    }
}

/// The source that `relative` (a path with `/` separators, `..` allowed) names from the directory of
/// `source` (a path or URI, named as the index names sources): `a/k/kustomization.yaml` and
/// `../crd/x.yaml` give `a/crd/x.yaml`. A `..` above the top of a relative source is kept.
pub fn relative_source(source: &str, relative: &str) -> String {
    let dir = source.rfind('/').map_or("", |slash| &source[..slash]);
    let mut parts: Vec<&str> = if dir.is_empty() { Vec::new() } else { dir.split('/').collect() };
    // The parts of `dir` that a `..` may remove: not a URI's scheme and authority, nor a leading `/`.
    let fixed = if source.contains("://") { 3 } else { usize::from(source.starts_with('/')) };
    for part in relative.split('/') {
        match part {
            "" | "." => {}
            ".." if parts.len() > fixed && parts.last().is_some_and(|p| *p != "..") => {
                parts.pop();
            }
            other => parts.push(other),
        }
    }
    parts.join("/")
}

/// Whether `file` lies in the directory of `source`, or below it (both named alike: paths or URIs).
fn in_dir_of(file: &str, source: &str) -> bool {
    match source.rfind('/') {
        Some(slash) => file.len() > slash && file.starts_with(&source[..=slash]),
        // A source at the top of relative paths: every file lies below its directory.
        None => true,
    }
}

/// Splits `group/version`; a bare version is the core group (`""`).
pub fn split_api_version(api_version: &str) -> (&str, &str) {
    match api_version.rsplit_once('/') {
        Some((group, version)) => (group, version),
        None => ("", api_version),
    }
}
