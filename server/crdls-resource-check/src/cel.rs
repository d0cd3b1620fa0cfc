//! `x-kubernetes-validations` on custom resources, as the API server runs them after pruning,
//! defaulting and schema validation: at every instance of a schema node (each list item, each map
//! value), with `self` mapped from the data the way Kubernetes maps it, one cost budget per object and
//! a limit per evaluation, and failures reported with `message`, `messageExpression` or
//! `failed rule: <rule>`, at `fieldPath` when given, with `reason`'s error type.

use std::sync::Arc;

use crdls_cel::escape::escape;
use crdls_cel::value::{List, ListKind, Map, Object, Timestamp};
use crdls_cel::{evaluate_bindings, evaluate_with_depth, ErrorKind, EvalError, Value};
use crdls_crd::cel::{CompiledRule, ROOT_TYPE_NAME};
use crdls_crd::{AdditionalProperties, Schema, ValidationRule};
use crdls_diagnostics::{Diagnostic, Severity, TextRange};
use crdls_yaml::{FieldPath, Node, Value as Yaml};

use crate::field_error::{ErrorType, FieldError};
use crate::gofmt;
use crate::old::same_data;
use crdls_diagnostics::codes;

/// The cost one evaluation may spend (`PerCallLimit`).
pub const PER_CALL_LIMIT: u64 = 1_000_000;
/// The cost all rules of one object may spend together (`RuntimeCELCostBudget`).
pub const RUNTIME_BUDGET: u64 = 10_000_000;
/// The longest message a `messageExpression` may produce.
const MAX_MESSAGE_BYTES: usize = 5 * 1024;

/// Runs every rule of `schema` and below on `object` (pruned and defaulted). `anchor` locates errors
/// of the root.
pub fn validate_rules(object: &Node, old: Option<&Node>, schema: &Schema, anchor: TextRange, out: &mut Vec<Diagnostic>) {
    if !schema.has_rules {
        return;
    }
    let mut run = Run { budget: RUNTIME_BUDGET as i64, out, parent_unchanged: false, ratchet: true };
    run.node(object, old, schema, &FieldPath::root(), anchor, true);
}

/// The rules of a CRD's `default` (`ValidateDefaults`), run on the default below its node's schema:
/// `resource_root` says whether the node is a resource's root (the root, or an embedded resource),
/// whose `apiVersion`, `kind` and `metadata` its rules see. As the API server does, it runs them
/// first as an update from the default to itself, without ratcheting (so transition rules run,
/// `oldSelf` being the default), then, when that found nothing, as a create (so `optionalOldSelf`
/// rules see no old value).
pub fn validate_default_rules(default: &Node, schema: &Schema, resource_root: bool, anchor: TextRange, out: &mut Vec<Diagnostic>) {
    if !schema.has_rules {
        return;
    }
    let first = out.len();
    let mut run = Run { budget: RUNTIME_BUDGET as i64, out, parent_unchanged: false, ratchet: false };
    run.node(default, Some(default), schema, &FieldPath::root(), anchor, resource_root);
    if out.len() == first {
        let mut run = Run { budget: RUNTIME_BUDGET as i64, out, parent_unchanged: false, ratchet: false };
        run.node(default, None, schema, &FieldPath::root(), anchor, resource_root);
    }
}

/// Whether the API server's CEL validator has any rule of `schema` to run (`cel.NewValidator` is nil
/// otherwise, and an object with blocking errors then gets no note that rules were skipped).
pub fn runs_rules(schema: &Schema) -> bool {
    builds_validator(schema, true)
}

