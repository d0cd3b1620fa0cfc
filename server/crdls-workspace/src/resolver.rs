//! The one resolver of CRD sources and files, behind `crdls check` and the language server's scan
//! alike (ruff's `ruff_workspace::resolver` serves `ruff check` and `ruff server` the same way): which
//! files a run looks at, what rank each file's CRDs take in the index, which texts may define a CRD,
//! and how a file's CRDs are read. The front ends differ only in what they do around it (the command
//! line reads standard input and reports; the editor keeps the index current).
//!
//! - **Discovery.** A checked path or a workspace folder ([`Resolver::add_root`]) is walked as
//!   [`files::walk_below`] walks (hidden directories, `node_modules`, `target` and, unless asked, test
//!   material skipped); a path named as a file is read whatever its extension. The local CRD paths
//!   (`--crds`, `crdPaths`: files, directories, globs; [`Resolver::add_crd_paths`]) are expanded
//!   against each base. Chart archives in `charts/` directories, or named, are sources of their own.
//!   crdls's cache directory is left out of walks and globs: its files are downloads and extracted
//!   archive members, read as such.
//! - **Rank.** A file found below a root is a workspace file; one found only through the CRD paths
//!   ranks after them ([`SourceKind::Configured`]), then chart archives, URLs and the cluster. A file
//!   found both ways is a workspace file.
//! - **Packaging copies.** A file in an OLM bundle ([`in_olm_bundle`]: its directory holds a
//!   ClusterServiceVersion, or sits beside the bundle's `metadata/annotations.yaml`) is a copy of the
//!   project's CRDs that `make bundle` generated for a release: among definitions that serve an
//!   object's version, it comes after the project's own (`CrdIndex::set_packaged`).
//! - **Detection.** A text is parsed for CRDs only when it may define one ([`may_define_crd`]: it names
//!   the kind, or holds an escape that could spell it); its role decides how (a chart template defines
//!   only the CRDs it writes in literal text, see [`FileRole::crds`]).
//! - **Size.** A local file is read up to [`files::MAX_FILE_BYTES`] (16 MiB): it is something a person
//!   edits or a generator writes into a repository, and the API server takes at most 3 MiB in one
//!   request, so 16 MiB holds any bundle of CRDs one applies while bounding what a hostile repository
//!   can make the editor hold. Downloads and the cluster's listing are read from the cache up to its
//!   own bound (`crdls_sources::cache::MAX_ENTRY_BYTES`): a cluster of a thousand CRDs lists far more
//!   than 16 MiB, and the cache holds only what the user's own settings fetched. Archive members are
//!   bounded by the archive reader. Both front ends read every kind of source with the same bound.

use std::path::{Path, PathBuf};

use crdls_crd::admission::MutatingWebhook;
use crdls_crd::{Crd, SourceKind, TextReader};
use rayon::prelude::*;

use crate::files::{self, ReadError, WalkOptions};
use crate::roles::{FileRole, Roles, Workspace};

/// Whether `path` is a file of an OLM bundle, a packaging copy of the project's manifests: its
/// directory holds a ClusterServiceVersion (`*.clusterserviceversion.yaml`, which operator-sdk's
/// `make bundle` and the older package-manifest layout write beside the CRDs), or is a `manifests/`
/// directory that the bundle's `metadata/annotations.yaml` beside it names
/// (`operators.operatorframework.io.bundle.manifests.v1`). Reads one directory listing, and at most one
/// file inside `path`'s grandparent.
pub fn in_olm_bundle(path: &Path) -> bool {
    let Some(dir) = path.parent() else { return false };
    let csv = |name: &std::ffi::OsStr| {
        let name = name.to_string_lossy().to_ascii_lowercase();
        [".clusterserviceversion.yaml", ".clusterserviceversion.yml", ".clusterserviceversion.json"].iter().any(|s| name.ends_with(s))
    };
    let listed = std::fs::read_dir(dir).map(|entries| entries.filter_map(Result::ok).take(MAX_BUNDLE_ENTRIES).any(|e| csv(&e.file_name())));
    if listed.unwrap_or(false) {
        return true;
    }
    // The bundle format's own layout: `manifests/` beside `metadata/`.
    if dir.file_name().is_none_or(|name| name != "manifests") {
        return false;
    }
    let Some(bundle) = dir.parent() else { return false };
    let annotations = bundle.join("metadata").join("annotations.yaml");
    files::read_inside(bundle, &annotations).is_ok_and(|text| text.contains("operators.operatorframework.io.bundle.manifests"))
}

