//! The `schema` target: a YAML file of CRDs and custom resources through the whole check pipeline, as
//! `crdls check` runs it (the file's role decides how it is parsed and read, its own CRDs join an
//! index of the fixtures' and the corpus's CRDs, `check_stream_as` checks it), then what the editor
//! computes from the same stream: its diagnostics, the automatic fixes of `--fix`, hover and
//! completion. Nothing may panic; every range lies in the text on character boundaries.

use std::path::PathBuf;
use std::sync::Arc;

use crdls_check::{check_stream_as, CheckOptions, OldObjects};
use crdls_crd::{Crd, CrdIndex, Origin, SourceKind};
use crdls_workspace::FileRole;

use crate::mutate::{mutate, Dialect};
use crate::rng::{hash, Rng};
use crate::{check_diagnostics, check_range};

/// The largest input the target builds.
pub const MAX_LEN: usize = 256 * 1024;

/// The `schema` target.
pub struct SchemaTarget {
    pub(crate) seeds: Vec<String>,
    /// The CRDs of the fixtures and the corpus.
    pub(crate) index: Arc<CrdIndex>,
    pub(crate) notes: Vec<String>,
}

impl SchemaTarget {
    /// The target over `seeds`, with `crd_texts` (a source name and its text each) indexed.
    pub fn new(seeds: Vec<String>, crd_texts: &[(String, String)], notes: Vec<String>) -> SchemaTarget {
        let mut index = CrdIndex::new();
        for (name, text) in crd_texts {
            let stream = crdls_yaml::parse(text);
            let crds: Vec<Crd> = stream.documents.iter().flat_map(Crd::from_document).collect();
            index.set_source_from(Arc::from(name.as_str()), Origin { kind: SourceKind::Configured, label: None }, crds);
        }
        SchemaTarget { seeds, index: Arc::new(index), notes }
    }
}

impl super::Target for SchemaTarget {
    fn name(&self) -> &'static str {
        "schema"
    }

    fn extension(&self) -> &'static str {
        "yaml"
    }

    fn seeds(&self) -> &[String] {
        &self.seeds
    }

    fn notes(&self) -> Vec<String> {
        self.notes.clone()
    }

    fn mutate(&self, rng: &mut Rng, input: &str, other: &str) -> String {
        mutate(rng, input, other, Dialect::Yaml, MAX_LEN)
    }

    fn run(&self, input: &str) -> Result<(), String> {
        run(input, &self.index)
    }
}

/// The role a file is read in, chosen by the input's hash so that a fixture replays the same way.
fn role(choice: u64) -> FileRole {
    let dir = PathBuf::from("/crdls-fuzz");
    match choice % 10 {
        0 => FileRole::HelmTemplate { chart_dir: dir, chart_name: "fuzz".into() },
        1 => FileRole::Patch { kustomization: dir.join("kustomization.yaml") },
        2 => FileRole::TestAssertion { test: dir.join("chainsaw-test.yaml") },
        3 => FileRole::TestResource { test: dir.join("chainsaw-test.yaml"), merges: choice % 20 == 3 },
        4 => FileRole::KustomizeResource {
            kustomization: dir.join("kustomization.yaml"),
            sets_namespace: false,
            patched: Vec::new(),
            completed: Vec::new(),
        },
        5 => FileRole::JsonPatch { kustomization: dir.join("kustomization.yaml") },
        _ => FileRole::Manifest,
    }
}

/// Reading CRDs identity first (schemas cut out, built on first use) finds what reading the text whole
/// finds, schemas and ranges included, whenever the text parses without a diagnostic (with one, a
/// syntax error inside a schema that is cut out is not seen, which is the documented difference).
fn identities_agree(text: &str) -> Result<(), String> {
    let source: Arc<str> = Arc::from(text);
    let lazy = Crd::read_identities(text, Arc::new(move || Some(source.clone())));
    for version in lazy.iter().flat_map(|c| &c.versions) {
        let _ = version.schema();
    }
    let stream = crdls_yaml::parse(text);
    if stream.documents.iter().any(|d| !d.diagnostics.is_empty()) {
        return Ok(());
    }
    let whole: Vec<Crd> = stream.documents.iter().flat_map(Crd::from_document).collect();
    crdls_test_fixture::readings_agree(&lazy, &whole)
        .map_err(|e| format!("reading CRDs identity first differs from reading them whole: {e}"))
}

/// Checks one file against `base` plus its own CRDs.
pub fn run(text: &str, base: &CrdIndex) -> Result<(), String> {
    let h = hash(text);
    let (stream, mode) = role(h).parse(text);
    crate::targets::yaml::check_stream(text, &stream)?;
    let crds: Vec<Crd> = match mode {
        crdls_check::FileMode::Template { .. } => Vec::new(),
        _ => stream.documents.iter().flat_map(Crd::from_document).collect(),
    };
    identities_agree(text)?;
    let index = if crds.is_empty() {
        base.clone()
    } else {
        let mut index = base.clone();
        index.set_source_from(Arc::from("input.yaml"), Origin::default(), crds);
        index
    };
    let mut options = CheckOptions { strict: h.is_multiple_of(3), ..CheckOptions::default() };
    if h.is_multiple_of(5) {
        options.kubernetes = Some(
            crdls_check::OLDEST_KUBERNETES_MINOR
                + (h / 5) as u32 % (crdls_check::NEWEST_KUBERNETES_MINOR - crdls_check::OLDEST_KUBERNETES_MINOR + 1),
        );
    }
    if h.is_multiple_of(4) {
        // The file as its own old version: an update, with transition rules and ratcheting.
        let mut old = OldObjects::new();
        old.add_stream(&stream);
        options.old = Some(Arc::new(old));
    }
    let check = check_stream_as(&stream, &index, &options, &mode);
    let diagnostics = check.diagnostics();
    check_diagnostics(text, &diagnostics)?;

    let edits = crdls_ide::actions::automatic_edits(text, &stream, &index, &diagnostics);
    for edit in &edits {
        check_range(text, edit.range, "automatic fix")?;
    }
    let fixed = crdls_ide::apply_edits(text, &edits);
    let _ = crdls_yaml::parse(&fixed);

    let mut rng = Rng::new(h);
    for _ in 0..2 {
        let offset = crate::mutate::boundary(&mut rng, text);
        let at = crdls_yaml::parse_at(text, offset);
        if let Some(hover) = crdls_ide::hover::hover(text, &at, &index, offset, crdls_check::kubernetes_release(options.kubernetes)) {
            check_range(text, hover.range, "hover")?;
        }
        let _ = crdls_ide::completion::completions(text, &at, &index, offset, crdls_check::kubernetes_release(options.kubernetes));
        let _ = crdls_ide::navigation::definition(text, &at, &index, offset);
    }
    let _ = crdls_ide::hints::inlay_hints(text, &stream, &index, crdls_diagnostics::TextRange::new(0, text.len()));
    Ok(())
}
