//! openshift/api's validation suites run through crdls: a peer's test suite of thousands of creates,
//! updates and status updates against its CRD manifests, each with the verdict the API server gave
//! (an `expectedError` or `expectedStatusError` substring, or success).
//!
//! The suites are `<group>/<version>/tests/<crd name>/<file>.yaml` in a checkout of openshift/api,
//! named by `CRDLS_OPENSHIFT_API` (the repository cannot be fetched in CI; without it the test says
//! `SKIPPED:` and passes). Our reading of openshift's harness (`tests/generator.go`,
//! `tests/crd_filter.go`):
//! - A suite runs against every CRD manifest of its CRD in `zz_generated.crd-manifests` beside it
//!   that its `featureGates` select: all of them without gates; a `CustomNoUpgrade` manifest unless a
//!   gate must be off (`-Name`); a manifest without cluster profiles always; otherwise the gates of
//!   the FeatureGate payload (`payload-manifests/featuregates`) of the manifest's first cluster
//!   profile, feature set (or `Default`) and major versions must have every named gate on (and every
//!   `-Name` off). A suite's `version` keeps that version of the CRD alone, served and stored.
//! - Objects get `generateName: test-` and, for a namespaced CRD, `namespace: default`. Requests are
//!   sent without `fieldValidation`, so unknown fields are pruned, not rejected.
//! - `onCreate`: a create; `expectedError` is a substring of the API server's error.
//! - `onUpdate`: `initial` is created and its status written through `/status`, which gives the
//!   stored object; then `updated` is sent as an update of the main resource (`expectedError`), and,
//!   when it has a status, as an update of `/status` (`expectedStatusError`). `initialCRDPatches`
//!   change the CRD only while the initial object is written, which crdls does not check.
//!
//! crdls checks each write (the status one with `Subresource::Status`) and its error causes are put
//! together as the API server words a rejection: `Kind.group "name" is invalid: cause` or `... is
//! invalid: [cause, cause]`. A case passes when crdls accepts what the API server accepted, and
//! rejects what it rejected with a message holding the expected text. The objects the API server
//! stored (`expected`) are not compared: only verdicts.
//!
//! The pass rates are printed, with every failing case in `<target>/openshift-api-failures.txt`.
//! The test fails when a rate falls below the floors measured (see `FLOORS`).

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};
use std::sync::Arc;

use crdls_check::{check_stream, CheckOptions, OldObjects, Subresource};
use crdls_crd::{Crd, CrdIndex};
use crdls_diagnostics::Severity;
use crdls_tests::{announce_skip, target_dir, Missing};
use regex::Regex;
use serde_json::{json, Map, Value};

/// The pass rates (percent) below which the test fails: create, update, status update. Measured on
/// openshift/api at 2a3d73913: create 4423/4425 (99.95%), update 899/899, status update 1367/1367.
/// The two creates that fail expect `"string": CSP directive value cannot contain a quote`, 1.32's
/// wording of a rule's error on a string (the type where 1.35 prints the value), with no
/// `Invalid value: ` before it for this harness to read in 1.35's words.
const FLOORS: [f64; 3] = [99.5, 98.0, 98.0];

/// A YAML text's first document as JSON, as crdls reads it (Go's number and key rules).
fn yaml_json(text: &str) -> Option<Value> {
    let stream = crdls_yaml::parse(text);
    let root = stream.documents.iter().find_map(|d| d.root.as_ref())?;
    serde_json::from_str(&crdls_check::gofmt::json(root)).ok()
}

fn yaml_files(dir: &Path) -> Vec<PathBuf> {
    let mut out: Vec<PathBuf> = std::fs::read_dir(dir)
        .map(|entries| entries.filter_map(|e| e.ok().map(|e| e.path())).filter(|p| p.extension().is_some_and(|e| e == "yaml")).collect())
        .unwrap_or_default();
    out.sort();
    out
}

/// The suite files: YAML files whose grandparent directory is `tests`, below `dir`.
fn suite_files(dir: &Path, depth: usize, out: &mut Vec<PathBuf>) {
    let Ok(entries) = std::fs::read_dir(dir) else { return };
    let mut paths: Vec<PathBuf> = entries.filter_map(|e| e.ok().map(|e| e.path())).collect();
    paths.sort();
    for path in paths {
        let name = path.file_name().and_then(|n| n.to_str()).unwrap_or_default();
        if name.starts_with('.') || name == "vendor" {
            continue;
        }
        if path.is_dir() {
            if depth < 6 {
                suite_files(&path, depth + 1, out);
            }
        } else if name.ends_with(".yaml") && path.parent().and_then(Path::parent).and_then(Path::file_name).is_some_and(|n| n == "tests") {
            out.push(path);
        }
    }
}

