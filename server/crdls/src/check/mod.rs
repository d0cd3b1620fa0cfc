//! `crdls check`: find the inputs, read each once for its role and CRDs (pass 1, keeping only the
//! index), then check every reported file with the one pipeline the language server also uses and
//! report it as soon as the files before it are done (pass 2, a bounded number of files in flight),
//! apply fixes when asked, and end with a summary that says how far each document was checked.

mod fix;
mod inputs;
mod objects;
mod rendered;

use std::borrow::Cow;
use std::collections::HashMap;
use std::io::Write as _;
use std::path::PathBuf;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;

use clap::ValueEnum;
use crdls_check::{check_stream_as, CheckOptions, DocumentKind, FileCheck, FileMode};
use crdls_crd::{Crd, CrdIndex, Origin, SourceKind};
use crdls_diagnostics::{Diagnostic, Severity};
use crdls_sources::Network;
use crdls_workspace::{files, sources, trust, ClusterSetting, Config, FileRole, Roles, Trust, CONFIG_FILE};
use crdls_yaml::Stream;
use rayon::prelude::*;

use crate::io::{Io, EXIT_ERRORS, EXIT_OK, EXIT_USAGE};
use crate::parallel;
use crate::report::{Coverage, FileReport, Format, RenderOptions, Reporter, Summary, Unvalidated};

use crdls_diagnostics::codes;
use inputs::Input;
pub(crate) use inputs::{collect_files, display_path};

#[derive(Debug, clap::Args)]
pub struct CheckArgs {
    /// Files or directories to check (directories are searched recursively for .yaml, .yml and .json);
    /// `-` reads a stream from standard input (kustomize or helm output).
    #[arg(value_name = "PATH", default_value = ".")]
    paths: Vec<PathBuf>,
    /// More CRDs: files, directories, Helm chart archives (`.tgz`), or URLs (`https://...`, fetched
    /// once into the cache; `#sha256=HEX` pins the content). Their own problems are not reported.
    #[arg(long = "crds", value_name = "PATH|URL")]
    crds: Vec<String>,
    /// Also read the CRDs the cluster serves, through the current kubeconfig context (listed once,
    /// then cached like a URL).
    #[arg(long)]
    cluster: bool,
    /// The kubeconfig context for --cluster (implies --cluster).
    #[arg(long, value_name = "NAME")]
    context: Option<String>,
    /// The kubeconfig file for --cluster (implies --cluster); the default is $KUBECONFIG, else ~/.kube/config.
    #[arg(long, value_name = "PATH")]
    kubeconfig: Option<PathBuf>,
    /// Trust crdls.toml in the working directory with what runs programs, reads credentials or
    /// touches the network: its cluster (and kubeconfig), URL sources, CRD paths outside the
    /// directory. Without it those settings are not used (flags on the command line always are).
    /// `CRDLS_TRUST_WORKSPACE` takes 1/0, true/false, yes/no, on/off.
    #[arg(long, env = "CRDLS_TRUST_WORKSPACE", value_parser = clap::builder::BoolishValueParser::new())]
    trust_workspace: bool,
    /// A host that a URL given with --crds (or crdPaths) may be redirected to, besides its own (`*` for
    /// any); repeat for several. GitHub's release-asset hosts are allowed unless redirectHosts says
    /// otherwise.
    #[arg(long = "redirect-host", value_name = "HOST")]
    redirect_hosts: Vec<String>,
    /// Fetch URLs and the cluster's CRDs again even when they are cached.
    #[arg(long, conflicts_with = "offline")]
    refresh: bool,
    /// Never touch the network: URLs and the cluster come from the cache only, and one that is not
    /// cached is a usage error (exit code 2).
    #[arg(long)]
    offline: bool,
    /// List every CRD source on standard error: how many CRDs each gave, and where a download is cached;
    /// and, for each object whose CRD is defined more than once, which definition it used and why.
    #[arg(long, short = 'v')]
    verbose: bool,
    /// Output format.
    #[arg(long, value_enum, default_value_t = FormatArg::Human)]
    format: FormatArg,
    /// Report unknown fields as errors, like `kubectl apply --validate=strict`, instead of warnings.
    #[arg(long)]
    strict: bool,
    /// Fail when an object could not be validated because no known CRD serves it (as kubeconform does
    /// for a missing schema): `resource/no-crd` and `resource/undeclared-kind` become errors, and a run
    /// that found nothing to check fails.
    #[arg(long)]
    fail_unchecked: bool,
    /// Also walk test material: `testdata` directories (which the Go tool ignores) and expected outputs
    /// such as golden files (`*.golden.yaml`, `expected.yaml`), skipped by default; a file named as a
    /// path is always checked. Or `includeTestdata = true` in crdls.toml.
    #[arg(long)]
    include_testdata: bool,
    /// The Kubernetes version whose API server is asked (`1.31`): it decides the CEL environment a new
    /// CRD's rules compile in. The default is the newest crdls knows (or `kubeVersion` in crdls.toml).
    #[arg(long, value_name = "X.Y", value_parser = crate::cli::KnownValues(crate::cli::kube_versions))]
    kube_version: Option<String>,
    /// When to colour human output.
    #[arg(long, value_enum, default_value_t = ColorArg::Auto)]
    color: ColorArg,
    /// The objects' old versions, to check an update as the API server does (transition rules with
    /// `oldSelf`, ratcheting of unchanged invalid values): files or directories, or `git:REF` for the
    /// version of each checked file at a git revision (`git:HEAD`, `git:origin/main`).
    #[arg(long = "old", value_name = "PATH|git:REF")]
    old: Vec<String>,
    /// Check each object as a write to this subresource of it, as `kubectl --subresource` sends it:
    /// `status` takes the spec and metadata of the old object (`--old`; without one, of the document
    /// itself) and the status of the document, validated against the old status. A document can
    /// also say it for itself with a line `# crdls: subresource=status`.
    #[arg(long, value_enum, value_name = "NAME")]
    subresource: Option<SubresourceArg>,
    /// Rewrite files in place with the fixes that need no judgement (a misspelled field, enum value or
    /// kind; a number that must be a string), list each change, then report what is left.
    #[arg(long, conflicts_with = "diff")]
    fix: bool,
    /// Show the fixes `--fix` would make as a unified diff, without writing anything (exit code 1 when
    /// there is something to fix).
    #[arg(long)]
    diff: bool,
}

