//! Finding CRDs on disk: every YAML and JSON file below the workspace folders and the configured
//! extra paths, read and indexed off the async runtime.

use std::path::Path;

use crdls_crd::Crd;

/// Reads the CRDs of one file; files that cannot contain one are skipped without parsing, and chart
/// templates are skipped.
pub fn read_crds(path: &Path) -> Option<Vec<Crd>> {
    read_crds_noting(path, &mut Vec::new())
}

/// Like [`read_crds`], noting files that are not read: not regular files (a FIFO would block the scan,
/// a device would never end), too large, or not text.
pub fn read_crds_noting(path: &Path, unread: &mut Vec<String>) -> Option<Vec<Crd>> {
    // A chart template's CRDs have the names the template computes.
    if crdls_workspace::roles::is_chart_template(path) {
        return None;
    }
    match crdls_workspace::files::read_text(path) {
        Ok(text) => Some(crds_in(&text)),
        Err(crdls_workspace::files::ReadError::Io(_)) => None,
        Err(e) => {
            unread.push(format!("{}: {e}", path.display()));
            None
        }
    }
}

/// The CRDs of a text (empty unless it mentions CustomResourceDefinition, which spares parsing most files).
pub fn crds_in(text: &str) -> Vec<Crd> {
    if !text.contains("CustomResourceDefinition") {
        return Vec::new();
    }
    crdls_yaml::parse(text).documents.iter().flat_map(Crd::from_document).collect()
}
