//! How the documents of a file are to be read. Most files hold whole objects, as `kubectl apply`
//! sends them; but a kustomize patch holds partial objects, a Chainsaw assertion holds partial objects
//! whose keys and values may be expressions, and a Helm template holds YAML with Go template actions.
//! Each mode says which of the checks still mean what they say, and which text another language
//! computes (its "opaque" ranges), where no diagnostic may land.

use crdls_diagnostics::codes;
use crdls_diagnostics::{Diagnostic, Severity, TextRange};
use crdls_yaml::template::has_actions;
use crdls_yaml::{Node, Style, Value};

/// How the documents of a file are read.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub enum FileMode {
    /// Whole objects, to be created as they are.
    #[default]
    Objects,
    /// Objects of a test tool that templates its files (Chainsaw `apply`, `create` and `update`, kuttl
    /// steps): a value in parentheses, `($namespace)`, is an expression and is not checked.
    TestObjects {
        /// Whether the tool may merge them into objects that already exist (`apply`, `update`, kuttl's
        /// steps), so that they may be partial; `create` takes whole objects.
        merges: bool,
    },
    /// Objects a kustomization assembles (named in its `resources`): kustomize's label transformers
    /// (`labels` with `includeSelectors`, `commonLabels`) may give a workload the selector the file
    /// leaves out, so a missing or unmatched selector is not reported.
    Assembled {
        /// Whether kustomize sets the namespace of what it assembles (the kustomization has `namespace`,
        /// or is a component, which the kustomizations using it may give one): its namespace
        /// transformer then also renames every Namespace object to that namespace, so the name a
        /// Namespace is written with (often a placeholder, `_`) is not the one the API server sees.
        renames_namespaces: bool,
        /// The objects (kind and name) that every kustomization including this one patches, directly or
        /// through the kustomizations that include it: a skeleton each overlay completes (`spec: {}`
        /// that an overlay's patch fills in), never applied alone, so read as a fragment is: what it
        /// writes is checked (its apiVersion and name too), what it leaves out is not.
        completed: Vec<(String, String)>,
    },
    /// The inputs of a project's tests (plain manifests below a `test`, `tests` or `e2e` directory of the
    /// workspace): objects a linter, a policy engine or a unit test reads, which often leave out what
    /// the test does not look at (a Deployment without selector, a container without image). What they
    /// write is checked as in a whole object (values, types, native rules, CEL rules); what they leave
    /// out is not reported ([`is_about_absence`]). A CRD among them is checked as a CRD.
    TestInputs,
    /// The files a test's commands read rather than the test tool itself (what a kuttl test case keeps in
    /// a subdirectory: an overlay a script merges onto a base with `yq`, a fragment it completes before
    /// `kubectl apply`): partial objects, checked as patches are (what they write, not what they leave
    /// out, and no CEL rule, since a rule sees the whole object), except that a CRD among them is a whole
    /// CRD.
    Fragments,
    /// Strategic-merge patches named by a kustomization: partial objects, whose fields are checked but
    /// not their completeness; `$patch` and the other directives are not fields.
    Patches,
    /// JSON 6902 patches named by a kustomization: lists of operations, not objects.
    JsonPatches,
    /// Chainsaw assertions (`assert`, `error`, `patch`): partial objects matched against live ones,
    /// with expression keys (`(conditions[?type == 'Ready'])`, `~.(items)`) and values.
    Assertions,
    /// A Helm chart template, parsed with its actions masked: only literal YAML is checked, and only
    /// for mistakes no template can make legal.
    Template {
        /// The byte ranges of the template's actions.
        actions: Vec<TextRange>,
        /// The byte ranges of literal YAML whose parent in Helm's output the template does not decide
        /// (`crdls_yaml::template::undecided`): opaque as the actions are.
        undecided: Vec<TextRange>,
        /// The `if`/`with` blocks that have an `else`: the masked text holds all their branches at
        /// once, which no rendering does, so nothing inside them is reported, and an object whose kind
        /// or apiVersion is chosen there is not checked against a schema.
        alternatives: Vec<TextRange>,
        /// Whether the template asks which APIs or release the cluster has (`.Capabilities`), so that an
        /// apiVersion it writes may be one it renders only for clusters that serve it.
        asks_capabilities: bool,
        /// Every `if`/`with` block, with or without `else`: crdls cannot evaluate their conditions, and
        /// one may guard an apiVersion by what the cluster serves through a helper
        /// (`{{ if include "capabilities.psp.supported" . }}`), so an apiVersion inside one that the
        /// release does not serve is at most a warning.
        conditionals: Vec<TextRange>,
    },
}

impl FileMode {
    /// Whether documents hold whole objects, so that required fields, minimum counts and CEL rules
    /// (which see the whole object) apply.
    pub fn whole_objects(&self) -> bool {
        matches!(self, FileMode::Objects | FileMode::Assembled { .. } | FileMode::TestObjects { merges: false } | FileMode::TestInputs)
    }

    /// Whether an object's status is checked as the live object's status even with the status
    /// subresource: an assertion reads what the cluster holds.
    pub fn reads_live_status(&self) -> bool {
        matches!(self, FileMode::Assertions)
    }

    /// The ranges of a document that another language computes: template actions, expression keys
    /// and values, patch directives (with everything under them).
    pub fn opaque_ranges(&self, root: &Node) -> Vec<TextRange> {
        let mut out = Vec::new();
        if *self != FileMode::JsonPatches {
            sops(root, &mut out);
        }
        match self {
            FileMode::JsonPatches => {}
            FileMode::Objects | FileMode::Assembled { .. } | FileMode::TestInputs | FileMode::Fragments => {
                collect(root, Opaque::Substitutions, &mut out)
            }
            FileMode::Template { actions, undecided, .. } => {
                out.extend(
                    actions
                        .iter()
                        .chain(undecided)
                        .copied()
                        .filter(|a| a.start < root.range.end && root.range.start < a.end.max(a.start + 1)),
                );
                collect(root, Opaque::Substitutions, &mut out);
            }
            FileMode::TestObjects { .. } => collect(root, Opaque::ExpressionValues, &mut out),
            FileMode::Assertions => collect(root, Opaque::Expressions, &mut out),
            FileMode::Patches => collect(root, Opaque::Directives, &mut out),
        }
        out.sort_by_key(|r| (r.start, r.end));
        // Ranges that overlap become one (an undecided node holds the actions inside it), so that the
        // ranges' ends are in order too, as [`touches`] needs.
        let mut merged: Vec<TextRange> = Vec::with_capacity(out.len());
        for range in out {
            match merged.last_mut() {
                Some(last) if range.start < last.end => last.end = last.end.max(range.end),
                _ => merged.push(range),
            }
        }
        merged
    }

    /// Whether the object's `apiVersion` or `kind` is text another language computes (a template action,
    /// a substitution): what the object is cannot be known, so it is neither resolved nor checked.
    pub fn computes_identity(&self, root: &Node) -> bool {
        let opaque = self.opaque_ranges(root);
        ["apiVersion", "kind"].iter().any(|key| root.get(key).is_some_and(|node| touches(&opaque, node.range)))
    }

    /// Whether a diagnostic of this code still holds in this mode, before looking at where it is.
    pub fn keeps(&self, code: &str) -> bool {
        match self {
            FileMode::Objects | FileMode::Assembled { .. } | FileMode::TestObjects { merges: false } | FileMode::TestInputs => true,
            FileMode::JsonPatches => false,
            FileMode::Patches | FileMode::Fragments | FileMode::Assertions | FileMode::TestObjects { merges: true } => {
                !codes::lookup(code).is_some_and(|c| c.completeness)
            }
            FileMode::Template { .. } => codes::lookup(code).is_some_and(|c| c.template),
        }
    }

    /// How one document of a file in this mode is read: as the file's mode says, except that a document
    /// that only names an object ([`is_reference`]) is partial wherever it is, as is an object of a
    /// kustomize base that every kustomization including it patches (`Assembled`'s `completed`), a CRD among test inputs or fragments is a whole CRD
    /// (projects keep the CRDs their tests install there), and an object a program printed ([`is_printed_object`]) is read as a test input.
    pub fn for_document(&self, root: Option<&Node>) -> &FileMode {
        static PARTIAL: FileMode = FileMode::Patches;
        static WHOLE: FileMode = FileMode::Objects;
        static INPUTS: FileMode = FileMode::TestInputs;
        static FRAGMENT: FileMode = FileMode::Fragments;
        let plain = matches!(self, FileMode::Objects | FileMode::Assembled { .. } | FileMode::TestInputs);
        let completed = match self {
            FileMode::Assembled { completed, .. } => root.is_some_and(|r| {
                let (kind, name) = (r.get_str("kind"), r.get("metadata").and_then(|m| m.get_str("name")));
                completed.iter().any(|(k, n)| Some(k.as_str()) == kind && Some(n.as_str()) == name)
            }),
            _ => false,
        };
        if completed {
            // Partial, but no patch: its apiVersion and name are the object's own.
            &FRAGMENT
        } else if plain && root.is_some_and(|r| is_reference(r) || crate::awaited::is_awaited(r)) {
            &PARTIAL
        } else if matches!(self, FileMode::TestInputs | FileMode::Fragments) && root.is_some_and(|r| crdls_crd::is_crd(r).is_some()) {
            &WHOLE
        } else if *self == FileMode::Objects && root.is_some_and(is_printed_object) {
            &INPUTS
        } else {
            self
        }
    }

