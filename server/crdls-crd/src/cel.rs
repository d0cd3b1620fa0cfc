//! CEL types of a structural schema, as Kubernetes derives them for `x-kubernetes-validations`, and the
//! compiled rules of a schema node (compiled once, on first use).
//!
//! - objects with properties are object types whose fields are the escaped property names; at a
//!   resource root or an embedded resource only `apiVersion`, `kind`, `metadata.name` and
//!   `metadata.generateName` come with them;
//! - `additionalProperties` makes a `map(string, V)`, arrays make `list(T)`;
//! - int-or-string is `dyn`; strings of format `byte`, `duration`, `date` and `date-time` are `bytes`,
//!   `duration` and `timestamp`;
//! - an object with neither properties nor additionalProperties has no fields, and a property of no
//!   known type (untyped, with preserved unknown fields) is left out.

use std::collections::{BTreeMap, HashMap};
use std::sync::Arc;

use crdls_cel::escape::escape;
use crdls_cel::{check, display_all, parse, CelError, Field, ObjectType, Parsed, Type};

use crate::schema::{AdditionalProperties, Schema, ValidationRule};

/// The CEL type of the data a schema describes; `None` when it is not visible to rules.
pub fn cel_type(schema: &Schema, resource_root: bool, name: &str) -> Option<Type> {
    if schema.int_or_string {
        return Some(Type::Dyn);
    }
    match schema.ty.as_deref() {
        Some("array") => {
            let items = schema.items.as_deref()?;
            Some(Type::list(cel_type(items, items.embedded_resource, &format!("{name}.@idx"))?))
        }
        Some("object") => {
            if let Some(AdditionalProperties::Schema(values)) = &schema.additional_properties {
                let value = cel_type(values, values.embedded_resource, &format!("{name}.@elem"))?;
                return Some(Type::map(Type::String, value));
            }
            let mut fields: BTreeMap<String, Field> = BTreeMap::new();
            for p in schema.properties.iter() {
                let Some(escaped) = escape(&p.name) else { continue };
                if resource_root && matches!(p.name.as_str(), "apiVersion" | "kind" | "metadata") {
                    continue;
                }
                if let Some(ty) = cel_type(&p.schema, p.schema.embedded_resource, &format!("{name}.{escaped}")) {
                    fields.insert(escaped, Field { ty, property: p.name.clone() });
                }
            }
            if resource_root {
                for implicit in ["apiVersion", "kind"] {
                    fields.insert(implicit.into(), Field { ty: Type::String, property: implicit.into() });
                }
                let metadata: BTreeMap<String, Field> =
                    ["name", "generateName"].iter().map(|f| (f.to_string(), Field { ty: Type::String, property: f.to_string() })).collect();
                let metadata = ObjectType { name: format!("{name}.metadata"), fields: metadata };
                fields.insert("metadata".into(), Field { ty: Type::Object(Arc::new(metadata)), property: "metadata".into() });
            }
            Some(Type::Object(Arc::new(ObjectType { name: name.to_string(), fields })))
        }
        Some("string") => Some(match schema.format.as_deref() {
            Some("byte") => Type::Bytes,
            Some("duration") => Type::Duration,
            Some("date") | Some("date-time") => Type::Timestamp,
            _ => Type::String,
        }),
        Some("boolean") => Some(Type::Bool),
        Some("number") => Some(Type::Double),
        Some("integer") => Some(Type::Int),
        _ => None,
    }
}

/// A type-checked expression.
#[derive(Debug)]
pub struct Program {
    /// The parsed expression.
    pub parsed: Parsed,
    /// The estimated cost range, as the API server estimates it when the CRD is written.
    pub cost: crdls_cel::cost::Estimate,
    /// The depth of its tree (deep ones are evaluated on a large stack).
    pub depth: usize,
    /// The type of every node.
    pub types: HashMap<u64, Type>,
}

/// Why a rule or message expression is rejected.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct CompileError {
    /// The errors located in the expression (empty for a wrong result type).
    pub errors: Vec<CelError>,
    /// The API server's detail text (`compilation failed: ERROR: <input>:1:6: ...`).
    pub detail: String,
}

