//! What crdls knows of Kubernetes' built-in API groups without their schemas: the kinds each group
//! serves (to catch `kind: configmap`) and the rule its object names follow (for ObjectMeta checks).

use crate::metadata::NameRules;

/// The kinds of the built-in groups crdls recognises, by group (`""` is the core group).
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
    ("autoscaling", &["HorizontalPodAutoscaler"]),
    ("policy", &["PodDisruptionBudget"]),
    ("networking.k8s.io", &["Ingress", "IngressClass", "NetworkPolicy", "IPAddress", "ServiceCIDR"]),
    ("storage.k8s.io", &["CSIDriver", "CSINode", "CSIStorageCapacity", "StorageClass", "VolumeAttachment", "VolumeAttributesClass"]),
    ("scheduling.k8s.io", &["PriorityClass"]),
    ("coordination.k8s.io", &["Lease"]),
    ("discovery.k8s.io", &["EndpointSlice"]),
    ("node.k8s.io", &["RuntimeClass"]),
    ("certificates.k8s.io", &["CertificateSigningRequest", "ClusterTrustBundle"]),
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
    ("apiregistration.k8s.io", &["APIService"]),
    ("events.k8s.io", &["Event"]),
];

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
