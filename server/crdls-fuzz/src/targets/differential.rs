//! The `differential` target: crdls against the API server's own code. An input is a YAML stream of a
//! CRD, a custom resource of it and, for an update, the stored object (a `# crdls: subresource=status`
//! line in the object makes the update a write to `/status`). crdls checks the CRD, then the object, as
//! `crdls check --strict` does at the release the oracle pins; `crdls-oracle` (tests/oracle) answers
//! the same questions. A difference in whether the write is accepted, in a field path or in a message
//! is a finding, unless one of [`EXCEPTIONS`] explains it.
//!
//! Inputs come from the CRDs and custom resources of the fixtures and the shared corpus (a CRD and
//! an object of it), from small CRDs generated here, and from mutation: schema keywords, values,
//! CEL rules from a small grammar (with messages, message expressions, field paths and reasons), list
//! types, formats, stored objects and the status subresource. The oracle reads the JSON crdls read
//! from the YAML, so YAML differences (the oracle tests' `yaml` kind) do not show here.

use std::path::PathBuf;
use std::sync::{Arc, Mutex};

use crdls_check::{check_stream, CheckOptions, DocumentKind, OldObjects};
use crdls_crd::{Crd, CrdIndex};
use crdls_diagnostics::{codes, Severity};
use crdls_yaml::Stream;
use serde_json::{json, Map, Value};

use crate::oracle::{compare, our_object_verdict, our_verdict, their_verdict, Oracle};
use crate::rng::Rng;

/// The largest input the target builds (the oracle compiles each CRD's rules anew).
pub const MAX_LEN: usize = 64 * 1024;

/// A difference crdls keeps on purpose, or one the oracle's set-up causes: its name, why, and which
/// differences it covers.
pub struct Exception {
    /// A stable name, as the documentation lists it.
    pub name: &'static str,
    /// Who is right, and why.
    pub reason: &'static str,
    /// Whether it explains a difference of this case.
    pub applies: fn(&Case) -> bool,
}

/// One compared case, as the exceptions see it.
pub struct Case<'a> {
    /// `crd` or `cr`.
    pub kind: &'static str,
    /// The CRD's JSON.
    pub crd: &'a Value,
    /// The object's JSON.
    pub object: &'a Value,
    /// What differs, a line each (see [`crate::oracle::compare`]).
    pub difference: &'a str,
}

impl Case<'_> {
    fn lines(&self) -> impl Iterator<Item = &str> {
        self.difference.lines()
    }
}

/// Every value of a JSON tree that is a string.
fn strings(value: &Value, out: &mut Vec<String>) {
    match value {
        Value::String(s) => out.push(s.clone()),
        Value::Array(items) => items.iter().for_each(|v| strings(v, out)),
        Value::Object(map) => {
            for (k, v) in map {
                out.push(k.clone());
                strings(v, out);
            }
        }
        _ => {}
    }
}

fn has_placeholder(value: &Value) -> bool {
    let mut all = Vec::new();
    strings(value, &mut all);
    all.iter().any(|s| {
        s.contains("${") || s.contains("{{") || s.contains("$(") || s.contains("<<") || {
            // `{NAME}` placeholders.
            let b = s.as_bytes();
            b.iter().enumerate().any(|(i, &c)| {
                c == b'{'
                    && b[i + 1..]
                        .iter()
                        .position(|&d| d == b'}')
                        .is_some_and(|n| n > 0 && b[i + 1..i + 1 + n].iter().all(|d| d.is_ascii_uppercase() || *d == b'_'))
            })
        }
    })
}

/// The API server's name for a rule's `self` type, `selfType` and the nanoseconds of the clock when it
/// compiled (`generateUniqueSelfTypeName`), as crdls names it: `Object`.
fn without_self_type_numbers(line: &str) -> String {
    let mut out = String::with_capacity(line.len());
    let mut rest = line;
    while let Some(at) = rest.find("selfType") {
        out.push_str(&rest[..at]);
        let after = &rest[at + "selfType".len()..];
        let digits = after.bytes().take_while(u8::is_ascii_digit).count();
        out.push_str(if digits > 0 { "Object" } else { "selfType" });
        rest = &after[digits..];
    }
    out.push_str(rest);
    out
}

/// The difference's `only the oracle:` and `only crdls:` lines (the continuation lines of a cause
/// included), each side normalized by `f`; `None` when anything else differs (the verdict, unknown
/// fields).
fn sides(case: &Case, f: impl Fn(&str) -> String) -> Option<(Vec<String>, Vec<String>)> {
    let (mut oracle, mut ours) = (Vec::new(), Vec::new());
    let mut current: Option<bool> = None;
    for line in case.lines() {
        if let Some(cause) = line.strip_prefix("only the oracle: ") {
            oracle.push(f(cause));
            current = Some(true);
        } else if let Some(cause) = line.strip_prefix("only crdls:      ") {
            ours.push(f(cause));
            current = Some(false);
        } else if line.starts_with(" | ") || line.starts_with("ERROR: ") {
            // A continuation: a compile error's source lines, or its next error.
            let side = if current? { &mut oracle } else { &mut ours };
            let last = side.last_mut()?;
            last.push('\n');
            last.push_str(&f(line));
        } else {
            return None;
        }
    }
    oracle.sort();
    ours.sort();
    Some((oracle, ours))
}

/// Whether an object, as JSON, is what crdls reads as a reference to an object (`is_reference` in
/// crdls-check's modes): apiVersion, kind, a metadata of a non-empty name (and namespace), and `spec: {}`.
fn is_reference(object: &Value) -> bool {
    let only = |v: &Value, keys: &[&str]| v.as_object().is_some_and(|m| m.keys().all(|k| keys.contains(&k.as_str())));
    only(object, &["apiVersion", "kind", "metadata", "spec"])
        && object["spec"].as_object().is_some_and(Map::is_empty)
        && object["metadata"]["name"].as_str().is_some_and(|n| !n.is_empty())
        && only(&object["metadata"], &["name", "namespace"])
}

/// Whether a cause is about the whole object, quoting it (`<nil>: Unsupported value: {"apiVersion"...`).
fn quotes_the_object(cause: &str) -> bool {
    cause.starts_with("<nil>: ") && cause.contains(": {\"apiVersion\":")
}

/// The differences the target does not report, with their reasons; the documentation's page on the
/// oracle lists them too.
/// Whether a JSON tree has an object key that, written as JSON (quoted, escaped), is longer than the
/// 1,024 characters go-yaml takes as an implicit key.
fn has_overlong_key(value: &Value) -> bool {
    match value {
        Value::Object(map) => map.iter().any(|(k, v)| Value::from(k.as_str()).to_string().chars().count() > 1024 || has_overlong_key(v)),
        Value::Array(items) => items.iter().any(has_overlong_key),
        _ => false,
    }
}

