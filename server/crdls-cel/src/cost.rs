//! Static cost estimation, as cel-go's checker estimates it with the Kubernetes cost estimator: every
//! node's cost range, sizes tracked through literals, concatenations, comprehensions and the
//! variables' declared bounds, the Kubernetes library functions priced as the API server prices them,
//! the lists extension's functions as cel-go's own estimators price them, and presence tests free
//! (`PresenceTestHasCost(false)`). The result is what the API server compares
//! with its per-rule limit when a CRD is written.

use std::collections::HashMap;

use cel::common::ast::{EntryExpr, Expr, IdedExpr, LiteralValue};

use crate::checker::Checked;
use crate::decls::{functions, Overload};
use crate::parse::{Parsed, ACCUMULATOR};
use crate::types::{Opaque, Type};

/// A cost or size range, saturating at `u64::MAX`.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Estimate {
    /// The least.
    pub min: u64,
    /// The most.
    pub max: u64,
}

/// The cost of traversing one unit of a string.
pub const STRING_TRAVERSAL_COST_FACTOR: f64 = 0.1;
/// The cost of a regex per character of its pattern.
pub const REGEX_STRING_LENGTH_COST_FACTOR: f64 = 0.25;
const LIST_CREATE_BASE_COST: u64 = 10;
const MAP_CREATE_BASE_COST: u64 = 30;
const STRUCT_CREATE_BASE_COST: u64 = 40;

impl std::ops::Add for Estimate {
    type Output = Estimate;

    /// Saturating sum of both bounds.
    fn add(self, other: Estimate) -> Estimate {
        Estimate { min: self.min.saturating_add(other.min), max: self.max.saturating_add(other.max) }
    }
}

impl std::ops::AddAssign for Estimate {
    fn add_assign(&mut self, other: Estimate) {
        *self = *self + other;
    }
}

impl Estimate {
    /// `[n, n]`.
    pub const fn fixed(n: u64) -> Estimate {
        Estimate { min: n, max: n }
    }

    /// `[0, u64::MAX]`: nothing known.
    pub const fn unknown() -> Estimate {
        Estimate { min: 0, max: u64::MAX }
    }

    /// The product, saturating.
    pub fn multiply(self, other: Estimate) -> Estimate {
        Estimate { min: self.min.saturating_mul(other.min), max: self.max.saturating_mul(other.max) }
    }

    /// The range covering both.
    pub fn union(self, other: Estimate) -> Estimate {
        Estimate { min: self.min.min(other.min), max: self.max.max(other.max) }
    }

    /// Each bound times a factor, rounded up, saturating.
    pub fn times(self, factor: f64) -> Estimate {
        Estimate { min: times(self.min, factor), max: times(self.max, factor) }
    }
}

fn times(x: u64, factor: f64) -> u64 {
    let xf = x as f64;
    if xf > 0.0 && factor > 0.0 && xf > u64::MAX as f64 / factor {
        return u64::MAX;
    }
    let product = (xf * factor).ceil();
    if product >= 18_446_744_073_709_551_616.0 {
        u64::MAX
    } else {
        product as u64
    }
}

/// The sizes (string length, list items, map entries) of what variables hold, by path: the variable,
/// then field names, `@items`, `@values`, `@keys` or `@indices`.
pub trait SizeEstimator: Sync {
    /// The size range at `path`, when known.
    fn estimate_size(&self, path: &[String]) -> Option<Estimate>;
}

/// No size is known.
pub struct NoSizes;

impl SizeEstimator for NoSizes {
    fn estimate_size(&self, _path: &[String]) -> Option<Estimate> {
        None
    }
}

/// Estimates the cost of a checked expression: `presence_test_cost` is what `has()` adds (0 in Kubernetes).
pub fn estimate_cost(parsed: &Parsed, checked: &Checked, sizes: &dyn SizeEstimator, presence_test_cost: u64) -> Estimate {
    estimate_cost_for(parsed, checked, sizes, presence_test_cost, None)
}

