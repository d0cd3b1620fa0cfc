//! `crdls-bench ecosystem`: runs `crdls check` over pinned public repositories and compares what it
//! reports with a committed baseline and a committed ledger of judged errors (see
//! `docs/src/ecosystem-check.md`).
//!
//! Three files under `tests/ecosystem/` drive it:
//! - `repos.toml`: the repositories, each `owner/name` at a commit, with a category and a half
//!   (any name: `tune`, `held-out`, `fresh`; precision is reported per half);
//! - `baseline.tsv`: per repository, the run's status and file count, the count of every code at
//!   every severity, and every error as file, line, code and a hash of its message;
//! - `ledger.tsv`: errors a person has read and judged as the API server would: `true` (it rejects
//!   the object, or would), `false` (it accepts it, or the file is no object to apply) or `doubtful`,
//!   each with a one-line reason.
//!
//! The repositories are checked out beside the project (default `../eco-repos/owner+name`): CI cannot
//! download them, so this runs on a developer's machine. Each runs as a new user would run crdls:
//! `crdls check . --format json` in the repository's directory, with no trust and a timeout.

use std::collections::{BTreeMap, BTreeSet};
use std::fmt::Write as _;
use std::io::Read as _;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use serde::Deserialize;

/// The list file: `[[repo]]` tables.
#[derive(Deserialize)]
pub(crate) struct RepoList {
    pub(crate) repo: Vec<Repo>,
}

#[derive(Deserialize, Clone)]
pub(crate) struct Repo {
    pub(crate) name: String,
    commit: String,
    category: String,
    pub(crate) half: String,
}

impl Repo {
    /// The directory name of its checkout: `owner+name`.
    pub(crate) fn dir_name(&self) -> String {
        self.name.replace('/', "+")
    }
}

/// An error as the baseline and the ledger key it.
#[derive(Clone, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub(crate) struct ErrorKey {
    pub(crate) repo: String,
    pub(crate) file: String,
    pub(crate) line: u32,
    pub(crate) code: String,
    pub(crate) hash: String,
}

impl ErrorKey {
    fn show(&self) -> String {
        format!("{}:{}: {} [{}]", self.file, self.line, self.code, self.hash)
    }
}

/// What one run of crdls on one repository gave.
#[derive(Default, Clone, PartialEq)]
struct RepoResult {
    /// `ok`, `timeout`, `crashed(N)`, `absent` or `unreadable`.
    status: String,
    files: u64,
    /// (code, severity) -> count.
    counts: BTreeMap<(String, String), u64>,
    /// Error-level diagnostics, with their messages when this run produced them (a baseline
    /// keeps only the hash).
    errors: BTreeMap<ErrorKey, String>,
}

#[derive(Clone)]
pub(crate) struct Verdict {
    pub(crate) verdict: String,
    pub(crate) reason: String,
    pub(crate) message: String,
}

struct Options {
    crdls: PathBuf,
    repos_dir: PathBuf,
    list: PathBuf,
    baseline: PathBuf,
    ledger: PathBuf,
    out: PathBuf,
    half: Option<String>,
    only: Vec<String>,
    timeout: Duration,
    no_run: bool,
    write_baseline: Option<PathBuf>,
    unjudged: Option<PathBuf>,
    verbose: bool,
}

const USAGE: &str = "usage: crdls-bench ecosystem [--crdls BIN] [--repos DIR] [--list FILE] [--baseline FILE] \
[--ledger FILE] [--out DIR] [--half NAME] [--only owner/name]... [--timeout SECS] [--no-run] \
[--write-baseline FILE] [--unjudged FILE] [--verbose]";

