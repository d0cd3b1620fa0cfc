//! The OpenAPI v3 schema of a CRD version (JSONSchemaProps), read from YAML with the range of every node.

use std::sync::Arc;

use crdls_yaml::{Node, TextRange, Value};

/// One schema node. Fields mirror `JSONSchemaProps`; absent keywords are `None` or empty.
#[derive(Clone, Debug, Default)]
pub struct Schema {
    /// The range of the schema node in the CRD file, for go-to-definition.
    pub range: TextRange,
    /// `type`.
    pub ty: Option<String>,
    /// `format`.
    pub format: Option<String>,
    /// `description`.
    pub description: Option<String>,
    /// `title`.
    pub title: Option<String>,
    /// `nullable`.
    pub nullable: bool,
    /// `default`, as written.
    pub default: Option<Node>,
    /// `example`, as written.
    pub example: Option<Node>,
    /// `enum` members, as written.
    pub enumeration: Option<Vec<Node>>,
    /// `pattern`.
    pub pattern: Option<String>,
    /// `maximum`.
    pub maximum: Option<f64>,
    /// `exclusiveMaximum`.
    pub exclusive_maximum: bool,
    /// `minimum`.
    pub minimum: Option<f64>,
    /// `exclusiveMinimum`.
    pub exclusive_minimum: bool,
    /// `multipleOf`.
    pub multiple_of: Option<f64>,
    /// `maxLength`.
    pub max_length: Option<u64>,
    /// `minLength`.
    pub min_length: Option<u64>,
    /// `maxItems`.
    pub max_items: Option<u64>,
    /// `minItems`.
    pub min_items: Option<u64>,
    /// `maxProperties`.
    pub max_properties: Option<u64>,
    /// `minProperties`.
    pub min_properties: Option<u64>,
    /// `uniqueItems` (the API server refuses CRDs that set it to true).
    pub unique_items: bool,
    /// `required`.
    pub required: Vec<String>,
    /// `properties`, in source order.
    pub properties: Vec<Property>,
    /// `additionalProperties`.
    pub additional_properties: Option<AdditionalProperties>,
    /// `items` (a single schema; the array form is not allowed in CRDs and is read as its first element).
    pub items: Option<Arc<Schema>>,
    /// `allOf`.
    pub all_of: Vec<Arc<Schema>>,
    /// `anyOf`.
    pub any_of: Vec<Arc<Schema>>,
    /// `oneOf`.
    pub one_of: Vec<Arc<Schema>>,
    /// `not`.
    pub not: Option<Arc<Schema>>,
    /// `x-kubernetes-preserve-unknown-fields`.
    pub preserve_unknown_fields: Option<bool>,
    /// `x-kubernetes-embedded-resource`.
    pub embedded_resource: bool,
    /// `x-kubernetes-int-or-string`.
    pub int_or_string: bool,
    /// `x-kubernetes-list-type`.
    pub list_type: Option<String>,
    /// `x-kubernetes-list-map-keys`.
    pub list_map_keys: Vec<String>,
    /// `x-kubernetes-map-type`.
    pub map_type: Option<String>,
    /// `x-kubernetes-validations`.
    pub validations: Vec<ValidationRule>,
}

/// One entry of `properties`.
#[derive(Clone, Debug)]
pub struct Property {
    /// The property name.
    pub name: String,
    /// The range of the name in the CRD file.
    pub name_range: TextRange,
    /// The property's schema.
    pub schema: Arc<Schema>,
}

/// `additionalProperties`: a boolean or a schema.
#[derive(Clone, Debug)]
pub enum AdditionalProperties {
    /// `true` or `false`.
    Bool(bool),
    /// A schema every extra property must match.
    Schema(Arc<Schema>),
}

/// One `x-kubernetes-validations` entry.
#[derive(Clone, Debug, Default)]
pub struct ValidationRule {
    /// The CEL expression.
    pub rule: String,
    /// The node of the rule string (for locating errors inside it).
    pub rule_node: Option<Node>,
    /// `message`.
    pub message: Option<String>,
    /// `messageExpression`.
    pub message_expression: Option<String>,
    /// `reason`.
    pub reason: Option<String>,
    /// `fieldPath`.
    pub field_path: Option<String>,
    /// `optionalOldSelf`.
    pub optional_old_self: Option<bool>,
    /// The range of the whole entry.
    pub range: TextRange,
}

