//! `crd/versions`: the list of versions. Every version name is a DNS-1035 label (`v1`, `v1beta1`)
//! and appears once; exactly one version is the storage version; every version has a schema
//! (apiextensions.k8s.io/v1 requires one, served or not); `deprecationWarning` is only for deprecated
//! versions and is at most 256 bytes of printable text. `spec.preserveUnknownFields: true` (the
//! v1beta1 behaviour) is rejected.
//!
//! Example: two versions with `storage: true`. Fix: keep the flag on the version objects are
//! stored in, and set `storage: false` on the other.

use crdls_yaml::{Node, Value};

use super::{fe, flag, get, go_json, key_at, schema, value_at, CrdDoc, Sink};
use crate::field_error::ErrorType;
use crate::{gofmt, names};
use crdls_diagnostics::codes;

const CODE: &str = codes::CRD_VERSIONS;

pub(super) fn check(crd: &CrdDoc<'_>, sink: &mut Sink<'_>) {
    let Some(spec) = crd.spec else {
        // A CRD without a spec has no storage version either, and the API server says so.
        storage(crd, None, sink);
        return;
    };
    schema_presence(crd, sink);
    defaults_need_pruning(crd, spec, sink);
    for (i, v) in crd.versions.iter().enumerate() {
        version_name(i, v, sink);
        deprecation_warning(i, v, sink);
    }
    unique_names(crd, sink);
    storage(crd, Some(spec), sink);
    if flag(spec, "preserveUnknownFields") {
        let detail = "cannot set to true, set x-kubernetes-preserve-unknown-fields to true in spec.versions[*].schema instead";
        sink.error(
            value_at(spec, "preserveUnknownFields", crd.spec_anchor()),
            CODE,
            fe(ErrorType::Invalid, "spec.preserveUnknownFields", Some("true".into()), detail),
            "apiextensions.k8s.io/v1 always prunes unknown fields: set x-kubernetes-preserve-unknown-fields: true in the schema where unknown fields must be kept",
        );
    }
}

/// Every version needs `schema.openAPIV3Schema` (a shared schema counts for all).
fn schema_presence(crd: &CrdDoc<'_>, sink: &mut Sink<'_>) {
    let has = |v: &Node| get(v, "schema").and_then(|s| get(s, "openAPIV3Schema")).is_some();
    if crd.layout.schema && crd.versions.first().is_some_and(|v| has(v)) {
        return;
    }
    for (i, v) in crd.versions.iter().enumerate() {
        // After the conversion moved an identical (schema-less) value up, no version holds one.
        if !crd.layout.schema && has(v) {
            continue;
        }
        let at = get(v, "schema").map_or(CrdDoc::version_anchor(v), |s| key_at(v, "schema", s.range));
        let name = v.get_str("name").unwrap_or_default();
        sink.error(
            at,
            CODE,
            fe(ErrorType::Required, format!("spec.versions[{i}].schema.openAPIV3Schema"), None, ""),
            format!("version {name} has no schema: apiextensions.k8s.io/v1 requires schema.openAPIV3Schema in every version"),
        );
    }
}

/// Defaults need pruning, which `preserveUnknownFields: true` turns off.
fn defaults_need_pruning(crd: &CrdDoc<'_>, spec: &Node, sink: &mut Sink<'_>) {
    if !flag(spec, "preserveUnknownFields") {
        return;
    }
    let any_default =
        crd.versions.iter().any(|v| get(v, "schema").and_then(|s| get(s, "openAPIV3Schema")).is_some_and(schema::has_default));
    if any_default {
        let detail = "must be false in order to use defaults in the schema";
        sink.error(
            value_at(spec, "preserveUnknownFields", crd.spec_anchor()),
            CODE,
            fe(ErrorType::Invalid, "spec.preserveUnknownFields", Some("true".into()), detail),
            "defaults need pruning, so spec.preserveUnknownFields must be false",
        );
    }
}

fn version_name(i: usize, v: &Node, sink: &mut Sink<'_>) {
    let name = v.get_str("name").unwrap_or_default();
    let errs = names::dns1035_label(name);
    if errs.is_empty() {
        return;
    }
    let detail = errs.join(",");
    sink.error(
        CrdDoc::version_anchor(v),
        CODE,
        fe(ErrorType::Invalid, format!("spec.versions[{i}].name"), Some(gofmt::quote(name)), detail.clone()),
        format!("a version name must be a DNS-1035 label such as v1 or v2beta1: {detail}"),
    );
    if i == 0 && !name.is_empty() {
        // The internal version mirrors the first version's name in `spec.version`, which is
        // validated too.
        sink.error(
            CrdDoc::version_anchor(v),
            CODE,
            fe(ErrorType::Invalid, "spec.version", Some(gofmt::quote(name)), detail.clone()),
            format!("the first version's name is also the CRD's spec.version, which must be a DNS-1035 label: {detail}"),
        );
    }
}

