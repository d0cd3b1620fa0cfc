//! What the API server rejects in a CRD's `x-kubernetes-validations` when the CRD is applied: empty
//! rules, bad messages, unknown reasons, field paths that do not resolve, rules and message expressions
//! that do not compile or type-check, `oldSelf` under a list whose items cannot be matched to their old
//! versions, and `optionalOldSelf` on a rule without `oldSelf`. Compile errors are underlined inside
//! the rule string itself, wherever YAML quoting or folding put it.

use crdls_crd::cel::{compile_rule, compile_rule_in, CompileError, Unbounded};
use crdls_crd::{is_crd, CrdApiVersion, Schema, ValidationRule};
use crdls_diagnostics::{Diagnostic, Severity, TextRange};
use crdls_yaml::{Node, ScalarMap, Value};

use crate::cost::{cost_error, factor_text, thousands, CostDriver, RuleCost, SchemaCost, PER_CRD_LIMIT, PER_EXPRESSION_LIMIT};
use crate::field_error::{ErrorType, FieldError};
use crate::gofmt;
use crate::validation::RuleGate;
use crdls_diagnostics::codes;

/// The reasons a rule may give.
const REASONS: &[&str] = &["FieldValueDuplicate", "FieldValueForbidden", "FieldValueInvalid", "FieldValueRequired"];

/// Checks the rules of every schema of a CRD document.
pub fn check_crd(root: &Node, text: &str, env: crdls_cel::Options, out: &mut Vec<Diagnostic>) {
    walk_crd(root, text, out, false, env);
}

/// The estimated cost of every rule of a CRD document, schema by schema, as the API server computes
/// them when the CRD is applied; with `drivers`, also the unbounded schema nodes behind each cost.
pub fn crd_costs(root: &Node, text: &str, drivers: bool) -> Vec<SchemaCost> {
    walk_crd(root, text, &mut Vec::new(), drivers, crdls_cel::Options::KUBERNETES)
}

fn walk_crd(root: &Node, text: &str, out: &mut Vec<Diagnostic>, drivers: bool, env: crdls_cel::Options) -> Vec<SchemaCost> {
    let Some(api_version) = is_crd(root) else { return Vec::new() };
    let Some(spec) = root.get("spec") else { return Vec::new() };
    let mut schemas: Vec<(String, Vec<String>, &Node)> = Vec::new();
    let versions = spec.get("versions").and_then(Node::as_seq).unwrap_or_default();
    let name_of = |v: &Node| v.get_str("name").unwrap_or_default().to_string();
    let per_version: Vec<(usize, &Node)> =
        versions.iter().enumerate().filter_map(|(i, v)| v.get("schema").and_then(|s| s.get("openAPIV3Schema")).map(|s| (i, s))).collect();
    if api_version == CrdApiVersion::V1beta1 {
        if let Some(s) = spec.get("validation").and_then(|v| v.get("openAPIV3Schema")) {
            let mut names: Vec<String> = versions.iter().map(name_of).collect();
            if names.is_empty() {
                names.extend(spec.get_str("version").map(str::to_string));
            }
            schemas.push(("spec.validation.openAPIV3Schema".into(), names, s));
        }
    }
    // The API server moves a schema all versions share to `spec.validation`, and reports it there.
    let shared = match api_version {
        CrdApiVersion::V1 => crate::validation::shares_schema(root),
        CrdApiVersion::V1beta1 => {
            !per_version.is_empty() && per_version.len() == versions.len() && per_version.windows(2).all(|w| same_value(w[0].1, w[1].1))
        }
    } && !per_version.is_empty();
    // Rules are compiled only where the schema has no other error at or below their node.
    let gate = crate::validation::rule_gate(root);
    if shared {
        schemas.push(("spec.validation.openAPIV3Schema".into(), versions.iter().map(name_of).collect(), per_version[0].1));
    } else {
        for (i, s) in per_version {
            schemas.push((format!("spec.versions[{i}].schema.openAPIV3Schema"), vec![name_of(&versions[i])], s));
        }
    }
    let mut costs = Vec::new();
    for (path, versions, node) in schemas {
        let schema = Schema::from_node(node);
        let mut blocked = Vec::new();
        rule_schema_errors(node, &schema, &path, &mut blocked, 0);
        let mut walker = Walker {
            text,
            out,
            total: 0,
            contributors: Vec::new(),
            costs: Vec::new(),
            ancestors: Vec::new(),
            drivers,
            gate: &gate,
            blocked,
            env,
        };
        walker.node(node, &schema, &path, true, None, Some(1), Typing::of_root(&schema), None, 0);
        walker.total_cost(node, &path);
        costs.push(SchemaCost { path, versions, total: walker.total, range: node.range, rules: walker.costs });
    }
    costs
}

