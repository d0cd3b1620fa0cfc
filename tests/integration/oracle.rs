//! The differential oracle: the same inputs through crdls (in-process) and through `crdls-oracle`, a Go
//! program of ours in `tests/oracle` built on the API server's own libraries, compared case by case.
//! Seven kinds of cases, each a test: YAML to JSON, custom-resource creates and updates, status
//! updates, CRD creates, rule costs, and written cases. Inputs are the repository's fixtures and, when
//! present, the shared corpus (the updates are pairs written in the test; the written cases, in
//! `tests/oracle/cases/`, are the minimal forms of the differential fuzz's findings).
//!
//! A difference is a case where the two disagree on the verdict, the field paths or the messages.
//! `tests/oracle/known-differences.txt` lists the known ones with a reason; a test fails on a new
//! one, and says which known ones went away. Without `go` the tests pass after a `SKIPPED:` line,
//! but with `CI` set a failed build of the oracle fails them.

use std::collections::BTreeMap;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::sync::{Arc, OnceLock};

use crdls_check::{check_stream, CheckOptions, DocumentKind};
use crdls_crd::{Crd, CrdIndex};
use crdls_diagnostics::Severity;
use crdls_fuzz::oracle::{compare, our_object_verdict, our_verdict, their_verdict, Oracle};
use crdls_tests::{announce_skip, repo_root, Missing};
use crdls_yaml::{Stream, Value as YamlValue};
use serde_json::{json, Value};

/// The oracle binary, built once per test run; `None` when it cannot be built outside CI.
fn oracle_binary() -> Option<PathBuf> {
    static BINARY: OnceLock<Result<PathBuf, String>> = OnceLock::new();
    match BINARY.get_or_init(crdls_fuzz::oracle::build) {
        Ok(path) => Some(path.clone()),
        Err(why) => {
            assert!(std::env::var_os("CI").is_none(), "CI is set and the differential oracle did not build: {why}");
            say(&format!("crdls-oracle: {why}"));
            announce_skip(Missing::Go, None);
            None
        }
    }
}

/// crdls's options for the release the oracle answers for: the one `tests/oracle/go.mod` pins.
fn options() -> CheckOptions {
    let kubernetes = crdls_fuzz::oracle::kubernetes_minor();
    assert!(kubernetes.is_some(), "tests/oracle/go.mod pins no k8s.io/apiextensions-apiserver release");
    CheckOptions { kubernetes, ..CheckOptions::default() }
}

/// Writes a line to standard error, past the test harness's capture, so counts show in passing runs.
fn say(line: &str) {
    // Nothing to do when standard error cannot be written to.
    let _ = std::io::stderr().write_all(format!("{line}\n").as_bytes());
}

/// Asks the oracle; a broken oracle fails the test.
fn ask(oracle: &mut Oracle, request: &Value) -> Value {
    oracle.ask(request).unwrap_or_else(|e| panic!("{e}"))
}

/// The inputs of one family: the repository's fixtures or the shared corpus.
struct Inputs {
    /// How case names start: `fixtures` or `corpus`.
    label: &'static str,
    /// The directory paths in case names are relative to.
    base: PathBuf,
    crds: Vec<PathBuf>,
    resources: Vec<PathBuf>,
}

fn files_under(dir: &Path, out: &mut Vec<PathBuf>) {
    let Ok(entries) = std::fs::read_dir(dir) else { return };
    let mut paths: Vec<PathBuf> = entries.map(|e| e.expect("a directory entry").path()).collect();
    paths.sort();
    for path in paths {
        if path.is_dir() {
            files_under(&path, out);
        } else if path.extension().is_some_and(|e| e == "yaml" || e == "yml" || e == "json") {
            out.push(path);
        }
    }
}

fn files(base: &Path, dirs: &[&str]) -> Vec<PathBuf> {
    let mut out = Vec::new();
    for dir in dirs {
        files_under(&base.join(dir), &mut out);
    }
    out
}

/// The fixtures, and the corpus when it is there.
fn inputs() -> Vec<Inputs> {
    let root = repo_root();
    let mut all = vec![Inputs {
        label: "fixtures",
        crds: files(&root, &["fixtures/crds"]),
        resources: files(&root, &["fixtures/resources"]),
        base: root,
    }];
    match crdls_tests::corpus_dir() {
        Some(corpus) => {
            all.push(Inputs { label: "corpus", crds: files(&corpus, &["crds"]), resources: files(&corpus, &["crs"]), base: corpus })
        }
        None => announce_skip(Missing::Corpus, Some("the corpus cases; the fixtures were compared")),
    }
    all
}

impl Inputs {
    fn name(&self, path: &Path) -> String {
        format!("{}:{}", self.label, path.strip_prefix(&self.base).unwrap_or(path).display())
    }
}

/// The outcome of one kind of cases.
#[derive(Default)]
struct Tally {
    compared: usize,
    /// Case name to what differs.
    differences: BTreeMap<String, String>,
}

impl Tally {
    fn differ(&mut self, case: String, detail: String) {
        self.differences.insert(case, detail);
    }
}

