//! The fuzz targets and how each is built from its seeds: `yaml`, `cel`, `schema` and `lsp`, and the
//! readers of files from outside the workspace: `archive`, `glob`, `kubeconfig` and `cache`.

pub mod archive;
pub mod cache;
pub mod cel;
pub mod differential;
pub mod glob;
pub mod kubeconfig;
pub mod lsp;
pub mod schema;
pub mod yaml;

use std::path::Path;
use std::sync::Arc;
use std::time::Duration;

use crate::corpus::{regressions, yaml_files, MAX_SEED_BYTES};
use crate::rng::Rng;

/// The targets, in the order `all` runs them.
pub const TARGET_NAMES: &[&str] = &["yaml", "cel", "schema", "lsp", "archive", "glob", "kubeconfig", "cache"];

/// The target that compares crdls with the API server's code (`tests/oracle`, built with Go): named
/// alone, as `.ci/run` does after building the oracle, never part of `all`.
pub const DIFFERENTIAL: &str = "differential";

/// How many times longer an unoptimised build (the test suite's replays and fixed-seed runs) may take
/// than the release fuzzer before an input is a hang: about as much slower as such a build runs (an
/// input of the `yaml` target that takes 0.26 s in release takes 5.7 s unoptimised, too close to the
/// release deadline on a busy machine).
const UNOPTIMISED_SLOWDOWN: u32 = if cfg!(debug_assertions) { 6 } else { 1 };

/// A fuzz target: seeds, a mutator, and the function whose `Err` or panic is a finding.
pub trait Target: Send + Sync {
    /// The target's name (and its fixtures' directory).
    fn name(&self) -> &'static str;
    /// The extension of its fixture files.
    fn extension(&self) -> &'static str;
    /// The seeds mutation starts from (never empty).
    fn seeds(&self) -> &[String];
    /// What the target has to say before it runs (a `SKIPPED:` line when data is absent).
    fn notes(&self) -> Vec<String> {
        Vec::new()
    }
    /// A mutant of `input`, with `other` (another input) to splice from.
    fn mutate(&self, rng: &mut Rng, input: &str, other: &str) -> String;
    /// Runs one input: `Err` when an oracle fails.
    fn run(&self, input: &str) -> Result<(), String>;
    /// How long one input may run before it is a hang.
    fn deadline(&self) -> Duration {
        DEFAULT_DEADLINE
    }
    /// Whether minimization removes only whole lines (the input is a script of lines).
    fn lines_only(&self) -> bool {
        false
    }
    /// Why the target cannot run on this machine (a tool it needs is missing), if it cannot.
    fn unavailable(&self) -> Option<String> {
        None
    }
    /// What the target counted while it ran, a line each, for the run's report.
    fn summary(&self) -> Vec<String> {
        Vec::new()
    }
}

/// How long one input of most targets may run before it is a hang.
pub const DEFAULT_DEADLINE: Duration = Duration::from_secs(10 * UNOPTIMISED_SLOWDOWN as u64);

/// A target made of plain functions over built-in seeds: the hostile-input targets (archive, glob,
/// kubeconfig), which need no state of their own.
pub struct FnTarget {
    name: &'static str,
    extension: &'static str,
    seeds: Vec<String>,
    mutate: fn(&mut Rng, &str, &str) -> String,
    run: fn(&str) -> Result<(), String>,
    deadline: Duration,
    lines_only: bool,
}

impl Target for FnTarget {
    fn name(&self) -> &'static str {
        self.name
    }

    fn extension(&self) -> &'static str {
        self.extension
    }

    fn seeds(&self) -> &[String] {
        &self.seeds
    }

    fn mutate(&self, rng: &mut Rng, input: &str, other: &str) -> String {
        (self.mutate)(rng, input, other)
    }

    fn run(&self, input: &str) -> Result<(), String> {
        (self.run)(input)
    }

    fn deadline(&self) -> Duration {
        self.deadline
    }

    fn lines_only(&self) -> bool {
        self.lines_only
    }
}

/// Where seeds come from.
#[derive(Clone, Debug, Default)]
pub struct Sources {
    /// The shared corpus directory, when it is to be read; absent, the schema target says it is
    /// skipped. `None` reads the repository's fixtures only, on purpose.
    pub corpus: Option<std::path::PathBuf>,
}