/// A field of a rule that the API server refuses before it compiles anything: a schema error, so the
/// rules of its node and of the nodes above are not compiled either.
struct Refusal {
    /// The rule's key the error is underlined at (`rule`, `message`, ...).
    at: &'static str,
    /// The rule's field the error names (`message` for a multi-line rule without one).
    field: &'static str,
    ty: ErrorType,
    /// The value as the API server prints it, for an invalid value.
    value: Option<String>,
    detail: String,
    code: &'static str,
}

/// The fields of `rule` (on the schema `owner`) that the API server refuses, in its order and words
/// (`ValidateCustomResourceDefinitionOpenAPISchema`): a blank rule; a blank or multi-line message,
/// or none for a multi-line rule; a blank message expression; an unsupported reason; a blank,
/// multi-line or invalid field path. The message checks stop at the first; the others do not. A
/// field path is only found invalid on a node (`owner_node`) that converts to a structural schema.
fn refusals(rule: &ValidationRule, owner: &Schema, owner_node: &Node) -> Vec<Refusal> {
    let mut out = Vec::new();
    let mut refuse =
        |at, field, ty, value, detail: &str, code| out.push(Refusal { at, field, ty, value, detail: detail.to_string(), code });
    let message = rule.message.as_deref().unwrap_or_default();
    let quoted_message = || Some(gofmt::quote(message));
    if rule.rule.trim().is_empty() {
        refuse("rule", "rule", ErrorType::Required, None, "rule is not specified", codes::CEL_RULE_REQUIRED);
    } else if !message.is_empty() && message.trim().is_empty() {
        refuse("message", "message", ErrorType::Invalid, quoted_message(), "must be non-empty if specified", codes::CEL_MESSAGE);
    } else if message.trim().contains(['\n', '\r']) {
        refuse("message", "message", ErrorType::Invalid, quoted_message(), "must not contain line breaks", codes::CEL_MESSAGE);
    } else if rule.rule.trim().contains(['\n', '\r']) && message.trim().is_empty() {
        let detail = "message must be specified if rule contains line breaks";
        refuse("rule", "message", ErrorType::Required, None, detail, codes::CEL_MESSAGE);
    }
    // Present but empty is as good as absent, for the message expression and the field path alike.
    if rule.message_expression.as_deref().is_some_and(|m| !m.is_empty() && m.trim().is_empty()) {
        let detail = "messageExpression must be non-empty if specified";
        refuse("messageExpression", "messageExpression", ErrorType::Required, None, detail, codes::CEL_MESSAGE);
    }
    if let Some(reason) = rule.reason.as_deref().filter(|r| !REASONS.contains(r)) {
        let supported: Vec<String> = REASONS.iter().map(|r| gofmt::quote(r)).collect();
        let detail = format!("supported values: {}", supported.join(", "));
        refuse("reason", "reason", ErrorType::NotSupported, Some(gofmt::quote(reason)), &detail, codes::CEL_REASON);
    }
    if let Some(fp) = rule.field_path.as_deref().filter(|fp| !fp.is_empty()) {
        let value = || Some(gofmt::quote(fp));
        if fp.trim().is_empty() {
            refuse("fieldPath", "fieldPath", ErrorType::Invalid, value(), "must be non-empty if specified", codes::CEL_FIELD_PATH);
        }
        if fp.contains(['\n', '\r']) {
            refuse("fieldPath", "fieldPath", ErrorType::Invalid, value(), "must not contain line breaks", codes::CEL_FIELD_PATH);
        }
        if converts_to_structural(owner_node, 0) && crdls_crd::cel::valid_field_path(fp, owner).is_err() {
            refuse("fieldPath", "fieldPath", ErrorType::Invalid, value(), "must be a valid path", codes::CEL_FIELD_PATH);
        }
    }
    out
}

