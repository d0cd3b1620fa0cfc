//! `crd/default`: a `default` is written into objects as it is, so the API server checks it when the
//! CRD is applied (`ValidateDefaults`, once the schema is structural). A default must survive
//! pruning (no field its schema does not declare), must validate against the schema of its node
//! (type, bounds, pattern, enum, required ...), and must pass the node's `x-kubernetes-validations`
//! rules. Where a default may not be at all (inside `metadata`, `apiVersion` or `kind` at the root,
//! under additionalProperties within metadata, inside a junctor) is reported with the keyword
//! checks. The walk follows properties and items; defaults under additionalProperties are not
//! checked, as upstream.
//!
//! Example: `replicas: {type: integer, minimum: 1, default: 0}`. Fix: a default the field accepts.

use crdls_crd::Schema;
use crdls_diagnostics::Diagnostic;
use crdls_yaml::{FieldPath, Node, Value};

use super::{entries, fe, flag, get, Found};
use crate::field_error::ErrorType;
use crate::{cel, gofmt, metadata, validate};
use crdls_diagnostics::codes;

const CODE: &str = codes::CRD_DEFAULT;

/// The default errors of the schema rooted at `root` (path `p`).
pub(super) fn validate(root: &Node, p: &str) -> Vec<Found> {
    let mut out = Vec::new();
    walk(root, p, true, None, &mut out, 0);
    out
}

/// A step from a resource root down to a node inside its `apiVersion`, `kind` or `metadata`.
#[derive(Clone)]
enum Step {
    Field(String),
    Item,
}

/// One node. The root counts as an embedded resource: its `apiVersion`, `kind` and `metadata` are
/// resource meta, like those of every `x-kubernetes-embedded-resource`. `meta` is the way from the
/// resource root when the node is inside them.
fn walk(s: &Node, p: &str, is_root: bool, meta: Option<Vec<Step>>, out: &mut Vec<Found>, depth: usize) {
    if depth > 64 || !matches!(s.value, Value::Map(_)) {
        return;
    }
    let embedded = is_root || flag(s, "x-kubernetes-embedded-resource");
    let meta = meta.filter(|_| !embedded);
    if let Some(default) = get(s, "default") {
        check_default(s, default, &format!("{p}.default"), embedded, meta.as_deref(), out);
    }
    if let Some(item) = get(s, "items").filter(|i| matches!(i.value, Value::Map(_))) {
        let below = meta.clone().map(|mut m| {
            m.push(Step::Item);
            m
        });
        walk(item, &format!("{p}.items"), false, below, out, depth + 1);
    }
    for e in entries(s, "properties") {
        let below = match &meta {
            Some(m) => Some(m.iter().cloned().chain([Step::Field(e.key.clone())]).collect()),
            None if embedded && matches!(e.key.as_str(), "metadata" | "apiVersion" | "kind") => Some(vec![Step::Field(e.key.clone())]),
            None => None,
        };
        walk(&e.value, &format!("{p}.properties[{}]", e.key), false, below, out, depth + 1);
    }
}

