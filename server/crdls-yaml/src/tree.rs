//! The YAML tree crdls works on: JSON-shaped values whose every node and key keeps its byte range.

use crdls_diagnostics::TextRange;

/// How a node was written in the source.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Style {
    /// A plain scalar (`foo`, `12`, `true`).
    Plain,
    /// A single-quoted scalar.
    SingleQuoted,
    /// A double-quoted scalar.
    DoubleQuoted,
    /// A literal block scalar (`|`).
    Literal,
    /// A folded block scalar (`>`).
    Folded,
    /// A block mapping or sequence.
    Block,
    /// A flow mapping or sequence (`{}` / `[]`).
    Flow,
    /// An empty value: a key with nothing after it.
    Empty,
}

/// One node of the tree.
#[derive(Clone, Debug, PartialEq)]
pub struct Node {
    /// The node's source range. For an alias this is the alias itself (`*name`), while the
    /// expanded children keep the ranges of the anchored node they were copied from.
    pub range: TextRange,
    /// The value, resolved the way the Kubernetes API server's YAML decoder resolves it.
    pub value: Value,
    /// How the node was written.
    pub style: Style,
}

/// A JSON-shaped value.
#[derive(Clone, Debug, PartialEq)]
pub enum Value {
    /// `null`, `~` or nothing.
    Null,
    /// A boolean (YAML 1.1 spellings included: `yes`, `off`, ...).
    Bool(bool),
    /// An integer. Floats with an integral value become integers, as they do on the way to JSON.
    Int(i64),
    /// A number that is not an integer.
    Float(f64),
    /// A string.
    Str(String),
    /// A sequence.
    Seq(Vec<Node>),
    /// A mapping, in source order. Duplicate keys are kept (and reported by the parser).
    Map(Vec<Entry>),
}

/// One key-value pair of a mapping.
#[derive(Clone, Debug, PartialEq)]
pub struct Entry {
    /// The key, as the string JSON would use.
    pub key: String,
    /// The key's source range.
    pub key_range: TextRange,
    /// The value.
    pub value: Node,
}

impl Value {
    /// The JSON type name the API server uses in its messages: `string`, `integer`, `number`,
    /// `boolean`, `object`, `array` or `null`.
    pub fn type_name(&self) -> &'static str {
        match self {
            Value::Null => "null",
            Value::Bool(_) => "boolean",
            Value::Int(_) => "integer",
            Value::Float(_) => "number",
            Value::Str(_) => "string",
            Value::Seq(_) => "array",
            Value::Map(_) => "object",
        }
    }

    /// The word Go's `encoding/json` uses for this kind of value in an `UnmarshalTypeError`
    /// (`json: cannot unmarshal bool into Go struct field ...`): `bool`, `number`, `string`, `array`,
    /// `object` or `null`.
    pub fn json_type(&self) -> &'static str {
        match self {
            Value::Null => "null",
            Value::Bool(_) => "bool",
            Value::Int(_) | Value::Float(_) => "number",
            Value::Str(_) => "string",
            Value::Seq(_) => "array",
            Value::Map(_) => "object",
        }
    }
}

impl Node {
    /// The entries when the node is a mapping.
    pub fn as_map(&self) -> Option<&[Entry]> {
        match &self.value {
            Value::Map(entries) => Some(entries),
            _ => None,
        }
    }

    /// The items when the node is a sequence.
    pub fn as_seq(&self) -> Option<&[Node]> {
        match &self.value {
            Value::Seq(items) => Some(items),
            _ => None,
        }
    }

    /// The text when the node is a string.
    pub fn as_str(&self) -> Option<&str> {
        match &self.value {
            Value::Str(s) => Some(s),
            _ => None,
        }
    }

    /// The entry for `key` when the node is a mapping. With duplicate keys, the last one wins, as in the API server.
    pub fn entry(&self, key: &str) -> Option<&Entry> {
        self.as_map()?.iter().rev().find(|e| e.key == key)
    }

    /// The value for `key` when the node is a mapping.
    pub fn get(&self, key: &str) -> Option<&Node> {
        self.entry(key).map(|e| &e.value)
    }

    /// The string value for `key`, when there is one.
    pub fn get_str(&self, key: &str) -> Option<&str> {
        self.get(key)?.as_str()
    }

    /// The number of nodes in this subtree, this one included.
    pub fn count(&self) -> usize {
        1 + match &self.value {
            Value::Seq(items) => items.iter().map(Node::count).sum(),
            Value::Map(entries) => entries.iter().map(|e| e.value.count()).sum(),
            _ => 0,
        }
    }

    /// How many collections deep this subtree goes: 0 for a scalar, 1 for a list of scalars.
    pub fn height(&self) -> usize {
        match &self.value {
            Value::Seq(items) => 1 + items.iter().map(Node::height).max().unwrap_or(0),
            Value::Map(entries) => 1 + entries.iter().map(|e| e.value.height()).max().unwrap_or(0),
            _ => 0,
        }
    }
}
