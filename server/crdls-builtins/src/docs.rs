//! Field documentation for built-in kinds, read at run time from an OpenAPI v3 document of the kind's
//! group/version (the upstream `api/openapi-spec/v3/*.json` of a release, or a cluster's
//! `/openapi/v3/...`). crdls ships no descriptions: a front end fetches a document where the user
//! allowed it and hands its text to [`OpenApiDocs::parse`]; the editor features ask through
//! [`FieldDocs`], which the front end implements, so the pure crates never do I/O.
//!
//! The document is hostile input: it is parsed by serde_json (whose recursion limit bounds the depth),
//! only `components.schemas` is kept, and reference chains are followed a bounded number of times.

use std::collections::HashMap;

use serde::Deserialize;
use serde_json::Value;

use crate::KubeVersion;

/// The longest description shown; longer ones are cut with an ellipsis.
pub const MAX_DESCRIPTION_CHARS: usize = 4000;
/// The most `$ref`s followed from one node to the schema that describes its fields.
const MAX_REFERENCE_HOPS: usize = 16;

/// One step down from a node to the field under it, as the API server's schemas nest.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum DocStep {
    /// A property of an object.
    Property(String),
    /// An item of a list.
    Item,
    /// A value of a map (`additionalProperties`).
    Value,
}

/// A field's description and where it was read.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct FieldDoc {
    /// The description, trimmed, at most [`MAX_DESCRIPTION_CHARS`] characters.
    pub text: String,
    /// Where it comes from, in words (`the OpenAPI documents of Kubernetes v1.37.2`).
    pub source: String,
}

/// What the editor features ask for field documentation; a front end answers from a source the user
/// allowed, or not at all.
pub trait FieldDocs {
    /// The description of the field reached by `steps` from the root of `kind` in `group` (`""` for
    /// the core group) and `version`, as release `kube` documents it.
    fn describe(&self, kube: KubeVersion, group: &str, version: &str, kind: &str, steps: &[DocStep]) -> Option<FieldDoc>;
}

/// No documentation: what the editor features see when the user has not turned a source on.
pub struct NoDocs;

impl FieldDocs for NoDocs {
    fn describe(&self, _: KubeVersion, _: &str, _: &str, _: &str, _: &[DocStep]) -> Option<FieldDoc> {
        None
    }
}

/// The file name of a group/version's document in `api/openapi-spec/v3` (`api__v1_openapi.json`,
/// `apis__apps__v1_openapi.json`), or `None` when the names are not a group and a version (so nothing
/// a document names can reach a path or a URL but these two words).
pub fn document_file(group: &str, version: &str) -> Option<String> {
    let group_ok = group.len() <= 253
        && group
            .split('.')
            .all(|label| !label.is_empty() && label.bytes().all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || b == b'-'));
    let version_ok = !version.is_empty() && version.len() <= 32 && version.bytes().all(|b| b.is_ascii_lowercase() || b.is_ascii_digit());
    if !version_ok || (!group.is_empty() && !group_ok) {
        return None;
    }
    Some(if group.is_empty() { format!("api__{version}_openapi.json") } else { format!("apis__{group}__{version}_openapi.json") })
}

/// The `k8s.io/kubernetes` module version (a git tag, `v1.37.2`) whose documents crdls's built-in schemas
/// of release `kube` were generated from, when crdls ships that release.
pub fn module_version(kube: KubeVersion) -> Option<&'static str> {
    const RELEASES: &str = include_str!("../data/kubernetes-releases.txt");
    RELEASES.lines().filter(|l| !l.starts_with('#')).find_map(|line| {
        let (minor, tag) = line.split_once(' ')?;
        (minor.trim() == kube.to_string()).then_some(tag.trim())
    })
}

/// The descriptions of one OpenAPI v3 document: its schemas, with only what finding a field's
/// description needs.
#[derive(Debug, Default)]
pub struct OpenApiDocs {
    schemas: HashMap<String, Node>,
    /// (group, version, kind) to the name of the schema that is the kind's root.
    kinds: HashMap<(String, String, String), String>,
}

/// A schema node reduced to its description and the ways down.
#[derive(Debug, Default)]
struct Node {
    description: Option<Box<str>>,
    /// The schema a `$ref` (directly, or the one of a single-member `allOf`) names.
    reference: Option<Box<str>>,
    properties: Vec<(Box<str>, Node)>,
    items: Option<Box<Node>>,
    additional: Option<Box<Node>>,
}

#[derive(Deserialize)]
struct Document {
    components: Components,
}

#[derive(Deserialize)]
struct Components {
    schemas: serde_json::Map<String, Value>,
}

