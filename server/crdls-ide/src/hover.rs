//! Hover: for a key or value of a custom resource, Markdown with the field's path, type, constraints,
//! default, description, CEL rules and the CRD that defines it; for `apiVersion` and `kind` values, a
//! summary of the CRD.

use crdls_builtins::docs::{DocStep, FieldDocs, NoDocs};
use crdls_builtins::KubeVersion;
use crdls_crd::{CrdIndex, IndexedCrd, Resolution, Schema, SourceKind};
use crdls_yaml::{locate, Segment, Stream};

use crate::render::yaml_inline;
use crate::schema_walk::{path_text, type_label, walk, Step, Via};
use crate::types::HoverResult;

/// The hover at byte `offset`: on a key or scalar value of a custom resource whose CRD is indexed, or of
/// a built-in object, described by Kubernetes release `kube`'s schema.
pub fn hover(text: &str, stream: &Stream, index: &CrdIndex, offset: usize, kube: KubeVersion) -> Option<HoverResult> {
    hover_with_docs(text, stream, index, offset, kube, &NoDocs)
}

/// What the hover of an object's `apiVersion` or `kind` says of the mutating webhook of the workspace
/// that may change it before the API server validates it (see `crdls_check`'s admission rule); empty
/// when none matches.
fn admission(root: &crdls_yaml::Node, index: &CrdIndex) -> String {
    let Some((webhooks, how)) = crdls_check::mutating_webhooks_of(root, index) else { return String::new() };
    let one = webhooks.len() == 1;
    let matched = match (how, one) {
        (crdls_crd::admission::WebhookMatch::Rule, true) => "its rules match this resource's create",
        (crdls_crd::admission::WebhookMatch::Rule, false) => "their rules match this resource's create",
        (crdls_crd::admission::WebhookMatch::RuntimeRules, true) => {
            "it has no rules in its file: its process registers them for the project's own types when it starts"
        }
        (crdls_crd::admission::WebhookMatch::RuntimeRules, false) => {
            "they have no rules in their files: their processes register them for the project's own types when they start"
        }
    };
    format!(
        "\n\nThe mutating {} {} {} before the API server validates this object ({matched}): a missing required boolean or \
         number, which a Go defaulting webhook writes as `false` or `0`, is a warning, not an error.",
        if one { "webhook" } else { "webhooks" },
        crdls_check::name_webhooks(&webhooks),
        if one { "runs" } else { "run" },
    )
}

