//! Mutating admission before schema validation. The API server runs a create through the mutating
//! admission webhooks that match it, then validates the result against the CRD's schema; so a field a
//! defaulting webhook writes may be left out of the object as written. crdls cannot run the webhook,
//! but it reads the `MutatingWebhookConfiguration`s of the workspace ([`crdls_crd::admission`]).
//!
//! What such a webhook writes is known for one case only: a Go webhook (controller-runtime's
//! `Defaulter`, knative's defaulting webhook) answers with the patch between the object it received and
//! the Go value it decoded and defaulted, so every field the Go type has without `omitempty` comes back,
//! at its zero value where nothing else set it. controller-gen makes exactly those fields required, and
//! for a boolean or a number the zero value (`false`, `0`) is a value the schema takes. A missing
//! required field of type boolean, integer or number, without a `default` of its own, in an object a
//! mutating webhook of the workspace matches, is therefore reported as a warning that names the
//! webhook, not as an error. Anything else stays an error: a missing string, list or object could come
//! back empty or null, which validation may refuse; `metadata.name` is the user's; built-in kinds are
//! validated by Go code that a webhook's patch rarely completes, and keep their errors.

use crdls_crd::admission::{CreatedResource, MutatingWebhook, WebhookMatch};
use crdls_crd::{split_api_version, CrdIndex, Resolution, Schema, SourceId, SourceKind};
use crdls_diagnostics::{codes, Diagnostic, Severity};
use crdls_yaml::{Node, Segment};

/// The mutating webhooks of the workspace that may change a create of the custom resource at `root`,
/// each with the source that installs it, and how they match; `None` for built-in kinds, objects no CRD
/// serves, and objects no webhook matches.
pub fn mutating_webhooks_of<'i>(root: &Node, index: &'i CrdIndex) -> Option<(Vec<(&'i SourceId, &'i MutatingWebhook)>, WebhookMatch)> {
    let (api_version, kind) = (root.get_str("apiVersion")?, root.get_str("kind")?);
    let Resolution::Found { crd, version } = index.resolve(api_version, kind) else { return None };
    let resource = CreatedResource {
        group: split_api_version(api_version).0,
        version: &version.name,
        resource: &crd.crd.names.plural,
        namespaced: crd.crd.scope != "Cluster",
    };
    index.mutating_webhooks_for(&resource, crd.kind == SourceKind::Workspace)
}

/// The webhooks of a match named for a message: the first two with their configuration and file, and
/// how many more.
pub fn name_webhooks(webhooks: &[(&SourceId, &MutatingWebhook)]) -> String {
    let named: Vec<String> = webhooks
        .iter()
        .take(2)
        .map(|(source, hook)| match hook.configuration.as_str() {
            "" => format!("{} (in {source})", hook.name),
            configuration => format!("{} (MutatingWebhookConfiguration {configuration} in {source})", hook.name),
        })
        .collect();
    match webhooks.len() {
        0 | 1 => named.join(""),
        2 => named.join(" or "),
        n => format!("{}, or {} more", named.join(", "), n - 2),
    }
}

/// Turns the missing-required-field errors of the custom resource at `root` that a mutating webhook of
/// the workspace may fill (see the module's documentation) into warnings that say so.
pub(crate) fn soften_filled_by_webhooks(root: &Node, index: &CrdIndex, diagnostics: &mut [Diagnostic]) {
    let required = |d: &Diagnostic| d.code == codes::SCHEMA_REQUIRED && d.severity == Severity::Error && d.path.is_some();
    if !diagnostics.iter().any(required) {
        return;
    }
    let Some((webhooks, how)) = mutating_webhooks_of(root, index) else { return };
    let (Some(api_version), Some(kind)) = (root.get_str("apiVersion"), root.get_str("kind")) else { return };
    let Resolution::Found { version, .. } = index.resolve(api_version, kind) else { return };
    let Some(schema) = version.schema() else { return };
    let (one, named) = (webhooks.len() == 1, name_webhooks(&webhooks));
    let matched = match (how, one) {
        (WebhookMatch::Rule, _) => "whose rules match this resource's create",
        (WebhookMatch::RuntimeRules, true) => {
            "which has no rules in its file (its process registers them for this project's own types when it starts)"
        }
        (WebhookMatch::RuntimeRules, false) => {
            "which have no rules in their files (their processes register them for this project's own types when they start)"
        }
    };
    for d in diagnostics.iter_mut().filter(|d| required(d)) {
        let Some(path) = d.path.as_deref() else { continue };
        let Some(missing) = missing_field_schema(root, schema, path) else { continue };
        let Some(zero) = zero_value(&missing) else { continue };
        d.severity = Severity::Warning;
        d.message = format!(
            "{}; the project's mutating {} {named}, {matched}, {} before the API server validates the object and may set it: a Go defaulting webhook writes `{zero}` for a field its type has without omitempty",
            d.message,
            if one { "webhook" } else { "webhooks" },
            if one { "runs" } else { "run" },
        );
    }
}

/// The zero value a Go type writes for a field of `schema`, when that value is one the schema takes
/// whatever else it says of it: `false` for a boolean, `0` for a number with no bound that excludes it.
/// `None` for anything else, and for a field with a `default` or an `enum` of its own.
fn zero_value(schema: &Schema) -> Option<&'static str> {
    if schema.default.is_some() || schema.enumeration.is_some() {
        return None;
    }
    match schema.ty.as_deref()? {
        "boolean" => Some("false"),
        "integer" | "number" => {
            let rare = schema.rare();
            let excludes_zero = rare.minimum.is_some_and(|m| m > 0.0 || m == 0.0 && rare.exclusive_minimum)
                || rare.maximum.is_some_and(|m| m < 0.0 || m == 0.0 && rare.exclusive_maximum);
            (!excludes_zero).then_some("0")
        }
        _ => None,
    }
}

/// The schema of the field that `path` (a missing required field's path) names, following the
/// object's own keys down to its parent and the schema beside them.
fn missing_field_schema(root: &Node, schema: &Schema, path: &str) -> Option<std::sync::Arc<Schema>> {
    let followed = crdls_yaml::follow(root, path);
    let mut at: &Schema = schema;
    for segment in &followed.segments {
        at = match segment {
            Segment::Key(key) => match at.property(key) {
                Some(p) => &p.schema,
                None => match &at.additional_properties {
                    Some(crdls_crd::AdditionalProperties::Schema(extra)) => extra,
                    _ => return None,
                },
            },
            Segment::Index(_) => at.items.as_deref()?,
        };
    }
    let name = followed.rest.strip_prefix('.').unwrap_or(followed.rest);
    at.property(name).map(|p| p.schema.clone())
}