/// Whether the API server's `validator` for a node is not nil: the node has rules of its own (compiled
/// or not), or a child has a validator. `typed` is whether the node has a CEL type there. The items
/// and values get one whatever their type, typed as the node's element type; without it (a string
/// with `additionalProperties`, say), their own rules are a validator that fails to compile, and what
/// is below them goes on untyped. A property gets one when it is a field of the node's object type,
/// or when CEL cannot escape its name (it is then typed on its own); below an untyped node, the
/// properties of escapable names are never reached.
fn builds_validator(schema: &Schema, typed: bool) -> bool {
    if !schema.has_rules {
        return false;
    }
    if !schema.validations.is_empty() {
        return true;
    }
    let elements_typed = typed && has_element_type(schema);
    let values = match &schema.additional_properties {
        Some(AdditionalProperties::Schema(values)) => Some(&**values),
        _ => None,
    };
    if schema.items.as_deref().into_iter().chain(values).any(|child| builds_validator(child, elements_typed)) {
        return true;
    }
    schema.properties.iter().any(|p| {
        let field = match escape(&p.name) {
            Some(_) => typed && is_validated_field(schema, &p.name, &p.schema),
            None => has_decl_type(&p.schema),
        };
        field && builds_validator(&p.schema, true)
    })
}

/// Whether a node's CEL type has an element type (`DeclType.ElemType`): a list's items, a map's values.
fn has_element_type(schema: &Schema) -> bool {
    !schema.int_or_string
        && match schema.ty.as_deref() {
            Some("array") => true,
            Some("object") => schema.properties.is_empty() && matches!(schema.additional_properties, Some(AdditionalProperties::Schema(_))),
            _ => false,
        }
}

/// Whether CEL gives a schema node a type (`SchemaDeclType` is not nil): int-or-string, a scalar
/// type, an object, and an array or a map whose items or values have a type. A node without one (an
/// untyped preserve-unknown-fields node, an array without items) is left out of its parent's type.
fn has_decl_type(schema: &Schema) -> bool {
    if schema.int_or_string {
        return true;
    }
    match schema.ty.as_deref() {
        Some("array") => schema.items.as_deref().is_some_and(has_decl_type),
        Some("object") => match &schema.additional_properties {
            Some(AdditionalProperties::Schema(values)) => has_decl_type(values),
            _ => true,
        },
        Some("string" | "integer" | "number" | "boolean") => true,
        _ => false,
    }
}

/// Whether the validator runs the rules of the property `name` (schema `property`) of `parent`.
fn is_validated_field(parent: &Schema, name: &str, property: &Schema) -> bool {
    let object_fields = !parent.int_or_string
        && parent.ty.as_deref() == Some("object")
        && !matches!(parent.additional_properties, Some(AdditionalProperties::Schema(_)));
    has_decl_type(property) && (object_fields || escape(name).is_none())
}

/// The note the API server adds instead of running rules on an object with blocking schema errors.
pub fn skipped(first_blocking: TextRange, blocking: usize) -> Diagnostic {
    let errors = if blocking == 1 { "its schema error is".to_string() } else { format!("its {blocking} schema errors are") };
    Diagnostic::new(
        first_blocking,
        Severity::Information,
        codes::CEL_SKIPPED,
        format!("the CEL validation rules of this object were not run: the API server runs them only once {errors} fixed (the first is here)"),
    )
    // The API server's own words, `<nil>` path and all: it reports this cause without a field.
    .with_cause(
        "<nil>: Invalid value: null: some validation rules were not checked because the object was invalid; correct the existing errors to complete validation",
    )
}

struct Run<'o> {
    /// What is left of the object's budget; negative once exhausted.
    budget: i64,
    out: &'o mut Vec<Diagnostic>,
    /// Whether the nearest ancestor that has an old version is unchanged: a node without an old
    /// version of its own (an item of an atomic list or a set) ratchets with it, as upstream's
    /// `nearestParentCorrelation`.
    parent_unchanged: bool,
    /// Whether a failed rule on an unchanged value only warns (an update's ratcheting); a CRD's
    /// default is validated as an update from itself without it.
    ratchet: bool,
}

