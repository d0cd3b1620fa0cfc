//! The costs of a CRD's rules as the API server estimates them, and how they are printed: the
//! per-rule and per-CRD limits, the API server's words for a cost over one, and the figures `crdls
//! cost` shows.

use crdls_crd::cel::Unbounded;
use crdls_diagnostics::TextRange;

/// The rules' costs of one schema (a version's, or the one all versions share).
#[derive(Clone, Debug)]
pub struct SchemaCost {
    /// `spec.versions[0].schema.openAPIV3Schema`, or `spec.validation.openAPIV3Schema` when shared.
    pub path: String,
    /// The versions it applies to.
    pub versions: Vec<String>,
    /// The sum of its rules' and message expressions' costs (each with its cardinality).
    pub total: u64,
    /// Where the schema starts.
    pub range: TextRange,
    /// Every rule and message expression, in document order.
    pub rules: Vec<RuleCost>,
}

/// The estimated cost of one rule (or message expression).
#[derive(Clone, Debug)]
pub struct RuleCost {
    /// The API server's path of the expression (`...x-kubernetes-validations[0].rule`).
    pub path: String,
    /// The path of the schema node that declares it.
    pub node_path: String,
    /// The expression.
    pub expression: String,
    /// The expression string in the document.
    pub range: TextRange,
    /// Whether this is a `messageExpression` (charged once, without cardinality).
    pub message_expression: bool,
    /// The estimated cost of one evaluation.
    pub cost: u64,
    /// How many times it can run per object: the product of the bounds of the lists and maps above,
    /// or what fits in a request when one of them is unbounded.
    pub cardinality: u64,
    /// `cost × cardinality`, what the limit applies to.
    pub total: u64,
    /// The unbounded lists, maps and strings behind the cost (only when asked for).
    pub drivers: Vec<CostDriver>,
}

/// A schema node whose missing bound makes a rule expensive.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct CostDriver {
    /// Its path (`spec.versions[0].schema.openAPIV3Schema.properties[spec].properties[hosts]`).
    pub path: String,
    /// The schema node (its mapping) in the document.
    pub range: TextRange,
    /// The bound it lacks.
    pub kind: Unbounded,
    /// Whether it multiplies how often the rule runs (a list or map above the rule), rather than
    /// how much one run costs.
    pub cardinality: bool,
}

/// The estimated cost one rule may have, cardinality included (`StaticEstimatedCostLimit`).
pub const PER_EXPRESSION_LIMIT: u64 = 10_000_000;
/// The estimated cost all rules of one version's schema may have together (`StaticEstimatedCRDCostLimit`).
pub const PER_CRD_LIMIT: u64 = 100_000_000;

/// The API server's text for a cost over a limit.
pub fn cost_error(what: &str, cost: u64, limit: u64) -> String {
    format!(
        "{what} exceeds budget by factor of {} (try simplifying the rule, or adding maxItems, maxProperties, and maxLength where arrays, maps, and strings are declared)",
        factor_text(cost, limit)
    )
}

/// `more than 100x`, `1.200000x` (under 1.5) or `3.4x`, as the API server prints the factor.
pub fn factor_text(cost: u64, limit: u64) -> String {
    let factor = cost as f64 / limit as f64;
    if factor > 100.0 {
        "more than 100x".into()
    } else if factor < 1.5 {
        format!("{factor:.6}x")
    } else {
        format!("{factor:.1}x")
    }
}

/// A schema path as a user reads it: `.spec.hosts[*]` for
/// `...openAPIV3Schema.properties[spec].properties[hosts].items`.
pub fn short_path(path: &str) -> String {
    let rest = path.split_once("openAPIV3Schema").map_or(path, |(_, r)| r);
    let mut out = String::new();
    let mut rest = rest;
    while !rest.is_empty() {
        rest = rest.strip_prefix('.').unwrap_or(rest);
        if let Some(r) = rest.strip_prefix("properties[") {
            let end = r.find(']').unwrap_or(r.len());
            out.push('.');
            out.push_str(&r[..end]);
            rest = r.get(end + 1..).unwrap_or_default();
        } else if let Some(r) = rest.strip_prefix("items") {
            out.push_str("[*]");
            rest = r;
        } else if let Some(r) = rest.strip_prefix("additionalProperties") {
            out.push_str("{*}");
            rest = r;
        } else {
            out.push('.');
            out.push_str(rest);
            break;
        }
    }
    if out.is_empty() {
        ".".into()
    } else {
        out
    }
}

/// A number with thousands separators, for messages.
pub fn thousands(n: u64) -> String {
    let digits = n.to_string();
    let mut out = String::new();
    for (i, c) in digits.chars().enumerate() {
        if i > 0 && (digits.len() - i).is_multiple_of(3) {
            out.push(',');
        }
        out.push(c);
    }
    out
}
