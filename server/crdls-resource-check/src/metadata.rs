//! ObjectMeta rules the API server applies to every custom resource (and to embedded resources):
//! the name is a DNS subdomain, label keys and values are well formed, annotations stay under the size limit.

use crdls_yaml::{FieldPath, Node, Value};

use crdls_diagnostics::{Diagnostic, Severity, TextRange};

use crate::field_error::{ErrorType, FieldError};
use crate::{gofmt, names};
use crdls_diagnostics::codes;

/// Which rules an object's name follows.
#[derive(Clone, Copy, PartialEq, Eq)]
pub enum NameRules {
    /// A custom resource: the name is a DNS subdomain and is required.
    Object,
    /// An embedded resource: the name is a path segment and may be empty.
    Embedded,
    /// A built-in object whose name is a path segment (RBAC): required, with no `/` or `%`.
    PathSegment,
    /// A built-in object whose name is a DNS-1123 label (Namespaces, StatefulSets, Services from
    /// 1.36): required.
    Label,
    /// A built-in object whose name is a DNS-1035 label, starting with a letter (Services before
    /// 1.36): required.
    Dns1035Label,
}

/// Whether `d` is an error about an object's name as written: the name itself, or what the API server
/// derives from it (a Namespace's `kubernetes.io/metadata.name` label). A tool that renames the object
/// (kustomize's namespace, a patch's target) makes the name another one, and such errors go with it.
pub fn is_name_error(d: &Diagnostic) -> bool {
    d.code == codes::METADATA_NAME && matches!(d.path.as_deref(), Some("metadata.name" | "metadata.labels"))
}