/// [`hover`], with a built-in object's field followed by its description as `docs` gives it (the
/// release's API documentation, which crdls does not ship and reads only where the user allowed).
pub fn hover_with_docs(
    text: &str,
    stream: &Stream,
    index: &CrdIndex,
    offset: usize,
    kube: KubeVersion,
    docs: &dyn FieldDocs,
) -> Option<HoverResult> {
    let cost = crate::cost_assist::hover(text, stream, offset);
    if let Some(in_rule) = crate::cel_assist::hover(text, stream, offset) {
        // The type under the cursor, then what the rule costs.
        return match (in_rule, cost) {
            (Some(mut typed), Some((_, explained))) => {
                typed.markdown = format!("{}\n\n---\n\n{explained}", typed.markdown);
                Some(typed)
            }
            (None, Some((range, explained))) => Some(HoverResult { range, markdown: explained }),
            (typed, None) => typed,
        };
    }
    if let Some((range, markdown)) = cost {
        return Some(HoverResult { range, markdown });
    }
    let location = locate(stream, offset)?;
    if !location.on_key() && !location.on_scalar() {
        return None;
    }
    let root = location.document.root.as_ref()?;
    let (api_version, kind) = (root.get_str("apiVersion")?, root.get_str("kind")?);
    let range = location.range();
    let resolution = index.resolve(api_version, kind);
    if let ([Segment::Key("apiVersion" | "kind")], false) = (location.path.as_slice(), location.on_key()) {
        let (crd, version) = match resolution {
            Resolution::Found { crd, version } => (crd, Some(version.name.as_str())),
            Resolution::UnknownVersion { crd } => (crd, None),
            _ => return None,
        };
        let markdown = format!("{}{}{}", crd_summary(crd, version), choice(index, api_version, kind), admission(root, index));
        return Some(HoverResult { range, markdown });
    }
    if crate::builtin_crd::is_crd_document(Some(api_version), Some(kind)) {
        let origin = "Part of `CustomResourceDefinition` (`apiextensions.k8s.io/v1`).".to_string();
        let described =
            walk(Some(crate::builtin_crd::crd_schema()), &location.path).map(|steps| field_markdown(&location.path, &steps, origin));
        let versions = if location.on_key() { other_versions(text, root, &location.path) } else { None };
        let markdown = match (described, versions) {
            (Some(d), Some(v)) => format!("{d}\n\n{v}"),
            (Some(d), None) => d,
            (None, Some(v)) => v,
            (None, None) => return None,
        };
        return Some(HoverResult { range, markdown });
    }
    if matches!(resolution, Resolution::UnknownGroup) {
        let steps = walk(Some(crate::builtin_kinds::schema(kube, api_version, kind)?), &location.path)?;
        let mut markdown = field_markdown(&location.path, &steps, crate::builtin_kinds::origin(kube, api_version, kind));
        let (group, version) = crdls_crd::split_api_version(api_version);
        if let Some(doc) = docs.describe(kube, group, version, kind, &doc_steps(&location.path, &steps)) {
            markdown.push_str(&format!("\n\n---\n\n{}\n\n*{}.*", doc.text, doc.source));
        }
        return Some(HoverResult { range, markdown });
    }
    let Resolution::Found { crd, version } = resolution else { return None };
    let steps = walk(version.schema().map(|s| &**s), &location.path)?;
    let place = match &crd.crd.patched_from {
        Some(_) => {
            format!("{}, as the kustomization {} patches it", source_name(index, &crd.written_in()), source_name(index, &crd.source))
        }
        None => source_name(index, &crd.source),
    };
    let mut origin = format!("Defined by CRD {}, version {}, in {place}.", code(&crd.crd.name), code(&version.name));
    origin.push_str(&choice(index, api_version, kind));
    Some(HoverResult { range, markdown: field_markdown(&location.path, &steps, origin) })
}

/// What a hover on the field `path` of a built-in object of `api_version` and `kind` shows, for the
/// command line (`crdls explain-field`): `path` names fields as `kubectl explain` does
/// (`spec.template.spec.containers.image`: list items are entered without an index; `containers[]`
/// is also accepted). An error says what is not known.
pub fn explain_builtin_field(api_version: &str, kind: &str, path: &str, kube: KubeVersion, docs: &dyn FieldDocs) -> Result<String, String> {
    let Some(schema) = crate::builtin_kinds::schema(kube, api_version, kind) else {
        let (group, _) = crdls_crd::split_api_version(api_version);
        let kinds = crate::builtin_kinds::kinds(group);
        let hint = match crdls_check::did_you_mean(kind, kinds.iter().copied()) {
            Some(s) => format!("; did you mean {s}?"),
            None => String::new(),
        };
        return Err(format!("Kubernetes {kube} serves no built-in kind {kind} in {api_version}{hint}"));
    };
    let names: Vec<&str> = path.split('.').map(|name| name.trim_end_matches("[]")).collect();
    if names.iter().any(|name| name.is_empty()) {
        return Err(format!("\"{path}\" is not a field path: name fields with dots, as in spec.template.spec"));
    }
    let mut segments = Vec::new();
    let mut step = Step::root(Some(schema));
    for (i, name) in names.iter().enumerate() {
        // A list is entered without an index, as `kubectl explain` does.
        while step.schema.items.is_some() && step.schema.property(name).is_none() {
            segments.push(Segment::Index(0));
            step = step.child(Segment::Index(0)).ok_or_else(|| format!("{} is not a list", names[..i].join(".")))?;
        }
        segments.push(Segment::Key(name));
        step = step.child(Segment::Key(name)).ok_or_else(|| {
            let at = if i == 0 { kind.to_string() } else { format!("{kind} {}", names[..i].join(".")) };
            format!("{at} has no field {name} in Kubernetes {kube}")
        })?;
    }
    let steps = walk(Some(schema), &segments).ok_or_else(|| format!("{kind} has no field {path}"))?;
    let mut markdown = field_markdown(&segments, &steps, crate::builtin_kinds::origin(kube, api_version, kind));
    let (group, version) = crdls_crd::split_api_version(api_version);
    if let Some(doc) = docs.describe(kube, group, version, kind, &doc_steps(&segments, &steps)) {
        markdown.push_str(&format!("\n\n---\n\n{}\n\n*{}.*", doc.text, doc.source));
    }
    Ok(markdown)
}

