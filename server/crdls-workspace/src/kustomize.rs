//! What a kustomization's patches do, as kustomize does it, for the two questions crdls asks of them:
//! which objects they land on ([`Patch::lands_on`], kustomize's target selectors: anchored regular
//! expressions on group, version, kind, name and namespace, an empty field matching anything), and
//! what a CRD the kustomization includes becomes once patched ([`patched_crds`]): JSON 6902 operations
//! (`patches` with a `target`, `patchesJson6902`) and strategic-merge patches (`patches`,
//! `patchesStrategicMerge`), applied in the order kustomize applies them. A CRD is then indexed as the
//! kustomization outputs it, and objects resolve against that definition rather than the file as
//! written (`CrdIndex::resolve`).
//!
//! Everything is bounded: the files named are read through the workspace's inside-root reader, and
//! there are at most [`MAX_PATCHES`] patches, [`MAX_OPERATIONS`] operations a patch and
//! [`MAX_RESOURCES`] resource files a kustomization. A patch that does not apply (a path that is not
//! there, a failed `test`) leaves the CRD as written, as `kustomize build` would fail rather than
//! install anything; a selector crdls does not evaluate (labels, annotations) selects nothing here.

use std::path::Path;

use crdls_crd::Crd;
use crdls_diagnostics::TextRange;
use crdls_yaml::{Entry, Node, Value};
use regex::{Regex, RegexBuilder};

use crate::files::{normalize, read_inside};

/// The most patches of one kustomization crdls follows.
pub const MAX_PATCHES: usize = 256;
/// The most operations of one JSON 6902 patch crdls applies; a longer one is not applied.
pub const MAX_OPERATIONS: usize = 10_000;
/// The most resource files of one kustomization read for CRDs to patch.
pub const MAX_RESOURCES: usize = 256;
/// The most bytes a selector's regular expression may compile to.
const MAX_REGEX_BYTES: usize = 1 << 20;

/// A kustomize selector (a patch's `target`): each field an anchored regular expression, an absent
/// one matching anything. Label and annotation selectors are not evaluated: a selector with one
/// selects nothing here.
#[derive(Clone, Debug)]
pub struct Selector {
    group: Option<Regex>,
    version: Option<Regex>,
    kind: Option<Regex>,
    name: Option<Regex>,
    namespace: Option<Regex>,
    by_labels: bool,
}

/// What identifies an object to a selector.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct ObjectId {
    /// The group of its `apiVersion` (`""` for the core group).
    pub group: String,
    /// The version of its `apiVersion`.
    pub version: String,
    /// Its `kind`.
    pub kind: String,
    /// Its `metadata.name`.
    pub name: String,
    /// Its `metadata.namespace`, if written.
    pub namespace: Option<String>,
}

impl ObjectId {
    /// The identity of the object at `root`; `None` without a kind.
    pub fn of(root: &Node) -> Option<ObjectId> {
        let kind = root.get_str("kind")?.to_string();
        let (group, version) = crdls_crd::split_api_version(root.get_str("apiVersion").unwrap_or_default());
        let metadata = root.get("metadata");
        Some(ObjectId {
            group: group.to_string(),
            version: version.to_string(),
            kind,
            name: metadata.and_then(|m| m.get_str("name")).unwrap_or_default().to_string(),
            namespace: metadata.and_then(|m| m.get_str("namespace")).map(str::to_string),
        })
    }
}

impl Selector {
    /// The selector a `target` writes; `None` when one of its expressions does not compile (kustomize
    /// refuses the kustomization then).
    fn of(target: &Node) -> Option<Selector> {
        let field = |key: &str| -> Option<Option<Regex>> {
            match target.get_str(key).filter(|p| !p.is_empty()) {
                None => Some(None),
                Some(pattern) => RegexBuilder::new(&format!("^(?:{pattern})$")).size_limit(MAX_REGEX_BYTES).build().ok().map(Some),
            }
        };
        let by_labels = ["labelSelector", "annotationSelector"].iter().any(|key| target.get_str(key).is_some_and(|s| !s.trim().is_empty()));
        Some(Selector {
            group: field("group")?,
            version: field("version")?,
            kind: field("kind")?,
            name: field("name")?,
            namespace: field("namespace")?,
            by_labels,
        })
    }

