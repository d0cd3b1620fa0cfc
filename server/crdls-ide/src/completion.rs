//! Completion: keys from the schema at the cursor, values (enum members, booleans, defaults), `apiVersion`
//! and `kind` from the CRD index, and a skeleton per kind in an empty document. The cursor's place is
//! read from the text by indentation (see `context`), so completion works while the document is mid-edit;
//! the parsed tree adds the keys it already holds and the document's `apiVersion` and `kind`.

use std::collections::{BTreeMap, BTreeSet};

use crdls_builtins::KubeVersion;
use crdls_crd::{compare_versions, split_api_version, CrdIndex, CrdVersion, IndexedCrd, Resolution, Schema};
use crdls_diagnostics::TextRange;
use crdls_yaml::{document_at, Node, Segment, Stream, Value};

use crate::context::{context, root_scalar, Context, What};
use crate::hover::crd_summary;
use crate::render::{snippet_escape, yaml_inline, yaml_string};
use crate::schema_walk::{shape, type_label, walk, Shape, Step, SERVER_SET_META_FIELDS};
use crate::skeleton::{skeleton_field, Fill};
use crate::types::{CompletionItem, CompletionKind};

/// The completions at byte `offset`, sorted by `sort_text`; a built-in object's fields are those of
/// Kubernetes release `kube`. Multi-line inserts carry their full
/// indentation, so a client must insert them as they are (LSP `insertTextMode: asIs`).
pub fn completions(text: &str, stream: &Stream, index: &CrdIndex, offset: usize, kube: KubeVersion) -> Vec<CompletionItem> {
    let mut offset = offset.min(text.len());
    while !text.is_char_boundary(offset) {
        offset -= 1;
    }
    if let Some(items) = crate::cel_assist::completions(text, stream, offset) {
        return items;
    }
    let Some(ctx) = context(text, offset) else { return Vec::new() };
    let doc = DocumentFacts::read(text, stream, index, &ctx, offset, kube);
    let mut items = match &ctx.what {
        What::NewDocument { word } => {
            let mut items = skeletons(index, *word);
            items.extend(key_items(&Step::root(None), &[], 0, *word, false, &BTreeSet::new()));
            items
        }
        What::Key { path, column, word, colon_follows, item_start, siblings } => {
            let Some(steps) = walk(doc.schema, path) else { return Vec::new() };
            let Some(step) = steps.last() else { return Vec::new() };
            if *item_start && shape(step.schema) != Shape::Object {
                value_items(step, *word, false)
            } else {
                let mut present: BTreeSet<&str> = siblings.iter().copied().collect();
                if let Some(node) = doc.root.and_then(|root| node_at(root, path)) {
                    let on_cursor_line = |r: TextRange| ctx.line.start <= r.start && r.start <= ctx.line.end;
                    present
                        .extend(node.as_map().unwrap_or_default().iter().filter(|e| !on_cursor_line(e.key_range)).map(|e| e.key.as_str()));
                }
                key_items(step, path, *column, *word, *colon_follows, &present)
            }
        }
        What::Value { path, word, space_needed } => match path.as_slice() {
            [Segment::Key("apiVersion")] => api_version_items(index, doc.kind, *word, *space_needed),
            [Segment::Key("kind")] => kind_items(index, doc.api_version, *word, *space_needed),
            _ => match walk(doc.schema, path) {
                Some(steps) => steps.last().map(|step| value_items(step, *word, *space_needed)).unwrap_or_default(),
                None => Vec::new(),
            },
        },
    };
    items.sort_by(|a, b| (&a.sort_text, &a.label).cmp(&(&b.sort_text, &b.label)));
    items
}

/// What completion needs to know about the cursor's document.
struct DocumentFacts<'a> {
    /// The parsed root, when the parser got that far.
    root: Option<&'a Node>,
    /// `apiVersion`, from the tree or else the text.
    api_version: Option<&'a str>,
    /// `kind`, from the tree or else the text.
    kind: Option<&'a str>,
    /// The schema of the object's version, when the index knows it.
    schema: Option<&'a Schema>,
}

