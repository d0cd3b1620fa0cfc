//! `crdls-bench peers`: crdls beside a real peer, kubectl-validate (`sigs.k8s.io/kubectl-validate`),
//! over the repositories of the ecosystem check, compared object by object (see
//! `docs/src/ecosystem-check.md`, "Against a peer: kubectl-validate").
//!
//! For each repository, the driver:
//! 1. runs `crdls check . --format json` in it, as the ecosystem check does;
//! 2. finds the files crdls reads as whole objects (a walk and the file roles of `crdls-workspace`,
//!    the library `crdls check` uses: modes `Objects` and `Assembled`; patches, templates, test
//!    steps, assertions and test inputs are partial on purpose and left out);
//! 3. collects the CRDs those files and the rest of the walk define (plain YAML only: a Helm
//!    template's CRD cannot be decoded by the peer), one file each into a directory for
//!    `--local-crds`, leaving out any the peer cannot load; kinds defined differently in several
//!    places are noted, since crdls picks a definition per object and the peer takes one for all;
//! 4. runs kubectl-validate on those files, in batches, with the built-in schemas of the release
//!    crdls targets (`--local-schemas`, laid out from the `api/openapi-spec/v3` documents of the
//!    `k8s.io/kubernetes` module) and no cluster (an empty `KUBECONFIG`);
//! 5. joins both per object, the document as kubectl's YAML reader splits the file, and counts
//!    agreements, rejects of the peer alone (candidate missed errors) and of crdls alone (checked
//!    against the ledger of judged errors), by class.
//!
//! crdls never runs the peer: this is test tooling, run by a developer on repositories they chose.

use std::collections::{BTreeMap, BTreeSet};
use std::fmt::Write as _;
use std::io::Read as _;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::sync::Arc;
use std::time::{Duration, Instant};

use crdls_check::FileMode;
use crdls_workspace::files::WalkOptions;
use crdls_workspace::roles::{Roles, Workspace};

use crate::ecosystem::{clean, message_hash, read_ledger, read_repo_list, ErrorKey, Repo, Verdict};

struct Options {
    crdls: PathBuf,
    peer: PathBuf,
    schemas: Option<PathBuf>,
    repos_dir: PathBuf,
    list: PathBuf,
    ledger: PathBuf,
    out: PathBuf,
    halves: Vec<String>,
    only: Vec<String>,
    timeout: Duration,
    verbose: bool,
}

const USAGE: &str = "usage: crdls-bench peers [--crdls BIN] [--peer KUBECTL_VALIDATE] [--schemas OPENAPI_V3_DIR] \
[--repos DIR] [--list FILE] [--ledger FILE] [--out DIR] [--half NAME]... [--only owner/name]... [--timeout SECS] [--verbose]";

/// The peer's output read per run is bounded: past this, the batch counts as failed.
const MAX_PEER_OUTPUT: u64 = 64 * 1024 * 1024;
/// Files per run of the peer (its command line stays short; one bad batch loses little).
const BATCH: usize = 200;

fn parse_options(args: impl Iterator<Item = String>) -> Result<Options, String> {
    let target = std::env::var_os("CARGO_TARGET_DIR").map_or_else(|| PathBuf::from("target"), PathBuf::from);
    let gopath = std::env::var_os("GOPATH").map(PathBuf::from).or_else(|| std::env::var_os("HOME").map(|h| PathBuf::from(h).join("go")));
    let mut options = Options {
        crdls: target.join("release/crdls"),
        peer: gopath.map_or_else(|| PathBuf::from("kubectl-validate"), |g| g.join("bin/kubectl-validate")),
        schemas: None,
        repos_dir: std::env::var_os("CRDLS_ECOSYSTEM_REPOS").map_or_else(|| PathBuf::from("../eco-repos"), PathBuf::from),
        list: PathBuf::from("tests/ecosystem/repos.toml"),
        ledger: PathBuf::from("tests/ecosystem/ledger.tsv"),
        out: target.join("peers"),
        halves: Vec::new(),
        only: Vec::new(),
        timeout: Duration::from_secs(600),
        verbose: false,
    };
    let mut args = args.peekable();
    while let Some(arg) = args.next() {
        let mut value = |name: &str| args.next().ok_or_else(|| format!("{name} needs a value\n{USAGE}"));
        match arg.as_str() {
            "--crdls" => options.crdls = value("--crdls")?.into(),
            "--peer" => options.peer = value("--peer")?.into(),
            "--schemas" => options.schemas = Some(value("--schemas")?.into()),
            "--repos" => options.repos_dir = value("--repos")?.into(),
            "--list" => options.list = value("--list")?.into(),
            "--ledger" => options.ledger = value("--ledger")?.into(),
            "--out" => options.out = value("--out")?.into(),
            "--half" => options.halves.push(value("--half")?),
            "--only" => options.only.push(value("--only")?),
            "--timeout" => {
                let secs: u64 = value("--timeout")?.parse().map_err(|_| "--timeout takes whole seconds".to_string())?;
                options.timeout = Duration::from_secs(secs.max(1));
            }
            "--verbose" | "-v" => options.verbose = true,
            "--help" | "-h" => return Err(USAGE.to_string()),
            other => return Err(format!("unknown argument {other:?}\n{USAGE}")),
        }
    }
    if options.halves.is_empty() {
        // The halves already read while tuning; the fresh ones stay held out unless named.
        options.halves = vec!["tune".into(), "held-out".into()];
    }
    if options.schemas.is_none() {
        options.schemas = default_schemas(&target);
    }
    Ok(options)
}

