//! The schemas of Kubernetes' built-in kinds for completion and hover: those of the release the
//! settings name (`kubeVersion`, `--kube-version`; the newest crdls ships by default), the release
//! diagnostics answer for. Code actions offer the API versions of the newest release.

use crdls_builtins::KubeVersion;
use crdls_crd::{compare_versions, split_api_version, Schema};

/// The schema of a built-in object of `api_version` and `kind`, when release `kube` serves it.
pub(crate) fn schema(kube: KubeVersion, api_version: &str, kind: &str) -> Option<&'static Schema> {
    let (group, version) = split_api_version(api_version);
    if !crdls_check::is_builtin_group(group) {
        return None;
    }
    crdls_builtins::schema_ref(kube, group, version, kind)
}

/// Where a built-in kind's fields come from, for a hover.
pub(crate) fn origin(kube: KubeVersion, api_version: &str, kind: &str) -> String {
    format!("Part of the built-in kind `{kind}` (`{api_version}`), Kubernetes {kube}.")
}

/// The API versions (`policy/v1`) in which the newest release serves `kind` of the built-in `group`,
/// the preferred first.
pub(crate) fn api_versions(group: &str, kind: &str) -> Vec<String> {
    if !crdls_check::is_builtin_group(group) {
        return Vec::new();
    }
    let mut versions: Vec<&str> =
        crdls_builtins::kinds(crdls_builtins::newest(), group).into_iter().filter(|(_, k)| *k == kind).map(|(v, _)| v).collect();
    versions.sort_by(|a, b| compare_versions(a, b));
    versions.into_iter().map(|v| if group.is_empty() { v.to_string() } else { format!("{group}/{v}") }).collect()
}

/// The resource kinds of a built-in group, over every release crdls ships.
pub(crate) fn kinds(group: &str) -> Vec<&'static str> {
    let mut kinds: Vec<&'static str> = crdls_builtins::kubernetes_versions()
        .iter()
        .flat_map(|&release| crdls_builtins::kinds(release, group))
        .map(|(_, kind)| kind)
        .collect();
    kinds.sort_unstable();
    kinds.dedup();
    kinds
}