impl<'a> DocumentFacts<'a> {
    fn read(
        text: &'a str,
        stream: &'a Stream,
        index: &'a CrdIndex,
        ctx: &Context<'_>,
        offset: usize,
        kube: KubeVersion,
    ) -> DocumentFacts<'a> {
        let root = document_at(stream, offset)
            .filter(|d| d.range.start <= ctx.doc.start && ctx.doc.end <= d.range.end)
            .and_then(|d| d.root.as_ref());
        let scalar = |key: &str| root.and_then(|r| r.get_str(key)).or_else(|| root_scalar(text, ctx.doc, key));
        let (api_version, kind) = (scalar("apiVersion"), scalar("kind"));
        let schema = match (api_version, kind) {
            _ if crate::builtin_crd::is_crd_document(api_version, kind) => Some(crate::builtin_crd::crd_schema()),
            (Some(api_version), Some(kind)) => match index.resolve(api_version, kind) {
                Resolution::Found { version, .. } => version.schema().map(|s| &**s),
                // A version being typed: the preferred one's schema is the best guess.
                Resolution::UnknownVersion { crd } => preferred_version(crd).and_then(|v| v.schema().map(|s| &**s)),
                Resolution::UnknownGroup => crate::builtin_kinds::schema(kube, api_version, kind),
                _ => None,
            },
            _ => None,
        };
        DocumentFacts { root, api_version, kind, schema }
    }
}