/// Whether `apiextensions`' `NewStructural` converts the schema `node`: it refuses, at the node or
/// anywhere below, `items` as a list, `x-kubernetes-preserve-unknown-fields: false`, and the keywords
/// `id`, `$schema`, `$ref`, `patternProperties`, `dependencies`, `additionalItems` and `definitions`.
fn converts_to_structural(node: &Node, depth: usize) -> bool {
    const UNSUPPORTED: &[&str] = &["id", "$schema", "$ref", "patternProperties", "dependencies", "additionalItems", "definitions"];
    if depth > 64 {
        return true;
    }
    let Some(entries) = node.as_map() else { return true };
    entries.iter().all(|e| match (e.key.as_str(), &e.value.value) {
        (key, _) if UNSUPPORTED.contains(&key) => false,
        ("items", Value::Seq(_)) => false,
        ("x-kubernetes-preserve-unknown-fields", Value::Bool(false)) => false,
        ("items" | "additionalProperties" | "not", _) => converts_to_structural(&e.value, depth + 1),
        ("properties", _) => e.value.as_map().is_none_or(|props| props.iter().all(|p| converts_to_structural(&p.value, depth + 1))),
        ("allOf" | "anyOf" | "oneOf", Value::Seq(items)) => items.iter().all(|i| converts_to_structural(i, depth + 1)),
        _ => true,
    })
}

/// Collects into `out` the paths of the schema nodes at or below `path` with a rule that has a
/// [`refusals`].
fn rule_schema_errors(node: &Node, schema: &Schema, path: &str, out: &mut Vec<String>, depth: usize) {
    if depth > 64 {
        return;
    }
    if schema.validations.iter().any(|rule| !refusals(rule, schema, node).is_empty()) {
        out.push(path.to_string());
    }
    if let Some(props) = node.get("properties").and_then(Node::as_map) {
        for entry in props {
            if let Some(p) = schema.property(&entry.key) {
                rule_schema_errors(&entry.value, &p.schema, &format!("{path}.properties[{}]", entry.key), out, depth + 1);
            }
        }
    }
    if let (Some(values_node), Some(crdls_crd::AdditionalProperties::Schema(values))) =
        (node.get("additionalProperties"), &schema.additional_properties)
    {
        rule_schema_errors(values_node, values, &format!("{path}.additionalProperties"), out, depth + 1);
    }
    if let (Some(items_node), Some(items)) = (node.get("items"), schema.items.as_deref()) {
        rule_schema_errors(items_node, items, &format!("{path}.items"), out, depth + 1);
    }
}

/// Whether two nodes hold the same data (ranges aside).
fn same_value(a: &Node, b: &Node) -> bool {
    match (&a.value, &b.value) {
        (Value::Map(x), Value::Map(y)) => {
            x.len() == y.len() && x.iter().zip(y).all(|(p, q)| p.key == q.key && same_value(&p.value, &q.value))
        }
        (Value::Seq(x), Value::Seq(y)) => x.len() == y.len() && x.iter().zip(y).all(|(p, q)| same_value(p, q)),
        (x, y) => x == y,
    }
}

/// What the API server's CRD validation knows of a node's CEL type when it compiles the node's rules
/// (`CELSchemaContext.TypeInfo` in apiextensions-apiserver): the type is looked up in the parent's
/// type once some node at or above has rules, and converted from the node's own schema otherwise
/// (also for a property that is not a field of its parent's type).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Typing {
    /// No rules at or above: the node's type is its own schema's.
    Unscoped,
    /// The node's type is known (from the parent's, or its own schema's).
    Typed,
    /// The node's own schema has no CEL type (`SchemaDeclType` is nil: an untyped
    /// preserve-unknown-fields node, an array without typed items, a map of such values), or a node
    /// above failed so: the type lookup fails, and rules here fail with `failed to construct type
    /// information for x-kubernetes-validations rules: unable to convert structural schema to CEL
    /// declarations` (the lookup asks the parent first, which repeats its error).
    Failed,
    /// `items` or `additionalProperties` of a node whose CEL type has no element type (a string, an
    /// object with properties, an int-or-string): the lookup yields no type, and rules here fail with
    /// `failed to convert to declType for CEL validation rules`.
    Missing,
    /// Below a `Missing` node: the API server's lookup would dereference the missing type; crdls
    /// claims nothing there and checks the rules against their own schema.
    Unknown,
}

impl Typing {
    fn of_root(schema: &Schema) -> Typing {
        if schema.validations.is_empty() {
            Typing::Unscoped
        } else {
            Typing::own(schema, true)
        }
    }

