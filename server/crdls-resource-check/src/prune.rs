//! Pruning and defaulting, the first two steps the API server applies to a custom resource before
//! validating it: unknown fields are dropped (and reported), nulls of non-nullable fields are dropped
//! or defaulted, and missing fields with a `default` are filled in.

use std::collections::HashSet;
use std::sync::Arc;

use crdls_crd::{AdditionalProperties, Schema};
use crdls_diagnostics::TextRange;
use crdls_yaml::{Entry, FieldPath, Node, Style, Value};

/// The fields of ObjectMeta, the only ones kept under `metadata`.
pub const OBJECT_META_FIELDS: &[&str] = &[
    "name",
    "generateName",
    "namespace",
    "selfLink",
    "uid",
    "resourceVersion",
    "generation",
    "creationTimestamp",
    "deletionTimestamp",
    "deletionGracePeriodSeconds",
    "labels",
    "annotations",
    "ownerReferences",
    "finalizers",
    "managedFields",
];

/// A field the API server would drop.
#[derive(Clone, Debug)]
pub struct PrunedField {
    /// Its path, as the API server prints it in `unknown field "..."`.
    pub path: String,
    /// The range of its key.
    pub key_range: TextRange,
    /// The names declared where it was found, for a did-you-mean (shared by the unknown fields of
    /// one object: an object can hold thousands of them).
    pub known: Arc<[String]>,
}

/// Prunes and defaults a whole custom resource against its version's root schema.
pub fn prune_and_default(root: &Node, schema: &Schema, pruned: &mut Vec<PrunedField>) -> Node {
    walk(root, Some(schema), &FieldPath::root(), Kind::Root, false, pruned)
}

/// The value the API server writes for an absent field: its `default`, itself pruned and defaulted
/// against the field's schema (a default object gets its own fields' defaults).
pub fn defaulted_value(default: &Node, schema: &Schema) -> Node {
    walk(default, Some(schema), &FieldPath::root(), Kind::Plain, false, &mut Vec::new())
}

#[derive(Clone, Copy, PartialEq, Eq)]
enum Kind {
    /// The object's root: `apiVersion`, `kind` and `metadata` are always kept.
    Root,
    /// An embedded resource: the same three fields are implicit.
    Embedded,
    /// Anything else.
    Plain,
}