/// How many entries of a directory are looked at for a ClusterServiceVersion.
const MAX_BUNDLE_ENTRIES: usize = 4096;

/// One file a run looks at.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Found {
    /// The file, or `None` for standard input, whose text the front end reads.
    pub path: Option<PathBuf>,
    /// Its rank among the sources of a CRD: [`SourceKind::Workspace`] or [`SourceKind::Configured`].
    pub kind: SourceKind,
    /// Whether the file was named as a path rather than found while walking a directory: a FIFO, a
    /// device or a huge file named so is an error, one found so is skipped with a note.
    pub named: bool,
}

impl Found {
    /// Whether the file's own problems are reported (the checked paths, the workspace's files).
    pub fn reported(&self) -> bool {
        self.kind == SourceKind::Workspace
    }
}

/// What a resolution found.
#[derive(Debug, Default)]
pub struct Resolution {
    /// The files, each once, workspace files first (in the order of the roots, each root's files
    /// sorted), then the files of the CRD paths.
    pub files: Vec<Found>,
    /// Chart archives, each once, in the order found; each member is a source ranked
    /// [`SourceKind::ChartArchive`].
    pub archives: Vec<PathBuf>,
    /// Hidden directories and files skipped while walking the roots (not the CRD paths).
    pub hidden: Vec<PathBuf>,
    /// Symbolic links found while walking that lead outside the walked directory: not followed.
    pub links_out: Vec<PathBuf>,
    /// Test material skipped while walking the roots.
    pub test_material: Vec<PathBuf>,
    /// Globs whose walk stopped early, with why (what they found is used all the same).
    pub warnings: Vec<String>,
    /// Paths named that cannot be read (missing, or not a file nor a directory).
    pub errors: Vec<String>,
    /// The CRD paths of an untrusted workspace that lead out of it through a symbolic link (see
    /// [`Resolver::add_confined_crd_paths`]): not read.
    pub refused: Vec<crdls_sources::SourceError>,
}

/// Whether CRD paths must stay inside the base they are relative to.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Confine {
    /// The user's own: read wherever they lead.
    No,
    /// An untrusted workspace's: only inside.
    ToBase,
}

/// Gathers the files of a run: the roots first, then the CRD paths; [`Resolver::finish`] ranks them.
pub struct Resolver {
    walk: WalkOptions,
    /// Left out of walks and globs: crdls's cache directory.
    exclude: Option<PathBuf>,
    out: Resolution,
}

impl Resolver {
    /// A resolver that walks directories with `walk`, leaving out crdls's cache directory.
    pub fn new(walk: WalkOptions) -> Resolver {
        Resolver::excluding(walk, crdls_sources::Cache::from_env().map(|c| c.dir().to_path_buf()))
    }

    /// A resolver that leaves out `exclude` (and what is below it) when walking.
    pub fn excluding(walk: WalkOptions, exclude: Option<PathBuf>) -> Resolver {
        Resolver { walk, exclude, out: Resolution::default() }
    }

    /// Standard input at this place, among the roots ([`SourceKind::Workspace`]) or as a CRD source.
    pub fn add_stdin(&mut self, kind: SourceKind) {
        self.out.files.push(Found { path: None, kind, named: true });
    }

    /// A checked path or a workspace folder: a file (whatever its extension) or a directory walked.
    pub fn add_root(&mut self, path: &Path) {
        self.add(path, SourceKind::Workspace);
    }

    /// The local CRD paths among `locations` (files, directories, globs; URLs are fetched apart),
    /// relative to each of `bases`: a glob's matches, a plain path as [`Resolver::add_root`] takes one.
    pub fn add_crd_paths(&mut self, locations: &[String], bases: &[PathBuf]) {
        self.add_paths(locations, bases, Confine::No);
    }