    /// The typing of a node whose type is converted from its own schema (`defaultConverter`).
    fn own(schema: &Schema, resource_root: bool) -> Typing {
        if crdls_crd::cel::cel_type(schema, resource_root, "").is_some() {
            Typing::Typed
        } else {
            Typing::Failed
        }
    }

    /// The typing of a child of a node typed `self` with schema `parent`: a property's (`element`
    /// false) or an element's (`items` or `additionalProperties`), whose own schema is `child`.
    fn child(self, parent: &Schema, child: &Schema, element: bool) -> Typing {
        match self {
            Typing::Failed => Typing::Failed,
            Typing::Missing | Typing::Unknown => Typing::Unknown,
            Typing::Unscoped if child.validations.is_empty() => Typing::Unscoped,
            Typing::Typed if element => {
                // A list's and a map's CEL types have an element type; no other type has one.
                let has_elements = !parent.int_or_string
                    && match parent.ty.as_deref() {
                        Some("array") => true,
                        Some("object") => matches!(parent.additional_properties, Some(crdls_crd::AdditionalProperties::Schema(_))),
                        _ => false,
                    };
                if has_elements {
                    Typing::Typed
                } else {
                    Typing::Missing
                }
            }
            // A property's type is its field's in the parent's type when it has one, and that is the
            // type of its own schema; otherwise (no rules above, no such field) its own schema is
            // converted, with the same outcome.
            Typing::Unscoped | Typing::Typed => Typing::own(child, child.embedded_resource),
        }
    }
}

struct Walker<'a> {
    text: &'a str,
    out: &'a mut Vec<Diagnostic>,
    /// The estimated cost of every rule and message expression of this schema, summed.
    total: u64,
    /// The most expensive of them (at least 1% of the CRD limit), most expensive first, at most four:
    /// their ranges and paths.
    contributors: Vec<(u64, TextRange, String)>,
    /// Every expression's cost, in walk order.
    costs: Vec<RuleCost>,
    /// The unbounded lists and maps above the node being walked.
    ancestors: Vec<CostDriver>,
    /// Whether to find each cost's drivers.
    drivers: bool,
    /// Where the API server compiles rules.
    gate: &'a RuleGate,
    /// The schema nodes whose rules have an error of their own (a blank message, an invalid
    /// `fieldPath`, ...): the API server compiles no rule at them or above, as for any schema error.
    blocked: Vec<String>,
    /// The CEL environment new rules compile in.
    env: crdls_cel::Options,
}

