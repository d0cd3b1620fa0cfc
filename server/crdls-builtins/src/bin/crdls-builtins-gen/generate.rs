//! The generator's pure part: the upstream OpenAPI v3 documents of some releases in, the data file out
//! (see the library's documentation for the format and the translation).
//!
//! Every schema object of every document becomes a node of one graph, with `$ref`s as edges (so
//! recursive types are cycles). Identical nodes are then merged by partition refinement: nodes start in
//! classes of equal keywords, and a class is split until all its nodes also have the same children's
//! classes under the same names. That merges equal schemas wherever they are, cycles included, and the
//! classes reachable from some kind's root are written, numbered in the order a depth-first walk from
//! the roots meets them.

use std::collections::{BTreeMap, HashMap};

use crdls_builtins::format::{Scope, FORMAT, KEYWORDS};
use crdls_builtins::KubeVersion;
use serde_json::{json, Map, Value};

/// One OpenAPI document: the schemas and paths of one group/version.
pub struct Document {
    /// The group (`""` for the core group).
    pub group: String,
    /// The API version within the group (`v1`).
    pub version: String,
    /// The document.
    pub json: Value,
}

/// The documents of one Kubernetes release.
pub struct Release {
    /// The release.
    pub version: KubeVersion,
    /// Its documents, one per group/version.
    pub documents: Vec<Document>,
}

/// What the generator made.
pub struct Output {
    /// The data file's JSON.
    pub json: String,
    /// The same, deflated: the file's bytes.
    pub deflated: Vec<u8>,
    /// What a person running the generator should know: counts, and schemas worth a look.
    pub report: Vec<String>,
}

/// The Go types that hold raw JSON but that OpenAPI describes as a bare `type: object`; their nodes
/// keep unknown fields, as the API server's decoder does.
const FREE_FORM: &[&str] = &[
    "io.k8s.apimachinery.pkg.runtime.RawExtension",
    "io.k8s.apimachinery.pkg.apis.meta.v1.FieldsV1",
    "io.k8s.apimachinery.pkg.apis.meta.v1.Patch",
];

/// The quantity type (`100m`, `1Gi`, `0.5`): a string or a number.
const QUANTITY: &str = "io.k8s.apimachinery.pkg.api.resource.Quantity";

/// Keywords that are not facts, dropped knowingly.
const DROPPED: &[&str] = &[
    "description",
    "title",
    "example",
    "externalDocs",
    "x-kubernetes-patch-strategy",
    "x-kubernetes-patch-merge-key",
    "x-kubernetes-unions",
    "x-kubernetes-group-version-kind",
];

/// How a node reaches a child.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
enum Edge {
    Property(String),
    AdditionalProperties,
    Items,
    Not,
    AllOf(usize),
    AnyOf(usize),
    OneOf(usize),
}

/// A group, an API version within it, and a kind.
type Gvk = (String, String, String);

/// The kinds of one release, each with its root node and scope.
type KindTable = BTreeMap<Gvk, (usize, Scope)>;

/// A node of the graph before merging.
#[derive(Default)]
struct Raw {
    /// The non-schema keywords, in [`KEYWORDS`] order.
    facts: Map<String, Value>,
    /// The children, in the document's order.
    edges: Vec<(Edge, usize)>,
    /// For a `$ref` with keywords beside it: the referenced node, whose facts and edges this one takes.
    copy_of: Option<usize>,
}

/// The generator: releases are added one at a time (their documents are dropped once read), then
/// [`Generator::finish`] writes the file.
#[derive(Default)]
pub struct Generator {
    graph: Graph,
    /// The releases added, with their kinds.
    releases: Vec<(KubeVersion, KindTable)>,
    report: Vec<String>,
}

impl Generator {
    /// A generator with no release yet.
    pub fn new() -> Generator {
        Generator::default()
    }