    /// The CRD paths an untrusted workspace's own `crdls.toml` names ([`crate::Config::crd_path_sets`]), as
    /// [`Resolver::add_crd_paths`] takes them, but only where they stay inside the base they are relative
    /// to once symbolic links are resolved, and outside its `.git` ([`files::stays_inside`]): a
    /// repository's `crds -> ~/.kube` is refused, and said in [`Resolution::refused`]. (Paths that leave
    /// it as written, `../x` or `/x`, were withheld with the rest of what the workspace asked for.)
    pub fn add_confined_crd_paths(&mut self, locations: &[String], bases: &[PathBuf]) {
        self.add_paths(locations, bases, Confine::ToBase);
    }

    fn add_paths(&mut self, locations: &[String], bases: &[PathBuf], confine: Confine) {
        for pattern in crate::external::local_paths(locations) {
            for base in bases {
                if !pattern.contains('*') {
                    let path = base.join(&pattern);
                    if self.allowed(&pattern, base, &path, confine) {
                        self.add(&path, SourceKind::Configured);
                    }
                    continue;
                }
                let expansion = files::expand(base, &pattern);
                if let Some(limited) = &expansion.limited {
                    self.out.warnings.push(format!("{pattern}: {limited}"));
                }
                for file in expansion.files {
                    if !self.excluded(&file) && self.allowed(&pattern, base, &file, confine) {
                        self.add(&file, SourceKind::Configured);
                    }
                }
            }
        }
    }

    /// Whether `path`, which `pattern` names relative to `base`, may be read; a refusal is recorded.
    /// A path that cannot be resolved (missing) is left to [`Resolver::add`] to report.
    fn allowed(&mut self, pattern: &str, base: &Path, path: &Path, confine: Confine) -> bool {
        if confine == Confine::No || !files::stays_inside(base, path).is_ok_and(|inside| !inside) {
            return true;
        }
        let shown = path.strip_prefix(base).unwrap_or(path).display().to_string();
        self.out.refused.push(crdls_sources::SourceError::Outside { pattern: pattern.to_string(), path: shown });
        false
    }

    fn excluded(&self, path: &Path) -> bool {
        self.exclude.as_deref().is_some_and(|dir| path.starts_with(dir))
    }

    fn add(&mut self, path: &Path, kind: SourceKind) {
        let walked = match walk(path, self.walk) {
            Ok(walked) => walked,
            Err(e) => {
                self.out.errors.push(format!("{}: {e}", path.display()));
                return;
            }
        };
        if kind == SourceKind::Workspace {
            self.out.hidden.extend(walked.hidden);
            self.out.test_material.extend(walked.test_material);
        }
        self.out.links_out.extend(walked.links_out);
        let named = walked.files.first().is_some_and(|f| f == path);
        let keep = |f: &PathBuf| f == path || !self.excluded(f);
        let archives: Vec<PathBuf> = walked.archives.into_iter().filter(keep).collect();
        let found: Vec<Found> = walked.files.into_iter().filter(keep).map(|file| Found { path: Some(file), kind, named }).collect();
        self.out.archives.extend(archives);
        self.out.files.extend(found);
    }

    /// The files found, each once and ranked (a file found both below a root and through a CRD path is
    /// a workspace file), with the hidden directories and test material that were named after all
    /// left out of the notes.
    pub fn finish(self, named_roots: &[PathBuf]) -> Resolution {
        let mut out = self.out;
        let mut seen = std::collections::HashSet::new();
        out.files.retain(|f| seen.insert(f.path.as_deref().map(files::normalize)));
        out.files.sort_by_key(|f| f.kind);
        let mut seen = std::collections::HashSet::new();
        out.archives.retain(|a| seen.insert(files::normalize(a)));
        // A hidden directory that was also named as a path (or holds one) was checked after all.
        let named: Vec<PathBuf> = named_roots.iter().map(|p| files::normalize(p)).collect();
        let unnamed = |dir: &PathBuf| {
            let dir = files::normalize(dir);
            !named.iter().any(|p| p.starts_with(&dir))
        };
        out.hidden.retain(unnamed);
        out.test_material.retain(unnamed);
        out
    }
}

