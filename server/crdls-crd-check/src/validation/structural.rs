//! `crd/structural`: the structural schema rules of the CRD documentation, as `ValidateStructural`
//! checks them.
//!
//! 1. The root, every property and every array item has a `type` (unless it sets
//!    `x-kubernetes-int-or-string` or `x-kubernetes-preserve-unknown-fields`).
//! 2. A property or item named inside `allOf`, `anyOf`, `oneOf` or `not` at the root of the schema is
//!    also declared outside of them.
//! 3. Inside those junctors there is no `type`, `description`, `title`, `default`, `nullable`,
//!    `additionalProperties` or `x-kubernetes-*` extension, except the two int-or-string patterns
//!    (`anyOf: [{type: integer}, {type: string}]`, alone or as the first entry of `allOf`).
//! 4. A root `metadata` property restricts nothing but `name` and `generateName`.
//!
//! Also: `type: array` needs `items`, the root is an object without `additionalProperties`, root
//! (and embedded-resource) `apiVersion` and `kind` are strings, an embedded resource is an object
//! with properties or `x-kubernetes-preserve-unknown-fields`, and every `pattern` compiles as a Go
//! regular expression (that last one under `crd/schema`). The API server sorts these errors by their
//! text and stops there: defaults and CEL rules are only checked on a structural schema.
//!
//! Example: a property with only `pattern: abc`. Fix: add `type: string`.

use crdls_yaml::{Node, Value};

use crdls_diagnostics::TextRange;

use super::{entries, fe, flag, get, items, key_at, non_empty, regexp, text, value_at, Found};
use crate::field_error::ErrorType;
use crate::gofmt;
use crdls_diagnostics::codes;

const CODE: &str = codes::CRD_STRUCTURAL;

#[derive(Clone, Copy, PartialEq, Eq)]
enum Level {
    Root,
    Item,
    Field,
}

/// The first reason `NewStructural` cannot convert the schema, with where it is: keywords a
/// structural schema cannot hold at all. The API server then skips the structural checks (the
/// OpenAPI checks report those keywords), and shows this error only when nothing else is wrong,
/// which in practice means a `$schema`.
pub(super) fn unconvertible(node: &Node) -> Option<(String, TextRange)> {
    convert(node, 0)
}

fn convert(s: &Node, depth: usize) -> Option<(String, TextRange)> {
    if depth > 64 {
        return None;
    }
    let at = |key: &str| key_at(s, key, s.range);
    let checks: [(&str, bool, &str); 7] = [
        ("id", !text(s, "id").is_empty(), "OpenAPIV3Schema 'id' is not supported"),
        ("$schema", !text(s, "$schema").is_empty(), "OpenAPIV3Schema 'schema' is not supported"),
        ("$ref", !text(s, "$ref").is_empty(), "OpenAPIV3Schema '$ref' is not supported"),
        ("patternProperties", non_empty(s, "patternProperties"), "OpenAPIV3Schema 'patternProperties' is not supported"),
        ("dependencies", non_empty(s, "dependencies"), "OpenAPIV3Schema 'dependencies' is not supported"),
        ("additionalItems", get(s, "additionalItems").is_some(), "OpenAPIV3Schema 'additionalItems' is not supported"),
        ("definitions", non_empty(s, "definitions"), "OpenAPIV3Schema 'definitions' is not supported"),
    ];
    if let Some((key, _, message)) = checks.iter().find(|c| c.1) {
        return Some((message.to_string(), at(key)));
    }
    if let Some(not) = get(s, "not") {
        if let Some(e) = convert(not, depth + 1) {
            return Some(e);
        }
    }
    for key in ["allOf", "anyOf", "oneOf"] {
        for entry in items(s, key) {
            if let Some(e) = convert(entry, depth + 1) {
                return Some(e);
            }
        }
    }
    if matches!(s.get("x-kubernetes-preserve-unknown-fields").map(|v| &v.value), Some(Value::Bool(false))) {
        return Some((
            "internal error: 'x-kubernetes-preserve-unknown-fields' must be true or undefined".into(),
            value_at(s, "x-kubernetes-preserve-unknown-fields", s.range),
        ));
    }
    match get(s, "items").map(|i| &i.value) {
        Some(Value::Seq(list)) if !list.is_empty() => {
            return Some(("OpenAPIV3Schema 'items' must be a schema, but is an array".into(), at("items")));
        }
        Some(Value::Map(_)) => {
            if let Some(e) = convert(get(s, "items").expect("items"), depth + 1) {
                return Some(e);
            }
        }
        _ => {}
    }
    for e in entries(s, "properties") {
        if let Some(err) = convert(&e.value, depth + 1) {
            return Some(err);
        }
    }
    match get(s, "additionalProperties") {
        Some(ap) if matches!(ap.value, Value::Map(_)) => convert(ap, depth + 1),
        _ => None,
    }
}