/// The `api/openapi-spec/v3` directory of the `k8s.io/kubernetes` module of the newest release crdls
/// ships, where the built-in schemas' generator downloads it (`server/crdls-builtins/update.sh`).
fn default_schemas(target: &Path) -> Option<PathBuf> {
    let newest = crdls_builtins::newest().to_string();
    let releases = std::fs::read_to_string("server/crdls-builtins/data/kubernetes-releases.txt").ok()?;
    let module = releases.lines().filter(|l| !l.starts_with('#')).find_map(|l| {
        let mut fields = l.split_whitespace();
        (fields.next()? == newest).then(|| fields.next().map(str::to_string))?
    })?;
    Some(target.join(format!("kubernetes-modules/gomod/k8s.io/kubernetes@{module}/api/openapi-spec/v3")))
}

/// Lays the upstream documents (`api__v1_openapi.json`, `apis__apps__v1_openapi.json`) out as the
/// peer's `--local-schemas` wants them (`api/v1.json`, `apis/apps/v1.json`); returns how many.
fn lay_out_schemas(from: &Path, to: &Path) -> std::io::Result<usize> {
    let mut n = 0;
    for entry in std::fs::read_dir(from)? {
        let name = entry?.file_name().to_string_lossy().to_string();
        let Some(target) = schema_target(&name) else { continue };
        let target = to.join(target);
        if let Some(parent) = target.parent() {
            std::fs::create_dir_all(parent)?;
        }
        std::fs::copy(from.join(&name), target)?;
        n += 1;
    }
    Ok(n)
}

/// Where an upstream OpenAPI v3 document goes in the peer's layout.
fn schema_target(name: &str) -> Option<String> {
    let stem = name.strip_suffix("_openapi.json")?;
    if let Some(version) = stem.strip_prefix("api__") {
        return Some(format!("api/{version}.json"));
    }
    let rest = stem.strip_prefix("apis__")?;
    let (group, version) = rest.split_once("__")?;
    Some(format!("apis/{group}/{version}.json"))
}

/// One document of a file as kubectl's YAML reader splits it: a line that starts with `---` and
/// has nothing after it but blanks or a comment ends a document, and an empty document is dropped.
#[derive(Debug, Clone, PartialEq, Eq)]
struct Chunk {
    /// 1-based first and last line.
    first: u32,
    last: u32,
    /// Byte offsets in the file.
    start: usize,
    end: usize,
    /// Only comments and blanks: the peer counts it and says nothing.
    empty: bool,
}

/// The documents of `text` as the peer numbers them; `None` when the reader refuses the file (a
/// separator line with text after it), for which the peer gives one error for the whole file.
fn split_documents(text: &str, json: bool) -> Option<Vec<Chunk>> {
    let is_empty = |s: &str| s.lines().all(|l| l.trim().is_empty() || l.trim_start().starts_with('#'));
    if json {
        let lines = u32::try_from(text.lines().count().max(1)).unwrap_or(u32::MAX);
        return Some(vec![Chunk { first: 1, last: lines, start: 0, end: text.len(), empty: text.trim().is_empty() }]);
    }
    let mut chunks = Vec::new();
    let (mut start, mut first) = (0usize, 1u32);
    let mut offset = 0usize;
    let mut line_no = 0u32;
    for line in text.split_inclusive('\n') {
        line_no += 1;
        let line_start = offset;
        offset += line.len();
        let Some(rest) = line.strip_prefix("---") else { continue };
        let rest = rest.trim();
        if !rest.is_empty() && !rest.starts_with('#') {
            return None;
        }
        if line_start > start {
            let body = &text[start..line_start];
            chunks.push(Chunk { first, last: line_no - 1, start, end: line_start, empty: is_empty(body) });
        }
        start = offset;
        first = line_no + 1;
    }
    if text.len() > start {
        let body = &text[start..];
        chunks.push(Chunk { first, last: line_no.max(first), start, end: text.len(), empty: is_empty(body) });
    }
    Some(chunks)
}

/// What the peer said of one document.
#[derive(Debug, Clone, PartialEq, Eq)]
enum PeerVerdict {
    Accepts,
    /// It rejects the object: the causes (field path and message), or the whole message.
    Rejects(Vec<String>),
    /// It knows no schema for the object's group/version or kind: it can tell nothing.
    NoSchema(String),
    /// The document names no group, version or kind: not a Kubernetes object (a values file, a
    /// compose file), which crdls does not check either.
    NotAnObject,
}

/// The peer's JSON report: file -> one status per document.
fn parse_peer_output(text: &str) -> Result<BTreeMap<String, Vec<PeerVerdict>>, String> {
    let value: serde_json::Value = serde_json::from_str(text).map_err(|e| format!("not JSON: {e}"))?;
    let object = value.as_object().ok_or("not a JSON object")?;
    let mut out = BTreeMap::new();
    for (file, statuses) in object {
        let statuses = statuses.as_array().ok_or_else(|| format!("{file}: not a list"))?;
        out.insert(file.trim_start_matches("./").to_string(), statuses.iter().map(peer_verdict).collect());
    }
    Ok(out)
}