fn strings(value: &Value) -> Vec<String> {
    value.as_array().map(|a| a.iter().filter_map(Value::as_str).map(str::to_string).collect()).unwrap_or_default()
}

fn annotations(object: &Value) -> BTreeMap<String, String> {
    object["metadata"]["annotations"]
        .as_object()
        .map(|m| m.iter().filter_map(|(k, v)| Some((k.clone(), v.as_str()?.to_string()))).collect())
        .unwrap_or_default()
}

/// The major versions a manifest's `release.openshift.io/major-version*` annotation names.
fn major_versions(annotations: &BTreeMap<String, String>) -> BTreeSet<u64> {
    annotations
        .iter()
        .find(|(k, _)| k.starts_with("release.openshift.io/major-version"))
        .map(|(_, v)| v.split(',').filter_map(|s| s.trim().parse().ok()).collect())
        .unwrap_or_default()
}

/// One FeatureGate payload manifest: its annotations and each gate's state.
struct Payload {
    annotations: BTreeMap<String, String>,
    gates: BTreeMap<String, bool>,
}

fn payloads(root: &Path) -> Vec<Payload> {
    let mut files = Vec::new();
    // The payload directory as a walk finds it, in the order of its names.
    let mut stack = vec![root.join("payload-manifests/featuregates")];
    while let Some(dir) = stack.pop() {
        for entry in std::fs::read_dir(&dir).into_iter().flatten().flatten() {
            let path = entry.path();
            if path.is_dir() {
                stack.push(path);
            } else {
                files.push(path);
            }
        }
    }
    files.sort();
    files
        .iter()
        .filter_map(|path| {
            let gate = yaml_json(&std::fs::read_to_string(path).ok()?)?;
            let first = &gate["status"]["featureGates"][0];
            let mut gates = BTreeMap::new();
            for (state, on) in [("enabled", true), ("disabled", false)] {
                for g in first[state].as_array().into_iter().flatten() {
                    gates.insert(g["name"].as_str()?.to_string(), on);
                }
            }
            Some(Payload { annotations: annotations(&gate), gates })
        })
        .collect()
}

/// Whether openshift's harness runs a suite with `gates` against a CRD manifest of these annotations;
/// `Err` when the payload it needs is missing (the harness then fails to load the suite).
fn selected(manifest: &BTreeMap<String, String>, gates: &[String], payloads: &[Payload]) -> Result<bool, String> {
    if gates.is_empty() {
        return Ok(true);
    }
    let mut feature_sets: BTreeSet<String> = manifest
        .get("release.openshift.io/feature-set")
        .map(|s| s.split(',').filter(|s| !s.is_empty()).map(str::to_string).collect())
        .unwrap_or_default();
    if feature_sets.contains("CustomNoUpgrade") {
        return Ok(!gates.iter().any(|g| g.starts_with('-')));
    }
    let profiles: BTreeSet<&String> =
        manifest.iter().filter(|(k, v)| k.starts_with("include.release.openshift.io/") && *v == "true").map(|(k, _)| k).collect();
    let Some(profile) = profiles.first() else { return Ok(true) };
    if feature_sets.is_empty() {
        feature_sets.insert("Default".into());
    }
    let versions = major_versions(manifest);
    let payload = payloads
        .iter()
        .find(|p| {
            p.annotations.contains_key(*profile)
                && p.annotations.get("release.openshift.io/feature-set").is_some_and(|s| feature_sets.contains(s))
                && (versions.is_empty() || !major_versions(&p.annotations).is_disjoint(&versions))
        })
        .ok_or_else(|| format!("no FeatureGate payload for {profile}, {feature_sets:?}, {versions:?}"))?;
    for gate in gates {
        let (name, wanted) = match gate.strip_prefix('-') {
            Some(name) => (name, false),
            None => (gate.as_str(), true),
        };
        match payload.gates.get(name) {
            Some(&on) if on != wanted => return Ok(false),
            Some(_) => {}
            None => return Err(format!("featureGate/{gate} is not in the payload")),
        }
    }
    Ok(true)
}

/// A CRD manifest as the suite installs it: only the suite's version, served and stored, when it
/// names one.
fn suite_crd(mut crd: Value, version: &str) -> Option<Value> {
    if !version.is_empty() {
        let versions = crd["spec"]["versions"].as_array_mut()?;
        versions.retain(|v| v["name"] == version);
        for v in versions.iter_mut() {
            v["served"] = json!(true);
            v["storage"] = json!(true);
        }
        if versions.is_empty() {
            return None;
        }
    }
    Some(crd)
}

