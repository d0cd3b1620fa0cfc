//! `crd/unknown-field` and `crd/field-type`: what happens before validation, when the API server
//! decodes the CRD into its Go types.
//!
//! A field `apiextensions.k8s.io/v1` does not have is dropped. With strict field validation (the
//! default of `kubectl apply`) the request fails instead, with `strict decoding error: unknown field
//! "spec.versions[0].schema.openAPIV3Schema.properties.spec.readOnly"`. The CRD page's list of
//! fields a structural schema may not set names five of these: `deprecated`, `discriminator`,
//! `readOnly`, `writeOnly` and `xml`. Schemas under `items`, `additionalProperties`,
//! `additionalItems` and `dependencies` are decoded by custom unmarshalers without field validation,
//! so unknown fields there are dropped silently even with strict validation.
//!
//! A value of the wrong JSON type (`served: "yes"`, `maxLength: 1.5`) fails decoding altogether:
//! `CustomResourceDefinition in version "v1" cannot be handled as a CustomResourceDefinition: json:
//! cannot unmarshal string into Go struct field CustomResourceDefinitionVersion.spec.versions.served of type bool`.
//!
//! Example: `readOnly: true` on a property. Fix: remove it (or use CEL `self == oldSelf` for
//! immutability).

use crdls_yaml::{Node, Value};

use crdls_diagnostics::{Severity, TextRange};

use super::Sink;
use crate::suggest::did_you_mean;

/// The shape of a field's value in the Go type.
#[derive(Clone, Copy)]
enum Shape {
    Str,
    Bool,
    Int32,
    Int64,
    Float,
    StrList,
    /// `JSON` (`default`, `example`): anything.
    Any,
    /// `[]JSON` (`enum`).
    AnyList,
    /// `[]byte`: a base64 string.
    Bytes,
    Object(&'static Struct),
    List(&'static Struct),
    Schema,
    SchemaList,
    SchemaMap,
    /// `items`: a schema or a list of schemas; anything else is ignored.
    SchemaOrArray,
    /// `additionalProperties`, `additionalItems`: a boolean or a schema.
    SchemaOrBool,
    /// `dependencies`: a map of schemas or string lists; anything else is ignored.
    Dependencies,
}

/// A Go struct: its type name (as `reflect` prints it) and its JSON fields.
struct Struct {
    go: &'static str,
    fields: &'static [(&'static str, Shape)],
}

use crdls_diagnostics::codes;
use Shape::*;

static SPEC: Struct = Struct {
    go: "CustomResourceDefinitionSpec",
    fields: &[
        ("group", Str),
        ("names", Object(&NAMES)),
        ("scope", Str),
        ("versions", List(&VERSION)),
        ("conversion", Object(&CONVERSION)),
        ("preserveUnknownFields", Bool),
    ],
};
static NAMES: Struct = Struct {
    go: "CustomResourceDefinitionNames",
    fields: &[("plural", Str), ("singular", Str), ("shortNames", StrList), ("kind", Str), ("listKind", Str), ("categories", StrList)],
};
static VERSION: Struct = Struct {
    go: "CustomResourceDefinitionVersion",
    fields: &[
        ("name", Str),
        ("served", Bool),
        ("storage", Bool),
        ("deprecated", Bool),
        ("deprecationWarning", Str),
        ("schema", Object(&VALIDATION)),
        ("subresources", Object(&SUBRESOURCES)),
        ("additionalPrinterColumns", List(&COLUMN)),
        ("selectableFields", List(&SELECTABLE)),
    ],
};
static VALIDATION: Struct = Struct { go: "CustomResourceValidation", fields: &[("openAPIV3Schema", Schema)] };
static SUBRESOURCES: Struct =
    Struct { go: "CustomResourceSubresources", fields: &[("status", Object(&STATUS)), ("scale", Object(&SCALE))] };