pub const EXCEPTIONS: &[Exception] = &[
    Exception {
        name: "template-placeholders",
        reason: "intended: crdls does not check values holding ${...}, {{ }}, $(VAR), << Name >> or {NAME} placeholders \
                 (fixtures/resources/substitutions.yaml, placeholders.yaml); the API server would see the literal text",
        applies: |case| case.kind == "cr" && has_placeholder(case.object),
    },
    Exception {
        name: "generated-name",
        reason:
            "intended: the API server also validates the name it generates from generateName (a random suffix), which crdls cannot know",
        applies: |case| {
            let meta = if case.kind == "crd" { &case.crd["metadata"] } else { &case.object["metadata"] };
            meta.get("generateName").is_some() && meta.get("name").is_none()
        },
    },
    Exception {
        name: "crd-decode-stops-at-first-error",
        reason: "intended, mostly: the API server stops at the first error decoding a CRD and reports it alone; crdls reports every \
                 decode error and unknown field at once",
        applies: |case| case.kind == "crd" && case.lines().any(|l| l.starts_with("only the oracle: (rejected)")),
    },
    Exception {
        name: "unserved-version-wording",
        reason: "oracle wiring: both refuse a version the CRD does not serve; crdls words it as kubectl does, the oracle in its own \
                 words (the API server answers 404, before it reads the body, where crdls goes on to check the object's fields)",
        applies: |case| {
            // The API server answers 404 before it reads the body; crdls also checks the object's
            // fields, so its other findings come along.
            case.kind == "cr"
                && case.lines().any(|l| l.starts_with("only the oracle: (rejected) the CRD ") && l.contains(" does not serve "))
                && case.lines().all(|l| {
                    l.starts_with("only the oracle: (rejected) the CRD ")
                        || l.starts_with("only crdls:      ")
                        || l.starts_with("unknown field only for crdls: ")
                })
        },
    },
    Exception {
        name: "self-type-name",
        reason: "intended: the API server names a rule's self type selfType<nanoseconds of its clock> (a new number each \
                 compile), crdls names it Object; the messages are otherwise the same",
        applies: |case| sides(case, without_self_type_numbers).is_some_and(|(oracle, ours)| !oracle.is_empty() && oracle == ours),
    },
    Exception {
        name: "system-fields-in-a-quoted-object",
        reason: "intended: an error about the whole object (an enum of the root schema) quotes it as the API server holds it, with \
                 the uid, creationTimestamp, generation and namespace it sets; crdls quotes the object as written",
        applies: |case| {
            case.kind == "cr"
                && sides(case, str::to_string)
                    .is_some_and(|(oracle, ours)| oracle.len() == ours.len() && oracle.iter().chain(&ours).all(|c| quotes_the_object(c)))
        },
    },
    Exception {
        name: "reference-documents-are-partial",
        reason: "intended: a document of only apiVersion, kind, a metadata of a non-empty name (and namespace) and an empty spec {} \
                 names an object (tests wait for it, tools refer to it); crdls reads it as partial and checks its fields, not what \
                 it leaves out (crdls-check's is_reference), where the API server requires them (and then skips the rules), or \
                 finds the empty spec short of its rules and bounds; its name only picks the object referred to, so crdls, as for a \
                 patch, does not check it as a new object's name",
        applies: |case| {
            // An error about the whole object (a root enum) both report, quoted as each holds it (the
            // system-fields-in-a-quoted-object reading), may come along.
            let ours: Vec<&str> = case.lines().filter_map(|l| l.strip_prefix("only crdls:      ")).collect();
            let theirs_quoted = case.lines().filter_map(|l| l.strip_prefix("only the oracle: ")).filter(|c| quotes_the_object(c)).count();
            case.kind == "cr"
                && is_reference(case.object)
                && (ours.is_empty() || (ours.len() == theirs_quoted && ours.iter().all(|c| quotes_the_object(c))))
                && case.lines().all(|l| {
                    l == "crdls accepts, the oracle rejects"
                        || l.starts_with("only crdls:      ")
                        || l.strip_prefix("only the oracle: ").is_some_and(|cause| {
                            cause.contains(": Required value")
                                || cause.contains("some validation rules were not checked")
                                // What the API server finds wrong with the empty spec, or with the
                                // whole object for it (a root rule).
                                || cause.starts_with("spec: ")
                                || cause.starts_with("spec.")
                                || cause.starts_with("<nil>: ")
                                // The name only picks the object referred to, as a patch's does.
                                || cause.starts_with("metadata.name: Invalid value: ")
                        })
                })
        },
    },
    Exception {
        name: "overlong-implicit-key",
        reason: "the harness: the oracle is sent crdls's JSON of the object and reads it as YAML, with go-yaml, which gives up a \
                 key whose `:` comes more than 1,024 characters after the key's start (the YAML limit on implicit keys) and \
                 refuses the document (`did not find expected ',' or '}'` in a flow mapping). Quotes and escapes can take a key \
                 the original text kept under the limit past it (seed 1 at 6,783: a plain key of 1,021 characters holding \
                 quotes). kubectl reads a stream that starts with `{` as JSON, with no such limit; in YAML text crdls gives \
                 go-yaml's refusal too",
        applies: |case| {
            let yaml_refusal = |l: &str| {
                l.strip_prefix("only the oracle: (rejected) yaml: ")
                    .is_some_and(|w| w.ends_with("did not find expected ',' or '}'") || w.ends_with("did not find expected ',' or ']'"))
            };
            case.kind == "cr"
                && has_overlong_key(case.object)
                && case.lines().any(yaml_refusal)
                && case.lines().all(|l| !l.starts_with("only the oracle: ") || yaml_refusal(l))
        },
    },
    Exception {
        name: "wrong-typed-data-in-rules",
        reason: "a crdls limitation, not intended: a value of the wrong type that ratcheting lets through (an update or a status \
                 write keeping it), or a string its format does not parse (a byte string that is not base64), becomes, in the API \
                 server's CEL object, an error (UnstructuredToVal: invalid data, expected string, got int64; Invalid byte formatted \
                 string) that a rule reading the field (has(), a selection, equality) returns; crdls's CEL values hold no error \
                 value, so there the rule reads the data as it is (and may meet no overload for its type: 'no such overload' at the \
                 same node). A new such value is a blocking schema error, so only kept ones \
                 reach a rule",
        applies: |case| {
            // UnstructuredToVal's words for data its schema's type, or a string's format (duration,
            // date, date-time, byte), does not describe.
            let conversion = |c: &str| {
                [": invalid data, expected ", ": Invalid duration ", " formatted string "].iter().any(|w| c.contains(w))
                    && c.contains(" evaluating rule: ")
            };
            let path = |c: &str| c.split_once(": Invalid value: ").map(|(p, _)| p.to_string());
            let converted: Vec<Option<String>> =
                case.lines().filter_map(|l| l.strip_prefix("only the oracle: ")).filter(|c| conversion(c)).map(path).collect();
            case.kind == "cr"
                && !converted.is_empty()
                && case.lines().all(|l| {
                    l == "crdls accepts, the oracle rejects"
                        || l.strip_prefix("only the oracle: ").is_some_and(conversion)
                        // Where crdls reads the data as it is, the rule at the same node may meet a
                        // type it has no overload for instead.
                        || l.strip_prefix("only crdls:      ").is_some_and(|c| {
                            c.contains(": 'no such overload': ") && path(c).is_some() && converted.contains(&path(c))
                        })
                })
        },
    },
    Exception {
        name: "printed-objects-are-partial",
        reason: "intended: an object whose metadata holds creationTimestamp: null is one a Go program printed from a typed value \
                 (nobody types it); crdls reads it as a test input (crdls-check's is_printed_object), checking what it writes, not \
                 what it leaves out, where the API server requires the missing fields (and then skips the rules)",
        applies: |case| {
            case.kind == "cr"
                && case.object["metadata"].get("creationTimestamp").is_some_and(Value::is_null)
                && case.lines().all(|l| {
                    l == "crdls accepts, the oracle rejects"
                        || l.strip_prefix("only the oracle: ").is_some_and(|cause| {
                            cause.contains(": Required value")
                                || cause.contains(": Duplicate value: {")
                                || cause.contains("some validation rules were not checked")
                        })
                })
        },
    },
    Exception {
        name: "object-decode-stops-at-first-error",
        reason: "intended: the API server refuses an object whose metadata (its own, or an embedded resource's apiVersion, kind or \
                 metadata) does not decode with the first such error its coercion meets, in Go's random map order; crdls reports \
                 each of them, the oracle's among them",
        applies: |case| case.kind == "cr" && case.lines().all(|l| l.starts_with("only crdls:      (rejected) ")),
    },
];

