//! Settings shared by the language server and the CLI: from `crdls.toml` at the workspace root, the
//! client's `initializationOptions` and `workspace/configuration`, each layer overriding the one before.

use std::collections::BTreeMap;
use std::time::Duration;

use crdls_check::CheckOptions;
use crdls_diagnostics::codes;
use crdls_diagnostics::{Diagnostic, Severity};
use serde::Deserialize;

use crate::trust::{withhold_locations, Trust, Withheld};

/// The name of the settings file at a workspace root.
pub const CONFIG_FILE: &str = "crdls.toml";

/// The hosts a URL source may be redirected to unless settings say otherwise: where GitHub serves
/// release assets (`https://github.com/ORG/REPO/releases/download/TAG/FILE` redirects there).
pub const DEFAULT_REDIRECT_HOSTS: &[&str] = &["objects.githubusercontent.com", "release-assets.githubusercontent.com"];

/// Keys of the `crdls` settings section that editors use themselves and the server ignores.
const CLIENT_ONLY_KEYS: &[&str] = &["server", "trace"];

/// What a diagnostic code's severity is overridden to.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum SeverityOverride {
    /// Report as an error.
    Error,
    /// Report as a warning.
    Warning,
    /// Report as information.
    Info,
    /// Report as a hint.
    Hint,
    /// Do not report.
    Off,
}

/// The settings.
#[derive(Clone, Debug, PartialEq)]
pub struct Config {
    /// Extra files, directories, globs (`crds/**/*.yaml`) or URLs (`https://…`, pinned with a
    /// `#sha256=HEX` fragment) to read CRDs from; paths are relative to the workspace root.
    pub crd_paths: Vec<String>,
    /// Whether, and how, to read the CRDs a cluster serves (`None`: not at all).
    pub cluster: Option<ClusterSetting>,
    /// The hosts a URL source's redirect may lead to besides its own (`*` for any); by default the
    /// hosts GitHub serves release assets from, where `github.com/…/releases/download/…` redirects.
    pub redirect_hosts: Vec<String>,
    /// Unknown fields are errors rather than warnings.
    pub strict: bool,
    /// Objects that could not be validated because no known CRD serves them are errors, so that a run
    /// that checked nothing fails (`resource/no-crd` and `resource/undeclared-kind` become errors).
    pub fail_unchecked: bool,
    /// Whether directory walks read test material too: `testdata` directories and expected outputs
    /// such as golden files (`includeTestdata = true`; `--include-testdata`).
    pub include_testdata: bool,
    /// Whether test inputs (plain manifests below a `test`, `tests` or `e2e` directory of the workspace)
    /// are checked as whole objects, as manifests are, rather than for what they write only
    /// (`wholeTestInputs = true`; `--whole-test-inputs`).
    pub whole_test_inputs: bool,
    /// The Kubernetes minor version whose API server is asked (`kubeVersion = "1.31"`); `None` for the
    /// newest crdls knows.
    pub kube_version: Option<u32>,
    /// Severity overrides by diagnostic code (`schema/unknown-field = "off"`).
    pub severity: BTreeMap<String, SeverityOverride>,
    /// How long the server waits after the last edit before checking a document.
    pub debounce: Duration,
    /// Whether the language server shows inlay hints (the defaults the API server will add).
    pub inlay_hints: bool,
    /// Where the editor takes each object's old version from, to check edits as updates (transition
    /// rules, ratcheting): `None` for off (every object is checked as created), else a git revision.
    /// Read it through [`Config::git_revision`], which says no in a workspace that is not trusted.
    pub old_object: Option<String>,
    /// Where the field documentation of built-in kinds is read from, for hovers: `None` for nowhere
    /// (the default), else the base URL of the Kubernetes repository's files (`fieldDocs = true` is
    /// [`crdls_sources::openapi::DEFAULT_BASE`]). It touches the network, so a workspace's own
    /// `crdls.toml` cannot turn it on unless the workspace is trusted.
    pub field_docs: Option<String>,
    /// Whether the user trusts the workspace: set by the front end (a flag, the editor's workspace
    /// trust), never by a settings layer.
    pub trust: Trust,
}