/// One rule of a schema node, compiled.
#[derive(Debug)]
pub struct CompiledRule {
    /// The rule: `None` for an empty rule, which the API server skips.
    pub rule: Result<Option<Program>, CompileError>,
    /// The `messageExpression`, when there is one.
    pub message_expression: Option<Result<Program, CompileError>>,
    /// Whether the rule refers to `oldSelf` (a transition rule).
    pub uses_old_self: bool,
    /// The `fieldPath`, normalized (`spec.ports[http]`), or why it does not resolve.
    pub field_path: Option<Result<String, String>>,
    /// How many instances of the node fit in a request: the cardinality used when a list or map
    /// above the node has no bound.
    pub max_cardinality: u64,
}

/// The root name object types are named after (`Object.spec.template`).
pub const ROOT_TYPE_NAME: &str = "Object";

/// Compiles one rule against the node that declares it, in the newest CEL environment (how the API
/// server compiles the rules of a CRD it already stores).
pub fn compile_rule(rule: &ValidationRule, owner: &Schema, resource_root: bool) -> CompiledRule {
    compile_rule_in(rule, owner, resource_root, crdls_cel::Options::KUBERNETES)
}

/// Compiles one rule in the CEL environment `env` (a new CRD's rules compile in the environment of the
/// API server's compatibility version).
pub fn compile_rule_in(rule: &ValidationRule, owner: &Schema, resource_root: bool, env: crdls_cel::Options) -> CompiledRule {
    let self_type = cel_type(owner, resource_root, ROOT_TYPE_NAME);
    let sizes = SchemaSizes { root: owner, resource_root, kubernetes: env.kubernetes.map(|compatibility| compatibility + 1) };
    let compiled_rule = compile_expression(&rule.rule, self_type.as_ref(), &sizes, rule.optional_old_self == Some(true), Expect::Bool, env);
    let uses_old_self = match &compiled_rule {
        Ok(Some(p)) => refers_to(&p.parsed.expr, "oldSelf"),
        _ => rule.rule.contains("oldSelf"),
    };
    // The API server compiles the messageExpression only once the rule has compiled to a program.
    let rule_compiled = matches!(compiled_rule, Ok(Some(_)));
    let message_expression = rule.message_expression.as_deref().filter(|m| rule_compiled && !m.trim().is_empty()).map(|m| {
        compile_expression(m, self_type.as_ref(), &sizes, rule.optional_old_self == Some(true), Expect::String, env).and_then(|p| {
            p.ok_or_else(|| CompileError { errors: Vec::new(), detail: "messageExpression must be non-empty if specified".into() })
        })
    });
    let field_path = rule.field_path.as_deref().map(|fp| valid_field_path(fp, owner));
    let max_cardinality = MAX_REQUEST_SIZE_BYTES / (min_serialized_size(owner, 0) + 1);
    CompiledRule { rule: compiled_rule, message_expression, uses_old_self, field_path, max_cardinality }
}

#[derive(Clone, Copy, PartialEq, Eq)]
enum Expect {
    Bool,
    String,
}

fn compile_expression(
    source: &str,
    self_type: Option<&Type>,
    sizes: &SchemaSizes<'_>,
    optional_old_self: bool,
    expect: Expect,
    env: crdls_cel::Options,
) -> Result<Option<Program>, CompileError> {
    let prefix = if expect == Expect::Bool { "compilation failed: " } else { "messageExpression compilation failed: " };
    if source.trim().is_empty() {
        return Ok(None);
    }
    let Some(self_type) = self_type else {
        return Err(CompileError { errors: Vec::new(), detail: "unable to convert structural schema to CEL declarations".into() });
    };
    let parsed = parse(source).map_err(|errors| CompileError { detail: format!("{prefix}{}", display_all(&errors, source)), errors })?;
    let old = if optional_old_self { Type::optional(self_type.clone()) } else { self_type.clone() };
    let checked = crdls_cel::check_with(&parsed, &[("self", self_type.clone()), ("oldSelf", old)], env);
    if !checked.errors.is_empty() {
        let mut errors = checked.errors;
        errors.sort_by_key(|e| e.offset);
        return Err(CompileError { detail: format!("{prefix}{}", display_all(&errors, source)), errors });
    }
    match (expect, &checked.result) {
        (Expect::Bool, Type::Bool) | (Expect::String, Type::String) => {
            if let Err(message) = fold_conversions(&parsed.expr) {
                let what = if expect == Expect::Bool { "program" } else { "messageExpression" };
                return Err(CompileError { errors: Vec::new(), detail: format!("{what} instantiation failed: {message}") });
            }
            let depth = crdls_cel::parse::depth(&parsed.expr);
            // The environment is the compatibility version's, one minor below the API server's own.
            let server = env.kubernetes.map(|compatibility| compatibility + 1);
            let cost = crdls_cel::cost::estimate_cost_for(&parsed, &checked, sizes, 0, server);
            Ok(Some(Program { parsed, depth, cost, types: checked.types }))
        }
        (Expect::Bool, _) => Err(CompileError { errors: Vec::new(), detail: "cel expression must evaluate to a bool".into() }),
        (Expect::String, _) => Err(CompileError { errors: Vec::new(), detail: "messageExpression must evaluate to a string".into() }),
    }
}

