//! The evaluator: walks the checked AST with cel-go's semantics. Errors are values that `&&`, `||` and
//! the comprehension macros can absorb (`false && error` is `false`); every step adds to a cost, and
//! going over the limit stops the evaluation, so no rule can hang the editor.

use std::sync::Arc;

use cel::common::ast::{EntryExpr, Expr, IdedExpr, LiteralValue};

use crate::decls::functions;
use crate::functions::call;
use crate::value::{List, ListKind, Map, Value};

/// Why an evaluation failed.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum ErrorKind {
    /// A runtime error (`no such key`, `division by zero`, ...).
    Runtime,
    /// No overload accepts the argument values (only reachable through `dyn`).
    NoSuchOverload,
    /// The cost limit was reached.
    CostLimit,
}

/// An evaluation error.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct EvalError {
    /// What kind.
    pub kind: ErrorKind,
    /// cel-go's message.
    pub message: String,
}

impl EvalError {
    /// A runtime error.
    pub fn runtime(message: impl Into<String>) -> EvalError {
        EvalError { kind: ErrorKind::Runtime, message: message.into() }
    }

    /// `no such overload`.
    pub fn no_overload() -> EvalError {
        EvalError { kind: ErrorKind::NoSuchOverload, message: "no such overload".into() }
    }
}

impl From<String> for EvalError {
    fn from(message: String) -> EvalError {
        EvalError::runtime(message)
    }
}

/// A value or the error evaluating it.
pub type Outcome = Result<Value, EvalError>;

/// The outcome of an evaluation and what it cost.
#[derive(Clone, Debug)]
pub struct Evaluation {
    /// The value, or the error.
    pub outcome: Outcome,
    /// The cost spent, in cel-go's units.
    pub cost: u64,
}

/// Expression trees deeper than this are evaluated on a large stack (macros alone nest a few levels).
const DEEP: usize = 48;

/// Evaluates `expr` with `variables` bound, stopping once the cost passes `limit`.
pub fn evaluate(expr: &IdedExpr, variables: &[(&str, Value)], limit: u64) -> Evaluation {
    evaluate_with_depth(expr, crate::parse::depth(expr), variables, limit)
}

/// [`evaluate`] for an expression whose tree depth is known (computed once when it was compiled).
pub fn evaluate_with_depth(expr: &IdedExpr, depth: usize, variables: &[(&str, Value)], limit: u64) -> Evaluation {
    let bindings: Vec<(&str, Outcome)> = variables.iter().map(|(n, v)| (*n, Ok(v.clone()))).collect();
    evaluate_bindings(expr, depth, &bindings, limit)
}

/// [`evaluate_with_depth`] with variables that may be errors, as cel-go binds an activation's value
/// that failed to convert (Kubernetes' `invalid data, ...`): an expression that reads one fails
/// with its error, unless a logical operator or a conditional leaves it unread or absorbs it.
pub fn evaluate_bindings(expr: &IdedExpr, depth: usize, bindings: &[(&str, Outcome)], limit: u64) -> Evaluation {
    if depth > DEEP {
        return crate::parse::on_big_stack(|| evaluate_here(expr, bindings, limit));
    }
    evaluate_here(expr, bindings, limit)
}

fn evaluate_here(expr: &IdedExpr, bindings: &[(&str, Outcome)], limit: u64) -> Evaluation {
    let mut interp = Interpreter { scopes: bindings.iter().map(|(n, v)| (n.to_string(), v.clone())).collect(), cost: 0, limit, depth: 0 };
    let outcome = interp.eval(expr);
    Evaluation { outcome, cost: interp.cost }
}

struct Interpreter {
    /// Variables, innermost last; a comprehension's accumulator may hold an error.
    scopes: Vec<(String, Outcome)>,
    cost: u64,
    limit: u64,
    depth: usize,
}

use crate::parse::MAX_NESTING as MAX_DEPTH;

impl Interpreter {
    fn charge(&mut self, amount: u64) -> Result<(), EvalError> {
        self.cost = self.cost.saturating_add(amount);
        if self.cost > self.limit {
            return Err(EvalError { kind: ErrorKind::CostLimit, message: "operation cancelled: actual cost limit exceeded".into() });
        }
        Ok(())
    }