#[derive(Clone, Copy, Debug, ValueEnum)]
enum FormatArg {
    Human,
    Json,
    Github,
    Sarif,
}

#[derive(Clone, Copy, Debug, ValueEnum)]
enum SubresourceArg {
    Status,
}

#[derive(Clone, Copy, Debug, ValueEnum)]
enum ColorArg {
    Auto,
    Always,
    Never,
}

/// Runs `crdls check`.
pub fn check(args: CheckArgs, io: &mut Io<'_>) -> i32 {
    let trust = if args.trust_workspace { Trust::Trusted } else { Trust::Restricted };
    let mut config = match read_config(io, trust) {
        Ok(config) => config,
        Err(e) => {
            let _ = writeln!(io.stderr, "crdls: {e}");
            return EXIT_USAGE;
        }
    };
    config.strict |= args.strict;
    config.fail_unchecked |= args.fail_unchecked;
    config.include_testdata |= args.include_testdata;
    if let Some(version) = &args.kube_version {
        match crdls_workspace::config::parse_kube_version(version) {
            Ok(minor) => config.kube_version = minor,
            Err(e) => {
                let _ = writeln!(io.stderr, "crdls: --kube-version: {e}");
                return EXIT_USAGE;
            }
        }
    }
    config.redirect_hosts.extend(args.redirect_hosts.iter().cloned());
    // `--crds` comes before crdPaths; URLs among them are fetched below, with the cluster.
    config.crd_paths.splice(0..0, args.crds.iter().cloned());
    if args.cluster || args.context.is_some() || args.kubeconfig.is_some() {
        let configured = config.cluster.take().unwrap_or_default();
        config.cluster = Some(ClusterSetting {
            context: args.context.clone().or(configured.context),
            kubeconfig: args.kubeconfig.as_ref().map(|p| p.to_string_lossy().into_owned()).or(configured.kubeconfig),
        });
    }
    let mut crd_sources = Vec::new();
    for pattern in sources::local_paths(&config.crd_paths) {
        if pattern.contains('*') {
            let expansion = files::expand(&io.cwd, &pattern);
            if let Some(limited) = &expansion.limited {
                let _ = writeln!(io.stderr, "crdls: warning: {pattern}: {limited}");
            }
            crd_sources.extend(expansion.files);
        } else {
            crd_sources.push(PathBuf::from(pattern));
        }
    }
    let mut found = inputs::read(&args.paths, &crd_sources, io.stdin, &io.cwd, config.walk_options());
    let network = match (args.offline, args.refresh) {
        (true, _) => Network::Offline,
        (_, true) => Network::Refresh,
        _ => Network::CacheFirst,
    };
    let (remote, remote_errors) = sources::fetch_remote(&config, &io.cwd, network, sources::Prompting::Allowed);
    for warning in remote.iter().filter_map(sources::External::stale_warning) {
        let _ = writeln!(io.stderr, "crdls: warning: {warning}");
    }
    for warning in remote.iter().filter_map(sources::External::not_cached_warning) {
        let _ = writeln!(io.stderr, "crdls: warning: {warning}");
    }
    found.inputs.extend(remote.into_iter().map(|r| Input::external(r, &io.cwd)));
    found.errors.extend(remote_errors.iter().map(ToString::to_string));
    if !found.errors.is_empty() {
        for e in &found.errors {
            let _ = writeln!(io.stderr, "crdls: {e}");
        }
        return EXIT_USAGE;
    }
    let mut inputs = found.inputs;
    let mut notes: Vec<String> = inputs::hidden_note(&found.hidden)
        .into_iter()
        .chain(inputs::test_material_note(&found.test_material))
        .chain(inputs::links_note(&found.links_out))
        .collect();

    // Pass 1: every input read once for its CRDs, and its role found; only the index and the roles are kept.
    let CrdsRead { crds, roles: file_roles, skipped } = match read_crds(&mut inputs) {
        Ok(read) => read,
        Err(errors) => {
            for e in &errors {
                let _ = writeln!(io.stderr, "crdls: {e}");
            }
            return EXIT_USAGE;
        }
    };
    notes.extend(skipped.iter().map(|s| format!("not read: {s}")));
    let (index, shadowing) = build_index(&inputs, crds);
    if args.verbose {
        for line in source_lines(&inputs, &index) {
            let _ = writeln!(io.stderr, "{line}");
        }
    }
    let mut options = config.check_options();
    if let Some(SubresourceArg::Status) = args.subresource {
        options.subresource = crdls_check::Subresource::Status;
    }
    if !args.old.is_empty() {
        match old_objects(&args.old, &inputs, &io.cwd) {
            Ok(old) => {
                options.old = Some(Arc::new(old));
                // A CRD compared with its previous version says which checked objects the change breaks.
                options.objects = Some(Arc::new(objects::CheckedObjects::new(&inputs, &file_roles)));
            }
            Err(e) => {
                let _ = writeln!(io.stderr, "crdls: {e}");
                return EXIT_USAGE;
            }
        }
    }
    let reported_at: Vec<usize> = (0..inputs.len()).filter(|i| inputs[*i].report).collect();
    let hints = chart_hints(&inputs, &file_roles, &io.cwd);
    let checker = Checker {
        inputs: &inputs,
        roles: &file_roles,
        index: &index,
        options: &options,
        config: &config,
        hints: &hints,
        verbose: args.verbose,
    };

    if args.fix || args.diff {
        let fixing = if args.diff { Fixing::Diff } else { Fixing::Write };
        match fix_files(&checker, &reported_at, fixing, io) {
            FixOutcome::Fixed => {}
            FixOutcome::Exit(code) => return code,
        }
    }

    // Pass 2: the reported files checked in parallel, a bounded number at a time, and reported in
    // their order as soon as the files before them are.
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
    let summary = Summary { crds: index.len(), crd_sources: source_counts(&inputs, &index), shadowing, ..Summary::default() };
    let mut report = Report::new(Reporter::new(format, RenderOptions { color, verbose: args.verbose }), summary, io);
    let mut unread = false;
    parallel::for_each_ordered(
        reported_at.len(),
        parallel::WINDOW,
        |k| checker.check(reported_at[k]),
        |k, checked| match checked {
            Ok(checked) => {
                for line in &checked.choices {
                    let _ = writeln!(report.stderr, "{line}");
                }
                report.file(&inputs[reported_at[k]].display, &checked)
            }
            Err(e) => {
                // The file could be read for its CRDs but no longer: it changed under the run.
                let _ = writeln!(report.stderr, "crdls: {e}");
                unread = true;
            }
        },
    );
    let Report { reporter, mut summary, mut stdout, stderr, written, .. } = report;
    // A run that checked no Kubernetes object or CRD (a directory of other tools' YAML) does not pass
    // for a clean run: it says so, and fails with --fail-unchecked.
    let nothing_checked = summary.checked() == 0;
    if summary.files == 0 {
        notes.insert(0, "no YAML or JSON file was found to check".into());
    } else if summary.documents == 0 {
        notes.insert(0, "the files hold no YAML document to check".into());
    } else if nothing_checked {
        let fails = if config.fail_unchecked { "so the run fails (--fail-unchecked)" } else { "--fail-unchecked makes this fail" };
        let what = match summary.documents {
            1 => "the one document is not a Kubernetes object (it lacks apiVersion or kind, or configures a tool)".to_string(),
            n => format!("none of the {n} documents is a Kubernetes object (each lacks apiVersion or kind, or configures a tool)"),
        };
        notes.insert(0, format!("nothing was checked: {what}; {fails}"));
    }
    if !summary.crd_sources.is_empty() {
        let shown: Vec<String> = summary.crd_sources.iter().map(|(name, n)| format!("{} from {name}", plural_count(*n, "CRD"))).collect();
        notes.push(format!("CRDs from outside the workspace: {}", shown.join(", ")));
    }
    summary.notes = notes;
    let code = if unread {
        EXIT_USAGE
    } else if summary.errors > 0 || (config.fail_unchecked && nothing_checked) {
        EXIT_ERRORS
    } else {
        EXIT_OK
    };
    match written.and_then(|()| reporter.finish(&summary, &mut stdout)).and_then(|()| stdout.flush()) {
        Ok(()) => code,
        // A reader that stopped early (`crdls check | head`) is not an error of ours: end quietly.
        Err(e) if e.kind() == std::io::ErrorKind::BrokenPipe => code,
        Err(e) => {
            let _ = writeln!(stderr, "crdls: cannot write the report: {e}");
            EXIT_USAGE
        }
    }
}