/// `ValidateStructural` of the schema at `p` (`<base>.openAPIV3Schema`), sorted as the API server
/// sorts it. `anchor` locates errors about the root.
pub(super) fn validate(root: &Node, p: &str, anchor: TextRange) -> Vec<Found> {
    let mut v = Structural { out: Vec::new() };
    v.invariants(root, Level::Root, p, anchor, 0);
    v.completeness_root(root, p);
    v.out.sort_by(|a, b| a.cause.cmp(&b.cause));
    v.out
}

struct Structural {
    out: Vec<Found>,
}

impl Structural {
    fn push(&mut self, range: TextRange, ty: ErrorType, path: String, value: Option<String>, detail: &str, message: impl Into<String>) {
        self.out.push(Found::new(range, CODE, fe(ty, path, value, detail), message));
    }

    /// The invariants of one node of the structural tree (reached through properties, items and
    /// additionalProperties).
    fn invariants(&mut self, s: &Node, lvl: Level, p: &str, anchor: TextRange, depth: usize) {
        if depth > 64 {
            return;
        }
        let ty = text(s, "type");
        let embedded = flag(s, "x-kubernetes-embedded-resource");
        let int_or_string = flag(s, "x-kubernetes-int-or-string");
        let preserve = flag(s, "x-kubernetes-preserve-unknown-fields");
        // `items: []` holds no schema either.
        if ty == "array" && !get(s, "items").is_some_and(|i| matches!(i.value, Value::Map(_))) {
            self.push(
                value_at(s, "type", anchor),
                ErrorType::Required,
                format!("{p}.items"),
                None,
                "must be specified",
                "an array needs items: the schema of its elements",
            );
        }
        if let Some(item) = get(s, "items").filter(|i| matches!(i.value, Value::Map(_))) {
            self.invariants(item, Level::Item, &format!("{p}.items"), key_at(s, "items", anchor), depth + 1);
        }
        for e in entries(s, "properties") {
            self.invariants(&e.value, Level::Field, &format!("{p}.properties[{}]", e.key), e.key_range, depth + 1);
        }
        if let Some(ap) = get(s, "additionalProperties") {
            if lvl == Level::Root {
                self.push(
                    key_at(s, "additionalProperties", anchor),
                    ErrorType::Forbidden,
                    format!("{p}.additionalProperties"),
                    None,
                    "must not be used at the root",
                    "additionalProperties is not allowed at the root of a CRD schema",
                );
            }
            if matches!(ap.value, Value::Map(_)) {
                let at = key_at(s, "additionalProperties", anchor);
                self.invariants(ap, Level::Field, &format!("{p}.additionalProperties"), at, depth + 1);
            }
        }
        if int_or_string && preserve {
            self.push(
                value_at(s, "x-kubernetes-preserve-unknown-fields", anchor),
                ErrorType::Invalid,
                format!("{p}.x-kubernetes-preserve-unknown-fields"),
                Some("true".into()),
                "must be false if x-kubernetes-int-or-string is true",
                "x-kubernetes-preserve-unknown-fields cannot be combined with x-kubernetes-int-or-string",
            );
        }
        if int_or_string && embedded {
            self.push(
                value_at(s, "x-kubernetes-embedded-resource", anchor),
                ErrorType::Invalid,
                format!("{p}.x-kubernetes-embedded-resource"),
                Some("true".into()),
                "must be false if x-kubernetes-int-or-string is true",
                "x-kubernetes-embedded-resource cannot be combined with x-kubernetes-int-or-string",
            );
        }
        self.value_validation(s, any_of_pattern(s), all_of_pattern(s), p, anchor, depth);
        if embedded && ty != "object" {
            let detail = "must be object if x-kubernetes-embedded-resource is true";
            if ty.is_empty() {
                self.push(
                    key_at(s, "x-kubernetes-embedded-resource", anchor),
                    ErrorType::Required,
                    format!("{p}.type"),
                    None,
                    detail,
                    "an embedded resource needs type: object",
                );
            } else {
                self.push(value_at(s, "type", anchor), ErrorType::Invalid, format!("{p}.type"), Some(gofmt::quote(ty)), detail, detail);
            }
        } else if ty.is_empty() && !int_or_string && !preserve {
            let (detail, message) = match lvl {
                Level::Root => ("must not be empty at the root", "the root of the schema needs a type (object)".to_string()),
                Level::Item => ("must not be empty for specified array items", "array items need a type".to_string()),
                Level::Field => {
                    let message = if p.ends_with("additionalProperties") {
                        "the values of this map need a type (every field of a structural schema has one)".to_string()
                    } else {
                        format!("{} needs a type (every field of a structural schema has one)", short(p))
                    };
                    ("must not be empty for specified object fields", message)
                }
            };
            self.push(anchor, ErrorType::Required, format!("{p}.type"), None, detail, message);
        }
        if embedded && get(s, "additionalProperties").is_some() {
            self.push(
                key_at(s, "additionalProperties", anchor),
                ErrorType::Forbidden,
                format!("{p}.additionalProperties"),
                None,
                "must not be used if x-kubernetes-embedded-resource is set",
                "an embedded resource cannot use additionalProperties",
            );
        }
        if lvl == Level::Root && !ty.is_empty() && ty != "object" {
            self.push(
                value_at(s, "type", anchor),
                ErrorType::Invalid,
                format!("{p}.type"),
                Some(gofmt::quote(ty)),
                "must be object at the root",
                "the root of a CRD schema must be type: object",
            );
        }
        let check_metadata = lvl == Level::Root || embedded;
        let props = get(s, "properties");
        if check_metadata {
            for field in ["kind", "apiVersion"] {
                let Some(e) = props.and_then(|ps| ps.entry(field)) else { continue };
                let field_ty = text(&e.value, "type");
                if field_ty != "string" {
                    self.push(
                        value_at(&e.value, "type", e.key_range),
                        ErrorType::Invalid,
                        format!("{p}.properties[{field}].type"),
                        Some(gofmt::quote(field_ty)),
                        "must be string",
                        format!("{field} must be type: string"),
                    );
                }
            }
        }
        if let Some(e) = props.and_then(|ps| ps.entry("metadata")) {
            self.metadata(&e.value, check_metadata, lvl, &format!("{p}.properties[metadata]"), e.key_range);
        }
        if embedded && !preserve && entries(s, "properties").is_empty() {
            self.push(
                key_at(s, "x-kubernetes-embedded-resource", anchor),
                ErrorType::Required,
                format!("{p}.properties"),
                None,
                "must not be empty if x-kubernetes-embedded-resource is true without x-kubernetes-preserve-unknown-fields",
                "an embedded resource needs properties, or x-kubernetes-preserve-unknown-fields: true",
            );
        }
    }