    /// Drops the diagnostics this mode cannot stand behind: those whose code does not hold here, and
    /// those that touch text another language computes.
    pub fn filter(&self, root: Option<&Node>, diagnostics: &mut Vec<Diagnostic>) {
        let opaque = root.map(|r| self.opaque_ranges(r)).unwrap_or_default();
        // A field left out of a written map is not made unknowable by a substitution in the value of
        // another field: whatever fills a scalar in, it stays that field's value and writes no key
        // beside it (a Tekton step whose `script` holds `$(workspaces.x.path)` still lacks its `name`).
        // Template actions and computed keys or maps may write the missing key, and still count.
        let structural: Vec<TextRange> = match (self, root) {
            (FileMode::Template { .. }, _) | (_, None) => opaque.clone(),
            (_, Some(root)) => {
                let mut scalars = Vec::new();
                scalar_ranges(root, &mut scalars);
                scalars.sort_by_key(|r| (r.start, r.end));
                opaque.iter().copied().filter(|r| scalars.binary_search_by_key(&(r.start, r.end), |s| (s.start, s.end)).is_err()).collect()
            }
        };
        diagnostics.retain(|d| {
            self.keeps(d.code)
                && (!touches(&opaque, d.range) || root.is_some_and(|r| left_out_of_written_map(r, d)) && !touches(&structural, d.range))
        });
        if let (Some(root), false) = (root, *self == FileMode::JsonPatches) {
            let mut found = Constants::default();
            constant_placeholders(root, &mut found);
            let within = |ranges: &[TextRange], d: &Diagnostic| ranges.iter().any(|c| c.start <= d.range.start && d.range.end <= c.end);
            // An anyOf or oneOf is reported on the object whose schemas it chooses between: one that
            // holds a placeholder cannot be decided either.
            let holds = |d: &Diagnostic| {
                [codes::SCHEMA_ANY_OF, codes::SCHEMA_ONE_OF].contains(&d.code)
                    && found.plain.iter().chain(&found.quoted).any(|c| d.range.start <= c.start && c.end <= d.range.end)
            };
            diagnostics.retain(|d| {
                !(PLACEHOLDER_MISMATCHES.contains(&d.code) && within(&found.plain, d)
                    || QUOTED_PLACEHOLDER_MISMATCHES.contains(&d.code) && within(&found.quoted, d)
                    || within(&found.maps, d)
                    || holds(d))
            });
        }
        if let (FileMode::TestInputs | FileMode::Fragments, Some(root)) = (self, root) {
            diagnostics.retain(|d| !is_about_absence(root, d));
            // The note that CEL rules were not run points at the first schema error: gone with it when
            // that error was about something left out.
            let ranges: Vec<TextRange> = diagnostics.iter().filter(|d| d.code != codes::CEL_SKIPPED).map(|d| d.range).collect();
            diagnostics.retain(|d| d.code != codes::CEL_SKIPPED || ranges.contains(&d.range));
        }
        if *self == FileMode::Patches {
            // A partial object's name only picks the object it lands on, which was created under a name
            // of its own; kustomize ignores it when the patch has a `target` (`name: "*"`), and a patch
            // matching no object is kustomize's error. The API server never sees it as a name.
            diagnostics.retain(|d| !crate::metadata::is_name_error(d));
            // A patch changes an object of its own apiVersion and kind: where that apiVersion is not
            // served, the API server refuses the object the patch lands on, reported there; a patch
            // matching no object is kustomize's error. A patch switched off keeps its old apiVersion.
            for d in diagnostics.iter_mut().filter(|d| d.code == codes::RESOURCE_API_NOT_SERVED && d.severity == Severity::Error) {
                d.severity = Severity::Warning;
                d.message.push_str(" (in a patch, which applies only to an object of the same apiVersion)");
            }
        }
        if let FileMode::Assembled { renames_namespaces, .. } = self {
            diagnostics.retain(|d| {
                !(d.code == codes::NATIVE_SELECTOR || d.code == codes::SCHEMA_REQUIRED && d.path.as_deref() == Some("spec.selector"))
            });
            let namespace_object = root.is_some_and(|r| r.get_str("apiVersion") == Some("v1") && r.get_str("kind") == Some("Namespace"));
            if *renames_namespaces && namespace_object {
                diagnostics.retain(|d| !crate::metadata::is_name_error(d));
            }
        }
        if let FileMode::Template { alternatives, asks_capabilities, conditionals, .. } = self {
            let within = |blocks: &[TextRange], range: TextRange| blocks.iter().any(|a| a.start <= range.start && range.end <= a.end);
            for d in diagnostics.iter_mut().filter(|d| d.code == codes::RESOURCE_API_NOT_SERVED && d.severity == Severity::Error) {
                if within(conditionals, d.range) {
                    d.severity = Severity::Warning;
                    d.message.push_str(
                        " (the template renders it only under a condition crdls cannot evaluate, which may ask what the cluster serves)",
                    );
                }
            }
            let inside = |range: TextRange| within(alternatives, range);
            let chosen = |key: &str| root.and_then(|r| r.get(key)).is_some_and(|n| inside(n.range));
            let kind_chosen = chosen("kind") || chosen("apiVersion");
            diagnostics.retain(|d| {
                if inside(d.range) {
                    return false;
                }
                if kind_chosen && !d.code.starts_with("metadata/") {
                    return false;
                }
                !(*asks_capabilities && [codes::RESOURCE_API_NOT_SERVED, codes::RESOURCE_DEPRECATED_API].contains(&d.code))
            });
        }
    }
}

/// The ranges of every string value below `node`.
fn scalar_ranges(node: &Node, out: &mut Vec<TextRange>) {
    match &node.value {
        Value::Map(entries) => entries.iter().for_each(|e| scalar_ranges(&e.value, out)),
        Value::Seq(items) => items.iter().for_each(|i| scalar_ranges(i, out)),
        Value::Str(_) => out.push(node.range),
        _ => {}
    }
}

/// Whether a diagnostic says that a required field is left out of a map the document writes
/// (`spec.steps[0].name` where `spec.steps[0]` is a written map): only that map's own keys could hold
/// it. Other diagnostics about what is left out may depend on the values written beside it (a CRD's
/// `listKind` defaults from its `kind`), and a substitution there still hides them.
fn left_out_of_written_map(root: &Node, d: &Diagnostic) -> bool {
    if d.code != codes::SCHEMA_REQUIRED {
        return false;
    }
    let Some(path) = d.path.as_deref().filter(|p| !p.is_empty() && !p.ends_with(']')) else { return false };
    let Some((parent, _)) = path.rsplit_once('.') else { return false };
    let followed = crdls_yaml::follow(root, path);
    let missing = !followed.complete() || followed.node().value == Value::Null;
    let container = crdls_yaml::follow(root, parent);
    missing && container.complete() && matches!(container.node().value, Value::Map(_))
}

/// Whether a diagnostic of a whole object's checks is about what the object leaves out rather than what
/// it writes, so that a test input, which writes only what its test reads, does not earn it: a field
/// the document does not write (a required field, a name, a container's image, a Job's restart policy
/// that would default to `Always`, the pod template's labels a written selector is compared with; a
/// field written as `null` is not written either, as Go decodes it to its zero value), a workload's
/// selector left out (its pod template's labels then match nothing), and list items that are
/// duplicates only because they leave out their keys (two containers without a name). A diagnostic
/// without a field path (YAML, the kind, the apiVersion) is about what is written, and so is an unknown
/// field: its key is written, whatever its value (`l: null` in `metadata` is a strict decoding error).
pub fn is_about_absence(root: &Node, d: &Diagnostic) -> bool {
    if d.code == codes::SCHEMA_UNKNOWN_FIELD {
        return false;
    }
    let absent = |path: &str| {
        let followed = crdls_yaml::follow(root, path);
        !followed.complete() || followed.node().value == Value::Null
    };
    if d.code == codes::NATIVE_SELECTOR && absent("spec.selector") {
        return true;
    }
    let Some(path) = d.path.as_deref().filter(|p| !p.is_empty()) else { return false };
    if absent(path) {
        return true;
    }
    // `items[1]: Duplicate value: {"name":""}`: the keys the item is told apart by, none written.
    match d.cause.as_deref().and_then(|c| c.split_once(": Duplicate value: {")) {
        Some((_, keys)) => {
            let item = crdls_yaml::follow(root, path).node();
            // `{}`: no key is written at all.
            if keys.starts_with('}') {
                return true;
            }
            let keys = json_keys(keys);
            !keys.is_empty() && keys.iter().all(|key| item.get(key).is_none_or(|v| v.value == Value::Null))
        }
        None => false,
    }
}