/// The second pass's report: the run's counts so far, and the report written a file at a time.
struct Report<'a> {
    reporter: Reporter,
    summary: Summary,
    /// Rendered charts (`helm template ... | crdls check -`) are reported against their templates.
    locator: rendered::Locator,
    /// Reports are written in many small pieces: buffered, and flushed after each file on a terminal.
    stdout: std::io::BufWriter<&'a mut dyn std::io::Write>,
    flush_each_file: bool,
    stderr: &'a mut dyn std::io::Write,
    /// After a failed write nothing more is written, but the counts still decide the exit code.
    written: std::io::Result<()>,
}

impl<'a> Report<'a> {
    fn new(reporter: Reporter, summary: Summary, io: &'a mut Io<'_>) -> Report<'a> {
        Report {
            reporter,
            summary,
            locator: rendered::Locator::new(&io.cwd),
            flush_each_file: io.stdout_is_terminal,
            stdout: std::io::BufWriter::with_capacity(1 << 16, &mut *io.stdout),
            stderr: &mut *io.stderr,
            written: Ok(()),
        }
    }

    /// Counts one checked file and writes its part of the report.
    fn file(&mut self, path: &str, checked: &Checked<'_>) {
        let summary = &mut self.summary;
        summary.files += 1;
        summary.documents += checked.documents;
        summary.errors += checked.diagnostics.iter().filter(|d| d.severity == Severity::Error).count();
        summary.warnings += checked.diagnostics.iter().filter(|d| d.severity == Severity::Warning).count();
        summary.coverage.add(&checked.coverage);
        if self.written.is_err() {
            return;
        }
        let origins = self.locator.origins(checked.rendered.as_ref(), &checked.diagnostics);
        let file = FileReport { path, text: &checked.text, diagnostics: &checked.diagnostics, origins: &origins };
        self.written = self.reporter.file(&file, &mut self.stdout);
        if self.written.is_ok() && self.flush_each_file {
            self.written = self.stdout.flush();
        }
    }
}