    /// Rule 4: a root `metadata` restricts nothing but `name` and `generateName`.
    fn metadata(&mut self, m: &Node, check: bool, lvl: Level, mp: &str, anchor: TextRange) {
        let ty = text(m, "type");
        if check && ty != "object" {
            self.push(
                value_at(m, "type", anchor),
                ErrorType::Invalid,
                format!("{mp}.type"),
                Some(gofmt::quote(ty)),
                "must be object",
                "metadata must be type: object",
            );
        }
        if lvl != Level::Root {
            return;
        }
        if let Some((at, what)) = metadata_restriction(m) {
            self.push(
                at,
                ErrorType::Forbidden,
                mp.to_string(),
                None,
                "must not specify anything other than name and generateName, but metadata is implicitly specified",
                format!(
                    "the schema of metadata may only restrict name and generateName, not {what}: the API server validates metadata itself"
                ),
            );
        }
    }

    /// The value validations of a structural node: its junctors and its pattern.
    fn value_validation(&mut self, s: &Node, skip_any_of: bool, skip_first_all_of_any_of: bool, p: &str, anchor: TextRange, depth: usize) {
        if depth > 64 {
            return;
        }
        if !skip_any_of {
            for (i, e) in items(s, "anyOf").iter().enumerate() {
                self.nested(e, false, &format!("{p}.anyOf[{i}]"), depth + 1);
            }
        }
        for (i, e) in items(s, "allOf").iter().enumerate() {
            self.nested(e, skip_first_all_of_any_of && i == 0, &format!("{p}.allOf[{i}]"), depth + 1);
        }
        for (i, e) in items(s, "oneOf").iter().enumerate() {
            self.nested(e, false, &format!("{p}.oneOf[{i}]"), depth + 1);
        }
        if let Some(not) = get(s, "not") {
            self.nested(not, false, &format!("{p}.not"), depth + 1);
        }
        let pattern = text(s, "pattern");
        if !pattern.is_empty() {
            if let Some(err) = regexp::go_error(pattern) {
                self.out.push(Found::new(
                    value_at(s, "pattern", anchor),
                    codes::CRD_SCHEMA,
                    fe(
                        ErrorType::Invalid,
                        format!("{p}.pattern"),
                        Some(gofmt::quote(pattern)),
                        format!("must be a valid regular expression, but isn't: {err}"),
                    ),
                    format!("the pattern is not a valid Go (RE2) regular expression: {err}"),
                ));
            }
        }
    }

