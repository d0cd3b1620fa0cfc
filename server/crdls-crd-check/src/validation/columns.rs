//! `crd/printer-column`: `additionalPrinterColumns`. Each column needs a name, a type among boolean,
//! date, integer, number and string, an optional format among byte, date, date-time, double,
//! float, int32, int64 and password, and a `jsonPath` starting with a dot. The API server checks no
//! more when the CRD is applied; crdls also warns when the path does not parse as a JSONPath (the
//! API server then ignores every column of the version and `kubectl get` shows the default ones),
//! and when it names a field the schema does not have (the column stays empty).
//!
//! Example: `jsonPath: status.phase`. Fix: `.status.phase`.

use crdls_crd::Schema;
use crdls_yaml::Node;

use super::paths::{parse_column_path, resolve, Resolved};
use super::{fe, key_at, start_of, text, value_at, CrdDoc, Sink};
use crate::field_error::ErrorType;
use crate::gofmt;
use crdls_diagnostics::codes;

const CODE: &str = codes::CRD_PRINTER_COLUMN;
const TYPES: &[&str] = &["boolean", "date", "integer", "number", "string"];
const FORMATS: &[&str] = &["byte", "date", "date-time", "double", "float", "int32", "int64", "password"];

pub(super) fn check(crd: &CrdDoc<'_>, sink: &mut Sink<'_>) {
    for (prefix, version, list) in crd.per_version("additionalPrinterColumns", crd.layout.columns, "additionalPrinterColumns") {
        let versions: Vec<usize> = match version {
            Some(i) => vec![i],
            None => (0..crd.versions.len()).collect(),
        };
        for (j, column) in list.as_seq().unwrap_or_default().iter().enumerate() {
            let c = format!("{prefix}[{j}]");
            check_column(crd, column, &c, &versions, sink);
        }
    }
}

fn check_column(crd: &CrdDoc<'_>, column: &Node, c: &str, versions: &[usize], sink: &mut Sink<'_>) {
    let anchor = start_of(column);
    if text(column, "name").is_empty() {
        sink.error(
            value_at(column, "name", anchor),
            CODE,
            fe(ErrorType::Required, format!("{c}.name"), None, ""),
            "a printer column needs a name",
        );
    }
    let ty = text(column, "type");
    let types_detail = format!("must be one of {}", TYPES.join(","));
    if ty.is_empty() {
        sink.error(
            value_at(column, "type", anchor),
            CODE,
            fe(ErrorType::Required, format!("{c}.type"), None, &types_detail),
            format!("a printer column needs a type: {}", TYPES.join(", ")),
        );
    } else if !TYPES.contains(&ty) {
        sink.error(
            value_at(column, "type", anchor),
            CODE,
            fe(ErrorType::Invalid, format!("{c}.type"), Some(gofmt::quote(ty)), &types_detail),
            format!("a column's type must be one of {}", TYPES.join(", ")),
        );
    }
    let format = text(column, "format");
    if !format.is_empty() && !FORMATS.contains(&format) {
        let detail = format!("must be one of {}", FORMATS.join(","));
        sink.error(
            value_at(column, "format", anchor),
            CODE,
            fe(ErrorType::Invalid, format!("{c}.format"), Some(gofmt::quote(format)), detail),
            format!("a column's format must be one of {}", FORMATS.join(", ")),
        );
    }
    let path = text(column, "jsonPath");
    // The internal field is `JSONPath`, and so is the path the API server prints.
    let at = value_at(column, "jsonPath", key_at(column, "name", anchor));
    if path.is_empty() {
        sink.error(at, CODE, fe(ErrorType::Required, format!("{c}.JSONPath"), None, ""), "a printer column needs a jsonPath");
        return;
    }
    if !path.starts_with('.') {
        let detail = "must be a simple json path starting with .";
        sink.error(
            at,
            CODE,
            fe(ErrorType::Invalid, format!("{c}.JSONPath"), Some(gofmt::quote(path)), detail),
            format!("a column's jsonPath must start with a dot: .{path}"),
        );
        return;
    }
    let steps = match parse_column_path(path) {
        Ok(steps) => steps,
        Err(e) => {
            sink.warning(
                at,
                CODE,
                format!("{c}.JSONPath"),
                format!("this JSONPath does not parse ({e}): the API server then ignores all printer columns of the version, and kubectl get shows the default columns"),
            );
            return;
        }
    };
    for &i in versions {
        let Some(schema_node) = crd.schema_of(i) else { continue };
        let schema = Schema::from_node(schema_node);
        if let Resolved::Missing(prefix, name) = resolve(&schema, &steps) {
            let version = crd.versions.get(i).and_then(|v| v.get_str("name")).unwrap_or_default();
            let prefix = if prefix.is_empty() { "the root".to_string() } else { prefix };
            sink.warning(
                at,
                CODE,
                format!("{c}.JSONPath"),
                format!("{path} is not in the schema of {version} ({prefix} has no field {name}): the column would always be empty"),
            );
            return;
        }
    }
}