static STATUS: Struct = Struct { go: "CustomResourceSubresourceStatus", fields: &[] };
static SCALE: Struct = Struct {
    go: "CustomResourceSubresourceScale",
    fields: &[("specReplicasPath", Str), ("statusReplicasPath", Str), ("labelSelectorPath", Str)],
};
static COLUMN: Struct = Struct {
    go: "CustomResourceColumnDefinition",
    fields: &[("name", Str), ("type", Str), ("format", Str), ("description", Str), ("priority", Int32), ("jsonPath", Str)],
};
static SELECTABLE: Struct = Struct { go: "SelectableField", fields: &[("jsonPath", Str)] };
static CONVERSION: Struct = Struct { go: "CustomResourceConversion", fields: &[("strategy", Str), ("webhook", Object(&WEBHOOK))] };
static WEBHOOK: Struct =
    Struct { go: "WebhookConversion", fields: &[("clientConfig", Object(&CLIENT_CONFIG)), ("conversionReviewVersions", StrList)] };
static CLIENT_CONFIG: Struct =
    Struct { go: "WebhookClientConfig", fields: &[("url", Str), ("service", Object(&SERVICE)), ("caBundle", Bytes)] };
static SERVICE: Struct = Struct { go: "ServiceReference", fields: &[("namespace", Str), ("name", Str), ("path", Str), ("port", Int32)] };
static RULE: Struct = Struct {
    go: "ValidationRule",
    fields: &[("rule", Str), ("message", Str), ("messageExpression", Str), ("reason", Str), ("fieldPath", Str), ("optionalOldSelf", Bool)],
};
static EXTERNAL_DOCS: Struct = Struct { go: "ExternalDocumentation", fields: &[("description", Str), ("url", Str)] };
static JSON_SCHEMA_PROPS: Struct = Struct {
    go: "JSONSchemaProps",
    fields: &[
        ("id", Str),
        ("$schema", Str),
        ("$ref", Str),
        ("description", Str),
        ("type", Str),
        ("format", Str),
        ("title", Str),
        ("default", Any),
        ("maximum", Float),
        ("exclusiveMaximum", Bool),
        ("minimum", Float),
        ("exclusiveMinimum", Bool),
        ("maxLength", Int64),
        ("minLength", Int64),
        ("pattern", Str),
        ("maxItems", Int64),
        ("minItems", Int64),
        ("uniqueItems", Bool),
        ("multipleOf", Float),
        ("enum", AnyList),
        ("maxProperties", Int64),
        ("minProperties", Int64),
        ("required", StrList),
        ("items", SchemaOrArray),
        ("allOf", SchemaList),
        ("oneOf", SchemaList),
        ("anyOf", SchemaList),
        ("not", Schema),
        ("properties", SchemaMap),
        ("additionalProperties", SchemaOrBool),
        ("patternProperties", SchemaMap),
        ("dependencies", Dependencies),
        ("additionalItems", SchemaOrBool),
        ("definitions", SchemaMap),
        ("externalDocs", Object(&EXTERNAL_DOCS)),
        ("example", Any),
        ("nullable", Bool),
        ("x-kubernetes-preserve-unknown-fields", Bool),
        ("x-kubernetes-embedded-resource", Bool),
        ("x-kubernetes-int-or-string", Bool),
        ("x-kubernetes-list-map-keys", StrList),
        ("x-kubernetes-list-type", Str),
        ("x-kubernetes-map-type", Str),
        ("x-kubernetes-validations", List(&RULE)),
    ],
};

/// The fields the CRD page lists as not allowed in a structural schema that v1 does not even have.
const DOCUMENTED_FORBIDDEN: &[&str] = &["deprecated", "discriminator", "readOnly", "writeOnly", "xml"];

/// The top-level fields of a CRD (those below `status` are not checked here, those of `metadata` by name).
static ROOT: Struct = Struct {
    go: "CustomResourceDefinition",
    fields: &[("apiVersion", Any), ("kind", Any), ("metadata", Any), ("spec", Any), ("status", Any)],
};