impl Default for Config {
    fn default() -> Config {
        Config {
            crd_paths: Vec::new(),
            cluster: None,
            redirect_hosts: DEFAULT_REDIRECT_HOSTS.iter().map(|h| h.to_string()).collect(),
            strict: false,
            fail_unchecked: false,
            include_testdata: false,
            whole_test_inputs: false,
            kube_version: None,
            severity: BTreeMap::new(),
            debounce: Duration::from_millis(50),
            inlay_hints: true,
            old_object: Some("HEAD".into()),
            field_docs: None,
            trust: Trust::default(),
        }
    }
}

/// Which cluster's CRDs to read: the kubeconfig's current context unless one is named.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct ClusterSetting {
    /// The kubeconfig context; the current context when absent.
    pub context: Option<String>,
    /// The kubeconfig file; `$KUBECONFIG`, else `~/.kube/config`, when absent.
    pub kubeconfig: Option<String>,
}

/// The `cluster` setting as written: `cluster = true`, or a table naming the context or kubeconfig
/// (with `enabled = false` to turn it off while keeping the names).
#[derive(Debug, Deserialize)]
#[serde(untagged)]
enum ClusterLayer {
    On(bool),
    Table(ClusterTable),
}

#[derive(Debug, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
struct ClusterTable {
    enabled: Option<bool>,
    context: Option<String>,
    kubeconfig: Option<String>,
}

/// The `fieldDocs` setting as written: `true` for the Kubernetes repository on GitHub, `false` for
/// off, or the base URL of a mirror of the repository's files.
#[derive(Debug, Deserialize)]
#[serde(untagged)]
enum FieldDocsLayer {
    On(bool),
    Base(String),
}

impl FieldDocsLayer {
    /// The base URL this layer asks for, `None` for off, or why it is not one.
    fn base(&self) -> Result<Option<String>, String> {
        match self {
            FieldDocsLayer::On(on) => Ok(on.then(|| crdls_sources::openapi::DEFAULT_BASE.to_string())),
            FieldDocsLayer::Base(base) => {
                let base = base.trim();
                let lower = base.get(..8).unwrap_or(base).to_ascii_lowercase();
                match base {
                    "" | "off" => Ok(None),
                    _ if lower.starts_with("http://") || lower.starts_with("https://") => Ok(Some(base.trim_end_matches('/').to_string())),
                    _ => Err(format!("fieldDocs: \"{base}\" is not true, false or an http(s) URL")),
                }
            }
        }
    }

    /// Whether this layer turns the documentation on.
    fn asks(&self) -> bool {
        self.base().is_ok_and(|base| base.is_some())
    }
}

/// One layer of settings as written: every field optional, camelCase in JSON and TOML alike.
#[derive(Debug, Default, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
struct Layer {
    crd_paths: Option<Vec<String>>,
    cluster: Option<ClusterLayer>,
    redirect_hosts: Option<Vec<String>>,
    strict: Option<bool>,
    fail_unchecked: Option<bool>,
    include_testdata: Option<bool>,
    whole_test_inputs: Option<bool>,
    kube_version: Option<String>,
    severity: Option<BTreeMap<String, SeverityOverride>>,
    debounce_ms: Option<u64>,
    inlay_hints: Option<bool>,
    old_object: Option<String>,
    field_docs: Option<FieldDocsLayer>,
}

impl Config {
    /// How directory walks treat test material.
    pub fn walk_options(&self) -> crate::files::WalkOptions {
        crate::files::WalkOptions { include_testdata: self.include_testdata }
    }

    /// The options of the checking pipeline.
    pub fn check_options(&self) -> CheckOptions {
        CheckOptions { strict: self.strict, old: None, kubernetes: self.kube_version, ..CheckOptions::default() }
    }

    /// Applies a `crdls.toml` text on top of these settings, whole, as the user's own.
    pub fn merge_toml(&mut self, text: &str) -> Result<(), String> {
        let layer = read_toml(text)?;
        self.apply(layer);
        Ok(())
    }

