//! The API server's own (Go) validation of built-in kinds, beyond what their OpenAPI schemas say:
//! the rules a schema cannot express and that users hit most. Pods and pod templates (`pods.rs`):
//! containers, their names, images, ports, environment variable names and volume mounts; resource
//! quantities and requests against limits (`resources.rs`); Services' ports (`services.rs`);
//! workloads' selectors against their template's labels (`selectors.rs`); a PodDisruptionBudget's budget
//! (`disruption.rs`); a RuntimeClass's handler. Messages, paths and printed values follow the
//! API server's (`field.Error`), including how a release prints values: JSON since 1.34, Go's `%#v`
//! before.
//!
//! Only whole objects are checked: a patch or an assertion may leave out what these rules look at.

use crdls_crd::Schema;
use crdls_diagnostics::{Diagnostic, Severity, TextRange};
use crdls_yaml::{Entry, Node, Style, Value};

use crate::field_error::{ErrorType, FieldError};

mod disruption;
mod pods;
mod resources;
mod selectors;
mod services;

/// The release a check targets and the kind checked.
#[derive(Clone, Copy)]
pub struct Target<'a> {
    /// The Kubernetes minor version (35 for 1.35).
    pub minor: u16,
    /// The object's API group (`""` for the core group).
    pub group: &'a str,
    /// The object's kind.
    pub kind: &'a str,
    /// The API version within the group (`v1`).
    pub version: &'a str,
}

impl Target<'_> {
    /// Whether the release prints structured values as JSON (1.34 on) rather than with Go's `%#v`.
    fn prints_json(&self) -> bool {
        self.minor >= 34
    }
}

/// Runs the native rules of `target`'s kind on the (pruned) object, whose schema is `schema`.
pub fn validate(object: &Node, schema: &Schema, target: Target<'_>, anchor: TextRange, out: &mut Vec<Diagnostic>) {
    let mut errors = Vec::new();
    resources::validate_quantities(object, schema, target, &mut errors);
    let spec = object.get("spec");
    let spec_key = key_of(Some(object), "spec", anchor);
    match (target.group, target.kind) {
        ("", "Pod") => {
            if let Some(entry) = object.entry("spec") {
                pods::validate_pod_spec(&entry.value, entry.key_range, "spec", &[], target, &mut errors);
            }
        }
        ("", "PodTemplate") => {
            template(object.get("template"), key_of(Some(object), "template", anchor), "template", &[], target, &mut errors, out)
        }
        // A ReplicationController's template is a pointer: without one, the API server reports the
        // template itself missing, which is left to the schema.
        ("", "ReplicationController") => {
            if let Some(found) = spec.and_then(|s| s.get("template")) {
                template(Some(found), found.range, "spec.template", &[], target, &mut errors, out);
            }
        }
        ("", "Service") => {
            if let Some(spec) = spec {
                services::validate_service_spec(spec, target, &mut errors);
            }
        }
        ("apps", "Deployment" | "ReplicaSet" | "StatefulSet" | "DaemonSet") => {
            if let Some(spec) = spec {
                selectors::validate_workload_selector(spec, target, &mut errors);
            }
            // StatefulSet pod templates are validated from 1.34 on, with a volume for each claim template.
            let claims: Vec<&str> = spec
                .and_then(|s| s.get("volumeClaimTemplates"))
                .and_then(Node::as_seq)
                .unwrap_or_default()
                .iter()
                .filter_map(|c| c.get("metadata").and_then(|m| m.get_str("name")))
                .collect();
            if target.kind != "StatefulSet" || target.minor >= 34 {
                let at = key_of(spec, "template", spec_key);
                template(spec.and_then(|s| s.get("template")), at, "spec.template", &claims, target, &mut errors, out);
            }
        }
        ("batch", "Job") => {
            let at = key_of(spec, "template", spec_key);
            template(spec.and_then(|s| s.get("template")), at, "spec.template", &[], target, &mut errors, out);
        }
        ("batch", "CronJob") => {
            let job_template = spec.and_then(|s| s.get("jobTemplate"));
            let job = job_template.and_then(|j| j.get("spec"));
            let at = key_of(job, "template", key_of(job_template, "spec", key_of(spec, "jobTemplate", spec_key)));
            template(job.and_then(|s| s.get("template")), at, "spec.jobTemplate.spec.template", &[], target, &mut errors, out);
        }
        ("node.k8s.io", "RuntimeClass") => runtime_class_handler(object, &mut errors),
        ("policy", "PodDisruptionBudget") => {
            if let Some(spec) = spec {
                disruption::validate_disruption_budget_spec(spec, target, &mut errors);
            }
        }
        _ => {}
    }
    report(errors, out);
}

