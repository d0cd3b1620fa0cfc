//! Finding CRDs on disk: every YAML and JSON file below the workspace folders and the configured
//! extra paths, read and indexed off the async runtime.

use std::path::Path;

use crdls_crd::Crd;

/// Files larger than this are not read when scanning (generated bundles of several MiB still fit).
const MAX_FILE_BYTES: u64 = 16 * 1024 * 1024;

/// Reads the CRDs of one file; files that cannot contain one are skipped without parsing, and chart
/// templates are skipped.
pub fn read_crds(path: &Path) -> Option<Vec<Crd>> {
    // A chart template's CRDs have the names the template computes.
    if crdls_workspace::roles::is_chart_template(path) {
        return None;
    }
    let meta = std::fs::metadata(path).ok()?;
    if meta.len() > MAX_FILE_BYTES {
        return None;
    }
    let text = std::fs::read_to_string(path).ok()?;
    Some(crds_in(&text))
}

/// The CRDs of a text (empty unless it mentions CustomResourceDefinition, which spares parsing most files).
pub fn crds_in(text: &str) -> Vec<Crd> {
    if !text.contains("CustomResourceDefinition") {
        return Vec::new();
    }
    crdls_yaml::parse(text).documents.iter().flat_map(Crd::from_document).collect()
}
