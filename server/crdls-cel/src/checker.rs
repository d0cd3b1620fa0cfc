//! The type checker: cel-go's algorithm over the `cel` crate's AST. Every node gets a type; overloads are
//! resolved with type parameters unified as cel-go unifies them; errors carry cel-go's wording
//! (`undefined field 'x'`, `found no matching overload for '_==_' applied to '(int, bool)'`,
//! `undeclared reference to 'x' (in container '')`) and are located where cel-go locates them.

use std::collections::HashMap;
use std::sync::Arc;

use cel::common::ast::{EntryExpr, Expr, IdedExpr, LiteralValue};

use crate::decls::{functions, Overload};
use crate::parse::{CelError, Parsed};
use crate::types::{Field, ObjectType, Type};

/// The result of checking an expression.
#[derive(Debug)]
pub struct Checked {
    /// The type of every node, by id.
    pub types: HashMap<u64, Type>,
    /// The expression's type.
    pub result: Type,
    /// The errors, in the order found.
    pub errors: Vec<CelError>,
    /// For each call, the function and the overloads (indexes into its declarations) that matched.
    pub overloads: HashMap<u64, (&'static str, Vec<usize>)>,
    /// Select chains the checker resolved as one qualified name (`google.protobuf.Duration`), by id.
    pub qualified: HashMap<u64, String>,
}

/// Language options of the checker.
#[derive(Clone, Copy, Debug)]
pub struct Options {
    /// List and map literals must have elements (and keys) of one type, as Kubernetes requires.
    pub homogeneous_literals: bool,
    /// The Kubernetes minor version whose CEL environment applies (libraries arrive release by
    /// release); `None` for the newest, which has them all.
    pub kubernetes: Option<u32>,
}

impl Options {
    /// The options of the Kubernetes CEL environment.
    pub const KUBERNETES: Options = Options { homogeneous_literals: true, kubernetes: None };
    /// CEL as the specification defines it (for conformance tests).
    pub const SPEC: Options = Options { homogeneous_literals: false, kubernetes: None };

    /// The Kubernetes environment of one minor version (`kubernetes(30)` for 1.30).
    pub fn kubernetes(minor: u32) -> Options {
        Options { kubernetes: Some(minor), ..Options::KUBERNETES }
    }

