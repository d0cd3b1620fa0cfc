//! Objects a deploy tool never creates, told by their annotations: kapp waits for an object annotated
//! `kapp.k14s.io/exists` to exist (something else creates it: an operator, another install) and does not
//! apply one annotated `kapp.k14s.io/noop`. Such a document only names an object (often a placeholder
//! CRD with nothing but its group, kind and versions' names), so it is read as a partial object: what
//! it writes is checked, not its completeness, and a CRD there is not checked as a CRD to create.

use crdls_yaml::Node;

/// The annotations by which kapp leaves an object alone.
const KAPP_LEAVES_ALONE: &[&str] = &["kapp.k14s.io/exists", "kapp.k14s.io/noop"];

/// Whether the document is an object a deploy tool only waits for or leaves alone.
pub fn is_awaited(root: &Node) -> bool {
    let Some(annotations) = root.get("metadata").and_then(|m| m.get("annotations")) else { return false };
    KAPP_LEAVES_ALONE.iter().any(|key| annotations.get(key).is_some())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn kapp_s_exists_and_noop_annotations_mark_awaited_objects() {
        let root = |text: &str| crdls_yaml::parse(text).documents[0].root.clone().expect("an object");
        assert!(is_awaited(&root("kind: CustomResourceDefinition\nmetadata:\n  annotations:\n    kapp.k14s.io/exists: \"\"\n")));
        assert!(is_awaited(&root("kind: ConfigMap\nmetadata:\n  annotations: {kapp.k14s.io/noop: \"\"}\n")));
        assert!(!is_awaited(&root("kind: ConfigMap\nmetadata:\n  annotations: {kapp.k14s.io/change-group: x}\n")));
        assert!(!is_awaited(&root("kind: ConfigMap\nmetadata: {name: a}\n")));
    }
}