/// The fields of the CRD's `metadata` (ObjectMeta); only their names are checked here.
static OBJECT_META: Struct = Struct {
    go: "ObjectMeta",
    fields: &[
        ("name", Any),
        ("generateName", Any),
        ("namespace", Any),
        ("selfLink", Any),
        ("uid", Any),
        ("resourceVersion", Any),
        ("generation", Any),
        ("creationTimestamp", Any),
        ("deletionTimestamp", Any),
        ("deletionGracePeriodSeconds", Any),
        ("labels", Any),
        ("annotations", Any),
        ("ownerReferences", Any),
        ("finalizers", Any),
        ("managedFields", Any),
    ],
};

/// Checks the CRD's top-level fields, the names of its `metadata` fields and its `spec` against the
/// Go types.
pub(super) fn check(root: &Node, sink: &mut Sink<'_>) {
    let mut walk = Walk { sink };
    if let Value::Map(entries) = &root.value {
        let top = Step { json_path: String::new(), go_fields: String::new(), go_struct: "CustomResourceDefinition", direct: true };
        for e in entries.iter().filter(|e| !ROOT.fields.iter().any(|(k, _)| *k == e.key)) {
            walk.unknown(e, &ROOT, &top);
        }
    }
    if let Some(Value::Map(entries)) = root.get("metadata").map(|m| &m.value) {
        // Strict decoding reports an unknown field of ObjectMeta as of any other struct:
        // `unknown field "metadata.nmae"`.
        let at = Step { json_path: "metadata".into(), go_fields: "metadata".into(), go_struct: "ObjectMeta", direct: true };
        for e in entries.iter().filter(|e| !OBJECT_META.fields.iter().any(|(k, _)| *k == e.key)) {
            walk.unknown(e, &OBJECT_META, &at);
        }
    }
    let Some(spec) = root.entry("spec") else { return };
    let at = Step { json_path: "spec".into(), go_fields: "spec".into(), go_struct: "CustomResourceDefinition", direct: true };
    walk.value(&spec.value, Object(&SPEC), &at, spec.key_range, 0);
}

/// Where the decoder is: the path strict decoding prints, the Go struct and field stack a type error
/// prints, and whether the decoder is the API server's own (not a custom unmarshaler's, which
/// neither validates fields nor keeps the error context).
#[derive(Clone)]
struct Step {
    json_path: String,
    go_fields: String,
    go_struct: &'static str,
    direct: bool,
}

impl Step {
    fn key(&self, key: &str) -> Step {
        Step { json_path: format!("{}.{key}", self.json_path), ..self.clone() }
    }

    fn index(&self, i: usize) -> Step {
        Step { json_path: format!("{}[{i}]", self.json_path), ..self.clone() }
    }

    fn field(&self, owner: &'static str, key: &str) -> Step {
        Step {
            json_path: format!("{}.{key}", self.json_path),
            go_fields: format!("{}.{key}", self.go_fields),
            go_struct: owner,
            direct: self.direct,
        }
    }

    fn custom(&self) -> Step {
        Step { direct: false, ..self.clone() }
    }
}

struct Walk<'s, 'o> {
    sink: &'s mut Sink<'o>,
}

