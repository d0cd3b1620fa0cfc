//! Go-to-definition (placeholder: being written).

use crdls_crd::{CrdIndex, SourceId};
use crdls_yaml::{Stream, TextRange};

/// A place in another source (a CRD file).
#[derive(Clone, Debug, PartialEq)]
pub struct Target {
    /// The source, as the index knows it.
    pub source: SourceId,
    /// The range in that source.
    pub range: TextRange,
}

/// Where the key or value at byte `offset` is defined.
pub fn definition(_text: &str, _stream: &Stream, _index: &CrdIndex, _offset: usize) -> Option<Target> {
    None
}
