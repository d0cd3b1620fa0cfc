//! CEL values at run time, with CEL's equality (numbers compare across int, uint and double; lists
//! and maps compare deeply) and the Kubernetes list semantics: a list declared
//! `x-kubernetes-list-type: set` compares as a set and a `map` list compares by its keys, and `+` on
//! them is a union or a merge.

use std::cmp::Ordering;
use std::collections::BTreeMap;
use std::fmt;
use std::net::IpAddr;
use std::sync::Arc;

use crate::k8s::{Quantity, Semver, Url};

/// A value.
#[derive(Clone, Debug)]
pub enum Value {
    /// `null`.
    Null,
    /// A `bool`.
    Bool(bool),
    /// An `int`.
    Int(i64),
    /// A `uint`.
    Uint(u64),
    /// A `double`.
    Double(f64),
    /// A `string`.
    String(Arc<str>),
    /// `bytes`.
    Bytes(Arc<[u8]>),
    /// A duration, in nanoseconds.
    Duration(i64),
    /// A timestamp: seconds and nanoseconds since the Unix epoch, UTC.
    Timestamp(Timestamp),
    /// A list.
    List(Arc<List>),
    /// A map.
    Map(Arc<Map>),
    /// An object of a schema-derived type: its present fields by escaped name.
    Object(Arc<Object>),
    /// A type, by its runtime name (`int`, `list`, `google.protobuf.Duration`).
    Type(Arc<str>),
    /// An optional value.
    Optional(Option<Arc<Value>>),
    /// A `net.IP`.
    Ip(IpAddr),
    /// A `net.CIDR`: the address as written and the prefix length.
    Cidr(IpAddr, u8),
    /// A `kubernetes.URL`.
    Url(Arc<Url>),
    /// A `kubernetes.Quantity`.
    Quantity(Arc<Quantity>),
    /// A `kubernetes.Semver`.
    Semver(Arc<Semver>),
    /// A `kubernetes.NamedFormat`, by name.
    Format(&'static str),
}

/// A timestamp.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Timestamp {
    /// Seconds since the Unix epoch.
    pub seconds: i64,
    /// Nanoseconds within the second.
    pub nanos: u32,
}

/// How a list compares and concatenates.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub enum ListKind {
    /// Ordered, as written (also `x-kubernetes-list-type: atomic`).
    #[default]
    Plain,
    /// `x-kubernetes-list-type: set`.
    Set,
    /// `x-kubernetes-list-type: map`, with its key fields (escaped names).
    Map(Arc<[String]>),
}

/// A list value.
#[derive(Clone, Debug, Default)]
pub struct List {
    /// The items.
    pub items: Vec<Value>,
    /// How it compares.
    pub kind: ListKind,
}

/// A map value, keeping insertion order.
#[derive(Clone, Debug, Default)]
pub struct Map {
    /// The entries.
    pub entries: Vec<(Value, Value)>,
}

/// An object value.
#[derive(Clone, Debug, Default)]
pub struct Object {
    /// The type's name.
    pub type_name: Arc<str>,
    /// The fields that are present.
    pub fields: BTreeMap<String, Value>,
    /// The fields a rule cannot select but the API server's value still holds (`unstructuredMap`):
    /// unknown fields that `x-kubernetes-preserve-unknown-fields` kept, by their names as written,
    /// as plain data. They count in equality: two objects are equal only with as many fields each,
    /// and such a field of the left one equals the right one's (Go's `DeepEqual`) when that has it.
    pub unknown: BTreeMap<String, Value>,
}

impl Map {
    /// The value at `key`, with numeric keys compared across int, uint and double.
    pub fn get(&self, key: &Value) -> Option<&Value> {
        self.entries.iter().find(|(k, _)| key_equal(k, key)).map(|(_, v)| v)
    }
}

fn key_equal(a: &Value, b: &Value) -> bool {
    match (a, b) {
        (Value::String(x), Value::String(y)) => x == y,
        (Value::Bool(x), Value::Bool(y)) => x == y,
        _ => numeric_cmp(a, b) == Some(Ordering::Equal),
    }
}

impl Value {
    /// A string value.
    pub fn string(s: impl Into<Arc<str>>) -> Value {
        Value::String(s.into())
    }

    /// A plain list value.
    pub fn list(items: Vec<Value>) -> Value {
        Value::List(Arc::new(List { items, kind: ListKind::Plain }))
    }

