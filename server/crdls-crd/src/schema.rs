//! The OpenAPI v3 schema of a CRD version (JSONSchemaProps), read from YAML with the range of every node.

use std::sync::Arc;

use crdls_yaml::{Node, Value};

use crdls_diagnostics::TextRange;

/// One schema node. Fields mirror `JSONSchemaProps`; absent keywords are `None` or empty. The
/// keywords most schema nodes never use live behind [`Schema::rare`], which keeps the node small:
/// a large CRD set holds tens of thousands of them.
#[derive(Clone, Debug, Default)]
pub struct Schema {
    /// The range of the schema node in the CRD file, for go-to-definition.
    pub range: TextRange,
    /// `type`.
    pub ty: Option<Arc<str>>,
    /// `format`.
    pub format: Option<Arc<str>>,
    /// `description`.
    pub description: Option<Arc<str>>,
    /// `nullable`.
    pub nullable: bool,
    /// `x-kubernetes-int-or-string`.
    pub int_or_string: bool,
    /// `x-kubernetes-embedded-resource`.
    pub embedded_resource: bool,
    /// `x-kubernetes-preserve-unknown-fields`.
    pub preserve_unknown_fields: Option<bool>,
    /// `default`, as written.
    pub default: Option<Box<Node>>,
    /// `enum` members, as written.
    pub enumeration: Option<Box<[Node]>>,
    /// `required`.
    pub required: Box<[String]>,
    /// `properties`, in source order.
    pub properties: Box<[Property]>,
    /// The indexes of `properties` sorted by name (source order among equal names), so that
    /// [`Schema::property`] is a binary search: objects with tens of thousands of properties exist.
    pub property_order: Box<[u32]>,
    /// `additionalProperties`.
    pub additional_properties: Option<AdditionalProperties>,
    /// `items` (a single schema; the array form is not allowed in CRDs and is read as its first element).
    pub items: Option<Arc<Schema>>,
    /// `x-kubernetes-list-type`.
    pub list_type: Option<Arc<str>>,
    /// `x-kubernetes-validations`.
    pub validations: Box<[ValidationRule]>,
    /// The keywords few nodes use; see [`Schema::rare`].
    rare: Option<Box<Rare>>,
    /// Whether this node or one below it (through properties, additionalProperties or items) declares
    /// `x-kubernetes-validations`.
    pub has_rules: bool,
}

/// The keywords most schema nodes do not use.
#[derive(Clone, Debug, Default)]
pub struct Rare {
    /// `title`.
    pub title: Option<String>,
    /// `example`, as written.
    pub example: Option<Node>,
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
    /// `allOf`.
    pub all_of: Vec<Arc<Schema>>,
    /// `anyOf`.
    pub any_of: Vec<Arc<Schema>>,
    /// `oneOf`.
    pub one_of: Vec<Arc<Schema>>,
    /// `not`.
    pub not: Option<Arc<Schema>>,
    /// `x-kubernetes-list-map-keys`.
    pub list_map_keys: Vec<String>,
    /// `x-kubernetes-map-type`.
    pub map_type: Option<String>,
}

/// What [`Schema::rare`] returns for a node that uses none of those keywords.
static NO_RARE: Rare = Rare {
    title: None,
    example: None,
    pattern: None,
    maximum: None,
    exclusive_maximum: false,
    minimum: None,
    exclusive_minimum: false,
    multiple_of: None,
    max_length: None,
    min_length: None,
    max_items: None,
    min_items: None,
    max_properties: None,
    min_properties: None,
    unique_items: false,
    all_of: Vec::new(),
    any_of: Vec::new(),
    one_of: Vec::new(),
    not: None,
    list_map_keys: Vec::new(),
    map_type: None,
};

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
    /// The node of the `messageExpression` string.
    pub message_expression_node: Option<Node>,
    /// `reason`.
    pub reason: Option<String>,
    /// `fieldPath`.
    pub field_path: Option<String>,
    /// `optionalOldSelf`.
    pub optional_old_self: Option<bool>,
    /// The range of the whole entry.
    pub range: TextRange,
    /// The rule compiled against its schema node, once it has been (see `ValidationRule::compiled`).
    pub(crate) compiled: std::sync::OnceLock<Arc<crate::cel::CompiledRule>>,
}