/// Pass 1: reads every input (in parallel) and keeps only its role and its CRDs, dropping the texts
/// of all but standard input. What each checked file is (a template, a patch, a test assertion)
/// decides how it is parsed and read; each thread keeps its own cache of what directories hold. A
/// text that cannot define a CRD (`may_define_crd`) is not parsed. Inputs that were skipped (found
/// while walking and not regular, or too large) leave the list and are returned as notes; any other
/// read failure is a usage error.
fn read_crds(inputs: &mut Vec<Input>) -> Result<CrdsRead, Vec<String>> {
    let read: Vec<(FileRole, Result<Vec<Crd>, inputs::Unread>)> = inputs
        .par_iter_mut()
        .map_init(Roles::new, |roles, input| {
            let role = input.path.as_deref().filter(|_| input.report).map_or(FileRole::Manifest, |p| roles.role_of(p));
            let crds = read_crds_of(input, &role);
            (role, crds)
        })
        .collect();
    let keep: Vec<bool> = read.iter().map(|(_, r)| !matches!(r, Err(inputs::Unread::Skipped(_)))).collect();
    let (mut crds, mut roles, mut skipped, mut errors) = (Vec::new(), Vec::new(), Vec::new(), Vec::new());
    for (role, outcome) in read {
        match outcome {
            Ok(found) => {
                crds.push(found);
                roles.push(role);
            }
            Err(inputs::Unread::Skipped(note)) => skipped.push(note),
            Err(inputs::Unread::Error(e)) => errors.push(e),
        }
    }
    let mut at = 0;
    inputs.retain(|_| (keep[at], at += 1).0);
    if !errors.is_empty() {
        return Err(errors);
    }
    Ok(CrdsRead { crds, roles, skipped })
}