impl Walker<'_> {
    /// Checks the rules at `node` and below. `uncorrelatable` is the path of the highest list above
    /// whose items cannot be matched to their old versions.
    /// `cardinality` is how many times the node can occur in an object (the product of the bounds of the
    /// lists and maps above it), `None` when some list or map above it is unbounded. `typed_as` is the
    /// schema whose CEL type the node's rules compile against when it is not the node's own: the
    /// element type of the parent's type is the other element's for `additionalProperties` of a list
    /// or `items` of a map (`CELSchemaContext`'s accessors take `ElemType` whichever child asks).
    #[allow(clippy::too_many_arguments)]
    fn node(
        &mut self,
        node: &Node,
        schema: &Schema,
        path: &str,
        resource_root: bool,
        uncorrelatable: Option<&str>,
        cardinality: Option<u64>,
        typing: Typing,
        typed_as: Option<&Schema>,
        depth: usize,
    ) {
        if depth > 64 {
            return;
        }
        if let Some(rules) = node.get("x-kubernetes-validations").and_then(Node::as_seq) {
            // Rules whose node has no CEL type are not compiled: one error for the node's rules.
            let untyped = matches!(typing, Typing::Missing | Typing::Failed)
                && !schema.validations.is_empty()
                && self.gate.compiles(path)
                && !self.blocked.iter().any(|b| crate::validation::within(b, path));
            if untyped {
                let at = node.entry("x-kubernetes-validations").map_or(node.range, |e| e.key_range);
                let (detail, message) = if typing == Typing::Missing {
                    let what = if path.ends_with(".items") { "items" } else { "additionalProperties" };
                    let message = format!(
                        "these rules cannot be compiled: the API server looks up the type of {what} in the CEL type of the schema above, which has none (its type is not {})",
                        if what == "items" { "an array" } else { "a map" }
                    );
                    ("failed to convert to declType for CEL validation rules", message)
                } else {
                    (
                        "internal error: failed to construct type information for x-kubernetes-validations rules: unable to convert structural schema to CEL declarations",
                        "these rules cannot be compiled: CEL gives this schema, or one above it, no type (an untyped x-kubernetes-preserve-unknown-fields node, an array without typed items, or a map of such values)".to_string(),
                    )
                };
                let err = FieldError {
                    ty: ErrorType::Internal,
                    path: format!("{path}.x-kubernetes-validations"),
                    value: None,
                    detail: detail.into(),
                };
                self.out.push(err.diagnostic(at, Severity::Error, codes::CEL_COMPILE_ERROR, message));
            }
            for (i, (rule_node, rule)) in rules.iter().zip(schema.validations.iter()).enumerate() {
                let rule_path = format!("{path}.x-kubernetes-validations[{i}]");
                let typed = typed_as.map_or((schema, resource_root), |s| (s, s.embedded_resource));
                self.rule(rule_node, rule, node, schema, typed, &rule_path, resource_root, uncorrelatable, cardinality, untyped);
            }
        }
        // Below a node typed as another schema, the API server's look-ups mix the two schemas: crdls
        // claims nothing there.
        let typing = if typed_as.is_some() && typing == Typing::Typed { Typing::Unknown } else { typing };
        // How much this node multiplies the occurrences of its children.
        let factor = match schema.ty.as_deref() {
            Some("object") if schema.additional_properties.is_some() => schema.rare().max_properties,
            Some("array") => schema.rare().max_items,
            _ => Some(1),
        };
        let cardinality = match (cardinality, factor) {
            (Some(c), Some(f)) => Some(c.saturating_mul(f)),
            _ => None,
        };
        let pushed = match crdls_crd::cel::unbounded(schema) {
            Some(kind @ (Unbounded::List | Unbounded::Map)) => {
                self.ancestors.push(CostDriver { path: path.to_string(), range: node.range, kind, cardinality: true });
                true
            }
            _ => false,
        };
        if let (Some(props), true) = (node.get("properties").and_then(Node::as_map), !schema.properties.is_empty()) {
            for entry in props {
                if let Some(p) = schema.property(&entry.key) {
                    let child = format!("{path}.properties[{}]", entry.key);
                    let typing = typing.child(schema, &p.schema, false);
                    self.node(
                        &entry.value,
                        &p.schema,
                        &child,
                        p.schema.embedded_resource,
                        uncorrelatable,
                        cardinality,
                        typing,
                        None,
                        depth + 1,
                    );
                }
            }
        }
        if let (Some(values_node), Some(crdls_crd::AdditionalProperties::Schema(values))) =
            (node.get("additionalProperties"), &schema.additional_properties)
        {
            let child = format!("{path}.additionalProperties");
            // Of a list typed from above, the values are typed as its items.
            let typed_as = schema
                .items
                .as_deref()
                .filter(|_| typing == Typing::Typed && !schema.int_or_string && schema.ty.as_deref() == Some("array"));
            let typing = typing.child(schema, values, true);
            self.node(values_node, values, &child, values.embedded_resource, uncorrelatable, cardinality, typing, typed_as, depth + 1);
        }
        if let (Some(items_node), Some(items)) = (node.get("items"), schema.items.as_deref()) {
            // Items of a list that is not a map list have no old version to compare with.
            let here = (schema.list_type.as_deref() != Some("map")).then_some(path);
            let blocked = uncorrelatable.or(here);
            // Of a map typed from above, the items are typed as its values.
            let typed_as = match &schema.additional_properties {
                Some(crdls_crd::AdditionalProperties::Schema(values))
                    if typing == Typing::Typed && !schema.int_or_string && schema.ty.as_deref() == Some("object") =>
                {
                    Some(&**values)
                }
                _ => None,
            };
            let typing = typing.child(schema, items, true);
            self.node(
                items_node,
                items,
                &format!("{path}.items"),
                items.embedded_resource,
                blocked,
                cardinality,
                typing,
                typed_as,
                depth + 1,
            );
        }
        if pushed {
            self.ancestors.pop();
        }
    }

    #[allow(clippy::too_many_arguments)]
    fn rule(
        &mut self,
        node: &Node,
        rule: &ValidationRule,
        owner_node: &Node,
        owner: &Schema,
        (typed, typed_root): (&Schema, bool),
        path: &str,
        resource_root: bool,
        uncorrelatable: Option<&str>,
        cardinality: Option<u64>,
        untyped: bool,
    ) {
        let at = |key: &str| node.get(key).map_or(node.range, |n| n.range);
        let rule_path = format!("{path}.rule");
        for refusal in refusals(rule, owner, owner_node) {
            let field_path = format!("{path}.{}", refusal.field);
            if refusal.ty == ErrorType::NotSupported {
                let message = format!("{} must be one of {}", refusal.field, refusal.detail.trim_start_matches("supported values: "));
                let err = FieldError { ty: refusal.ty, path: field_path, value: refusal.value, detail: refusal.detail };
                self.out.push(err.diagnostic(at(refusal.at), Severity::Error, refusal.code, message));
            } else {
                self.error(at(refusal.at), refusal.ty, &field_path, refusal.value, &refusal.detail, refusal.code);
            }
        }
        let node_path = path.rsplit_once(".x-kubernetes-validations").map_or(path, |(p, _)| p);
        if untyped || !self.gate.compiles(node_path) || self.blocked.iter().any(|b| crate::validation::within(b, node_path)) {
            return;
        }
        let compiled = compile_rule_in(rule, typed, typed_root, self.env);
        let value = rule_value(rule);
        if let Err(e) = &compiled.rule {
            let newer = self.env.kubernetes.filter(|_| compile_rule(rule, typed, typed_root).rule.is_ok());
            self.compile_error(node.get("rule"), node.range, e, &rule_path, &value, newer);
        }
        if let Some(Err(e)) = &compiled.message_expression {
            let mpath = format!("{path}.messageExpression");
            self.compile_error(node.get("messageExpression"), node.range, e, &mpath, &value, None);
        }
        if let Ok(Some(program)) = &compiled.rule {
            let times = cardinality.unwrap_or(compiled.max_cardinality);
            let cost = program.cost.max.saturating_mul(times);
            let at = node.get("rule").map_or(node.range, |n| n.range);
            self.cost(at, &rule_path, "estimated rule cost", cost);
            let drivers =
                self.find_drivers(&rule.rule, owner_node, owner, node_path, resource_root, rule.optional_old_self == Some(true), true);
            self.costs.push(RuleCost {
                path: rule_path.clone(),
                node_path: node_path.to_string(),
                expression: rule.rule.clone(),
                range: at,
                message_expression: false,
                cost: program.cost.max,
                cardinality: times,
                total: cost,
                drivers,
            });
        }
        if let Some(Ok(program)) = &compiled.message_expression {
            let at = node.get("messageExpression").map_or(node.range, |n| n.range);
            let mpath = format!("{path}.messageExpression");
            self.cost(at, &mpath, "estimated messageExpression cost", program.cost.max);
            let expression = rule.message_expression.clone().unwrap_or_default();
            let drivers =
                self.find_drivers(&expression, owner_node, owner, node_path, resource_root, rule.optional_old_self == Some(true), false);
            self.costs.push(RuleCost {
                path: mpath,
                node_path: node_path.to_string(),
                expression,
                range: at,
                message_expression: true,
                cost: program.cost.max,
                cardinality: 1,
                total: program.cost.max,
                drivers,
            });
        }
        // The API server learns whether a rule uses oldSelf only from a rule that compiles: one that does
        // not is taken as not using it, so `optionalOldSelf` on it is an error too.
        if !matches!(compiled.rule, Ok(None)) {
            if compiled.rule.is_ok() && compiled.uses_old_self {
                if let Some(list) = uncorrelatable {
                    self.error(
                        at("rule"),
                        ErrorType::Invalid,
                        &rule_path,
                        Some(gofmt::quote(&rule.rule)),
                        &format!("oldSelf cannot be used on the uncorrelatable portion of the schema within {list}"),
                        codes::CEL_OLD_SELF,
                    );
                }
            } else if let Some(optional) = rule.optional_old_self {
                self.error(
                    at("optionalOldSelf"),
                    ErrorType::Invalid,
                    &format!("{path}.optionalOldSelf"),
                    Some(optional.to_string()),
                    "may not be set if oldSelf is not used in rule",
                    codes::CEL_OPTIONAL_OLD_SELF,
                );
            }
        }
    }

    /// The unbounded nodes behind an expression's cost: those its estimate sized from the request limit
    /// and, for a rule, the unbounded lists and maps above it.
    #[allow(clippy::too_many_arguments)]
    fn find_drivers(
        &self,
        expression: &str,
        owner_node: &Node,
        owner: &Schema,
        node_path: &str,
        resource_root: bool,
        optional_old_self: bool,
        with_ancestors: bool,
    ) -> Vec<CostDriver> {
        if !self.drivers {
            return Vec::new();
        }
        let mut found = Vec::new();
        for (steps, kind) in crdls_crd::cel::size_drivers(expression, owner, resource_root, optional_old_self) {
            let mut node = owner_node;
            let mut path = node_path.to_string();
            for step in &steps {
                let next = match step.strip_prefix("properties[").and_then(|s| s.strip_suffix(']')) {
                    Some(name) => node.get("properties").and_then(|p| p.get(name)),
                    None => node.get(step),
                };
                let Some(next) = next else { break };
                node = next;
                path.push('.');
                path.push_str(step);
            }
            found.push(CostDriver { path, range: node.range, kind, cardinality: false });
        }
        if with_ancestors {
            found.extend(self.ancestors.iter().cloned());
        }
        found
    }

    /// One diagnostic per CEL error, underlined inside the expression string; a result-type error on the
    /// whole string.
    /// `compiles_later` is the environment's minor version when the rule compiles in the newest one: the
    /// messages then say that this Kubernetes is too old for it.
    fn compile_error(
        &mut self,
        string: Option<&Node>,
        fallback: TextRange,
        e: &CompileError,
        path: &str,
        value: &str,
        compiles_later: Option<u32>,
    ) {
        let err = FieldError { ty: ErrorType::Invalid, path: path.to_string(), value: Some(value.to_string()), detail: e.detail.clone() };
        let later = compiles_later.map_or(String::new(), |minor| {
            format!(" (Kubernetes 1.{} compiles new rules in the CEL environment of 1.{minor}; newer releases accept this rule)", minor + 1)
        });
        let whole = string.map_or(fallback, |n| n.range);
        if e.errors.is_empty() {
            let message = format!("{}{later}", e.detail);
            self.out.push(err.diagnostic(whole, Severity::Error, codes::CEL_COMPILE_ERROR, message));
            return;
        }
        let source = string.and_then(Node::as_str).unwrap_or_default();
        let map = string.and_then(|n| ScalarMap::new(self.text, n));
        for cel_error in &e.errors {
            let end = token_end(source, cel_error.offset);
            // An error at no location (the expression too long) is the whole rule's.
            let located = map.as_ref().filter(|_| cel_error.offset != crdls_cel::parse::NO_LOCATION);
            let range = located.map_or(whole, |m| m.source_range(cel_error.offset, end));
            self.out.push(err.diagnostic(range, Severity::Error, codes::CEL_COMPILE_ERROR, format!("{}{later}", cel_error.message)));
        }
    }

    /// The per-expression limit, and the running total with its top contributors.
    fn cost(&mut self, range: TextRange, path: &str, what: &str, cost: u64) {
        if cost > PER_EXPRESSION_LIMIT {
            let detail = cost_error(what, cost, PER_EXPRESSION_LIMIT);
            let message = format!(
                "{what} {} exceeds the limit of {}: {}",
                thousands(cost),
                thousands(PER_EXPRESSION_LIMIT),
                factor_text(cost, PER_EXPRESSION_LIMIT)
            );
            let err = FieldError { ty: ErrorType::Forbidden, path: path.to_string(), value: None, detail };
            self.out.push(err.diagnostic(range, Severity::Error, codes::CEL_COST, message));
        } else if cost > PER_EXPRESSION_LIMIT / 10 * 9 {
            self.out.push(Diagnostic::new(
                range,
                Severity::Warning,
                codes::CEL_COST,
                format!(
                    "{what} {} is within 10% of the limit of {}: bound the lists, maps and strings it iterates (maxItems, maxProperties, maxLength)",
                    thousands(cost),
                    thousands(PER_EXPRESSION_LIMIT)
                ),
            ));
        }
        self.total = self.total.saturating_add(cost);
        if cost >= PER_CRD_LIMIT / 100 {
            self.contributors.push((cost, range, path.to_string()));
            self.contributors.sort_by_key(|c| std::cmp::Reverse(c.0));
            self.contributors.truncate(4);
        }
    }

    /// The limit on the total of a schema's rules.
    fn total_cost(&mut self, schema: &Node, path: &str) {
        let what = "x-kubernetes-validations estimated rule cost total for entire OpenAPIv3 schema";
        if self.total > PER_CRD_LIMIT {
            for (cost, range, rule_path) in std::mem::take(&mut self.contributors) {
                let detail = "contributed to estimated rule cost total exceeding cost limit for entire OpenAPIv3 schema";
                let err = FieldError { ty: ErrorType::Forbidden, path: rule_path, value: None, detail: detail.to_string() };
                let message = format!("this rule's estimated cost {} is among the largest of a total over the CRD limit", thousands(cost));
                self.out.push(err.diagnostic(range, Severity::Error, codes::CEL_COST_TOTAL, message));
            }
            let err = FieldError {
                ty: ErrorType::Forbidden,
                path: path.to_string(),
                value: None,
                detail: cost_error(what, self.total, PER_CRD_LIMIT),
            };
            let range = TextRange::new(schema.range.start, schema.range.start);
            let message = format!(
                "the estimated cost of all rules, {}, exceeds the limit of {} for a version's schema: {}",
                thousands(self.total),
                thousands(PER_CRD_LIMIT),
                factor_text(self.total, PER_CRD_LIMIT)
            );
            self.out.push(err.diagnostic(range, Severity::Error, codes::CEL_COST_TOTAL, message));
        } else if self.total > PER_CRD_LIMIT / 10 * 9 {
            let range = TextRange::new(schema.range.start, schema.range.start);
            let message = format!(
                "the estimated cost of all rules, {}, is within 10% of the limit of {}",
                thousands(self.total),
                thousands(PER_CRD_LIMIT)
            );
            self.out.push(Diagnostic::new(range, Severity::Warning, codes::CEL_COST_TOTAL, message));
        }
    }

    /// An error whose message is the API server's detail, led by the field's name when the detail does
    /// not name it (an invalid value's detail says only what is wrong: `must not contain line breaks`).
    fn error(&mut self, range: TextRange, ty: ErrorType, path: &str, value: Option<String>, detail: &str, code: &'static str) {
        let field = path.rsplit('.').next().unwrap_or(path);
        let message =
            if ty == ErrorType::Invalid && detail.starts_with("must ") { format!("{field} {detail}") } else { detail.to_string() };
        let err = FieldError { ty, path: path.to_string(), value, detail: detail.to_string() };
        self.out.push(err.diagnostic(range, Severity::Error, code, message));
    }
}