/// The Kubernetes minor version whose cel-go (0.29) costs the global form `matches(s, re)` as it costs
/// `s.matches(re)`; before it, the global form costs 1 like any function cel-go does not know.
pub const GLOBAL_MATCHES_COST_SINCE: u32 = 37;

/// [`estimate_cost`] as the API server of `kubernetes` estimates it (`None`: the newest).
pub fn estimate_cost_for(
    parsed: &Parsed,
    checked: &Checked,
    sizes: &dyn SizeEstimator,
    presence_test_cost: u64,
    kubernetes: Option<u32>,
) -> Estimate {
    let mut coster = Coster {
        checked,
        sizes,
        paths: HashMap::new(),
        locals: HashMap::new(),
        computed: HashMap::new(),
        entries: HashMap::new(),
        presence_test_cost,
        global_matches: kubernetes.is_none_or(|minor| minor >= GLOBAL_MATCHES_COST_SINCE),
    };
    if crate::parse::depth(&parsed.expr) > 48 {
        return crate::parse::on_big_stack(|| coster.cost(&parsed.expr));
    }
    coster.cost(&parsed.expr)
}

/// The sizes of a collection's keys (or indexes) and values, when known.
#[derive(Clone, Copy, Debug)]
struct EntrySize {
    list: bool,
    key: Estimate,
    val: Estimate,
}

fn union_entries(a: Option<EntrySize>, b: Option<EntrySize>) -> Option<EntrySize> {
    let (a, b) = (a?, b?);
    Some(EntrySize { list: a.list, key: a.key.union(b.key), val: a.val.union(b.val) })
}

#[derive(Clone, Debug)]
struct Local {
    path: Vec<String>,
    size: Option<Estimate>,
    entry: Option<EntrySize>,
}

/// What a function's estimate sees of an argument.
struct Arg<'e> {
    expr: &'e IdedExpr,
    path: Option<Vec<String>>,
    ty: Type,
    size: Option<Estimate>,
}

struct CallEstimate {
    cost: Estimate,
    size: Option<Estimate>,
}

struct Coster<'a> {
    checked: &'a Checked,
    sizes: &'a dyn SizeEstimator,
    paths: HashMap<u64, Vec<String>>,
    locals: HashMap<String, Vec<Local>>,
    computed: HashMap<u64, Estimate>,
    entries: HashMap<u64, EntrySize>,
    presence_test_cost: u64,
    /// Whether `matches(s, re)` is costed like `s.matches(re)`.
    global_matches: bool,
}