    /// Reads the documents of one release.
    pub fn add(&mut self, release: Release) -> Result<(), String> {
        if self.releases.iter().any(|(version, _)| *version == release.version) {
            return Err(format!("release {} is given twice", release.version));
        }
        let count = release.documents.len();
        let mut documents = release.documents;
        documents.sort_by(|a, b| (&a.group, &a.version).cmp(&(&b.group, &b.version)));
        let mut table = BTreeMap::new();
        for mut doc in documents {
            let origin = format!("{} {}", release.version, group_version(&doc.group, &doc.version));
            let scopes = scopes(&doc);
            let Some(Value::Object(schemas)) = doc.json.pointer_mut("/components/schemas").map(Value::take) else {
                return Err(format!("{origin}: no components.schemas"));
            };
            let mut roots = Vec::new();
            for (name, schema) in &schemas {
                for (group, version, kind) in kinds_of(schema) {
                    if group == doc.group && version == doc.version {
                        roots.push((name.clone(), kind));
                    }
                }
            }
            roots.sort();
            let at = self.graph.documents.len();
            self.graph.documents.push(schemas);
            for (name, kind) in roots {
                let root = self.graph.component(at, &name).map_err(|e| format!("{origin}: {e}"))?;
                let scope = scopes.get(&kind).copied().unwrap_or(Scope::NoPath);
                if table.insert((doc.group.clone(), doc.version.clone(), kind.clone()), (root, scope)).is_some() {
                    return Err(format!("{origin}: two schemas declare kind {kind}"));
                }
            }
            // Every schema a root reaches has been read: the document is no longer needed.
            self.graph.documents[at] = Map::new();
            let missing: Vec<&str> = scopes
                .keys()
                .filter(|kind| !table.contains_key(&(doc.group.clone(), doc.version.clone(), kind.to_string())))
                .map(String::as_str)
                .collect();
            if !missing.is_empty() {
                self.report.push(format!("{origin}: paths name kinds that no schema declares, left out: {}", missing.join(", ")));
            }
        }
        let resources = table.values().filter(|(_, scope)| scope.is_resource()).count();
        self.report.push(format!("{}: {count} documents, {} kinds ({resources} of them resources)", release.version, table.len()));
        self.releases.push((release.version, table));
        Ok(())
    }

    /// Merges equal schemas and writes the file.
    pub fn finish(mut self) -> Result<Output, String> {
        self.releases.sort_by_key(|(version, _)| *version);
        let graph = &mut self.graph;
        graph.resolve_copies()?;
        let classes = graph.merge();

        // Number the classes reachable from the roots, depth first.
        let mut ids: HashMap<u32, u32> = HashMap::new();
        let mut order: Vec<usize> = Vec::new();
        for (_, table) in &self.releases {
            for &(root, _) in table.values() {
                let mut stack = vec![root];
                while let Some(raw) = stack.pop() {
                    if ids.contains_key(&classes[raw]) {
                        continue;
                    }
                    ids.insert(classes[raw], order.len() as u32);
                    order.push(raw);
                    stack.extend(graph.nodes[raw].edges.iter().rev().map(|(_, child)| *child));
                }
            }
        }
        let id = |raw: usize| ids[&classes[raw]];
        let nodes: Vec<Value> = order.iter().map(|&raw| graph.write(raw, &id)).collect();
        let releases: Vec<Value> = self
            .releases
            .iter()
            .map(|(version, table)| {
                let kinds: Vec<Value> = table
                    .iter()
                    .map(|((group, api_version, kind), &(root, scope))| json!([group, api_version, kind, id(root), scope.as_str()]))
                    .collect();
                json!({ "version": version.to_string(), "kinds": kinds })
            })
            .collect();
        let file = json!({ "format": FORMAT, "releases": releases, "nodes": nodes });
        let text = serde_json::to_string(&file).map_err(|e| e.to_string())?;
        let deflated = miniz_oxide::deflate::compress_to_vec(text.as_bytes(), 10);
        let mut report = self.report;
        report.append(&mut graph.notes);
        report.push(format!(
            "{} schema nodes read, {} written; {} bytes of JSON, {} deflated",
            graph.nodes.len(),
            order.len(),
            text.len(),
            deflated.len()
        ));
        Ok(Output { json: text, deflated, report })
    }
}

