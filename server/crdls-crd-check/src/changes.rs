//! CRD evolution: what a change from the previous version of a CRD breaks. The API server accepts
//! nearly any update of a CRD, but a field removed, a type changed, an enum narrowed or a bound
//! tightened breaks the clients and the stored objects that relied on the old schema. Each finding
//! (`crd-change/...`) is placed on the new CRD's text, says what changed (old → new), and carries the
//! version and field path it concerns.
//!
//! Validation ratcheting (Kubernetes 1.30+, GA in 1.33) shapes what a tightening breaks: on an update
//! the API server does not re-validate a value the update leaves unchanged, so stored objects keep
//! updating as long as they do not touch the tightened field; creating them again, or changing the
//! value, is checked against the new schema. Messages of tightenings say so. A type change and a
//! removed field are not softened by ratcheting: pruning and decoding see every stored object.
//!
//! The comparison is pure and bounded: it walks the two schemas in step (properties, items,
//! additionalProperties) to a fixed depth, and lists at most a few values per message.

use crdls_crd::Schema;
use crdls_diagnostics::codes;
use crdls_diagnostics::{listed, Change, Diagnostic, Severity, TextRange};
use crdls_yaml::{Node, Value};

use crate::gofmt;
use crdls_go::print::{float as go_float, json_string_into, quote};

/// How deep the two schemas are walked in step (deeper nodes are not compared).
const MAX_DEPTH: usize = 64;
/// At most this many findings per CRD; a rewrite of a schema would otherwise list every node.
const MAX_FINDINGS: usize = 200;

/// What ratcheting leaves to a tightening, said after its message.
const RATCHETING: &str =
    "stored objects still update while they leave the value unchanged (ratcheting); creating them again or changing it is checked";

/// Reports the breaking changes from `old` (the CRD's previous version) to `new` (the CRD as checked);
/// both are CRD objects. Findings are located in the text `new` was parsed from.
pub fn compare_crds(old: &Node, new: &Node, out: &mut Vec<Diagnostic>) {
    let mut cx = Cx { out: Vec::new(), version: String::new() };
    compare_scope(old, new, &mut cx);
    compare_versions(old, new, &mut cx);
    compare_conversion_losses(old, new, &mut cx);
    cx.out.truncate(MAX_FINDINGS);
    out.append(&mut cx.out);
}

/// The findings so far and the version being compared.
struct Cx {
    out: Vec<Diagnostic>,
    version: String,
}

/// The value before and after a change, each as JSON text, `None` where there is none.
type Values = (Option<String>, Option<String>);

/// `s` as a JSON string.
fn json_str(s: &str) -> String {
    let mut out = String::new();
    json_string_into(s, &mut out);
    out
}

/// JSON strings as a JSON array.
fn json_array(items: &[String]) -> String {
    format!("[{}]", items.join(","))
}

impl Cx {
    /// Reports a change of `path` in the version being compared, from `values.0` to `values.1`.
    fn push(&mut self, at: TextRange, code: &'static str, path: &str, values: Values, message: String) {
        self.push_restoring(at, code, path, values, message, None);
    }

    /// [`Cx::push`] with the value a quick fix writes back into the keyword at `at`.
    fn push_restoring(&mut self, at: TextRange, code: &'static str, path: &str, values: Values, message: String, restore: Option<String>) {
        if self.out.len() >= MAX_FINDINGS {
            return;
        }
        let severity = codes::lookup(code).map_or(Severity::Error, |c| c.severity);
        let mut d = Diagnostic::new(at, severity, code, message);
        if !path.is_empty() {
            d = d.with_path(path);
        }
        d.restore = restore;
        let (old, new) = values;
        d.change = Some(Box::new(Change { version: self.version.clone(), old, new, objects: Vec::new() }));
        self.out.push(d);
    }

    /// `spec.mode` in `v1`, or `the root of v1`, for messages.
    fn field(&self, path: &str) -> String {
        if path.is_empty() {
            format!("the root of {}", self.version)
        } else {
            format!("{path} in {}", self.version)
        }
    }
}

/// The range of `key`'s name in the mapping `node`, if it has that key.
fn key_range(node: &Node, key: &str) -> Option<TextRange> {
    node.as_map()?.iter().find(|e| e.key == key).map(|e| e.key_range)
}

fn compare_scope(old: &Node, new: &Node, cx: &mut Cx) {
    let scope = |root: &Node| root.get("spec").and_then(|s| s.get_str("scope")).unwrap_or("Namespaced").to_string();
    let (before, after) = (scope(old), scope(new));
    if before != after {
        let at = new.get("spec").and_then(|s| s.get("scope")).map_or(new.range, |n| n.range);
        let values = (Some(json_str(&before)), Some(json_str(&after)));
        cx.push(at, codes::CRD_CHANGE_SCOPE, "spec.scope", values, format!("scope changed: {before} → {after}"));
    }
}

/// One entry of `spec.versions`, as this comparison reads it.
struct Version<'a> {
    name: &'a str,
    node: &'a Node,
    served: bool,
    storage: bool,
    schema: Option<&'a Node>,
}

fn versions(root: &Node) -> Vec<Version<'_>> {
    let Some(spec) = root.get("spec") else { return Vec::new() };
    let legacy = spec.get("validation").and_then(|v| v.get("openAPIV3Schema"));
    let v1beta1 = root.get_str("apiVersion") == Some("apiextensions.k8s.io/v1beta1");
    let flag = |v: &Node, key: &str, default: bool| match v.get(key).map(|n| &n.value) {
        Some(Value::Bool(b)) => *b,
        _ => default,
    };
    spec.get("versions")
        .and_then(Node::as_seq)
        .unwrap_or_default()
        .iter()
        .filter_map(|v| {
            Some(Version {
                name: v.get_str("name")?,
                node: v,
                served: flag(v, "served", v1beta1),
                storage: flag(v, "storage", false),
                schema: v.get("schema").and_then(|s| s.get("openAPIV3Schema")).or(legacy),
            })
        })
        .collect()
}