/// A default inside resource meta (`ValidateDefaults` with `insideMeta`): the API server puts it into
/// an object of its own (`apiVersion: validation/v1`, `kind: Validation` unless the default sets
/// them) and checks that object's `apiVersion`, `kind` and ObjectMeta as it coerces and validates
/// an embedded resource, before the schema: `must result in valid metadata: kind: Invalid value: 5:
/// must be a string`. The first error of the coercion, or every error of the validation.
fn metadata_error(default: &Node, way: &[Step]) -> Option<String> {
    let (Step::Field(top), rest) = way.split_first()? else { return None };
    // The value the default gives `top`, as JSON.
    let mut json = gofmt::json(default);
    for step in rest.iter().rev() {
        json = match step {
            Step::Field(k) => {
                let mut key = String::new();
                gofmt::json_string_into(k, &mut key);
                format!("{{{key}:{json}}}")
            }
            Step::Item => format!("[{json}]"),
        };
    }
    let parsed = crdls_yaml::parse(&json);
    let value = parsed.documents.first()?.root.as_ref()?;
    match top.as_str() {
        "apiVersion" | "kind" => {
            let Value::Str(text) = &value.value else {
                return Some(format!("{top}: Invalid value: {}: must be a string", gofmt::value(value)));
            };
            let detail = if text.is_empty() {
                "must not be empty".to_string()
            } else if top == "kind" {
                let errs = crdls_go::names::dns1035_label(&text.to_lowercase());
                if errs.is_empty() {
                    return None;
                }
                format!("may have mixed case, but should otherwise match: {}", errs.join(","))
            } else if text.matches('/').count() > 1 {
                format!("unexpected GroupVersion string: {text}")
            } else {
                return None;
            };
            Some(format!("{top}: Invalid value: {}: {detail}", gofmt::quote(text)))
        }
        "metadata" => {
            let invalid = |cause: &str| Some(format!("metadata: Invalid value: {}: {cause}", gofmt::value(value)));
            match &value.value {
                Value::Map(_) => {}
                Value::Null => return None,
                other => return invalid(&format!("json: cannot unmarshal {} into Go value of type v1.ObjectMeta", other.json_type())),
            }
            let object = crdls_yaml::parse(&format!("{{\"metadata\":{json}}}"));
            let object = object.documents.first()?.root.as_ref()?;
            let mut found = Vec::new();
            metadata::validate_metadata(
                object,
                &FieldPath::root(),
                metadata::NameRules::Embedded,
                crdls_resource_check::NEWEST_KUBERNETES_MINOR,
                object.range,
                &mut found,
            );
            // Go's JSON decoding reads the keys sorted and reports its first type error alone.
            let decoding =
                found.iter().filter(|f| f.code == codes::METADATA_TYPE).min_by(|a, b| a.path.cmp(&b.path)).and_then(|f| f.cause.clone());
            if let Some(cause) = decoding {
                return invalid(&cause);
            }
            let causes: Vec<String> = found.iter().filter_map(|f| f.cause.clone()).collect();
            match causes.len() {
                0 => None,
                1 => causes.into_iter().next(),
                _ => Some(format!("[{}]", causes.join(", "))),
            }
        }
        _ => None,
    }
}

fn check_default(s: &Node, default: &Node, d: &str, embedded: bool, meta: Option<&[Step]>, out: &mut Vec<Found>) {
    if let Some(way) = meta {
        if let Some(error) = metadata_error(default, way) {
            out.push(Found::new(
                default.range,
                CODE,
                fe(ErrorType::Invalid, d, Some(gofmt::value(default)), format!("must result in valid metadata: {error}")),
                format!("the default does not make valid resource metadata: {error}"),
            ));
            return;
        }
    }
    if meta.is_none() {
        if let Some(dropped) = pruned(default, Some(s), embedded, &FieldPath::root()) {
            out.push(Found::new(
                default.range,
                CODE,
                fe(ErrorType::Invalid, d, Some(gofmt::value(default)), "must not have unknown fields"),
                format!("the default has a field the schema does not declare ({dropped}): pruning would drop it"),
            ));
        }
    }
    if meta.is_none() {
        // `objectmeta.Coerce`, then `objectmeta.Validate`: the embedded resources of the default (the
        // default itself when its node is one, as the root is) before its schema.
        let resources = resource_errors(default, s, embedded, d);
        if !resources.is_empty() {
            out.extend(resources);
            return;
        }
    }
    let schema = Schema::from_node(s);
    let mut found = Vec::new();
    // As the newest release validates them (since 1.36 numeric formats are checked too).
    validate::validate(
        default,
        &schema,
        &FieldPath::root(),
        default.range,
        // As `ToKubeOpenAPI` gives it, every format as written (numbers as the newest release checks them).
        validate::Numbers::Unstripped,
        &mut found,
    );
    if !found.is_empty() {
        let extra = |key: &str| get(s, "additionalProperties").is_some() && get(s, "properties").and_then(|ps| ps.get(key)).is_none();
        out.extend(found.into_iter().map(|f| relocate(openapi_name(f, extra), d, Join::OpenApi)));
        return;
    }
    if schema.has_rules {
        // `cel.NewValidator` with `isResourceRoot` for the root and embedded resources; a rule that
        // does not compile (or whose program cannot be instantiated) is a `rule compile error` here,
        // and CRD validation then compiles no rule (`RootCELContext` only follows valid defaults).
        cel::validate_default_rules(default, &schema, embedded, default.range, &mut found);
        found.retain(|f| [codes::CEL_RULE, codes::CEL_RUNTIME_ERROR, codes::CEL_COMPILE_ERROR, codes::CEL_COST].contains(&f.code));
    }
    out.extend(found.into_iter().map(|f| relocate(f, d, Join::FieldPath)));
}

