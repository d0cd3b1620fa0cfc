//! `crd/status`: with the status subresource, the API server validates `status` on its own, with the
//! schema of `properties.status`. Whatever the root of the schema says about the object as a whole
//! would be lost there, so the root may only use description, type (object), format, title, the
//! numeric, string and array bounds, required, items, properties, externalDocs, example,
//! `x-kubernetes-preserve-unknown-fields` and `x-kubernetes-validations`. The API server reports the
//! first offender, in the order of the fields of its Go struct.
//!
//! Example: `anyOf` at the root of a schema with `subresources.status`. Fix: move it into `spec`, or
//! express it as an `x-kubernetes-validations` rule at the root.

use crdls_yaml::Value;

use super::{fe, get, go_json, value_at, Found, SchemaTarget};
use crate::field_error::ErrorType;
use crate::gofmt;
use crdls_diagnostics::codes;

const CODE: &str = codes::CRD_STATUS;

/// The fields of `JSONSchemaProps` in declaration order: JSON key, Go name, and whether it is
/// allowed at the root with the status subresource.
const FIELDS: &[(&str, &str, bool)] = &[
    ("id", "ID", false),
    ("$schema", "Schema", false),
    ("$ref", "Ref", false),
    ("description", "Description", true),
    ("type", "Type", true),
    ("nullable", "Nullable", false),
    ("format", "Format", true),
    ("title", "Title", true),
    ("default", "Default", false),
    ("maximum", "Maximum", true),
    ("exclusiveMaximum", "ExclusiveMaximum", true),
    ("minimum", "Minimum", true),
    ("exclusiveMinimum", "ExclusiveMinimum", true),
    ("maxLength", "MaxLength", true),
    ("minLength", "MinLength", true),
    ("pattern", "Pattern", true),
    ("maxItems", "MaxItems", true),
    ("minItems", "MinItems", true),
    ("uniqueItems", "UniqueItems", true),
    ("multipleOf", "MultipleOf", true),
    ("enum", "Enum", false),
    ("maxProperties", "MaxProperties", false),
    ("minProperties", "MinProperties", false),
    ("required", "Required", true),
    ("items", "Items", true),
    ("allOf", "AllOf", false),
    ("oneOf", "OneOf", false),
    ("anyOf", "AnyOf", false),
    ("not", "Not", false),
    ("properties", "Properties", true),
    ("additionalProperties", "AdditionalProperties", false),
    ("patternProperties", "PatternProperties", false),
    ("dependencies", "Dependencies", false),
    ("additionalItems", "AdditionalItems", false),
    ("definitions", "Definitions", false),
    ("externalDocs", "ExternalDocs", true),
    ("example", "Example", true),
    ("x-kubernetes-preserve-unknown-fields", "XPreserveUnknownFields", true),
    ("x-kubernetes-embedded-resource", "XEmbeddedResource", false),
    ("x-kubernetes-int-or-string", "XIntOrString", false),
    ("x-kubernetes-list-map-keys", "XListMapKeys", false),
    ("x-kubernetes-list-type", "XListType", false),
    ("x-kubernetes-map-type", "XMapType", false),
    ("x-kubernetes-validations", "XValidations", true),
];

/// The fields that are a plain `string` in Go (`""` is their zero value).
const STRING_FIELDS: &[&str] = &["id", "$schema", "description", "type", "format", "title", "pattern"];

/// The fields that are a plain `bool` in Go (`false` is their zero value).
const BOOL_FIELDS: &[&str] =
    &["nullable", "exclusiveMaximum", "exclusiveMinimum", "uniqueItems", "x-kubernetes-embedded-resource", "x-kubernetes-int-or-string"];

/// The root restrictions of a schema whose CRD enables the status subresource.
pub(super) fn check(target: &SchemaTarget<'_>, out: &mut Vec<Found>) {
    let root = target.node;
    let p = target.path();
    for (key, _, allowed) in FIELDS {
        let Some(value) = get(root, key) else { continue };
        // Go zero values are skipped: null, and the empty string and false of the fields that are a
        // plain string or bool in Go. The other fields are pointers, slices or maps: `default: false`,
        // `additionalProperties: false` or `enum: []` is set.
        let zero = match &value.value {
            Value::Null => true,
            Value::Str(s) => s.is_empty() && STRING_FIELDS.contains(key),
            Value::Bool(b) => !b && BOOL_FIELDS.contains(key),
            _ => false,
        };
        if zero {
            continue;
        }
        if *key == "type" {
            let ty = value.as_str().unwrap_or_default();
            if ty != "object" {
                let detail = r#"only "object" is allowed as the type at the root of the schema if the status subresource is enabled"#;
                out.push(Found::new(
                    value_at(root, "type", target.anchor),
                    CODE,
                    fe(ErrorType::Invalid, format!("{p}.type"), Some(gofmt::quote(ty)), detail),
                    "with the status subresource, the root of the schema must be type: object",
                ));
                return;
            }
            continue;
        }
        if !allowed {
            let allowed_names: Vec<&str> = FIELDS.iter().filter(|f| f.2).map(|f| f.1).collect();
            let detail = format!(
                "only [{}] fields are allowed at the root of the schema if the status subresource is enabled",
                allowed_names.join(" ")
            );
            let at = root.entry(key).map_or(target.anchor, |e| e.key_range);
            out.push(Found::new(
                at,
                CODE,
                fe(ErrorType::Invalid, p.clone(), Some(go_json::schema(Some(root))), detail),
                format!("{key} is not allowed at the root of the schema when the status subresource is enabled: status is validated with properties.status alone, so move it into a property (or use an x-kubernetes-validations rule)"),
            ));
            return;
        }
    }
}