fn compare_versions(old: &Node, new: &Node, cx: &mut Cx) {
    let old_versions = versions(old);
    let new_versions = versions(new);
    let stored: Vec<&str> = old
        .get("status")
        .and_then(|s| s.get("storedVersions"))
        .and_then(Node::as_seq)
        .unwrap_or_default()
        .iter()
        .filter_map(Node::as_str)
        .collect();
    let versions_at = new.get("spec").and_then(|s| key_range(s, "versions")).unwrap_or(new.range);
    for before in &old_versions {
        let after = new_versions.iter().find(|v| v.name == before.name);
        let was_stored = before.storage || stored.contains(&before.name);
        cx.version = before.name.to_string();
        let gone = (Some(json_str(before.name)), None);
        match after {
            None if was_stored => {
                let why = if before.storage { "the storage version" } else { "listed in status.storedVersions" };
                cx.push(
                    versions_at,
                    codes::CRD_CHANGE_STORED_VERSION_REMOVED,
                    "spec.versions",
                    gone,
                    format!(
                        "version {} removed, but it was {why}: objects stored in it must be migrated first, and the API server rejects the update while status.storedVersions lists it",
                        before.name
                    ),
                );
            }
            None if before.served => cx.push(
                versions_at,
                codes::CRD_CHANGE_SERVED_VERSION_REMOVED,
                "spec.versions",
                gone,
                format!("served version {} removed: clients that use it get 404 Not Found", before.name),
            ),
            None => {}
            Some(after) => {
                if before.served && !after.served {
                    let at = after.node.get("served").map_or(after.node.range, |n| n.range);
                    cx.push(
                        at,
                        codes::CRD_CHANGE_SERVED_VERSION_REMOVED,
                        "spec.versions",
                        (Some("true".to_string()), Some("false".to_string())),
                        format!("version {} is no longer served: clients that use it get 404 Not Found", before.name),
                    );
                }
                if let (Some(old_schema), Some(new_schema)) = (before.schema, after.schema) {
                    let anchor = after.node.get("name").map_or(after.node.range, |n| n.range);
                    let (old_schema_model, new_schema_model) = (Schema::from_node(old_schema), Schema::from_node(new_schema));
                    let nodes = Nodes { old: old_schema, new: new_schema };
                    compare_schemas(&old_schema_model, &new_schema_model, nodes, anchor, "", 0, cx);
                }
            }
        }
    }
}

/// Data a served version loses through conversion strategy `None` (`crd/version-field-loss`,
/// `crd/version-type-change`) that the previous CRD did not lose, for a version the previous CRD
/// already served: its clients, which worked, now drop or corrupt fields of the storage version. Only
/// where the CRD says `strategy: None` (without a `conversion` a webhook may be patched in at deploy
/// time, and the version checks themselves only note it).
fn compare_conversion_losses(old: &Node, new: &Node, cx: &mut Cx) {
    let (mut before, mut after) = (Vec::new(), Vec::new());
    crate::served_versions::check_versions(old, &mut before);
    crate::served_versions::check_versions(new, &mut after);
    let served_before: Vec<&str> = versions(old).into_iter().filter(|v| v.served).map(|v| v.name).collect();
    let new_versions = versions(new);
    for d in after.iter().filter(|d| d.severity == Severity::Warning) {
        if before.iter().any(|b| b.code == d.code && b.message == d.message) {
            continue;
        }
        // The version the finding is about: the one whose entry holds its range.
        let Some(version) = new_versions.iter().find(|v| v.node.range.start <= d.range.start && d.range.end <= v.node.range.end) else {
            continue;
        };
        if !served_before.contains(&version.name) {
            continue;
        }
        cx.version = version.name.to_string();
        cx.push(
            d.range,
            codes::CRD_CHANGE_VERSION_FIELD_LOSS,
            d.path.as_deref().unwrap_or_default(),
            (None, None),
            format!("this change makes version {}, which clients already use, lose data: {}", version.name, d.message),
        );
    }
}

/// The YAML of one schema node in the old and the new CRD: the new one for locations, both for the
/// keywords compared as written (`allOf`, `anyOf`, `oneOf`, `not`).
#[derive(Clone, Copy)]
struct Nodes<'a> {
    old: &'a Node,
    new: &'a Node,
}

impl<'a> Nodes<'a> {
    /// The nodes of `key` below both, when both have it.
    fn child(self, key: &str) -> Option<Nodes<'a>> {
        Some(Nodes { old: self.old.get(key)?, new: self.new.get(key)? })
    }
}

/// Compares one schema node of the old and new version. `nodes` are their YAML, `anchor` where a
/// finding at this node goes when the keyword itself is not written in the new schema (its property
/// name, or the version's name at the root).
fn compare_schemas(old: &Schema, new: &Schema, nodes: Nodes<'_>, anchor: TextRange, path: &str, depth: usize, cx: &mut Cx) {
    if depth > MAX_DEPTH {
        return;
    }
    let node = nodes.new;
    let at = |key: &str| key_range(node, key).unwrap_or(anchor);
    let typed = compare_type(old, new, &at, path, cx);
    compare_default(old, new, &at, path, cx);
    compare_enum(old, new, &at, path, cx);
    compare_bounds(old, new, &at, path, cx);
    compare_pattern(old, new, &at, path, cx);
    compare_format(old, new, &at, path, cx);
    compare_junctors(nodes, &at, path, cx);
    compare_flags(old, new, &at, path, cx);
    compare_rules(old, new, &at, path, cx);
    compare_required(old, new, &at, path, cx);
    if !typed {
        // Below a changed type the old and new nodes describe different values.
        return;
    }
    compare_children(old, new, nodes, &at, path, depth, cx);
}

