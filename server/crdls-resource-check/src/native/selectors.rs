//! A workload's selector (Deployment, ReplicaSet, StatefulSet, DaemonSet): not empty, and matching the
//! labels of its pod template, or the controller would never find the pods it makes.

use crdls_diagnostics::codes;
use crdls_diagnostics::TextRange;
use crdls_yaml::{Node, Value};

use super::{error, Found, Target};
use crate::field_error::ErrorType;
use crate::gofmt;

/// Validates `spec.selector` against `spec.template.metadata.labels`.
pub(super) fn validate_workload_selector(spec: &Node, target: Target<'_>, out: &mut Vec<Found>) {
    let selector = spec.entry("selector").filter(|e| e.value.value != Value::Null);
    let template = spec.get("template");
    let labels = template.and_then(|t| t.get("metadata")).and_then(|m| m.get("labels")).filter(|l| l.value != Value::Null);
    let matches = match selector {
        // No selector selects nothing (the schema reports it missing, except for a DaemonSet).
        None => Some(false),
        Some(entry) => {
            let Value::Map(_) = entry.value.value else { return };
            match parse(&entry.value) {
                // A selector the API server cannot parse is reported by the schema or left alone.
                None => None,
                Some(requirements) if requirements.is_empty() => {
                    let what = match target.kind {
                        "StatefulSet" => "statefulset",
                        "DaemonSet" => "daemonset",
                        // ReplicaSet shares Deployment's code and its wording.
                        _ => "deployment",
                    };
                    out.push(Found::field(
                        error(
                            ErrorType::Invalid,
                            "spec.selector",
                            Some(selector_value(&entry.value, target)),
                            format!("empty selector is invalid for {what}"),
                        ),
                        entry.key_range,
                        codes::NATIVE_SELECTOR,
                        format!("the selector is empty: a {} must select its pods by at least one label", target.kind),
                    ));
                    None
                }
                Some(requirements) => Some(requirements.iter().all(|r| r.matches(labels))),
            }
        }
    };
    if matches == Some(false) {
        let range = labels
            .map(|l| l.range)
            .or_else(|| template.and_then(|t| t.entry("metadata")).map(|e| e.key_range))
            .or_else(|| spec.entry("template").map(|e| e.key_range))
            .or_else(|| selector.map(|e| e.key_range))
            .unwrap_or(TextRange::empty(spec.range.start));
        out.push(Found::field(
            error(
                ErrorType::Invalid,
                "spec.template.metadata.labels",
                Some(labels_value(labels, target)),
                "`selector` does not match template `labels`",
            ),
            range,
            codes::NATIVE_SELECTOR,
            "the pod template's labels do not match the selector, so the controller would not own its own pods",
        ));
    }
}

/// One requirement of a label selector.
enum Requirement<'n> {
    Equals(&'n str, &'n str),
    In(&'n str, Vec<&'n str>),
    NotIn(&'n str, Vec<&'n str>),
    Exists(&'n str),
    DoesNotExist(&'n str),
}

impl Requirement<'_> {
    fn matches(&self, labels: Option<&Node>) -> bool {
        let get = |key: &str| labels.and_then(|l| l.get(key)).map(label_text);
        match self {
            Requirement::Equals(key, value) => get(key).as_deref() == Some(*value),
            Requirement::In(key, values) => get(key).is_some_and(|v| values.contains(&v.as_str())),
            Requirement::NotIn(key, values) => get(key).is_none_or(|v| !values.contains(&v.as_str())),
            Requirement::Exists(key) => get(key).is_some(),
            Requirement::DoesNotExist(key) => get(key).is_none(),
        }
    }
}

/// A label's value as text (a number or boolean is a type error of its own).
fn label_text(node: &Node) -> String {
    match &node.value {
        Value::Str(s) => s.clone(),
        _ => gofmt::value(node),
    }
}

/// The requirements of a selector, or `None` when it does not parse as the API server would.
fn parse(selector: &Node) -> Option<Vec<Requirement<'_>>> {
    let mut out = Vec::new();
    if let Some(labels) = selector.get("matchLabels").filter(|l| l.value != Value::Null) {
        for entry in labels.as_map()? {
            out.push(Requirement::Equals(&entry.key, entry.value.as_str()?));
        }
    }
    if let Some(expressions) = selector.get("matchExpressions").filter(|l| l.value != Value::Null) {
        for expression in expressions.as_seq()? {
            let key = expression.get_str("key")?;
            let values: Vec<&str> = match expression.get("values") {
                Some(v) if v.value != Value::Null => v.as_seq()?.iter().map(Node::as_str).collect::<Option<_>>()?,
                _ => Vec::new(),
            };
            out.push(match expression.get_str("operator")? {
                "In" if !values.is_empty() => Requirement::In(key, values),
                "NotIn" if !values.is_empty() => Requirement::NotIn(key, values),
                "Exists" if values.is_empty() => Requirement::Exists(key),
                "DoesNotExist" if values.is_empty() => Requirement::DoesNotExist(key),
                _ => return None,
            });
        }
    }
    Some(out)
}

/// The template's labels as the release prints them: JSON (`{"app":"web"}`, `null`), or before 1.34
/// Go's `%#v` of a `map[string]string`.
fn labels_value(labels: Option<&Node>, target: Target<'_>) -> String {
    if target.prints_json() {
        return labels.map_or_else(|| "null".to_string(), gofmt::json);
    }
    match labels.and_then(Node::as_map) {
        None => "map[string]string(nil)".to_string(),
        Some(entries) => go_string_map(entries),
    }
}

/// `%#v` of a `map[string]string`: keys sorted, `"k":"v"` pairs joined by `, `.
fn go_string_map(entries: &[crdls_yaml::Entry]) -> String {
    let mut pairs: Vec<(&str, String)> = entries.iter().map(|e| (e.key.as_str(), label_text(&e.value))).collect();
    pairs.sort();
    let body: Vec<String> = pairs.iter().map(|(k, v)| format!("{}:{}", gofmt::quote(k), gofmt::quote(v))).collect();
    format!("map[string]string{{{}}}", body.join(", "))
}

/// An (empty) selector as the release prints it: the JSON of `metav1.LabelSelector` (empty fields
/// left out), or before 1.34 its `%#v`.
fn selector_value(selector: &Node, target: Target<'_>) -> String {
    if target.prints_json() {
        return "{}".to_string();
    }
    let labels = match selector.get("matchLabels").and_then(Node::as_map) {
        Some(entries) => go_string_map(entries),
        None => "map[string]string(nil)".to_string(),
    };
    let expressions = match selector.get("matchExpressions").and_then(Node::as_seq) {
        Some(_) => "[]v1.LabelSelectorRequirement{}",
        None => "[]v1.LabelSelectorRequirement(nil)",
    };
    format!("v1.LabelSelector{{MatchLabels:{labels}, MatchExpressions:{expressions}}}")
}
