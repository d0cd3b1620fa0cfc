//! Old objects, for checking an update as the API server does: transition rules (`oldSelf`) run against
//! the old version of each object, and validation ratcheting lets an unchanged invalid value through.
//! Objects are matched to their old versions by group, kind, namespace and name.

use std::collections::HashMap;

use crdls_crd::split_api_version;
use crdls_yaml::{Node, Stream, Value};

/// What identifies an object across versions of a file.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
struct ObjectKey {
    group: String,
    kind: String,
    namespace: String,
    name: String,
}

impl ObjectKey {
    fn of(root: &Node) -> Option<ObjectKey> {
        let (group, _) = split_api_version(root.get_str("apiVersion")?);
        let metadata = root.get("metadata")?;
        Some(ObjectKey {
            group: group.to_string(),
            kind: root.get_str("kind")?.to_string(),
            namespace: metadata.get_str("namespace").unwrap_or_default().to_string(),
            name: metadata.get_str("name")?.to_string(),
        })
    }
}

/// The old versions of objects.
#[derive(Clone, Debug, Default)]
pub struct OldObjects {
    objects: HashMap<ObjectKey, Node>,
}

impl OldObjects {
    /// No old objects: every object is being created.
    pub fn new() -> OldObjects {
        OldObjects::default()
    }

    /// Adds the objects of a parsed file (documents the parser could not finish are left out).
    pub fn add_stream(&mut self, stream: &Stream) {
        for doc in stream.documents.iter().filter(|d| !d.has_syntax_error) {
            let Some(root) = &doc.root else { continue };
            if let Some(key) = ObjectKey::of(root) {
                self.objects.insert(key, root.clone());
            }
        }
    }

    /// Adds one object.
    pub fn add_root(&mut self, root: &Node) {
        if let Some(key) = ObjectKey::of(root) {
            self.objects.insert(key, root.clone());
        }
    }

    /// The old version of the object `root`, when there is one.
    pub fn get(&self, root: &Node) -> Option<&Node> {
        self.objects.get(&ObjectKey::of(root)?)
    }

    /// How many old objects there are.
    pub fn len(&self) -> usize {
        self.objects.len()
    }

    /// Whether there are none.
    pub fn is_empty(&self) -> bool {
        self.objects.is_empty()
    }
}

/// The custom resources a front end knows besides the checked document (the workspace's files), so
/// that a change of their CRD can say which of them it breaks.
pub trait ObjectSource: std::fmt::Debug + Send + Sync {
    /// At most `limit` objects of `kind` in `group`, in a stable order.
    fn objects_of(&self, group: &str, kind: &str, limit: usize) -> Vec<SourcedObject>;
}

/// One object of an [`ObjectSource`].
#[derive(Clone, Debug)]
pub struct SourcedObject {
    /// Where it is, as the front end shows a file (a relative path, a URI).
    pub source: String,
    /// The 0-based line it starts on.
    pub line: u32,
    /// The object.
    pub root: Node,
}

/// Whether two nodes hold the same data, ranges and styles aside (Kubernetes' semantic equality:
/// maps compare without order, numbers by value).
pub fn same_data(a: &Node, b: &Node) -> bool {
    match (&a.value, &b.value) {
        (Value::Map(x), Value::Map(y)) => {
            x.len() == y.len() && x.iter().all(|e| y.iter().find(|f| f.key == e.key).is_some_and(|f| same_data(&e.value, &f.value)))
        }
        (Value::Seq(x), Value::Seq(y)) => x.len() == y.len() && x.iter().zip(y).all(|(p, q)| same_data(p, q)),
        (Value::Int(i), Value::Float(f)) | (Value::Float(f), Value::Int(i)) => *i as f64 == *f,
        (x, y) => x == y,
    }
}

/// The node at an API-server field path (`spec.ports[0].name`, `spec.labels[app]`, keys with dots
/// matched longest first), or else how deep the path got and the deepest node it reached.
pub fn node_at<'n>(root: &'n Node, path: &str) -> Result<&'n Node, (usize, &'n Node)> {
    let followed = crdls_yaml::follow(root, path);
    if followed.complete() {
        Ok(followed.node())
    } else {
        Err((followed.segments.len(), followed.node()))
    }
}

/// Whether an error at `path` concerns data the update leaves as it was: the value at the path (or,
/// when it is absent from both, the object that lacks it) is the same in the old object.
pub fn unchanged_at(new: &Node, old: &Node, path: &str) -> bool {
    match (node_at(new, path), node_at(old, path)) {
        (Ok(a), Ok(b)) => same_data(a, b),
        (Err((da, a)), Err((db, b))) => da == db && same_data(a, b),
        _ => false,
    }
}
