//! The command line: `crdls check` (and, later, the language server). Kept in the library so tests
//! drive it in-process with their own input and output.

use std::io::{Read, Write};
use std::path::{Path, PathBuf};
use std::sync::Arc;

use clap::{Parser, Subcommand, ValueEnum};
use crdls_crd::{Crd, CrdIndex};
use crdls_ide::{files, Config, CONFIG_FILE};
use crdls_schema::check_stream;
use crdls_yaml::Severity;

use crate::parallel;
use crate::report::{self, FileReport, Format, RenderOptions, Summary};

/// crdls: what the Kubernetes API server would say about your CRDs and custom resources, before you apply them.
#[derive(Debug, Parser)]
#[command(name = "crdls", version, about, long_about = None)]
pub struct Cli {
    #[command(subcommand)]
    command: Option<Command>,
}

#[derive(Debug, Subcommand)]
enum Command {
    /// Check custom resources against the CRDs found among the paths and in --crds.
    Check(CheckArgs),
    /// Print the estimated cost of every CEL rule of the CRDs among the paths, as the API server
    /// computes it, against the per-rule and per-version limits (exit code 1 when over one).
    Cost(crate::cost::CostArgs),
    /// Run the language server over stdio (also what `crdls` with no arguments does).
    Lsp(LspArgs),
}

#[derive(Debug, clap::Args)]
struct LspArgs {
    /// Accepted for vscode-languageclient, which appends it; stdio is the only transport.
    #[arg(long)]
    stdio: bool,
}

#[derive(Debug, clap::Args)]
struct CheckArgs {
    /// Files or directories to check (directories are searched recursively for .yaml, .yml and .json);
    /// `-` reads a stream from standard input (kustomize or helm output).
    #[arg(value_name = "PATH", default_value = ".")]
    paths: Vec<PathBuf>,
    /// More files or directories to read CRDs from; their own problems are not reported.
    #[arg(long = "crds", value_name = "PATH")]
    crds: Vec<PathBuf>,
    /// Output format.
    #[arg(long, value_enum, default_value_t = FormatArg::Human)]
    format: FormatArg,
    /// Report unknown fields as errors, like `kubectl apply --validate=strict`, instead of warnings.
    #[arg(long)]
    strict: bool,
    /// When to colour human output.
    #[arg(long, value_enum, default_value_t = ColorArg::Auto)]
    color: ColorArg,
    /// The objects' old versions, to check an update as the API server does (transition rules with
    /// `oldSelf`, ratcheting of unchanged invalid values): files or directories, or `git:REF` for the
    /// version of each checked file at a git revision (`git:HEAD`, `git:origin/main`).
    #[arg(long = "old", value_name = "PATH|git:REF")]
    old: Vec<String>,
    /// Rewrite files in place with the fixes that need no judgement (a misspelled field, enum value or
    /// kind; a number that must be a string), then report what is left.
    #[arg(long)]
    fix: bool,
}

#[derive(Clone, Copy, Debug, ValueEnum)]
enum FormatArg {
    Human,
    Json,
    Github,
    Sarif,
}

#[derive(Clone, Copy, Debug, ValueEnum)]
enum ColorArg {
    Auto,
    Always,
    Never,
}

/// Where the CLI reads and writes, so tests can supply their own.
pub struct Io<'a> {
    /// Standard input, for `-`.
    pub stdin: &'a mut dyn Read,
    /// Standard output: the report.
    pub stdout: &'a mut dyn Write,
    /// Standard error: usage and I/O errors.
    pub stderr: &'a mut dyn Write,
    /// Whether standard output is a terminal (for `--color auto`).
    pub stdout_is_terminal: bool,
    /// The directory relative paths start from; reported paths are shown relative to it.
    pub cwd: PathBuf,
}

/// Exit code: no errors found.
pub const EXIT_OK: i32 = 0;
/// Exit code: the check found errors.
pub const EXIT_ERRORS: i32 = 1;
/// Exit code: bad usage or an unreadable input.
pub const EXIT_USAGE: i32 = 2;

