//! Tests of `completion`.

use crdls_test_fixture as fixture;
use expect_test::{expect, Expect};

use super::*;

/// A CRD with one field per completion case: required and optional keys, nested objects, lists of
/// objects and of enum strings, a map, enums with YAML-ambiguous members, a boolean, defaults, an
/// int-or-string, an embedded resource, and a deprecated version.
fn crd() -> String {
    let widget = fixture::Crd::new("Widget")
        .short_names(&["wdg"])
        .categories(&["all"])
        .schema(
            r#"
            type: object
            required: [spec]
            properties:
              spec:
                type: object
                required: [size, owner]
                properties:
                  replicas:
                    type: integer
                    description: How many copies to run.
                    default: 1
                  size:
                    type: integer
                    description: The size, from 1 to 10.
                  owner:
                    type: string
                  tier:
                    type: string
                    enum: [gold, silver, bronze]
                    default: bronze
                  switch:
                    type: string
                    enum: ["on", "off", "1.0"]
                  enabled:
                    type: boolean
                  port:
                    x-kubernetes-int-or-string: true
                  ports:
                    type: array
                    items:
                      type: object
                      required: [containerPort]
                      properties:
                        containerPort: {type: integer}
                        protocol: {type: string, enum: [TCP, UDP], default: TCP}
                        name: {type: string}
                  tags:
                    type: array
                    items: {type: string, enum: [a, b]}
                  labels:
                    type: object
                    additionalProperties:
                      type: object
                      properties:
                        value: {type: string}
                  template:
                    type: object
                    x-kubernetes-embedded-resource: true
                    x-kubernetes-preserve-unknown-fields: true
                    properties:
                      spec: {type: object}
                  nested:
                    type: object
                    properties:
                      deeper:
                        type: object
                        properties:
                          leaf: {type: string}
            "#,
        )
        .version(
            fixture::Version::new("v1beta1")
                .deprecation_warning("demo.crdls.dev/v1beta1 Widget is deprecated; use demo.crdls.dev/v1")
                .schema("{type: object}"),
        );
    let gadget = fixture::Crd::new("Gadget").cluster_scoped().storage_version("v1alpha1").schema(
        r#"
        type: object
        required: [spec]
        properties:
          spec:
            type: object
            required: [mode, items]
            properties:
              mode: {type: string, enum: [fast, safe]}
              items:
                type: array
                items:
                  type: object
                  required: [name, weight]
                  properties:
                    name: {type: string}
                    weight: {type: integer, default: 5}
        "#,
    );
    fixture::join(&[widget, gadget])
}

const HEAD: &str = "apiVersion: demo.crdls.dev/v1\nkind: Widget\n";

/// Completes at `$0` and renders one line per item: label, kind, detail, flags, then the replaced text
/// and the insert text (escaped), and the first line of its documentation.
fn check_completion(crd_yaml: &str, doc_with_cursor: &str, expect: Expect) {
    let offset = doc_with_cursor.find("$0").expect("the fixture has a $0 cursor");
    let text = doc_with_cursor.replacen("$0", "", 1);
    let stream = crdls_yaml::parse(&text);
    let items = completions(&text, &stream, &fixture::index(crd_yaml), offset, crdls_builtins::newest());
    let mut out = String::new();
    for item in items {
        let flags = [(item.snippet, " snippet"), (item.deprecated, " deprecated")];
        let flags: String = flags.iter().filter(|f| f.0).map(|f| f.1).collect();
        out.push_str(&format!(
            "{} ({:?}{flags}) [{}] {:?} -> {:?}",
            item.label,
            item.kind,
            item.detail.unwrap_or_default(),
            &text[item.replace.start..item.replace.end],
            item.insert_text
        ));
        if let Some(doc) = item.documentation.as_deref().and_then(|d| d.lines().next()) {
            out.push_str(&format!(" // {doc}"));
        }
        out.push('\n');
    }
    expect.assert_eq(&out);
}

