//! Quick fixes for diagnostics. They are stateless: a request carries only what a diagnostic carries
//! to the editor and back (its code, its range and its field path in `data`), and the fix is computed
//! against the document as it is now, so an edit made since the diagnostic was published cannot make
//! a fix write in the wrong place.
//!
//! - `schema/required`: add the missing field (and every other missing required field of the same
//!   object), with its own required fields, defaults, first enum members or zero values.
//! - `schema/enum`: replace the value with the nearest members.
//! - `schema/unknown-field`: rename it to the field it most likely misspells, or remove it with its value.
//! - `schema/type`: quote a plain scalar that must be a string (`version: 1.10`), unquote a number or boolean.
//! - `crd-change/enum`, `crd-change/bound`: give the keyword of a CRD its previous value back (the
//!   removed enum values, the previous limit).
//! - `crd-change/rule`: make a new rule spare the values stored objects already hold, as a transition
//!   rule (`self == oldSelf || (R)`) or with `optionalOldSelf: true` (checked on create too).
//! - `resource/deprecated-version`, `resource/version-not-served`, `resource/unknown-version`: move
//!   `apiVersion` to a served version, the preferred one first; `resource/unknown-kind`: the kind meant.

use crdls_check::{did_you_mean, edit_distance};
use crdls_crd::{split_api_version, CrdIndex, IndexedCrd, Resolution, Schema};
use crdls_diagnostics::{Diagnostic, TextRange};
use crdls_yaml::{document_at, follow, resolve_plain, Document, Entry, Node, Segment, Stream, Style, Value};

use crate::render::{yaml_inline, yaml_string};
use crate::schema_walk::{walk, Step};
use crate::skeleton::{inline_value, skeleton_field, Fill};
use crate::types::{line_end, line_start, CodeAction, Edit};
use crdls_diagnostics::codes;

/// A diagnostic to fix, as the editor sends it back.
#[derive(Clone, Copy, Debug)]
pub struct FixRequest<'a> {
    /// The diagnostic's code (`schema/enum`).
    pub code: &'a str,
    /// Its range in the current text.
    pub range: TextRange,
    /// Its field path (`spec.ports[0].protocol`), when it has one.
    pub path: Option<&'a str>,
    /// The value to write back into the keyword named at `range` (a CRD change a fix can undo).
    pub restore: Option<&'a str>,
}

/// How many enum members or versions are offered at most.
const MAX_CHOICES: usize = 5;

/// The quick fixes for `requests`, in request order, without duplicates (a "fix all in this object"
/// action asked for by several diagnostics comes once, listing all of them).
pub fn code_actions(text: &str, stream: &Stream, index: &CrdIndex, requests: &[FixRequest<'_>]) -> Vec<CodeAction> {
    let mut out: Vec<CodeAction> = Vec::new();
    for (i, request) in requests.iter().enumerate() {
        let Some(doc) = document_at(stream, request.range.start) else { continue };
        let Some(root) = doc.root.as_ref() else { continue };
        let fixer = Fixer { text, doc, root, index };
        for mut action in fixer.fixes(request) {
            action.fixes = vec![i];
            match out.iter_mut().find(|a| a.title == action.title && a.edits == action.edits) {
                Some(same) => same.fixes.push(i),
                None => out.push(action),
            }
        }
    }
    out
}

/// The fixes for one document.
struct Fixer<'a> {
    text: &'a str,
    doc: &'a Document,
    root: &'a Node,
    index: &'a CrdIndex,
}