/// Checks the `metadata` of `object` (the root, or an embedded resource at `object_path`). `anchor`
/// locates a missing name when there is no `metadata` key to point at.
/// `minor` is the Kubernetes minor version asked (owner references are worded anew in 1.37).
pub fn validate_metadata(
    object: &Node,
    object_path: &FieldPath<'_>,
    rules: NameRules,
    minor: u32,
    anchor: TextRange,
    out: &mut Vec<Diagnostic>,
) {
    let path = &object_path.field("metadata");
    let metadata = object.get("metadata");
    if let Some(m) = metadata.filter(|m| !matches!(m.value, Value::Map(_) | Value::Null)) {
        // Not an object at all: the API server cannot decode it into ObjectMeta, and refuses the
        // request with Go's decoding error alone (`GetObjectMetaWithOptions`).
        let d = Diagnostic::new(m.range, Severity::Error, codes::METADATA_TYPE, format!("expected object, found {}", m.value.type_name()))
            .with_path(path.to_string())
            .with_cause(format!("json: cannot unmarshal {} into Go value of type v1.ObjectMeta", m.value.json_type()));
        out.push(d);
        return;
    }
    let name = metadata.and_then(|m| m.get("name"));
    let generate_name = metadata.and_then(|m| m.get("generateName"));
    let meta_anchor = object.entry("metadata").map_or(anchor, |e| e.key_range);
    // No name, or an empty one (which the registry fills from `generateName`, else refuses).
    let without_generate_name = generate_name.and_then(Node::as_str).is_none_or(str::is_empty);
    let required = |at: TextRange, out: &mut Vec<Diagnostic>| {
        let err = FieldError {
            ty: ErrorType::Required,
            path: path.field("name").to_string(),
            value: None,
            detail: "name or generateName is required".into(),
        };
        out.push(err.diagnostic(
            at,
            Severity::Error,
            codes::METADATA_NAME_REQUIRED,
            "metadata.name is required (or metadata.generateName)",
        ));
    };
    match name.map(|n| &n.value) {
        None | Some(Value::Null) => {
            if rules != NameRules::Embedded && without_generate_name {
                required(key_or(metadata, "name", meta_anchor), out);
            }
        }
        Some(Value::Str(s)) if s.is_empty() && rules != NameRules::Embedded => {
            if without_generate_name {
                required(name.map_or(meta_anchor, |n| n.range), out);
            }
        }
        Some(Value::Str(s)) => {
            let details = match rules {
                NameRules::Object => names::dns1123_subdomain(s),
                NameRules::Embedded | NameRules::PathSegment => names::path_segment_name(s),
                NameRules::Label => names::dns1123_label(s),
                NameRules::Dns1035Label => names::dns1035_label(s),
            };
            for detail in details {
                let err = FieldError {
                    ty: ErrorType::Invalid,
                    path: path.field("name").to_string(),
                    value: Some(gofmt::quote(s)),
                    detail: detail.clone(),
                };
                out.push(err.diagnostic(
                    name.map_or(anchor, |n| n.range),
                    Severity::Error,
                    codes::METADATA_NAME,
                    format!("invalid name: {detail}"),
                ));
            }
        }
        Some(_) => type_error(name.expect("present"), &path.field("name"), "string", out),
    }
    if let Some(g) = generate_name {
        if let Some(s) = g.as_str() {
            if !s.is_empty() {
                let details = match rules {
                    NameRules::Object => names::generate_name(s),
                    NameRules::Embedded | NameRules::PathSegment => names::path_segment_prefix(s),
                    NameRules::Label => names::generate_name_for(s, names::dns1123_label),
                    NameRules::Dns1035Label => names::generate_name_for(s, names::dns1035_label),
                };
                for detail in details {
                    let err = FieldError {
                        ty: ErrorType::Invalid,
                        path: path.field("generateName").to_string(),
                        value: Some(gofmt::quote(s)),
                        detail: detail.clone(),
                    };
                    out.push(err.diagnostic(g.range, Severity::Error, codes::METADATA_NAME, format!("invalid generateName: {detail}")));
                }
            }
        } else if g.value != Value::Null {
            type_error(g, &path.field("generateName"), "string", out);
        }
    }
    let Some(metadata) = metadata else { return };
    if let Some(ns) = metadata.get("namespace") {
        match &ns.value {
            Value::Str(s) if !s.is_empty() => {
                for detail in names::dns1123_label(s) {
                    let err = FieldError {
                        ty: ErrorType::Invalid,
                        path: path.field("namespace").to_string(),
                        value: Some(gofmt::quote(s)),
                        detail: detail.clone(),
                    };
                    out.push(err.diagnostic(ns.range, Severity::Error, codes::METADATA_NAMESPACE, format!("invalid namespace: {detail}")));
                }
            }
            Value::Str(_) | Value::Null => {}
            _ => type_error(ns, &path.field("namespace"), "string", out),
        }
    }
    // The other string fields, the system's to set: a value of another type does not decode (a
    // timestamp, `metav1.Time`, reads a JSON string or null too, and Go names the string it wanted).
    for key in ["uid", "resourceVersion", "selfLink", "creationTimestamp", "deletionTimestamp"] {
        if let Some(value) = metadata.get(key).filter(|v| !matches!(v.value, Value::Str(_) | Value::Null)) {
            type_error(value, &path.field(key), "string", out);
        }
    }
    if let Some(labels) = metadata.get("labels") {
        labels_rules(labels, &path.field("labels"), out);
    }
    if let Some(annotations) = metadata.get("annotations") {
        annotation_rules(annotations, &path.field("annotations"), out);
    }
    if let Some(references) = metadata.get("ownerReferences") {
        match &references.value {
            Value::Seq(items) => {
                let object = |i: &Node| matches!(i.value, Value::Map(_) | Value::Null);
                for (i, item) in items.iter().enumerate() {
                    if object(item) {
                        owner_reference_types(item, out);
                    } else {
                        type_error(item, &path.field("ownerReferences").index(i), "object", out);
                    }
                }
                if rules != NameRules::Embedded && items.iter().all(object) {
                    owner_references(items, &path.field("ownerReferences"), minor, out);
                }
            }
            Value::Null => {}
            _ => type_error(references, &path.field("ownerReferences"), "array", out),
        }
    }
    if let Some(Value::Seq(entries)) = metadata.get("managedFields").map(|m| &m.value) {
        if rules != NameRules::Embedded {
            managed_fields(entries, &path.field("managedFields"), out);
        }
    }
    if let Some(finalizers) = metadata.get("finalizers") {
        match &finalizers.value {
            Value::Seq(items) => {
                for (i, item) in items.iter().enumerate() {
                    // A null item decodes as "", which then fails the qualified-name rule.
                    let finalizer = match &item.value {
                        Value::Str(s) => s.as_str(),
                        Value::Null => "",
                        _ => {
                            type_error(item, &path.field("finalizers").index(i), "string", out);
                            continue;
                        }
                    };
                    for detail in names::qualified_name(finalizer) {
                        let err = FieldError {
                            ty: ErrorType::Invalid,
                            path: path.field("finalizers").to_string(),
                            value: Some(gofmt::quote(finalizer)),
                            detail: detail.clone(),
                        };
                        out.push(err.diagnostic(
                            item.range,
                            Severity::Error,
                            codes::METADATA_FINALIZER,
                            format!("invalid finalizer: {detail}"),
                        ));
                    }
                }
            }
            Value::Null => {}
            _ => type_error(finalizers, &path.field("finalizers"), "array", out),
        }
    }
}