/// Whether the arguments ask for the language server: none at all, `lsp`, or `--stdio` (which
/// vscode-languageclient appends) outside a `check` command.
pub fn wants_language_server(args: &[String]) -> bool {
    let rest = args.get(1..).unwrap_or_default();
    match rest.first().map(String::as_str) {
        None | Some("lsp") => true,
        Some("check") | Some("cost") | Some("help") => false,
        Some(_) => rest.iter().any(|a| a == "--stdio"),
    }
}

/// Runs the command line with `args` (the program name first) and returns the exit code.
pub fn run(args: impl IntoIterator<Item = String>, io: &mut Io<'_>) -> i32 {
    let cli = match Cli::try_parse_from(args) {
        Ok(cli) => cli,
        Err(err) => {
            let code = if err.use_stderr() { EXIT_USAGE } else { EXIT_OK };
            let rendered = err.render().to_string();
            let target: &mut dyn Write = if err.use_stderr() { io.stderr } else { io.stdout };
            let _ = target.write_all(rendered.as_bytes());
            return code;
        }
    };
    match cli.command {
        Some(Command::Check(args)) => check(args, io),
        Some(Command::Cost(args)) => crate::cost::cost(args, io),
        Some(Command::Lsp(_)) | None => {
            // `main` starts the server before parsing; reaching here means the library was called directly.
            let _ =
                writeln!(io.stderr, "crdls: the language server speaks LSP over stdio; start it from an editor as `crdls` or `crdls lsp`");
            EXIT_USAGE
        }
    }
}

/// One input file read into memory.
struct Input {
    display: String,
    /// The file it was read from (`None` for standard input).
    path: Option<PathBuf>,
    text: String,
    /// Whether its problems are reported (false for `--crds` sources).
    report: bool,
}