/// The known differences of one kind: case name to reason.
fn known_differences(kind: &str) -> BTreeMap<String, String> {
    let path = repo_root().join("tests/oracle/known-differences.txt");
    let text = std::fs::read_to_string(&path).unwrap_or_default();
    text.lines()
        .filter(|l| !l.trim().is_empty() && !l.starts_with('#'))
        .filter_map(|l| {
            let (case, reason) = l.split_once(" | ").unwrap_or((l, ""));
            case.starts_with(&format!("{kind} ")).then(|| (case.trim().to_string(), reason.trim().to_string()))
        })
        .collect()
}

/// Prints the counts and fails on new differences; known ones that went away are listed.
fn judge(kind: &str, tally: &Tally) {
    let known = known_differences(kind);
    let new: Vec<&String> = tally.differences.keys().filter(|c| !known.contains_key(*c)).collect();
    let gone: Vec<&String> = known.keys().filter(|c| !tally.differences.contains_key(*c)).collect();
    say(&format!(
        "oracle {kind}: {} cases compared, {} differences ({} known, {} new); {} known differences went away",
        tally.compared,
        tally.differences.len(),
        tally.differences.len() - new.len(),
        new.len(),
        gone.len()
    ));
    for case in &gone {
        say(&format!("oracle {kind}: a known difference went away; remove it from tests/oracle/known-differences.txt: {case}"));
    }
    if !new.is_empty() {
        let listed: Vec<String> = new.iter().map(|c| format!("{c}\n    {}", tally.differences[*c].replace('\n', "\n    "))).collect();
        panic!(
            "{} new differences between crdls and the oracle ({kind}); fix crdls, or add a line `<case> | <reason>` to \
             tests/oracle/known-differences.txt:\n{}",
            new.len(),
            listed.join("\n")
        );
    }
}

/// The text of a document, its `---` line included.
fn document_text(stream: &Stream, index: usize) -> &str {
    let range = stream.documents[index].range;
    &stream.text[range.start..range.end]
}

fn has_yaml_error(stream: &Stream, index: usize) -> bool {
    let doc = &stream.documents[index];
    doc.has_syntax_error || doc.diagnostics.iter().any(|d| d.severity == Severity::Error)
}

/// YAML to JSON: every document of every input file, crdls's value printed as Go's `json.Marshal`
/// prints it, against `sigs.k8s.io/yaml.YAMLToJSON` of the document apimachinery's YAMLReader splits
/// off (kubectl's reading of a file). A document is compared when either side has content or an error.
#[test]
fn yaml_to_json_agrees_with_the_oracle() {
    let Some(binary) = oracle_binary() else { return };
    let mut oracle = Oracle::start(&binary).expect("the oracle starts");
    let mut tally = Tally::default();
    for inputs in inputs() {
        let mut all = inputs.crds.clone();
        all.extend(inputs.resources.iter().cloned());
        if inputs.label == "fixtures" {
            all.extend(files(&inputs.base, &["fixtures/crd-errors"]));
        }
        for path in &all {
            let Ok(text) = std::fs::read_to_string(path) else { continue };
            compare_yaml(&mut oracle, &inputs.name(path), &text, &mut tally);
        }
    }
    for text in tricky_yaml() {
        compare_yaml(&mut oracle, &format!("generated:{}", text.escape_debug()), &text, &mut tally);
    }
    judge("yaml", &tally);
}

/// Compares crdls's reading of one YAML stream with the oracle's, document by document.
fn compare_yaml(oracle: &mut Oracle, name: &str, text: &str, tally: &mut Tally) {
    let answer = ask(oracle, &json!({"op": "yaml", "text": text}));
    let theirs: Vec<&Value> = answer["documents"]
        .as_array()
        .map(|docs| docs.iter().filter(|d| d.get("error").is_some() || d["json"] != "null").collect())
        .unwrap_or_default();
    let stream = crdls_yaml::parse(text);
    let ours: Vec<usize> = (0..stream.documents.len())
        .filter(|&i| has_yaml_error(&stream, i) || stream.documents[i].root.as_ref().is_some_and(|r| !matches!(r.value, YamlValue::Null)))
        .collect();
    if theirs.len() != ours.len() {
        tally.compared += 1;
        tally.differ(format!("yaml {name}"), format!("the oracle reads {} documents, crdls {}", theirs.len(), ours.len()));
        return;
    }
    for (n, (their, &i)) in theirs.iter().zip(&ours).enumerate() {
        tally.compared += 1;
        let case = format!("yaml {name}#{n}");
        let our_error = stream.documents[i].diagnostics.iter().find(|d| d.severity == Severity::Error);
        match (their.get("error").and_then(Value::as_str), our_error) {
            (Some(error), Some(d)) => {
                // kubectl's words for the document: go-yaml's error, as the cause of crdls's first error.
                if d.cause.as_deref() != Some(error) {
                    tally.differ(
                        case,
                        format!("both fail, in other words:\n  oracle {error}\n  crdls  {}", d.cause.as_deref().unwrap_or("(no cause)")),
                    );
                }
            }
            (Some(error), None) => tally.differ(case, format!("the oracle fails: {error}; crdls reads the document")),
            (None, Some(d)) => tally.differ(case, format!("crdls fails ({}: {}); the oracle reads {}", d.code, d.message, their["json"])),
            (None, None) => {
                let ours = stream.documents[i].root.as_ref().map(crdls_check::gofmt::json).unwrap_or_default();
                let theirs = their["json"].as_str().unwrap_or_default();
                if ours != theirs {
                    tally.differ(
                        case,
                        format!(
                            "JSON differs at byte {}:\n  oracle {}\n  crdls  {}",
                            first_difference(theirs, &ours),
                            clip(theirs),
                            clip(&ours)
                        ),
                    );
                }
            }
        }
    }
}