/// kube-openapi names a value of the validated root's `additionalProperties` (or
/// `patternProperties`) `.key`, where a property is `key`: the API server's path drops the dot, its
/// detail keeps it (`.a in body must be of type integer: "string"`). `extra` says whether a key of the
/// default's root is such a value.
fn openapi_name(mut f: Diagnostic, extra: impl Fn(&str) -> bool) -> Diagnostic {
    let Some(rel) = f.path.clone() else { return f };
    let first = rel.split(['.', '[']).next().unwrap_or_default();
    if first.is_empty() || !extra(first) {
        return f;
    }
    if let Some(cause) = &f.cause {
        f.cause = Some(cause.replacen(&format!(": {rel} in body"), &format!(": .{rel} in body"), 1));
    }
    f
}

/// How the API server joins the path of an error found inside a default to the default's path.
#[derive(Clone, Copy)]
enum Join {
    /// kube-openapi's name as one `Child` (`default.[0]`).
    OpenApi,
    /// A `field.Path` walked on (`default[0]`, `default[key]`, `default.name`).
    FieldPath,
}

/// The errors of the embedded resources in a default that is not inside resource meta, as
/// `ValidateDefaults` checks them before the schema: `objectmeta.Coerce` refuses with its first error
/// (an `apiVersion` or `kind` that is not a string, a `metadata` that does not decode), else
/// `objectmeta.Validate` reports every error (`apiVersion` and `kind` required and well formed, the
/// ObjectMeta rules). `embedded` is whether the default's own node is a resource root.
fn resource_errors(default: &Node, s: &Node, embedded: bool, d: &str) -> Vec<Found> {
    let mut coerced = None;
    let mut found = Vec::new();
    resources(default, Some(s), embedded, &FieldPath::root(), &mut coerced, &mut found, 0);
    match coerced {
        Some(first) => vec![relocate(first, d, Join::FieldPath)],
        None => found.into_iter().map(|f| relocate(f, d, Join::FieldPath)).collect(),
    }
}

/// One value of a default under its schema `s` (`None`: not walked further), `embedded` when `s` is
/// a resource root. `coerced` keeps the coercion's first error, `found` the validation's.
fn resources(
    x: &Node,
    s: Option<&Node>,
    embedded: bool,
    path: &FieldPath<'_>,
    coerced: &mut Option<Diagnostic>,
    found: &mut Vec<Diagnostic>,
    depth: usize,
) {
    let Some(s) = s.filter(|s| matches!(s.value, Value::Map(_))) else { return };
    if depth > 64 || coerced.is_some() {
        return;
    }
    match &x.value {
        Value::Map(map) => {
            if embedded {
                resource_root(x, path, coerced, found);
                if coerced.is_some() {
                    return;
                }
            }
            for e in map {
                let (child, sub) = if let Some(prop) = get(s, "properties").and_then(|ps| ps.get(&e.key)) {
                    (path.field(&e.key), prop)
                } else if let Some(values) = get(s, "additionalProperties") {
                    (path.key(&e.key), values)
                } else {
                    continue;
                };
                resources(&e.value, Some(sub), flag(sub, "x-kubernetes-embedded-resource"), &child, coerced, found, depth + 1);
            }
        }
        Value::Seq(list) => {
            let items = get(s, "items");
            for (i, item) in list.iter().enumerate() {
                let embedded = items.is_some_and(|i| flag(i, "x-kubernetes-embedded-resource"));
                resources(item, items, embedded, &path.index(i), coerced, found, depth + 1);
            }
        }
        _ => {}
    }
}