/// The way down to the field a walk ends at, as the API documents nest: each step after the root.
fn doc_steps(path: &[Segment<'_>], steps: &[Step<'_>]) -> Vec<DocStep> {
    path.iter()
        .zip(steps.iter().skip(1))
        .map(|(segment, step)| match (step.via, segment) {
            (Via::Item, _) => DocStep::Item,
            (Via::MapKey, _) => DocStep::Value,
            (_, Segment::Key(key)) => DocStep::Property(key.to_string()),
            (_, Segment::Index(_)) => DocStep::Item,
        })
        .collect()
}

/// When several sources define the CRD of `kind`, why the one in use was chosen for this file: the
/// others, each with why it was passed over (see `CrdIndex::resolve`); empty when there is one.
fn choice(index: &CrdIndex, api_version: &str, kind: &str) -> String {
    let definitions = index.definitions(api_version, kind);
    if definitions.len() < 2 {
        return String::new();
    }
    let version = crdls_crd::split_api_version(api_version).1;
    let why = crdls_crd::why_not_used(&definitions, &code(version), |c| source_name(index, &c.source));
    format!(" Chosen for this file among {} definitions: {why}.", definitions.len())
}

/// Where a CRD comes from, for a hover: a file as a link; a download or a cluster's listing by its
/// name with a link to the cached copy; a chart archive's member by the archive and the member.
fn source_name(index: &CrdIndex, source: &str) -> String {
    let origin = index.origin_of(source);
    if let Some(label) = &origin.label {
        let what = if origin.kind == SourceKind::Cluster { label.to_string() } else { code(label) };
        return format!("{what} (cached as {})", source_link(source));
    }
    if origin.kind == SourceKind::ChartArchive {
        if let Some((archive, member)) = source.split_once("!/") {
            let name = archive.rsplit('/').next().unwrap_or(archive);
            return format!("chart archive {}, {}", code(name), code(member));
        }
    }
    source_link(source)
}

/// A link named after the file when the source is a URI (the editor opens it), else the path as code.
fn source_link(source: &str) -> String {
    match source.strip_prefix("file://") {
        Some(path) if !source.contains(['(', ')', ' ']) => {
            let name = path.rsplit('/').find(|s| !s.is_empty()).unwrap_or(path);
            let mut label = String::with_capacity(name.len());
            for c in name.chars() {
                if matches!(c, '[' | ']' | '`' | '*' | '_' | '\\') {
                    label.push('\\');
                }
                label.push(c);
            }
            format!("[{label}]({source})")
        }
        _ => code(source),
    }
}

