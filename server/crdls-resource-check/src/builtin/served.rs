//! Which built-in group/version/kinds a Kubernetes release serves, from the schemas crdls ships
//! (`crdls-builtins`), and what to tell a user whose `apiVersion` the release does not serve.

use std::sync::Arc;

use crdls_builtins::{KubeVersion, Lookup, Scope};
use crdls_crd::{compare_versions, Schema};

/// What the target release says about a built-in object's `apiVersion` and `kind`.
pub enum Resolved {
    /// Served as a resource, with this schema. `removed_in` is the first later release crdls knows
    /// that no longer serves it.
    Schema { schema: Arc<Schema>, removed_in: Option<KubeVersion> },
    /// A kind the release knows that `kubectl` cannot create from a file (a subresource's body, a list
    /// or options kind), or a kind no shipped release knows in this group: only its kind and metadata
    /// are checked.
    KindOnly,
    /// The release does not serve it: the API server answers `no matches for kind`. The text says why
    /// and what to use instead. `maybe_newer` when the release is the newest crdls knows and serves
    /// the kind only in versions that rank below this one: a later release may have added it (a beta
    /// promoted to v1), so it is a warning rather than an error.
    NotServed { message: String, maybe_newer: bool },
}

/// Resolves `group` (`""` for the core group), `version` and `kind` in release `kube`.
pub fn resolve(kube: KubeVersion, group: &str, version: &str, kind: &str) -> Resolved {
    let api_version = join(group, version);
    match crdls_builtins::lookup(kube, group, version, kind) {
        Lookup::Served { scope: Scope::Namespaced | Scope::Cluster } => match crdls_builtins::schema(kube, group, version, kind) {
            Some(schema) => Resolved::Schema { schema, removed_in: removed_after(kube, group, version, kind) },
            None => Resolved::KindOnly,
        },
        Lookup::Served { .. } => Resolved::KindOnly,
        Lookup::NotServed { served_in } => {
            let when = match (served_in.first(), served_in.last()) {
                (Some(_), Some(last)) if *last < kube => match next_release(*last) {
                    Some(removed) => format!("it was removed in {removed}"),
                    None => format!("the last release that serves it is {last}"),
                },
                (Some(first), _) if *first > kube => format!("it is served from {first} on"),
                _ => format!("it is served by {}", list(&served_in)),
            };
            let mut message = format!("Kubernetes {kube} does not serve {api_version} {kind}: {when}");
            message.push_str(&instead(kube, group, version, kind));
            Resolved::NotServed { message, maybe_newer: false }
        }
        Lookup::Unknown => {
            let here = versions_of(kube, group, kind);
            let newest = crdls_builtins::newest();
            if let Some(best) = here.first().filter(|best| kube == newest && compare_versions(version, best).is_lt()) {
                let served = here.iter().map(|v| join(group, v)).collect::<Vec<_>>().join(", ");
                return Resolved::NotServed {
                    maybe_newer: true,
                    message: format!(
                        "Kubernetes {kube}, the newest release crdls knows, serves {kind} as {served}, not as {api_version}; a later release may serve it, so this object is not checked (use {} for {kube})",
                        join(group, best)
                    ),
                };
            }
            if let Some(best) = here.first() {
                let served = here.iter().map(|v| join(group, v)).collect::<Vec<_>>().join(", ");
                return Resolved::NotServed {
                    maybe_newer: false,
                    message: format!("Kubernetes {kube} serves {kind} as {served}, not as {api_version}; use {}", join(group, best)),
                };
            }
            let known_elsewhere = crdls_builtins::kubernetes_versions().iter().any(|&k| !versions_of(k, group, kind).is_empty());
            let elsewhere = other_groups(kube, kind);
            if known_elsewhere || (group == "extensions" && !elsewhere.is_empty()) {
                let releases = releases();
                let mut message = format!("no Kubernetes release crdls knows ({releases}) serves {api_version} {kind}");
                message.push_str(&instead(kube, group, version, kind));
                return Resolved::NotServed { message, maybe_newer: false };
            }
            // A kind this group never had, that another built-in group serves (`apps/v1` Pod, `v1`
            // Deployment): kubectl's REST mapping finds no resource for it, whatever the release.
            let never_here = super::kinds(group).is_none_or(|kinds| !kinds.contains(&kind));
            if let Some(there) = elsewhere.first().filter(|_| never_here) {
                let message = match group {
                    // `apiVersion: networking.k8s.io`: a group written without its version, which reads
                    // as a version of the core group.
                    "" if version.contains('.') => format!(
                        "apiVersion {version} names a group without its version: Kubernetes {kube} serves {kind} as {there}; use {there} {kind}"
                    ),
                    "" => format!("the core group has no kind {kind}: Kubernetes {kube} serves it as {there}; use {there} {kind}"),
                    _ => format!("group {group} has no kind {kind}: Kubernetes {kube} serves it as {there}; use {there} {kind}"),
                };
                return Resolved::NotServed { message, maybe_newer: false };
            }
            Resolved::KindOnly
        }
    }
}