/// Small tricky YAML documents, generated: each scalar, flow collection and construct below in each
/// place a value can stand (a mapping's value, a sequence item, a flow sequence's item, a flow
/// mapping's value, a key), and whole documents on indentation, anchors and merge keys, tabs, document
/// markers, block scalars with indicators, quoted and duplicate keys. Go's YAML 1.1 decoder and crdls
/// must read each alike, or the difference is listed in `known-differences.txt`.
fn tricky_yaml() -> Vec<String> {
    let atoms = [
        "a:b",
        "a: b",
        "a :b",
        "1.2.3.4",
        "2001:db8::",
        "001:db8::",
        "::1",
        "http://x/y",
        "a#b",
        "a #b",
        "-a",
        ":a",
        "?a",
        "a,b",
        "yes",
        "No",
        "on",
        "y",
        "n",
        "~",
        "null",
        "0755",
        "0o17",
        "0x1F",
        "0b101",
        "1_000",
        "1e3",
        "1.0",
        ".5",
        "+1",
        "-0",
        ".inf",
        "-.Inf",
        ".nan",
        "1:20",
        "12:30:45",
        "2001-01-01",
        "2001-01-01T10:00:00Z",
        "'a''b'",
        "\"a\\/b\"",
        "\"\\x41\"",
        "\"\\U0001F600\"",
        "\"a\\tb\"",
        "[]",
        "{}",
        "[a, b,]",
        "{a: 1,}",
        "[a: b]",
        "[a: b, c]",
        "{a, b: c}",
        "[[a], {b: c}]",
        "{a: [b, {c: d}]}",
        "!!str 1",
        "!!int \"1\"",
        "!!binary aGk=",
        "!foo",
        "!foo 10",
        "!foo null",
        "! true",
        "!self.contains('*')",
        "!!null",
        "&x a",
        "*x",
        "'multi\n  line'",
        "\"multi\n  line\"",
        "plain\n  continued",
        "a\tb",
    ];
    let places: [fn(&str) -> String; 5] = [
        |v| format!("k: {v}\n"),
        |v| format!("- {v}\n"),
        |v| format!("k: [{v}]\n"),
        |v| format!("k: {{x: {v}}}\n"),
        |v| format!("{v}: 1\n"),
    ];
    let mut out: Vec<String> = atoms.iter().flat_map(|a| places.iter().map(move |p| p(a))).collect();
    let documents = [
        // Flow collections across lines, closed at or above the parent's indentation.
        "spec:\n  items: [\n    a, b\n  ]\n  next: 1\n",
        "spec:\n  items: [\n    a, b\n]\n",
        "spec:\n  items: [a,\n  b]\n",
        "spec:\n  m: {a: 1,\n    b: 2\n  }\n",
        "spec:\n  m: {\n  a: 1}\n",
        "k: [a\n, b]\n",
        "k: [ # comment\n  a ]\n",
        "k: [1.2.3.4, 2001:db8::]\n",
        // A double-quoted scalar's escaped line breaks, its continuation lines under the block.
        "spec:\n  command:\n    - \"run \\\n  --a=1 \\\n  --b=2\"\n  next: 1\n",
        "k: \"a\\\nb\"\n",
        // Indentation.
        "a:\n- b\n- c\n",
        "a:\n  - b\n  - c\nd: 1\n",
        "a:\n    b: 1\n    c: 2\n",
        "- a\n -b\n",
        "a:\n  b: 1\n   c: 2\n",
        "a: b\n  c\n",
        "- - a\n  - b\n- c\n",
        "a:\n  - b: 1\n    c: 2\n",
        // Tabs.
        "a:\tb\n",
        "a: b\t\n",
        "a:\n\tb: 1\n",
        "a: [b,\tc]\n",
        "- \ta\n",
        // Anchors, aliases and merge keys.
        "a: &x {p: 1, q: 2}\nb:\n  <<: *x\n  q: 3\n",
        "a: &x {p: 1}\nc: &y {p: 2, r: 3}\nb:\n  <<: [*x, *y]\n",
        "a: &x {p: 1}\nb:\n  q: 3\n  <<: *x\n  p: 4\n",
        "a: &x 1\nb:\n  <<: *x\n",
        "metadata:\n  name: &app autobrr\nspec:\n  controllers:\n    *app :\n      replicas: 1\n",
        "a: &n 5\nm:\n  *n : x\n",
        "base: &b {a: 1}\nm:\n  *b : x\n",
        "a: &x [1, 2]\nb: *x\nc: &x 3\nd: *x\n",
        "b: *x\n",
        "<<: {a: 1}\nb: 2\n",
        "a: &x\n  b: 1\nc:\n  <<: *x\n  <<: {d: 2}\n",
        // Document markers.
        "--- a\n",
        "--- |\n  text\n",
        "---\na: 1\n...\n",
        "a: 1\n...\n---\nb: 2\n",
        "---\n---\na: 1\n",
        "a: ---\n",
        "a: |\n  ---\n  b\n",
        "%YAML 1.1\n---\na: 1\n",
        "# only a comment\n---\na: 1\n",
        // Block scalars with indicators.
        "a: |\n  x\n  y\n",
        "a: |-\n  x\n\n",
        "a: |+\n  x\n\n",
        "a: >\n  x\n  y\n\n  z\n",
        "a: >-\n  x\n    y\n  z\n",
        "a: |2\n    x\n  y\n",
        "a: |1-\n  x\n",
        "a: |\n\n  x\n",
        "a: |\n    x\n  y\n",
        "a: >\n\n  folded\n",
        "a: | # comment\n  x\n",
        "- |\n  x\n- >\n  y\n",
        "a: |\n  x \n  y\t\n",
        // Quoted, complex and duplicate keys.
        "\"a\": 1\n'b': 2\n",
        "\"a b\": 1\n",
        "\"a\\tb\": 1\n",
        "? a\n: b\n",
        "? [a]\n: b\n",
        "? |\n  x\n: b\n",
        "{a: 1}: 2\n",
        "1: a\n2: b\n",
        "true: a\n",
        "null: a\n",
        "~: a\n",
        "1.5: a\n",
        "a: 1\na: 2\n",
        "a: 1\n\"a\": 2\n",
        "1: a\n\"1\": b\n",
        // Scalars over several lines.
        "a: b\n\n  c\n",
        "a: 'b\n\n  c'\n",
        "a: \"b\\\n  c\"\n",
        "a: b # c\n  d\n",
        // Empty values.
        "a:\nb: ~\n",
        "- \n- a\n",
        "a: []\nb: {}\nc: ''\n",
        "[]\n",
        "'a'\n",
    ];
    out.extend(documents.iter().map(|d| d.to_string()));
    out
}

