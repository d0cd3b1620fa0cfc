//! `crdls check`: read the inputs, index their CRDs, check every reported file with the one pipeline
//! the language server also uses, apply fixes when asked, and report with a summary that says how far
//! each document was checked.

mod fix;
mod inputs;
mod rendered;

use std::collections::HashMap;
use std::path::PathBuf;
use std::sync::Arc;

use clap::ValueEnum;
use crdls_check::{check_stream_as, DocumentKind, FileCheck, FileMode};
use crdls_crd::{Crd, CrdIndex, Origin, SourceKind};
use crdls_sources::Network;
use crdls_workspace::{files, sources, ClusterSetting, Config, FileRole, Roles, CONFIG_FILE};
use crdls_yaml::{Diagnostic, Severity, Stream};

use crate::cli::{Io, EXIT_ERRORS, EXIT_OK, EXIT_USAGE};
use crate::parallel;
use crate::report::{self, Coverage, FileReport, Format, RenderOptions, Summary};

use crdls_yaml::codes;
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
    /// Fetch URLs and the cluster's CRDs again even when they are cached.
    #[arg(long, conflicts_with = "offline")]
    refresh: bool,
    /// Never touch the network: URLs and the cluster come from the cache only, and one that is not
    /// cached is a usage error (exit code 2).
    #[arg(long)]
    offline: bool,
    /// List every CRD source on standard error: how many CRDs each gave, and where a download is cached.
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
    /// The Kubernetes version whose API server is asked (`1.31`): it decides the CEL environment a new
    /// CRD's rules compile in. The default is the newest crdls knows (or `kubeVersion` in crdls.toml).
    #[arg(long, value_name = "X.Y")]
    kube_version: Option<String>,
    /// When to colour human output.
    #[arg(long, value_enum, default_value_t = ColorArg::Auto)]
    color: ColorArg,
    /// The objects' old versions, to check an update as the API server does (transition rules with
    /// `oldSelf`, ratcheting of unchanged invalid values): files or directories, or `git:REF` for the
    /// version of each checked file at a git revision (`git:HEAD`, `git:origin/main`).
    #[arg(long = "old", value_name = "PATH|git:REF")]
    old: Vec<String>,
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
enum ColorArg {
    Auto,
    Always,
    Never,
}

