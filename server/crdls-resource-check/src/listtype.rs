//! `x-kubernetes-list-type` checks: items of `set` lists must be unique, items of `map` lists must be
//! unique by their `x-kubernetes-list-map-keys`. Run after defaulting, as the API server does.

use crdls_crd::{AdditionalProperties, Schema};
use crdls_yaml::{Diagnostic, Entry, FieldPath, Node, Severity, Value};

use crate::field_error::{ErrorType, FieldError};
use crate::gofmt;
use crate::validate::json_equal;
use crdls_yaml::codes;

/// Walks the whole object and reports duplicates in every set and map list.
pub fn validate_lists(node: &Node, schema: &Schema, path: &FieldPath<'_>, out: &mut Vec<Diagnostic>) {
    match &node.value {
        Value::Seq(items) => {
            match schema.list_type.as_deref() {
                Some("set") => set_duplicates(items, path, out),
                Some("map") if !schema.rare().list_map_keys.is_empty() => map_duplicates(items, &schema.rare().list_map_keys, path, out),
                _ => {}
            }
            if let Some(item_schema) = &schema.items {
                for (i, item) in items.iter().enumerate() {
                    validate_lists(item, item_schema, &path.index(i), out);
                }
            }
        }
        Value::Map(entries) => {
            for entry in entries {
                if let Some(prop) = schema.property(&entry.key) {
                    validate_lists(&entry.value, &prop.schema, &path.field(&entry.key), out);
                } else if let Some(AdditionalProperties::Schema(extra)) = &schema.additional_properties {
                    validate_lists(&entry.value, extra, &path.field(&entry.key), out);
                }
            }
        }
        _ => {}
    }
}

/// Only the second occurrence of a value is reported, as the API server does.
fn set_duplicates(items: &[Node], path: &FieldPath<'_>, out: &mut Vec<Diagnostic>) {
    for (i, item) in items.iter().enumerate() {
        let earlier: Vec<usize> = (0..i).filter(|&j| json_equal(&items[j], item)).collect();
        if let [first] = earlier[..] {
            let err = FieldError {
                ty: ErrorType::Duplicate,
                path: path.index(i).to_string(),
                value: Some(gofmt::value(item)),
                detail: String::new(),
            };
            out.push(err.diagnostic(
                item.range,
                Severity::Error,
                codes::SCHEMA_LIST_SET_DUPLICATE,
                format!("duplicate item in a set list: same as item {first}"),
            ));
        }
    }
}

fn map_duplicates(items: &[Node], keys: &[String], path: &FieldPath<'_>, out: &mut Vec<Diagnostic>) {
    // Items that are not objects make the list unusable as a map: each is reported, and duplicates are not looked for.
    let mut broken = false;
    for (i, item) in items.iter().enumerate() {
        if !matches!(item.value, Value::Map(_) | Value::Null) {
            broken = true;
            let err = FieldError {
                ty: ErrorType::Invalid,
                path: path.index(i).to_string(),
                value: Some(gofmt::value(item)),
                detail: "must be an object for an array of list-type map".into(),
            };
            out.push(err.diagnostic(item.range, Severity::Error, codes::SCHEMA_LIST_MAP_ITEM, "items of a map list must be objects"));
        }
    }
    if broken {
        return;
    }
    let key_of = |item: &Node| -> Node {
        let entries = keys.iter().filter_map(|k| item.entry(k).cloned()).collect::<Vec<Entry>>();
        Node { range: item.range, value: Value::Map(entries), style: item.style }
    };
    let tuples: Vec<Node> = items.iter().map(key_of).collect();
    for (i, item) in items.iter().enumerate() {
        let earlier: Vec<usize> = (0..i).filter(|&j| json_equal(&tuples[j], &tuples[i])).collect();
        if let [first] = earlier[..] {
            let err = FieldError {
                ty: ErrorType::Duplicate,
                path: path.index(i).to_string(),
                value: Some(gofmt::json(&tuples[i])),
                detail: String::new(),
            };
            let shown = keys.join(", ");
            out.push(err.diagnostic(
                item.range,
                Severity::Error,
                codes::SCHEMA_LIST_MAP_DUPLICATE,
                format!("duplicate item in a map list: same keys ({shown}) as item {first}"),
            ));
        }
    }
}
