//! Checking one Kubernetes object: resolve its `apiVersion`/`kind` against the CRD index (or the
//! built-in groups), then prune, default and validate it as the API server would, and run its CEL rules.

use crdls_crd::{split_api_version, CrdIndex, CrdVersion, IndexedCrd, Resolution, Schema};
use crdls_diagnostics::{Diagnostic, Severity, TextRange};
use crdls_yaml::{FieldPath, Node, Value};

use crate::builtin;
use crate::cel;
use crate::field_error::{ErrorType, FieldError};
use crate::gofmt;
use crate::listtype::validate_lists;
use crate::metadata::{validate_metadata, NameRules};
use crate::native;
use crate::old::{node_at, ratcheted, unchanged_at, OldObjects};
use crate::prune::{prune_and_default, PrunedField};
use crate::suggest::{did_you_mean, misspelled_kind};
use crate::validate::{validate, Numbers};
use crdls_diagnostics::codes;

/// Settings of a check.
#[derive(Clone, Debug, Default)]
pub struct CheckOptions {
    /// Report unknown (pruned) fields as errors, like `kubectl --validate=strict`, instead of warnings.
    pub strict: bool,
    /// The old versions of the objects, to check an update: transition rules run and unchanged invalid
    /// values are ratcheted. `None` checks every object as created.
    pub old: Option<std::sync::Arc<OldObjects>>,
    /// The Kubernetes minor version whose API server is asked (`Some(31)` for 1.31); `None` for the
    /// newest crdls knows.
    pub kubernetes: Option<u32>,
    /// The custom resources of the workspace, so that a CRD compared with its previous version can say
    /// which of them the change breaks; `None` when the front end offers none.
    pub objects: Option<std::sync::Arc<dyn crate::old::ObjectSource>>,
    /// The resource written: the object itself, or its `/status` subresource (`kubectl
    /// --subresource status`), whose update takes only the status of the object sent.
    pub subresource: Subresource,
}

/// The resource a write goes to.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Subresource {
    /// The object itself (`PUT .../widgets/NAME`).
    #[default]
    Main,
    /// Its status subresource (`PUT .../widgets/NAME/status`): the stored object's spec and metadata
    /// with the status sent, validated against the stored status.
    Status,
}

/// The newest Kubernetes minor version crdls knows: the newest release of `crdls-builtins` (a test holds
/// the two together).
pub const NEWEST_KUBERNETES_MINOR: u32 = 37;
/// The oldest Kubernetes minor version crdls knows.
pub const OLDEST_KUBERNETES_MINOR: u32 = 23;

/// What a document turned out to be.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum DocumentKind {
    /// A CustomResourceDefinition.
    Crd,
    /// A custom resource served by an indexed CRD.
    CustomResource {
        /// The CRD's name.
        crd: String,
        /// The version used.
        version: String,
    },
    /// An object of a kind Kubernetes serves itself.
    BuiltIn {
        /// Whether it was validated against the target release's schema of the kind; if not (a list,
        /// a subresource's body, a kind crdls ships no schema of), only its kind and ObjectMeta were
        /// checked.
        validated: bool,
    },
    /// A Kubernetes configuration file rather than an API object: a kubeconfig, a kustomization, a
    /// kubelet or kubeadm configuration.
    ConfigFile,
    /// A Kubernetes object that was not validated against a schema: no indexed CRD serves its group,
    /// kind or version, or the CRD version has no schema.
    Unchecked {
        /// The object's API group (`""` for the core group).
        group: String,
    },
    /// Not a Kubernetes object (no `apiVersion`/`kind`), or empty.
    NotAnObject,
}

/// How one object is read.
#[derive(Clone, Copy, Debug)]
pub struct Reading {
    /// False when a syntax error cut the document short: the object is then only resolved, since
    /// validating a partial tree would report errors that are not there.
    pub complete: bool,
    /// Whether the object is whole; a patch or an assertion is not, and its CEL rules (which see the
    /// whole object) are not run.
    pub whole: bool,
    /// Whether status is checked as a live object's, status subresource or not (assertions).
    pub live_status: bool,
}