fn first_difference(a: &str, b: &str) -> usize {
    a.bytes().zip(b.bytes()).position(|(x, y)| x != y).unwrap_or(a.len().min(b.len()))
}

/// A long text cut to its first 300 characters.
fn clip(text: &str) -> String {
    match text.char_indices().nth(300) {
        Some((at, _)) => format!("{}…", &text[..at]),
        None => text.to_string(),
    }
}

/// The CRDs of some files, indexed for crdls, and each CRD's document text by source and name for
/// the oracle (two files may hold CRDs of one name, as gateway-api's channels do).
fn crd_texts(paths: &[PathBuf]) -> (CrdIndex, BTreeMap<(String, String), String>) {
    let mut index = CrdIndex::new();
    let mut texts = BTreeMap::new();
    for path in paths {
        let Ok(text) = std::fs::read_to_string(path) else { continue };
        let stream = crdls_yaml::parse(&text);
        let crds: Vec<Crd> = stream.documents.iter().flat_map(Crd::from_document).collect();
        let source = path.display().to_string();
        index.set_source(Arc::from(source.as_str()), crds);
        for (i, doc) in stream.documents.iter().enumerate() {
            let Some(root) = &doc.root else { continue };
            if root.get_str("kind") != Some("CustomResourceDefinition") {
                continue;
            }
            if let Some(name) = root.get("metadata").and_then(|m| m.get_str("name")) {
                texts.insert((source.clone(), name.to_string()), document_text(&stream, i).to_string());
            }
        }
    }
    (index, texts)
}

/// Custom-resource creates: every document crdls reads as a custom resource of a CRD of the same
/// inputs (documents with YAML errors are the YAML test's), with strict field validation.
#[test]
fn custom_resource_creates_agree_with_the_oracle() {
    let Some(binary) = oracle_binary() else { return };
    let mut oracle = Oracle::start(&binary).expect("the oracle starts");
    let mut tally = Tally::default();
    for inputs in inputs() {
        let (index, texts) = crd_texts(&inputs.crds);
        for path in &inputs.resources {
            let Ok(text) = std::fs::read_to_string(path) else { continue };
            let stream = crdls_yaml::parse(&text);
            let result = check_stream(&stream, &index, &CheckOptions { strict: true, ..options() });
            assert_eq!(result.documents.len(), stream.documents.len(), "one check per document of {}", path.display());
            for (i, doc) in result.documents.iter().enumerate() {
                let DocumentKind::CustomResource { crd, .. } = &doc.kind else { continue };
                if has_yaml_error(&stream, i) {
                    continue;
                }
                // The very CRD crdls resolved the object to.
                let Some(root) = &stream.documents[i].root else { continue };
                let resolution = index.resolve(root.get_str("apiVersion").unwrap_or_default(), root.get_str("kind").unwrap_or_default());
                let crdls_crd::Resolution::Found { crd: found, .. } = resolution else { continue };
                let Some(crd_text) = texts.get(&(found.source.to_string(), crd.clone())) else { continue };
                tally.compared += 1;
                let answer = ask(
                    &mut oracle,
                    &json!({"op": "cr", "crd": crd_text, "object": document_text(&stream, i), "old": "", "subresource": ""}),
                );
                let case = format!("cr {}#{i}", inputs.name(path));
                if let Some(failure) = answer["oracle"].as_str() {
                    tally.differ(case, format!("the oracle could not answer: {failure}"));
                    continue;
                }
                if let Some(detail) = compare(&our_object_verdict(&doc.diagnostics), &their_verdict(&answer)) {
                    tally.differ(case, detail);
                }
            }
        }
    }
    judge("cr", &tally);
}

