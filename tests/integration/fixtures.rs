//! Snapshot tests of `crdls check` on every fixture in `fixtures/resources`, rendered as the CLI
//! renders them. Run with `UPDATE_EXPECT=1` to accept new output, then review the diff.

use expect_test::expect_file;

use crdls_tests::{repo_root, run_cli};

fn snapshot(name: &str) {
    snapshot_of(&format!("fixtures/resources/{name}.yaml"), name);
}

fn snapshot_of(path: &str, name: &str) {
    snapshot_with(path, name, &[]);
}

fn snapshot_with(path: &str, name: &str, extra: &[&str]) {
    let mut args = vec!["check", path, "--crds", "fixtures/crds", "--color", "never"];
    args.extend_from_slice(extra);
    let run = run_cli(&args, "");
    let rendered = format!("exit code: {}\n{}{}", run.code, run.stdout, run.stderr);
    expect_file![repo_root().join(format!("tests/snapshots/{name}.txt"))].assert_eq(&rendered);
}

#[test]
fn valid_resources_have_no_diagnostics() {
    snapshot("valid");
}

#[test]
fn schema_errors() {
    snapshot("schema-errors");
}

#[test]
fn unknown_fields() {
    snapshot("unknown-fields");
}

#[test]
fn resolution() {
    snapshot("resolution");
}

#[test]
fn metadata() {
    snapshot("metadata");
}

#[test]
fn status_is_ignored_with_the_status_subresource() {
    snapshot("status");
}

#[test]
fn builtin_kinds_against_the_newest_release() {
    snapshot("builtins");
}

/// Kinds that became GA in 1.36 and 1.37 are checked against their schemas by default (the newest
/// release); the releases before them answer that they do not serve them.
#[test]
fn builtin_kinds_that_became_ga_in_1_36_and_1_37() {
    snapshot("builtins-ga");
    snapshot_with("fixtures/resources/builtins-ga.yaml", "builtins-ga-1.36", &["--kube-version", "1.36"]);
    snapshot_with("fixtures/resources/builtins-ga.yaml", "builtins-ga-1.35", &["--kube-version", "1.35"]);
    let explicit = run_cli(&["check", "fixtures/resources/builtins-ga.yaml", "--kube-version", "1.37", "--color", "never"], "");
    let default = run_cli(&["check", "fixtures/resources/builtins-ga.yaml", "--color", "never"], "");
    assert_eq!((explicit.code, explicit.stdout), (default.code, default.stdout), "1.37 is the default");
}

/// The same objects against 1.24: PodDisruptionBudget's policy/v1beta1 is served there (with a warning
/// that 1.25 removes it), and StatefulSet's schema marks serviceName required, which the API server
/// never required.
#[test]
fn builtin_kinds_against_an_older_release() {
    snapshot_with("fixtures/resources/builtins.yaml", "builtins-1.24", &["--kube-version", "1.24"]);
}

#[test]
fn a_broken_crd_claims_no_group() {
    snapshot("broken-crd");
}

#[test]
fn substitutions_are_not_checked() {
    snapshot("substitutions");
}

#[test]
fn templates_and_placeholders_are_not_checked() {
    snapshot("placeholders");
}

#[test]
fn sops_encrypted_values_are_not_checked() {
    snapshot("sops");
}

#[test]
fn kinds_in_the_wrong_group_and_objects_without_spec() {
    snapshot("incomplete");
}

/// A project tree checked as a directory, since what each file is depends on the files around it.
fn project(name: &str) {
    snapshot_of(&format!("fixtures/projects/{name}"), &format!("projects-{name}"));
}

#[test]
fn helm_chart_templates_are_checked_where_literal() {
    project("chart");
}

/// A chart whose templates guard a removed apiVersion with a helper, compute an apiVersion and a kind,
/// and write the start of a list item or a value with an action.
#[test]
fn helm_chart_guards_computed_kinds_and_block_actions() {
    project("guarded");
}

