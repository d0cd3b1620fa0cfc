//! `crd/metadata`: the CRD object's own metadata. Its name must be `<spec.names.plural>.<spec.group>`
//! (so `generateName` cannot work), and a CRD in a group the Kubernetes project owns (`k8s.io`,
//! `kubernetes.io` and their subdomains) needs the `api-approved.kubernetes.io` annotation: the URL
//! of the approving pull request, or a reason starting with `unapproved`.
//!
//! Example: `metadata.name: widget.example.com` with plural `widgets`. Fix: `widgets.example.com`.
//! The generic ObjectMeta rules (DNS-subdomain name, labels, annotations, finalizers) come with their
//! usual `metadata/*` codes.

use crdls_yaml::{FieldPath, Node};

use crdls_diagnostics::TextRange;

use super::{fe, get, key_at, start_of, text, value_at, CrdDoc, Sink};
use crate::field_error::ErrorType;
use crate::gofmt;
use crate::metadata::{validate_metadata, NameRules};
use crdls_diagnostics::codes;

const CODE: &str = codes::CRD_METADATA;
const PLURAL_GROUP: &str = r#"must be spec.names.plural+"."+spec.group"#;
const APPROVAL: &str = "api-approved.kubernetes.io";

pub(super) fn check(crd: &CrdDoc<'_>, sink: &mut Sink<'_>) {
    let root = crd.root;
    let anchor = root.get("kind").map_or(start_of(root), |k| k.range);
    validate_metadata(root, &FieldPath::root(), NameRules::Object, sink.minor, anchor, sink.out);
    let (plural, group) = match crd.spec {
        Some(spec) => (get(spec, "names").map_or("", |n| text(n, "plural")), text(spec, "group")),
        None => ("", ""),
    };
    let required = format!("{plural}.{group}");
    // With the plural or the group missing (their own errors say so), `.` would read as a typo.
    let expected = if plural.is_empty() || group.is_empty() { String::new() } else { format!(": {required}") };
    let metadata = get(root, "metadata");
    if let Some(metadata) = metadata {
        if let Some(name) = metadata.get_str("name").filter(|n| !n.is_empty()) {
            if name != required {
                let err = fe(ErrorType::Invalid, "metadata.name", Some(gofmt::quote(name)), PLURAL_GROUP);
                sink.error(value_at(metadata, "name", anchor), CODE, err, format!("a CRD's name must be <plural>.<group>{expected}"));
            }
        } else if let Some(prefix) = metadata.get_str("generateName").filter(|n| !n.is_empty()) {
            if prefix != required {
                let err = fe(ErrorType::Invalid, "metadata.generateName", Some(gofmt::quote(prefix)), PLURAL_GROUP);
                sink.error(
                    value_at(metadata, "generateName", anchor),
                    CODE,
                    err,
                    format!("a CRD cannot use generateName: its name must be exactly <plural>.<group> ({required})"),
                );
            }
        }
    }
    approval(group, metadata, key_at(root, "metadata", anchor), sink);
}

/// The API approval annotation of protected groups.
fn approval(group: &str, metadata: Option<&Node>, anchor: TextRange, sink: &mut Sink<'_>) {
    let protected = group == "k8s.io" || group.ends_with(".k8s.io") || group == "kubernetes.io" || group.ends_with(".kubernetes.io");
    if !protected {
        return;
    }
    let annotations = metadata.and_then(|m| get(m, "annotations"));
    let value = annotations.and_then(|a| a.get_str(APPROVAL)).unwrap_or_default();
    let path = format!("metadata.annotations[{APPROVAL}]");
    if value.is_empty() {
        let detail = format!(
            "protected groups must have approval annotation {}, see https://github.com/kubernetes/enhancements/pull/1111",
            gofmt::quote(APPROVAL)
        );
        let at = annotations.map_or(anchor, |a| key_at(a, APPROVAL, anchor));
        sink.error(
            at,
            CODE,
            fe(ErrorType::Required, path, None, detail),
            format!("group {group} belongs to the Kubernetes project: the CRD needs the {APPROVAL} annotation (a pull-request URL, or a reason starting with \"unapproved\")"),
        );
    } else if !value.starts_with("unapproved") && !is_request_uri_with_host(value) {
        let detail = format!(
            "protected groups must have approval annotation {} with either a URL or a reason starting with \"unapproved\", see https://github.com/kubernetes/enhancements/pull/1111",
            gofmt::quote(APPROVAL)
        );
        let at = annotations.map_or(anchor, |a| value_at(a, APPROVAL, anchor));
        sink.error(
            at,
            CODE,
            fe(ErrorType::Invalid, path, Some(gofmt::quote(value)), detail),
            format!("{APPROVAL} must be a URL (the approving pull request) or start with \"unapproved\""),
        );
    }
}

/// What Go's `url.ParseRequestURI` accepts with a scheme and a host: `scheme://host...`, no spaces
/// or control characters.
fn is_request_uri_with_host(s: &str) -> bool {
    let Some((scheme, rest)) = s.split_once("://") else { return false };
    let scheme_ok = scheme.chars().next().is_some_and(|c| c.is_ascii_alphabetic())
        && scheme.chars().all(|c| c.is_ascii_alphanumeric() || matches!(c, '+' | '-' | '.'));
    let host = rest.split(['/', '?', '#']).next().unwrap_or_default();
    let host = host.rsplit('@').next().unwrap_or_default();
    scheme_ok && !host.is_empty() && !s.chars().any(|c| c.is_control() || c == ' ')
}