/// cel-go's planner with `OptOptimize`, which Kubernetes programs use: a type conversion (`int`,
/// `duration`, ...) of one constant argument is evaluated when the program is built, and its error
/// fails the program (`program instantiation failed: type conversion error from 'string' to 'int'`).
/// Constants are literals, list and map literals of constants, and conversions folded so; the nodes are
/// planned children first, so the first error in that order is the one reported. `Ok(true)` for a
/// constant node.
fn fold_conversions(expr: &crdls_cel::ast::IdedExpr) -> Result<bool, String> {
    use crdls_cel::ast::Expr;
    let mut constant = true;
    for child in crdls_cel::parse::children(expr) {
        constant &= fold_conversions(child)?;
    }
    match &expr.expr {
        Expr::Literal(_) => Ok(true),
        Expr::List(_) | Expr::Map(_) => Ok(constant),
        Expr::Call(call)
            if call.target.is_none()
                && call.args.len() == 1
                && constant
                && matches!(
                    call.func_name.as_str(),
                    "bool" | "bytes" | "double" | "duration" | "dyn" | "int" | "string" | "timestamp" | "type" | "uint"
                ) =>
        {
            // Only a conversion that fails counts: an overload crdls's evaluator lacks, or a cost
            // limit, leaves the call as it is.
            match crdls_cel::evaluate(expr, &[], 1_000).outcome {
                Ok(_) => Ok(true),
                Err(e) if e.kind == crdls_cel::ErrorKind::Runtime => Err(e.message),
                Err(_) => Ok(false),
            }
        }
        _ => Ok(false),
    }
}

/// Whether an identifier is referred to anywhere in the expression.
fn refers_to(expr: &crdls_cel::ast::IdedExpr, name: &str) -> bool {
    if let crdls_cel::ast::Expr::Ident(i) = &expr.expr {
        if i == name {
            return true;
        }
    }
    crdls_cel::parse::children(expr).into_iter().any(|c| refers_to(c, name))
}

impl ValidationRule {
    /// The rule compiled against `owner`, the schema node that declares it (compiled on first use).
    pub fn compiled(&self, owner: &Schema, resource_root: bool) -> Arc<CompiledRule> {
        self.compiled.get_or_init(|| Arc::new(compile_rule(self, owner, resource_root))).clone()
    }
}

/// Checks a rule's `fieldPath` against the node's schema and normalizes it (`.spec['a.b']` → `spec.a.b`,
/// map keys as `[key]`). List items cannot be addressed.
pub fn valid_field_path(path: &str, schema: &Schema) -> Result<String, String> {
    let mut out = String::new();
    let mut current = schema;
    let mut rest = path;
    while !rest.is_empty() {
        let (name, after) = if let Some(r) = rest.strip_prefix('.') {
            let end = r.find(['.', '[']).unwrap_or(r.len());
            (r[..end].to_string(), &r[end..])
        } else if let Some(r) = rest.strip_prefix('[') {
            let Some(r) = r.strip_prefix('\'') else {
                return Err(format!("expected single quoted string but got {}", r.chars().next().map(String::from).unwrap_or_default()));
            };
            let (name, after) = quoted(r)?;
            let Some(after) = after.strip_prefix(']') else { return Err(format!("expected ] but got {}", after)) };
            (name, after)
        } else {
            return Err(format!("expected [ or . but got: {rest}"));
        };
        if name.is_empty() {
            return Err("unexpected end of JSON path".into());
        }
        if !current.properties.is_empty() {
            let Some(p) = current.property(&name) else { return Err("does not refer to a valid field".into()) };
            if !out.is_empty() {
                out.push('.');
            }
            out.push_str(&name);
            current = &p.schema;
        } else if let Some(AdditionalProperties::Schema(values)) = &current.additional_properties {
            out.push_str(&format!("[{name}]"));
            current = values;
        } else {
            return Err("does not refer to a valid field".into());
        }
        rest = after;
    }
    if out.is_empty() {
        return Err("unexpected end of JSON path".into());
    }
    Ok(out)
}

