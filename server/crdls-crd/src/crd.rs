//! The CustomResourceDefinition model, read from `apiextensions.k8s.io/v1` and legacy `v1beta1` documents.

use std::sync::Arc;

use crdls_yaml::{Document, Node};

use crdls_diagnostics::TextRange;

use crate::lazy::{SchemaCell, Slot, TextReader};
use crate::schema::Schema;
use crate::version::compare_versions;

/// Which API version of CustomResourceDefinition a document uses.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum CrdApiVersion {
    /// `apiextensions.k8s.io/v1`.
    V1,
    /// `apiextensions.k8s.io/v1beta1`, no longer served since Kubernetes 1.22.
    V1beta1,
}

/// The `spec.names` of a CRD.
#[derive(Clone, Debug, Default)]
pub struct Names {
    /// `kind`.
    pub kind: String,
    /// `plural`.
    pub plural: String,
    /// `singular`.
    pub singular: Option<String>,
    /// `listKind`.
    pub list_kind: Option<String>,
    /// `shortNames`.
    pub short_names: Vec<String>,
    /// `categories`.
    pub categories: Vec<String>,
}

/// One CRD.
#[derive(Clone, Debug)]
pub struct Crd {
    /// `metadata.name`.
    pub name: String,
    /// Which API version the CRD was written in.
    pub api_version: CrdApiVersion,
    /// `spec.group`.
    pub group: String,
    /// `spec.names`.
    pub names: Names,
    /// `spec.scope` (`Namespaced` or `Cluster`).
    pub scope: String,
    /// The versions, in Kubernetes version-priority order (highest first).
    pub versions: Vec<CrdVersion>,
    /// The range of `spec.names.kind`'s value, or where the object starts when it has none.
    pub kind_range: TextRange,
    /// For a CRD as a kustomization outputs it, which patches it: the file the CRD was read from before
    /// those patches, as a path relative to the kustomization's directory (the CRD's source is the
    /// kustomization). Its ranges are that file's, except where a patch wrote the node.
    pub patched_from: Option<String>,
}

/// One entry of `spec.versions`.
#[derive(Clone, Debug)]
pub struct CrdVersion {
    /// `name`.
    pub name: String,
    /// The range of the version name in the CRD file.
    pub name_range: TextRange,
    /// `served`.
    pub served: bool,
    /// `storage`.
    pub storage: bool,
    /// `deprecated`.
    pub deprecated: bool,
    /// `deprecationWarning`.
    pub deprecation_warning: Option<String>,
    /// `schema.openAPIV3Schema` (or v1beta1's `spec.validation.openAPIV3Schema`), when there is
    /// one: built already, or built from the CRD's source on first use (see [`crate::lazy`]).
    schema: Arc<SchemaCell>,
    /// Whether the version has the status subresource (`subresources.status`), so that the API server
    /// ignores the `status` of a manifest: dropped on create, kept from the stored object on update.
    pub status_subresource: bool,
}

impl Crd {
    /// Reads every CRD in a document: a CustomResourceDefinition, or a `List` of them. A document cut
    /// short by a syntax error yields none: what was read of it (versions without their `served`
    /// flag, a schema missing its last properties) would make its resources fail for the wrong reason.
    pub fn from_document(doc: &Document) -> Vec<Crd> {
        if doc.has_syntax_error {
            return Vec::new();
        }
        let Some(root) = &doc.root else { return Vec::new() };
        let mut out = Vec::new();
        collect(root, &mut Eager, &mut out);
        out
    }

    /// Every CRD at `root` (a CustomResourceDefinition, or a `List` of them), read whole.
    pub fn from_root(root: &Node) -> Vec<Crd> {
        let mut out = Vec::new();
        collect(root, &mut Eager, &mut out);
        out
    }

    /// The CRDs of a whole text, read identity first: group, names, versions and their flags now,
    /// each version's schema from `reader` (the source's text as it is then) when first asked for.
    /// The `openAPIV3Schema` values, nearly all of a CRD's bytes, are cut out before parsing when
    /// they are written in block style (see [`crate::lazy::without_schemas`]); anything else is
    /// parsed whole. The result is what [`Crd::from_document`] reads from each document.
    pub fn read_identities(text: &str, reader: TextReader) -> Vec<Crd> {
        crate::lazy::read_identities(text, reader)
    }

    /// Whether [`Crd::read_identities`] reads `text` the fast way, its schemas cut out before parsing
    /// (for tests and benchmarks).
    pub fn identities_are_read_cut(text: &str) -> bool {
        crate::lazy::cut_parses(text).is_some()
    }