impl Run<'_> {
    /// Runs the rules at `node` and below; `old` is the node's old version, when the update has one
    /// that correlates (same key in a map, same key fields in a map list).
    fn node(&mut self, node: &Node, old: Option<&Node>, schema: &Schema, path: &FieldPath<'_>, anchor: TextRange, resource_root: bool) {
        // Rules never run on null values.
        if node.value == Yaml::Null {
            return;
        }
        let old = old.filter(|o| o.value != Yaml::Null);
        if !schema.has_rules {
            return;
        }
        // A rule's failure ratchets where the correlated object equals its old value
        // (`CachedDeepEqual`): keys its schema does not describe make it unequal, so a resource root
        // (its metadata) never is.
        let unchanged = self.ratchet
            && match old {
                Some(o) => crate::old::correlated_equal(node, o, Some(schema), 0),
                None => self.parent_unchanged,
            };
        if !schema.validations.is_empty() {
            self.rules(node, old, unchanged, schema, path, anchor, resource_root);
        }
        if self.budget < 0 {
            return;
        }
        let outer = std::mem::replace(&mut self.parent_unchanged, unchanged);
        self.children(node, old, schema, path, resource_root);
        self.parent_unchanged = outer;
    }

    /// Runs the rules below `node`.
    fn children(&mut self, node: &Node, old: Option<&Node>, schema: &Schema, path: &FieldPath<'_>, resource_root: bool) {
        match &node.value {
            Yaml::Map(entries) => {
                for entry in entries {
                    if self.budget < 0 {
                        return;
                    }
                    let old_child = old.and_then(|o| o.get(&entry.key));
                    if let Some(AdditionalProperties::Schema(values)) = &schema.additional_properties {
                        // The API server's validator runs the values' rules on every entry, declared
                        // properties included (a schema with both is refused, but its defaults are
                        // validated first).
                        if has_decl_type(values) {
                            let at = path.key(&entry.key);
                            self.node(&entry.value, old_child, values, &at, entry.key_range, values.embedded_resource);
                        }
                        if schema.properties.is_empty() {
                            continue;
                        }
                    }
                    if let Some(p) = schema.property(&entry.key) {
                        // The validator walks a resource root's apiVersion and kind like any property
                        // (their rules run); rules on metadata are refused in the CRD.
                        if resource_root && entry.key == "metadata" {
                            continue;
                        }
                        if !is_validated_field(schema, &entry.key, &p.schema) {
                            continue;
                        }
                        let child_path = path.field(&entry.key);
                        // The root's apiVersion and kind never ratchet (`ratchetingOptions.key`: the
                        // old and new objects are converted to the same type, so a change is not seen).
                        if path.is_root() && matches!(entry.key.as_str(), "apiVersion" | "kind") {
                            let outer = std::mem::replace(&mut self.parent_unchanged, false);
                            self.node(&entry.value, None, &p.schema, &child_path, entry.key_range, p.schema.embedded_resource);
                            self.parent_unchanged = outer;
                            continue;
                        }
                        self.node(&entry.value, old_child, &p.schema, &child_path, entry.key_range, p.schema.embedded_resource);
                    }
                }
            }
            Yaml::Seq(items) => {
                if let Some(item_schema) = schema.items.as_deref().filter(|i| has_decl_type(i)) {
                    for (i, item) in items.iter().enumerate() {
                        if self.budget < 0 {
                            return;
                        }
                        let old_item = old.and_then(|o| correlated_item(item, o, schema));
                        self.node(item, old_item, item_schema, &path.index(i), item.range, item_schema.embedded_resource);
                    }
                }
            }
            _ => {}
        }
    }

    #[allow(clippy::too_many_arguments)]
    fn rules(
        &mut self,
        node: &Node,
        old: Option<&Node>,
        unchanged: bool,
        schema: &Schema,
        path: &FieldPath<'_>,
        anchor: TextRange,
        resource_root: bool,
    ) {
        let type_name = schema.ty.as_deref().unwrap_or_default();
        let self_value = to_value(node, schema, resource_root, ROOT_TYPE_NAME);
        let old_value = old.map(|o| to_value(o, schema, resource_root, ROOT_TYPE_NAME));
        // A value the schema's type does not describe is bound as cel-go's error (`invalid data, ...`).
        let self_error = invalid_data(node, schema);
        let old_error = old.and_then(|o| invalid_data(o, schema));
        let path_text = path.to_string();
        if self.budget <= 0 {
            self.invalid(
                anchor,
                &path_text,
                type_name,
                codes::CEL_COST,
                "validation failed due to running out of cost budget, no further validation rules will be run".into(),
            );
            self.budget = -1;
            return;
        }
        for rule in schema.validations.iter() {
            let compiled = rule.compiled(schema, resource_root);
            let program = match &compiled.rule {
                Err(e) => {
                    self.invalid(anchor, &path_text, type_name, codes::CEL_COMPILE_ERROR, format!("rule compile error: {}", e.detail));
                    continue;
                }
                Ok(None) => continue,
                Ok(Some(p)) => p,
            };
            let old_self = match (compiled.uses_old_self, rule.optional_old_self, &old_value) {
                (true, Some(true), old) => Some(Value::Optional(old.clone().map(Arc::new))),
                (true, _, Some(old)) => Some(old.clone()),
                // No old version: a transition rule runs only when `optionalOldSelf` asks for it.
                (true, _, None) => continue,
                (false, _, _) => None,
            };
            let bound = |value: &Value, error: &Option<String>| match error {
                Some(e) => Err(EvalError::runtime(e.clone())),
                None => Ok(value.clone()),
            };
            let mut variables = vec![("self", bound(&self_value, &self_error))];
            if let Some(old) = old_self {
                // `optionalOldSelf` wraps the old value; an old value that does not convert stays an error.
                let error = if matches!(old, Value::Optional(_)) { None } else { old_error.clone() };
                variables.push(("oldSelf", bound(&old, &error)));
            }
            let limit = PER_CALL_LIMIT.min(self.budget.max(0) as u64);
            let evaluation = evaluate_bindings(&program.parsed.expr, program.depth, &variables, limit);
            let ruled = rule_error_string(rule);
            match evaluation.outcome {
                Err(e) if e.kind == ErrorKind::CostLimit => {
                    if limit < PER_CALL_LIMIT {
                        self.invalid(
                            anchor,
                            &path_text,
                            type_name,
                            codes::CEL_COST,
                            "validation failed due to running out of cost budget, no further validation rules will be run".into(),
                        );
                    } else {
                        self.invalid(
                            anchor,
                            &path_text,
                            type_name,
                            codes::CEL_COST,
                            format!(
                                "'{}': no further validation rules will be run due to call cost exceeds limit for rule: {ruled}",
                                e.message
                            ),
                        );
                    }
                    self.budget = -1;
                    return;
                }
                outcome => {
                    self.budget -= evaluation.cost as i64;
                    match outcome {
                        Ok(Value::Bool(true)) => {}
                        Err(e) if e.kind == ErrorKind::NoSuchOverload => self.invalid(
                            anchor,
                            &path_text,
                            type_name,
                            codes::CEL_RUNTIME_ERROR,
                            format!(
                                "'{}': call arguments did not match a supported operator, function or macro signature for rule: {ruled}",
                                e.message
                            ),
                        ),
                        Err(e) => self.invalid(
                            anchor,
                            &path_text,
                            type_name,
                            codes::CEL_RUNTIME_ERROR,
                            format!("{} evaluating rule: {ruled}", e.message),
                        ),
                        Ok(_) => {
                            let message_variables = match &old_value {
                                Some(old) => vec![("self", self_value.clone()), ("oldSelf", old.clone())],
                                None => vec![("self", self_value.clone())],
                            };
                            // Ratcheting: a rule without oldSelf that fails on an unchanged value only warns.
                            let ratcheted = unchanged && !compiled.uses_old_self;
                            self.failed(node, schema, rule, &compiled, &message_variables, path, anchor, ratcheted)
                        }
                    }
                }
            }
        }
    }

    /// A rule that evaluated to false: its message at its field path, with its reason's error type.
    #[allow(clippy::too_many_arguments)]
    fn failed(
        &mut self,
        node: &Node,
        schema: &Schema,
        rule: &ValidationRule,
        compiled: &CompiledRule,
        variables: &[(&str, Value)],
        path: &FieldPath<'_>,
        anchor: TextRange,
        ratcheted: bool,
    ) {
        let mut detail = None;
        if let Some(Ok(message_program)) = &compiled.message_expression {
            // The message expression sees `oldSelf` as a plain value, as upstream evaluates it.
            let limit = PER_CALL_LIMIT.min(self.budget.max(0) as u64);
            let evaluation = evaluate_with_depth(&message_program.parsed.expr, message_program.depth, variables, limit);
            self.budget -= evaluation.cost as i64;
            if let Ok(Value::String(s)) = evaluation.outcome {
                let trimmed = s.trim();
                if !trimmed.is_empty() && !trimmed.contains('\n') && trimmed.len() <= MAX_MESSAGE_BYTES {
                    detail = Some(trimmed.to_string());
                }
            }
        }
        let detail = detail.unwrap_or_else(|| rule_message_or_default(rule));
        let (path_text, range) = match &compiled.field_path {
            Some(Ok(normalized)) => {
                let joined = if path.is_root() { normalized.clone() } else { format!("{path}.{normalized}") };
                (joined, locate_field(node, normalized).unwrap_or(anchor))
            }
            _ => (path.to_string(), anchor),
        };
        let value = match schema.ty.as_deref() {
            Some("object") | Some("array") => None,
            _ => Some(gofmt::value(node)),
        };
        let (ty, value, shown_detail) = match rule.reason.as_deref() {
            Some("FieldValueForbidden") => (ErrorType::Forbidden, None, detail.clone()),
            Some("FieldValueRequired") => (ErrorType::Required, None, detail.clone()),
            Some("FieldValueDuplicate") => (ErrorType::Duplicate, value, String::new()),
            _ => (ErrorType::Invalid, value, detail.clone()),
        };
        let err = FieldError { ty, path: path_text, value, detail: shown_detail };
        if ratcheted {
            let message = format!("{detail} (unchanged from the old object: the API server lets it through with a warning)");
            self.out.push(err.diagnostic(range, Severity::Warning, codes::CEL_RULE, message));
        } else {
            self.out.push(err.diagnostic(range, Severity::Error, codes::CEL_RULE, detail));
        }
    }

    /// An `Invalid` error whose value is the schema's type, as the API server reports rule errors.
    fn invalid(&mut self, anchor: TextRange, path: &str, type_name: &str, code: &'static str, detail: String) {
        let err =
            FieldError { ty: ErrorType::Invalid, path: path.to_string(), value: Some(gofmt::quote(type_name)), detail: detail.clone() };
        self.out.push(err.diagnostic(anchor, Severity::Error, code, detail));
    }
}