/// The keys of the JSON object whose text follows its `{` (`"name":"a","port":1}`): each quoted string
/// followed by `:` at the object's own level (the duplicate values of list keys are scalars).
fn json_keys(text: &str) -> Vec<String> {
    let mut keys = Vec::new();
    let mut rest = text;
    while let Some(open) = rest.strip_prefix('"') {
        let Some(close) = open.find('"') else { break };
        keys.push(open[..close].to_string());
        // Skip the value: to the next `,"` at this level, or the end.
        let after = &open[close + 1..];
        let Some(value) = after.strip_prefix(':') else { break };
        let end = match value.strip_prefix('"') {
            Some(quoted) => quoted.find('"').map(|i| i + 2),
            None => value.find([',', '}']),
        };
        let Some(end) = end else { break };
        rest = value[end..].trim_start_matches(',');
    }
    keys
}

/// Whether `range` overlaps, or touches from either side, one of the sorted `opaque` ranges, which do
/// not overlap each other.
fn touches(opaque: &[TextRange], range: TextRange) -> bool {
    let i = opaque.partition_point(|a| a.end < range.start);
    opaque.get(i).is_some_and(|a| a.start <= range.end)
}

#[derive(Clone, Copy, PartialEq, Eq)]
enum Opaque {
    /// Only `${VAR}` substitutions, which every mode has.
    Substitutions,
    /// Scalar values in parentheses.
    ExpressionValues,
    /// Keys and scalar values that are Chainsaw (kyverno-json) expressions.
    Expressions,
    /// Strategic-merge-patch directives.
    Directives,
}

fn collect(node: &Node, opaque: Opaque, out: &mut Vec<TextRange>) {
    match &node.value {
        Value::Map(_) if is_placeholder_map(node) => out.push(node.range),
        Value::Map(entries) => {
            for entry in entries {
                let key_is_opaque = match opaque {
                    // A key holding a substitution is computed too (an annotation written as
                    // `${ROLE/#arn/eks.amazonaws.com/role-arn: arn}`, which envsubst turns into a key).
                    Opaque::Substitutions | Opaque::ExpressionValues => has_substitution(&entry.key),
                    Opaque::Expressions => is_expression_key(&entry.key),
                    Opaque::Directives => is_patch_directive(&entry.key),
                };
                if key_is_opaque {
                    out.push(entry.key_range);
                    out.push(entry.value.range);
                } else {
                    collect(&entry.value, opaque, out);
                }
            }
        }
        Value::Seq(items) => {
            for item in items {
                collect(item, opaque, out);
            }
        }
        Value::Str(s) if has_substitution(s) || has_actions(s) || has_placeholder(s) => out.push(node.range),
        Value::Str(s) if node.style == Style::Plain && crate::fill_ins::is_angle_word(s) => out.push(node.range),
        Value::Str(s) if matches!(opaque, Opaque::ExpressionValues | Opaque::Expressions) && is_expression(s) => out.push(node.range),
        _ => {}
    }
}

/// Whether a string holds a `${VAR}` substitution (Flux's post-build substitution, envsubst, Kustomize
/// replacements done by hand; clusterctl templates write `${ VAR }` with blanks; the shell's and
/// drone/envsubst's `${VAR:-default}`, `${VAR/#prefix/replacement}`, `${VAR%suffix}`), or a `$(VAR)`
/// variable (kustomize's `vars`, and Kubernetes' own expansion in a container's command, args and
/// env): the value the API server sees, or the one the container gets, is not the one written.
fn has_substitution(text: &str) -> bool {
    if is_bare_variable(text) || has_glued_variable(text) {
        return true;
    }
    let mut rest = text;
    while let Some(at) = rest.find("${") {
        let after = rest[at + 2..].trim_start_matches(' ');
        // A name, or names joined by dots (`${config.application.namePrefix}`, a FreeMarker or Terraform
        // expression over a configuration object).
        let name_len = after.bytes().take_while(|b| b.is_ascii_alphanumeric() || *b == b'_' || *b == b'.').count();
        let dotted_well = !after.starts_with('.') && !after[..name_len].ends_with('.') && !after[..name_len].contains("..");
        if name_len > 0 && dotted_well && after[name_len..].trim_start_matches(' ').starts_with(['}', ':', '=', '-', '+', '/', '#', '%']) {
            return true;
        }
        rest = &rest[at + 2..];
    }
    let mut rest = text;
    while let Some(at) = rest.find("$(") {
        let after = &rest[at + 2..];
        let name_len = after.bytes().take_while(|b| b.is_ascii_alphanumeric() || matches!(b, b'_' | b'-' | b'.')).count();
        if name_len > 0 && after.as_bytes()[0].is_ascii_alphabetic() && after[name_len..].starts_with(')') {
            return true;
        }
        rest = after;
    }
    false
}

/// Whether a whole value is a bare shell variable written as a constant's name, `$ARGOCD_APP_NAME`, which
/// envsubst and tools' plugins (Argo CD's config-management plugins) fill in before applying: a `$`
/// then capitals, digits and `_`, starting with a capital, and nothing else.
fn is_bare_variable(text: &str) -> bool {
    text.strip_prefix('$').is_some_and(|name| {
        name.len() >= 2
            && name.starts_with(|c: char| c.is_ascii_uppercase())
            && name.bytes().all(|b| b.is_ascii_uppercase() || b.is_ascii_digit() || b == b'_')
    })
}

/// Whether a string embeds a shell variable written as a constant's name and glued to the text before
/// it, `mysql-$NAME` or `db.$DOMAIN`, which envsubst fills in as it fills a bare `$NAME`: a `$` right
/// after a character that is no blank and no `$`, then a capital and at least one more capital, digit
/// or `_`, ending the string or followed by a character no name holds. A variable after a blank
/// (`echo $HOME`) is a command's own, which the container's shell expands.
fn has_glued_variable(text: &str) -> bool {
    let bytes = text.as_bytes();
    (1..bytes.len()).any(|i| {
        if bytes[i] != b'$' || bytes[i - 1].is_ascii_whitespace() || bytes[i - 1] == b'$' {
            return false;
        }
        let name = &bytes[i + 1..];
        let len = name.iter().take_while(|b| b.is_ascii_uppercase() || b.is_ascii_digit() || **b == b'_').count();
        len >= 2 && name[0].is_ascii_uppercase() && name.get(len).is_none_or(|b| !b.is_ascii_alphanumeric() && *b != b'_' && *b != b'(')
    })
}

/// Whether a string embeds a constant's name between double underscores, `__PORT__` or `__HOST_IP__`,
/// the marker scripts replace with `sed` before applying: `__`, a capital, capitals, digits or single
/// `_`, and `__`. No value of a field is written so (Python's `__init__` is lower case).
fn has_dunder_placeholder(text: &str) -> bool {
    let mut rest = text;
    while let Some(at) = rest.find("__") {
        let after = &rest[at + 2..];
        if let Some(close) = after.find("__") {
            let inner = &after[..close];
            if inner.len() >= 2
                && inner.starts_with(|c: char| c.is_ascii_uppercase())
                && !inner.ends_with('_')
                && inner.bytes().all(|b| b.is_ascii_uppercase() || b.is_ascii_digit() || b == b'_')
            {
                return true;
            }
        }
        rest = after;
    }
    false
}

/// Whether a string embeds a placeholder that a script or a templating tool fills in before the file is
/// applied: `{IPv6}/128`, `{NAME}`, a brace-enclosed identifier (letters, digits, `_`, not starting with a
/// digit). JSON or flow YAML in a string never holds one: its braces enclose `"key": value` pairs.
fn has_placeholder(text: &str) -> bool {
    if has_angle_placeholder(text) || is_bracketed_placeholder(text) || is_worded_placeholder(text) || has_dunder_placeholder(text) {
        return true;
    }
    let mut rest = text;
    while let Some(at) = rest.find('{') {
        let after = &rest[at + 1..];
        if let Some(close) = after.find('}') {
            if is_identifier(&after[..close]) {
                return true;
            }
        }
        rest = after;
    }
    false
}