    /// Whether the selector picks the object `id`.
    pub fn matches(&self, id: &ObjectId) -> bool {
        let fits = |regex: &Option<Regex>, value: &str| regex.as_ref().is_none_or(|r| r.is_match(value));
        !self.by_labels
            && fits(&self.group, &id.group)
            && fits(&self.version, &id.version)
            && fits(&self.kind, &id.kind)
            && fits(&self.name, &id.name)
            && fits(&self.namespace, id.namespace.as_deref().unwrap_or_default())
    }
}

/// What a patch does.
#[derive(Clone, Debug)]
pub enum Body {
    /// A list of JSON 6902 operations.
    Operations(Node),
    /// A strategic-merge patch: a partial object.
    Merge(Node),
}

/// One patch of a kustomization: one document of a patch file, or an inline patch.
#[derive(Clone, Debug)]
pub struct Patch {
    /// Its `target`, if it has one.
    pub selector: Option<Selector>,
    /// What it does.
    pub body: Body,
}

impl Patch {
    /// Whether kustomize applies the patch to the object `id`: the objects its target selects, or, for a
    /// strategic-merge patch without one, the object of its own kind and name (and group, if it writes
    /// one). A list of operations needs a target.
    pub fn lands_on(&self, id: &ObjectId) -> bool {
        match (&self.selector, &self.body) {
            (Some(selector), _) => selector.matches(id),
            (None, Body::Operations(_)) => false,
            (None, Body::Merge(patch)) => ObjectId::of(patch).is_some_and(|own| {
                own.kind == id.kind
                    && own.name == id.name
                    && (patch.get_str("apiVersion").is_none() || own.group == id.group)
                    && own.namespace.as_ref().is_none_or(|ns| id.namespace.as_ref().is_none_or(|n| n == ns))
            }),
        }
    }

    /// Applies the patch to the object at `node`; an error when it does not apply (a path that is not
    /// there, a failed `test`, too many operations).
    pub fn apply(&self, node: &mut Node) -> Result<(), String> {
        match &self.body {
            Body::Operations(ops) => apply_operations(node, ops),
            Body::Merge(patch) => {
                let mut patch = patch.clone();
                // The patch's identity only picks its object; with a target, kustomize ignores it.
                if let Value::Map(entries) = &mut patch.value {
                    entries.retain(|e| e.key != "apiVersion" && e.key != "kind");
                    if let Some(metadata) = entries.iter_mut().find(|e| e.key == "metadata") {
                        if let Value::Map(fields) = &mut metadata.value.value {
                            fields.retain(|f| f.key != "name" && f.key != "namespace");
                        }
                    }
                }
                let patch = placed(patch, node.range);
                if merge(node, &patch) == Merged::Deleted {
                    return Err("the patch deletes the object".into());
                }
                Ok(())
            }
        }
    }
}

/// The patches a kustomization (parsed at `root`, in `dir`) names, in the order kustomize applies them
/// (`patchesStrategicMerge`, `patchesJson6902`, then `patches`), each file read inside `bound`; at most
/// [`MAX_PATCHES`]. An entry whose file cannot be read, or whose target does not compile, is left out.
pub fn patches(root: &Node, dir: &Path, bound: &Path) -> Vec<Patch> {
    let seq = |key: &str| root.get(key).and_then(Node::as_seq).unwrap_or_default();
    let read = |path: &str| read_inside(bound, &normalize(&dir.join(path))).ok();
    let inline = |text: &str| text.contains('\n') || text.contains(": ");
    let mut out = Vec::new();
    let push = |selector: Option<Selector>, text: &str, out: &mut Vec<Patch>| {
        for root in crdls_yaml::parse(text).documents.into_iter().filter(|d| !d.has_syntax_error).filter_map(|d| d.root) {
            let body = match &root.value {
                Value::Seq(_) => Body::Operations(root),
                Value::Map(_) => Body::Merge(root),
                _ => continue,
            };
            out.push(Patch { selector: selector.clone(), body });
        }
    };
    for entry in seq("patchesStrategicMerge") {
        let Some(value) = entry.as_str() else { continue };
        let text = if inline(value) { Some(value.to_string()) } else { read(value) };
        if let Some(text) = text {
            push(None, &text, &mut out);
        }
    }
    for entry in seq("patchesJson6902").iter().chain(seq("patches").iter()) {
        let selector = match entry.get("target") {
            Some(target) => match Selector::of(target) {
                Some(selector) => Some(selector),
                None => continue,
            },
            None => None,
        };
        let text = match (entry.get_str("patch"), entry.get_str("path"), entry.as_str()) {
            (Some(inline), _, _) => Some(inline.to_string()),
            (None, Some(path), _) => read(path),
            (None, None, Some(bare)) if !inline(bare) => read(bare),
            _ => None,
        };
        if let Some(text) = text {
            push(selector, &text, &mut out);
        }
    }
    out.truncate(MAX_PATCHES);
    out
}