fn peer_verdict(status: &serde_json::Value) -> PeerVerdict {
    if status["status"].as_str() == Some("Success") {
        return PeerVerdict::Accepts;
    }
    let message = status["message"].as_str().unwrap_or("").to_string();
    // A values file, a compose file, a JSON list or string: no apiVersion and kind to read.
    let no_type_meta = message.contains("cannot unmarshal") && message.contains("TypeMeta");
    if message.contains("GVK cannot be empty") || message.contains("Object 'Kind' is missing") || no_type_meta {
        return PeerVerdict::NotAnObject;
    }
    if message.contains("failed to locate OpenAPI spec for GV") || (message.contains("not found in") && message.contains("groupversion")) {
        return PeerVerdict::NoSchema(message);
    }
    let causes: Vec<String> = status["details"]["causes"]
        .as_array()
        .into_iter()
        .flatten()
        .map(|c| {
            let field = c["field"].as_str().unwrap_or("");
            let text = c["message"].as_str().unwrap_or("");
            if field.is_empty() {
                text.to_string()
            } else {
                format!("{field}: {text}")
            }
        })
        .collect();
    PeerVerdict::Rejects(if causes.is_empty() { vec![message] } else { causes })
}

/// A class of a peer's cause, for counting: list indices, quoted values and numbers dropped.
fn cause_class(cause: &str) -> String {
    let mut out = String::new();
    let mut chars = cause.chars().peekable();
    while let Some(c) = chars.next() {
        match c {
            '[' if chars.peek().is_some_and(char::is_ascii_digit) => {
                while chars.peek().is_some_and(|c| *c != ']') {
                    chars.next();
                }
                chars.next();
                out.push_str("[]");
            }
            '"' => {
                for c in chars.by_ref() {
                    if c == '"' {
                        break;
                    }
                }
                out.push_str("\"…\"");
            }
            c if c.is_ascii_digit() => {
                while chars.peek().is_some_and(char::is_ascii_digit) {
                    chars.next();
                }
                out.push('N');
            }
            c => out.push(c),
        }
    }
    // A type error names the value's type; a long list of allowed values is cut.
    out.chars().take(140).collect()
}

/// An error of crdls, as read from its JSON report.
#[derive(Debug, Clone)]
struct CrdlsError {
    line: u32,
    code: String,
    message: String,
    /// An unknown field, a warning by default: kubectl's strict validation (and the peer) rejects it.
    strict_only: bool,
}

/// crdls's errors per file (and the unknown-field warnings, which strict validation makes errors).
fn parse_crdls_output(text: &str) -> Result<BTreeMap<String, Vec<CrdlsError>>, String> {
    let value: serde_json::Value = serde_json::from_str(text).map_err(|e| format!("not JSON: {e}"))?;
    let mut out: BTreeMap<String, Vec<CrdlsError>> = BTreeMap::new();
    for d in value["diagnostics"].as_array().into_iter().flatten() {
        let severity = d["severity"].as_str().unwrap_or("");
        let code = d["code"].as_str().unwrap_or("?");
        let strict_only = severity == "warning" && code == crdls_diagnostics::codes::SCHEMA_UNKNOWN_FIELD;
        if severity != "error" && !strict_only {
            continue;
        }
        let file = d["file"].as_str().unwrap_or("?").trim_start_matches("./").to_string();
        out.entry(file).or_default().push(CrdlsError {
            line: d["range"]["start"]["line"].as_u64().and_then(|l| u32::try_from(l).ok()).unwrap_or(0),
            code: code.to_string(),
            message: d["message"].as_str().unwrap_or("").to_string(),
            strict_only,
        });
    }
    Ok(out)
}

/// How the two compare on one object.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
enum Outcome {
    BothAccept,
    BothReject,
    /// The peer rejects, crdls accepts: a candidate missed error.
    PeerOnly,
    /// crdls rejects, the peer accepts.
    CrdlsOnly,
    /// The peer has no schema for it (crdls's verdict aside).
    PeerNoSchema,
    /// The peer reads no object in it.
    NotAnObject,
    /// Its kind is defined differently in several places: the peer's one definition may not be the
    /// one crdls chose for it.
    AmbiguousCrd,
}

/// One object compared.
#[derive(Debug, Clone)]
struct Compared {
    file: String,
    line: u32,
    kind: String,
    outcome: Outcome,
    peer: PeerVerdict,
    crdls: Vec<CrdlsError>,
}