/// Reports a changed `type` or `x-kubernetes-int-or-string`; returns whether the types agree.
fn compare_type(old: &Schema, new: &Schema, at: &dyn Fn(&str) -> TextRange, path: &str, cx: &mut Cx) -> bool {
    let shown = |s: &Schema| match (s.ty.as_deref(), s.int_or_string) {
        (_, true) => "int-or-string".to_string(),
        (Some(t), false) => t.to_string(),
        (None, false) => "(any)".to_string(),
    };
    let (before, after) = (shown(old), shown(new));
    if before == after {
        return true;
    }
    let where_ = if old.int_or_string != new.int_or_string { "x-kubernetes-int-or-string" } else { "type" };
    cx.push(
        at(where_),
        codes::CRD_CHANGE_TYPE,
        path,
        (Some(json_str(&before)), Some(json_str(&after))),
        format!("type of {} changed: {before} → {after}; stored objects with the old type fail to decode or validate", cx.field(path)),
    );
    false
}

fn compare_default(old: &Schema, new: &Schema, at: &dyn Fn(&str) -> TextRange, path: &str, cx: &mut Cx) {
    let shown = |d: &Option<Box<Node>>| d.as_deref().map(gofmt::json);
    let (before, after) = (shown(&old.default), shown(&new.default));
    let message = match (&before, &after) {
        (None, Some(a)) => {
            format!("default of {} added: (none) → {a}; objects that omit the field now read as {a}, stored ones included", cx.field(path))
        }
        (Some(b), None) => format!("default of {} removed: {b} → (none); objects that omit the field no longer get {b}", cx.field(path)),
        (Some(b), Some(a)) if b != a => {
            format!("default of {} changed: {b} → {a}; objects that omit the field now read as {a}, stored ones included", cx.field(path))
        }
        _ => return,
    };
    cx.push(at("default"), codes::CRD_CHANGE_DEFAULT, path, (before, after), message);
}

fn compare_enum(old: &Schema, new: &Schema, at: &dyn Fn(&str) -> TextRange, path: &str, cx: &mut Cx) {
    let values = |e: &Option<Box<[Node]>>| e.as_deref().map(|items| items.iter().map(gofmt::json).collect::<Vec<String>>());
    match (values(&old.enumeration), values(&new.enumeration)) {
        (None, Some(after)) => cx.push(
            at("enum"),
            codes::CRD_CHANGE_ENUM,
            path,
            (None, Some(json_array(&after))),
            format!("enum of {} added: (any value) → {}; {RATCHETING}", cx.field(path), listed(&after)),
        ),
        (Some(before), Some(after)) => {
            let removed: Vec<String> = before.iter().filter(|v| !after.contains(v)).cloned().collect();
            let added: Vec<String> = after.iter().filter(|v| !before.contains(v)).cloned().collect();
            let values = (Some(json_array(&before)), Some(json_array(&after)));
            if !removed.is_empty() {
                // The fix keeps the new values and puts the removed ones back, as a flow sequence of
                // JSON scalars (valid YAML).
                let restored = format!("[{}]", after.iter().chain(&removed).cloned().collect::<Vec<_>>().join(", "));
                cx.push_restoring(
                    at("enum"),
                    codes::CRD_CHANGE_ENUM,
                    path,
                    values.clone(),
                    format!("enum values of {} removed: {} → (gone); {RATCHETING}", cx.field(path), listed(&removed)),
                    Some(restored),
                );
            }
            if !added.is_empty() {
                cx.push(
                    at("enum"),
                    codes::CRD_CHANGE_ENUM_VALUES_ADDED,
                    path,
                    values,
                    format!(
                        "enum values of {} added: {}; clients that handle only the old values may meet new ones",
                        cx.field(path),
                        listed(&added)
                    ),
                );
            }
        }
        _ => {}
    }
}

/// Which way a bound tightens: an upper bound tightens when it goes down, a lower bound when it goes up.
#[derive(Clone, Copy, PartialEq)]
enum Side {
    Upper,
    Lower,
}

fn compare_bounds(old: &Schema, new: &Schema, at: &dyn Fn(&str) -> TextRange, path: &str, cx: &mut Cx) {
    let (o, n) = (old.rare(), new.rare());
    let counts: [(&str, Side, Option<u64>, Option<u64>); 6] = [
        ("maxLength", Side::Upper, o.max_length, n.max_length),
        ("minLength", Side::Lower, o.min_length, n.min_length),
        ("maxItems", Side::Upper, o.max_items, n.max_items),
        ("minItems", Side::Lower, o.min_items, n.min_items),
        ("maxProperties", Side::Upper, o.max_properties, n.max_properties),
        ("minProperties", Side::Lower, o.min_properties, n.min_properties),
    ];
    for (keyword, side, before, after) in counts {
        bound(keyword, side, before.map(|v| (v as f64, false)), after.map(|v| (v as f64, false)), at, path, cx);
    }
    bound("maximum", Side::Upper, o.maximum.map(|v| (v, o.exclusive_maximum)), n.maximum.map(|v| (v, n.exclusive_maximum)), at, path, cx);
    bound("minimum", Side::Lower, o.minimum.map(|v| (v, o.exclusive_minimum)), n.minimum.map(|v| (v, n.exclusive_minimum)), at, path, cx);
    // A new multipleOf, or one the old one is not a multiple of, rejects values that were accepted.
    match (o.multiple_of, n.multiple_of) {
        (before, Some(after)) if before.is_none_or(|b| after != 0.0 && (b / after).fract() != 0.0) => {
            let values = (before.map(go_float), Some(go_float(after)));
            let before = before.map_or("(none)".to_string(), go_float);
            cx.push(
                at("multipleOf"),
                codes::CRD_CHANGE_BOUND,
                path,
                values,
                format!("multipleOf of {} changed: {before} → {}; {RATCHETING}", cx.field(path), go_float(after)),
            );
        }
        _ => {}
    }
}