/// Runs `crdls check`.
pub fn check(args: CheckArgs, io: &mut Io<'_>) -> i32 {
    let mut config = match read_config(io) {
        Ok(config) => config,
        Err(e) => {
            let _ = writeln!(io.stderr, "crdls: {e}");
            return EXIT_USAGE;
        }
    };
    config.strict |= args.strict;
    config.fail_unchecked |= args.fail_unchecked;
    if let Some(version) = &args.kube_version {
        match crdls_workspace::config::parse_kube_version(version) {
            Ok(minor) => config.kube_version = minor,
            Err(e) => {
                let _ = writeln!(io.stderr, "crdls: --kube-version: {e}");
                return EXIT_USAGE;
            }
        }
    }
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
            crd_sources.extend(files::expand(&io.cwd, &pattern));
        } else {
            crd_sources.push(PathBuf::from(pattern));
        }
    }
    let mut found = inputs::read(&args.paths, &crd_sources, io.stdin, &io.cwd);
    let network = match (args.offline, args.refresh) {
        (true, _) => Network::Offline,
        (_, true) => Network::Refresh,
        _ => Network::CacheFirst,
    };
    let (remote, remote_errors) = sources::fetch_remote(&config, &io.cwd, network, sources::Prompting::Allowed);
    for warning in remote.iter().filter_map(sources::External::stale_warning) {
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
    let mut notes: Vec<String> = inputs::hidden_note(&found.hidden).into_iter().collect();
    notes.extend(found.skipped.iter().map(|s| format!("not read: {s}")));

    // What each checked file is (a template, a patch, a test assertion) decides how it is parsed and read.
    let mut roles = Roles::new();
    let file_roles: Vec<FileRole> =
        inputs.iter().map(|i| i.path.as_deref().filter(|_| i.report).map_or(FileRole::Manifest, |p| roles.role_of(p))).collect();
    let parsed: Vec<(Stream, FileMode)> =
        parallel::map(&(0..inputs.len()).collect::<Vec<usize>>(), |&i| file_roles[i].parse(&inputs[i].text));
    let (mut streams, modes): (Vec<Stream>, Vec<FileMode>) = parsed.into_iter().unzip();
    let (index, shadowing) = build_index(&inputs, &streams, &modes);
    notes.extend(shadowing);
    if args.verbose {
        for line in source_lines(&inputs, &index) {
            let _ = writeln!(io.stderr, "{line}");
        }
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
    let check_one = |stream: &Stream, mode: &FileMode| {
        let check = check_stream_as(stream, &index, &options, mode);
        let mut diagnostics = check.diagnostics();
        config.apply_severity(&mut diagnostics);
        (check, diagnostics)
    };
    let reported_at: Vec<usize> = (0..inputs.len()).filter(|i| inputs[*i].report).collect();
    let mut results: HashMap<usize, (FileCheck, Vec<Diagnostic>)> =
        reported_at.iter().copied().zip(parallel::map(&reported_at, |i| check_one(&streams[*i], &modes[*i]))).collect();
    add_chart_hints(&inputs, &file_roles, &io.cwd, &mut results);

    if args.fix || args.diff {
        let mut changes = Vec::new();
        let mut diffs = String::new();
        for &i in &reported_at {
            let Some(path) = inputs[i].path.clone() else { continue };
            let edits = crdls_ide::automatic_edits(&inputs[i].text, &streams[i], &index, &results[&i].1);
            if edits.is_empty() {
                continue;
            }
            if args.diff {
                diffs.push_str(&fix::unified_diff(&inputs[i].display, &inputs[i].text, &edits));
                continue;
            }
            let text = crdls_ide::apply_edits(&inputs[i].text, &edits);
            if let Err(e) = fix::write_if_unchanged(&path, &inputs[i].text, &text) {
                let _ = writeln!(io.stderr, "crdls: {e}");
                return EXIT_USAGE;
            }
            changes.push((inputs[i].display.clone(), fix::describe(&inputs[i].display, &inputs[i].text, &edits)));
            streams[i] = file_roles[i].parse(&text).0;
            inputs[i].text = text;
            results.insert(i, check_one(&streams[i], &modes[i]));
        }
        if args.diff {
            return match io.stdout.write_all(diffs.as_bytes()) {
                Ok(()) if diffs.is_empty() => EXIT_OK,
                Ok(()) => EXIT_ERRORS,
                Err(e) if e.kind() == std::io::ErrorKind::BrokenPipe => EXIT_OK,
                Err(e) => {
                    let _ = writeln!(io.stderr, "crdls: cannot write the diff: {e}");
                    EXIT_USAGE
                }
            };
        }
        let fixes: usize = changes.iter().map(|(_, lines)| lines.len()).sum();
        for (_, lines) in &changes {
            for line in lines {
                let _ = writeln!(io.stderr, "fixed {line}");
            }
        }
        let _ = writeln!(
            io.stderr,
            "crdls: made {fixes} {} in {} {}",
            plural(fixes, "fix", "fixes"),
            changes.len(),
            plural(changes.len(), "file", "files")
        );
    }

    let mut summary = Summary { crds: index.len(), crd_sources: source_counts(&inputs, &index), ..Summary::default() };
    let mut all = Vec::new();
    for &i in &reported_at {
        let (check, diagnostics) = results.remove(&i).unwrap_or_default();
        summary.files += 1;
        summary.documents += streams[i].documents.len();
        summary.errors += diagnostics.iter().filter(|d| d.severity == Severity::Error).count();
        summary.warnings += diagnostics.iter().filter(|d| d.severity == Severity::Warning).count();
        count_coverage(&check, &modes[i], &mut summary.coverage);
        all.push(diagnostics);
    }
    let nothing_checked = summary.documents == 0;
    if summary.files == 0 {
        notes.insert(0, "no YAML or JSON file was found to check".into());
    } else if nothing_checked {
        notes.insert(0, "the files hold no YAML document to check".into());
    }
    if !summary.crd_sources.is_empty() {
        let shown: Vec<String> = summary.crd_sources.iter().map(|(name, n)| format!("{} from {name}", plural_count(*n, "CRD"))).collect();
        notes.push(format!("CRDs from outside the workspace: {}", shown.join(", ")));
    }
    summary.notes = notes;
    // Rendered charts (`helm template ... | crdls check -`) are reported against their templates.
    let mut locator = rendered::Locator::new(&io.cwd);
    let origins: Vec<Vec<Option<report::Origin>>> =
        reported_at.iter().zip(&all).map(|(&i, diagnostics)| locator.origins(&streams[i], diagnostics)).collect();
    let files: Vec<FileReport<'_>> = reported_at
        .iter()
        .zip(&all)
        .zip(&origins)
        .map(|((&i, diagnostics), origins)| FileReport { path: &inputs[i].display, text: &inputs[i].text, diagnostics, origins })
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
    let code = if summary.errors > 0 || (config.fail_unchecked && nothing_checked) { EXIT_ERRORS } else { EXIT_OK };
    match report::render(format, &files, &summary, &RenderOptions { color }, io.stdout) {
        Ok(()) => code,
        // A reader that stopped early (`crdls check | head`) is not an error of ours: end quietly.
        Err(e) if e.kind() == std::io::ErrorKind::BrokenPipe => code,
        Err(e) => {
            let _ = writeln!(io.stderr, "crdls: cannot write the report: {e}");
            EXIT_USAGE
        }
    }
}

/// `crdls.toml` in the working directory, under the command line's flags.
fn read_config(io: &Io<'_>) -> Result<Config, String> {
    let mut config = Config::default();
    match files::read_text(&io.cwd.join(CONFIG_FILE)) {
        Ok(text) => config.merge_toml(&text)?,
        Err(files::ReadError::Io(e)) if e.kind() == std::io::ErrorKind::NotFound => {}
        Err(e) => return Err(format!("cannot read {CONFIG_FILE}: {e}")),
    }
    Ok(config)
}

/// The index of every CRD among the inputs, checked paths first: a CRD there wins over a `--crds` CRD
/// of the same name. Notes name each CRD defined more than once and which definition is used. CRDs
/// in templates are left out: their names are what the template computes.
fn build_index(inputs: &[Input], streams: &[Stream], modes: &[FileMode]) -> (CrdIndex, Vec<String>) {
    let crds = parallel::map(&(0..streams.len()).collect::<Vec<usize>>(), |&i| match modes[i] {
        FileMode::Template { .. } => Vec::new(),
        _ => streams[i].documents.iter().flat_map(Crd::from_document).collect::<Vec<Crd>>(),
    });
    let mut index = CrdIndex::new();
    let mut first_seen: HashMap<String, &Input> = HashMap::new();
    let mut notes = Vec::new();
    for (input, crds) in inputs.iter().zip(crds) {
        for crd in crds.iter().filter(|c| c.is_indexable()) {
            match first_seen.get(&crd.name) {
                Some(first) if first.display != input.display => {
                    notes.push(format!("CRD {} in {} shadows the one in {}", crd.name, source_name(first), source_name(input)))
                }
                Some(_) => {}
                None => {
                    first_seen.insert(crd.name.clone(), input);
                }
            }
        }
        index.set_source_from(Arc::from(input.display.as_str()), Origin { kind: input.kind, label: None }, crds);
    }
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
/// was checked too, else on the chart's first template.
fn add_chart_hints(
    inputs: &[Input],
    roles: &[FileRole],
    cwd: &std::path::Path,
    results: &mut HashMap<usize, (FileCheck, Vec<Diagnostic>)>,
) {
    let mut charts: Vec<(&std::path::Path, &str, Vec<usize>)> = Vec::new();
    for (i, role) in roles.iter().enumerate() {
        if let FileRole::HelmTemplate { chart_dir, chart_name } = role {
            match charts.iter_mut().find(|(dir, _, _)| *dir == chart_dir.as_path()) {
                Some((_, _, templates)) => templates.push(i),
                None => charts.push((chart_dir, chart_name, vec![i])),
            }
        }
    }
    for (dir, name, templates) in charts {
        let chart_file = dir.join("Chart.yaml");
        let at = inputs.iter().position(|i| i.report && i.path.as_deref() == Some(chart_file.as_path())).unwrap_or(templates[0]);
        let shown = display_path(dir, cwd);
        let shown = if shown.is_empty() { ".".to_string() } else { shown };
        let hint = Diagnostic::new(
            crdls_yaml::TextRange::empty(0),
            Severity::Hint,
            codes::HELM_TEMPLATES,
            crdls_workspace::helm_template_hint(name, &shown, Some(templates.len())),
        );
        if let Some((_, diagnostics)) = results.get_mut(&at) {
            diagnostics.insert(0, hint);
        }
    }
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
            DocumentKind::Unchecked { group } => *coverage.unchecked.entry(group.clone()).or_default() += 1,
            DocumentKind::ConfigFile | DocumentKind::NotAnObject => {}
        }
    }
}

/// The old objects from `--old` sources: files and directories, or each checked file at a git revision.
fn old_objects(sources: &[String], inputs: &[Input], cwd: &std::path::Path) -> Result<crdls_check::OldObjects, String> {
    let mut old = crdls_check::OldObjects::new();
    for source in sources {
        if let Some(rev) = source.strip_prefix("git:") {
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