/// Whether a whole value is a bracketed placeholder in capitals, `[REDACTED CERTIFICATE]` or
/// `[PLACEHOLDER]`, which scripts write for secrets they strip from rendered output kept as
/// documentation: `[`, a capital, then capitals, digits, blanks, `_` and `-`, with at least four
/// letters, and `]`. No value of a field is written that way (and base64 data has no brackets).
fn is_bracketed_placeholder(text: &str) -> bool {
    text.strip_prefix('[').and_then(|t| t.strip_suffix(']')).is_some_and(|inner| {
        inner.starts_with(|c: char| c.is_ascii_uppercase())
            && inner.bytes().filter(u8::is_ascii_uppercase).count() >= 4
            && inner.bytes().all(|b| b.is_ascii_uppercase() || b.is_ascii_digit() || matches!(b, b' ' | b'_' | b'-'))
    })
}

/// Whether a whole value is a phrase in capitals, `FILLED BY THE OPERATOR`, which operators write in
/// the manifests they keep as templates for the fields they fill before creating the object: two or
/// more words of capitals and digits, each starting with a capital, between single blanks, with at
/// least four letters. No name, enum, quantity or formatted value is written that way.
fn is_worded_placeholder(text: &str) -> bool {
    let words: Vec<&str> = text.split(' ').collect();
    words.len() >= 2
        && words
            .iter()
            .all(|w| w.starts_with(|c: char| c.is_ascii_uppercase()) && w.bytes().all(|b| b.is_ascii_uppercase() || b.is_ascii_digit()))
        && text.bytes().filter(u8::is_ascii_uppercase).count() >= 4
}

/// Whether a string embeds a `<< Name >>` placeholder, the double-angle form some generators fill in
/// before applying (`<< AddonInstallNamespace >>`): an identifier, blanks around it allowed.
fn has_angle_placeholder(text: &str) -> bool {
    let mut rest = text;
    while let Some(at) = rest.find("<<") {
        let after = &rest[at + 2..];
        if let Some(close) = after.find(">>") {
            if is_identifier(after[..close].trim_matches(' ')) {
                return true;
            }
        }
        rest = after;
    }
    false
}

/// Whether `name` is an identifier: ASCII letters, digits and `_`, not starting with a digit.
fn is_identifier(name: &str) -> bool {
    name.starts_with(|c: char| c.is_ascii_alphabetic() || c == '_') && name.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'_')
}

/// Whether a string is written like a constant's name: ASCII capitals and digits in words joined by `_`
/// (`HELMSUBST_DEPLOYMENT_REPLICAS`, `IMAGE_TAG`), at least two words. Scripts and build steps
/// substitute such tokens (`sed s/IMAGE_TAG/.../`) before the file is applied.
fn is_constant_name(text: &str) -> bool {
    text.starts_with(|c: char| c.is_ascii_uppercase())
        && text.contains('_')
        && !text.ends_with('_')
        && !text.contains("__")
        && text.bytes().all(|b| b.is_ascii_uppercase() || b.is_ascii_digit() || b == b'_')
}

/// What a constant's name earns where it stands for a value of another type or format: no number,
/// boolean, list or object is written that way, nor an IP address or base64 data (`token: ROOK_TOKEN`),
/// nor anything else a `format` names, nor a resource quantity (`storage: FROM_OVERLAY` in a base every
/// overlay patches), nor an object's name or namespace, nor a container's or a runtime handler's name,
/// which Kubernetes never spells in capitals (`namespace: "FILLED_BY_THE_OPERATOR"`,
/// `handler: FILLED_BY_OPERATOR` in an operator's assets). An enum or a pattern still holds:
/// some enums are written so (`ISTIO_MUTUAL`), and a name that breaks a pattern may be a real mistake.
const PLACEHOLDER_MISMATCHES: &[&str] = &[
    codes::SCHEMA_TYPE,
    codes::SCHEMA_FORMAT,
    codes::SCHEMA_ANY_OF,
    codes::SCHEMA_ONE_OF,
    codes::NATIVE_QUANTITY,
    codes::METADATA_NAME,
    codes::METADATA_NAMESPACE,
    codes::NATIVE_CONTAINER,
    codes::NATIVE_RUNTIME_CLASS,
    codes::NATIVE_DISRUPTION_BUDGET,
];

/// What a quoted constant's name earns: it is written as a string, so a type mismatch is the writer's,
/// but no formatted string (an IP address, a date), object name or namespace is written that way either
/// (`value: "PLACEHOLDER_USABLE_ADDRS"`, which a conformance suite replaces with addresses).
/// These are [`PLACEHOLDER_MISMATCHES`] without its first entry, the type mismatch.
const QUOTED_PLACEHOLDER_MISMATCHES: &[&str] = PLACEHOLDER_MISMATCHES.split_at(1).1;

/// The placeholders written as constants' names, found by [`constant_placeholders`].
#[derive(Default)]
struct Constants {
    /// Plain scalars (`replicas: IMAGE_REPLICAS`).
    plain: Vec<TextRange>,
    /// Quoted scalars (`value: "PLACEHOLDER_ADDRS"`).
    quoted: Vec<TextRange>,
    /// Mappings of such names to empty strings.
    maps: Vec<TextRange>,
}

/// The placeholders written as constants' names: a plain scalar (`replicas: IMAGE_REPLICAS`), whose
/// mismatches in type or format are dropped ([`PLACEHOLDER_MISMATCHES`]), a quoted one, whose mismatches
/// in format are ([`QUOTED_PLACEHOLDER_MISMATCHES`]), or a mapping whose every key is such a name with
/// an empty string for value (`tolerations: {HELMSUBST_TOLERATIONS: ""}`), the form a build step
/// replaces with a template's text, inside which nothing is reported: its keys are no fields.
fn constant_placeholders(node: &Node, found: &mut Constants) {
    match &node.value {
        Value::Map(entries)
            if !entries.is_empty()
                && entries.iter().all(|e| is_constant_name(&e.key) && matches!(&e.value.value, Value::Str(v) if v.is_empty())) =>
        {
            found.maps.push(node.range)
        }
        Value::Map(entries) => entries.iter().for_each(|e| constant_placeholders(&e.value, found)),
        Value::Seq(items) => items.iter().for_each(|i| constant_placeholders(i, found)),
        Value::Str(s) if node.style == Style::Plain && is_constant_name(s) => found.plain.push(node.range),
        Value::Str(s)
            if matches!(node.style, Style::SingleQuoted | Style::DoubleQuoted)
                && (is_constant_name(s) || crate::fill_ins::is_angle_word(s)) =>
        {
            found.quoted.push(node.range)
        }
        _ => {}
    }
}

/// Whether a document only names an object: its `apiVersion`, `kind`, a `metadata` of a non-empty `name` (and
/// `namespace`) and an empty `spec: {}` written out, with nothing else. Tests list such documents to
/// wait for an object or its deletion, and tools read them as references to objects that something else
/// creates; nobody writes an explicitly empty spec to create an object whose spec requires fields. Such
/// a document is read as a partial object: its fields are checked, not its completeness.
pub fn is_reference(root: &Node) -> bool {
    let Value::Map(entries) = &root.value else { return false };
    let only = |node: &Node, keys: &[&str]| match &node.value {
        Value::Map(fields) => fields.iter().all(|f| keys.contains(&f.key.as_str())),
        _ => false,
    };
    let empty_spec = root.get("spec").is_some_and(|s| s.style == Style::Flow && matches!(&s.value, Value::Map(m) if m.is_empty()));
    // An empty name names nothing (the API server generates a name or requires one).
    let named = root.get("metadata").is_some_and(|m| m.get_str("name").is_some_and(|n| !n.is_empty()) && only(m, &["name", "namespace"]));
    empty_spec && named && entries.iter().all(|e| ["apiVersion", "kind", "metadata", "spec"].contains(&e.key.as_str()))
}

/// Whether a document is an object a Go program printed from a typed value: its `metadata` holds
/// `creationTimestamp: null`, which Kubernetes' serialiser writes for a zero time and nobody types.
/// What such an object writes was set by the program and is checked; what it leaves out is the
/// program's (an encoding test's half-filled Deployment), so it is read as a test input
/// ([`FileMode::TestInputs`]). So is an object an API server returned (`kubectl get -o yaml`, a fake
/// client's fixture): its `metadata` holds the `uid` and `resourceVersion` that only a server assigns,
/// and nobody creates an object with them (the API server refuses a `resourceVersion` on create). A CRD
/// printed so (controller-gen writes the same) stays a whole CRD.
pub fn is_printed_object(root: &Node) -> bool {
    let metadata = root.get("metadata");
    let printed = metadata
        .and_then(|m| m.get("creationTimestamp"))
        .is_some_and(|t| t.value == Value::Null && t.style == Style::Plain && t.range.end > t.range.start);
    let served = metadata.is_some_and(|m| {
        let set = |key: &str| m.get_str(key).is_some_and(|v| !v.trim().is_empty());
        set("uid") && set("resourceVersion")
    });
    (printed || served) && crdls_crd::is_crd(root).is_none()
}