/// Checks one object (the caller has told CRDs apart, which are checked as CRDs).
pub fn check_object(root: &Node, index: &CrdIndex, options: &CheckOptions, reading: Reading, out: &mut Vec<Diagnostic>) -> DocumentKind {
    let complete = reading.complete;
    let (Some(api_version_node), Some(kind_node)) = (root.get("apiVersion"), root.get("kind")) else {
        return DocumentKind::NotAnObject;
    };
    let (Some(api_version), Some(kind)) = (api_version_node.as_str(), kind_node.as_str()) else {
        return DocumentKind::NotAnObject;
    };
    // A tool's own file (a Kyverno CLI test's values, a Chainsaw test, a kustomization) is read by
    // the tool, never sent to an API server, even where the tool publishes CRDs of its group for
    // editors: the API server's rules (a required name, the kind's spelling) are not its rules.
    if builtin::is_config_group(split_api_version(api_version).0) || is_local_config(root) {
        return DocumentKind::ConfigFile;
    }
    match index.resolve(api_version, kind) {
        Resolution::Found { crd, version } => {
            check_version_flags(crd, version, kind, api_version_node, out);
            if complete {
                let old = options.old.as_deref().and_then(|o| o.get(root));
                if options.subresource == Subresource::Status {
                    match version.schema() {
                        _ if !version.status_subresource => no_status_subresource(crd, version, kind_node.range, out),
                        Some(schema) => validate_status_update(root, old, schema, kind_node.range, reading.whole, options, out),
                        None => {}
                    }
                    return match version.schema() {
                        Some(_) => DocumentKind::CustomResource { crd: crd.crd.name.clone(), version: version.name.clone() },
                        None => DocumentKind::Unchecked { group: crd.crd.group.clone() },
                    };
                }
                let status = if version.status_subresource && !reading.live_status {
                    note_ignored_status(root, crd, out);
                    Status::Ignored
                } else {
                    Status::Validated
                };
                let rules = ObjectRules { status, run_cel: reading.whole };
                match version.schema() {
                    Some(schema) => validate_object(root, old, schema, kind_node.range, rules, options, out),
                    None => validate_metadata(root, &FieldPath::root(), NameRules::Object, release_minor(options), kind_node.range, out),
                }
            }
            if version.schema().is_none() {
                return DocumentKind::Unchecked { group: crd.crd.group.clone() };
            }
            DocumentKind::CustomResource { crd: crd.crd.name.clone(), version: version.name.clone() }
        }
        Resolution::UnknownVersion { crd } => {
            let (_, version) = split_api_version(api_version);
            // Of a CRD defined more than once, none declares the version: every definition's count.
            let definitions = index.definitions(api_version, kind);
            let mut declared: Vec<&str> = Vec::new();
            for v in definitions.iter().flat_map(|d| &d.crd.crd.versions) {
                if !declared.contains(&v.name.as_str()) {
                    declared.push(&v.name);
                }
            }
            let hint = match did_you_mean(version, declared.iter().copied()) {
                Some(s) => format!("; did you mean {}?", crd.crd.api_version_of(s)),
                None => String::new(),
            };
            // A file as written and the CRD its kustomization outputs patched are one definition.
            let distinct = definitions.iter().filter(|d| d.passed_over != Some(crdls_crd::PassedOver::Patched)).count();
            let which = match distinct {
                0 | 1 => format!("CRD {} does not declare", crd.crd.name),
                n => format!("none of the {n} definitions of CRD {} declares", crd.crd.name),
            };
            // The only definition lacks a version that follows all of its own: a stale local copy.
            let stale = distinct <= 1 && crdls_crd::is_next_version(version, &declared);
            let (severity, tail) = if stale {
                (
                    Severity::Warning,
                    format!(
                        ": {version} is newer than every version it declares, so this local copy of the CRD ({}) may be older than the one installed in the cluster",
                        crd.source
                    ),
                )
            } else {
                (Severity::Error, hint)
            };
            out.push(
                Diagnostic::new(
                    api_version_node.range,
                    severity,
                    codes::RESOURCE_UNKNOWN_VERSION,
                    format!("{which} version \"{version}\" of {kind} (declared: {}){tail}", declared.join(", ")),
                )
                .with_path("apiVersion")
                .with_cause(format!("no matches for kind \"{kind}\" in version \"{api_version}\"")),
            );
            DocumentKind::Unchecked { group: crd.crd.group.clone() }
        }
        Resolution::UnknownKind { known_kinds } => {
            let (group, _) = split_api_version(api_version);
            // A near miss of a declared kind is a typo. Any other kind may well exist: the group can
            // also hold kinds of an aggregated API (OpenShift's authorization.openshift.io) or of CRDs
            // that are not in the workspace (argoproj.io's Rollout beside Argo CD's CRDs).
            let diagnostic = match misspelled_kind(kind, known_kinds.iter().copied()) {
                Some(s) => Diagnostic::new(
                    kind_node.range,
                    Severity::Error,
                    codes::RESOURCE_UNKNOWN_KIND,
                    format!("no CRD in group {group} declares kind {kind}; did you mean {s}?"),
                ),
                None => Diagnostic::new(
                    kind_node.range,
                    Severity::Warning,
                    codes::RESOURCE_UNDECLARED_KIND,
                    format!(
                        "no known CRD in group {group} declares kind {kind} (they declare {}), so it is not checked; if it comes from another CRD, add that CRD to the workspace or to crdPaths (`crdls check --crds`)",
                        known_kinds.join(", ")
                    ),
                ),
            };
            out.push(diagnostic.with_path("kind").with_cause(format!("no matches for kind \"{kind}\" in version \"{api_version}\"")));
            DocumentKind::Unchecked { group: group.to_string() }
        }
        Resolution::UnknownGroup => {
            let (group, _) = split_api_version(api_version);
            if let Some(kinds) = builtin::kinds(group) {
                check_builtin(root, group, kind, kinds, options, reading, out)
            } else if builtin::is_config_group(group) {
                DocumentKind::ConfigFile
            } else if builtin::is_builtin_group(group) {
                // A dot-less group no Kubernetes release serves and no CRD can claim: not an API object.
                DocumentKind::NotAnObject
            } else {
                out.push(
                    Diagnostic::new(
                        api_version_node.range,
                        Severity::Information,
                        codes::RESOURCE_NO_CRD,
                        format!("no CRD for group {group} is known, so {kind} is not checked; add the CRD to the workspace or to crdPaths (`crdls check --crds` on the command line)"),
                    )
                    .with_path("apiVersion"),
                );
                DocumentKind::Unchecked { group: group.to_string() }
            }
        }
    }
}

