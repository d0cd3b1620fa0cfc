//! One shared copy of each text that many schema nodes repeat: types, formats and, above all,
//! descriptions, which CRDs copy from one another (a PodSpec or an ObjectReference embedded in many
//! CRDs, the same provider fields in every managed resource of a Crossplane provider). A workspace of
//! thousands of CRDs holds each such text once. The same goes for whole sub-schemas of the CRDs read
//! identity first (see [`shared_schema`]).

use std::collections::{HashMap, HashSet};
use std::sync::{Arc, Mutex, Weak};

use crate::schema::Schema;

static TABLE: Mutex<Option<HashSet<Arc<str>>>> = Mutex::new(None);

/// Sub-schemas read without positions, by the 128-bit hash of their YAML; held weakly, so that a
/// schema lives as long as some CRD holds it.
static SCHEMAS: Mutex<Option<SchemaTable>> = Mutex::new(None);

#[derive(Default)]
struct SchemaTable {
    by_hash: HashMap<u128, Weak<Schema>>,
    /// The size at which dead entries are swept next.
    sweep_at: usize,
}

/// The shared copy of the sub-schema `made`, whose YAML hashes to `hash`: one read before and still
/// held, else `made`.
pub(crate) fn shared_schema(hash: u128, made: Schema) -> Arc<Schema> {
    let mut guard = SCHEMAS.lock().unwrap_or_else(|e| e.into_inner());
    let table = guard.get_or_insert_with(SchemaTable::default);
    if let Some(found) = table.by_hash.get(&hash).and_then(Weak::upgrade) {
        return found;
    }
    let made = Arc::new(made);
    table.by_hash.insert(hash, Arc::downgrade(&made));
    if table.by_hash.len() >= table.sweep_at {
        table.by_hash.retain(|_, schema| schema.strong_count() > 0);
        table.sweep_at = (table.by_hash.len() * 2).max(1024);
    }
    made
}

/// The shared copy of `text`.
pub fn shared(text: &str) -> Arc<str> {
    let mut guard = TABLE.lock().unwrap_or_else(|e| e.into_inner());
    let table = guard.get_or_insert_with(HashSet::new);
    if let Some(found) = table.get(text) {
        return found.clone();
    }
    let made: Arc<str> = Arc::from(text);
    table.insert(made.clone());
    made
}

/// Forgets the texts and sub-schemas no schema holds any more (after a language server drops CRDs
/// from its index).
pub fn prune() {
    if let Some(table) = SCHEMAS.lock().unwrap_or_else(|e| e.into_inner()).as_mut() {
        table.by_hash.retain(|_, schema| schema.strong_count() > 0);
    }
    let mut guard = TABLE.lock().unwrap_or_else(|e| e.into_inner());
    if let Some(table) = guard.as_mut() {
        table.retain(|text| Arc::strong_count(text) > 1);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn equal_texts_share_one_copy_until_nobody_holds_it() {
        let a = shared("The number of replicas.");
        let b = shared(&String::from("The number of replicas."));
        assert!(Arc::ptr_eq(&a, &b));
        drop((a, b));
        prune();
        let guard = TABLE.lock().unwrap();
        assert!(!guard.as_ref().is_some_and(|t| t.contains("The number of replicas.")));
    }
}