fn check(args: CheckArgs, io: &mut Io<'_>) -> i32 {
    // `crdls.toml` in the working directory, under the command line's flags.
    let mut config = Config::default();
    match std::fs::read_to_string(io.cwd.join(CONFIG_FILE)) {
        Ok(text) => {
            if let Err(e) = config.merge_toml(&text) {
                let _ = writeln!(io.stderr, "crdls: {e}");
                return EXIT_USAGE;
            }
        }
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => {}
        Err(e) => {
            let _ = writeln!(io.stderr, "crdls: cannot read {CONFIG_FILE}: {e}");
            return EXIT_USAGE;
        }
    }
    if args.strict {
        config.strict = true;
    }
    let mut crd_sources = args.crds.clone();
    for pattern in &config.crd_paths {
        if pattern.contains('*') {
            crd_sources.extend(files::expand(&io.cwd, pattern));
        } else {
            crd_sources.push(PathBuf::from(pattern));
        }
    }
    let mut inputs: Vec<Input> = Vec::new();
    let mut failed = false;
    for (paths, report) in [(&args.paths, true), (&crd_sources, false)] {
        for path in paths {
            if path.as_os_str() == "-" {
                let mut text = String::new();
                match io.stdin.read_to_string(&mut text) {
                    Ok(_) => inputs.push(Input { display: "<stdin>".into(), path: None, text, report }),
                    Err(e) => {
                        let _ = writeln!(io.stderr, "crdls: cannot read standard input: {e}");
                        failed = true;
                    }
                }
                continue;
            }
            let path = io.cwd.join(path);
            match collect_files(&path) {
                Ok(files) => {
                    for file in files {
                        match std::fs::read(&file) {
                            Ok(bytes) => match String::from_utf8(bytes) {
                                Ok(text) => {
                                    inputs.push(Input { display: display_path(&file, &io.cwd), path: Some(file.clone()), text, report })
                                }
                                Err(_) => {
                                    let _ = writeln!(io.stderr, "crdls: {}: not UTF-8 text", file.display());
                                    failed = true;
                                }
                            },
                            Err(e) => {
                                let _ = writeln!(io.stderr, "crdls: cannot read {}: {e}", file.display());
                                failed = true;
                            }
                        }
                    }
                }
                Err(e) => {
                    let _ = writeln!(io.stderr, "crdls: {}: {e}", path.display());
                    failed = true;
                }
            }
        }
    }
    if failed {
        return EXIT_USAGE;
    }
    // A file given both as a path and under --crds is read once, and reported.
    let mut seen = std::collections::HashSet::new();
    inputs.retain(|i| seen.insert(i.display.clone()));

    let streams: Vec<crdls_yaml::Stream> = parallel::map(&inputs, |i| crdls_yaml::parse(&i.text));
    let mut index = CrdIndex::new();
    let crds = parallel::map(&streams, |stream| stream.documents.iter().flat_map(Crd::from_document).collect::<Vec<Crd>>());
    for (input, crds) in inputs.iter().zip(crds) {
        index.set_source(Arc::from(input.display.as_str()), crds);
    }
    let mut options = config.check_options();
    if !args.old.is_empty() {
        match old_objects(&args.old, &inputs, &io.cwd) {
            Ok(old) => options.old = Some(Arc::new(old)),
            Err(e) => {
                let _ = writeln!(io.stderr, "crdls: {e}");
                return EXIT_USAGE;
            }
        }
    }
    let mut summary = Summary { crds: index.len(), ..Summary::default() };
    let check_one = |stream: &crdls_yaml::Stream| {
        let mut diagnostics = check_stream(stream, &index, &options).diagnostics();
        config.apply_severity(&mut diagnostics);
        diagnostics
    };
    let mut streams = streams;
    let mut results: Vec<Vec<crdls_yaml::Diagnostic>> = vec![Vec::new(); inputs.len()];
    let reported_at: Vec<usize> = (0..inputs.len()).filter(|i| inputs[*i].report).collect();
    let checked = parallel::map(&reported_at, |i| check_one(&streams[*i]));
    for (i, diagnostics) in reported_at.iter().zip(checked) {
        results[*i] = diagnostics;
    }
    if args.fix {
        let (mut fixes, mut fixed_files) = (0, 0);
        for &i in &reported_at {
            let Some(path) = inputs[i].path.clone() else { continue };
            let edits = crdls_ide::automatic_edits(&inputs[i].text, &streams[i], &index, &results[i]);
            if edits.is_empty() {
                continue;
            }
            let text = crdls_ide::apply_edits(&inputs[i].text, &edits);
            if let Err(e) = std::fs::write(&path, &text) {
                let _ = writeln!(io.stderr, "crdls: cannot write {}: {e}", path.display());
                return EXIT_USAGE;
            }
            (fixes, fixed_files) = (fixes + edits.len(), fixed_files + 1);
            streams[i] = crdls_yaml::parse(&text);
            inputs[i].text = text;
            results[i] = check_one(&streams[i]);
        }
        let _ = writeln!(
            io.stderr,
            "crdls: made {fixes} {} in {fixed_files} {}",
            plural(fixes, "fix", "fixes"),
            plural(fixed_files, "file", "files")
        );
    }
    let reported: Vec<(&Input, &crdls_yaml::Stream)> = inputs.iter().zip(&streams).filter(|(i, _)| i.report).collect();
    let results: Vec<Vec<crdls_yaml::Diagnostic>> = reported_at.iter().map(|i| std::mem::take(&mut results[*i])).collect();
    let mut all = Vec::new();
    for ((_, stream), diagnostics) in reported.iter().zip(results) {
        summary.files += 1;
        summary.documents += stream.documents.len();
        summary.errors += diagnostics.iter().filter(|d| d.severity == Severity::Error).count();
        summary.warnings += diagnostics.iter().filter(|d| d.severity == Severity::Warning).count();
        all.push(diagnostics);
    }
    let files: Vec<FileReport<'_>> = inputs
        .iter()
        .filter(|i| i.report)
        .zip(&all)
        .map(|(input, diagnostics)| FileReport { path: &input.display, text: &input.text, diagnostics })
        .collect();
    let format = match args.format {
        FormatArg::Human => Format::Human,
        FormatArg::Json => Format::Json,
        FormatArg::Github => Format::Github,
        FormatArg::Sarif => Format::Sarif,
    };
    let color = match args.color {
        ColorArg::Always => true,
        ColorArg::Never => false,
        ColorArg::Auto => io.stdout_is_terminal && std::env::var_os("NO_COLOR").is_none(),
    };
    if let Err(e) = report::render(format, &files, &summary, &RenderOptions { color }, io.stdout) {
        let _ = writeln!(io.stderr, "crdls: cannot write the report: {e}");
        return EXIT_USAGE;
    }
    if summary.errors > 0 {
        EXIT_ERRORS
    } else {
        EXIT_OK
    }
}