/// What a path stands for: itself (a chart archive, or a file of any other extension), or the YAML
/// and JSON files and the dependency archives below a directory, sorted, with the hidden directories
/// (and, unless `options` include it, test material) skipped.
pub fn walk(path: &Path, options: WalkOptions) -> std::io::Result<files::Walk> {
    let meta = std::fs::metadata(path)?;
    if !meta.is_file() && !meta.is_dir() {
        // A FIFO would block the run, a device would never end.
        let what = files::read_text(path).err().map_or_else(|| "not a regular file".to_string(), |e| e.to_string());
        return Err(std::io::Error::other(what));
    }
    if meta.is_file() {
        let mut walked = files::Walk::default();
        if crdls_sources::archive::is_chart_archive(path) {
            walked.archives.push(path.to_path_buf());
        } else {
            walked.files.push(path.to_path_buf());
        }
        return Ok(walked);
    }
    let mut walked = files::walk_below(path, options);
    walked.files.sort();
    walked.archives.sort();
    Ok(walked)
}

/// Whether `text` may define a CRD: it names the kind, or holds an escape (`\u0043`, `\x43`, a line
/// continued with `\`) that could spell it. Other texts are not parsed for CRDs.
pub fn may_define_crd(text: &str) -> bool {
    text.contains("CustomResourceDefinition") || ["\\u", "\\U", "\\x", "\\\n", "\\\r"].iter().any(|escape| text.contains(escape))
}

/// The CRDs of a source's text read in `role`, their schemas built from `reader` when first needed;
/// none, without parsing, when the text cannot define one.
pub fn crds_of(text: &str, role: &FileRole, reader: TextReader) -> Vec<Crd> {
    if !may_define_crd(text) {
        return Vec::new();
    }
    role.crds(text, reader)
}

/// The mutating admission webhooks a source's text installs (its `MutatingWebhookConfiguration`s), read
/// in `role` so that a chart template's actions are masked: a webhook whose rules a template computes is
/// left out. Only files whose objects a project installs count (manifests, chart templates, kustomize
/// resources, a program's ko data): a test's webhook, an expected output or a patch is not the project's
/// webhook. None, without parsing, when the text names no such configuration.
pub fn webhooks_of(text: &str, role: &FileRole) -> Vec<MutatingWebhook> {
    let installed = matches!(
        role,
        FileRole::Manifest
            | FileRole::HelmTemplate { .. }
            | FileRole::KustomizeResource { .. }
            | FileRole::ScriptFilled { .. }
            | FileRole::ProgramData { .. }
    );
    if !installed || !text.contains("MutatingWebhookConfiguration") {
        return Vec::new();
    }
    let (stream, mode) = role.parse(text);
    let mut out = Vec::new();
    for root in stream.documents.iter().filter(|d| !d.has_syntax_error).filter_map(|d| d.root.as_ref()) {
        let opaque = mode.opaque_ranges(root);
        let literal =
            |node: &crdls_yaml::Node| !opaque.iter().any(|r| r.start < node.range.end && node.range.start < r.end.max(r.start + 1));
        out.extend(crdls_crd::admission::mutating_webhooks(root, &literal));
    }
    out
}

/// The CRDs of the file at `path`, read in its role, at most [`files::MAX_FILE_BYTES`], with those it
/// outputs patched when it is a kustomization ([`kustomization_crds`]).
pub fn read_file_crds(path: &Path, roles: &mut Roles) -> Result<Vec<Crd>, ReadError> {
    let text = files::read_text(path)?;
    let mut crds = crds_of(&text, &roles.role_of(path), files::reader_of(path.to_path_buf()));
    crds.extend(kustomization_crds(path, &text, roles.workspace()));
    Ok(crds)
}

/// When `path` is a kustomization (its text `text`), the CRDs it includes as its own patches make them
/// (see [`crate::kustomize::patched_crds`]), the files it names read inside the workspace root that
/// holds it (its own directory when none does); none for any other file. Indexed under the
/// kustomization, they are what its objects resolve against rather than the files as written.
pub fn kustomization_crds(path: &Path, text: &str, workspace: &Workspace) -> Vec<Crd> {
    let named = path.file_name().and_then(|n| n.to_str()).is_some_and(|n| crate::roles::KUSTOMIZATION_FILES.contains(&n));
    let Some(dir) = path.parent().filter(|_| named) else { return Vec::new() };
    let bound = workspace.root_of(dir).unwrap_or(dir);
    crate::kustomize::patched_crds(path, text, bound)
}

