//! The settings' layers, trust and severities, tested.

use super::*;
use crdls_diagnostics::TextRange;

#[test]
fn layers_override_in_order_and_severities_apply() {
    let mut config = Config::default();
    config.merge_toml("crdPaths = [\"crds/\"]\nstrict = true\ndebounceMs = 0\n[severity]\n\"schema/unknown-field\" = \"off\"\n").unwrap();
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
    let unknown = config.merge_toml("unknown = 1").unwrap_err();
    assert!(matches!(&unknown.problem, Problem::Malformed(m) if m.contains("unknown")), "{unknown:?}");
    let misspelt = config.merge_toml("[severity]\n\"schema/unknwon-field\" = \"off\"\n").unwrap_err();
    assert_eq!(
        misspelt,
        ConfigError {
            origin: LayerOrigin::File,
            problem: Problem::UnknownCode { code: "schema/unknwon-field".into(), suggestion: Some("schema/unknown-field".into()) }
        }
    );
    assert_eq!(
        misspelt.to_string(),
        "crdls.toml: severity: no diagnostic code \"schema/unknwon-field\"; did you mean \"schema/unknown-field\"? (`crdls explain` lists them)"
    );
    let unknown = config.merge_json(&serde_json::json!({"severity": {"no/such-code": "off"}})).unwrap_err();
    assert_eq!(unknown.origin, LayerOrigin::Settings);
    assert_eq!(unknown.problem, Problem::UnknownCode { code: "no/such-code".into(), suggestion: None });
    assert_eq!(unknown.to_string(), "crdls settings: severity: no diagnostic code \"no/such-code\" (`crdls explain` lists them)");
    // A refused layer applies not at all.
    assert!(config.merge_toml("strict = true\n[severity]\n\"no/such-code\" = \"off\"\n").is_err());
    assert!(!config.strict);
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
    let refused = user.merge_json(&serde_json::json!({"fieldDocs": "file:///etc"})).unwrap_err();
    assert_eq!(refused.problem, Problem::FieldDocs(FieldDocsError { value: "file:///etc".into() }));
    assert_eq!(refused.to_string(), "crdls settings: fieldDocs: \"file:///etc\" is not true, false or an http(s) URL");

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
    assert_eq!(restricted.crd_path_sets(), (&[][..], &["crds/".to_string()][..]), "read only inside the workspace");
    // The user's own paths, put first by a front end (`--crds`), are not confined; the user's settings
    // over the file replace its paths, and none is confined then.
    let mut flagged = restricted.clone();
    flagged.crd_paths.insert(0, "../mine".into());
    assert_eq!(flagged.crd_path_sets(), (&["../mine".to_string()][..], &["crds/".to_string()][..]));
    flagged.merge_json(&serde_json::json!({"crdPaths": ["../theirs"]})).unwrap();
    assert_eq!(flagged.crd_path_sets(), (&["../theirs".to_string()][..], &[][..]));
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
    assert_eq!(trusted.confined_crd_paths, 0, "a trusted workspace's paths are read wherever they lead");
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
    let refused = config.merge_json(&serde_json::json!({"kubeVersion": "1.99"})).unwrap_err();
    assert!(
        matches!(&refused.problem, Problem::KubeVersion(reason) if reason.contains("\"1.99\" is not a Kubernetes version")),
        "{refused:?}"
    );
    assert!(refused.to_string().starts_with("crdls settings: kubeVersion: \"1.99\""), "{refused}");
    config.merge_json(&serde_json::json!({"kubeVersion": ""})).unwrap();
    assert_eq!(config.kube_version, None);
}

#[test]
fn the_whole_vscode_section_is_accepted_and_client_keys_ignored() {
    let mut config = Config::default();
    let section = serde_json::json!({"server": {"path": ""}, "trace": {"server": "off"}, "strict": true});
    config.merge_json(&section).unwrap();
    assert!(config.strict);
    assert!(
        matches!(config.merge_json(&serde_json::json!({"strcit": true})).unwrap_err().problem, Problem::Malformed(m) if m.contains("strcit"))
    );
    // In crdls.toml they are still unknown keys.
    assert!(config.merge_toml("[server]\npath = \"x\"\n").is_err());
}
