//! The notes that end a `crdls check` report: what was skipped while walking, what was not read,
//! what the run checked at all, and where CRDs came from besides the workspace.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use crdls_workspace::{Carrier, Config, FileRole};

use super::inputs::{display_path, Input};

use crate::report::Summary;

/// The notes on what the run checked: nothing at all (no file, no document, no object), which fails the
/// run under `--fail-unchecked`, first; then the CRD sources outside the workspace.
pub(super) fn outcome_notes(summary: &Summary, config: &Config, notes: &mut Vec<String>) {
    // A run that checked no Kubernetes object or CRD (a directory of other tools' YAML) does not pass
    // for a clean run: it says so, and fails with --fail-unchecked.
    if summary.files == 0 {
        notes.insert(0, "no YAML or JSON file was found to check".into());
    } else if summary.documents == 0 {
        notes.insert(0, "the files hold no YAML document to check".into());
    } else if summary.checked() == 0 {
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
}

pub(super) fn plural_count(n: usize, one: &str) -> String {
    format!("{n} {}", if n == 1 { one.to_string() } else { format!("{one}s") })
}

/// The note on hidden directories that were skipped, naming a few of the most common names.
pub(super) fn hidden_note(hidden: &[PathBuf]) -> Option<String> {
    if hidden.is_empty() {
        return None;
    }
    let mut names: std::collections::BTreeMap<String, usize> = std::collections::BTreeMap::new();
    for dir in hidden {
        *names.entry(dir.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_default()).or_default() += 1;
    }
    let mut names: Vec<(String, usize)> = names.into_iter().collect();
    names.sort_by(|a, b| b.1.cmp(&a.1).then(a.0.cmp(&b.0)));
    let shown: Vec<String> = names.iter().take(4).map(|(n, c)| if *c == 1 { n.clone() } else { format!("{n} ({c})") }).collect();
    let more = if names.len() > 4 { ", ..." } else { "" };
    let count = hidden.len();
    let directories = hidden.iter().filter(|p| p.is_dir()).count();
    let what = match (count, directories) {
        (1, 1) => "hidden directory was",
        (1, _) => "hidden file was",
        (_, d) if d == count => "hidden directories were",
        (_, 0) => "hidden files were",
        _ => "hidden directories and files were",
    };
    Some(format!("{count} {what} skipped: {}{more}; name one as a path to check it", shown.join(", ")))
}

/// The note on test material that was skipped: `testdata`, snapshot, golden and fake directories, and expected outputs.
pub(super) fn test_material_note(skipped: &[PathBuf]) -> Option<String> {
    if skipped.is_empty() {
        return None;
    }
    let named_in = |names: &[&str], p: &PathBuf| p.file_name().is_some_and(|n| names.contains(&&*n.to_string_lossy()));
    let dirs: Vec<&PathBuf> = skipped.iter().filter(|p| p.is_dir()).collect();
    let snapshots = dirs.iter().filter(|p| named_in(crdls_workspace::files::SNAPSHOT_DIRS, p)).count();
    let goldens =
        dirs.iter().filter(|p| named_in(crdls_workspace::files::GOLDEN_DIRS, p) || crdls_workspace::files::is_paired_output_dir(p)).count();
    let fakes = dirs.iter().filter(|p| named_in(crdls_workspace::files::FAKE_DIRS, p)).count();
    let directories = dirs.len() - snapshots - goldens - fakes;
    let outputs = skipped.len() - dirs.len();
    let mut what = Vec::new();
    let count = |n: usize, kind: &str| format!("{n} {kind} {}", if n == 1 { "directory" } else { "directories" });
    if directories > 0 {
        what.push(count(directories, "testdata"));
    }
    if snapshots > 0 {
        what.push(count(snapshots, "snapshot"));
    }
    if goldens > 0 {
        what.push(count(goldens, "golden"));
    }
    if fakes > 0 {
        what.push(count(fakes, "fake"));
    }
    if outputs > 0 {
        what.push(format!("{outputs} expected {} (golden files)", if outputs == 1 { "output" } else { "outputs" }));
    }
    let verb = if skipped.len() == 1 { "was" } else { "were" };
    let listed = match what.split_last() {
        Some((last, rest)) if !rest.is_empty() => format!("{} and {last}", rest.join(", ")),
        _ => what.join(""),
    };
    Some(format!(
        "{listed} {verb} skipped as test material; pass --include-testdata (includeTestdata = true in crdls.toml) to check them, or name one as a path"
    ))
}

/// What the run says about the files it read as test inputs, as kuttl test fragments and as ko data: a note each
/// for the summary, and for `--verbose` a line per test directory or test case.
#[derive(Default)]
pub(super) struct TestInputs {
    pub(super) notes: Vec<String>,
    pub(super) lines: Vec<String>,
}

/// The checked files read as test inputs (`roles` holds each input's role, in order), by test directory,
/// then those read as fragments a kuttl test's commands complete, by test case.
pub(super) fn test_inputs(inputs: &[Input], roles: &[FileRole], cwd: &Path) -> TestInputs {
    let mut dirs: BTreeMap<String, usize> = BTreeMap::new();
    let mut cases: BTreeMap<String, usize> = BTreeMap::new();
    let mut completed: Vec<String> = Vec::new();
    let mut completed_lines: Vec<String> = Vec::new();
    let mut carried: BTreeMap<(Carrier, String), usize> = BTreeMap::new();
    for (input, role) in inputs.iter().zip(roles) {
        match (input.report, role) {
            (true, FileRole::TestInput { tests }) => *dirs.entry(display_path(tests, cwd)).or_default() += 1,
            (true, FileRole::TestFragment { case }) => *cases.entry(display_path(case, cwd)).or_default() += 1,
            (true, FileRole::KustomizeResource { completed: objects, .. }) if !objects.is_empty() => {
                completed.push(input.display.clone());
                for object in objects {
                    let by: Vec<String> = object.by.iter().map(|k| display_path(k, cwd)).collect();
                    completed_lines.push(format!(
                        "read as a partial object: {} {} in {}, which every kustomization including its base patches ({})",
                        object.kind,
                        object.name,
                        input.display,
                        by.join(", ")
                    ));
                }
            }
            (true, FileRole::ProgramData { source, carrier }) => *carried.entry((*carrier, display_path(source, cwd))).or_default() += 1,
            _ => {}
        }
    }
    let mut out = TestInputs::default();
    if !dirs.is_empty() {
        out.notes.push(test_inputs_note(&dirs));
        out.lines.extend(dirs.iter().map(|(dir, n)| format!("read as test inputs: {} in {dir}", plural_count(*n, "file"))));
    }
    if !cases.is_empty() {
        out.notes.push(fragments_note(&cases));
        out.lines.extend(cases.iter().map(|(case, n)| format!("read as kuttl test fragments: {} in {case}", plural_count(*n, "file"))));
    }
    if !completed.is_empty() {
        out.notes.push(completed_note(&completed, completed_lines.len()));
        out.lines.extend(completed_lines);
    }
    for carrier in [Carrier::Ko, Carrier::GoEmbed, Carrier::Image] {
        let sources: BTreeMap<String, usize> =
            carried.iter().filter(|((c, _), _)| *c == carrier).map(|((_, source), n)| (source.clone(), *n)).collect();
        if sources.is_empty() {
            continue;
        }
        out.notes.push(program_data_note(carrier, &sources));
        let how = match carrier {
            Carrier::Ko => "read as a program's ko data",
            Carrier::GoEmbed => "read as data a Go program embeds",
            Carrier::Image => "read as data an image carries",
        };
        out.lines.extend(sources.iter().map(|(source, n)| match carrier {
            Carrier::Ko => format!("{how}: {} in {source}", plural_count(*n, "file")),
            _ => format!("{how}: {} ({source})", plural_count(*n, "file")),
        }));
    }
    out
}

/// The note on the files read as data a program carries (`kodata/`, `//go:embed`, a Dockerfile's `COPY`),
/// by the directory, Go file or Dockerfile that carries them.
fn program_data_note(carrier: Carrier, sources: &BTreeMap<String, usize>) -> String {
    let (place, one, many, what) = match carrier {
        Carrier::Ko => ("in", "kodata directory", "kodata directories", "data a Go program bundles with ko"),
        Carrier::GoEmbed => ("embedded by", "Go file", "Go files", "data a Go program embeds"),
        Carrier::Image => ("copied by", "Dockerfile", "Dockerfiles", "data a container image carries"),
    };
    format!(
        "{} read as {what}, which the program may complete before applying it: what their objects write is checked, what they leave out and CEL rules are not",
        files_in(sources, place, one, many)
    )
}

/// The files of a note, by directory, as its sentences start: `3 files below 2 test directories
/// (a, b) were` (`place` is the preposition, `one` and `many` the directory's name).
fn files_in(dirs: &BTreeMap<String, usize>, place: &str, one: &str, many: &str) -> String {
    let files: usize = dirs.values().sum();
    let shown: Vec<&str> = dirs.keys().take(4).map(String::as_str).collect();
    let more = if dirs.len() > 4 { ", ..." } else { "" };
    format!(
        "{} {place} {} ({}{more}) {}",
        plural_count(files, "file"),
        if dirs.len() == 1 { format!("1 {one}") } else { format!("{} {many}", dirs.len()) },
        shown.join(", "),
        if files == 1 { "was" } else { "were" },
    )
}

/// The note on the files read as test inputs, by test directory.
fn test_inputs_note(dirs: &BTreeMap<String, usize>) -> String {
    format!(
        "{} read as test inputs: what their objects write is checked, what they leave out (a required field, an image, a selector) is not; pass --whole-test-inputs (wholeTestInputs = true in crdls.toml) to check them as whole objects",
        files_in(dirs, "below", "test directory", "test directories")
    )
}

/// The note on the files read as fragments that the commands of kuttl test cases complete, by case.
fn fragments_note(cases: &BTreeMap<String, usize>) -> String {
    format!(
        "{} read as fragments that the test's commands complete (kuttl applies only the numbered steps of a test case): what their objects write is checked, what they leave out and CEL rules are not; pass --whole-test-inputs (wholeTestInputs = true in crdls.toml) to check them as whole objects",
        files_in(cases, "in", "kuttl test case", "kuttl test cases")
    )
}

/// The note on the objects of kustomize bases that every kustomization including the base patches
/// (`files` holds the files, `objects` how many objects they hold so).
fn completed_note(files: &[String], objects: usize) -> String {
    let shown: Vec<&str> = files.iter().take(4).map(String::as_str).collect();
    let more = if files.len() > 4 { ", ..." } else { "" };
    format!(
        "{} of kustomize bases ({}{more}) {}: every kustomization that includes the base patches {} by kind and name, so what {} out (required fields, containers, a selector) is not reported; --verbose names the patching kustomizations",
        plural_count(objects, "object"),
        shown.join(", "),
        if objects == 1 { "was read as a partial object" } else { "were read as partial objects" },
        if objects == 1 { "it" } else { "them" },
        if objects == 1 { "it leaves" } else { "they leave" },
    )
}

/// The note on symbolic links that were not followed because they lead outside what was walked.
pub(super) fn links_note(links: &[PathBuf]) -> Option<String> {
    let (first, rest) = links.split_first()?;
    let more = if rest.is_empty() { String::new() } else { format!(" and {} more", rest.len()) };
    let them = if rest.is_empty() { "it" } else { "one" };
    Some(format!(
        "not read: {}{more}, a symbolic link that leads outside the directory checked; name {them} as a path to check it",
        first.display()
    ))
}

/// The note on missing required fields reported as warnings because mutating webhooks of the project
/// may set them before validation, with how many each set of webhooks covers (`webhooks`: `webhook X
/// (…)` or `webhooks X (…) or Y (…)`).
pub(super) fn webhooks_note(webhooks: &BTreeMap<String, usize>) -> Option<String> {
    let total: usize = webhooks.values().sum();
    if total == 0 {
        return None;
    }
    let named: Vec<String> = webhooks.iter().map(|(name, n)| format!("{n} for the mutating {name}")).collect();
    Some(format!(
        "{} reported as {} ({}): a project's mutating admission webhook runs before the API server validates an object, and a Go defaulting webhook writes false or 0 for such a field; --verbose names each object",
        plural_count(total, "missing required field"),
        if total == 1 { "a warning, not an error" } else { "warnings, not errors" },
        named.join("; "),
    ))
}
