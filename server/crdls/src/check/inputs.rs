//! Reading what `crdls check` was pointed at: files, directories (walked, with hidden directories
//! noted), standard input, and the CRD sources: `--crds` paths, the chart archives among both, and
//! URLs and the cluster through the cache. Files are found here and read later, when they are needed:
//! `crdls check` reads each twice (once for its CRDs, once to check it) rather than keep every text.

use std::borrow::Cow;
use std::io::Read;
use std::path::{Path, PathBuf};

use crdls_crd::SourceKind;
use crdls_workspace::external::External;
use crdls_workspace::resolver::{self, Resolver};
use crdls_workspace::{files, CONFIG_FILE};

/// One input: a file found, or a text read into memory.
pub(crate) struct Input {
    /// The path shown to the user (relative to the working directory), `<stdin>`, an archive member
    /// (`charts/app.tgz!/app/crds/a.yaml`), a URL or `cluster NAME`.
    pub display: String,
    /// The file it was read from (`None` for standard input and archive members; the cached copy
    /// for a URL or the cluster).
    pub path: Option<PathBuf>,
    /// The text, when it is held in memory: standard input and the sources read with it (archive
    /// members, downloads). A file's text is read when needed (`Input::read`).
    pub text: Option<String>,
    /// Whether its problems are reported (false for CRD sources).
    pub report: bool,
    /// What kind of source it is, which decides which of two definitions of a CRD wins.
    pub kind: SourceKind,
    /// For a download: whether it came from the network in this run, and when it was cached.
    pub fetched: Option<(bool, Option<u64>)>,
    /// Whether the file was named as a path, rather than found while walking a directory: a FIFO, a
    /// device or a huge file named so is an error, one found so is skipped with a note.
    named: bool,
}

/// Why an input's text could not be read.
pub(crate) enum Unread {
    /// Found while walking a directory and not a regular file, too large or binary: named in a note.
    Skipped(String),
    /// A usage error.
    Error(String),
}

impl Input {
    pub(crate) fn file(display: String, path: PathBuf, named: bool, report: bool) -> Input {
        let kind = if report { SourceKind::Workspace } else { SourceKind::Configured };
        Input { display, path: Some(path), text: None, report, kind, fetched: None, named }
    }

    /// The input's text: the one held, or the file's as it is now.
    pub(crate) fn read(&self) -> Result<Cow<'_, str>, Unread> {
        if let Some(text) = &self.text {
            return Ok(Cow::Borrowed(text));
        }
        let Some(file) = &self.path else { return Ok(Cow::Borrowed("")) };
        match files::read_text(file) {
            Ok(text) => Ok(Cow::Owned(text)),
            // Found while walking a directory, a FIFO, a device, a huge or a binary file is skipped
            // and named.
            Err(e @ (files::ReadError::NotRegular(_) | files::ReadError::TooLarge { .. } | files::ReadError::NotText)) if !self.named => {
                Err(Unread::Skipped(format!("{}: {e}", self.display)))
            }
            Err(files::ReadError::Io(e)) => Err(Unread::Error(format!("cannot read {}: {e}", file.display()))),
            Err(e) => Err(Unread::Error(format!("{}: {e}", file.display()))),
        }
    }

    /// An input from outside the checked files: an archive member, a URL, the cluster.
    pub(crate) fn external(source: External, cwd: &Path) -> Input {
        let display = match &source.member {
            Some(member) => format!("{}{}{member}", display_path(&source.file, cwd), crdls_sources::archive::SEPARATOR),
            None => source.label,
        };
        // A download that could not be cached has no file to read again: its text is kept instead.
        let path = (source.member.is_none() && source.not_cached.is_none()).then_some(source.file);
        Input { display, path, text: Some(source.text), report: false, kind: source.kind, fetched: source.fetched, named: true }
    }
}

