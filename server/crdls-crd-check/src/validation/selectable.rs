//! `crd/selectable-field`: `selectableFields`, the fields `kubectl get --field-selector` may use.
//! Each `jsonPath` is a dot path (no `[...]`) that resolves in the version's schema to a string,
//! boolean or integer field outside `metadata`; no path twice; at most 8 per version. The version
//! needs a schema (after the API server's conversion moved identical values to the top level).
//!
//! Example: `jsonPath: .spec.replicas` where replicas is `int-or-string`. Fix: select a field of type
//! string, boolean or integer.

use crdls_crd::{AdditionalProperties, Schema};
use crdls_yaml::Node;

use super::{fe, get, structural, text, value_at, CrdDoc, Sink};
use crate::field_error::ErrorType;
use crate::gofmt;
use crdls_diagnostics::codes;

const CODE: &str = codes::CRD_SELECTABLE_FIELD;
const MAX: usize = 8;

pub(super) fn check(crd: &CrdDoc<'_>, sink: &mut Sink<'_>) {
    for (prefix, version, list) in crd.per_version("selectableFields", crd.layout.selectable, "selectableFields") {
        let fields = list.as_seq().unwrap_or_default();
        if fields.is_empty() {
            continue;
        }
        let first = crd.versions.first().copied();
        // The schema the API server holds where these fields are: the top-level one exists only when
        // the versions share it, a version's own only when they do not.
        let schema_node = match version {
            Some(i) if !crd.layout.schema => crd.schema_of(i),
            Some(_) => None,
            None if crd.layout.schema => first.and_then(|v| get(v, "schema")).and_then(|s| get(s, "openAPIV3Schema")),
            None => None,
        };
        let Some(schema_node) = schema_node else {
            let (detail, message) = match version {
                Some(_) => (
                    "may only be set when `version.schema.openAPIV3Schema` is not included",
                    "selectableFields need this version's own schema, but the API server moved the schema all versions share to the top level: give every version the same selectableFields too",
                ),
                None => (
                    "may only be set when validations.schema is included",
                    "selectableFields shared by every version need a schema shared by every version too: give each version its own selectableFields",
                ),
            };
            let at = list.range;
            sink.error(at, CODE, fe(ErrorType::Invalid, &prefix, Some("\"\"".into()), detail), message);
            continue;
        };
        if structural::unconvertible(schema_node).is_some() {
            continue;
        }
        let schema = Schema::from_node(schema_node);
        check_fields(fields, &schema, &prefix, list, sink);
    }
}

fn check_fields(fields: &[Node], schema: &Schema, f: &str, list: &Node, sink: &mut Sink<'_>) {
    let mut unique: Vec<String> = Vec::new();
    // Where the count went over the limit.
    let mut over = None;
    for (i, field) in fields.iter().enumerate() {
        let path_field = format!("{f}[{i}].jsonPath");
        let path = text(field, "jsonPath");
        let at = value_at(field, "jsonPath", super::start_of(field));
        if path.is_empty() {
            sink.error(at, CODE, fe(ErrorType::Required, &path_field, None, ""), "a selectable field needs a jsonPath");
            continue;
        }
        let (normalized, target) = match valid_field_path(path, schema) {
            Ok(found) => found,
            Err(e) => {
                let detail = format!("is an invalid path: {e}");
                sink.error(at, CODE, fe(ErrorType::Invalid, &path_field, Some(gofmt::quote(path)), &detail), format!("jsonPath {detail}"));
                continue;
            }
        };
        if normalized.first().is_some_and(|s| s == "metadata") {
            let detail = "must not point to fields in metadata";
            sink.error(
                at,
                CODE,
                fe(ErrorType::Invalid, &path_field, Some(gofmt::quote(path)), detail),
                "selectable fields cannot be in metadata (metadata.name and metadata.namespace are always selectable)",
            );
        }
        let ty = target.and_then(|t| t.ty.as_deref()).unwrap_or_default();
        if !matches!(ty, "string" | "boolean" | "integer") {
            let detail =
                "must point to a field of type string, boolean or integer. Enum string fields and strings with formats are allowed.";
            let found = if target.is_some_and(|t| t.int_or_string) {
                "int-or-string"
            } else if ty.is_empty() {
                "untyped"
            } else {
                ty
            };
            sink.error(
                at,
                CODE,
                fe(ErrorType::Invalid, &path_field, Some(gofmt::quote(path)), detail),
                format!("a selectable field must be a string, boolean or integer, not {found}"),
            );
        }
        let key = render(&normalized);
        if unique.contains(&key) {
            sink.error(
                at,
                CODE,
                fe(ErrorType::Duplicate, &path_field, Some(gofmt::quote(path)), ""),
                format!("{path} is selectable already"),
            );
        } else {
            unique.push(key);
            if unique.len() == MAX + 1 {
                over = Some(at);
            }
        }
    }
    if unique.len() > MAX {
        let at = over.unwrap_or(list.range);
        sink.error(
            at,
            CODE,
            fe(ErrorType::TooMany, f, Some(unique.len().to_string()), format!("must have at most {MAX} items")),
            format!("at most {MAX} fields can be selectable, this version has {}", unique.len()),
        );
    }
}