/// The counts of a run, for its report.
#[derive(Clone, Debug, Default)]
pub struct Tally {
    /// CRDs compared.
    pub crds: u64,
    /// Objects compared (creates, updates and status updates).
    pub objects: u64,
    /// Cases not compared: not a CRD and an object of it, a YAML error, or an oracle that could not answer.
    pub skipped: u64,
    /// Differences found (reported or excepted).
    pub differences: u64,
    /// Differences each exception explained, by name.
    pub excepted: std::collections::BTreeMap<&'static str, u64>,
}

/// The `differential` target.
pub struct DifferentialTarget {
    pub(crate) seeds: Vec<String>,
    notes: Vec<String>,
    /// The oracle's binary, or why there is none.
    oracle: Result<PathBuf, String>,
    /// The running oracle, started on first use and restarted when it ends.
    process: Mutex<Option<Oracle>>,
    /// The release the oracle answers for, crdls asked the same.
    kubernetes: Option<u32>,
    tally: Mutex<Tally>,
}

impl DifferentialTarget {
    /// The target over `seeds`, asking the oracle `oracle` (or, when it did not build, skipping).
    pub fn new(seeds: Vec<String>, mut notes: Vec<String>, oracle: Result<PathBuf, String>) -> DifferentialTarget {
        if let Err(why) = &oracle {
            notes.push(format!("SKIPPED: the differential oracle tests/oracle did not build ({why}); install Go 1.26 or newer"));
        }
        let seeds = if seeds.is_empty() { vec![String::new()] } else { seeds };
        DifferentialTarget {
            seeds,
            notes,
            oracle,
            process: Mutex::new(None),
            kubernetes: crate::oracle::kubernetes_minor(),
            tally: Mutex::new(Tally::default()),
        }
    }

    /// The counts so far.
    pub fn tally(&self) -> Tally {
        self.tally.lock().unwrap_or_else(|e| e.into_inner()).clone()
    }

    fn count(&self, f: impl FnOnce(&mut Tally)) {
        f(&mut self.tally.lock().unwrap_or_else(|e| e.into_inner()));
    }

    fn ask(&self, request: &Value) -> Result<Value, String> {
        let Ok(binary) = &self.oracle else { return Err("no oracle".into()) };
        let mut process = self.process.lock().unwrap_or_else(|e| e.into_inner());
        if process.is_none() {
            *process = Some(Oracle::start(binary)?);
        }
        let answer = process.as_mut().map_or_else(|| Err("no oracle".to_string()), |p| p.ask(request));
        if answer.is_err() {
            // Started again for the next input.
            *process = None;
        }
        answer
    }

    /// Judges one difference: `Ok` when an exception explains it (counted), else the finding's text.
    fn judge(&self, case: &Case) -> Result<(), String> {
        self.count(|t| t.differences += 1);
        if let Some(e) = EXCEPTIONS.iter().find(|e| (e.applies)(case)) {
            self.count(|t| *t.excepted.entry(e.name).or_default() += 1);
            return Ok(());
        }
        let first = case.difference.lines().next().unwrap_or_default();
        Err(format!("{}: {first}\n{}", case.kind, case.difference))
    }
}

/// The documents of an input: each one's text, and whether the object asks for `/status`.
struct Documents {
    texts: Vec<String>,
}

fn document_texts(stream: &Stream) -> Option<Documents> {
    let mut texts = Vec::new();
    for doc in &stream.documents {
        if doc.has_syntax_error || doc.diagnostics.iter().any(|d| d.severity == Severity::Error) {
            return None;
        }
        if doc.root.is_none() {
            continue;
        }
        texts.push(stream.text[doc.range.start..doc.range.end].to_string());
    }
    Some(Documents { texts })
}

/// The JSON crdls reads from one document's text (Go's printing of it), or `None`.
fn json_of(text: &str) -> Option<Value> {
    let stream = crdls_yaml::parse(text);
    let root = stream.documents.iter().find_map(|d| d.root.as_ref())?;
    serde_json::from_str(&crdls_check::gofmt::json(root)).ok()
}