/// A single-quoted string's content (escapes `\a \b \f \n \r \t \v \' \\`) and what follows it.
fn quoted(text: &str) -> Result<(String, &str), String> {
    let mut out = String::new();
    let mut chars = text.char_indices();
    while let Some((i, c)) = chars.next() {
        match c {
            '\'' => return Ok((out, &text[i + 1..])),
            '\\' => match chars.next() {
                Some((_, e)) => out.push(match e {
                    'a' => '\u{7}',
                    'b' => '\u{8}',
                    'f' => '\u{c}',
                    'n' => '\n',
                    'r' => '\r',
                    't' => '\t',
                    'v' => '\u{b}',
                    '\'' => '\'',
                    '\\' => '\\',
                    other => return Err(format!("invalid string literal: invalid escape char \\{other}")),
                }),
                None => break,
            },
            c => out.push(c),
        }
    }
    Err("unexpected end of JSON path".into())
}

/// The request size limit Kubernetes sizes unbounded collections and strings by (3 MiB).
pub const MAX_REQUEST_SIZE_BYTES: u64 = 3 * 1024 * 1024;

/// The smallest JSON a value of this schema can serialize to, as Kubernetes estimates it (an object is
/// `{}` plus every required property without a default; a string is `""`).
pub fn min_serialized_size(schema: &Schema, depth: usize) -> u64 {
    if schema.int_or_string {
        return 1;
    }
    match schema.ty.as_deref() {
        Some("object") if matches!(&schema.additional_properties, Some(AdditionalProperties::Schema(_))) => 2,
        Some("object") => {
            if depth > 64 {
                return 2;
            }
            2 + schema
                .required
                .iter()
                .filter_map(|r| schema.property(r))
                .filter(|p| p.schema.default.is_none() && cel_type(&p.schema, p.schema.embedded_resource, "").is_some())
                .map(|p| p.name.len() as u64 + min_serialized_size(&p.schema, depth + 1) + 4)
                .sum::<u64>()
        }
        Some("array") => 2,
        Some("string") => match schema.format.as_deref() {
            Some("duration") => 3,
            Some("date") => 12,
            Some("date-time") => 21,
            _ => 2,
        },
        Some("boolean") => 4,
        Some("number") | Some("integer") => 1,
        _ => 2,
    }
}

/// The most elements (string bytes, list items, map entries) a value of this schema can have, as
/// Kubernetes estimates it: the declared maximum, else what fits in a request.
pub fn max_elements(schema: &Schema) -> u64 {
    let unbounded = MAX_REQUEST_SIZE_BYTES - 2;
    if schema.int_or_string {
        return schema.rare().max_length.map_or(unbounded, |m| m.saturating_mul(4));
    }
    match schema.ty.as_deref() {
        Some("array") => match schema.rare().max_items {
            Some(m) => m,
            None => {
                let item = schema.items.as_deref().map_or(2, |i| min_serialized_size(i, 0));
                unbounded / (item + 1)
            }
        },
        Some("object") => match (&schema.additional_properties, schema.rare().max_properties) {
            (Some(AdditionalProperties::Schema(_)), Some(m)) => m,
            (Some(AdditionalProperties::Schema(values)), None) => unbounded / (min_serialized_size(values, 0) + 6),
            _ => 0,
        },
        Some("string") => match schema.format.as_deref() {
            Some("byte") => schema.rare().max_length.unwrap_or(unbounded),
            Some("duration") | Some("date-time") => 32,
            Some("date") => 12,
            _ => match schema.rare().max_length {
                Some(m) => m.saturating_mul(4),
                None => match schema.enumeration.as_deref() {
                    Some(members) if !members.is_empty() => {
                        members.iter().filter_map(|m| m.as_str()).map(|s| s.len() as u64).max().unwrap_or(0)
                    }
                    _ => unbounded,
                },
            },
        },
        _ => 0,
    }
}