/// The old item of a map-list item: the one with the same key fields. Items of other lists have none.
fn correlated_item<'o>(item: &Node, old: &'o Node, schema: &Schema) -> Option<&'o Node> {
    if schema.list_type.as_deref() != Some("map") {
        return None;
    }
    let keys = &schema.rare().list_map_keys;
    let key_of = |n: &Node| -> Option<Vec<Node>> { keys.iter().map(|k| n.get(k).cloned()).collect() };
    let wanted = key_of(item)?;
    old.as_seq()?.iter().find(|o| key_of(o).is_some_and(|k| k.iter().zip(&wanted).all(|(a, b)| same_data(a, b))))
}

/// `message` when set, else `failed rule: <rule>`, both trimmed.
fn rule_message_or_default(rule: &ValidationRule) -> String {
    match rule.message.as_deref() {
        Some(m) if !m.is_empty() => m.trim().to_string(),
        _ => format!("failed rule: {}", rule.rule.trim()),
    }
}

/// What errors name a rule by: its message, or else the rule itself.
fn rule_error_string(rule: &ValidationRule) -> String {
    match rule.message.as_deref() {
        Some(m) if !m.is_empty() => m.trim().to_string(),
        _ => rule.rule.trim().to_string(),
    }
}

/// The key range of the field a normalized field path names below `node`, when the data has it.
fn locate_field(node: &Node, normalized: &str) -> Option<TextRange> {
    let followed = crdls_yaml::follow(node, normalized);
    if !followed.complete() {
        return None;
    }
    followed.entry.map(|e| e.key_range)
}