    /// A schema inside a junctor: it may only validate values, never declare them (rule 3).
    fn nested(&mut self, q: &Node, skip_any_of: bool, qp: &str, depth: usize) {
        if depth > 64 {
            return;
        }
        let anchor = TextRange::empty(q.range.start);
        self.value_validation(q, skip_any_of, false, qp, anchor, depth);
        if let Some(item) = get(q, "items").filter(|i| matches!(i.value, Value::Map(_))) {
            self.nested(item, false, &format!("{qp}.items"), depth + 1);
        }
        for e in entries(q, "properties") {
            self.nested(&e.value, false, &format!("{qp}.properties[{}]", e.key), depth + 1);
        }
        let forbidden = |key: &str| -> Option<&'static str> {
            let present = match key {
                "type" | "title" | "description" => !text(q, key).is_empty(),
                "additionalProperties" => get(q, key).is_some_and(|v| v.value != Value::Bool(false)),
                "default" | "x-kubernetes-list-type" | "x-kubernetes-map-type" => get(q, key).is_some(),
                "nullable" | "x-kubernetes-preserve-unknown-fields" | "x-kubernetes-embedded-resource" | "x-kubernetes-int-or-string" => {
                    flag(q, key)
                }
                _ => non_empty(q, key),
            };
            present.then_some(match key {
                "type" | "title" | "description" | "x-kubernetes-list-map-keys" | "x-kubernetes-validations" => {
                    "must be empty to be structural"
                }
                "additionalProperties" | "default" | "x-kubernetes-list-type" | "x-kubernetes-map-type" => {
                    "must be undefined to be structural"
                }
                _ => "must be false to be structural",
            })
        };
        for key in [
            "type",
            "additionalProperties",
            "default",
            "title",
            "description",
            "nullable",
            "x-kubernetes-preserve-unknown-fields",
            "x-kubernetes-embedded-resource",
            "x-kubernetes-int-or-string",
            "x-kubernetes-list-map-keys",
            "x-kubernetes-list-type",
            "x-kubernetes-map-type",
            "x-kubernetes-validations",
        ] {
            if let Some(detail) = forbidden(key) {
                let junctor = junctor_of(qp);
                let message = match key {
                    "type" => {
                        format!("type may not be set inside {junctor}: declare the type outside of it (rule 3 of structural schemas)")
                    }
                    "x-kubernetes-validations" => {
                        format!("x-kubernetes-validations may not be set inside {junctor}: put the rules outside of it")
                    }
                    _ => format!("{key} may not be set inside {junctor} (rule 3 of structural schemas)"),
                };
                self.push(key_at(q, key, anchor), ErrorType::Forbidden, format!("{qp}.{key}"), None, detail, message);
            }
        }
        if let Some(e) = get(q, "properties").and_then(|ps| ps.entry("metadata")) {
            self.push(
                e.key_range,
                ErrorType::Forbidden,
                format!("{qp}.properties[metadata]"),
                None,
                "must not be specified in a nested context",
                format!("metadata may not be named inside {}", junctor_of(qp)),
            );
        }
    }

    /// Rule 2, at the root: whatever a junctor of the root names must exist outside of it.
    fn completeness_root(&mut self, root: &Node, p: &str) {
        self.junctor_completeness(root, Some(root), p, p, 0);
    }

    /// The junctors of `v` against the structural node `s`.
    fn junctor_completeness(&mut self, v: &Node, s: Option<&Node>, sp: &str, vp: &str, depth: usize) {
        if depth > 64 {
            return;
        }
        if let Some(not) = get(v, "not") {
            self.nested_completeness(not, s, sp, &format!("{vp}.not"), v.range, depth + 1);
        }
        for key in ["allOf", "anyOf", "oneOf"] {
            for (i, e) in items(v, key).iter().enumerate() {
                self.nested_completeness(e, s, sp, &format!("{vp}.{key}[{i}]"), e.range, depth + 1);
            }
        }
    }

    fn nested_completeness(&mut self, v: &Node, s: Option<&Node>, sp: &str, vp: &str, at: TextRange, depth: usize) {
        if depth > 64 {
            return;
        }
        let Some(s) = s else {
            self.push(
                at,
                ErrorType::Required,
                sp.to_string(),
                None,
                &format!("because it is defined in {vp}"),
                format!("{} is named inside {} but not declared outside of it (rule 2 of structural schemas)", short(sp), junctor_of(vp)),
            );
            return;
        };
        self.junctor_completeness(v, Some(s), sp, vp, depth);
        if let Some(item) = get(v, "items") {
            let s_items = get(s, "items").filter(|i| matches!(i.value, Value::Map(_)));
            self.nested_completeness(item, s_items, &format!("{sp}.items"), &format!("{vp}.items"), key_at(v, "items", at), depth + 1);
        }
        let s_props = get(s, "properties");
        for e in entries(v, "properties") {
            let sp_k = format!("{sp}.properties[{}]", e.key);
            let vp_k = format!("{vp}.properties[{}]", e.key);
            match s_props.and_then(|ps| ps.get(&e.key)) {
                None => self.push(
                    e.key_range,
                    ErrorType::Required,
                    sp_k,
                    None,
                    &format!("because it is defined in {vp_k}"),
                    format!(
                        "{} is named inside {} but not declared in properties outside of it (rule 2 of structural schemas)",
                        e.key,
                        junctor_of(&vp_k)
                    ),
                ),
                Some(sf) => self.nested_completeness(&e.value, Some(sf), &sp_k, &vp_k, e.key_range, depth + 1),
            }
        }
    }
}

