//! What crdls knows of Kubernetes' built-in API groups without their schemas: the kinds each group
//! serves (to catch `kind: configmap`) and the rule its object names follow (for ObjectMeta checks).

use crate::metadata::NameRules;

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

/// The name rule of a built-in kind: RBAC objects allow path segments (`system:controller`),
/// everything else here is a DNS subdomain (kinds with stricter rules accept fewer names, never more).
pub fn name_rules(group: &str) -> NameRules {
    if group == "rbac.authorization.k8s.io" {
        NameRules::PathSegment
    } else {
        NameRules::Object
    }
}