    /// The runtime type name, what `type(value)` evaluates to.
    pub fn type_name(&self) -> Arc<str> {
        Arc::from(match self {
            Value::Null => "null_type",
            Value::Bool(_) => "bool",
            Value::Int(_) => "int",
            Value::Uint(_) => "uint",
            Value::Double(_) => "double",
            Value::String(_) => "string",
            Value::Bytes(_) => "bytes",
            Value::Duration(_) => "google.protobuf.Duration",
            Value::Timestamp(_) => "google.protobuf.Timestamp",
            Value::List(_) => "list",
            Value::Map(_) => "map",
            Value::Object(o) => return o.type_name.clone(),
            Value::Type(_) => "type",
            Value::Optional(_) => "optional_type",
            Value::Ip(_) => "net.IP",
            Value::Cidr(..) => "net.CIDR",
            Value::Url(_) => "kubernetes.URL",
            Value::Quantity(_) => "kubernetes.Quantity",
            Value::Semver(_) => "kubernetes.Semver",
            Value::Format(_) => "kubernetes.NamedFormat",
        })
    }

    /// CEL equality. Values of unrelated types are not equal (no error), as in cel-go's
    /// heterogeneous equality.
    pub fn equals(&self, other: &Value) -> bool {
        match (self, other) {
            (Value::Null, Value::Null) => true,
            (Value::Bool(a), Value::Bool(b)) => a == b,
            (Value::String(a), Value::String(b)) => a == b,
            (Value::Bytes(a), Value::Bytes(b)) => a == b,
            (Value::Duration(a), Value::Duration(b)) => a == b,
            (Value::Timestamp(a), Value::Timestamp(b)) => a == b,
            (Value::Type(a), Value::Type(b)) => a == b,
            (Value::List(a), Value::List(b)) => list_equal(a, b),
            (Value::Map(a), Value::Map(b)) => {
                a.entries.len() == b.entries.len() && a.entries.iter().all(|(k, v)| b.get(k).is_some_and(|w| v.equals(w)))
            }
            (Value::Object(a), Value::Object(b)) => {
                // As `unstructuredMap.Equal`: the sizes count every field, each known field of the
                // left object must be the right one's, and an unknown one is compared only when the
                // right object has it too.
                a.type_name == b.type_name
                    && a.fields.len() + a.unknown.len() == b.fields.len() + b.unknown.len()
                    && a.fields.iter().all(|(k, v)| b.fields.get(k).is_some_and(|w| v.equals(w)))
                    && a.unknown.iter().all(|(k, v)| b.unknown.get(k).is_none_or(|w| v.deep_equals(w)))
            }
            (Value::Optional(a), Value::Optional(b)) => match (a, b) {
                (None, None) => true,
                (Some(a), Some(b)) => a.equals(b),
                _ => false,
            },
            (Value::Ip(a), Value::Ip(b)) => a == b,
            (Value::Cidr(a, n), Value::Cidr(b, m)) => a == b && n == m,
            (Value::Url(a), Value::Url(b)) => a.raw == b.raw,
            (Value::Quantity(a), Value::Quantity(b)) => a.cmp_value(b) == Ordering::Equal,
            (Value::Semver(a), Value::Semver(b)) => a.compare(b) == Ordering::Equal,
            (Value::Format(a), Value::Format(b)) => a == b,
            _ => numeric_cmp(self, other) == Some(Ordering::Equal),
        }
    }

    /// Go's `reflect.DeepEqual` of two values of decoded JSON, as `plain` data: the same kind of value
    /// all the way down (an `int64` is never a `float64`), maps with the same keys.
    pub fn deep_equals(&self, other: &Value) -> bool {
        match (self, other) {
            (Value::Int(a), Value::Int(b)) => a == b,
            (Value::Double(a), Value::Double(b)) => a == b,
            (Value::List(a), Value::List(b)) => {
                a.items.len() == b.items.len() && a.items.iter().zip(&b.items).all(|(x, y)| x.deep_equals(y))
            }
            (Value::Map(a), Value::Map(b)) => {
                a.entries.len() == b.entries.len()
                    && a.entries.iter().all(|(k, v)| b.entries.iter().any(|(l, w)| k.equals(l) && v.deep_equals(w)))
            }
            (Value::Int(_) | Value::Double(_) | Value::List(_) | Value::Map(_), _) => false,
            _ => self.equals(other),
        }
    }