/// The end of the token starting at `offset`: an identifier or number, else one character.
fn token_end(source: &str, offset: usize) -> usize {
    let offset = offset.min(source.len());
    // A field selection is located at its dot: underline the field name with it.
    if source[offset..].starts_with('.') && source[offset + 1..].starts_with(|c: char| c.is_alphabetic() || c == '_') {
        return token_end(source, offset + 1);
    }
    let rest = &source[offset..];
    let word = rest.find(|c: char| !(c.is_alphanumeric() || c == '_')).unwrap_or(rest.len());
    if word > 0 {
        return offset + word;
    }
    let operator = rest.find(|c: char| !"=!<>&|+-*/%?:".contains(c)).unwrap_or(rest.len());
    if operator > 0 {
        return offset + operator;
    }
    offset + rest.chars().next().map_or(0, char::len_utf8)
}

/// The rule as the API server prints it as an invalid value: its internal struct as JSON, with Go's
/// field names (the internal type has no JSON tags).
fn rule_value(rule: &ValidationRule) -> String {
    let mut out = String::from("{");
    let string = |s: &str| {
        let mut o = String::new();
        crate::gofmt::json_string_into(s, &mut o);
        o
    };
    out.push_str(&format!("\"Rule\":{},", string(&rule.rule)));
    out.push_str(&format!("\"Message\":{},", string(rule.message.as_deref().unwrap_or_default())));
    out.push_str(&format!("\"MessageExpression\":{},", string(rule.message_expression.as_deref().unwrap_or_default())));
    out.push_str(&format!("\"Reason\":{},", rule.reason.as_deref().map_or("null".to_string(), string)));
    out.push_str(&format!("\"FieldPath\":{},", string(rule.field_path.as_deref().unwrap_or_default())));
    out.push_str(&format!("\"OptionalOldSelf\":{}", rule.optional_old_self.map_or("null".to_string(), |b| b.to_string())));
    out.push('}');
    out
}

#[cfg(test)]
mod tests;
