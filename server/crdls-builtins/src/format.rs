//! The data file's vocabulary, shared by the loader and the generator so that they cannot disagree:
//! which keywords a node may carry, which of them hold node ids, and the names of scopes.

/// The format number written in the file; the loader refuses any other.
pub const FORMAT: u64 = 1;

/// The keywords a node may carry, in the order the generator writes them. Those in [`CHILDREN`]
/// hold node ids; the others are copied from the upstream schema (or derived, see the crate's
/// documentation).
pub const KEYWORDS: &[&str] = &[
    "type",
    "format",
    "nullable",
    "x-kubernetes-int-or-string",
    "x-kubernetes-preserve-unknown-fields",
    "x-kubernetes-embedded-resource",
    "enum",
    "default",
    "required",
    "properties",
    "additionalProperties",
    "items",
    "allOf",
    "anyOf",
    "oneOf",
    "not",
    "x-kubernetes-list-type",
    "x-kubernetes-list-map-keys",
    "x-kubernetes-map-type",
    "minimum",
    "exclusiveMinimum",
    "maximum",
    "exclusiveMaximum",
    "multipleOf",
    "minLength",
    "maxLength",
    "pattern",
    "minItems",
    "maxItems",
    "uniqueItems",
    "minProperties",
    "maxProperties",
];

/// How a keyword refers to child schemas.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Children {
    /// An object from property name to node id (`properties`).
    ByName,
    /// One node id (`items`, `not`); for `additionalProperties`, a node id or a boolean.
    One,
    /// An array of node ids (`allOf`, `anyOf`, `oneOf`).
    List,
}

/// The keywords that hold node ids, and how.
pub const CHILDREN: &[(&str, Children)] = &[
    ("properties", Children::ByName),
    ("additionalProperties", Children::One),
    ("items", Children::One),
    ("not", Children::One),
    ("allOf", Children::List),
    ("anyOf", Children::List),
    ("oneOf", Children::List),
];

/// How `keyword` refers to child schemas, if it does.
pub fn children(keyword: &str) -> Option<Children> {
    CHILDREN.iter().find(|(k, _)| *k == keyword).map(|(_, c)| *c)
}

/// Where the API serves a kind, as its paths in the OpenAPI document say.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Scope {
    /// Objects live in a namespace (a path `.../namespaces/{namespace}/<resource>` serves it).
    Namespaced,
    /// Objects are cluster-wide (a path `.../<resource>` serves it, and no namespaced one).
    Cluster,
    /// Only a subresource serves it (`autoscaling/v1` `Scale`, `policy/v1` `Eviction`): it is
    /// posted to another object's path, and kubectl cannot create it from a file.
    Subresource,
    /// No path serves it: a list (`DeploymentList`), options (`DeleteOptions`) or event kind.
    NoPath,
}

impl Scope {
    /// The name the data file uses.
    pub fn as_str(self) -> &'static str {
        match self {
            Scope::Namespaced => "namespaced",
            Scope::Cluster => "cluster",
            Scope::Subresource => "subresource",
            Scope::NoPath => "none",
        }
    }

    /// Reads the name the data file uses.
    pub fn from_name(name: &str) -> Option<Scope> {
        [Scope::Namespaced, Scope::Cluster, Scope::Subresource, Scope::NoPath].into_iter().find(|s| s.as_str() == name)
    }

    /// Whether kubectl can create objects of the kind from a file: a path serves it as a resource.
    pub fn is_resource(self) -> bool {
        matches!(self, Scope::Namespaced | Scope::Cluster)
    }
}