/// Reports one bound added or tightened. Values are `(limit, exclusive)`.
fn bound(
    keyword: &str,
    side: Side,
    before: Option<(f64, bool)>,
    after: Option<(f64, bool)>,
    at: &dyn Fn(&str) -> TextRange,
    path: &str,
    cx: &mut Cx,
) {
    let Some((limit, exclusive)) = after else { return };
    let shown = |(v, exclusive): (f64, bool)| if exclusive { format!("{} (exclusive)", go_float(v)) } else { go_float(v) };
    let tightened = match before {
        None => true,
        Some((old_limit, old_exclusive)) => {
            let moved = if side == Side::Upper { limit < old_limit } else { limit > old_limit };
            moved || (limit == old_limit && exclusive && !old_exclusive)
        }
    };
    if !tightened {
        return;
    }
    let verb = match (before, side) {
        (None, _) => "added",
        (Some((old_limit, _)), _) if old_limit == limit => "made exclusive",
        (_, Side::Upper) => "lowered",
        (_, Side::Lower) => "raised",
    };
    let before_limit = before.map(|(v, _)| v);
    let before = before.map_or("(none)".to_string(), shown);
    let where_ = if before != "(none)" && verb == "made exclusive" {
        if side == Side::Upper {
            "exclusiveMaximum"
        } else {
            "exclusiveMinimum"
        }
    } else {
        keyword
    };
    // A bound moved (not added, nor made exclusive) is put back by writing its previous limit.
    let restore = matches!(verb, "lowered" | "raised").then(|| before_limit.map(go_float)).flatten();
    cx.push_restoring(
        at(where_),
        codes::CRD_CHANGE_BOUND,
        path,
        (before_limit.map(go_float), Some(go_float(limit))),
        format!("{keyword} of {} {verb}: {before} → {}; {RATCHETING}", cx.field(path), shown((limit, exclusive))),
        restore,
    );
}

fn compare_pattern(old: &Schema, new: &Schema, at: &dyn Fn(&str) -> TextRange, path: &str, cx: &mut Cx) {
    let (before, after) = (old.rare().pattern.as_deref(), new.rare().pattern.as_deref());
    let quoted = |p: &str| quote(p);
    match (before, after) {
        (None, Some(a)) => cx.push(
            at("pattern"),
            codes::CRD_CHANGE_PATTERN,
            path,
            (None, Some(json_str(a))),
            format!("pattern of {} added: (none) → {}; {RATCHETING}", cx.field(path), quoted(a)),
        ),
        (Some(b), Some(a)) if a != b => cx.push(
            at("pattern"),
            codes::CRD_CHANGE_PATTERN,
            path,
            (Some(json_str(b)), Some(json_str(a))),
            format!("pattern of {} changed: {} → {}; {RATCHETING}", cx.field(path), quoted(b), quoted(a)),
        ),
        (Some(b), None) => cx.push(
            at("pattern"),
            codes::CRD_CHANGE_PATTERN_REMOVED,
            path,
            (Some(json_str(b)), None),
            format!("pattern of {} removed: {} → (none); clients may now read values the old pattern excluded", cx.field(path), quoted(b)),
        ),
        _ => {}
    }
}

/// A `format` added or changed to one the API server validates (it ignores the others, so a
/// format it does not know rejects nothing). A removed format rejects nothing.
fn compare_format(old: &Schema, new: &Schema, at: &dyn Fn(&str) -> TextRange, path: &str, cx: &mut Cx) {
    let validated = |s: &Schema| s.format.as_deref().filter(|f| crdls_go::formats::is_validated_format(f)).map(str::to_string);
    let Some(after) = validated(new) else { return };
    let message = match (validated(old), old.format.as_deref()) {
        (Some(before), _) if before == after => return,
        (Some(before), _) => format!("format of {} changed: {} → {}; {RATCHETING}", cx.field(path), quote(&before), quote(&after)),
        (None, Some(unvalidated)) => {
            format!("format of {} changed: {} (not validated) → {}; {RATCHETING}", cx.field(path), quote(unvalidated), quote(&after))
        }
        (None, None) => format!("format of {} added: (none) → {}; {RATCHETING}", cx.field(path), quote(&after)),
    };
    cx.push(at("format"), codes::CRD_CHANGE_FORMAT, path, (old.format.as_deref().map(json_str), Some(json_str(&after))), message);
}

/// `allOf`, `anyOf`, `oneOf` and `not`, their entries compared as written (as JSON, keys sorted):
/// an `allOf` entry added, an `anyOf` or `oneOf` where there was none or with alternatives removed,
/// a `oneOf` alternative added (a value may now match two), and a `not` added or changed each
/// reject values that passed. Entries removed from `allOf`, alternatives added to `anyOf` and a
/// `not` removed only loosen.
fn compare_junctors(nodes: Nodes<'_>, at: &dyn Fn(&str) -> TextRange, path: &str, cx: &mut Cx) {
    let entries = |node: &Node, key: &str| -> Option<Vec<String>> {
        let value = node.get(key)?;
        Some(match value.as_seq() {
            Some(items) => items.iter().map(gofmt::json).collect(),
            None => vec![gofmt::json(value)],
        })
    };
    let shown = |items: &[String]| listed(&items.iter().map(|i| shorten(i)).collect::<Vec<_>>());
    for key in ["allOf", "anyOf", "oneOf", "not"] {
        let (before, after) = (entries(nodes.old, key), entries(nodes.new, key));
        let Some(after) = after else { continue };
        let field = cx.field(path);
        let message = match before {
            None => format!("{key} of {field} added: (none) → {}; {RATCHETING}", shown(&after)),
            Some(before) => {
                let added: Vec<String> = after.iter().filter(|e| !before.contains(e)).cloned().collect();
                let removed: Vec<String> = before.iter().filter(|e| !after.contains(e)).cloned().collect();
                match key {
                    "allOf" if !added.is_empty() => format!("{key} of {field}: entries added: {}; {RATCHETING}", shown(&added)),
                    "anyOf" | "oneOf" if !removed.is_empty() => {
                        format!("{key} of {field}: alternatives removed: {}; {RATCHETING}", shown(&removed))
                    }
                    "oneOf" if !added.is_empty() => format!(
                        "{key} of {field}: alternatives added: {}; a value that now matches two alternatives fails; {RATCHETING}",
                        shown(&added)
                    ),
                    "not" if before != after => format!("{key} of {field} changed: {} → {}; {RATCHETING}", shown(&before), shown(&after)),
                    _ => continue,
                }
            }
        };
        let values = (entries(nodes.old, key).map(|e| json_array(&e)), entries(nodes.new, key).map(|e| json_array(&e)));
        cx.push(at(key), codes::CRD_CHANGE_JUNCTOR, path, values, message);
    }
}

