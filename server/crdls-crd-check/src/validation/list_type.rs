//! `crd/list-type`: the topology extensions server-side apply and CEL rely on.
//!
//! `x-kubernetes-list-type` is `atomic`, `set` or `map`, on arrays only; `x-kubernetes-map-type` is
//! `atomic` or `granular`, on objects only. A `set` holds scalars, atomic objects or atomic lists,
//! and its items are not nullable. A `map` list needs `x-kubernetes-list-map-keys`: distinct names
//! of scalar properties of its object items, each required or defaulted and not nullable; and the
//! keys need `x-kubernetes-list-type: map`.
//!
//! Example: `x-kubernetes-list-type: map` with `x-kubernetes-list-map-keys: [name]` whose `name` is
//! neither required nor defaulted. Fix: `required: [name]` on the items.

use crdls_yaml::{Node, Value};

use crdls_diagnostics::TextRange;

use super::{entries, fe, flag, get, items, key_at, text, value_at, Found};
use crate::field_error::{ErrorType, FieldError};
use crate::gofmt;
use crdls_diagnostics::codes;

const CODE: &str = codes::CRD_LIST_TYPE;

/// The list and map type checks of node `s` at `p`.
pub(super) fn check(s: &Node, p: &str, anchor: TextRange, out: &mut Vec<Found>) {
    let mut push = |range: TextRange, ty: ErrorType, path: String, value: Option<String>, detail: &str, message: String| {
        out.push(Found::new(range, CODE, fe(ty, path, value, detail), message));
    };
    let ty = text(s, "type");
    let map_type = get(s, "x-kubernetes-map-type");
    let list_type = get(s, "x-kubernetes-list-type");
    let list_type_text = list_type.and_then(Node::as_str).unwrap_or_default();
    if map_type.is_some() && ty != "object" {
        let (range, error, message) = needs_type(s, p, ty, anchor, "x-kubernetes-map-type", "object");
        push(range, error.ty, error.path, error.value, &error.detail, message);
    }
    if let Some(mt) = map_type {
        let value = mt.as_str().unwrap_or_default();
        if value != "atomic" && value != "granular" {
            push(
                mt.range,
                ErrorType::NotSupported,
                format!("{p}.x-kubernetes-map-type"),
                Some(gofmt::quote(value)),
                r#"supported values: "atomic", "granular""#,
                "x-kubernetes-map-type must be atomic or granular".into(),
            );
        }
    }
    let single_items = get(s, "items").filter(|i| matches!(i.value, Value::Map(_)));
    if list_type.is_some() && ty != "array" {
        let (range, error, message) = needs_type(s, p, ty, anchor, "x-kubernetes-list-type", "array");
        push(range, error.ty, error.path, error.value, &error.detail, message);
    } else if list_type_text == "set" {
        if let Some(is) = single_items {
            let item_list_type = get(is, "x-kubernetes-list-type");
            let detail = "must be atomic as item of a list with x-kubernetes-list-type=set";
            match text(is, "type") {
                "array" if item_list_type.is_some_and(|t| t.as_str() != Some("atomic")) => {
                    let lt = item_list_type.expect("checked");
                    push(
                        lt.range,
                        ErrorType::Invalid,
                        format!("{p}.items.x-kubernetes-list-type"),
                        Some(gofmt::json(lt)),
                        detail,
                        "the items of a set must be atomic: lists inside a set need x-kubernetes-list-type: atomic".into(),
                    );
                }
                "object" if get(is, "x-kubernetes-map-type").and_then(Node::as_str) != Some("atomic") => {
                    // The API server prints the items' list type here, not their map type.
                    let value = item_list_type.map_or("null".into(), gofmt::json);
                    let at = get(is, "x-kubernetes-map-type").map_or(key_at(s, "items", anchor), |m| m.range);
                    push(
                        at,
                        ErrorType::Invalid,
                        format!("{p}.items.x-kubernetes-map-type"),
                        Some(value),
                        detail,
                        "the items of a set must be atomic: objects inside a set need x-kubernetes-map-type: atomic (or make the list a map list)".into(),
                    );
                }
                _ => {}
            }
        }
    }
    if let Some(lt) = list_type {
        if !["atomic", "set", "map"].contains(&list_type_text) {
            push(
                lt.range,
                ErrorType::NotSupported,
                format!("{p}.x-kubernetes-list-type"),
                Some(gofmt::quote(list_type_text)),
                r#"supported values: "atomic", "set", "map""#,
                "x-kubernetes-list-type must be atomic, set or map".into(),
            );
        }
    }
    let keys_node = get(s, "x-kubernetes-list-map-keys");
    let keys: Vec<(&str, TextRange)> =
        items(s, "x-kubernetes-list-map-keys").iter().map(|k| (k.as_str().unwrap_or_default(), k.range)).collect();
    if !keys.is_empty() {
        let detail = "must be map if x-kubernetes-list-map-keys is non-empty";
        match list_type {
            None => push(
                key_at(s, "x-kubernetes-list-map-keys", anchor),
                ErrorType::Required,
                format!("{p}.x-kubernetes-list-type"),
                None,
                detail,
                "x-kubernetes-list-map-keys needs x-kubernetes-list-type: map".into(),
            ),
            Some(lt) if list_type_text != "map" => push(
                lt.range,
                ErrorType::Invalid,
                format!("{p}.x-kubernetes-list-type"),
                Some(gofmt::quote(list_type_text)),
                detail,
                "x-kubernetes-list-map-keys needs x-kubernetes-list-type: map".into(),
            ),
            _ => {}
        }
    }
    if list_type_text == "map" {
        if keys.is_empty() {
            push(
                key_at(s, "x-kubernetes-list-type", anchor),
                ErrorType::Required,
                format!("{p}.x-kubernetes-list-map-keys"),
                None,
                "must not be empty if x-kubernetes-list-type is map",
                "a map list needs x-kubernetes-list-map-keys: the properties that identify an item".into(),
            );
        }
        match get(s, "items") {
            None => push(
                key_at(s, "x-kubernetes-list-type", anchor),
                ErrorType::Required,
                format!("{p}.items"),
                None,
                "must have a schema if x-kubernetes-list-type is map",
                "a map list needs items with a schema".into(),
            ),
            Some(i) if !matches!(i.value, Value::Map(_)) => push(
                key_at(s, "items", anchor),
                ErrorType::Invalid,
                format!("{p}.items"),
                Some(super::go_json::items(Some(i))),
                "must only have a single schema if x-kubernetes-list-type is map",
                "a map list needs one items schema".into(),
            ),
            Some(is) => {
                let item_ty = text(is, "type");
                if item_ty != "object" {
                    push(
                        value_at(is, "type", key_at(s, "items", anchor)),
                        ErrorType::Invalid,
                        format!("{p}.items.type"),
                        Some(gofmt::quote(item_ty)),
                        "must be object if parent array's x-kubernetes-list-type is map",
                        "the items of a map list must be objects".into(),
                    );
                } else {
                    let keys_json = keys_node.map_or("null".into(), gofmt::json);
                    let props = get(is, "properties");
                    let mut seen: Vec<&str> = Vec::new();
                    for (k, range) in &keys {
                        match props.and_then(|ps| ps.get(k)) {
                            Some(prop) => {
                                let prop_ty = text(prop, "type");
                                if prop_ty == "array" || prop_ty == "object" {
                                    // The API server prints the items' type here, not the key's.
                                    push(
                                        value_at(prop, "type", *range),
                                        ErrorType::Invalid,
                                        format!("{p}.items.properties[{k}].type"),
                                        Some(gofmt::quote(item_ty)),
                                        "must be a scalar type if parent array's x-kubernetes-list-type is map",
                                        format!("map key {k} must be a scalar (string, integer, number or boolean), not {prop_ty}"),
                                    );
                                }
                            }
                            None => push(
                                *range,
                                ErrorType::Invalid,
                                format!("{p}.x-kubernetes-list-map-keys"),
                                Some(keys_json.clone()),
                                "entries must all be names of item properties",
                                format!("map key {k} is not a property of the items"),
                            ),
                        }
                        if seen.contains(k) {
                            push(
                                *range,
                                ErrorType::Invalid,
                                format!("{p}.x-kubernetes-list-map-keys"),
                                Some(keys_json.clone()),
                                "must not contain duplicate entries",
                                format!("map key {k} is listed twice"),
                            );
                        }
                        seen.push(k);
                    }
                }
            }
        }
    }
    // Map keys must always be present, and set and map items cannot be null.
    if let Some(is) = single_items.filter(|_| list_type_text == "set" || list_type_text == "map") {
        if flag(is, "nullable") {
            push(
                key_at(is, "nullable", anchor),
                ErrorType::Forbidden,
                format!("{p}.items.nullable"),
                None,
                &format!("cannot be nullable when x-kubernetes-list-type is {list_type_text}"),
                format!("the items of a {list_type_text} list cannot be nullable"),
            );
        }
        if list_type_text == "map" {
            let required: Vec<&str> = items(is, "required").iter().filter_map(Node::as_str).collect();
            let props = entries(is, "properties");
            for (k, range) in &keys {
                let Some(prop) = props.iter().rev().find(|e| e.key == *k) else { continue };
                if !required.contains(k) && get(&prop.value, "default").is_none() {
                    push(
                        *range,
                        ErrorType::Required,
                        format!("{p}.items.properties[{k}].default"),
                        None,
                        "this property is in x-kubernetes-list-map-keys, so it must have a default or be a required property",
                        format!("map key {k} must be required (in the items' required list) or have a default"),
                    );
                }
                if flag(&prop.value, "nullable") {
                    push(
                        key_at(&prop.value, "nullable", prop.key_range),
                        ErrorType::Forbidden,
                        format!("{p}.items.properties[{k}].nullable"),
                        None,
                        "this property is in x-kubernetes-list-map-keys, so it cannot be nullable",
                        format!("map key {k} cannot be nullable"),
                    );
                }
            }
        }
    }
}

/// An extension on a node of another type than it needs: Required when the node has no type, else
/// Invalid on the type. Where, the API server's error, and crdls's message.
fn needs_type(s: &Node, p: &str, ty: &str, anchor: TextRange, extension: &str, wanted: &str) -> (TextRange, FieldError, String) {
    let detail = format!("must be {wanted} if {extension} is specified");
    if ty.is_empty() {
        (
            key_at(s, extension, anchor),
            fe(ErrorType::Required, format!("{p}.type"), None, detail),
            format!("{extension} needs type: {wanted}"),
        )
    } else {
        let error = fe(ErrorType::Invalid, format!("{p}.type"), Some(gofmt::quote(ty)), detail);
        (value_at(s, "type", anchor), error, format!("{extension} is only for type: {wanted}"))
    }
}