/// The diagnostics of the rules broken.
fn report(errors: Vec<Found>, out: &mut Vec<Diagnostic>) {
    for found in errors {
        out.push(match found.cause {
            Cause::Field(error) => error.diagnostic(found.range, Severity::Error, found.code, found.message),
            Cause::Decode { path, text } => {
                let diagnostic = Diagnostic::new(found.range, Severity::Error, found.code, found.message).with_cause(text);
                if path.is_empty() {
                    diagnostic
                } else {
                    diagnostic.with_path(path)
                }
            }
        });
    }
}

/// The native rules on the name of `object` (with its `metadata`), beyond the name rules of its kind:
/// a Namespace's name becomes a label value, a CronJob's name leaves room for its Jobs' suffix (checked
/// on create only, so that older CronJobs can still be updated).
pub fn validate_name(object: &Node, target: Target<'_>, create: bool, out: &mut Vec<Diagnostic>) {
    let mut errors = Vec::new();
    match (target.group, target.kind) {
        ("", "Namespace") => namespace_label(object, &mut errors),
        ("batch", "CronJob") if create => cron_job_name(object, &mut errors),
        _ => {}
    }
    report(errors, out);
}

/// Whether the native rules report what the API server says when the required field at `path` is
/// missing, so that the schema's `Required value` for it would be a second, wrongly worded error: a pod
/// template is a struct in Go, not a pointer, and without one the API server validates an empty
/// template and reports its missing containers (see [`template`]).
pub fn reports_missing(target: Target<'_>, path: &str) -> bool {
    match (target.group, target.kind, path) {
        ("apps", "Deployment" | "ReplicaSet" | "DaemonSet", "spec.template") | ("batch", "Job", "spec.template") => true,
        ("apps", "StatefulSet", "spec.template") => target.minor >= 34,
        ("batch", "CronJob", "spec.jobTemplate") => true,
        _ => false,
    }
}

/// A pod template's spec; `claims` are volumes its controller adds. A pod template is a struct in Go,
/// not a pointer: a workload without one (or a template without a spec) is validated with an empty pod
/// spec, whose missing containers (and, for a Job, restart policy) the API server reports. `parent` is
/// where such a missing template is pointed at.
#[allow(clippy::too_many_arguments)]
fn template(
    template: Option<&Node>,
    parent: TextRange,
    path: &str,
    claims: &[&str],
    target: Target<'_>,
    errors: &mut Vec<Found>,
    out: &mut Vec<Diagnostic>,
) {
    // The template's own metadata is an object's: its labels and annotations are checked at the
    // template's path (`spec.template.labels`).
    if let Some(metadata) = template.and_then(|t| t.get("metadata")) {
        crate::metadata::validate_template_metadata(metadata, path, out);
    }
    match template.and_then(|t| t.entry("spec")) {
        Some(entry) => pods::validate_pod_spec(&entry.value, entry.key_range, &format!("{path}.spec"), claims, target, errors),
        None => {
            let at = template.map_or(parent, |t| TextRange::empty(t.range.start));
            let empty = Node { range: at, value: Value::Seq(Vec::new()), style: Style::Flow };
            let spec = Node {
                range: at,
                value: Value::Map(vec![Entry { key: "containers".to_string(), key_range: at, value: empty }]),
                style: Style::Flow,
            };
            pods::validate_pod_spec(&spec, at, &format!("{path}.spec"), claims, target, errors);
        }
    }
}

/// A RuntimeClass's `handler` names the runtime configuration of the nodes' CRI and must be a DNS
/// label (`NameIsDNSLabel`). A missing one is left to the schema, which requires it.
fn runtime_class_handler(object: &Node, errors: &mut Vec<Found>) {
    let Some(node) = object.get("handler") else { return };
    let Some(handler) = node.as_str() else { return };
    for detail in crdls_go::names::dns1123_label(handler) {
        let message = format!("handler {handler:?} is not a DNS label: {detail}");
        errors.push(Found::field(
            error(ErrorType::Invalid, "handler", Some(crate::gofmt::quote(handler)), detail),
            node.range,
            crdls_diagnostics::codes::NATIVE_RUNTIME_CLASS,
            message,
        ));
    }
}

