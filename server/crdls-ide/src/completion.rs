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
mod tests {
    use crdls_test_fixture as fixture;
    use expect_test::{expect, Expect};

    use super::*;

    /// A CRD with one field per completion case: required and optional keys, nested objects, lists of
    /// objects and of enum strings, a map, enums with YAML-ambiguous members, a boolean, defaults, an
    /// int-or-string, an embedded resource, and a deprecated version.
    fn crd() -> String {
        let widget = fixture::Crd::new("Widget")
            .short_names(&["wdg"])
            .categories(&["all"])
            .schema(
                r#"
                type: object
                required: [spec]
                properties:
                  spec:
                    type: object
                    required: [size, owner]
                    properties:
                      replicas:
                        type: integer
                        description: How many copies to run.
                        default: 1
                      size:
                        type: integer
                        description: The size, from 1 to 10.
                      owner:
                        type: string
                      tier:
                        type: string
                        enum: [gold, silver, bronze]
                        default: bronze
                      switch:
                        type: string
                        enum: ["on", "off", "1.0"]
                      enabled:
                        type: boolean
                      port:
                        x-kubernetes-int-or-string: true
                      ports:
                        type: array
                        items:
                          type: object
                          required: [containerPort]
                          properties:
                            containerPort: {type: integer}
                            protocol: {type: string, enum: [TCP, UDP], default: TCP}
                            name: {type: string}
                      tags:
                        type: array
                        items: {type: string, enum: [a, b]}
                      labels:
                        type: object
                        additionalProperties:
                          type: object
                          properties:
                            value: {type: string}
                      template:
                        type: object
                        x-kubernetes-embedded-resource: true
                        x-kubernetes-preserve-unknown-fields: true
                        properties:
                          spec: {type: object}
                      nested:
                        type: object
                        properties:
                          deeper:
                            type: object
                            properties:
                              leaf: {type: string}
                "#,
            )
            .version(
                fixture::Version::new("v1beta1")
                    .deprecation_warning("demo.crdls.dev/v1beta1 Widget is deprecated; use demo.crdls.dev/v1")
                    .schema("{type: object}"),
            );
        let gadget = fixture::Crd::new("Gadget").cluster_scoped().storage_version("v1alpha1").schema(
            r#"
            type: object
            required: [spec]
            properties:
              spec:
                type: object
                required: [mode, items]
                properties:
                  mode: {type: string, enum: [fast, safe]}
                  items:
                    type: array
                    items:
                      type: object
                      required: [name, weight]
                      properties:
                        name: {type: string}
                        weight: {type: integer, default: 5}
            "#,
        );
        fixture::join(&[widget, gadget])
    }

    const HEAD: &str = "apiVersion: demo.crdls.dev/v1\nkind: Widget\n";

    /// Completes at `$0` and renders one line per item: label, kind, detail, flags, then the replaced text
    /// and the insert text (escaped), and the first line of its documentation.
    fn check_completion(crd_yaml: &str, doc_with_cursor: &str, expect: Expect) {
        let offset = doc_with_cursor.find("$0").expect("the fixture has a $0 cursor");
        let text = doc_with_cursor.replacen("$0", "", 1);
        let stream = crdls_yaml::parse(&text);
        let items = completions(&text, &stream, &fixture::index(crd_yaml), offset, crdls_builtins::newest());
        let mut out = String::new();
        for item in items {
            let flags = [(item.snippet, " snippet"), (item.deprecated, " deprecated")];
            let flags: String = flags.iter().filter(|f| f.0).map(|f| f.1).collect();
            out.push_str(&format!(
                "{} ({:?}{flags}) [{}] {:?} -> {:?}",
                item.label,
                item.kind,
                item.detail.unwrap_or_default(),
                &text[item.replace.start..item.replace.end],
                item.insert_text
            ));
            if let Some(doc) = item.documentation.as_deref().and_then(|d| d.lines().next()) {
                out.push_str(&format!(" // {doc}"));
            }
            out.push('\n');
        }
        expect.assert_eq(&out);
    }