fn parse_options(args: impl Iterator<Item = String>) -> Result<Options, String> {
    let target = std::env::var_os("CARGO_TARGET_DIR").map_or_else(|| PathBuf::from("target"), PathBuf::from);
    let mut options = Options {
        crdls: target.join("release/crdls"),
        repos_dir: std::env::var_os("CRDLS_ECOSYSTEM_REPOS").map_or_else(|| PathBuf::from("../eco-repos"), PathBuf::from),
        list: PathBuf::from("tests/ecosystem/repos.toml"),
        baseline: PathBuf::from("tests/ecosystem/baseline.tsv"),
        ledger: PathBuf::from("tests/ecosystem/ledger.tsv"),
        out: target.join("ecosystem"),
        half: None,
        only: Vec::new(),
        timeout: Duration::from_secs(300),
        no_run: false,
        write_baseline: None,
        unjudged: None,
        verbose: false,
    };
    let mut args = args.peekable();
    while let Some(arg) = args.next() {
        let mut value = |name: &str| args.next().ok_or_else(|| format!("{name} needs a value\n{USAGE}"));
        match arg.as_str() {
            "--crdls" => options.crdls = value("--crdls")?.into(),
            "--repos" => options.repos_dir = value("--repos")?.into(),
            "--list" => options.list = value("--list")?.into(),
            "--baseline" => options.baseline = value("--baseline")?.into(),
            "--ledger" => options.ledger = value("--ledger")?.into(),
            "--out" => options.out = value("--out")?.into(),
            "--half" => options.half = Some(value("--half")?),
            "--only" => options.only.push(value("--only")?),
            "--timeout" => {
                let secs: u64 = value("--timeout")?.parse().map_err(|_| "--timeout takes whole seconds".to_string())?;
                options.timeout = Duration::from_secs(secs.max(1));
            }
            "--no-run" => options.no_run = true,
            "--write-baseline" => options.write_baseline = Some(value("--write-baseline")?.into()),
            "--unjudged" => options.unjudged = Some(value("--unjudged")?.into()),
            "--verbose" | "-v" => options.verbose = true,
            "--help" | "-h" => return Err(USAGE.to_string()),
            other => return Err(format!("unknown argument {other:?}\n{USAGE}")),
        }
    }
    Ok(options)
}

/// FNV-1a of the message, 8 hex digits: enough to tell messages on one line apart, short enough
/// to keep the committed files small.
pub(crate) fn message_hash(message: &str) -> String {
    let mut hash: u64 = 0xcbf2_9ce4_8422_2325;
    for byte in message.bytes() {
        hash ^= u64::from(byte);
        hash = hash.wrapping_mul(0x0100_0000_01b3);
    }
    format!("{:08x}", (hash >> 32) ^ (hash & 0xffff_ffff))
}

/// One line of a TSV file: tabs and newlines in a field become spaces.
pub(crate) fn clean(field: &str) -> String {
    field.replace(['\t', '\n', '\r'], " ")
}

/// The options `parsed` holds; a usage error ends the run (exit code 2) with its message.
pub(crate) fn or_usage<T>(parsed: Result<T, String>) -> T {
    parsed.unwrap_or_else(|message| {
        println!("{message}");
        std::process::exit(2)
    })
}

/// The committed repository list at `path`; a list that cannot be read or parsed ends the run (exit
/// code 2) with what was wrong.
pub(crate) fn read_repo_list(path: &Path) -> RepoList {
    match std::fs::read_to_string(path).map_err(|e| e.to_string()).and_then(|t| toml::from_str(&t).map_err(|e| e.to_string())) {
        Ok(list) => list,
        Err(e) => {
            println!("cannot read the repository list {}: {e}", path.display());
            std::process::exit(2);
        }
    }
}

