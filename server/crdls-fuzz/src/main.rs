//! `crdls-fuzz <target|all> [--seconds N] [--seed S] [--corpus DIR] [--iterations N] [--no-write]`:
//! fuzzes crdls on stable Rust, prints each target's inputs per second and findings, writes each
//! finding, minimized, to `tests/fuzz-regressions/<target>/`, and exits 1 when there was any.
//! `crdls-fuzz <target> --replay FILE` runs one input and prints what the oracles say.

// This binary is a command-line reporter: its output is for people and CI logs.
#![allow(clippy::print_stdout, clippy::print_stderr)]

use std::path::PathBuf;
use std::time::Duration;

use crdls_fuzz::fuzz::Options;
use crdls_fuzz::targets::Sources;
use crdls_fuzz::{fuzz, target, Budget, DIFFERENTIAL, TARGET_NAMES};

const USAGE: &str = "usage: crdls-fuzz <yaml|cel|schema|lsp|archive|glob|kubeconfig|cache|all|differential> [--seconds N] [--iterations N] [--seed S] [--corpus DIR] [--no-write]
  all             the eight targets that need nothing but this repository
  differential    crdls against the API server's code (tests/oracle, built with Go; with CI set, a failed build fails)
  --seconds N     total time, shared by the targets of `all` (default 60)
  --iterations N  inputs per target instead of a time
  --seed S        the mutation seed (default: from the clock; printed to reproduce a run)
  --corpus DIR    the shared corpus (default ../shared/corpus beside the repository)
  --no-write      do not write findings to tests/fuzz-regressions/
  --replay FILE   run one input through the target and print the verdict";

fn main() {
    std::process::exit(run(std::env::args().skip(1).collect()));
}

fn run(args: Vec<String>) -> i32 {
    let mut names: Vec<&str> = Vec::new();
    let mut seconds = 60.0_f64;
    let mut iterations: Option<u64> = None;
    let mut seed: Option<u64> = None;
    let mut corpus = crdls_fuzz::corpus::default_corpus();
    let mut write = true;
    let mut replay: Option<PathBuf> = None;
    let mut i = 0;
    while i < args.len() {
        let value = args.get(i + 1);
        let parsed = match args[i].as_str() {
            "--seconds" => value.and_then(|v| v.parse().ok()).map(|v| seconds = v),
            "--iterations" => value.and_then(|v| v.parse().ok()).map(|v| iterations = Some(v)),
            "--seed" => value.and_then(|v| v.parse().ok()).map(|v| seed = Some(v)),
            "--corpus" => value.map(|v| corpus = PathBuf::from(v)),
            "--replay" => value.map(|v| replay = Some(PathBuf::from(v))),
            "--no-write" => {
                write = false;
                i += 1;
                continue;
            }
            "-h" | "--help" => {
                println!("{USAGE}");
                return 0;
            }
            "all" => {
                names.extend(TARGET_NAMES);
                i += 1;
                continue;
            }
            name => match TARGET_NAMES.iter().chain([&DIFFERENTIAL]).find(|t| **t == name) {
                Some(t) => {
                    names.push(t);
                    i += 1;
                    continue;
                }
                None => None,
            },
        };
        if parsed.is_none() {
            eprintln!("crdls-fuzz: cannot read {:?}\n{USAGE}", args[i]);
            return 2;
        }
        i += 2;
    }
    if names.is_empty() {
        eprintln!("{USAGE}");
        return 2;
    }
    if let Some(file) = replay {
        return replay_one(names[0], &file, Sources { corpus: Some(corpus) });
    }
    let seed =
        seed.unwrap_or_else(|| std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).map_or(1, |d| d.as_nanos() as u64));
    println!("crdls-fuzz: seed {seed} (repeat a run with --seed {seed})");
    let sources = Sources { corpus: Some(corpus) };
    let share = Duration::from_secs_f64((seconds / names.len() as f64).max(0.0));
    let mut total = 0;
    for name in names {
        let Some(t) = target(name, &sources) else { continue };
        for note in t.notes() {
            println!("crdls-fuzz: [{name}] {note}");
        }
        if let Some(why) = t.unavailable() {
            if std::env::var_os("CI").is_some() {
                println!("crdls-fuzz: [{name}] CI is set and the target cannot run: {why}");
                return 1;
            }
            println!("SKIPPED: crdls-fuzz [{name}]: {why}");
            continue;
        }
        let options = Options {
            seed,
            budget: iterations.map_or(Budget::Time(share), Budget::Iterations),
            write_fixtures: write,
            minimize_for: Duration::from_secs(60),
        };
        println!("crdls-fuzz: [{name}] {} seeds", t.seeds().len());
        let report = fuzz(&t, &options, &mut |line| println!("crdls-fuzz: {line}"));
        println!(
            "crdls-fuzz: [{name}] {} inputs in {:.1} s ({:.0}/s), {} findings{}",
            report.iterations,
            report.elapsed.as_secs_f64(),
            report.rate(),
            report.findings.len(),
            if report.stopped_after_hang { " (stopped after a hang)" } else { "" }
        );
        for line in t.summary() {
            println!("crdls-fuzz: [{name}] {line}");
        }
        for f in &report.findings {
            let place = f.path.as_ref().map_or_else(|| "not written".to_string(), |p| p.display().to_string());
            println!("crdls-fuzz: [{name}]   {} ({} inputs) → {place}", f.finding.summary(), f.hits);
            let shown: String = format!("{:?}", f.input).chars().take(2000).collect();
            println!("crdls-fuzz: [{name}]     input: {shown}");
        }
        total += report.findings.len();
        if report.stopped_after_hang {
            println!("crdls-fuzz: a runaway input may still be running; the remaining targets are not run");
            break;
        }
    }
    if total > 0 {
        println!("crdls-fuzz: {total} findings; each is a fixture now: fix it, and `cargo test --workspace` replays them");
        1
    } else {
        println!("crdls-fuzz: no findings");
        0
    }
}

/// Runs one file through a target and prints the verdict; exits 1 on a finding.
fn replay_one(name: &str, file: &std::path::Path, sources: Sources) -> i32 {
    let Ok(text) = std::fs::read_to_string(file) else {
        eprintln!("crdls-fuzz: cannot read {}", file.display());
        return 2;
    };
    let Some(t) = target(name, &sources) else { return 2 };
    let runner = t.clone();
    match crdls_fuzz::guard::run_guarded(t.deadline(), move || runner.run(&text)) {
        crdls_fuzz::Verdict::Pass => {
            println!("crdls-fuzz: [{name}] {}: no finding", file.display());
            0
        }
        crdls_fuzz::Verdict::Finding(f) => {
            println!("crdls-fuzz: [{name}] {}: {}\n{}", file.display(), f.summary(), f.message);
            1
        }
    }
}