/// A Namespace is given the label `kubernetes.io/metadata.name` holding its name before validation, so
/// a name that is no label value is also reported on the labels.
fn namespace_label(object: &Node, errors: &mut Vec<Found>) {
    let Some(node) = object.get("metadata").and_then(|m| m.get("name")) else { return };
    let Some(name) = node.as_str().filter(|n| !n.is_empty()) else { return };
    for detail in crdls_go::names::label_value(name) {
        let message = format!("the label kubernetes.io/metadata.name that the API server gives a Namespace would hold {name:?}: {detail}");
        errors.push(Found::field(
            error(ErrorType::Invalid, "metadata.labels", Some(crate::gofmt::quote(name)), detail),
            node.range,
            crdls_diagnostics::codes::METADATA_NAME,
            message,
        ));
    }
}

/// A CronJob's name leaves room for the 11 characters its Jobs' names add: at most 52 characters, on
/// create.
fn cron_job_name(object: &Node, errors: &mut Vec<Found>) {
    let Some(node) = object.get("metadata").and_then(|m| m.get("name")) else { return };
    let Some(name) = node.as_str() else { return };
    if name.len() > 52 {
        errors.push(Found::field(
            error(ErrorType::Invalid, "metadata.name", Some(crate::gofmt::quote(name)), "must be no more than 52 characters"),
            node.range,
            crdls_diagnostics::codes::METADATA_NAME,
            format!("a CronJob's name must be no more than 52 characters (this one has {}): its Jobs add a suffix", name.len()),
        ));
    }
}

/// Where a field missing from `node` is pointed at: the key `key` of its parent, or `fallback`.
fn key_of(node: Option<&Node>, key: &str, fallback: TextRange) -> TextRange {
    node.and_then(|n| n.entry(key)).map_or(fallback, |e| e.key_range)
}

/// One rule broken: the API server's answer, where it is, its code and crdls's message.
struct Found {
    cause: Cause,
    range: TextRange,
    code: &'static str,
    message: String,
}

impl Found {
    /// A field error.
    fn field(error: FieldError, range: TextRange, code: &'static str, message: impl Into<String>) -> Found {
        Found { cause: Cause::Field(error), range, code, message: message.into() }
    }
}

/// What the API server answers.
enum Cause {
    /// A field error of a 422 Invalid answer.
    Field(FieldError),
    /// A 400 decoding error, which stops the request before validation: its whole text, and the path
    /// of the field it is about (the API server names none).
    Decode { path: String, text: String },
}

/// A field error at `path`.
fn error(ty: ErrorType, path: impl Into<String>, value: Option<String>, detail: impl Into<String>) -> FieldError {
    FieldError { ty, path: path.into(), value, detail: detail.into() }
}

/// The `supported values` detail of a NotSupported error, from its values in the API server's order.
fn supported(values: &[&str]) -> String {
    let quoted: Vec<String> = values.iter().map(|v| crate::gofmt::quote(v)).collect();
    format!("supported values: {}", quoted.join(", "))
}

/// `IsValidPortNum`: the number `node` holds at `path` (a field named `field`) must be in 1-65535.
/// Anything but an integer is left to the schema's type check.
fn port_number(node: &Node, path: &str, field: &str, out: &mut Vec<Found>) {
    let crdls_yaml::Value::Int(number) = node.value else { return };
    if (1..=65535).contains(&number) {
        return;
    }
    out.push(Found::field(
        error(ErrorType::Invalid, path, Some(number.to_string()), "must be between 1 and 65535, inclusive"),
        node.range,
        crdls_diagnostics::codes::NATIVE_PORT,
        format!("{field} {number} is not a port number: it must be between 1 and 65535"),
    ));
}

/// `IsValidPortName`: an IANA service name, at most 15 lower-case alphanumerics and hyphens, with a
/// letter, no hyphen at either end or twice in a row.
fn port_name_errors(name: &str) -> Vec<&'static str> {
    let mut errs = Vec::new();
    if name.len() > 15 {
        errs.push("must be no more than 15 characters");
    }
    if !name.bytes().all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || b == b'-') {
        errs.push("must contain only alpha-numeric characters (a-z, 0-9), and hyphens (-)");
    }
    if !name.bytes().any(|b| b.is_ascii_lowercase()) {
        errs.push("must contain at least one letter (a-z)");
    }
    if name.contains("--") {
        errs.push("must not contain consecutive hyphens");
    }
    if name.starts_with('-') || name.ends_with('-') {
        errs.push("must not begin or end with a hyphen");
    }
    errs
}

#[cfg(test)]
mod tests;