/// The target named `name`, built from `sources`.
pub fn target(name: &str, sources: &Sources) -> Option<Arc<dyn Target>> {
    let fixtures = yaml_files(&crate::repo_root().join("fixtures"), MAX_SEED_BYTES);
    let corpus = sources.corpus.as_deref().filter(|c| c.is_dir());
    let with_regressions = |mut seeds: Vec<String>, target: &str| {
        seeds.extend(regressions(target).into_iter().map(|f| f.text));
        if seeds.is_empty() {
            seeds.push(String::new());
        }
        seeds
    };
    let texts = |files: Vec<crate::corpus::SeedFile>| files.into_iter().map(|f| f.text).collect::<Vec<String>>();
    match name {
        "yaml" => {
            let mut seeds = texts(fixtures);
            if let Some(c) = corpus {
                seeds.extend(texts(yaml_files(&c.join("crs"), MAX_SEED_BYTES)));
            }
            Some(Arc::new(yaml::YamlTarget { seeds: with_regressions(seeds, "yaml") }))
        }
        "cel" => {
            let mut rules: Vec<String> = fixtures.iter().flat_map(|f| cel::rules_in(&f.text)).collect();
            if let Some(c) = corpus {
                rules.extend(yaml_files(&c.join("crds"), usize::MAX).iter().flat_map(|f| cel::rules_in(&f.text)));
            }
            let mut target = cel::CelTarget::new(rules);
            target.seeds = with_regressions(std::mem::take(&mut target.seeds), "cel");
            Some(Arc::new(target))
        }
        "schema" => Some(Arc::new(schema_target(fixtures, sources, corpus, with_regressions))),
        "lsp" => {
            let small: Vec<String> = fixtures.iter().filter(|f| f.text.len() <= lsp::MAX_TEXT).map(|f| f.text.clone()).collect();
            // A CRD and a resource of it in one buffer: the buffer's own CRDs check its resources.
            let crd = fixtures.iter().find(|f| f.path.ends_with("crds/widgets.yaml")).map(|f| f.text.clone()).unwrap_or_default();
            let mut seeds: Vec<String> = small.iter().map(|s| format!("{crd}\n---\n{s}")).collect();
            seeds.extend(small);
            seeds.retain(|s| s.len() <= lsp::MAX_TEXT);
            let mut rng = Rng::new(1);
            let scripts: Vec<String> = (0..seeds.len().max(1)).map(|_| lsp::generate(&mut rng, &seeds)).collect();
            Some(Arc::new(LspTarget { texts: seeds, scripts: with_regressions(scripts, "lsp") }))
        }
        "archive" => Some(Arc::new(archive::target(texts(regressions("archive"))))),
        "glob" => Some(Arc::new(glob::target(texts(regressions("glob"))))),
        "kubeconfig" => Some(Arc::new(kubeconfig::target(texts(regressions("kubeconfig"))))),
        DIFFERENTIAL => Some(Arc::new(differential_target(&fixtures, sources, corpus))),
        "cache" => {
            let crds = fixtures.iter().filter(|f| f.path.to_string_lossy().contains("/crds/")).map(|f| f.text.clone()).collect();
            let mut target = cache::CacheTarget::new(crds);
            target.seeds = with_regressions(std::mem::take(&mut target.seeds), "cache");
            Some(Arc::new(target))
        }
        _ => None,
    }
}

fn schema_target(
    fixtures: Vec<crate::corpus::SeedFile>,
    sources: &Sources,
    corpus: Option<&Path>,
    with_regressions: impl Fn(Vec<String>, &str) -> Vec<String>,
) -> schema::SchemaTarget {
    let mut notes = Vec::new();
    let mut crd_texts: Vec<(String, String)> = fixtures
        .iter()
        .filter(|f| f.path.to_string_lossy().contains("/crds/"))
        .map(|f| (f.path.display().to_string(), f.text.clone()))
        .collect();
    let mut seeds: Vec<String> = fixtures.into_iter().map(|f| f.text).collect();
    match (corpus, &sources.corpus) {
        (Some(c), _) => {
            for f in yaml_files(&c.join("crds"), usize::MAX) {
                if f.text.len() <= MAX_SEED_BYTES {
                    seeds.push(f.text.clone());
                }
                crd_texts.push((f.path.display().to_string(), f.text));
            }
            seeds.extend(yaml_files(&c.join("crs"), MAX_SEED_BYTES).into_iter().map(|f| f.text));
            seeds.extend(yaml_files(&c.join("kubectl-validate-testcases"), MAX_SEED_BYTES).into_iter().map(|f| f.text));
        }
        (None, Some(missing)) => notes.push(format!(
            "SKIPPED: ../shared/corpus not found (looked for {}); fuzzing the repository's fixtures only",
            missing.display()
        )),
        (None, None) => {}
    }
    schema::SchemaTarget::new(with_regressions(seeds, "schema"), &crd_texts, notes)
}