    /// The version named `name`.
    pub fn version(&self, name: &str) -> Option<&CrdVersion> {
        self.versions.iter().find(|v| v.name == name)
    }

    /// The storage version, if exactly one is marked.
    pub fn storage_version(&self) -> Option<&CrdVersion> {
        self.versions.iter().find(|v| v.storage)
    }

    /// `group/version` for one of the CRD's versions.
    pub fn api_version_of(&self, version: &str) -> String {
        format!("{}/{}", self.group, version)
    }

    /// Whether the CRD can serve resources at all and so belongs in the index: it names a group that
    /// could be a CRD group (a domain with a dot; never the core group or a dot-less built-in one such
    /// as `apps`), a kind, and at least one named version. Test assertions, references that only name a
    /// CRD (`spec: {}`) and half-written CRDs fail this: they claim nothing (the half-written ones still
    /// get their own errors when checked).
    pub fn is_indexable(&self) -> bool {
        self.group.contains('.')
            && !self.names.kind.is_empty()
            && self.versions.iter().any(|v| !v.name.is_empty())
            // A CRD whose versions are only named, none served or stored (a placeholder a deploy tool waits
            // for), is one the API server rejects (it has no storage version): it defines nothing.
            && self.versions.iter().any(|v| v.served || v.storage)
    }
}

impl CrdVersion {
    /// The version's schema: built, or built now from the source (`None` when the version has none,
    /// or when a source that changed since it was indexed no longer holds it).
    pub fn schema(&self) -> Option<&Arc<Schema>> {
        self.schema.get()
    }

    /// The version's schema with the range of every node in the CRD's source (for go-to-definition):
    /// [`CrdVersion::schema`] when the CRD was read whole; read again from the source when it was read
    /// identity first, whose schemas keep no positions so that equal sub-schemas can be shared.
    pub fn located_schema(&self) -> Option<Arc<Schema>> {
        self.schema.located()
    }

    /// Whether the version has a schema, built (when read identity first, it is built on first use).
    pub fn schema_is_built(&self) -> bool {
        self.schema.is_built()
    }
}

/// Makes the schema of each version as a CRD is read: built from the node at once, or deferred.
pub(crate) trait SchemaMaker {
    /// The schema found at `slot` of the CRD at `root`, whose node is `schema`.
    fn make(&mut self, root: &Node, slot: Slot, schema: &Node) -> Arc<SchemaCell>;
}

/// Builds every schema as it is read.
struct Eager;

impl SchemaMaker for Eager {
    fn make(&mut self, _root: &Node, _slot: Slot, schema: &Node) -> Arc<SchemaCell> {
        Arc::new(SchemaCell::ready(Some(Arc::new(Schema::from_node(schema)))))
    }
}

/// Whether a document's root is a CustomResourceDefinition (of either API version).
pub fn is_crd(root: &Node) -> Option<CrdApiVersion> {
    if root.get_str("kind") != Some("CustomResourceDefinition") {
        return None;
    }
    match root.get_str("apiVersion") {
        Some("apiextensions.k8s.io/v1") => Some(CrdApiVersion::V1),
        Some("apiextensions.k8s.io/v1beta1") => Some(CrdApiVersion::V1beta1),
        _ => None,
    }
}

pub(crate) fn collect(root: &Node, maker: &mut dyn SchemaMaker, out: &mut Vec<Crd>) {
    crd_objects(root, &mut |node, api_version| {
        if let Some(crd) = read_crd(node, api_version, maker) {
            out.push(crd);
        }
        false
    });
}

