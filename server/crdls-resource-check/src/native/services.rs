//! A Service's ports: named when there are several (DNS labels, unique), numbers in range, a supported
//! protocol, and a target port that is a port number or an IANA service name.

use std::collections::HashSet;

use crdls_diagnostics::codes;
use crdls_yaml::{Node, Value};

use super::pods::protocol;
use super::{error, port_name_errors, port_number, Found};
use crate::field_error::ErrorType;
use crate::gofmt;

/// Validates the ports of the Service spec `spec`.
pub(super) fn validate_service_spec(spec: &Node, out: &mut Vec<Found>) {
    let Some(ports) = spec.get("ports").and_then(Node::as_seq) else { return };
    let several = ports.len() > 1;
    let mut names: HashSet<&str> = HashSet::new();
    for (i, port) in ports.iter().enumerate() {
        if !matches!(port.value, Value::Map(_)) {
            continue;
        }
        let at = format!("spec.ports[{i}]");
        let name = port.get("name");
        match name.and_then(Node::as_str) {
            Some("") | None if several => {
                let range = name.map_or_else(|| port.as_map().and_then(|m| m.first()).map_or(port.range, |e| e.key_range), |n| n.range);
                out.push(Found::field(
                    error(ErrorType::Required, format!("{at}.name"), None, ""),
                    range,
                    codes::NATIVE_PORT,
                    "a Service with several ports must name each of them",
                ));
            }
            Some(value) if !value.is_empty() => {
                let node = name.expect("a name was read");
                for detail in crdls_go::names::dns1123_label(value) {
                    out.push(Found::field(
                        error(ErrorType::Invalid, format!("{at}.name"), Some(gofmt::quote(value)), detail.clone()),
                        node.range,
                        codes::NATIVE_PORT,
                        format!("port name {value:?} is not a DNS label: {detail}"),
                    ));
                }
                if !names.insert(value) {
                    out.push(Found::field(
                        error(ErrorType::Duplicate, format!("{at}.name"), Some(gofmt::quote(value)), ""),
                        node.range,
                        codes::NATIVE_PORT,
                        format!("another port of this Service is already named {value:?}"),
                    ));
                }
            }
            _ => {}
        }
        if let Some(node) = port.get("port") {
            port_number(node, &format!("{at}.port"), "port", out);
        }
        protocol(port, &at, out);
        if let Some(node) = port.get("targetPort") {
            target_port(node, &format!("{at}.targetPort"), out);
        }
    }
}

/// A target port: a number in range, or the name of a container port. 0 and "" mean "the same as
/// `port`".
fn target_port(node: &Node, path: &str, out: &mut Vec<Found>) {
    match &node.value {
        Value::Int(0) => {}
        Value::Int(_) => port_number(node, path, "targetPort", out),
        Value::Str(name) if !name.is_empty() => {
            for detail in port_name_errors(name) {
                out.push(Found::field(
                    error(ErrorType::Invalid, path, Some(gofmt::quote(name)), detail),
                    node.range,
                    codes::NATIVE_PORT,
                    format!("targetPort {name:?} is neither a port number nor a container port's name; a name {detail}"),
                ));
            }
        }
        _ => {}
    }
}