impl Walk<'_, '_> {
    fn value(&mut self, node: &Node, shape: Shape, at: &Step, key_range: TextRange, depth: usize) {
        if depth > 128 || node.value == Value::Null {
            return;
        }
        let range = if node.range.is_empty() { key_range } else { node.range };
        match shape {
            Str => self.expect(node, matches!(node.value, Value::Str(_)), "string", "a string", at, range),
            Bool => self.expect(node, matches!(node.value, Value::Bool(_)), "bool", "a boolean", at, range),
            Int32 => {
                let ok = matches!(node.value, Value::Int(i) if i32::try_from(i).is_ok());
                self.expect(node, ok, "int32", "an integer (32 bits)", at, range)
            }
            Int64 => self.expect(node, matches!(node.value, Value::Int(_)), "int64", "an integer", at, range),
            Float => self.expect(node, matches!(node.value, Value::Int(_) | Value::Float(_)), "float64", "a number", at, range),
            Any => {}
            Bytes => {
                if let Value::Str(s) = &node.value {
                    if !is_base64(s) {
                        self.sink.out.push(
                            crdls_diagnostics::Diagnostic::new(
                                range,
                                Severity::Error,
                                codes::CRD_FIELD_TYPE,
                                "caBundle must be base64 (standard encoding, with padding): the API server cannot decode this CRD",
                            )
                            .with_path(at.json_path.clone()),
                        );
                    }
                } else {
                    self.expect(node, false, "[]uint8", "a base64 string", at, range);
                }
            }
            StrList => match &node.value {
                Value::Seq(list) => {
                    for (i, item) in list.iter().enumerate() {
                        self.value(item, Str, &at.index(i), range, depth + 1);
                    }
                }
                _ => self.expect(node, false, "[]string", "a list of strings", at, range),
            },
            AnyList => self.expect(node, matches!(node.value, Value::Seq(_)), "[]v1.JSON", "a list", at, range),
            Object(st) => self.object(node, st, at, range, depth),
            List(st) => match &node.value {
                Value::Seq(list) => {
                    for (i, item) in list.iter().enumerate() {
                        self.value(item, Object(st), &at.index(i), range, depth + 1);
                    }
                }
                _ => self.expect(node, false, &format!("[]v1.{}", st.go), "a list", at, range),
            },
            Schema => self.object(node, &JSON_SCHEMA_PROPS, at, range, depth),
            SchemaList => match &node.value {
                Value::Seq(list) => {
                    for (i, item) in list.iter().enumerate() {
                        self.value(item, Schema, &at.index(i), range, depth + 1);
                    }
                }
                _ => self.expect(node, false, "[]v1.JSONSchemaProps", "a list of schemas", at, range),
            },
            SchemaMap => match &node.value {
                Value::Map(map) => {
                    for e in map {
                        self.value(&e.value, Schema, &at.key(&e.key), e.key_range, depth + 1);
                    }
                }
                _ => self.expect(node, false, "map[string]v1.JSONSchemaProps", "a map of schemas", at, range),
            },
            SchemaOrArray => match &node.value {
                Value::Map(_) => self.value(node, Schema, &at.custom(), range, depth + 1),
                Value::Seq(list) => {
                    for (i, item) in list.iter().enumerate() {
                        self.value(item, Schema, &at.custom().index(i), range, depth + 1);
                    }
                }
                // The custom unmarshaler ignores anything else.
                _ => {}
            },
            SchemaOrBool => match &node.value {
                Value::Map(_) => self.value(node, Schema, &at.custom(), range, depth + 1),
                Value::Bool(_) => {}
                _ => self.decode_error(range, at, "boolean or JSON schema expected".into(), "must be a boolean or a schema"),
            },
            Dependencies => match &node.value {
                Value::Map(map) => {
                    for e in map {
                        match &e.value.value {
                            Value::Map(_) => self.value(&e.value, Schema, &at.custom().key(&e.key), e.key_range, depth + 1),
                            Value::Seq(_) => self.value(&e.value, StrList, &at.custom().key(&e.key), e.key_range, depth + 1),
                            _ => {}
                        }
                    }
                }
                _ => self.expect(node, false, "v1.JSONSchemaDependencies", "a map", at, range),
            },
        }
    }

    fn object(&mut self, node: &Node, st: &'static Struct, at: &Step, range: TextRange, depth: usize) {
        let Value::Map(map) = &node.value else {
            self.expect(node, false, &format!("v1.{}", st.go), "an object", at, range);
            return;
        };
        for e in map {
            match st.fields.iter().find(|(k, _)| *k == e.key) {
                Some((k, shape)) => self.value(&e.value, *shape, &at.field(st.go, k), e.key_range, depth + 1),
                None => self.unknown(e, st, at),
            }
        }
    }