pub(crate) fn run(args: impl Iterator<Item = String>) {
    let options = or_usage(parse_options(args));
    let list = read_repo_list(&options.list);
    let all_halves: Vec<String> = list.repo.iter().map(|r| r.half.clone()).collect();
    let repos: Vec<Repo> = list
        .repo
        .into_iter()
        .filter(|r| options.half.as_ref().is_none_or(|h| *h == r.half))
        .filter(|r| options.only.is_empty() || options.only.contains(&r.name))
        .collect();
    if repos.is_empty() {
        let halves: BTreeSet<&str> = all_halves.iter().map(String::as_str).collect();
        println!("no repository in {} matches (its halves: {})", options.list.display(), halves.into_iter().collect::<Vec<_>>().join(", "));
        std::process::exit(2);
    }
    if !options.no_run && !options.crdls.is_file() {
        println!("no crdls binary at {} (build it with cargo build --release -p crdls, or pass --crdls)", options.crdls.display());
        std::process::exit(2);
    }
    if let Err(e) = std::fs::create_dir_all(&options.out) {
        println!("cannot create {}: {e}", options.out.display());
        std::process::exit(2);
    }

    let mut results: BTreeMap<String, RepoResult> = BTreeMap::new();
    for repo in &repos {
        let json = options.out.join(format!("{}.json", repo.dir_name()));
        let status_file = options.out.join(format!("{}.status", repo.dir_name()));
        if !options.no_run {
            let started = Instant::now();
            let status = run_one(&options, repo, &json);
            let _ = std::fs::write(&status_file, &status);
            println!("ran {:<45} {:<10} {:>6.1} s", repo.name, status, started.elapsed().as_secs_f64());
        }
        let status = std::fs::read_to_string(&status_file).unwrap_or_else(|_| "absent".into());
        results.insert(repo.name.clone(), read_result(&repo.name, &json, status.trim()));
    }

    let baseline = read_baseline(&options.baseline);
    let ledger = read_ledger(&options.ledger);
    if baseline.is_empty() {
        println!("\nno baseline at {}: nothing to compare with", options.baseline.display());
    } else {
        print_diff(&repos, &results, &baseline, &ledger, options.verbose);
    }
    print_precision(&repos, &results, &ledger, options.verbose);

    if let Some(path) = &options.write_baseline {
        // A baseline written for part of the list keeps the other repositories' lines.
        let mut all = baseline;
        for (name, result) in &results {
            all.insert(name.clone(), result.clone());
        }
        match std::fs::write(path, render_baseline(&all)) {
            Ok(()) => println!("\nwrote the baseline {}", path.display()),
            Err(e) => println!("\ncannot write {}: {e}", path.display()),
        }
    }
    if let Some(path) = &options.unjudged {
        let mut text = String::from("# repo\tfile\tline\tcode\thash\tverdict\treason\tmessage\n");
        for result in results.values() {
            for (key, message) in &result.errors {
                if !ledger.contains_key(key) {
                    let _ = writeln!(
                        text,
                        "{}\t{}\t{}\t{}\t{}\t?\t\t{}",
                        key.repo,
                        clean(&key.file),
                        key.line,
                        key.code,
                        key.hash,
                        clean(message)
                    );
                }
            }
        }
        match std::fs::write(path, text) {
            Ok(()) => println!("wrote the unjudged errors, in the ledger's columns, to {}", path.display()),
            Err(e) => println!("cannot write {}: {e}", path.display()),
        }
    }
}

/// Runs crdls on one checkout, writing its JSON report to `json`; returns the run's status.
fn run_one(options: &Options, repo: &Repo, json: &Path) -> String {
    let dir = options.repos_dir.join(repo.dir_name());
    if !dir.is_dir() {
        let _ = std::fs::remove_file(json);
        return "absent".into();
    }
    // A git checkout must be at the pinned commit; a plain tree (an exported archive) is trusted.
    if dir.join(".git").exists() {
        let head = Command::new("git").arg("-C").arg(&dir).args(["rev-parse", "HEAD"]).output();
        if let Ok(head) = head {
            let head = String::from_utf8_lossy(&head.stdout).trim().to_string();
            if !head.is_empty() && head != repo.commit {
                println!("warning: {} is at {head}, the list pins {}", repo.name, repo.commit);
            }
        }
    }
    let Ok(out) = std::fs::File::create(json) else { return "unwritable".into() };
    let crdls = std::fs::canonicalize(&options.crdls).unwrap_or_else(|_| options.crdls.clone());
    let child = Command::new(crdls)
        .args(["check", ".", "--format", "json"])
        .current_dir(&dir)
        .stdin(Stdio::null())
        .stdout(out)
        .stderr(Stdio::piped())
        .spawn();
    let mut child = match child {
        Ok(child) => child,
        Err(e) => return format!("unstartable({e})").replace(char::is_whitespace, "-"),
    };
    let deadline = Instant::now() + options.timeout;
    let mut stderr = child.stderr.take();
    let reader = std::thread::spawn(move || {
        let mut text = String::new();
        if let Some(stderr) = stderr.as_mut() {
            let _ = stderr.take(64 * 1024).read_to_string(&mut text);
        }
        text
    });
    let status = loop {
        match child.try_wait() {
            Ok(Some(status)) => break Some(status),
            Ok(None) if Instant::now() >= deadline => {
                let _ = child.kill();
                let _ = child.wait();
                break None;
            }
            Ok(None) => std::thread::sleep(Duration::from_millis(50)),
            Err(_) => break None,
        }
    };
    let Some(status) = status else {
        // A grandchild may still hold stderr open: the reader is left to finish on its own.
        return "timeout".into();
    };
    let stderr = reader.join().unwrap_or_default();
    // crdls check exits 0 (clean) or 1 (errors found); anything else is a failure of the tool.
    if matches!(status.code(), Some(0 | 1)) {
        return "ok".into();
    }
    let first = stderr.lines().find(|l| !l.trim().is_empty()).unwrap_or("");
    println!("  {} exited with {status}: {first}", repo.name);
    format!("crashed({})", status.code().map_or_else(|| "signal".to_string(), |c| c.to_string()))
}