/// `; use <api version> <kind>` naming what release `kube` serves instead, or nothing.
fn instead(kube: KubeVersion, group: &str, version: &str, kind: &str) -> String {
    let mut here = versions_of(kube, group, kind);
    here.retain(|v| v != version);
    if let Some(best) = here.first() {
        return format!("; use {} {kind}", join(group, best));
    }
    match other_groups(kube, kind).first() {
        Some(api_version) => format!("; use {api_version} {kind}"),
        None => String::new(),
    }
}

/// The versions of `group` that serve `kind` as a resource in release `kube`, the preferred first.
fn versions_of(kube: KubeVersion, group: &str, kind: &str) -> Vec<String> {
    let mut versions: Vec<String> =
        crdls_builtins::kinds(kube, group).into_iter().filter(|(_, k)| *k == kind).map(|(v, _)| v.to_string()).collect();
    versions.sort_by(|a, b| compare_versions(a, b));
    versions
}

/// The preferred API versions of other built-in groups that serve a resource named `kind` in release
/// `kube` (`extensions`' Ingress lives on in `networking.k8s.io`).
fn other_groups(kube: KubeVersion, kind: &str) -> Vec<String> {
    super::groups()
        .filter_map(|group| versions_of(kube, group, kind).first().map(|v| join(group, v)))
        .filter(|api_version| !api_version.starts_with("extensions/"))
        .collect()
}

/// The first release after `kube` that crdls knows and that does not serve the kind.
fn removed_after(kube: KubeVersion, group: &str, version: &str, kind: &str) -> Option<KubeVersion> {
    crdls_builtins::kubernetes_versions()
        .iter()
        .copied()
        .filter(|&k| k > kube)
        .find(|&k| !matches!(crdls_builtins::lookup(k, group, version, kind), Lookup::Served { .. }))
}

/// The release after `kube` among those crdls ships.
fn next_release(kube: KubeVersion) -> Option<KubeVersion> {
    crdls_builtins::kubernetes_versions().iter().copied().find(|&k| k > kube)
}

/// The shipped releases, as `1.23–1.35`.
fn releases() -> String {
    let all = crdls_builtins::kubernetes_versions();
    match (all.first(), all.last()) {
        (Some(first), Some(last)) => format!("{first}–{last}"),
        _ => String::new(),
    }
}

/// Releases as runs: `1.23–1.24, 1.27`.
fn list(releases: &[KubeVersion]) -> String {
    let all = crdls_builtins::kubernetes_versions();
    let mut runs: Vec<(KubeVersion, KubeVersion)> = Vec::new();
    for &k in releases {
        let position = all.iter().position(|&a| a == k);
        match runs.last_mut() {
            Some((_, end)) if position.is_some_and(|p| p > 0 && all[p - 1] == *end) => *end = k,
            _ => runs.push((k, k)),
        }
    }
    runs.iter().map(|(a, b)| if a == b { a.to_string() } else { format!("{a}–{b}") }).collect::<Vec<_>>().join(", ")
}

