//! Resource quantities: a value that does not parse stops the whole request at decoding (HTTP 400,
//! before any validation), and a container's requests must fit its limits: no more than the limit
//! for CPU, memory and storage, exactly the limit for extended resources and huge pages, which also
//! need one.

use crdls_crd::{AdditionalProperties, Schema};
use crdls_diagnostics::codes;
use crdls_go::quantity::Quantity;
use crdls_yaml::{Node, Value};

use super::{error, Cause, Found, Target};
use crate::field_error::ErrorType;
use crate::gofmt;

/// Reports every quantity of the object that does not parse, wherever its schema says a quantity goes.
pub(super) fn validate_quantities(object: &Node, schema: &Schema, target: Target<'_>, out: &mut Vec<Found>) {
    walk(object, schema, &mut Vec::new(), target, out);
}

/// A step of the path to a node, kept as a stack and printed only for an error.
enum Step<'n> {
    Key(&'n str),
    Index(usize),
}

fn walk<'n>(node: &'n Node, schema: &Schema, path: &mut Vec<Step<'n>>, target: Target<'_>, out: &mut Vec<Found>) {
    if is_quantity(schema) {
        // Go's Quantity decodes a JSON string's text, or any other JSON value's own text (`true`), and
        // takes null as zero.
        let text = match &node.value {
            Value::Str(text) => Some(text.clone()),
            Value::Bool(b) => Some(b.to_string()),
            Value::Map(_) | Value::Seq(_) => Some(gofmt::json(node)),
            _ => None,
        };
        if let Some(text) = text {
            if let Err(reason) = Quantity::parse(text.trim()) {
                let (kind, version) = (target.kind, target.version);
                let cause = format!("{kind} in version \"{version}\" cannot be handled as a {kind}: {reason}");
                out.push(Found {
                    cause: Cause::Decode { path: printed(path), text: cause },
                    range: node.range,
                    code: codes::NATIVE_QUANTITY,
                    message: format!("{} is not a quantity: {reason}", gofmt::quote(&text)),
                });
            }
        }
        return;
    }
    match &node.value {
        Value::Map(entries) => {
            for entry in entries {
                let child: Option<&Schema> = match (schema.property(&entry.key), &schema.additional_properties) {
                    (Some(p), _) => Some(&p.schema),
                    (None, Some(AdditionalProperties::Schema(s))) => Some(s),
                    _ => None,
                };
                if let Some(child) = child {
                    path.push(Step::Key(&entry.key));
                    walk(&entry.value, child, path, target, out);
                    path.pop();
                }
            }
        }
        Value::Seq(items) => {
            if let Some(item_schema) = &schema.items {
                for (i, item) in items.iter().enumerate() {
                    path.push(Step::Index(i));
                    walk(item, item_schema, path, target, out);
                    path.pop();
                }
            }
        }
        _ => {}
    }
}

/// A path as the API server prints it: `spec.containers[0].resources.limits.cpu`.
fn printed(path: &[Step<'_>]) -> String {
    let mut out = String::new();
    for step in path {
        match step {
            Step::Key(key) => {
                if !out.is_empty() {
                    out.push('.');
                }
                out.push_str(key);
            }
            Step::Index(i) => out.push_str(&format!("[{i}]")),
        }
    }
    out
}

/// Whether a schema node is a `resource.Quantity`: one of a string or a number.
fn is_quantity(schema: &Schema) -> bool {
    match schema.rare().one_of.as_slice() {
        [a, b] => a.ty.as_deref() == Some("string") && b.ty.as_deref() == Some("number"),
        _ => false,
    }
}

/// A container's requests against its limits, at `path` (`spec.containers[0]`).
pub(super) fn requests_within_limits(container: &Node, path: &str, out: &mut Vec<Found>) {
    let Some(resources) = container.get("resources") else { return };
    let limits = resources.get("limits").and_then(Node::as_map).unwrap_or_default();
    let Some(requests) = resources.get("requests").and_then(Node::as_map) else { return };
    let parse = |node: &Node| match &node.value {
        Value::Str(s) => Quantity::parse(s.trim()).ok(),
        Value::Int(i) => Some(Quantity::from_int(*i)),
        Value::Float(f) => Quantity::parse(&gofmt::float(*f)).ok(),
        _ => None,
    };
    for request in requests {
        let name = request.key.as_str();
        let Some(quantity) = parse(&request.value) else { continue };
        let shown = gofmt::quote(&quantity.canonical());
        let overcommit = overcommit_allowed(name);
        match limits.iter().find(|l| l.key == name) {
            Some(limit) => {
                let Some(limit_quantity) = parse(&limit.value) else { continue };
                let order = quantity.cmp_value(&limit_quantity);
                let detail = if !overcommit && order.is_ne() {
                    format!("must be equal to {name} limit of {}", limit_quantity.canonical())
                } else if order.is_gt() {
                    format!("must be less than or equal to {name} limit of {}", limit_quantity.canonical())
                } else {
                    continue;
                };
                out.push(Found::field(
                    error(ErrorType::Invalid, format!("{path}.resources.requests"), Some(shown), detail.clone()),
                    request.value.range,
                    codes::NATIVE_RESOURCES,
                    format!("the {name} request {}: it {detail}", quantity.canonical()),
                ));
            }
            None if !overcommit => out.push(Found::field(
                error(ErrorType::Required, format!("{path}.resources.limits"), None, "Limit must be set for non overcommitable resources"),
                request.key_range,
                codes::NATIVE_RESOURCES,
                format!("{name} cannot be overcommitted: set a limit equal to the request"),
            )),
            None => {}
        }
    }
}

/// Whether requests of a resource may stay below its limit: the native resources (no domain, or a
/// `kubernetes.io` one) other than huge pages.
fn overcommit_allowed(name: &str) -> bool {
    let native = !name.contains('/') || name.contains("kubernetes.io/");
    native && !name.starts_with("hugepages-")
}
