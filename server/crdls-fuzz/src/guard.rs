//! The panic and hang oracles: each input runs on a worker thread of its own, under a deadline, with
//! panics caught and their messages recorded instead of printed. Threads a run starts (the language
//! server's runtime) are named after the run, so that their panics are recorded as the run's too.

use std::cell::Cell;
use std::collections::HashMap;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{mpsc, Mutex, Once};
use std::time::Duration;

/// The prefix of the names of every thread a run starts; the run's number follows it.
pub const THREAD_PREFIX: &str = "crdls-fuzz-";

/// The stack of a worker thread: a main thread's, as the CLI runs on one.
const WORKER_STACK: usize = 8 << 20;

/// What running one input showed.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Verdict {
    /// Nothing wrong.
    Pass,
    /// Something wrong.
    Finding(Finding),
}

/// A finding: what kind, and a description (a panic's message and location, or what an oracle saw).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Finding {
    /// The kind of finding.
    pub kind: FindingKind,
    /// What was seen.
    pub message: String,
}

/// The kinds of finding.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum FindingKind {
    /// A panic, located at its `file:line` (the same bug panics at the same place).
    Panic {
        /// Where it panicked.
        location: String,
    },
    /// The input ran past its deadline.
    Hang,
    /// The process's memory grew past [`MEMORY_LIMIT`] while the input ran.
    Memory,
    /// An oracle of the target failed (a range outside the text, a language-server mismatch).
    Oracle,
}

impl Finding {
    /// Whether the input may still be running on a worker left behind (a hang, or memory growth).
    pub fn runaway(&self) -> bool {
        matches!(self.kind, FindingKind::Hang | FindingKind::Memory)
    }

    /// Whether `other` is the same finding, for minimization (see [`Finding::key`]).
    pub fn same_as(&self, other: &Finding) -> bool {
        self.key() == other.key()
    }

    /// The identity of a finding across inputs: its kind and place, or an oracle's first words with
    /// their numbers blanked out.
    pub fn key(&self) -> String {
        match &self.kind {
            FindingKind::Panic { location } => format!("panic {location}"),
            FindingKind::Hang => "hang".to_string(),
            FindingKind::Memory => "memory".to_string(),
            FindingKind::Oracle => {
                let first = self.message.lines().next().unwrap_or_default();
                let cut = first.find(['(', '"']).unwrap_or(first.len());
                let words: String = first[..cut].chars().map(|c| if c.is_ascii_digit() { '#' } else { c }).collect();
                format!("oracle {words}")
            }
        }
    }

    /// A one-line summary.
    pub fn summary(&self) -> String {
        let first = self.message.lines().next().unwrap_or_default();
        match &self.kind {
            FindingKind::Panic { location } => format!("panic at {location}: {first}"),
            FindingKind::Hang => format!("hang: {first}"),
            FindingKind::Memory => format!("memory: {first}"),
            FindingKind::Oracle => format!("oracle: {first}"),
        }
    }
}

static INSTALL: Once = Once::new();
static NEXT_RUN: AtomicU64 = AtomicU64::new(1);
/// The panics of each run: where, and the message.
type PanicLog = HashMap<u64, Vec<(String, String)>>;

/// Panics recorded per run, with their locations.
static PANICS: Mutex<Option<PanicLog>> = Mutex::new(None);

thread_local! {
    /// The run this thread works for, when it is a worker.
    static RUN: Cell<u64> = const { Cell::new(0) };
}

/// The run a thread works for: a worker's own, or the number in a run's thread name.
fn current_run() -> u64 {
    let run = RUN.with(Cell::get);
    if run != 0 {
        return run;
    }
    std::thread::current()
        .name()
        .and_then(|n| n.strip_prefix(THREAD_PREFIX))
        .and_then(|rest| rest.split('-').next()?.parse().ok())
        .unwrap_or(0)
}

/// Installs, once, a panic hook that records the panics of runs and leaves every other panic to the
/// hook that was there before (a test's panic still prints).
pub fn install_hook() {
    INSTALL.call_once(|| {
        let previous = std::panic::take_hook();
        std::panic::set_hook(Box::new(move |info| {
            let run = current_run();
            if run == 0 {
                previous(info);
                return;
            }
            let location = info.location().map_or_else(|| "unknown".to_string(), |l| format!("{}:{}", l.file(), l.line()));
            let message = payload_text(info.payload());
            let mut panics = PANICS.lock().unwrap_or_else(|e| e.into_inner());
            panics.get_or_insert_with(HashMap::new).entry(run).or_default().push((location, message));
        }));
    });
}

fn payload_text(payload: &(dyn std::any::Any + Send)) -> String {
    if let Some(s) = payload.downcast_ref::<&str>() {
        (*s).to_string()
    } else if let Some(s) = payload.downcast_ref::<String>() {
        s.clone()
    } else {
        "a panic with a non-string payload".to_string()
    }
}

/// The panics recorded for `run` so far, taken.
fn take_panics(run: u64) -> Vec<(String, String)> {
    let mut panics = PANICS.lock().unwrap_or_else(|e| e.into_inner());
    panics.as_mut().and_then(|p| p.remove(&run)).unwrap_or_default()
}