/// A built-in object: its kind must exist in its group, its group/version must be served by the target
/// Kubernetes release, and it is validated against that release's schema of the kind.
fn check_builtin(
    root: &Node,
    group: &str,
    kind: &str,
    kinds: &[&str],
    options: &CheckOptions,
    reading: Reading,
    out: &mut Vec<Diagnostic>,
) -> DocumentKind {
    let (Some(api_version_node), Some(kind_node)) = (root.get("apiVersion"), root.get("kind")) else {
        return DocumentKind::NotAnObject;
    };
    let api_version = api_version_node.as_str().unwrap_or_default();
    // `apiVersion: builtin` configures one of kustomize's built-in generators or transformers
    // (`PatchTransformer`, `LabelTransformer`), named in a kustomization: not an API object.
    if group.is_empty() && (builtin::is_core_config_kind(kind) || api_version == "builtin") {
        return DocumentKind::ConfigFile;
    }
    if kind.ends_with("List") {
        return DocumentKind::BuiltIn { validated: false };
    }
    let kube = target_release(options);
    let (_, version) = split_api_version(api_version);
    let served = builtin::resolve(kube, group, version, kind);
    if !kinds.contains(&kind) && matches!(served, builtin::Resolved::KindOnly) {
        // Only a near miss is reported: the group may serve kinds newer than crdls knows.
        let mut known: Vec<&str> = kinds.to_vec();
        for &release in crdls_builtins::kubernetes_versions() {
            known.extend(crdls_builtins::kinds(release, group).into_iter().map(|(_, k)| k));
        }
        if let Some(suggestion) = did_you_mean(kind, known.iter().copied()) {
            let shown = if group.is_empty() { "the core group".to_string() } else { format!("group {group}") };
            out.push(
                Diagnostic::new(
                    kind_node.range,
                    Severity::Error,
                    codes::RESOURCE_UNKNOWN_KIND,
                    format!("{shown} has no kind {kind}; did you mean {suggestion}?"),
                )
                .with_path("kind")
                .with_cause(format!("no matches for kind \"{kind}\" in version \"{api_version}\"")),
            );
        }
        return DocumentKind::Unchecked { group: group.to_string() };
    }
    match served {
        builtin::Resolved::NotServed { message, maybe_newer } => {
            // A version a newer release may serve is a warning; one the release surely lacks, an error.
            let severity = if maybe_newer { Severity::Warning } else { Severity::Error };
            out.push(
                Diagnostic::new(api_version_node.range, severity, codes::RESOURCE_API_NOT_SERVED, message)
                    .with_path("apiVersion")
                    .with_cause(format!("no matches for kind \"{kind}\" in version \"{api_version}\"")),
            );
            DocumentKind::Unchecked { group: group.to_string() }
        }
        builtin::Resolved::KindOnly => {
            if reading.complete {
                validate_metadata(
                    root,
                    &FieldPath::root(),
                    builtin::name_rules(group, kind, release_minor(options)),
                    release_minor(options),
                    kind_node.range,
                    out,
                );
            }
            DocumentKind::BuiltIn { validated: false }
        }
        builtin::Resolved::Schema { schema, removed_in } => {
            if let Some(removed) = removed_in {
                let mut text = format!("{api_version} {kind} is unavailable in v{removed}+");
                if let builtin::Resolved::NotServed { message, .. } = builtin::resolve(removed, group, version, kind) {
                    if let Some((_, instead)) = message.rsplit_once("; use ") {
                        text.push_str(&format!("; use {instead}"));
                    }
                }
                out.push(
                    Diagnostic::new(api_version_node.range, Severity::Warning, codes::RESOURCE_DEPRECATED_API, text)
                        .with_path("apiVersion"),
                );
            }
            if reading.complete {
                let old = options.old.as_deref().and_then(|o| o.get(root));
                validate_builtin(root, old, &schema, (kube, group, kind), kind_node.range, options, reading, out);
            }
            DocumentKind::BuiltIn { validated: true }
        }
    }
}

/// The Kubernetes release a check targets.
fn target_release(options: &CheckOptions) -> crdls_builtins::KubeVersion {
    kubernetes_release(options.kubernetes)
}

/// The Kubernetes minor version the options ask for (the newest crdls knows when they name none).
pub fn release_minor(options: &CheckOptions) -> u32 {
    options.kubernetes.unwrap_or(NEWEST_KUBERNETES_MINOR)
}

/// The Kubernetes release of a minor version as the settings give it (`Some(31)` for 1.31, `None` for
/// the newest crdls knows): the one checks, completion and hover answer for.
pub fn kubernetes_release(minor: Option<u32>) -> crdls_builtins::KubeVersion {
    match minor.and_then(|minor| u16::try_from(minor).ok()) {
        Some(minor) => crdls_builtins::KubeVersion::new(1, minor),
        None => crdls_builtins::newest(),
    }
}