    fn lookup(&self, name: &str) -> Option<Outcome> {
        self.scopes.iter().rev().find(|(n, _)| n == name).map(|(_, v)| v.clone())
    }

    fn eval(&mut self, e: &IdedExpr) -> Outcome {
        self.depth += 1;
        if self.depth > MAX_DEPTH {
            self.depth -= 1;
            return Err(EvalError::runtime("max recursion depth exceeded"));
        }
        let result = self.eval_inner(e);
        self.depth -= 1;
        result
    }

    fn eval_inner(&mut self, e: &IdedExpr) -> Outcome {
        match &e.expr {
            Expr::Literal(l) => Ok(match l {
                LiteralValue::Boolean(b) => Value::Bool(**b),
                LiteralValue::Bytes(b) => Value::Bytes(Arc::from(b.as_ref())),
                LiteralValue::Double(d) => Value::Double(**d),
                LiteralValue::Int(i) => Value::Int(**i),
                LiteralValue::Null => Value::Null,
                LiteralValue::String(s) => Value::String(Arc::from(s.as_ref())),
                LiteralValue::UInt(u) => Value::Uint(**u),
            }),
            Expr::Ident(name) => {
                self.charge(1)?;
                match self.lookup(name) {
                    Some(v) => v,
                    None => match type_value(name) {
                        Some(t) => Ok(t),
                        None => Err(EvalError::runtime(format!("no such attribute: {name}"))),
                    },
                }
            }
            Expr::Select(select) => {
                if let Some(t) = self.qualified_type(e) {
                    return Ok(t);
                }
                if let Some(segments) = self.qualified_name(e) {
                    if let Some(v) = self.lookup(&segments.join(".")) {
                        return v;
                    }
                }
                self.charge(1)?;
                let operand = self.eval(&select.operand)?;
                select_field(&operand, &select.field, select.test)
            }
            Expr::Call(c) => self.eval_call(&c.func_name, c.target.as_deref(), &c.args),
            Expr::List(list) => {
                self.charge(10)?;
                let mut items = Vec::with_capacity(list.elements.len());
                for (i, element) in list.elements.iter().enumerate() {
                    let v = self.eval(element)?;
                    if list.optional_indices.contains(&i) {
                        match v {
                            Value::Optional(Some(inner)) => items.push((*inner).clone()),
                            Value::Optional(None) => {}
                            _ => return Err(EvalError::no_overload()),
                        }
                    } else {
                        items.push(v);
                    }
                }
                Ok(Value::list(items))
            }
            Expr::Map(map) => {
                self.charge(30)?;
                let mut entries: Vec<(Value, Value)> = Vec::with_capacity(map.entries.len());
                for entry in &map.entries {
                    let EntryExpr::MapEntry(m) = &entry.expr else { continue };
                    let key = self.eval(&m.key)?;
                    if !matches!(key, Value::Int(_) | Value::Uint(_) | Value::Bool(_) | Value::String(_)) {
                        return Err(EvalError::runtime(format!("unsupported key type: {}", key.type_name())));
                    }
                    let mut value = self.eval(&m.value)?;
                    if m.optional {
                        match value {
                            Value::Optional(Some(inner)) => value = (*inner).clone(),
                            Value::Optional(None) => continue,
                            _ => return Err(EvalError::no_overload()),
                        }
                    }
                    let probe = Map { entries: std::mem::take(&mut entries) };
                    if probe.get(&key).is_some() {
                        return Err(EvalError::runtime(format!("Failed with repeated key: {key}")));
                    }
                    entries = probe.entries;
                    entries.push((key, value));
                }
                Ok(Value::Map(Arc::new(Map { entries })))
            }
            Expr::Struct(s) => Err(EvalError::runtime(format!("unknown type: {}", s.type_name))),
            Expr::Comprehension(c) => {
                let range = self.eval(&c.iter_range)?;
                let pairs: Vec<(Value, Value)> = match &range {
                    Value::List(l) => l.items.iter().enumerate().map(|(i, v)| (Value::Int(i as i64), v.clone())).collect(),
                    Value::Map(m) => m.entries.iter().map(|(k, v)| (k.clone(), v.clone())).collect(),
                    _ => return Err(EvalError::no_overload()),
                };
                let two = c.iter_var2.is_some();
                let accu = self.eval(&c.accu_init);
                let accu_at = self.scopes.len();
                self.scopes.push((c.accu_var.clone(), accu));
                let is_list = matches!(range, Value::List(_));
                for (first, second) in pairs {
                    let (a, b) = match (is_list, two) {
                        (true, false) => (second, None),
                        (true, true) => (first, Some(second)),
                        (false, false) => (first, None),
                        (false, true) => (first, Some(second)),
                    };
                    self.scopes.push((c.iter_var.clone(), Ok(a)));
                    if let (Some(name), Some(b)) = (&c.iter_var2, b) {
                        self.scopes.push((name.clone(), Ok(b)));
                    }
                    let cond = self.eval(&c.loop_cond);
                    if let Err(e) = &cond {
                        if e.kind == ErrorKind::CostLimit {
                            self.scopes.truncate(accu_at);
                            return cond;
                        }
                    }
                    let stop = matches!(cond, Ok(Value::Bool(false)));
                    if !stop {
                        let step = self.eval(&c.loop_step);
                        if let Err(e) = &step {
                            if e.kind == ErrorKind::CostLimit {
                                self.scopes.truncate(accu_at);
                                return step;
                            }
                        }
                        self.scopes.truncate(accu_at + 1);
                        self.scopes[accu_at].1 = step;
                    } else {
                        self.scopes.truncate(accu_at + 1);
                        break;
                    }
                }
                let result = self.eval(&c.result);
                self.scopes.truncate(accu_at);
                result
            }
            Expr::Unspecified => Err(EvalError::runtime("unspecified expression")),
        }
    }