/// CRD creates: every CRD document of the inputs (and of `fixtures/crd-errors`, whose CRDs have
/// deliberate errors), validated as on create, CEL compile and cost errors included.
#[test]
fn crd_creates_agree_with_the_oracle() {
    let Some(binary) = oracle_binary() else { return };
    let mut oracle = Oracle::start(&binary).expect("the oracle starts");
    let mut tally = Tally::default();
    for inputs in inputs() {
        let mut paths = inputs.crds.clone();
        if inputs.label == "fixtures" {
            paths.extend(files(&inputs.base, &["fixtures/crd-errors"]));
        }
        for path in &paths {
            let Ok(text) = std::fs::read_to_string(path) else { continue };
            let stream = crdls_yaml::parse(&text);
            let result = check_stream(&stream, &CrdIndex::new(), &options());
            for (i, doc) in result.documents.iter().enumerate() {
                if doc.kind != DocumentKind::Crd || has_yaml_error(&stream, i) {
                    continue;
                }
                tally.compared += 1;
                let answer = ask(&mut oracle, &json!({"op": "crd", "crd": document_text(&stream, i)}));
                let case = format!("crd {}#{i}", inputs.name(path));
                if let Some(failure) = answer["oracle"].as_str() {
                    tally.differ(case, format!("the oracle could not answer: {failure}"));
                    continue;
                }
                // crdls's warnings are its own findings; only errors are the API server's.
                let errors: Vec<crdls_diagnostics::Diagnostic> =
                    doc.diagnostics.iter().filter(|d| d.severity == Severity::Error || d.code == "crd/unknown-field").cloned().collect();
                if let Some(detail) = compare(&our_verdict(&errors, "crd/unknown-field"), &their_verdict(&answer)) {
                    tally.differ(case, detail);
                }
            }
        }
    }
    judge("crd", &tally);
}

/// Rule costs: every rule and message expression of every CRD with rules, crdls's estimated cost of
/// one evaluation and cardinality against the oracle's, per rule.
#[test]
fn rule_costs_agree_with_the_oracle() {
    let Some(binary) = oracle_binary() else { return };
    let mut oracle = Oracle::start(&binary).expect("the oracle starts");
    let mut tally = Tally::default();
    for inputs in inputs() {
        let mut paths = inputs.crds.clone();
        if inputs.label == "fixtures" {
            paths.extend(files(&inputs.base, &["fixtures/crd-errors"]));
        }
        for path in &paths {
            let Ok(text) = std::fs::read_to_string(path) else { continue };
            if !text.contains("x-kubernetes-validations") {
                continue;
            }
            let stream = crdls_yaml::parse(&text);
            for (i, doc) in stream.documents.iter().enumerate() {
                let Some(root) = &doc.root else { continue };
                if root.get_str("kind") != Some("CustomResourceDefinition") || has_yaml_error(&stream, i) {
                    continue;
                }
                let answer = ask(&mut oracle, &json!({"op": "cost", "crd": document_text(&stream, i)}));
                let case = format!("cost {}#{i}", inputs.name(path));
                if let Some(failure) = answer["oracle"].as_str().or(answer["rejection"].as_str()) {
                    tally.compared += 1;
                    tally.differ(case, format!("the oracle could not answer: {failure}"));
                    continue;
                }
                let mut ours: BTreeMap<String, (u64, u64)> = BTreeMap::new();
                for schema in crdls_check::crd_costs(root, &stream.text, false) {
                    for rule in schema.rules {
                        ours.insert(rule.path, (rule.cost, rule.cardinality));
                    }
                }
                let mut theirs: BTreeMap<String, (u64, u64, String)> = BTreeMap::new();
                for rule in answer["costs"].as_array().into_iter().flatten() {
                    // A rule that does not compile has no cost; CRD validation reports its error.
                    if rule.get("error").is_some() {
                        continue;
                    }
                    let path = rule["path"].as_str().unwrap_or_default().to_string();
                    let figures = (rule["maxCost"].as_u64().unwrap_or(0), rule["cardinality"].as_u64().unwrap_or(0));
                    theirs.insert(path, (figures.0, figures.1, rule["rule"].as_str().unwrap_or_default().to_string()));
                }
                for (path, (cost, cardinality, rule)) in &theirs {
                    tally.compared += 1;
                    let case = format!("{case} {path}");
                    match ours.get(path) {
                        None => tally.differ(case, format!("crdls has no cost for {rule:?}")),
                        Some(&(our_cost, our_cardinality)) if (our_cost, our_cardinality) != (*cost, *cardinality) => {
                            tally.differ(case, format!("{rule:?}: the oracle {cost} × {cardinality}, crdls {our_cost} × {our_cardinality}"))
                        }
                        Some(_) => {}
                    }
                }
                for path in ours.keys().filter(|p| !theirs.contains_key(*p)) {
                    tally.compared += 1;
                    tally.differ(format!("{case} {path}"), "only crdls has a cost for this expression".into());
                }
            }
        }
    }
    judge("cost", &tally);
}

