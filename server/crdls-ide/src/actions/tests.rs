//! Quick fixes checked end to end: a document is checked, every diagnostic asks for its fixes, and each
//! fix is applied and the result checked again.

use crdls_test_fixture as fixture;
use expect_test::{expect, Expect};

use super::*;
use crate::types::apply_edits;

/// Pumps at `v2` (stored), `v1` (deprecated) and `v0` (not served).
fn crd() -> String {
    let preserved = "{type: object, x-kubernetes-preserve-unknown-fields: true}";
    fixture::Crd::new("Pump")
        .storage_version("v2")
        .schema(
            r#"
            type: object
            required: [spec]
            properties:
              spec:
                type: object
                required: [mode, rate, outlet]
                properties:
                  mode: {type: string, enum: [Steady, Burst, Pulse]}
                  rate: {type: integer, default: 10}
                  version: {type: string}
                  enabled: {type: boolean}
                  outlet:
                    type: object
                    required: [size]
                    properties:
                      size: {type: integer}
                      valve: {type: string, enum: [open, shut]}
                  ports:
                    type: array
                    items:
                      type: object
                      required: [port]
                      properties:
                        port: {type: integer}
                        name: {type: string}
            "#,
        )
        .version(fixture::Version::new("v1").deprecated().schema(preserved))
        .version(fixture::Version::new("v0").not_served().schema(preserved))
        .yaml()
}

/// Checks `doc`, asks for the fixes of every diagnostic, and renders each action as its title, its
/// flags, the codes it fixes, and the document with its edits applied.
fn check_fixes(doc: &str, expect: Expect) {
    let index = fixture::index(&crd());
    let stream = crdls_yaml::parse(doc);
    let diagnostics = crdls_check::check_stream(&stream, &index, &Default::default()).diagnostics();
    let requests: Vec<FixRequest<'_>> = diagnostics
        .iter()
        .map(|d| FixRequest { code: d.code, range: d.range, path: d.path.as_deref(), restore: d.restore.as_deref() })
        .collect();
    let mut out = String::new();
    for action in code_actions(doc, &stream, &index, &requests) {
        let codes: Vec<&str> = action.fixes.iter().map(|i| requests[*i].code).collect();
        let flags = [(action.preferred, " [preferred]"), (action.automatic, " [automatic]")];
        let flags: String = flags.iter().filter(|f| f.0).map(|f| f.1).collect();
        out.push_str(&format!("## {}{flags} ({})\n", action.title, codes.join(", ")));
        let text = apply_edits(doc, &action.edits);
        // The fixed text must parse, and must not have the diagnostics the action fixes.
        let fixed = crdls_yaml::parse(&text);
        assert!(fixed.documents.iter().all(|d| !d.has_syntax_error), "{} broke the YAML:\n{text}", action.title);
        let after = crdls_check::check_stream(&fixed, &index, &Default::default()).diagnostics();
        for i in &action.fixes {
            let (code, path) = (requests[*i].code, requests[*i].path);
            let left = after.iter().find(|d| d.code == code && d.path.as_deref() == path && d.message == diagnostics[*i].message);
            assert!(left.is_none(), "{} left {left:?} in place:\n{text}", action.title);
        }
        out.push_str(&text);
    }
    expect.assert_eq(&out);
}

const HEAD: &str = "apiVersion: demo.crdls.dev/v2\nkind: Pump\nmetadata: {name: p}\n";