/// Validates a built-in object against its schema, as far as the API server's decoding and the
/// schema's facts go: unknown fields, types and formats, required fields (less those the API server
/// does not require), list-map keys and ObjectMeta. No defaults are applied beyond the schema's scalar
/// ones, and status is left alone unless the object is read as a live one (an assertion): the API
/// server resets it on create.
#[allow(clippy::too_many_arguments)]
fn validate_builtin(
    root: &Node,
    old: Option<&Node>,
    schema: &Schema,
    (kube, group, kind): (crdls_builtins::KubeVersion, &str, &str),
    anchor: TextRange,
    options: &CheckOptions,
    reading: Reading,
    out: &mut Vec<Diagnostic>,
) {
    let mut pruned = Vec::new();
    let object = prune_and_default(root, schema, &mut pruned);
    let old_object = old.map(|o| prune_and_default(o, schema, &mut Vec::new()));
    unknown_fields(&pruned, options, out);
    // ObjectMeta has its own rules (`validate_metadata`), with the API server's messages; status is
    // reset on create.
    let keep = |object: Node| {
        let mut object = without(object, "metadata");
        if !reading.live_status {
            object = without(object, "status");
        }
        object
    };
    let root_path = FieldPath::root();
    let version = split_api_version(root.get_str("apiVersion").unwrap_or_default()).1;
    let target = native::Target { minor: kube.minor(), group, kind, version };
    let mut metadata_found = Vec::new();
    validate_metadata(
        &object,
        &root_path,
        builtin::name_rules(group, kind, release_minor(options)),
        release_minor(options),
        anchor,
        &mut metadata_found,
    );
    native::validate_name(&object, target, old.is_none(), &mut metadata_found);
    let mut checked = keep(object);
    if reading.whole {
        checked = with_empty_spec(checked, schema, (group, kind), anchor);
    }
    let old_checked = old_object.map(keep);
    let mut found = Vec::new();
    // Native Go types decode numbers: no numeric format of the schema is checked as kube-openapi does.
    validate(&checked, schema, &root_path, anchor, Numbers::Native, &mut found);
    validate_lists(&checked, schema, &root_path, &mut found);
    found.retain(|d| {
        !(d.code == codes::SCHEMA_LIST_MAP_DUPLICATE && d.path.as_deref().is_some_and(|p| only_warned_duplicate(group, kind, p)))
    });
    found.retain(|d| {
        let Some(path) = d.path.as_deref() else { return true };
        match d.code {
            codes::SCHEMA_REQUIRED => {
                let native_reports_it = reading.whole && native::reports_missing(target, path);
                !(builtin::required_but_not_enforced(group, kind, path) || native_reports_it)
            }
            // Go decodes `format: byte` with its base64 decoder, which takes an empty string and skips
            // line breaks (a wrapped certificate); the OpenAPI format does neither.
            codes::SCHEMA_FORMAT if d.cause.as_deref().is_some_and(|c| c.contains(" must be of type byte: ")) => {
                !node_at(&checked, path).ok().and_then(Node::as_str).is_some_and(builtin::go_base64)
            }
            _ => true,
        }
    });
    // What Go's decoder refuses stops the request at decoding, in its words.
    for d in found
        .iter_mut()
        .filter(|d| d.code == codes::SCHEMA_FORMAT && d.cause.as_deref().is_some_and(|c| c.contains(" must be of type byte: ")))
    {
        let text = d.path.as_deref().and_then(|p| node_at(&checked, p).ok()).and_then(Node::as_str);
        if let Some(Err(at)) = text.map(crdls_go::base64::check_std) {
            d.message = format!("illegal base64 data at input byte {at}");
            d.cause =
                Some(format!("{kind} in version \"{version}\" cannot be handled as a {kind}: illegal base64 data at input byte {at}"));
        }
    }
    if let Some(old) = &old_checked {
        found.retain(|d| !d.path.as_deref().is_some_and(|p| unchanged_at(&checked, old, p)));
    }
    found.append(&mut metadata_found);
    if reading.whole {
        native::validate(&checked, schema, target, anchor, &mut found);
        // A quantity Go cannot decode is the API server's whole answer about that value: the schema's
        // words for it (a boolean where a string or number goes) are not the API server's.
        let refused: Vec<TextRange> = found.iter().filter(|d| d.code == codes::NATIVE_QUANTITY).map(|d| d.range).collect();
        found.retain(|d| !(d.code.starts_with("schema/") && refused.contains(&d.range)));
        // What Go's decoder refuses, in its words; the refusal the API server answers with says so.
        crate::decode::apply(root, (group, version, kind), &mut found);
    }
    out.append(&mut found);
}

/// Whether an object says it is configuration for a KRM tool rather than something to apply: the
/// annotation `config.kubernetes.io/local-config: "true"` (kustomize and kpt leave such objects out of
/// what they output) or `config.kubernetes.io/function` (a KRM function's configuration, read by the
/// function).
fn is_local_config(root: &Node) -> bool {
    let Some(annotations) = root.get("metadata").and_then(|m| m.get("annotations")) else { return false };
    annotations.get_str("config.kubernetes.io/local-config") == Some("true") || annotations.get("config.kubernetes.io/function").is_some()
}

/// Whether a duplicate item of a built-in map list at `path` is not the API server's error in the
/// list type's words. The list types of built-in kinds are server-side apply's merge keys; create and
/// update check uniqueness only where native validation does, in its own words:
/// - a container's env entry of a name already listed and a container port listed twice are
///   accepted with a warning ("hides previous definition", "duplicate port definition");
/// - containers of one name and a Service's ports of one port and protocol are errors that the
///   native rules report, on the name and on the port with the API server's value.
fn only_warned_duplicate(group: &str, kind: &str, path: &str) -> bool {
    let mut segments = path.rsplit('.');
    let Some(item) = segments.next() else { return false };
    let containers = ["containers[", "initContainers[", "ephemeralContainers["];
    if containers.iter().any(|c| item.starts_with(c))
        || (group, kind) == ("", "Service") && path.strip_prefix("spec.ports[").is_some_and(|rest| !rest.contains('.'))
    {
        return true;
    }
    let Some(container) = segments.next() else { return false };
    let in_container = containers.iter().any(|c| container.starts_with(c));
    in_container && (item.starts_with("env[") || item.starts_with("ports["))
}

/// The kinds whose empty spec the API server rejects with the errors the schema's `required` and the
/// native rules give for it: the workloads (a selector and a pod template's containers), Jobs and
/// CronJobs (a schedule, containers and a restart policy) and Pods (containers). Other kinds' schemas
/// mark fields required whose Go types are structs, not pointers, and the API server words their
/// absence otherwise (FlowSchema's `spec.priorityLevelConfiguration.name`), so they are left alone.
const SPEC_REQUIRED: &[(&str, &str)] = &[
    ("", "Pod"),
    ("apps", "Deployment"),
    ("apps", "ReplicaSet"),
    ("apps", "StatefulSet"),
    ("apps", "DaemonSet"),
    ("batch", "Job"),
    ("batch", "CronJob"),
];