    /// Applies the workspace's `crdls.toml` on top of these settings. Unless [`Config::trust`] is
    /// [`Trust::Trusted`], what would run a program, read a credential or touch the network is
    /// withheld (the cluster, URLs, paths outside the workspace, the git revision); the settings
    /// withheld are returned, for the front end to say so.
    pub fn merge_workspace_toml(&mut self, text: &str) -> Result<Vec<Withheld>, String> {
        let mut layer = read_toml(text)?;
        let withheld = match self.trust {
            Trust::Trusted => Vec::new(),
            Trust::Restricted => withhold(&mut layer),
        };
        self.apply(layer);
        Ok(withheld)
    }

    /// The git revision old objects are read from: `None` when off, and always in a workspace that
    /// is not trusted, where git never runs (a repository's own git configuration can name programs
    /// for git to run).
    pub fn git_revision(&self) -> Option<&str> {
        match self.trust {
            Trust::Trusted => self.old_object.as_deref(),
            Trust::Restricted => None,
        }
    }

    /// Applies JSON settings (initialization options or a configuration section) on top of these.
    /// A `crdls` key, when present, holds the settings (VS Code sends the section wrapped).
    pub fn merge_json(&mut self, value: &serde_json::Value) -> Result<(), String> {
        if value.is_null() {
            return Ok(());
        }
        let mut value = value.get("crdls").unwrap_or(value).clone();
        // Keys of the section that only clients read (`crdls.server.path`, `crdls.trace.server`), which a
        // client answering workspace/configuration with the whole section sends along.
        if let Some(object) = value.as_object_mut() {
            for key in CLIENT_ONLY_KEYS {
                object.remove(*key);
            }
        }
        let layer: Layer = serde_json::from_value(value).map_err(|e| format!("crdls settings: {e}"))?;
        known_codes(&layer).map_err(|e| format!("crdls settings: {e}"))?;
        if let Some(v) = &layer.kube_version {
            parse_kube_version(v).map_err(|e| format!("crdls settings: kubeVersion: {e}"))?;
        }
        if let Some(docs) = &layer.field_docs {
            docs.base().map_err(|e| format!("crdls settings: {e}"))?;
        }
        self.apply(layer);
        Ok(())
    }

    fn apply(&mut self, layer: Layer) {
        if let Some(paths) = layer.crd_paths {
            self.crd_paths = paths;
        }
        if let Some(hosts) = layer.redirect_hosts {
            self.redirect_hosts = hosts;
        }
        match layer.cluster {
            None => {}
            Some(ClusterLayer::On(on)) => self.cluster = on.then(ClusterSetting::default),
            Some(ClusterLayer::Table(table)) => {
                self.cluster =
                    table.enabled.unwrap_or(true).then_some(ClusterSetting { context: table.context, kubeconfig: table.kubeconfig })
            }
        }
        if let Some(strict) = layer.strict {
            self.strict = strict;
        }
        if let Some(fail) = layer.fail_unchecked {
            self.fail_unchecked = fail;
        }
        if let Some(include) = layer.include_testdata {
            self.include_testdata = include;
        }
        if let Some(whole) = layer.whole_test_inputs {
            self.whole_test_inputs = whole;
        }
        if let Some(version) = layer.kube_version {
            // Checked when the layer was read; an empty value goes back to the newest.
            self.kube_version = parse_kube_version(&version).ok().flatten();
        }
        if let Some(severity) = layer.severity {
            self.severity.extend(severity);
        }
        if let Some(ms) = layer.debounce_ms {
            self.debounce = Duration::from_millis(ms);
        }
        if let Some(on) = layer.inlay_hints {
            self.inlay_hints = on;
        }
        if let Some(source) = layer.old_object {
            let source = source.trim();
            self.old_object = (!source.is_empty() && source != "off").then(|| source.to_string());
        }
        if let Some(docs) = layer.field_docs {
            // Checked when the layer was read.
            self.field_docs = docs.base().ok().flatten();
        }
    }