/// Prunes and defaults `node` against `schema`. `kept`: the node is an item of a list that keeps
/// unknown fields (`x-kubernetes-preserve-unknown-fields` on the list, or on a list it is an item of),
/// whose own unknown fields the API server keeps too, as it does the list's (`skipPrune` in
/// apiextensions-apiserver's pruning walks a list's items the way it walks the list).
fn walk(node: &Node, schema: Option<&Schema>, path: &FieldPath<'_>, kind: Kind, kept: bool, pruned: &mut Vec<PrunedField>) -> Node {
    let Some(schema) = schema else { return node.clone() };
    let kind = if kind == Kind::Plain && schema.embedded_resource { Kind::Embedded } else { kind };
    let preserve = kept || schema.preserves_unknown_fields();
    match &node.value {
        Value::Map(entries) => {
            let mut out: Vec<Entry> = Vec::with_capacity(entries.len());
            let mut known: Option<Arc<[String]>> = None;
            for entry in entries {
                let child_path = path.field(&entry.key);
                if kind != Kind::Plain
                    && matches!(entry.key.as_str(), "apiVersion" | "kind" | "metadata")
                    && schema.property(&entry.key).is_none()
                {
                    let value =
                        if entry.key == "metadata" { prune_metadata(&entry.value, &child_path, pruned) } else { entry.value.clone() };
                    out.push(Entry { key: entry.key.clone(), key_range: entry.key_range, value });
                    continue;
                }
                if let Some(prop) = schema.property(&entry.key) {
                    if entry.value.value == Value::Null && !prop.schema.nullable {
                        // A null for a non-nullable field is dropped; its default, if any, fills it in below.
                        continue;
                    }
                    let value = if kind != Kind::Plain && entry.key == "metadata" {
                        prune_metadata(&entry.value, &child_path, pruned)
                    } else {
                        walk(&entry.value, Some(&prop.schema), &child_path, Kind::Plain, false, pruned)
                    };
                    out.push(Entry { key: entry.key.clone(), key_range: entry.key_range, value });
                } else if let Some(AdditionalProperties::Schema(extra)) = &schema.additional_properties {
                    if entry.value.value == Value::Null && !extra.nullable {
                        continue;
                    }
                    let value = walk(&entry.value, Some(extra), &child_path, Kind::Plain, false, pruned);
                    out.push(Entry { key: entry.key.clone(), key_range: entry.key_range, value });
                } else if preserve || matches!(schema.additional_properties, Some(AdditionalProperties::Bool(true))) {
                    out.push(entry.clone());
                } else {
                    let known = known.get_or_insert_with(|| schema.properties.iter().map(|p| p.name.clone()).collect()).clone();
                    pruned.push(PrunedField { path: child_path.to_string(), key_range: entry.key_range, known });
                }
            }
            // Defaults fill in missing fields, then get defaulted and pruned themselves.
            let anchor = TextRange::empty(node.range.start);
            let mut written: Option<HashSet<String>> = None;
            for prop in &schema.properties {
                // A `default: null` is no default: the API server holds it as no value, and skips it.
                let Some(default) = prop.schema.default.as_ref().filter(|d| d.value != Value::Null) else { continue };
                // The keys written, as a set once a default is looked for (objects can be wide).
                let written = written.get_or_insert_with(|| out.iter().map(|e| e.key.clone()).collect());
                if !written.insert(prop.name.clone()) {
                    continue;
                }
                let mut value = relocate(default, anchor);
                value = walk(&value, Some(&prop.schema), &path.field(&prop.name), Kind::Plain, false, &mut Vec::new());
                out.push(Entry { key: prop.name.clone(), key_range: anchor, value });
            }
            Node { range: node.range, value: Value::Map(out), style: node.style }
        }
        Value::Seq(items) => {
            let item_schema = schema.items.as_deref();
            let items = items
                .iter()
                .enumerate()
                .map(|(i, item)| {
                    match item_schema
                        .and_then(|s| s.default.as_ref().filter(|d| d.value != Value::Null && item.value == Value::Null && !s.nullable))
                    {
                        // A null item of a non-nullable list is replaced by the items' default, when there is one.
                        Some(default) => {
                            walk(&relocate(default, item.range), item_schema, &path.index(i), Kind::Plain, preserve, &mut Vec::new())
                        }
                        None => walk(item, item_schema, &path.index(i), Kind::Plain, preserve, pruned),
                    }
                })
                .collect();
            Node { range: node.range, value: Value::Seq(items), style: node.style }
        }
        _ => node.clone(),
    }
}

/// The fields of an OwnerReference.
const OWNER_REFERENCE_FIELDS: &[&str] = &["apiVersion", "kind", "name", "uid", "controller", "blockOwnerDeletion"];

/// The fields of a ManagedFieldsEntry (`fieldsV1` is raw JSON, kept whole).
const MANAGED_FIELDS_ENTRY_FIELDS: &[&str] = &["manager", "operation", "apiVersion", "time", "fieldsType", "fieldsV1", "subresource"];

/// Keeps only ObjectMeta's fields under `metadata`, and only theirs in its owner references and
/// managed-fields entries: the handler decodes ObjectMeta strictly, and reports the unknown fields
/// at every depth (`metadata.ownerReferences[0].mode`).
fn prune_metadata(node: &Node, path: &FieldPath<'_>, pruned: &mut Vec<PrunedField>) -> Node {
    let Value::Map(entries) = &node.value else { return node.clone() };
    let mut out = Vec::with_capacity(entries.len());
    for entry in entries {
        if !OBJECT_META_FIELDS.contains(&entry.key.as_str()) {
            pruned.push(PrunedField {
                path: path.field(&entry.key).to_string(),
                key_range: entry.key_range,
                known: OBJECT_META_FIELDS.iter().map(|s| s.to_string()).collect(),
            });
            continue;
        }
        let fields = match entry.key.as_str() {
            "ownerReferences" => OWNER_REFERENCE_FIELDS,
            "managedFields" => MANAGED_FIELDS_ENTRY_FIELDS,
            _ => {
                out.push(entry.clone());
                continue;
            }
        };
        let Value::Seq(items) = &entry.value.value else {
            out.push(entry.clone());
            continue;
        };
        let list_path = path.field(&entry.key);
        let items = items.iter().enumerate().map(|(i, item)| keep_fields(item, fields, &list_path.index(i), pruned)).collect();
        out.push(Entry {
            key: entry.key.clone(),
            key_range: entry.key_range,
            value: Node { value: Value::Seq(items), ..entry.value.clone() },
        });
    }
    Node { range: node.range, value: Value::Map(out), style: node.style }
}

