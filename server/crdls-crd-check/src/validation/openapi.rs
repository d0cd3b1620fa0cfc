//! `crd/forbidden-field` and `crd/schema`: the keyword checks the API server runs on every node of a
//! schema (`ValidateCustomResourceDefinitionOpenAPISchema`), junctor entries included.
//!
//! Forbidden: `id`, `$ref`, `definitions`, `dependencies`, `patternProperties`, `additionalItems`,
//! `items` given as a list, `uniqueItems: true` (quadratic to check), and `additionalProperties`
//! (false or a schema) next to `properties`: an object is either a struct or a map. Also rejected:
//! a `type` other than array, boolean, integer, number, object or string (`null` gets its own
//! message: use `nullable`), `x-kubernetes-preserve-unknown-fields: false` (leave it out), and
//! `x-kubernetes-embedded-resource` inside `metadata`, `apiVersion` or `kind`. Defaults where
//! defaults cannot be (`crd/default`) and the list-type extensions (`crd/list-type`) are checked on
//! the same walk.
//!
//! Example: `uniqueItems: true`. Fix: `x-kubernetes-list-type: set`, which the API server checks in
//! linear time.

use crdls_yaml::{Node, Value};

use crdls_diagnostics::TextRange;

use super::{entries, fe, flag, get, items, key_at, list_type, non_empty, text, value_at, Found};
use crate::field_error::ErrorType;
use crate::gofmt;
use crdls_diagnostics::codes;

const FORBIDDEN: &str = codes::CRD_FORBIDDEN_FIELD;
const SCHEMA: &str = codes::CRD_SCHEMA;

/// The checks of the schema at `p`. Every error is recorded with the path of the node that
/// reported it, for [`super::RuleGate`].
pub(super) fn validate(root: &Node, p: &str, anchor: TextRange, out: &mut Vec<(String, Found)>) {
    let ctx = Ctx { allow_defaults: true, reason: None, inside_meta: false };
    Walk { out }.node(root, p, &ctx, true, anchor, 0);
}

/// What the walk knows about where it is.
#[derive(Clone)]
struct Ctx {
    allow_defaults: bool,
    reason: Option<String>,
    inside_meta: bool,
}

impl Ctx {
    fn forbid_defaults(&self, reason: String) -> Ctx {
        Ctx { allow_defaults: false, reason: Some(reason), inside_meta: self.inside_meta }
    }
}

struct Walk<'a> {
    out: &'a mut Vec<(String, Found)>,
}