impl OpenApiDocs {
    /// Reads a document's text; an error says why it is not an OpenAPI v3 document with schemas.
    pub fn parse(text: &str) -> Result<OpenApiDocs, String> {
        let document: Document = serde_json::from_str(text).map_err(|e| format!("not an OpenAPI v3 document: {e}"))?;
        let mut docs = OpenApiDocs::default();
        for (name, schema) in &document.components.schemas {
            let Some(object) = schema.as_object() else { continue };
            if let Some(Value::Array(gvks)) = object.get("x-kubernetes-group-version-kind") {
                for gvk in gvks {
                    let field = |key: &str| gvk.get(key).and_then(Value::as_str).map(str::to_string);
                    if let (Some(group), Some(version), Some(kind)) = (field("group"), field("version"), field("kind")) {
                        docs.kinds.entry((group, version, kind)).or_insert_with(|| name.clone());
                    }
                }
            }
            docs.schemas.insert(name.clone(), node(schema));
        }
        Ok(docs)
    }

    /// How many schemas the document has.
    pub fn len(&self) -> usize {
        self.schemas.len()
    }

    /// Whether the document has no schemas.
    pub fn is_empty(&self) -> bool {
        self.schemas.is_empty()
    }

    /// The description of the field reached by `steps` from the root of `kind` (`group`, `version`):
    /// the field's own description, else that of the schema it refers to.
    pub fn describe(&self, group: &str, version: &str, kind: &str, steps: &[DocStep]) -> Option<String> {
        let root = self.kinds.get(&(group.to_string(), version.to_string(), kind.to_string()))?;
        let mut node = self.schemas.get(root)?;
        for step in steps {
            let holder = self.target(node)?;
            node = match step {
                DocStep::Property(name) => holder.properties.iter().find(|(n, _)| **n == **name).map(|(_, n)| n)?,
                DocStep::Item => holder.items.as_deref()?,
                DocStep::Value => holder.additional.as_deref()?,
            };
        }
        let description = node.description.as_deref().or_else(|| self.target(node).and_then(|t| t.description.as_deref()))?;
        let description = description.trim();
        (!description.is_empty()).then(|| bounded(description))
    }

    /// The node that holds `node`'s fields: `node` itself, or the schema its reference names.
    fn target<'a>(&'a self, mut node: &'a Node) -> Option<&'a Node> {
        for _ in 0..MAX_REFERENCE_HOPS {
            let has_fields = !node.properties.is_empty() || node.items.is_some() || node.additional.is_some();
            match &node.reference {
                Some(name) if !has_fields => node = self.schemas.get(&**name)?,
                _ => return Some(node),
            }
        }
        None
    }
}

/// A schema node of the document, reduced.
fn node(value: &Value) -> Node {
    let Some(object) = value.as_object() else { return Node::default() };
    let reference = object.get("$ref").or_else(|| match object.get("allOf") {
        Some(Value::Array(members)) if members.len() == 1 => members[0].get("$ref"),
        _ => None,
    });
    let reference = reference.and_then(Value::as_str).and_then(|r| r.strip_prefix("#/components/schemas/")).map(Into::into);
    let properties = match object.get("properties") {
        Some(Value::Object(properties)) => properties.iter().map(|(name, p)| (name.as_str().into(), node(p))).collect(),
        _ => Vec::new(),
    };
    let child = |key: &str| object.get(key).filter(|v| v.is_object()).map(|v| Box::new(node(v)));
    Node {
        description: object.get("description").and_then(Value::as_str).map(Into::into),
        reference,
        properties,
        items: child("items"),
        additional: child("additionalProperties"),
    }
}

