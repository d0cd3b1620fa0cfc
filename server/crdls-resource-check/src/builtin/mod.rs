//! What crdls knows of Kubernetes' built-in API groups: the kinds each group has served since 1.16
//! (to catch `kind: configmap`, also in groups crdls ships no schemas of), the rule its object names
//! follow (for ObjectMeta checks), and which group/version/kinds a release serves, with their schemas
//! (`served.rs`).

use crate::metadata::NameRules;

mod served;

pub use served::{resolve, Resolved};

/// The kinds of the API groups a Kubernetes API server serves itself, by group (`""` is the core
/// group), over every release since 1.16: groups and kinds that were removed since (`extensions`,
/// `settings.k8s.io`) are kept, since a file may target an older cluster. Also the groups of the
/// aggregated APIs every cluster has (metrics). A CRD can never claim these groups.
const KINDS: &[(&str, &[&str])] = &[
    (
        "",
        &[
            "Binding",
            "ComponentStatus",
            "ConfigMap",
            "Endpoints",
            "Event",
            "LimitRange",
            "Namespace",
            "Node",
            "PersistentVolume",
            "PersistentVolumeClaim",
            "Pod",
            "PodTemplate",
            "ReplicationController",
            "ResourceQuota",
            "Secret",
            "Service",
            "ServiceAccount",
        ],
    ),
    ("apps", &["ControllerRevision", "DaemonSet", "Deployment", "ReplicaSet", "StatefulSet"]),
    ("batch", &["CronJob", "Job"]),
    ("autoscaling", &["HorizontalPodAutoscaler", "Scale"]),
    ("policy", &["Eviction", "PodDisruptionBudget", "PodSecurityPolicy"]),
    ("extensions", &["DaemonSet", "Deployment", "Ingress", "NetworkPolicy", "PodSecurityPolicy", "ReplicaSet", "Scale"]),
    ("networking.k8s.io", &["ClusterCIDR", "IPAddress", "Ingress", "IngressClass", "NetworkPolicy", "ServiceCIDR"]),
    ("storage.k8s.io", &["CSIDriver", "CSINode", "CSIStorageCapacity", "StorageClass", "VolumeAttachment", "VolumeAttributesClass"]),
    ("scheduling.k8s.io", &["CompositePodGroup", "PodGroup", "PriorityClass", "Workload"]),
    ("coordination.k8s.io", &["Lease", "LeaseCandidate"]),
    ("discovery.k8s.io", &["EndpointSlice"]),
    ("node.k8s.io", &["RuntimeClass"]),
    ("certificates.k8s.io", &["CertificateSigningRequest", "ClusterTrustBundle", "PodCertificateRequest"]),
    (
        "admissionregistration.k8s.io",
        &[
            "MutatingWebhookConfiguration",
            "ValidatingWebhookConfiguration",
            "ValidatingAdmissionPolicy",
            "ValidatingAdmissionPolicyBinding",
            "MutatingAdmissionPolicy",
            "MutatingAdmissionPolicyBinding",
        ],
    ),
    ("rbac.authorization.k8s.io", &["ClusterRole", "ClusterRoleBinding", "Role", "RoleBinding"]),
    ("authentication.k8s.io", &["SelfSubjectReview", "TokenRequest", "TokenReview"]),
    ("authorization.k8s.io", &["LocalSubjectAccessReview", "SelfSubjectAccessReview", "SelfSubjectRulesReview", "SubjectAccessReview"]),
    ("apiextensions.k8s.io", &["CustomResourceDefinition"]),
    ("apiregistration.k8s.io", &["APIService"]),
    ("events.k8s.io", &["Event"]),
    ("flowcontrol.apiserver.k8s.io", &["FlowSchema", "PriorityLevelConfiguration"]),
    ("internal.apiserver.k8s.io", &["StorageVersion"]),
    (
        "resource.k8s.io",
        &[
            "DeviceClass",
            "DeviceTaintRule",
            "PodScheduling",
            "PodSchedulingContext",
            "ResourceClaim",
            "ResourceClaimParameters",
            "ResourceClaimTemplate",
            "ResourceClass",
            "ResourceClassParameters",
            "ResourcePoolStatusRequest",
            "ResourceSlice",
        ],
    ),
    ("lifecycle.k8s.io", &["Eviction", "EvictionRequest"]),
    ("storagemigration.k8s.io", &["StorageVersionMigration"]),
    ("settings.k8s.io", &["PodPreset"]),
    ("auditregistration.k8s.io", &["AuditSink"]),
    ("metrics.k8s.io", &["NodeMetrics", "PodMetrics"]),
    ("custom.metrics.k8s.io", &["MetricValueList"]),
    ("external.metrics.k8s.io", &["ExternalMetricValueList"]),
];