/// The resource-meta errors of one embedded resource `x` at `path` of a default.
fn resource_root(x: &Node, path: &FieldPath<'_>, coerced: &mut Option<Diagnostic>, found: &mut Vec<Diagnostic>) {
    let error = |ty: ErrorType, at: &Node, field: &str, value: Option<String>, detail: String| {
        let message = match ty {
            ErrorType::Required => format!("an embedded resource needs {field}"),
            _ if field == "metadata" => format!("the metadata of an embedded resource does not decode: {detail}"),
            _ => format!("the {field} of an embedded resource {detail}"),
        };
        fe(ty, path.field(field).to_string(), value, detail).diagnostic(at.range, crdls_diagnostics::Severity::Error, CODE, message)
    };
    // The coercion: the type of `apiVersion` and `kind`, and whether `metadata` decodes.
    for field in ["apiVersion", "kind"] {
        if let Some(v) = x.get(field).filter(|v| !matches!(v.value, Value::Str(_))) {
            *coerced = Some(error(ErrorType::Invalid, v, field, Some(gofmt::value(v)), "must be a string".into()));
            return;
        }
    }
    let mut meta = Vec::new();
    if x.get("metadata").is_some() {
        metadata::validate_metadata(
            x,
            path,
            metadata::NameRules::Embedded,
            crdls_resource_check::NEWEST_KUBERNETES_MINOR,
            x.range,
            &mut meta,
        );
        // Go's JSON decoding reads the keys sorted and reports its first type error alone.
        let decoding = meta.iter().filter(|f| f.code == codes::METADATA_TYPE).min_by(|a, b| a.path.cmp(&b.path));
        if let (Some(first), Some(metadata)) = (decoding, x.get("metadata")) {
            let cause = first.cause.clone().unwrap_or_default();
            *coerced = Some(error(ErrorType::Invalid, metadata, "metadata", Some(gofmt::value(metadata)), cause));
            return;
        }
    }
    // The validation: `apiVersion` and `kind` are required and well formed.
    for field in ["apiVersion", "kind"] {
        match x.get(field).and_then(Node::as_str) {
            None => found.push(error(ErrorType::Required, x, field, None, String::new())),
            Some(text) => {
                if let Some(detail) = type_meta_error(field, text) {
                    found.push(error(ErrorType::Invalid, x.get(field).unwrap_or(x), field, Some(gofmt::quote(text)), detail));
                }
            }
        }
    }
    found.extend(meta);
}

/// What `objectmeta.Validate` says of an embedded resource's `apiVersion` or `kind` string.
fn type_meta_error(field: &str, text: &str) -> Option<String> {
    if text.is_empty() {
        return Some("must not be empty".to_string());
    }
    if field == "kind" {
        let errs = crdls_go::names::dns1035_label(&text.to_lowercase());
        return (!errs.is_empty()).then(|| format!("may have mixed case, but should otherwise match: {}", errs.join(",")));
    }
    (text.matches('/').count() > 1).then(|| format!("unexpected GroupVersion string: {text}"))
}