/// The CRDs of one input, whose text is then dropped unless it cannot be read again.
fn read_crds_of(input: &mut Input, role: &FileRole) -> Result<Vec<Crd>, inputs::Unread> {
    let crds = {
        let text = input.read()?;
        if may_define_crd(&text) {
            // Schemas are built when a resource first needs them: from the file as it is then, or
            // from the text kept for what cannot be read again (standard input, archive members).
            let reader = match &input.path {
                Some(path) if matches!(input.kind, SourceKind::Url | SourceKind::Cluster) => {
                    crdls_workspace::files::reader_of_cached(path.clone())
                }
                Some(path) => crdls_workspace::files::reader_of(path.clone()),
                None => crdls_workspace::files::reader_of_text(Arc::from(&*text)),
            };
            role.crds(&text, reader)
        } else {
            Vec::new()
        }
    };
    // Only standard input cannot be read again.
    if input.path.is_some() || !input.report {
        input.text = None;
    }
    Ok(crds)
}

/// What the first pass keeps: each input's CRDs and role, in order, and a note per input skipped.
struct CrdsRead {
    crds: Vec<Vec<Crd>>,
    roles: Vec<FileRole>,
    skipped: Vec<String>,
}
/// `crdls.toml` in the working directory, under the command line's flags. Unless the user trusts the
/// workspace, what it asks for that would run a program, read a credential or touch the network is
/// not used, with a warning that names it.
fn read_config(io: &mut Io<'_>, trust: Trust) -> Result<Config, String> {
    let mut config = Config { trust, ..Config::default() };
    let withheld = match files::read_text(&io.cwd.join(CONFIG_FILE)) {
        Ok(text) => config.merge_workspace_toml(&text)?,
        Err(files::ReadError::Io(e)) if e.kind() == std::io::ErrorKind::NotFound => Vec::new(),
        Err(e) => return Err(format!("cannot read {CONFIG_FILE}: {e}")),
    };
    if !withheld.is_empty() {
        let how = "pass --trust-workspace, or set CRDLS_TRUST_WORKSPACE=1, to use them";
        let _ = writeln!(io.stderr, "crdls: warning: {}", trust::describe(&withheld, how));
    }
    Ok(config)
}

/// The index of every CRD among the inputs (`crds` holds each input's, in order). Notes name each CRD
/// defined in more than one input, with its definitions in precedence order (checked paths before
/// `--crds`); which one an object uses is decided per object (see `CrdIndex::resolve`).
fn build_index(inputs: &[Input], crds: Vec<Vec<Crd>>) -> (CrdIndex, Vec<String>) {
    let mut index = CrdIndex::new();
    let mut defined_in: Vec<(String, Vec<&Input>)> = Vec::new();
    let mut at: HashMap<String, usize> = HashMap::new();
    for (input, crds) in inputs.iter().zip(crds) {
        for crd in crds.iter().filter(|c| c.is_indexable()) {
            let i = *at.entry(crd.name.clone()).or_insert_with(|| {
                defined_in.push((crd.name.clone(), Vec::new()));
                defined_in.len() - 1
            });
            let sources = &mut defined_in[i].1;
            if !sources.iter().any(|s| s.display == input.display) {
                sources.push(input);
            }
        }
        index.set_source_from(Arc::from(input.display.as_str()), Origin { kind: input.kind, label: None }, crds);
    }
    let notes = defined_in
        .into_iter()
        .filter(|(_, sources)| sources.len() > 1)
        .map(|(name, mut sources)| {
            sources.sort_by_key(|s| s.kind);
            let names: Vec<String> = sources.iter().map(|s| source_name(s)).collect();
            format!(
                "CRD {name} is defined in {} places ({}): each object uses one that serves its version, the nearest to its file first (--verbose names it)",
                sources.len(),
                names.join(", ")
            )
        })
        .collect();
    (index, notes)
}

/// How notes name where a CRD came from: a checked file by its path, others with their kind.
fn source_name(input: &Input) -> String {
    match input.kind {
        SourceKind::Workspace | SourceKind::Url | SourceKind::Cluster => input.display.clone(),
        SourceKind::Configured => format!("--crds {}", input.display),
        SourceKind::ChartArchive => format!("chart archive {}", input.display),
    }
}

/// The CRD sources the user did not name as files, for the summary: each URL and cluster and each
/// chart archive, with how many CRDs each gave (`--verbose` lists every source).
fn source_counts(inputs: &[Input], index: &CrdIndex) -> Vec<(String, usize)> {
    let mut counts: Vec<(String, usize)> = Vec::new();
    for input in inputs.iter().filter(|i| !matches!(i.kind, SourceKind::Workspace | SourceKind::Configured)) {
        let crds = index.crds_of(&input.display).len();
        if crds == 0 {
            continue;
        }
        let name = match input.kind {
            SourceKind::ChartArchive => input.display.split(crdls_sources::archive::SEPARATOR).next().unwrap_or_default().to_string(),
            _ => input.display.clone(),
        };
        match counts.iter_mut().find(|(n, _)| *n == name) {
            Some((_, n)) => *n += crds,
            None => counts.push((name, crds)),
        }
    }
    counts
}