/// `apiVersion` from a group and a version.
fn join(group: &str, version: &str) -> String {
    if group.is_empty() {
        version.to_string()
    } else {
        format!("{group}/{version}")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn message(kube: &str, group: &str, version: &str, kind: &str) -> String {
        match resolve(kube.parse().unwrap(), group, version, kind) {
            Resolved::Schema { removed_in, .. } => format!("schema, removed in {removed_in:?}"),
            Resolved::KindOnly => "kind only".into(),
            Resolved::NotServed { message, .. } => message,
        }
    }

    #[test]
    fn releases_that_do_not_serve_a_version() {
        expect_test::expect![[r#"
            Kubernetes 1.35 does not serve policy/v1beta1 PodDisruptionBudget: it was removed in 1.25; use policy/v1 PodDisruptionBudget
            Kubernetes 1.33 does not serve resource.k8s.io/v1 ResourceClaim: it is served from 1.34 on; use resource.k8s.io/v1beta2 ResourceClaim
            Kubernetes 1.37, the newest release crdls knows, serves Deployment as apps/v1, not as apps/v2; a later release may serve it, so this object is not checked (use apps/v1 for 1.37)
            Kubernetes 1.35 serves Deployment as apps/v1, not as apps/v1beta1; use apps/v1
            no Kubernetes release crdls knows (1.23–1.37) serves extensions/v1beta1 Ingress; use networking.k8s.io/v1 Ingress
            schema, removed in Some(KubeVersion { major: 1, minor: 25 })
            schema, removed in None
            kind only
            kind only
            Kubernetes 1.35 does not serve admissionregistration.k8s.io/v1 MutatingAdmissionPolicy: it is served from 1.36 on; use admissionregistration.k8s.io/v1beta1 MutatingAdmissionPolicy
            Kubernetes 1.34 does not serve admissionregistration.k8s.io/v1 MutatingAdmissionPolicy: it is served from 1.36 on; use admissionregistration.k8s.io/v1beta1 MutatingAdmissionPolicy
            schema, removed in None
            Kubernetes 1.36 does not serve storagemigration.k8s.io/v1 StorageVersionMigration: it is served from 1.37 on; use storagemigration.k8s.io/v1beta1 StorageVersionMigration
            schema, removed in None
            Kubernetes 1.37 does not serve networking.k8s.io/v1beta1 ServiceCIDR: it was removed in 1.37; use networking.k8s.io/v1 ServiceCIDR
            group apps has no kind Pod: Kubernetes 1.35 serves it as v1; use v1 Pod
            the core group has no kind Deployment: Kubernetes 1.35 serves it as apps/v1; use apps/v1 Deployment
            apiVersion networking.k8s.io names a group without its version: Kubernetes 1.37 serves Ingress as networking.k8s.io/v1; use networking.k8s.io/v1 Ingress
            kind only"#]]
        .assert_eq(
            &[
                message("1.35", "policy", "v1beta1", "PodDisruptionBudget"),
                message("1.33", "resource.k8s.io", "v1", "ResourceClaim"),
                message("1.37", "apps", "v2", "Deployment"),
                message("1.35", "apps", "v1beta1", "Deployment"),
                message("1.35", "extensions", "v1beta1", "Ingress"),
                message("1.24", "policy", "v1beta1", "PodDisruptionBudget"),
                message("1.35", "apps", "v1", "Deployment"),
                message("1.35", "autoscaling", "v1", "Scale"),
                message("1.35", "metrics.k8s.io", "v1beta1", "PodMetrics"),
                message("1.35", "admissionregistration.k8s.io", "v1", "MutatingAdmissionPolicy"),
                message("1.34", "admissionregistration.k8s.io", "v1", "MutatingAdmissionPolicy"),
                message("1.36", "admissionregistration.k8s.io", "v1", "MutatingAdmissionPolicy"),
                message("1.36", "storagemigration.k8s.io", "v1", "StorageVersionMigration"),
                message("1.37", "storagemigration.k8s.io", "v1", "StorageVersionMigration"),
                message("1.37", "networking.k8s.io", "v1beta1", "ServiceCIDR"),
                message("1.35", "apps", "v1", "Pod"),
                message("1.35", "", "v1", "Deployment"),
                message("1.37", "", "networking.k8s.io", "Ingress"),
                message("1.35", "apps", "v1", "Widget"),
            ]
            .join("\n"),
        );
    }
}