/// Whether a document names a kind but describes no object to create: a type header, or a field
/// reference (see [`is_type_header`] and [`is_field_reference`]).
pub fn describes_no_object(root: &Node, text: &str) -> bool {
    is_type_header(root) || is_field_reference(root, text)
}

/// Whether a document holds only an `apiVersion` and a `kind`, both plain text: a header that a tool
/// puts on top of what it generates (`--headerPath`), or a type selector. It names a kind, not an
/// object: nobody creates an object with nothing but its type.
pub fn is_type_header(root: &Node) -> bool {
    let Value::Map(entries) = &root.value else { return false };
    entries.len() == 2 && ["apiVersion", "kind"].iter().all(|key| root.get_str(key).is_some_and(|v| !v.is_empty()))
}

/// How few fields a field reference lists at least ([`is_field_reference`]).
const MIN_REFERENCE_FIELDS: usize = 10;

/// Whether a document is a field reference of its kind, as API documentation generators write one
/// (gen-api-docs, and the `kubectl explain`-like skeletons of docs sites): every field outside
/// `apiVersion`, `kind` and `metadata` written with its type's zero value and its description as a
/// comment on its line (`name: ""   # Name of the environment variable.`). Nobody creates such an
/// object: an enum or a pattern holds no `""`, and a list written `{}` is no list. Told by its shape:
/// at least [`MIN_REFERENCE_FIELDS`] values, of which 70% are zero values (a quoted `""`, `0`, `false`,
/// `{}`, `[]`), 30% quoted empty strings, and half carry a comment after them on their line.
pub fn is_field_reference(root: &Node, text: &str) -> bool {
    let Value::Map(entries) = &root.value else { return false };
    let mut tally = ReferenceTally::default();
    for entry in entries.iter().filter(|e| !["apiVersion", "kind", "metadata"].contains(&e.key.as_str())) {
        tally.add(&entry.value, text, 0);
    }
    let n = tally.values;
    n >= MIN_REFERENCE_FIELDS && tally.zero * 10 >= n * 7 && tally.empty_strings * 10 >= n * 3 && tally.commented * 2 >= n
}

/// What [`is_field_reference`] counts: the scalar values and empty collections below a document's
/// fields, how many are zero values, quoted empty strings, and followed by a comment on their line.
#[derive(Default)]
struct ReferenceTally {
    values: usize,
    zero: usize,
    empty_strings: usize,
    commented: usize,
}

impl ReferenceTally {
    fn add(&mut self, node: &Node, text: &str, depth: usize) {
        if depth > 64 {
            return;
        }
        let quoted = matches!(node.style, Style::SingleQuoted | Style::DoubleQuoted);
        let zero = match &node.value {
            Value::Map(entries) if !entries.is_empty() => return entries.iter().for_each(|e| self.add(&e.value, text, depth + 1)),
            Value::Seq(items) if !items.is_empty() => return items.iter().for_each(|i| self.add(i, text, depth + 1)),
            Value::Map(_) | Value::Seq(_) => node.style == Style::Flow,
            Value::Str(s) => {
                let empty = s.is_empty() && quoted;
                self.empty_strings += usize::from(empty);
                empty
            }
            Value::Int(0) | Value::Bool(false) => true,
            Value::Float(f) => *f == 0.0,
            _ => false,
        };
        self.values += 1;
        self.zero += usize::from(zero);
        // A comment on the value's line (a quoted scalar's or a flow collection's range may run on to
        // the end of its line, comment included, so the line is read from the value's start).
        let start = node.range.start.min(text.len());
        let line = text[start..].split('\n').next().unwrap_or_default();
        self.commented += usize::from(line.contains(" #") || line.contains("\t#"));
    }
}

/// Whether a CustomResourceDefinition writes its `spec.group` as the empty string: the zero value
/// controller-gen writes for Go types whose package declares no API group (no `+groupName` marker; the
/// file is named `_<plural>.yaml`). No API server serves such a definition (the empty group is the
/// core group, kept for built-in kinds) and nobody installs it: it is a generator's by-product, not a
/// definition to validate field by field.
pub fn is_ungrouped_crd(root: &Node) -> bool {
    root.get("spec").and_then(|s| s.get("group")).is_some_and(|g| g.style != Style::Plain && g.as_str() == Some(""))
}

/// Whether a mapping is a placeholder written without quotes, which YAML reads as a flow mapping of one
/// key with no value: `{NAME}` (an identifier between braces), or a Go template action `{{ .name }}`,
/// whose inner braces become a key that is itself a mapping. Nobody writes `{key: null}` that way.
fn is_placeholder_map(node: &Node) -> bool {
    let Value::Map(entries) = &node.value else { return false };
    let [entry] = entries.as_slice() else { return false };
    let written = node.range.end.saturating_sub(node.range.start) == entry.key.len() + 2;
    let template = entry.key.starts_with('{') && entry.key.ends_with('}');
    written && entry.value.value == Value::Null && (is_identifier(&entry.key) || template)
}

/// A SOPS-encrypted document: a top-level `sops` mapping with the encryption's `mac` and its
/// `lastmodified` or `version`. SOPS writes every encrypted value as `ENC[cipher,data:…,type:…]`, and
/// decrypts the file (dropping `sops`) before it reaches the API server, so the `sops` key and the
/// encrypted values are opaque.
fn sops(root: &Node, out: &mut Vec<TextRange>) {
    let Some(entry) = root.entry("sops") else { return };
    let marked = entry.value.get("mac").is_some() && (entry.value.get("lastmodified").is_some() || entry.value.get("version").is_some());
    if !marked {
        return;
    }
    out.push(entry.key_range);
    out.push(entry.value.range);
    encrypted_values(root, out);
}

/// The `ENC[…]` values of a SOPS-encrypted tree.
fn encrypted_values(node: &Node, out: &mut Vec<TextRange>) {
    match &node.value {
        Value::Map(entries) => entries.iter().for_each(|e| encrypted_values(&e.value, out)),
        Value::Seq(items) => items.iter().for_each(|i| encrypted_values(i, out)),
        Value::Str(s) if s.starts_with("ENC[") && s.ends_with(']') => out.push(node.range),
        _ => {}
    }
}

/// A kyverno-json expression: `(…)`, optionally with an engine prefix (`(cel;…)`).
fn is_expression(text: &str) -> bool {
    let t = text.trim();
    t.len() > 2 && t.starts_with('(') && t.ends_with(')')
}

/// An assertion-tree key that is not a plain field name: an expression, a foreach (`~.(items)`,
/// `~name.(items)`), a binding (`(x) -> name`) or an escaped literal (`\(x\)`).
fn is_expression_key(key: &str) -> bool {
    is_expression(key) || key.starts_with('~') || key.contains("->") || key.starts_with('\\')
}

/// Drops what is said of a value that the file writes as a `#{NAME}` token (`image: #{OPERATOR_IMAGE}`,
/// `- #{EXECUTOR_IMAGE}`; also `#{NAME}#`, the form of Azure DevOps' Replace Tokens): tools and servers
/// that fill manifests replace such tokens before applying them, but YAML reads ` #` as the start of a
/// comment, so the value looks null and a container without its image. A diagnostic whose field is
/// null where such a token stands is about the token, not about the object.
pub fn drop_token_placeholders(root: &Node, text: &str, diagnostics: &mut Vec<Diagnostic>) {
    if !text.contains("#{") {
        return;
    }
    diagnostics.retain(|d| {
        let Some(path) = d.path.as_deref().filter(|p| !p.is_empty()) else { return true };
        let followed = crdls_yaml::follow(root, path);
        !(followed.complete() && followed.node().value == Value::Null && is_token_at(text, followed.node().range.start))
    });
}

/// Whether the line holding `at` (a null value's place: after its key's colon, or at the end of its
/// list item's line) writes a `#{NAME}` token as its value: a key and its colon, or list items' dashes,
/// then the token, and `#` after it at most.
fn is_token_at(text: &str, at: usize) -> bool {
    let at = at.min(text.len());
    let start = text[..at].rfind('\n').map_or(0, |i| i + 1);
    let end = text[at..].find('\n').map_or(text.len(), |i| at + i);
    let line = &text[start..end];
    let Some(open) = line.find("#{") else { return false };
    let before = line[..open].trim_start().trim_start_matches(['-', ' ']);
    let before_ok = line[..open].ends_with([' ', '\t'])
        && (before.is_empty() || before.trim_end().ends_with(':') && !before.contains(['#', '"', '\'']));
    let token = line[open + 2..].split_once('}').is_some_and(|(name, after)| is_identifier(name) && matches!(after.trim_end(), "" | "#"));
    before_ok && token
}