/// Sizes from a schema, for cost estimation: the API server's size estimator walks the rule's own
/// node by path (fields, `@items`, `@values`, `@keys`) and answers the node's maximum element count.
pub struct SchemaSizes<'s> {
    /// The schema node the rule is declared on (`self`).
    pub root: &'s Schema,
    /// Whether that node is a resource root (implicit `apiVersion`, `kind`, `metadata`).
    pub resource_root: bool,
    /// The Kubernetes minor version of the API server (`None`: the newest). Since 1.37 it sizes a
    /// resource root's `metadata.name` as a string of at most 253 characters (`generateName`, 252),
    /// or the schema's own `maxLength` there when smaller; before, as unbounded.
    pub kubernetes: Option<u32>,
}

impl<'s> SchemaSizes<'s> {
    /// The node a size path leads to, with the schema path of each step (`properties[name]`, `items`,
    /// `additionalProperties`) when it stays inside the schema.
    fn resolve(&self, path: &[String]) -> Option<(Node<'s>, Vec<String>)> {
        let unbounded = MAX_REQUEST_SIZE_BYTES - 2;
        let mut node: Node<'s> = Node::Schema(self.root, self.resource_root);
        let mut steps = Vec::new();
        for segment in path.iter().skip(1) {
            // An int-or-string node is `dyn` to CEL, a type without fields or elements, so nothing
            // below it has a size there, whatever properties or items its schema declares.
            if matches!(node, Node::Schema(s, _) if s.int_or_string) {
                return None;
            }
            node = match (node, segment.as_str()) {
                (Node::Schema(s, _), "@items") => {
                    steps.push("items".to_string());
                    Node::Schema(s.items.as_deref()?, s.items.as_deref()?.embedded_resource)
                }
                (Node::Schema(s, _), "@values") => match &s.additional_properties {
                    Some(AdditionalProperties::Schema(v)) if s.properties.is_empty() => {
                        steps.push("additionalProperties".to_string());
                        Node::Schema(v, v.embedded_resource)
                    }
                    _ => return None,
                },
                (Node::Schema(s, _), "@keys") if matches!(&s.additional_properties, Some(AdditionalProperties::Schema(_))) => {
                    Node::Fixed(0)
                }
                (Node::Schema(s, root), field) => {
                    if root && matches!(field, "apiVersion" | "kind") {
                        Node::Fixed(unbounded)
                    } else if root && field == "metadata" {
                        Node::Metadata
                    } else {
                        let p = s.properties.iter().find(|p| escape(&p.name).as_deref() == Some(field))?;
                        cel_type(&p.schema, p.schema.embedded_resource, "")?;
                        steps.push(format!("properties[{}]", p.name));
                        Node::Schema(&p.schema, p.schema.embedded_resource)
                    }
                }
                (Node::Metadata, name @ ("name" | "generateName")) => match self.kubernetes {
                    Some(minor) if minor < NAME_LENGTH_CAPPED_SINCE => Node::Fixed(unbounded),
                    _ => {
                        let cap = if name == "name" { 253 } else { 252 };
                        let declared =
                            self.root.property("metadata").and_then(|m| m.schema.property(name)).and_then(|p| p.schema.rare().max_length);
                        Node::Fixed(declared.map_or(cap, |m| m.min(cap)).saturating_mul(4))
                    }
                },
                _ => return None,
            };
        }
        Some((node, steps))
    }
}

impl crdls_cel::cost::SizeEstimator for SchemaSizes<'_> {
    fn estimate_size(&self, path: &[String]) -> Option<crdls_cel::cost::Estimate> {
        let max = match self.resolve(path)?.0 {
            Node::Schema(s, _) => max_elements(s),
            Node::Fixed(n) => n,
            Node::Metadata => 0,
        };
        Some(crdls_cel::cost::Estimate { min: 0, max })
    }
}