/// Custom-resource updates, written here as pairs of an old and a new object: transition rules,
/// ratcheting of unchanged invalid values (schema keywords and rules), and changed invalid values.
#[test]
fn custom_resource_updates_agree_with_the_oracle() {
    let Some(binary) = oracle_binary() else { return };
    let mut oracle = Oracle::start(&binary).expect("the oracle starts");
    let mut tally = Tally::default();
    let scaler = |name: &str, spec: &str| {
        format!("apiVersion: autoscale.crdls.dev/v1\nkind: Scaler\nmetadata:\n  name: {name}\n  labels: {{rev: '1'}}\nspec:\n{spec}")
    };
    let widget = |labels: &str, spec: &str| {
        format!("apiVersion: demo.crdls.dev/v1\nkind: Widget\nmetadata:\n  name: updated-widget\n  labels: {{{labels}}}\nspec:\n{spec}")
    };
    let good = "  replicas: 3\n  maxReplicas: 5\n  owner: alice\n  window: 5m\n";
    let bad = "  replicas: 9\n  maxReplicas: 5\n  paused: true\n  window: 30s\n  owner: alice\n  version: one.two\n";
    let widget_spec = |size: u32, tags: &str| format!("  size: {size}\n  owner: team-a\n  tags: [{tags}]\n");
    let cases: Vec<(&str, &str, String, String)> = vec![
        ("scalers", "owner-changed", scaler("scaler-a", good), scaler("scaler-a", &good.replace("alice", "bob"))),
        ("scalers", "owner-kept", scaler("scaler-a", good), scaler("scaler-a", &good.replace("replicas: 3", "replicas: 4"))),
        ("scalers", "invalid-unchanged", scaler("web", bad), scaler("web", bad).replace("rev: '1'", "rev: '2'")),
        ("scalers", "invalid-changed", scaler("web", bad), scaler("web", &bad.replace("replicas: 9", "replicas: 8"))),
        ("scalers", "made-invalid", scaler("scaler-a", good), scaler("scaler-a", &good.replace("window: 5m", "window: 30s"))),
        ("widgets", "too-big-unchanged", widget("a: b", &widget_spec(15, "a, b")), widget("a: c", &widget_spec(15, "a, b"))),
        ("widgets", "too-big-changed", widget("a: b", &widget_spec(15, "a, b")), widget("a: b", &widget_spec(16, "a, b"))),
        ("widgets", "duplicate-unchanged", widget("a: b", &widget_spec(3, "a, a")), widget("a: c", &widget_spec(3, "a, a"))),
        ("widgets", "duplicate-added", widget("a: b", &widget_spec(3, "a, b")), widget("a: b", &widget_spec(3, "a, b, b"))),
    ];
    let (index, texts) = crd_texts(&files(&repo_root(), &["fixtures/crds"]));
    for (crd_file, name, old, new) in cases {
        tally.compared += 1;
        let case = format!("update {crd_file}/{name}");
        let Some(crd_text) = texts.iter().find(|((source, _), _)| source.ends_with(&format!("{crd_file}.yaml"))).map(|(_, t)| t) else {
            panic!("no CRD in fixtures/crds/{crd_file}.yaml");
        };
        let mut olds = crdls_check::OldObjects::new();
        olds.add_stream(&crdls_yaml::parse(&old));
        let stream = crdls_yaml::parse(&new);
        let update_options = CheckOptions { strict: true, old: Some(Arc::new(olds)), ..options() };
        let result = check_stream(&stream, &index, &update_options);
        let answer = ask(&mut oracle, &json!({"op": "cr", "crd": crd_text, "object": new, "old": old, "subresource": ""}));
        if let Some(failure) = answer["oracle"].as_str() {
            tally.differ(case, format!("the oracle could not answer: {failure}"));
            continue;
        }
        if let Some(detail) = compare(&our_object_verdict(&result.documents[0].diagnostics), &their_verdict(&answer)) {
            tally.differ(case, detail);
        }
    }
    judge("update", &tally);
}