/// Visits the CRD objects at or below `root` (a CRD, or a `List` of them) in order, until `visit`
/// returns true; returns the object it stopped at.
pub(crate) fn crd_objects<'a>(root: &'a Node, visit: &mut dyn FnMut(&'a Node, CrdApiVersion) -> bool) -> Option<&'a Node> {
    if let Some(api_version) = is_crd(root) {
        return visit(root, api_version).then_some(root);
    }
    let kind = root.get_str("kind").unwrap_or_default();
    if kind == "List" || kind == "CustomResourceDefinitionList" {
        return root.get("items").and_then(Node::as_seq).unwrap_or_default().iter().find_map(|item| crd_objects(item, visit));
    }
    None
}

fn read_crd(root: &Node, api_version: CrdApiVersion, maker: &mut dyn SchemaMaker) -> Option<Crd> {
    let spec = root.get("spec")?;
    let names_node = spec.get("names");
    let strings = |n: Option<&Node>| -> Vec<String> {
        n.and_then(Node::as_seq).map(|s| s.iter().filter_map(|i| i.as_str().map(str::to_string)).collect()).unwrap_or_default()
    };
    let names = Names {
        kind: names_node.and_then(|n| n.get_str("kind")).unwrap_or_default().to_string(),
        plural: names_node.and_then(|n| n.get_str("plural")).unwrap_or_default().to_string(),
        singular: names_node.and_then(|n| n.get_str("singular")).map(str::to_string),
        list_kind: names_node.and_then(|n| n.get_str("listKind")).map(str::to_string),
        short_names: strings(names_node.and_then(|n| n.get("shortNames"))),
        categories: strings(names_node.and_then(|n| n.get("categories"))),
    };
    let kind_range = names_node.and_then(|n| n.get("kind")).map_or(TextRange::empty(root.range.start), |k| k.range);
    let legacy_schema = match schema_node(root, api_version, &Slot::Legacy) {
        Some(node) => maker.make(root, Slot::Legacy, node),
        None => Arc::new(SchemaCell::ready(None)),
    };
    // v1beta1 may declare subresources once for every version; a version's own entry wins.
    let shared_status = has_status_subresource(spec);
    let mut versions: Vec<CrdVersion> = Vec::new();
    for (index, v) in spec.get("versions").and_then(Node::as_seq).unwrap_or_default().iter().enumerate() {
        let Some(name_node) = v.get("name") else { continue };
        let name = name_node.as_str().unwrap_or_default().to_string();
        let slot = Slot::Version { index, name: name.clone() };
        let schema = match schema_node(root, api_version, &slot) {
            Some(node) => maker.make(root, slot, node),
            None => legacy_schema.clone(),
        };
        versions.push(CrdVersion {
            name,
            name_range: name_node.range,
            served: bool_field(v, "served", api_version == CrdApiVersion::V1beta1),
            storage: bool_field(v, "storage", false),
            deprecated: bool_field(v, "deprecated", false),
            deprecation_warning: v.get_str("deprecationWarning").map(str::to_string),
            schema,
            status_subresource: if v.get("subresources").is_some() { has_status_subresource(v) } else { shared_status },
        });
    }
    if versions.is_empty() && api_version == CrdApiVersion::V1beta1 {
        if let Some(name_node) = spec.get("version") {
            versions.push(CrdVersion {
                name: name_node.as_str().unwrap_or_default().to_string(),
                name_range: name_node.range,
                served: true,
                storage: true,
                deprecated: false,
                deprecation_warning: None,
                schema: legacy_schema,
                status_subresource: shared_status,
            });
        }
    }
    versions.sort_by(|a, b| compare_versions(&a.name, &b.name));
    Some(Crd {
        name: root.get("metadata").and_then(|m| m.get_str("name")).unwrap_or_default().to_string(),
        api_version,
        group: spec.get_str("group").unwrap_or_default().to_string(),
        names,
        scope: spec.get_str("scope").unwrap_or_default().to_string(),
        versions,
        kind_range,
        patched_from: None,
    })
}

/// The schema node at `slot` of the CRD at `root`: a version's own (found by its position, or by its
/// name if the list changed), or v1beta1's schema for every version.
pub(crate) fn schema_node<'a>(root: &'a Node, api_version: CrdApiVersion, slot: &Slot) -> Option<&'a Node> {
    let spec = root.get("spec")?;
    match slot {
        Slot::Legacy => (api_version == CrdApiVersion::V1beta1).then(|| spec.get("validation")?.get("openAPIV3Schema")).flatten(),
        Slot::Version { index, name } => {
            let versions = spec.get("versions")?.as_seq()?;
            let named = |v: &&Node| v.get("name").and_then(Node::as_str).unwrap_or_default() == name;
            let entry = versions.get(*index).filter(named).or_else(|| versions.iter().find(named))?;
            entry.get("schema")?.get("openAPIV3Schema")
        }
    }
}

/// Whether `node` (a version, or a v1beta1 spec) has `subresources.status` set to an object.
fn has_status_subresource(node: &Node) -> bool {
    node.get("subresources").and_then(|s| s.get("status")).is_some_and(|s| matches!(s.value, crdls_yaml::Value::Map(_)))
}

fn bool_field(node: &Node, key: &str, default: bool) -> bool {
    match node.get(key).map(|n| &n.value) {
        Some(crdls_yaml::Value::Bool(b)) => *b,
        _ => default,
    }
}