/// A schema written as JSON, cut to a length a message can carry.
fn shorten(json: &str) -> String {
    const MAX: usize = 120;
    match json.char_indices().nth(MAX) {
        Some((end, _)) => format!("{}…", &json[..end]),
        None => json.to_string(),
    }
}

/// `nullable`, `x-kubernetes-preserve-unknown-fields`, `x-kubernetes-embedded-resource`, and the
/// list and map types.
fn compare_flags(old: &Schema, new: &Schema, at: &dyn Fn(&str) -> TextRange, path: &str, cx: &mut Cx) {
    if old.nullable && !new.nullable {
        cx.push(
            at("nullable"),
            codes::CRD_CHANGE_NULLABLE_REMOVED,
            path,
            (Some("true".into()), Some("false".into())),
            format!(
                "nullable of {} removed: true → false; a null value is now dropped (or rejected where the field is required)",
                cx.field(path)
            ),
        );
    } else if !old.nullable && new.nullable {
        cx.push(
            at("nullable"),
            codes::CRD_CHANGE_NULLABLE_ADDED,
            path,
            (Some("false".into()), Some("true".into())),
            format!("nullable of {} added: false → true; clients may now read null", cx.field(path)),
        );
    }
    if old.preserves_unknown_fields() && !new.preserves_unknown_fields() {
        cx.push(
            at("x-kubernetes-preserve-unknown-fields"),
            codes::CRD_CHANGE_PRESERVE_UNKNOWN_FIELDS,
            path,
            (Some("true".into()), Some("false".into())),
            format!(
                "x-kubernetes-preserve-unknown-fields of {} removed: true → false; fields the schema does not declare are pruned from stored objects when they are read or written",
                cx.field(path)
            ),
        );
    }
    if old.embedded_resource != new.embedded_resource {
        cx.push(
            at("x-kubernetes-embedded-resource"),
            codes::CRD_CHANGE_EMBEDDED_RESOURCE,
            path,
            (Some(old.embedded_resource.to_string()), Some(new.embedded_resource.to_string())),
            format!(
                "x-kubernetes-embedded-resource of {} changed: {} → {}; the value's apiVersion, kind and metadata are validated and pruned differently",
                cx.field(path),
                old.embedded_resource,
                new.embedded_resource
            ),
        );
    }
    let list_type = |s: &Schema| s.list_type.as_deref().unwrap_or("atomic").to_string();
    if old.ty.as_deref() == Some("array") && list_type(old) != list_type(new) {
        cx.push(
            at("x-kubernetes-list-type"),
            codes::CRD_CHANGE_LIST_TYPE,
            path,
            (Some(json_str(&list_type(old))), Some(json_str(&list_type(new)))),
            format!(
                "x-kubernetes-list-type of {} changed: {} → {}; server-side apply merges the list differently, and stored lists may break the new type's rules",
                cx.field(path),
                list_type(old),
                list_type(new)
            ),
        );
    } else if !old.rare().list_map_keys.is_empty() && old.rare().list_map_keys != new.rare().list_map_keys {
        let keys = |s: &Schema| format!("[{}]", s.rare().list_map_keys.join(", "));
        let json_keys = |s: &Schema| json_array(&s.rare().list_map_keys.iter().map(|k| json_str(k)).collect::<Vec<_>>());
        cx.push(
            at("x-kubernetes-list-map-keys"),
            codes::CRD_CHANGE_LIST_TYPE,
            path,
            (Some(json_keys(old)), Some(json_keys(new))),
            format!(
                "x-kubernetes-list-map-keys of {} changed: {} → {}; server-side apply identifies items differently",
                cx.field(path),
                keys(old),
                keys(new)
            ),
        );
    }
    let map_type = |s: &Schema| s.rare().map_type.clone().unwrap_or_else(|| "granular".to_string());
    if old.ty.as_deref() == Some("object") && map_type(old) != map_type(new) {
        cx.push(
            at("x-kubernetes-map-type"),
            codes::CRD_CHANGE_LIST_TYPE,
            path,
            (Some(json_str(&map_type(old))), Some(json_str(&map_type(new)))),
            format!(
                "x-kubernetes-map-type of {} changed: {} → {}; server-side apply merges the map differently",
                cx.field(path),
                map_type(old),
                map_type(new)
            ),
        );
    }
}

