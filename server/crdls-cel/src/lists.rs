//! cel-go's lists extension at run time (version 3, in the Kubernetes environment since 1.34):
//! `distinct`, `flatten`, `lists.range`, `reverse`, `slice`, `sort`, and `@sortByAssociatedKeys`, which
//! the `sortBy` macro expands to; with cel-go's error texts, and the cost cel-go's trackers charge.

use std::cmp::Ordering;
use std::sync::Arc;

use crate::eval::{ErrorKind, EvalError, Outcome};
use crate::value::{List, Value};

/// What creating a list costs, beyond the call.
const LIST_CREATE_BASE_COST: u64 = 10;

/// Whether `name` is a function of the lists extension.
pub(crate) fn is_lists_function(name: &str) -> bool {
    matches!(name, "slice" | "flatten" | "distinct" | "reverse" | "sort" | "@sortByAssociatedKeys" | "lists.range")
}

/// Calls a function of the lists extension (the receiver first).
pub(crate) fn call(name: &str, args: &[Value]) -> Outcome {
    use Value::{Int, List as L};
    match (name, args) {
        ("slice", [L(list), Int(start), Int(end)]) => slice(list, *start, *end),
        ("flatten", [receiver]) => flatten_call(receiver, 1, "()"),
        ("flatten", [receiver, Int(depth)]) => flatten_call(receiver, *depth, "(int)"),
        // cel-go declares `flatten` without type guards: its own check words the error.
        ("flatten", [receiver, depth]) => Err(no_such_overload(format!("{}.flatten({})", receiver.type_name(), depth.type_name()))),
        ("distinct", [L(list)]) => Ok(distinct(&args[0], list)),
        ("reverse", [L(list)]) => Ok(Value::list(list.items.iter().rev().cloned().collect())),
        ("sort", [L(list)]) => sort_by_keys(&args[0], list, list),
        ("@sortByAssociatedKeys", [L(list), L(keys)]) => sort_by_keys(&args[0], list, keys),
        ("lists.range", [Int(n)]) => Ok(Value::list((0..*n).map(Int).collect())),
        _ => Err(EvalError::no_overload()),
    }
}

/// What cel-go's cost tracker charges for a call of the extension beyond the 1 every call costs:
/// the size of the list made (times the depth for `flatten`), or twice the square of the size of the
/// list compared against itself (`distinct`, `sort`, `sortBy`'s keys; 2.1 times for strings and
/// bytes), plus the list's creation. Computed from the arguments, so it is charged before the work,
/// and a call that would pass the limit never runs: the outcome is the same as cel-go's, which
/// charges after the call and then stops.
pub(crate) fn extra_cost(name: &str, args: &[Value]) -> Option<u64> {
    use Value::{Int, List as L};
    let made = |size: u64, factor: f64| ((size as f64) * factor) as u64;
    let size = match (name, args) {
        // An error is a value of size one.
        ("slice", [L(list), Int(start), Int(end)]) => match slice_range(list, *start, *end) {
            Ok((start, end)) => (end - start) as u64,
            Err(_) => 1,
        },
        ("lists.range", [Int(n)]) => (*n).max(0) as u64,
        ("reverse", [L(list)]) => list.items.len() as u64,
        ("flatten", [receiver]) => made(actual_size(receiver), 1.0),
        // A negative depth fails; its product is no cost (Go's conversion of a negative product is
        // the platform's: 0 on arm64, a wrapped number on amd64).
        ("flatten", [receiver, Int(depth)]) => made(actual_size(receiver), *depth as f64),
        ("distinct" | "sort", [L(list)]) => self_comparison(list),
        ("@sortByAssociatedKeys", [_, L(keys)]) => self_comparison(keys),
        _ => return None,
    };
    Some(size.saturating_add(LIST_CREATE_BASE_COST))
}

/// The size cel-go's cost tracker sees: the length of a list, map, string or bytes, else one.
fn actual_size(value: &Value) -> u64 {
    match value {
        Value::List(l) => l.items.len() as u64,
        Value::Map(m) => m.entries.len() as u64,
        Value::String(s) => s.chars().count() as u64,
        Value::Bytes(b) => b.len() as u64,
        _ => 1,
    }
}