fn read_result(repo: &str, json: &Path, status: &str) -> RepoResult {
    let mut result = RepoResult { status: status.to_string(), ..RepoResult::default() };
    if status != "ok" {
        return result;
    }
    let Ok(text) = std::fs::read_to_string(json) else {
        result.status = "unreadable".into();
        return result;
    };
    let Ok(value) = serde_json::from_str::<serde_json::Value>(&text) else {
        result.status = "unreadable".into();
        return result;
    };
    result.files = value["summary"]["files"].as_u64().unwrap_or(0);
    for diagnostic in value["diagnostics"].as_array().into_iter().flatten() {
        let code = diagnostic["code"].as_str().unwrap_or("?").to_string();
        let severity = diagnostic["severity"].as_str().unwrap_or("?").to_string();
        *result.counts.entry((code.clone(), severity.clone())).or_default() += 1;
        if severity == "error" {
            let message = diagnostic["message"].as_str().unwrap_or("");
            let key = ErrorKey {
                repo: repo.to_string(),
                file: clean(diagnostic["file"].as_str().unwrap_or("?").trim_start_matches("./")),
                line: diagnostic["range"]["start"]["line"].as_u64().and_then(|l| u32::try_from(l).ok()).unwrap_or(0),
                code,
                hash: message_hash(message),
            };
            result.errors.insert(key, message.to_string());
        }
    }
    result
}

fn render_baseline(results: &BTreeMap<String, RepoResult>) -> String {
    let mut text = String::from(
        "# crdls ecosystem baseline (crdls-bench ecosystem --write-baseline); columns by kind:\n\
         # repo\trun\tstatus\tfiles\n# repo\tcount\tcode\tseverity\tn\n# repo\terror\tfile\tline\tcode\tmessage-hash\n",
    );
    for (name, result) in results {
        let _ = writeln!(text, "{name}\trun\t{}\t{}", result.status, result.files);
        for ((code, severity), n) in &result.counts {
            let _ = writeln!(text, "{name}\tcount\t{code}\t{severity}\t{n}");
        }
        for key in result.errors.keys() {
            let _ = writeln!(text, "{name}\terror\t{}\t{}\t{}\t{}", key.file, key.line, key.code, key.hash);
        }
    }
    text
}

fn read_baseline(path: &Path) -> BTreeMap<String, RepoResult> {
    let mut results: BTreeMap<String, RepoResult> = BTreeMap::new();
    let Ok(text) = std::fs::read_to_string(path) else { return results };
    for line in text.lines().filter(|l| !l.starts_with('#') && !l.trim().is_empty()) {
        let fields: Vec<&str> = line.split('\t').collect();
        let result = results.entry(fields[0].to_string()).or_default();
        match fields.as_slice() {
            [_, "run", status, files] => {
                result.status = (*status).to_string();
                result.files = files.parse().unwrap_or(0);
            }
            [_, "count", code, severity, n] => {
                result.counts.insert(((*code).to_string(), (*severity).to_string()), n.parse().unwrap_or(0));
            }
            [repo, "error", file, line, code, hash] => {
                let key = ErrorKey {
                    repo: (*repo).to_string(),
                    file: (*file).to_string(),
                    line: line.parse().unwrap_or(0),
                    code: (*code).to_string(),
                    hash: (*hash).to_string(),
                };
                result.errors.insert(key, String::new());
            }
            _ => println!("baseline {}: line not understood: {line}", path.display()),
        }
    }
    results
}

