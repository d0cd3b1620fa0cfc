//! Following a path of keys and indexes down a CRD version's schema, the way the API server does:
//! `properties`, then `additionalProperties` for map keys, `items` for list items, with `apiVersion`,
//! `kind` and `metadata` (ObjectMeta) implicit at the object's root and in embedded resources.

use std::sync::{Arc, OnceLock};

use crdls_crd::{AdditionalProperties, Property, Schema};
use crdls_yaml::Segment;

/// How a node was reached from its parent.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Via {
    /// It is the object's root.
    Root,
    /// It is a property of an object.
    Field,
    /// It is a key of a map (`additionalProperties`).
    MapKey,
    /// It is an item of a list (`items`).
    Item,
}

/// One node of a walk: its schema and how it was reached.
#[derive(Clone, Debug)]
pub(crate) struct Step<'s> {
    /// The node's schema.
    pub schema: &'s Schema,
    /// How the node was reached.
    pub via: Via,
    /// The CRD's property that declares the node, when the CRD declares it.
    pub declared: Option<&'s Property>,
    /// Whether the schema is Kubernetes' own (apiVersion, kind, ObjectMeta) rather than the CRD's.
    pub builtin: bool,
    /// Whether `apiVersion`, `kind` and `metadata` are implicit fields of this node.
    pub object_root: bool,
    /// Whether the parent requires this field.
    pub required: bool,
}

