//! A PodDisruptionBudget's spec: `minAvailable` or `maxUnavailable`, not both; each a number no less
//! than 0 or a percentage (`[0-9]+%`) of at most 100%; and an unhealthy-pod eviction policy the API
//! server knows.

use crdls_diagnostics::codes;
use crdls_yaml::{Node, Value};

use super::{error, supported, Found, Target};
use crate::field_error::ErrorType;
use crate::gofmt;

/// The unhealthy-pod eviction policies, in the API server's (sorted) order.
const EVICTION_POLICIES: &[&str] = &["AlwaysAllow", "IfHealthyBudget"];

/// The API server's words for a string that is no percentage (apimachinery's `IsValidPercent`).
const NOT_A_PERCENT: &str = "a valid percent string must be a numeric string followed by an ending '%' (e.g. '1%',  or '93%', regex used for validation is '[0-9]+%')";

/// Validates the PodDisruptionBudget spec `spec`.
pub(super) fn validate_disruption_budget_spec(spec: &Node, target: Target<'_>, out: &mut Vec<Found>) {
    let set = |key: &str| spec.entry(key).filter(|e| e.value.value != Value::Null);
    let (min, max) = (set("minAvailable"), set("maxUnavailable"));
    if let (Some(_), Some(second)) = (min, max) {
        // From 1.34 the spec is printed as the JSON of its internal Go struct; before, Go printed its
        // pointers' addresses, which nothing can reproduce, so no value is shown.
        let value = target.prints_json().then(|| spec_json(spec));
        out.push(Found::field(
            error(ErrorType::Invalid, "spec", value, "minAvailable and maxUnavailable cannot be both set"),
            second.key_range,
            codes::NATIVE_DISRUPTION_BUDGET,
            "a PodDisruptionBudget sets minAvailable or maxUnavailable, not both",
        ));
    }
    for entry in [min, max].into_iter().flatten() {
        let path = format!("spec.{}", entry.key);
        let node = &entry.value;
        match &node.value {
            Value::Int(n) if *n < 0 => out.push(Found::field(
                error(ErrorType::Invalid, path, Some(n.to_string()), "must be greater than or equal to 0"),
                node.range,
                codes::NATIVE_DISRUPTION_BUDGET,
                format!("{} must not be negative", entry.key),
            )),
            Value::Str(text) => {
                let digits = text.strip_suffix('%').filter(|d| !d.is_empty() && d.bytes().all(|b| b.is_ascii_digit()));
                let printed = |target: Target<'_>| if target.prints_json() { gofmt::quote(text) } else { text.clone() };
                match digits {
                    None => out.push(Found::field(
                        error(ErrorType::Invalid, path, Some(printed(target)), NOT_A_PERCENT),
                        node.range,
                        codes::NATIVE_DISRUPTION_BUDGET,
                        format!("{} {text:?} is neither a number nor a percentage such as \"50%\"", entry.key),
                    )),
                    // Go reads the digits with `strconv.Atoi`; digits past an int's range are no
                    // number to it, and pass.
                    Some(digits) if digits.parse::<u64>().is_ok_and(|p| p > 100) => out.push(Found::field(
                        error(ErrorType::Invalid, path, Some(printed(target)), "must not be greater than 100%"),
                        node.range,
                        codes::NATIVE_DISRUPTION_BUDGET,
                        format!("{} {text:?} is more than 100%", entry.key),
                    )),
                    Some(_) => {}
                }
            }
            _ => {}
        }
    }
    if let Some(node) = spec.get("unhealthyPodEvictionPolicy") {
        if let Some(policy) = node.as_str().filter(|p| !EVICTION_POLICIES.contains(p)) {
            if target.minor >= 27 {
                out.push(Found::field(
                    error(
                        ErrorType::NotSupported,
                        "spec.unhealthyPodEvictionPolicy",
                        Some(gofmt::quote(policy)),
                        supported(EVICTION_POLICIES),
                    ),
                    node.range,
                    codes::NATIVE_DISRUPTION_BUDGET,
                    format!("unhealthyPodEvictionPolicy {policy:?} is not one the API server knows: AlwaysAllow or IfHealthyBudget"),
                ));
            }
        }
    }
}

/// The JSON of the internal Go struct the API server validates (`policy.PodDisruptionBudgetSpec`, its
/// fields without JSON names): `{"MinAvailable":1,"Selector":{…},"MaxUnavailable":"50%","UnhealthyPodEvictionPolicy":null}`.
fn spec_json(spec: &Node) -> String {
    let field = |key: &str| spec.get(key).map_or_else(|| "null".to_string(), gofmt::json);
    let selector = spec.get("selector").filter(|s| s.value != Value::Null).map_or_else(|| "null".to_string(), selector_json);
    format!(
        "{{\"MinAvailable\":{},\"Selector\":{selector},\"MaxUnavailable\":{},\"UnhealthyPodEvictionPolicy\":{}}}",
        field("minAvailable"),
        field("maxUnavailable"),
        field("unhealthyPodEvictionPolicy")
    )
}

/// The JSON of a `metav1.LabelSelector`: its fields in the struct's order, empty ones left out.
fn selector_json(selector: &Node) -> String {
    let mut fields = Vec::new();
    if let Some(labels) = selector.get("matchLabels").filter(|l| l.as_map().is_some_and(|m| !m.is_empty())) {
        fields.push(format!("\"matchLabels\":{}", gofmt::json(labels)));
    }
    if let Some(expressions) = selector.get("matchExpressions").and_then(Node::as_seq).filter(|e| !e.is_empty()) {
        let items: Vec<String> = expressions
            .iter()
            .map(|item| {
                let mut parts = Vec::new();
                for key in ["key", "operator"] {
                    parts.push(format!("\"{key}\":{}", item.get(key).map_or_else(|| "\"\"".to_string(), gofmt::json)));
                }
                if let Some(values) = item.get("values").filter(|v| v.as_seq().is_some_and(|s| !s.is_empty())) {
                    parts.push(format!("\"values\":{}", gofmt::json(values)));
                }
                format!("{{{}}}", parts.join(","))
            })
            .collect();
        fields.push(format!("\"matchExpressions\":[{}]", items.join(",")));
    }
    format!("{{{}}}", fields.join(","))
}