/// Rules of `x-kubernetes-validations` added, or changed, on a node the old schema has.
fn compare_rules(old: &Schema, new: &Schema, at: &dyn Fn(&str) -> TextRange, path: &str, cx: &mut Cx) {
    for rule in new.validations.iter() {
        if old.validations.iter().any(|r| r.rule == rule.rule) {
            continue;
        }
        let location = rule.rule_node.as_ref().map_or_else(|| at("x-kubernetes-validations"), |n| n.range);
        let transition = rule.rule.contains("oldSelf");
        let effect = if transition && rule.optional_old_self == Some(true) {
            "a transition rule with optionalOldSelf: it runs on creates (oldSelf has no value) and on updates that change the value"
        } else if transition {
            "a transition rule: it runs on updates that change the value"
        } else {
            "stored objects still update while they leave the value unchanged (ratcheting); creating them again or changing it must pass the rule"
        };
        cx.push(
            location,
            codes::CRD_CHANGE_RULE,
            path,
            (None, Some(json_str(&rule.rule))),
            format!("rule added on {}: {}; {effect}", cx.field(path), rule.rule),
        );
    }
}

/// Fields newly required on an object the old schema has.
fn compare_required(old: &Schema, new: &Schema, at: &dyn Fn(&str) -> TextRange, path: &str, cx: &mut Cx) {
    let added: Vec<String> = new.required.iter().filter(|r| !old.required.contains(r)).cloned().collect();
    if added.is_empty() {
        return;
    }
    // A required field with a default is filled in before validation: objects that omit it still pass.
    let bare: Vec<String> = added.into_iter().filter(|name| new.property(name).is_none_or(|p| p.schema.default.is_none())).collect();
    if !bare.is_empty() {
        let quoted = |names: &[String]| json_array(&names.iter().map(|n| json_str(n)).collect::<Vec<_>>());
        cx.push(
            at("required"),
            codes::CRD_CHANGE_REQUIRED,
            path,
            (Some(quoted(&old.required)), Some(quoted(&new.required))),
            format!(
                "{} now requires {}; objects without it are rejected when created, and when updated if they change this object",
                cx.field(path),
                listed(&bare)
            ),
        );
    }
}

/// Properties, items and additionalProperties in step; a removed property is reported on the new
/// node's `properties` (or its anchor).
fn compare_children(old: &Schema, new: &Schema, nodes: Nodes<'_>, at: &dyn Fn(&str) -> TextRange, path: &str, depth: usize, cx: &mut Cx) {
    let join = |name: &str| if path.is_empty() { name.to_string() } else { format!("{path}.{name}") };
    let props_nodes = nodes.child("properties");
    for p in old.properties.iter() {
        match new.property(&p.name) {
            Some(q) => {
                if let Some(child) = props_nodes.and_then(|n| n.child(&p.name)) {
                    compare_schemas(&p.schema, &q.schema, child, q.name_range, &join(&p.name), depth + 1, cx);
                }
            }
            // Kept as an unknown field, or as a value of the map additionalProperties declares.
            None if new.preserves_unknown_fields() || new.additional_properties.is_some() => {}
            None => {
                let field = join(&p.name);
                cx.push(
                    at("properties"),
                    codes::CRD_CHANGE_FIELD_REMOVED,
                    &field,
                    (p.schema.ty.as_deref().map(json_str), None),
                    format!(
                        "field {} removed: clients that set it lose it, and it is pruned from stored objects when they are read or written",
                        cx.field(&field)
                    ),
                );
            }
        }
    }
    if let (Some(a), Some(b), Some(child)) = (&old.items, &new.items, nodes.child("items")) {
        // The array form of items is read as its first element.
        fn first(n: &Node) -> &Node {
            n.as_seq().and_then(|s| s.first()).unwrap_or(n)
        }
        let child = Nodes { old: first(child.old), new: first(child.new) };
        let anchor = key_range(nodes.new, "items").unwrap_or(child.new.range);
        compare_schemas(a, b, child, anchor, &format!("{path}[*]"), depth + 1, cx);
    }
    if let (Some(crdls_crd::AdditionalProperties::Schema(a)), Some(crdls_crd::AdditionalProperties::Schema(b)), Some(child)) =
        (&old.additional_properties, &new.additional_properties, nodes.child("additionalProperties"))
    {
        let anchor = key_range(nodes.new, "additionalProperties").unwrap_or(child.new.range);
        compare_schemas(a, b, child, anchor, &format!("{path}[*]"), depth + 1, cx);
    }
}

#[cfg(test)]
mod tests {
    use expect_test::{expect, Expect};

    /// A CRD of kind Widget whose versions (`name: schema`, the schema in flow style) are served, the
    /// first one stored; `extra` goes under `spec`.
    fn crd(versions: &[(&str, &str)], extra: &str) -> String {
        let mut text = String::from(
            "apiVersion: apiextensions.k8s.io/v1\nkind: CustomResourceDefinition\nmetadata:\n  name: widgets.demo.crdls.dev\nspec:\n  group: demo.crdls.dev\n  names: {kind: Widget, plural: widgets}\n",
        );
        text.push_str(if extra.is_empty() { "  scope: Namespaced\n" } else { extra });
        text.push_str("  versions:\n");
        for (i, (name, schema)) in versions.iter().enumerate() {
            text.push_str(&format!(
                "  - name: {name}\n    served: true\n    storage: {}\n    schema:\n      openAPIV3Schema: {schema}\n",
                i == 0
            ));
        }
        text
    }

    fn spec(properties: &str) -> String {
        format!("{{type: object, properties: {{spec: {{type: object, properties: {{{properties}}}}}}}}}")
    }

    fn check(old: &str, new: &str, expect: Expect) {
        let (old_stream, new_stream) = (crdls_yaml::parse(old), crdls_yaml::parse(new));
        let (Some(old_root), Some(new_root)) = (&old_stream.documents[0].root, &new_stream.documents[0].root) else { panic!("no CRD") };
        let mut out = Vec::new();
        super::compare_crds(old_root, new_root, &mut out);
        let lines = crdls_yaml::LineIndex::new(new);
        let shown: Vec<String> = out
            .iter()
            .map(|d| {
                let at = lines.line_col(new, d.range.start, crdls_yaml::ColumnUnit::Char);
                format!(
                    "{}:{} {}[{}] {}: {}",
                    at.line + 1,
                    at.col + 1,
                    d.severity.as_str(),
                    d.code,
                    d.path.as_deref().unwrap_or("-"),
                    d.message
                )
            })
            .collect();
        expect.assert_eq(&shown.join("\n"));
    }