    /// Applies the severity overrides: changes severities and drops diagnostics turned off. With
    /// `fail_unchecked`, the diagnostics of objects left unvalidated become errors, unless `severity`
    /// names their code itself.
    pub fn apply_severity(&self, diagnostics: &mut Vec<Diagnostic>) {
        if self.fail_unchecked {
            for d in diagnostics.iter_mut() {
                if UNCHECKED_CODES.contains(&d.code) && !self.severity.contains_key(d.code) {
                    d.severity = Severity::Error;
                }
            }
        }
        if self.severity.is_empty() {
            return;
        }
        diagnostics.retain_mut(|d| match self.severity.get(d.code) {
            None => true,
            Some(SeverityOverride::Off) => false,
            Some(level) => {
                d.severity = match level {
                    SeverityOverride::Error => Severity::Error,
                    SeverityOverride::Warning => Severity::Warning,
                    SeverityOverride::Info => Severity::Information,
                    SeverityOverride::Hint | SeverityOverride::Off => Severity::Hint,
                };
                true
            }
        });
    }
}

/// A `crdls.toml` text as one layer, its codes and version checked.
fn read_toml(text: &str) -> Result<Layer, String> {
    let layer: Layer = toml::from_str(text).map_err(|e| format!("{CONFIG_FILE}: {e}"))?;
    known_codes(&layer).map_err(|e| format!("{CONFIG_FILE}: {e}"))?;
    if let Some(v) = &layer.kube_version {
        parse_kube_version(v).map_err(|e| format!("{CONFIG_FILE}: kubeVersion: {e}"))?;
    }
    if let Some(docs) = &layer.field_docs {
        docs.base().map_err(|e| format!("{CONFIG_FILE}: {e}"))?;
    }
    Ok(layer)
}

/// Takes out of a workspace file's layer what an untrusted workspace may not ask for, and names it.
fn withhold(layer: &mut Layer) -> Vec<Withheld> {
    let mut withheld = Vec::new();
    let asks_for_cluster = match &layer.cluster {
        None | Some(ClusterLayer::On(false)) => false,
        Some(ClusterLayer::On(true)) => true,
        Some(ClusterLayer::Table(table)) => table.enabled != Some(false),
    };
    if asks_for_cluster {
        layer.cluster = None;
        withheld.push(Withheld::Cluster);
    }
    if let Some(hosts) = layer.redirect_hosts.take() {
        withheld.push(Withheld::RedirectHosts(hosts));
    }
    if let Some(paths) = layer.crd_paths.take() {
        let (kept, refused) = withhold_locations(paths);
        layer.crd_paths = Some(kept);
        withheld.extend(refused);
    }
    if layer.field_docs.as_ref().is_some_and(FieldDocsLayer::asks) {
        layer.field_docs = None;
        withheld.push(Withheld::FieldDocs);
    }
    if let Some(rev) = layer.old_object.take() {
        let rev = rev.trim();
        if rev.is_empty() || rev == "off" {
            layer.old_object = Some(rev.to_string());
        } else {
            withheld.push(Withheld::GitRevision(rev.to_string()));
        }
    }
    withheld
}

/// A Kubernetes version as users write it (`1.31`, `v1.31`, `1.31.2`): its minor version, `None` for an
/// empty value (the newest), or why it is not one crdls knows.
pub fn parse_kube_version(text: &str) -> Result<Option<u32>, String> {
    let text = text.trim();
    if text.is_empty() {
        return Ok(None);
    }
    let (oldest, newest) = (crdls_check::OLDEST_KUBERNETES_MINOR, crdls_check::NEWEST_KUBERNETES_MINOR);
    let known = || format!("\"{text}\" is not a Kubernetes version crdls knows (1.{oldest} to 1.{newest})");
    let bare = text.strip_prefix('v').unwrap_or(text);
    let mut parts = bare.split('.');
    let (Some("1"), Some(minor)) = (parts.next(), parts.next()) else { return Err(known()) };
    if parts.next().is_some_and(|patch| patch.parse::<u32>().is_err()) || parts.next().is_some() {
        return Err(known());
    }
    match minor.parse::<u32>() {
        Ok(minor) if (oldest..=newest).contains(&minor) => Ok(Some(minor)),
        Ok(minor) if minor > newest && !minor.to_string().starts_with('0') => Err(format!(
            "{}; a newer Kubernetes needs a newer crdls, which ships its schemas and CEL environment: upgrade crdls \
             (`pip install --upgrade crdls`, or `cargo install` from a newer checkout)",
            known()
        )),
        _ => Err(known()),
    }
}