#[test]
fn keys_while_typing_without_a_colon() {
    check_completion(
        &crd(),
        &format!("{HEAD}spec:\n  rep$0"),
        expect![[r#"
        size (Field snippet) [integer, required] "rep" -> "size: $0" // The size, from 1 to 10.
        owner (Field snippet) [string, required] "rep" -> "owner: $0"
        replicas (Field snippet) [integer] "rep" -> "replicas: ${1:1}" // How many copies to run.
        tier (Field snippet) [string] "rep" -> "tier: ${1:bronze}"
        switch (Field snippet) [string] "rep" -> "switch: $0"
        enabled (Field snippet) [boolean] "rep" -> "enabled: $0"
        port (Field snippet) [int-or-string] "rep" -> "port: $0"
        ports (Field snippet) [[]object] "rep" -> "ports:\n  - $0"
        tags (Field snippet) [[]string] "rep" -> "tags:\n  - $0"
        labels (Field snippet) [map[string]object] "rep" -> "labels:\n    $0"
        template (Field snippet) [object] "rep" -> "template:\n    $0"
        nested (Field snippet) [object] "rep" -> "nested:\n    $0"
    "#]],
    );
}

#[test]
fn keys_of_a_built_in_kind_follow_the_release_the_settings_name() {
    let doc = "apiVersion: v1\nkind: Pod\nmetadata:\n  name: p\nspec:\n  containers: []\n  sch";
    let stream = crdls_yaml::parse(doc);
    let labels = |minor: u16| -> Vec<String> {
        let items = completions(doc, &stream, &CrdIndex::new(), doc.len(), crdls_builtins::KubeVersion::new(1, minor));
        items.into_iter().map(|item| item.label).filter(|l| l == "schedulingGroup" || l == "workloadRef").collect()
    };
    // 1.36 replaced Pod's `workloadRef` (1.35) with `schedulingGroup`.
    assert_eq!(labels(35), ["workloadRef"]);
    assert_eq!(labels(36), ["schedulingGroup"]);
    assert_eq!(labels(37), ["schedulingGroup"]);
}

#[test]
fn keys_of_a_built_in_kind() {
    check_completion(
        "",
        "apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: web\nspec:\n  template:\n    spec:\n      containers:\n        - name: web\n          imagePull$0",
        expect![[r#"
            args (Field snippet) [[]string] "imagePull" -> "args:\n          - $0"
            command (Field snippet) [[]string] "imagePull" -> "command:\n          - $0"
            env (Field snippet) [[]object] "imagePull" -> "env:\n          - $0"
            envFrom (Field snippet) [[]object] "imagePull" -> "envFrom:\n          - $0"
            image (Field snippet) [string] "imagePull" -> "image: $0"
            imagePullPolicy (Field snippet) [string] "imagePull" -> "imagePullPolicy: $0"
            lifecycle (Field snippet) [object] "imagePull" -> "lifecycle:\n            $0"
            livenessProbe (Field snippet) [object] "imagePull" -> "livenessProbe:\n            $0"
            ports (Field snippet) [[]object] "imagePull" -> "ports:\n          - $0"
            readinessProbe (Field snippet) [object] "imagePull" -> "readinessProbe:\n            $0"
            resizePolicy (Field snippet) [[]object] "imagePull" -> "resizePolicy:\n          - $0"
            resources (Field snippet) [object] "imagePull" -> "resources:\n            $0"
            restartPolicy (Field snippet) [string] "imagePull" -> "restartPolicy: $0"
            restartPolicyRules (Field snippet) [[]object] "imagePull" -> "restartPolicyRules:\n          - $0"
            securityContext (Field snippet) [object] "imagePull" -> "securityContext:\n            $0"
            startupProbe (Field snippet) [object] "imagePull" -> "startupProbe:\n            $0"
            stdin (Field snippet) [boolean] "imagePull" -> "stdin: $0"
            stdinOnce (Field snippet) [boolean] "imagePull" -> "stdinOnce: $0"
            terminationMessagePath (Field snippet) [string] "imagePull" -> "terminationMessagePath: $0"
            terminationMessagePolicy (Field snippet) [string] "imagePull" -> "terminationMessagePolicy: $0"
            tty (Field snippet) [boolean] "imagePull" -> "tty: $0"
            volumeDevices (Field snippet) [[]object] "imagePull" -> "volumeDevices:\n          - $0"
            volumeMounts (Field snippet) [[]object] "imagePull" -> "volumeMounts:\n          - $0"
            workingDir (Field snippet) [string] "imagePull" -> "workingDir: $0"
        "#]],
    );
}

#[test]
fn keys_in_a_document_the_parser_cannot_finish() {
    // `ow` without a colon between two keys is a syntax error; the partial tree still holds `size`.
    check_completion(
        &crd(),
        &format!("{HEAD}spec:\n  size: 1\n  ow$0\n  tags: []\n"),
        expect![[r#"
        owner (Field snippet) [string, required] "ow" -> "owner: $0"
        replicas (Field snippet) [integer] "ow" -> "replicas: ${1:1}" // How many copies to run.
        tier (Field snippet) [string] "ow" -> "tier: ${1:bronze}"
        switch (Field snippet) [string] "ow" -> "switch: $0"
        enabled (Field snippet) [boolean] "ow" -> "enabled: $0"
        port (Field snippet) [int-or-string] "ow" -> "port: $0"
        ports (Field snippet) [[]object] "ow" -> "ports:\n  - $0"
        labels (Field snippet) [map[string]object] "ow" -> "labels:\n    $0"
        template (Field snippet) [object] "ow" -> "template:\n    $0"
        nested (Field snippet) [object] "ow" -> "nested:\n    $0"
    "#]],
    );
    check_completion(
        &crd(),
        &format!("{HEAD}spec:\n  ports:\n  - containerPort: 1\n  - pro$0"),
        expect![[r#"
        containerPort (Field snippet) [integer, required] "pro" -> "containerPort: $0"
        protocol (Field snippet) [string] "pro" -> "protocol: ${1:TCP}"
        name (Field snippet) [string] "pro" -> "name: $0"
    "#]],
    );
}

#[test]
fn keys_on_an_indented_empty_line_exclude_present_ones() {
    check_completion(
        &crd(),
        &format!("{HEAD}spec:\n  size: 1\n  $0\n  tier: gold\n"),
        expect![[r#"
        owner (Field snippet) [string, required] "" -> "owner: $0"
        replicas (Field snippet) [integer] "" -> "replicas: ${1:1}" // How many copies to run.
        switch (Field snippet) [string] "" -> "switch: $0"
        enabled (Field snippet) [boolean] "" -> "enabled: $0"
        port (Field snippet) [int-or-string] "" -> "port: $0"
        ports (Field snippet) [[]object] "" -> "ports:\n  - $0"
        tags (Field snippet) [[]string] "" -> "tags:\n  - $0"
        labels (Field snippet) [map[string]object] "" -> "labels:\n    $0"
        template (Field snippet) [object] "" -> "template:\n    $0"
        nested (Field snippet) [object] "" -> "nested:\n    $0"
    "#]],
    );
}

#[test]
fn keys_at_the_root_and_in_metadata() {
    check_completion(
        &crd(),
        &format!("{HEAD}$0"),
        expect![[r#"
        metadata (Field snippet) [object, required] "" -> "metadata:\n  $0" // Standard object's metadata (ObjectMeta): name, namespace, labels, annotations and more.
        spec (Field snippet) [object, required] "" -> "spec:\n  $0"
    "#]],
    );
    check_completion(
        &crd(),
        &format!("{HEAD}metadata:\n  name: x\n  $0"),
        expect![[r#"
        generateName (Field snippet) [string] "" -> "generateName: $0" // An optional prefix the server uses to generate a unique name, used only if `name` is not set.
        namespace (Field snippet) [string] "" -> "namespace: $0" // The namespace the object lives in. Empty means the `default` namespace for namespaced kinds; cluster-scoped kinds have none.
        labels (Field snippet) [map[string]string] "" -> "labels:\n    $0" // Map of string keys and values that can be used to organize and categorize (scope and select) objects.
        annotations (Field snippet) [map[string]string] "" -> "annotations:\n    $0" // Unstructured key-value map stored with a resource that external tools set to store and retrieve arbitrary metadata. They are not queryable.
        finalizers (Field snippet) [[]string] "" -> "finalizers:\n  - $0" // Must be empty before the object is deleted from the registry. Each entry is an identifier for the responsible component that will remove the entry from the list.
        ownerReferences (Field snippet) [[]object] "" -> "ownerReferences:\n  - $0" // The objects this object depends on. If all of them are deleted, this object is garbage collected.
    "#]],
    );
}

#[test]
fn nested_snippets_are_indented_from_the_key() {
    check_completion(
        &crd(),
        &format!("{HEAD}spec:\n  nested:\n    de$0"),
        expect![[r#"
        deeper (Field snippet) [object] "de" -> "deeper:\n      $0"
    "#]],
    );
}

#[test]
fn keys_of_list_items() {
    check_completion(
        &crd(),
        &format!("{HEAD}spec:\n  ports:\n  - $0"),
        expect![[r#"
        containerPort (Field snippet) [integer, required] "" -> "containerPort: $0"
        protocol (Field snippet) [string] "" -> "protocol: ${1:TCP}"
        name (Field snippet) [string] "" -> "name: $0"
    "#]],
    );
    check_completion(
        &crd(),
        &format!("{HEAD}spec:\n  ports:\n  - containerPort: 80\n    $0\n"),
        expect![[r#"
        protocol (Field snippet) [string] "" -> "protocol: ${1:TCP}"
        name (Field snippet) [string] "" -> "name: $0"
    "#]],
    );
}

#[test]
fn keys_of_map_values_and_embedded_resources() {
    check_completion(
        &crd(),
        &format!("{HEAD}spec:\n  labels:\n    app:\n      $0"),
        expect![[r#"
        value (Field snippet) [string] "" -> "value: $0"
    "#]],
    );
    check_completion(
        &crd(),
        &format!("{HEAD}spec:\n  template:\n    $0"),
        expect![[r#"
        apiVersion (Field snippet) [string, required] "" -> "apiVersion: $0" // APIVersion defines the versioned schema of this representation of an object: `group/version`.
        kind (Field snippet) [string, required] "" -> "kind: $0" // Kind is a string value representing the REST resource this object represents.
        metadata (Field snippet) [object] "" -> "metadata:\n      $0" // Standard object's metadata (ObjectMeta): name, namespace, labels, annotations and more.
        spec (Field snippet) [object] "" -> "spec:\n      $0"
    "#]],
    );
}

#[test]
fn values_enum_boolean_default_and_int_or_string() {
    check_completion(
        &crd(),
        &format!("{HEAD}spec:\n  tier: $0"),
        expect![[r#"
        gold (Value) [] "" -> "gold"
        silver (Value) [] "" -> "silver"
        bronze (Value) [default] "" -> "bronze"
    "#]],
    );
    check_completion(
        &crd(),
        &format!("{HEAD}spec:\n  switch:$0"),
        expect![[r#"
        "on" (Value) [] "" -> " \"on\""
        "off" (Value) [] "" -> " \"off\""
        "1.0" (Value) [] "" -> " \"1.0\""
    "#]],
    );
    check_completion(
        &crd(),
        &format!("{HEAD}spec:\n  enabled: t$0\n  size: 1\n"),
        expect![[r#"
        true (Value) [] "t" -> "true"
        false (Value) [] "t" -> "false"
    "#]],
    );
    check_completion(
        &crd(),
        &format!("{HEAD}spec:\n  replicas: $0"),
        expect![[r#"
        1 (Value) [default] "" -> "1" // How many copies to run.
    "#]],
    );
    check_completion(
        &crd(),
        &format!("{HEAD}spec:\n  port: $0"),
        expect![[r#"
        <int-or-string> (Value snippet) [an integer (8080) or a string ("http", "25%")] "" -> "${1:0}"
    "#]],
    );
    check_completion(
        &crd(),
        &format!("{HEAD}spec:\n  ports:\n  - protocol: $0"),
        expect![[r#"
        TCP (Value) [default] "" -> "TCP"
        UDP (Value) [] "" -> "UDP"
    "#]],
    );
    check_completion(
        &crd(),
        &format!("{HEAD}spec:\n  tags:\n  - $0"),
        expect![[r#"
        a (Value) [] "" -> "a"
        b (Value) [] "" -> "b"
    "#]],
    );
}

#[test]
fn api_versions_and_kinds_from_the_index() {
    check_completion(
        &crd(),
        "apiVersion: $0\n",
        expect![[r#"
        demo.crdls.dev/v1 (ApiVersion) [Widget] "" -> "demo.crdls.dev/v1"
        demo.crdls.dev/v1beta1 (ApiVersion deprecated) [Widget] "" -> "demo.crdls.dev/v1beta1" // demo.crdls.dev/v1beta1 Widget is deprecated; use demo.crdls.dev/v1
        demo.crdls.dev/v1alpha1 (ApiVersion) [Gadget] "" -> "demo.crdls.dev/v1alpha1"
    "#]],
    );
    check_completion(
        &crd(),
        "kind: Gadget\napiVersion: $0\n",
        expect![[r#"
        demo.crdls.dev/v1alpha1 (ApiVersion) [Gadget] "" -> "demo.crdls.dev/v1alpha1"
    "#]],
    );
    check_completion(
        &crd(),
        "apiVersion: demo.crdls.dev/v1\nkind: $0\n",
        expect![[r#"
        Widget (Kind) [demo.crdls.dev/v1] "" -> "Widget" // **Widget** (CRD `widgets.demo.crdls.dev`)
    "#]],
    );
    check_completion(
        &crd(),
        "kind: W$0\n",
        expect![[r#"
        Gadget (Kind) [demo.crdls.dev/v1alpha1] "W" -> "Gadget" // **Gadget** (CRD `gadgets.demo.crdls.dev`)
        Widget (Kind) [demo.crdls.dev/v1] "W" -> "Widget" // **Widget** (CRD `widgets.demo.crdls.dev`)
    "#]],
    );
}

#[test]
fn skeletons_in_an_empty_document() {
    check_completion(
        &crd(),
        "$0",
        expect![[r#"
        Gadget (Snippet snippet) [new Gadget (demo.crdls.dev/v1alpha1)] "" -> "apiVersion: demo.crdls.dev/v1alpha1\nkind: Gadget\nmetadata:\n  name: ${1:name}\nspec:\n  mode: ${2|fast,safe|}\n  items:\n  - name: $3\n    weight: ${4:5}\n" // **Gadget** (CRD `gadgets.demo.crdls.dev`)
        Widget (Snippet snippet) [new Widget (demo.crdls.dev/v1)] "" -> "apiVersion: demo.crdls.dev/v1\nkind: Widget\nmetadata:\n  name: ${1:name}\nspec:\n  size: $2\n  owner: $3\n" // **Widget** (CRD `widgets.demo.crdls.dev`)
        apiVersion (Field snippet) [string, required] "" -> "apiVersion: $0" // APIVersion defines the versioned schema of this representation of an object: `group/version`.
        kind (Field snippet) [string, required] "" -> "kind: $0" // Kind is a string value representing the REST resource this object represents.
        metadata (Field snippet) [object, required] "" -> "metadata:\n  $0" // Standard object's metadata (ObjectMeta): name, namespace, labels, annotations and more.
    "#]],
    );
    check_completion(
        &crd(),
        &format!("{HEAD}spec:\n  size: 1\n---\nGad$0"),
        expect![[r#"
        Gadget (Snippet snippet) [new Gadget (demo.crdls.dev/v1alpha1)] "Gad" -> "apiVersion: demo.crdls.dev/v1alpha1\nkind: Gadget\nmetadata:\n  name: ${1:name}\nspec:\n  mode: ${2|fast,safe|}\n  items:\n  - name: $3\n    weight: ${4:5}\n" // **Gadget** (CRD `gadgets.demo.crdls.dev`)
        Widget (Snippet snippet) [new Widget (demo.crdls.dev/v1)] "Gad" -> "apiVersion: demo.crdls.dev/v1\nkind: Widget\nmetadata:\n  name: ${1:name}\nspec:\n  size: $2\n  owner: $3\n" // **Widget** (CRD `widgets.demo.crdls.dev`)
        apiVersion (Field snippet) [string, required] "Gad" -> "apiVersion: $0" // APIVersion defines the versioned schema of this representation of an object: `group/version`.
        kind (Field snippet) [string, required] "Gad" -> "kind: $0" // Kind is a string value representing the REST resource this object represents.
        metadata (Field snippet) [object, required] "Gad" -> "metadata:\n  $0" // Standard object's metadata (ObjectMeta): name, namespace, labels, annotations and more.
    "#]],
    );
}

#[test]
fn odd_input_never_panics() {
    let index = fixture::index(&crd());
    for text in ["", "é", "spec:\n  é", "- - -\n", "a: [\n", "\r\n", "---\n---"] {
        let stream = crdls_yaml::parse(text);
        for offset in 0..=text.len() + 2 {
            let _ = completions(text, &stream, &index, offset, crdls_builtins::newest());
        }
    }
}

#[test]
fn non_ascii_before_the_cursor() {
    check_completion(
        &crd(),
        &format!("{HEAD}metadata:\n  name: café-ü\nspec:\n  owner: jürgen\n  ti$0"),
        expect![[r#"
        size (Field snippet) [integer, required] "ti" -> "size: $0" // The size, from 1 to 10.
        replicas (Field snippet) [integer] "ti" -> "replicas: ${1:1}" // How many copies to run.
        tier (Field snippet) [string] "ti" -> "tier: ${1:bronze}"
        switch (Field snippet) [string] "ti" -> "switch: $0"
        enabled (Field snippet) [boolean] "ti" -> "enabled: $0"
        port (Field snippet) [int-or-string] "ti" -> "port: $0"
        ports (Field snippet) [[]object] "ti" -> "ports:\n  - $0"
        tags (Field snippet) [[]string] "ti" -> "tags:\n  - $0"
        labels (Field snippet) [map[string]object] "ti" -> "labels:\n    $0"
        template (Field snippet) [object] "ti" -> "template:\n    $0"
        nested (Field snippet) [object] "ti" -> "nested:\n    $0"
    "#]],
    );
}