pub(crate) fn read_ledger(path: &Path) -> BTreeMap<ErrorKey, Verdict> {
    let mut ledger = BTreeMap::new();
    let Ok(text) = std::fs::read_to_string(path) else {
        println!("no ledger at {}: no error is judged", path.display());
        return ledger;
    };
    for line in text.lines().filter(|l| !l.starts_with('#') && !l.trim().is_empty()) {
        let fields: Vec<&str> = line.split('\t').collect();
        let [repo, file, line_no, code, hash, verdict, reason, message] = fields.as_slice() else {
            println!("ledger {}: line not understood: {line}", path.display());
            continue;
        };
        if !matches!(*verdict, "true" | "false" | "doubtful") {
            continue;
        }
        let key = ErrorKey {
            repo: (*repo).to_string(),
            file: (*file).to_string(),
            line: line_no.parse().unwrap_or(0),
            code: (*code).to_string(),
            hash: (*hash).to_string(),
        };
        ledger.insert(key, Verdict { verdict: (*verdict).to_string(), reason: (*reason).to_string(), message: (*message).to_string() });
    }
    ledger
}

/// At most this many lines per repository and direction, unless --verbose.
const SHOWN: usize = 15;

fn print_diff(
    repos: &[Repo],
    results: &BTreeMap<String, RepoResult>,
    baseline: &BTreeMap<String, RepoResult>,
    ledger: &BTreeMap<ErrorKey, Verdict>,
    verbose: bool,
) {
    println!("\n== changes against the baseline ==");
    let mut changed = 0;
    let (mut appeared_total, mut gone_total) = (0, 0);
    for repo in repos {
        let Some(now) = results.get(&repo.name) else { continue };
        let before = baseline.get(&repo.name).cloned().unwrap_or_else(|| RepoResult { status: "missing".into(), ..RepoResult::default() });
        if before.status == now.status && before.counts == now.counts && before.errors.keys().eq(now.errors.keys()) {
            continue;
        }
        changed += 1;
        println!("\n{} ({}, {})", repo.name, repo.category, repo.half);
        if before.status != now.status || before.files != now.files {
            println!("  run: {} ({} files) -> {} ({} files)", before.status, before.files, now.status, now.files);
        }
        let codes: BTreeSet<&(String, String)> = before.counts.keys().chain(now.counts.keys()).collect();
        for key in codes {
            let (b, a) = (before.counts.get(key).copied().unwrap_or(0), now.counts.get(key).copied().unwrap_or(0));
            if a != b {
                println!("  {:<8} {:<40} {b:>6} -> {a:<6} ({:+})", key.1, key.0, i128::from(a) - i128::from(b));
            }
        }
        let appeared: Vec<(&ErrorKey, &String)> = now.errors.iter().filter(|(k, _)| !before.errors.contains_key(k)).collect();
        let gone: Vec<&ErrorKey> = before.errors.keys().filter(|k| !now.errors.contains_key(k)).collect();
        appeared_total += appeared.len();
        gone_total += gone.len();
        for (i, (key, message)) in appeared.iter().enumerate() {
            if i == SHOWN && !verbose {
                println!("  + ... {} more errors appeared (--verbose)", appeared.len() - SHOWN);
                break;
            }
            let judged = ledger.get(*key).map_or(String::new(), |v| format!("  [ledger: {}]", v.verdict));
            println!("  + {} {}{judged}", key.show(), message);
        }
        for (i, key) in gone.iter().enumerate() {
            if i == SHOWN && !verbose {
                println!("  - ... {} more errors went away (--verbose)", gone.len() - SHOWN);
                break;
            }
            let judged = ledger
                .get(*key)
                .map_or(String::from("  [not judged]"), |v| format!("  [ledger: {}: {}] {}", v.verdict, v.reason, v.message));
            println!("  - {}{judged}", key.show());
        }
    }
    println!("\n{changed} of {} repositories changed; {appeared_total} errors appeared, {gone_total} went away", repos.len());
}