impl super::Target for DifferentialTarget {
    fn name(&self) -> &'static str {
        "differential"
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
        mutate(rng, input, other)
    }

    fn unavailable(&self) -> Option<String> {
        self.oracle.as_ref().err().map(|why| format!("the differential oracle tests/oracle did not build: {why}"))
    }

    fn summary(&self) -> Vec<String> {
        let t = self.tally();
        let excepted: u64 = t.excepted.values().sum();
        let mut lines = vec![format!(
            "compared {} CRDs and {} objects ({} inputs not compared); {} differences, {} of them named exceptions, {} findings",
            t.crds,
            t.objects,
            t.skipped,
            t.differences,
            excepted,
            t.differences - excepted
        )];
        lines.extend(t.excepted.iter().map(|(name, n)| format!("  exception {name}: {n}")));
        lines
    }

    fn run(&self, input: &str) -> Result<(), String> {
        if self.oracle.is_err() {
            return Ok(());
        }
        let stream = crdls_yaml::parse(input);
        let Some(docs) = document_texts(&stream) else {
            self.count(|t| t.skipped += 1);
            return Ok(());
        };
        let values: Option<Vec<Value>> = docs.texts.iter().map(|t| json_of(t)).collect();
        let Some(values) = values.filter(|v| v.len() >= 2) else {
            self.count(|t| t.skipped += 1);
            return Ok(());
        };
        let (crd, object) = (&values[0], &values[1]);
        if crd["apiVersion"] != "apiextensions.k8s.io/v1" || crd["kind"] != "CustomResourceDefinition" {
            self.count(|t| t.skipped += 1);
            return Ok(());
        }
        let options = CheckOptions { kubernetes: self.kubernetes, ..CheckOptions::default() };

        // The CRD, as created.
        let crd_stream = crdls_yaml::parse(&docs.texts[0]);
        let crd_check = check_stream(&crd_stream, &CrdIndex::new(), &options);
        let errors: Vec<crdls_diagnostics::Diagnostic> = crd_check.documents[0]
            .diagnostics
            .iter()
            .filter(|d| d.severity == Severity::Error || d.code == codes::CRD_UNKNOWN_FIELD)
            .cloned()
            .collect();
        let ours = our_verdict(&errors, codes::CRD_UNKNOWN_FIELD);
        let answer = match self.ask(&json!({"op": "crd", "crd": crd.to_string()})) {
            Ok(a) if a.get("oracle").is_none() => a,
            Ok(_) | Err(_) => {
                self.count(|t| t.skipped += 1);
                return Ok(());
            }
        };
        self.count(|t| t.crds += 1);
        let theirs = their_verdict(&answer);
        if let Some(difference) = compare(&ours, &theirs) {
            return self.judge(&Case { kind: "crd", crd, object, difference: &difference });
        }
        if !ours.accepted {
            return Ok(());
        }

        // The object: a create, or an update of the third document (of its status, with the directive).
        let mut index = CrdIndex::new();
        index.set_source(Arc::from("crd.yaml"), crd_stream.documents.iter().flat_map(Crd::from_document).collect());
        let object_stream = crdls_yaml::parse(&docs.texts[1]);
        let mut old = values.get(2);
        let status = crdls_check::subresource_directive(&docs.texts[1]) == Some(crdls_check::Subresource::Status);
        if status && old.is_none() {
            // crdls checks a status write with no stored object as one that starts from the object
            // itself: the oracle is asked the same.
            old = Some(object);
        }
        let mut object_options = CheckOptions { strict: true, ..options };
        if let Some(old_text) = docs.texts.get(2) {
            let mut olds = OldObjects::new();
            olds.add_stream(&crdls_yaml::parse(old_text));
            // crdls updates the stored object of the same group, kind, namespace and name, as the API
            // server would (a stored object always has a name); any other third document leaves the
            // object a create, and a status write then starts from the object itself. The oracle
            // is asked the same, not to update an object under another name.
            let root = object_stream.documents.first().and_then(|d| d.root.as_ref());
            if root.is_none_or(|r| olds.get(r).is_none()) {
                old = status.then_some(object);
            }
            object_options.old = Some(Arc::new(olds));
        }
        let check = check_stream(&object_stream, &index, &object_options);
        if !matches!(check.documents.first().map(|d| &d.kind), Some(DocumentKind::CustomResource { .. })) {
            self.count(|t| t.skipped += 1);
            return Ok(());
        }
        let request = json!({
            "op": "cr",
            "crd": crd.to_string(),
            "object": object.to_string(),
            "old": old.map(Value::to_string).unwrap_or_default(),
            "subresource": if status { "status" } else { "" },
        });
        let answer = match self.ask(&request) {
            Ok(a) if a.get("oracle").is_none() => a,
            Ok(_) | Err(_) => {
                self.count(|t| t.skipped += 1);
                return Ok(());
            }
        };
        self.count(|t| t.objects += 1);
        match compare(&our_object_verdict(&check.documents[0].diagnostics), &their_verdict(&answer)) {
            Some(difference) => self.judge(&Case { kind: "cr", crd, object, difference: &difference }),
            None => Ok(()),
        }
    }
}

// ---------------------------------------------------------------------------------------------------
// Seeds.

/// A seed of a CRD and an object: the two documents' texts in one stream.
pub fn pair(crd: &str, object: &str) -> String {
    format!("{}\n---\n{}\n", crd.trim_end(), object.trim_start_matches("---\n").trim_end())
}

/// Small CRDs and objects of them, generated from `seed`.
pub fn generated(seed: u64, count: usize) -> Vec<String> {
    let mut rng = Rng::new(seed);
    (0..count)
        .map(|_| {
            let spec = gen_schema(&mut rng, 3);
            let status = gen_schema(&mut rng, 2);
            let root = json!({"type": "object", "properties": {"spec": spec, "status": status}});
            let with_status = rng.one_in(2);
            let mut version = json!({"name": "v1", "served": true, "storage": true, "schema": {"openAPIV3Schema": root}});
            if with_status {
                version["subresources"] = json!({"status": {}});
            }
            let crd = json!({
                "apiVersion": "apiextensions.k8s.io/v1",
                "kind": "CustomResourceDefinition",
                "metadata": {"name": "things.fuzz.crdls.dev"},
                "spec": {"group": "fuzz.crdls.dev", "scope": "Namespaced",
                         "names": {"kind": "Thing", "plural": "things", "singular": "thing", "listKind": "ThingList"},
                         "versions": [version]},
            });
            let object = json!({
                "apiVersion": "fuzz.crdls.dev/v1",
                "kind": "Thing",
                "metadata": {"name": "thing-a"},
                "spec": value_for(&mut rng, &crd["spec"]["versions"][0]["schema"]["openAPIV3Schema"]["properties"]["spec"], 3),
            });
            write(&[crd, object], false)
        })
        .collect()
}

const NAMES: &[&str] = &["a", "b", "name", "port", "mode", "size", "items", "tags", "key", "value", "when", "ref"];
const FORMATS: &[&str] = &[
    "date-time",
    "date",
    "int32",
    "int64",
    "byte",
    "uuid",
    "email",
    "hostname",
    "ipv4",
    "ipv6",
    "cidr",
    "duration",
    "uri",
    "password",
    "float",
    "double",
    "mac",
    "uri-reference",
    "bsonobjectid",
    "isbn",
    "creditcard",
    "ssn",
    "hexcolor",
    "rgbcolor",
    "unknown-format",
];
const STRINGS: &[&str] = &[
    "",
    "a",
    "abc",
    "Abc-1",
    "2024-01-01T00:00:00Z",
    "2024-01-01",
    "2024-13-45",
    "1.2.3.4",
    "::1",
    "10.0.0.0/8",
    "a@b.c",
    "5m",
    "1h30m",
    "x y",
    "0",
    "-1",
    "aGk=",
    "not base64!",
    "http://x/y",
    "00000000-0000-0000-0000-000000000000",
    "0a:1b:2c:3d:4e:5f",
    "very-long-string-value-that-goes-on-and-on-and-on-for-a-while-0123456789",
    "ünïcode",
    "true",
    "null",
    "a\nb",
];
const PATTERNS: &[&str] = &["^[a-z]+$", "^[0-9]{1,3}$", "a|b", "^$", "^(", "\\d+", "^[a-z0-9]([-a-z0-9]*[a-z0-9])?$"];

fn scalar(rng: &mut Rng) -> Value {
    match rng.below(9) {
        0 => Value::Null,
        1 => json!(rng.one_in(2)),
        2 => json!(rng.below(10) as i64 - 3),
        3 => json!(*rng.pick(&[2147483648_i64, -2147483649, 9007199254740993, i64::MAX, 1000000])),
        4 => json!(*rng.pick(&[0.5, -1.5, 1e300, 3.0])),
        5 => json!([]),
        6 => json!({}),
        _ => json!(*rng.pick(STRINGS)),
    }
}