/// Every element against every other, twice; a tenth more when the elements are strings or bytes.
fn self_comparison(list: &List) -> u64 {
    let n = list.items.len() as u64;
    let factor = match list.items.first() {
        Some(Value::String(_) | Value::Bytes(_)) => 2.1,
        _ => 2.0,
    };
    (n.saturating_mul(n) as f64 * factor) as u64
}

fn no_such_overload(call: String) -> EvalError {
    EvalError { kind: ErrorKind::NoSuchOverload, message: format!("no such overload: {call}") }
}

/// The bounds of `list.slice(start, end)`, or cel-go's complaint about them.
fn slice_range(list: &List, start: i64, end: i64) -> Result<(usize, usize), String> {
    if start < 0 || end < 0 {
        return Err(format!("cannot slice({start}, {end}), negative indexes not supported"));
    }
    if start > end {
        return Err(format!("cannot slice({start}, {end}), start index must be less than or equal to end index"));
    }
    let length = list.items.len();
    if end as u64 > length as u64 {
        return Err(format!("cannot slice({start}, {end}), list is length {length}"));
    }
    Ok((start as usize, end as usize))
}

fn slice(list: &List, start: i64, end: i64) -> Outcome {
    let (start, end) = slice_range(list, start, end)?;
    Ok(Value::list(list.items[start..end].to_vec()))
}

fn flatten_call(receiver: &Value, depth: i64, shape: &str) -> Outcome {
    let Value::List(list) = receiver else {
        return Err(no_such_overload(format!("{}.flatten{shape}", receiver.type_name())));
    };
    if depth < 0 {
        return Err(EvalError::runtime("level must be non-negative"));
    }
    let mut out = Vec::new();
    flatten(list, depth, &mut out);
    Ok(Value::list(out))
}

/// The items of `list`, those that are lists replaced by their items down to `depth` levels.
fn flatten(list: &List, depth: i64, out: &mut Vec<Value>) {
    for item in &list.items {
        match item {
            Value::List(inner) if depth > 0 => flatten(inner, depth - 1, out),
            other => out.push(other.clone()),
        }
    }
}

/// The first of each group of equal elements (CEL equality: `1`, `1u` and `1.0` are one), in order.
fn distinct(value: &Value, list: &List) -> Value {
    if list.items.is_empty() {
        return value.clone();
    }
    let mut unique: Vec<Value> = Vec::with_capacity(list.items.len());
    for item in &list.items {
        if !unique.iter().any(|seen| item.equals(seen)) {
            unique.push(item.clone());
        }
    }
    Value::list(unique)
}

/// Whether cel-go orders values of this type (`traits.Comparer`).
fn comparable(value: &Value) -> bool {
    matches!(
        value,
        Value::Int(_)
            | Value::Uint(_)
            | Value::Double(_)
            | Value::Bool(_)
            | Value::String(_)
            | Value::Bytes(_)
            | Value::Duration(_)
            | Value::Timestamp(_)
    )
}

/// `list` in the order that sorting `keys` gives, as cel-go sorts: the keys must all be of the
/// first one's type, which must be ordered; Go's unstable `sort.Slice` decides where equal keys go
/// (and NaN is never less than anything).
fn sort_by_keys(value: &Value, list: &List, keys: &List) -> Outcome {
    let (length, key_count) = (list.items.len(), keys.items.len());
    if length != key_count {
        return Err(EvalError::runtime(format!(
            "@sortByAssociatedKeys() expected a list of the same size as the associated keys list, but got {length} and {key_count} elements respectively"
        )));
    }
    let Some(first) = keys.items.first() else { return Ok(value.clone()) };
    if !comparable(first) {
        return Err(EvalError::runtime("list elements must be comparable"));
    }
    // Go's sort compares every element at least once when there are two or more, so a key of
    // another type always ends the sort with this error.
    if length > 1 && keys.items.iter().any(|k| std::mem::discriminant(k) != std::mem::discriminant(first)) {
        return Err(EvalError::runtime("list elements must have the same type"));
    }
    let mut order: Vec<usize> = (0..length).collect();
    crdls_go::sort::sort_slice(&mut order, |&i, &j| keys.items[i].compare(&keys.items[j]) == Some(Ordering::Less));
    Ok(Value::List(Arc::new(List { items: order.into_iter().map(|i| list.items[i].clone()).collect(), kind: Default::default() })))
}
