//! The Kubernetes library's cost estimator (`k8s.io/apiserver/pkg/cel/library`), which the API server
//! consults before cel-go's own rules: the costs of the list, string, regex, URL, IP, CIDR, quantity,
//! semver and format functions, by their arguments' sizes.

use super::{Arg, CallEstimate, Coster, Estimate, REGEX_STRING_LENGTH_COST_FACTOR, STRING_TRAVERSAL_COST_FACTOR};
use cel::common::ast::{Expr, LiteralValue};

/// apiserver's `cel.MaxNameFormatRegexSize`: the size the estimator assumes for a named format's expression.
const MAX_NAME_FORMAT_REGEX_SIZE: f64 = 128.0;

use crate::types::{Opaque, Type};

impl Coster<'_> {
    /// The Kubernetes cost estimator (`k8s.io/apiserver/pkg/cel/library`), consulted before cel-go's own
    /// rules; `None` leaves the call to them.
    pub(super) fn kubernetes_cost(&self, function: &str, id: &str, target: Option<&Arg<'_>>, args: &[Arg<'_>]) -> Option<CallEstimate> {
        let size = |a: &Arg<'_>| self.arg_size(a);
        let fixed = |n: u64| Some(CallEstimate { cost: Estimate::fixed(n), size: None });
        match function {
            "isSorted" | "sum" | "max" | "min" | "indexOf" | "lastIndexOf" | "includes" => {
                let target = target?;
                match &target.ty {
                    Type::List(elem) => {
                        let mut element = Estimate::fixed(1);
                        if matches!(**elem, Type::String | Type::Bytes) {
                            let elem_size = target.path.as_ref().and_then(|p| {
                                let mut p = p.clone();
                                p.push("@items".into());
                                self.sizes.estimate_size(&p)
                            });
                            element += elem_size.unwrap_or_else(Estimate::unknown).times(STRING_TRAVERSAL_COST_FACTOR);
                        }
                        Some(CallEstimate { cost: size(target).multiply(element), size: None })
                    }
                    // `includes` on what may be a list: one comparison per element at worst.
                    _ if function == "includes" => Some(CallEstimate { cost: size(target).multiply(Estimate::fixed(1)), size: None }),
                    _ => Some(CallEstimate { cost: size(target).times(STRING_TRAVERSAL_COST_FACTOR), size: None }),
                }
            }
            "url" if args.len() == 1 => Some(CallEstimate { cost: size(&args[0]).times(STRING_TRAVERSAL_COST_FACTOR), size: None }),
            "lowerAscii" | "upperAscii" | "substring" | "trim" => {
                let sz = size(target?);
                Some(CallEstimate { cost: sz.times(STRING_TRAVERSAL_COST_FACTOR), size: Some(sz) })
            }
            "replace" if args.len() >= 2 => {
                let sz = size(target?);
                let (to_replace, replace_with) = (size(&args[0]), size(&args[1]));
                let (mut count, mut retained) = (Estimate::default(), Estimate::default());
                if to_replace.min == 0 {
                    count.max = if sz.max < u64::MAX { sz.max + 1 } else { sz.max };
                    retained.max = sz.max;
                } else if replace_with.max <= to_replace.min {
                    count.max = 0;
                    retained.max = sz.max;
                } else {
                    count.max = (sz.max as f64 / to_replace.min as f64).ceil() as u64;
                }
                if to_replace.max == 0 {
                    count.min = if sz.min < u64::MAX { sz.min + 1 } else { sz.min };
                    retained.min = sz.min;
                } else if to_replace.max <= replace_with.min {
                    count.min = 0;
                    retained.min = sz.min;
                } else {
                    count.min = (sz.min as f64 / to_replace.max as f64).ceil() as u64;
                }
                let result = count.multiply(replace_with) + retained;
                Some(CallEstimate { cost: sz.times(2.0 * STRING_TRAVERSAL_COST_FACTOR), size: Some(result) })
            }
            "split" => {
                let sz = size(target?);
                let mut max = sz.max;
                if args.len() > 1 {
                    if let Expr::Literal(LiteralValue::Int(n)) = &args[1].expr.expr {
                        max = u64::try_from(**n).unwrap_or(0);
                    }
                }
                Some(CallEstimate { cost: sz.times(2.0 * STRING_TRAVERSAL_COST_FACTOR), size: Some(Estimate { min: 0, max }) })
            }
            "join" => {
                let target = target?;
                let list = size(target);
                let mut sz = Estimate::default();
                if matches!(target.ty, Type::List(_)) {
                    let elem = target
                        .path
                        .as_ref()
                        .and_then(|p| {
                            let mut p = p.clone();
                            p.push("@items".into());
                            self.sizes.estimate_size(&p)
                        })
                        .unwrap_or_else(Estimate::unknown);
                    sz = list.multiply(elem);
                }
                if let Some(sep) = args.first() {
                    let separators = Estimate { min: list.min.saturating_sub(1), max: list.max.saturating_sub(1) };
                    sz += size(sep).multiply(separators);
                }
                Some(CallEstimate { cost: sz.times(STRING_TRAVERSAL_COST_FACTOR), size: Some(sz) })
            }
            "find" | "findAll" if !args.is_empty() => {
                let sz = size(target?);
                let str_cost = (sz + Estimate::fixed(1)).times(STRING_TRAVERSAL_COST_FACTOR);
                let regex_cost = size(&args[0]).times(REGEX_STRING_LENGTH_COST_FACTOR);
                Some(CallEstimate { cost: str_cost.multiply(regex_cost), size: Some(Estimate { min: 0, max: sz.max }) })
            }
            "cidr" | "isIP" | "isCIDR" | "quantity" | "isQuantity" | "semver" | "isSemver" if !args.is_empty() => {
                Some(CallEstimate { cost: size(&args[0]).times(STRING_TRAVERSAL_COST_FACTOR), size: None })
            }
            // A named format's validate() runs a regular expression of unknown size: upstream prices it
            // by the string's size times the longest name-format expression (128 characters).
            "validate" if !args.is_empty() => Some(CallEstimate {
                cost: size(&args[0])
                    .times(STRING_TRAVERSAL_COST_FACTOR)
                    .times(MAX_NAME_FORMAT_REGEX_SIZE * REGEX_STRING_LENGTH_COST_FACTOR),
                size: None,
            }),
            "ip" if id == "cidr_ip" => fixed(1),
            "ip" if !args.is_empty() => Some(CallEstimate { cost: size(&args[0]).times(STRING_TRAVERSAL_COST_FACTOR), size: None }),
            "ip.isCanonical" if !args.is_empty() => {
                Some(CallEstimate { cost: size(&args[0]).times(2.0 * STRING_TRAVERSAL_COST_FACTOR), size: None })
            }
            "_==_" if args.len() == 2 && args[0].ty == args[1].ty => match &args[0].ty {
                Type::Opaque(Opaque::Ip | Opaque::Cidr | Opaque::Quantity | Opaque::Semver) => fixed(1),
                Type::Opaque(Opaque::Format) => {
                    Some(CallEstimate { cost: Estimate { min: 1, max: 64 }.times(STRING_TRAVERSAL_COST_FACTOR), size: None })
                }
                // Upstream sizes a URL comparison by the right operand only.
                Type::Opaque(Opaque::Url) => {
                    let rhs = args[1].size.unwrap_or(Estimate::fixed(1));
                    Some(CallEstimate { cost: Estimate { min: 1, max: rhs.max }.times(STRING_TRAVERSAL_COST_FACTOR), size: None })
                }
                _ => None,
            },
            "masked" | "prefixLength" | "family" | "isUnspecified" | "isLoopback" | "isLinkLocalMulticast" | "isLinkLocalUnicast" => {
                fixed(1)
            }
            "containsIP" if !args.is_empty() => {
                let ip = Estimate { min: 4, max: 16 };
                let mut cost = (ip + ip).times(STRING_TRAVERSAL_COST_FACTOR);
                if id == "cidr_contains_ip_string" {
                    cost += size(&args[0]).times(STRING_TRAVERSAL_COST_FACTOR);
                }
                Some(CallEstimate { cost, size: None })
            }
            "containsCIDR" if !args.is_empty() => {
                let ip = Estimate { min: 4, max: 16 };
                let mut cost = (ip + ip).times(STRING_TRAVERSAL_COST_FACTOR);
                cost += ip.times(STRING_TRAVERSAL_COST_FACTOR) + Estimate::fixed(1);
                if id == "cidr_contains_cidr_string" {
                    cost += size(&args[0]).times(STRING_TRAVERSAL_COST_FACTOR);
                }
                Some(CallEstimate { cost, size: None })
            }
            "sign" | "asInteger" | "isInteger" | "asApproximateFloat" | "isGreaterThan" | "isLessThan" | "compareTo" | "add" | "sub" => {
                fixed(1)
            }
            _ => None,
        }
    }
}