/// `--verbose`: every source that gave CRDs, with its kind, count and, for a download, its cached copy.
fn source_lines(inputs: &[Input], index: &CrdIndex) -> Vec<String> {
    let mut lines = vec!["crdls: CRD sources, in precedence order:".to_string()];
    for input in inputs {
        let crds = index.crds_of(&input.display).len();
        if crds == 0 {
            continue;
        }
        let mut line = format!("  {} ({}): {}", input.display, input.kind.describe(), plural_count(crds, "CRD"));
        if let (Some((downloaded, at)), Some(path)) = (input.fetched, &input.path) {
            let when = at.map(sources::describe_time).unwrap_or_else(|| "at an unknown time".into());
            let how = if downloaded { "fetched now" } else { "from the cache" };
            line.push_str(&format!(", {how} (cached {when} in {})", path.display()));
        }
        lines.push(line);
    }
    if lines.len() == 1 {
        lines.push("  none".into());
    }
    lines
}

fn plural_count(n: usize, one: &str) -> String {
    format!("{n} {}", if n == 1 { one.to_string() } else { format!("{one}s") })
}

/// One hint per Helm chart whose templates were among the checked files: on its `Chart.yaml` when that
/// was checked too, else on the chart's first template. Keyed by the input that gets it.
fn chart_hints(inputs: &[Input], roles: &[FileRole], cwd: &std::path::Path) -> HashMap<usize, Diagnostic> {
    let mut charts: Vec<(&std::path::Path, &str, Vec<usize>)> = Vec::new();
    for (i, role) in roles.iter().enumerate() {
        if let FileRole::HelmTemplate { chart_dir, chart_name } = role {
            match charts.iter_mut().find(|(dir, _, _)| *dir == chart_dir.as_path()) {
                Some((_, _, templates)) => templates.push(i),
                None => charts.push((chart_dir, chart_name, vec![i])),
            }
        }
    }
    let mut hints = HashMap::new();
    for (dir, name, templates) in charts {
        let chart_file = dir.join("Chart.yaml");
        let at = inputs.iter().position(|i| i.report && i.path.as_deref() == Some(chart_file.as_path())).unwrap_or(templates[0]);
        let shown = display_path(dir, cwd);
        let shown = if shown.is_empty() { ".".to_string() } else { shown };
        let hint = Diagnostic::new(
            crdls_diagnostics::TextRange::empty(0),
            Severity::Hint,
            codes::HELM_TEMPLATES,
            crdls_workspace::helm_template_hint(name, &shown, Some(templates.len())),
        );
        if inputs[at].report {
            hints.insert(at, hint);
        }
    }
    hints
}

/// Whether `text` may define a CRD: it names the kind, or holds an escape (`\u0043`, `\x43`, a line
/// continued with `\`) that could spell it. Other texts are not parsed in the first pass.
fn may_define_crd(text: &str) -> bool {
    text.contains("CustomResourceDefinition") || ["\\u", "\\U", "\\x", "\\\n", "\\\r"].iter().any(|escape| text.contains(escape))
}

/// What checking one file needs, shared by the threads that check files.
struct Checker<'a> {
    inputs: &'a [Input],
    roles: &'a [FileRole],
    index: &'a CrdIndex,
    options: &'a CheckOptions,
    config: &'a Config,
    /// The Helm chart hints, by the input that gets one.
    hints: &'a HashMap<usize, Diagnostic>,
    /// `--verbose`: say which definition each object used of a CRD defined more than once.
    verbose: bool,
}

/// One file checked, with what reporting it needs; its parse is dropped.
struct Checked<'a> {
    text: Cow<'a, str>,
    diagnostics: Vec<Diagnostic>,
    documents: usize,
    coverage: Coverage,
    /// For rendered output (`# Source:` lines), what locating its diagnostics in templates needs.
    rendered: Option<rendered::Rendered>,
    /// With `--verbose`, a line per object whose CRD is defined more than once: the definition used.
    choices: Vec<String>,
}