/// The node of the tree at `path`, when the tree has one there.
pub(crate) fn node_at<'n>(root: &'n Node, path: &[Segment<'_>]) -> Option<&'n Node> {
    path.iter().try_fold(root, |node, segment| match segment {
        Segment::Key(k) => node.get(k),
        Segment::Index(i) => node.as_seq()?.get(*i),
    })
}

/// The version a new object should use: the storage version when served, else the first served one.
pub(crate) fn preferred_version(crd: &IndexedCrd) -> Option<&CrdVersion> {
    let versions = &crd.crd.versions;
    versions.iter().find(|v| v.storage && v.served).or_else(|| versions.iter().find(|v| v.served))
}

/// The keys that may be added to the mapping at `step`.
fn key_items(
    step: &Step<'_>,
    path: &[Segment<'_>],
    column: usize,
    word: TextRange,
    colon_follows: bool,
    present: &BTreeSet<&str>,
) -> Vec<CompletionItem> {
    if shape(step.schema) != Shape::Object {
        return Vec::new();
    }
    let in_metadata = step.builtin && path.last() == Some(&Segment::Key("metadata"));
    step.fields()
        .into_iter()
        .enumerate()
        .filter(|(_, (p, _))| !present.contains(p.name.as_str()))
        .filter(|(_, (p, _))| !(in_metadata && SERVER_SET_META_FIELDS.contains(&p.name.as_str())))
        .map(|(position, (property, required))| {
            let schema = &property.schema;
            let (insert_text, snippet) = key_insert(&property.name, schema, column, colon_follows);
            let mut detail = type_label(schema);
            if required {
                detail.push_str(", required");
            }
            CompletionItem {
                label: property.name.clone(),
                kind: CompletionKind::Field,
                detail: Some(detail),
                documentation: schema.description.as_deref().map(str::to_string),
                insert_text,
                snippet,
                replace: word,
                sort_text: format!("{}{position:04}", if required { 0 } else { 1 }),
                deprecated: false,
            }
        })
        .collect()
}

/// The text inserted for a key: `key:` and a new indented line for objects and maps, `key:` and a `- `
/// line for lists, `key: ` for scalars (with the default as a placeholder). Only the key when a `:` follows.
fn key_insert(name: &str, schema: &Schema, column: usize, colon_follows: bool) -> (String, bool) {
    let key = yaml_string(name);
    if colon_follows {
        return (key, false);
    }
    let key = snippet_escape(&key);
    let pad = " ".repeat(column);
    let text = match (shape(schema), &schema.default) {
        (Shape::Object | Shape::Map, _) => format!("{key}:\n{pad}  $0"),
        (Shape::List, _) => format!("{key}:\n{pad}- $0"),
        (Shape::Scalar, Some(default)) if !matches!(default.value, Value::Map(_) | Value::Seq(_)) => {
            format!("{key}: ${{1:{}}}", snippet_escape(&yaml_inline(default)))
        }
        (Shape::Scalar, _) => format!("{key}: $0"),
    };
    (text, true)
}

/// The values offered for the node at `step`: enum members, booleans, null when nullable, the default, and
/// a hint for int-or-string.
fn value_items(step: &Step<'_>, word: TextRange, space_needed: bool) -> Vec<CompletionItem> {
    let schema = step.schema;
    let lead = if space_needed { " " } else { "" };
    let default = schema.default.as_ref().filter(|d| !matches!(d.value, Value::Map(_) | Value::Seq(_)));
    let item = |label: String, detail: Option<String>, position: usize| CompletionItem {
        insert_text: format!("{lead}{label}"),
        label,
        kind: CompletionKind::Value,
        detail,
        documentation: schema.description.as_deref().map(str::to_string),
        snippet: false,
        replace: word,
        sort_text: format!("{position:04}"),
        deprecated: false,
    };
    let mut items = Vec::new();
    let mut candidates: Vec<Value> = match (&schema.enumeration, schema.ty.as_deref()) {
        (Some(members), _) => members.iter().map(|m| m.value.clone()).collect(),
        (None, Some("boolean")) => vec![Value::Bool(true), Value::Bool(false)],
        _ => Vec::new(),
    };
    if schema.nullable && !candidates.is_empty() {
        candidates.push(Value::Null);
    }
    for (position, value) in candidates.iter().enumerate() {
        let is_default = default.is_some_and(|d| d.value == *value);
        let node = Node { range: TextRange::default(), value: value.clone(), style: crdls_yaml::Style::Plain };
        items.push(item(yaml_inline(&node), is_default.then(|| "default".to_string()), position));
    }
    if let Some(default) = default.filter(|d| !candidates.contains(&d.value)) {
        items.push(item(yaml_inline(default), Some("default".to_string()), items.len()));
    }
    if schema.int_or_string {
        items.push(CompletionItem {
            label: "<int-or-string>".to_string(),
            kind: CompletionKind::Value,
            detail: Some("an integer (8080) or a string (\"http\", \"25%\")".to_string()),
            documentation: schema.description.as_deref().map(str::to_string),
            insert_text: format!("{lead}${{1:0}}"),
            snippet: true,
            replace: word,
            sort_text: format!("{:04}", items.len()),
            deprecated: false,
        });
    }
    items
}

/// Every served `group/version` of the index (of the document's kind, when the index knows it), each
/// group's versions in Kubernetes priority order.
fn api_version_items(index: &CrdIndex, kind: Option<&str>, word: TextRange, space_needed: bool) -> Vec<CompletionItem> {
    let of_kind = |c: &&IndexedCrd| kind.is_none_or(|k| c.crd.names.kind == k);
    let filter_by_kind = index.iter().any(|c| of_kind(&c));
    let mut groups: BTreeMap<&str, BTreeMap<&str, ServedVersion<'_>>> = BTreeMap::new();
    for crd in index.iter().filter(|c| !filter_by_kind || of_kind(c)) {
        for version in crd.crd.versions.iter().filter(|v| v.served) {
            let served = groups.entry(&crd.crd.group).or_default().entry(&version.name).or_insert(ServedVersion {
                kinds: BTreeSet::new(),
                deprecated: true,
                warning: None,
            });
            served.kinds.insert(&crd.crd.names.kind);
            served.deprecated &= version.deprecated;
            served.warning = served.warning.or(version.deprecation_warning.as_deref());
        }
    }
    let lead = if space_needed { " " } else { "" };
    let mut items = Vec::new();
    for (group, versions) in groups {
        let mut versions: Vec<_> = versions.into_iter().collect();
        versions.sort_by(|a, b| compare_versions(a.0, b.0));
        for (rank, (version, served)) in versions.into_iter().enumerate() {
            let label = if group.is_empty() { version.to_string() } else { format!("{group}/{version}") };
            let deprecated = served.deprecated;
            let documentation = deprecated.then(|| served.warning.map_or_else(|| format!("`{label}` is deprecated."), str::to_string));
            items.push(CompletionItem {
                insert_text: format!("{lead}{label}"),
                label,
                kind: CompletionKind::ApiVersion,
                detail: Some(served.kinds.into_iter().collect::<Vec<_>>().join(", ")),
                documentation,
                snippet: false,
                replace: word,
                sort_text: format!("{group}/{rank:03}"),
                deprecated,
            });
        }
    }
    items
}

/// One `group/version` as the CRDs of a group serve it.
struct ServedVersion<'a> {
    /// The kinds served at it.
    kinds: BTreeSet<&'a str>,
    /// Whether every CRD serving it marks it deprecated.
    deprecated: bool,
    /// A deprecation warning, when some CRD sets one.
    warning: Option<&'a str>,
}

/// The kinds served at the document's `apiVersion`, or every kind when it serves none (or is not set).
fn kind_items(index: &CrdIndex, api_version: Option<&str>, word: TextRange, space_needed: bool) -> Vec<CompletionItem> {
    let serves = |c: &IndexedCrd| {
        api_version.is_some_and(|a| {
            let (group, version) = split_api_version(a);
            c.crd.group == group && c.crd.version(version).is_some_and(|v| v.served)
        })
    };
    let any_served = index.iter().any(serves);
    let mut crds: Vec<&IndexedCrd> = index.iter().filter(|c| !any_served || serves(c)).collect();
    crds.sort_by(|a, b| (&a.crd.names.kind, &a.crd.group).cmp(&(&b.crd.names.kind, &b.crd.group)));
    let lead = if space_needed { " " } else { "" };
    crds.into_iter()
        .filter(|c| !c.crd.names.kind.is_empty())
        .map(|c| {
            let kind = &c.crd.names.kind;
            let detail = match preferred_version(c) {
                Some(v) => c.crd.api_version_of(&v.name),
                None => c.crd.group.clone(),
            };
            CompletionItem {
                label: kind.clone(),
                kind: CompletionKind::Kind,
                detail: Some(detail),
                documentation: Some(crd_summary(c, None)),
                insert_text: format!("{lead}{}", yaml_string(kind)),
                snippet: false,
                replace: word,
                sort_text: format!("{kind}/{}", c.crd.group),
                deprecated: false,
            }
        })
        .collect()
}

/// One whole-object snippet per kind: `apiVersion` (the preferred version), `kind`, `metadata.name` and the
/// root's required fields, recursively for required objects.
fn skeletons(index: &CrdIndex, word: TextRange) -> Vec<CompletionItem> {
    let mut crds: Vec<&IndexedCrd> = index.iter().filter(|c| !c.crd.names.kind.is_empty()).collect();
    crds.sort_by(|a, b| (&a.crd.names.kind, &a.crd.group).cmp(&(&b.crd.names.kind, &b.crd.group)));
    crds.into_iter()
        .filter_map(|c| {
            let version = preferred_version(c)?;
            let api_version = c.crd.api_version_of(&version.name);
            let kind = &c.crd.names.kind;
            let mut text = format!(
                "apiVersion: {}\nkind: {}\nmetadata:\n  name: ${{1:name}}\n",
                snippet_escape(&yaml_string(&api_version)),
                snippet_escape(&yaml_string(kind))
            );
            let mut fill = Fill::Snippet { next_tab: 2 };
            if let Some(schema) = version.schema().map(|s| &**s) {
                let required = schema.required.iter().filter(|r| !matches!(r.as_str(), "apiVersion" | "kind" | "metadata"));
                for name in required {
                    if let Some(p) = schema.property(name) {
                        skeleton_field(name, &p.schema, 0, &mut text, &mut fill, 0);
                    }
                }
            }
            Some(CompletionItem {
                label: kind.clone(),
                kind: CompletionKind::Snippet,
                detail: Some(format!("new {kind} ({api_version})")),
                documentation: Some(crd_summary(c, Some(&version.name))),
                insert_text: text,
                snippet: true,
                replace: word,
                sort_text: format!("0/{kind}/{}", c.crd.group),
                deprecated: false,
            })
        })
        .collect()
}

#[cfg(test)]
mod tests;
