//! The cost estimates cel-go's lists extension registers for its overloads (version 3, consulted
//! before the Kubernetes estimator): each call costs one plus a list's creation plus the size of the
//! list it makes times a factor; `distinct`, `sort` and `sortBy` make (for the estimate) a list of the
//! square of their input's size, compared twice (2.1 times for strings and bytes).

use cel::common::ast::{Expr, IdedExpr, LiteralValue};

use super::{Arg, CallEstimate, Estimate, LIST_CREATE_BASE_COST, STRING_TRAVERSAL_COST_FACTOR};
use crate::decls::Overload;
use crate::types::Type;

/// The estimate for one of the extension's overloads, by cel-go's overload id; `None` for the rest.
pub(super) fn lists_cost(id: &str, overload: &Overload, target: Option<&Arg<'_>>, args: &[Arg<'_>]) -> Option<CallEstimate> {
    let size = |a: &Arg<'_>| a.size.unwrap_or_else(Estimate::unknown);
    match id {
        "list_slice" if args.len() == 2 => {
            let list = size(target?);
            let start = literal_size(args[0].expr, 0);
            let end = literal_size(args[1].expr, list.max);
            // Go's unsigned subtraction: a start past the end wraps around.
            Some(allocating(1.0, Estimate::fixed(end.wrapping_sub(start))))
        }
        "lists_range" if target.is_none() && args.len() == 1 => {
            Some(allocating(1.0, Estimate::fixed(literal_size(args[0].expr, u64::MAX))))
        }
        "list_reverse" if args.is_empty() => Some(allocating(1.0, size(target?))),
        "list_flatten" | "list_flatten_int" if args.len() <= 1 => {
            let depth = args.first().map_or(1, |a| literal_size(a.expr, u64::MAX));
            Some(allocating(depth as f64, size(target?)))
        }
        "list_distinct" if args.is_empty() => {
            let list = size(target?);
            Some(allocating(2.0, list.multiply(list)))
        }
        "list_sort" if args.is_empty() => Some(sort_cost(size(target?), overload.params.first())),
        "list_sort_by_associated_keys" if args.len() == 1 => {
            target?;
            Some(sort_cost(size(&args[0]), overload.params.get(1)))
        }
        _ => None,
    }
}

/// A literal int argument as a size (negative ones as 0); `default` for anything else.
fn literal_size(e: &IdedExpr, default: u64) -> u64 {
    match &e.expr {
        Expr::Literal(LiteralValue::Int(n)) => u64::try_from(**n).unwrap_or(0),
        _ => default,
    }
}

/// Comparing every element of a list with every other, twice, the elements of `list`'s type.
fn sort_cost(list: Estimate, list_type: Option<&Type>) -> CallEstimate {
    let mut factor = 2.0;
    if let Some(Type::List(element)) = list_type {
        if matches!(**element, Type::String | Type::Bytes) {
            factor += STRING_TRAVERSAL_COST_FACTOR;
        }
    }
    allocating(factor, list.multiply(list))
}

/// A call that makes a list of `size` elements at `factor` each, plus the call and the allocation.
fn allocating(factor: f64, size: Estimate) -> CallEstimate {
    CallEstimate { cost: size.times(factor) + Estimate::fixed(1) + Estimate::fixed(LIST_CREATE_BASE_COST), size: Some(size) }
}