/// A whole built-in object without `spec`, given an empty one when its kind is one of
/// [`SPEC_REQUIRED`]: Go decodes the missing struct as its zero value and validates that (a Deployment
/// without a spec has no selector and no containers, a CronJob no schedule). The empty spec sits at
/// `anchor` (the kind), where what it lacks is reported.
fn with_empty_spec(object: Node, schema: &Schema, (group, kind): (&str, &str), anchor: TextRange) -> Node {
    let Value::Map(mut entries) = object.value else { return object };
    let required = SPEC_REQUIRED.contains(&(group, kind)) && schema.property("spec").is_some();
    if required && !entries.iter().any(|e| e.key == "spec") {
        let spec = Node { range: anchor, value: Value::Map(Vec::new()), style: crdls_yaml::Style::Flow };
        entries.push(crdls_yaml::Entry { key: "spec".to_string(), key_range: anchor, value: spec });
    }
    Node { range: object.range, value: Value::Map(entries), style: object.style }
}

fn check_version_flags(crd: &IndexedCrd, version: &CrdVersion, kind: &str, at: &Node, out: &mut Vec<Diagnostic>) {
    let api_version = crd.crd.api_version_of(&version.name);
    if !version.served {
        let served: Vec<&str> = crd.crd.versions.iter().filter(|v| v.served).map(|v| v.name.as_str()).collect();
        let alternatives = if served.is_empty() { "no version is served".to_string() } else { format!("served: {}", served.join(", ")) };
        out.push(
            Diagnostic::new(
                at.range,
                Severity::Error,
                codes::RESOURCE_VERSION_NOT_SERVED,
                format!("version {} of {kind} is not served by CRD {} ({alternatives})", version.name, crd.crd.name),
            )
            .with_path("apiVersion")
            .with_cause(format!("no matches for kind \"{kind}\" in version \"{api_version}\"")),
        );
    }
    // An unserved version already gets its error; a deprecation warning on top would only repeat it.
    if version.deprecated && version.served {
        let text = match &version.deprecation_warning {
            Some(w) => w.clone(),
            None => default_deprecation_warning(crd, version, kind),
        };
        out.push(
            Diagnostic::new(at.range, Severity::Warning, codes::RESOURCE_DEPRECATED_VERSION, text.clone())
                .with_path("apiVersion")
                .with_cause(text),
        );
    }
}

/// The API server's warning for a deprecated version without `deprecationWarning`.
fn default_deprecation_warning(crd: &IndexedCrd, version: &CrdVersion, kind: &str) -> String {
    let mut text = format!("{} {kind} is deprecated", crd.crd.api_version_of(&version.name));
    let better = crd.crd.versions.iter().find(|v| v.served && !v.deprecated && compare_stability(v, version));
    if let Some(better) = better {
        text.push_str(&format!("; use {} {kind}", crd.crd.api_version_of(&better.name)));
    }
    text
}

fn compare_stability(candidate: &CrdVersion, deprecated: &CrdVersion) -> bool {
    crdls_crd::compare_versions(&candidate.name, &deprecated.name).is_lt()
}

/// How the API server treats an object's `status` on a write of the main resource.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Status {
    /// No status subresource: status is part of the object and validated with it.
    Validated,
    /// With the status subresource, a create drops status and an update keeps the stored one, after
    /// pruning: unknown fields under status are still reported (decoding prunes the whole body), but
    /// its values are never validated and cannot stop the CEL rules.
    Ignored,
}

/// An info at the `status` key of an object whose CRD version has the status subresource, since a
/// user who writes a status may expect it to be applied.
fn note_ignored_status(root: &Node, crd: &IndexedCrd, out: &mut Vec<Diagnostic>) {
    let Some(status) = root.entry("status") else { return };
    out.push(
        Diagnostic::new(
            status.key_range,
            Severity::Information,
            codes::RESOURCE_STATUS_IGNORED,
            format!(
                "status is not validated or applied: CRD {} has the status subresource, so the API server drops status on create and keeps the stored status on update (it is written through /status)",
                crd.crd.name
            ),
        )
        .with_path("status"),
    );
}

/// What applies to one object beyond its schema.
#[derive(Clone, Copy)]
struct ObjectRules {
    status: Status,
    /// Whether the CEL rules run: not on partial objects, since rules see the whole object.
    run_cel: bool,
}

/// `object` without its `status` entry.
fn without_status(object: Node) -> Node {
    without(object, "status")
}

/// `object` without its entry `key`.
fn without(object: Node, key: &str) -> Node {
    match object.value {
        Value::Map(entries) => {
            Node { range: object.range, value: Value::Map(entries.into_iter().filter(|e| e.key != key).collect()), style: object.style }
        }
        _ => object,
    }
}