/// apimachinery's managed-fields rules (`ValidateManagedFields`): an operation, `Apply` or `Update`; a
/// `fieldsType`, when set, of `FieldsV1`; a manager of at most 128 bytes, every character printable;
/// a subresource of at most 256 bytes. Values of other types are the decoder's to report.
fn managed_fields(entries: &[Node], path: &FieldPath<'_>, out: &mut Vec<Diagnostic>) {
    for (i, entry) in entries.iter().enumerate() {
        if !matches!(entry.value, Value::Map(_)) {
            continue;
        }
        let at = path.index(i);
        let text = |key: &str| entry.get(key).and_then(Node::as_str).unwrap_or_default();
        let range = |key: &str| entry.get(key).map_or(entry.range, |n| n.range);
        let mut error = |key: &str, ty: ErrorType, value: Option<String>, detail: String, message: String| {
            let err = FieldError { ty, path: at.field(key).to_string(), value, detail };
            out.push(err.diagnostic(range(key), Severity::Error, codes::METADATA_MANAGED_FIELDS, message));
        };
        match text("operation") {
            "" => error(
                "operation",
                ErrorType::Required,
                None,
                "must not be empty".into(),
                "a managedFields entry needs an operation (Apply or Update)".into(),
            ),
            "Apply" | "Update" => {}
            other => error(
                "operation",
                ErrorType::NotSupported,
                Some(gofmt::quote(other)),
                "supported values: \"Apply\", \"Update\"".into(),
                format!("operation {other:?} is not Apply or Update"),
            ),
        }
        let fields_type = text("fieldsType");
        if !fields_type.is_empty() && fields_type != "FieldsV1" {
            error(
                "fieldsType",
                ErrorType::Invalid,
                Some(gofmt::quote(fields_type)),
                "must be `FieldsV1`".into(),
                "fieldsType must be FieldsV1".into(),
            );
        }
        let manager = text("manager");
        if manager.len() > 128 {
            error("manager", ErrorType::TooLong, None, "may not be more than 128 bytes".into(), "manager is longer than 128 bytes".into());
        }
        for (position, c) in manager.char_indices().filter(|(_, c)| !crdls_go::print::is_print(*c)) {
            let detail = format!("invalid character U+{:04X} (at position {position})", c as u32);
            error("manager", ErrorType::Invalid, Some(gofmt::quote(manager)), detail.clone(), format!("manager has an {detail}"));
        }
        if text("subresource").len() > 256 {
            error(
                "subresource",
                ErrorType::TooLong,
                None,
                "may not be more than 256 bytes".into(),
                "subresource is longer than 256 bytes".into(),
            );
        }
    }
}