    /// CEL ordering for `<` and friends: numbers across types, strings and bytes, bools, durations
    /// and timestamps. `None` when the two cannot be ordered (also for NaN).
    pub fn compare(&self, other: &Value) -> Option<Ordering> {
        match (self, other) {
            (Value::Bool(a), Value::Bool(b)) => Some(a.cmp(b)),
            (Value::String(a), Value::String(b)) => Some(a.as_bytes().cmp(b.as_bytes())),
            (Value::Bytes(a), Value::Bytes(b)) => Some(a.cmp(b)),
            (Value::Duration(a), Value::Duration(b)) => Some(a.cmp(b)),
            (Value::Timestamp(a), Value::Timestamp(b)) => Some(a.cmp(b)),
            _ => numeric_cmp(self, other),
        }
    }

    /// Whether the value is its type's zero value (for `optional.ofNonZeroValue`).
    pub fn is_zero(&self) -> bool {
        match self {
            Value::Null => true,
            Value::Bool(b) => !b,
            Value::Int(i) => *i == 0,
            Value::Uint(u) => *u == 0,
            Value::Double(d) => *d == 0.0,
            Value::String(s) => s.is_empty(),
            Value::Bytes(b) => b.is_empty(),
            Value::Duration(d) => *d == 0,
            Value::Timestamp(t) => t.seconds == 0 && t.nanos == 0,
            Value::List(l) => l.items.is_empty(),
            Value::Map(m) => m.entries.is_empty(),
            Value::Object(o) => o.fields.is_empty(),
            Value::Optional(o) => o.is_none(),
            _ => false,
        }
    }
}

/// Numeric comparison across int, uint and double.
fn numeric_cmp(a: &Value, b: &Value) -> Option<Ordering> {
    match (a, b) {
        (Value::Int(x), Value::Int(y)) => Some(x.cmp(y)),
        (Value::Uint(x), Value::Uint(y)) => Some(x.cmp(y)),
        (Value::Double(x), Value::Double(y)) => x.partial_cmp(y),
        (Value::Int(x), Value::Uint(y)) => Some(if *x < 0 { Ordering::Less } else { (*x as u64).cmp(y) }),
        (Value::Uint(x), Value::Int(y)) => Some(if *y < 0 { Ordering::Greater } else { x.cmp(&(*y as u64)) }),
        // Across int and double, cel-go compares as doubles.
        (Value::Int(x), Value::Double(y)) => (*x as f64).partial_cmp(y),
        (Value::Uint(x), Value::Double(y)) => (*x as f64).partial_cmp(y),
        (Value::Double(x), Value::Int(y)) => x.partial_cmp(&(*y as f64)),
        (Value::Double(x), Value::Uint(y)) => x.partial_cmp(&(*y as f64)),
        _ => None,
    }
}

fn list_equal(a: &List, b: &List) -> bool {
    if a.items.len() != b.items.len() {
        return false;
    }
    match (&a.kind, &b.kind) {
        (ListKind::Set, _) | (_, ListKind::Set) => a.items.iter().all(|x| b.items.iter().any(|y| x.equals(y))),
        (ListKind::Map(keys), _) | (_, ListKind::Map(keys)) => a.items.iter().all(|x| {
            let key = map_key(x, keys);
            b.items.iter().find(|y| map_key(y, keys).iter().zip(&key).all(|(p, q)| p.equals(q))).is_some_and(|y| x.equals(y))
        }),
        _ => a.items.iter().zip(&b.items).all(|(x, y)| x.equals(y)),
    }
}

/// The key values of a map-list item.
pub(crate) fn map_key(item: &Value, keys: &[String]) -> Vec<Value> {
    keys.iter()
        .map(|k| match item {
            Value::Object(o) => o.fields.get(k).cloned().unwrap_or(Value::Null),
            Value::Map(m) => m.get(&Value::string(k.as_str())).cloned().unwrap_or(Value::Null),
            _ => Value::Null,
        })
        .collect()
}

