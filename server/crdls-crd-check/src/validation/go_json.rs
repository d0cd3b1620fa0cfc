//! Some CRD errors print a whole internal Go struct as the bad value: the API server marshals it to
//! JSON, and since the internal `apiextensions` types have no JSON tags, the keys are the Go field
//! names in declaration order, with every field present (`null` for nil pointers, slices and maps).
//! This module renders a CRD's YAML that way: a schema (`JSONSchemaProps`), a schema's `items`, and
//! the list of versions (`spec.versions: Invalid value: [{"Name":"v1","Served":true,...}]`).

use crdls_yaml::{Node, Value};

use super::{get, CrdDoc, Layout};
use crate::gofmt;

/// `JSONSchemaProps` as JSON, or `null`.
pub(super) fn schema(node: Option<&Node>) -> String {
    let Some(node) = node.filter(|n| matches!(n.value, Value::Map(_))) else {
        return "null".into();
    };
    let mut o = Obj::default();
    o.string("ID", node, "id");
    o.string("Schema", node, "$schema");
    o.pointer("Ref", node, "$ref");
    o.string("Description", node, "description");
    o.string("Type", node, "type");
    o.boolean("Nullable", node, "nullable");
    o.string("Format", node, "format");
    o.string("Title", node, "title");
    o.pointer("Default", node, "default");
    o.pointer("Maximum", node, "maximum");
    o.boolean("ExclusiveMaximum", node, "exclusiveMaximum");
    o.pointer("Minimum", node, "minimum");
    o.boolean("ExclusiveMinimum", node, "exclusiveMinimum");
    o.pointer("MaxLength", node, "maxLength");
    o.pointer("MinLength", node, "minLength");
    o.string("Pattern", node, "pattern");
    o.pointer("MaxItems", node, "maxItems");
    o.pointer("MinItems", node, "minItems");
    o.boolean("UniqueItems", node, "uniqueItems");
    o.pointer("MultipleOf", node, "multipleOf");
    o.pointer("Enum", node, "enum");
    o.pointer("MaxProperties", node, "maxProperties");
    o.pointer("MinProperties", node, "minProperties");
    o.pointer("Required", node, "required");
    o.raw("Items", get(node, "items").map_or("null".into(), |i| items(Some(i))));
    for (go, key) in [("AllOf", "allOf"), ("OneOf", "oneOf"), ("AnyOf", "anyOf")] {
        o.raw(go, list(get(node, key), |n| n.map_or_else(|| "null".into(), schema_value)));
    }
    o.raw("Not", schema(get(node, "not")));
    o.raw("Properties", map(get(node, "properties"), schema_value));
    o.raw("AdditionalProperties", or_bool(get(node, "additionalProperties")));
    o.raw("PatternProperties", map(get(node, "patternProperties"), schema_value));
    o.raw(
        "Dependencies",
        map(get(node, "dependencies"), |v| match &v.value {
            Value::Seq(_) => format!("{{\"Schema\":null,\"Property\":{}}}", gofmt::json(v)),
            _ => format!("{{\"Schema\":{},\"Property\":null}}", schema(Some(v))),
        }),
    );
    o.raw("AdditionalItems", or_bool(get(node, "additionalItems")));
    o.raw("Definitions", map(get(node, "definitions"), schema_value));
    o.raw(
        "ExternalDocs",
        get(node, "externalDocs").map_or("null".into(), |d| {
            let mut e = Obj::default();
            e.string("Description", d, "description");
            e.string("URL", d, "url");
            e.finish()
        }),
    );
    o.pointer("Example", node, "example");
    o.pointer("XPreserveUnknownFields", node, "x-kubernetes-preserve-unknown-fields");
    o.boolean("XEmbeddedResource", node, "x-kubernetes-embedded-resource");
    o.boolean("XIntOrString", node, "x-kubernetes-int-or-string");
    o.pointer("XListMapKeys", node, "x-kubernetes-list-map-keys");
    o.pointer("XListType", node, "x-kubernetes-list-type");
    o.pointer("XMapType", node, "x-kubernetes-map-type");
    o.raw(
        "XValidations",
        list(get(node, "x-kubernetes-validations"), |r| {
            let Some(r) = r else { return "null".into() };
            let mut e = Obj::default();
            e.string("Rule", r, "rule");
            e.string("Message", r, "message");
            e.string("MessageExpression", r, "messageExpression");
            e.pointer("Reason", r, "reason");
            e.string("FieldPath", r, "fieldPath");
            e.pointer("OptionalOldSelf", r, "optionalOldSelf");
            e.finish()
        }),
    );
    o.finish()
}

/// A `JSONSchemaProps` held by value (in a map of properties, a list of `allOf`, ...) as JSON: Go
/// decodes `null` there as the zero struct, which prints with every field, not as `null`.
fn schema_value(node: &Node) -> String {
    if node.value == Value::Null {
        let empty = Node { range: node.range, value: Value::Map(Vec::new()), style: node.style };
        return schema(Some(&empty));
    }
    schema(Some(node))
}

/// `JSONSchemaPropsOrArray` (`items`) as JSON.
pub(super) fn items(node: Option<&Node>) -> String {
    match node.map(|n| &n.value) {
        Some(Value::Map(_)) => format!("{{\"Schema\":{},\"JSONSchemas\":null}}", schema(node)),
        Some(Value::Seq(list)) => {
            let schemas = if list.is_empty() { "null".to_string() } else { list_of(list, schema_value) };
            format!("{{\"Schema\":null,\"JSONSchemas\":{schemas}}}")
        }
        _ => "{\"Schema\":null,\"JSONSchemas\":null}".into(),
    }
}