/// Groups of Kubernetes configuration files: YAML with `apiVersion` and `kind` that no API server
/// serves (kubelet, kubeadm, kube-proxy and scheduler configuration, audit policies, admission and
/// encryption configuration, exec credentials, kustomizations, kubectl preferences), and of the
/// configuration files of tools that live beside manifests (kind, clusterctl, Chainsaw and Kyverno
/// CLI tests, KRM functions).
const CONFIG_GROUPS: &[&str] = &[
    "apiserver.config.k8s.io",
    "apiserver.k8s.io",
    "audit.k8s.io",
    "client.authentication.k8s.io",
    "cloudcontrollermanager.config.k8s.io",
    "config.k8s.io",
    "controllermanager.config.k8s.io",
    "credentialprovider.kubelet.k8s.io",
    "eventratelimit.admission.k8s.io",
    "imagepolicy.k8s.io",
    "admission.k8s.io",
    "apidiscovery.k8s.io",
    "kubeadm.k8s.io",
    "output.kubeadm.k8s.io",
    "kubecontrollermanager.config.k8s.io",
    "kubectl.config.k8s.io",
    "kubelet.config.k8s.io",
    "kubeproxy.config.k8s.io",
    "kubescheduler.config.k8s.io",
    "kustomize.config.k8s.io",
    "pod-security.admission.config.k8s.io",
    "podsecurity.admission.config.k8s.io",
    "podtolerationrestriction.admission.k8s.io",
    "resourcequota.admission.k8s.io",
    // Tools' own configuration files.
    "kind.x-k8s.io",
    "clusterctl.cluster.x-k8s.io",
    "chainsaw.kyverno.io",
    "cli.kyverno.io",
    "config.kubernetes.io",
    "kpt.dev",
];

/// Kinds written with `apiVersion: v1` that are configuration files, not objects of the core group:
/// kubeconfig files, the legacy scheduler policy and encryption configuration.
const CORE_CONFIG_KINDS: &[&str] = &["Config", "Policy", "EncryptionConfig"];

/// Whether a core-group (`apiVersion: v1`) `kind` is a configuration file.
pub fn is_core_config_kind(kind: &str) -> bool {
    CORE_CONFIG_KINDS.contains(&kind)
}

/// Whether `group` belongs to Kubernetes itself rather than to a CRD: the core group, a group the API
/// server serves, a configuration-file group, or any dot-less group (a CRD's group must contain a
/// dot). Groups that merely end in `.k8s.io`, such as `gateway.networking.k8s.io` or
/// `snapshot.storage.k8s.io`, are CRD groups and are not built in.
pub fn is_builtin_group(group: &str) -> bool {
    !group.contains('.') || kinds(group).is_some() || is_config_group(group)
}

/// Whether `group` is one of Kubernetes' configuration-file groups.
pub fn is_config_group(group: &str) -> bool {
    CONFIG_GROUPS.contains(&group)
}

/// The kinds of a built-in group, when crdls knows the group.
pub fn kinds(group: &str) -> Option<&'static [&'static str]> {
    KINDS.iter().find(|(g, _)| *g == group).map(|(_, kinds)| *kinds)
}