#[test]
fn missing_required_fields_are_added_with_their_own_required_fields() {
    check_fixes(
        &format!("{HEAD}spec:\n  version: \"1\"  # the pump's firmware\n"),
        expect![[r###"
            ## Add required field "mode" (schema/required)
            apiVersion: demo.crdls.dev/v2
            kind: Pump
            metadata: {name: p}
            spec:
              version: "1"  # the pump's firmware
              mode: Steady
            ## Add all 2 missing required fields to "spec" [preferred] (schema/required, schema/required)
            apiVersion: demo.crdls.dev/v2
            kind: Pump
            metadata: {name: p}
            spec:
              version: "1"  # the pump's firmware
              mode: Steady
              outlet:
                size: 0
            ## Add required field "outlet" (schema/required)
            apiVersion: demo.crdls.dev/v2
            kind: Pump
            metadata: {name: p}
            spec:
              version: "1"  # the pump's firmware
              outlet:
                size: 0
        "###]],
    );
}

#[test]
fn required_fields_in_flow_maps_null_values_and_list_items() {
    check_fixes(
        &format!("{HEAD}spec: {{mode: Burst, outlet: {{}}}}\n"),
        expect![[r#"
            ## Add required field "size" [preferred] (schema/required)
            apiVersion: demo.crdls.dev/v2
            kind: Pump
            metadata: {name: p}
            spec: {mode: Burst, outlet: {size: 0}}
        "#]],
    );
    check_fixes(
        &format!("{HEAD}spec:\n"),
        expect![[r###"
            ## Fill in required field "spec" [preferred] (schema/required)
            apiVersion: demo.crdls.dev/v2
            kind: Pump
            metadata: {name: p}
            spec:
              mode: Steady
              outlet:
                size: 0
        "###]],
    );
    check_fixes(
        &format!("{HEAD}spec:\n  mode: Burst\n  outlet: {{size: 1}}\n  ports:\n  - name: http\n"),
        expect![[r#"
            ## Add required field "port" [preferred] (schema/required)
            apiVersion: demo.crdls.dev/v2
            kind: Pump
            metadata: {name: p}
            spec:
              mode: Burst
              outlet: {size: 1}
              ports:
              - name: http
                port: 0
        "#]],
    );
}

#[test]
fn enum_values_are_replaced_by_the_nearest_members() {
    check_fixes(
        &format!("{HEAD}spec:\n  mode: burts\n  outlet: {{size: 1, valve: closed}}\n"),
        expect![[r#"
            ## Change to Burst [preferred] [automatic] (schema/enum)
            apiVersion: demo.crdls.dev/v2
            kind: Pump
            metadata: {name: p}
            spec:
              mode: Burst
              outlet: {size: 1, valve: closed}
            ## Change to Pulse (schema/enum)
            apiVersion: demo.crdls.dev/v2
            kind: Pump
            metadata: {name: p}
            spec:
              mode: Pulse
              outlet: {size: 1, valve: closed}
            ## Change to Steady (schema/enum)
            apiVersion: demo.crdls.dev/v2
            kind: Pump
            metadata: {name: p}
            spec:
              mode: Steady
              outlet: {size: 1, valve: closed}
            ## Change to open (schema/enum)
            apiVersion: demo.crdls.dev/v2
            kind: Pump
            metadata: {name: p}
            spec:
              mode: burts
              outlet: {size: 1, valve: open}
            ## Change to shut (schema/enum)
            apiVersion: demo.crdls.dev/v2
            kind: Pump
            metadata: {name: p}
            spec:
              mode: burts
              outlet: {size: 1, valve: shut}
        "#]],
    );
}

#[test]
fn unknown_fields_are_renamed_or_removed() {
    check_fixes(
        &format!("{HEAD}spec:\n  mode: Burst\n  outlet:\n    size: 1\n    valv: open\n  extra:\n    deep: 1\n  ports:\n  - prot: 80\n    port: 80\n"),
        expect![[r###"
            ## Rename to "valve" [preferred] [automatic] (schema/unknown-field)
            apiVersion: demo.crdls.dev/v2
            kind: Pump
            metadata: {name: p}
            spec:
              mode: Burst
              outlet:
                size: 1
                valve: open
              extra:
                deep: 1
              ports:
              - prot: 80
                port: 80
            ## Remove unknown field "valv" (schema/unknown-field)
            apiVersion: demo.crdls.dev/v2
            kind: Pump
            metadata: {name: p}
            spec:
              mode: Burst
              outlet:
                size: 1
              extra:
                deep: 1
              ports:
              - prot: 80
                port: 80
            ## Remove unknown field "extra" [preferred] (schema/unknown-field)
            apiVersion: demo.crdls.dev/v2
            kind: Pump
            metadata: {name: p}
            spec:
              mode: Burst
              outlet:
                size: 1
                valv: open
              ports:
              - prot: 80
                port: 80
            ## Remove unknown field "prot" [preferred] (schema/unknown-field)
            apiVersion: demo.crdls.dev/v2
            kind: Pump
            metadata: {name: p}
            spec:
              mode: Burst
              outlet:
                size: 1
                valv: open
              extra:
                deep: 1
              ports:
              - port: 80
        "###]],
    );
    check_fixes(
        "apiVersion: demo.crdls.dev/v2\nkind: Pump\nmetadata: {name: p, lables: {a: b}}\nspec: {mode: Burst, outlet: {size: 1}, junk: 1}\n",
        expect![[r###"
            ## Rename to "labels" [preferred] [automatic] (schema/unknown-field)
            apiVersion: demo.crdls.dev/v2
            kind: Pump
            metadata: {name: p, labels: {a: b}}
            spec: {mode: Burst, outlet: {size: 1}, junk: 1}
            ## Remove unknown field "lables" (schema/unknown-field)
            apiVersion: demo.crdls.dev/v2
            kind: Pump
            metadata: {name: p}
            spec: {mode: Burst, outlet: {size: 1}, junk: 1}
            ## Remove unknown field "junk" [preferred] (schema/unknown-field)
            apiVersion: demo.crdls.dev/v2
            kind: Pump
            metadata: {name: p, lables: {a: b}}
            spec: {mode: Burst, outlet: {size: 1}}
        "###]],
    );
}

#[test]
fn scalars_of_the_wrong_type_are_quoted_or_unquoted() {
    check_fixes(
        &format!("{HEAD}spec:\n  mode: Burst\n  rate: \"12\"\n  version: 1.10\n  enabled: \"true\"\n  outlet: {{size: 1}}\n"),
        expect![[r###"
            ## Write 12 as an integer [preferred] [automatic] (schema/type)
            apiVersion: demo.crdls.dev/v2
            kind: Pump
            metadata: {name: p}
            spec:
              mode: Burst
              rate: 12
              version: 1.10
              enabled: "true"
              outlet: {size: 1}
            ## Quote as the string "1.10" [preferred] [automatic] (schema/type)
            apiVersion: demo.crdls.dev/v2
            kind: Pump
            metadata: {name: p}
            spec:
              mode: Burst
              rate: "12"
              version: "1.10"
              enabled: "true"
              outlet: {size: 1}
            ## Write true as a boolean [preferred] [automatic] (schema/type)
            apiVersion: demo.crdls.dev/v2
            kind: Pump
            metadata: {name: p}
            spec:
              mode: Burst
              rate: "12"
              version: 1.10
              enabled: true
              outlet: {size: 1}
        "###]],
    );
}

#[test]
fn api_versions_move_to_the_preferred_served_version() {
    check_fixes(
        "apiVersion: demo.crdls.dev/v1\nkind: Pump\nmetadata: {name: p}\n---\napiVersion: demo.crdls.dev/v0\nkind: Pump\nmetadata: {name: q}\n---\napiVersion: demo.crdls.dev/v3\nkind: Pump\nmetadata: {name: r}\n---\napiVersion: demo.crdls.dev/v2\nkind: Pmup\nmetadata: {name: s}\n",
        expect![[r#"
            ## Change apiVersion to demo.crdls.dev/v2 [preferred] (resource/deprecated-version)
            apiVersion: demo.crdls.dev/v2
            kind: Pump
            metadata: {name: p}
            ---
            apiVersion: demo.crdls.dev/v0
            kind: Pump
            metadata: {name: q}
            ---
            apiVersion: demo.crdls.dev/v3
            kind: Pump
            metadata: {name: r}
            ---
            apiVersion: demo.crdls.dev/v2
            kind: Pmup
            metadata: {name: s}
            ## Change apiVersion to demo.crdls.dev/v2 [preferred] (resource/version-not-served)
            apiVersion: demo.crdls.dev/v1
            kind: Pump
            metadata: {name: p}
            ---
            apiVersion: demo.crdls.dev/v2
            kind: Pump
            metadata: {name: q}
            ---
            apiVersion: demo.crdls.dev/v3
            kind: Pump
            metadata: {name: r}
            ---
            apiVersion: demo.crdls.dev/v2
            kind: Pmup
            metadata: {name: s}
            ## Change apiVersion to demo.crdls.dev/v2 [preferred] [automatic] (resource/unknown-version)
            apiVersion: demo.crdls.dev/v1
            kind: Pump
            metadata: {name: p}
            ---
            apiVersion: demo.crdls.dev/v0
            kind: Pump
            metadata: {name: q}
            ---
            apiVersion: demo.crdls.dev/v2
            kind: Pump
            metadata: {name: r}
            ---
            apiVersion: demo.crdls.dev/v2
            kind: Pmup
            metadata: {name: s}
            ## Change kind to Pump [preferred] [automatic] (resource/unknown-kind)
            apiVersion: demo.crdls.dev/v1
            kind: Pump
            metadata: {name: p}
            ---
            apiVersion: demo.crdls.dev/v0
            kind: Pump
            metadata: {name: q}
            ---
            apiVersion: demo.crdls.dev/v3
            kind: Pump
            metadata: {name: r}
            ---
            apiVersion: demo.crdls.dev/v2
            kind: Pump
            metadata: {name: s}
        "#]],
    );
}

#[test]
fn automatic_edits_take_only_clear_replacements_once() {
    let index = fixture::index(&crd());
    let doc = "apiVersion: demo.crdls.dev/v1\nkind: Pump\nmetadata: {name: p}\n---\napiVersion: demo.crdls.dev/v2\nkind: Pump\nmetadata: {name: q}\nspec:\n  mode: burts\n  outlet: {size: 1, valv: open, extra: 1}\n  version: 2\n";
    let stream = crdls_yaml::parse(doc);
    let diagnostics = crdls_check::check_stream(&stream, &index, &Default::default()).diagnostics();
    let edits = automatic_edits(doc, &stream, &index, &diagnostics);
    expect![[r#"
        apiVersion: demo.crdls.dev/v1
        kind: Pump
        metadata: {name: p}
        ---
        apiVersion: demo.crdls.dev/v2
        kind: Pump
        metadata: {name: q}
        spec:
          mode: Burst
          outlet: {size: 1, valve: open, extra: 1}
          version: "2"
    "#]]
    .assert_eq(&apply_edits(doc, &edits));
}

#[test]
fn a_legacy_crd_is_converted_to_v1() {
    let text = std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/../../fixtures/crds/gadgets-v1beta1.yaml")).unwrap();
    let index = CrdIndex::new();
    let stream = crdls_yaml::parse(&text);
    let diagnostics = crdls_check::check_stream(&stream, &index, &Default::default()).diagnostics();
    let requests: Vec<FixRequest<'_>> = diagnostics
        .iter()
        .map(|d| FixRequest { code: d.code, range: d.range, path: d.path.as_deref(), restore: d.restore.as_deref() })
        .collect();
    let actions = code_actions(&text, &stream, &index, &requests);
    let convert = actions.iter().find(|a| a.title.starts_with("Convert this CRD")).expect("a conversion");
    let converted = apply_edits(&text, &convert.edits);
    let after = crdls_check::check_stream(&crdls_yaml::parse(&converted), &index, &Default::default()).diagnostics();
    assert!(after.iter().all(|d| d.code != "crd/legacy-v1beta1"), "{after:?}\n{converted}");
    assert!(converted.starts_with(text.lines().next().unwrap()), "leading comments stay:\n{converted}");
    let before_crd = crdls_crd::Crd::from_document(&stream.documents[0]);
    let after_crd = crdls_crd::Crd::from_document(&crdls_yaml::parse(&converted).documents[0]);
    assert_eq!(
        format!("{:?}", before_crd[0].versions.iter().map(|v| (&v.name, v.served, v.storage)).collect::<Vec<_>>()),
        format!("{:?}", after_crd[0].versions.iter().map(|v| (&v.name, v.served, v.storage)).collect::<Vec<_>>())
    );
}

#[test]
fn built_in_kinds_get_the_same_fixes() {
    check_fixes(
        "apiVersion: policy/v1beta1\nkind: PodDisruptionBudget\nmetadata: {name: p}\nspec:\n  minAvailable: 1\n---\napiVersion: v1\nkind: Servise\nmetadata: {name: s}\n---\napiVersion: v1\nkind: ConfigMap\nmetadata: {name: c}\ndatta: {a: b}\n",
        expect![[r###"
            ## Change apiVersion to policy/v1 [preferred] (resource/api-not-served)
            apiVersion: policy/v1
            kind: PodDisruptionBudget
            metadata: {name: p}
            spec:
              minAvailable: 1
            ---
            apiVersion: v1
            kind: Servise
            metadata: {name: s}
            ---
            apiVersion: v1
            kind: ConfigMap
            metadata: {name: c}
            datta: {a: b}
            ## Change kind to Service [preferred] [automatic] (resource/unknown-kind)
            apiVersion: policy/v1beta1
            kind: PodDisruptionBudget
            metadata: {name: p}
            spec:
              minAvailable: 1
            ---
            apiVersion: v1
            kind: Service
            metadata: {name: s}
            ---
            apiVersion: v1
            kind: ConfigMap
            metadata: {name: c}
            datta: {a: b}
            ## Rename to "data" [preferred] [automatic] (schema/unknown-field)
            apiVersion: policy/v1beta1
            kind: PodDisruptionBudget
            metadata: {name: p}
            spec:
              minAvailable: 1
            ---
            apiVersion: v1
            kind: Servise
            metadata: {name: s}
            ---
            apiVersion: v1
            kind: ConfigMap
            metadata: {name: c}
            data: {a: b}
            ## Remove unknown field "datta" (schema/unknown-field)
            apiVersion: policy/v1beta1
            kind: PodDisruptionBudget
            metadata: {name: p}
            spec:
              minAvailable: 1
            ---
            apiVersion: v1
            kind: Servise
            metadata: {name: s}
            ---
            apiVersion: v1
            kind: ConfigMap
            metadata: {name: c}
        "###]],
    );
}

/// A CRD whose enum lost a value and whose maximum was lowered, compared with its previous version:
/// each fix writes the previous value back, and the finding it fixes is gone.
#[test]
fn crd_changes_restore_removed_enum_values_and_previous_bounds() {
    let old = "\
apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata:
  name: widgets.demo.crdls.dev
spec:
  group: demo.crdls.dev
  names:
    kind: Widget
    plural: widgets
  scope: Namespaced
  versions:
  - name: v1
    served: true
    storage: true
    schema:
      openAPIV3Schema:
        type: object
        properties:
          mode:
            type: string
            enum:
            - A
            - B
          size:
            type: integer
            maximum: 10
";
    let new = old.replace("            - B\n", "").replace("maximum: 10", "maximum: 5");
    let mut previous = crdls_check::OldObjects::new();
    previous.add_stream(&crdls_yaml::parse(old));
    let options = crdls_check::CheckOptions { old: Some(std::sync::Arc::new(previous)), ..Default::default() };
    let index = CrdIndex::new();
    let stream = crdls_yaml::parse(&new);
    let diagnostics = crdls_check::check_stream(&stream, &index, &options).diagnostics();
    let requests: Vec<FixRequest<'_>> = diagnostics
        .iter()
        .map(|d| FixRequest { code: d.code, range: d.range, path: d.path.as_deref(), restore: d.restore.as_deref() })
        .collect();
    let mut out = String::new();
    for action in code_actions(&new, &stream, &index, &requests) {
        let text = apply_edits(&new, &action.edits);
        let fixed = crdls_yaml::parse(&text);
        assert!(
            fixed.documents.iter().all(|d| !d.has_syntax_error) && !(action.title.contains("enum") && text.contains("- A")),
            "{} broke the YAML:\n{text}",
            action.title
        );
        let after = crdls_check::check_stream(&fixed, &index, &options).diagnostics();
        // The other change is still reported, this one is not.
        assert_eq!(after.len(), 1, "{}: {after:?}", action.title);
        for i in &action.fixes {
            assert!(
                !after.iter().any(|d| d.code == requests[*i].code && d.path.as_deref() == requests[*i].path),
                "{}:\n{text}",
                action.title
            );
        }
        let changed: Vec<&str> = text.lines().filter(|l| !new.lines().any(|n| n == *l)).collect();
        out.push_str(&format!("## {} ({})\n{}\n", action.title, requests[action.fixes[0]].code, changed.join("\n")));
    }
    expect![[r#"
        ## Restore the previous enum: ["A", "B"] (crd-change/enum)
                    enum: ["A", "B"]
        ## Restore the previous maximum: 10 (crd-change/bound)
                    maximum: 10
    "#]]
    .assert_eq(&out);
}

/// A rule added to a field stored objects already have: the fixes rewrite it as a transition rule, or
/// with `optionalOldSelf: true`, in block and flow style; the fixed CRD is valid, and its rule now
/// spares unchanged values.
#[test]
fn a_new_rule_is_made_to_spare_stored_values() {
    let old = "\
apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata:
  name: widgets.demo.crdls.dev
spec:
  group: demo.crdls.dev
  names:
    kind: Widget
    plural: widgets
  scope: Namespaced
  versions:
  - name: v1
    served: true
    storage: true
    schema:
      openAPIV3Schema:
        type: object
        properties:
          size:
            type: integer
          name:
            type: string
";
    let new = old
        .replace("            type: integer\n", "            type: integer\n            x-kubernetes-validations:\n            - rule: self <= 10\n              message: at most 10\n")
        .replace("            type: string\n", "            type: string\n            x-kubernetes-validations: [{rule: \"!(self in ['x', 'y'])\"}]\n");
    let mut previous = crdls_check::OldObjects::new();
    previous.add_stream(&crdls_yaml::parse(old));
    let options = crdls_check::CheckOptions { old: Some(std::sync::Arc::new(previous)), ..Default::default() };
    let index = CrdIndex::new();
    let stream = crdls_yaml::parse(&new);
    let diagnostics = crdls_check::check_stream(&stream, &index, &options).diagnostics();
    assert_eq!(diagnostics.iter().map(|d| d.code).collect::<Vec<_>>(), ["crd-change/rule", "crd-change/rule"], "{diagnostics:?}");
    let requests: Vec<FixRequest<'_>> = diagnostics
        .iter()
        .map(|d| FixRequest { code: d.code, range: d.range, path: d.path.as_deref(), restore: d.restore.as_deref() })
        .collect();
    let mut out = String::new();
    for action in code_actions(&new, &stream, &index, &requests) {
        let text = apply_edits(&new, &action.edits);
        let after = crdls_check::check_stream(&crdls_yaml::parse(&text), &index, &options).diagnostics();
        // The CRD stays valid: only the two rule changes are reported, the fixed one as sparing unchanged values.
        assert_eq!(
            after.iter().map(|d| d.code).collect::<Vec<_>>(),
            ["crd-change/rule", "crd-change/rule"],
            "{}:\n{text}\n{after:?}",
            action.title
        );
        assert!(after.iter().any(|d| d.message.contains("a transition rule")), "{}: {after:?}", action.title);
        let changed: Vec<&str> = text.lines().filter(|l| !new.lines().any(|n| n == *l)).collect();
        out.push_str(&format!("## {}\n{}\n", action.title, changed.join("\n")));
    }
    expect![[r###"
        ## Check the rule only on updates that change the value: self == oldSelf || (self <= 10)
                    - rule: "self == oldSelf || (self <= 10)"
        ## Spare unchanged values with optionalOldSelf: (oldSelf.hasValue() && self == oldSelf.value()) || (self <= 10)
                    - rule: "(oldSelf.hasValue() && self == oldSelf.value()) || (self <= 10)"
                      optionalOldSelf: true
        ## Check the rule only on updates that change the value: self == oldSelf || (!(self in ['x', 'y']))
                    x-kubernetes-validations: [{rule: "self == oldSelf || (!(self in ['x', 'y']))"}]
        ## Spare unchanged values with optionalOldSelf: (oldSelf.hasValue() && self == oldSelf.value()) || (!(self in ['x', 'y']))
                    x-kubernetes-validations: [{rule: "(oldSelf.hasValue() && self == oldSelf.value()) || (!(self in ['x', 'y']))", optionalOldSelf: true}]
    "###]]
    .assert_eq(&out);
}