/// How many objects of one CRD become seeds of the `differential` target, and how large its CRD may be.
const OBJECTS_PER_CRD: usize = 6;
const MAX_DIFFERENTIAL_CRD: usize = 48 * 1024;

fn differential_target(fixtures: &[crate::corpus::SeedFile], sources: &Sources, corpus: Option<&Path>) -> differential::DifferentialTarget {
    let mut notes = Vec::new();
    let mut crd_files: Vec<&crate::corpus::SeedFile> = fixtures.iter().filter(|f| f.path.to_string_lossy().contains("/crds/")).collect();
    let mut object_files: Vec<&crate::corpus::SeedFile> =
        fixtures.iter().filter(|f| f.path.to_string_lossy().contains("/resources/")).collect();
    let corpus_crds;
    let corpus_objects;
    match (corpus, &sources.corpus) {
        (Some(c), _) => {
            corpus_crds = yaml_files(&c.join("crds"), MAX_SEED_BYTES);
            corpus_objects = yaml_files(&c.join("crs"), MAX_SEED_BYTES);
            crd_files.extend(corpus_crds.iter());
            object_files.extend(corpus_objects.iter());
        }
        (None, Some(missing)) => notes.push(format!(
            "SKIPPED: ../shared/corpus not found (looked for {}); the differential target's seeds are the repository's fixtures and generated CRDs only",
            missing.display()
        )),
        (None, None) => {}
    }
    // Each CRD document's text by (group, kind).
    let mut crds: std::collections::BTreeMap<(String, String), String> = std::collections::BTreeMap::new();
    for file in crd_files {
        let stream = crdls_yaml::parse(&file.text);
        for doc in &stream.documents {
            let Some(root) = &doc.root else { continue };
            if root.get_str("kind") != Some("CustomResourceDefinition") || doc.range.end - doc.range.start > MAX_DIFFERENTIAL_CRD {
                continue;
            }
            let spec = root.get("spec");
            let group = spec.and_then(|s| s.get_str("group")).unwrap_or_default().to_string();
            let kind = spec.and_then(|s| s.get("names")).and_then(|n| n.get_str("kind")).unwrap_or_default().to_string();
            crds.entry((group, kind)).or_insert_with(|| stream.text[doc.range.start..doc.range.end].to_string());
        }
    }
    let mut used: std::collections::BTreeMap<(String, String), usize> = std::collections::BTreeMap::new();
    let mut seeds = Vec::new();
    for file in object_files {
        let stream = crdls_yaml::parse(&file.text);
        for doc in &stream.documents {
            let Some(root) = &doc.root else { continue };
            let group = root.get_str("apiVersion").and_then(|v| v.rsplit_once('/')).map(|(g, _)| g.to_string()).unwrap_or_default();
            let key = (group, root.get_str("kind").unwrap_or_default().to_string());
            let Some(crd) = crds.get(&key) else { continue };
            let n = used.entry(key).or_default();
            if *n < OBJECTS_PER_CRD {
                *n += 1;
                seeds.push(differential::pair(crd, &stream.text[doc.range.start..doc.range.end]));
            }
        }
    }
    seeds.extend(differential::generated(1, 200));
    seeds.extend(regressions(DIFFERENTIAL).into_iter().map(|f| f.text));
    differential::DifferentialTarget::new(seeds, notes, crate::oracle::build())
}

/// The `lsp` target: scripts (see [`lsp`]) made from the fixtures' texts.
pub struct LspTarget {
    texts: Vec<String>,
    scripts: Vec<String>,
}

impl Target for LspTarget {
    fn name(&self) -> &'static str {
        "lsp"
    }

    fn extension(&self) -> &'static str {
        "txt"
    }

    fn seeds(&self) -> &[String] {
        &self.scripts
    }

    fn mutate(&self, rng: &mut Rng, input: &str, _other: &str) -> String {
        lsp::mutate(rng, input, &self.texts)
    }

    fn run(&self, input: &str) -> Result<(), String> {
        lsp::run(input)
    }

    fn deadline(&self) -> Duration {
        Duration::from_secs(30) * UNOPTIMISED_SLOWDOWN
    }

    fn lines_only(&self) -> bool {
        true
    }
}