/// The Kubernetes minor version whose CEL types bound `metadata.name` and `metadata.generateName`.
pub const NAME_LENGTH_CAPPED_SINCE: u32 = 37;

/// What kind of bound a schema node lacks, when its size is estimated from the request size limit.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Unbounded {
    /// An array without `maxItems`.
    List,
    /// A map (`additionalProperties`) without `maxProperties`.
    Map,
    /// A string (or int-or-string) without `maxLength`, `enum` or a sized format.
    String,
}

impl Unbounded {
    /// The keyword that bounds it.
    pub fn keyword(self) -> &'static str {
        match self {
            Unbounded::List => "maxItems",
            Unbounded::Map => "maxProperties",
            Unbounded::String => "maxLength",
        }
    }
}

/// Which bound a schema node lacks, if its size comes from the request limit.
pub fn unbounded(schema: &Schema) -> Option<Unbounded> {
    let rare = schema.rare();
    if schema.int_or_string {
        return rare.max_length.is_none().then_some(Unbounded::String);
    }
    match schema.ty.as_deref() {
        Some("array") => rare.max_items.is_none().then_some(Unbounded::List),
        Some("object") if matches!(schema.additional_properties, Some(AdditionalProperties::Schema(_))) => {
            rare.max_properties.is_none().then_some(Unbounded::Map)
        }
        Some("string") => {
            let sized_format = matches!(schema.format.as_deref(), Some("duration" | "date" | "date-time"));
            let has_enum = schema.enumeration.as_deref().is_some_and(|e| !e.is_empty());
            (rare.max_length.is_none() && !sized_format && !has_enum).then_some(Unbounded::String)
        }
        _ => None,
    }
}

/// A size estimator that notes the unbounded schema nodes the estimator asked about.
struct RecordingSizes<'s> {
    sizes: SchemaSizes<'s>,
    seen: std::sync::Mutex<Vec<(Vec<String>, Unbounded)>>,
}

impl crdls_cel::cost::SizeEstimator for RecordingSizes<'_> {
    fn estimate_size(&self, path: &[String]) -> Option<crdls_cel::cost::Estimate> {
        if let Some((Node::Schema(s, _), steps)) = self.sizes.resolve(path) {
            if let Some(kind) = unbounded(s) {
                let mut seen = self.seen.lock().unwrap_or_else(|e| e.into_inner());
                if !seen.iter().any(|(p, _)| *p == steps) {
                    seen.push((steps, kind));
                }
            }
        }
        self.sizes.estimate_size(path)
    }
}

/// The schema nodes under `owner` whose missing bounds the estimate of `expression` depends on: for
/// each, the steps from `owner` (`properties[spec]`, `items`, `additionalProperties`) and the bound it
/// lacks. Empty when the expression does not compile.
pub fn size_drivers(expression: &str, owner: &Schema, resource_root: bool, optional_old_self: bool) -> Vec<(Vec<String>, Unbounded)> {
    let Some(self_type) = cel_type(owner, resource_root, ROOT_TYPE_NAME) else { return Vec::new() };
    let Ok(parsed) = parse(expression) else { return Vec::new() };
    let old = if optional_old_self { Type::optional(self_type.clone()) } else { self_type.clone() };
    let checked = check(&parsed, &[("self", self_type), ("oldSelf", old)]);
    if !checked.errors.is_empty() {
        return Vec::new();
    }
    let sizes =
        RecordingSizes { sizes: SchemaSizes { root: owner, resource_root, kubernetes: None }, seen: std::sync::Mutex::new(Vec::new()) };
    crdls_cel::cost::estimate_cost(&parsed, &checked, &sizes, 0);
    sizes.seen.into_inner().unwrap_or_else(|e| e.into_inner())
}