/// The CRDs the kustomization at `path` (its text `text`) outputs changed by its own patches: each CRD
/// of a resource file it names, with the patches that land on it applied, when they change it and all
/// apply. Each CRD's [`Crd::patched_from`] names the file as the kustomization names it. Files are read
/// inside `bound`. Resources that are directories (other kustomizations) are not followed: their own
/// patched CRDs are theirs.
pub fn patched_crds(path: &Path, text: &str, bound: &Path) -> Vec<Crd> {
    let Some(dir) = path.parent() else { return Vec::new() };
    let mut out = Vec::new();
    for root in crdls_yaml::parse(text).documents.iter().filter_map(|d| d.root.as_ref()) {
        let patches = patches(root, dir, bound);
        // Nothing to read when no patch may land on a CRD (whatever its name).
        let may_patch_crds = patches.iter().any(|p| match (&p.selector, &p.body) {
            (Some(s), _) => s.kind.as_ref().is_none_or(|k| k.is_match("CustomResourceDefinition")),
            (None, Body::Merge(m)) => m.get_str("kind") == Some("CustomResourceDefinition"),
            (None, Body::Operations(_)) => false,
        });
        if !may_patch_crds {
            continue;
        }
        let resources = root.get("resources").and_then(Node::as_seq).unwrap_or_default();
        let files = resources
            .iter()
            .filter_map(Node::as_str)
            .filter(|p| crate::files::is_yaml_or_json(Path::new(p)) && !p.contains("://"))
            .take(MAX_RESOURCES);
        for written in files {
            let Ok(text) = read_inside(bound, &normalize(&dir.join(written))) else { continue };
            if !text.contains("CustomResourceDefinition") {
                continue;
            }
            for doc in crdls_yaml::parse(&text).documents.into_iter().filter(|d| !d.has_syntax_error) {
                let Some(crd) = doc.root.filter(|r| crdls_crd::is_crd(r).is_some()) else { continue };
                let Some(id) = ObjectId::of(&crd) else { continue };
                let landing: Vec<&Patch> = patches.iter().filter(|p| p.lands_on(&id)).collect();
                if landing.is_empty() {
                    continue;
                }
                let mut patched = crd.clone();
                if landing.iter().any(|p| p.apply(&mut patched).is_err()) || same_value(&patched, &crd) || too_deep(&patched, 0) {
                    continue;
                }
                for mut crd in Crd::from_root(&patched) {
                    crd.patched_from = Some(written.to_string());
                    out.push(crd);
                }
            }
        }
    }
    out
}

/// Whether a node is nested deeper than the YAML reader reads ([`crdls_yaml::MAX_NESTING`]): a patch
/// that adds a deep value at a deep path could build one, and the schema reader recurses.
fn too_deep(node: &Node, depth: usize) -> bool {
    if depth > crdls_yaml::MAX_NESTING {
        return true;
    }
    match &node.value {
        Value::Map(entries) => entries.iter().any(|e| too_deep(&e.value, depth + 1)),
        Value::Seq(items) => items.iter().any(|i| too_deep(i, depth + 1)),
        _ => false,
    }
}

/// Whether two nodes hold the same JSON value, wherever they were written.
fn same_value(a: &Node, b: &Node) -> bool {
    match (&a.value, &b.value) {
        (Value::Map(x), Value::Map(y)) => {
            x.len() == y.len() && x.iter().all(|e| y.iter().find(|f| f.key == e.key).is_some_and(|f| same_value(&e.value, &f.value)))
        }
        (Value::Seq(x), Value::Seq(y)) => x.len() == y.len() && x.iter().zip(y).all(|(i, j)| same_value(i, j)),
        (Value::Int(i), Value::Float(f)) | (Value::Float(f), Value::Int(i)) => *i as f64 == *f,
        (x, y) => x == y,
    }
}