/// Fields the OpenAPI documents mark required that the API server does not require: its decoder
/// leaves a missing field at its zero value, and its validation accepts that value or its defaulting
/// replaces it. As (group, kind or `*`, path with `[]` for list indexes, or a path suffix starting with
/// `.` for any kind of the group or `*` for any group).
const NOT_REQUIRED: &[(&str, &str, &str)] = &[
    // Optional to the API server's validation; the documents mark it required up to 1.32.
    ("apps", "StatefulSet", "spec.serviceName"),
    // A DaemonSet without a selector is refused because it then matches no template labels, which the
    // native selector check reports.
    ("apps", "DaemonSet", "spec.selector"),
    // An empty selector selects every pod; the documents mark it required up to 1.33.
    ("networking.k8s.io", "NetworkPolicy", "spec.podSelector"),
    // Defaulted to rbac.authorization.k8s.io.
    ("rbac.authorization.k8s.io", "*", "roleRef.apiGroup"),
    // 0 is a valid priority, revision, logical unit number; an empty list of endpoints or limits is valid.
    ("scheduling.k8s.io", "PriorityClass", "value"),
    ("apps", "ControllerRevision", "revision"),
    ("*", "*", ".iscsi.lun"),
    ("discovery.k8s.io", "EndpointSlice", "endpoints"),
    ("", "LimitRange", "spec.limits"),
];

/// Whether the API server lets a built-in object leave out the field at `path` (as the API server
/// prints it) although its schema says it is required.
pub fn required_but_not_enforced(group: &str, kind: &str, path: &str) -> bool {
    let general = generalized(path);
    NOT_REQUIRED.iter().any(|(g, k, p)| {
        (*g == "*" || *g == group)
            && (*k == "*" || *k == kind)
            && match p.strip_prefix('.') {
                Some(bare) => general.ends_with(p) || general == bare,
                None => general == *p,
            }
    })
}

/// Whether Go's decoder takes `text` as the base64 of a `[]byte`: standard encoding with padding, line
/// breaks skipped, and the empty string.
pub fn go_base64(text: &str) -> bool {
    crdls_go::base64::check_std(text).is_ok()
}

/// `path` with every list index written `[]`.
fn generalized(path: &str) -> String {
    let mut out = String::with_capacity(path.len());
    let mut in_index = false;
    for c in path.chars() {
        match c {
            '[' => {
                in_index = true;
                out.push('[');
            }
            ']' => {
                in_index = false;
                out.push(']');
            }
            c if in_index && c.is_ascii_digit() => {}
            c => out.push(c),
        }
    }
    out
}

/// The built-in groups crdls knows, the core group (`""`) first.
pub fn groups() -> impl Iterator<Item = &'static str> {
    KINDS.iter().map(|(group, _)| *group)
}

/// The name rule of a built-in kind in release 1.`minor`: RBAC objects allow path segments
/// (`system:controller`), Namespaces, StatefulSets and Services take DNS labels, everything else here
/// is a DNS subdomain (kinds with stricter rules accept fewer names, never more).
pub fn name_rules(group: &str, kind: &str, minor: u32) -> NameRules {
    match (group, kind) {
        ("rbac.authorization.k8s.io", _) => NameRules::PathSegment,
        // `ValidateNamespaceName` and `ValidateStatefulSetName` are `NameIsDNSLabel`.
        ("", "Namespace") | ("apps", "StatefulSet") => NameRules::Label,
        // `ValidateServiceName` is `NameIsDNS1035Label`; RelaxedServiceNameValidation (on by default
        // from 1.36) checks a Service's name as a DNS-1123 label on create.
        ("", "Service") if minor >= 36 => NameRules::Label,
        ("", "Service") => NameRules::Dns1035Label,
        _ => NameRules::Object,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn required_fields_the_api_server_does_not_require() {
        assert!(required_but_not_enforced("apps", "StatefulSet", "spec.serviceName"));
        assert!(!required_but_not_enforced("apps", "Deployment", "spec.serviceName"));
        assert!(required_but_not_enforced("rbac.authorization.k8s.io", "ClusterRoleBinding", "roleRef.apiGroup"));
        assert!(required_but_not_enforced("apps", "Deployment", "spec.template.spec.volumes[3].iscsi.lun"));
        assert!(required_but_not_enforced("", "PersistentVolume", "spec.iscsi.lun"));
        assert!(!required_but_not_enforced("", "Pod", "spec.volumes[0].iscsi.iqn"));
        assert_eq!(generalized("a[12].b[0].c"), "a[].b[].c");
    }

    #[test]
    fn go_decodes_base64_with_line_breaks_and_empty() {
        assert!(go_base64(""));
        assert!(go_base64("aGVs\nbG8=\n"));
        assert!(!go_base64("<BASE64_ENCODED_P12_CERTIFICATE>"));
        assert!(!go_base64("aGVsbG8"));
    }
}