    /// Whether the environment has what Kubernetes 1.`since` introduced.
    pub fn has(&self, since: u32) -> bool {
        self.kubernetes.is_none_or(|minor| since <= minor)
    }
}

/// Checks a parsed expression with the given variables in scope, in the Kubernetes environment.
pub fn check(parsed: &Parsed, variables: &[(&str, Type)]) -> Checked {
    check_with(parsed, variables, Options::KUBERNETES)
}

/// Checks a parsed expression with the given variables in scope and language options.
pub fn check_with(parsed: &Parsed, variables: &[(&str, Type)], options: Options) -> Checked {
    if crate::parse::depth(&parsed.expr) > 48 {
        return crate::parse::on_big_stack(|| check_here(parsed, variables, options));
    }
    check_here(parsed, variables, options)
}

fn check_here(parsed: &Parsed, variables: &[(&str, Type)], options: Options) -> Checked {
    let mut checker = Checker::new(parsed, variables, options);
    let result = checker.check(&parsed.expr);
    let result = checker.substitute(&result, true);
    let ids: Vec<u64> = checker.types.keys().copied().collect();
    for id in ids {
        let t = checker.types[&id].clone();
        let t = checker.substitute(&t, true);
        checker.types.insert(id, t);
    }
    if checker.errors.is_empty() && options.homogeneous_literals && options.has(29) {
        literal_arguments(&parsed.expr, parsed, &mut checker.errors);
        checker.errors.sort_by_key(|e| e.offset);
    }
    Checked { types: checker.types, result, errors: checker.errors, overloads: checker.overloads, qualified: checker.qualified }
}

/// cel-go's literal validators, which Kubernetes runs after a successful type check since 1.29 (the
/// same release as homogeneous literals): a literal first argument of `duration` and `timestamp` must
/// convert, and that of `matches` must compile as a regular expression (`invalid matches argument`,
/// at the literal). As in cel-go, it is the first argument: the pattern of `s.matches(re)`, but the
/// string of the global `matches(s, re)`.
fn literal_arguments(expr: &IdedExpr, parsed: &Parsed, errors: &mut Vec<CelError>) {
    if let Expr::Call(call) = &expr.expr {
        if let (Some(arg), "duration" | "timestamp" | "matches") = (call.args.first(), call.func_name.as_str()) {
            if let Expr::Literal(literal) = &arg.expr {
                let valid = if call.func_name == "matches" {
                    match literal {
                        LiteralValue::String(pattern) => crdls_go::pattern::with_regex(pattern, |_| ()).is_ok(),
                        _ => true,
                    }
                } else {
                    // Only a conversion that fails counts: an overload crdls's evaluator lacks is no error.
                    !matches!(crate::eval::evaluate(expr, &[], 1_000).outcome, Err(e) if e.kind == crate::eval::ErrorKind::Runtime)
                };
                if !valid {
                    let offset = parsed.offsets.get(&arg.id).copied().unwrap_or(0);
                    errors.push(CelError { offset, message: format!("invalid {} argument", call.func_name) });
                }
            }
        }
    }
    for child in crate::parse::children(expr) {
        literal_arguments(child, parsed, errors);
    }
}

struct Checker<'p> {
    options: Options,
    offsets: &'p HashMap<u64, usize>,
    /// The identifiers written with a leading `.` (see [`crate::parse::Parsed::root_scoped`]).
    root_scoped: &'p std::collections::HashSet<u64>,
    scopes: Vec<HashMap<String, Type>>,
    types: HashMap<u64, Type>,
    errors: Vec<CelError>,
    /// Bindings of type variables.
    subst: HashMap<Arc<str>, Type>,
    /// The variables of `subst` in the order they were bound, so that an overload's trial bindings are
    /// undone by removing them (copying the whole map per overload made long expressions quadratic).
    trail: Vec<Arc<str>>,
    /// How many bindings were written to or removed from `subst`: the work on type variables, which
    /// a test holds proportional to the expression's size.
    touched: usize,
    fresh: usize,
    overloads: HashMap<u64, (&'static str, Vec<usize>)>,
    qualified: HashMap<u64, String>,
}

/// Names a type can be referred to by in an expression (`type(x) == int`).
fn type_named(name: &str) -> Option<Type> {
    Some(match name {
        "bool" => Type::Bool,
        "int" => Type::Int,
        "uint" => Type::Uint,
        "double" => Type::Double,
        "string" => Type::String,
        "bytes" => Type::Bytes,
        "null_type" => Type::Null,
        "list" => Type::list(Type::Dyn),
        "map" => Type::map(Type::Dyn, Type::Dyn),
        "type" => Type::Type(None),
        "google.protobuf.Duration" => Type::Duration,
        "google.protobuf.Timestamp" => Type::Timestamp,
        "optional_type" => Type::optional(Type::Dyn),
        "net.IP" => Type::Opaque(crate::types::Opaque::Ip),
        "net.CIDR" => Type::Opaque(crate::types::Opaque::Cidr),
        "kubernetes.URL" => Type::Opaque(crate::types::Opaque::Url),
        "kubernetes.Quantity" => Type::Opaque(crate::types::Opaque::Quantity),
        "kubernetes.Semver" => Type::Opaque(crate::types::Opaque::Semver),
        _ => return None,
    })
}

impl Checker<'_> {
    fn error(&mut self, id: u64, message: String) {
        let offset = self.offsets.get(&id).copied().unwrap_or(0);
        self.errors.push(CelError { offset, message });
    }

    fn lookup(&self, name: &str) -> Option<Type> {
        self.scopes.iter().rev().find_map(|s| s.get(name).cloned())
    }

    fn fresh_var(&mut self) -> Type {
        self.fresh += 1;
        Type::param(&format!("_var{}", self.fresh - 1))
    }

    fn check(&mut self, e: &IdedExpr) -> Type {
        let t = self.check_inner(e);
        self.types.insert(e.id, t.clone());
        t
    }