/// Joins both reports over the documents of one file.
fn join_file(
    file: &str,
    text: &str,
    peer: &[PeerVerdict],
    crdls: &[CrdlsError],
    ambiguous: &BTreeSet<(String, String)>,
) -> Result<Vec<Compared>, String> {
    let json = file.ends_with(".json");
    let chunks = split_documents(text, json).ok_or("kubectl's reader refuses a separator line")?;
    // An empty file is one empty document to the peer.
    if chunks.iter().all(|c| c.empty) && peer.len() == 1 && chunks.len() <= 1 {
        return Ok(Vec::new());
    }
    if chunks.len() != peer.len() {
        return Err(format!("{} documents here, {} in the peer's report", chunks.len(), peer.len()));
    }
    let mut out = Vec::new();
    for (chunk, verdict) in chunks.iter().zip(peer) {
        if chunk.empty {
            continue;
        }
        let body = &text[chunk.start..chunk.end];
        let (group, kind) = group_kind(body);
        let errors: Vec<CrdlsError> = crdls.iter().filter(|e| e.line >= chunk.first && e.line <= chunk.last).cloned().collect();
        let crdls_rejects = !errors.is_empty();
        let outcome = match verdict {
            _ if ambiguous.contains(&(group.clone(), kind.clone())) => Outcome::AmbiguousCrd,
            PeerVerdict::NoSchema(_) => Outcome::PeerNoSchema,
            PeerVerdict::NotAnObject => Outcome::NotAnObject,
            PeerVerdict::Accepts if crdls_rejects => Outcome::CrdlsOnly,
            PeerVerdict::Accepts => Outcome::BothAccept,
            PeerVerdict::Rejects(_) if crdls_rejects => Outcome::BothReject,
            PeerVerdict::Rejects(_) => Outcome::PeerOnly,
        };
        out.push(Compared { file: file.to_string(), line: chunk.first, kind, outcome, peer: verdict.clone(), crdls: errors });
    }
    Ok(out)
}

/// The group and kind a document names at its top level (`apiVersion`, `kind`), plainly read.
fn group_kind(body: &str) -> (String, String) {
    let top = |key: &str| {
        body.lines().find_map(|l| l.strip_prefix(key).map(|v| v.trim().trim_matches(['"', '\'']).to_string())).unwrap_or_default()
    };
    let api_version = top("apiVersion:");
    let group = api_version.rsplit_once('/').map_or(String::new(), |(g, _)| g.to_string());
    (group, top("kind:"))
}

/// A CRD found in the repository, as given to the peer.
struct FoundCrd {
    group: String,
    kind: String,
    /// Where it is (relative path) and its document's text.
    file: String,
    text: String,
}

/// What the walk and the roles say of a repository.
#[derive(Default)]
struct RepoFiles {
    /// Files read as whole objects, relative to the repository, with their text.
    manifests: Vec<(String, String)>,
    /// How many files of each mode (the others are left out).
    modes: BTreeMap<String, usize>,
    crds: Vec<FoundCrd>,
}

fn mode_name(mode: &FileMode) -> &'static str {
    match mode {
        FileMode::Objects => "objects",
        FileMode::Assembled { .. } => "assembled by kustomize",
        FileMode::TestObjects { .. } => "test steps",
        FileMode::TestInputs => "test inputs",
        FileMode::Fragments => "test fragments",
        FileMode::Patches | FileMode::JsonPatches => "patches",
        FileMode::Assertions => "assertions",
        FileMode::Template { .. } => "templates",
    }
}

fn repo_files(dir: &Path) -> RepoFiles {
    let mut found = RepoFiles::default();
    let Ok(walk) = crdls_workspace::resolver::walk(dir, WalkOptions::default()) else { return found };
    let mut roles = Roles::of(Workspace::new([dir.to_path_buf()], dir, false));
    for path in &walk.files {
        let Ok(text) = crdls_workspace::files::read_text(path) else { continue };
        let relative = path.strip_prefix(dir).unwrap_or(path).display().to_string();
        let role = roles.role_of(path);
        let (_, mode) = role.parse(&text);
        *found.modes.entry(mode_name(&mode).to_string()).or_default() += 1;
        let templated = matches!(mode, FileMode::Template { .. });
        if !templated {
            let shared: Arc<str> = Arc::from(text.as_str());
            let reader: crdls_crd::TextReader = Arc::new(move || Some(shared.clone()));
            let crds = crdls_workspace::resolver::crds_of(&text, &role, reader);
            if !crds.is_empty() {
                let chunks = split_documents(&text, relative.ends_with(".json")).unwrap_or_default();
                for crd in crds {
                    let Some(chunk) =
                        chunks.iter().find(|c| c.start <= crd.kind_range.start && crd.kind_range.start < c.end.max(c.start + 1))
                    else {
                        continue;
                    };
                    found.crds.push(FoundCrd {
                        group: crd.group.clone(),
                        kind: crd.names.kind.clone(),
                        file: relative.clone(),
                        text: text[chunk.start..chunk.end].to_string(),
                    });
                }
            }
        }
        if matches!(mode, FileMode::Objects | FileMode::Assembled { .. }) {
            found.manifests.push((relative, text));
        }
    }
    found
}

/// The part of a CRD that decides what it accepts: from its top-level `spec:` on (labels and
/// annotations of copies differ harmlessly).
fn crd_spec(text: &str) -> &str {
    text.find("\nspec:").map_or(text, |i| &text[i..])
}

/// Kinds whose definitions differ between copies: crdls chooses one per object, the peer one for all.
fn ambiguous_kinds(crds: &[FoundCrd]) -> BTreeSet<(String, String)> {
    let mut specs: BTreeMap<(String, String), BTreeSet<&str>> = BTreeMap::new();
    for crd in crds {
        specs.entry((crd.group.clone(), crd.kind.clone())).or_default().insert(crd_spec(&crd.text));
    }
    specs.into_iter().filter(|(_, s)| s.len() > 1).map(|(k, _)| k).collect()
}