/// What crdls says about one write.
struct Answer {
    causes: Vec<String>,
}

impl Answer {
    fn accepted(&self) -> bool {
        self.causes.is_empty()
    }

    /// Whether the API server's error, as crdls's causes make it, holds `expected` (in 1.35's words).
    fn says(&self, expected: &Regex, object: &Value) -> bool {
        if self.causes.iter().any(|c| expected.is_match(c)) {
            return true;
        }
        let (group, _) = crdls_crd::split_api_version(object["apiVersion"].as_str().unwrap_or_default());
        let kind = object["kind"].as_str().unwrap_or_default();
        let name = object["metadata"]["name"].as_str().unwrap_or("test-");
        let causes = if self.causes.len() == 1 { self.causes[0].clone() } else { format!("[{}]", self.causes.join(", ")) };
        expected.is_match(&format!("{kind}.{group} \"{name}\" is invalid: {causes}"))
    }
}

/// openshift's expected error text, written against Kubernetes 1.32 (its envtest), as a pattern of
/// what 1.35, whose words crdls uses, says in its place. Two things changed in how field errors print
/// their value: a rule's error printed the schema's type (`Invalid value: "object": ...`, `"string"`,
/// or `""` for int-or-string) where 1.35 prints the value itself, or nothing for objects and arrays;
/// and values that are not scalars printed in Go syntax (`map[string]interface {}{"name":"cpu"}`,
/// and the skipped-rules note's `"null"`) where 1.35 prints JSON (`{"name":"cpu"}`, `null`).
fn expected_pattern(expected: &str) -> Regex {
    let mut text = expected.replace("<nil>: Invalid value: \"null\"", "<nil>: Invalid value: null");
    // Go's %#v of a map to JSON, inside each duplicate value.
    let go_map = "map[string]interface {}{";
    while let Some(at) = text.find(go_map) {
        let body_start = at + go_map.len();
        let end = text[body_start..].find('}').map_or(text.len(), |e| body_start + e + 1);
        let body = text[body_start..end].replace("\", \"", "\",\"");
        text = format!("{}{{{}{}", &text[..at], body, &text[end..]);
    }
    let typed = Regex::new(r#"Invalid value: "(string|object|array|integer|number|boolean|)": "#).expect("a valid pattern");
    let mut pattern = String::new();
    let mut last = 0;
    for m in typed.find_iter(&text) {
        pattern.push_str(&regex::escape(&text[last..m.start()]));
        // 1.35: the value itself (up to its `: `), or nothing.
        pattern.push_str("Invalid value: (?:.*?: )?");
        last = m.end();
    }
    pattern.push_str(&regex::escape(&text[last..]));
    Regex::new(&pattern).expect("an escaped pattern")
}

/// The case's object with the metadata openshift's harness gives it.
fn prepared(text: &str, namespaced: bool, name: Option<&str>) -> Option<Value> {
    let mut object = yaml_json(text)?;
    let map = object.as_object_mut()?;
    let metadata = map.entry("metadata").or_insert_with(|| Value::Object(Map::new())).as_object_mut()?;
    metadata.insert("generateName".into(), json!("test-"));
    if namespaced {
        metadata.insert("namespace".into(), json!("default"));
    }
    if let Some(name) = name {
        metadata.insert("name".into(), json!(name));
    }
    Some(object)
}

fn check(index: &CrdIndex, object: &Value, old: Option<&Value>, subresource: Subresource) -> Answer {
    let text = serde_json::to_string(object).unwrap_or_default();
    let stream = crdls_yaml::parse(&text);
    let old = old.map(|old| {
        let mut olds = OldObjects::new();
        olds.add_stream(&crdls_yaml::parse(&serde_json::to_string(old).unwrap_or_default()));
        Arc::new(olds)
    });
    // openshift's envtest is Kubernetes 1.32: rules compile in its CEL environment.
    let options = CheckOptions { old, subresource, kubernetes: Some(32), ..CheckOptions::default() };
    let result = check_stream(&stream, index, &options);
    let mut causes = Vec::new();
    let mut skipped = Vec::new();
    for d in result.documents.iter().flat_map(|d| &d.diagnostics) {
        if d.severity == Severity::Error {
            causes.push(d.cause.clone().unwrap_or_else(|| format!("(crdls) {}: {}", d.code, d.message)));
        } else if d.code == "cel/skipped" {
            skipped.extend(d.cause.clone());
        }
    }
    // The API server appends the note about skipped rules after the schema errors.
    causes.append(&mut skipped);
    Answer { causes }
}

#[derive(Default)]
struct Rate {
    passed: usize,
    total: usize,
}

impl Rate {
    fn percent(&self) -> f64 {
        if self.total == 0 {
            100.0
        } else {
            100.0 * self.passed as f64 / self.total as f64
        }
    }
}

/// The outcome of all suites: rates for create, update and status, and the failures.
#[derive(Default)]
struct Outcome {
    rates: [Rate; 3],
    failures: Vec<String>,
    notes: Vec<String>,
}

impl Outcome {
    fn count(&mut self, category: usize, passed: bool, case: impl FnOnce() -> String) {
        self.rates[category].total += 1;
        if passed {
            self.rates[category].passed += 1;
        } else {
            self.failures.push(format!("[{}] {}", ["create", "update", "status"][category], case()));
        }
    }
}

fn verdict(answer: &Answer) -> String {
    if answer.accepted() {
        "crdls accepts".into()
    } else {
        format!("crdls rejects: {}", answer.causes.join(" | "))
    }
}

/// Runs every suite of an openshift/api checkout.
fn run_suites(root: &Path) -> Outcome {
    let payloads = payloads(root);
    let mut outcome = Outcome::default();
    let mut suites = Vec::new();
    suite_files(root, 0, &mut suites);
    for suite_path in &suites {
        let Some(suite) = std::fs::read_to_string(suite_path).ok().as_deref().and_then(yaml_json) else {
            outcome.notes.push(format!("{}: not readable as YAML", suite_path.display()));
            continue;
        };
        let crd_name = suite["crdName"].as_str().unwrap_or_default();
        let gates = strings(&suite["featureGates"]);
        let manifests_dir = suite_path.parent().and_then(Path::parent).and_then(Path::parent).map(|d| d.join("zz_generated.crd-manifests"));
        let mut manifests = Vec::new();
        for file in manifests_dir.as_deref().map(yaml_files).unwrap_or_default() {
            let Some(crd) = std::fs::read_to_string(&file).ok().as_deref().and_then(yaml_json) else { continue };
            if crd["metadata"]["name"] != crd_name {
                continue;
            }
            match selected(&annotations(&crd), &gates, &payloads) {
                Ok(true) => manifests.push((file, crd)),
                Ok(false) => {}
                Err(why) => outcome.notes.push(format!("{}: {why}", suite_path.display())),
            }
        }
        if manifests.is_empty() {
            outcome.notes.push(format!("{}: no CRD manifest selected", suite_path.display()));
            continue;
        }
        let version = suite["version"].as_str().unwrap_or_default();
        let shown = suite_path.strip_prefix(root).unwrap_or(suite_path).display().to_string();
        for (file, crd) in manifests {
            let Some(crd) = suite_crd(crd, version) else {
                outcome.notes.push(format!("{shown}: {} has no version {version}", file.display()));
                continue;
            };
            let crd_text = serde_json::to_string(&crd).unwrap_or_default();
            let stream = crdls_yaml::parse(&crd_text);
            let crds: Vec<Crd> = stream.documents.iter().flat_map(Crd::from_document).collect();
            let mut index = CrdIndex::new();
            index.set_source(Arc::from(file.display().to_string().as_str()), crds);
            let namespaced = crd["spec"]["scope"] == "Namespaced";
            let status_subresource = crd["spec"]["versions"][0]["subresources"]["status"].is_object();
            let manifest = file.file_name().and_then(|n| n.to_str()).unwrap_or_default().to_string();
            let case_name = |test: &Value| format!("{shown} [{manifest}] {}", test["name"].as_str().unwrap_or_default());
            for test in suite["tests"]["onCreate"].as_array().into_iter().flatten() {
                let Some(object) = prepared(test["initial"].as_str().unwrap_or_default(), namespaced, None) else { continue };
                let expected = test["expectedError"].as_str().unwrap_or_default();
                let answer = check(&index, &object, None, Subresource::Main);
                let passed = if expected.is_empty() {
                    answer.accepted()
                } else {
                    !answer.accepted() && answer.says(&expected_pattern(expected), &object)
                };
                outcome.count(0, passed, || format!("{}\n    expected {expected:?}; {}", case_name(test), verdict(&answer)));
            }
            for test in suite["tests"]["onUpdate"].as_array().into_iter().flatten() {
                let initial_text = test["initial"].as_str().unwrap_or_default();
                // The name the create gave the object: its own, or one generated from `test-`.
                let name = yaml_json(initial_text)
                    .and_then(|o| o["metadata"]["name"].as_str().map(str::to_string))
                    .unwrap_or_else(|| "test-crdls".to_string());
                // The stored object after the create and the initial status write.
                let (Some(stored), Some(updated)) = (
                    prepared(initial_text, namespaced, Some(&name)),
                    prepared(test["updated"].as_str().unwrap_or_default(), namespaced, Some(&name)),
                ) else {
                    continue;
                };
                let expected = test["expectedError"].as_str().unwrap_or_default();
                let expected_status = test["expectedStatusError"].as_str().unwrap_or_default();
                let writes_status = updated.get("status").is_some();
                let category = if expected.is_empty() && (writes_status || !expected_status.is_empty()) { 2 } else { 1 };
                let main = check(&index, &updated, Some(&stored), Subresource::Main);
                if !expected.is_empty() {
                    let passed = !main.accepted() && main.says(&expected_pattern(expected), &updated);
                    outcome.count(category, passed, || format!("{}\n    expected {expected:?}; {}", case_name(test), verdict(&main)));
                    continue;
                }
                if !main.accepted() || !writes_status {
                    outcome.count(category, main.accepted(), || {
                        format!("{}\n    expected the update to succeed; {}", case_name(test), verdict(&main))
                    });
                    continue;
                }
                // The stored object after the update of the main resource: the stored status stays.
                let mut after = updated.clone();
                if status_subresource {
                    if let Some(map) = after.as_object_mut() {
                        map.remove("status");
                        if let Some(status) = stored.get("status") {
                            map.insert("status".into(), status.clone());
                        }
                    }
                }
                let status = check(&index, &updated, Some(&after), Subresource::Status);
                let passed = if expected_status.is_empty() {
                    status.accepted()
                } else {
                    !status.accepted() && status.says(&expected_pattern(expected_status), &updated)
                };
                outcome.count(category, passed, || {
                    format!("{}\n    expected the status update: {expected_status:?}; {}", case_name(test), verdict(&status))
                });
            }
        }
    }
    outcome
}

#[test]
fn openshift_api_suites_pass_through_crdls() {
    let root = match std::env::var_os("CRDLS_OPENSHIFT_API").map(PathBuf::from) {
        Some(root) if root.join("payload-manifests/featuregates").is_dir() => root,
        _ => {
            announce_skip(Missing::OpenshiftApi, None);
            return;
        }
    };
    let outcome = run_suites(&root);
    let report = target_dir().join("openshift-api-failures.txt");
    let mut text = String::new();
    for note in &outcome.notes {
        text.push_str(&format!("note: {note}\n"));
    }
    for failure in &outcome.failures {
        text.push_str(failure);
        text.push('\n');
    }
    // The report is a convenience; the counts below are the result.
    let _ = std::fs::write(&report, text);
    let mut summary = Vec::new();
    for (i, what) in ["create", "update", "status update"].iter().enumerate() {
        let rate = &outcome.rates[i];
        summary.push(format!("{what} {}/{} ({:.2}%)", rate.passed, rate.total, rate.percent()));
    }
    let line = format!(
        "openshift/api suites through crdls: {}; {} notes; failures in {}\n",
        summary.join(", "),
        outcome.notes.len(),
        report.display()
    );
    // Past the harness's capture, so the rates show in a passing run.
    let _ = std::io::Write::write_all(&mut std::io::stderr(), line.as_bytes());
    assert!(outcome.rates[0].total > 1000, "too few create cases found under {}: {line}", root.display());
    for (i, floor) in FLOORS.iter().enumerate() {
        assert!(outcome.rates[i].percent() >= *floor, "a pass rate fell below its floor of {floor}%: {line}");
    }
}

#[test]
fn openshift_expectations_in_the_words_of_1_32_match_those_of_1_35() {
    let object = expected_pattern(r#"spec.policy: Invalid value: "object": publicKey is required"#);
    assert!(object.is_match("spec.policy: Invalid value: publicKey is required when ..."));
    assert!(!object.is_match("spec.other: Invalid value: publicKey is required"));
    let string = expected_pattern(r#"spec.scopes[0]: Invalid value: "string": invalid image scope"#);
    assert!(string.is_match(r#"spec.scopes[0]: Invalid value: "busybox": invalid image scope format"#));
    let duplicate = expected_pattern(r#"Duplicate value: map[string]interface {}{"apiGroup":"a", "resource":"b"}"#);
    assert!(duplicate.is_match(r#"spec.m[1]: Duplicate value: {"apiGroup":"a","resource":"b"}"#));
    let skipped = expected_pattern(r#"spec.pool: Required value, <nil>: Invalid value: "null""#);
    assert!(skipped.is_match(r#"[spec.pool: Required value, <nil>: Invalid value: null: some validation rules were not checked]"#));
}