/// The old objects from `--old` sources: files and directories, or each checked file at a git revision.
fn old_objects(sources: &[String], inputs: &[Input], cwd: &Path) -> Result<crdls_schema::OldObjects, String> {
    let mut old = crdls_schema::OldObjects::new();
    for source in sources {
        if let Some(rev) = source.strip_prefix("git:") {
            for input in inputs.iter().filter(|i| i.report) {
                let Some(path) = &input.path else { continue };
                if let Some(text) = git_show(rev, path)? {
                    old.add_stream(&crdls_yaml::parse(&text));
                }
            }
            continue;
        }
        let path = cwd.join(source);
        let files = collect_files(&path).map_err(|e| format!("--old {source}: {e}"))?;
        for file in files {
            let text = std::fs::read_to_string(&file).map_err(|e| format!("--old {}: {e}", file.display()))?;
            old.add_stream(&crdls_yaml::parse(&text));
        }
    }
    Ok(old)
}

/// A file's text at a git revision; `None` when the file did not exist there.
fn git_show(rev: &str, path: &Path) -> Result<Option<String>, String> {
    let dir = path.parent().unwrap_or(Path::new("."));
    let name = path.file_name().map(|n| n.to_string_lossy().to_string()).unwrap_or_default();
    let output = std::process::Command::new("git")
        .arg("-C")
        .arg(dir)
        .args(["show", &format!("{rev}:./{name}")])
        .output()
        .map_err(|e| format!("--old git:{rev}: cannot run git: {e}"))?;
    if output.status.success() {
        return Ok(Some(String::from_utf8_lossy(&output.stdout).into_owned()));
    }
    let stderr = String::from_utf8_lossy(&output.stderr);
    if stderr.contains("exists on disk, but not in") || stderr.contains("does not exist in") {
        return Ok(None);
    }
    Err(format!("--old git:{rev}: {}", stderr.trim()))
}

fn plural<'a>(n: usize, one: &'a str, many: &'a str) -> &'a str {
    if n == 1 {
        one
    } else {
        many
    }
}

/// The files a path stands for: itself (whatever its extension), or the YAML and JSON files below a directory, sorted.
pub(crate) fn collect_files(path: &Path) -> std::io::Result<Vec<PathBuf>> {
    let meta = std::fs::metadata(path)?;
    if meta.is_file() {
        return Ok(vec![path.to_path_buf()]);
    }
    let mut out = Vec::new();
    files::files_below(path, &mut out);
    out.sort();
    Ok(out)
}

/// A path as users expect to see it: relative to the working directory when below it, with forward
/// slashes, without `./`.
pub(crate) fn display_path(path: &Path, cwd: &Path) -> String {
    let shown = path.strip_prefix(cwd).unwrap_or(path);
    let s = shown.to_string_lossy().replace('\\', "/");
    let s = s.replace("/./", "/");
    s.strip_prefix("./").map(str::to_string).unwrap_or(s)
}