/// Runs a program with a deadline, its standard output bounded; `Err` says why it gave nothing.
fn run_bounded(mut command: Command, deadline: Instant, limit: u64) -> Result<(Option<i32>, String), String> {
    let mut child =
        command.stdin(Stdio::null()).stdout(Stdio::piped()).stderr(Stdio::null()).spawn().map_err(|e| format!("cannot start: {e}"))?;
    let stdout = child.stdout.take();
    let reader = std::thread::spawn(move || {
        let mut bytes = Vec::new();
        if let Some(stdout) = stdout {
            let _ = stdout.take(limit + 1).read_to_end(&mut bytes);
        }
        bytes
    });
    let status = loop {
        match child.try_wait() {
            Ok(Some(status)) => break status,
            Ok(None) if Instant::now() >= deadline => {
                let _ = child.kill();
                let _ = child.wait();
                return Err("timeout".into());
            }
            Ok(None) => std::thread::sleep(Duration::from_millis(20)),
            Err(e) => return Err(e.to_string()),
        }
    };
    let bytes = reader.join().unwrap_or_default();
    if bytes.len() as u64 > limit {
        return Err(format!("output over {limit} bytes"));
    }
    Ok((status.code(), String::from_utf8_lossy(&bytes).into_owned()))
}

/// The peer, set up for one repository.
struct Peer<'a> {
    binary: &'a Path,
    schemas: &'a Path,
    kubeconfig: &'a Path,
    crds: Option<PathBuf>,
}

impl Peer<'_> {
    fn command(&self, dir: &Path, files: &[&str]) -> Command {
        let mut command = Command::new(self.binary);
        // No version: the built-in schemas are the release's documents given as local schemas, and
        // an empty kubeconfig keeps any cluster out.
        command.args(["--version", "", "--local-schemas"]).arg(self.schemas).args(["-o", "json"]);
        if let Some(crds) = &self.crds {
            command.arg("--local-crds").arg(crds);
        }
        command.args(files).current_dir(dir).env("KUBECONFIG", self.kubeconfig);
        command
    }

    /// Whether the peer still accepts a plain ConfigMap with these CRDs loaded.
    fn loads(&self, dir: &Path, probe: &Path, deadline: Instant) -> bool {
        let command = self.command(dir, &[&probe.display().to_string()]);
        match run_bounded(command, deadline, MAX_PEER_OUTPUT) {
            Ok((_, out)) => parse_peer_output(&out).is_ok_and(|r| r.values().all(|v| v.iter().all(|v| *v == PeerVerdict::Accepts))),
            Err(_) => false,
        }
    }
}

/// Writes `crds` one per file under `to` and drops the ones the peer cannot load (halving the set
/// until each bad one is found); returns the files dropped.
fn write_crds(crds: &[FoundCrd], to: &Path, peer: &mut Peer<'_>, dir: &Path, probe: &Path, deadline: Instant) -> Vec<String> {
    let _ = std::fs::remove_dir_all(to);
    let mut seen = BTreeSet::new();
    let mut written: Vec<(PathBuf, &FoundCrd)> = Vec::new();
    for crd in crds {
        if !seen.insert(crd.text.as_str()) {
            continue;
        }
        let path = to.join(format!("{:05}.yaml", written.len()));
        written.push((path, crd));
    }
    let mut dropped = Vec::new();
    if written.is_empty() {
        peer.crds = None;
        return dropped;
    }
    // Bisect on sub-directories of the candidates until the bad ones are isolated.
    let try_set = |set: &[(PathBuf, &FoundCrd)], peer: &mut Peer<'_>, name: &str| -> bool {
        let sub = to.join(name);
        let _ = std::fs::remove_dir_all(&sub);
        let _ = std::fs::create_dir_all(&sub);
        for (path, crd) in set {
            let _ = std::fs::write(sub.join(path.file_name().unwrap_or_default()), &crd.text);
        }
        peer.crds = Some(sub);
        peer.loads(dir, probe, deadline)
    };
    let mut pending: Vec<Vec<(PathBuf, &FoundCrd)>> = vec![written.clone()];
    let mut good: Vec<(PathBuf, &FoundCrd)> = Vec::new();
    let mut round = 0;
    while let Some(set) = pending.pop() {
        round += 1;
        if Instant::now() >= deadline {
            dropped.extend(set.iter().map(|(_, c)| c.file.clone()));
            continue;
        }
        if try_set(&set, peer, &format!("try{round}")) {
            good.extend(set);
        } else if set.len() == 1 {
            dropped.push(set[0].1.file.clone());
        } else {
            let (a, b) = set.split_at(set.len() / 2);
            pending.push(a.to_vec());
            pending.push(b.to_vec());
        }
    }
    let all = to.join("crds");
    let _ = std::fs::create_dir_all(&all);
    for (path, crd) in &good {
        let _ = std::fs::write(all.join(path.file_name().unwrap_or_default()), &crd.text);
    }
    for entry in std::fs::read_dir(to).into_iter().flatten().flatten() {
        if entry.file_name().to_string_lossy().starts_with("try") {
            let _ = std::fs::remove_dir_all(entry.path());
        }
    }
    peer.crds = (!good.is_empty()).then_some(all);
    dropped
}

