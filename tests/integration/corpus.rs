//! The corpus run: every custom resource in `../shared/corpus/crs`, checked against every CRD in
//! `../shared/corpus/crds`, without a panic. Skipped, with a message, when the corpus is absent.

use std::sync::Arc;

use crdls_check::{check_stream, CheckOptions, DocumentKind};
use crdls_crd::{Crd, CrdIndex};

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

#[test]
fn corpus_checks_without_panic() {
    let Some(corpus) = crdls_tests::corpus_or_skip() else { return };
    let mut crd_files = Vec::new();
    yaml_files(&corpus.join("crds"), &mut crd_files);
    let mut index = CrdIndex::new();
    for file in &crd_files {
        let text = std::fs::read_to_string(file).unwrap();
        let crds: Vec<Crd> = crdls_yaml::parse(&text).documents.iter().flat_map(Crd::from_document).collect();
        index.set_source(Arc::from(file.display().to_string()), crds);
    }
    assert!(index.len() > 250, "expected the corpus's ~300 CRDs, indexed {}", index.len());

    let mut cr_files = Vec::new();
    yaml_files(&corpus.join("crs"), &mut cr_files);
    let (mut documents, mut custom_resources, mut with_errors) = (0, 0, 0);
    for file in &cr_files {
        let Ok(text) = std::fs::read_to_string(file) else { continue };
        let stream = crdls_yaml::parse(&text);
        let result = check_stream(&stream, &index, &CheckOptions::default());
        for doc in &result.documents {
            documents += 1;
            if matches!(doc.kind, DocumentKind::CustomResource { .. }) {
                custom_resources += 1;
                if doc.diagnostics.iter().any(|d| d.severity == crdls_diagnostics::Severity::Error) {
                    with_errors += 1;
                }
            }
        }
    }
    eprintln!(
        "corpus: {} CRDs indexed; {} files, {documents} documents, {custom_resources} custom resources checked, {with_errors} with errors",
        index.len(),
        cr_files.len()
    );
    assert!(custom_resources > 1000, "expected the corpus's ~1500 custom resources, checked {custom_resources}");
}

/// Every rule of every corpus CRD (all accepted by real API servers) compiles and type-checks.
#[test]
fn every_corpus_rule_type_checks() {
    let Some(corpus) = crdls_tests::corpus_or_skip() else { return };
    let mut files = Vec::new();
    yaml_files(&corpus.join("crds"), &mut files);
    let (mut rules, mut errors, mut warnings) = (0, Vec::new(), std::collections::BTreeMap::<String, usize>::new());
    for file in &files {
        let text = std::fs::read_to_string(file).unwrap();
        rules += text.lines().filter(|l| l.trim_start().trim_start_matches("- ").starts_with("rule:")).count();
        let stream = crdls_yaml::parse(&text);
        for d in check_stream(&stream, &CrdIndex::new(), &CheckOptions::default()).diagnostics() {
            if !d.code.starts_with("cel/") {
                continue;
            }
            if d.severity == crdls_diagnostics::Severity::Error {
                errors.push(format!("{}: {} {}", file.display(), d.code, d.message));
            } else {
                *warnings.entry(format!("{} ({:?})", d.code, d.severity)).or_default() += 1;
            }
        }
    }
    eprintln!(
        "corpus: {rules} CEL rules in {} CRD files type-checked, {} errors; other CEL diagnostics: {warnings:?}",
        files.len(),
        errors.len()
    );
    assert!(rules > 1000, "expected the corpus's rules, found {rules}");
    assert!(errors.is_empty(), "false CEL errors on accepted CRDs:\n{}", errors.join("\n"));
}