impl<'a> Checker<'a> {
    /// Reads input `i` again and checks it with the one pipeline.
    fn check(&self, i: usize) -> Result<Checked<'a>, String> {
        let text = self.read(i)?;
        let (stream, mode) = self.roles[i].parse(&text);
        let (check, diagnostics) = self.check_stream(i, &stream, &mode);
        let mut coverage = Coverage::default();
        count_coverage(&check, &mode, &mut coverage);
        let choices = if self.verbose { self.choices(i, &text, &stream) } else { Vec::new() };
        Ok(Checked { documents: stream.documents.len(), diagnostics, coverage, rendered: rendered::Rendered::of(&stream), text, choices })
    }

    /// The index as input `i` sees it: of a CRD defined more than once, its objects use the nearest
    /// definition that serves their version.
    fn index_for(&self, i: usize) -> CrdIndex {
        self.index.seen_from(&self.inputs[i].display)
    }

    /// For `--verbose`: which definition each object of input `i` used, where its CRD has several,
    /// and why each other one was not.
    fn choices(&self, i: usize, text: &str, stream: &Stream) -> Vec<String> {
        let index = self.index_for(i);
        let mut lines = None;
        let mut out = Vec::new();
        for root in stream.documents.iter().filter_map(|d| d.root.as_ref()) {
            let (Some(api_version), Some(kind)) =
                (root.get("apiVersion").and_then(|n| n.as_str()), root.get("kind").and_then(|n| n.as_str()))
            else {
                continue;
            };
            let definitions = index.definitions(api_version, kind);
            let [used, _, ..] = definitions.as_slice() else { continue };
            if crdls_crd::is_crd(root).is_some() {
                continue;
            }
            let version = crdls_crd::split_api_version(api_version).1;
            let line = lines.get_or_insert_with(|| crdls_yaml::LineIndex::new(text)).line_of(root.range.start) + 1;
            let why = crdls_crd::why_not_used(&definitions, version, |c| c.source.to_string());
            out.push(format!(
                "crdls: {}:{line}: {kind} {api_version} uses CRD {} in {}; {why}",
                self.inputs[i].display, used.crd.crd.name, used.crd.source
            ));
        }
        out
    }

    fn read(&self, i: usize) -> Result<Cow<'a, str>, String> {
        self.inputs[i].read().map_err(|unread| match unread {
            inputs::Unread::Skipped(e) | inputs::Unread::Error(e) => e,
        })
    }

    fn check_stream(&self, i: usize, stream: &Stream, mode: &FileMode) -> (FileCheck, Vec<Diagnostic>) {
        let check = check_stream_as(stream, &self.index_for(i), self.options, mode);
        let mut diagnostics = check.diagnostics();
        if let Some(hint) = self.hints.get(&i) {
            diagnostics.insert(0, hint.clone());
        }
        // Last, so the user's overrides hold for every diagnostic, the chart hint included.
        self.config.apply_severity(&mut diagnostics);
        (check, diagnostics)
    }

    /// The automatic fixes of input `i`, with the text they apply to.
    fn fixes(&self, i: usize) -> Result<(Cow<'a, str>, Vec<crdls_ide::Edit>), String> {
        let text = self.read(i)?;
        let (stream, mode) = self.roles[i].parse(&text);
        let (_, diagnostics) = self.check_stream(i, &stream, &mode);
        let edits = crdls_ide::automatic_edits(&text, &stream, &self.index_for(i), &diagnostics);
        Ok((text, edits))
    }
}

#[derive(Clone, Copy, PartialEq, Eq)]
enum Fixing {
    /// `--fix`: rewrite the files.
    Write,
    /// `--diff`: print what `--fix` would change.
    Diff,
}

enum FixOutcome {
    /// The files were fixed; report what is left.
    Fixed,
    /// The run ends with this exit code.
    Exit(i32),
}

/// `--fix` and `--diff`: every reported file on disk checked for automatic fixes, in parallel; in input
/// order, each fixed file is written (`--fix`, stopping at the first that cannot be) or its diff
/// printed (`--diff`, which then ends the run). The report that follows reads the fixed files again.
fn fix_files(checker: &Checker<'_>, reported_at: &[usize], fixing: Fixing, io: &mut Io<'_>) -> FixOutcome {
    let files: Vec<usize> = reported_at.iter().copied().filter(|&i| checker.inputs[i].path.is_some()).collect();
    let stop = AtomicBool::new(false);
    let mut changes: Vec<Vec<String>> = Vec::new();
    let mut failure: Option<String> = None;
    let mut diffs = false;
    let mut written: std::io::Result<()> = Ok(());
    let (stdout, stderr) = (&mut *io.stdout, &mut *io.stderr);
    parallel::for_each_ordered(
        files.len(),
        parallel::WINDOW,
        |k| if stop.load(Ordering::Relaxed) { Err(String::new()) } else { checker.fixes(files[k]) },
        |k, fixes| {
            if failure.is_some() {
                return;
            }
            let input = &checker.inputs[files[k]];
            let (text, edits) = match fixes {
                Ok(fixes) => fixes,
                Err(e) => {
                    failure = Some(e);
                    stop.store(true, Ordering::Relaxed);
                    return;
                }
            };
            if edits.is_empty() {
                return;
            }
            if fixing == Fixing::Diff {
                diffs = true;
                if written.is_ok() {
                    written = stdout.write_all(fix::unified_diff(&input.display, &text, &edits).as_bytes());
                }
                return;
            }
            let fixed = crdls_ide::apply_edits(&text, &edits);
            let path = input.path.as_deref().expect("only files are fixed");
            if let Err(e) = fix::write_if_unchanged(path, &text, &fixed) {
                failure = Some(e);
                stop.store(true, Ordering::Relaxed);
                return;
            }
            changes.push(fix::describe(&input.display, &text, &edits));
        },
    );
    if let Some(e) = failure {
        let _ = writeln!(stderr, "crdls: {e}");
        return FixOutcome::Exit(EXIT_USAGE);
    }
    if fixing == Fixing::Diff {
        return FixOutcome::Exit(match written {
            Ok(()) if !diffs => EXIT_OK,
            Ok(()) => EXIT_ERRORS,
            Err(e) if e.kind() == std::io::ErrorKind::BrokenPipe => EXIT_OK,
            Err(e) => {
                let _ = writeln!(stderr, "crdls: cannot write the diff: {e}");
                EXIT_USAGE
            }
        });
    }
    let fixes: usize = changes.iter().map(Vec::len).sum();
    for line in changes.iter().flatten() {
        let _ = writeln!(stderr, "fixed {line}");
    }
    let _ = writeln!(
        stderr,
        "crdls: made {fixes} {} in {} {}",
        plural(fixes, "fix", "fixes"),
        changes.len(),
        plural(changes.len(), "file", "files")
    );
    FixOutcome::Fixed
}