/// The fields of an owner reference of the wrong type, which the handler cannot decode: `json: cannot
/// unmarshal number into Go struct field OwnerReference.ownerReferences.kind of type string`.
fn owner_reference_types(reference: &Node, out: &mut Vec<Diagnostic>) {
    let Value::Map(entries) = &reference.value else { return };
    for entry in entries {
        let expected = match entry.key.as_str() {
            "apiVersion" | "kind" | "name" | "uid" => "string",
            "controller" | "blockOwnerDeletion" => "bool",
            _ => continue,
        };
        let fits = match &entry.value.value {
            Value::Null => true,
            Value::Str(_) => expected == "string",
            Value::Bool(_) => expected == "bool",
            _ => false,
        };
        if !fits {
            let found = entry.value.value.type_name();
            let json_word = entry.value.value.json_type();
            let d =
                Diagnostic::new(entry.value.range, Severity::Error, codes::METADATA_TYPE, format!("expected {expected}, found {found}"))
                    .with_cause(format!(
                        "json: cannot unmarshal {json_word} into Go struct field OwnerReference.ownerReferences.{} of type {expected}",
                        entry.key
                    ));
            out.push(d);
        }
    }
}

/// apimachinery's owner-reference rules: a version in `apiVersion`, a kind, a name and a uid, and no
/// Event as an owner. Before 1.37 its paths have no index (`metadata.ownerReferences.uid`) and an
/// empty field is an invalid value; since 1.37 the paths have the reference's index, an empty field
/// is a required value, and an `apiVersion` that does not parse or has no version `must be
/// <group>/<version> or <version>`. Values of other types are the decoder's to report.
fn owner_references(references: &[Node], path: &FieldPath<'_>, minor: u32, out: &mut Vec<Diagnostic>) {
    let indexed = minor >= 37;
    for (i, reference) in references.iter().enumerate() {
        let text = |key: &str| match reference.get(key).map(|n| &n.value) {
            Some(Value::Str(s)) => Some(s.as_str()),
            None | Some(Value::Null) => Some(""),
            Some(_) => None,
        };
        let (Some(api_version), Some(kind), Some(name), Some(uid)) = (text("apiVersion"), text("kind"), text("name"), text("uid")) else {
            continue;
        };
        let here = if indexed { path.index(i) } else { *path };
        // schema.ParseGroupVersion: a version with two slashes does not parse (no group, no version).
        let (group, version) = match api_version.split('/').collect::<Vec<_>>().as_slice() {
            [version] => ("", *version),
            [group, version] => (*group, *version),
            _ => ("", ""),
        };
        let mut problems: Vec<(&str, Option<&str>, &str)> = Vec::new();
        if indexed && api_version.is_empty() {
            problems.push(("apiVersion", None, "must not be empty"));
        } else if version.is_empty() {
            let detail = if indexed { "must be <group>/<version> or <version>" } else { "version must not be empty" };
            problems.push(("apiVersion", Some(api_version), detail));
        }
        for (key, value) in [("kind", kind), ("name", name), ("uid", uid)] {
            if value.is_empty() {
                problems.push((key, (!indexed).then_some(value), "must not be empty"));
            }
        }
        for (key, value, detail) in problems {
            let at = reference.entry(key).map_or(reference.range, |e| e.value.range);
            let (ty, value) = match value {
                Some(value) => (ErrorType::Invalid, Some(gofmt::quote(value))),
                None => (ErrorType::Required, None),
            };
            let err = FieldError { ty, path: here.field(key).to_string(), value, detail: detail.to_string() };
            out.push(err.diagnostic(
                at,
                Severity::Error,
                codes::METADATA_OWNER_REFERENCE,
                format!("an owner reference needs {key}{}", if key == "apiVersion" { " with a version" } else { "" }),
            ));
        }
        if group.is_empty() && version == "v1" && kind == "Event" {
            let detail = "/v1, Kind=Event is disallowed from being an owner".to_string();
            // The API server prints the whole reference struct as the value; crdls gives the path and detail.
            out.push(
                Diagnostic::new(reference.range, Severity::Error, codes::METADATA_OWNER_REFERENCE, "an Event cannot own objects")
                    .with_path(here.to_string())
                    .with_cause(format!("{here}: Invalid value: {}", detail)),
            );
        }
    }
}

fn key_or(metadata: Option<&Node>, key: &str, fallback: TextRange) -> TextRange {
    metadata.and_then(|m| m.entry(key)).map_or(fallback, |e| e.key_range)
}