/// One CRD defined five times (an old fixture, the current one, a looser copy beside the examples, two
/// alternatives for test scenarios): each object uses the nearest definition that serves its version,
/// and `--verbose` says which. An object that breaks a nearest definition kept as test material (an old
/// release's CRD for an upgrade test) but suits the project's own gets warnings that name the latter;
/// one that breaks both keeps its error.
#[test]
fn several_definitions_of_a_crd_resolve_per_object() {
    snapshot_with("fixtures/projects/definitions", "projects-definitions", &["--verbose"]);
}

/// An OLM bundle's older copy of a CRD (beside its ClusterServiceVersion) is nearer to the example by
/// the tree, but the project's own definition, which serves the version too, is used; `--verbose` says
/// why the copy was passed over.
#[test]
fn an_olm_bundle_copy_yields_to_the_projects_own_crd() {
    snapshot_with("fixtures/projects/olm-bundle", "projects-olm-bundle", &["--verbose"]);
}

/// A CRD that its kustomization patches (a JSON 6902 `remove` of a property generated as bytes): the
/// samples use the CRD as the kustomization outputs it, and `--verbose` names the kustomization; a patch
/// that does not apply leaves the other CRD as written, and its sample keeps its error.
#[test]
fn a_crd_patched_by_its_kustomization_is_used_as_patched() {
    snapshot_with("fixtures/projects/kustomized-crd", "projects-kustomized-crd", &["--verbose"]);
}

/// A base's Deployment skeletons: the one every overlay patches (by a target, a regular expression, or a
/// strategic-merge patch's own kind and name) is a partial object whose written fields are still checked;
/// the one a single overlay patches keeps its missing containers and selector.
#[test]
fn a_base_object_every_overlay_patches_is_partial() {
    snapshot_with("fixtures/projects/overlay-completed", "projects-overlay-completed", &["--verbose"]);
}

/// A knative-style defaulting webhook (no rules in its file) and a kubebuilder one (rules for Widgets):
/// a missing required boolean or number of an object a webhook matches is a warning naming it, the rest
/// stays an error; `--verbose` names each object. The operator's ko data (`kodata/`) is read as partial
/// objects: what it leaves out is not reported, a wrong type is.
#[test]
fn mutating_webhooks_may_set_missing_fields_before_validation() {
    snapshot_with("fixtures/projects/webhook-defaults", "projects-webhook-defaults", &["--verbose"]);
    project("webhook-rules");
}

/// Data a program carries and scripts fill in: a file a Go `//go:embed` directive names, one a
/// Dockerfile's final stage copies into its image, and one whose first line gives it a patch's name are
/// partial objects (their wrong types still reported); a file a script passes through `sed` (after a `cp`,
/// through a variable naming sed) or `yq` (a field it sets, in a script without an extension) has those
/// placeholders and fields unchecked. The same faults in files no program or script names stay errors.
#[test]
fn files_programs_carry_and_scripts_fill_in_are_not_whole_objects() {
    snapshot_with("fixtures/projects/carried", "projects-carried", &["--verbose"]);
}

/// Shell text saved as `.yaml` (a command feeding a here-document to kubectl) is a script, not YAML;
/// a YAML file's syntax error beside it is still reported.
#[test]
fn shell_scripts_saved_as_yaml_are_not_read_as_yaml() {
    project("scripts");
}

/// Objects kapp only waits for or leaves alone are not objects to create, and a placeholder CRD that
/// serves nothing defines nothing.
#[test]
fn objects_a_deploy_tool_waits_for_are_not_created() {
    project("awaited");
}

/// Values filled in before the files are applied: `<backup-name>` placeholders and kpt setters' values
/// are not checked; the same fields written plainly are.
#[test]
fn placeholders_and_kpt_setters_are_filled_in() {
    project("fill-ins");
}

/// The only definition of a CRD is an archived copy older than the objects: an object of a version
/// that follows every declared one gets a warning naming the copy; an older version and one two majors
/// ahead stay errors.
#[test]
fn an_object_newer_than_its_only_crd_is_a_warning() {
    project("stale-crd");
}