/// Every code a layer's `severity` table names must be a diagnostic code, so a misspelt one is
/// reported rather than silently ignored.
fn known_codes(layer: &Layer) -> Result<(), String> {
    for code in layer.severity.iter().flat_map(|s| s.keys()) {
        if codes::lookup(code).is_none() {
            let hint = match crdls_check::did_you_mean(code, codes::ALL.iter().map(|c| c.name)) {
                Some(s) => format!("; did you mean \"{s}\"?"),
                None => String::new(),
            };
            return Err(format!("severity: no diagnostic code \"{code}\"{hint} (`crdls explain` lists them)"));
        }
    }
    Ok(())
}

/// The codes of the diagnostics that say an object was not validated because its CRD is not known.
const UNCHECKED_CODES: &[&str] = &[codes::RESOURCE_NO_CRD, codes::RESOURCE_UNDECLARED_KIND];

#[cfg(test)]
mod tests {
    use super::*;
    use crdls_diagnostics::TextRange;

    #[test]
    fn layers_override_in_order_and_severities_apply() {
        let mut config = Config::default();
        config
            .merge_toml("crdPaths = [\"crds/\"]\nstrict = true\ndebounceMs = 0\n[severity]\n\"schema/unknown-field\" = \"off\"\n")
            .unwrap();
        config
            .merge_json(&serde_json::json!({"crdls": {"strict": false, "inlayHints": false, "oldObject": "off", "severity": {"schema/pattern": "warning"}}}))
            .unwrap();
        assert_eq!(config.crd_paths, ["crds/"]);
        assert!(!config.strict);
        assert_eq!(config.debounce, Duration::ZERO);
        assert!(!config.inlay_hints);
        assert_eq!(config.old_object, None);
        config.merge_json(&serde_json::json!({"oldObject": "origin/main"})).unwrap();
        assert_eq!(config.old_object.as_deref(), Some("origin/main"));
        let d = |code| Diagnostic::new(TextRange::empty(0), Severity::Error, code, "m");
        let mut diagnostics = vec![d("schema/unknown-field"), d("schema/pattern"), d("schema/type")];
        config.apply_severity(&mut diagnostics);
        let got: Vec<(&str, Severity)> = diagnostics.iter().map(|d| (d.code, d.severity)).collect();
        assert_eq!(got, [("schema/pattern", Severity::Warning), ("schema/type", Severity::Error)]);
        assert!(config.merge_toml("unknown = 1").unwrap_err().contains("unknown"));
        assert_eq!(
            config.merge_toml("[severity]\n\"schema/unknwon-field\" = \"off\"\n").unwrap_err(),
            "crdls.toml: severity: no diagnostic code \"schema/unknwon-field\"; did you mean \"schema/unknown-field\"? (`crdls explain` lists them)"
        );
        assert!(config
            .merge_json(&serde_json::json!({"severity": {"no/such-code": "off"}}))
            .unwrap_err()
            .starts_with("crdls settings: severity: no diagnostic code"));
    }

