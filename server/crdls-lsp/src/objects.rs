//! The workspace's custom resources, offered to a CRD buffer compared with its base revision so that it
//! can say which of them the change breaks (`crd-change/breaks-objects`). Nothing is read until a CRD
//! buffer first differs from its base revision: then the files below the workspace folders are read
//! once (at most [`MAX_FILES`] files and [`MAX_HELD`] objects) and kept until the next workspace scan
//! or a change on disk the client reports; open buffers are read afresh at each ask, their text
//! winning over the file's.
//!
//! Concurrency: the cache is one `Mutex<Option<Arc<_>>>` in the shared state. The first ask reads the
//! files outside the lock and stores the result; two first asks at once both read, the last one stored
//! wins, and both are equal. Invalidation replaces the cache with `None`.

use std::path::{Path, PathBuf};
use std::sync::Arc;

use crdls_check::old::{ObjectSource, SourcedObject};
use crdls_check::FileMode;
use tower_lsp::lsp_types::Url;

use crate::session::{lock, role_of, State};

/// How many files below the workspace folders are read for objects.
const MAX_FILES: usize = 5_000;
/// How many objects are held at most.
const MAX_HELD: usize = 20_000;

/// The objects read from the workspace's files, each with the file it is in.
pub(crate) type DiskObjects = Vec<(PathBuf, SourcedObject)>;

/// What the editor offers a changed CRD: the shared state, read when asked.
pub(crate) struct WorkspaceObjects {
    state: Arc<State>,
}

impl std::fmt::Debug for WorkspaceObjects {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("WorkspaceObjects")
    }
}

impl WorkspaceObjects {
    pub(crate) fn new(state: Arc<State>) -> WorkspaceObjects {
        WorkspaceObjects { state }
    }
}

/// Drops what was read from disk, so the next ask reads the files again.
pub(crate) fn invalidate(state: &State) {
    *lock(&state.objects) = None;
}

impl ObjectSource for WorkspaceObjects {
    fn objects_of(&self, group: &str, kind: &str, limit: usize) -> Vec<SourcedObject> {
        let roots = self.state.session().roots.clone();
        let open: Vec<(Url, String)> = lock(&self.state.documents).iter().map(|(uri, open)| (uri.clone(), open.document.text())).collect();
        let open_paths: Vec<PathBuf> = open.iter().filter_map(|(uri, _)| uri.to_file_path().ok()).collect();
        let disk = {
            let cached = lock(&self.state.objects).clone();
            match cached {
                Some(disk) => disk,
                None => {
                    let disk = Arc::new(read_disk(&self.state, &roots));
                    *lock(&self.state.objects) = Some(disk.clone());
                    disk
                }
            }
        };
        let wanted = |o: &SourcedObject| {
            o.root.get_str("kind") == Some(kind) && o.root.get_str("apiVersion").is_some_and(|v| crdls_crd::split_api_version(v).0 == group)
        };
        let mut out: Vec<SourcedObject> = Vec::new();
        for (uri, text) in &open {
            let shown = uri.to_file_path().map_or_else(|_| uri.to_string(), |p| shown_path(&p, &roots));
            objects_in(&self.state, uri.as_str(), &shown, text, &mut |o| {
                if wanted(&o) {
                    out.push(o);
                }
            });
        }
        for (path, object) in disk.iter() {
            if out.len() >= limit {
                break;
            }
            if wanted(object) && !open_paths.contains(path) {
                out.push(object.clone());
            }
        }
        out.truncate(limit);
        out
    }
}

/// The objects of the YAML files below the workspace folders, with the file each is in.
fn read_disk(state: &State, roots: &[PathBuf]) -> DiskObjects {
    let mut out = Vec::new();
    let mut files = Vec::new();
    let options = state.session().config.walk_options();
    for root in roots {
        files.extend(crdls_workspace::files::walk_below(root, options).files);
    }
    files.sort();
    files.dedup();
    for path in files.into_iter().take(MAX_FILES) {
        let Ok(text) = crdls_workspace::files::read_text(&path) else { continue };
        // Only a text that names a kind can hold an object.
        if !text.contains("kind") {
            continue;
        }
        let Ok(uri) = Url::from_file_path(&path) else { continue };
        let shown = shown_path(&path, roots);
        objects_in(state, uri.as_str(), &shown, &text, &mut |o| {
            if out.len() < MAX_HELD {
                out.push((path.clone(), o));
            }
        });
        if out.len() >= MAX_HELD {
            break;
        }
    }
    out
}

/// The whole custom resources of one file, read as its role says (templates, patches and test
/// assertions hold none).
fn objects_in(state: &State, uri: &str, shown: &str, text: &str, found: &mut dyn FnMut(SourcedObject)) {
    let (stream, mode) = role_of(state, uri).parse(text);
    if !matches!(mode, FileMode::Objects | FileMode::Assembled { .. }) {
        return;
    }
    let lines = crdls_yaml::LineIndex::new(text);
    for doc in stream.documents.iter().filter(|d| !d.has_syntax_error) {
        let Some(root) = &doc.root else { continue };
        let custom = root.get_str("apiVersion").is_some_and(|v| crdls_crd::split_api_version(v).0.contains('.'));
        if custom && crdls_crd::is_crd(root).is_none() {
            found(SourcedObject { source: shown.to_string(), line: lines.line_of(root.range.start), root: root.clone() });
        }
    }
}

/// A path relative to the workspace folder it is in, as the CLI shows it.
fn shown_path(path: &Path, roots: &[PathBuf]) -> String {
    roots.iter().find_map(|r| path.strip_prefix(r).ok()).unwrap_or(path).to_string_lossy().into_owned()
}
