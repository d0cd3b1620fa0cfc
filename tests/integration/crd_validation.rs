//! CRD validation as the API server does it on create: one invalid and one valid fixture per rule
//! group under `fixtures/crd-errors/validation`, each snapshotted as `crdls check` renders it (run
//! with `UPDATE_EXPECT=1` to accept new output), and the corpus of real CRDs, which API servers
//! accepted, so none may get an error.

use std::collections::BTreeMap;

use expect_test::expect_file;

use crdls_check::{check_stream, CheckOptions};
use crdls_crd::CrdIndex;
use crdls_tests::{repo_root, run_cli};

const DIR: &str = "fixtures/crd-errors/validation";

/// The codes of CRD validation, and the ObjectMeta codes it reuses for the CRD's own metadata.
const CODES: &[&str] = &[
    "crd/metadata",
    "crd/names",
    "crd/versions",
    "crd/structural",
    "crd/forbidden-field",
    "crd/schema",
    "crd/format",
    "crd/status",
    "crd/default",
    "crd/list-type",
    "crd/printer-column",
    "crd/scale",
    "crd/selectable-field",
    "crd/conversion",
    "crd/unknown-field",
    "crd/field-type",
    "metadata/annotation-key",
    "metadata/annotations-size",
    "metadata/finalizer",
    "metadata/label-key",
    "metadata/label-value",
    "metadata/name",
    "metadata/name-required",
    "metadata/namespace",
    "metadata/type",
];

fn snapshot(name: &str) {
    let path = format!("{DIR}/{name}.yaml");
    let run = run_cli(&["check", &path, "--color", "never"], "");
    let rendered = format!("exit code: {}\n{}{}", run.code, run.stdout, run.stderr);
    expect_file![repo_root().join(format!("tests/snapshots/crd-validation/{name}.txt"))].assert_eq(&rendered);
}

/// Every fixture of the directory has a test below, and every valid fixture is free of diagnostics
/// from CRD validation.
#[test]
fn every_fixture_is_snapshotted_and_valid_ones_are_clean() {
    let mut names: Vec<String> = std::fs::read_dir(repo_root().join(DIR))
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().trim_end_matches(".yaml").to_string())
        .collect();
    names.sort();
    let tested: Vec<&str> = TESTED.to_vec();
    assert_eq!(names, tested, "fixtures and tests differ");
    for name in names.iter().filter(|n| n.ends_with("-valid")) {
        let text = std::fs::read_to_string(repo_root().join(format!("{DIR}/{name}.yaml"))).unwrap();
        let stream = crdls_yaml::parse(&text);
        let found: Vec<String> = check_stream(&stream, &CrdIndex::new(), &CheckOptions { strict: true, ..CheckOptions::default() })
            .diagnostics()
            .into_iter()
            .filter(|d| CODES.contains(&d.code))
            .map(|d| format!("{}: {}", d.code, d.message))
            .collect();
        assert!(found.is_empty(), "{name} should be clean:\n{}", found.join("\n"));
    }
}

/// The fixtures, in name order.
const TESTED: &[&str] = &[
    "columns-invalid",
    "columns-valid",
    "conversion-invalid",
    "conversion-valid",
    "decode-invalid",
    "decode-valid",
    "defaults-invalid",
    "defaults-valid",
    "forbidden-invalid",
    "forbidden-valid",
    "format-invalid",
    "format-valid",
    "list-type-invalid",
    "list-type-valid",
    "metadata-invalid",
    "metadata-valid",
    "names-invalid",
    "names-valid",
    "scale-invalid",
    "scale-valid",
    "selectable-invalid",
    "selectable-valid",
    "status-invalid",
    "status-valid",
    "structural-example-3",
    "structural-invalid",
    "structural-valid",
    "versions-invalid",
    "versions-valid",
];

macro_rules! fixture_tests {
    ($($test:ident => $name:literal,)*) => {
        $(
            #[test]
            fn $test() {
                snapshot($name);
            }
        )*
    };
}

fixture_tests! {
    columns_invalid => "columns-invalid",
    columns_valid => "columns-valid",
    conversion_invalid => "conversion-invalid",
    conversion_valid => "conversion-valid",
    decode_invalid => "decode-invalid",
    decode_valid => "decode-valid",
    defaults_invalid => "defaults-invalid",
    defaults_valid => "defaults-valid",
    forbidden_invalid => "forbidden-invalid",
    forbidden_valid => "forbidden-valid",
    format_invalid => "format-invalid",
    format_valid => "format-valid",
    list_type_invalid => "list-type-invalid",
    list_type_valid => "list-type-valid",
    metadata_invalid => "metadata-invalid",
    metadata_valid => "metadata-valid",
    names_invalid => "names-invalid",
    names_valid => "names-valid",
    scale_invalid => "scale-invalid",
    scale_valid => "scale-valid",
    selectable_invalid => "selectable-invalid",
    selectable_valid => "selectable-valid",
    status_invalid => "status-invalid",
    status_valid => "status-valid",
    structural_example_3 => "structural-example-3",
    structural_invalid => "structural-invalid",
    structural_valid => "structural-valid",
    versions_invalid => "versions-invalid",
    versions_valid => "versions-valid",
}

