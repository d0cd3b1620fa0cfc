//! CRD validation as the Kubernetes API server does it when a CRD is created: the structural-schema
//! rules, forbidden keywords, defaults, list and map types, names, versions, printer columns, scale,
//! selectable fields and conversion (`validation/`), every `x-kubernetes-validations` rule
//! compiled and its cost estimated against the limits (`rules.rs`), and the differences between
//! served versions that conversion would lose (`served_versions.rs`); and, given the CRD's previous
//! version, the changes that break its clients and stored objects (`changes.rs`).

mod changes;
mod cost;
mod rules;
mod served_versions;
mod validation;

use crdls_crd::CrdApiVersion;
use crdls_diagnostics::codes;
use crdls_diagnostics::{Diagnostic, Severity};
use crdls_resource_check::CheckOptions;
use crdls_yaml::Node;

// The custom-resource checker's building blocks, under the names this crate's modules use: a CRD's
// defaults are validated as resources are, and its messages are the same `field.Error`s.
pub(crate) use crdls_go::{formats, names, pattern};
pub(crate) use crdls_resource_check::{cel, field_error, gofmt, metadata, suggest, validate};

pub use changes::compare_crds;
pub use cost::{factor_text, short_path, thousands, CostDriver, RuleCost, SchemaCost, PER_CRD_LIMIT, PER_EXPRESSION_LIMIT};
pub use rules::crd_costs;

/// Validates one CRD document (with no syntax error) as the API server of `options.kubernetes` would on
/// create: its new rules compile in the CEL environment of the compatibility version, one minor below.
pub fn check_crd(root: &Node, text: &str, options: &CheckOptions, out: &mut Vec<Diagnostic>) {
    let minor = options.kubernetes.unwrap_or(crdls_resource_check::NEWEST_KUBERNETES_MINOR);
    rules::check_crd(root, text, crdls_cel::Options::kubernetes(minor.saturating_sub(1)), out);
    served_versions::check_versions(root, out);
    validation::check_crd(root, options, out);
}

/// Reports a CRD written as `apiextensions.k8s.io/v1beta1`, which no API server serves since 1.22: an
/// error, as applying it fails (removed built-in versions are errors too).
pub fn check_legacy_version(root: &Node, version: CrdApiVersion, out: &mut Vec<Diagnostic>) {
    if version != CrdApiVersion::V1beta1 {
        return;
    }
    let at = root.get("apiVersion").map_or(root.range, |n| n.range);
    out.push(
        Diagnostic::new(
            at,
            Severity::Error,
            codes::CRD_LEGACY_V1BETA1,
            "apiextensions.k8s.io/v1beta1 is not served since Kubernetes 1.22: convert this CRD to apiextensions.k8s.io/v1",
        )
        .with_path("apiVersion")
        .with_cause("no matches for kind \"CustomResourceDefinition\" in version \"apiextensions.k8s.io/v1beta1\""),
    );
}