impl<'a> Fixer<'a> {
    fn fixes(&self, request: &FixRequest<'_>) -> Vec<CodeAction> {
        match request.code {
            codes::RESOURCE_DEPRECATED_VERSION | codes::RESOURCE_VERSION_NOT_SERVED | codes::RESOURCE_UNKNOWN_VERSION => {
                self.api_version(request.code)
            }
            codes::RESOURCE_API_NOT_SERVED | codes::RESOURCE_DEPRECATED_API => self.built_in_api_version(),
            codes::RESOURCE_UNKNOWN_KIND => self.kind(),
            codes::CRD_LEGACY_V1BETA1 if !self.doc.has_syntax_error => self.convert_crd(),
            // Fixes that move or add lines need a tree the parser finished.
            _ if self.doc.has_syntax_error => Vec::new(),
            codes::SCHEMA_REQUIRED => request.path.map(|p| self.required(p)).unwrap_or_default(),
            codes::SCHEMA_ENUM => request.path.map(|p| self.enumeration(p)).unwrap_or_default(),
            codes::SCHEMA_UNKNOWN_FIELD => request.path.map(|p| self.unknown_field(p)).unwrap_or_default(),
            codes::SCHEMA_TYPE => request.path.map(|p| self.wrong_type(p)).unwrap_or_default(),
            codes::CEL_COST | codes::CEL_COST_TOTAL => crate::cost_assist::bound_rule(self.text, self.root, request.range),
            codes::CRD_CHANGE_ENUM | codes::CRD_CHANGE_BOUND => request.restore.map(|r| self.restore(request.range, r)).unwrap_or_default(),
            // Transition rules need a place whose old value the API server can find: not in list items.
            codes::CRD_CHANGE_RULE if !request.path.is_some_and(|p| p.contains("[*]")) => self.ratchet_rule(request.range),
            _ => Vec::new(),
        }
    }

    /// For a CRD change from its previous version (an enum narrowed, a bound moved): the keyword whose
    /// name is at `at` gets its previous value back, written inline after its name.
    fn restore(&self, at: TextRange, value: &str) -> Vec<CodeAction> {
        fn entry_at(node: &Node, at: TextRange, depth: usize) -> Option<&Entry> {
            if depth > 256 {
                return None;
            }
            match &node.value {
                Value::Map(entries) => entries.iter().find(|e| e.key_range == at).or_else(|| {
                    entries
                        .iter()
                        .filter(|e| e.value.range.start <= at.start && at.end <= e.value.range.end)
                        .find_map(|e| entry_at(&e.value, at, depth + 1))
                }),
                Value::Seq(items) => {
                    items.iter().filter(|i| i.range.start <= at.start && at.end <= i.range.end).find_map(|i| entry_at(i, at, depth + 1))
                }
                _ => None,
            }
        }
        let Some(entry) = entry_at(self.root, at, 0) else { return Vec::new() };
        let range = TextRange::new(entry.key_range.end, entry.value.range.end.max(entry.key_range.end));
        let title = format!("Restore the previous {}: {value}", entry.key);
        vec![CodeAction {
            title,
            edits: vec![Edit { range, new_text: format!(": {value}") }],
            preferred: false,
            automatic: false,
            fixes: Vec::new(),
        }]
    }