/// Rule failures on the corpus's custom resources, each examined: the example really breaks the rule.
const EXPECTED_RULE_FAILURES: &[(&str, &str, &str)] = &[
    (
        "crossplane/e2e/apiextensions__composition__validation__composition-invalid-missing-pipeline.yaml",
        "an array of pipeline steps is required in Pipeline mode",
        "a deliberately invalid example: no pipeline",
    ),
    (
        "crossplane/e2e/apiextensions__composition__validation__composition-invalid-missing-secretref.yaml",
        "the Secret source requires a secretRef",
        "a deliberately invalid example: no secretRef",
    ),
    (
        "crossplane/e2e/apiextensions__environment__default__setup__composition.yaml",
        "an array of pipeline steps is required in Pipeline mode",
        "a Crossplane v1 composition (resources, no pipeline) checked against the v2 CRD, which only has Pipeline mode",
    ),
    (
        "crossplane/e2e/apiextensions__environment__multipleModeMaxMatch1__setup__composition.yaml",
        "an array of pipeline steps is required in Pipeline mode",
        "as above: v1-style composition",
    ),
    (
        "crossplane/e2e/apiextensions__environment__multipleModeMaxMatchNil__setup__composition.yaml",
        "an array of pipeline steps is required in Pipeline mode",
        "as above: v1-style composition",
    ),
    (
        "crossplane/e2e/apiextensions__environment__resolutionOptional__setup__composition.yaml",
        "an array of pipeline steps is required in Pipeline mode",
        "as above: v1-style composition",
    ),
    (
        "crossplane/e2e/apiextensions__environment__resolveAlways__setup__composition.yaml",
        "an array of pipeline steps is required in Pipeline mode",
        "as above: v1-style composition",
    ),
    (
        "crossplane/e2e/apiextensions__environment__resolveIfNotPresent__setup__composition.yaml",
        "an array of pipeline steps is required in Pipeline mode",
        "as above: v1-style composition",
    ),
    ("crossplane/e2e/apiextensions__mrd__validation__mrd-invalid.yaml", "Plural name must be lowercase", "a deliberately invalid example"),
    (
        "crossplane/e2e/apiextensions__mrd__validation__mrd-valid-updated-invalid.yaml",
        "Plural name must be lowercase",
        "a deliberately invalid update",
    ),
    ("crossplane/e2e/apiextensions__xrd__validation__xrd-invalid.yaml", "Plural name must be lowercase", "a deliberately invalid example"),
    (
        "crossplane/e2e/apiextensions__xrd__validation__xrd-valid-updated-invalid.yaml",
        "Plural name must be lowercase",
        "a deliberately invalid update",
    ),
    (
        "crossplane/e2e/protection__usage__standalone-namespaced__ref-without-by-cross-namespace-invalid__usage.yaml",
        "cross-namespace \"spec.of\" is not allowed without \"spec.by\" resource.",
        "a deliberately invalid example",
    ),
    (
        "crossplane/e2e/protection__usage__standalone-namespaced__selector-without-by-cross-namespace-invalid__usage.yaml",
        "cross-namespace \"spec.of\" is not allowed without \"spec.by\" resource.",
        "a deliberately invalid example",
    ),
];

/// The rules run on every corpus custom resource. Outside `gateway-api/invalid`, each failure is one of
/// the examined ones above; every file in `gateway-api/invalid` gets at least one error.
#[test]
fn corpus_rule_failures_are_the_examined_ones() {
    let Some(corpus) = crdls_tests::corpus_or_skip() else { return };
    let mut crd_files = Vec::new();
    yaml_files(&corpus.join("crds"), &mut crd_files);
    let mut index = CrdIndex::new();
    for file in &crd_files {
        let text = std::fs::read_to_string(file).unwrap();
        let crds: Vec<Crd> = crdls_yaml::parse(&text).documents.iter().flat_map(Crd::from_document).collect();
        index.set_source(Arc::from(file.display().to_string()), crds);
    }
    let crs = corpus.join("crs");
    let mut files = Vec::new();
    yaml_files(&crs, &mut files);
    files.sort();
    let (mut found, mut invalid_without_error, mut invalid_files) = (Vec::new(), Vec::new(), 0);
    for file in &files {
        let name = file.strip_prefix(&crs).unwrap().to_string_lossy().replace('\\', "/");
        let Ok(text) = std::fs::read_to_string(file) else { continue };
        let diagnostics = check_stream(&crdls_yaml::parse(&text), &index, &CheckOptions::default()).diagnostics();
        if name.starts_with("gateway-api/invalid/") {
            invalid_files += 1;
            if !diagnostics.iter().any(|d| d.severity == crdls_diagnostics::Severity::Error) {
                invalid_without_error.push(name);
            }
            continue;
        }
        for d in diagnostics.iter().filter(|d| matches!(d.code, "cel/rule" | "cel/runtime-error" | "cel/compile-error" | "cel/cost")) {
            found.push((name.clone(), d.message.clone()));
        }
    }
    let expected: Vec<(String, String)> = EXPECTED_RULE_FAILURES.iter().map(|(f, m, _)| (f.to_string(), m.to_string())).collect();
    eprintln!("corpus: {} rule failures outside gateway-api/invalid, all examined; {invalid_files} invalid gateway-api files", found.len());
    assert_eq!(found, expected);
    assert!(invalid_files > 30, "expected gateway-api/invalid, found {invalid_files} files");
    assert!(invalid_without_error.is_empty(), "invalid examples without an error: {invalid_without_error:?}");
}