/// `a + b` for lists: a union for sets, a merge by key for map lists, else a concatenation.
pub(crate) fn concat_lists(a: &List, b: &List) -> List {
    match &a.kind {
        ListKind::Set => {
            let mut items = a.items.clone();
            for y in &b.items {
                if !items.iter().any(|x| x.equals(y)) {
                    items.push(y.clone());
                }
            }
            List { items, kind: ListKind::Set }
        }
        ListKind::Map(keys) => {
            let mut items = a.items.clone();
            for y in &b.items {
                let key = map_key(y, keys);
                match items.iter().position(|x| map_key(x, keys).iter().zip(&key).all(|(p, q)| p.equals(q))) {
                    Some(i) => items[i] = y.clone(),
                    None => items.push(y.clone()),
                }
            }
            List { items, kind: ListKind::Map(keys.clone()) }
        }
        ListKind::Plain => {
            let mut items = a.items.clone();
            items.extend(b.items.iter().cloned());
            List { items, kind: b.kind.clone() }
        }
    }
}

impl fmt::Display for Value {
    /// The value as CEL literal text, for messages.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Value::Null => f.write_str("null"),
            Value::Bool(b) => write!(f, "{b}"),
            Value::Int(i) => write!(f, "{i}"),
            Value::Uint(u) => write!(f, "{u}u"),
            Value::Double(d) => f.write_str(&crdls_go::print::go_g(*d)),
            Value::String(s) => write!(f, "{s:?}"),
            Value::Bytes(b) => write!(f, "b{:?}", String::from_utf8_lossy(b)),
            Value::Duration(d) => f.write_str(&crate::time::duration_string(*d)),
            Value::Timestamp(t) => f.write_str(&crate::time::timestamp_string(*t)),
            Value::List(l) => {
                f.write_str("[")?;
                for (i, item) in l.items.iter().enumerate() {
                    if i > 0 {
                        f.write_str(", ")?;
                    }
                    write!(f, "{item}")?;
                }
                f.write_str("]")
            }
            Value::Map(m) => {
                f.write_str("{")?;
                for (i, (k, v)) in m.entries.iter().enumerate() {
                    if i > 0 {
                        f.write_str(", ")?;
                    }
                    write!(f, "{k}: {v}")?;
                }
                f.write_str("}")
            }
            Value::Object(o) => {
                write!(f, "{}{{", o.type_name)?;
                for (i, (k, v)) in o.fields.iter().enumerate() {
                    if i > 0 {
                        f.write_str(", ")?;
                    }
                    write!(f, "{k}: {v}")?;
                }
                f.write_str("}")
            }
            Value::Type(t) => f.write_str(t),
            Value::Optional(None) => f.write_str("optional.none()"),
            Value::Optional(Some(v)) => write!(f, "optional.of({v})"),
            Value::Ip(ip) => write!(f, "ip({:?})", ip.to_string()),
            Value::Cidr(ip, n) => write!(f, "cidr(\"{ip}/{n}\")"),
            Value::Url(u) => write!(f, "url({:?})", u.raw),
            Value::Quantity(q) => write!(f, "quantity({:?})", q.to_string()),
            Value::Semver(s) => write!(f, "semver({:?})", s.to_string()),
            Value::Format(n) => write!(f, "format.{n}()"),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn object(fields: &[(&str, Value)], unknown: &[(&str, Value)]) -> Value {
        let map = |entries: &[(&str, Value)]| entries.iter().map(|(k, v)| (k.to_string(), v.clone())).collect();
        Value::Object(Arc::new(Object { type_name: Arc::from("Object"), fields: map(fields), unknown: map(unknown) }))
    }

    #[test]
    fn unknown_fields_count_in_object_equality() {
        let known = [("a", Value::Int(1))];
        // A field preserve-unknown-fields kept on one side only: the sizes differ.
        assert!(!object(&known, &[("c", Value::list(vec![]))]).equals(&object(&known, &[])));
        // Compared with Go's DeepEqual when both have it: an int64 is not a float64.
        assert!(!object(&known, &[("c", Value::Int(1))]).equals(&object(&known, &[("c", Value::Double(1.0))])));
        assert!(object(&known, &[("c", Value::Int(1))]).equals(&object(&known, &[("c", Value::Int(1))])));
        // As `unstructuredMap.Equal`: an unknown field the right side lacks is not compared, so two
        // objects of as many fields with different unknown names are equal.
        assert!(object(&known, &[("c", Value::Int(1))]).equals(&object(&known, &[("d", Value::Int(2))])));
    }
}