/// A chart that ships its CRDs as templates (under a condition, with templated labels): the CRD written
/// in literal text is indexed and its objects checked; the one whose group is computed is not.
#[test]
fn crds_written_literally_in_chart_templates_are_indexed() {
    project("crd-chart");
}

/// Patches are partial objects; a base's resource is completed by its own kustomization's patch (the
/// Widget the patch names is not missing its owner, the other one is).
#[test]
fn kustomize_patches_are_partial_objects() {
    project("kustomize");
}

/// A Kyverno CLI test's resources: partial objects the CLI evaluates in memory, whose names are the
/// test's labels (not checked as names); a wrong type in one is reported.
#[test]
fn kyverno_cli_resources_are_evaluated_not_applied() {
    project("kyverno-cli");
}

/// Patches that no kustomization names: one commented out, one a Makefile adds with `kustomize edit
/// add patch`, one a patch transformer names, kubeadm patches, a file whose `$patch` directive
/// makes it a patch, and a leftover copy of a patch that a component below names (`config/variant/`).
/// Only the patch's own mistake (a string for `replicas`) is reported.
#[test]
fn patches_no_kustomization_names_are_partial_objects() {
    project("unnamed-patches");
}

/// A walk skips `testdata` and expected outputs, and says how to include them; a directory a Go test
/// writes its rendering into is read as expected outputs (only the wrong type there is reported).
#[test]
fn test_material_is_skipped_by_a_walk() {
    project("goldens");
}

/// Included, the test input is checked as a manifest and the expected outputs as partial objects:
/// the annotations-only golden Deployment is not missing its spec, but a wrong type in one is reported.
#[test]
fn test_material_is_checked_when_included() {
    snapshot_with("fixtures/projects/goldens", "projects-goldens-included", &["--include-testdata"]);
}

/// Plain manifests below a test directory of the checked tree are test inputs: what they leave out (a
/// selector, a spec, an image, a name) is not reported, what they write is (a restart policy, a port,
/// a selector that does not match, a wrong type, a CEL rule); the CRD there is indexed and checked as a
/// whole CRD, and the manifest outside the test directories is whole. The summary says so. So are the
/// files beside a `policy` directory of Rego policies (conftest's inputs); a `policy` directory without
/// Rego makes nothing a test input.
#[test]
fn test_inputs_are_checked_for_what_they_write() {
    project("test-inputs");
}

/// The files of a kuttl test case that kuttl does not apply (below the case's numbered steps) are what the
/// test's commands read: an overlay a script merges onto the base, partial, so what it leaves out (an
/// image the command sets, a whole section) and the CEL rules that read it are not reported, while its
/// wrong enum value and misspelt field are; a CRD there is checked whole. The base, a manifest, keeps
/// its CEL error. The summary says how the fragments were read.
#[test]
fn kuttl_test_fragments_are_partial_objects() {
    project("kuttl");
}

/// With `--whole-test-inputs`, the fragments of a kuttl test are whole objects again.
#[test]
fn kuttl_test_fragments_are_whole_objects_when_asked() {
    snapshot_with("fixtures/projects/kuttl", "projects-kuttl-whole", &["--whole-test-inputs"]);
}

/// With `--whole-test-inputs`, test inputs are whole objects again.
#[test]
fn test_inputs_are_whole_objects_when_asked() {
    snapshot_with("fixtures/projects/test-inputs", "projects-test-inputs-whole", &["--whole-test-inputs"]);
}

/// Objects that are not validated, each for its own reason, get the advice that fits.
#[test]
fn unvalidated_objects_get_advice_that_fits_why() {
    snapshot("unvalidated");
}

/// A directory of other tools' YAML and a JSON data dump: nothing is checked, and the run says so.
#[test]
fn a_directory_without_kubernetes_objects_says_nothing_was_checked() {
    snapshot_with("fixtures/projects/not-kubernetes", "projects-not-kubernetes", &["--fail-unchecked"]);
}