/// What reading the inputs found besides the files.
#[derive(Default)]
pub(crate) struct Found {
    pub inputs: Vec<Input>,
    /// Hidden directories and files skipped while walking the checked paths (not the `--crds` ones).
    pub hidden: Vec<PathBuf>,
    /// Symbolic links found while walking that lead outside the walked directory: not followed.
    pub links_out: Vec<PathBuf>,
    /// Test material (`testdata` directories, expected outputs) skipped while walking the checked paths.
    pub test_material: Vec<PathBuf>,
    /// Messages for inputs that could not be read; any makes the run a usage error.
    pub errors: Vec<String>,
    /// Globs of CRD paths whose walk stopped early, with why.
    pub warnings: Vec<String>,
}

/// Reads the checked `paths` (reported) and the local CRD locations among `crd_locations` (not
/// reported; globs expanded): the user's own, and those an untrusted workspace names, read only inside
/// it ([`crdls_workspace::Config::crd_path_sets`]). The resolver the language server's scan uses finds
/// them. A file named both ways is read once, and reported.
pub(crate) fn read(
    paths: &[PathBuf],
    crd_locations: (&[String], &[String]),
    stdin: &mut dyn Read,
    cwd: &Path,
    options: files::WalkOptions,
) -> Found {
    let mut resolver = Resolver::new(options);
    for path in paths {
        if path.as_os_str() == "-" {
            resolver.add_stdin(SourceKind::Workspace);
        } else {
            resolver.add_root(&cwd.join(path));
        }
    }
    // Standard input may be a CRD source too (`kustomize build crds/ | crdls check --crds - .`).
    let (users, confined) = crd_locations;
    let (stdin_crds, locations): (Vec<String>, Vec<String>) = users.iter().cloned().partition(|l| l == "-");
    if !stdin_crds.is_empty() {
        resolver.add_stdin(SourceKind::Configured);
    }
    resolver.add_crd_paths(&locations, &[cwd.to_path_buf()]);
    resolver.add_confined_crd_paths(confined, &[cwd.to_path_buf()]);
    let named: Vec<PathBuf> = paths.iter().map(|p| cwd.join(p)).collect();
    let resolution = resolver.finish(&named);
    let mut found = Found { warnings: resolution.warnings, errors: resolution.errors, ..Found::default() };
    let how = super::config::HOW_TO_TRUST;
    found.warnings.extend(resolution.refused.iter().map(|refused| format!("{CONFIG_FILE}: {refused} ({how})")));
    for file in resolution.files {
        let report = file.reported();
        let Some(path) = file.path else {
            let mut text = String::new();
            match stdin.read_to_string(&mut text) {
                Ok(_) => found.inputs.push(Input {
                    display: "<stdin>".into(),
                    path: None,
                    text: Some(text),
                    report,
                    kind: file.kind,
                    fetched: None,
                    named: true,
                }),
                Err(e) => found.errors.push(format!("cannot read standard input: {e}")),
            }
            continue;
        };
        found.inputs.push(Input::file(display_path(&path, cwd), path, file.named, report));
    }
    // The CRDs of chart archives count wherever the archives are; their members are not checked.
    for archive in &resolution.archives {
        match crdls_workspace::external::archive_members(archive) {
            Ok(members) => found.inputs.extend(members.into_iter().map(|m| Input::external(m, cwd))),
            Err(e) => found.errors.push(e.to_string()),
        }
    }
    found.hidden = resolution.hidden;
    found.test_material = resolution.test_material;
    found.links_out = resolution.links_out.iter().map(|l| PathBuf::from(display_path(l, cwd))).collect();
    found
}

/// The files a path stands for: itself (whatever its extension), or the YAML and JSON files below a directory, sorted.
pub(crate) fn collect_files(path: &Path) -> std::io::Result<Vec<PathBuf>> {
    Ok(resolver::walk(path, files::WalkOptions::default())?.files)
}

/// A path as users expect to see it: relative to the working directory when below it, with forward
/// slashes, without `./`.
pub(crate) fn display_path(path: &Path, cwd: &Path) -> String {
    let shown = path.strip_prefix(cwd).unwrap_or(path);
    let s = shown.to_string_lossy().replace('\\', "/");
    let s = s.replace("/./", "/");
    s.strip_prefix("./").map(str::to_string).unwrap_or(s)
}