/// Status updates and updates that keep the stored status: the documents of `fixtures/status`
/// (`update.yaml` as updates of the main resource, `status-update.yaml` as writes to `/status`, as its
/// `# crdls: subresource=status` lines say), each against its stored version in `stored.yaml`, and
/// pairs written here on the same CRDs. The oracle runs the registry's status strategy.
#[test]
fn status_updates_agree_with_the_oracle() {
    let Some(binary) = oracle_binary() else { return };
    let mut oracle = Oracle::start(&binary).expect("the oracle starts");
    let mut tally = Tally::default();
    let dir = repo_root().join("fixtures/status");
    let (index, texts) = crd_texts(&[dir.join("crds.yaml")]);
    let read = |name: &str| std::fs::read_to_string(dir.join(name)).unwrap_or_else(|e| panic!("fixtures/status/{name}: {e}"));
    let stored_text = read("stored.yaml");
    let stored = crdls_yaml::parse(&stored_text);
    let stored_by_name = |name: &str| -> Option<String> {
        (0..stored.documents.len())
            .find(|&i| stored.documents[i].root.as_ref().and_then(|r| r.get("metadata")).and_then(|m| m.get_str("name")) == Some(name))
            .map(|i| document_text(&stored, i).to_string())
    };
    // (case, the document sent); the stored object is the one of its name in stored.yaml.
    let mut cases: Vec<(String, String)> = Vec::new();
    for file in ["update.yaml", "status-update.yaml"] {
        let text = read(file);
        let stream = crdls_yaml::parse(&text);
        for i in 0..stream.documents.len() {
            cases.push((format!("status fixtures:fixtures/status/{file}#{i}"), document_text(&stream, i).to_string()));
        }
    }
    let heater = |status: &str, spec: &str, directive: bool| {
        format!(
            "{}apiVersion: thermal.crdls.dev/v1\nkind: Heater\nmetadata:\n  name: hall\n  namespace: default\nspec:\n{spec}{status}",
            if directive { "# crdls: subresource=status\n" } else { "" }
        )
    };
    let written: Vec<(&str, String)> = vec![
        ("status-without-status", heater("", "  watts: 1000\n  room: hall\n", true)),
        ("status-over-maximum", heater("status:\n  maxWatts: 6000\n  serial: h-1\n", "  watts: 1000\n  room: hall\n", true)),
        (
            "status-serial-unchanged-spec-changed",
            heater("status:\n  serial: h-1\n  maxWatts: 1000\n", "  watts: 1\n  room: kitchen\n", true),
        ),
        ("status-zones-set", heater("status:\n  serial: h-1\n  zones: [a, b]\n", "  watts: 1000\n  room: hall\n", true)),
        ("status-unknown-field", heater("status:\n  serial: h-1\n  colour: red\n", "  watts: 1000\n  room: hall\n", true)),
        ("main-room-changed", heater("", "  watts: 1000\n  room: kitchen\n", false)),
        ("main-over-stored-status", heater("status:\n  maxWatts: 99999\n", "  watts: 2001\n  room: hall\n", false)),
    ];
    for (name, text) in written {
        cases.push((format!("status written:{name}"), text));
    }
    let crd_text = texts.iter().find(|((_, name), _)| name == "heaters.thermal.crdls.dev").map(|(_, t)| t.clone()).expect("the Heater CRD");
    let fan_crd = texts.iter().find(|((_, name), _)| name == "fans.thermal.crdls.dev").map(|(_, t)| t.clone()).expect("the Fan CRD");
    for (case, new) in cases {
        let stream = crdls_yaml::parse(&new);
        let Some(root) = stream.documents.first().and_then(|d| d.root.as_ref()) else { continue };
        let name = root.get("metadata").and_then(|m| m.get_str("name")).unwrap_or_default();
        let old = stored_by_name(name).unwrap_or_else(|| panic!("{case}: no stored object named {name}"));
        let status = crdls_check::subresource_directive(&new) == Some(crdls_check::Subresource::Status);
        let mut olds = crdls_check::OldObjects::new();
        olds.add_stream(&crdls_yaml::parse(&old));
        let update_options = CheckOptions { strict: true, old: Some(Arc::new(olds)), ..options() };
        let result = check_stream(&stream, &index, &update_options);
        let crd = if root.get_str("kind") == Some("Fan") { &fan_crd } else { &crd_text };
        tally.compared += 1;
        let answer = ask(
            &mut oracle,
            &json!({"op": "cr", "crd": crd, "object": new, "old": old, "subresource": if status { "status" } else { "" }}),
        );
        if let Some(failure) = answer["oracle"].as_str() {
            tally.differ(case, format!("the oracle could not answer: {failure}"));
            continue;
        }
        // A status write to a version without /status is refused before validation: a rejection.
        if let Some(detail) = compare(&our_object_verdict(&result.documents[0].diagnostics), &their_verdict(&answer)) {
            tally.differ(case, detail);
        }
    }
    assert!(tally.compared >= 14, "the status cases were not all compared");
    judge("status", &tally);
}

