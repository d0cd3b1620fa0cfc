//! Tests of the shipped data and the loader: releases, kinds, and the facts of the schemas the checker
//! will lean on most.

use std::sync::Arc;

use crdls_crd::{AdditionalProperties, Schema};
use serde_json::Value as Json;

use crate::data::{Builtins, Data};
use crate::format::{children, Children, KEYWORDS};
use crate::{kinds, kubernetes_versions, lookup, newest, schema, KubeVersion, Lookup, Scope};

fn v(text: &str) -> KubeVersion {
    text.parse().unwrap()
}

/// The schema below `schema` at `path`: a property name, `[]` for the items of a list, or `{}` for the
/// values of a map.
fn at(schema: &Arc<Schema>, path: &[&str]) -> Arc<Schema> {
    let mut current = schema.clone();
    for step in path {
        current = match *step {
            "[]" => current.items.clone().unwrap_or_else(|| panic!("no items at {step} of {path:?}")),
            "{}" => match &current.additional_properties {
                Some(AdditionalProperties::Schema(values)) => values.clone(),
                _ => panic!("no additionalProperties at {step} of {path:?}"),
            },
            name => current.property(name).unwrap_or_else(|| panic!("no property {name} in {path:?}")).schema.clone(),
        };
    }
    current
}

#[test]
fn versions_parse_and_print() {
    assert_eq!(v("1.35"), KubeVersion::new(1, 35));
    assert_eq!(v("v1.35"), KubeVersion::new(1, 35));
    assert_eq!(v("1.35.2"), KubeVersion::new(1, 35));
    assert_eq!(KubeVersion::new(1, 9).to_string(), "1.9");
    assert!(KubeVersion::new(1, 9) < KubeVersion::new(1, 10));
    for bad in ["", "1", "v", "1.", ".35", "1.x", "1.35.", "1.35.2.1", "1.035", "V1.35", "1.35-rc.0", " 1.35"] {
        let error = bad.parse::<KubeVersion>().expect_err(bad);
        assert!(error.to_string().contains("expected MAJOR.MINOR"), "{error}");
    }
}

#[test]
fn releases_1_23_to_1_37_are_shipped_newest_last() {
    let expected: Vec<KubeVersion> = (23..=37).map(|minor| KubeVersion::new(1, minor)).collect();
    assert_eq!(kubernetes_versions(), expected.as_slice());
    assert_eq!(newest(), v("1.37"));
}

#[test]
fn kinds_that_became_ga_in_1_36_and_1_37() {
    // Generated from the k8s.io/kubernetes modules' documents: each GA version appears with its release.
    let ga = [
        ("1.36", "admissionregistration.k8s.io", "MutatingAdmissionPolicy", Scope::Cluster),
        ("1.36", "admissionregistration.k8s.io", "MutatingAdmissionPolicyBinding", Scope::Cluster),
        ("1.37", "certificates.k8s.io", "ClusterTrustBundle", Scope::Cluster),
        ("1.37", "certificates.k8s.io", "PodCertificateRequest", Scope::Namespaced),
        ("1.37", "resource.k8s.io", "DeviceTaintRule", Scope::Cluster),
        ("1.37", "storagemigration.k8s.io", "StorageVersionMigration", Scope::Cluster),
    ];
    for (since, group, kind, scope) in ga {
        let served_in: Vec<KubeVersion> = kubernetes_versions().iter().copied().filter(|&k| k >= v(since)).collect();
        assert_eq!(lookup(newest(), group, "v1", kind), Lookup::Served { scope }, "{group} {kind}");
        assert_eq!(lookup(v("1.35"), group, "v1", kind), Lookup::NotServed { served_in }, "{group} {kind}");
        assert!(schema(v(since), group, "v1", kind).is_some_and(|s| s.property("spec").is_some()), "{group} {kind}");
    }
    // Beta versions that left with 1.37, after their GA.
    for (group, version, kind) in [("networking.k8s.io", "v1beta1", "ServiceCIDR"), ("storage.k8s.io", "v1beta1", "VolumeAttributesClass")]
    {
        assert!(matches!(lookup(v("1.36"), group, version, kind), Lookup::Served { .. }), "{kind}");
        assert!(matches!(lookup(v("1.37"), group, version, kind), Lookup::NotServed { .. }), "{kind}");
    }
}

