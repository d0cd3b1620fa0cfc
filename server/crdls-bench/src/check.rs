//! `crdls-bench check [COPIES] [RUNS] [CRDLS_BINARY]`: the real `crdls check` on a large tree built in a
//! temporary directory from the shared corpus: its CRDs once (given with `--crds`) and its custom-resource
//! files copied COPIES times (defaults: 40 copies, that is 46,080 files; 3 runs; `target/profiling/crdls`, built by `cargo build --profile profiling -p crdls`).
//! Reports the median wall time, the peak RSS of the child and its CPU use ((user + sys) / wall),
//! measured with `/usr/bin/time -v` when it is there, else by polling `/proc/<pid>`.

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

/// What one run of the child cost.
struct Sample {
    wall: Duration,
    /// Peak resident memory, in KiB.
    peak_kib: u64,
    /// User plus system CPU time.
    cpu: Duration,
}

/// Copies every file below `from` to the same place below `to`.
fn copy_tree(from: &Path, to: &Path) -> std::io::Result<usize> {
    let mut copied = 0;
    std::fs::create_dir_all(to)?;
    let mut entries: Vec<_> = std::fs::read_dir(from)?.flatten().collect();
    entries.sort_by_key(|e| e.file_name());
    for entry in entries {
        let target = to.join(entry.file_name());
        if entry.file_type()?.is_dir() {
            copied += copy_tree(&entry.path(), &target)?;
        } else {
            std::fs::copy(entry.path(), &target)?;
            copied += 1;
        }
    }
    Ok(copied)
}

/// The tree for `copies`: `crds/` once and `crs/copy-NNN/` per copy, built once per temporary directory
/// and reused by later runs (a marker beside it says it is complete).
fn tree(corpus: &Path, copies: usize) -> std::io::Result<(PathBuf, usize)> {
    let root = std::env::temp_dir().join("crdls-bench-check").join(copies.to_string());
    let marker = root.with_extension("complete");
    let per_copy = walk_count(&corpus.join("crs"));
    if marker.is_file() && root.is_dir() {
        return Ok((root, per_copy * copies));
    }
    let _ = std::fs::remove_dir_all(&root);
    copy_tree(&corpus.join("crds"), &root.join("crds"))?;
    let mut files = 0;
    for copy in 0..copies {
        files += copy_tree(&corpus.join("crs"), &root.join("crs").join(format!("copy-{copy:03}")))?;
    }
    std::fs::write(&marker, b"")?;
    Ok((root, files))
}

fn walk_count(dir: &Path) -> usize {
    let Ok(entries) = std::fs::read_dir(dir) else { return 0 };
    entries.flatten().map(|e| if e.path().is_dir() { walk_count(&e.path()) } else { 1 }).sum()
}

/// `h:mm:ss` or `m:ss.ss` as `/usr/bin/time` prints a duration, or plain seconds.
fn seconds(field: &str) -> Option<f64> {
    field.split(':').try_fold(0.0, |acc, part| Some(acc * 60.0 + part.trim().parse::<f64>().ok()?))
}