fn group_version(group: &str, version: &str) -> String {
    if group.is_empty() {
        version.to_string()
    } else {
        format!("{group}/{version}")
    }
}

/// The (group, version, kind)s a schema declares in `x-kubernetes-group-version-kind`.
fn kinds_of(schema: &Value) -> Vec<Gvk> {
    let Some(list) = schema.get("x-kubernetes-group-version-kind").and_then(Value::as_array) else { return Vec::new() };
    list.iter()
        .filter_map(|gvk| {
            let field = |name: &str| gvk.get(name).and_then(Value::as_str).map(str::to_string);
            Some((field("group")?, field("version")?, field("kind")?))
        })
        .collect()
}

/// How the document's paths serve each kind of its own group/version.
fn scopes(doc: &Document) -> BTreeMap<String, Scope> {
    let prefix = if doc.group.is_empty() { format!("/api/{}/", doc.version) } else { format!("/apis/{}/{}/", doc.group, doc.version) };
    let mut found: BTreeMap<String, Vec<Scope>> = BTreeMap::new();
    let Some(paths) = doc.json.get("paths").and_then(Value::as_object) else { return BTreeMap::new() };
    for (path, item) in paths {
        let Some(rest) = path.strip_prefix(&prefix) else { continue };
        let segments: Vec<&str> = rest.split('/').filter(|s| !s.is_empty()).collect();
        if segments.first() == Some(&"watch") {
            continue;
        }
        let scope = match segments.as_slice() {
            ["namespaces", "{namespace}", _] | ["namespaces", "{namespace}", _, "{name}"] => Scope::Namespaced,
            [_] | [_, "{name}"] => Scope::Cluster,
            _ => Scope::Subresource,
        };
        let Some(operations) = item.as_object() else { continue };
        for (method, operation) in operations {
            for (group, version, kind) in operation_kinds(doc, method, path, operation) {
                if group == doc.group && version == doc.version {
                    found.entry(kind).or_default().push(scope);
                }
            }
        }
    }
    found
        .into_iter()
        .map(|(kind, scopes)| {
            // A namespaced kind also has a cluster-wide list path; a path of its own decides.
            let scope = [Scope::Namespaced, Scope::Cluster, Scope::Subresource]
                .into_iter()
                .find(|s| scopes.contains(s))
                .unwrap_or(Scope::Subresource);
            (kind, scope)
        })
        .collect()
}

/// The kinds an operation serves: its `x-kubernetes-group-version-kind`, or where that is missing (the
/// 1.23 documents), the kind of the object it creates or replaces (`post`, `put`) or reads (`get` of
/// one object).
fn operation_kinds(doc: &Document, method: &str, path: &str, operation: &Value) -> Vec<Gvk> {
    if let Some(gvk) = operation.get("x-kubernetes-group-version-kind") {
        return kinds_of(&json!({ "x-kubernetes-group-version-kind": [gvk] }));
    }
    let body = match method {
        "post" | "put" => operation.pointer("/requestBody/content"),
        "get" if path.ends_with("{name}") => operation.pointer("/responses/200/content"),
        _ => None,
    };
    let Some(reference) = body.and_then(Value::as_object).and_then(|c| c.values().find_map(|media| media.pointer("/schema/$ref"))) else {
        return Vec::new();
    };
    let Some(name) = reference.as_str().and_then(|r| r.strip_prefix("#/components/schemas/")) else { return Vec::new() };
    doc.json.pointer("/components/schemas").and_then(|schemas| schemas.get(name)).map(kinds_of).unwrap_or_default()
}