    #[test]
    fn keys_while_typing_without_a_colon() {
        check_completion(
            &crd(),
            &format!("{HEAD}spec:\n  rep$0"),
            expect![[r#"
            size (Field snippet) [integer, required] "rep" -> "size: $0" // The size, from 1 to 10.
            owner (Field snippet) [string, required] "rep" -> "owner: $0"
            replicas (Field snippet) [integer] "rep" -> "replicas: ${1:1}" // How many copies to run.
            tier (Field snippet) [string] "rep" -> "tier: ${1:bronze}"
            switch (Field snippet) [string] "rep" -> "switch: $0"
            enabled (Field snippet) [boolean] "rep" -> "enabled: $0"
            port (Field snippet) [int-or-string] "rep" -> "port: $0"
            ports (Field snippet) [[]object] "rep" -> "ports:\n  - $0"
            tags (Field snippet) [[]string] "rep" -> "tags:\n  - $0"
            labels (Field snippet) [map[string]object] "rep" -> "labels:\n    $0"
            template (Field snippet) [object] "rep" -> "template:\n    $0"
            nested (Field snippet) [object] "rep" -> "nested:\n    $0"
        "#]],
        );
    }

    #[test]
    fn keys_of_a_built_in_kind_follow_the_release_the_settings_name() {
        let doc = "apiVersion: v1\nkind: Pod\nmetadata:\n  name: p\nspec:\n  containers: []\n  sch";
        let stream = crdls_yaml::parse(doc);
        let labels = |minor: u16| -> Vec<String> {
            let items = completions(doc, &stream, &CrdIndex::new(), doc.len(), crdls_builtins::KubeVersion::new(1, minor));
            items.into_iter().map(|item| item.label).filter(|l| l == "schedulingGroup" || l == "workloadRef").collect()
        };
        // 1.36 replaced Pod's `workloadRef` (1.35) with `schedulingGroup`.
        assert_eq!(labels(35), ["workloadRef"]);
        assert_eq!(labels(36), ["schedulingGroup"]);
        assert_eq!(labels(37), ["schedulingGroup"]);
    }

    #[test]
    fn keys_of_a_built_in_kind() {
        check_completion(
            "",
            "apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: web\nspec:\n  template:\n    spec:\n      containers:\n        - name: web\n          imagePull$0",
            expect![[r#"
                args (Field snippet) [[]string] "imagePull" -> "args:\n          - $0"
                command (Field snippet) [[]string] "imagePull" -> "command:\n          - $0"
                env (Field snippet) [[]object] "imagePull" -> "env:\n          - $0"
                envFrom (Field snippet) [[]object] "imagePull" -> "envFrom:\n          - $0"
                image (Field snippet) [string] "imagePull" -> "image: $0"
                imagePullPolicy (Field snippet) [string] "imagePull" -> "imagePullPolicy: $0"
                lifecycle (Field snippet) [object] "imagePull" -> "lifecycle:\n            $0"
                livenessProbe (Field snippet) [object] "imagePull" -> "livenessProbe:\n            $0"
                ports (Field snippet) [[]object] "imagePull" -> "ports:\n          - $0"
                readinessProbe (Field snippet) [object] "imagePull" -> "readinessProbe:\n            $0"
                resizePolicy (Field snippet) [[]object] "imagePull" -> "resizePolicy:\n          - $0"
                resources (Field snippet) [object] "imagePull" -> "resources:\n            $0"
                restartPolicy (Field snippet) [string] "imagePull" -> "restartPolicy: $0"
                restartPolicyRules (Field snippet) [[]object] "imagePull" -> "restartPolicyRules:\n          - $0"
                securityContext (Field snippet) [object] "imagePull" -> "securityContext:\n            $0"
                startupProbe (Field snippet) [object] "imagePull" -> "startupProbe:\n            $0"
                stdin (Field snippet) [boolean] "imagePull" -> "stdin: $0"
                stdinOnce (Field snippet) [boolean] "imagePull" -> "stdinOnce: $0"
                terminationMessagePath (Field snippet) [string] "imagePull" -> "terminationMessagePath: $0"
                terminationMessagePolicy (Field snippet) [string] "imagePull" -> "terminationMessagePolicy: $0"
                tty (Field snippet) [boolean] "imagePull" -> "tty: $0"
                volumeDevices (Field snippet) [[]object] "imagePull" -> "volumeDevices:\n          - $0"
                volumeMounts (Field snippet) [[]object] "imagePull" -> "volumeMounts:\n          - $0"
                workingDir (Field snippet) [string] "imagePull" -> "workingDir: $0"
            "#]],
        );
    }

    #[test]
    fn keys_in_a_document_the_parser_cannot_finish() {
        // `ow` without a colon between two keys is a syntax error; the partial tree still holds `size`.
        check_completion(
            &crd(),
            &format!("{HEAD}spec:\n  size: 1\n  ow$0\n  tags: []\n"),
            expect![[r#"
            owner (Field snippet) [string, required] "ow" -> "owner: $0"
            replicas (Field snippet) [integer] "ow" -> "replicas: ${1:1}" // How many copies to run.
            tier (Field snippet) [string] "ow" -> "tier: ${1:bronze}"
            switch (Field snippet) [string] "ow" -> "switch: $0"
            enabled (Field snippet) [boolean] "ow" -> "enabled: $0"
            port (Field snippet) [int-or-string] "ow" -> "port: $0"
            ports (Field snippet) [[]object] "ow" -> "ports:\n  - $0"
            labels (Field snippet) [map[string]object] "ow" -> "labels:\n    $0"
            template (Field snippet) [object] "ow" -> "template:\n    $0"
            nested (Field snippet) [object] "ow" -> "nested:\n    $0"
        "#]],
        );
        check_completion(
            &crd(),
            &format!("{HEAD}spec:\n  ports:\n  - containerPort: 1\n  - pro$0"),
            expect![[r#"
            containerPort (Field snippet) [integer, required] "pro" -> "containerPort: $0"
            protocol (Field snippet) [string] "pro" -> "protocol: ${1:TCP}"
            name (Field snippet) [string] "pro" -> "name: $0"
        "#]],
        );
    }

    #[test]
    fn keys_on_an_indented_empty_line_exclude_present_ones() {
        check_completion(
            &crd(),
            &format!("{HEAD}spec:\n  size: 1\n  $0\n  tier: gold\n"),
            expect![[r#"
            owner (Field snippet) [string, required] "" -> "owner: $0"
            replicas (Field snippet) [integer] "" -> "replicas: ${1:1}" // How many copies to run.
            switch (Field snippet) [string] "" -> "switch: $0"
            enabled (Field snippet) [boolean] "" -> "enabled: $0"
            port (Field snippet) [int-or-string] "" -> "port: $0"
            ports (Field snippet) [[]object] "" -> "ports:\n  - $0"
            tags (Field snippet) [[]string] "" -> "tags:\n  - $0"
            labels (Field snippet) [map[string]object] "" -> "labels:\n    $0"
            template (Field snippet) [object] "" -> "template:\n    $0"
            nested (Field snippet) [object] "" -> "nested:\n    $0"
        "#]],
        );
    }

    #[test]
    fn keys_at_the_root_and_in_metadata() {
        check_completion(
            &crd(),
            &format!("{HEAD}$0"),
            expect![[r#"
            metadata (Field snippet) [object, required] "" -> "metadata:\n  $0" // Standard object's metadata (ObjectMeta): name, namespace, labels, annotations and more.
            spec (Field snippet) [object, required] "" -> "spec:\n  $0"
        "#]],
        );
        check_completion(
            &crd(),
            &format!("{HEAD}metadata:\n  name: x\n  $0"),
            expect![[r#"
            generateName (Field snippet) [string] "" -> "generateName: $0" // An optional prefix the server uses to generate a unique name, used only if `name` is not set.
            namespace (Field snippet) [string] "" -> "namespace: $0" // The namespace the object lives in. Empty means the `default` namespace for namespaced kinds; cluster-scoped kinds have none.
            labels (Field snippet) [map[string]string] "" -> "labels:\n    $0" // Map of string keys and values that can be used to organize and categorize (scope and select) objects.
            annotations (Field snippet) [map[string]string] "" -> "annotations:\n    $0" // Unstructured key-value map stored with a resource that external tools set to store and retrieve arbitrary metadata. They are not queryable.
            finalizers (Field snippet) [[]string] "" -> "finalizers:\n  - $0" // Must be empty before the object is deleted from the registry. Each entry is an identifier for the responsible component that will remove the entry from the list.
            ownerReferences (Field snippet) [[]object] "" -> "ownerReferences:\n  - $0" // The objects this object depends on. If all of them are deleted, this object is garbage collected.
        "#]],
        );
    }

    #[test]
    fn nested_snippets_are_indented_from_the_key() {
        check_completion(
            &crd(),
            &format!("{HEAD}spec:\n  nested:\n    de$0"),
            expect![[r#"
            deeper (Field snippet) [object] "de" -> "deeper:\n      $0"
        "#]],
        );
    }

    #[test]
    fn keys_of_list_items() {
        check_completion(
            &crd(),
            &format!("{HEAD}spec:\n  ports:\n  - $0"),
            expect![[r#"
            containerPort (Field snippet) [integer, required] "" -> "containerPort: $0"
            protocol (Field snippet) [string] "" -> "protocol: ${1:TCP}"
            name (Field snippet) [string] "" -> "name: $0"
        "#]],
        );
        check_completion(
            &crd(),
            &format!("{HEAD}spec:\n  ports:\n  - containerPort: 80\n    $0\n"),
            expect![[r#"
            protocol (Field snippet) [string] "" -> "protocol: ${1:TCP}"
            name (Field snippet) [string] "" -> "name: $0"
        "#]],
        );
    }

    #[test]
    fn keys_of_map_values_and_embedded_resources() {
        check_completion(
            &crd(),
            &format!("{HEAD}spec:\n  labels:\n    app:\n      $0"),
            expect![[r#"
            value (Field snippet) [string] "" -> "value: $0"
        "#]],
        );
        check_completion(
            &crd(),
            &format!("{HEAD}spec:\n  template:\n    $0"),
            expect![[r#"
            apiVersion (Field snippet) [string, required] "" -> "apiVersion: $0" // APIVersion defines the versioned schema of this representation of an object: `group/version`.
            kind (Field snippet) [string, required] "" -> "kind: $0" // Kind is a string value representing the REST resource this object represents.
            metadata (Field snippet) [object] "" -> "metadata:\n      $0" // Standard object's metadata (ObjectMeta): name, namespace, labels, annotations and more.
            spec (Field snippet) [object] "" -> "spec:\n      $0"
        "#]],
        );
    }

    #[test]
    fn values_enum_boolean_default_and_int_or_string() {
        check_completion(
            &crd(),
            &format!("{HEAD}spec:\n  tier: $0"),
            expect![[r#"
            gold (Value) [] "" -> "gold"
            silver (Value) [] "" -> "silver"
            bronze (Value) [default] "" -> "bronze"
        "#]],
        );
        check_completion(
            &crd(),
            &format!("{HEAD}spec:\n  switch:$0"),
            expect![[r#"
            "on" (Value) [] "" -> " \"on\""
            "off" (Value) [] "" -> " \"off\""
            "1.0" (Value) [] "" -> " \"1.0\""
        "#]],
        );
        check_completion(
            &crd(),
            &format!("{HEAD}spec:\n  enabled: t$0\n  size: 1\n"),
            expect![[r#"
            true (Value) [] "t" -> "true"
            false (Value) [] "t" -> "false"
        "#]],
        );
        check_completion(
            &crd(),
            &format!("{HEAD}spec:\n  replicas: $0"),
            expect![[r#"
            1 (Value) [default] "" -> "1" // How many copies to run.
        "#]],
        );
        check_completion(
            &crd(),
            &format!("{HEAD}spec:\n  port: $0"),
            expect![[r#"
            <int-or-string> (Value snippet) [an integer (8080) or a string ("http", "25%")] "" -> "${1:0}"
        "#]],
        );
        check_completion(
            &crd(),
            &format!("{HEAD}spec:\n  ports:\n  - protocol: $0"),
            expect![[r#"
            TCP (Value) [default] "" -> "TCP"
            UDP (Value) [] "" -> "UDP"
        "#]],
        );
        check_completion(
            &crd(),
            &format!("{HEAD}spec:\n  tags:\n  - $0"),
            expect![[r#"
            a (Value) [] "" -> "a"
            b (Value) [] "" -> "b"
        "#]],
        );
    }

    #[test]
    fn api_versions_and_kinds_from_the_index() {
        check_completion(
            &crd(),
            "apiVersion: $0\n",
            expect![[r#"
            demo.crdls.dev/v1 (ApiVersion) [Widget] "" -> "demo.crdls.dev/v1"
            demo.crdls.dev/v1beta1 (ApiVersion deprecated) [Widget] "" -> "demo.crdls.dev/v1beta1" // demo.crdls.dev/v1beta1 Widget is deprecated; use demo.crdls.dev/v1
            demo.crdls.dev/v1alpha1 (ApiVersion) [Gadget] "" -> "demo.crdls.dev/v1alpha1"
        "#]],
        );
        check_completion(
            &crd(),
            "kind: Gadget\napiVersion: $0\n",
            expect![[r#"
            demo.crdls.dev/v1alpha1 (ApiVersion) [Gadget] "" -> "demo.crdls.dev/v1alpha1"
        "#]],
        );
        check_completion(
            &crd(),
            "apiVersion: demo.crdls.dev/v1\nkind: $0\n",
            expect![[r#"
            Widget (Kind) [demo.crdls.dev/v1] "" -> "Widget" // **Widget** (CRD `widgets.demo.crdls.dev`)
        "#]],
        );
        check_completion(
            &crd(),
            "kind: W$0\n",
            expect![[r#"
            Gadget (Kind) [demo.crdls.dev/v1alpha1] "W" -> "Gadget" // **Gadget** (CRD `gadgets.demo.crdls.dev`)
            Widget (Kind) [demo.crdls.dev/v1] "W" -> "Widget" // **Widget** (CRD `widgets.demo.crdls.dev`)
        "#]],
        );
    }

    #[test]
    fn skeletons_in_an_empty_document() {
        check_completion(
            &crd(),
            "$0",
            expect![[r#"
            Gadget (Snippet snippet) [new Gadget (demo.crdls.dev/v1alpha1)] "" -> "apiVersion: demo.crdls.dev/v1alpha1\nkind: Gadget\nmetadata:\n  name: ${1:name}\nspec:\n  mode: ${2|fast,safe|}\n  items:\n  - name: $3\n    weight: ${4:5}\n" // **Gadget** (CRD `gadgets.demo.crdls.dev`)
            Widget (Snippet snippet) [new Widget (demo.crdls.dev/v1)] "" -> "apiVersion: demo.crdls.dev/v1\nkind: Widget\nmetadata:\n  name: ${1:name}\nspec:\n  size: $2\n  owner: $3\n" // **Widget** (CRD `widgets.demo.crdls.dev`)
            apiVersion (Field snippet) [string, required] "" -> "apiVersion: $0" // APIVersion defines the versioned schema of this representation of an object: `group/version`.
            kind (Field snippet) [string, required] "" -> "kind: $0" // Kind is a string value representing the REST resource this object represents.
            metadata (Field snippet) [object, required] "" -> "metadata:\n  $0" // Standard object's metadata (ObjectMeta): name, namespace, labels, annotations and more.
        "#]],
        );
        check_completion(
            &crd(),
            &format!("{HEAD}spec:\n  size: 1\n---\nGad$0"),
            expect![[r#"
            Gadget (Snippet snippet) [new Gadget (demo.crdls.dev/v1alpha1)] "Gad" -> "apiVersion: demo.crdls.dev/v1alpha1\nkind: Gadget\nmetadata:\n  name: ${1:name}\nspec:\n  mode: ${2|fast,safe|}\n  items:\n  - name: $3\n    weight: ${4:5}\n" // **Gadget** (CRD `gadgets.demo.crdls.dev`)
            Widget (Snippet snippet) [new Widget (demo.crdls.dev/v1)] "Gad" -> "apiVersion: demo.crdls.dev/v1\nkind: Widget\nmetadata:\n  name: ${1:name}\nspec:\n  size: $2\n  owner: $3\n" // **Widget** (CRD `widgets.demo.crdls.dev`)
            apiVersion (Field snippet) [string, required] "Gad" -> "apiVersion: $0" // APIVersion defines the versioned schema of this representation of an object: `group/version`.
            kind (Field snippet) [string, required] "Gad" -> "kind: $0" // Kind is a string value representing the REST resource this object represents.
            metadata (Field snippet) [object, required] "Gad" -> "metadata:\n  $0" // Standard object's metadata (ObjectMeta): name, namespace, labels, annotations and more.
        "#]],
        );
    }

    #[test]
    fn odd_input_never_panics() {
        let index = fixture::index(&crd());
        for text in ["", "é", "spec:\n  é", "- - -\n", "a: [\n", "\r\n", "---\n---"] {
            let stream = crdls_yaml::parse(text);
            for offset in 0..=text.len() + 2 {
                let _ = completions(text, &stream, &index, offset, crdls_builtins::newest());
            }
        }
    }

    #[test]
    fn non_ascii_before_the_cursor() {
        check_completion(
            &crd(),
            &format!("{HEAD}metadata:\n  name: café-ü\nspec:\n  owner: jürgen\n  ti$0"),
            expect![[r#"
            size (Field snippet) [integer, required] "ti" -> "size: $0" // The size, from 1 to 10.
            replicas (Field snippet) [integer] "ti" -> "replicas: ${1:1}" // How many copies to run.
            tier (Field snippet) [string] "ti" -> "tier: ${1:bronze}"
            switch (Field snippet) [string] "ti" -> "switch: $0"
            enabled (Field snippet) [boolean] "ti" -> "enabled: $0"
            port (Field snippet) [int-or-string] "ti" -> "port: $0"
            ports (Field snippet) [[]object] "ti" -> "ports:\n  - $0"
            tags (Field snippet) [[]string] "ti" -> "tags:\n  - $0"
            labels (Field snippet) [map[string]object] "ti" -> "labels:\n    $0"
            template (Field snippet) [object] "ti" -> "template:\n    $0"
            nested (Field snippet) [object] "ti" -> "nested:\n    $0"
        "#]],
        );
    }
}
