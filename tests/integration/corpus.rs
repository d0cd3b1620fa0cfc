//! The corpus run: every custom resource in `../shared/corpus/crs`, checked against every CRD in
//! `../shared/corpus/crds`, without a panic. Skipped, with a message, when the corpus is absent.

use std::sync::Arc;

use crdls_crd::{Crd, CrdIndex};
use crdls_schema::{check_stream, CheckOptions, DocumentKind};

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
    let Some(corpus) = crdls_tests::corpus_dir() else {
        eprintln!("skipped: ../shared/corpus is absent");
        return;
    };
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
                if doc.diagnostics.iter().any(|d| d.severity == crdls_yaml::Severity::Error) {
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