/// The CRD page's "non-structural example 3" yields exactly the six violations the page lists.
#[test]
fn documentation_example_3_has_its_six_violations() {
    let text = std::fs::read_to_string(repo_root().join(format!("{DIR}/structural-example-3.yaml"))).unwrap();
    let stream = crdls_yaml::parse(&text);
    let mut causes: Vec<String> = check_stream(&stream, &CrdIndex::new(), &CheckOptions::default())
        .diagnostics()
        .into_iter()
        .filter(|d| d.code == "crd/structural")
        .filter_map(|d| d.cause)
        .collect();
    causes.sort();
    let p = "spec.validation.openAPIV3Schema";
    assert_eq!(
        causes,
        vec![
            format!("{p}.anyOf[0].description: Forbidden: must be empty to be structural"),
            format!("{p}.anyOf[0].properties[bar].type: Forbidden: must be empty to be structural"),
            format!("{p}.properties[bar]: Required value: because it is defined in {p}.anyOf[0].properties[bar]"),
            format!("{p}.properties[foo].type: Required value: must not be empty for specified object fields"),
            format!("{p}.properties[metadata]: Forbidden: must not specify anything other than name and generateName, but metadata is implicitly specified"),
            format!("{p}.type: Required value: must not be empty at the root"),
        ]
    );
}

fn yaml_files(dir: &std::path::Path, out: &mut Vec<std::path::PathBuf>) {
    let Ok(entries) = std::fs::read_dir(dir) else { return };
    for entry in entries {
        let path = entry.unwrap().path();
        if path.is_dir() {
            yaml_files(&path, out);
        } else if path.extension().is_some_and(|e| e == "yaml" || e == "yml" || e == "json") {
            out.push(path);
        }
    }
}

/// Every CRD of the corpus was accepted by a real API server: CRD validation reports no error on
/// any of them (warnings are crdls's own findings, counted by code). The CRDs of `fixtures/crds`
/// are held to the same standard.
#[test]
fn accepted_crds_get_no_validation_error() {
    let mut files = Vec::new();
    yaml_files(&repo_root().join("fixtures/crds"), &mut files);
    let corpus = crdls_tests::corpus_dir();
    match &corpus {
        Some(dir) => yaml_files(&dir.join("crds"), &mut files),
        None => crdls_tests::announce_skip(crdls_tests::Missing::Corpus, Some("the corpus CRDs; fixtures/crds were checked")),
    }
    let (mut crds, mut errors, mut warnings) = (0, Vec::new(), BTreeMap::<&str, usize>::new());
    for file in &files {
        let text = std::fs::read_to_string(file).unwrap();
        let stream = crdls_yaml::parse(&text);
        let result = check_stream(&stream, &CrdIndex::new(), &CheckOptions::default());
        crds += result.crd_count();
        for d in result.diagnostics() {
            if !CODES.contains(&d.code) {
                continue;
            }
            if d.severity == crdls_diagnostics::Severity::Error {
                errors.push(format!("{}: {} {} ({})", file.display(), d.code, d.message, d.cause.unwrap_or_default()));
            } else {
                *warnings.entry(d.code).or_default() += 1;
            }
        }
    }
    eprintln!("crd validation: {crds} CRDs in {} files checked, {} errors; warnings by code: {warnings:?}", files.len(), errors.len());
    if corpus.is_some() {
        assert!(crds > 250, "expected the corpus's ~300 CRDs, checked {crds}");
    }
    assert!(errors.is_empty(), "errors on CRDs API servers accepted:\n{}", errors.join("\n"));
}

/// As on the API server, a rule is not compiled where its node (or anything below it) has another
/// schema error: its compile error and its cost appear once the schema is fixed.
#[test]
fn rules_are_compiled_only_where_the_schema_is_valid() {
    let crd = |spec_type: &str| {
        format!(
            "apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata: {{name: gates.demo.crdls.dev}}
spec:
  group: demo.crdls.dev
  scope: Namespaced
  names: {{kind: Gate, plural: gates}}
  versions:
  - name: v1
    served: true
    storage: true
    schema:
      openAPIV3Schema:
        type: object
        properties:
          spec:
            type: object
            properties:
              size: {{{spec_type}}}
            x-kubernetes-validations:
            - rule: self.size > 'x'
"
        )
    };
    let codes = |text: &str| -> Vec<String> {
        let stream = crdls_yaml::parse(text);
        check_stream(&stream, &CrdIndex::new(), &CheckOptions::default()).diagnostics().into_iter().map(|d| d.code.to_string()).collect()
    };
    assert_eq!(codes(&crd("description: no type")), ["crd/structural"]);
    assert_eq!(codes(&crd("type: integer")), ["cel/compile-error"]);
}