#[test]
fn nothing_is_loaded_before_the_first_call() {
    let builtins = Builtins::new();
    assert!(!builtins.is_loaded());
    let data = builtins.data();
    assert!(builtins.is_loaded());
    assert_eq!(data.lookup(v("1.35"), "apps", "v1", "Deployment"), Lookup::Served { scope: Scope::Namespaced });
}

#[test]
fn deployment_is_served_by_every_release_with_its_facts() {
    for &kube in kubernetes_versions() {
        assert_eq!(lookup(kube, "apps", "v1", "Deployment"), Lookup::Served { scope: Scope::Namespaced }, "{kube}");
        let deployment = schema(kube, "apps", "v1", "Deployment").unwrap();
        let spec = at(&deployment, &["spec"]);
        assert_eq!(&*spec.required, ["selector", "template"], "{kube}");
        assert_eq!(at(&spec, &["template", "spec"]).ty.as_deref(), Some("object"), "{kube}");
        let max_surge = at(&spec, &["strategy", "rollingUpdate", "maxSurge"]);
        assert!(max_surge.int_or_string && max_surge.ty.is_none(), "{kube}: {max_surge:?}");
        assert_eq!(at(&spec, &["replicas"]).format.as_deref(), Some("int32"));
        assert_eq!(at(&deployment, &["metadata", "creationTimestamp"]).format.as_deref(), Some("date-time"));
        // Upstream prose is not shipped.
        assert!(deployment.description.is_none() && spec.description.is_none());
    }
}

#[test]
fn list_maps_and_their_keys() {
    let pod = schema(newest(), "", "v1", "Pod").unwrap();
    let containers = at(&pod, &["spec", "containers"]);
    assert_eq!(containers.list_type.as_deref(), Some("map"));
    assert_eq!(containers.rare().list_map_keys, ["name"]);
    assert_eq!(&*at(&containers, &["[]"]).required, ["name"]);
    let ports = at(&schema(newest(), "", "v1", "Service").unwrap(), &["spec", "ports"]);
    assert_eq!(ports.list_type.as_deref(), Some("map"));
    assert_eq!(ports.rare().list_map_keys, ["port", "protocol"]);
    // A real default (not a Go zero value) survives: the protocol of a service port.
    let protocol = at(&ports, &["[]", "protocol"]);
    assert_eq!(protocol.default.as_deref().and_then(|d| d.as_str()), Some("TCP"));
}

#[test]
fn quantities_raw_json_and_bytes() {
    let pod = schema(newest(), "", "v1", "Pod").unwrap();
    let limit = at(&pod, &["spec", "containers", "[]", "resources", "limits", "{}"]);
    let types: Vec<_> = limit.rare().one_of.iter().map(|s| s.ty.as_deref()).collect();
    assert_eq!(types, [Some("string"), Some("number")]);
    let data = at(&schema(newest(), "apps", "v1", "ControllerRevision").unwrap(), &["data"]);
    assert!(data.preserves_unknown_fields(), "RawExtension keeps what it holds");
    let fields = at(&pod, &["metadata", "managedFields", "[]", "fieldsV1"]);
    assert!(fields.preserves_unknown_fields());
    let secret = at(&schema(newest(), "", "v1", "Secret").unwrap(), &["data", "{}"]);
    assert_eq!(secret.format.as_deref(), Some("byte"));
    // 1.23's document calls a quantity a string; it is written as the later ones.
    let old = schema(v("1.23"), "", "v1", "Pod").unwrap();
    let limit = at(&old, &["spec", "containers", "[]", "resources", "limits", "{}"]);
    assert_eq!(limit.rare().one_of.len(), 2);
}