/// The internal `[]CustomResourceDefinitionVersion` after the conversion: fields the conversion moved
/// to the top level print as `null`.
pub(super) fn versions(crd: &CrdDoc<'_>) -> String {
    let Some(all) = crd.spec.and_then(|s| get(s, "versions")).and_then(Node::as_seq) else {
        return "null".into();
    };
    let layout: Layout = crd.layout;
    list_of(all, |v| {
        let mut o = Obj::default();
        o.string("Name", v, "name");
        o.boolean("Served", v, "served");
        o.boolean("Storage", v, "storage");
        o.boolean("Deprecated", v, "deprecated");
        o.pointer("DeprecationWarning", v, "deprecationWarning");
        let schema_json = match get(v, "schema").filter(|_| !layout.schema) {
            Some(s) => format!("{{\"OpenAPIV3Schema\":{}}}", schema(get(s, "openAPIV3Schema"))),
            None => "null".into(),
        };
        o.raw("Schema", schema_json);
        let subresources = match get(v, "subresources").filter(|_| !layout.subresources) {
            Some(s) => {
                let status = if get(s, "status").is_some() { "{}" } else { "null" };
                let scale = get(s, "scale").map_or("null".to_string(), |sc| {
                    let mut e = Obj::default();
                    e.string("SpecReplicasPath", sc, "specReplicasPath");
                    e.string("StatusReplicasPath", sc, "statusReplicasPath");
                    e.pointer("LabelSelectorPath", sc, "labelSelectorPath");
                    e.finish()
                });
                format!("{{\"Status\":{status},\"Scale\":{scale}}}")
            }
            None => "null".into(),
        };
        o.raw("Subresources", subresources);
        let columns = if layout.columns {
            "null".to_string()
        } else {
            list(get(v, "additionalPrinterColumns"), |c| {
                let Some(c) = c else { return "null".into() };
                let mut e = Obj::default();
                e.string("Name", c, "name");
                e.string("Type", c, "type");
                e.string("Format", c, "format");
                e.string("Description", c, "description");
                e.raw("Priority", get(c, "priority").map_or("0".into(), gofmt::json));
                e.string("JSONPath", c, "jsonPath");
                e.finish()
            })
        };
        o.raw("AdditionalPrinterColumns", columns);
        let fields = if layout.selectable {
            "null".to_string()
        } else {
            list(get(v, "selectableFields"), |f| {
                let Some(f) = f else { return "null".into() };
                let mut e = Obj::default();
                e.string("JSONPath", f, "jsonPath");
                e.finish()
            })
        };
        o.raw("SelectableFields", fields);
        o.finish()
    })
}

/// A JSON object built field by field.
#[derive(Default)]
struct Obj {
    out: String,
}

impl Obj {
    fn raw(&mut self, key: &str, value: String) {
        self.out.push(if self.out.is_empty() { '{' } else { ',' });
        gofmt::json_string_into(key, &mut self.out);
        self.out.push(':');
        self.out.push_str(&value);
    }

    /// A Go `string` field: `""` when absent.
    fn string(&mut self, key: &str, node: &Node, field: &str) {
        let mut s = String::new();
        gofmt::json_string_into(node.get_str(field).unwrap_or_default(), &mut s);
        self.raw(key, s);
    }

    /// A Go `bool` field: `false` when absent.
    fn boolean(&mut self, key: &str, node: &Node, field: &str) {
        self.raw(key, matches!(node.get(field).map(|v| &v.value), Some(Value::Bool(true))).to_string());
    }

    /// A pointer, slice or `JSON` field: the value's JSON, or `null`.
    fn pointer(&mut self, key: &str, node: &Node, field: &str) {
        self.raw(key, get(node, field).map_or("null".into(), gofmt::json));
    }

    fn finish(mut self) -> String {
        if self.out.is_empty() {
            self.out.push('{');
        }
        self.out.push('}');
        self.out
    }
}

/// A slice of structs: `null` when absent, else each element.
fn list(node: Option<&Node>, f: impl Fn(Option<&Node>) -> String) -> String {
    match node.and_then(Node::as_seq) {
        Some(items) => list_of(items, |n| f(Some(n))),
        None => "null".into(),
    }
}

fn list_of(items: &[Node], f: impl Fn(&Node) -> String) -> String {
    let parts: Vec<String> = items.iter().map(f).collect();
    format!("[{}]", parts.join(","))
}

/// A map of structs, keys sorted as Go's encoder sorts them.
fn map(node: Option<&Node>, f: impl Fn(&Node) -> String) -> String {
    let Some(entries) = node.and_then(Node::as_map) else { return "null".into() };
    let mut sorted: Vec<(&str, &Node)> = Vec::new();
    for e in entries {
        match sorted.iter_mut().find(|(k, _)| *k == e.key) {
            Some(slot) => slot.1 = &e.value,
            None => sorted.push((&e.key, &e.value)),
        }
    }
    sorted.sort_by(|a, b| a.0.cmp(b.0));
    let parts: Vec<String> = sorted
        .into_iter()
        .map(|(k, v)| {
            let mut s = String::new();
            gofmt::json_string_into(k, &mut s);
            format!("{s}:{}", f(v))
        })
        .collect();
    format!("{{{}}}", parts.join(","))
}

/// `JSONSchemaPropsOrBool`: `{"Allows":...,"Schema":...}`.
fn or_bool(node: Option<&Node>) -> String {
    match node.map(|n| &n.value) {
        None => "null".into(),
        Some(Value::Bool(b)) => format!("{{\"Allows\":{b},\"Schema\":null}}"),
        Some(_) => format!("{{\"Allows\":true,\"Schema\":{}}}", schema(node)),
    }
}