/// An error about a default value, as the API server reports it: under `<node>.default`.
fn relocate(f: Diagnostic, d: &str, join: Join) -> Found {
    let rel = f.path.clone().unwrap_or_default();
    let path = match (rel.as_str(), join) {
        ("", _) => d.to_string(),
        (_, Join::FieldPath) if rel.starts_with('[') => format!("{d}{rel}"),
        _ => format!("{d}.{rel}"),
    };
    let prefix = if rel.is_empty() { "<nil>: ".to_string() } else { format!("{rel}: ") };
    let cause = f.cause.as_deref().unwrap_or_default();
    let body = cause.strip_prefix(&prefix).unwrap_or(cause);
    let at = if rel.is_empty() { String::new() } else { format!(" at {rel}") };
    Found {
        range: f.range,
        code: CODE,
        cause: format!("{path}: {body}"),
        path,
        message: format!("the default is not valid for its own schema{at}: {}", f.message),
    }
}

/// The first field pruning would drop from `x` under schema `s` (`Prune` of the API server), if any.
/// `embedded` marks a resource root, whose `apiVersion`, `kind` and `metadata` are kept.
fn pruned(x: &Node, s: Option<&Node>, embedded: bool, path: &FieldPath<'_>) -> Option<String> {
    if s.is_some_and(|s| flag(s, "x-kubernetes-preserve-unknown-fields")) {
        return keep_unknown(x, s, path);
    }
    match &x.value {
        Value::Map(map) => {
            let Some(s) = s else { return map.first().map(|e| path.field(&e.key).to_string()) };
            let embedded = embedded || flag(s, "x-kubernetes-embedded-resource");
            for e in map {
                if embedded && matches!(e.key.as_str(), "apiVersion" | "kind" | "metadata") {
                    continue;
                }
                let child = path.field(&e.key);
                if let Some(prop) = get(s, "properties").and_then(|ps| ps.get(&e.key)) {
                    if let Some(found) = pruned(&e.value, Some(prop), false, &child) {
                        return Some(found);
                    }
                } else if let Some(ap) = get(s, "additionalProperties") {
                    let values = Some(ap).filter(|a| matches!(a.value, Value::Map(_)));
                    if let Some(found) = pruned(&e.value, values, false, &child) {
                        return Some(found);
                    }
                } else {
                    return Some(child.to_string());
                }
            }
            None
        }
        Value::Seq(list) => {
            let items = s.and_then(|s| get(s, "items")).filter(|i| matches!(i.value, Value::Map(_)));
            list.iter().enumerate().find_map(|(i, item)| pruned(item, items, false, &path.index(i)))
        }
        _ => None,
    }
}

/// Pruning under `x-kubernetes-preserve-unknown-fields`: unknown fields stay, declared ones are
/// pruned by their own schema.
fn keep_unknown(x: &Node, s: Option<&Node>, path: &FieldPath<'_>) -> Option<String> {
    let s = s?;
    match &x.value {
        Value::Map(map) => {
            let embedded = flag(s, "x-kubernetes-embedded-resource");
            for e in map {
                if embedded && matches!(e.key.as_str(), "apiVersion" | "kind" | "metadata") {
                    continue;
                }
                let child = path.field(&e.key);
                let sub = if let Some(prop) = get(s, "properties").and_then(|ps| ps.get(&e.key)) {
                    Some(Some(prop))
                } else {
                    get(s, "additionalProperties").map(|ap| Some(ap).filter(|a| matches!(a.value, Value::Map(_))))
                };
                if let Some(sub) = sub {
                    if let Some(found) = pruned(&e.value, sub, false, &child) {
                        return Some(found);
                    }
                }
            }
            None
        }
        Value::Seq(list) => {
            let items = get(s, "items").filter(|i| matches!(i.value, Value::Map(_)));
            list.iter().enumerate().find_map(|(i, item)| keep_unknown(item, items, &path.index(i)))
        }
        _ => None,
    }
}