    fn check_inner(&mut self, e: &IdedExpr) -> Type {
        match &e.expr {
            Expr::Literal(l) => match l {
                LiteralValue::Boolean(_) => Type::Bool,
                LiteralValue::Bytes(_) => Type::Bytes,
                LiteralValue::Double(_) => Type::Double,
                LiteralValue::Int(_) => Type::Int,
                LiteralValue::Null => Type::Null,
                LiteralValue::String(_) => Type::String,
                LiteralValue::UInt(_) => Type::Uint,
            },
            Expr::Ident(name) => match self.lookup(name).or_else(|| type_named(name).map(Type::type_of)) {
                Some(t) => t,
                None => {
                    let dot = if self.root_scoped.contains(&e.id) { "." } else { "" };
                    self.error(e.id, format!("undeclared reference to '{dot}{name}' (in container '')"));
                    Type::Error
                }
            },
            Expr::Select(select) => {
                if let Some(t) = self.qualified_type(e) {
                    return t;
                }
                if let Some(t) = self.qualified_variable(e) {
                    return t;
                }
                let operand = self.check(&select.operand);
                let field = self.select_field(e.id, &operand, &select.field, false);
                if select.test {
                    Type::Bool
                } else {
                    field
                }
            }
            Expr::Call(call) => self.check_call(e.id, &call.func_name, call.target.as_deref(), &call.args),
            Expr::List(list) => {
                let mut elem: Option<Type> = None;
                for (i, element) in list.elements.iter().enumerate() {
                    let mut t = self.check(element);
                    if list.optional_indices.contains(&i) {
                        t = match self.substitute(&t, false) {
                            Type::Optional(inner) => *inner,
                            Type::Dyn | Type::Error => Type::Dyn,
                            other => {
                                self.error(element.id, format!("expected type 'optional_type({other})' but found '{other}'"));
                                Type::Error
                            }
                        };
                    }
                    elem = Some(self.join(element.id, elem, t));
                }
                Type::list(elem.unwrap_or_else(|| self.fresh_var()))
            }
            Expr::Map(map) => {
                let (mut key, mut value): (Option<Type>, Option<Type>) = (None, None);
                for entry in &map.entries {
                    let EntryExpr::MapEntry(m) = &entry.expr else { continue };
                    let k = self.check(&m.key);
                    key = Some(self.join(m.key.id, key, k));
                    let mut v = self.check(&m.value);
                    if m.optional {
                        v = match self.substitute(&v, false) {
                            Type::Optional(inner) => *inner,
                            Type::Dyn | Type::Error => Type::Dyn,
                            other => {
                                self.error(m.value.id, format!("expected type 'optional_type({other})' but found '{other}'"));
                                Type::Error
                            }
                        };
                    }
                    value = Some(self.join(m.value.id, value, v));
                }
                let key = key.unwrap_or_else(|| self.fresh_var());
                let value = value.unwrap_or_else(|| self.fresh_var());
                Type::map(key, value)
            }
            Expr::Struct(s) => {
                for entry in &s.entries {
                    if let EntryExpr::StructField(f) = &entry.expr {
                        self.check(&f.value);
                    }
                }
                self.error(e.id, format!("undeclared reference to '{}' (in container '')", s.type_name));
                Type::Error
            }
            Expr::Comprehension(c) => {
                // Before the lists extension, `sortBy` is no macro but a call of an undeclared function.
                if c.accu_var == crate::parse::SORT_BY_INPUT && !self.options.has(crate::decls::LISTS_EXTENSION_SINCE) {
                    self.check(&c.accu_init);
                    self.error(e.id, "undeclared reference to 'sortBy' (in container '')".to_string());
                    return Type::Error;
                }
                if c.iter_var2.is_some() && !self.options.has(crate::decls::TWO_VARIABLE_COMPREHENSIONS_SINCE) {
                    self.error(
                        e.id,
                        format!(
                            "two-variable comprehensions are not in the CEL environment of Kubernetes 1.{}: they arrive in 1.{}",
                            self.options.kubernetes.unwrap_or_default(),
                            crate::decls::TWO_VARIABLE_COMPREHENSIONS_SINCE
                        ),
                    );
                }
                let range = self.check(&c.iter_range);
                let range = self.substitute(&range, false);
                let (first, second) = match (&range, c.iter_var2.is_some()) {
                    (Type::List(elem), false) => ((**elem).clone(), None),
                    (Type::List(elem), true) => (Type::Int, Some((**elem).clone())),
                    (Type::Map(k, v), two) => ((**k).clone(), two.then(|| (**v).clone())),
                    (Type::Dyn | Type::Error | Type::Param(_), two) => (Type::Dyn, two.then_some(Type::Dyn)),
                    (other, two) => {
                        self.error(
                            c.iter_range.id,
                            format!("expression of type '{other}' cannot be range of a comprehension (must be list, map, or dynamic)"),
                        );
                        (Type::Dyn, two.then_some(Type::Dyn))
                    }
                };
                let accu = self.check(&c.accu_init);
                self.scopes.push(HashMap::from([(c.accu_var.clone(), accu.clone())]));
                let mut iter_scope = HashMap::from([(c.iter_var.clone(), first)]);
                if let (Some(name), Some(t)) = (&c.iter_var2, second) {
                    iter_scope.insert(name.clone(), t);
                }
                self.scopes.push(iter_scope);
                let cond = self.check(&c.loop_cond);
                self.assert_type(c.loop_cond.id, &Type::Bool, &cond);
                let step = self.check(&c.loop_step);
                self.assert_type(c.loop_step.id, &accu, &step);
                self.scopes.pop();
                let result = self.check(&c.result);
                self.scopes.pop();
                result
            }
            Expr::Unspecified => Type::Error,
        }
    }