/// The graph of every schema object read.
#[derive(Default)]
struct Graph {
    nodes: Vec<Raw>,
    /// Each document's `components.schemas`.
    documents: Vec<Map<String, Value>>,
    /// The node of each (document, schema name) read so far.
    components: HashMap<(usize, String), usize>,
    /// Schemas worth a look, for the report.
    notes: Vec<String>,
}

impl Graph {
    /// The node of the named schema of document `doc`, read on first use.
    fn component(&mut self, doc: usize, name: &str) -> Result<usize, String> {
        if let Some(&node) = self.components.get(&(doc, name.to_string())) {
            return Ok(node);
        }
        let raw = self.documents[doc].get(name).cloned().ok_or_else(|| format!("$ref to the missing schema {name}"))?;
        let node = self.nodes.len();
        self.nodes.push(Raw::default());
        self.components.insert((doc, name.to_string()), node);
        let Raw { mut facts, mut edges, .. } = self.read(doc, &raw, name)?;
        derive(name, &mut facts, &mut edges, &mut self.notes)?;
        if name == QUANTITY && facts.len() == 1 && facts.get("type").and_then(Value::as_str) == Some("string") && edges.is_empty() {
            // 1.23's document says `type: string`; the Go type has always decoded numbers too, and the
            // later documents say so.
            facts.clear();
            for (i, ty) in ["string", "number"].into_iter().enumerate() {
                let mut alternative = Map::new();
                alternative.insert("type".to_string(), Value::from(ty));
                self.nodes.push(Raw { facts: alternative, edges: Vec::new(), copy_of: None });
                edges.push((Edge::OneOf(i), self.nodes.len() - 1));
            }
        }
        self.nodes[node] = Raw { facts, edges, copy_of: None };
        Ok(node)
    }

    /// The node of a schema object met inside another.
    fn schema(&mut self, doc: usize, raw: &Value, origin: &str) -> Result<usize, String> {
        if let Some(Reference { target, beside }) = reference(raw, origin)? {
            let target = self.component(doc, target)?;
            let beside = self.read(doc, &Value::Object(beside), origin)?;
            if beside.facts.is_empty() && beside.edges.is_empty() {
                return Ok(target);
            }
            self.nodes.push(Raw { copy_of: Some(target), ..beside });
        } else {
            let mut node = self.read(doc, raw, origin)?;
            derive(origin, &mut node.facts, &mut node.edges, &mut self.notes)?;
            self.nodes.push(node);
        }
        Ok(self.nodes.len() - 1)
    }

    /// The facts and children of a schema object.
    fn read(&mut self, doc: usize, raw: &Value, origin: &str) -> Result<Raw, String> {
        let object = raw.as_object().ok_or_else(|| format!("{origin}: a schema that is not an object"))?;
        let mut facts = Map::new();
        let mut edges = Vec::new();
        for (key, value) in object {
            let at = format!("{origin}.{key}");
            match key.as_str() {
                k if DROPPED.contains(&k) => {}
                "properties" => {
                    let props = value.as_object().ok_or_else(|| format!("{at}: not an object"))?;
                    for (name, prop) in props {
                        let child = self.schema(doc, prop, &format!("{origin}.{name}"))?;
                        edges.push((Edge::Property(name.clone()), child));
                    }
                }
                "additionalProperties" if value.is_boolean() => {
                    facts.insert(key.clone(), value.clone());
                }
                "additionalProperties" | "items" | "not" => {
                    let child = self.schema(doc, value, &at)?;
                    let edge = match key.as_str() {
                        "additionalProperties" => Edge::AdditionalProperties,
                        "items" => Edge::Items,
                        _ => Edge::Not,
                    };
                    edges.push((edge, child));
                }
                "allOf" | "anyOf" | "oneOf" => {
                    let list = value.as_array().ok_or_else(|| format!("{at}: not an array"))?;
                    for (i, item) in list.iter().enumerate() {
                        let child = self.schema(doc, item, &format!("{at}[{i}]"))?;
                        let edge = match key.as_str() {
                            "allOf" => Edge::AllOf(i),
                            "anyOf" => Edge::AnyOf(i),
                            _ => Edge::OneOf(i),
                        };
                        edges.push((edge, child));
                    }
                }
                k if KEYWORDS.contains(&k) => {
                    facts.insert(key.clone(), value.clone());
                }
                _ => {
                    return Err(format!(
                        "{at}: the keyword `{key}` is neither a fact crdls ships nor one it drops; \
                         add it to format::KEYWORDS or to the generator's DROPPED list"
                    ))
                }
            }
        }
        Ok(Raw { facts: ordered(facts), edges, copy_of: None })
    }