/// Where a size path leads.
#[derive(Clone, Copy)]
enum Node<'s> {
    Schema(&'s Schema, bool),
    Metadata,
    Fixed(u64),
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The estimated cost of `rule` on a resource root whose metadata schema is `metadata` (YAML),
    /// for the API server of `kubernetes` (its rules compile in the environment one minor below).
    fn cost(rule: &str, metadata: &str, kubernetes: u32) -> u64 {
        let text = format!("type: object\nproperties:\n  metadata: {metadata}\n");
        let stream = crdls_yaml::parse(&text);
        let schema = Schema::from_node(stream.documents[0].root.as_ref().expect("a schema"));
        let rule = ValidationRule { rule: rule.into(), ..ValidationRule::default() };
        let compiled = compile_rule_in(&rule, &schema, true, crdls_cel::Options::kubernetes(kubernetes - 1));
        compiled.rule.expect("compiles").expect("a program").cost.max
    }

    #[test]
    fn metadata_name_is_sized_since_1_37() {
        let rule = "size(self.metadata.name + 'x') < 300";
        let unbounded = cost(rule, "{type: object}", 36);
        let capped = cost(rule, "{type: object}", 37);
        assert!(capped < unbounded / 1000, "{capped} against {unbounded}");
        // A smaller maxLength of the schema's own wins.
        let smaller = cost(rule, "{type: object, properties: {name: {type: string, maxLength: 10}}}", 37);
        assert!(smaller < capped, "{smaller} against {capped}");
    }

    #[test]
    fn nothing_below_an_int_or_string_node_is_sized() {
        // The items are `dyn` to CEL: their fields have no size, so comparing two of them is priced
        // at the unknown size, where the declared strings would have been priced at the request limit.
        let text = "type: array\nmaxItems: 4\nitems:\n  type: object\n  x-kubernetes-int-or-string: true\n  \
                    properties:\n    name: {type: string}\n    protocol: {type: string}\n";
        let stream = crdls_yaml::parse(text);
        let schema = Schema::from_node(stream.documents[0].root.as_ref().expect("a schema"));
        let rule = ValidationRule { rule: "self.all(l, l.name == l.protocol)".into(), ..ValidationRule::default() };
        let compiled = compile_rule_in(&rule, &schema, false, crdls_cel::Options::kubernetes(36));
        let cost = compiled.rule.expect("compiles").expect("a program").cost.max;
        assert_eq!(cost, 7_378_697_629_483_821_078);
        use crdls_cel::cost::SizeEstimator;
        let sizes = SchemaSizes { root: &schema, resource_root: false, kubernetes: None };
        let path = |p: &[&str]| p.iter().map(|s| s.to_string()).collect::<Vec<_>>();
        assert!(sizes.estimate_size(&path(&["self", "@items", "name"])).is_none());
        assert!(sizes.estimate_size(&path(&["self", "@items"])).is_some());
    }

    #[test]
    fn a_constant_conversion_that_fails_fails_the_program() {
        let stream = crdls_yaml::parse("type: string\n");
        let schema = Schema::from_node(stream.documents[0].root.as_ref().expect("a schema"));
        let detail = |rule: &str, message: Option<&str>| {
            let rule = ValidationRule { rule: rule.into(), message_expression: message.map(str::to_string), ..ValidationRule::default() };
            let compiled = compile_rule(&rule, &schema, false);
            let rule = compiled.rule.err().map(|e| e.detail);
            let message = compiled.message_expression.and_then(Result::err).map(|e| e.detail);
            rule.or(message).unwrap_or_default()
        };
        assert_eq!(detail("int('x') == 1", None), "program instantiation failed: type conversion error from 'string' to 'int'");
        assert_eq!(
            detail("self == 'a'", Some("string(uint('-1'))")),
            "messageExpression instantiation failed: type conversion error from 'string' to 'uint'"
        );
        // Nested conversions of constants fold too; a conversion of a field does not.
        assert_eq!(
            detail("int(string(bool('maybe'))) == 1", None),
            "program instantiation failed: type conversion error from 'string' to 'bool'"
        );
        assert_eq!(detail("int(self) == 1 && int('12') == 12", None), "");
        assert_eq!(detail("string(duration('1s')) == '1s' && timestamp(0) < timestamp('2024-01-01T00:00:00Z')", None), "");
        // A rule that fails leaves its messageExpression uncompiled, as the API server does.
        assert_eq!(detail("int('x') == 1", Some("1")), "program instantiation failed: type conversion error from 'string' to 'int'");
        let rule = ValidationRule { rule: "int('x') == 1".into(), message_expression: Some("1".into()), ..ValidationRule::default() };
        assert!(compile_rule(&rule, &schema, false).message_expression.is_none());
    }
}
