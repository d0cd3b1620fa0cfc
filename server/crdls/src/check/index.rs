//! The first pass of `crdls check`: every input read once (in parallel) for its CRDs and its role,
//! through the resolver the language server's scan uses, and the index built from them; with what
//! `--verbose` and the summary say about where CRDs came from.

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use crdls_crd::admission::MutatingWebhook;
use crdls_crd::{Crd, CrdIndex, Origin, SourceKind};
use crdls_workspace::roles::Workspace;
use crdls_workspace::{external, resolver, FileRole};

use super::inputs::{self, Input};
use super::notes::plural_count;

/// Pass 1: reads every input (in parallel) and keeps only its role and its CRDs, dropping the texts
/// of all but standard input. What each checked file is (a template, a patch, a test assertion, a test
/// input of `workspace`) decides how it is parsed and read; each thread keeps its own cache of what
/// directories hold. A
/// text that cannot define a CRD (`may_define_crd`) is not parsed. Inputs that were skipped (found
/// while walking and not regular, or too large) leave the list and are returned as notes; any other
/// read failure is a usage error.
pub(super) fn read_crds(inputs: &mut Vec<Input>, workspace: &Workspace) -> Result<CrdsRead, Vec<String>> {
    let read: Vec<(FileRole, Result<Definitions, inputs::Unread>)> = resolver::read_all(inputs, workspace, |roles, input| {
        // A file's CRDs are read in its role wherever it was found; only the checked files are
        // checked in theirs.
        let local = matches!(input.kind, SourceKind::Workspace | SourceKind::Configured);
        let role = input.path.as_deref().filter(|_| local).map_or(FileRole::Manifest, |p| roles.role_of(p));
        let crds = read_crds_of(input, &role, roles.workspace());
        (if input.report { role } else { FileRole::Manifest }, crds)
    });
    let keep: Vec<bool> = read.iter().map(|(_, r)| !matches!(r, Err(inputs::Unread::Skipped(_)))).collect();
    let (mut crds, mut roles, mut skipped, mut errors) = (Vec::new(), Vec::new(), Vec::new(), Vec::new());
    let mut webhooks = Vec::new();
    for (role, outcome) in read {
        match outcome {
            Ok(found) => {
                crds.push(found.crds);
                webhooks.push(found.webhooks);
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
    Ok(CrdsRead { crds, webhooks, roles, skipped })
}

/// What one input defines for the others: its CRDs, and the mutating webhooks it installs.
pub(super) struct Definitions {
    pub(super) crds: Vec<Crd>,
    pub(super) webhooks: Vec<MutatingWebhook>,
}

/// The CRDs of one input (with those it outputs patched when it is a kustomization of the workspace),
/// and the mutating webhooks of a workspace file, whose text is then dropped unless it cannot be read
/// again.
pub(super) fn read_crds_of(input: &mut Input, role: &FileRole, workspace: &Workspace) -> Result<Definitions, inputs::Unread> {
    let local = matches!(input.kind, SourceKind::Workspace | SourceKind::Configured);
    let definitions = {
        let text = input.read()?;
        // Schemas are built when a resource first needs them: from the file as it is then, or from
        // the text kept for what cannot be read again (standard input, archive members).
        let reader = match &input.path {
            Some(path) if matches!(input.kind, SourceKind::Url | SourceKind::Cluster) => {
                crdls_workspace::files::reader_of_cached(path.clone())
            }
            Some(path) => crdls_workspace::files::reader_of(path.clone()),
            None => crdls_workspace::files::reader_of_text(Arc::from(&*text)),
        };
        let mut crds = resolver::crds_of(&text, role, reader);
        // A kustomization of the workspace outputs the CRDs it patches.
        if let (Some(path), true) = (&input.path, local) {
            crds.extend(resolver::kustomization_crds(path, &text, workspace));
        }
        let webhooks = if local { resolver::webhooks_of(&text, role) } else { Vec::new() };
        Definitions { crds, webhooks }
    };
    // Only standard input cannot be read again.
    if input.path.is_some() || !input.report {
        input.text = None;
    }
    Ok(definitions)
}

/// What the first pass keeps: each input's CRDs and role, in order, and a note per input skipped.
pub(super) struct CrdsRead {
    pub(super) crds: Vec<Vec<Crd>>,
    /// The mutating webhooks each input installs, in order.
    pub(super) webhooks: Vec<Vec<MutatingWebhook>>,
    pub(super) roles: Vec<FileRole>,
    pub(super) skipped: Vec<String>,
}
/// The index of every CRD among the inputs (`crds` holds each input's, in order). Notes name each CRD
/// defined in more than one input, with its definitions in precedence order (checked paths before
/// `--crds`); which one an object uses is decided per object (see `CrdIndex::resolve`).
pub(super) fn build_index(inputs: &[Input], crds: Vec<Vec<Crd>>, webhooks: Vec<Vec<MutatingWebhook>>) -> (CrdIndex, Vec<String>) {
    let mut index = CrdIndex::new();
    for (input, webhooks) in inputs.iter().zip(webhooks) {
        index.set_webhooks(&input.display, webhooks);
    }
    let mut defined_in: Vec<(String, Vec<&Input>)> = Vec::new();
    let mut at: HashMap<String, usize> = HashMap::new();
    // Whether each directory holding CRDs is an OLM bundle's, read once.
    let mut bundles: HashMap<PathBuf, bool> = HashMap::new();
    for (input, crds) in inputs.iter().zip(crds) {
        // A CRD as a kustomization outputs it patched is not another definition to note.
        for crd in crds.iter().filter(|c| c.is_indexable() && c.patched_from.is_none()) {
            let i = *at.entry(crd.name.clone()).or_insert_with(|| {
                defined_in.push((crd.name.clone(), Vec::new()));
                defined_in.len() - 1
            });
            let sources = &mut defined_in[i].1;
            if !sources.iter().any(|s| s.display == input.display) {
                sources.push(input);
            }
        }
        let placed = matches!(input.kind, SourceKind::Workspace | SourceKind::Configured);
        if let (true, false, Some(path)) = (placed, crds.is_empty(), input.path.as_deref()) {
            let dir = path.parent().map(Path::to_path_buf).unwrap_or_default();
            if *bundles.entry(dir).or_insert_with(|| resolver::in_olm_bundle(path)) {
                index.set_packaged(&input.display, true);
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
pub(super) fn source_name(input: &Input) -> String {
    match input.kind {
        SourceKind::Workspace | SourceKind::Url | SourceKind::Cluster => input.display.clone(),
        SourceKind::Configured => format!("--crds {}", input.display),
        SourceKind::ChartArchive => format!("chart archive {}", input.display),
    }
}

/// The CRD sources the user did not name as files, for the summary: each URL and cluster and each
/// chart archive, with how many CRDs each gave (`--verbose` lists every source).
pub(super) fn source_counts(inputs: &[Input], index: &CrdIndex) -> Vec<(String, usize)> {
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
pub(super) fn source_lines(inputs: &[Input], index: &CrdIndex) -> Vec<String> {
    let mut lines = vec!["crdls: CRD sources, in precedence order:".to_string()];
    for input in inputs {
        let crds = index.crds_of(&input.display).len();
        if crds == 0 {
            continue;
        }
        let mut line = format!("  {} ({}): {}", input.display, input.kind.describe(), plural_count(crds, "CRD"));
        if let (Some((downloaded, at)), Some(path)) = (input.fetched, &input.path) {
            let when = at.map(external::describe_time).unwrap_or_else(|| "at an unknown time".into());
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

#[cfg(test)]
mod tests {
    use std::path::{Path, PathBuf};

    use crdls_crd::{CrdIndex, SourceKind};
    use crdls_workspace::Config;

    /// The index `crdls check PATHS` builds in `cwd` from the files on disk (downloads aside).
    fn cli_index(paths: &[PathBuf], config: &Config, cwd: &Path) -> CrdIndex {
        let found = super::super::inputs::read(paths, config.crd_path_sets(), &mut std::io::empty(), cwd, config.walk_options());
        assert!(found.errors.is_empty(), "{:?}", found.errors);
        let mut inputs = found.inputs;
        let Ok(read) = super::read_crds(&mut inputs, &super::Workspace::default()) else { panic!("the inputs are readable") };
        super::build_index(&inputs, read.crds, read.webhooks).0
    }

    /// Each CRD of `index` by name, with where it is defined (relative to `root`) and in which rank.
    fn listing(index: &CrdIndex, root: &Path) -> Vec<(String, SourceKind, String)> {
        let uri_root = format!("file://{}/", root.display());
        let mut out: Vec<(String, SourceKind, String)> = index
            .iter()
            .map(|c| {
                let source = c.source.strip_prefix(uri_root.as_str()).unwrap_or(&c.source).to_string();
                (c.crd.name.clone(), c.kind, source)
            })
            .collect();
        out.sort();
        out
    }

    /// Both front ends find the same files, detect the same CRDs (a kind spelled with an escape, a
    /// chart template's literal CRD) and rank them alike (a CRD path outside the walk after the
    /// workspace's files), through the one resolver.
    #[test]
    fn the_command_line_and_the_editor_index_the_same_tree_alike() {
        let fixtures = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../fixtures/crds");
        let fixture = |name: &str| std::fs::read_to_string(fixtures.join(name)).expect("the fixture CRDs are in the repository");
        let root = std::env::temp_dir().join(format!("crdls-front-ends-index-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&root);
        let escaped = fixture("things.json").replace("\"CustomResourceDefinition\"", "\"Custom\\u0052esourceDefinition\"");
        assert!(!escaped.contains("CustomResourceDefinition"));
        let template = format!("{{{{- if .Values.crds }}}}\n{}{{{{- end }}}}\n", fixture("gadgets-v1beta1.yaml"));
        let files = [
            ("crds/widgets.yaml", fixture("widgets.yaml")),
            ("escaped.json", escaped),
            ("chart/Chart.yaml", "apiVersion: v2\nname: app\nversion: 0.1.0\n".to_string()),
            ("chart/templates/crds.yaml", template),
            (".vendor/widgets.yaml", fixture("widgets.yaml")),
            ("testdata/scalers.yaml", fixture("scalers.yaml")),
            ("crdls.toml", "crdPaths = [\"crds\", \".vendor\", \"testdata/*.yaml\"]\n".to_string()),
        ];
        for (path, text) in &files {
            let path = root.join(path);
            std::fs::create_dir_all(path.parent().unwrap()).unwrap();
            std::fs::write(path, text).unwrap();
        }
        let mut config = Config::default();
        config.merge_workspace_toml(&files[6].1).unwrap();
        let cli = listing(&cli_index(&[PathBuf::from(".")], &config, &root), &root);
        let editor = listing(&crdls_lsp::scan_index(std::slice::from_ref(&root), &config), &root);
        let _ = std::fs::remove_dir_all(&root);
        let expected = [
            ("gadgets.demo.crdls.dev", SourceKind::Workspace, "chart/templates/crds.yaml"),
            ("scalers.autoscale.crdls.dev", SourceKind::Configured, "testdata/scalers.yaml"),
            ("things.demo.crdls.dev", SourceKind::Workspace, "escaped.json"),
            ("widgets.demo.crdls.dev", SourceKind::Workspace, "crds/widgets.yaml"),
            ("widgets.demo.crdls.dev", SourceKind::Configured, ".vendor/widgets.yaml"),
        ];
        let expected: Vec<(String, SourceKind, String)> = expected.iter().map(|(n, k, s)| (n.to_string(), *k, s.to_string())).collect();
        assert_eq!(cli, expected, "crdls check");
        assert_eq!(editor, expected, "the editor's scan");
    }
}