impl Coster<'_> {
    fn ty(&self, e: &IdedExpr) -> Type {
        self.checked.types.get(&e.id).cloned().unwrap_or(Type::Dyn)
    }

    fn local(&self, name: &str) -> Option<&Local> {
        self.locals.get(name).and_then(|stack| stack.last())
    }

    fn path(&self, e: &IdedExpr) -> Vec<String> {
        if let Expr::Ident(name) = &e.expr {
            if let Some(local) = self.local(name) {
                return local.path.clone();
            }
        }
        self.paths.get(&e.id).cloned().unwrap_or_default()
    }

    fn push_local(&mut self, name: &str, local: Local) {
        self.locals.entry(name.to_string()).or_default().push(local);
    }

    fn pop_local(&mut self, name: &str) {
        if let Some(stack) = self.locals.get_mut(name) {
            stack.pop();
        }
    }

    fn cost(&mut self, e: &IdedExpr) -> Estimate {
        match &e.expr {
            Expr::Literal(_) => Estimate::fixed(0),
            Expr::Ident(name) => {
                let path = match self.local(name) {
                    Some(local) => local.path.clone(),
                    None => vec![name.clone()],
                };
                self.paths.insert(e.id, path);
                Estimate::fixed(1)
            }
            // A select chain the checker read as one qualified name is an identifier to the estimator.
            Expr::Select(_) if self.checked.qualified.contains_key(&e.id) => {
                self.paths.insert(e.id, vec![self.checked.qualified[&e.id].clone()]);
                Estimate::fixed(1)
            }
            Expr::Select(select) => {
                if select.test {
                    return Estimate::fixed(self.presence_test_cost) + self.cost(&select.operand);
                }
                let mut sum = self.cost(&select.operand);
                if matches!(self.ty(&select.operand), Type::Map(..) | Type::Object(_) | Type::Param(_)) {
                    sum += Estimate::fixed(1);
                }
                let mut path = self.path(&select.operand);
                path.push(select.field.clone());
                self.paths.insert(e.id, path);
                sum
            }
            Expr::Call(call) => self.cost_call(e, &call.func_name, call.target.as_deref(), &call.args),
            Expr::List(list) => {
                let mut sum = Estimate::default();
                let mut item = Estimate { min: if list.elements.is_empty() { 0 } else { u64::MAX }, max: 0 };
                for element in &list.elements {
                    sum += self.cost(element);
                    item = item.union(self.size_or_unknown(element));
                }
                self.entries.insert(e.id, EntrySize { list: true, key: Estimate::fixed(1), val: item });
                sum + Estimate::fixed(LIST_CREATE_BASE_COST)
            }
            Expr::Map(map) => {
                let mut sum = Estimate::default();
                let empty = map.entries.is_empty();
                let mut key = Estimate { min: if empty { 0 } else { u64::MAX }, max: 0 };
                let mut val = key;
                for entry in &map.entries {
                    let EntryExpr::MapEntry(m) = &entry.expr else { continue };
                    sum += self.cost(&m.key) + self.cost(&m.value);
                    key = key.union(self.size_or_unknown(&m.key));
                    val = val.union(self.size_or_unknown(&m.value));
                }
                self.entries.insert(e.id, EntrySize { list: false, key, val });
                sum + Estimate::fixed(MAP_CREATE_BASE_COST)
            }
            Expr::Struct(s) => {
                let mut sum = Estimate::default();
                for entry in &s.entries {
                    if let EntryExpr::StructField(f) = &entry.expr {
                        sum += self.cost(&f.value);
                    }
                }
                sum + Estimate::fixed(STRUCT_CREATE_BASE_COST)
            }
            Expr::Comprehension(c) => {
                let is_bind = matches!(&c.iter_range.expr, Expr::List(l) if l.elements.is_empty())
                    && matches!(&c.loop_cond.expr, Expr::Literal(LiteralValue::Boolean(b)) if !**b)
                    && c.accu_var != ACCUMULATOR;
                if is_bind && c.accu_var == OPTIONAL_TARGET {
                    // The cel crate binds an `optMap`/`optFlatMap` target that is not an identifier to
                    // `@target`, where cel-go repeats the target expression in `t.hasValue()` and
                    // `t.value()`. Priced as cel-go prices it: the target twice at most (once at least,
                    // when the `optional.none()` branch is the cheap one), without the binding.
                    let target = self.cost(&c.accu_init);
                    self.push_local_var(&c.accu_var, &c.accu_init);
                    let inner = self.cost(&c.result);
                    self.pop_local(&c.accu_var);
                    self.copy_sizes(e, &c.result);
                    return Estimate {
                        min: inner.min.saturating_sub(1).saturating_add(target.min),
                        max: inner.max.saturating_sub(2).saturating_add(target.max.saturating_mul(2)),
                    };
                }
                if is_bind {
                    let mut sum = self.cost(&c.iter_range) + self.cost(&c.accu_init);
                    self.push_local_var(&c.accu_var, &c.accu_init);
                    sum += self.cost(&c.result);
                    self.pop_local(&c.accu_var);
                    self.copy_sizes(e, &c.result);
                    return sum;
                }
                let mut sum = self.cost(&c.iter_range) + self.cost(&c.accu_init);
                self.push_local_var(&c.accu_var, &c.accu_init);
                match &c.iter_var2 {
                    Some(second) => {
                        self.push_iter(&c.iter_var, &c.iter_range, Iter::Key);
                        self.push_iter(second, &c.iter_range, Iter::Value);
                    }
                    None => self.push_iter(&c.iter_var, &c.iter_range, Iter::Single),
                }
                let loop_cost = self.cost(&c.loop_cond);
                let step_cost = self.cost(&c.loop_step);
                self.pop_local(&c.iter_var);
                if let Some(second) = &c.iter_var2 {
                    self.pop_local(second);
                }
                sum += self.cost(&c.result);
                self.pop_local(&c.accu_var);
                let range = self.size_or_unknown(&c.iter_range);
                sum += range.multiply(step_cost + (loop_cost));
                match &c.accu_init.expr {
                    Expr::Literal(_) => {
                        if let Some(size) = self.compute_size(&c.accu_init) {
                            self.computed.insert(e.id, size);
                        }
                    }
                    Expr::List(_) | Expr::Map(_) => {
                        self.computed.insert(e.id, range);
                        if let Some(entry) = self.entries.get(&c.loop_step.id).copied() {
                            self.entries.insert(e.id, entry);
                        }
                    }
                    _ => {}
                }
                sum
            }
            Expr::Unspecified => Estimate::default(),
        }
    }

    fn push_local_var(&mut self, name: &str, e: &IdedExpr) {
        let local = Local { path: self.path(e), size: self.compute_size(e), entry: self.entry_size(e) };
        self.push_local(name, local);
    }

    fn push_iter(&mut self, name: &str, range: &IdedExpr, which: Iter) {
        let entry = self.entry_size(range);
        let list = entry.map_or_else(|| matches!(self.ty(range), Type::List(_)), |e| e.list);
        let (sub, size) = match (which, list) {
            (Iter::Key, true) => ("@indices", entry.map(|e| e.key)),
            (Iter::Key, false) => ("@keys", entry.map(|e| e.key)),
            (Iter::Value, true) | (Iter::Single, true) => ("@items", entry.map(|e| e.val)),
            (Iter::Value, false) => ("@values", entry.map(|e| e.val)),
            (Iter::Single, false) => ("@keys", entry.map(|e| e.key)),
        };
        let mut path = self.path(range);
        path.push(sub.to_string());
        self.push_local(name, Local { path, size, entry: None });
    }

    fn copy_sizes(&mut self, dst: &IdedExpr, src: &IdedExpr) {
        if let Some(size) = self.compute_size(src) {
            self.computed.insert(dst.id, size);
        }
        if let Some(entry) = self.entry_size(src) {
            self.entries.insert(dst.id, entry);
        }
    }

    fn entry_size(&self, e: &IdedExpr) -> Option<EntrySize> {
        if let Some(entry) = self.entries.get(&e.id) {
            return Some(*entry);
        }
        if let Expr::Ident(name) = &e.expr {
            return self.local(name).and_then(|l| l.entry);
        }
        None
    }

    fn compute_size(&self, e: &IdedExpr) -> Option<Estimate> {
        if let Some(size) = self.computed.get(&e.id) {
            return Some(*size);
        }
        if let Some(size) = literal_size(e) {
            return Some(size);
        }
        let path = self.path(e);
        if !path.is_empty() {
            if let Some(size) = self.sizes.estimate_size(&path) {
                return Some(size);
            }
        }
        if is_scalar(&self.ty(e)) {
            return Some(Estimate::fixed(1));
        }
        if let Expr::Ident(name) = &e.expr {
            if let Some(size) = self.local(name).and_then(|l| l.size) {
                return Some(size);
            }
        }
        None
    }

    fn size_or_unknown(&self, e: &IdedExpr) -> Estimate {
        self.compute_size(e).unwrap_or_else(Estimate::unknown)
    }

    fn arg<'e>(&self, e: &'e IdedExpr) -> Arg<'e> {
        let path = self.path(e);
        let path = if path.is_empty() || path[0] == ACCUMULATOR { None } else { Some(path) };
        Arg { expr: e, path, ty: self.ty(e), size: self.compute_size(e) }
    }

    fn cost_call(&mut self, e: &IdedExpr, function: &str, target: Option<&IdedExpr>, args: &[IdedExpr]) -> Estimate {
        if function == "dyn" && args.len() == 1 {
            let cost = self.cost(&args[0]);
            self.copy_sizes(e, &args[0]);
            return Estimate::fixed(1) + cost;
        }
        let arg_costs: Vec<Estimate> = args.iter().map(|a| self.cost(a)).collect();
        let arg_nodes: Vec<Arg<'_>> = args.iter().map(|a| self.arg(a)).collect();
        if function == "_?._" {
            // An optional field selection: an O(1) call.
            return Estimate::fixed(1) + sum(&arg_costs);
        }
        let Some((name, matched)) = self.checked.overloads.get(&e.id).cloned() else { return Estimate::default() };
        let mut total = Estimate::default();
        let mut target_node = None;
        // A namespaced global (`optional.of(x)`, `strings.quote(s)`) parses as a member call on the
        // namespace; the checker resolved it as global, and so does the estimator.
        if let Some(t) = target.filter(|_| name == function) {
            total += self.cost(t);
            target_node = Some(self.arg(t));
        }
        let declarations = &functions()[name];
        let mut fn_cost = Estimate { min: u64::MAX, max: 0 };
        let mut result_size: Option<Estimate> = None;
        for index in matched {
            let overload = &declarations[index];
            let id = overload_id(name, overload);
            let call = self.function_cost(e, name, overload, target_node.as_ref(), &arg_nodes, &arg_costs);
            fn_cost = fn_cost.union(call.cost);
            if let Some(size) = call.size {
                result_size = Some(result_size.map_or(size, |r| r.union(size)));
            }
            match id {
                "index_list" | "index_map" if !args.is_empty() => {
                    result_size = self.entry_size(&args[0]).map(|entry| entry.val);
                    let mut path = self.path(&args[0]);
                    path.push(if id == "index_list" { "@items" } else { "@values" }.to_string());
                    self.paths.insert(e.id, path);
                }
                _ => {}
            }
            if result_size.is_none() {
                result_size = self.compute_size(e);
            }
        }
        if let Some(size) = result_size {
            self.computed.insert(e.id, size);
        }
        total + fn_cost
    }

    fn function_cost(
        &mut self,
        e: &IdedExpr,
        function: &str,
        overload: &Overload,
        target: Option<&Arg<'_>>,
        args: &[Arg<'_>],
        arg_costs: &[Estimate],
    ) -> CallEstimate {
        let id = overload_id(function, overload);
        let args_sum = sum(arg_costs);
        // Overload estimators come first (cel-go consults them before the Kubernetes estimator).
        if let Some(mut call) = lists::lists_cost(id, overload, target, args) {
            call.cost += args_sum;
            return call;
        }
        if let Some(mut call) = self.kubernetes_cost(function, id, target, args) {
            call.cost += args_sum;
            return call;
        }
        let unknown = |a: &Arg<'_>| a.size.unwrap_or_else(Estimate::unknown);
        let fixed = |cost: Estimate| CallEstimate { cost, size: None };
        match id {
            "string_format" if target.is_some() && !args.is_empty() => {
                let target_size = unknown(target.unwrap_or(&args[0]));
                let size = target_size + unknown(&args[0]);
                return CallEstimate { cost: target_size.times(STRING_TRAVERSAL_COST_FACTOR) + args_sum, size: Some(size) };
            }
            "string_to_bytes" if args.len() == 1 => {
                let sz = unknown(&args[0]);
                let size = Estimate { min: sz.min, max: sz.max.saturating_mul(4) };
                return CallEstimate { cost: sz.times(STRING_TRAVERSAL_COST_FACTOR) + args_sum, size: Some(size) };
            }
            "bytes_to_string" if args.len() == 1 => {
                let sz = unknown(&args[0]);
                let size = Estimate { min: sz.min / 4, max: sz.max };
                return CallEstimate { cost: sz.times(STRING_TRAVERSAL_COST_FACTOR) + args_sum, size: Some(size) };
            }
            "strings_quote" if args.len() == 1 => {
                let sz = unknown(&args[0]);
                let size = Estimate { min: sz.min.saturating_add(2), max: sz.max.saturating_mul(2).saturating_add(2) };
                return CallEstimate { cost: sz.times(STRING_TRAVERSAL_COST_FACTOR) + args_sum, size: Some(size) };
            }
            "starts_with_string" | "ends_with_string" if args.len() == 1 => {
                return fixed(unknown(&args[0]).times(STRING_TRAVERSAL_COST_FACTOR) + args_sum);
            }
            "in_list" if args.len() == 2 => return fixed(unknown(&args[1]).times(1.0) + args_sum),
            "matches_string" if target.is_some() && args.len() == 1 || self.global_matches && target.is_none() && args.len() == 2 => {
                let (string, regex) = match target {
                    Some(target) => (target, &args[0]),
                    None => (&args[0], &args[1]),
                };
                let str_cost = (unknown(string) + Estimate::fixed(1)).times(STRING_TRAVERSAL_COST_FACTOR);
                let regex_cost = unknown(regex).times(REGEX_STRING_LENGTH_COST_FACTOR);
                return fixed(str_cost.multiply(regex_cost) + args_sum);
            }
            "contains_string" if target.is_some() && args.len() == 1 => {
                let target = target.unwrap_or(&args[0]);
                let str_cost = unknown(target).times(STRING_TRAVERSAL_COST_FACTOR);
                let sub_cost = unknown(&args[0]).times(STRING_TRAVERSAL_COST_FACTOR);
                return fixed(str_cost.multiply(sub_cost) + args_sum);
            }
            "logical_and" | "logical_or" => {
                let (lhs, rhs) = (arg_costs[0], arg_costs[1]);
                return fixed(Estimate { min: lhs.min, max: lhs.max.saturating_add(rhs.max) });
            }
            "conditional" => {
                let size = unknown(&args[1]).union(unknown(&args[2]));
                let entry = union_entries(self.entry_size(args[1].expr), self.entry_size(args[2].expr));
                if let Some(entry) = entry {
                    self.entries.insert(e.id, entry);
                }
                return CallEstimate { cost: arg_costs[0] + arg_costs[1].union(arg_costs[2]), size: Some(size) };
            }
            "add_string" | "add_bytes" | "add_list" if args.len() == 2 => {
                let size = unknown(&args[0]) + unknown(&args[1]);
                let entry = union_entries(self.entry_size(args[0].expr), self.entry_size(args[1].expr));
                if let Some(entry) = entry {
                    self.entries.insert(e.id, entry);
                }
                let cost =
                    if id == "add_list" { Estimate::fixed(1) + args_sum } else { size.times(STRING_TRAVERSAL_COST_FACTOR) + args_sum };
                return CallEstimate { cost, size: Some(size) };
            }
            "compare_string" | "compare_bytes" | "equals" | "not_equals" if args.len() == 2 => {
                let (lhs, rhs) = (unknown(&args[0]), unknown(&args[1]));
                let smallest_max = lhs.max.min(rhs.max);
                let min = u64::from(smallest_max > 0);
                return fixed(Estimate { min, max: smallest_max }.times(STRING_TRAVERSAL_COST_FACTOR) + args_sum);
            }
            _ => {}
        }
        fixed(Estimate::fixed(1) + args_sum)
    }

    /// An argument's size as the Kubernetes estimator sees it: its computed size, else the size at its path.
    fn arg_size(&self, a: &Arg<'_>) -> Estimate {
        if let Some(size) = a.size {
            return size;
        }
        a.path.as_ref().and_then(|p| self.sizes.estimate_size(p)).unwrap_or_else(Estimate::unknown)
    }
}

