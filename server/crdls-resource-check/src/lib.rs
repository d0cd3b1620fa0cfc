//! Checking a Kubernetes object as the API server does: resolve its `apiVersion`/`kind` (`object.rs`,
//! `builtin/`, which also knows the built-in kinds each Kubernetes release serves), then prune and default (`prune.rs`), validate against the structural schema
//! (`validate.rs`, `listtype.rs`), apply the ObjectMeta rules (`metadata.rs`) and run the CEL rules
//! (`cel.rs`), with the API server's error types, paths and wording (`field_error.rs`, `gofmt.rs`), as
//! a create or as an update of an old version (`old.rs`).

mod builtin;
pub mod cel;
mod decode;
pub mod field_error;
pub mod gofmt;
mod listtype;
pub mod metadata;
mod native;
mod object;
pub mod old;
pub mod prune;
pub mod suggest;
pub mod validate;

pub use crdls_go::{formats, names, pattern};

pub use crdls_crd::cel::Unbounded;

pub use builtin::is_builtin_group;
pub use field_error::{ErrorType, FieldError};
pub use object::{
    check_object, kubernetes_release, release_minor, CheckOptions, DocumentKind, Reading, Subresource, NEWEST_KUBERNETES_MINOR,
    OLDEST_KUBERNETES_MINOR,
};
pub use old::OldObjects;
pub use prune::{defaulted_value, prune_and_default, PrunedField, OBJECT_META_FIELDS};
pub use suggest::{did_you_mean, edit_distance};
