//! Tests of the native rules: each rule with the API server's error and crdls's message.

use expect_test::{expect, Expect};

use super::{validate, validate_name, Target};

fn check(minor: u16, group: &str, kind: &str, text: &str, expected: Expect) {
    let stream = crdls_yaml::parse(text);
    let root = stream.documents[0].root.as_ref().expect("a document");
    let mut out = Vec::new();
    let version = "v1";
    let schema = crdls_builtins::schema(crdls_builtins::KubeVersion::new(1, minor), group, version, kind).unwrap_or_default();
    validate(root, &schema, Target { minor, group, kind, version }, crdls_diagnostics::TextRange::empty(0), &mut out);
    let lines: Vec<String> = out.iter().map(|d| format!("{} | {}", d.cause.as_deref().unwrap_or_default(), d.message)).collect();
    expected.assert_eq(&lines.join("\n"));
}

#[test]
fn containers_need_images_and_unique_label_names() {
    check(
        35,
        "",
        "Pod",
        "spec:\n  containers:\n    - name: Web_1\n    - name: app\n      image: a\n    - name: app\n      image: ''\n      ports:\n        - containerPort: 70000\n          protocol: tcp\n          name: HTTP\n        - containerPort: 80\n          name: HTTP\n  initContainers:\n    - name: app\n      image: b\n",
        expect![[r#"
            spec.containers[0].name: Invalid value: "Web_1": a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', and must start and end with an alphanumeric character (e.g. 'my-name',  or '123-abc', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?') | container name "Web_1" is not a DNS label: a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', and must start and end with an alphanumeric character (e.g. 'my-name',  or '123-abc', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?')
            spec.containers[0].image: Required value | missing required field "image": the API server requires an image for every container
            spec.containers[2].name: Duplicate value: "app" | another container of this pod is already named "app"
            spec.containers[2].image: Required value | the image is empty: the API server requires an image for every container
            spec.containers[2].ports[0].name: Invalid value: "HTTP": must contain only alpha-numeric characters (a-z, 0-9), and hyphens (-) | port name "HTTP" is not an IANA service name; it must contain only alpha-numeric characters (a-z, 0-9), and hyphens (-)
            spec.containers[2].ports[0].name: Invalid value: "HTTP": must contain at least one letter (a-z) | port name "HTTP" is not an IANA service name; it must contain at least one letter (a-z)
            spec.containers[2].ports[0].containerPort: Invalid value: 70000: must be between 1 and 65535, inclusive | containerPort 70000 is not a port number: it must be between 1 and 65535
            spec.containers[2].ports[0].protocol: Unsupported value: "tcp": supported values: "SCTP", "TCP", "UDP" | protocol "tcp" is not supported: use SCTP, TCP or UDP (upper case)
            spec.containers[2].ports[1].name: Invalid value: "HTTP": must contain only alpha-numeric characters (a-z, 0-9), and hyphens (-) | port name "HTTP" is not an IANA service name; it must contain only alpha-numeric characters (a-z, 0-9), and hyphens (-)
            spec.containers[2].ports[1].name: Invalid value: "HTTP": must contain at least one letter (a-z) | port name "HTTP" is not an IANA service name; it must contain at least one letter (a-z)
            spec.containers[2].ports[1].name: Duplicate value: "HTTP" | another port of this container is already named "HTTP"
            spec.initContainers[0].name: Duplicate value: "app" | another container of this pod is already named "app""#]],
    );
}

