//! The fuzzing loop: inputs mutated from seeds and from earlier mutants, each run under the oracles;
//! every new finding minimized and written as a regression fixture.

use std::path::PathBuf;
use std::sync::Arc;
use std::time::{Duration, Instant};

use crate::guard::{run_guarded, Finding, Verdict};
use crate::minimize::minimize;
use crate::rng::{hash, Rng};
use crate::targets::Target;

/// How long a target is fuzzed.
#[derive(Clone, Copy, Debug)]
pub enum Budget {
    /// For a wall-clock time.
    Time(Duration),
    /// For a number of inputs (deterministic for a seed, as tests want).
    Iterations(u64),
}

/// How to fuzz.
#[derive(Clone, Debug)]
pub struct Options {
    /// The seed of the mutation stream.
    pub seed: u64,
    /// How long.
    pub budget: Budget,
    /// Whether findings are written to `tests/fuzz-regressions/<target>/`.
    pub write_fixtures: bool,
    /// How long minimizing one finding may take.
    pub minimize_for: Duration,
}

/// A finding, minimized.
#[derive(Clone, Debug)]
pub struct Recorded {
    /// What it is.
    pub finding: Finding,
    /// The minimized input.
    pub input: String,
    /// Where it was written, when it was.
    pub path: Option<PathBuf>,
    /// How many inputs showed it.
    pub hits: u64,
}

/// What fuzzing one target did.
#[derive(Clone, Debug)]
pub struct Report {
    /// The target.
    pub target: &'static str,
    /// Inputs run.
    pub iterations: u64,
    /// Time spent running them (minimization excluded).
    pub elapsed: Duration,
    /// Distinct findings.
    pub findings: Vec<Recorded>,
    /// Whether the run stopped early, after a hang or memory growth left a worker thread behind.
    pub stopped_after_hang: bool,
}

impl Report {
    /// Inputs per second.
    pub fn rate(&self) -> f64 {
        self.iterations as f64 / self.elapsed.as_secs_f64().max(1e-9)
    }
}

/// How many recent mutants are kept to mutate further.
const POOL: usize = 512;

/// Fuzzes `target`; `log` receives a line per finding as it is found.
pub fn fuzz(target: &Arc<dyn Target>, options: &Options, log: &mut dyn FnMut(&str)) -> Report {
    let seeds = target.seeds();
    let mut rng = Rng::new(options.seed ^ hash(target.name()));
    let mut pool: Vec<String> = Vec::new();
    let mut report =
        Report { target: target.name(), iterations: 0, elapsed: Duration::ZERO, findings: Vec::new(), stopped_after_hang: false };
    let started = Instant::now();
    let mut minimizing = Duration::ZERO;
    loop {
        let done = match options.budget {
            Budget::Time(limit) => started.elapsed() >= limit,
            Budget::Iterations(n) => report.iterations >= n,
        };
        if done {
            break;
        }
        let base = if pool.is_empty() || rng.one_in(2) { rng.pick(seeds).clone() } else { rng.pick(&pool).clone() };
        let other = rng.pick(seeds);
        let input = target.mutate(&mut rng, &base, other);
        let t = target.clone();
        let owned = input.clone();
        let verdict = run_guarded(target.deadline(), move || t.run(&owned));
        report.iterations += 1;
        if rng.one_in(4) {
            if pool.len() < POOL {
                pool.push(input.clone());
            } else {
                let i = rng.below(POOL);
                pool[i] = input.clone();
            }
        }
        let Verdict::Finding(finding) = verdict else { continue };
        let k = finding.key();
        if let Some(known) = report.findings.iter_mut().find(|r| r.finding.key() == k) {
            known.hits += 1;
            continue;
        }
        log(&format!("[{}] finding at input {}: {}", target.name(), report.iterations, finding.summary()));
        let t0 = Instant::now();
        let small = minimize(target, &input, &finding, options.minimize_for);
        minimizing += t0.elapsed();
        let path = options.write_fixtures.then(|| write_fixture(target.as_ref(), &small)).flatten();
        if let Some(p) = &path {
            log(&format!("[{}] minimized from {} to {} bytes: {}", target.name(), input.len(), small.len(), p.display()));
        }
        let hang = finding.runaway();
        report.findings.push(Recorded { finding, input: small, path, hits: 1 });
        if hang {
            // The runaway worker cannot be stopped; more of them would only take the machine.
            report.stopped_after_hang = true;
            break;
        }
    }
    report.elapsed = started.elapsed().saturating_sub(minimizing);
    report
}

/// Writes a finding to `tests/fuzz-regressions/<target>/<hash>.<ext>`; returns the path.
fn write_fixture(target: &dyn Target, input: &str) -> Option<PathBuf> {
    let dir = crate::regressions_dir(target.name());
    std::fs::create_dir_all(&dir).ok()?;
    let path = dir.join(format!("{:08x}.{}", hash(input) as u32, target.extension()));
    std::fs::write(&path, input).ok()?;
    Some(path)
}