/// Adds what the documents of one file were to the run's coverage.
fn count_coverage(check: &FileCheck, mode: &FileMode, coverage: &mut Coverage) {
    match mode {
        FileMode::Template { .. } => {
            coverage.templates += check.documents.len();
            return;
        }
        FileMode::Patches | FileMode::JsonPatches | FileMode::Assertions | FileMode::TestObjects { merges: true } => {
            coverage.partial += check.documents.len();
            return;
        }
        FileMode::Objects | FileMode::Assembled | FileMode::TestObjects { merges: false } => {}
    }
    for doc in &check.documents {
        match &doc.kind {
            DocumentKind::Crd => coverage.crds += 1,
            DocumentKind::CustomResource { .. } => coverage.validated += 1,
            DocumentKind::BuiltIn { validated: true } => coverage.builtin_validated += 1,
            DocumentKind::BuiltIn { validated: false } => coverage.builtin += 1,
            DocumentKind::Unchecked { group } => {
                *coverage.unchecked.entry(group.clone()).or_default() += 1;
                *coverage.unchecked_why.entry(Unvalidated::from_codes(doc.diagnostics.iter().map(|d| d.code))).or_default() += 1;
            }
            DocumentKind::ConfigFile | DocumentKind::NotAnObject => {}
        }
    }
}

/// The old objects from `--old` sources: files and directories, or each checked file at a git revision.
fn old_objects(sources: &[String], inputs: &[Input], cwd: &std::path::Path) -> Result<crdls_check::OldObjects, String> {
    let mut old = crdls_check::OldObjects::new();
    for source in sources {
        if let Some(rev) = source.strip_prefix("git:") {
            crdls_workspace::git::check_revision(rev).map_err(|e| format!("--old git:{rev}: {e}"))?;
            for input in inputs.iter().filter(|i| i.report) {
                let Some(path) = &input.path else { continue };
                if let Some(text) = crdls_workspace::git::show(path, rev).map_err(|e| format!("--old git:{rev}: {e}"))? {
                    old.add_stream(&crdls_yaml::parse(&text));
                }
            }
            continue;
        }
        let path = cwd.join(source);
        let files = collect_files(&path).map_err(|e| format!("--old {source}: {e}"))?;
        for file in files {
            let text = files::read_text(&file).map_err(|e| format!("--old {}: {e}", file.display()))?;
            old.add_stream(&crdls_yaml::parse(&text));
        }
    }
    Ok(old)
}

fn plural<'a>(n: usize, one: &'a str, many: &'a str) -> &'a str {
    if n == 1 {
        one
    } else {
        many
    }
}

#[cfg(test)]
mod tests {
    #[test]
    fn every_spelling_of_the_crd_kind_is_parsed_in_the_first_pass() {
        let spellings = [
            "kind: CustomResourceDefinition\n",
            "{\"kind\": \"Custom\\u0052esourceDefinition\"}\n",
            "kind: \"Custom\\x52esourceDefinition\"\n",
            "kind: \"Custom\\U00000052esourceDefinition\"\n",
            "kind: \"Custom\\\n  ResourceDefinition\"\n",
            "kind: \"Custom\\\r\n  ResourceDefinition\"\r\n",
        ];
        for text in spellings {
            let stream = crdls_yaml::parse(text);
            let kind = stream.documents[0].root.as_ref().and_then(|r| r.get_str("kind"));
            assert_eq!(kind, Some("CustomResourceDefinition"), "{text:?} spells the kind");
            assert!(super::may_define_crd(text), "{text:?}");
        }
        assert!(!super::may_define_crd("apiVersion: v1\nkind: ConfigMap\ndata:\n  a: \"tab\\tnewline\\n\"\n"));
    }
}