    /// Field documentation touches the network: the user's settings turn it on, a workspace's own
    /// `crdls.toml` only when the workspace is trusted (turning it off is always allowed).
    #[test]
    fn field_docs_come_from_the_user_or_a_trusted_workspace() {
        let mut user = Config::default();
        assert_eq!(user.field_docs, None);
        user.merge_json(&serde_json::json!({"fieldDocs": true})).unwrap();
        assert_eq!(user.field_docs.as_deref(), Some(crdls_sources::openapi::DEFAULT_BASE));
        user.merge_json(&serde_json::json!({"fieldDocs": "http://mirror.example/k8s/"})).unwrap();
        assert_eq!(user.field_docs.as_deref(), Some("http://mirror.example/k8s"));
        assert_eq!(
            user.merge_json(&serde_json::json!({"fieldDocs": "file:///etc"})).unwrap_err(),
            "crdls settings: fieldDocs: \"file:///etc\" is not true, false or an http(s) URL"
        );

        let mut restricted = Config::default();
        assert_eq!(restricted.merge_workspace_toml("fieldDocs = true\n").unwrap(), [Withheld::FieldDocs]);
        assert_eq!(restricted.merge_workspace_toml("fieldDocs = \"https://evil.example\"\n").unwrap(), [Withheld::FieldDocs]);
        assert_eq!(restricted.field_docs, None);
        assert_eq!(Withheld::FieldDocs.to_string(), "field documentation from the network (`fieldDocs`)");
        // A workspace may always turn it off.
        let mut on = Config { field_docs: Some("https://a.example".into()), ..Config::default() };
        assert_eq!(on.merge_workspace_toml("fieldDocs = false\n").unwrap(), []);
        assert_eq!(on.field_docs, None);

        let mut trusted = Config { trust: Trust::Trusted, ..Config::default() };
        assert_eq!(trusted.merge_workspace_toml("fieldDocs = true\n").unwrap(), []);
        assert!(trusted.field_docs.is_some());
    }

    #[test]
    fn fail_unchecked_makes_unvalidated_objects_errors_unless_overridden() {
        let mut config = Config::default();
        config.merge_toml("failUnchecked = true\n[severity]\n\"resource/undeclared-kind\" = \"warning\"\n").unwrap();
        // Each with its default severity, as the checks report them.
        let d = |code| Diagnostic::new(TextRange::empty(0), crdls_diagnostics::codes::lookup(code).unwrap().severity, code, "m");
        let mut diagnostics = vec![d("resource/no-crd"), d("resource/undeclared-kind"), d("cel/skipped")];
        config.apply_severity(&mut diagnostics);
        let got: Vec<(&str, Severity)> = diagnostics.iter().map(|d| (d.code, d.severity)).collect();
        assert_eq!(
            got,
            [("resource/no-crd", Severity::Error), ("resource/undeclared-kind", Severity::Warning), ("cel/skipped", Severity::Information)]
        );
    }

    #[test]
    fn an_untrusted_workspace_file_cannot_ask_for_the_cluster_urls_outside_paths_or_git() {
        let toml = "crdPaths = [\"crds/\", \"https://example.com/c.yaml\", \"../../home/me/.kube/config\"]\noldObject = \"--output=x\"\nstrict = true\nredirectHosts = [\"*\"]\n[cluster]\nkubeconfig = \"kube/config\"\n";
        let mut restricted = Config::default();
        let withheld = restricted.merge_workspace_toml(toml).unwrap();
        assert_eq!(
            withheld,
            [
                Withheld::Cluster,
                Withheld::RedirectHosts(vec!["*".into()]),
                Withheld::Url("https://example.com/c.yaml".into()),
                Withheld::OutsidePath("../../home/me/.kube/config".into()),
                Withheld::GitRevision("--output=x".into())
            ]
        );
        assert_eq!(restricted.crd_paths, ["crds/"]);
        assert_eq!(restricted.cluster, None);
        assert_eq!(restricted.redirect_hosts, DEFAULT_REDIRECT_HOSTS);
        assert!(restricted.strict, "harmless settings still apply");
        assert_eq!(restricted.git_revision(), None, "git never runs in a restricted workspace, whatever asks");
        // `cluster = false` and `oldObject = "off"` ask for nothing.
        let mut quiet = Config::default();
        assert_eq!(quiet.merge_workspace_toml("cluster = false\noldObject = \"off\"\n").unwrap(), []);
        assert_eq!(quiet.old_object, None);

        let mut trusted = Config { trust: Trust::Trusted, ..Config::default() };
        assert_eq!(trusted.merge_workspace_toml(toml).unwrap(), []);
        assert_eq!(trusted.crd_paths.len(), 3);
        assert_eq!(trusted.cluster.as_ref().and_then(|c| c.kubeconfig.as_deref()), Some("kube/config"));
        assert_eq!(trusted.git_revision(), Some("--output=x"));
        assert_eq!(trusted.redirect_hosts, ["*"]);
        // The trust itself is no setting: a layer cannot carry it.
        assert!(trusted.merge_json(&serde_json::json!({"trust": "trusted"})).is_err());
    }

