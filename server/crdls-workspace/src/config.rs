//! Settings shared by the language server and the CLI: from `crdls.toml` at the workspace root, the
//! client's `initializationOptions` and `workspace/configuration`, each layer overriding the one before.

use std::collections::BTreeMap;
use std::time::Duration;

use crdls_check::CheckOptions;
use crdls_diagnostics::codes;
use crdls_diagnostics::{Diagnostic, Severity};
use serde::Deserialize;

use crate::trust::{withhold_locations, Trust, Withheld};

mod error;

pub use error::{ConfigError, FieldDocsError, LayerOrigin, Problem};

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
    /// How many of the last [`Config::crd_paths`] a workspace's own `crdls.toml` named while the
    /// workspace is not trusted: those are read only inside the workspace, so that a symbolic link of
    /// the repository (`crds -> ~/.kube`) cannot lead them out of it (see [`Config::crd_path_sets`]).
    /// A layer that sets the CRD paths afterwards (the user's settings) makes it 0; a front end that
    /// puts the user's own paths first (`--crds`) leaves it as it is.
    pub confined_crd_paths: usize,
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
            confined_crd_paths: 0,
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
    fn base(&self) -> Result<Option<String>, FieldDocsError> {
        match self {
            FieldDocsLayer::On(on) => Ok(on.then(|| crdls_sources::openapi::DEFAULT_BASE.to_string())),
            FieldDocsLayer::Base(base) => {
                let base = base.trim();
                let lower = base.get(..8).unwrap_or(base).to_ascii_lowercase();
                match base {
                    "" | "off" => Ok(None),
                    _ if lower.starts_with("http://") || lower.starts_with("https://") => Ok(Some(base.trim_end_matches('/').to_string())),
                    _ => Err(FieldDocsError { value: base.to_string() }),
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
    pub fn merge_toml(&mut self, text: &str) -> Result<(), ConfigError> {
        let layer = read_toml(text)?;
        self.apply(layer);
        Ok(())
    }

    /// Applies the workspace's `crdls.toml` on top of these settings. Unless [`Config::trust`] is
    /// [`Trust::Trusted`], what would run a program, read a credential or touch the network is
    /// withheld (the cluster, URLs, paths outside the workspace, the git revision); the settings
    /// withheld are returned, for the front end to say so.
    pub fn merge_workspace_toml(&mut self, text: &str) -> Result<Vec<Withheld>, ConfigError> {
        let mut layer = read_toml(text)?;
        let withheld = match self.trust {
            Trust::Trusted => Vec::new(),
            Trust::Restricted => withhold(&mut layer),
        };
        let confined = match (&layer.crd_paths, self.trust) {
            (Some(paths), Trust::Restricted) => Some(paths.len()),
            _ => None,
        };
        self.apply(layer);
        if let Some(confined) = confined {
            self.confined_crd_paths = confined;
        }
        Ok(withheld)
    }

    /// The CRD paths in two sets: the user's own, read wherever they lead, and those an untrusted
    /// workspace named, read only inside the workspace (see [`Config::confined_crd_paths`]).
    pub fn crd_path_sets(&self) -> (&[String], &[String]) {
        self.crd_paths.split_at(self.crd_paths.len().saturating_sub(self.confined_crd_paths))
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
    pub fn merge_json(&mut self, value: &serde_json::Value) -> Result<(), ConfigError> {
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
        let layer: Layer =
            serde_json::from_value(value).map_err(|e| ConfigError::new(LayerOrigin::Settings, Problem::Malformed(e.to_string())))?;
        checked(layer, LayerOrigin::Settings).map(|layer| self.apply(layer))
    }

    fn apply(&mut self, layer: Layer) {
        if let Some(paths) = layer.crd_paths {
            self.crd_paths = paths;
            self.confined_crd_paths = 0;
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
fn read_toml(text: &str) -> Result<Layer, ConfigError> {
    let layer: Layer = toml::from_str(text).map_err(|e| ConfigError::new(LayerOrigin::File, Problem::Malformed(e.to_string())))?;
    checked(layer, LayerOrigin::File)
}

/// `layer` if every value in it is one crdls takes: its severity codes exist, its Kubernetes version
/// is known, its field documentation is off, on or a URL.
fn checked(layer: Layer, origin: LayerOrigin) -> Result<Layer, ConfigError> {
    let refused = |problem| Err(ConfigError::new(origin, problem));
    if let Some(code) = layer.severity.iter().flat_map(|s| s.keys()).find(|code| codes::lookup(code).is_none()) {
        let suggestion = crdls_check::did_you_mean(code, codes::ALL.iter().map(|c| c.name)).map(str::to_string);
        return refused(Problem::UnknownCode { code: code.clone(), suggestion });
    }
    if let Some(Err(e)) = layer.kube_version.as_deref().map(parse_kube_version) {
        return refused(Problem::KubeVersion(e));
    }
    if let Some(Err(e)) = layer.field_docs.as_ref().map(FieldDocsLayer::base) {
        return refused(Problem::FieldDocs(e));
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

/// The codes of the diagnostics that say an object was not validated because its CRD is not known.
const UNCHECKED_CODES: &[&str] = &[codes::RESOURCE_NO_CRD, codes::RESOURCE_UNDECLARED_KIND];

#[cfg(test)]
mod tests;