fn gen_schema(rng: &mut Rng, depth: usize) -> Value {
    let kind = if depth == 0 { rng.below(5) } else { rng.below(8) };
    let mut s = Map::new();
    match kind {
        0 | 1 => {
            s.insert("type".into(), json!("string"));
            match rng.below(6) {
                0 => _ = s.insert("format".into(), json!(*rng.pick(FORMATS))),
                1 => _ = s.insert("enum".into(), json!(["a", "b", "abc"])),
                2 => _ = s.insert("pattern".into(), json!(*rng.pick(PATTERNS))),
                3 => _ = s.insert("maxLength".into(), json!(rng.below(6))),
                4 => _ = s.insert("minLength".into(), json!(rng.below(3))),
                _ => {}
            }
        }
        2 => {
            s.insert("type".into(), json!("integer"));
            if rng.one_in(2) {
                s.insert("minimum".into(), json!(0));
            }
            if rng.one_in(2) {
                s.insert("maximum".into(), json!(rng.below(100)));
            }
            if rng.one_in(3) {
                s.insert("format".into(), json!(*rng.pick(&["int32", "int64"])));
            }
        }
        3 => {
            s.insert("type".into(), json!(*rng.pick(&["number", "boolean"])));
        }
        4 => {
            s.insert("x-kubernetes-int-or-string".into(), json!(true));
        }
        5 | 6 => {
            s.insert("type".into(), json!("object"));
            let mut props = Map::new();
            for _ in 0..1 + rng.below(4) {
                props.insert((*rng.pick(NAMES)).to_string(), gen_schema(rng, depth - 1));
            }
            if rng.one_in(3) {
                let first = props.keys().next().cloned().unwrap_or_default();
                s.insert("required".into(), json!([first]));
            }
            if rng.one_in(6) {
                s.insert("x-kubernetes-preserve-unknown-fields".into(), json!(true));
            }
            s.insert("properties".into(), Value::Object(props));
        }
        _ => {
            s.insert("type".into(), json!("array"));
            match rng.below(4) {
                0 => {
                    s.insert("x-kubernetes-list-type".into(), json!("map"));
                    s.insert("x-kubernetes-list-map-keys".into(), json!(["name"]));
                    s.insert(
                        "items".into(),
                        json!({"type": "object", "required": ["name"], "properties": {"name": {"type": "string"}, "value": gen_schema(rng, 0)}}),
                    );
                }
                1 => {
                    s.insert("x-kubernetes-list-type".into(), json!("set"));
                    s.insert("items".into(), json!({"type": *rng.pick(&["string", "integer"])}));
                }
                _ => {
                    s.insert("items".into(), gen_schema(rng, depth - 1));
                }
            }
            if rng.one_in(3) {
                s.insert("maxItems".into(), json!(rng.below(4)));
            }
        }
    }
    let mut s = Value::Object(s);
    if rng.one_in(4) {
        add_rule(rng, &mut s);
    }
    s
}

/// A value for `schema`, mostly valid, sometimes not.
fn value_for(rng: &mut Rng, schema: &Value, depth: usize) -> Value {
    if rng.one_in(12) || depth == 0 {
        return scalar(rng);
    }
    if let Some(options) = schema["enum"].as_array().filter(|o| !o.is_empty()) {
        if !rng.one_in(4) {
            return rng.pick(options).clone();
        }
    }
    if schema["x-kubernetes-int-or-string"] == true {
        return if rng.one_in(2) { json!(rng.below(100)) } else { json!(*rng.pick(&["50%", "a", "1"])) };
    }
    match schema["type"].as_str() {
        Some("object") => {
            let mut map = Map::new();
            if let Some(props) = schema["properties"].as_object() {
                for (k, v) in props {
                    if !rng.one_in(4) {
                        map.insert(k.clone(), value_for(rng, v, depth - 1));
                    }
                }
            }
            if let Some(additional) = schema.get("additionalProperties").filter(|a| a.is_object()) {
                map.insert((*rng.pick(NAMES)).to_string(), value_for(rng, additional, depth - 1));
            }
            Value::Object(map)
        }
        Some("array") => {
            let n = rng.below(4);
            let items: Vec<Value> = (0..n).map(|_| value_for(rng, &schema["items"], depth - 1)).collect();
            Value::Array(items)
        }
        Some("integer") => json!(*rng.pick(&[0_i64, 1, 5, 42, 99, 100, -1])),
        Some("number") => json!(*rng.pick(&[0.5, 1.0, 2.0])),
        Some("boolean") => json!(rng.one_in(2)),
        Some("string") => json!(*rng.pick(STRINGS)),
        _ => scalar(rng),
    }
}

// ---------------------------------------------------------------------------------------------------
// CEL rules from a small grammar.

fn literal(rng: &mut Rng, of: &str) -> String {
    match of {
        "integer" => rng.pick(&["0", "1", "5", "100", "-1"]).to_string(),
        "number" => rng.pick(&["0.5", "1.0", "2.0"]).to_string(),
        "boolean" => rng.pick(&["true", "false"]).to_string(),
        "string" => rng.pick(&["'a'", "''", "'abc'", "'x y'"]).to_string(),
        _ => rng.pick(&["0", "'a'", "true", "[]", "null"]).to_string(),
    }
}

/// A rule about a node of type `of` reached by `at` (`self`, `self.a`, ...).
fn expression(rng: &mut Rng, at: &str, of: &str) -> String {
    let cmp = *rng.pick(&["==", "!=", "<", "<=", ">", ">="]);
    match (of, rng.below(6)) {
        ("integer" | "number", 0..=2) => format!("{at} {cmp} {}", literal(rng, of)),
        ("integer", 3) => format!("{at} % 2 == 0"),
        ("integer", 4) => format!("{at} / ({at} - {at}) == 0"),
        ("string", 0) => format!("{at}.startsWith('a')"),
        ("string", 1) => format!("{at}.matches('{}')", rng.pick(&["^[a-z]+$", "^a", "["])),
        ("string", 2) => format!("{at}.size() {cmp} {}", rng.below(6)),
        ("string", 3) => format!("{at} {cmp} {}", literal(rng, "string")),
        ("string", 4) => format!("isURL({at}) || {at} == ''"),
        ("array", 0) => format!("{at}.size() {cmp} {}", rng.below(4)),
        ("array", 1) => format!("{at}.all(x, x != {})", literal(rng, "")),
        ("array", 2) => format!("{at}.exists(x, x == {})", literal(rng, "")),
        ("array", 3) => format!("{at}[0] == {at}[{}]", rng.below(3)),
        ("boolean", _) => format!("{at} {} {}", rng.pick(&["==", "!="]), literal(rng, "boolean")),
        (_, 5) => format!("{at} == oldSelf{}", at.strip_prefix("self").unwrap_or_default()),
        _ => rng.pick(&["true", "false", "self == self", "1 / 0 == 0", "int('x') == 1"]).to_string(),
    }
}