    /// Gives each `$ref` with keywords beside it the referenced node's facts and children.
    fn resolve_copies(&mut self) -> Result<(), String> {
        for node in 0..self.nodes.len() {
            let Some(target) = self.nodes[node].copy_of else { continue };
            // The keywords beside the reference win: a field can mark its map `granular` where the
            // referenced type is `atomic` (core/v1 PersistentVolumeSpec.claimRef).
            let mut facts = self.nodes[target].facts.clone();
            facts.extend(std::mem::take(&mut self.nodes[node].facts));
            if !self.nodes[node].edges.is_empty() && !self.nodes[target].edges.is_empty() {
                return Err("a $ref has child schemas beside it".to_string());
            }
            if self.nodes[node].edges.is_empty() {
                self.nodes[node].edges = self.nodes[target].edges.clone();
            }
            self.nodes[node].facts = ordered(facts);
            self.nodes[node].copy_of = None;
        }
        Ok(())
    }

    /// The class of every node: equal classes are equal schemas.
    fn merge(&self) -> Vec<u32> {
        let mut labels: HashMap<String, u32> = HashMap::new();
        let mut class: Vec<u32> = self
            .nodes
            .iter()
            .map(|n| {
                let next = labels.len() as u32;
                *labels.entry(Value::Object(n.facts.clone()).to_string()).or_insert(next)
            })
            .collect();
        let mut edge_ids: HashMap<&Edge, u32> = HashMap::new();
        let edges: Vec<Vec<(u32, usize)>> = self
            .nodes
            .iter()
            .map(|n| {
                n.edges
                    .iter()
                    .map(|(edge, child)| {
                        let next = edge_ids.len() as u32;
                        (*edge_ids.entry(edge).or_insert(next), *child)
                    })
                    .collect()
            })
            .collect();
        let mut count = labels.len();
        loop {
            let mut signatures: HashMap<Vec<u32>, u32> = HashMap::with_capacity(count * 2);
            let mut signature = Vec::new();
            let refined: Vec<u32> = (0..self.nodes.len())
                .map(|node| {
                    signature.clear();
                    signature.push(class[node]);
                    for &(edge, child) in &edges[node] {
                        signature.extend([edge, class[child]]);
                    }
                    let next = signatures.len() as u32;
                    *signatures.entry(signature.clone()).or_insert(next)
                })
                .collect();
            class = refined;
            if signatures.len() == count {
                return class;
            }
            count = signatures.len();
        }
    }

    /// The JSON of a node, its children written as the ids `id` gives.
    fn write(&self, node: usize, id: &dyn Fn(usize) -> u32) -> Value {
        let raw = &self.nodes[node];
        let mut by_key: BTreeMap<&str, Value> = BTreeMap::new();
        let mut properties = Map::new();
        for (edge, child) in &raw.edges {
            let child = Value::from(id(*child));
            match edge {
                Edge::Property(name) => {
                    properties.insert(name.clone(), child);
                }
                Edge::AdditionalProperties => {
                    by_key.insert("additionalProperties", child);
                }
                Edge::Items => {
                    by_key.insert("items", child);
                }
                Edge::Not => {
                    by_key.insert("not", child);
                }
                Edge::AllOf(_) | Edge::AnyOf(_) | Edge::OneOf(_) => {
                    let key = match edge {
                        Edge::AllOf(_) => "allOf",
                        Edge::AnyOf(_) => "anyOf",
                        _ => "oneOf",
                    };
                    by_key.entry(key).or_insert_with(|| Value::Array(Vec::new())).as_array_mut().expect("an array").push(child);
                }
            }
        }
        if raw.edges.iter().any(|(e, _)| matches!(e, Edge::Property(_))) {
            by_key.insert("properties", Value::Object(properties));
        }
        let mut out = Map::new();
        for key in KEYWORDS {
            if let Some(value) = raw.facts.get(*key).cloned().or_else(|| by_key.remove(key)) {
                out.insert(key.to_string(), value);
            }
        }
        Value::Object(out)
    }
}