/// `node` (an object of a Go struct with the JSON fields `fields`) without its other fields, which are
/// recorded as pruned.
fn keep_fields(node: &Node, fields: &[&str], path: &FieldPath<'_>, pruned: &mut Vec<PrunedField>) -> Node {
    let Value::Map(entries) = &node.value else { return node.clone() };
    let mut out = Vec::with_capacity(entries.len());
    for entry in entries {
        if fields.contains(&entry.key.as_str()) {
            out.push(entry.clone());
        } else {
            pruned.push(PrunedField {
                path: path.field(&entry.key).to_string(),
                key_range: entry.key_range,
                known: fields.iter().map(|s| s.to_string()).collect(),
            });
        }
    }
    Node { range: node.range, value: Value::Map(out), style: node.style }
}

/// A copy of a default value whose every node points at `at` (defaults have no place in the resource's text).
fn relocate(node: &Node, at: TextRange) -> Node {
    let value = match &node.value {
        Value::Map(entries) => {
            Value::Map(entries.iter().map(|e| Entry { key: e.key.clone(), key_range: at, value: relocate(&e.value, at) }).collect())
        }
        Value::Seq(items) => Value::Seq(items.iter().map(|i| relocate(i, at)).collect()),
        v => v.clone(),
    };
    Node { range: at, value, style: Style::Empty }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn pruned_paths(schema: &str, object: &str) -> Vec<String> {
        let schema = crdls_yaml::parse(schema).documents.remove(0).root.unwrap();
        let object = crdls_yaml::parse(object).documents.remove(0).root.unwrap();
        let mut pruned = Vec::new();
        prune_and_default(&object, &Schema::from_node(&schema), &mut pruned);
        pruned.into_iter().map(|p| p.path).collect()
    }

    #[test]
    fn unknown_fields_of_owner_references_and_managed_fields_are_pruned() {
        let schema = "type: object\nproperties:\n  spec:\n    type: object\n";
        let object = "metadata:\n  name: a\n  foo: 1\n  ownerReferences:\n  - {apiVersion: v1, kind: Pod, name: p, uid: u, mode: x}\n  \
                      managedFields:\n  - {manager: m, operation: Apply, fieldsV1: {f:spec: {}}, bar: 2}\n  labels: {a: b}\n";
        // As the handler's strict decoding of ObjectMeta reports them; fieldsV1 is raw JSON.
        assert_eq!(pruned_paths(schema, object), ["metadata.foo", "metadata.ownerReferences[0].mode", "metadata.managedFields[0].bar"]);
    }

    #[test]
    fn a_list_that_keeps_unknown_fields_keeps_its_items_unknown_fields() {
        let schema = "type: object\nproperties:\n  spec:\n    type: object\n    properties:\n      pipelines:\n        type: array\n        x-kubernetes-preserve-unknown-fields: true\n        items:\n          type: object\n          properties:\n            id:\n              type: string\n            batch:\n              type: object\n              properties:\n                size:\n                  type: integer\n      plain:\n        type: array\n        items:\n          type: object\n          properties:\n            id:\n              type: string\n";
        let object = "spec:\n  pipelines:\n  - id: main\n    config.string: kept\n    batch:\n      size: 1\n      delay: dropped\n  plain:\n  - id: x\n    extra: dropped\n";
        // The API server keeps an item's unknown fields (`config.string`); a declared field of the
        // item is pruned by its own schema, which keeps nothing unknown.
        assert_eq!(pruned_paths(schema, object), ["spec.pipelines[0].batch.delay", "spec.plain[0].extra"]);
    }
}