/// The tokens of a JSON pointer (`/a/b~1c` is `a`, `b/c`); `None` when it is not one.
fn pointer(path: &str) -> Option<Vec<String>> {
    if path.is_empty() {
        return Some(Vec::new());
    }
    let rest = path.strip_prefix('/')?;
    Some(rest.split('/').map(|t| t.replace("~1", "/").replace("~0", "~")).collect())
}

/// The node at `tokens` below `node`.
fn get<'a>(node: &'a Node, tokens: &[String]) -> Option<&'a Node> {
    tokens.iter().try_fold(node, |at, token| match &at.value {
        Value::Map(entries) => entries.iter().find(|e| e.key == *token).map(|e| &e.value),
        Value::Seq(items) => index(token).and_then(|i| items.get(i)),
        _ => None,
    })
}

fn get_mut<'a>(node: &'a mut Node, tokens: &[String]) -> Option<&'a mut Node> {
    tokens.iter().try_fold(node, |at, token| match &mut at.value {
        Value::Map(entries) => entries.iter_mut().find(|e| e.key == *token).map(|e| &mut e.value),
        Value::Seq(items) => index(token).and_then(move |i| items.get_mut(i)),
        _ => None,
    })
}

/// A list index as JSON pointers write it: digits, without a leading zero.
fn index(token: &str) -> Option<usize> {
    if token.is_empty() || (token.len() > 1 && token.starts_with('0')) || !token.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    token.parse().ok()
}

/// Applies a list of JSON 6902 operations (RFC 6902: add, remove, replace, move, copy, test) to `node`.
fn apply_operations(node: &mut Node, ops: &Node) -> Result<(), String> {
    let ops = ops.as_seq().unwrap_or_default();
    if ops.len() > MAX_OPERATIONS {
        return Err(format!("more than {MAX_OPERATIONS} operations"));
    }
    for op in ops {
        let path = op.get_str("path").and_then(pointer).ok_or("an operation without a valid path")?;
        match op.get_str("op") {
            Some("add") => add(node, &path, op.get("value").ok_or("add without a value")?.clone())?,
            Some("remove") => {
                remove(node, &path)?;
            }
            Some("replace") => {
                let value = placed(op.get("value").ok_or("replace without a value")?.clone(), node.range);
                *get_mut(node, &path).ok_or("replace of a path that is not there")? = value;
            }
            Some("move") => {
                let from = op.get_str("from").and_then(pointer).ok_or("move without a valid from")?;
                let value = remove(node, &from)?;
                add(node, &path, value)?;
            }
            Some("copy") => {
                let from = op.get_str("from").and_then(pointer).ok_or("copy without a valid from")?;
                let value = get(node, &from).ok_or("copy from a path that is not there")?.clone();
                add(node, &path, value)?;
            }
            Some("test") => {
                let value = op.get("value").ok_or("test without a value")?;
                if !get(node, &path).is_some_and(|at| same_value(at, value)) {
                    return Err("a test that fails".into());
                }
            }
            _ => return Err("an unknown operation".into()),
        }
    }
    Ok(())
}

fn add(node: &mut Node, path: &[String], value: Node) -> Result<(), String> {
    let value = placed(value, node.range);
    let Some((last, parent)) = path.split_last() else {
        *node = value;
        return Ok(());
    };
    let parent = get_mut(node, parent).ok_or("add below a path that is not there")?;
    let range = parent.range;
    match &mut parent.value {
        Value::Map(entries) => match entries.iter_mut().find(|e| e.key == *last) {
            Some(entry) => entry.value = value,
            None => entries.push(Entry { key: last.clone(), key_range: range, value }),
        },
        Value::Seq(items) if last == "-" => items.push(value),
        Value::Seq(items) => {
            let at = index(last).filter(|i| *i <= items.len()).ok_or("add at an index out of the list")?;
            items.insert(at, value);
        }
        _ => return Err("add into a scalar".into()),
    }
    Ok(())
}