/// For a property of one version's schema, the same property in the CRD's other versions: its line and
/// type there, or that the version lacks it.
fn other_versions(text: &str, root: &crdls_yaml::Node, path: &[Segment<'_>]) -> Option<String> {
    let [Segment::Key("spec"), Segment::Key("versions"), Segment::Index(this), Segment::Key("schema"), Segment::Key("openAPIV3Schema"), rest @ ..] =
        path
    else {
        return None;
    };
    // The property names: every `properties` key along the way (through `items`).
    let mut names = Vec::new();
    let mut i = 0;
    while i < rest.len() {
        match rest[i] {
            Segment::Key("properties") => {
                let Some(Segment::Key(name)) = rest.get(i + 1) else { return None };
                names.push(*name);
                i += 2;
            }
            Segment::Key("items") => i += 1,
            _ => return None,
        }
    }
    if names.is_empty() {
        return None;
    }
    let versions = root.get("spec")?.get("versions")?.as_seq()?;
    if versions.len() < 2 {
        return None;
    }
    let index = crdls_yaml::LineIndex::new(text);
    let mut lines = vec![format!("`{}` in the other versions:", names.join("."))];
    for (_, version) in versions.iter().enumerate().filter(|(j, _)| j != this) {
        let name = version.get_str("name").unwrap_or("?");
        let mut node = version.get("schema").and_then(|s| s.get("openAPIV3Schema"));
        let mut key_range = None;
        for property in &names {
            while let Some(n) = node.filter(|n| n.get("properties").is_none() && n.get("items").is_some()) {
                node = n.get("items");
            }
            let entry = node.and_then(|n| n.get("properties")).and_then(|p| p.entry(property));
            key_range = entry.map(|e| e.key_range);
            node = entry.map(|e| &e.value);
        }
        match (node, key_range) {
            (Some(n), Some(r)) => {
                let line = index.line_col(text, r.start, crdls_yaml::ColumnUnit::Utf8).line + 1;
                let ty = n.get_str("type").unwrap_or(if n.get("x-kubernetes-int-or-string").is_some() { "int-or-string" } else { "any" });
                lines.push(format!("- `{name}`: line {line}, {ty}"));
            }
            _ => lines.push(format!("- `{name}`: not declared")),
        }
    }
    Some(lines.join("\n"))
}

/// The Markdown for the field at the end of `steps`; `origin` says where it is defined.
fn field_markdown(path: &[Segment<'_>], steps: &[Step<'_>], origin: String) -> String {
    let Some(step) = steps.last() else { return String::new() };
    let schema = step.schema;
    let mut sections = vec![format!("{}: **{}**", code(&path_text(path, steps)), type_label(schema))];

    let mut flags = Vec::new();
    if step.required {
        flags.push("Required.".to_string());
    }
    if let Some(default) = &schema.default {
        flags.push(format!("Default: {}.", code(&yaml_inline(default))));
    }
    if schema.nullable {
        flags.push("Nullable.".to_string());
    }
    if schema.int_or_string {
        flags.push("An integer or a string.".to_string());
    }
    if !flags.is_empty() {
        sections.push(flags.join(" "));
    }

    let constraints = constraints(schema);
    if !constraints.is_empty() {
        sections.push(constraints.iter().map(|c| format!("- {c}")).collect::<Vec<_>>().join("\n"));
    }
    if let Some(description) = schema.description.as_deref().map(str::trim).filter(|d| !d.is_empty()) {
        sections.push(description.to_string());
    }
    if !schema.validations.is_empty() {
        let mut rules = "Validation rules:".to_string();
        for rule in &schema.validations {
            rules.push_str(&format!("\n- {}", code(&rule.rule)));
            match (&rule.message, &rule.message_expression) {
                (Some(message), _) => rules.push_str(&format!(": {message}")),
                (None, Some(expression)) => rules.push_str(&format!(": message from {}", code(expression))),
                (None, None) => {}
            }
        }
        sections.push(rules);
    }
    sections.push(if step.builtin { "Defined by Kubernetes for every object.".to_string() } else { origin });
    sections.join("\n\n")
}

/// The constraints of a schema node, one line each.
fn constraints(s: &Schema) -> Vec<String> {
    let mut out = Vec::new();
    let number = |n: f64| if n.fract() == 0.0 && n.abs() < 1e15 { format!("{}", n as i64) } else { n.to_string() };
    if let Some(min) = s.rare().minimum {
        out.push(format!("minimum: {}{}", code(&number(min)), if s.rare().exclusive_minimum { " (exclusive)" } else { "" }));
    }
    if let Some(max) = s.rare().maximum {
        out.push(format!("maximum: {}{}", code(&number(max)), if s.rare().exclusive_maximum { " (exclusive)" } else { "" }));
    }
    if let Some(m) = s.rare().multiple_of {
        out.push(format!("multiple of: {}", code(&number(m))));
    }
    let counts = [
        ("min length", s.rare().min_length),
        ("max length", s.rare().max_length),
        ("min items", s.rare().min_items),
        ("max items", s.rare().max_items),
        ("min properties", s.rare().min_properties),
        ("max properties", s.rare().max_properties),
    ];
    for (name, value) in counts {
        if let Some(v) = value {
            out.push(format!("{name}: {}", code(&v.to_string())));
        }
    }
    if let Some(pattern) = &s.rare().pattern {
        out.push(format!("pattern: {}", code(pattern)));
    }
    if let Some(members) = &s.enumeration {
        let first: Vec<String> = members.iter().take(crdls_diagnostics::MAX_LISTED).map(|m| code(&yaml_inline(m))).collect();
        out.push(format!("one of: {}", crdls_diagnostics::listed_of(&first, members.len())));
    }
    if let Some(list_type) = &s.list_type {
        let mut line = format!("list type: {}", code(list_type));
        if !s.rare().list_map_keys.is_empty() {
            line.push_str(&format!(", keys {}", s.rare().list_map_keys.iter().map(|k| code(k)).collect::<Vec<_>>().join(", ")));
        }
        out.push(line);
    }
    if let Some(map_type) = &s.rare().map_type {
        out.push(format!("map type: {}", code(map_type)));
    }
    if s.embedded_resource {
        out.push("an embedded object: `apiVersion`, `kind` and `metadata` apply".to_string());
    }
    if s.preserves_unknown_fields() {
        out.push("unknown fields are kept".to_string());
    }
    out
}

/// A summary of a CRD: names, scope, versions (the one in use in bold) and where it is defined.
pub(crate) fn crd_summary(crd: &IndexedCrd, in_use: Option<&str>) -> String {
    let c = &crd.crd;
    let mut lines = vec![format!("- group: {}", code(&c.group)), format!("- scope: {}", c.scope)];
    if !c.names.plural.is_empty() {
        lines.push(format!("- plural: {}", code(&c.names.plural)));
    }
    let versions: Vec<String> = c
        .versions
        .iter()
        .map(|v| {
            let mut flags = vec![if v.served { "served" } else { "not served" }];
            if v.storage {
                flags.push("storage");
            }
            if v.deprecated {
                flags.push("deprecated");
            }
            let name = if Some(v.name.as_str()) == in_use { format!("**{}**", code(&v.name)) } else { code(&v.name) };
            format!("{name} ({})", flags.join(", "))
        })
        .collect();
    lines.push(format!("- versions: {}", versions.join(", ")));
    if !c.names.short_names.is_empty() {
        lines.push(format!("- short names: {}", c.names.short_names.iter().map(|s| code(s)).collect::<Vec<_>>().join(", ")));
    }
    if !c.names.categories.is_empty() {
        lines.push(format!("- categories: {}", c.names.categories.iter().map(|s| code(s)).collect::<Vec<_>>().join(", ")));
    }
    format!("**{}** (CRD {})\n\n{}\n\nDefined in {}.", c.names.kind, code(&c.name), lines.join("\n"), code(&crd.source))
}

/// Inline code in Markdown, fenced with more backticks than the text holds.
fn code(text: &str) -> String {
    let mut longest = 0;
    let mut run = 0;
    for c in text.chars() {
        run = if c == '`' { run + 1 } else { 0 };
        longest = longest.max(run);
    }
    if longest == 0 {
        return format!("`{text}`");
    }
    let fence = "`".repeat(longest + 1);
    format!("{fence} {text} {fence}")
}

#[cfg(test)]
mod tests;

#[cfg(test)]
mod version_tests;