/// A strategic-merge-patch directive key: `$patch`, `$retainKeys`, `$setElementOrder/<field>`,
/// `$deleteFromPrimitiveList/<field>`.
fn is_patch_directive(key: &str) -> bool {
    key.starts_with('$')
}

#[cfg(test)]
mod tests {
    use super::*;

    fn opaque_texts(mode: &FileMode, text: &str) -> Vec<String> {
        let stream = crdls_yaml::parse(text);
        let root = stream.documents[0].root.as_ref().unwrap();
        mode.opaque_ranges(root).iter().map(|r| text[r.start..r.end].to_string()).collect()
    }

    #[test]
    fn assertion_expressions_are_opaque() {
        let text =
            "status:\n  (conditions[?type == 'Ready']):\n  - status: 'True'\n  ~.(items):\n    a: 1\n  phase: ($phase)\n  ready: true\n";
        assert_eq!(
            opaque_texts(&FileMode::Assertions, text),
            ["(conditions[?type == 'Ready'])", "status: 'True'", "~.(items)", "a: 1", "($phase)"]
        );
        assert_eq!(opaque_texts(&FileMode::TestObjects { merges: true }, "metadata:\n  namespace: ($namespace)\n"), ["($namespace)"]);
    }

    #[test]
    fn substitutions_are_opaque_everywhere() {
        let text = "spec:\n  replicas: ${REPLICAS}\n  host: app.${cluster_domain:=example.com}\n  script: echo $HOME\n";
        assert_eq!(opaque_texts(&FileMode::Objects, text), ["${REPLICAS}", "app.${cluster_domain:=example.com}"]);
        assert!(!has_substitution("${}") && !has_substitution("$ {X}") && has_substitution("a${X}b"));
        assert!(has_substitution("${ROLE/#arn/eks.amazonaws.com/role-arn") && has_substitution("${NAME%-suffix}"));
        assert!(has_substitution("${config.application.namePrefix}apps") && has_substitution("${var.region}"));
        assert!(!has_substitution("${.x}") && !has_substitution("${a.}") && !has_substitution("${a..b}"));
        assert!(has_substitution("${ CLUSTER_NAME }-md-0") && has_substitution("$(kfp-app-name)") && has_substitution("--ip=$(POD_IP)"));
        assert!(
            !has_substitution("$(echo hi)") && !has_substitution("$()") && !has_substitution("cost: $(1)") && !has_substitution("${ }")
        );
        // A variable glued to the text before it is envsubst's; one after a blank is a command's.
        assert!(has_substitution("mysql-$NAME") && has_substitution("db.$DOMAIN:5432") && has_substitution("x$NAME_2"));
        assert!(!has_substitution("echo $HOME") && !has_substitution("a$$NAME") && !has_substitution("x$N") && !has_substitution("x$Name"));
        assert!(!has_substitution("x$NAMEs") && !has_substitution("x$NAME(1)") && !has_substitution("price$"));
    }

    #[test]
    fn templates_and_placeholders_are_opaque_in_every_mode() {
        let text = "metadata:\n  namespace: {{ .fluxns }}\n  labels:\n    app: \"{{ template \\\"x.name\\\" . }}\"\nspec:\n  cidr: \"{IPv6}/128\"\n  host: {HOST}\n  json: '{\"a\": 1}'\n  map: {a: 1}\n  empty: {}\n  set: {a, b}\n";
        let expected = ["{{ .fluxns }}", "\"{{ template \\\"x.name\\\" . }}\"", "\"{IPv6}/128\"", "{HOST}"];
        assert_eq!(opaque_texts(&FileMode::Objects, text), expected);
        assert_eq!(opaque_texts(&FileMode::Patches, text), expected);
        assert_eq!(opaque_texts(&template(), text), expected);
        assert!(!has_placeholder("{1x}") && !has_placeholder("{}") && !has_placeholder("{a-b}") && has_placeholder("fd00::{IPv6_1}/128"));
        assert!(has_placeholder("__PORT__") && has_placeholder("http://__HOST_IP__:__PORT__/x") && has_placeholder("__A1__"));
        assert!(!has_placeholder("__init__") && !has_placeholder("__A__") && !has_placeholder("____") && !has_placeholder("__AB_ __"));
        assert!(
            has_placeholder("[REDACTED CABUNDLE]")
                && has_placeholder("[PLACEHOLDER_1]")
                && !has_placeholder("[ABC]")
                && !has_placeholder("[Redacted]")
                && !has_placeholder("x [REDACTED]")
                && !has_placeholder("[REDACTED")
        );
        assert!(
            has_placeholder("FILLED BY THE OPERATOR")
                && has_placeholder("SET BY CI2")
                && !has_placeholder("FILLED")
                && !has_placeholder("A B")
                && !has_placeholder("FILLED  BY")
                && !has_placeholder("Filled By The Operator")
                && !has_placeholder("TCP UDP x")
        );
        assert!(
            has_placeholder("<< AddonInstallNamespace >>")
                && has_placeholder("x-<<name>>")
                && !has_placeholder("a << b")
                && !has_placeholder("<< a b >>")
        );
    }

    #[test]
    fn a_substitution_in_one_value_hides_no_field_left_out_beside_it() {
        // A Tekton step whose script holds `$(workspaces.x.path)` and that has no `name`; a step map
        // that is itself computed (`${STEP}`) and a key computed by a substitution may write it.
        let text = "spec:\n  steps:\n  - image: node\n    script: |\n      node $(workspaces.launch.path)/main.js\n  - ${STEP}\n  - image: b\n    ${KEY}: x\n";
        let root = crdls_yaml::parse(text).documents[0].root.clone().unwrap();
        let step = |i: usize| crdls_yaml::follow(&root, &format!("spec.steps[{i}]")).node().range;
        let missing = |i: usize| {
            Diagnostic::new(step(i), Severity::Error, codes::SCHEMA_REQUIRED, "missing").with_path(format!("spec.steps[{i}].name"))
        };
        let typed = Diagnostic::new(step(0), Severity::Error, codes::SCHEMA_TYPE, "type").with_path("spec.steps[0].script");
        // A default derived from the values beside it (a CRD's `listKind` from `kind: ${KIND}`).
        let derived = Diagnostic::new(step(0), Severity::Error, codes::CRD_NAMES, "derived").with_path("spec.steps[0].listKind");
        let mut diagnostics = vec![missing(0), missing(1), missing(2), typed.clone(), derived];
        FileMode::Objects.filter(Some(&root), &mut diagnostics);
        let left: Vec<(&str, Option<&str>)> = diagnostics.iter().map(|d| (d.code, d.path.as_deref())).collect();
        assert_eq!(left, [(codes::SCHEMA_REQUIRED, Some("spec.steps[0].name"))]);
        // A template's actions may render the missing key: still dropped there.
        let mut diagnostics = vec![missing(0)];
        template().filter(Some(&root), &mut diagnostics);
        assert!(diagnostics.is_empty());
    }

    #[test]
    fn sops_encrypted_documents_hide_their_values_and_metadata() {
        let text = "kind: Secret\ndata:\n  a: ENC[AES256_GCM,data:abc=,iv:x,tag:y,type:str]\n  b: plain\nsops:\n  mac: ENC[AES256_GCM,data:z,type:str]\n  lastmodified: '2024-01-01T00:00:00Z'\n";
        assert_eq!(
            opaque_texts(&FileMode::Objects, text),
            [
                "ENC[AES256_GCM,data:abc=,iv:x,tag:y,type:str]",
                "sops",
                // The encrypted value inside the metadata is one range with it.
                "mac: ENC[AES256_GCM,data:z,type:str]\n  lastmodified: '2024-01-01T00:00:00Z'",
            ]
        );
        // Without the marks of SOPS, a `sops` key is a field like any other and `ENC[…]` a value.
        assert!(opaque_texts(&FileMode::Objects, "data:\n  a: ENC[x]\nsops:\n  age: []\n").is_empty());
    }