/// A metadata field of the wrong type: the API server cannot decode the object into ObjectMeta at all,
/// and answers with Go's JSON decoding error.
fn type_error(node: &Node, path: &FieldPath<'_>, expected: &str, out: &mut Vec<Diagnostic>) {
    let actual = node.value.type_name();
    let json_word = node.value.json_type();
    let (field, go_type) = go_field(path, expected);
    let d = Diagnostic::new(node.range, Severity::Error, codes::METADATA_TYPE, format!("expected {expected}, found {actual}"))
        .with_path(path.to_string())
        .with_cause(format!("json: cannot unmarshal {json_word} into Go struct field ObjectMeta.{field} of type {go_type}"));
    out.push(d);
}

/// The ObjectMeta field a metadata path falls in, and the Go type expected there.
fn go_field(path: &FieldPath<'_>, expected: &str) -> (String, &'static str) {
    let text = path.to_string();
    let field = text.rsplit_once("metadata.").map_or(text.as_str(), |(_, f)| f);
    let top = field.split(['.', '[']).next().unwrap_or(field).to_string();
    let go_type = match (top.as_str(), expected, field.contains(['.', '['])) {
        ("labels" | "annotations", _, true) => "string",
        ("labels" | "annotations", _, false) => "map[string]string",
        ("finalizers", _, false) => "[]string",
        ("ownerReferences", _, true) => "v1.OwnerReference",
        ("ownerReferences", _, false) => "[]v1.OwnerReference",
        ("uid", _, false) => "types.UID",
        _ => "string",
    };
    (top, go_type)
}

/// The labels and annotations of a pod template's metadata (at `template_path`, dotted), as the API server
/// checks a template's object metadata: errors at the template's path (`spec.template.labels`). A value
/// of another type than a map is the schema's to report.
pub(crate) fn validate_template_metadata(metadata: &Node, template_path: &str, out: &mut Vec<Diagnostic>) {
    fn at(parts: &[&str], path: &FieldPath<'_>, metadata: &Node, out: &mut Vec<Diagnostic>) {
        match parts.split_first() {
            Some((first, rest)) => at(rest, &path.field(first), metadata, out),
            None => {
                if let Some(labels) = metadata.get("labels").filter(|l| matches!(l.value, Value::Map(_))) {
                    labels_rules(labels, &path.field("labels"), out);
                }
                if let Some(annotations) = metadata.get("annotations").filter(|a| matches!(a.value, Value::Map(_))) {
                    annotation_rules(annotations, &path.field("annotations"), out);
                }
            }
        }
    }
    let parts: Vec<&str> = template_path.split('.').collect();
    at(&parts, &FieldPath::root(), metadata, out);
}

fn labels_rules(labels: &Node, path: &FieldPath<'_>, out: &mut Vec<Diagnostic>) {
    let Value::Map(entries) = &labels.value else {
        if labels.value != Value::Null {
            type_error(labels, path, "object", out);
        }
        return;
    };
    for e in entries {
        for detail in names::qualified_name(&e.key) {
            let err =
                FieldError { ty: ErrorType::Invalid, path: path.to_string(), value: Some(gofmt::quote(&e.key)), detail: detail.clone() };
            out.push(err.diagnostic(e.key_range, Severity::Error, codes::METADATA_LABEL_KEY, format!("invalid label key: {detail}")));
        }
        match &e.value.value {
            Value::Str(v) => {
                for detail in names::label_value(v) {
                    let err =
                        FieldError { ty: ErrorType::Invalid, path: path.to_string(), value: Some(gofmt::quote(v)), detail: detail.clone() };
                    out.push(err.diagnostic(
                        e.value.range,
                        Severity::Error,
                        codes::METADATA_LABEL_VALUE,
                        format!("invalid label value: {detail}"),
                    ));
                }
            }
            // Go's JSON decoding leaves a string untouched on `null`: the label's value is "", which is valid.
            Value::Null => {}
            _ => type_error(&e.value, &path.field(&e.key), "string", out),
        }
    }
}

