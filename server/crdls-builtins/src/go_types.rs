//! The Go types the API server decodes a built-in object's body into, for the words of a decoding
//! error (`json: cannot unmarshal string into Go struct field DeploymentSpec.spec.replicas of type
//! int32`): per kind, the body's type, and per Go type its JSON fields, its name as Go prints it and
//! the values it takes.
//!
//! `data/go-types.json` is written by the differential oracle (`tests/oracle`, `crdls-oracle
//! go-types`) from the `k8s.io/kubernetes` release it pins, by reflection over the legacy scheme's
//! types; the oracle test fails when the committed file differs from what the oracle writes. The
//! table is the pinned release's and is used for every release: the Go names and types of the
//! built-in kinds' fields have not changed across the releases crdls ships (a field a release lacks
//! is simply not looked up).

use std::collections::{BTreeMap, HashMap};
use std::sync::OnceLock;

use serde::Deserialize;

static TEXT: &str = include_str!("../data/go-types.json");

/// One Go type, as the file writes it (see the oracle's `gotypes.go`).
#[derive(Debug, Deserialize)]
struct Raw {
    go: String,
    #[serde(default, rename = "struct")]
    struct_name: Option<String>,
    #[serde(default)]
    fields: BTreeMap<String, u32>,
    #[serde(default)]
    via: HashMap<String, String>,
    #[serde(default)]
    items: Option<u32>,
    #[serde(default)]
    values: Option<u32>,
    #[serde(default)]
    scalar: Option<String>,
    #[serde(default)]
    bits: Option<u32>,
    #[serde(default)]
    custom: Option<String>,
}

#[derive(Deserialize)]
struct File {
    kinds: HashMap<String, u32>,
    types: Vec<Raw>,
}

/// What values a Go type takes, as its JSON decoder sees them.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Shape<'a> {
    /// A struct: an object, decoded field by field (fields it does not have are skipped).
    Struct(&'a str),
    /// A slice: an array, of the type given.
    Slice(GoType),
    /// A map with string keys: an object, of values of the type given.
    Map(GoType),
    /// A string type (named ones too: `v1.Protocol`).
    Str,
    /// `bool`.
    Bool,
    /// A signed integer of so many bits.
    Int(u32),
    /// An unsigned integer of so many bits.
    Uint(u32),
    /// A float.
    Float,
    /// `[]byte`: a base64 string.
    Bytes,
    /// An interface: anything.
    Any,
    /// `resource.Quantity`, which decodes itself from a string or any value's text.
    Quantity,
    /// `intstr.IntOrString`: a string, or what an `int32` takes.
    IntOrString,
    /// `metav1.Time`: an RFC 3339 string (or null).
    Time,
    /// `metav1.MicroTime`: an RFC 3339 string with six digits of fraction (or null).
    MicroTime,
    /// `metav1.Duration`: a string `time.ParseDuration` reads.
    Duration,
    /// Another type that decodes itself and takes any JSON value (`RawExtension`, `FieldsV1`).
    Opaque,
}

/// A Go type of the table.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct GoType(u32);

struct Table {
    kinds: HashMap<String, u32>,
    types: Vec<Raw>,
}

fn table() -> &'static Table {
    static TABLE: OnceLock<Table> = OnceLock::new();
    TABLE.get_or_init(|| {
        let file: File = serde_json::from_str(TEXT).unwrap_or_else(|e| panic!("the shipped Go type table does not load: {e}"));
        Table { kinds: file.kinds, types: file.types }
    })
}

/// The Go type a built-in kind's body decodes into (`apps`, `v1`, `Deployment`; the core group is
/// empty), when the table knows the kind.
pub fn body(group: &str, version: &str, kind: &str) -> Option<GoType> {
    table().kinds.get(&format!("{group}/{version}/{kind}")).map(|&id| GoType(id))
}

impl GoType {
    fn raw(self) -> &'static Raw {
        &table().types[self.0 as usize]
    }

    /// The type as Go prints it: `v1.DeploymentSpec`, `[]v1.Container`, `map[string]string`, `int32`.
    pub fn name(self) -> &'static str {
        &self.raw().go
    }

    /// What values the type takes.
    pub fn shape(self) -> Shape<'static> {
        let raw = self.raw();
        match raw.custom.as_deref() {
            Some("quantity") => return Shape::Quantity,
            Some("int-or-string") => return Shape::IntOrString,
            Some("time") => return Shape::Time,
            Some("microtime") => return Shape::MicroTime,
            Some("duration") => return Shape::Duration,
            Some(_) => return Shape::Opaque,
            None => {}
        }
        if let Some(name) = &raw.struct_name {
            return Shape::Struct(name);
        }
        if let Some(items) = raw.items {
            return Shape::Slice(GoType(items));
        }
        if let Some(values) = raw.values {
            return Shape::Map(GoType(values));
        }
        let bits = raw.bits.unwrap_or(64);
        match raw.scalar.as_deref() {
            Some("string") => Shape::Str,
            Some("bool") => Shape::Bool,
            Some("int") => Shape::Int(bits),
            Some("uint") => Shape::Uint(bits),
            Some("float") => Shape::Float,
            Some("bytes") => Shape::Bytes,
            _ => Shape::Any,
        }
    }

    /// A struct's field of JSON name `name`: its type, and the Go names of the embedded structs it is
    /// promoted from (`ProbeHandler` for a Probe's `httpGet`), which the decoder prints in a path.
    pub fn field(self, name: &str) -> Option<(GoType, Option<&'static str>)> {
        let raw = self.raw();
        raw.fields.get(name).map(|&id| (GoType(id), raw.via.get(name).map(String::as_str)))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_table_knows_a_deployments_fields_and_a_probes_promoted_ones() {
        let deployment = body("apps", "v1", "Deployment").expect("apps/v1 Deployment is in the table");
        assert_eq!(deployment.name(), "v1.Deployment");
        let (spec, via) = deployment.field("spec").unwrap();
        assert_eq!((spec.shape(), via), (Shape::Struct("DeploymentSpec"), None));
        let (replicas, _) = spec.field("replicas").unwrap();
        assert_eq!((replicas.name(), replicas.shape()), ("int32", Shape::Int(32)));
        let pod = body("", "v1", "Pod").unwrap().field("spec").unwrap().0;
        let Shape::Slice(container) = pod.field("containers").unwrap().0.shape() else { panic!("containers is a slice") };
        let probe = container.field("readinessProbe").unwrap().0;
        let (get, via) = probe.field("httpGet").unwrap();
        assert_eq!((get.name(), via), ("v1.HTTPGetAction", Some("ProbeHandler")));
        assert_eq!(get.field("port").unwrap().0.shape(), Shape::IntOrString);
        let protocol = container.field("ports").map(|(t, _)| t.shape());
        let Some(Shape::Slice(port)) = protocol else { panic!("ports is a slice") };
        assert_eq!(port.field("protocol").unwrap().0.name(), "v1.Protocol");
        assert_eq!(body("", "v1", "ConfigMap").unwrap().field("binaryData").unwrap().0.name(), "map[string][]uint8");
        assert!(body("example.com", "v1", "Widget").is_none());
    }
}