/// Documents that are not objects to create, told by their shape: a CRD with an empty group, references
/// with `spec: {}`, a Namespace its kustomization renames, constants' names standing for values, a
/// Jinja-wrapped snippet, a guide's fragment without metadata, an object a program printed
/// (`creationTimestamp: null`), Pods a script fills in with `sed` (their `HOSTNAME` names). What the API
/// server would still reject in them is reported.
#[test]
fn by_products_references_and_placeholders_are_not_checked_as_objects() {
    project("by-products");
}

/// Files an Open Cluster Management policy generator names (a file, a directory) are object templates,
/// partial objects: what they leave out is not reported, a wrong type is; the placement the generator
/// names and a Deployment no generator names are whole objects.
#[test]
fn object_templates_a_policy_generator_names_are_partial_objects() {
    project("policy-generator");
}

/// Files that stand as templates outside a chart's `templates/` (its `files/`, a fragment outside any
/// chart) are read as templates; a patch whose action is only in a quoted value, and a chart's
/// `crds/`, keep their real YAML errors.
#[test]
fn templates_outside_a_charts_templates_directory_are_templates() {
    project("chart-files");
}

#[test]
fn chainsaw_tests_apply_objects_and_assert_partial_ones() {
    project("chainsaw");
}

#[test]
fn yaml_errors() {
    snapshot("yaml-errors");
}

#[test]
fn cel_rules() {
    snapshot("cel");
}

/// CRD files whose own problems are the point: checked as paths, not as `--crds` sources.
#[test]
fn crd_rule_errors() {
    snapshot_of("fixtures/crd-errors/rules.yaml", "crd-rule-errors");
}

#[test]
fn crd_version_skew() {
    snapshot_of("fixtures/crd-errors/versions.yaml", "crd-version-skew");
}

/// Rules that use CEL libraries newer than the environment a Kubernetes 1.30 API server compiles new
/// rules in; the newest Kubernetes accepts them all.
#[test]
fn crd_rules_by_kubernetes_version() {
    let path = "fixtures/crd-errors/kube-versions.yaml";
    let run = run_cli(&["check", path, "--kube-version", "1.30", "--color", "never"], "");
    let rendered = format!("exit code: {}\n{}{}", run.code, run.stdout, run.stderr);
    expect_file![repo_root().join("tests/snapshots/crd-kube-versions.txt")].assert_eq(&rendered);
    for (version, code) in [("1.37", 0), ("1.36", 0), ("1.35", 0), ("1.34", 1)] {
        let run = run_cli(&["check", path, "--kube-version", version], "");
        assert_eq!(run.code, code, "--kube-version {version}: {}", run.stdout);
    }
    assert_eq!(run_cli(&["check", path], "").code, 0, "the newest Kubernetes takes every rule");
    let run = run_cli(&["check", path, "--kube-version", "1.9"], "");
    assert_eq!(
        (run.code, run.stderr.as_str()),
        (2, "crdls: --kube-version: \"1.9\" is not a Kubernetes version crdls knows (1.23 to 1.37)\n")
    );
    let run = run_cli(&["check", path, "--kube-version", "1.38"], "");
    assert_eq!(run.code, 2);
    assert!(run.stderr.contains("(1.23 to 1.37); a newer Kubernetes needs a newer crdls"), "{}", run.stderr);
}

/// The cost examples of the Kubernetes CRD documentation, with the outcomes the page states.
#[test]
fn crd_cost() {
    snapshot_of("fixtures/crd-errors/cost.yaml", "crd-cost");
}

#[test]
fn every_fixture_has_a_snapshot() {
    let mut missing = Vec::new();
    for entry in std::fs::read_dir(repo_root().join("fixtures/resources")).unwrap() {
        let name = entry.unwrap().file_name().to_string_lossy().trim_end_matches(".yaml").to_string();
        if !repo_root().join(format!("tests/snapshots/{name}.txt")).exists() {
            missing.push(name);
        }
    }
    assert!(missing.is_empty(), "fixtures without a snapshot test: {missing:?}");
}

#[test]
fn chart_dependency_archives_give_their_crds() {
    project("umbrella");
}
