//! Workspace trust: a workspace may ask, only the user may allow. A repository's own files
//! (`crdls.toml`) can ask crdls to list a cluster's CRDs with a kubeconfig, to download URLs, to read
//! CRDs from paths outside the repository and to run git at a revision; each of these runs a program
//! (a kubeconfig's exec plugin, git), reads a credential or touches the network (as does `fieldDocs`,
//! the download of the Kubernetes API documents for hovers), so none of them is
//! taken from a workspace the user has not trusted. What the user says themselves (command-line
//! flags, the editor's own settings) is always the user's. The threat model is in ARCHITECTURE.md.

use std::path::{Component, Path};

use crdls_sources::Location;

/// Whether the user trusts the workspace's own settings.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Trust {
    /// Not trusted (the default): the settings of `crdls.toml` that run a program, read a credential
    /// or touch the network are withheld, and git is never run in the workspace.
    #[default]
    Restricted,
    /// Trusted by the user (`--trust-workspace`, `CRDLS_TRUST_WORKSPACE=1`, the editor's workspace
    /// trust): `crdls.toml` is used whole.
    Trusted,
}

/// A setting of the workspace's `crdls.toml` that was not used because the workspace is not trusted.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Withheld {
    /// `cluster`: reading the cluster's CRDs, with the kubeconfig and context it names.
    Cluster,
    /// A URL in `crdPaths` (shown without credentials).
    Url(String),
    /// A path in `crdPaths` that leads outside the workspace (absolute, `~/`, or above the root).
    OutsidePath(String),
    /// `oldObject`: the git revision old objects are read from.
    GitRevision(String),
    /// `redirectHosts`: the hosts URL sources may be redirected to.
    RedirectHosts(Vec<String>),
    /// `fieldDocs`: downloading the Kubernetes API documents for the hovers of built-in kinds.
    FieldDocs,
}

impl std::fmt::Display for Withheld {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Withheld::Cluster => write!(f, "the cluster (`cluster`)"),
            Withheld::Url(url) => write!(f, "the URL {url}"),
            Withheld::OutsidePath(path) => write!(f, "the path {path}, outside the workspace"),
            Withheld::GitRevision(rev) => write!(f, "git revision {rev} (`oldObject`)"),
            Withheld::RedirectHosts(hosts) => write!(f, "redirects to {} (`redirectHosts`)", hosts.join(", ")),
            Withheld::FieldDocs => write!(f, "field documentation from the network (`fieldDocs`)"),
        }
    }
}

/// One sentence naming what `crdls.toml` asked for and was not used; `how` says how to trust the
/// workspace in this front end.
pub fn describe(withheld: &[Withheld], how: &str) -> String {
    let names: Vec<String> = withheld.iter().map(ToString::to_string).collect();
    let list = match names.as_slice() {
        [] => String::new(),
        [one] => one.clone(),
        [init @ .., last] => format!("{} and {last}", init.join(", ")),
    };
    format!("{} asks for {list}; not used, because the workspace is not trusted ({how})", crate::CONFIG_FILE)
}

/// Splits the CRD locations a workspace file names into those a restricted workspace may use (files,
/// directories and globs inside it) and the rest.
pub(crate) fn withhold_locations(locations: Vec<String>) -> (Vec<String>, Vec<Withheld>) {
    let mut kept = Vec::new();
    let mut withheld = Vec::new();
    for location in locations {
        match Location::parse(&location) {
            Location::Url(url) => withheld.push(Withheld::Url(crdls_sources::redact_url(&url.url))),
            Location::Path(path) if !stays_inside(&path) => withheld.push(Withheld::OutsidePath(path)),
            Location::Path(_) => kept.push(location),
        }
    }
    (kept, withheld)
}

/// Whether a relative path or glob, written in a workspace file, names only places inside the
/// workspace: not absolute, not from the home directory, never above the root.
fn stays_inside(pattern: &str) -> bool {
    if pattern.starts_with('~') || pattern.starts_with('/') || pattern.starts_with('\\') {
        return false;
    }
    let path = Path::new(pattern);
    let mut depth: usize = 0;
    for component in path.components() {
        match component {
            Component::Prefix(_) | Component::RootDir => return false,
            Component::CurDir => {}
            Component::ParentDir => match depth.checked_sub(1) {
                Some(d) => depth = d,
                None => return false,
            },
            Component::Normal(_) => depth += 1,
        }
    }
    true
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_paths_inside_the_workspace_stay() {
        for inside in ["crds/", "crds/**/*.yaml", "./a.yaml", "a/../b.yaml", "charts/x.tgz"] {
            assert!(stays_inside(inside), "{inside}");
        }
        for outside in ["/etc/passwd", "~/.kube/config", "~", "../x.yaml", "a/../../x", "\\\\host\\share"] {
            assert!(!stays_inside(outside), "{outside}");
        }
        let (kept, withheld) = withhold_locations(vec![
            "crds/".into(),
            "https://user:secret@example.com/crds.yaml#sha256=AB".into(),
            "/home/me/.kube/config".into(),
        ]);
        assert_eq!(kept, ["crds/"]);
        assert_eq!(withheld.len(), 2);
        assert!(!withheld[0].to_string().contains("secret"), "{}", withheld[0]);
        assert_eq!(
            describe(&withheld, "pass --trust-workspace"),
            "crdls.toml asks for the URL https://user:***@example.com/crds.yaml and the path /home/me/.kube/config, outside the workspace; not used, because the workspace is not trusted (pass --trust-workspace)"
        );
    }
}