    /// A select chain that names a type (`google.protobuf.Duration`) when its root is not a variable.
    fn qualified_type(&mut self, e: &IdedExpr) -> Option<Type> {
        let segments = crate::parse::dotted_names(e)?;
        if self.lookup(segments[0]).is_some() {
            return None;
        }
        let name = segments.join(".");
        let t = type_named(&name).map(Type::type_of)?;
        self.qualified.insert(e.id, name);
        Some(t)
    }

    /// A select chain naming a variable declared with dots in its name (`a.b.c`), or selecting on the
    /// longest such prefix, when its root is not a variable of its own.
    fn qualified_variable(&mut self, e: &IdedExpr) -> Option<Type> {
        let Expr::Select(select) = &e.expr else { return None };
        if select.test {
            return None;
        }
        let mut segments = vec![select.field.as_str()];
        let mut node = &*select.operand;
        loop {
            match &node.expr {
                Expr::Select(s) if !s.test => {
                    segments.push(s.field.as_str());
                    node = &s.operand;
                }
                Expr::Ident(root) => {
                    if self.lookup(root).is_some() {
                        return None;
                    }
                    segments.push(root);
                    break;
                }
                _ => return None,
            }
        }
        segments.reverse();
        let name = segments.join(".");
        let t = self.lookup(&name).filter(|_| segments.len() > 1)?;
        self.qualified.insert(e.id, name);
        Some(t)
    }

