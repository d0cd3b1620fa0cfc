//! `crd/names`: the identity of the resource. `spec.group` must be a DNS subdomain with at least one
//! dot; `spec.scope` must be `Namespaced` or `Cluster`; `spec.names.plural`, `singular`, every short
//! name and category must be DNS-1035 labels (lower case, starting with a letter); `kind` and
//! `listKind` too once lower-cased, and they may not be equal. A missing `singular` defaults to the
//! lower-cased kind and a missing `listKind` to `<kind>List`, so a bad kind can fail those too.
//!
//! Example: `plural: Widgets`. Fix: `plural: widgets`.
//! Conflicts with other CRDs of the group are not rejected: the API server reports them later in
//! the CRD's `NamesAccepted` condition.

use crdls_yaml::Node;

use crdls_diagnostics::TextRange;

use super::{fe, get, items, key_at, text, value_at, CrdDoc, Sink};
use crate::field_error::ErrorType;
use crate::{gofmt, names};
use crdls_diagnostics::codes;

const CODE: &str = codes::CRD_NAMES;

pub(super) fn check(crd: &CrdDoc<'_>, sink: &mut Sink<'_>) {
    let Some(spec) = crd.spec else {
        let at = crd.spec_anchor();
        for field in ["spec.group", "spec.scope", "spec.names.plural", "spec.names.singular", "spec.names.kind", "spec.names.listKind"] {
            sink.error(at, CODE, fe(ErrorType::Required, field, None, ""), format!("{field} is required"));
        }
        return;
    };
    let spec_anchor = crd.spec_anchor();
    group(spec, spec_anchor, sink);
    scope(spec, spec_anchor, sink);
    names(spec, spec_anchor, sink);
}

fn group(spec: &Node, anchor: TextRange, sink: &mut Sink<'_>) {
    let group = text(spec, "group");
    let at = value_at(spec, "group", anchor);
    if group.is_empty() {
        sink.error(at, CODE, fe(ErrorType::Required, "spec.group", None, ""), "spec.group is required");
        return;
    }
    let errs = names::dns1123_subdomain(group);
    if !errs.is_empty() {
        let detail = errs.join(",");
        sink.error(at, CODE, fe(ErrorType::Invalid, "spec.group", Some(gofmt::quote(group)), detail.clone()), detail);
    } else if !group.contains('.') {
        let detail = "should be a domain with at least one dot";
        sink.error(
            at,
            CODE,
            fe(ErrorType::Invalid, "spec.group", Some(gofmt::quote(group)), detail),
            "the group must be a domain with at least one dot (such as example.com): dot-less groups belong to Kubernetes",
        );
    }
}

fn scope(spec: &Node, anchor: TextRange, sink: &mut Sink<'_>) {
    let scope = text(spec, "scope");
    let at = value_at(spec, "scope", anchor);
    if scope.is_empty() {
        sink.error(at, CODE, fe(ErrorType::Required, "spec.scope", None, ""), "spec.scope is required: Namespaced or Cluster");
    } else if scope != "Cluster" && scope != "Namespaced" {
        let detail = "supported values: \"Cluster\", \"Namespaced\"";
        sink.error(
            at,
            CODE,
            fe(ErrorType::NotSupported, "spec.scope", Some(gofmt::quote(scope)), detail),
            "scope must be Namespaced or Cluster",
        );
    }
}

fn names(spec: &Node, spec_anchor: TextRange, sink: &mut Sink<'_>) {
    let names_node = get(spec, "names");
    let anchor = key_at(spec, "names", spec_anchor);
    let field = |key: &str| names_node.map_or("", |n| text(n, key));
    let at = |key: &str| names_node.map_or(anchor, |n| value_at(n, key, anchor));
    let (plural, kind) = (field("plural"), field("kind"));
    // v1 defaulting fills in singular and listKind from the kind.
    let singular = if field("singular").is_empty() { kind.to_lowercase() } else { field("singular").to_string() };
    let list_kind = match field("listKind") {
        "" if !kind.is_empty() => format!("{kind}List"),
        l => l.to_string(),
    };
    let from_kind = |key: &str| if field(key).is_empty() { at("kind") } else { at(key) };
    for (key, value) in [("plural", plural), ("singular", singular.as_str()), ("kind", kind), ("listKind", list_kind.as_str())] {
        if value.is_empty() {
            let path = format!("spec.names.{key}");
            sink.error(at(key), CODE, fe(ErrorType::Required, &path, None, ""), format!("{path} is required"));
        }
    }
    let label = |sink: &mut Sink<'_>, key: &str, value: &str, range: TextRange, defaulted: bool| {
        let errs = names::dns1035_label(value);
        if value.is_empty() || errs.is_empty() {
            return;
        }
        let detail = errs.join(",");
        let path = format!("spec.names.{key}");
        let message = if defaulted {
            format!("{key} defaults to {value:?}, derived from the kind, which is not valid: {detail}")
        } else {
            format!("{key} must be a lower-case DNS-1035 label: {detail}")
        };
        sink.error(range, CODE, fe(ErrorType::Invalid, path, Some(gofmt::quote(value)), detail), message);
    };
    label(sink, "plural", plural, at("plural"), false);
    label(sink, "singular", &singular, from_kind("singular"), field("singular").is_empty());
    for (key, value) in [("kind", kind), ("listKind", list_kind.as_str())] {
        let errs = names::dns1035_label(&value.to_lowercase());
        if value.is_empty() || errs.is_empty() {
            continue;
        }
        let detail = format!("may have mixed case, but should otherwise match: {}", errs.join(","));
        let path = format!("spec.names.{key}");
        let message = if key == "listKind" && field("listKind").is_empty() {
            format!("listKind defaults to {value:?}, derived from the kind, which is not valid: {detail}")
        } else {
            format!("{key} {detail}")
        };
        sink.error(from_kind(key), CODE, fe(ErrorType::Invalid, path, Some(gofmt::quote(value)), detail), message);
    }
    if let Some(n) = names_node {
        for (i, short) in items(n, "shortNames").iter().enumerate() {
            if let Some(s) = short.as_str() {
                label(sink, &format!("shortNames[{i}]"), s, short.range, false);
            }
        }
    }
    if !kind.is_empty() && kind == list_kind {
        let detail = "kind and listKind may not be the same";
        sink.error(at("listKind"), CODE, fe(ErrorType::Invalid, "spec.names.listKind", Some(gofmt::quote(&list_kind)), detail), detail);
    }
    if let Some(n) = names_node {
        for (i, category) in items(n, "categories").iter().enumerate() {
            if let Some(s) = category.as_str() {
                label(sink, &format!("categories[{i}]"), s, category.range, false);
            }
        }
    }
}