/// Prune, default, validate: the API server's order for a custom resource.
fn validate_object(
    root: &Node,
    old: Option<&Node>,
    schema: &Schema,
    anchor: TextRange,
    rules: ObjectRules,
    options: &CheckOptions,
    out: &mut Vec<Diagnostic>,
) {
    let mut pruned = Vec::new();
    let mut object = prune_and_default(root, schema, &mut pruned);
    let old_object = old.map(|o| prune_and_default(o, schema, &mut Vec::new()));
    if rules.status == Status::Ignored {
        // A create drops the status sent; an update keeps the stored one in its place (the strategy's
        // PrepareForUpdate), so rules that read status see it, and its unchanged values ratchet.
        let kept = old_object.as_ref().and_then(|o| o.entry("status")).map(|e| {
            let at = object.entry("status").map_or(anchor, |s| s.key_range);
            crdls_yaml::Entry { key: e.key.clone(), key_range: at, value: relocated(&e.value, at) }
        });
        object = without_status(object);
        if let (Some(entry), Value::Map(entries)) = (kept, &mut object.value) {
            entries.push(entry);
        }
    }
    unknown_fields(&pruned, options, out);
    let root_path = FieldPath::root();
    let mut found = Vec::new();
    validate(&object, schema, &root_path, anchor, Numbers::of_release(release_minor(options)), &mut found);
    // The registry fills metadata (uid, creationTimestamp) before validation, so a schema's
    // `required: [metadata]` always holds by then.
    found.retain(|d| !(d.code == codes::SCHEMA_REQUIRED && d.path.as_deref() == Some("metadata")));
    if let Some(old) = &old_object {
        // Ratcheting: a schema error on a value the update does not change is let through.
        found.retain(|d| !d.path.as_deref().is_some_and(|p| ratcheted(&object, old, schema, p)));
    }
    // List types ratchet as a whole (the strategy's ValidateUpdate): an update reports the new
    // object's list-type errors only when the stored object has none.
    let mut lists = Vec::new();
    validate_lists(&object, schema, &root_path, &mut lists);
    if let (false, Some(old)) = (lists.is_empty(), &old_object) {
        let mut stored = Vec::new();
        validate_lists(old, schema, &root_path, &mut stored);
        if !stored.is_empty() {
            lists.clear();
        }
    }
    found.append(&mut lists);
    // An update's ObjectMeta is checked by the registry alone (`ValidateObjectMetaAccessor` with path
    // segment names, then the update's immutability rules), not by the strategy, which requires a
    // DNS subdomain only of a create's name.
    let name_rules = if old_object.is_some() { NameRules::PathSegment } else { NameRules::Object };
    validate_metadata(&object, &root_path, name_rules, release_minor(options), anchor, &mut found);
    validate_embedded(&object, schema, &root_path, &mut found);
    let blocking: Vec<TextRange> = found.iter().filter(|d| blocks_rules(d, old.is_none())).map(|d| d.range).collect();
    out.append(&mut found);
    if cel::runs_rules(schema) && rules.run_cel {
        // The API server runs the rules only when schema validation left no blocking error. The info
        // sits on the first blocking error, so it reads after it in every listing.
        if let Some(first) = blocking.iter().min_by_key(|r| (r.start, r.end)) {
            out.push(cel::skipped(*first, blocking.len()));
        } else {
            cel::validate_rules(&object, old_object.as_ref(), schema, anchor, out);
        }
    }
}

/// `node` with every range set to `at`: a value of the stored object placed in the one being
/// checked, so that what is reported about it lands in the document checked, not in the old one.
fn relocated(node: &Node, at: TextRange) -> Node {
    let value = match &node.value {
        Value::Map(entries) => Value::Map(
            entries.iter().map(|e| crdls_yaml::Entry { key: e.key.clone(), key_range: at, value: relocated(&e.value, at) }).collect(),
        ),
        Value::Seq(items) => Value::Seq(items.iter().map(|i| relocated(i, at)).collect()),
        other => other.clone(),
    };
    Node { range: at, value, style: node.style }
}

/// The error of a status update to a CRD version without the status subresource: the API server
/// serves no `/status` path for it.
fn no_status_subresource(crd: &IndexedCrd, version: &CrdVersion, at: TextRange, out: &mut Vec<Diagnostic>) {
    out.push(
        Diagnostic::new(
            at,
            Severity::Error,
            codes::RESOURCE_NO_STATUS_SUBRESOURCE,
            format!(
                "version {} of CRD {} has no status subresource, so there is no /status to write to (its status is written with the object)",
                version.name, crd.crd.name
            ),
        )
        .with_cause("the server could not find the requested resource"),
    );
}

/// A write to the status subresource, as the API server's status strategy does it: the stored object
/// (the old one, or this document's own spec and metadata when there is none) takes the status sent,
/// and only that status is validated against the schema of `status`, ratcheted against the stored
/// status; list types and the CEL rules then run on the whole object, against the stored one, so
/// rules on the unchanged spec are ratcheted and root rules see the new status. Unknown fields are
/// those of the whole body sent, which is decoded before anything is taken from it.
fn validate_status_update(
    root: &Node,
    old: Option<&Node>,
    schema: &Schema,
    anchor: TextRange,
    run_cel: bool,
    options: &CheckOptions,
    out: &mut Vec<Diagnostic>,
) {
    let mut pruned = Vec::new();
    let sent = prune_and_default(root, schema, &mut pruned);
    unknown_fields(&pruned, options, out);
    // The handler decodes the whole body before the status strategy takes only its status: metadata
    // that does not decode (the object's, or an embedded resource's) refuses the request.
    let mut decoded = Vec::new();
    validate_metadata(&sent, &FieldPath::root(), NameRules::Object, release_minor(options), anchor, &mut decoded);
    validate_embedded(&sent, schema, &FieldPath::root(), &mut decoded);
    out.extend(decoded.into_iter().filter(|d| d.code == codes::METADATA_TYPE));
    let stored = match old {
        Some(old) => {
            let old = prune_and_default(old, schema, &mut Vec::new());
            // The stored object's values sit at the keys of the document sent that name them.
            let entries = old
                .as_map()
                .unwrap_or_default()
                .iter()
                .map(|e| {
                    let at = sent.entry(&e.key).map_or(anchor, |s| s.key_range);
                    crdls_yaml::Entry { key: e.key.clone(), key_range: at, value: relocated(&e.value, at) }
                })
                .collect();
            Node { range: sent.range, value: Value::Map(entries), style: sent.style }
        }
        None => without_status(sent.clone()),
    };
    let mut object = without_status(stored.clone());
    if let (Some(status), Value::Map(entries)) = (sent.entry("status"), &mut object.value) {
        entries.push(status.clone());
    }
    let root_path = FieldPath::root();
    let mut found = Vec::new();
    if let (Some(status), Some(status_schema)) = (object.get("status"), schema.property("status")) {
        // The status validator's root is status itself: its messages name fields from there
        // (`observedGeneration in body ...`), its errors' paths from the object's root.
        validate(status, &status_schema.schema, &root_path, anchor, Numbers::of_release(release_minor(options)), &mut found);
        for d in &mut found {
            // An error at the status validator's root has no path of its own (`<nil>`).
            let path = d.path.take().unwrap_or_default();
            let full = match path.as_str() {
                "" => "status".to_string(),
                p if p.starts_with('[') => format!("status{p}"),
                p => format!("status.{p}"),
            };
            if let Some(cause) = d.cause.as_mut() {
                let printed = if path.is_empty() { "<nil>" } else { path.as_str() };
                if cause.starts_with(&format!("{printed}: ")) {
                    *cause = format!("{full}{}", &cause[printed.len()..]);
                }
            }
            d.path = Some(full);
        }
        found.retain(|d| !d.path.as_deref().is_some_and(|p| ratcheted(&object, &stored, schema, p)));
    }
    // List types are checked on the whole object, and only when the stored one has no such error.
    let mut lists = Vec::new();
    validate_lists(&object, schema, &root_path, &mut lists);
    if !lists.is_empty() {
        let mut stored_lists = Vec::new();
        validate_lists(&stored, schema, &root_path, &mut stored_lists);
        if stored_lists.is_empty() {
            found.append(&mut lists);
        }
    }
    validate_metadata(&object, &root_path, NameRules::Object, release_minor(options), anchor, &mut found);
    let blocking: Vec<TextRange> = found.iter().filter(|d| blocks_rules(d, false)).map(|d| d.range).collect();
    out.append(&mut found);
    if cel::runs_rules(schema) && run_cel {
        if let Some(first) = blocking.iter().min_by_key(|r| (r.start, r.end)) {
            out.push(cel::skipped(*first, blocking.len()));
        } else {
            cel::validate_rules(&object, Some(&stored), schema, anchor, out);
        }
    }
}