/// The CEL value of a node (objects all named `name`: type names of objects cannot be written in a rule),
/// as Kubernetes maps data to CEL: objects with their (escaped) fields, nulls
/// in objects as absent fields, `additionalProperties` as maps, list types kept for equality and `+`,
/// numbers as doubles, and the string formats `byte`, `duration`, `date` and `date-time` decoded.
pub fn to_value(node: &Node, schema: &Schema, resource_root: bool, name: &str) -> Value {
    if node.value == Yaml::Null {
        return Value::Null;
    }
    if schema.int_or_string {
        return plain(node);
    }
    let is_object =
        schema.ty.as_deref() == Some("object") || (schema.ty.is_none() && (schema.embedded_resource || !schema.properties.is_empty()));
    match (&node.value, schema.ty.as_deref()) {
        (Yaml::Map(entries), _) if is_object => {
            if let Some(AdditionalProperties::Schema(values)) = &schema.additional_properties {
                if schema.properties.is_empty() {
                    let entries = entries
                        .iter()
                        .map(|e| (Value::string(e.key.as_str()), to_value(&e.value, values, values.embedded_resource, name)))
                        .collect();
                    return Value::Map(Arc::new(Map { entries }));
                }
            }
            let mut object = Object { type_name: Arc::from(name), ..Default::default() };
            let preserved = schema.preserve_unknown_fields == Some(true);
            for e in entries {
                let declared =
                    schema.property(&e.key).is_some() || (resource_root && matches!(e.key.as_str(), "apiVersion" | "kind" | "metadata"));
                if !declared {
                    // Kept by the API server's pruning only under preserve-unknown-fields: no rule
                    // selects it, but it counts in equality (`unstructuredMap`).
                    if preserved {
                        object.unknown.insert(e.key.clone(), plain(&e.value));
                    }
                    continue;
                }
                if e.value.value == Yaml::Null {
                    continue;
                }
                if resource_root && matches!(e.key.as_str(), "apiVersion" | "kind" | "metadata") {
                    let value = match e.key.as_str() {
                        "metadata" => metadata_value(&e.value, name),
                        _ => plain(&e.value),
                    };
                    object.fields.insert(e.key.clone(), value);
                    continue;
                }
                let (Some(p), Some(escaped)) = (schema.property(&e.key), escape(&e.key)) else { continue };
                object.fields.insert(escaped, to_value(&e.value, &p.schema, p.schema.embedded_resource, name));
            }
            Value::Object(Arc::new(object))
        }
        (Yaml::Seq(items), Some("array")) => {
            let Some(item_schema) = schema.items.as_deref() else { return plain(node) };
            let items = items.iter().map(|i| to_value(i, item_schema, item_schema.embedded_resource, name)).collect();
            let kind = match schema.list_type.as_deref() {
                Some("set") => ListKind::Set,
                Some("map") => ListKind::Map(
                    schema.rare().list_map_keys.iter().map(|k| escape(k).unwrap_or_else(|| k.clone())).collect::<Vec<_>>().into(),
                ),
                _ => ListKind::Plain,
            };
            Value::List(Arc::new(List { items, kind }))
        }
        (Yaml::Str(s), Some("string")) => match schema.format.as_deref() {
            Some("byte") => decode_base64(s).map_or_else(|| Value::string(s.as_str()), |b| Value::Bytes(Arc::from(b))),
            Some("duration") => crdls_go::duration::parse_duration(s).map_or_else(|_| Value::string(s.as_str()), Value::Duration),
            Some("date") => {
                crdls_cel::time::parse_timestamp(&format!("{s}T00:00:00Z")).map_or_else(|_| Value::string(s.as_str()), Value::Timestamp)
            }
            Some("date-time") => parse_date_time(s).map_or_else(|| Value::string(s.as_str()), Value::Timestamp),
            _ => Value::string(s.as_str()),
        },
        (Yaml::Int(i), Some("number")) => Value::Double(*i as f64),
        _ => plain(node),
    }
}