#[test]
fn pod_disruption_budget_v1beta1_left_with_1_25() {
    let served_in: Vec<KubeVersion> = kubernetes_versions()
        .iter()
        .copied()
        .filter(|&k| matches!(lookup(k, "policy", "v1beta1", "PodDisruptionBudget"), Lookup::Served { .. }))
        .collect();
    assert_eq!(served_in, [v("1.23"), v("1.24")]);
    assert_eq!(lookup(v("1.35"), "policy", "v1beta1", "PodDisruptionBudget"), Lookup::NotServed { served_in });
    assert!(schema(v("1.35"), "policy", "v1beta1", "PodDisruptionBudget").is_none());
    assert!(schema(v("1.24"), "policy", "v1beta1", "PodDisruptionBudget").is_some());
    assert_eq!(lookup(v("1.35"), "policy", "v1", "PodDisruptionBudget"), Lookup::Served { scope: Scope::Namespaced });
    assert_eq!(lookup(v("1.35"), "policy", "v1", "PodDisruptonBudget"), Lookup::Unknown);
    assert_eq!(lookup(v("1.35"), "example.com", "v1", "Widget"), Lookup::Unknown);
    // A release that is not shipped serves nothing.
    assert_eq!(lookup(v("1.2"), "apps", "v1", "Deployment"), Lookup::NotServed { served_in: kubernetes_versions().to_vec() });
}

#[test]
fn scopes_follow_the_paths() {
    let kube = newest();
    assert_eq!(lookup(kube, "", "v1", "Namespace"), Lookup::Served { scope: Scope::Cluster });
    assert_eq!(lookup(kube, "", "v1", "ConfigMap"), Lookup::Served { scope: Scope::Namespaced });
    assert_eq!(lookup(kube, "apiextensions.k8s.io", "v1", "CustomResourceDefinition"), Lookup::Served { scope: Scope::Cluster });
    assert_eq!(lookup(kube, "apps", "v1", "DeploymentList"), Lookup::Served { scope: Scope::NoPath });
    assert_eq!(lookup(kube, "authorization.k8s.io", "v1", "SubjectAccessReview"), Lookup::Served { scope: Scope::Cluster });
}

#[test]
fn kinds_lists_resources_only() {
    let apps = kinds(newest(), "apps");
    assert_eq!(
        apps,
        [("v1", "ControllerRevision"), ("v1", "DaemonSet"), ("v1", "Deployment"), ("v1", "ReplicaSet"), ("v1", "StatefulSet")]
    );
    let core = kinds(newest(), "");
    for kind in ["ConfigMap", "Pod", "Secret", "Service", "Namespace"] {
        assert!(core.contains(&("v1", kind)), "{kind}");
    }
    assert!(!core.iter().any(|(_, kind)| kind.ends_with("List") || *kind == "DeleteOptions"));
    assert!(kinds(newest(), "example.com").is_empty());
    assert!(kinds(v("1.24"), "policy").contains(&("v1beta1", "PodDisruptionBudget")));
}

#[test]
fn a_recursive_type_is_cut_at_its_second_visit() {
    let openapi = |kube: &str| {
        let crd = schema(v(kube), "apiextensions.k8s.io", "v1", "CustomResourceDefinition").unwrap();
        let props = at(&crd, &["spec", "versions", "[]", "schema", "openAPIV3Schema"]);
        assert_eq!(props.ty.as_deref(), Some("object"));
        assert!(props.property("x-kubernetes-validations").is_some());
        // apiextensions' JSON (a default or an enum member) is any value.
        assert!(at(&props, &["default"]).preserves_unknown_fields());
        props
    };
    // Up to 1.36 the cycle JSONSchemaProps -> properties -> JSONSchemaProps has a `default: {}` beside
    // the reference, so a node of its own: it is followed until a node repeats on the path; from there
    // on, whatever is given is kept.
    let props = openapi("1.36");
    let nested = at(&props, &["properties", "{}"]);
    assert!(nested.property("x-kubernetes-validations").is_some());
    let cut = at(&nested, &["properties"]);
    assert!(cut.preserves_unknown_fields() && cut.properties.is_empty() && cut.ty.is_none(), "{cut:?}");
    assert!(at(&props, &["allOf", "[]", "properties", "{}"]).preserves_unknown_fields());
    // 1.37's document has no default beside the reference: the nested schema is the same node, cut at
    // once. (The CRD checks of crdls-crd-check, not this schema, validate a CRD's nested schemas.)
    let props = openapi("1.37");
    let cut = at(&props, &["properties", "{}"]);
    assert!(cut.preserves_unknown_fields() && cut.properties.is_empty() && cut.ty.is_none(), "{cut:?}");
}