impl Schema {
    /// Reads a schema from its YAML node, with the range of every node. Keywords of the wrong shape are
    /// left out; reporting them is the job of CRD validation.
    pub fn from_node(node: &Node) -> Schema {
        Reader::default().schema(node).0
    }

    /// Reads a schema without positions, every sub-schema shared with the equal ones already read (see
    /// [`crate::intern::shared_schema`]): what the index keeps of the CRDs it reads identity first, where
    /// a PodSpec embedded in ten CRDs, or a schema repeated in every version of one, is held once. Its
    /// ranges are empty; a caller that needs them reads the schema again with [`Schema::from_node`].
    pub fn shared_from_node(node: &Node) -> Arc<Schema> {
        Arc::new(Reader { sharing: Some(Default::default()) }.schema(node).0)
    }

    /// The keywords few nodes use (bounds, lengths, counts, pattern, combinators, map keys ...).
    pub fn rare(&self) -> &Rare {
        self.rare.as_deref().unwrap_or(&NO_RARE)
    }

    /// The schema of property `name`, if declared.
    pub fn property(&self, name: &str) -> Option<&Property> {
        if self.property_order.len() != self.properties.len() {
            // A schema built by hand rather than read by `from_node`.
            return self.properties.iter().find(|p| p.name == name);
        }
        let order = &self.property_order;
        let first = order.partition_point(|&i| self.properties[i as usize].name.as_str() < name);
        order.get(first).map(|&i| &self.properties[i as usize]).filter(|p| p.name == name)
    }

    /// Whether unknown fields are kept at this node.
    pub fn preserves_unknown_fields(&self) -> bool {
        self.preserve_unknown_fields == Some(true)
    }
}

impl Rare {
    /// Reads one keyword; returns whether it was one of these.
    fn read(&mut self, key: &str, v: &Node, r: &Reader) -> bool {
        match key {
            "title" => self.title = v.as_str().map(str::to_string),
            "example" => self.example = Some(r.node(v)),
            "pattern" => self.pattern = v.as_str().map(str::to_string),
            "maximum" => self.maximum = as_f64(v),
            "exclusiveMaximum" => self.exclusive_maximum = as_bool(v),
            "minimum" => self.minimum = as_f64(v),
            "exclusiveMinimum" => self.exclusive_minimum = as_bool(v),
            "multipleOf" => self.multiple_of = as_f64(v),
            "maxLength" => self.max_length = as_u64(v),
            "minLength" => self.min_length = as_u64(v),
            "maxItems" => self.max_items = as_u64(v),
            "minItems" => self.min_items = as_u64(v),
            "maxProperties" => self.max_properties = as_u64(v),
            "minProperties" => self.min_properties = as_u64(v),
            "uniqueItems" => self.unique_items = as_bool(v),
            "allOf" => self.all_of = r.schemas(v),
            "anyOf" => self.any_of = r.schemas(v),
            "oneOf" => self.one_of = r.schemas(v),
            "not" => self.not = v.as_map().map(|_| r.child(v)),
            "x-kubernetes-list-map-keys" => self.list_map_keys = strings(v),
            "x-kubernetes-map-type" => self.map_type = v.as_str().map(str::to_string),
            _ => return false,
        }
        true
    }
}