    fn one(old: &str, new: &str, expect: Expect) {
        check(&crd(&[("v1", &spec(old))], ""), &crd(&[("v1", &spec(new))], ""), expect);
    }

    #[test]
    fn an_unchanged_crd_has_no_findings() {
        let text = crd(&[("v1", &spec("mode: {type: string, enum: [A, B], default: A}, size: {type: integer, maximum: 3}"))], "");
        check(&text, &text, expect![[""]]);
    }

    #[test]
    fn scope_and_versions() {
        let old = crd(&[("v1", &spec("a: {type: string}")), ("v1beta1", &spec("a: {type: string}"))], "");
        let new = crd(&[("v2", &spec("a: {type: string}"))], "  scope: Cluster\n");
        check(
            &old,
            &new,
            expect![[r#"
                8:10 error[crd-change/scope] spec.scope: scope changed: Namespaced → Cluster
                9:3 error[crd-change/stored-version-removed] spec.versions: version v1 removed, but it was the storage version: objects stored in it must be migrated first, and the API server rejects the update while status.storedVersions lists it
                9:3 error[crd-change/served-version-removed] spec.versions: served version v1beta1 removed: clients that use it get 404 Not Found"#]],
        );
    }

    #[test]
    fn a_version_in_status_stored_versions_counts_as_stored() {
        let old = crd(&[("v2", &spec("")), ("v1", &spec(""))], "") + "status: {storedVersions: [v1, v2]}\n";
        let new = crd(&[("v2", &spec(""))], "");
        check(
            &old,
            &new,
            expect![[
                r#"9:3 error[crd-change/stored-version-removed] spec.versions: version v1 removed, but it was listed in status.storedVersions: objects stored in it must be migrated first, and the API server rejects the update while status.storedVersions lists it"#
            ]],
        );
    }

    #[test]
    fn removed_and_retyped_fields() {
        one(
            "mode: {type: string, enum: [A]}, port: {type: integer}, keep: {type: object, x-kubernetes-preserve-unknown-fields: true, properties: {x: {type: string}}}",
            "port: {type: string}, keep: {type: object, x-kubernetes-preserve-unknown-fields: true}",
            expect![[r#"
                14:73 error[crd-change/field-removed] spec.mode: field spec.mode in v1 removed: clients that set it lose it, and it is pruned from stored objects when they are read or written
                14:93 error[crd-change/type] spec.port: type of spec.port in v1 changed: integer → string; stored objects with the old type fail to decode or validate"#]],
        );
    }

    #[test]
    fn enums_defaults_and_required() {
        one(
            "mode: {type: string, enum: [A, B], default: A}, kind: {type: string}, level: {type: string, enum: [x]}",
            "mode: {type: string, enum: [A, C], default: C}, kind: {type: string, enum: [p]}, level: {type: string, enum: [x]}, new: {type: string, default: d}}, required: [mode, new]",
            expect![[r#"
                14:121 warning[crd-change/default] spec.mode: default of spec.mode in v1 changed: "A" → "C"; objects that omit the field now read as "C", stored ones included
                14:107 error[crd-change/enum] spec.mode: enum values of spec.mode in v1 removed: "B" → (gone); stored objects still update while they leave the value unchanged (ratcheting); creating them again or changing it is checked
                14:107 warning[crd-change/enum-values-added] spec.mode: enum values of spec.mode in v1 added: "C"; clients that handle only the old values may meet new ones
                14:155 error[crd-change/enum] spec.kind: enum of spec.kind in v1 added: (any value) → "p"; stored objects still update while they leave the value unchanged (ratcheting); creating them again or changing it is checked"#]],
        );
    }

    #[test]
    fn a_new_required_field_without_a_default() {
        one(
            "mode: {type: string}, size: {type: integer}",
            "mode: {type: string}, size: {type: integer, default: 1}}, required: [mode, size]",
            expect![[r#"
                14:144 error[crd-change/required] spec: spec in v1 now requires mode; objects without it are rejected when created, and when updated if they change this object
                14:130 warning[crd-change/default] spec.size: default of spec.size in v1 added: (none) → 1; objects that omit the field now read as 1, stored ones included"#]],
        );
    }

    #[test]
    fn bounds_patterns_and_flags() {
        one(
            "size: {type: integer, maximum: 10, minimum: 1}, name: {type: string, maxLength: 5, pattern: '^a'}, code: {type: string, nullable: true}, tags: {type: array, items: {type: string}, maxItems: 4}",
            "size: {type: integer, maximum: 10, exclusiveMaximum: true, minimum: 2}, name: {type: string, maxLength: 9, pattern: '^b'}, code: {type: string}, tags: {type: array, items: {type: string, minLength: 1}, maxItems: 4, x-kubernetes-list-type: set}",
            expect![[r#"
                14:121 error[crd-change/bound] spec.size: maximum of spec.size in v1 made exclusive: 10 → 10 (exclusive); stored objects still update while they leave the value unchanged (ratcheting); creating them again or changing it is checked
                14:145 error[crd-change/bound] spec.size: minimum of spec.size in v1 raised: 1 → 2; stored objects still update while they leave the value unchanged (ratcheting); creating them again or changing it is checked
                14:193 error[crd-change/pattern] spec.name: pattern of spec.name in v1 changed: "^a" → "^b"; stored objects still update while they leave the value unchanged (ratcheting); creating them again or changing it is checked
                14:209 error[crd-change/nullable-removed] spec.code: nullable of spec.code in v1 removed: true → false; a null value is now dropped (or rejected where the field is required)
                14:301 error[crd-change/list-type] spec.tags: x-kubernetes-list-type of spec.tags in v1 changed: atomic → set; server-side apply merges the list differently, and stored lists may break the new type's rules
                14:273 error[crd-change/bound] spec.tags[*]: minLength of spec.tags[*] in v1 added: (none) → 1; stored objects still update while they leave the value unchanged (ratcheting); creating them again or changing it is checked"#]],
        );
    }

    #[test]
    fn rules_and_preserved_fields() {
        one(
            "replicas: {type: integer}, config: {type: object, x-kubernetes-preserve-unknown-fields: true}, old: {type: integer, x-kubernetes-validations: [{rule: 'self > 0'}]}",
            "replicas: {type: integer, x-kubernetes-validations: [{rule: 'self <= 10'}, {rule: 'self >= oldSelf'}]}, config: {type: object}, old: {type: integer, x-kubernetes-validations: [{rule: 'self > 0'}]}",
            expect![[r#"
                14:146 warning[crd-change/rule] spec.replicas: rule added on spec.replicas in v1: self <= 10; stored objects still update while they leave the value unchanged (ratcheting); creating them again or changing it must pass the rule
                14:168 warning[crd-change/rule] spec.replicas: rule added on spec.replicas in v1: self >= oldSelf; a transition rule: it runs on updates that change the value
                14:190 error[crd-change/preserve-unknown-fields] spec.config: x-kubernetes-preserve-unknown-fields of spec.config in v1 removed: true → false; fields the schema does not declare are pruned from stored objects when they are read or written"#]],
        );
    }

    #[test]
    fn a_field_loss_between_served_versions_that_the_change_introduces() {
        let conversion = "  scope: Namespaced\n  conversion: {strategy: None}\n";
        let both = |v1beta1: &str| crd(&[("v1", &spec("a: {type: string}, b: {type: string}")), ("v1beta1", &spec(v1beta1))], conversion);
        check(
            &both("a: {type: string}, b: {type: string}"),
            &both("a: {type: string}"),
            expect![[r#"
                20:73 error[crd-change/field-removed] spec.b: field spec.b in v1beta1 removed: clients that set it lose it, and it is pruned from stored objects when they are read or written
                20:73 error[crd-change/version-field-loss] -: this change makes version v1beta1, which clients already use, lose data: spec.b is in the storage version v1 but not in v1beta1: with conversion strategy None, a client that reads and writes v1beta1 drops it"#]],
        );
    }

    #[test]
    fn formats_and_junctors() {
        one(
            "start: {type: string}, id: {type: string, format: uuid}, free: {type: string, format: my-own}, gone: {type: string, format: date-time}, src: {type: object, properties: {url: {type: string}, path: {type: string}}, anyOf: [{required: [url]}, {required: [path]}]}, num: {type: integer, not: {enum: [0]}}, pick: {type: object, properties: {a: {type: string}}, oneOf: [{required: [a]}]}",
            "start: {type: string, format: date-time}, id: {type: string, format: ipv4}, free: {type: string, format: other-own}, gone: {type: string}, src: {type: object, properties: {url: {type: string}, path: {type: string}}, anyOf: [{required: [url]}], allOf: [{required: [url]}]}, num: {type: integer, not: {enum: [0, 1]}}, pick: {type: object, properties: {a: {type: string}}, oneOf: [{required: [a]}, {properties: {a: {minLength: 2}}}]}",
            expect![[r#"
                14:108 error[crd-change/format] spec.start: format of spec.start in v1 added: (none) → "date-time"; stored objects still update while they leave the value unchanged (ratcheting); creating them again or changing it is checked
                14:147 error[crd-change/format] spec.id: format of spec.id in v1 changed: "uuid" → "ipv4"; stored objects still update while they leave the value unchanged (ratcheting); creating them again or changing it is checked
                14:330 warning[crd-change/junctor] spec.src: allOf of spec.src in v1 added: (none) → {"required":["url"]}; stored objects still update while they leave the value unchanged (ratcheting); creating them again or changing it is checked
                14:302 warning[crd-change/junctor] spec.src: anyOf of spec.src in v1: alternatives removed: {"required":["path"]}; stored objects still update while they leave the value unchanged (ratcheting); creating them again or changing it is checked
                14:380 warning[crd-change/junctor] spec.num: not of spec.num in v1 changed: {"enum":[0]} → {"enum":[0,1]}; stored objects still update while they leave the value unchanged (ratcheting); creating them again or changing it is checked
                14:456 warning[crd-change/junctor] spec.pick: oneOf of spec.pick in v1: alternatives added: {"properties":{"a":{"minLength":2}}}; a value that now matches two alternatives fails; stored objects still update while they leave the value unchanged (ratcheting); creating them again or changing it is checked"#]],
        );
    }

    #[test]
    fn loosened_junctors_are_not_breaking() {
        one(
            "src: {type: object, properties: {url: {type: string}}, anyOf: [{required: [url]}], allOf: [{required: [url]}], oneOf: [{required: [url]}]}, num: {type: integer, not: {enum: [0]}}, pick: {type: object, properties: {a: {type: string}}, oneOf: [{required: [a]}]}",
            "src: {type: object, properties: {url: {type: string}}, anyOf: [{required: [url]}, {properties: {url: {minLength: 1}}}], oneOf: [{required: [url]}]}, num: {type: integer}",
            expect!["14:73 error[crd-change/field-removed] spec.pick: field spec.pick in v1 removed: clients that set it lose it, and it is pruned from stored objects when they are read or written"],
        );
    }

    #[test]
    fn loosening_is_not_breaking() {
        one(
            "size: {type: integer, maximum: 10, minimum: 1, multipleOf: 4}, mode: {type: string, enum: [A]}",
            "size: {type: integer, maximum: 20, minimum: 0, multipleOf: 2}, mode: {type: string}, extra: {type: object, required: [x], properties: {x: {type: string}}}",
            expect![[""]],
        );
    }
}