/// A name for a thread working for the current run (for runtimes a target starts).
pub fn thread_name() -> String {
    format!("{THREAD_PREFIX}{}-worker", current_run())
}

/// Runs `f` on a worker thread under `deadline`. A panic there, or in any thread the run named after
/// itself, is a finding; so is an `Err` from `f` (an oracle) and running past the deadline (the
/// worker is then left behind: threads cannot be stopped).
pub fn run_guarded(deadline: Duration, f: impl FnOnce() -> Result<(), String> + Send + 'static) -> Verdict {
    install_hook();
    let run = NEXT_RUN.fetch_add(1, Ordering::Relaxed);
    let (tx, rx) = mpsc::channel();
    let spawned = std::thread::Builder::new().name(format!("{THREAD_PREFIX}{run}")).stack_size(WORKER_STACK).spawn(move || {
        RUN.with(|r| r.set(run));
        let result = std::panic::catch_unwind(std::panic::AssertUnwindSafe(f));
        let _ = tx.send(result.map_err(|payload| payload_text(payload.as_ref())));
    });
    if let Err(e) = spawned {
        return Verdict::Finding(Finding { kind: FindingKind::Oracle, message: format!("cannot start a worker thread: {e}") });
    }
    let outcome = wait(&rx, deadline);
    if let Err(Waited::Memory(bytes)) = outcome {
        let message = format!("the process held {} MiB while the input ran", bytes >> 20);
        return Verdict::Finding(Finding { kind: FindingKind::Memory, message });
    }
    let panics = take_panics(run);
    if let Some((location, message)) = panics.into_iter().next() {
        return Verdict::Finding(Finding { kind: FindingKind::Panic { location }, message });
    }
    match outcome {
        Ok(Ok(Ok(()))) => Verdict::Pass,
        Ok(Ok(Err(message))) => Verdict::Finding(Finding { kind: FindingKind::Oracle, message }),
        // A panic on a thread the run did not name (one the code under test started and resumed on
        // the worker): its message is known, its place is not.
        Ok(Err(message)) => Verdict::Finding(Finding { kind: FindingKind::Panic { location: "unknown".into() }, message }),
        Err(Waited::Memory(_)) => unreachable!("handled above"),
        Err(Waited::Timeout) => {
            Verdict::Finding(Finding { kind: FindingKind::Hang, message: format!("no result within {} s", deadline.as_secs_f64()) })
        }
        Err(Waited::Disconnected) => Verdict::Finding(Finding {
            kind: FindingKind::Panic { location: "unknown".into() },
            message: "the worker ended without a result".into(),
        }),
    }
}

/// The most memory the process may hold while an input runs (the harness itself needs a few hundred MiB).
pub const MEMORY_LIMIT: u64 = 3 << 30;

/// Why no result came.
enum Waited {
    Timeout,
    Disconnected,
    Memory(u64),
}

/// Waits for the worker's result until `deadline`, watching the process's memory meanwhile.
fn wait<T>(rx: &mpsc::Receiver<T>, deadline: Duration) -> Result<T, Waited> {
    let until = std::time::Instant::now() + deadline;
    loop {
        let left = until.saturating_duration_since(std::time::Instant::now());
        if left.is_zero() {
            return Err(Waited::Timeout);
        }
        match rx.recv_timeout(left.min(Duration::from_millis(100))) {
            Ok(value) => return Ok(value),
            Err(mpsc::RecvTimeoutError::Disconnected) => return Err(Waited::Disconnected),
            Err(mpsc::RecvTimeoutError::Timeout) => {
                if let Some(bytes) = resident_bytes().filter(|&b| b > MEMORY_LIMIT) {
                    return Err(Waited::Memory(bytes));
                }
            }
        }
    }
}

/// The process's resident memory, where `/proc` tells it (Linux).
fn resident_bytes() -> Option<u64> {
    let statm = std::fs::read_to_string("/proc/self/statm").ok()?;
    let pages: u64 = statm.split_whitespace().nth(1)?.parse().ok()?;
    Some(pages * 4096)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn panics_errors_and_hangs_are_findings() {
        let second = Duration::from_secs(5);
        assert_eq!(run_guarded(second, || Ok(())), Verdict::Pass);
        let Verdict::Finding(f) = run_guarded(second, || panic!("boom")) else { panic!("a panic passed") };
        assert!(matches!(f.kind, FindingKind::Panic { ref location } if location.contains("guard.rs")), "{f:?}");
        assert_eq!(f.message, "boom");
        let Verdict::Finding(f) = run_guarded(second, || Err("mismatch".into())) else { panic!("an error passed") };
        assert_eq!(f.kind, FindingKind::Oracle);
        let Verdict::Finding(f) = run_guarded(Duration::from_millis(50), || {
            std::thread::sleep(Duration::from_millis(500));
            Ok(())
        }) else {
            panic!("a hang passed")
        };
        assert_eq!(f.kind, FindingKind::Hang);
    }
}