/// Why a value cannot be CEL data of its schema's type, in the words of Kubernetes'
/// `UnstructuredToVal` (which names Go's type of the decoded JSON value), or `None` when it can.
/// Only the value itself is looked at: what is below it converts when a rule reads it.
fn invalid_data(node: &Node, schema: &Schema) -> Option<String> {
    let go_type = match &node.value {
        Yaml::Null => return None,
        Yaml::Bool(_) => "bool",
        Yaml::Int(_) => "int64",
        Yaml::Float(_) => "float64",
        Yaml::Str(_) => "string",
        Yaml::Seq(_) => "[]interface {}",
        Yaml::Map(_) => "map[string]interface {}",
    };
    if schema.int_or_string {
        return (!matches!(node.value, Yaml::Str(_) | Yaml::Int(_)))
            .then(|| "invalid data, expected XIntOrString value to be either a string or integer".to_string());
    }
    let fits = match schema.ty.as_deref() {
        Some("object") => matches!(node.value, Yaml::Map(_)),
        Some("array") => matches!(node.value, Yaml::Seq(_)),
        Some("string") => matches!(node.value, Yaml::Str(_)),
        Some("number") => matches!(node.value, Yaml::Int(_) | Yaml::Float(_)),
        Some("integer") => matches!(node.value, Yaml::Int(_)),
        Some("boolean") => matches!(node.value, Yaml::Bool(_)),
        _ => true,
    };
    if fits {
        return None;
    }
    Some(match schema.ty.as_deref() {
        Some("object") => "invalid data, expected a map for the provided schema with type=object".to_string(),
        Some("array") => "invalid data, expected an array for the provided schema with type=array".to_string(),
        Some("number") => format!("invalid data, expected float, got {go_type}"),
        Some("integer") => format!("invalid data, expected int, got {go_type}"),
        Some(other) => format!("invalid data, expected {}, got {go_type}", if other == "boolean" { "bool" } else { other }),
        None => return None,
    })
}