/// Adds a rule to an object, array or scalar schema: about the node itself or one of its properties,
/// with a message, a message expression, a field path, a reason or `optionalOldSelf` now and then.
fn add_rule(rng: &mut Rng, schema: &mut Value) {
    let of = schema["type"].as_str().unwrap_or("").to_string();
    let props: Vec<(String, String)> = schema["properties"]
        .as_object()
        .map(|p| p.iter().map(|(k, v)| (k.clone(), v["type"].as_str().unwrap_or("").to_string())).collect())
        .unwrap_or_default();
    let mut rule = Map::new();
    let (text, field) = if of == "object" && !props.is_empty() && !rng.one_in(4) {
        let (name, t) = rng.pick(&props).clone();
        let body = expression(rng, &format!("self.{name}"), &t);
        let text = match rng.below(3) {
            0 => format!("!has(self.{name}) || {body}"),
            1 => format!("has(self.{name})"),
            _ => body,
        };
        (text, Some(name))
    } else if of == "object" {
        (rng.pick(&["size(self) <= 2", "self == oldSelf", "has(self.a)", "true"]).to_string(), None)
    } else {
        (expression(rng, "self", &of), None)
    };
    rule.insert("rule".into(), json!(text));
    if rng.one_in(3) {
        rule.insert("message".into(), json!(*rng.pick(&["must be fine", "", " ", "a\nb"])));
    }
    if rng.one_in(3) {
        let expr = *rng.pick(&["'bad value'", "''", "'a\\nb'", "string(1)", "1", "'x' + string(self)", "'n: ' + string(size(self))"]);
        rule.insert("messageExpression".into(), json!(expr));
    }
    if rng.one_in(4) {
        let path = match &field {
            Some(name) if !rng.one_in(3) => format!(".{name}"),
            _ => rng.pick(&[".nope", "spec", ".a.b", "['a']", ".a[0]"]).to_string(),
        };
        rule.insert("fieldPath".into(), json!(path));
    }
    if rng.one_in(5) {
        rule.insert(
            "reason".into(),
            json!(*rng.pick(&["FieldValueForbidden", "FieldValueRequired", "FieldValueDuplicate", "FieldValueInvalid", "Other"])),
        );
    }
    if rng.one_in(6) {
        rule.insert("optionalOldSelf".into(), json!(true));
    }
    if let Some(map) = schema.as_object_mut() {
        let rules = map.entry("x-kubernetes-validations").or_insert_with(|| json!([]));
        if let Some(list) = rules.as_array_mut() {
            list.push(Value::Object(rule));
        }
    }
}

// ---------------------------------------------------------------------------------------------------
// Mutation.

/// The JSON pointers of every schema node below `at` (properties, items, additionalProperties).
fn schema_pointers(value: &Value, at: String, out: &mut Vec<String>) {
    if !value.is_object() || out.len() > 400 {
        return;
    }
    out.push(at.clone());
    if let Some(props) = value["properties"].as_object() {
        for (k, v) in props {
            schema_pointers(v, format!("{at}/properties/{}", k.replace('~', "~0").replace('/', "~1")), out);
        }
    }
    schema_pointers(&value["items"], format!("{at}/items"), out);
    schema_pointers(&value["additionalProperties"], format!("{at}/additionalProperties"), out);
}

/// The JSON pointers of every value below `at`.
fn value_pointers(value: &Value, at: String, out: &mut Vec<String>) {
    if out.len() > 400 {
        return;
    }
    out.push(at.clone());
    match value {
        Value::Object(map) => {
            for (k, v) in map {
                value_pointers(v, format!("{at}/{}", k.replace('~', "~0").replace('/', "~1")), out);
            }
        }
        Value::Array(items) => {
            for (i, v) in items.iter().enumerate() {
                value_pointers(v, format!("{at}/{i}"), out);
            }
        }
        _ => {}
    }
}

/// The schema of the object's version, as a pointer into the CRD.
fn version_schema(crd: &Value, object: &Value) -> Option<String> {
    let version = object["apiVersion"].as_str()?.rsplit('/').next()?;
    let versions = crd["spec"]["versions"].as_array()?;
    let i = versions.iter().position(|v| v["name"] == version)?;
    Some(format!("/spec/versions/{i}/schema/openAPIV3Schema"))
}

fn mutate_schema(rng: &mut Rng, crd: &mut Value, root: &str) {
    let mut pointers = Vec::new();
    schema_pointers(crd.pointer(root).unwrap_or(&Value::Null), root.to_string(), &mut pointers);
    if pointers.is_empty() {
        return;
    }
    let at = rng.pick(&pointers).clone();
    let Some(node) = crd.pointer_mut(&at) else { return };
    let Some(map) = node.as_object_mut() else { return };
    let choice = rng.below(16);
    let (key, value): (&str, Value) = match choice {
        0 => ("type", json!(*rng.pick(&["string", "integer", "number", "boolean", "object", "array"]))),
        1 => ("format", json!(*rng.pick(FORMATS))),
        2 => (*rng.pick(&["minimum", "maximum"]), json!(*rng.pick(&[0, 1, 10, -5]))),
        3 => (*rng.pick(&["exclusiveMinimum", "exclusiveMaximum", "nullable", "uniqueItems"]), json!(true)),
        4 => (*rng.pick(&["minLength", "maxLength", "minItems", "maxItems", "minProperties", "maxProperties"]), json!(rng.below(4))),
        5 => ("pattern", json!(*rng.pick(PATTERNS))),
        6 => ("enum", json!([scalar(rng), scalar(rng)])),
        7 => ("x-kubernetes-list-type", json!(*rng.pick(&["atomic", "set", "map", "other"]))),
        8 => ("x-kubernetes-list-map-keys", json!([*rng.pick(NAMES)])),
        9 => ("default", scalar(rng)),
        10 => ("x-kubernetes-preserve-unknown-fields", json!(rng.one_in(2))),
        11 => ("x-kubernetes-int-or-string", json!(true)),
        12 => ("required", json!([*rng.pick(NAMES)])),
        13 => ("additionalProperties", gen_schema(rng, 1)),
        14 => {
            add_rule(rng, node);
            return;
        }
        _ => {
            // Remove a keyword.
            let keys: Vec<String> = map.keys().cloned().collect();
            if !keys.is_empty() {
                let k = rng.pick(&keys).clone();
                map.remove(&k);
            }
            return;
        }
    };
    map.insert(key.to_string(), value);
}

fn mutate_value(rng: &mut Rng, object: &mut Value, crd: &Value) {
    let mut pointers = Vec::new();
    value_pointers(object, String::new(), &mut pointers);
    pointers.retain(|p| p.starts_with("/spec") || p.starts_with("/status") || (p.starts_with("/metadata") && rng.one_in(8)));
    if pointers.is_empty() {
        if let Some(map) = object.as_object_mut() {
            map.insert("spec".into(), json!({}));
        }
        return;
    }
    let at = rng.pick(&pointers).clone();
    // The schema of the node, followed along properties and items.
    let schema = version_schema(crd, object).and_then(|root| {
        let mut s = crd.pointer(&root)?;
        for step in at.split('/').skip(1) {
            s = if let Some(p) = s["properties"].get(step) {
                p
            } else if step.parse::<usize>().is_ok() && s.get("items").is_some() {
                &s["items"]
            } else {
                s.get("additionalProperties").filter(|a| a.is_object())?
            };
        }
        Some(s.clone())
    });
    let Some(node) = object.pointer_mut(&at) else { return };
    match rng.below(6) {
        0 | 1 => {
            *node = match schema {
                Some(s) => value_for(rng, &s, 3),
                None => scalar(rng),
            }
        }
        2 => *node = scalar(rng),
        3 => {
            if let Some(map) = node.as_object_mut() {
                map.insert((*rng.pick(NAMES)).to_string(), scalar(rng));
            } else if let Some(items) = node.as_array_mut() {
                if let Some(first) = items.first().cloned() {
                    items.push(first);
                }
            }
        }
        _ => {
            // Remove the node from its parent.
            let (parent, last) = at.rsplit_once('/').unwrap_or(("", ""));
            match object.pointer_mut(parent) {
                Some(Value::Object(map)) => _ = map.remove(&last.replace("~1", "/").replace("~0", "~")),
                Some(Value::Array(items)) => {
                    if let Ok(i) = last.parse::<usize>() {
                        if i < items.len() {
                            items.remove(i);
                        }
                    }
                }
                _ => {}
            }
        }
    }
}