    #[test]
    fn the_cluster_is_a_switch_or_a_table() {
        let mut config = Config::default();
        assert_eq!(config.cluster, None);
        config.merge_toml("cluster = true").unwrap();
        assert_eq!(config.cluster, Some(ClusterSetting::default()));
        config.merge_toml("[cluster]\ncontext = \"kind-dev\"\nkubeconfig = \"~/k.yaml\"\n").unwrap();
        assert_eq!(config.cluster, Some(ClusterSetting { context: Some("kind-dev".into()), kubeconfig: Some("~/k.yaml".into()) }));
        config.merge_json(&serde_json::json!({"cluster": {"enabled": false, "context": "x"}})).unwrap();
        assert_eq!(config.cluster, None);
        config.merge_json(&serde_json::json!({"cluster": {"context": "prod"}})).unwrap();
        assert_eq!(config.cluster.as_ref().and_then(|c| c.context.as_deref()), Some("prod"));
        config.merge_json(&serde_json::json!({"cluster": false})).unwrap();
        assert_eq!(config.cluster, None);
        assert!(config.merge_toml("[cluster]\ncontxt = \"a\"\n").is_err());
    }

    #[test]
    fn kubernetes_versions_are_read_as_users_write_them() {
        assert_eq!(parse_kube_version("1.31"), Ok(Some(31)));
        assert_eq!(parse_kube_version("v1.30.2"), Ok(Some(30)));
        assert_eq!(parse_kube_version(""), Ok(None));
        assert_eq!(parse_kube_version("1.37"), Ok(Some(37)));
        assert_eq!(parse_kube_version("1.36.1"), Ok(Some(36)));
        let old = parse_kube_version("1.9").unwrap_err();
        assert!(old.contains("1.23 to 1.37") && !old.contains("upgrade"), "{old}");
        let new = parse_kube_version("1.38").unwrap_err();
        assert!(new.contains("\"1.38\" is not a Kubernetes version crdls knows (1.23 to 1.37)"), "{new}");
        assert!(new.contains("needs a newer crdls") && new.contains("pip install --upgrade crdls"), "{new}");
        assert!(parse_kube_version("2.0").is_err() && parse_kube_version("1.x").is_err() && parse_kube_version("1.30.x").is_err());
        let mut config = Config::default();
        config.merge_toml("kubeVersion = \"1.29\"").unwrap();
        assert_eq!(config.check_options().kubernetes, Some(29));
        assert!(config.merge_json(&serde_json::json!({"kubeVersion": "1.99"})).unwrap_err().starts_with("crdls settings: kubeVersion:"));
        config.merge_json(&serde_json::json!({"kubeVersion": ""})).unwrap();
        assert_eq!(config.kube_version, None);
    }

    #[test]
    fn the_whole_vscode_section_is_accepted_and_client_keys_ignored() {
        let mut config = Config::default();
        let section = serde_json::json!({"server": {"path": ""}, "trace": {"server": "off"}, "strict": true});
        config.merge_json(&section).unwrap();
        assert!(config.strict);
        assert!(config.merge_json(&serde_json::json!({"strcit": true})).unwrap_err().contains("strcit"));
        // In crdls.toml they are still unknown keys.
        assert!(config.merge_toml("[server]\npath = \"x\"\n").is_err());
    }
}
