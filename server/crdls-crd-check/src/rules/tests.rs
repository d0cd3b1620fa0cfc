//! Tests of the rule checks.

use crdls_diagnostics::Diagnostic;

/// The codes and causes of the rule findings of a CRD whose root schema is `schema` (YAML, at
/// eight spaces).
fn findings(schema: &str) -> Vec<String> {
    let text = format!(
        "apiVersion: apiextensions.k8s.io/v1\nkind: CustomResourceDefinition\nmetadata:\n  name: gauges.example.com\nspec:\n  group: example.com\n  scope: Namespaced\n  names: {{kind: Gauge, plural: gauges}}\n  versions:\n  - name: v1\n    served: true\n    storage: true\n    schema:\n      openAPIV3Schema:\n{schema}"
    );
    let stream = crdls_yaml::parse(&text);
    let root = stream.documents[0].root.as_ref().unwrap();
    let mut out: Vec<Diagnostic> = Vec::new();
    super::check_crd(root, &text, crdls_cel::Options::kubernetes(36), &mut out);
    out.iter().map(|d| format!("{}: {}", d.code, d.cause.clone().unwrap_or_default())).collect()
}

/// A rule's own fields refused (here an invalid fieldPath) are a schema error of its node: the API
/// server compiles none of the node's rules, nor those of the nodes above, and words the error as
/// an invalid value's detail.
#[test]
fn a_rule_with_a_schema_error_stops_the_compilation_of_its_node_and_above() {
    let schema = "        type: object
        x-kubernetes-validations:
        - rule: self.nope == 1
        properties:
          spec:
            type: object
            x-kubernetes-validations:
            - rule: self.size >= 0
              fieldPath: .sise
            - rule: self.size == true
            properties:
              size: {type: integer}
";
    assert_eq!(
        findings(schema),
        ["cel/field-path: spec.validation.openAPIV3Schema.properties[spec].x-kubernetes-validations[0].fieldPath: Invalid value: \".sise\": must be a valid path"]
    );
    // Without it, both nodes' rules compile, and their errors are reported.
    let fixed = schema.replace("              fieldPath: .sise\n", "");
    let codes: Vec<String> = findings(&fixed).iter().map(|f| f.split(':').next().unwrap_or_default().to_string()).collect();
    assert_eq!(codes, ["cel/compile-error", "cel/compile-error"]);
}

/// `optionalOldSelf` on a rule that does not compile is refused too: the API server learns that a
/// rule uses oldSelf only from one that compiles.
#[test]
fn optional_old_self_on_a_rule_that_does_not_compile_is_refused() {
    let schema = "        type: object
        properties:
          size:
            type: integer
            x-kubernetes-validations:
            - rule: self == 'one'
              optionalOldSelf: true
";
    let found = findings(schema);
    assert_eq!(found.len(), 2, "{found:?}");
    assert!(found[0].starts_with("cel/compile-error: "), "{found:?}");
    assert_eq!(
        found[1],
        "cel/optional-old-self: spec.validation.openAPIV3Schema.properties[size].x-kubernetes-validations[0].optionalOldSelf: Invalid value: true: may not be set if oldSelf is not used in rule"
    );
}

/// An empty `messageExpression` or `fieldPath` is as good as none: the API server refuses only one
/// that is present and blank. A field path's checks do not stop at the first: a blank one is also
/// not a valid path.
#[test]
fn empty_message_expressions_and_field_paths_are_absent_and_blank_ones_are_refused() {
    let schema = |extra: &str| {
        format!(
            "        type: object
        properties:
          size:
            type: integer
            x-kubernetes-validations:
            - rule: self >= 0
{extra}"
        )
    };
    assert_eq!(findings(&schema("              messageExpression: ''\n              fieldPath: ''\n")), Vec::<String>::new());
    let path = "spec.validation.openAPIV3Schema.properties[size].x-kubernetes-validations[0]";
    assert_eq!(
        findings(&schema("              messageExpression: ' '\n              fieldPath: ' '\n")),
        [
            format!("cel/message: {path}.messageExpression: Required value: messageExpression must be non-empty if specified"),
            format!("cel/field-path: {path}.fieldPath: Invalid value: \" \": must be non-empty if specified"),
            format!("cel/field-path: {path}.fieldPath: Invalid value: \" \": must be a valid path"),
        ]
    );
}

/// The API server checks a field path only on a node that converts to a structural schema (its
/// `pathValid` accepts any path elsewhere): here `x-kubernetes-preserve-unknown-fields: false`.
#[test]
fn a_field_path_is_not_checked_on_a_node_that_is_not_structural() {
    let schema = |extra: &str| {
        format!(
            "        type: object
        properties:
          when:
            type: object
{extra}            x-kubernetes-validations:
            - rule: self == self
              fieldPath: .nope
"
        )
    };
    assert_eq!(findings(&schema("")).len(), 1, "{:?}", findings(&schema("")));
    let unstructural = findings(&schema("            x-kubernetes-preserve-unknown-fields: false\n"));
    assert!(unstructural.iter().all(|f| !f.starts_with("cel/field-path")), "{unstructural:?}");
}

/// A node whose own schema CEL gives no type (an untyped preserve-unknown-fields node, an array
/// without typed items, a map of such values) fails the type look-up of its rules, once for the node,
/// and so does every node with rules below it once some node above has rules (the look-up asks the
/// parent first). Without rules above, a node's type is its own schema's. A root rule does not see
/// such a property.
#[test]
fn rules_of_a_node_cel_gives_no_type_fail_its_type_look_up_and_those_below() {
    let schema = "        type: object
        x-kubernetes-validations:
        - rule: has(self.spec)
        properties:
          spec:
            x-kubernetes-preserve-unknown-fields: true
            properties:
              a:
                type: string
                x-kubernetes-validations:
                - rule: self != ''
          data:
            type: object
            additionalProperties:
              x-kubernetes-preserve-unknown-fields: true
            x-kubernetes-validations:
            - rule: self.size() > 0
          values:
            type: object
            properties:
              below:
                x-kubernetes-preserve-unknown-fields: true
                properties:
                  tags:
                    type: string
                    x-kubernetes-validations:
                    - rule: self != ''
";
    let lookup = |at: &str| {
        format!("cel/compile-error: spec.validation.openAPIV3Schema.{at}.x-kubernetes-validations: Internal error: internal error: failed to construct type information for x-kubernetes-validations rules: unable to convert structural schema to CEL declarations")
    };
    let found = findings(schema);
    assert_eq!(found.len(), 4, "{found:?}");
    for at in ["properties[data]", "properties[spec].properties[a]", "properties[values].properties[below].properties[tags]"] {
        assert!(found.contains(&lookup(at)), "{at}: {found:?}");
    }
    assert!(found.iter().any(|f| f.contains("x-kubernetes-validations[0].rule: ") && f.contains("undefined field 'spec'")), "{found:?}");
    // Without the root's rule, `a` and `tags` are typed from their own schemas and compile.
    let unscoped = schema.replace("        x-kubernetes-validations:\n        - rule: has(self.spec)\n", "");
    assert_eq!(findings(&unscoped), [lookup("properties[data]")]);
}