/// What a file defines for the others: its CRDs, and the mutating webhooks it installs.
pub type Definitions = (Vec<Crd>, Vec<MutatingWebhook>);

/// The CRDs of the file at `path`, read in its role, with the mutating webhooks it installs (see
/// [`webhooks_of`]).
pub fn read_file_definitions(path: &Path, roles: &mut Roles) -> Result<Definitions, ReadError> {
    let text = files::read_text(path)?;
    let role = roles.role_of(path);
    Ok((crds_of(&text, &role, files::reader_of(path.to_path_buf())), webhooks_of(&text, &role)))
}

/// What many files define (see [`read_file_definitions`]), read in parallel in their roles decided in
/// `workspace`, in the order of `files`.
pub fn read_files_definitions(files: &[PathBuf], workspace: &Workspace) -> Vec<Result<Definitions, ReadError>> {
    let mut paths: Vec<&Path> = files.iter().map(PathBuf::as_path).collect();
    read_all(&mut paths, workspace, |roles, path| read_file_definitions(path, roles))
}

/// The CRDs of a download's cached copy (a URL, the cluster), read up to the cache's own bound.
pub fn read_cached_crds(path: &Path) -> Option<Vec<Crd>> {
    let reader = files::reader_of_cached(path.to_path_buf());
    let text = reader()?;
    Some(crds_of(&text, &FileRole::Manifest, reader))
}