/// The comparison of one repository.
#[derive(Default)]
struct RepoComparison {
    status: String,
    objects: Vec<Compared>,
    modes: BTreeMap<String, usize>,
    crds: usize,
    crds_dropped: Vec<String>,
    ambiguous: usize,
    /// Files left out of the join, with why.
    unjoined: Vec<(String, String)>,
}

fn compare_repo(options: &Options, repo: &Repo, schemas: &Path, kubeconfig: &Path, probe: &Path) -> RepoComparison {
    let mut result = RepoComparison::default();
    let dir = options.repos_dir.join(repo.dir_name());
    if !dir.is_dir() {
        result.status = "absent".into();
        return result;
    }
    let dir = std::fs::canonicalize(&dir).unwrap_or(dir);
    let deadline = Instant::now() + options.timeout;
    let out_dir = options.out.join(repo.dir_name());
    let _ = std::fs::create_dir_all(&out_dir);

    let crdls = std::fs::canonicalize(&options.crdls).unwrap_or_else(|_| options.crdls.clone());
    let mut command = Command::new(crdls);
    command.args(["check", ".", "--format", "json"]).current_dir(&dir);
    let crdls_report = match run_bounded(command, deadline, MAX_PEER_OUTPUT) {
        Ok((Some(0 | 1), out)) => out,
        Ok((code, _)) => {
            result.status = format!("crdls-crashed({code:?})");
            return result;
        }
        Err(e) => {
            result.status = format!("crdls-{e}");
            return result;
        }
    };
    let _ = std::fs::write(out_dir.join("crdls.json"), &crdls_report);
    let crdls_errors = match parse_crdls_output(&crdls_report) {
        Ok(errors) => errors,
        Err(e) => {
            result.status = format!("crdls-unreadable({e})");
            return result;
        }
    };

    let files = repo_files(&dir);
    result.modes = files.modes.clone();
    let ambiguous = ambiguous_kinds(&files.crds);
    result.ambiguous = ambiguous.len();
    let mut peer = Peer { binary: &options.peer, schemas, kubeconfig, crds: None };
    result.crds_dropped = write_crds(&files.crds, &out_dir.join("crds"), &mut peer, &dir, probe, deadline);
    result.crds = files.crds.iter().map(|c| c.text.as_str()).collect::<BTreeSet<_>>().len().saturating_sub(result.crds_dropped.len());

    let texts: BTreeMap<&str, &str> = files.manifests.iter().map(|(f, t)| (f.as_str(), t.as_str())).collect();
    let names: Vec<&str> = texts.keys().copied().collect();
    let mut peer_report: BTreeMap<String, Vec<PeerVerdict>> = BTreeMap::new();
    let mut raw = String::new();
    for batch in names.chunks(BATCH) {
        match run_bounded(peer.command(&dir, batch), deadline, MAX_PEER_OUTPUT) {
            Ok((_, out)) => match parse_peer_output(&out) {
                Ok(report) => {
                    raw.push_str(&out);
                    peer_report.extend(report);
                }
                Err(e) => result.unjoined.extend(batch.iter().map(|f| ((*f).to_string(), format!("peer output {e}")))),
            },
            Err(e) => result.unjoined.extend(batch.iter().map(|f| ((*f).to_string(), format!("peer {e}")))),
        }
    }
    let _ = std::fs::write(out_dir.join("peer.json"), raw);
    for (file, text) in &texts {
        let Some(peer_verdicts) = peer_report.get(*file) else {
            if !result.unjoined.iter().any(|(f, _)| f == file) {
                result.unjoined.push(((*file).to_string(), "not in the peer's report".into()));
            }
            continue;
        };
        let errors = crdls_errors.get(*file).map_or(&[][..], Vec::as_slice);
        match join_file(file, text, peer_verdicts, errors, &ambiguous) {
            Ok(objects) => result.objects.extend(objects),
            Err(e) => result.unjoined.push(((*file).to_string(), e)),
        }
    }
    result.status = "ok".into();
    result
}