/// `text`, cut to [`MAX_DESCRIPTION_CHARS`] characters.
fn bounded(text: &str) -> String {
    match text.char_indices().nth(MAX_DESCRIPTION_CHARS) {
        Some((at, _)) => format!("{}…", &text[..at]),
        None => text.to_string(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// An invented document in the upstream layout: a kind whose spec refers to another schema, a list
    /// of objects, a map, and a reference through `allOf`.
    pub(crate) const WIDGETS: &str = r##"{
      "openapi": "3.0.0",
      "paths": {"/apis/example.dev/v1/widgets": {}},
      "components": {"schemas": {
        "dev.example.Widget": {
          "description": "A widget of the invented kind.",
          "x-kubernetes-group-version-kind": [{"group": "example.dev", "version": "v1", "kind": "Widget"}],
          "properties": {
            "spec": {"allOf": [{"$ref": "#/components/schemas/dev.example.WidgetSpec"}], "description": "What the widget should be."},
            "status": {"$ref": "#/components/schemas/dev.example.WidgetStatus"}
          }
        },
        "dev.example.WidgetSpec": {
          "properties": {
            "parts": {"type": "array", "description": "The parts, in order.", "items": {"allOf": [{"$ref": "#/components/schemas/dev.example.Part"}]}},
            "labels": {"type": "object", "description": "Labels of the widget.", "additionalProperties": {"type": "string", "description": "One label's value."}}
          }
        },
        "dev.example.WidgetStatus": {"description": "What the widget is."},
        "dev.example.Part": {"description": "One part.", "properties": {"colour": {"type": "string", "description": "  The part's colour.  "}}},
        "dev.example.Loop": {"$ref": "#/components/schemas/dev.example.Loop"}
      }}
    }"##;

    fn describe(docs: &OpenApiDocs, steps: &[DocStep]) -> Option<String> {
        docs.describe("example.dev", "v1", "Widget", steps)
    }

    #[test]
    fn follows_properties_items_maps_and_references() {
        let docs = OpenApiDocs::parse(WIDGETS).unwrap();
        let p = |name: &str| DocStep::Property(name.to_string());
        assert_eq!(describe(&docs, &[]).as_deref(), Some("A widget of the invented kind."));
        assert_eq!(describe(&docs, &[p("spec")]).as_deref(), Some("What the widget should be."));
        assert_eq!(describe(&docs, &[p("status")]).as_deref(), Some("What the widget is."), "the referred schema's own");
        assert_eq!(describe(&docs, &[p("spec"), p("parts"), DocStep::Item]).as_deref(), Some("One part."));
        assert_eq!(describe(&docs, &[p("spec"), p("parts"), DocStep::Item, p("colour")]).as_deref(), Some("The part's colour."));
        assert_eq!(describe(&docs, &[p("spec"), p("labels"), DocStep::Value]).as_deref(), Some("One label's value."));
        assert_eq!(describe(&docs, &[p("spec"), p("missing")]), None);
        assert_eq!(docs.describe("example.dev", "v2", "Widget", &[]), None);
    }

    #[test]
    fn hostile_documents_are_refused_or_bounded() {
        assert!(OpenApiDocs::parse("{}").is_err());
        assert!(OpenApiDocs::parse("[1, 2]").is_err());
        assert!(OpenApiDocs::parse(r#"{"components": {"schemas": 3}}"#).is_err());
        // Nesting beyond serde_json's recursion limit is an error, not a stack overflow.
        let deep = format!(r#"{{"components": {{"schemas": {{"a": {}1{}}}}}}}"#, "[".repeat(100_000), "]".repeat(100_000));
        assert!(OpenApiDocs::parse(&deep).is_err());
        // A reference that loops ends.
        let looping = WIDGETS.replace(
            r##""status": {"$ref": "#/components/schemas/dev.example.WidgetStatus"}"##,
            r##""status": {"$ref": "#/components/schemas/dev.example.Loop"}"##,
        );
        let docs = OpenApiDocs::parse(&looping).unwrap();
        assert_eq!(describe(&docs, &[DocStep::Property("status".into()), DocStep::Property("x".into())]), None);
        // A long description is cut.
        let long = WIDGETS.replace("A widget of the invented kind.", &"é".repeat(MAX_DESCRIPTION_CHARS + 10));
        let text = describe(&OpenApiDocs::parse(&long).unwrap(), &[]).unwrap();
        assert_eq!(text.chars().count(), MAX_DESCRIPTION_CHARS + 1);
        assert!(text.ends_with('…'));
    }

    #[test]
    fn document_files_are_named_from_a_group_and_a_version_only() {
        assert_eq!(document_file("", "v1").as_deref(), Some("api__v1_openapi.json"));
        assert_eq!(document_file("apps", "v1").as_deref(), Some("apis__apps__v1_openapi.json"));
        assert_eq!(document_file("networking.k8s.io", "v1beta1").as_deref(), Some("apis__networking.k8s.io__v1beta1_openapi.json"));
        for (group, version) in [("../etc", "v1"), ("apps", "v1/../x"), ("a..b", "v1"), ("apps", ""), ("Apps", "v1"), ("a/b", "v1")] {
            assert_eq!(document_file(group, version), None, "{group} {version}");
        }
        let newest = crate::newest();
        assert!(module_version(newest).is_some_and(|tag| tag.starts_with(&format!("v{newest}."))), "{newest}");
        assert_eq!(module_version(KubeVersion::new(1, 99)), None);
    }
}