/// No corpus CRD (all accepted by real API servers) has a rule or a version's schema over the cost
/// limits; prints the five most expensive rules.
#[test]
fn corpus_rule_costs_are_within_the_limits() {
    let Some(corpus) = crdls_tests::corpus_or_skip() else { return };
    let mut files = Vec::new();
    yaml_files(&corpus.join("crds"), &mut files);
    let (mut rules, mut over) = (Vec::new(), Vec::new());
    for file in &files {
        let text = std::fs::read_to_string(file).unwrap();
        let stream = crdls_yaml::parse(&text);
        for doc in &stream.documents {
            let Some(root) = &doc.root else { continue };
            let name = root.get("metadata").and_then(|m| m.get_str("name")).unwrap_or_default().to_string();
            for schema in crdls_check::crd_costs(root, &text, false) {
                if schema.total > crdls_check::PER_CRD_LIMIT {
                    over.push(format!("{name} {}: total {}", schema.path, schema.total));
                }
                for rule in schema.rules {
                    if rule.total > crdls_check::PER_EXPRESSION_LIMIT {
                        over.push(format!("{name} {}: {}", rule.path, rule.total));
                    }
                    rules.push((rule.total, name.clone(), rule.path, rule.expression));
                }
            }
        }
    }
    rules.sort_by_key(|r| std::cmp::Reverse(r.0));
    eprintln!("corpus: {} rules and message expressions costed; the five most expensive:", rules.len());
    for (total, name, path, expression) in rules.iter().take(5) {
        let short: String = expression.split_whitespace().collect::<Vec<_>>().join(" ").chars().take(70).collect();
        eprintln!("  {:>12}  {name}  {path}\n                `{short}`", crdls_check::thousands(*total));
    }
    assert!(rules.len() > 1000, "expected the corpus's rules, costed {}", rules.len());
    assert!(over.is_empty(), "accepted CRDs over a cost limit:\n{}", over.join("\n"));
}

/// Every corpus CRD read identity first (schemas cut out before parsing, built on first use) is what
/// reading it whole gives: names, versions, flags, ranges and, once built, schemas. Nearly every file
/// takes the fast way.
#[test]
fn corpus_crds_read_identity_first_as_whole() {
    let Some(corpus) = crdls_tests::corpus_or_skip() else { return };
    let mut crd_files = Vec::new();
    yaml_files(&corpus.join("crds"), &mut crd_files);
    let (mut files, mut cut) = (0, 0);
    for file in &crd_files {
        let text: Arc<str> = Arc::from(std::fs::read_to_string(file).unwrap());
        let eager: Vec<Crd> = crdls_yaml::parse(&text).documents.iter().flat_map(Crd::from_document).collect();
        if eager.is_empty() {
            continue;
        }
        let reads = Arc::new(std::sync::atomic::AtomicUsize::new(0));
        let (source, counter) = (text.clone(), reads.clone());
        let reader: crdls_crd::TextReader = Arc::new(move || {
            counter.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
            Some(source.clone())
        });
        let lazy = Crd::read_identities(&text, reader);
        assert_eq!(reads.load(std::sync::atomic::Ordering::Relaxed), 0, "{}: nothing is built before it is needed", file.display());
        if let Err(e) = crdls_test_fixture::readings_agree(&lazy, &eager) {
            panic!("{}: identity-first reading differs: {e}", file.display());
        }
        files += 1;
        // Built from the source once per schema, no more (located schemas are read again on each ask).
        let shared: Vec<_> = lazy.iter().flat_map(|c| &c.versions).map(|v| v.schema().cloned()).collect();
        let built = reads.load(std::sync::atomic::Ordering::Relaxed);
        let again: Vec<_> = lazy.iter().flat_map(|c| &c.versions).map(|v| v.schema().cloned()).collect();
        assert_eq!(reads.load(std::sync::atomic::Ordering::Relaxed), built);
        assert!(shared.iter().zip(&again).all(|(a, b)| match (a, b) {
            (Some(a), Some(b)) => Arc::ptr_eq(a, b),
            (a, b) => a.is_none() && b.is_none(),
        }));
        if Crd::identities_are_read_cut(&text) {
            cut += 1;
        }
    }
    eprintln!("corpus: {files} CRD files read identity first as whole, {cut} of them with block-style schemas");
    assert!(files > 250, "expected the corpus's ~300 CRD files, read {files}");
    assert!(cut * 10 >= files * 9, "most corpus CRDs are written in block style: {cut} of {files}");
}