fn deprecation_warning(i: usize, v: &Node, sink: &mut Sink<'_>) {
    let Some(node) = get(v, "deprecationWarning") else { return };
    let Some(warning) = node.as_str() else { return };
    let path = format!("spec.versions[{i}].deprecationWarning");
    let value = gofmt::json(node);
    let mut problems = Vec::new();
    if !flag(v, "deprecated") {
        problems.push("can only be set for deprecated versions".to_string());
    } else {
        if warning.len() > 256 {
            problems.push("must be <= 256 characters long".into());
        }
        if warning.is_empty() {
            problems.push("must not be an empty string".into());
        }
        if let Some((at, _)) = warning.char_indices().find(|(_, c)| !crdls_go::print::is_print(*c)) {
            problems.push(format!("must only contain printable UTF-8 characters; non-printable character found at index {at}"));
        }
    }
    for detail in problems {
        let message = if detail.starts_with("can only") {
            "deprecationWarning is only for versions with deprecated: true".to_string()
        } else {
            format!("deprecationWarning {detail}")
        };
        sink.error(node.range, CODE, fe(ErrorType::Invalid, &path, Some(value.clone()), detail), message);
    }
}

fn unique_names(crd: &CrdDoc<'_>, sink: &mut Sink<'_>) {
    let mut seen: Vec<&str> = Vec::new();
    let mut duplicate = None;
    for v in &crd.versions {
        let name = v.get_str("name").unwrap_or_default();
        if seen.contains(&name) {
            duplicate.get_or_insert((name, CrdDoc::version_anchor(v)));
        } else {
            seen.push(name);
        }
    }
    if let Some((name, at)) = duplicate {
        sink.error(
            at,
            CODE,
            fe(ErrorType::Invalid, "spec.versions", Some(go_json::versions(crd)), "must contain unique version names"),
            format!("version {name} is declared twice"),
        );
    }
}

fn storage(crd: &CrdDoc<'_>, spec: Option<&Node>, sink: &mut Sink<'_>) {
    let storage: Vec<&Node> = crd.versions.iter().filter(|v| flag(v, "storage")).copied().collect();
    if storage.len() == 1 {
        return;
    }
    let err =
        fe(ErrorType::Invalid, "spec.versions", Some(go_json::versions(crd)), "must have exactly one version marked as storage version");
    if storage.is_empty() {
        let at = spec.map_or(crd.spec_anchor(), |spec| key_at(spec, "versions", crd.spec_anchor()));
        let message = if crd.versions.is_empty() {
            "a CRD needs at least one version, with storage: true".to_string()
        } else {
            "no version has storage: true: exactly one version must be the storage version".to_string()
        };
        sink.error(at, CODE, err, message);
        // On create the API server records the storage version as the first stored version
        // (`PrepareForCreate`); with none, the CRD's status has none either.
        let stored = fe(ErrorType::Invalid, "status.storedVersions", Some("null".into()), "must have at least one stored version");
        sink.error(at, CODE, stored, "with no storage version, no stored version is recorded on create");
        return;
    }
    let first = storage[0].get_str("name").unwrap_or_default();
    for v in &storage[1..] {
        let at = match v.get("storage") {
            Some(n) if n.value == Value::Bool(true) => n.range,
            _ => CrdDoc::version_anchor(v),
        };
        let name = v.get_str("name").unwrap_or_default();
        sink.error(
            at,
            CODE,
            err.clone(),
            format!("{name} is a second storage version ({first} is one already): exactly one version must have storage: true"),
        );
    }
    // On create only the first storage version is recorded as stored (`PrepareForCreate`), and every
    // other version marked as storage is then missing from `status.storedVersions`.
    let mut recorded = Some(first);
    let mut quoted = String::new();
    gofmt::json_string_into(first, &mut quoted);
    for v in &crd.versions {
        let name = v.get_str("name").unwrap_or_default();
        if recorded == Some(name) {
            recorded = None;
        } else if flag(v, "storage") {
            let at = key_at(v, "storage", CrdDoc::version_anchor(v));
            sink.error(
                at,
                CODE,
                fe(ErrorType::Invalid, "status.storedVersions", Some(format!("[{quoted}]")), format!("must have the storage version {name}")),
                format!("on create only {first} is recorded as a stored version, so the storage version {name} is missing from status.storedVersions"),
            );
        }
    }
}