/// `metadata` at a resource root: only `name` and `generateName` are visible.
fn metadata_value(node: &Node, name: &str) -> Value {
    let mut object = Object { type_name: Arc::from(format!("{name}.metadata")), ..Default::default() };
    for key in ["name", "generateName"] {
        if let Some(s) = node.get_str(key) {
            object.fields.insert(key.to_string(), Value::string(s));
        }
    }
    Value::Object(Arc::new(object))
}

/// A node as CEL data with no schema to guide it.
fn plain(node: &Node) -> Value {
    match &node.value {
        Yaml::Null => Value::Null,
        Yaml::Bool(b) => Value::Bool(*b),
        Yaml::Int(i) => Value::Int(*i),
        Yaml::Float(f) => Value::Double(*f),
        Yaml::Str(s) => Value::string(s.as_str()),
        Yaml::Seq(items) => Value::list(items.iter().map(plain).collect()),
        Yaml::Map(entries) => {
            Value::Map(Arc::new(Map { entries: entries.iter().map(|e| (Value::string(e.key.as_str()), plain(&e.value))).collect() }))
        }
    }
}

/// RFC 3339 date-times, with or without fractional seconds, as `strfmt` reads them.
fn parse_date_time(s: &str) -> Option<Timestamp> {
    crdls_cel::time::parse_timestamp(s).ok()
}

fn decode_base64(s: &str) -> Option<Vec<u8>> {
    let mut out = Vec::with_capacity(s.len() * 3 / 4);
    let mut buf = 0u32;
    let mut bits = 0u32;
    let trimmed = s.trim_end_matches('=');
    if !s.len().is_multiple_of(4) {
        return None;
    }
    for c in trimmed.bytes() {
        let v = match c {
            b'A'..=b'Z' => c - b'A',
            b'a'..=b'z' => c - b'a' + 26,
            b'0'..=b'9' => c - b'0' + 52,
            b'+' => 62,
            b'/' => 63,
            _ => return None,
        };
        buf = (buf << 6) | v as u32;
        bits += 6;
        if bits >= 8 {
            bits -= 8;
            out.push((buf >> bits) as u8);
            buf &= (1 << bits) - 1;
        }
    }
    Some(out)
}

#[cfg(test)]
mod reach_tests {
    use super::*;

    fn schema(yaml: &str) -> Schema {
        let stream = crdls_yaml::parse(yaml);
        Schema::from_node(stream.documents[0].root.as_ref().expect("a schema"))
    }