/// Runs `read` on every item on all cores (work stealing: a few large files do not leave a core
/// idle), each thread with its own cache of what directories hold, the roles decided in `workspace`;
/// the results in the items' order.
pub fn read_all<T: Send, R: Send>(items: &mut [T], workspace: &Workspace, read: impl Fn(&mut Roles, &mut T) -> R + Sync + Send) -> Vec<R> {
    items.par_iter_mut().map_init(|| Roles::of(workspace.clone()), read).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn olm_bundles_are_told_by_their_csv_or_their_metadata() {
        let top = std::env::temp_dir().join(format!("crdls-resolver-olm-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&top);
        let write = |file: &str, text: &str| {
            let path = top.join(file);
            std::fs::create_dir_all(path.parent().unwrap()).unwrap();
            std::fs::write(&path, text).unwrap();
            path
        };
        // Beside a ClusterServiceVersion (the package-manifest layout too).
        write("deploy/olm-catalog/op/0.1.0/op.v0.1.0.clusterserviceversion.yaml", "kind: ClusterServiceVersion\n");
        assert!(in_olm_bundle(&write("deploy/olm-catalog/op/0.1.0/widgets.crd.yaml", "")));
        // A bundle's `manifests/` that its metadata names, without a CSV.
        write("bundle/metadata/annotations.yaml", "annotations:\n  operators.operatorframework.io.bundle.manifests.v1: manifests/\n");
        assert!(in_olm_bundle(&write("bundle/manifests/widgets.yaml", "")));
        // The project's own CRDs, and a `manifests/` directory of no bundle.
        assert!(!in_olm_bundle(&write("config/crd/bases/widgets.yaml", "")));
        assert!(!in_olm_bundle(&write("deploy/manifests/widgets.yaml", "")));
        let _ = std::fs::remove_dir_all(&top);
    }

    #[test]
    fn every_spelling_of_the_crd_kind_is_parsed() {
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
            assert!(may_define_crd(text), "{text:?}");
        }
        assert!(!may_define_crd("apiVersion: v1\nkind: ConfigMap\ndata:\n  a: \"tab\\tnewline\\n\"\n"));
    }

    /// The CRD paths an untrusted workspace names are read only inside it: a directory, a file or a glob's
    /// match that a symbolic link leads out of the workspace (or into `.git`) is refused and said; the
    /// user's own paths, the same ones, are read wherever they lead.
    #[cfg(unix)]
    #[test]
    fn an_untrusted_workspaces_crd_paths_do_not_follow_links_out() {
        let top = std::env::temp_dir().join(format!("crdls-resolver-confined-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&top);
        let root = top.join("repo");
        for file in ["home/.kube/config.yaml", "repo/crds/in.yaml", "repo/.git/config.yaml", "repo/globbed/real.yaml"] {
            let path = top.join(file);
            std::fs::create_dir_all(path.parent().unwrap()).unwrap();
            std::fs::write(&path, "a: 1\n").unwrap();
        }
        std::os::unix::fs::symlink(top.join("home/.kube"), root.join("kube")).unwrap();
        std::os::unix::fs::symlink(top.join("home/.kube/config.yaml"), root.join("globbed/leak.yaml")).unwrap();
        std::os::unix::fs::symlink("../crds/in.yaml", root.join("globbed/inside.yaml")).unwrap();
        std::os::unix::fs::symlink(".git/config.yaml", root.join("git.yaml")).unwrap();
        let paths: Vec<String> = ["kube", "kube/config.yaml", "globbed/*.yaml", "git.yaml", "crds"].map(String::from).to_vec();
        let read = |confined: bool| {
            let mut resolver = Resolver::excluding(WalkOptions::default(), None);
            if confined {
                resolver.add_confined_crd_paths(&paths, std::slice::from_ref(&root));
            } else {
                resolver.add_crd_paths(&paths, std::slice::from_ref(&root));
            }
            let resolution = resolver.finish(&[]);
            let files: Vec<String> =
                resolution.files.iter().map(|f| f.path.as_ref().unwrap().strip_prefix(&root).unwrap().display().to_string()).collect();
            (files, resolution.refused.iter().map(ToString::to_string).collect::<Vec<String>>())
        };
        let (mut files, refused) = read(true);
        files.sort();
        assert_eq!(files, ["crds/in.yaml", "globbed/inside.yaml", "globbed/real.yaml"]);
        assert_eq!(
            refused,
            [
                "the CRD path kube leads out of the workspace (through a symbolic link, or into .git); not read, because the workspace is not trusted",
                "the CRD path kube/config.yaml leads out of the workspace (through a symbolic link, or into .git); not read, because the workspace is not trusted",
                "globbed/leak.yaml, matched by the CRD path globbed/*.yaml, leads out of the workspace (through a symbolic link, or into .git); not read, because the workspace is not trusted",
                "the CRD path git.yaml leads out of the workspace (through a symbolic link, or into .git); not read, because the workspace is not trusted",
            ]
        );
        let (files, refused) = read(false);
        assert_eq!(files.len(), 6, "the user's paths are read wherever they lead: {files:?}");
        assert!(refused.is_empty());
        std::fs::remove_dir_all(&top).unwrap();
    }

    #[test]
    fn a_file_found_both_ways_is_a_workspace_file_and_crd_paths_rank_after() {
        let dir = std::env::temp_dir().join(format!("crdls-resolver-rank-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        for file in ["app/a.yaml", "app/crds/b.yaml", "vendor/c.yaml", "cache/d.yaml", "app/cache-link.txt"] {
            let path = dir.join(file);
            std::fs::create_dir_all(path.parent().unwrap()).unwrap();
            std::fs::write(&path, "a: 1\n").unwrap();
        }
        let mut resolver = Resolver::excluding(WalkOptions::default(), Some(dir.join("cache")));
        resolver.add_root(&dir.join("app"));
        resolver.add_crd_paths(
            &["app/crds".into(), "vendor/*.yaml".into(), "cache/*.yaml".into(), "missing".into()],
            std::slice::from_ref(&dir),
        );
        let resolution = resolver.finish(&[dir.join("app")]);
        let shown: Vec<(String, SourceKind)> = resolution
            .files
            .iter()
            .map(|f| (f.path.as_ref().unwrap().strip_prefix(&dir).unwrap().to_string_lossy().into_owned(), f.kind))
            .collect();
        assert_eq!(
            shown,
            [
                ("app/a.yaml".to_string(), SourceKind::Workspace),
                ("app/crds/b.yaml".to_string(), SourceKind::Workspace),
                ("vendor/c.yaml".to_string(), SourceKind::Configured),
            ]
        );
        assert_eq!(resolution.errors.len(), 1, "{:?}", resolution.errors);
        assert!(resolution.errors[0].contains("missing"), "{:?}", resolution.errors);
        let _ = std::fs::remove_dir_all(&dir);
    }
}