/// Written cases, one file each in `tests/oracle/cases/`: a CRD, an object of it and, for an update,
/// the stored object (a `# crdls: subresource=status` line makes it a write to `/status`), each the
/// minimal form of a difference the differential fuzz found. They run through the fuzz target itself,
/// so they are compared as its inputs are: a file whose first line is `# exception: NAME` differs in
/// the way that named exception explains, any other must agree.
#[test]
fn written_cases_agree_with_the_oracle() {
    use crdls_fuzz::targets::differential::DifferentialTarget;
    use crdls_fuzz::targets::Target;
    let Some(binary) = oracle_binary() else { return };
    let target = DifferentialTarget::new(Vec::new(), Vec::new(), Ok(binary));
    let mut cases = Vec::new();
    files_under(&repo_root().join("tests/oracle/cases"), &mut cases);
    assert!(cases.len() >= 10, "tests/oracle/cases holds {} cases", cases.len());
    let mut tally = Tally::default();
    for path in &cases {
        let text = std::fs::read_to_string(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
        let case = format!("case {}", path.file_name().unwrap_or_default().to_string_lossy());
        let exception = text.lines().next().and_then(|l| l.strip_prefix("# exception: ")).map(str::trim);
        let before = target.tally();
        let outcome = target.run(&text);
        let after = target.tally();
        assert!(after.crds > before.crds, "{case}: not compared (not a CRD and an object of it, or the oracle could not answer)");
        tally.compared += 1;
        let excepted = |t: &crdls_fuzz::targets::differential::Tally, name: &str| t.excepted.get(name).copied().unwrap_or(0);
        match (outcome, exception) {
            (Err(finding), _) => tally.differ(case, finding),
            (Ok(()), Some(name)) if excepted(&after, name) == excepted(&before, name) => {
                tally.differ(case, format!("no difference that the exception {name} explains"))
            }
            (Ok(()), None) if after.differences > before.differences => {
                tally.differ(case, "a difference that an exception explains, but the case names none".into())
            }
            (Ok(()), _) => {}
        }
    }
    judge("case", &tally);
}

/// Built-in creates: every built-in object of the fixtures and the corpus that crdls validates against
/// its kind's schema, against the API server's own create of it (the kubernetes module's scheme,
/// defaults and registry strategy: native validation, the common ObjectMeta checks and declarative
/// validation), with strict field validation. Kinds the oracle does not serve are not compared.
#[test]
fn builtin_creates_agree_with_the_oracle() {
    let Some(binary) = oracle_binary() else { return };
    let mut oracle = Oracle::start(&binary).expect("the oracle starts");
    let mut tally = Tally::default();
    let mut not_served = 0;
    for inputs in inputs() {
        let dirs: &[&str] = if inputs.label == "fixtures" { &["fixtures"] } else { &["crs"] };
        for path in files(&inputs.base, dirs) {
            let Ok(text) = std::fs::read_to_string(&path) else { continue };
            let stream = crdls_yaml::parse(&text);
            let result = check_stream(&stream, &CrdIndex::new(), &CheckOptions { strict: true, ..options() });
            for (i, doc) in result.documents.iter().enumerate() {
                if doc.kind != (DocumentKind::BuiltIn { validated: true }) || has_yaml_error(&stream, i) {
                    continue;
                }
                let answer = ask(&mut oracle, &json!({"op": "native", "object": document_text(&stream, i)}));
                let case = format!("native {}#{i}", inputs.name(&path));
                if let Some(failure) = answer["oracle"].as_str() {
                    if failure.starts_with("the oracle does not serve") || failure.starts_with("the scheme does not serve") {
                        not_served += 1;
                    } else {
                        tally.compared += 1;
                        tally.differ(case, format!("the oracle could not answer: {failure}"));
                    }
                    continue;
                }
                tally.compared += 1;
                if let Some(detail) = compare(&our_object_verdict(&doc.diagnostics), &their_verdict(&answer)) {
                    tally.differ(case, detail);
                }
            }
        }
    }
    say(&format!("oracle native: {not_served} built-in objects of kinds the oracle does not create were not compared"));
    judge("native", &tally);
}

/// The Go type table crdls words a built-in object's decoding errors with
/// (`server/crdls-builtins/data/go-types.json`) is what the oracle's `go-types` command writes from
/// the pinned release: regenerate it with
/// `target/oracle/crdls-oracle go-types > server/crdls-builtins/data/go-types.json` after a bump.
#[test]
fn the_go_type_table_is_the_pinned_releases() {
    let Some(binary) = oracle_binary() else { return };
    let output = std::process::Command::new(&binary).arg("go-types").output().expect("the oracle runs");
    assert!(output.status.success(), "crdls-oracle go-types failed: {}", String::from_utf8_lossy(&output.stderr));
    let committed_path = repo_root().join("server/crdls-builtins/data/go-types.json");
    let committed = std::fs::read(&committed_path).expect("the committed Go type table is readable");
    assert!(
        committed == output.stdout,
        "{} is not what `crdls-oracle go-types` writes for the pinned release; regenerate it (see this test's documentation)",
        committed_path.display()
    );
}