impl<'s> Step<'s> {
    /// The root of an object whose schema is `schema` (a version without a schema gets the implicit fields only).
    pub(crate) fn root(schema: Option<&'s Schema>) -> Step<'s> {
        Step {
            schema: schema.unwrap_or_else(|| object_root()),
            via: Via::Root,
            declared: None,
            builtin: schema.is_none(),
            object_root: true,
            required: true,
        }
    }

    /// The child of this node at `segment`, when the schema knows it.
    pub(crate) fn child(&self, segment: Segment<'_>) -> Option<Step<'s>> {
        let mut step = self.child_of(segment)?;
        // In a CRD's own schema, a nested schema node is JSONSchemaProps again.
        if crate::builtin_crd::is_schema_props(step.schema) {
            step.schema = crate::builtin_crd::schema_props();
        }
        Some(step)
    }

    fn child_of(&self, segment: Segment<'_>) -> Option<Step<'s>> {
        match segment {
            Segment::Key(key) => self.field(key),
            Segment::Index(_) => {
                let items = self.schema.items.as_deref()?;
                Some(Step {
                    schema: items,
                    via: Via::Item,
                    declared: None,
                    builtin: self.builtin,
                    object_root: items.embedded_resource,
                    required: false,
                })
            }
        }
    }

    fn field(&self, key: &str) -> Option<Step<'s>> {
        let declared = if self.builtin { None } else { self.schema.property(key) };
        if self.object_root && is_implicit(key) {
            let implicit = object_root().property(key)?;
            let required = key != "metadata" || self.via == Via::Root;
            return Some(match (key, declared) {
                // ObjectMeta is always Kubernetes' own, even where the CRD declares `metadata: {type: object}`.
                ("metadata", _) | (_, None) => {
                    Step { schema: &implicit.schema, via: Via::Field, declared, builtin: true, object_root: false, required }
                }
                (_, Some(p)) => Step { schema: &p.schema, via: Via::Field, declared, builtin: false, object_root: false, required },
            });
        }
        if let Some(p) = self.schema.property(key) {
            return Some(Step {
                schema: &p.schema,
                via: Via::Field,
                declared,
                builtin: self.builtin,
                object_root: p.schema.embedded_resource,
                required: self.schema.required.iter().any(|r| r == key),
            });
        }
        match &self.schema.additional_properties {
            Some(AdditionalProperties::Schema(s)) => Some(Step {
                schema: s,
                via: Via::MapKey,
                declared: None,
                builtin: self.builtin,
                object_root: s.embedded_resource,
                required: false,
            }),
            _ => None,
        }
    }

    /// The fields that may be written in this node: the declared properties, with the implicit
    /// `apiVersion`, `kind` and `metadata` first at an object's root. Each comes with whether it is required.
    pub(crate) fn fields(&self) -> Vec<(&'s Property, bool)> {
        let mut out: Vec<(&'s Property, bool)> = Vec::new();
        if self.object_root {
            for p in &object_root().properties {
                let declared = if self.builtin { None } else { self.schema.property(&p.name) };
                let required = p.name != "metadata" || self.via == Via::Root;
                out.push((declared.filter(|_| p.name != "metadata").unwrap_or(p), required));
            }
        }
        for p in &self.schema.properties {
            if self.object_root && is_implicit(&p.name) {
                continue;
            }
            out.push((p, self.schema.required.iter().any(|r| r == &p.name)));
        }
        out
    }
}

/// Walks `path` from the root of an object whose schema is `schema`: one step per segment, the root first.
/// `None` when some segment is not in the schema (an unknown field, or below one that keeps unknown fields).
pub(crate) fn walk<'s>(schema: Option<&'s Schema>, path: &[Segment<'_>]) -> Option<Vec<Step<'s>>> {
    let mut steps = vec![Step::root(schema)];
    for segment in path {
        let next = steps.last()?.child(*segment)?;
        steps.push(next);
    }
    Some(steps)
}

/// Whether a field is implicit at an object's root.
fn is_implicit(key: &str) -> bool {
    matches!(key, "apiVersion" | "kind" | "metadata")
}

/// The path in the API server's notation (`spec.ports[0].name`, `metadata.labels[app]`).
pub(crate) fn path_text(path: &[Segment<'_>], steps: &[Step<'_>]) -> String {
    let mut out = String::new();
    for (i, segment) in path.iter().enumerate() {
        let via = steps.get(i + 1).map_or(Via::Field, |s| s.via);
        match (segment, via) {
            (Segment::Key(k), Via::MapKey) => out.push_str(&format!("[{k}]")),
            (Segment::Key(k), _) if out.is_empty() => out.push_str(k),
            (Segment::Key(k), _) => out.push_str(&format!(".{k}")),
            (Segment::Index(i), _) => out.push_str(&format!("[{i}]")),
        }
    }
    out
}

/// What shape of YAML a schema asks for.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Shape {
    /// A mapping with known fields.
    Object,
    /// A mapping with arbitrary keys.
    Map,
    /// A sequence.
    List,
    /// A scalar (or anything, when the schema does not say).
    Scalar,
}

/// The shape a schema asks for.
pub(crate) fn shape(schema: &Schema) -> Shape {
    if schema.int_or_string {
        return Shape::Scalar;
    }
    match schema.ty.as_deref() {
        Some("array") => Shape::List,
        Some("object") | None if !schema.properties.is_empty() || schema.embedded_resource => Shape::Object,
        Some("object") | None if matches!(schema.additional_properties, Some(AdditionalProperties::Schema(_))) => Shape::Map,
        Some("object") => Shape::Object,
        None if schema.items.is_some() => Shape::List,
        _ => Shape::Scalar,
    }
}

/// A short type label: `string (date-time)`, `[]object`, `map[string]string`, `int-or-string`.
pub(crate) fn type_label(schema: &Schema) -> String {
    if schema.int_or_string {
        return "int-or-string".to_string();
    }
    let base = match shape(schema) {
        Shape::List => format!("[]{}", schema.items.as_deref().map_or_else(|| "any".to_string(), type_label)),
        Shape::Map => match &schema.additional_properties {
            Some(AdditionalProperties::Schema(s)) => format!("map[string]{}", type_label(s)),
            _ => "object".to_string(),
        },
        Shape::Object => "object".to_string(),
        Shape::Scalar => schema.ty.as_deref().unwrap_or("any").to_string(),
    };
    match &schema.format {
        Some(format) => format!("{base} ({format})"),
        None => base,
    }
}

/// Fields of ObjectMeta the server sets: shown on hover, never offered for completion.
pub(crate) const SERVER_SET_META_FIELDS: &[&str] = &[
    "uid",
    "resourceVersion",
    "generation",
    "creationTimestamp",
    "deletionTimestamp",
    "deletionGracePeriodSeconds",
    "selfLink",
    "managedFields",
];

/// The implicit fields of every Kubernetes object, written as a schema so that they walk like the CRD's own.
const OBJECT_ROOT_SCHEMA: &str = r#"
type: object
properties:
  apiVersion:
    type: string
    description: "APIVersion defines the versioned schema of this representation of an object: `group/version`."
  kind:
    type: string
    description: "Kind is a string value representing the REST resource this object represents."
  metadata:
    type: object
    description: "Standard object's metadata (ObjectMeta): name, namespace, labels, annotations and more."
    properties:
      name:
        type: string
        description: "Name must be unique within a namespace. It is required when creating resources, unless `generateName` is set, and cannot be updated."
      generateName:
        type: string
        description: "An optional prefix the server uses to generate a unique name, used only if `name` is not set."
      namespace:
        type: string
        description: "The namespace the object lives in. Empty means the `default` namespace for namespaced kinds; cluster-scoped kinds have none."
      labels:
        type: object
        description: "Map of string keys and values that can be used to organize and categorize (scope and select) objects."
        additionalProperties:
          type: string
      annotations:
        type: object
        description: "Unstructured key-value map stored with a resource that external tools set to store and retrieve arbitrary metadata. They are not queryable."
        additionalProperties:
          type: string
      finalizers:
        type: array
        description: "Must be empty before the object is deleted from the registry. Each entry is an identifier for the responsible component that will remove the entry from the list."
        x-kubernetes-list-type: set
        items:
          type: string
      ownerReferences:
        type: array
        description: "The objects this object depends on. If all of them are deleted, this object is garbage collected."
        x-kubernetes-list-type: map
        x-kubernetes-list-map-keys: [uid]
        items:
          type: object
          required: [apiVersion, kind, name, uid]
          properties:
            apiVersion:
              type: string
              description: "API version of the referent."
            kind:
              type: string
              description: "Kind of the referent."
            name:
              type: string
              description: "Name of the referent."
            uid:
              type: string
              description: "UID of the referent."
            controller:
              type: boolean
              description: "If true, this reference points to the managing controller."
            blockOwnerDeletion:
              type: boolean
              description: "If true, and the owner has the \"foregroundDeletion\" finalizer, the owner cannot be deleted from the key-value store until this reference is removed."
      uid:
        type: string
        description: "Set by the server: the unique identifier of this object in time and space. Read-only."
      resourceVersion:
        type: string
        description: "Set by the server: the internal version of this object, for optimistic concurrency and watches. Read-only."
      generation:
        type: integer
        format: int64
        description: "Set by the server: a sequence number representing a specific generation of the desired state. Read-only."
      creationTimestamp:
        type: string
        format: date-time
        description: "Set by the server: when this object was created. Read-only."
      deletionTimestamp:
        type: string
        format: date-time
        description: "Set by the server: when this object will be deleted. Read-only."
      deletionGracePeriodSeconds:
        type: integer
        format: int64
        description: "Set by the server: seconds allowed for this object to gracefully terminate. Read-only."
      selfLink:
        type: string
        description: "Deprecated and no longer set by the server. Read-only."
      managedFields:
        type: array
        description: "Set by the server: which field managers own which fields (server-side apply). Not meant to be written by hand."
        items:
          type: object
          x-kubernetes-preserve-unknown-fields: true
"#;

/// The schema of the implicit fields of every object (`apiVersion`, `kind`, `metadata`).
fn object_root() -> &'static Schema {
    static SCHEMA: OnceLock<Arc<Schema>> = OnceLock::new();
    SCHEMA.get_or_init(|| {
        let stream = crdls_yaml::parse(OBJECT_ROOT_SCHEMA);
        let root = stream.documents.first().and_then(|d| d.root.as_ref());
        Arc::new(root.map(Schema::from_node).unwrap_or_default())
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_builtin_schema_parses() {
        let root = object_root();
        let meta = root.property("metadata").map(|p| &p.schema);
        assert_eq!(root.properties.len(), 3);
        assert_eq!(meta.map(|m| m.properties.len()), Some(15));
        let owner = meta.and_then(|m| m.property("ownerReferences")).and_then(|p| p.schema.items.clone());
        assert_eq!(owner.map(|o| o.required.len()), Some(4));
    }
}