/// One step of a resolved path: a property (printed `.name`) or a map key (printed `[key]`).
type Piece = String;

fn render(pieces: &[Piece]) -> String {
    let mut out = String::new();
    for p in pieces {
        if p.starts_with('[') || out.is_empty() {
            out.push_str(p);
        } else {
            out.push('.');
            out.push_str(p);
        }
    }
    out
}

/// `ValidFieldPath` without array notation: the path's steps (properties by name, map keys as
/// `[key]`) and the schema it leads to, or the API server's reason.
fn valid_field_path<'a>(path: &str, schema: &'a Schema) -> Result<(Vec<Piece>, Option<&'a Schema>), String> {
    let tokens = tokens(path);
    let mut current = Some(schema);
    let mut pieces = Vec::new();
    let mut iter = tokens.into_iter();
    while let Some(tok) = iter.next() {
        match tok.as_str() {
            "[" => return Err("array notation is not allowed".into()),
            "." => {
                let Some(name) = iter.next() else { return Err("unexpected end of JSON path".into()) };
                // A map without a value schema has nothing to descend into (the API server fails hard here).
                let Some(s) = current else { return Err("does not refer to a valid field".into()) };
                if !s.properties.is_empty() {
                    let Some(p) = s.property(&name) else { return Err("does not refer to a valid field".into()) };
                    current = Some(&p.schema);
                    pieces.push(name);
                } else if let Some(ap) = &s.additional_properties {
                    current = match ap {
                        AdditionalProperties::Schema(values) => Some(values),
                        AdditionalProperties::Bool(_) => None,
                    };
                    pieces.push(format!("[{name}]"));
                } else {
                    return Err("does not refer to a valid field".into());
                }
            }
            _ => return Err(format!("expected [ or . but got: {tok}")),
        }
    }
    Ok((pieces, current))
}

/// The tokens of a field path: `.`, `[` and `]` alone, single-quoted strings, and the text between.
fn tokens(path: &str) -> Vec<String> {
    let chars: Vec<char> = path.chars().collect();
    let mut out = Vec::new();
    let mut i = 0;
    while i < chars.len() {
        let c = chars[i];
        if c == '\'' {
            let mut j = i + 1;
            while j < chars.len() && !(chars[j] == '\'' && chars[j - 1] != '\\') {
                j += 1;
            }
            let end = (j + 1).min(chars.len());
            out.push(chars[i..end].iter().collect());
            i = end;
        } else if matches!(c, '.' | '[' | ']') {
            out.push(c.to_string());
            i += 1;
        } else {
            let start = i;
            while i < chars.len() && !matches!(chars[i], '.' | '[' | ']') {
                i += 1;
            }
            out.push(chars[start..i].iter().collect());
        }
    }
    out
}