    /// A select chain naming a type (`google.protobuf.Duration`) whose root is not a variable.
    fn qualified_type(&self, e: &IdedExpr) -> Option<Value> {
        let segments = self.qualified_name(e)?;
        type_value(&segments.join("."))
    }

    /// The segments of a select chain on an identifier that is not a variable.
    fn qualified_name<'e>(&self, e: &'e IdedExpr) -> Option<Vec<&'e str>> {
        let segments = crate::parse::dotted_names(e)?;
        if self.lookup(segments[0]).is_some() {
            return None;
        }
        Some(segments)
    }

    fn eval_call(&mut self, name: &str, target: Option<&IdedExpr>, args: &[IdedExpr]) -> Outcome {
        match (name, args.len()) {
            ("_&&_", 2) | ("_||_", 2) => {
                self.charge(0)?;
                let is_and = name == "_&&_";
                let short = !is_and;
                let left = self.eval(&args[0]);
                if let Ok(Value::Bool(b)) = left {
                    if b == short {
                        return Ok(Value::Bool(short));
                    }
                }
                if let Err(e) = &left {
                    if e.kind == ErrorKind::CostLimit {
                        return left;
                    }
                }
                let right = self.eval(&args[1]);
                match (&left, &right) {
                    (_, Ok(Value::Bool(b))) if *b == short => Ok(Value::Bool(short)),
                    (_, Err(e)) if e.kind == ErrorKind::CostLimit => right,
                    (Ok(Value::Bool(_)), Ok(Value::Bool(_))) => Ok(Value::Bool(!short)),
                    (Err(_), _) => left,
                    (_, Err(_)) => right,
                    _ => Err(EvalError::no_overload()),
                }
            }
            ("_?_:_", 3) => match self.eval(&args[0])? {
                Value::Bool(true) => self.eval(&args[1]),
                Value::Bool(false) => self.eval(&args[2]),
                _ => Err(EvalError::no_overload()),
            },
            ("@not_strictly_false", 1) => match self.eval(&args[0]) {
                Ok(Value::Bool(b)) => Ok(Value::Bool(b)),
                Err(e) if e.kind == ErrorKind::CostLimit => Err(e),
                _ => Ok(Value::Bool(true)),
            },
            ("_?._", 2) => {
                self.charge(1)?;
                let operand = self.eval(&args[0])?;
                let Expr::Literal(LiteralValue::String(field)) = &args[1].expr else { return Err(EvalError::no_overload()) };
                optional_select(&operand, field)
            }
            _ => {
                // `sets.contains(..)`: a namespaced function, not a call on a variable.
                if let Some(t) = target {
                    if let Some(segments) = self.qualified_name(t) {
                        let qualified = format!("{}.{name}", segments.join("."));
                        if functions().contains_key(qualified.as_str()) {
                            let values = self.eval_args(None, args)?;
                            return self.call_function(&qualified, &values);
                        }
                    }
                }
                let values = self.eval_args(target, args)?;
                self.call_function(name, &values)
            }
        }
    }

    /// Calls a function on evaluated arguments: one for the call, what the lists extension's cost
    /// trackers charge (before the work, so a call over the limit never runs), then what the
    /// function adds for traversing its arguments.
    fn call_function(&mut self, name: &str, values: &[Value]) -> Outcome {
        self.charge(1)?;
        if let Some(extra) = crate::lists::extra_cost(name, values) {
            self.charge(extra)?;
        }
        let result = call(name, values, &mut self.cost);
        if self.cost > self.limit {
            return Err(EvalError { kind: ErrorKind::CostLimit, message: "operation cancelled: actual cost limit exceeded".into() });
        }
        result
    }

    fn eval_args(&mut self, target: Option<&IdedExpr>, args: &[IdedExpr]) -> Result<Vec<Value>, EvalError> {
        let mut values = Vec::with_capacity(args.len() + 1);
        if let Some(t) = target {
            values.push(self.eval(t)?);
        }
        for a in args {
            values.push(self.eval(a)?);
        }
        Ok(values)
    }
}