/// Runs `crdls check crs --crds crds` in `root` once, its report written to `out`.
fn run_once(binary: &Path, root: &Path, out: &Path) -> std::io::Result<Sample> {
    let time = Path::new("/usr/bin/time");
    let stdout = std::fs::File::create(out)?;
    let start = Instant::now();
    if time.is_file() {
        let output = Command::new(time)
            .arg("-v")
            .arg(binary)
            .args(["check", "crs", "--crds", "crds", "--color", "never"])
            .current_dir(root)
            .stdin(Stdio::null())
            .stdout(stdout)
            .stderr(Stdio::piped())
            .output()?;
        let wall = start.elapsed();
        let stderr = String::from_utf8_lossy(&output.stderr);
        let field = |name: &str| stderr.lines().find_map(|l| l.trim().strip_prefix(name).map(str::trim).map(str::to_string));
        let peak_kib = field("Maximum resident set size (kbytes):").and_then(|v| v.parse().ok()).unwrap_or(0);
        let user = field("User time (seconds):").and_then(|v| seconds(&v)).unwrap_or(0.0);
        let sys = field("System time (seconds):").and_then(|v| seconds(&v)).unwrap_or(0.0);
        return Ok(Sample { wall, peak_kib, cpu: Duration::from_secs_f64(user + sys) });
    }
    // No `time`: poll the child's VmHWM and its CPU ticks until it exits.
    let mut child = Command::new(binary)
        .args(["check", "crs", "--crds", "crds", "--color", "never"])
        .current_dir(root)
        .stdin(Stdio::null())
        .stdout(stdout)
        .stderr(Stdio::null())
        .spawn()?;
    let proc_dir = PathBuf::from(format!("/proc/{}", child.id()));
    let (mut peak_kib, mut ticks) = (0, 0);
    while child.try_wait()?.is_none() {
        if let Ok(status) = std::fs::read_to_string(proc_dir.join("status")) {
            let hwm = status.lines().find_map(|l| l.strip_prefix("VmHWM:")).and_then(|v| v.split_whitespace().next()?.parse().ok());
            peak_kib = peak_kib.max(hwm.unwrap_or(0));
        }
        if let Ok(stat) = std::fs::read_to_string(proc_dir.join("stat")) {
            // Fields 14 and 15 (utime, stime) after the parenthesised command name.
            let rest = stat.rsplit_once(')').map_or("", |(_, r)| r);
            let fields: Vec<u64> = rest.split_whitespace().skip(11).take(2).filter_map(|f| f.parse().ok()).collect();
            ticks = ticks.max(fields.iter().sum());
        }
        std::thread::sleep(Duration::from_millis(5));
    }
    // Linux counts CPU time in ticks of 1/100 s (USER_HZ).
    Ok(Sample { wall: start.elapsed(), peak_kib, cpu: Duration::from_millis(ticks * 10) })
}

/// The closing line of the human report: what was checked.
fn summary_line(out: &Path) -> String {
    let text = std::fs::read_to_string(out).unwrap_or_default();
    text.lines().rev().find(|l| l.contains(" file") && l.contains(" documents")).unwrap_or("(no summary line)").to_string()
}

pub fn run(copies: usize, runs: usize, binary: &Path) {
    let corpus = Path::new("../shared/corpus");
    if !corpus.join("crds").is_dir() || !corpus.join("crs").is_dir() {
        println!("SKIPPED: crdls-bench check needs the shared corpus at {} (crds/ and crs/)", corpus.display());
        return;
    }
    if !binary.is_file() {
        println!("SKIPPED: no crdls binary at {} (build it with `cargo build --profile profiling -p crdls`)", binary.display());
        return;
    }
    let binary = binary.canonicalize().unwrap_or_else(|_| binary.to_path_buf());
    let (root, files) = match tree(corpus, copies) {
        Ok(tree) => tree,
        Err(e) => {
            println!("cannot build the tree: {e}");
            std::process::exit(2);
        }
    };
    println!("check: {} ({files} files in {copies} copies of the corpus's custom resources); {runs} runs, medians", root.display());
    let out = root.with_extension("report");
    let mut samples = Vec::new();
    for _ in 0..runs {
        match run_once(&binary, &root, &out) {
            Ok(sample) => samples.push(sample),
            Err(e) => {
                println!("cannot run {}: {e}", binary.display());
                std::process::exit(2);
            }
        }
    }
    let wall = crate::median(samples.iter().map(|s| s.wall).collect());
    let cpu = crate::median(samples.iter().map(|s| s.cpu).collect());
    let mut peaks: Vec<u64> = samples.iter().map(|s| s.peak_kib).collect();
    peaks.sort_unstable();
    let utilisation: Vec<String> = samples.iter().map(|s| format!("{:.2}", s.cpu.as_secs_f64() / s.wall.as_secs_f64())).collect();
    println!("  report: {}", summary_line(&out));
    println!(
        "  wall {:.2} s, peak RSS {:.0} MiB, CPU {:.2} s = {:.2} cores busy (per run: {})",
        wall.as_secs_f64(),
        peaks[peaks.len() / 2] as f64 / 1024.0,
        cpu.as_secs_f64(),
        cpu.as_secs_f64() / wall.as_secs_f64(),
        utilisation.join(", ")
    );
}