fn remove(node: &mut Node, path: &[String]) -> Result<Node, String> {
    let (last, parent) = path.split_last().ok_or("remove of the whole object")?;
    let parent = get_mut(node, parent).ok_or("remove below a path that is not there")?;
    match &mut parent.value {
        Value::Map(entries) => {
            let at = entries.iter().position(|e| e.key == *last).ok_or("remove of a key that is not there")?;
            Ok(entries.remove(at).value)
        }
        Value::Seq(items) => {
            let at = index(last).filter(|i| *i < items.len()).ok_or("remove of an index out of the list")?;
            Ok(items.remove(at))
        }
        _ => Err("remove from a scalar".into()),
    }
}

/// A value a patch writes, placed where the object it lands on starts: its ranges lie in the patch's
/// file, not the object's, so that go-to-definition leads to the object rather than into the wrong text.
fn placed(mut value: Node, object: TextRange) -> Node {
    fn place(node: &mut Node, at: TextRange) {
        node.range = at;
        match &mut node.value {
            Value::Map(entries) => entries.iter_mut().for_each(|e| {
                e.key_range = at;
                place(&mut e.value, at);
            }),
            Value::Seq(items) => items.iter_mut().for_each(|i| place(i, at)),
            _ => {}
        }
    }
    place(&mut value, TextRange::empty(object.start));
    value
}

/// What merging a patch did to its target.
#[derive(PartialEq, Eq)]
enum Merged {
    Kept,
    Deleted,
}

/// Merges a strategic-merge patch into `target`. A CRD's schema registers no merge keys, so this is a
/// JSON merge patch (RFC 7386: maps merged key by key, `null` deletes a key, lists and scalars
/// replaced) with the `$patch: replace` and `$patch: delete` directives on maps; other `$` keys are
/// directives, not fields.
fn merge(target: &mut Node, patch: &Node) -> Merged {
    let Value::Map(fields) = &patch.value else {
        *target = patch.clone();
        return Merged::Kept;
    };
    match fields.iter().find(|f| f.key == "$patch").and_then(|f| f.value.as_str()) {
        Some("delete") => return Merged::Deleted,
        Some("replace") => {
            *target = without_directives(patch);
            return Merged::Kept;
        }
        _ => {}
    }
    if !matches!(target.value, Value::Map(_)) {
        *target = without_directives(patch);
        return Merged::Kept;
    }
    let range = target.range;
    let Value::Map(entries) = &mut target.value else { return Merged::Kept };
    for field in fields.iter().filter(|f| !f.key.starts_with('$')) {
        let at = entries.iter().position(|e| e.key == field.key);
        match (at, &field.value.value) {
            (Some(at), Value::Null) => {
                entries.remove(at);
            }
            (None, Value::Null) => {}
            (Some(at), _) => {
                if merge(&mut entries[at].value, &field.value) == Merged::Deleted {
                    entries.remove(at);
                }
            }
            (None, _) => {
                if !matches!(field.value.value, Value::Map(_)) || field.value.get_str("$patch") != Some("delete") {
                    entries.push(Entry { key: field.key.clone(), key_range: range, value: without_directives(&field.value) });
                }
            }
        }
    }
    Merged::Kept
}