    /// For a rule added to a field stored objects already have (`crd-change/rule`, its range the rule's
    /// expression): two ways to keep the values stored objects hold valid. A transition rule
    /// (`self == oldSelf || (R)`) runs only on updates that change the value, so stored objects and
    /// manifests created again pass as before; with `optionalOldSelf: true` and
    /// `(oldSelf.hasValue() && self == oldSelf.value()) || (R)` the rule also checks creates, and an
    /// update that leaves the value unchanged passes where the API server does not ratchet. Not offered
    /// for a rule that already uses `oldSelf`.
    fn ratchet_rule(&self, at: TextRange) -> Vec<CodeAction> {
        fn rule_entry_at(node: &Node, at: TextRange, depth: usize) -> Option<(&Node, &Entry)> {
            if depth > 256 || !(node.range.start <= at.start && at.end <= node.range.end) {
                return None;
            }
            match &node.value {
                Value::Map(entries) => match entries.iter().find(|e| e.key == "rule" && e.value.range == at) {
                    Some(entry) => Some((node, entry)),
                    None => entries.iter().find_map(|e| rule_entry_at(&e.value, at, depth + 1)),
                },
                Value::Seq(items) => items.iter().find_map(|i| rule_entry_at(i, at, depth + 1)),
                _ => None,
            }
        }
        let Some((map, entry)) = rule_entry_at(self.root, at, 0) else { return Vec::new() };
        let Some(rule) = entry.value.as_str() else { return Vec::new() };
        if rule.contains("oldSelf") {
            return Vec::new();
        }
        let range = entry.value.range;
        let transition = format!("self == oldSelf || ({rule})");
        let mut actions = vec![CodeAction {
            title: format!("Check the rule only on updates that change the value: {transition}"),
            edits: vec![Edit { range, new_text: double_quoted(&transition) }],
            preferred: false,
            automatic: false,
            fixes: Vec::new(),
        }];
        let has_key = |key: &str| map.as_map().is_some_and(|entries| entries.iter().any(|e| e.key == key));
        if !has_key("optionalOldSelf") {
            let ratcheted = format!("(oldSelf.hasValue() && self == oldSelf.value()) || ({rule})");
            let written = self.text.get(range.start..range.end).unwrap_or_default();
            let added = if map.style == Style::Flow {
                ", optionalOldSelf: true".to_string()
            } else {
                // The key of the new entry lines up with `rule`.
                let line_start = self.text[..entry.key_range.start].rfind('\n').map_or(0, |i| i + 1);
                let indent =
                    self.text[line_start..entry.key_range.start].chars().map(|c| if c == '-' { ' ' } else { c }).collect::<String>();
                match written.ends_with('\n') {
                    true => format!("{indent}optionalOldSelf: true\n"),
                    false => format!("\n{indent}optionalOldSelf: true"),
                }
            };
            let newline = if written.ends_with('\n') && map.style != Style::Flow { "\n" } else { "" };
            actions.push(CodeAction {
                title: format!("Spare unchanged values with optionalOldSelf: {ratcheted}"),
                edits: vec![Edit { range, new_text: format!("{}{newline}{added}", double_quoted(&ratcheted)) }],
                preferred: false,
                automatic: false,
                fixes: Vec::new(),
            });
        }
        actions
    }

