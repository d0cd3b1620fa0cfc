//! A Service's ports: named when there are several (DNS labels, unique), numbers in range, a supported
//! protocol, a target port that is a port number or an IANA service name, and no two with the same
//! port and protocol.

use std::collections::HashSet;

use crdls_diagnostics::codes;
use crdls_yaml::{Node, Value};

use super::pods::protocol;
use super::{error, port_name_errors, port_number, Found, Target};
use crate::field_error::ErrorType;
use crate::gofmt;

/// Validates the ports of the Service spec `spec`.
pub(super) fn validate_service_spec(spec: &Node, target: Target<'_>, out: &mut Vec<Found>) {
    let Some(ports) = spec.get("ports").and_then(Node::as_seq) else { return };
    let several = ports.len() > 1;
    let mut names: HashSet<&str> = HashSet::new();
    let mut pairs: HashSet<(&str, i64)> = HashSet::new();
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
        match port.get("targetPort") {
            Some(node) if !matches!(&node.value, Value::Int(0)) && node.as_str() != Some("") => {
                target_port(node, &format!("{at}.targetPort"), out)
            }
            // Left out (or 0, or ""), the target port is defaulted to the port, and checked as one.
            _ => {
                if let Some(node @ Node { value: Value::Int(number), .. }) = port.get("port") {
                    if !(1..=65535).contains(number) {
                        out.push(Found::field(
                            error(
                                ErrorType::Invalid,
                                format!("{at}.targetPort"),
                                Some(number.to_string()),
                                "must be between 1 and 65535, inclusive",
                            ),
                            node.range,
                            codes::NATIVE_PORT,
                            format!("targetPort defaults to the port, {number}, which is not a port number either"),
                        ));
                    }
                }
            }
        }
        // The protocol is defaulted to TCP before validation.
        let protocol = port.get("protocol").map_or(Some("TCP"), Node::as_str);
        if let (Some(protocol), Some(Value::Int(number))) = (protocol, port.get("port").map(|p| &p.value)) {
            if !pairs.insert((protocol, *number)) {
                out.push(Found::field(
                    error(ErrorType::Duplicate, &at, Some(port_key(protocol, *number, target)), ""),
                    port.range,
                    codes::NATIVE_PORT,
                    format!("another port of this Service is already port {number}/{protocol}"),
                ));
            }
        }
    }
}

/// The value of a duplicate port's error: the API server's internal `ServicePort` holding only the
/// protocol and the port, printed as JSON from 1.34 on and with Go's `%#v` before.
fn port_key(protocol: &str, number: i64, target: Target<'_>) -> String {
    let protocol = gofmt::quote(protocol);
    if target.prints_json() {
        format!(r#"{{"Name":"","Protocol":{protocol},"AppProtocol":null,"Port":{number},"TargetPort":0,"NodePort":0}}"#)
    } else {
        format!(
            r#"core.ServicePort{{Name:"", Protocol:{protocol}, AppProtocol:(*string)(nil), Port:{number}, TargetPort:intstr.IntOrString{{Type:0, IntVal:0, StrVal:""}}, NodePort:0}}"#
        )
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