/// The documents of an input as JSON values, and whether its object names `/status`.
fn read(input: &str) -> Option<(Vec<Value>, bool)> {
    let stream = crdls_yaml::parse(input);
    let docs = document_texts(&stream)?;
    let status = docs.texts.get(1).is_some_and(|t| crdls_check::subresource_directive(t) == Some(crdls_check::Subresource::Status));
    let values: Option<Vec<Value>> = docs.texts.iter().map(|t| json_of(t)).collect();
    values.filter(|v| v.len() >= 2).map(|v| (v, status))
}

/// Writes documents back as a stream of JSON documents (YAML reads JSON).
fn write(docs: &[Value], status: bool) -> String {
    let mut out = String::new();
    for (i, doc) in docs.iter().enumerate() {
        if i > 0 {
            out.push_str("---\n");
        }
        if i == 1 && status {
            out.push_str("# crdls: subresource=status\n");
        }
        out.push_str(&serde_json::to_string_pretty(doc).unwrap_or_default());
        out.push('\n');
    }
    out
}

/// A mutant of `input`: a structural change (schema keyword, rule, value, stored object, status
/// subresource) of its documents, or, now and then, of its text.
pub fn mutate(rng: &mut Rng, input: &str, other: &str) -> String {
    let Some((mut docs, mut status)) = read(input).filter(|_| !rng.one_in(20)) else {
        return crate::mutate::mutate(rng, input, other, crate::mutate::Dialect::Yaml, MAX_LEN);
    };
    let root = version_schema(&docs[0], &docs[1]).unwrap_or_else(|| "/spec/versions/0/schema/openAPIV3Schema".to_string());
    for _ in 0..1 + rng.below(3) {
        match rng.below(12) {
            0..=3 => mutate_schema(rng, &mut docs[0], &root),
            4..=7 => {
                let crd = docs[0].clone();
                mutate_value(rng, &mut docs[1], &crd);
            }
            8 => {
                // An update: the object becomes the stored one and a mutant of it is sent.
                if docs.len() < 3 {
                    let old = docs[1].clone();
                    docs.push(old);
                    let crd = docs[0].clone();
                    mutate_value(rng, &mut docs[1], &crd);
                } else {
                    let crd = docs[0].clone();
                    mutate_value(rng, &mut docs[2], &crd);
                }
            }
            9 => {
                if docs.len() >= 3 {
                    status = !status;
                } else {
                    docs.truncate(2);
                }
            }
            10 => {
                // The status subresource on or off.
                if let Some(version) = docs[0].pointer_mut(&root.replace("/schema/openAPIV3Schema", "")) {
                    if version.get("subresources").is_some() {
                        version.as_object_mut().map(|m| m.remove("subresources"));
                    } else {
                        version["subresources"] = json!({"status": {}});
                    }
                }
            }
            _ => {
                docs.truncate(2);
                status = false;
            }
        }
    }
    let text = write(&docs, status && docs.len() >= 3);
    if text.len() > MAX_LEN {
        return input.to_string();
    }
    text
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn generated_seeds_are_a_crd_and_an_object_that_read_back() {
        for seed in generated(7, 20) {
            let (docs, status) = read(&seed).expect("a generated seed reads back");
            assert_eq!(docs.len(), 2);
            assert!(!status);
            assert_eq!(docs[0]["kind"], "CustomResourceDefinition");
            assert_eq!(docs[1]["kind"], "Thing");
        }
    }

    #[test]
    fn mutants_stay_a_crd_and_objects_mostly() {
        let seeds = generated(3, 5);
        let mut rng = Rng::new(11);
        let mut structured = 0;
        for i in 0..200 {
            let m = mutate(&mut rng, &seeds[i % seeds.len()], &seeds[0]);
            if read(&m).is_some() {
                structured += 1;
            }
        }
        assert!(structured > 150, "{structured} of 200 mutants still read as documents");
    }

    #[test]
    fn placeholders_are_found_in_keys_and_values() {
        assert!(has_placeholder(&json!({"spec": {"host": "${HOST}"}})));
        assert!(has_placeholder(&json!({"spec": {"host": "{GATEWAY_NAME}"}})));
        assert!(!has_placeholder(&json!({"spec": {"host": "{a}", "b": "plain"}})));
    }

    fn excepted_by(kind: &'static str, difference: &str) -> Option<&'static str> {
        let (crd, object) = (json!({}), json!({}));
        let case = Case { kind, crd: &crd, object: &object, difference };
        EXCEPTIONS.iter().find(|e| (e.applies)(&case)).map(|e| e.name)
    }

    #[test]
    fn the_self_type_s_clock_number_is_excepted_and_nothing_else() {
        let rule = "x.rule: Invalid value: {}: compilation failed: ERROR: <input>:1:15: found no matching overload for '_!=_' applied to";
        let same = format!(
            "only the oracle: {rule} '(selfType428345805.@idx, string)'\n | self.all(x, x != 'a')\n | ..............^\n\
             only crdls:      {rule} '(Object.@idx, string)'\n | self.all(x, x != 'a')\n | ..............^"
        );
        assert_eq!(excepted_by("crd", &same), Some("self-type-name"));
        let other = format!("only the oracle: {rule} '(selfType428345805.@idx, string)'\nonly crdls:      {rule} '(Object.@idx, int)'");
        assert_eq!(excepted_by("crd", &other), None);
        assert_eq!(excepted_by("crd", &format!("crdls accepts, the oracle rejects\n{same}")), None);
        // A message of several errors: each `ERROR:` line continues its side.
        let two = format!(
            "only the oracle: {rule} '(selfType428345805, !error!)'\n | self / (self - self)\nERROR: <input>:1:9: found no matching overload for '_-_' applied to '(selfType428345805, selfType428345805)'\n\
             only crdls:      {rule} '(Object, !error!)'\n | self / (self - self)\nERROR: <input>:1:9: found no matching overload for '_-_' applied to '(Object, Object)'"
        );
        assert_eq!(excepted_by("crd", &two), Some("self-type-name"));
        assert_eq!(excepted_by("crd", &two.replacen("'(Object, Object)'", "'(Object, int)'", 1)), None);
    }

    #[test]
    fn a_quoted_object_with_system_fields_is_excepted() {
        let difference =
            "only the oracle: <nil>: Unsupported value: {\"apiVersion\":\"a/v1\",\"metadata\":{\"uid\":\"x\"}}: supported values: \"0\"\n\
                          only crdls:      <nil>: Unsupported value: {\"apiVersion\":\"a/v1\"}: supported values: \"0\"";
        assert_eq!(excepted_by("cr", difference), Some("system-fields-in-a-quoted-object"));
        assert_eq!(
            excepted_by("cr", "only the oracle: <nil>: Unsupported value: {\"apiVersion\":\"a/v1\"}: supported values: \"0\""),
            None
        );
    }

    #[test]
    fn an_overlong_implicit_key_is_excepted_and_nothing_else() {
        let refused = "only the oracle: (rejected) yaml: did not find expected ',' or '}'\n\
                       only crdls:      metadata.name: Required value: name or generateName is required";
        let crd = json!({});
        let excepted = |object: &Value, difference: &str| {
            let case = Case { kind: "cr", crd: &crd, object, difference };
            EXCEPTIONS.iter().find(|e| (e.applies)(&case)).map(|e| e.name)
        };
        // 1,021 characters, two of them quotes: 1,025 written as JSON.
        let quoted = format!("{}\"a\"", "é".repeat(1018));
        assert_eq!(excepted(&json!({"spec": {quoted.as_str(): 1}}), refused), Some("overlong-implicit-key"));
        // 1,022 written as JSON is a key go-yaml takes; another refusal of the oracle is not this.
        assert_eq!(excepted(&json!({"spec": {"é".repeat(1020): 1}}), refused), None);
        let other = format!("{refused}\nonly the oracle: spec.a: Invalid value: 1: must be a string");
        assert_eq!(excepted(&json!({"spec": {quoted.as_str(): 1}}), &other), None);
    }

    #[test]
    fn wrong_typed_data_a_rule_reads_is_excepted_and_nothing_else() {
        let invalid = "crdls accepts, the oracle rejects\n\
                       only the oracle: spec: Invalid value: \"object\": invalid data, expected string, got int64 evaluating rule: has(self.tags)";
        assert_eq!(excepted_by("cr", invalid), Some("wrong-typed-data-in-rules"));
        let byte =
            "only the oracle: spec.ref: Invalid value: \"string\": Invalid byte formatted string 2024-13-45: illegal base64 data at \
                    input byte 8 evaluating rule: self.size() < 4";
        assert_eq!(excepted_by("cr", byte), Some("wrong-typed-data-in-rules"));
        let failed = "crdls accepts, the oracle rejects\nonly the oracle: spec: Invalid value: \"object\": failed rule: has(self.tags)";
        assert_eq!(excepted_by("cr", failed), None);
        assert_eq!(excepted_by("crd", invalid), None);
        // crdls's rule meets the string as it is, at the same node (seed 1 at 5,251); not elsewhere.
        let overload = "only the oracle: spec: Invalid value: \"object\": invalid data, expected int, got string evaluating rule: \
                        self.a < self.b\n\
                        only crdls:      spec: Invalid value: \"object\": 'no such overload': call arguments did not match a \
                        supported operator, function or macro signature for rule: self.a < self.b";
        assert_eq!(excepted_by("cr", overload), Some("wrong-typed-data-in-rules"));
        assert_eq!(excepted_by("cr", &overload.replace("only crdls:      spec:", "only crdls:      spec.x:")), None);
        let alone = overload.lines().nth(1).unwrap_or_default().trim_start();
        assert_eq!(excepted_by("cr", alone), None);
    }

    #[test]
    fn further_decode_refusals_of_crdls_are_excepted_and_nothing_else() {
        let refusal = "only crdls:      (rejected) spec.t.metadata: Invalid value: 5: json: cannot unmarshal number into Go value of type v1.ObjectMeta";
        assert_eq!(excepted_by("cr", refusal), Some("object-decode-stops-at-first-error"));
        let other = format!("{refusal}\nonly the oracle: (rejected) spec.u.kind: Invalid value: 1: must be a string");
        assert_eq!(excepted_by("cr", &other), None);
    }

    #[test]
    fn an_unserved_version_is_excepted_with_what_else_crdls_finds() {
        let (crd, object) = (json!({}), json!({"apiVersion": "a/v1", "kind": "K"}));
        let case = |difference| Case { kind: "cr", crd: &crd, object: &object, difference };
        let excepted = |c: &Case| EXCEPTIONS.iter().find(|e| (e.applies)(c)).map(|e| e.name);
        let unserved = "only the oracle: (rejected) the CRD ks.a does not serve version v1\n\
                        only crdls:      metadata.name: Required value: name or generateName is required\n\
                        only crdls:      no matches for kind \"K\" in version \"a/v1\"";
        assert_eq!(excepted(&case(unserved)), Some("unserved-version-wording"));
        // Another refusal of the oracle, or a different verdict, is not about the version.
        assert_eq!(excepted(&case("only the oracle: (rejected) json: cannot unmarshal number into Go value of type v1.ObjectMeta")), None);
        assert_eq!(
            excepted(&case("crdls accepts, the oracle rejects\nonly the oracle: (rejected) the CRD ks.a does not serve version v1")),
            None
        );
    }

    #[test]
    fn what_a_reference_leaves_out_is_excepted_and_nothing_else() {
        let (crd, reference) = (json!({}), json!({"apiVersion": "a/v1", "kind": "K", "metadata": {"name": "x"}, "spec": {}}));
        let required =
            "crdls accepts, the oracle rejects\nonly the oracle: metadata.name: Required value: name or generateName is required\n\
                        only the oracle: <nil>: Invalid value: null: some validation rules were not checked because the object was \
                        invalid; correct the existing errors to complete validation";
        let case = |object, difference| Case { kind: "cr", crd: &crd, object, difference };
        let excepted = |c: &Case| EXCEPTIONS.iter().find(|e| (e.applies)(c)).map(|e| e.name);
        assert_eq!(excepted(&case(&reference, required)), Some("reference-documents-are-partial"));
        let rule = "crdls accepts, the oracle rejects\nonly the oracle: spec: Invalid value: \"object\": failed rule: has(self.tags)";
        assert_eq!(excepted(&case(&reference, rule)), Some("reference-documents-are-partial"));
        let with_spec = json!({"apiVersion": "a/v1", "kind": "K", "metadata": {"name": "x"}, "spec": {"a": 1}});
        assert_eq!(excepted(&case(&with_spec, required)), None);
        // An empty name names nothing: such a document is checked whole.
        let unnamed = json!({"apiVersion": "a/v1", "kind": "K", "metadata": {"name": ""}, "spec": {}});
        assert_eq!(excepted(&case(&unnamed, required)), None);
        // What crdls alone finds, or the oracle outside spec, is not what the reference leaves out.
        assert_eq!(excepted(&case(&reference, "only crdls:      spec: Invalid value: \"object\": failed rule: has(self.tags)")), None);
        assert_eq!(excepted(&case(&reference, "only the oracle: metadata.labels: Invalid value: \"-\": must be valid")), None);
        // The name picks the object referred to (seed 1 at 1,308, a name `e"`).
        let name =
            "crdls accepts, the oracle rejects\nonly the oracle: metadata.name: Invalid value: \"e\\\"\": a lowercase RFC 1123 subdomain";
        assert_eq!(excepted(&case(&reference, name)), Some("reference-documents-are-partial"));
        assert_eq!(excepted(&case(&with_spec, name)), None);
        // A root enum both report, each quoting the object as it holds it, comes along with the note.
        let quoted = "only the oracle: some validation rules were not checked because the object was invalid\n\
                      only the oracle: <nil>: Unsupported value: {\"apiVersion\":\"a/v1\",\"metadata\":{\"uid\":\"u\"}}: supported values: \"[]\"\n\
                      only crdls:      <nil>: Unsupported value: {\"apiVersion\":\"a/v1\"}: supported values: \"[]\"";
        assert_eq!(excepted(&case(&reference, quoted)), Some("reference-documents-are-partial"));
        let unmatched = "only the oracle: some validation rules were not checked because the object was invalid\n\
                         only crdls:      <nil>: Unsupported value: {\"apiVersion\":\"a/v1\"}: supported values: \"[]\"";
        assert_eq!(excepted(&case(&reference, unmatched)), None);
    }
}