#[test]
fn schemas_are_built_once_and_shared_by_releases() {
    let first = schema(newest(), "apps", "v1", "Deployment").unwrap();
    assert!(Arc::ptr_eq(&first, &schema(newest(), "apps", "v1", "Deployment").unwrap()));
    let data = crate::BUILTINS.data();
    let (a, b) =
        (data.root(v("1.23"), "policy", "v1", "PodDisruptionBudget"), data.root(v("1.23"), "policy", "v1beta1", "PodDisruptionBudget"));
    assert_eq!(a, b, "equal schemas are one node");
    let one = schema(v("1.23"), "policy", "v1", "PodDisruptionBudget").unwrap();
    assert!(Arc::ptr_eq(&one, &schema(v("1.23"), "policy", "v1beta1", "PodDisruptionBudget").unwrap()));
}

#[test]
fn every_kind_of_every_release_builds() {
    let data = crate::BUILTINS.data();
    let mut kinds = 0;
    for &kube in &data.versions {
        assert!(data.all_kinds(kube).len() > 100, "{kube}");
        for kind in data.all_kinds(kube) {
            let schema = data.schema(kube, &kind.group, &kind.version, &kind.kind).unwrap();
            assert_eq!(schema.ty.as_deref(), Some("object"), "{kube} {} {}", kind.group, kind.kind);
            kinds += 1;
        }
    }
    assert!(kinds > 2_500, "{kinds}");
}

#[test]
fn nodes_hold_only_facts_and_valid_ids() {
    let data = Data::load(include_bytes!("../data/kubernetes.json.deflate")).unwrap();
    let json = miniz_oxide::inflate::decompress_to_vec(include_bytes!("../data/kubernetes.json.deflate")).unwrap();
    let file: Json = serde_json::from_slice(&json).unwrap();
    let nodes = file["nodes"].as_array().unwrap();
    assert_eq!(nodes.len(), data.node_count());
    let valid = |id: &Json| id.as_u64().is_some_and(|id| (id as usize) < nodes.len());
    for (i, node) in nodes.iter().enumerate() {
        let node = node.as_object().unwrap_or_else(|| panic!("node {i} is not an object"));
        for (key, value) in node {
            assert!(KEYWORDS.contains(&key.as_str()), "node {i}: {key}");
            match (children(key), value) {
                (Some(Children::ByName), Json::Object(props)) => assert!(props.values().all(valid), "node {i}"),
                (Some(Children::One), Json::Bool(_)) if key == "additionalProperties" => {}
                (Some(Children::One), id) => assert!(valid(id), "node {i}"),
                (Some(Children::List), Json::Array(ids)) => assert!(ids.iter().all(valid), "node {i}"),
                (Some(_), _) => panic!("node {i}: {key} of the wrong shape"),
                (None, _) => {}
            }
        }
    }
}

#[test]
fn the_format_is_refused_when_it_is_not_ours() {
    let deflate = |text: &str| miniz_oxide::deflate::compress_to_vec(text.as_bytes(), 6);
    let error = Data::load(&deflate(r#"{"format": 2, "releases": [], "nodes": []}"#)).unwrap_err();
    assert!(error.contains("format 2"), "{error}");
    let error = Data::load(&deflate(
        r#"{"format": 1, "releases": [{"version": "1.35", "kinds": [["", "v1", "Pod", 3, "namespaced"]]}], "nodes": [{}]}"#,
    ))
    .unwrap_err();
    assert!(error.contains("root 3 is not a node"), "{error}");
    assert!(Data::load(b"not deflate").is_err());
}