/// A `$ref` (bare, or as the only member of `allOf`).
struct Reference<'a> {
    /// The name of the referenced schema.
    target: &'a str,
    /// The keywords beside the reference.
    beside: Map<String, Value>,
}

/// The reference `raw` is, if it is one.
fn reference<'a>(raw: &'a Value, origin: &str) -> Result<Option<Reference<'a>>, String> {
    let Some(object) = raw.as_object() else { return Ok(None) };
    let target = match (object.get("$ref"), object.get("allOf").and_then(Value::as_array)) {
        (Some(target), _) => target,
        (None, Some(list)) if list.len() == 1 && list[0].as_object().is_some_and(|o| o.len() == 1 && o.contains_key("$ref")) => {
            &list[0]["$ref"]
        }
        _ => return Ok(None),
    };
    let name = target
        .as_str()
        .and_then(|t| t.strip_prefix("#/components/schemas/"))
        .ok_or_else(|| format!("{origin}: a $ref outside #/components/schemas: {target}"))?;
    let beside = object.iter().filter(|(k, _)| *k != "$ref" && *k != "allOf").map(|(k, v)| (k.clone(), v.clone())).collect();
    Ok(Some(Reference { target: name, beside }))
}

/// The facts the upstream documents imply but do not write (see the library's documentation).
fn derive(origin: &str, facts: &mut Map<String, Value>, edges: &mut Vec<(Edge, usize)>, notes: &mut Vec<String>) -> Result<(), String> {
    if facts.get("format").and_then(Value::as_str) == Some("int-or-string") {
        // 1.23's document says `type: string` where later ones say `oneOf` integer or string.
        let typed = facts.remove("type");
        if typed.is_some_and(|t| t != "string") || edges.iter().any(|(e, _)| !matches!(e, Edge::OneOf(_))) {
            return Err(format!("{origin}: an int-or-string schema of an unexpected shape"));
        }
        facts.remove("format");
        edges.clear();
        facts.insert("x-kubernetes-int-or-string".to_string(), Value::Bool(true));
        *facts = ordered(std::mem::take(facts));
    } else if FREE_FORM.contains(&origin) {
        if facts.len() != 1 || facts.get("type").and_then(Value::as_str) != Some("object") || !edges.is_empty() {
            return Err(format!("{origin}: expected a bare `type: object` for a type that holds raw JSON"));
        }
        facts.insert("x-kubernetes-preserve-unknown-fields".to_string(), Value::Bool(true));
        *facts = ordered(std::mem::take(facts));
    } else if facts.is_empty() && edges.is_empty() {
        facts.insert("x-kubernetes-preserve-unknown-fields".to_string(), Value::Bool(true));
    } else if edges.is_empty() && facts.len() == 1 && facts.get("type").and_then(Value::as_str) == Some("object") {
        let note = format!("kept as an object without fields (unknown fields dropped): {origin}");
        if !notes.contains(&note) {
            notes.push(note);
        }
    }
    Ok(())
}

/// `facts` in [`KEYWORDS`] order, so that equal facts print equal.
fn ordered(mut facts: Map<String, Value>) -> Map<String, Value> {
    let mut out = Map::new();
    for key in KEYWORDS {
        if let Some(value) = facts.remove(*key) {
            out.insert(key.to_string(), value);
        }
    }
    out
}