    /// The CRD and schema steps for the document, when its `apiVersion` and `kind` resolve.
    fn steps(&self, segments: &[Segment<'_>]) -> Option<Vec<Step<'a>>> {
        let (api_version, kind) = (self.root.get_str("apiVersion")?, self.root.get_str("kind")?);
        match self.index.resolve(api_version, kind) {
            Resolution::Found { version, .. } => walk(version.schema().map(|s| &**s), segments),
            Resolution::UnknownGroup => walk(Some(crate::builtin_kinds::schema(crdls_builtins::newest(), api_version, kind)?), segments),
            _ => None,
        }
    }

    /// For a built-in kind whose `apiVersion` the release does not serve (or a later one will not):
    /// the versions the newest release serves it in.
    fn built_in_api_version(&self) -> Vec<CodeAction> {
        let (Some(node), Some(kind)) = (self.root.get("apiVersion"), self.root.get_str("kind")) else { return Vec::new() };
        let Some(current) = node.as_str() else { return Vec::new() };
        let (group, _) = split_api_version(current);
        crate::builtin_kinds::api_versions(group, kind)
            .into_iter()
            .filter(|v| v != current)
            .take(MAX_CHOICES)
            .enumerate()
            // Another version has another schema: never made unattended.
            .map(|(i, value)| {
                let mut action = replace(format!("Change apiVersion to {value}"), node.range, yaml_string(&value), i == 0);
                action.automatic = false;
                action
            })
            .collect()
    }

    fn api_version(&self, code: &str) -> Vec<CodeAction> {
        let (Some(node), Some(kind)) = (self.root.get("apiVersion"), self.root.get_str("kind")) else { return Vec::new() };
        let Some(current) = node.as_str() else { return Vec::new() };
        let crd: &IndexedCrd = match self.index.resolve(current, kind) {
            Resolution::Found { crd, .. } | Resolution::UnknownVersion { crd } => crd,
            _ => return Vec::new(),
        };
        let (_, version) = split_api_version(current);
        // Served, not deprecated, in Kubernetes' priority order; a likely typo's target first.
        let mut names: Vec<&str> =
            crd.crd.versions.iter().filter(|v| v.served && !v.deprecated && v.name != version).map(|v| v.name.as_str()).collect();
        // A version that follows all of the only definition's is no typo: the local CRD is likely older
        // than the installed one (the diagnostic is a warning), and the object is not to be moved back.
        let declared: Vec<&str> = crd.crd.versions.iter().map(|v| v.name.as_str()).collect();
        let stale = self.index.definitions(current, kind).len() <= 1 && crdls_crd::is_next_version(version, &declared);
        let typo = if code == codes::RESOURCE_UNKNOWN_VERSION && !stale {
            did_you_mean(version, crd.crd.versions.iter().filter(|v| v.served).map(|v| v.name.as_str()))
        } else {
            None
        };
        if let Some(meant) = typo {
            names.retain(|n| *n != meant);
            names.insert(0, meant);
        }
        names
            .into_iter()
            .take(MAX_CHOICES)
            .enumerate()
            .map(|(i, name)| {
                let value = crd.crd.api_version_of(name);
                let mut action = replace(format!("Change apiVersion to {value}"), node.range, yaml_string(&value), i == 0);
                // Moving to another version changes the schema: only a typo's fix is made unattended.
                action.automatic = i == 0 && typo.is_some();
                action
            })
            .collect()
    }

    fn kind(&self) -> Vec<CodeAction> {
        let (Some(api_version), Some(node)) = (self.root.get_str("apiVersion"), self.root.get("kind")) else { return Vec::new() };
        let Some(kind) = node.as_str() else { return Vec::new() };
        let known_kinds = match self.index.resolve(api_version, kind) {
            Resolution::UnknownKind { known_kinds } => known_kinds,
            Resolution::UnknownGroup => crate::builtin_kinds::kinds(split_api_version(api_version).0),
            _ => return Vec::new(),
        };
        match did_you_mean(kind, known_kinds.iter().copied()) {
            Some(meant) => vec![replace(format!("Change kind to {meant}"), node.range, yaml_string(meant), true)],
            None => Vec::new(),
        }
    }

    /// Rewrites a v1beta1 CRD as v1.
    fn convert_crd(&self) -> Vec<CodeAction> {
        let Some(converted) = crate::v1beta1_to_v1::crd_v1beta1_to_v1(self.root) else { return Vec::new() };
        let end = line_end(self.text, self.content_end(self.root.range.end));
        let end = if self.text[end..].starts_with('\n') { end + 1 } else { end };
        vec![CodeAction {
            title: "Convert this CRD to apiextensions.k8s.io/v1".into(),
            edits: vec![Edit { range: TextRange::new(self.root.range.start, end), new_text: converted }],
            preferred: true,
            automatic: false,
            fixes: Vec::new(),
        }]
    }

    /// Adds the missing field, and offers to add every missing required field of the same object.
    fn required(&self, path: &str) -> Vec<CodeAction> {
        let found = follow(self.root, path);
        let Some(steps) = self.steps(&found.segments) else { return Vec::new() };
        let (Some(node), Some(step)) = (found.nodes.last(), steps.last()) else { return Vec::new() };
        let rest = found.rest.strip_prefix('.').unwrap_or(found.rest);
        if rest.is_empty() {
            // The field is written but null, which the API server drops: fill it in.
            let Some(entry) = found.entry.filter(|_| node.value == Value::Null) else { return Vec::new() };
            return self.fill_null(entry, step.schema).into_iter().collect();
        }
        // The first missing name; anything deeper is written as part of its skeleton.
        let name = rest.split(['.', '[']).next().unwrap_or(rest);
        let Value::Map(entries) = &node.value else { return Vec::new() };
        let missing: Vec<(&str, &Schema)> = step
            .schema
            .required
            .iter()
            .filter(|r| !entries.iter().any(|e| &e.key == *r))
            .filter_map(|r| step.schema.property(r).map(|p| (r.as_str(), &*p.schema)))
            // The API server fills in a field with a default: only the others are missing.
            .filter(|(_, s)| s.default.is_none())
            .collect();
        let Some(this) = missing.iter().find(|(n, _)| *n == name).copied() else { return Vec::new() };
        let mut actions = Vec::new();
        let owner = if found.segments.is_empty() { "the object".to_string() } else { format!("\"{}\"", path_before(path, rest)) };
        if let Some(edit) = self.add_fields(node, &[this]) {
            actions.push(CodeAction {
                title: format!("Add required field \"{name}\""),
                edits: vec![edit],
                preferred: missing.len() == 1,
                automatic: false,
                fixes: Vec::new(),
            });
        }
        if missing.len() > 1 {
            if let Some(edit) = self.add_fields(node, &missing) {
                actions.push(CodeAction {
                    title: format!("Add all {} missing required fields to {owner}", missing.len()),
                    edits: vec![edit],
                    preferred: true,
                    automatic: false,
                    fixes: Vec::new(),
                });
            }
        }
        actions
    }

    /// The edit that writes `fields` into the mapping `map`: after its last entry in block style, before
    /// the closing brace in flow style.
    fn add_fields(&self, map: &Node, fields: &[(&str, &Schema)]) -> Option<Edit> {
        let Value::Map(entries) = &map.value else { return None };
        if map.style == Style::Flow || entries.is_empty() {
            let close = self.text.get(..map.range.end)?.rfind('}').filter(|c| *c >= map.range.start)?;
            let written: Vec<String> = fields.iter().map(|(n, s)| format!("{}: {}", yaml_string(n), inline_value(s, 1))).collect();
            let (at, lead) = match entries.last() {
                Some(last) => (entry_end(last), ", "),
                None => (close, ""),
            };
            return Some(Edit { range: TextRange::empty(at), new_text: format!("{lead}{}", written.join(", ")) });
        }
        let first = entries.first()?;
        let column = first.key_range.start - line_start(self.text, first.key_range.start);
        let mut block = String::new();
        for (name, schema) in fields {
            skeleton_field(name, schema, column, &mut block, &mut Fill::Plain, 1);
        }
        let at = line_end(self.text, self.content_end(entries.iter().map(entry_end).max()?));
        Some(Edit { range: TextRange::empty(at), new_text: format!("\n{}", block.trim_end_matches('\n')) })
    }

    /// Writes a value for a required field that is present but null.
    fn fill_null(&self, entry: &Entry, schema: &Schema) -> Option<CodeAction> {
        let colon = entry.key_range.end + self.text.get(entry.key_range.end..)?.find(':')?;
        let column = entry.key_range.start - line_start(self.text, entry.key_range.start);
        let mut field = String::new();
        skeleton_field(&entry.key, schema, column, &mut field, &mut Fill::Plain, 1);
        // The skeleton's text after `key:`: ` value`, or a newline and the nested block.
        let prefix = format!("{}{}:", " ".repeat(column), yaml_string(&entry.key));
        let value = field.strip_prefix(&prefix)?.trim_end_matches('\n').to_string();
        let range =
            if entry.value.style == Style::Empty { TextRange::empty(colon + 1) } else { TextRange::new(colon + 1, entry.value.range.end) };
        Some(CodeAction {
            title: format!("Fill in required field \"{}\"", entry.key),
            edits: vec![Edit { range, new_text: value }],
            preferred: true,
            automatic: false,
            fixes: Vec::new(),
        })
    }

    /// Replaces a value outside its enum with the nearest members.
    fn enumeration(&self, path: &str) -> Vec<CodeAction> {
        let found = follow(self.root, path);
        if !found.rest.is_empty() {
            return Vec::new();
        }
        let (Some(node), Some(steps)) = (found.nodes.last(), self.steps(&found.segments)) else { return Vec::new() };
        let Some(members) = steps.last().and_then(|s| s.schema.enumeration.as_ref()) else { return Vec::new() };
        let current = node.as_str().map_or_else(|| yaml_inline(node), str::to_string);
        let written: Vec<String> = members.iter().map(yaml_inline).collect();
        let plain: Vec<String> = members.iter().map(|m| m.as_str().map_or_else(|| yaml_inline(m), str::to_string)).collect();
        let meant = did_you_mean(&current, plain.iter().map(String::as_str));
        let mut order: Vec<usize> = (0..members.len()).collect();
        let lower = current.to_lowercase();
        order.sort_by_key(|&i| (Some(plain[i].as_str()) != meant, edit_distance(&lower, &plain[i].to_lowercase())));
        order
            .into_iter()
            .take(MAX_CHOICES)
            .enumerate()
            .map(|(rank, i)| {
                let preferred = rank == 0 && (meant.is_some() || members.len() == 1);
                replace(format!("Change to {}", written[i]), node.range, written[i].clone(), preferred)
            })
            .collect()
    }

    /// Renames an unknown field to the one it likely misspells, or removes it.
    fn unknown_field(&self, path: &str) -> Vec<CodeAction> {
        let found = follow(self.root, path);
        let (Some(entry), true) = (found.entry, found.rest.is_empty()) else { return Vec::new() };
        let Some(parent) = found.nodes.len().checked_sub(2).map(|i| found.nodes[i]) else { return Vec::new() };
        let Value::Map(siblings) = &parent.value else { return Vec::new() };
        let mut actions = Vec::new();
        if let Some(steps) = self.steps(&found.segments[..found.segments.len() - 1]) {
            let fields = steps.last().map(|s| s.fields()).unwrap_or_default();
            let free = fields.iter().map(|(p, _)| p.name.as_str()).filter(|n| !siblings.iter().any(|e| e.key == *n));
            if let Some(meant) = did_you_mean(&entry.key, free) {
                actions.push(replace(format!("Rename to \"{meant}\""), entry.key_range, yaml_string(meant), true));
            }
        }
        if let Some(edit) = self.remove_entry(parent, entry) {
            actions.push(CodeAction {
                title: format!("Remove unknown field \"{}\"", entry.key),
                edits: vec![edit],
                preferred: actions.is_empty(),
                automatic: false,
                fixes: Vec::new(),
            });
        }
        actions
    }

    /// The edit that deletes an entry with its value: whole lines in block style, up to the next key
    /// when the entry shares its line with a `- `, up to the next entry (or from the previous one) in flow style.
    fn remove_entry(&self, map: &Node, entry: &Entry) -> Option<Edit> {
        let Value::Map(entries) = &map.value else { return None };
        let i = entries.iter().position(|e| std::ptr::eq(e, entry))?;
        let end = entry_end(entry);
        if map.style == Style::Flow {
            let range = match (entries.get(i + 1), i.checked_sub(1).map(|p| &entries[p])) {
                (Some(next), _) => TextRange::new(entry.key_range.start, next.key_range.start),
                (None, Some(previous)) => TextRange::new(entry_end(previous), end),
                (None, None) => TextRange::new(entry.key_range.start, end),
            };
            return Some(Edit { range, new_text: String::new() });
        }
        let start = line_start(self.text, entry.key_range.start);
        if self.text[start..entry.key_range.start].trim().is_empty() {
            let stop = line_end(self.text, self.content_end(end));
            let stop = if self.text[stop..].starts_with("\r\n") { stop + 2 } else { (stop + 1).min(self.text.len()) };
            return Some(Edit { range: TextRange::new(start, stop), new_text: String::new() });
        }
        // `- key: value` with more keys below: the next key moves up after the dash.
        match entries.get(i + 1) {
            Some(next) => Some(Edit { range: TextRange::new(entry.key_range.start, next.key_range.start), new_text: String::new() }),
            None => Some(Edit { range: TextRange::new(entry.key_range.start, self.content_end(end)), new_text: "{}".into() }),
        }
    }

    /// Quotes a plain scalar that must be a string; unquotes a string that must be a number or boolean.
    fn wrong_type(&self, path: &str) -> Vec<CodeAction> {
        let found = follow(self.root, path);
        if !found.rest.is_empty() {
            return Vec::new();
        }
        let (Some(node), Some(steps)) = (found.nodes.last(), self.steps(&found.segments)) else { return Vec::new() };
        let Some(schema) = steps.last().map(|s| s.schema) else { return Vec::new() };
        let source = &self.text[node.range.start..node.range.end.min(self.text.len())];
        let wanted = if schema.int_or_string { None } else { schema.ty.as_deref() };
        match (&node.value, wanted) {
            (Value::Bool(_) | Value::Int(_) | Value::Float(_), Some("string")) if node.style == Style::Plain => {
                let quoted = format!("\"{}\"", source.replace('\\', "\\\\").replace('"', "\\\""));
                vec![replace(format!("Quote as the string {quoted}"), node.range, quoted, true)]
            }
            (Value::Str(s), Some(ty @ ("integer" | "number" | "boolean"))) => {
                let fits = match (resolve_plain(s), ty) {
                    (Value::Int(_), "integer" | "number") | (Value::Float(_), "number") => true,
                    (Value::Bool(_), "boolean") => matches!(s.as_str(), "true" | "false"),
                    _ => false,
                };
                if fits {
                    vec![replace(format!("Write {s} as a{} {ty}", if ty == "integer" { "n" } else { "" }), node.range, s.clone(), true)]
                } else {
                    Vec::new()
                }
            }
            _ => Vec::new(),
        }
    }

    /// The end of the last non-blank character before `offset` (block scalars end past their newline).
    fn content_end(&self, offset: usize) -> usize {
        let offset = offset.min(self.text.len());
        self.text[..offset].trim_end().len()
    }
}

/// The edits `crdls check --fix` makes: for each diagnostic, its automatic fix, skipping any that
/// overlaps an edit already taken. Sorted by position.
pub fn automatic_edits(text: &str, stream: &Stream, index: &CrdIndex, diagnostics: &[Diagnostic]) -> Vec<Edit> {
    let requests: Vec<FixRequest<'_>> = diagnostics
        .iter()
        .map(|d| FixRequest { code: d.code, range: d.range, path: d.path.as_deref(), restore: d.restore.as_deref() })
        .collect();
    let mut taken: Vec<Edit> = Vec::new();
    for action in code_actions(text, stream, index, &requests) {
        if !action.automatic {
            continue;
        }
        let overlaps = |e: &Edit| {
            taken.iter().any(|t| e.range.start < t.range.end.max(t.range.start + 1) && t.range.start < e.range.end.max(e.range.start + 1))
        };
        if action.edits.iter().any(overlaps) {
            continue;
        }
        taken.extend(action.edits);
    }
    taken.sort_by_key(|e| e.range.start);
    taken
}

/// A one-edit replacement.
fn replace(title: String, range: TextRange, new_text: String, preferred: bool) -> CodeAction {
    CodeAction { title, edits: vec![Edit { range, new_text }], preferred, automatic: preferred, fixes: Vec::new() }
}

/// Where an entry ends: its value's end, or its key's when the value is empty.
fn entry_end(entry: &Entry) -> usize {
    entry.value.range.end.max(entry.key_range.end)
}

/// The part of `path` before `rest` (the owner of a missing field), without a trailing dot.
fn path_before<'p>(path: &'p str, rest: &str) -> &'p str {
    let cut = path.len().saturating_sub(rest.len());
    path[..cut].trim_end_matches('.')
}

/// `s` as a YAML double-quoted scalar, which holds any expression in block and flow context alike
/// (a plain scalar would end at a comma or a bracket inside a flow mapping).
fn double_quoted(s: &str) -> String {
    let mut out = String::with_capacity(s.len() + 2);
    out.push('"');
    for c in s.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            '\t' => out.push_str("\\t"),
            c if c.is_control() => out.push_str(&format!("\\u{:04x}", c as u32)),
            c => out.push(c),
        }
    }
    out.push('"');
    out
}

#[cfg(test)]
mod tests;