fn annotation_rules(annotations: &Node, path: &FieldPath<'_>, out: &mut Vec<Diagnostic>) {
    let Value::Map(entries) = &annotations.value else {
        if annotations.value != Value::Null {
            type_error(annotations, path, "object", out);
        }
        return;
    };
    let mut total = 0usize;
    for e in entries {
        total += e.key.len();
        for detail in names::qualified_name(&e.key.to_lowercase()) {
            let err =
                FieldError { ty: ErrorType::Invalid, path: path.to_string(), value: Some(gofmt::quote(&e.key)), detail: detail.clone() };
            out.push(err.diagnostic(
                e.key_range,
                Severity::Error,
                codes::METADATA_ANNOTATION_KEY,
                format!("invalid annotation key: {detail}"),
            ));
        }
        match &e.value.value {
            Value::Str(v) => total += v.len(),
            // As for labels, a null value decodes as "".
            Value::Null => {}
            _ => type_error(&e.value, &path.field(&e.key), "string", out),
        }
    }
    if total > names::TOTAL_ANNOTATION_SIZE_LIMIT {
        let err = FieldError { ty: ErrorType::TooLong, path: path.to_string(), value: None, detail: names::annotations_too_long_detail() };
        out.push(err.diagnostic(
            annotations.range,
            Severity::Error,
            codes::METADATA_ANNOTATIONS_SIZE,
            format!("annotations total {total} bytes, over the limit of {} bytes", names::TOTAL_ANNOTATION_SIZE_LIMIT),
        ));
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The causes of the metadata checks of `object` (YAML) at the release `minor`.
    fn causes(object: &str, minor: u32) -> Vec<String> {
        let stream = crdls_yaml::parse(object);
        let root = stream.documents[0].root.as_ref().expect("an object");
        let mut out = Vec::new();
        validate_metadata(root, &FieldPath::root(), NameRules::Object, minor, root.range, &mut out);
        out.into_iter().filter_map(|d| d.cause).collect()
    }

    #[test]
    fn metadata_that_is_not_an_object_does_not_decode() {
        assert_eq!(causes("metadata: 5\n", 37), ["json: cannot unmarshal number into Go value of type v1.ObjectMeta"]);
        assert_eq!(causes("metadata: [a]\n", 37), ["json: cannot unmarshal array into Go value of type v1.ObjectMeta"]);
        assert_eq!(
            causes("metadata: {name: a, ownerReferences: [[1]]}\n", 37),
            ["json: cannot unmarshal array into Go struct field ObjectMeta.ownerReferences of type v1.OwnerReference"]
        );
        assert_eq!(
            causes("metadata: {name: a, ownerReferences: 5}\n", 37),
            ["json: cannot unmarshal number into Go struct field ObjectMeta.ownerReferences of type []v1.OwnerReference"]
        );
    }

    #[test]
    fn an_empty_name_is_no_name() {
        assert_eq!(causes("metadata: {name: \"\"}\n", 37), ["metadata.name: Required value: name or generateName is required"]);
        assert!(causes("metadata: {name: \"\", generateName: a-}\n", 37).is_empty());
    }

    #[test]
    fn owner_references_are_indexed_and_required_since_1_37() {
        let object = "metadata:\n  name: a\n  ownerReferences:\n  - {apiVersion: v1, kind: ConfigMap, name: c, uid: u}\n  - {apiVersion: 'a/b/c', kind: K, name: owner}\n";
        assert_eq!(
            causes(object, 36),
            [
                "metadata.ownerReferences.apiVersion: Invalid value: \"a/b/c\": version must not be empty",
                "metadata.ownerReferences.uid: Invalid value: \"\": must not be empty"
            ]
        );
        assert_eq!(
            causes(object, 37),
            [
                "metadata.ownerReferences[1].apiVersion: Invalid value: \"a/b/c\": must be <group>/<version> or <version>",
                "metadata.ownerReferences[1].uid: Required value: must not be empty"
            ]
        );
        let empty = "metadata:\n  name: a\n  ownerReferences:\n  - {kind: K, name: owner, uid: u}\n";
        assert_eq!(causes(empty, 37), ["metadata.ownerReferences[0].apiVersion: Required value: must not be empty"]);
    }
}