#[test]
fn image_pull_policies_are_spelt_as_the_api_server_spells_them() {
    check(
        35,
        "",
        "Pod",
        "spec:\n  containers:\n    - name: a\n      image: a\n      imagePullPolicy: always\n    - name: b\n      image: b\n      imagePullPolicy: IfNotPresent\n    - name: c\n      image: c\n      imagePullPolicy: ''\n  initContainers:\n    - name: d\n      image: d\n      imagePullPolicy: IfNotPresnt\n",
        expect![[r#"
            spec.containers[0].imagePullPolicy: Unsupported value: "always": supported values: "Always", "IfNotPresent", "Never" | imagePullPolicy "always" is not one of Always, IfNotPresent, Never
            spec.initContainers[0].imagePullPolicy: Unsupported value: "IfNotPresnt": supported values: "Always", "IfNotPresent", "Never" | imagePullPolicy "IfNotPresnt" is not one of Always, IfNotPresent, Never"#]],
    );
}

#[test]
fn unmasked_proc_mounts_need_a_user_namespace_of_the_pod_s_own() {
    let pod = |host_users: &str| {
        format!(
            "spec:\n{host_users}  containers:\n    - name: a\n      image: a\n      securityContext:\n        procMount: Unmasked\n    - name: b\n      image: b\n      securityContext:\n        procMount: Weird\n  initContainers:\n    - name: c\n      image: c\n      securityContext:\n        procMount: Default\n"
        )
    };
    check(
        35,
        "",
        "Pod",
        &pod(""),
        expect![[r#"
            spec.containers[0].securityContext.procMount: Invalid value: "Unmasked": `hostUsers` must be false to use `Unmasked` | procMount Unmasked needs a user namespace of the pod's own: set the pod's hostUsers to false
            spec.containers[1].securityContext.procMount: Unsupported value: "Weird": supported values: "Default", "Unmasked" | procMount "Weird" is not one of Default, Unmasked"#]],
    );
    check(
        35,
        "",
        "Pod",
        &pod("  hostUsers: false\n"),
        expect![[
            r#"spec.containers[1].securityContext.procMount: Unsupported value: "Weird": supported values: "Default", "Unmasked" | procMount "Weird" is not one of Default, Unmasked"#
        ]],
    );
    // Before 1.33 the API server drops the field from a new pod.
    check(32, "", "Pod", &pod(""), expect![[""]]);
}

#[test]
fn service_ports() {
    check(
        35,
        "",
        "Service",
        "spec:\n  ports:\n    - port: 80\n      targetPort: \"8080\"\n    - name: Web\n      port: 0\n      protocol: 6\n      targetPort: 70000\n    - name: web2\n      port: 443\n      targetPort: https\n    - name: web2\n      port: 8443\n",
        expect![[r#"
            spec.ports[0].name: Required value | a Service with several ports must name each of them
            spec.ports[0].targetPort: Invalid value: "8080": must contain at least one letter (a-z) | targetPort "8080" is neither a port number nor a container port's name; a name must contain at least one letter (a-z)
            spec.ports[1].name: Invalid value: "Web": a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', and must start and end with an alphanumeric character (e.g. 'my-name',  or '123-abc', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?') | port name "Web" is not a DNS label: a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', and must start and end with an alphanumeric character (e.g. 'my-name',  or '123-abc', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?')
            spec.ports[1].port: Invalid value: 0: must be between 1 and 65535, inclusive | port 0 is not a port number: it must be between 1 and 65535
            spec.ports[1].protocol: Unsupported value: 6: supported values: "SCTP", "TCP", "UDP" | protocol 6 is not supported: use SCTP, TCP or UDP (upper case)
            spec.ports[1].targetPort: Invalid value: 70000: must be between 1 and 65535, inclusive | targetPort 70000 is not a port number: it must be between 1 and 65535
            spec.ports[3].name: Duplicate value: "web2" | another port of this Service is already named "web2""#]],
    );
    // One unnamed port is fine.
    check(35, "", "Service", "spec:\n  ports:\n    - port: 80\n", expect![[""]]);
}

#[test]
fn service_ports_defaulted_and_duplicated() {
    // A left-out targetPort is the port, checked again; two ports of one number and protocol (TCP
    // when left out) are one port twice, printed as the API server prints its internal ServicePort.
    let text = "spec:\n  ports:\n    - name: a\n      port: 70000\n    - name: b\n      port: 53\n      protocol: UDP\n    - name: c\n      port: 53\n      protocol: UDP\n      targetPort: 0\n    - name: d\n      port: 80\n    - name: e\n      port: 80\n      protocol: TCP\n";
    check(
        35,
        "",
        "Service",
        text,
        expect![[r#"
            spec.ports[0].port: Invalid value: 70000: must be between 1 and 65535, inclusive | port 70000 is not a port number: it must be between 1 and 65535
            spec.ports[0].targetPort: Invalid value: 70000: must be between 1 and 65535, inclusive | targetPort defaults to the port, 70000, which is not a port number either
            spec.ports[2]: Duplicate value: {"Name":"","Protocol":"UDP","AppProtocol":null,"Port":53,"TargetPort":0,"NodePort":0} | another port of this Service is already port 53/UDP
            spec.ports[4]: Duplicate value: {"Name":"","Protocol":"TCP","AppProtocol":null,"Port":80,"TargetPort":0,"NodePort":0} | another port of this Service is already port 80/TCP"#]],
    );
    check(
        33,
        "",
        "Service",
        "spec:\n  ports:\n    - {name: a, port: 80}\n    - {name: b, port: 80}\n",
        expect![[
            r#"spec.ports[1]: Duplicate value: core.ServicePort{Name:"", Protocol:"TCP", AppProtocol:(*string)(nil), Port:80, TargetPort:intstr.IntOrString{Type:0, IntVal:0, StrVal:""}, NodePort:0} | another port of this Service is already port 80/TCP"#
        ]],
    );
}

#[test]
fn a_container_port_of_zero_is_one_left_out() {
    check(
        35,
        "",
        "Pod",
        "spec:\n  containers:\n    - name: a\n      image: a\n      ports:\n        - containerPort: 0\n          hostPort: 0\n",
        expect![[r#"spec.containers[0].ports[0].containerPort: Required value | containerPort is required: 0 is no port"#]],
    );
}

fn check_name(minor: u16, group: &str, kind: &str, create: bool, text: &str, expected: Expect) {
    let stream = crdls_yaml::parse(text);
    let root = stream.documents[0].root.as_ref().expect("a document");
    let mut out = Vec::new();
    validate_name(root, Target { minor, group, kind, version: "v1" }, create, &mut out);
    let lines: Vec<String> = out.iter().map(|d| format!("{} | {}", d.cause.as_deref().unwrap_or_default(), d.message)).collect();
    expected.assert_eq(&lines.join("\n"));
}

#[test]
fn names_beyond_their_kinds_rules() {
    // A Namespace's name is also the value of the label the API server gives it.
    check_name(
        37,
        "",
        "Namespace",
        true,
        "metadata:\n  name: _\n",
        expect![[
            r#"metadata.labels: Invalid value: "_": a valid label must be an empty string or consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyValue',  or 'my_value',  or '12345', regex used for validation is '(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?') | the label kubernetes.io/metadata.name that the API server gives a Namespace would hold "_": a valid label must be an empty string or consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyValue',  or 'my_value',  or '12345', regex used for validation is '(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?')"#
        ]],
    );
    check_name(37, "", "Namespace", true, "metadata:\n  name: team-a\n", expect![[""]]);
    let long = format!("metadata:\n  name: {}\n", "c".repeat(53));
    check_name(
        37,
        "batch",
        "CronJob",
        true,
        &long,
        expect![[
            r#"metadata.name: Invalid value: "ccccccccccccccccccccccccccccccccccccccccccccccccccccc": must be no more than 52 characters | a CronJob's name must be no more than 52 characters (this one has 53): its Jobs add a suffix"#
        ]],
    );
    // An update of an older CronJob with a longer name is allowed.
    check_name(37, "batch", "CronJob", false, &long, expect![[""]]);
    check_name(37, "batch", "CronJob", true, &format!("metadata:\n  name: {}\n", "c".repeat(52)), expect![[""]]);
}

#[test]
fn selectors_must_match_the_template() {
    let deployment = |selector: &str, labels: &str| {
        format!("spec:\n  selector: {selector}\n  template:\n    metadata:\n      labels: {labels}\n    spec:\n      containers:\n        - name: a\n          image: a\n")
    };
    check(35, "apps", "Deployment", &deployment("{matchLabels: {app: web}}", "{app: web, tier: x}"), expect![[""]]);
    check(
        35,
        "apps",
        "Deployment",
        &deployment("{matchLabels: {app: web}}", "{app: api}"),
        expect![[
            r#"spec.template.metadata.labels: Invalid value: {"app":"api"}: `selector` does not match template `labels` | the pod template's labels do not match the selector, so the controller would not own its own pods"#
        ]],
    );
    check(
        33,
        "apps",
        "Deployment",
        &deployment("{matchLabels: {app: web}}", "{tier: x, app: api}"),
        expect![[
            r#"spec.template.metadata.labels: Invalid value: map[string]string{"app":"api", "tier":"x"}: `selector` does not match template `labels` | the pod template's labels do not match the selector, so the controller would not own its own pods"#
        ]],
    );
    check(
        35,
        "apps",
        "StatefulSet",
        &deployment(
            "{matchExpressions: [{key: app, operator: In, values: [web, api]}, {key: canary, operator: DoesNotExist}]}",
            "{app: api}",
        ),
        expect![[""]],
    );
    check(
        35,
        "apps",
        "DaemonSet",
        &deployment("{matchExpressions: [{key: app, operator: NotIn, values: [api]}]}", "{app: api}"),
        expect![[
            r#"spec.template.metadata.labels: Invalid value: {"app":"api"}: `selector` does not match template `labels` | the pod template's labels do not match the selector, so the controller would not own its own pods"#
        ]],
    );
    check(
        35,
        "apps",
        "ReplicaSet",
        &deployment("{}", "{app: api}"),
        expect![[
            r#"spec.selector: Invalid value: {}: empty selector is invalid for deployment | the selector is empty: a ReplicaSet must select its pods by at least one label"#
        ]],
    );
    check(
        30,
        "apps",
        "StatefulSet",
        &deployment("{matchLabels: {}}", "{app: api}"),
        expect![[
            r#"spec.selector: Invalid value: v1.LabelSelector{MatchLabels:map[string]string{}, MatchExpressions:[]v1.LabelSelectorRequirement(nil)}: empty selector is invalid for statefulset | the selector is empty: a StatefulSet must select its pods by at least one label"#
        ]],
    );
    // A missing selector is also a mismatch (the schema reports it missing); labels absent print null.
    check(
        35,
        "apps",
        "DaemonSet",
        "spec:\n  template:\n    spec:\n      containers: [{name: a, image: a}]\n",
        expect![[
            r#"spec.template.metadata.labels: Invalid value: null: `selector` does not match template `labels` | the pod template's labels do not match the selector, so the controller would not own its own pods"#
        ]],
    );
}

#[test]
fn restart_policies_by_controller() {
    let pod =
        |policy: &str| format!("spec:\n  template:\n    spec:\n      restartPolicy: {policy}\n      containers: [{{name: a, image: a}}]\n");
    let job = "spec:\n  template:\n    spec:\n      containers: [{name: a, image: a}]\n";
    check(35, "batch", "Job", &pod("Never"), expect![[""]]);
    check(
        35,
        "batch",
        "Job",
        job,
        expect![[
            r#"spec.template.spec.restartPolicy: Required value: valid values: "OnFailure", "Never" | a Job's pods must set restartPolicy to OnFailure or Never (the default, Always, is not allowed)"#
        ]],
    );
    check(
        35,
        "batch",
        "Job",
        &pod("Sometimes"),
        expect![[r#"
            spec.template.spec.restartPolicy: Unsupported value: "Sometimes": supported values: "Always", "OnFailure", "Never" | restartPolicy "Sometimes" is not one of Always, OnFailure, Never
            spec.template.spec.restartPolicy: Unsupported value: "Sometimes": supported values: "OnFailure", "Never" | a Job's pods must set restartPolicy to OnFailure or Never, not "Sometimes""#]],
    );
    check(
        35,
        "",
        "ReplicationController",
        &pod("OnFailure"),
        expect![[
            r#"spec.template.spec.restartPolicy: Unsupported value: "OnFailure": supported values: "Always" | a ReplicationController restarts its pods' containers: restartPolicy must be Always, not "OnFailure""#
        ]],
    );
    check(
        35,
        "",
        "Pod",
        "spec:\n  restartPolicy: OnFailure\n  containers: []\n",
        expect![[r#"spec.containers: Required value | a pod needs at least one container"#]],
    );
}

#[test]
fn statefulset_templates_are_validated_from_1_34() {
    let text = "spec:\n  selector: {matchLabels: {app: db}}\n  template:\n    metadata: {labels: {app: db}}\n    spec:\n      containers: [{name: db}]\n";
    check(33, "apps", "StatefulSet", text, expect![[""]]);
    check(
        34,
        "apps",
        "StatefulSet",
        text,
        expect![[
            r#"spec.template.spec.containers[0].image: Required value | missing required field "image": the API server requires an image for every container"#
        ]],
    );
}

#[test]
fn env_names_volume_mounts_and_resources() {
    let pod = "spec:\n  volumes: [{name: data}]\n  containers:\n    - name: a\n      image: a\n      env:\n        - {name: 1ST, value: x}\n        - {name: 'A=B', value: x}\n      volumeMounts:\n        - {name: data, mountPath: /d}\n        - {name: cache, mountPath: /c}\n      resources:\n        limits: {cpu: '1', memory: 1Gi, nvidia.com/gpu: 2}\n        requests: {cpu: 2000m, memory: 1024Mi, nvidia.com/gpu: 1, example.com/dongle: 1}\n";
    check(
        35,
        "",
        "Pod",
        pod,
        expect![[r#"
            spec.containers[0].env[1].name: Invalid value: "A=B": a valid environment variable name must consist only of printable ASCII characters other than '=' | "A=B" is not a valid environment variable name: a valid environment variable name must consist only of printable ASCII characters other than '='
            spec.containers[0].volumeMounts[1].name: Not found: "cache" | the pod has no volume named "cache"
            spec.containers[0].resources.requests: Invalid value: "2": must be less than or equal to cpu limit of 1 | the cpu request 2: it must be less than or equal to cpu limit of 1
            spec.containers[0].resources.requests: Invalid value: "1": must be equal to nvidia.com/gpu limit of 2 | the nvidia.com/gpu request 1: it must be equal to nvidia.com/gpu limit of 2
            spec.containers[0].resources.limits: Required value: Limit must be set for non overcommitable resources | example.com/dongle cannot be overcommitted: set a limit equal to the request"#]],
    );
    // Before 1.32 an environment variable name is a C identifier with '-' and '.'.
    check(
        31,
        "",
        "Pod",
        "spec:\n  containers:\n    - name: a\n      image: a\n      env: [{name: 1ST}]\n",
        expect![[
            r#"spec.containers[0].env[0].name: Invalid value: "1ST": a valid environment variable name must consist of alphabetic characters, digits, '_', '-', or '.', and must not start with a digit (e.g. 'my.env-name',  or 'MY_ENV.NAME',  or 'MyEnvName1', regex used for validation is '[-._a-zA-Z][-._a-zA-Z0-9]*') | "1ST" is not a valid environment variable name: a valid environment variable name must consist of alphabetic characters, digits, '_', '-', or '.', and must not start with a digit (e.g. 'my.env-name',  or 'MY_ENV.NAME',  or 'MyEnvName1', regex used for validation is '[-._a-zA-Z][-._a-zA-Z0-9]*')"#
        ]],
    );
}

#[test]
fn quantities_that_do_not_parse_fail_the_request() {
    check(
        35,
        "apps",
        "Deployment",
        "spec:\n  selector: {matchLabels: {a: b}}\n  template:\n    metadata: {labels: {a: b}}\n    spec:\n      containers:\n        - name: a\n          image: a\n          resources:\n            limits: {memory: 512MB, cpu: 1mi}\n",
        expect![[r#"
            Deployment in version "v1" cannot be handled as a Deployment: quantities must match the regular expression '^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$' | "512MB" is not a quantity: quantities must match the regular expression '^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$'
            Deployment in version "v1" cannot be handled as a Deployment: unable to parse quantity's suffix | "1mi" is not a quantity: unable to parse quantity's suffix"#]],
    );
    // Go decodes any other JSON value's own text: `true` and a list are no quantities; null is zero.
    check(
        37,
        "",
        "Pod",
        "spec:\n  containers:\n    - name: a\n      image: a\n      resources:\n        limits: {cpu: true, memory: [1]}\n        requests: {cpu: null}\n",
        expect![[r#"
            Pod in version "v1" cannot be handled as a Pod: quantities must match the regular expression '^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$' | "true" is not a quantity: quantities must match the regular expression '^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$'
            Pod in version "v1" cannot be handled as a Pod: quantities must match the regular expression '^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$' | "[1]" is not a quantity: quantities must match the regular expression '^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$'"#]],
    );
}

#[test]
fn statefulset_claim_templates_are_volumes() {
    let text = "spec:\n  selector: {matchLabels: {a: b}}\n  volumeClaimTemplates: [{metadata: {name: data}}]\n  template:\n    metadata: {labels: {a: b}}\n    spec:\n      containers:\n        - name: a\n          image: a\n          volumeMounts: [{name: data, mountPath: /d}]\n";
    check(35, "apps", "StatefulSet", text, expect![[""]]);
}

#[test]
fn bind_mount_options_are_checked_from_1_37() {
    let pod = "spec:\n  volumes:\n    - name: data\n      emptyDir: {}\n    - name: tools\n      image:\n        reference: example.com/tools:1\n  containers:\n    - name: app\n      image: a\n      volumeMounts:\n        - name: data\n          mountPath: /data\n          bindMountOptions: [noexec, ro, noexec]\n        - name: tools\n          mountPath: /tools\n          bindMountOptions: [nodev]\n";
    check(
        37,
        "",
        "Pod",
        pod,
        expect![[r#"
            spec.containers[0].volumeMounts[0].bindMountOptions[1]: Unsupported value: "ro": supported values: "nodev", "noexec", "nosuid" | bind mount option "ro" is not supported: use nodev, noexec or nosuid
            spec.containers[0].volumeMounts[0].bindMountOptions[2]: Duplicate value: "noexec" | bind mount option "noexec" is given twice
            spec.containers[0].volumeMounts[1].bindMountOptions: Invalid value: ["nodev"]: bindMountOptions may not be used with image volumes | bindMountOptions may not be used with image volumes"#]],
    );
    // 1.36 has no bindMountOptions: the field is pruned (an unknown-field warning) and not checked.
    check(36, "", "Pod", pod, expect![[r#""#]]);
}

#[test]
fn runtime_class_handlers_are_dns_labels() {
    check(
        35,
        "node.k8s.io",
        "RuntimeClass",
        "handler: Kata_QEMU\n",
        expect![[
            r#"handler: Invalid value: "Kata_QEMU": a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', and must start and end with an alphanumeric character (e.g. 'my-name',  or '123-abc', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?') | handler "Kata_QEMU" is not a DNS label: a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', and must start and end with an alphanumeric character (e.g. 'my-name',  or '123-abc', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?')"#
        ]],
    );
    check(35, "node.k8s.io", "RuntimeClass", "handler: kata-qemu\n", expect![[""]]);
    // A missing handler is the schema's to report.
    check(35, "node.k8s.io", "RuntimeClass", "metadata: {}\n", expect![[""]]);
}

/// The causes are the oracle's (k8s.io/kubernetes v1.37.2) for the same specs.
#[test]
fn disruption_budgets_set_one_bound_and_percentages() {
    check(
        37,
        "policy",
        "PodDisruptionBudget",
        "spec:\n  minAvailable: 1\n  maxUnavailable: 1\n  selector:\n    matchLabels: {b: '2', a: x<y}\n    matchExpressions: [{key: k, operator: In, values: [v]}, {key: j, operator: Exists}]\n  unhealthyPodEvictionPolicy: AlwaysAllow\n",
        expect![[r#"spec: Invalid value: {"MinAvailable":1,"Selector":{"matchLabels":{"a":"x\u003cy","b":"2"},"matchExpressions":[{"key":"k","operator":"In","values":["v"]},{"key":"j","operator":"Exists"}]},"MaxUnavailable":1,"UnhealthyPodEvictionPolicy":"AlwaysAllow"}: minAvailable and maxUnavailable cannot be both set | a PodDisruptionBudget sets minAvailable or maxUnavailable, not both"#]],
    );
    check(
        37,
        "policy",
        "PodDisruptionBudget",
        "spec:\n  minAvailable: '0%'\n  maxUnavailable: '-5%'\n",
        expect![[r#"
            spec: Invalid value: {"MinAvailable":"0%","Selector":null,"MaxUnavailable":"-5%","UnhealthyPodEvictionPolicy":null}: minAvailable and maxUnavailable cannot be both set | a PodDisruptionBudget sets minAvailable or maxUnavailable, not both
            spec.maxUnavailable: Invalid value: "-5%": a valid percent string must be a numeric string followed by an ending '%' (e.g. '1%',  or '93%', regex used for validation is '[0-9]+%') | maxUnavailable "-5%" is neither a number nor a percentage such as "50%""#]],
    );
    check(
        37,
        "policy",
        "PodDisruptionBudget",
        "spec:\n  minAvailable: 1\n  maxUnavailable: 1\n  selector: {}\n",
        expect![[
            r#"spec: Invalid value: {"MinAvailable":1,"Selector":{},"MaxUnavailable":1,"UnhealthyPodEvictionPolicy":null}: minAvailable and maxUnavailable cannot be both set | a PodDisruptionBudget sets minAvailable or maxUnavailable, not both"#
        ]],
    );
    for (spec, cause) in [
        ("minAvailable: '150%'", r#"spec.minAvailable: Invalid value: "150%": must not be greater than 100%"#),
        ("minAvailable: -1", "spec.minAvailable: Invalid value: -1: must be greater than or equal to 0"),
        (
            "maxUnavailable: abc",
            r#"spec.maxUnavailable: Invalid value: "abc": a valid percent string must be a numeric string followed by an ending '%' (e.g. '1%',  or '93%', regex used for validation is '[0-9]+%')"#,
        ),
        (
            "minAvailable: '50'",
            r#"spec.minAvailable: Invalid value: "50": a valid percent string must be a numeric string followed by an ending '%' (e.g. '1%',  or '93%', regex used for validation is '[0-9]+%')"#,
        ),
        (
            "unhealthyPodEvictionPolicy: Sometimes",
            r#"spec.unhealthyPodEvictionPolicy: Unsupported value: "Sometimes": supported values: "AlwaysAllow", "IfHealthyBudget""#,
        ),
    ] {
        let stream = crdls_yaml::parse(&format!("spec:\n  {spec}\n"));
        let mut out = Vec::new();
        let target = Target { minor: 37, group: "policy", kind: "PodDisruptionBudget", version: "v1" };
        validate(stream.documents[0].root.as_ref().unwrap(), &Default::default(), target, crdls_diagnostics::TextRange::empty(0), &mut out);
        let causes: Vec<&str> = out.iter().filter_map(|d| d.cause.as_deref()).collect();
        assert_eq!(causes, [cause], "{spec}");
    }
    // One bound, a null other, and a percentage of 100 are accepted.
    check(37, "policy", "PodDisruptionBudget", "spec:\n  minAvailable: 1\n  maxUnavailable: null\n", expect![[""]]);
    check(37, "policy", "PodDisruptionBudget", "spec:\n  maxUnavailable: '100%'\n", expect![[""]]);
}