pub(crate) fn run(args: impl Iterator<Item = String>) {
    let options = crate::ecosystem::or_usage(parse_options(args));
    let list = read_repo_list(&options.list);
    let repos: Vec<Repo> = list
        .repo
        .into_iter()
        .filter(|r| options.halves.contains(&r.half))
        .filter(|r| options.only.is_empty() || options.only.contains(&r.name))
        .collect();
    if repos.is_empty() {
        println!("no repository of the halves {} matches", options.halves.join(", "));
        std::process::exit(2);
    }
    if !options.crdls.is_file() {
        println!("no crdls binary at {} (build it with cargo build --release -p crdls, or pass --crdls)", options.crdls.display());
        std::process::exit(2);
    }
    let version = Command::new(&options.peer).arg("--help").output();
    if !version.is_ok_and(|o| String::from_utf8_lossy(&o.stdout).contains("--local-crds")) {
        println!("no kubectl-validate at {} (go install sigs.k8s.io/kubectl-validate@v0.0.4, or pass --peer)", options.peer.display());
        std::process::exit(2);
    }
    let Some(from) = options.schemas.clone().filter(|s| s.is_dir()) else {
        println!(
            "no Kubernetes OpenAPI documents at {} (server/crdls-builtins/update.sh downloads them, or pass --schemas DIR, \
             an api/openapi-spec/v3 directory of the k8s.io/kubernetes module)",
            options.schemas.as_deref().unwrap_or(Path::new("?")).display()
        );
        std::process::exit(2);
    };
    let out = std::fs::canonicalize(&options.out).unwrap_or_else(|_| options.out.clone());
    let schemas = out.join("schemas");
    let _ = std::fs::remove_dir_all(&schemas);
    match lay_out_schemas(&from, &schemas) {
        Ok(n) if n > 0 => println!("peer: {} with the {n} OpenAPI documents of {}", options.peer.display(), from.display()),
        Ok(_) => {
            println!("no OpenAPI document in {}", from.display());
            std::process::exit(2);
        }
        Err(e) => {
            println!("cannot lay out the schemas: {e}");
            std::process::exit(2);
        }
    }
    let out = std::fs::canonicalize(&out).unwrap_or(out);
    let kubeconfig = out.join("empty-kubeconfig");
    let probe = out.join("probe.yaml");
    let _ = std::fs::write(&kubeconfig, "");
    let _ = std::fs::write(&probe, "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: probe\n");
    let options = Options { out, ..options };
    let ledger = read_ledger(&options.ledger);

    let mut all: Vec<(Repo, RepoComparison)> = Vec::new();
    for repo in repos {
        let started = Instant::now();
        let result = compare_repo(&options, &repo, &schemas, &kubeconfig, &probe);
        let count = |o: Outcome| result.objects.iter().filter(|c| c.outcome == o).count();
        println!(
            "ran {:<45} {:<8} {:>6.1} s  {} objects: {} agree, {} peer only, {} crdls only, {} no peer schema, {} ambiguous CRD; {} CRDs ({} dropped), {} files unjoined",
            repo.name,
            result.status,
            started.elapsed().as_secs_f64(),
            result.objects.len(),
            count(Outcome::BothAccept) + count(Outcome::BothReject),
            count(Outcome::PeerOnly),
            count(Outcome::CrdlsOnly),
            count(Outcome::PeerNoSchema),
            count(Outcome::AmbiguousCrd),
            result.crds,
            result.crds_dropped.len(),
            result.unjoined.len(),
        );
        all.push((repo, result));
    }
    let report = render_report(&all, &ledger, options.verbose);
    print!("{report}");
    let tsv = render_disagreements(&all);
    let path = options.out.join("disagreements.tsv");
    match std::fs::write(&path, tsv) {
        Ok(()) => println!("\nevery disagreement, in columns: {}", path.display()),
        Err(e) => println!("\ncannot write {}: {e}", path.display()),
    }
}

/// The ledger's verdict of one crdls error, `unjudged` when it has none.
fn verdict_of<'a>(ledger: &'a BTreeMap<ErrorKey, Verdict>, repo: &str, file: &str, error: &CrdlsError) -> &'a str {
    let key =
        ErrorKey { repo: repo.into(), file: file.into(), line: error.line, code: error.code.clone(), hash: message_hash(&error.message) };
    ledger.get(&key).map_or("unjudged", |v| v.verdict.as_str())
}

