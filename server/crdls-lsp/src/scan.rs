//! Finding CRDs on disk: every YAML and JSON file below the workspace folders and the configured
//! extra paths, read and indexed off the async runtime.

use std::path::Path;

use crdls_crd::Crd;

/// Reads the CRDs of one file; files that cannot contain one are skipped without parsing. Of a chart
/// template, only the CRDs it writes in literal text count (see `crdls_workspace::template_crds`).
pub fn read_crds(path: &Path) -> Option<Vec<Crd>> {
    read_crds_noting(path, &mut Vec::new())
}

/// Like [`read_crds`], noting files that are not read: not regular files (a FIFO would block the scan,
/// a device would never end), too large, or not text.
pub fn read_crds_noting(path: &Path, unread: &mut Vec<String>) -> Option<Vec<Crd>> {
    let template = crdls_workspace::roles::is_chart_template(path);
    match crdls_workspace::files::read_text(path) {
        Ok(text) if template => Some(crdls_workspace::template_crds(&text)),
        Ok(text) => Some(crds_in(&text, crdls_workspace::files::reader_of(path.to_path_buf()))),
        Err(crdls_workspace::files::ReadError::Io(_)) => None,
        Err(e) => {
            unread.push(format!("{}: {e}", path.display()));
            None
        }
    }
}

/// The CRDs of many files, read on every core (each worker takes the next file when it is done, so a
/// few large files do not leave a core idle), in the order of `files`; with the files not read.
pub fn read_all_crds(files: Vec<std::path::PathBuf>) -> (Vec<(std::path::PathBuf, Vec<Crd>)>, Vec<String>) {
    use std::sync::atomic::{AtomicUsize, Ordering};
    let next = AtomicUsize::new(0);
    let workers = std::thread::available_parallelism().map_or(1, |n| n.get()).clamp(1, 8).min(files.len().max(1));
    let mut results: Vec<(usize, Option<Vec<Crd>>, Vec<String>)> = std::thread::scope(|scope| {
        let handles: Vec<_> = (0..workers)
            .map(|_| {
                scope.spawn(|| {
                    let mut done = Vec::new();
                    loop {
                        let i = next.fetch_add(1, Ordering::Relaxed);
                        let Some(path) = files.get(i) else { break };
                        let mut unread = Vec::new();
                        let crds = read_crds_noting(path, &mut unread);
                        done.push((i, crds, unread));
                    }
                    done
                })
            })
            .collect();
        // A worker that panicked loses its files' CRDs, not the scan.
        handles.into_iter().flat_map(|h| h.join().unwrap_or_default()).collect()
    });
    results.sort_by_key(|(i, _, _)| *i);
    let mut unread = Vec::new();
    let mut found = Vec::new();
    let mut files: Vec<Option<std::path::PathBuf>> = files.into_iter().map(Some).collect();
    for (i, crds, notes) in results {
        unread.extend(notes);
        if let (Some(crds), Some(path)) = (crds, files[i].take()) {
            found.push((path, crds));
        }
    }
    (found, unread)
}

/// The CRDs of a text (empty unless it mentions CustomResourceDefinition, which spares parsing most
/// files), read identity first: each schema is built from `reader`, the source as it is then, when
/// first needed.
pub fn crds_in(text: &str, reader: crdls_crd::TextReader) -> Vec<Crd> {
    if !text.contains("CustomResourceDefinition") {
        return Vec::new();
    }
    Crd::read_identities(text, reader)
}