    #[test]
    fn rules_the_validator_never_reaches_do_not_count() {
        let rule = "x-kubernetes-validations: [{rule: self.size() > 1}]";
        // A field of an object: reached.
        assert!(runs_rules(&schema(&format!("type: object\nproperties:\n  a: {{type: string, {rule}}}\n"))));
        // Below an int-or-string node, whose CEL type is dyn, without fields: never run.
        assert!(!runs_rules(&schema(&format!(
            "type: object\nproperties:\n  v:\n    x-kubernetes-int-or-string: true\n    properties:\n      a: {{type: string, {rule}}}\n"
        ))));
        // Below an untyped preserve-unknown-fields node (no CEL type): never run.
        assert!(!runs_rules(&schema(&format!(
            "type: object\nproperties:\n  v:\n    x-kubernetes-preserve-unknown-fields: true\n    {rule}\n"
        ))));
        // On the int-or-string node itself: run, as dyn.
        assert!(runs_rules(&schema(&format!("type: object\nproperties:\n  v: {{x-kubernetes-int-or-string: true, {rule}}}\n"))));
        // Below the values of a string (whose type has no element type): never reached; on the
        // values themselves, a validator whose rules do not compile.
        let values = |inner: &str| format!("type: object\nproperties:\n  v:\n    type: string\n    additionalProperties:\n{inner}");
        assert!(!runs_rules(&schema(&values(&format!("      type: object\n      properties:\n        e: {{type: integer, {rule}}}\n")))));
        assert!(runs_rules(&schema(&values(&format!("      type: object\n      {rule}\n")))));
        // Items and values are reached whatever their type (the oracle, 1.37): the items below the
        // values of a string are, untyped, so their own rules count (seed 1 at 5,892).
        assert!(runs_rules(&schema(&values(&format!("      type: array\n      items: {{type: string, {rule}}}\n")))));
        assert!(runs_rules(&schema(&values(&format!("      type: object\n      additionalProperties: {{type: integer, {rule}}}\n")))));
        // The values of a map are reached.
        assert!(runs_rules(&schema(&format!(
            "type: object\nproperties:\n  v:\n    type: object\n    additionalProperties:\n      type: object\n      properties:\n        e: {{type: integer, {rule}}}\n"
        ))));
    }
}

#[cfg(test)]
mod invalid_data_tests {
    use super::*;

    fn causes(schema_yaml: &str, value: &str) -> Vec<String> {
        let schema = crdls_yaml::parse(schema_yaml);
        let schema = Schema::from_node(schema.documents[0].root.as_ref().expect("a schema"));
        let value = crdls_yaml::parse(value);
        let value = value.documents[0].root.as_ref().expect("a value");
        let mut out = Vec::new();
        validate_default_rules(value, &schema, false, value.range, &mut out);
        out.into_iter().filter_map(|d| d.cause).collect()
    }

    #[test]
    fn a_value_its_type_does_not_describe_is_cel_go_s_error() {
        let integer = "type: integer\nx-kubernetes-validations: [{rule: self > 1}]\n";
        assert_eq!(
            causes(integer, "{a: 1}"),
            ["<nil>: Invalid value: \"integer\": invalid data, expected int, got map[string]interface {} evaluating rule: self > 1"]
        );
        let array = "type: array\nitems: {type: string}\nx-kubernetes-validations: [{rule: self.size() != 0}]\n";
        assert_eq!(
            causes(array, "''"),
            [
                "<nil>: Invalid value: \"array\": invalid data, expected an array for the provided schema with type=array evaluating rule: self.size() != 0"
            ]
        );
        let boolean = "type: boolean\nx-kubernetes-validations: [{rule: self}]\n";
        assert_eq!(
            causes(boolean, "1.5"),
            ["<nil>: Invalid value: \"boolean\": invalid data, expected bool, got float64 evaluating rule: self"]
        );
        // A logical operator absorbs the error when its other side decides, as in cel-go.
        let absorbed = "type: integer\nx-kubernetes-validations: [{rule: 'true || self > 1'}]\n";
        assert!(causes(absorbed, "'x'").is_empty());
        // A rule that does not read `self` never meets it.
        let unread = "type: string\nx-kubernetes-validations: [{rule: '1 == 1'}]\n";
        assert!(causes(unread, "[]").is_empty());
        // Data of the right type: no error.
        assert!(causes(integer, "2").is_empty());
    }
}