impl ValidationRule {
    fn from_node(node: &Node, r: &Reader) -> ValidationRule {
        ValidationRule {
            rule: node.get_str("rule").unwrap_or_default().to_string(),
            rule_node: node.get("rule").map(|n| r.node(n)),
            message: node.get_str("message").map(str::to_string),
            message_expression: node.get_str("messageExpression").map(str::to_string),
            message_expression_node: node.get("messageExpression").map(|n| r.node(n)),
            reason: node.get_str("reason").map(str::to_string),
            field_path: node.get_str("fieldPath").map(str::to_string),
            optional_old_self: node.get("optionalOldSelf").map(as_bool),
            range: r.range(node.range),
            compiled: std::sync::OnceLock::new(),
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

/// Reads schema nodes, with their positions or (sharing) without them and shared.
#[derive(Default)]
struct Reader {
    /// When sharing: the hash of each schema node read so far, by its address in the YAML tree, so
    /// that hashing a node reuses its sub-schemas' hashes rather than walking them again.
    sharing: Option<std::cell::RefCell<std::collections::HashMap<*const Node, u128>>>,
}

impl Reader {
    /// A schema node and (when sharing) the hash of its YAML, which decides what it is shared with.
    fn schema(&self, node: &Node) -> (Schema, u128) {
        let mut s = Schema { range: self.range(node.range), ..Schema::default() };
        let Some(entries) = node.as_map() else { return (s, self.hash(node)) };
        let mut rare = Rare::default();
        let mut has_rare = false;
        // Shared: the same types, formats and descriptions recur across nodes and CRDs.
        let text = |v: &Node| v.as_str().map(crate::intern::shared);
        for e in entries {
            let v = &e.value;
            let key = e.key.as_str();
            match key {
                "type" => s.ty = text(v),
                "format" => s.format = text(v),
                "description" => s.description = text(v),
                "nullable" => s.nullable = as_bool(v),
                "default" => s.default = Some(Box::new(self.node(v))),
                "enum" => s.enumeration = v.as_seq().map(|items| items.iter().map(|i| self.node(i)).collect()),
                "required" => s.required = strings(v).into(),
                "properties" => {
                    if let Some(props) = v.as_map() {
                        s.properties = props
                            .iter()
                            .map(|p| Property { name: p.key.clone(), name_range: self.range(p.key_range), schema: self.child(&p.value) })
                            .collect();
                        let mut order: Vec<u32> = (0..s.properties.len() as u32).collect();
                        order.sort_by(|&a, &b| s.properties[a as usize].name.cmp(&s.properties[b as usize].name));
                        s.property_order = order.into();
                    }
                }
                "additionalProperties" => {
                    s.additional_properties = match &v.value {
                        Value::Bool(b) => Some(AdditionalProperties::Bool(*b)),
                        Value::Map(_) => Some(AdditionalProperties::Schema(self.child(v))),
                        _ => None,
                    }
                }
                "items" => {
                    s.items = match &v.value {
                        Value::Map(_) => Some(self.child(v)),
                        Value::Seq(items) => items.first().map(|i| self.child(i)),
                        _ => None,
                    }
                }
                "x-kubernetes-preserve-unknown-fields" => s.preserve_unknown_fields = Some(as_bool(v)),
                "x-kubernetes-embedded-resource" => s.embedded_resource = as_bool(v),
                "x-kubernetes-int-or-string" => s.int_or_string = as_bool(v),
                "x-kubernetes-list-type" => s.list_type = text(v),
                "x-kubernetes-validations" => {
                    s.validations =
                        v.as_seq().map(|rules| rules.iter().map(|r| ValidationRule::from_node(r, self)).collect()).unwrap_or_default()
                }
                _ => has_rare |= rare.read(key, v, self),
            }
        }
        if has_rare {
            s.rare = Some(Box::new(rare));
        }
        s.has_rules = !s.validations.is_empty()
            || s.properties.iter().any(|p| p.schema.has_rules)
            || s.items.as_deref().is_some_and(|i| i.has_rules)
            || matches!(&s.additional_properties, Some(AdditionalProperties::Schema(v)) if v.has_rules);
        let hash = self.hash(node);
        (s, hash)
    }

    /// A sub-schema: its own, or (sharing) the equal one read before.
    fn child(&self, node: &Node) -> Arc<Schema> {
        let (schema, hash) = self.schema(node);
        match &self.sharing {
            Some(_) => crate::intern::shared_schema(hash, schema),
            None => Arc::new(schema),
        }
    }

    fn schemas(&self, node: &Node) -> Vec<Arc<Schema>> {
        node.as_seq().map(|items| items.iter().map(|i| self.child(i)).collect()).unwrap_or_default()
    }

    /// A range as kept: none when sharing.
    fn range(&self, range: TextRange) -> TextRange {
        if self.sharing.is_some() {
            TextRange::default()
        } else {
            range
        }
    }

    /// A YAML value kept in the schema (`default`, `enum`, `example`, a rule's string): without its
    /// ranges when sharing.
    fn node(&self, node: &Node) -> Node {
        if self.sharing.is_none() {
            return node.clone();
        }
        fn strip(node: &Node) -> Node {
            let value = match &node.value {
                Value::Seq(items) => Value::Seq(items.iter().map(strip).collect()),
                Value::Map(entries) => Value::Map(
                    entries
                        .iter()
                        .map(|e| crdls_yaml::Entry { key: e.key.clone(), key_range: TextRange::default(), value: strip(&e.value) })
                        .collect(),
                ),
                v => v.clone(),
            };
            Node { range: TextRange::default(), value, style: node.style }
        }
        strip(node)
    }

    /// The hash of a schema node's YAML (keys, values and styles; no ranges), 128 bits so that two
    /// different schemas never meet; `0` when not sharing. Sub-schemas read before are not walked again.
    fn hash(&self, node: &Node) -> u128 {
        let Some(known) = &self.sharing else { return 0 };
        let hash = {
            let known = known.borrow();
            let mut pair = HashPair::default();
            hash_node(node, &known, &mut pair, true);
            pair.finish()
        };
        known.borrow_mut().insert(node as *const Node, hash);
        hash
    }
}

/// Two 64-bit hashers with different seeds fed the same data (foldhash: several times faster than
/// SipHash on the long descriptions schemas carry; nothing here is adversarial input to a hash table,
/// and 128 bits keep two different schemas from meeting).
struct HashPair(foldhash::quality::FoldHasher<'static>, foldhash::quality::FoldHasher<'static>);

impl Default for HashPair {
    fn default() -> HashPair {
        use std::hash::BuildHasher;
        static FIRST: foldhash::quality::FixedState = foldhash::quality::FixedState::with_seed(0x6372_646c_7331);
        static SECOND: foldhash::quality::FixedState = foldhash::quality::FixedState::with_seed(0x7363_6865_6d61);
        HashPair(FIRST.build_hasher(), SECOND.build_hasher())
    }
}

impl HashPair {
    fn write(&mut self, bytes: &[u8]) {
        use std::hash::Hasher;
        self.0.write(bytes);
        self.1.write(bytes);
    }

    fn finish(&self) -> u128 {
        use std::hash::Hasher;
        (u128::from(self.0.finish()) << 64) | u128::from(self.1.finish())
    }
}

fn hash_node(node: &Node, known: &std::collections::HashMap<*const Node, u128>, h: &mut HashPair, top: bool) {
    if !top {
        if let Some(hash) = known.get(&(node as *const Node)) {
            h.write(&[0xfe]);
            h.write(&hash.to_le_bytes());
            return;
        }
    }
    h.write(&[node.style as u8]);
    match &node.value {
        Value::Null => h.write(&[0]),
        Value::Bool(b) => h.write(&[1, u8::from(*b)]),
        Value::Int(i) => {
            h.write(&[2]);
            h.write(&i.to_le_bytes());
        }
        Value::Float(f) => {
            h.write(&[3]);
            h.write(&f.to_bits().to_le_bytes());
        }
        Value::Str(text) => {
            h.write(&[4]);
            h.write(&(text.len() as u64).to_le_bytes());
            h.write(text.as_bytes());
        }
        Value::Seq(items) => {
            h.write(&[5]);
            h.write(&(items.len() as u64).to_le_bytes());
            for item in items {
                hash_node(item, known, h, false);
            }
        }
        Value::Map(entries) => {
            h.write(&[6]);
            h.write(&(entries.len() as u64).to_le_bytes());
            for e in entries {
                h.write(&(e.key.len() as u64).to_le_bytes());
                h.write(e.key.as_bytes());
                hash_node(&e.value, known, h, false);
            }
        }
    }
}