/// A patch's value as it lands where nothing was: without its directives and its `null`s.
fn without_directives(node: &Node) -> Node {
    match &node.value {
        Value::Map(fields) => Node {
            range: node.range,
            style: node.style,
            value: Value::Map(
                fields
                    .iter()
                    .filter(|f| !f.key.starts_with('$') && f.value.value != Value::Null)
                    .map(|f| Entry { key: f.key.clone(), key_range: f.key_range, value: without_directives(&f.value) })
                    .collect(),
            ),
        },
        _ => node.clone(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn node(text: &str) -> Node {
        crdls_yaml::parse(text).documents.into_iter().next().and_then(|d| d.root).expect("a document")
    }

    fn json(node: &Node) -> String {
        match &node.value {
            Value::Map(entries) => {
                let fields: Vec<String> = entries.iter().map(|e| format!("{}:{}", e.key, json(&e.value))).collect();
                format!("{{{}}}", fields.join(","))
            }
            Value::Seq(items) => format!("[{}]", items.iter().map(json).collect::<Vec<_>>().join(",")),
            Value::Str(s) => s.clone(),
            Value::Int(i) => i.to_string(),
            Value::Null => "null".into(),
            other => format!("{other:?}"),
        }
    }

    fn operations(object: &str, ops: &str) -> Result<String, String> {
        let mut target = node(object);
        let patch = Patch { selector: None, body: Body::Operations(node(ops)) };
        patch.apply(&mut target).map(|()| json(&target))
    }

    /// Each operation of RFC 6902, with pointer escapes and the append index; an operation that does not
    /// apply is an error, and the object is left for the caller to drop.
    #[test]
    fn json_6902_operations_apply_as_kustomize_applies_them() {
        let object = "a:\n  b: 1\n  c/d: 2\n  list: [p, q]\n";
        assert_eq!(operations(object, "- {op: remove, path: /a/b}\n"), Ok("{a:{c/d:2,list:[p,q]}}".into()));
        assert_eq!(operations(object, "- {op: remove, path: /a/c~1d}\n"), Ok("{a:{b:1,list:[p,q]}}".into()));
        assert_eq!(operations(object, "- {op: add, path: /a/list/-, value: r}\n"), Ok("{a:{b:1,c/d:2,list:[p,q,r]}}".into()));
        assert_eq!(operations(object, "- {op: add, path: /a/list/0, value: s}\n"), Ok("{a:{b:1,c/d:2,list:[s,p,q]}}".into()));
        assert_eq!(operations(object, "- {op: replace, path: /a/b, value: {e: 3}}\n"), Ok("{a:{b:{e:3},c/d:2,list:[p,q]}}".into()));
        assert_eq!(operations(object, "- {op: move, from: /a/b, path: /f}\n"), Ok("{a:{c/d:2,list:[p,q]},f:1}".into()));
        assert_eq!(operations(object, "- {op: copy, from: /a/list/1, path: /g}\n"), Ok("{a:{b:1,c/d:2,list:[p,q]},g:q}".into()));
        assert_eq!(operations(object, "- {op: test, path: /a/b, value: 1}\n- {op: remove, path: /a}\n"), Ok("{}".into()));
        for failing in [
            "- {op: remove, path: /a/missing}\n",
            "- {op: replace, path: /a/list/2, value: r}\n",
            "- {op: add, path: /a/list/03, value: r}\n",
            "- {op: add, path: /missing/b, value: r}\n",
            "- {op: test, path: /a/b, value: 2}\n",
            "- {op: remove, path: a/b}\n",
            "- {op: frobnicate, path: /a}\n",
        ] {
            assert!(operations(object, failing).is_err(), "{failing}");
        }
    }

    /// A strategic-merge patch on a CRD merges maps, deletes keys written `null`, replaces lists, and
    /// honours `$patch` directives; the patch's own identity does not land on the object.
    #[test]
    fn strategic_merge_patches_merge_maps_and_replace_lists() {
        let object = "kind: K\nmetadata:\n  name: x\nspec:\n  a: {b: 1, c: 2}\n  list: [1, 2]\n  gone: {d: 1}\n";
        let mut target = node(object);
        let patch = "kind: K\nmetadata:\n  name: other\nspec:\n  a: {c: null, e: 5}\n  list: [3]\n  gone:\n    $patch: delete\n  new:\n    $patch: replace\n    f: 6\n";
        Patch { selector: None, body: Body::Merge(node(patch)) }.apply(&mut target).unwrap();
        assert_eq!(json(&target), "{kind:K,metadata:{name:x},spec:{a:{b:1,e:5},list:[3],new:{f:6}}}");
        let mut whole = node(object);
        assert!(Patch { selector: None, body: Body::Merge(node("$patch: delete\n")) }.apply(&mut whole).is_err());
    }

    /// kustomize's selectors are anchored regular expressions, an absent field matching anything; a
    /// label selector is not evaluated, so it selects nothing here. A strategic-merge patch without a
    /// target lands on the object of its kind and name.
    #[test]
    fn targets_select_as_kustomize_selects() {
        let id = ObjectId::of(&node("apiVersion: apps/v1\nkind: Deployment\nmetadata: {name: web}\n")).unwrap();
        let selects = |target: &str| Selector::of(&node(target)).is_some_and(|s| s.matches(&id));
        assert!(selects("kind: Deployment\nname: web\n"));
        assert!(selects("kind: Deploy.*\n"));
        assert!(selects("group: apps\nversion: v1\n"));
        assert!(!selects("kind: Deploy\n"), "anchored");
        assert!(!selects("name: we\n"), "anchored");
        assert!(!selects("kind: Deployment\nlabelSelector: app=web\n"));
        assert!(!selects("namespace: prod\n"));
        assert!(Selector::of(&node("name: \"(\"\n")).is_none(), "an expression that does not compile");
        let merge = |text: &str| Patch { selector: None, body: Body::Merge(node(text)) }.lands_on(&id);
        assert!(merge("apiVersion: apps/v1\nkind: Deployment\nmetadata: {name: web}\n"));
        assert!(merge("kind: Deployment\nmetadata: {name: web}\n"));
        assert!(!merge("apiVersion: batch/v1\nkind: Deployment\nmetadata: {name: web}\n"));
        assert!(!merge("kind: Deployment\nmetadata: {name: api}\n"));
        assert!(!Patch { selector: None, body: Body::Operations(node("- {op: remove, path: /spec}\n")) }.lands_on(&id));
    }

    /// A kustomization outputs the CRDs its patches change, named after the file as it names it; a CRD no
    /// patch lands on, one whose patch does not apply, and a patch file outside the workspace give none.
    #[test]
    fn a_kustomization_outputs_the_crds_it_patches() {
        let top = std::env::temp_dir().join(format!("crdls-kustomize-crds-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&top);
        let root = top.join("repo");
        let crd = |kind: &str| {
            format!(
                "apiVersion: apiextensions.k8s.io/v1\nkind: CustomResourceDefinition\nmetadata:\n  name: {p}.demo.crdls.dev\nspec:\n  group: demo.crdls.dev\n  names: {{kind: {kind}, plural: {p}}}\n  scope: Namespaced\n  versions:\n  - name: v1\n    served: true\n    storage: true\n    schema:\n      openAPIV3Schema:\n        type: object\n        properties:\n          spec:\n            type: object\n            properties:\n              config: {{type: string}}\n",
                p = kind.to_lowercase() + "s"
            )
        };
        let remove = "- op: remove\n  path: /spec/versions/0/schema/openAPIV3Schema/properties/spec/properties/config\n";
        for (file, text) in [
            ("repo/crd/bases/widgets.yaml", crd("Widget")),
            ("repo/crd/bases/gadgets.yaml", format!("{}---\n{}", crd("Gadget"), crd("Sprocket"))),
            ("repo/crd/patches/remove.yaml", remove.to_string()),
            ("outside.yaml", remove.to_string()),
        ] {
            let path = top.join(file);
            std::fs::create_dir_all(path.parent().unwrap()).unwrap();
            std::fs::write(path, text).unwrap();
        }
        let kustomization = root.join("crd/kustomization.yaml");
        let text = "resources:\n- bases/widgets.yaml\n- ./bases/gadgets.yaml\npatches:\n\
                    - path: patches/remove.yaml\n  target: {kind: CustomResourceDefinition, name: widgets\\.demo\\.crdls\\.dev}\n\
                    - path: ../../outside.yaml\n  target: {name: sprockets.demo.crdls.dev}\n\
                    - target: {name: gadgets.demo.crdls.dev}\n  patch: |\n    - {op: remove, path: /spec/missing}\n";
        let crds = patched_crds(&kustomization, text, &root);
        let found: Vec<(&str, Option<&str>)> = crds.iter().map(|c| (c.name.as_str(), c.patched_from.as_deref())).collect();
        assert_eq!(found, [("widgets.demo.crdls.dev", Some("bases/widgets.yaml"))]);
        let schema = crds[0].versions[0].schema().unwrap();
        let spec = schema.properties.iter().find(|p| p.name == "spec").unwrap();
        assert!(spec.schema.properties.is_empty(), "config is removed: {spec:?}");
        // The ranges that remain are those of the file as written.
        let written = std::fs::read_to_string(root.join("crd/bases/widgets.yaml")).unwrap();
        assert_eq!(&written[crds[0].kind_range.start..crds[0].kind_range.end], "Widget");
        // A kustomization without patches on CRDs reads no resource.
        assert!(patched_crds(&kustomization, "resources:\n- bases/widgets.yaml\n", &root).is_empty());
        std::fs::remove_dir_all(&top).unwrap();
    }
}