    #[test]
    fn token_placeholders_read_as_comments_are_not_null_values() {
        let text = "spec:\n  containers:\n  - name: a\n    image: #{OPERATOR_IMAGE}\n    args:\n    - #{EXECUTOR}#\n    - # a comment\n  - name: b\n    image:\n";
        let root = crdls_yaml::parse(text).documents[0].root.clone().unwrap();
        let at = |path: &str| Diagnostic::new(TextRange::empty(0), Severity::Error, codes::NATIVE_CONTAINER, "m").with_path(path);
        let mut diagnostics = vec![
            at("spec.containers[0].image"),
            at("spec.containers[0].args[0]"),
            at("spec.containers[0].args[1]"),
            at("spec.containers[1].image"),
        ];
        drop_token_placeholders(&root, text, &mut diagnostics);
        let left: Vec<&str> = diagnostics.iter().filter_map(|d| d.path.as_deref()).collect();
        assert_eq!(left, ["spec.containers[0].args[1]", "spec.containers[1].image"]);
        assert!(!is_token_at("a: #{1x}", 0) && !is_token_at("a: #{A} b", 0) && is_token_at("  - #{A_B}", 0));
        assert!(!is_token_at("a: '#{A}'", 0) && !is_token_at("a: b #{A}", 0) && !is_token_at("a:#{A}", 0));
    }

    #[test]
    fn computed_identities() {
        let root = |text: &str| crdls_yaml::parse(text).documents[0].root.clone().unwrap();
        assert!(FileMode::Objects.computes_identity(&root("apiVersion: ${API}\nkind: Pod\n")));
        assert!(!FileMode::Objects.computes_identity(&root("apiVersion: v1\nkind: Pod\n")));
        let text = "apiVersion: {{ include \"api\" . }}\nkind: APIService\n";
        let masked = crdls_yaml::template::mask_go_template(text);
        let parsed = crdls_yaml::parse(&masked.text);
        let mode = FileMode::Template {
            actions: masked.actions,
            undecided: Vec::new(),
            alternatives: Vec::new(),
            asks_capabilities: false,
            conditionals: Vec::new(),
        };
        assert!(mode.computes_identity(parsed.documents[0].root.as_ref().unwrap()));
    }

    #[test]
    fn undecided_template_lines_are_opaque_with_the_actions_inside_them() {
        let text = "spec:\n  tolerations: {{- toYaml .Values.tolerations | nindent 4 }}\n  {{- range .Values.volumes }}\n  - name: {{ .name }}\n    emptyDir: {}\n  {{- end }}\n";
        let masked = crdls_yaml::template::mask_go_template(text);
        let parsed = crdls_yaml::parse(&masked.text);
        let root = parsed.documents[0].root.as_ref().unwrap();
        let undecided = crdls_yaml::template::undecided(text, &masked, root);
        let mode = FileMode::Template {
            actions: masked.actions,
            undecided,
            alternatives: Vec::new(),
            asks_capabilities: false,
            conditionals: Vec::new(),
        };
        let opaque = mode.opaque_ranges(root);
        let texts: Vec<&str> = opaque.iter().map(|r| &text[r.start..r.end]).collect();
        assert_eq!(
            texts,
            ["{{- toYaml .Values.tolerations | nindent 4 }}", "{{- range .Values.volumes }}", "name: {{ .name }}\n    emptyDir: {}"]
        );
        // A diagnostic after the action inside the undecided item still touches it.
        let at = text.find("emptyDir").unwrap();
        assert!(touches(&opaque, TextRange::new(at, at + "emptyDir".len())));
    }

    #[test]
    fn constant_names_stand_for_values_of_other_types() {
        assert!(is_constant_name("HELMSUBST_DEPLOYMENT_REPLICAS") && is_constant_name("IMAGE_TAG2"));
        assert!(!is_constant_name("TCP") && !is_constant_name("Image_Tag") && !is_constant_name("A__B") && !is_constant_name("_A_B"));
        let text = "spec:\n  replicas: WEB_REPLICAS\n  tls: 'QUOTED_NAME'\n  tolerations:\n    WEB_TOLERATIONS: \"\"\n  data:\n    LOG_LEVEL: debug\n";
        let root = crdls_yaml::parse(text).documents[0].root.clone().unwrap();
        let mut found = Constants::default();
        constant_placeholders(&root, &mut found);
        let shown = |found: &[TextRange]| found.iter().map(|r| text[r.start..r.end].to_string()).collect::<Vec<_>>();
        assert_eq!(shown(&found.plain), ["WEB_REPLICAS"]);
        assert_eq!(shown(&found.quoted), ["'QUOTED_NAME'"]);
        assert_eq!(shown(&found.maps), ["WEB_TOLERATIONS: \"\""]);
        assert!(is_bare_variable("$ARGOCD_APP_NAME") && is_bare_variable("$HOME2"));
        assert!(!is_bare_variable("$a") && !is_bare_variable("$X") && !is_bare_variable("cost: $5") && !is_bare_variable("$Name"));
    }

    #[test]
    fn printed_and_served_objects_are_told_by_their_metadata() {
        let root = |text: &str| crdls_yaml::parse(text).documents[0].root.clone().unwrap();
        let printed = |metadata: &str| is_printed_object(&root(&format!("apiVersion: v1\nkind: Service\nmetadata: {metadata}\n")));
        assert!(printed("{creationTimestamp: null}"));
        assert!(printed("{name: a, uid: 6f1c, resourceVersion: '12'}"));
        assert!(
            !printed("{name: a, uid: 6f1c}") && !printed("{name: a, resourceVersion: '12'}") && !printed("{uid: '', resourceVersion: '1'}")
        );
        assert!(!printed("{creationTimestamp: '2024-01-01T00:00:00Z'}"));
        let crd =
            "apiVersion: apiextensions.k8s.io/v1\nkind: CustomResourceDefinition\nmetadata: {name: a.b, uid: x, resourceVersion: '1'}\n";
        assert!(!is_printed_object(&root(crd)));
    }