#[derive(Clone, Copy)]
enum Iter {
    Single,
    Key,
    Value,
}

/// The variable the cel crate binds an `optMap`/`optFlatMap` target to.
const OPTIONAL_TARGET: &str = "@target";

fn sum(costs: &[Estimate]) -> Estimate {
    costs.iter().fold(Estimate::default(), |acc, c| acc + *c)
}

fn literal_size(e: &IdedExpr) -> Option<Estimate> {
    let n = match &e.expr {
        Expr::Literal(LiteralValue::String(s)) => s.chars().count() as u64,
        Expr::Literal(LiteralValue::Bytes(b)) => b.len() as u64,
        Expr::Literal(_) => 1,
        Expr::List(l) => l.elements.len() as u64,
        Expr::Map(m) => m.entries.len() as u64,
        _ => return None,
    };
    Some(Estimate::fixed(n))
}

fn is_scalar(t: &Type) -> bool {
    match t {
        Type::Bool | Type::Double | Type::Duration | Type::Int | Type::Timestamp | Type::Uint => true,
        Type::Optional(inner) => is_scalar(inner),
        _ => false,
    }
}

/// The cel-go overload id a declaration corresponds to, for the overloads the estimator prices
/// specially ("other" for the rest).
fn overload_id(function: &str, overload: &Overload) -> &'static str {
    let first = overload.params.first();
    match (function, first) {
        ("_&&_", _) => "logical_and",
        ("_||_", _) => "logical_or",
        ("_?_:_", _) => "conditional",
        ("_+_", Some(Type::String)) => "add_string",
        ("_+_", Some(Type::Bytes)) => "add_bytes",
        ("_+_", Some(Type::List(_))) => "add_list",
        ("_==_", _) => "equals",
        ("_!=_", _) => "not_equals",
        ("_<_" | "_<=_" | "_>_" | "_>=_", Some(Type::String)) => "compare_string",
        ("_<_" | "_<=_" | "_>_" | "_>=_", Some(Type::Bytes)) => "compare_bytes",
        ("@in", _) if matches!(overload.params.get(1), Some(Type::List(_))) => "in_list",
        ("matches", _) => "matches_string",
        ("contains", _) => "contains_string",
        ("startsWith", _) => "starts_with_string",
        ("endsWith", _) => "ends_with_string",
        ("bytes", Some(Type::String)) => "string_to_bytes",
        ("string", Some(Type::Bytes)) => "bytes_to_string",
        ("strings.quote", _) => "strings_quote",
        ("format", _) => "string_format",
        ("_[_]", Some(Type::List(_))) => "index_list",
        ("_[_]", Some(Type::Map(..))) => "index_map",
        ("ip", Some(Type::Opaque(Opaque::Cidr))) => "cidr_ip",
        ("containsIP", _) if overload.params.get(1) == Some(&Type::String) => "cidr_contains_ip_string",
        ("containsCIDR", _) if overload.params.get(1) == Some(&Type::String) => "cidr_contains_cidr_string",
        ("slice", _) => "list_slice",
        ("flatten", _) if overload.params.len() == 1 => "list_flatten",
        ("flatten", _) => "list_flatten_int",
        ("lists.range", _) => "lists_range",
        ("reverse", _) => "list_reverse",
        ("distinct", _) => "list_distinct",
        // cel-go names one overload per element type (`list_int_sort`); the estimate reads the type.
        ("sort", _) => "list_sort",
        ("@sortByAssociatedKeys", _) => "list_sort_by_associated_keys",
        _ => "other",
    }
}

mod kubernetes;
mod lists;
#[cfg(test)]
mod tests;