impl Walk<'_> {
    fn push(&mut self, owner: &str, range: TextRange, code: &'static str, err: crate::field_error::FieldError, message: impl Into<String>) {
        self.out.push((owner.to_string(), Found::new(range, code, err, message)));
    }

    fn forbidden(&mut self, s: &Node, p: &str, key: &str, detail: &str, message: impl Into<String>) {
        let range = key_at(s, key, s.range);
        self.push(p, range, FORBIDDEN, fe(ErrorType::Forbidden, format!("{p}.{key}"), None, detail), message);
    }

    fn node(&mut self, s: &Node, p: &str, ctx: &Ctx, is_root: bool, anchor: TextRange, depth: usize) {
        if depth > 64 || !matches!(s.value, Value::Map(_)) {
            return;
        }
        let ty = text(s, "type");
        if !ty.is_empty() && !["array", "boolean", "integer", "number", "object", "string"].contains(&ty) {
            let detail = r#"supported values: "array", "boolean", "integer", "number", "object", "string""#;
            self.push(
                p,
                value_at(s, "type", anchor),
                SCHEMA,
                fe(ErrorType::NotSupported, format!("{p}.type"), Some(gofmt::quote(ty)), detail),
                "type must be one of array, boolean, integer, number, object, string",
            );
        }
        if get(s, "default").is_some() && !ctx.allow_defaults {
            let reason = ctx.reason.as_deref().unwrap_or_default();
            let detail = if reason.is_empty() { "must not be set".to_string() } else { format!("must not be set {reason}") };
            let message = match reason {
                r if r.starts_with("in top-level") => format!("a default is not allowed {r}: the API server manages those fields"),
                "" => "a default is not allowed here".to_string(),
                r => format!("a default is not allowed {r}: pruning could not tell which keys it applies to"),
            };
            self.push(
                p,
                key_at(s, "default", anchor),
                codes::CRD_DEFAULT,
                fe(ErrorType::Forbidden, format!("{p}.default"), None, detail),
                message,
            );
        }
        if !text(s, "id").is_empty() {
            self.forbidden(s, p, "id", "id is not supported", "id is not supported in CRD schemas");
        }
        if get(s, "additionalItems").is_some() {
            self.forbidden(s, p, "additionalItems", "additionalItems is not supported", "additionalItems is not supported in CRD schemas");
        }
        if non_empty(s, "patternProperties") {
            self.forbidden(
                s,
                p,
                "patternProperties",
                "patternProperties is not supported",
                "patternProperties is not supported in CRD schemas: use additionalProperties (and a CEL rule on the keys)",
            );
        }
        if non_empty(s, "definitions") {
            self.forbidden(
                s,
                p,
                "definitions",
                "definitions is not supported",
                "definitions is not supported in CRD schemas: inline the schemas",
            );
        }
        if get(s, "dependencies").is_some() {
            self.forbidden(
                s,
                p,
                "dependencies",
                "dependencies is not supported",
                "dependencies is not supported in CRD schemas: use an x-kubernetes-validations rule",
            );
        }
        if get(s, "$ref").is_some() {
            self.forbidden(s, p, "$ref", "$ref is not supported", "$ref is not supported in CRD schemas: inline the referenced schema");
        }
        if ty == "null" {
            let detail = "type cannot be set to null, use nullable as an alternative";
            self.push(p, value_at(s, "type", anchor), SCHEMA, fe(ErrorType::Forbidden, format!("{p}.type"), None, detail), detail);
        }
        if matches!(get(s, "items").map(|i| &i.value), Some(Value::Seq(list)) if !list.is_empty()) {
            self.forbidden(
                s,
                p,
                "items",
                "items must be a schema object and not an array",
                "items must be one schema, not a list of schemas",
            );
        }
        let embedded = flag(s, "x-kubernetes-embedded-resource");
        if ctx.inside_meta && embedded {
            let detail = "must not be used inside of resource meta";
            self.push(
                p,
                key_at(s, "x-kubernetes-embedded-resource", anchor),
                SCHEMA,
                fe(ErrorType::Forbidden, format!("{p}.x-kubernetes-embedded-resource"), None, detail),
                "x-kubernetes-embedded-resource may not be used inside metadata, apiVersion or kind",
            );
        }
        if flag(s, "uniqueItems") {
            self.forbidden(
                s,
                p,
                "uniqueItems",
                "uniqueItems cannot be set to true since the runtime complexity becomes quadratic",
                "uniqueItems: true is not allowed (quadratic to check): use x-kubernetes-list-type: set",
            );
        }
        if let Some(ap) = get(s, "additionalProperties") {
            if non_empty(s, "properties") && matches!(ap.value, Value::Bool(false) | Value::Map(_)) {
                self.forbidden(
                    s,
                    p,
                    "additionalProperties",
                    "additionalProperties and properties are mutual exclusive",
                    "additionalProperties and properties cannot both be set: an object is either a struct (properties) or a map (additionalProperties)",
                );
            }
            let sub = if ctx.inside_meta {
                ctx.forbid_defaults("inside additionalProperties applying to object metadata".into())
            } else {
                ctx.clone()
            };
            self.node(ap, &format!("{p}.additionalProperties"), &sub, false, key_at(s, "additionalProperties", anchor), depth + 1);
        }
        for e in entries(s, "properties") {
            let mut sub = ctx.clone();
            if (is_root || embedded) && matches!(e.key.as_str(), "metadata" | "kind" | "apiVersion") {
                sub.inside_meta = true;
                if is_root {
                    sub = sub.forbid_defaults(format!("in top-level {}", e.key));
                }
            }
            self.node(&e.value, &format!("{p}.properties[{}]", e.key), &sub, false, e.key_range, depth + 1);
        }
        if let Some(not) = get(s, "not") {
            self.node(not, &format!("{p}.not"), ctx, false, key_at(s, "not", anchor), depth + 1);
        }
        for key in ["allOf", "oneOf", "anyOf"] {
            for (i, e) in items(s, key).iter().enumerate() {
                self.node(e, &format!("{p}.{key}[{i}]"), ctx, false, TextRange::empty(e.range.start), depth + 1);
            }
        }
        for e in entries(s, "definitions") {
            self.node(&e.value, &format!("{p}.definitions[{}]", e.key), ctx, false, e.key_range, depth + 1);
        }
        match get(s, "items").map(|i| (&i.value, i)) {
            Some((Value::Map(_), item)) => self.node(item, &format!("{p}.items"), ctx, false, key_at(s, "items", anchor), depth + 1),
            Some((Value::Seq(list), _)) => {
                for (i, item) in list.iter().enumerate() {
                    self.node(item, &format!("{p}.items[{i}]"), ctx, false, TextRange::empty(item.range.start), depth + 1);
                }
            }
            _ => {}
        }
        for e in entries(s, "dependencies") {
            if matches!(e.value.value, Value::Map(_)) {
                self.node(&e.value, &format!("{p}.dependencies[{}]", e.key), ctx, false, e.key_range, depth + 1);
            }
        }
        if matches!(s.get("x-kubernetes-preserve-unknown-fields").map(|v| &v.value), Some(Value::Bool(false))) {
            let detail = "must be true or undefined";
            self.push(
                p,
                value_at(s, "x-kubernetes-preserve-unknown-fields", anchor),
                SCHEMA,
                fe(ErrorType::Invalid, format!("{p}.x-kubernetes-preserve-unknown-fields"), Some("false".into()), detail),
                "x-kubernetes-preserve-unknown-fields must be true or left out",
            );
        }
        let mut found = Vec::new();
        list_type::check(s, p, anchor, &mut found);
        self.out.extend(found.into_iter().map(|f| (p.to_string(), f)));
    }
}
