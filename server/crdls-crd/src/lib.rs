//! CRD model and index for crdls: reads CustomResourceDefinitions (v1 and legacy v1beta1) from parsed
//! YAML and maps (group, version, kind) to the version's schema, flags and source ranges.

pub mod admission;
pub mod cel;
mod crd;
mod index;
pub mod intern;
mod lazy;
mod schema;
mod version;

pub use crd::{is_crd, Crd, CrdApiVersion, CrdVersion, Names};
pub use index::{
    relative_source, split_api_version, why_not_used, CrdIndex, Definition, Distance, IndexedCrd, Origin, PassedOver, Resolution, SourceId,
    SourceKind, VersionFit,
};
pub use lazy::TextReader;
pub use schema::{AdditionalProperties, Property, Rare, Schema, ValidationRule};
pub use version::{compare_versions, is_next_version};