/// The totals per half, the classes of each disagreement and the ledger's verdicts of crdls's lone
/// rejects.
fn render_report(all: &[(Repo, RepoComparison)], ledger: &BTreeMap<ErrorKey, Verdict>, verbose: bool) -> String {
    let mut text = String::from("\n== objects compared, per half ==\n");
    let mut halves: BTreeMap<&str, BTreeMap<Outcome, usize>> = BTreeMap::new();
    for (repo, result) in all {
        let tally = halves.entry(repo.half.as_str()).or_default();
        for object in &result.objects {
            *tally.entry(object.outcome).or_default() += 1;
        }
    }
    for (half, tally) in &halves {
        let n = |o: Outcome| tally.get(&o).copied().unwrap_or(0);
        let compared = n(Outcome::BothAccept) + n(Outcome::BothReject) + n(Outcome::PeerOnly) + n(Outcome::CrdlsOnly);
        let _ = writeln!(
            text,
            "{half:<9} {compared} compared: {} agree ({} both accept, {} both reject), {} peer only, {} crdls only; not compared: {} the peer has no schema for, {} of kinds defined differently in several places, {} documents that are no objects",
            n(Outcome::BothAccept) + n(Outcome::BothReject),
            n(Outcome::BothAccept),
            n(Outcome::BothReject),
            n(Outcome::PeerOnly),
            n(Outcome::CrdlsOnly),
            n(Outcome::PeerNoSchema),
            n(Outcome::AmbiguousCrd),
            n(Outcome::NotAnObject),
        );
    }

    // Peer-only rejects by class of their first cause.
    let mut classes: BTreeMap<String, (BTreeSet<&str>, Vec<String>)> = BTreeMap::new();
    for (repo, result) in all {
        for object in result.objects.iter().filter(|o| o.outcome == Outcome::PeerOnly) {
            let PeerVerdict::Rejects(causes) = &object.peer else { continue };
            let first = causes.first().map_or("?", String::as_str);
            let entry = classes.entry(cause_class(first)).or_default();
            entry.0.insert(repo.name.as_str());
            entry.1.push(format!("{} {}:{} {}: {}", repo.name, object.file, object.line, object.kind, causes.join("; ")));
        }
    }
    let _ = writeln!(text, "\n== rejected by the peer alone, by class of the first cause ==");
    let mut ordered: Vec<_> = classes.iter().collect();
    ordered.sort_by_key(|(_, (repos, objects))| (std::cmp::Reverse(objects.len()), std::cmp::Reverse(repos.len())));
    for (class, (repos, objects)) in ordered {
        let _ = writeln!(text, "{:>5} objects, {:>2} repos: {class}", objects.len(), repos.len());
        for example in objects.iter().take(if verbose { usize::MAX } else { 3 }) {
            let _ = writeln!(text, "        {}", example.chars().take(300).collect::<String>());
        }
    }

    // crdls-only rejects by code, with the ledger's verdicts of their errors.
    let mut codes: BTreeMap<String, BTreeMap<&str, usize>> = BTreeMap::new();
    let mut objects_by_verdict: BTreeMap<&str, usize> = BTreeMap::new();
    let mut examples: Vec<String> = Vec::new();
    for (repo, result) in all {
        for object in result.objects.iter().filter(|o| o.outcome == Outcome::CrdlsOnly) {
            // An object's verdict: false if any of its errors is judged false, else the first judged.
            let mut verdicts = BTreeSet::new();
            for error in &object.crdls {
                let verdict =
                    if error.strict_only { "strict only (a warning)" } else { verdict_of(ledger, &repo.name, &object.file, error) };
                *codes.entry(error.code.clone()).or_default().entry(verdict).or_default() += 1;
                verdicts.insert(verdict);
                if verdict == "unjudged" {
                    examples.push(format!("{} {}:{} {} {}", repo.name, object.file, error.line, error.code, error.message));
                }
            }
            let verdict = ["false", "true", "doubtful", "unjudged", "strict only (a warning)"]
                .into_iter()
                .find(|v| verdicts.contains(v))
                .unwrap_or("unjudged");
            *objects_by_verdict.entry(verdict).or_default() += 1;
        }
    }
    let _ = writeln!(text, "\n== rejected by crdls alone ==");
    let by_verdict: Vec<String> = objects_by_verdict.iter().map(|(v, n)| format!("{n} {v}")).collect();
    let _ = writeln!(text, "objects, by the ledger's verdict of their errors (false first): {}", by_verdict.join(", "));
    for (code, verdicts) in &codes {
        let list: Vec<String> = verdicts.iter().map(|(v, n)| format!("{n} {v}")).collect();
        let _ = writeln!(text, "  {code:<36} {}", list.join(", "));
    }
    if !examples.is_empty() {
        let _ = writeln!(text, "errors the ledger does not judge ({}):", examples.len());
        for example in examples.iter().take(if verbose { usize::MAX } else { 20 }) {
            let _ = writeln!(text, "  {}", example.chars().take(300).collect::<String>());
        }
    }

    let _ = writeln!(text, "\n== left out ==");
    for (repo, result) in all {
        if result.status != "ok" || !result.unjoined.is_empty() || !result.crds_dropped.is_empty() {
            let _ = writeln!(
                text,
                "{} ({}): {} files unjoined{}; CRDs the peer cannot load: {}",
                repo.name,
                result.status,
                result.unjoined.len(),
                result.unjoined.first().map_or(String::new(), |(f, why)| format!(" (first: {f}: {why})")),
                if result.crds_dropped.is_empty() {
                    "none".to_string()
                } else {
                    // Several documents of one file are named once, with their count.
                    let files: BTreeSet<&String> = result.crds_dropped.iter().collect();
                    format!("{} in {}", result.crds_dropped.len(), files.into_iter().map(String::as_str).collect::<Vec<_>>().join(", "))
                }
            );
        }
    }
    let mut modes: BTreeMap<&str, usize> = BTreeMap::new();
    for (_, result) in all {
        for (mode, n) in &result.modes {
            *modes.entry(mode.as_str()).or_default() += n;
        }
    }
    let listed: Vec<String> = modes.iter().map(|(m, n)| format!("{n} {m}")).collect();
    let _ = writeln!(text, "files by how crdls reads them (only objects and kustomize's are compared): {}", listed.join(", "));
    text
}

/// Every disagreement, one per line: repo, file, line, kind, outcome, the peer's causes, crdls's errors.
fn render_disagreements(all: &[(Repo, RepoComparison)]) -> String {
    let mut text = String::from("# repo\tfile\tline\tkind\toutcome\tpeer\tcrdls\n");
    for (repo, result) in all {
        for object in &result.objects {
            let outcome = match object.outcome {
                Outcome::PeerOnly => "peer-only",
                Outcome::CrdlsOnly => "crdls-only",
                _ => continue,
            };
            let peer = match &object.peer {
                PeerVerdict::Rejects(causes) => causes.join("; "),
                _ => String::new(),
            };
            let crdls: Vec<String> = object.crdls.iter().map(|e| format!("{}:{} {}", e.line, e.code, e.message)).collect();
            let _ = writeln!(
                text,
                "{}\t{}\t{}\t{}\t{outcome}\t{}\t{}",
                repo.name,
                clean(&object.file),
                object.line,
                clean(&object.kind),
                clean(&peer),
                clean(&crdls.join("; "))
            );
        }
    }
    text
}

#[cfg(test)]
mod tests;
