//! Data loss across CRD versions. With conversion strategy `None` the API server changes only the
//! `apiVersion` of an object between versions; the fields themselves are kept as they are and pruned
//! by the schema of the version being read or written. So a field of the storage version that another
//! served version lacks is dropped when a client reads and writes back through that version, and a
//! field whose type differs between them holds values one of the versions rejects. The API server
//! accepts such CRDs; crdls warns about them.

use crdls_crd::{is_crd, Schema};
use crdls_diagnostics::codes;
use crdls_diagnostics::{Diagnostic, Severity, TextRange};
use crdls_yaml::Node;

/// Warns about fields that differ between the storage version and the other served versions of a CRD
/// whose conversion strategy is `None`.
pub fn check_versions(root: &Node, out: &mut Vec<Diagnostic>) {
    if is_crd(root).is_none() {
        return;
    }
    let Some(spec) = root.get("spec") else { return };
    let strategy = spec.get("conversion").and_then(|c| c.get_str("strategy"));
    if strategy.is_some_and(|s| s != "None") {
        return;
    }
    // Without a `conversion` the strategy is None too, but projects often patch a webhook in at
    // deploy time (kubebuilder's kustomize patches): then it is only worth a note.
    let severity = if strategy.is_some() { Severity::Warning } else { Severity::Information };
    let versions: Vec<&Node> = spec.get("versions").and_then(Node::as_seq).unwrap_or_default().iter().collect();
    let Some(storage) = versions.iter().find(|v| v.get("storage").is_some_and(|s| s.value == crdls_yaml::Value::Bool(true))) else {
        return;
    };
    let Some(storage_node) = schema_of(storage) else { return };
    let storage_name = storage.get_str("name").unwrap_or_default();
    let storage_schema = Schema::from_node(storage_node);
    for version in &versions {
        if std::ptr::eq(*version, *storage) || version.get("served").is_some_and(|s| s.value == crdls_yaml::Value::Bool(false)) {
            continue;
        }
        let Some(node) = schema_of(version) else { continue };
        let name = version.get_str("name").unwrap_or_default();
        let schema = Schema::from_node(node);
        let anchor = version.get("name").map_or(version.range, |n| n.range);
        let mut walk = Compare { storage: storage_name, other: name, severity, out };
        walk.node(&storage_schema, &schema, node, "", anchor, 0);
    }
}

fn schema_of(version: &Node) -> Option<&Node> {
    version.get("schema").and_then(|s| s.get("openAPIV3Schema"))
}

struct Compare<'a> {
    storage: &'a str,
    other: &'a str,
    severity: Severity,
    out: &'a mut Vec<Diagnostic>,
}

impl Compare<'_> {
    /// Compares the storage version's node `s` with the other version's node `o` (whose YAML is `node`).
    fn node(&mut self, s: &Schema, o: &Schema, node: &Node, path: &str, anchor: TextRange, depth: usize) {
        if depth > 32 {
            return;
        }
        let (st, ot) = (s.ty.as_deref(), o.ty.as_deref());
        if st.is_some() && ot.is_some() && st != ot && !s.int_or_string && !o.int_or_string {
            let at = node.get("type").map_or(anchor, |t| t.range);
            self.warn(
                at,
                codes::CRD_VERSION_TYPE_CHANGE,
                format!(
                    "{} is {} in the storage version {} but {} in {}: with conversion strategy None values are not converted, so objects written in one version fail validation in the other",
                    shown(path),
                    st.unwrap_or_default(),
                    self.storage,
                    ot.unwrap_or_default(),
                    self.other
                ),
            );
            return;
        }
        // A version that keeps unknown fields here loses nothing below.
        if o.preserve_unknown_fields == Some(true) {
            return;
        }
        let props = node.get("properties");
        for p in s.properties.iter() {
            let child = if path.is_empty() { p.name.clone() } else { format!("{path}.{}", p.name) };
            match o.property(&p.name) {
                Some(q) => {
                    let Some(child_node) = props.and_then(|n| n.get(&p.name)) else { continue };
                    let key = props.and_then(|n| n.entry(&p.name)).map_or(anchor, |e| e.key_range);
                    self.node(&p.schema, &q.schema, child_node, &child, key, depth + 1);
                }
                None if path.is_empty() && matches!(p.name.as_str(), "apiVersion" | "kind" | "metadata") => {}
                None => {
                    let at = node.entry("properties").map_or(anchor, |e| e.key_range);
                    self.warn(
                        at,
                        codes::CRD_VERSION_FIELD_LOSS,
                        format!(
                            "{child} is in the storage version {} but not in {}: with conversion strategy None, a client that reads and writes {} drops it",
                            self.storage, self.other, self.other
                        ),
                    );
                }
            }
        }
        if let (Some(si), Some(oi), Some(items)) = (s.items.as_deref(), o.items.as_deref(), node.get("items")) {
            let key = node.entry("items").map_or(anchor, |e| e.key_range);
            self.node(si, oi, items, &format!("{path}[*]"), key, depth + 1);
        }
    }

    fn warn(&mut self, range: TextRange, code: &'static str, message: String) {
        let message = if self.severity == Severity::Warning {
            message
        } else {
            format!("{message} (the CRD sets no conversion; ignore this if a conversion webhook is added when it is deployed)")
        };
        self.out.push(Diagnostic::new(range, self.severity, code, message));
    }
}

fn shown(path: &str) -> String {
    if path.is_empty() {
        "the object".into()
    } else {
        path.to_string()
    }
}