/// The schema errors after which the API server does not run CEL rules: unsupported values, required
/// values, too long or too many, and values of the wrong type or format.
const BLOCKING: &[&str] = &[
    codes::SCHEMA_ENUM,
    codes::SCHEMA_REQUIRED,
    codes::SCHEMA_MAX_LENGTH,
    codes::SCHEMA_MAX_ITEMS,
    codes::SCHEMA_MAX_PROPERTIES,
    codes::SCHEMA_TYPE,
    codes::SCHEMA_FORMAT,
];

/// Whether an error stops the API server from running the CEL rules (`hasBlockingErr`: an error of
/// type Unsupported value, Required value, Too long, Too many or a type error). Besides the schema's
/// errors above, the strategy's own ObjectMeta checks (a missing name, annotations over the size
/// limit, an owner reference's empty field) count by their type on a create (on an update the registry
/// runs them, outside the strategy's list), and so does an embedded resource's missing `apiVersion` or
/// `kind`; an embedded resource's empty `kind` (`Invalid value`) does not.
fn blocks_rules(d: &Diagnostic, create: bool) -> bool {
    if BLOCKING.contains(&d.code) {
        // kube-openapi's range error (a value or bound that does not fit an integer or number type
        // and format: `<nil>: Invalid value: "": Checked value must be of type integer with format
        // int32 in spec`) is an Invalid value, not a type error: the rules still run.
        let range_error =
            d.cause.as_deref().is_some_and(|c| c.starts_with("<nil>: Invalid value: \"\": ") && c.contains(" value must be of type "));
        return !range_error;
    }
    // The ObjectMeta checks of a create are the strategy's; an update's are the registry's own.
    let by_type = d.code.starts_with("metadata/") && create || d.code == codes::SCHEMA_EMBEDDED_RESOURCE;
    by_type
        && d.cause.as_deref().is_some_and(|c| {
            [ErrorType::NotSupported, ErrorType::Required, ErrorType::TooLong, ErrorType::TooMany]
                .iter()
                .any(|t| c.contains(&format!(": {}", t.as_str())))
        })
}

/// What the API server finds wrong with an embedded resource's non-empty `apiVersion` or `kind`
/// (`validateEmbeddedResource` in apiextensions-apiserver's `objectmeta`): an `apiVersion` that
/// `schema.ParseGroupVersion` refuses (more than one slash), a `kind` that is not a DNS-1035 label once
/// lower-cased.
fn embedded_name_problem(field: &str, value: &str) -> Option<String> {
    if field == "kind" {
        let errs = crdls_go::names::dns1035_label(&value.to_lowercase());
        (!errs.is_empty()).then(|| format!("may have mixed case, but should otherwise match: {}", errs.join(",")))
    } else {
        (value.matches('/').count() > 1).then(|| format!("unexpected GroupVersion string: {value}"))
    }
}

