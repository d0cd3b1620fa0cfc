//! One schema's validation in the API server's order (`validateCustomResourceDefinitionValidation`):
//! the root restrictions of the status subresource, a nullable root, the structural rules, then (on a
//! structural schema only) the defaults, then the keyword checks of every node, and the conversion
//! error of a `$schema` when nothing else was wrong. It also decides, as the API server does, where
//! CEL rules get compiled at all: [`RuleGate`].

use crdls_yaml::{Node, Value};

use super::{defaults, entries, fe, flag, get, items, key_at, openapi, status, structural, CrdDoc, Found, SchemaTarget, Sink};
use crate::field_error::ErrorType;
use crdls_diagnostics::codes;

/// What validating one schema found.
struct Validated {
    errors: Vec<Found>,
    /// The path of the schema's root.
    root: String,
    /// Whether the schema is structural with valid defaults: the API server compiles CEL rules only then.
    cel: bool,
    /// The nodes (by path) at which keyword checks reported an error.
    owners: Vec<String>,
}

/// Validates one schema and reports what the API server would.
pub(super) fn check(target: &SchemaTarget<'_>, sink: &mut Sink<'_>) {
    sink.extend(validate(target).errors);
}

fn validate(target: &SchemaTarget<'_>) -> Validated {
    let root = target.node;
    let p = target.path();
    let mut errors = Vec::new();
    if !matches!(root.value, Value::Map(_)) {
        return Validated { errors, root: p, cel: false, owners: Vec::new() };
    }
    if target.status_enabled {
        status::check(target, &mut errors);
    }
    if flag(root, "nullable") {
        errors.push(Found::new(
            key_at(root, "nullable", target.anchor),
            codes::CRD_SCHEMA,
            fe(ErrorType::Forbidden, format!("{p}.nullable"), None, "nullable cannot be true at the root"),
            "the root of the schema cannot be nullable",
        ));
    }
    let unconvertible = structural::unconvertible(root);
    let mut cel = false;
    if unconvertible.is_none() {
        let structural = structural::validate(root, &p, target.anchor);
        if !structural.is_empty() {
            errors.extend(structural);
        } else {
            let defaults = defaults::validate(root, &p);
            cel = defaults.is_empty();
            errors.extend(defaults);
        }
    }
    let mut owned = Vec::new();
    openapi::validate(root, &p, target.anchor, &mut owned);
    let owners = owned.iter().map(|(o, _)| o.clone()).collect();
    errors.extend(owned.into_iter().map(|(_, f)| f));
    if errors.is_empty() {
        if let Some((detail, range)) = unconvertible {
            let message = if detail.contains("'schema'") { "$schema is not supported in CRD schemas".to_string() } else { detail.clone() };
            errors.push(Found::new(
                range,
                codes::CRD_FORBIDDEN_FIELD,
                fe(ErrorType::Invalid, p.clone(), Some("\"\"".into()), detail),
                message,
            ));
        }
    }
    Validated { errors, root: p, cel, owners }
}

/// Where the API server compiles a CRD's `x-kubernetes-validations` rules: only in a structural
/// schema whose defaults are valid, and only at nodes where neither the node nor anything below it
/// (properties, items, junctors ...) failed a keyword check. Elsewhere their compile errors do not
/// reach the user until the other errors are fixed.
#[derive(Clone, Debug, Default)]
pub(crate) struct RuleGate {
    schemas: Vec<(String, bool, Vec<String>)>,
}

impl RuleGate {
    /// Whether the rules of the schema node at `path` (such as
    /// `spec.validation.openAPIV3Schema.properties[spec]`) get compiled.
    pub(crate) fn compiles(&self, path: &str) -> bool {
        for (root, cel, owners) in &self.schemas {
            if within(path, root) {
                return *cel && !owners.iter().any(|o| within(o, path));
            }
        }
        true
    }
}

/// Whether the schema path `path` is `root` or a node below it.
pub(crate) fn within(path: &str, root: &str) -> bool {
    path == root || path.strip_prefix(root).is_some_and(|r| r.starts_with(['.', '[']))
}

/// The rule gate of a CRD document.
pub(crate) fn rule_gate(root: &Node) -> RuleGate {
    let crd = CrdDoc::new(root);
    let schemas = crd
        .schemas()
        .iter()
        .map(validate)
        .map(|v| {
            let Validated { root, cel, owners, .. } = v;
            (root, cel, owners)
        })
        .collect();
    RuleGate { schemas }
}

/// Whether a schema holds a `default` anywhere (junctors, definitions and dependencies included).
pub(super) fn has_default(s: &Node) -> bool {
    has_default_at(s, 0)
}

fn has_default_at(s: &Node, depth: usize) -> bool {
    if depth > 64 || !matches!(s.value, Value::Map(_)) {
        return false;
    }
    if get(s, "default").is_some() {
        return true;
    }
    let children = ["items", "not", "additionalProperties", "additionalItems"].iter().filter_map(|k| get(s, k));
    let lists = ["allOf", "anyOf", "oneOf", "items"].iter().flat_map(|k| items(s, k));
    let maps = ["properties", "patternProperties", "definitions", "dependencies"].iter().flat_map(|k| entries(s, k)).map(|e| &e.value);
    children.chain(lists).chain(maps).any(|c| has_default_at(c, depth + 1))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn gate(schema: &str) -> RuleGate {
        let text = crdls_test_fixture::Crd::new("A").group("b.c").cluster_scoped().schema(schema).yaml();
        let stream = crdls_yaml::parse(&text);
        rule_gate(stream.documents[0].root.as_ref().expect("a document"))
    }

    #[test]
    fn rules_compile_only_where_the_api_server_compiles_them() {
        let root = "spec.validation.openAPIV3Schema";
        let fine = gate("type: object\nproperties:\n  spec:\n    type: object\n    properties:\n      a: {type: string}");
        assert!(fine.compiles(root) && fine.compiles(&format!("{root}.properties[spec]")));
        // A structural error anywhere: no rule of the schema compiles.
        let non_structural = gate("type: object\nproperties:\n  spec:\n    properties:\n      a: {type: string}");
        assert!(!non_structural.compiles(&format!("{root}.properties[spec].properties[a]")));
        // A keyword error blocks the node and its ancestors, not its siblings.
        let keyword = gate("type: object\nproperties:\n  spec:\n    type: object\n    properties:\n      a: {type: array, uniqueItems: true, items: {type: string}}\n      b: {type: string}");
        assert!(!keyword.compiles(root));
        assert!(!keyword.compiles(&format!("{root}.properties[spec]")));
        assert!(!keyword.compiles(&format!("{root}.properties[spec].properties[a]")));
        assert!(keyword.compiles(&format!("{root}.properties[spec].properties[b]")));
        // A default that fails its schema: no rule compiles.
        let default = gate("type: object\nproperties:\n  n: {type: integer, default: x}");
        assert!(!default.compiles(root));
    }
}