    #[test]
    fn constant_names_are_no_container_or_runtime_handler_names() {
        let codes_of = |text: &str| -> Vec<&'static str> {
            let stream = crdls_yaml::parse(text);
            let check = crate::check_stream_as(&stream, &crdls_crd::CrdIndex::new(), &crate::CheckOptions::default(), &FileMode::Objects);
            check.diagnostics().iter().filter(|d| d.severity == Severity::Error).map(|d| d.code).collect()
        };
        let runtime_class =
            |handler: &str| format!("apiVersion: node.k8s.io/v1\nkind: RuntimeClass\nmetadata:\n  name: r\nhandler: {handler}\n");
        assert_eq!(codes_of(&runtime_class("FILLED_BY_OPERATOR")), Vec::<&str>::new());
        assert_eq!(codes_of(&runtime_class("Kata_QEMU")), [codes::NATIVE_RUNTIME_CLASS]);
        let pod =
            |name: &str| format!("apiVersion: v1\nkind: Pod\nmetadata:\n  name: p\nspec:\n  containers:\n  - name: {name}\n    image: x\n");
        assert_eq!(codes_of(&pod("MAIN_CONTAINER")), Vec::<&str>::new());
        assert_eq!(codes_of(&pod("Main_Container")), [codes::NATIVE_CONTAINER]);
    }

    #[test]
    fn test_inputs_are_not_reported_what_they_leave_out() {
        let text = "apiVersion: apps/v1\nkind: Deployment\nmetadata: {name: d}\nspec:\n  selector: {matchLabels: {a: b}}\n  template:\n    spec:\n      restartPolicy: Never\n      containers:\n      - {image: x}\n      - {image: y}\n      - {name: c, image: null}\n";
        let root = crdls_yaml::parse(text).documents[0].root.clone().unwrap();
        let at = |code: &'static str, path: &str, cause: &str| {
            Diagnostic::new(TextRange::empty(0), Severity::Error, code, "m").with_path(path).with_cause(cause.to_string())
        };
        let absent = |d: Diagnostic| is_about_absence(&root, &d);
        // Left out: a required field, a null one, the labels a written selector is compared with, keys.
        assert!(absent(at(codes::SCHEMA_REQUIRED, "spec.replicas", "")));
        assert!(absent(at(codes::NATIVE_CONTAINER, "spec.template.spec.containers[2].image", "")));
        assert!(absent(at(codes::NATIVE_SELECTOR, "spec.template.metadata.labels", "")));
        assert!(absent(at(
            codes::SCHEMA_LIST_MAP_DUPLICATE,
            "spec.template.spec.containers[1]",
            "spec.template.spec.containers[1]: Duplicate value: {\"name\":\"\"}"
        )));
        assert!(absent(at(codes::SCHEMA_LIST_MAP_DUPLICATE, "spec.template.spec.containers[1]", "containers[1]: Duplicate value: {}")));
        // Written: a restart policy, a container whose key is written, a document-level error.
        assert!(!absent(at(codes::NATIVE_RESTART_POLICY, "spec.template.spec.restartPolicy", "")));
        assert!(!absent(at(
            codes::SCHEMA_LIST_MAP_DUPLICATE,
            "spec.template.spec.containers[2]",
            "x: Duplicate value: {\"name\":\"c\",\"port\":1}"
        )));
        assert!(!absent(Diagnostic::new(TextRange::empty(0), Severity::Error, codes::YAML_SYNTAX, "m")));
        // An unknown field is a written key, null or not.
        assert!(!absent(at(
            codes::SCHEMA_UNKNOWN_FIELD,
            "spec.template.spec.containers[2].image",
            "strict decoding error: unknown field \"spec.template.spec.containers[2].image\""
        )));
        assert_eq!(json_keys("\"name\":\"a,b\",\"port\":1}"), ["name", "port"]);
        // A CRD among test inputs is a whole CRD.
        let crd = crdls_yaml::parse("apiVersion: apiextensions.k8s.io/v1\nkind: CustomResourceDefinition\n").documents[0].root.clone();
        assert_eq!(FileMode::TestInputs.for_document(crd.as_ref()), &FileMode::Objects);
        assert_eq!(FileMode::TestInputs.for_document(Some(&root)), &FileMode::TestInputs);
    }

    #[test]
    fn fragments_are_partial_objects_but_their_crds_are_whole() {
        let crd = crdls_yaml::parse("apiVersion: apiextensions.k8s.io/v1\nkind: CustomResourceDefinition\n").documents[0].root.clone();
        assert_eq!(FileMode::Fragments.for_document(crd.as_ref()), &FileMode::Objects);
        let object = crdls_yaml::parse("apiVersion: a.dev/v1\nkind: A\nmetadata: {name: x}\nspec: {size: 1}\n").documents[0].root.clone();
        assert_eq!(FileMode::Fragments.for_document(object.as_ref()), &FileMode::Fragments);
        // Neither what is left out nor CEL rules (which need the whole object) are checked; what is written is.
        assert!(!FileMode::Fragments.whole_objects());
        assert!(!FileMode::Fragments.keeps(codes::SCHEMA_REQUIRED));
        assert!(FileMode::Fragments.keeps(codes::SCHEMA_ENUM));
        assert!(FileMode::Fragments.keeps(codes::SCHEMA_UNKNOWN_FIELD));
    }

    #[test]
    fn an_unserved_api_version_in_a_patch_is_a_warning() {
        let text = "apiVersion: admissionregistration.k8s.io/v1beta1\nkind: MutatingWebhookConfiguration\nmetadata:\n  name: hooks\n";
        let severities = |mode: &FileMode| -> Vec<Severity> {
            let stream = crdls_yaml::parse(text);
            let check = crate::check_stream_as(&stream, &crdls_crd::CrdIndex::new(), &crate::CheckOptions::default(), mode);
            check.diagnostics().iter().filter(|d| d.code == codes::RESOURCE_API_NOT_SERVED).map(|d| d.severity).collect()
        };
        assert_eq!(severities(&FileMode::Patches), [Severity::Warning]);
        assert_eq!(severities(&FileMode::Objects), [Severity::Error]);
    }

    /// A patch of a CRD is never created as it is: its `apiextensions.k8s.io/v1beta1` (kubebuilder's old
    /// CRD patches, kept commented out) is no CRD the API server refuses; a CRD document is.
    #[test]
    fn a_legacy_crd_version_is_an_error_of_created_crds_only() {
        let text = "apiVersion: apiextensions.k8s.io/v1beta1\nkind: CustomResourceDefinition\nmetadata:\n  name: gadgets.a.dev\nspec:\n  conversion:\n    strategy: Webhook\n";
        let stream = crdls_yaml::parse(text);
        let codes_in = |mode: &FileMode| -> Vec<&str> {
            let check = crate::check_stream_as(&stream, &crdls_crd::CrdIndex::new(), &crate::CheckOptions::default(), mode);
            check.diagnostics().iter().map(|d| d.code).collect()
        };
        assert!(!codes_in(&FileMode::Patches).contains(&codes::CRD_LEGACY_V1BETA1));
        assert!(codes_in(&FileMode::Objects).contains(&codes::CRD_LEGACY_V1BETA1));
    }

    #[test]
    fn references_name_an_object_with_an_empty_spec() {
        let root = |text: &str| crdls_yaml::parse(text).documents[0].root.clone().unwrap();
        assert!(is_reference(&root("apiVersion: a/v1\nkind: A\nmetadata:\n  name: x\n  namespace: y\nspec: {}\n")));
        // Anything more than a name, or a spec that is not written empty, makes an object to create.
        assert!(!is_reference(&root("apiVersion: a/v1\nkind: A\nmetadata:\n  name: x\n  labels: {a: b}\nspec: {}\n")));
        assert!(!is_reference(&root("apiVersion: a/v1\nkind: A\nmetadata:\n  name: x\nspec:\n")));
        assert!(!is_reference(&root("apiVersion: a/v1\nkind: A\nmetadata:\n  name: x\nspec: {}\ndata: {}\n")));
        assert!(!is_reference(&root("apiVersion: a/v1\nkind: A\nspec: {}\n")));
        assert!(!is_reference(&root("apiVersion: a/v1\nkind: A\nmetadata:\n  name: ''\nspec: {}\n")));
        assert_eq!(FileMode::Objects.for_document(Some(&root("kind: A\nmetadata: {name: x}\nspec: {}\n"))), &FileMode::Patches);
        assert_eq!(FileMode::Assertions.for_document(Some(&root("kind: A\nmetadata: {name: x}\nspec: {}\n"))), &FileMode::Assertions);
    }

    #[test]
    fn type_headers_and_field_references_describe_no_object() {
        let root = |text: &str| crdls_yaml::parse(text).documents[0].root.clone().unwrap();
        assert!(is_type_header(&root("apiVersion: datadoghq.com/v2alpha1\nkind: DatadogAgent\n")));
        assert!(!is_type_header(&root("apiVersion: v1\nkind: Namespace\nmetadata: {}\n")));
        assert!(!is_type_header(&root("apiVersion: v1\nkind:\n")));
        let field = |name: &str, value: &str| format!("  {name}: {value}   # {name} says what it is.\n");
        let mut reference = String::from("apiVersion: demo.crdls.dev/v1\nkind: Widget\nmetadata:\n  name: example\nspec:\n");
        for (name, value) in [("owner", "\"\""), ("tier", "\"\""), ("size", "0"), ("paused", "false"), ("tags", "{}"), ("contact", "\"\"")]
        {
            reference.push_str(&field(name, value));
        }
        reference.push_str("  template:\n");
        for (name, value) in [("kind", "\"\""), ("apiVersion", "\"\""), ("replicas", "0"), ("image", "\"\"")] {
            reference.push_str(&format!("  {}", field(name, value)));
        }
        assert!(is_field_reference(&root(&reference), &reference));
        // Without its comments, or with real values, it is an object like any other.
        let bare: String = reference.lines().map(|l| l.split('#').next().unwrap_or_default().trim_end().to_string() + "\n").collect();
        assert!(!is_field_reference(&root(&bare), &bare));
        let filled = reference.replace("\"\"", "\"team-a\"");
        assert!(!is_field_reference(&root(&filled), &filled));
        // A short object with a few empty values is no reference.
        let short = "kind: Widget\nspec:\n  owner: \"\"  # who\n  size: 0  # how many\n";
        assert!(!is_field_reference(&root(short), short));
    }

    #[test]
    fn ungrouped_crds_are_generator_output() {
        let root = |text: &str| crdls_yaml::parse(text).documents[0].root.clone().unwrap();
        assert!(is_ungrouped_crd(&root("kind: CustomResourceDefinition\nspec:\n  group: \"\"\n")));
        assert!(!is_ungrouped_crd(&root("kind: CustomResourceDefinition\nspec:\n  group:\n")));
        assert!(!is_ungrouped_crd(&root("kind: CustomResourceDefinition\nspec:\n  group: a.b\n")));
    }

    #[test]
    fn patch_directives_are_opaque() {
        let text = "spec:\n  $setElementOrder/containers:\n  - name: a\n  containers:\n  - name: b\n    $patch: delete\n";
        assert_eq!(opaque_texts(&FileMode::Patches, text), ["$setElementOrder/containers", "name: a", "$patch", "delete"]);
    }

    fn template() -> FileMode {
        FileMode::Template {
            actions: Vec::new(),
            undecided: Vec::new(),
            alternatives: Vec::new(),
            asks_capabilities: false,
            conditionals: Vec::new(),
        }
    }

    #[test]
    fn codes_kept_per_mode() {
        assert!(FileMode::Objects.keeps("schema/required"));
        assert!(!FileMode::Patches.keeps("schema/required"));
        assert!(FileMode::Patches.keeps("schema/enum"));
        assert!(!template().keeps("yaml/syntax"));
        assert!(!template().keeps("yaml/duplicate-key"));
        assert!(template().keeps("schema/unknown-field"));
        assert!(!FileMode::JsonPatches.keeps("schema/type"));
    }
}