impl Schema {
    /// Reads a schema from its YAML node. Keywords of the wrong shape are left out; reporting them is
    /// the job of CRD validation.
    pub fn from_node(node: &Node) -> Schema {
        let mut s = Schema { range: node.range, ..Schema::default() };
        let Some(entries) = node.as_map() else { return s };
        for e in entries {
            let v = &e.value;
            match e.key.as_str() {
                "type" => s.ty = v.as_str().map(str::to_string),
                "format" => s.format = v.as_str().map(str::to_string),
                "description" => s.description = v.as_str().map(str::to_string),
                "title" => s.title = v.as_str().map(str::to_string),
                "nullable" => s.nullable = as_bool(v),
                "default" => s.default = Some(v.clone()),
                "example" => s.example = Some(v.clone()),
                "enum" => s.enumeration = v.as_seq().map(<[Node]>::to_vec),
                "pattern" => s.pattern = v.as_str().map(str::to_string),
                "maximum" => s.maximum = as_f64(v),
                "exclusiveMaximum" => s.exclusive_maximum = as_bool(v),
                "minimum" => s.minimum = as_f64(v),
                "exclusiveMinimum" => s.exclusive_minimum = as_bool(v),
                "multipleOf" => s.multiple_of = as_f64(v),
                "maxLength" => s.max_length = as_u64(v),
                "minLength" => s.min_length = as_u64(v),
                "maxItems" => s.max_items = as_u64(v),
                "minItems" => s.min_items = as_u64(v),
                "maxProperties" => s.max_properties = as_u64(v),
                "minProperties" => s.min_properties = as_u64(v),
                "uniqueItems" => s.unique_items = as_bool(v),
                "required" => s.required = strings(v),
                "properties" => {
                    if let Some(props) = v.as_map() {
                        s.properties = props
                            .iter()
                            .map(|p| Property {
                                name: p.key.clone(),
                                name_range: p.key_range,
                                schema: Arc::new(Schema::from_node(&p.value)),
                            })
                            .collect();
                    }
                }
                "additionalProperties" => {
                    s.additional_properties = match &v.value {
                        Value::Bool(b) => Some(AdditionalProperties::Bool(*b)),
                        Value::Map(_) => Some(AdditionalProperties::Schema(Arc::new(Schema::from_node(v)))),
                        _ => None,
                    }
                }
                "items" => {
                    s.items = match &v.value {
                        Value::Map(_) => Some(Arc::new(Schema::from_node(v))),
                        Value::Seq(items) => items.first().map(|i| Arc::new(Schema::from_node(i))),
                        _ => None,
                    }
                }
                "allOf" => s.all_of = schemas(v),
                "anyOf" => s.any_of = schemas(v),
                "oneOf" => s.one_of = schemas(v),
                "not" => s.not = v.as_map().map(|_| Arc::new(Schema::from_node(v))),
                "x-kubernetes-preserve-unknown-fields" => s.preserve_unknown_fields = Some(as_bool(v)),
                "x-kubernetes-embedded-resource" => s.embedded_resource = as_bool(v),
                "x-kubernetes-int-or-string" => s.int_or_string = as_bool(v),
                "x-kubernetes-list-type" => s.list_type = v.as_str().map(str::to_string),
                "x-kubernetes-list-map-keys" => s.list_map_keys = strings(v),
                "x-kubernetes-map-type" => s.map_type = v.as_str().map(str::to_string),
                "x-kubernetes-validations" => {
                    s.validations = v.as_seq().map(|rules| rules.iter().map(ValidationRule::from_node).collect()).unwrap_or_default()
                }
                _ => {}
            }
        }
        s
    }

    /// The schema of property `name`, if declared.
    pub fn property(&self, name: &str) -> Option<&Property> {
        self.properties.iter().find(|p| p.name == name)
    }

    /// Whether unknown fields are kept at this node.
    pub fn preserves_unknown_fields(&self) -> bool {
        self.preserve_unknown_fields == Some(true)
    }
}

impl ValidationRule {
    fn from_node(node: &Node) -> ValidationRule {
        ValidationRule {
            rule: node.get_str("rule").unwrap_or_default().to_string(),
            rule_node: node.get("rule").cloned(),
            message: node.get_str("message").map(str::to_string),
            message_expression: node.get_str("messageExpression").map(str::to_string),
            reason: node.get_str("reason").map(str::to_string),
            field_path: node.get_str("fieldPath").map(str::to_string),
            optional_old_self: node.get("optionalOldSelf").map(as_bool),
            range: node.range,
        }
    }
}

fn as_bool(node: &Node) -> bool {
    matches!(node.value, Value::Bool(true))
}

fn as_f64(node: &Node) -> Option<f64> {
    match node.value {
        Value::Int(i) => Some(i as f64),
        Value::Float(f) => Some(f),
        _ => None,
    }
}

fn as_u64(node: &Node) -> Option<u64> {
    match node.value {
        Value::Int(i) if i >= 0 => Some(i as u64),
        _ => None,
    }
}

fn strings(node: &Node) -> Vec<String> {
    node.as_seq().map(|items| items.iter().filter_map(|i| i.as_str().map(str::to_string)).collect()).unwrap_or_default()
}

fn schemas(node: &Node) -> Vec<Arc<Schema>> {
    node.as_seq().map(|items| items.iter().map(|i| Arc::new(Schema::from_node(i))).collect()).unwrap_or_default()
}
