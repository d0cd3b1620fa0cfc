//! `crdls check`: find the inputs, read each once for its role and CRDs (pass 1, keeping only the
//! index), then check every reported file with the one pipeline the language server also uses and
//! report it as soon as the files before it are done (pass 2, a bounded number of files in flight),
//! apply fixes when asked, and end with a summary that says how far each document was checked.
//!
//! One module per job: `args.rs` (the clap arguments), `config.rs` (crdls.toml under the flags),
//! `inputs.rs` (the files, through the resolver the editor shares), `fetch.rs` (URLs and the cluster
//! through the cache), `index.rs` (pass 1: CRDs and roles, the index), `old.rs` (`--old`),
//! `checker.rs` (pass 2: `check_file` per file, chart hints), `fix.rs` (`--fix`, `--diff`),
//! `reporting.rs` (the report file by file), `coverage.rs` (how far each document was checked),
//! `notes.rs` (what the summary's notes say); `objects.rs` and `rendered.rs` serve CRD evolution and
//! rendered charts.

mod args;
mod checker;
mod config;
mod coverage;
mod fetch;
mod fix;
mod index;
mod inputs;
mod notes;
mod objects;
mod old;
mod rendered;
mod reporting;

use std::io::Write as _;
use std::sync::Arc;

use crdls_workspace::roles::Workspace;

use crate::io::{Io, EXIT_ERRORS, EXIT_OK, EXIT_USAGE};
use crate::parallel;
use crate::report::{RenderOptions, Reporter, Summary};

pub use args::CheckArgs;
use args::{ColorArg, SubresourceArg};
use checker::{chart_hints, Checker};
use fix::{fix_files, FixOutcome, Fixing};
use index::{build_index, read_crds, source_counts, source_lines, CrdsRead};
pub(crate) use inputs::{collect_files, display_path};
use reporting::Report;

/// Runs `crdls check`.
pub fn check(args: CheckArgs, io: &mut Io<'_>) -> i32 {
    let config = match config::configure(&args, io) {
        Ok(config) => config,
        Err(e) => {
            let _ = writeln!(io.stderr, "crdls: {e}");
            return EXIT_USAGE;
        }
    };
    let mut found = inputs::read(&args.paths, config.crd_path_sets(), io.stdin, &io.cwd, config.walk_options());
    for warning in &found.warnings {
        let _ = writeln!(io.stderr, "crdls: warning: {warning}");
    }
    let (remote, remote_errors) = fetch::remote_inputs(&args, &config, io);
    found.inputs.extend(remote);
    found.errors.extend(remote_errors);
    if !found.errors.is_empty() {
        for e in &found.errors {
            let _ = writeln!(io.stderr, "crdls: {e}");
        }
        return EXIT_USAGE;
    }
    let mut inputs = found.inputs;
    let mut notes: Vec<String> = notes::hidden_note(&found.hidden)
        .into_iter()
        .chain(notes::test_material_note(&found.test_material))
        .chain(notes::links_note(&found.links_out))
        .collect();

    // Pass 1: every input read once for its CRDs, and its role found; only the index and the roles are kept.
    // The workspace is the working directory (where crdls.toml is read) and every directory checked.
    let checked_dirs = args.paths.iter().map(|p| io.cwd.join(p)).filter(|p| p.is_dir());
    let workspace = Workspace::new(std::iter::once(io.cwd.clone()).chain(checked_dirs), &io.cwd, config.whole_test_inputs);
    let CrdsRead { crds, webhooks, roles: file_roles, skipped } = match read_crds(&mut inputs, &workspace) {
        Ok(read) => read,
        Err(errors) => {
            for e in &errors {
                let _ = writeln!(io.stderr, "crdls: {e}");
            }
            return EXIT_USAGE;
        }
    };
    notes.extend(skipped.iter().map(|s| format!("not read: {s}")));
    let test_inputs = notes::test_inputs(&inputs, &file_roles, &io.cwd);
    if args.verbose {
        for line in &test_inputs.lines {
            let _ = writeln!(io.stderr, "{line}");
        }
    }
    notes.extend(test_inputs.notes);
    // The cluster's CRDs, as served, are the previous versions of the checked CRDs of the same name
    // (`--old` takes their place): what applying the checked CRDs would change.
    let checked_crds: Vec<String> =
        inputs.iter().zip(&crds).filter(|(input, _)| input.report).flat_map(|(_, crds)| crds.iter().map(|c| c.name.clone())).collect();
    let served = old::served_crds(&inputs, &checked_crds);
    let (index, shadowing) = build_index(&inputs, crds, webhooks);
    if args.verbose {
        for line in source_lines(&inputs, &index) {
            let _ = writeln!(io.stderr, "{line}");
        }
    }
    let mut options = config.check_options();
    if let Some(SubresourceArg::Status) = args.subresource {
        options.subresource = crdls_check::Subresource::Status;
    }
    if !args.old.is_empty() || !served.is_empty() {
        match old::old_objects(served, &args.old, &inputs, &io.cwd) {
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
        workspace: &workspace,
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
    let color = match args.color {
        ColorArg::Always => true,
        ColorArg::Never => false,
        ColorArg::Auto => io.stdout_is_terminal && std::env::var_os("NO_COLOR").is_none(),
    };
    let summary = Summary { crds: index.len(), crd_sources: source_counts(&inputs, &index), shadowing, ..Summary::default() };
    let mut report = Report::new(Reporter::new(args.format, RenderOptions { color, verbose: args.verbose }), summary, io);
    let mut unread = false;
    let mut webhooks: std::collections::BTreeMap<String, usize> = std::collections::BTreeMap::new();
    parallel::for_each_ordered(
        reported_at.len(),
        parallel::WINDOW,
        |k| checker.check(reported_at[k]),
        |k, checked| match checked {
            Ok(checked) => {
                for line in &checked.choices {
                    let _ = writeln!(report.stderr, "{line}");
                }
                for (webhook, n) in &checked.webhooks {
                    *webhooks.entry(webhook.clone()).or_default() += n;
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
    let nothing_checked = summary.checked() == 0;
    notes.extend(notes::webhooks_note(&webhooks));
    notes::outcome_notes(&summary, &config, &mut notes);
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
