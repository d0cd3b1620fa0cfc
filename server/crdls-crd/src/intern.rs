//! One shared copy of each text that many schema nodes repeat: types, formats and, above all,
//! descriptions, which CRDs copy from one another (a PodSpec or an ObjectReference embedded in many
//! CRDs, the same provider fields in every managed resource of a Crossplane provider). A workspace of
//! thousands of CRDs holds each such text once.

use std::collections::HashSet;
use std::sync::{Arc, Mutex};

static TABLE: Mutex<Option<HashSet<Arc<str>>>> = Mutex::new(None);

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

/// Forgets the texts no schema holds any more (after a language server drops CRDs from its index).
pub fn prune() {
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
