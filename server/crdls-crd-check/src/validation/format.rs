//! `crd/format`: a warning the API server returns with the CRD (`unrecognized format "..."`) for
//! every `format` it does not know for the node's type. Such a format is dropped before objects are
//! validated, so it checks nothing. Known: for strings (or no type) bsonobjectid, uri, email,
//! hostname, ipv4, ipv6, cidr, mac, uuid, uuid3, uuid4, uuid5, isbn, isbn10, isbn13, creditcard,
//! ssn, hexcolor, rgbcolor, byte, password, date, duration, date-time, k8s-short-name and
//! k8s-long-name (dashes do not count); int32 and int64 for integers; float and double for
//! numbers; nothing for other types.
//!
//! Example: `type: string, format: url`. Fix: `format: uri`, or a `pattern`.

use crdls_yaml::{Node, Value};

use super::{entries, get, items, text, SchemaTarget, Sink};
use crate::formats::is_validated_format;
use crdls_diagnostics::codes;

const CODE: &str = codes::CRD_FORMAT;

/// Warns about the unrecognized formats of one schema, junctors and all.
pub(super) fn check(target: &SchemaTarget<'_>, sink: &mut Sink<'_>) {
    walk(target.node, &target.path(), sink, 0);
}

fn walk(s: &Node, p: &str, sink: &mut Sink<'_>, depth: usize) {
    if depth > 64 || !matches!(s.value, Value::Map(_)) {
        return;
    }
    let format = text(s, "format");
    if !format.is_empty() {
        let ty = text(s, "type");
        let known = match ty {
            "" | "string" => is_validated_format(format),
            "integer" => format == "int32" || format == "int64",
            "number" => format == "float" || format == "double",
            _ => false,
        };
        if !known {
            let for_type = if ty.is_empty() { "strings".to_string() } else { format!("type {ty}") };
            let range = s.get("format").map_or(s.range, |f| f.range);
            sink.out.push(
                crdls_diagnostics::Diagnostic::new(
                    range,
                    crdls_diagnostics::Severity::Warning,
                    CODE,
                    format!("format {format:?} is not one the API server knows for {for_type}: it is dropped and checks nothing"),
                )
                .with_path(format!("{p}.format"))
                .with_cause(format!("unrecognized format {}", crate::gofmt::quote(format))),
            );
        }
    }
    for key in ["items", "not", "additionalProperties", "additionalItems"] {
        if let Some(child) = get(s, key).filter(|c| matches!(c.value, Value::Map(_))) {
            walk(child, &format!("{p}.{key}"), sink, depth + 1);
        }
    }
    for key in ["allOf", "anyOf", "oneOf", "items"] {
        for (i, child) in items(s, key).iter().enumerate() {
            walk(child, &format!("{p}.{key}[{i}]"), sink, depth + 1);
        }
    }
    for key in ["properties", "patternProperties", "definitions", "dependencies"] {
        for e in entries(s, key) {
            walk(&e.value, &format!("{p}.{key}[{}]", e.key), sink, depth + 1);
        }
    }
}