    /// A property named after a CEL reserved word (`namespace`) is the field `__namespace__`; from
    /// Kubernetes' compatibility version 1.31 (API servers 1.32 and later, for new rules) the type
    /// provider also finds it by its plain name, which the parser accepts after a dot for every
    /// reserved word but `true`, `false`, `null` and `in`.
    fn keyword_field<'o>(&self, object: &'o ObjectType, field: &str) -> Option<&'o Field> {
        if !self.options.has(crate::decls::KEYWORD_FIELD_NAMES_SINCE) || !crate::escape::RESERVED.contains(&field) {
            return None;
        }
        object.fields.get(&format!("__{field}__"))
    }

    /// The type of `operand.field`; `optional` for `operand.?field`.
    fn select_field(&mut self, id: u64, operand: &Type, field: &str, optional: bool) -> Type {
        let operand = self.substitute(operand, false);
        match &operand {
            Type::Object(o) => match o.fields.get(field).or_else(|| self.keyword_field(o, field)) {
                Some(f) => f.ty.clone(),
                None => {
                    self.error(id, format!("undefined field '{field}'"));
                    Type::Error
                }
            },
            Type::Map(_, v) => (**v).clone(),
            Type::Dyn | Type::Error | Type::Param(_) => Type::Dyn,
            Type::Optional(inner) if optional => {
                let inner = (**inner).clone();
                self.select_field(id, &inner, field, optional)
            }
            // Selecting on an optional value propagates the optional (`a.?b.c`).
            Type::Optional(inner) => {
                let inner = (**inner).clone();
                match self.select_field(id, &inner, field, false) {
                    Type::Error => Type::Error,
                    t @ Type::Optional(_) => t,
                    t => Type::optional(t),
                }
            }
            other => {
                self.error(id, format!("type '{other}' does not support field selection"));
                Type::Error
            }
        }
    }

    fn check_call(&mut self, id: u64, name: &str, target: Option<&IdedExpr>, args: &[IdedExpr]) -> Type {
        // `a.?b` and `a[?b]` belong to the optional types, which arrived in Kubernetes 1.28.
        if matches!(name, "_?._" | "_[?_]") && !self.options.has(28) {
            self.error(id, format!("unsupported syntax '{}'", if name == "_?._" { ".?" } else { "[?" }));
            return Type::Error;
        }
        // `a.?b`: an optional field selection.
        if name == "_?._" && args.len() == 2 {
            let operand = self.check(&args[0]);
            let field = match &args[1].expr {
                Expr::Literal(LiteralValue::String(s)) => s.to_string(),
                _ => String::new(),
            };
            self.types.insert(args[1].id, Type::String);
            let operand = self.substitute(&operand, false);
            let inner = match operand {
                Type::Optional(inner) => *inner,
                other => other,
            };
            let t = self.select_field(id, &inner, &field, true);
            return match t {
                Type::Error => Type::Error,
                t => Type::optional(t),
            };
        }
        // `&&` and `||` (and the `all` and `exists` macros' steps): cel-go checks each argument on its
        // own and reports one that is not a bool where it is, `expected type 'bool' but found
        // 'string'`; an argument already in error passes, and the result is then a bool.
        if matches!(name, "_&&_" | "_||_") && target.is_none() {
            let types: Vec<Type> = args.iter().map(|a| self.check(a)).collect();
            let mut mismatch = false;
            for (a, t) in args.iter().zip(&types) {
                let mark = self.trail.len();
                if !self.assignable(t, &Type::Bool) {
                    self.undo(mark);
                    let shown = self.substitute(t, true);
                    self.error(a.id, format!("expected type 'bool' but found '{shown}'"));
                    mismatch = true;
                }
            }
            if mismatch {
                return Type::Error;
            }
            if types.iter().any(|t| matches!(t, Type::Error)) {
                return Type::Bool;
            }
            return self.resolve(id, name, false, &types);
        }
        // `sets.contains(..)`, `optional.none()`: a namespaced global function.
        if let Some(t) = target {
            if let Some(qualified) = self.namespaced(t, name) {
                let types: Vec<Type> = args.iter().map(|a| self.check(a)).collect();
                return self.resolve(id, &qualified, false, &types);
            }
        }
        let mut types = Vec::new();
        if let Some(t) = target {
            types.push(self.check(t));
        }
        for a in args {
            types.push(self.check(a));
        }
        self.resolve(id, name, target.is_some(), &types)
    }

    /// `ns.f` when `target` spells a name that is not a variable and `ns.f` is a declared function.
    fn namespaced(&self, target: &IdedExpr, name: &str) -> Option<String> {
        let segments = crate::parse::dotted_names(target)?;
        if self.lookup(segments[0]).is_some() {
            return None;
        }
        let qualified = format!("{}.{name}", segments.join("."));
        // Only a function of this environment: cel-go otherwise checks `lists` as a variable and
        // `range` as a member function, and reports both undeclared.
        let declared = functions().get(qualified.as_str()).is_some_and(|overloads| overloads.iter().any(|o| self.options.has(o.since)));
        declared.then_some(qualified)
    }

    /// Resolves a call against the overloads of `name`.
    fn resolve(&mut self, id: u64, name: &str, receiver: bool, args: &[Type]) -> Type {
        let options = self.options;
        // A function whose every overload is newer than the environment is not declared there at all.
        let declared = functions().get_key_value(name).filter(|(_, overloads)| overloads.iter().any(|o| options.has(o.since)));
        let Some((&function, overloads)) = declared else {
            self.error(id, format!("undeclared reference to '{name}' (in container '')"));
            return Type::Error;
        };
        // An argument in error is assignable to any parameter (cel-go's `isAssignable`), so the call
        // still fails, and is reported, when another argument fits no overload.
        let mut result: Option<Type> = None;
        let mut matched_bindings: Option<Vec<(Arc<str>, Type)>> = None;
        let mut matches = 0;
        let mut matched = Vec::new();
        let in_environment = |o: &&Overload| o.receiver == receiver && o.params.len() == args.len() && options.has(o.since);
        for (index, overload) in overloads.iter().enumerate().filter(|(_, o)| in_environment(o)) {
            let (params, ret) = self.instantiate(overload);
            let mark = self.trail.len();
            let ok = params.iter().zip(args).all(|(p, a)| self.assignable(p, a));
            if ok {
                matches += 1;
                matched.push(index);
                let ret = self.substitute(&ret, false);
                result = Some(match result {
                    None => ret,
                    Some(prev) if prev == ret => prev,
                    Some(_) => Type::Dyn,
                });
                if matched_bindings.is_none() {
                    matched_bindings = Some(self.trail[mark..].iter().map(|n| (n.clone(), self.subst[n].clone())).collect());
                }
            }
            self.undo(mark);
        }
        if !matched.is_empty() {
            self.overloads.insert(id, (function, matched));
        }
        match result {
            Some(t) => {
                if matches == 1 {
                    for (name, bound) in matched_bindings.into_iter().flatten() {
                        self.bind(name, bound);
                    }
                }
                t
            }
            None => {
                let shown: Vec<String> = args.iter().map(|a| self.substitute(a, true).to_string()).collect();
                let signature =
                    if receiver { format!("{}.({})", shown[0], shown[1..].join(", ")) } else { format!("({})", shown.join(", ")) };
                self.error(id, format!("found no matching overload for '{name}' applied to '{signature}'"));
                Type::Error
            }
        }
    }

    /// An overload's parameter and result types with its type parameters renamed to fresh variables.
    fn instantiate(&mut self, overload: &Overload) -> (Vec<Type>, Type) {
        let mut renames: HashMap<Arc<str>, Type> = HashMap::new();
        let params = overload.params.iter().map(|p| self.rename(p, &mut renames)).collect();
        let result = self.rename(&overload.result, &mut renames);
        (params, result)
    }

    fn rename(&mut self, t: &Type, renames: &mut HashMap<Arc<str>, Type>) -> Type {
        match t {
            Type::Param(name) => {
                if let Some(r) = renames.get(name) {
                    return r.clone();
                }
                let fresh = self.fresh_var();
                renames.insert(name.clone(), fresh.clone());
                fresh
            }
            Type::List(e) => Type::list(self.rename(e, renames)),
            Type::Optional(e) => Type::optional(self.rename(e, renames)),
            Type::Map(k, v) => {
                let k = self.rename(k, renames);
                Type::map(k, self.rename(v, renames))
            }
            Type::Type(Some(e)) => Type::type_of(self.rename(e, renames)),
            other => other.clone(),
        }
    }

    fn new<'p>(parsed: &'p Parsed, variables: &[(&str, Type)], options: Options) -> Checker<'p> {
        Checker {
            options,
            offsets: &parsed.offsets,
            root_scoped: &parsed.root_scoped,
            scopes: vec![variables.iter().map(|(n, t)| (n.to_string(), t.clone())).collect()],
            types: HashMap::new(),
            errors: Vec::new(),
            subst: HashMap::new(),
            trail: Vec::new(),
            touched: 0,
            fresh: 0,
            overloads: HashMap::new(),
            qualified: HashMap::new(),
        }
    }

    /// Binds the unbound variable `name`.
    fn bind(&mut self, name: Arc<str>, bound: Type) {
        self.subst.insert(name.clone(), bound);
        self.trail.push(name);
        self.touched += 1;
    }

    /// Unbinds the variables bound since the trail was `mark` long.
    fn undo(&mut self, mark: usize) {
        for name in self.trail.drain(mark..) {
            self.subst.remove(&name);
            self.touched += 1;
        }
    }

    /// Follows variable bindings; `finalize` turns unbound variables into `dyn`.
    fn substitute(&self, t: &Type, finalize: bool) -> Type {
        match t {
            Type::Param(name) => match self.subst.get(name) {
                Some(bound) => self.substitute(bound, finalize),
                None if finalize => Type::Dyn,
                None => t.clone(),
            },
            Type::List(e) => Type::list(self.substitute(e, finalize)),
            Type::Optional(e) => Type::optional(self.substitute(e, finalize)),
            Type::Map(k, v) => Type::map(self.substitute(k, finalize), self.substitute(v, finalize)),
            Type::Type(Some(e)) => Type::type_of(self.substitute(e, finalize)),
            other => other.clone(),
        }
    }

    fn occurs(&self, name: &Arc<str>, t: &Type) -> bool {
        match self.substitute(t, false) {
            Type::Param(other) => &other == name,
            Type::List(e) | Type::Optional(e) => self.occurs(name, &e),
            Type::Map(k, v) => self.occurs(name, &k) || self.occurs(name, &v),
            Type::Type(Some(e)) => self.occurs(name, &e),
            _ => false,
        }
    }

    /// Whether a value of type `actual` may be passed where `expected` is declared, binding variables.
    fn assignable(&mut self, expected: &Type, actual: &Type) -> bool {
        let expected = self.substitute(expected, false);
        let actual = self.substitute(actual, false);
        if expected == actual {
            return true;
        }
        match (&expected, &actual) {
            (Type::Param(p), other) | (other, Type::Param(p)) => {
                if self.occurs(p, other) {
                    return false;
                }
                self.bind(p.clone(), other.clone());
                true
            }
            (Type::Dyn | Type::Error, _) | (_, Type::Dyn | Type::Error) => true,
            (Type::List(a), Type::List(b)) | (Type::Optional(a), Type::Optional(b)) => self.assignable(a, b),
            (Type::Map(k1, v1), Type::Map(k2, v2)) => self.assignable(k1, k2) && self.assignable(v1, v2),
            // Type values compare with each other whatever the types they denote.
            (Type::Type(_), Type::Type(_)) => true,
            (Type::Object(_) | Type::Optional(_), Type::Null) => true,
            _ => false,
        }
    }

    /// The element type of an aggregate literal so far, joined with the next element's: Kubernetes
    /// requires homogeneous literals, so a mismatch is an error at the element.
    fn join(&mut self, id: u64, previous: Option<Type>, current: Type) -> Type {
        let Some(previous) = previous else { return current };
        if self.assignable(&previous, &current) {
            return most_general(self.substitute(&previous, false), self.substitute(&current, false));
        }
        if !self.options.homogeneous_literals {
            return Type::Dyn;
        }
        let (p, c) = (self.substitute(&previous, true), self.substitute(&current, true));
        self.error(id, format!("expected type '{p}' but found '{c}'"));
        Type::Error
    }

    fn assert_type(&mut self, id: u64, expected: &Type, actual: &Type) {
        if !self.assignable(expected, actual) {
            let (e, a) = (self.substitute(expected, true), self.substitute(actual, true));
            self.error(id, format!("expected type '{e}' but found '{a}'"));
        }
    }
}

/// The more general of two types that are assignable to each other.
fn most_general(a: Type, b: Type) -> Type {
    if a.is_dyn_or_error() || matches!(a, Type::Param(_)) {
        return a;
    }
    if b.is_dyn_or_error() {
        return b;
    }
    match (a, b) {
        (Type::List(x), Type::List(y)) => Type::list(most_general(*x, *y)),
        (Type::Map(k1, v1), Type::Map(k2, v2)) => Type::map(most_general(*k1, *k2), most_general(*v1, *v2)),
        (Type::Optional(x), Type::Optional(y)) => Type::optional(most_general(*x, *y)),
        (a, _) => a,
    }
}

#[cfg(test)]
mod tests;