/// The innermost junctor of a path (`anyOf`, `allOf`, `oneOf` or `not`).
fn junctor_of(path: &str) -> &'static str {
    let last = ["anyOf[", "allOf[", "oneOf[", ".not"].iter().filter_map(|j| path.rfind(j).map(|i| (i, *j))).max();
    match last.map(|(_, j)| j) {
        Some("anyOf[") => "anyOf",
        Some("allOf[") => "allOf",
        Some("oneOf[") => "oneOf",
        _ => "not",
    }
}

/// The last step of a path, for messages.
fn short(path: &str) -> &str {
    if let Some((_, k)) = path.rsplit_once("properties[") {
        return k.trim_end_matches(']');
    }
    path.rsplit('.').next().unwrap_or(path)
}

/// A schema node holding nothing but `type: <ty>` (nulls aside).
fn only_type(node: &Node, ty: &str) -> bool {
    let Some(map) = node.as_map() else { return false };
    text(node, "type") == ty && map.iter().all(|e| e.key == "type" || e.value.value == Value::Null)
}

/// `anyOf: [{type: integer}, {type: string}]`, exactly.
fn any_of_pattern(s: &Node) -> bool {
    let list = items(s, "anyOf");
    list.len() == 2 && only_type(&list[0], "integer") && only_type(&list[1], "string")
}

/// `allOf: [{anyOf: [{type: integer}, {type: string}]}, ...]`.
fn all_of_pattern(s: &Node) -> bool {
    items(s, "allOf").first().is_some_and(any_of_pattern)
}

/// What a root `metadata` schema restricts besides `name` and `generateName`: the first such key and
/// a description, or `None`.
fn metadata_restriction(m: &Node) -> Option<(TextRange, String)> {
    let map = m.as_map()?;
    for e in map {
        let v = &e.value;
        let restricts = match (e.key.as_str(), &v.value) {
            (_, Value::Null) | ("type" | "default", _) => false,
            ("properties", Value::Map(props)) => {
                let names: Vec<&str> = props.iter().map(|p| p.key.as_str()).collect();
                let allowed = ["name", "generateName"];
                if props.is_empty() || names.iter().all(|n| allowed.contains(n)) {
                    false
                } else {
                    let bad = props.iter().find(|p| !allowed.contains(&p.key.as_str())).expect("a property other than name");
                    return Some((bad.key_range, format!("{:?}", bad.key)));
                }
            }
            (_, Value::Bool(b)) => *b,
            (_, Value::Str(s)) => !s.is_empty(),
            ("enum" | "allOf" | "anyOf" | "oneOf", Value::Seq(list)) => !list.is_empty(),
            _ => true,
        };
        if restricts {
            return Some((e.key_range, e.key.clone()));
        }
    }
    None
}