/// Embedded resources (`x-kubernetes-embedded-resource`) need `apiVersion`, `kind` and valid metadata.
fn validate_embedded(node: &Node, schema: &Schema, path: &FieldPath<'_>, out: &mut Vec<Diagnostic>) {
    use crdls_crd::AdditionalProperties;
    match &node.value {
        Value::Map(entries) => {
            if schema.embedded_resource && !path.is_root() {
                for field in ["apiVersion", "kind"] {
                    let (ty, value, detail, at, code) = match node.get(field) {
                        None => (ErrorType::Required, None, String::new(), node.range, codes::SCHEMA_EMBEDDED_RESOURCE),
                        // The handler's coercion refuses the request before validation
                        // (`objectmeta.Coerce`).
                        Some(v) if !matches!(v.value, Value::Str(_)) => {
                            (ErrorType::Invalid, Some(gofmt::value(v)), "must be a string".into(), v.range, codes::METADATA_TYPE)
                        }
                        Some(v) if v.as_str() == Some("") => (
                            ErrorType::Invalid,
                            Some(gofmt::quote("")),
                            "must not be empty".into(),
                            v.range,
                            codes::SCHEMA_EMBEDDED_RESOURCE,
                        ),
                        Some(v) => match embedded_name_problem(field, v.as_str().unwrap_or_default()) {
                            Some(detail) => (ErrorType::Invalid, Some(gofmt::value(v)), detail, v.range, codes::SCHEMA_EMBEDDED_RESOURCE),
                            None => continue,
                        },
                    };
                    let err = FieldError { ty, path: path.field(field).to_string(), value, detail: detail.to_string() };
                    let message =
                        if detail.is_empty() { format!("an embedded resource needs {field}") } else { format!("{field} {detail}") };
                    out.push(err.diagnostic(at, Severity::Error, code, message));
                }
                if let Some(metadata) = node.get("metadata") {
                    let first = out.len();
                    validate_metadata(node, path, NameRules::Embedded, NEWEST_KUBERNETES_MINOR, node.range, out);
                    // The handler's coercion decodes an embedded resource's metadata as a whole, and
                    // refuses the request with the first decoding error, at `metadata`, quoting it.
                    for d in out[first..].iter_mut().filter(|d| d.code == codes::METADATA_TYPE) {
                        if let Some(cause) = d.cause.take() {
                            let err = FieldError {
                                ty: ErrorType::Invalid,
                                path: path.field("metadata").to_string(),
                                value: Some(gofmt::value(metadata)),
                                detail: cause,
                            };
                            d.cause = Some(err.cause());
                        }
                    }
                }
            }
            for entry in entries {
                let child = schema.property(&entry.key).map(|p| &p.schema).or(match &schema.additional_properties {
                    Some(AdditionalProperties::Schema(s)) => Some(s),
                    _ => None,
                });
                if let Some(child) = child {
                    validate_embedded(&entry.value, child, &path.field(&entry.key), out);
                }
            }
        }
        Value::Seq(items) => {
            if let Some(item_schema) = &schema.items {
                for (i, item) in items.iter().enumerate() {
                    validate_embedded(item, item_schema, &path.index(i), out);
                }
            }
        }
        _ => {}
    }
}

/// How many declared names an object's unknown fields are compared with, in all, for did-you-mean
/// hints: enough for every hint a reader can use, while a resource with thousands of unknown fields
/// beside thousands of declared ones stays linear (later fields get no hint).
const SUGGESTION_BUDGET: usize = 200_000;

fn unknown_fields(pruned: &[PrunedField], options: &CheckOptions, out: &mut Vec<Diagnostic>) {
    let mut budget = SUGGESTION_BUDGET;
    for field in pruned {
        let suggest = budget >= field.known.len();
        budget = budget.saturating_sub(field.known.len());
        out.push(unknown_field(field, suggest, options));
    }
}

fn unknown_field(field: &PrunedField, suggest: bool, options: &CheckOptions) -> Diagnostic {
    let name = field.path.rsplit(['.', ']']).next().unwrap_or(&field.path);
    let hint = match suggest.then(|| did_you_mean(name, field.known.iter().map(String::as_str))).flatten() {
        Some(s) => format!("; did you mean \"{s}\"?"),
        None => String::new(),
    };
    let (severity, what, cause) = if options.strict {
        (Severity::Error, "is rejected (strict field validation)", format!("strict decoding error: unknown field \"{}\"", field.path))
    } else {
        (Severity::Warning, "would be pruned", format!("unknown field \"{}\"", field.path))
    };
    Diagnostic::new(
        field.key_range,
        severity,
        codes::SCHEMA_UNKNOWN_FIELD,
        format!("unknown field \"{}\" {what}: it is not in the schema{hint}", field.path),
    )
    .with_path(field.path.clone())
    .with_cause(cause)
}

#[cfg(test)]
mod suggestion_tests {
    use std::sync::Arc;

    use super::*;

    #[test]
    fn did_you_mean_work_is_bounded_per_object() {
        // 1,000 unknown fields `q0..` beside 1,000 declared `p0..`, each one edit from a declared one:
        // hints stop once the comparisons reach the budget, so the work is linear, not 1,000 x 1,000.
        let known: Arc<[String]> = (0..1_000).map(|i| format!("p{i}")).collect();
        let pruned: Vec<PrunedField> =
            (0..1_000).map(|i| PrunedField { path: format!("spec.q{i}"), key_range: TextRange::empty(0), known: known.clone() }).collect();
        let mut out = Vec::new();
        unknown_fields(&pruned, &CheckOptions::default(), &mut out);
        let hinted: Vec<usize> = out.iter().enumerate().filter(|(_, d)| d.message.contains("did you mean")).map(|(i, _)| i).collect();
        assert_eq!(hinted, (0..SUGGESTION_BUDGET / 1_000).collect::<Vec<_>>());
        assert!(out[0].message.ends_with("did you mean \"p0\"?"), "{}", out[0].message);
    }
}

#[cfg(test)]
mod release_tests {
    use super::*;

    #[test]
    fn the_known_releases_are_the_shipped_schemas() {
        let shipped = crdls_builtins::kubernetes_versions();
        let minors: Vec<u32> = shipped.iter().map(|v| u32::from(v.minor())).collect();
        assert_eq!(minors, (OLDEST_KUBERNETES_MINOR..=NEWEST_KUBERNETES_MINOR).collect::<Vec<_>>());
        assert_eq!(target_release(&CheckOptions::default()), crdls_builtins::newest());
    }
}