    fn unknown(&mut self, entry: &crdls_yaml::Entry, st: &'static Struct, at: &Step) {
        let path = if at.json_path.is_empty() { entry.key.clone() } else { format!("{}.{}", at.json_path, entry.key) };
        let hint = match did_you_mean(&entry.key, st.fields.iter().map(|(k, _)| *k)) {
            Some(s) => format!("; did you mean \"{s}\"?"),
            None => String::new(),
        };
        let documented = if DOCUMENTED_FORBIDDEN.contains(&entry.key.as_str()) && st.go == "JSONSchemaProps" {
            " (the CRD documentation lists it among the fields a schema may not set)"
        } else {
            ""
        };
        let what = format!("{} has no field {}{documented}", st.go, crdls_go::print::quote(&entry.key));
        let d = if !at.direct {
            crdls_diagnostics::Diagnostic::new(
                entry.key_range,
                Severity::Warning,
                codes::CRD_UNKNOWN_FIELD,
                format!("{what}: the API server drops it without a warning (schemas under items and additionalProperties are decoded without field validation){hint}"),
            )
        } else if self.sink.strict {
            crdls_diagnostics::Diagnostic::new(
                entry.key_range,
                Severity::Error,
                codes::CRD_UNKNOWN_FIELD,
                format!("{what}: the CRD is rejected (strict field validation){hint}"),
            )
            // The decoder quotes the path with `strconv.Quote` (a line break in a name shows as `\n`).
            .with_cause(format!("strict decoding error: unknown field {}", crdls_go::print::quote(&path)))
        } else {
            crdls_diagnostics::Diagnostic::new(
                entry.key_range,
                Severity::Warning,
                codes::CRD_UNKNOWN_FIELD,
                format!("{what}: the API server drops it (kubectl's default strict field validation rejects the CRD){hint}"),
            )
            .with_cause(format!("unknown field {}", crdls_go::print::quote(&path)))
        };
        self.sink.out.push(d.with_path(path));
    }

    /// A value that does not fit the Go type (`ok` false) fails decoding.
    fn expect(&mut self, node: &Node, ok: bool, go_type: &str, wanted: &str, at: &Step, range: TextRange) {
        if ok {
            return;
        }
        let found = match &node.value {
            // For an integer field Go names the number too.
            Value::Int(_) | Value::Float(_) if go_type.starts_with("int") => format!("number {}", crate::gofmt::json(node)),
            Value::Null => return,
            other => other.json_type().to_string(),
        };
        let json = format!("json: cannot unmarshal {found} into Go struct field {}.{} of type {go_type}", at.go_struct, at.go_fields);
        let name = at.json_path.rsplit(['.', ']']).next().unwrap_or(&at.json_path).to_string();
        let shown = found.split(' ').next().unwrap_or(&found).replace("bool", "boolean").replace("number", "a number");
        let message = format!("{name} must be {wanted}, not {}", article(&shown));
        self.decode_error(range, at, json, &message);
    }

    fn decode_error(&mut self, range: TextRange, at: &Step, json: String, message: &str) {
        let mut d = crdls_diagnostics::Diagnostic::new(
            range,
            Severity::Error,
            codes::CRD_FIELD_TYPE,
            format!("{message}: the API server cannot decode this CRD"),
        )
        .with_path(at.json_path.clone());
        // A custom unmarshaler's error loses the decoder's context; only direct errors print as shown.
        if at.direct {
            d = d.with_cause(format!("CustomResourceDefinition in version \"v1\" cannot be handled as a CustomResourceDefinition: {json}"));
        }
        self.sink.out.push(d);
    }
}

fn article(kind: &str) -> String {
    match kind {
        "a number" => kind.to_string(),
        k if k.starts_with(['a', 'e', 'i', 'o', 'u']) => format!("an {k}"),
        k => format!("a {k}"),
    }
}

/// Whether Go's standard base64 decoding accepts `s` (padding required; JSON decoding of `[]byte`).
fn is_base64(s: &str) -> bool {
    let bytes = s.as_bytes();
    if !bytes.len().is_multiple_of(4) {
        return false;
    }
    let body = s.trim_end_matches('=');
    if bytes.len() - body.len() > 2 {
        return false;
    }
    body.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'+' || b == b'/')
}
