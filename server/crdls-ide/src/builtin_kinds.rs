//! The schemas of Kubernetes' built-in kinds for completion and hover: those of the newest release
//! crdls ships (the editor features describe the fields a current cluster has; diagnostics answer for
//! the release the settings name).

use crdls_crd::{split_api_version, Schema};

/// The schema of a built-in object of `api_version` and `kind`, when the newest release serves it as a
/// resource.
pub(crate) fn schema(api_version: &str, kind: &str) -> Option<&'static Schema> {
    let (group, version) = split_api_version(api_version);
    if !crdls_check::is_builtin_group(group) {
        return None;
    }
    crdls_builtins::schema_ref(crdls_builtins::newest(), group, version, kind)
}

/// Where a built-in kind's fields come from, for a hover.
pub(crate) fn origin(api_version: &str, kind: &str) -> String {
    format!("Part of the built-in kind `{kind}` (`{api_version}`), Kubernetes {}.", crdls_builtins::newest())
}