/// The value of a type name used as an expression (`int`, `google.protobuf.Duration`).
fn type_value(name: &str) -> Option<Value> {
    let known = [
        "bool",
        "int",
        "uint",
        "double",
        "string",
        "bytes",
        "null_type",
        "list",
        "map",
        "type",
        "google.protobuf.Duration",
        "google.protobuf.Timestamp",
        "optional_type",
        "net.IP",
        "net.CIDR",
        "kubernetes.URL",
        "kubernetes.Quantity",
        "kubernetes.Semver",
    ];
    known.contains(&name).then(|| Value::Type(Arc::from(name)))
}

/// `operand.field`, or `has(operand.field)` when `test`.
fn select_field(operand: &Value, field: &str, test: bool) -> Outcome {
    if let Value::Optional(inner) = operand {
        // Selecting on an optional value propagates the optional.
        let selected = match inner {
            Some(v) => optional_select(v, field)?,
            None => Value::Optional(None),
        };
        return Ok(if test { Value::Bool(matches!(selected, Value::Optional(Some(_)))) } else { selected });
    }
    let found = match operand {
        Value::Object(o) => object_field(o, field).cloned(),
        Value::Map(m) => m.get(&Value::string(field)).cloned(),
        _ => return Err(EvalError::runtime(if test { "invalid type for field selection." } else { "no such overload" })),
    };
    match (found, test) {
        (Some(_), true) => Ok(Value::Bool(true)),
        (None, true) => Ok(Value::Bool(false)),
        (Some(v), false) => Ok(v),
        (None, false) => Err(EvalError::runtime(format!("no such key: {field}"))),
    }
}

/// An object's field by the name a rule selects it with. A property named after a reserved word is
/// held under its escaped name (`__namespace__`); the plain name finds it too, as the API server's
/// values do (the type checker decides, by release, whether a rule may use the plain name).
fn object_field<'o>(object: &'o crate::value::Object, field: &str) -> Option<&'o Value> {
    object.fields.get(field).or_else(|| {
        if crate::escape::RESERVED.contains(&field) {
            object.fields.get(&format!("__{field}__"))
        } else {
            None
        }
    })
}

/// `operand.?field`.
fn optional_select(operand: &Value, field: &str) -> Outcome {
    match operand {
        Value::Optional(None) => Ok(Value::Optional(None)),
        Value::Optional(Some(inner)) => optional_select(inner, field),
        Value::Object(o) => Ok(Value::Optional(object_field(o, field).map(|v| Arc::new(v.clone())))),
        Value::Map(m) => Ok(Value::Optional(m.get(&Value::string(field)).map(|v| Arc::new(v.clone())))),
        _ => Err(EvalError::no_overload()),
    }
}

/// A list value with a Kubernetes list type.
pub fn typed_list(items: Vec<Value>, kind: ListKind) -> Value {
    Value::List(Arc::new(List { items, kind }))
}

#[cfg(test)]
mod tests;