#[derive(Default)]
struct Tally {
    repos: usize,
    files: u64,
    errors: usize,
    judged: usize,
    verdicts: BTreeMap<String, usize>,
    /// Ledger entries of this half that this run no longer reports, by verdict.
    gone: BTreeMap<String, usize>,
    not_ok: Vec<String>,
}

fn print_precision(repos: &[Repo], results: &BTreeMap<String, RepoResult>, ledger: &BTreeMap<ErrorKey, Verdict>, verbose: bool) {
    println!("\n== precision from the ledger ==");
    let mut tallies: BTreeMap<&str, Tally> = BTreeMap::new();
    let mut unjudged: Vec<(&ErrorKey, &String)> = Vec::new();
    let mut lost_true: Vec<(&ErrorKey, &Verdict)> = Vec::new();
    for repo in repos {
        let Some(result) = results.get(&repo.name) else { continue };
        let tally = tallies.entry(repo.half.as_str()).or_default();
        tally.repos += 1;
        tally.files += result.files;
        if result.status != "ok" {
            tally.not_ok.push(format!("{} ({})", repo.name, result.status));
            continue;
        }
        tally.errors += result.errors.len();
        for (key, message) in &result.errors {
            match ledger.get(key) {
                Some(verdict) => {
                    tally.judged += 1;
                    *tally.verdicts.entry(verdict.verdict.clone()).or_default() += 1;
                }
                None => unjudged.push((key, message)),
            }
        }
        for (key, verdict) in
            ledger.range(ErrorKey { repo: repo.name.clone(), file: String::new(), line: 0, code: String::new(), hash: String::new() }..)
        {
            if key.repo != repo.name {
                break;
            }
            if !result.errors.contains_key(key) {
                *tally.gone.entry(verdict.verdict.clone()).or_default() += 1;
                if verdict.verdict == "true" {
                    lost_true.push((key, verdict));
                }
            }
        }
    }
    for (half, tally) in &tallies {
        let count = |v: &str| tally.verdicts.get(v).copied().unwrap_or(0);
        let (t, f, d) = (count("true"), count("false"), count("doubtful"));
        let percent =
            |n: usize| if tally.judged == 0 { "n/a".to_string() } else { format!("{:.1}%", 100.0 * n as f64 / tally.judged as f64) };
        let precision = format!("{} ({} counting doubtful as true)", percent(t), percent(t + d));
        println!(
            "{half:<9} {} repos, {} files, {} errors, {} judged: {t} true, {f} false, {d} doubtful; precision {precision}; {} unjudged",
            tally.repos,
            tally.files,
            tally.errors,
            tally.judged,
            tally.errors - tally.judged
        );
        if !tally.gone.is_empty() {
            let gone: Vec<String> = tally.gone.iter().map(|(v, n)| format!("{n} {v}")).collect();
            println!("          judged errors no longer reported: {}", gone.join(", "));
        }
        if !tally.not_ok.is_empty() {
            println!("          not counted (run failed): {}", tally.not_ok.join(", "));
        }
    }
    if !lost_true.is_empty() {
        println!("\ntrue errors no longer reported ({}): each needs a reason", lost_true.len());
        for (key, verdict) in lost_true {
            println!("  {} {}: {}  ({})", key.repo, key.show(), verdict.message, verdict.reason);
        }
    }
    if !unjudged.is_empty() {
        println!("\nunjudged errors ({}):", unjudged.len());
        for (i, (key, message)) in unjudged.iter().enumerate() {
            if i == 4 * SHOWN && !verbose {
                println!("  ... {} more (--verbose, or --unjudged FILE for all in the ledger's columns)", unjudged.len() - 4 * SHOWN);
                break;
            }
            println!("  {} {} {}", key.repo, key.show(), message);
        }
    }
}

#[cfg(test)]
mod tests;
