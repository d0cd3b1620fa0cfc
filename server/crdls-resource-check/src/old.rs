//! Old objects, for checking an update as the API server does: transition rules (`oldSelf`) run against
//! the old version of each object, and validation ratcheting lets an unchanged invalid value through.
//! Objects are matched to their old versions by group, kind, namespace and name.

use std::collections::HashMap;

use crdls_crd::{split_api_version, Schema};
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

/// Whether an update's schema error at `path` is ratcheted (let through), as the API server's
/// ratcheting validator decides: the error is dropped when the deepest node on its path that can be
/// correlated with the old object (`CorrelatedObject`) equals its old value. Fields correlate by name
/// (the root's `apiVersion` and `kind` never do), items of a map list by their keys; items of other
/// lists do not correlate, so an error in one is let through only when the whole list is unchanged.
/// Equality is the correlated one: a map list equals its old value when each item, found by its
/// keys, is equal (an item that cannot be found, or is not an object, makes it unequal).
pub fn ratcheted(new: &Node, old: &Node, schema: &Schema, path: &str) -> bool {
    use crdls_yaml::Segment;
    let followed = crdls_yaml::follow(new, path);
    let (mut new_at, mut old_at, mut schema_at) = (new, old, Some(schema));
    for (depth, (segment, next)) in followed.segments.iter().zip(&followed.nodes[1..]).enumerate() {
        let correlated = match segment {
            Segment::Key(key) if depth == 0 && matches!(*key, "apiVersion" | "kind") => None,
            // A field correlates only where its schema has it (a property, or `additionalProperties`):
            // `CorrelatedObject.Key` gives up elsewhere.
            Segment::Key(key) => old_at.get(key).zip(schema_at.and_then(|s| child_schema(s, key))).map(|(o, s)| (o, Some(s))),
            Segment::Index(_) => {
                let items = schema_at.and_then(|s| s.items.as_deref());
                map_list_keys(schema_at).and_then(|keys| correlate_item(next, old_at, &keys)).map(|o| (o, items))
            }
        };
        let Some((old_child, child)) = correlated else { break };
        (new_at, old_at, schema_at) = (next, old_child, child);
    }
    correlated_equal(new_at, old_at, schema_at, 0)
}

/// The schema of a field: a property's, or the `additionalProperties` schema's.
fn child_schema<'s>(schema: &'s Schema, key: &str) -> Option<&'s Schema> {
    if let Some(p) = schema.property(key) {
        return Some(&p.schema);
    }
    match &schema.additional_properties {
        Some(crdls_crd::AdditionalProperties::Schema(values)) => Some(values),
        _ => None,
    }
}

/// The keys of a map list's schema.
fn map_list_keys(schema: Option<&Schema>) -> Option<Vec<String>> {
    let schema = schema.filter(|s| s.list_type.as_deref() == Some("map"))?;
    Some(schema.rare().list_map_keys.clone())
}

/// The old item of a map list with the same keys as `item` (an object), if any.
fn correlate_item<'o>(item: &Node, old_list: &'o Node, keys: &[String]) -> Option<&'o Node> {
    if !matches!(item.value, Value::Map(_)) {
        return None;
    }
    // An item whose key is missing or not a scalar (`CompositeKeyFor`: a bool, number or string) has no
    // key, and correlates with nothing.
    let scalar = |n: &Node| matches!(n.value, Value::Bool(_) | Value::Int(_) | Value::Float(_) | Value::Str(_));
    let same_key = |o: &Node| {
        keys.iter().all(|k| match (item.get(k), o.get(k)) {
            (Some(a), Some(b)) => scalar(a) && scalar(b) && same_data(a, b),
            _ => false,
        })
    };
    old_list.as_seq()?.iter().find(|o| matches!(o.value, Value::Map(_)) && same_key(o))
}

/// The API server's `CachedDeepEqual` of a correlated node: map lists compare item by item through
/// their keys, objects key by key through their schema, everything else as data.
pub(crate) fn correlated_equal(new: &Node, old: &Node, schema: Option<&Schema>, depth: usize) -> bool {
    if depth > 64 {
        return same_data(new, old);
    }
    match (&new.value, &old.value) {
        (Value::Seq(items), Value::Seq(old_items)) => match map_list_keys(schema) {
            Some(keys) => {
                let item_schema = schema.and_then(|s| s.items.as_deref());
                items.len() == old_items.len()
                    && items.iter().all(|i| correlate_item(i, old, &keys).is_some_and(|o| correlated_equal(i, o, item_schema, depth + 1)))
            }
            None => same_data(new, old),
        },
        // A key its schema does not describe does not correlate, and an object with one is never equal
        // to its old value: so a resource root (its `apiVersion`, `kind` and `metadata`, whose
        // ObjectMeta fields no CRD schema lists in full) never is, nor is an object holding fields that
        // preserve-unknown-fields kept.
        (Value::Map(entries), Value::Map(old_entries)) => {
            entries.len() == old_entries.len()
                && entries.iter().all(|e| {
                    let child = schema.and_then(|s| child_schema(s, &e.key));
                    child.is_some() && old.get(&e.key).is_some_and(|o| correlated_equal(&e.value, o, child, depth + 1))
                })
        }
        _ => same_data(new, old),
    }
}
