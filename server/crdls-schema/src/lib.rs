//! Custom-resource validation for crdls: prune, default and validate an object against its CRD
//! version's structural schema, with the API server's error types, paths and wording.

mod builtin;
pub mod cel;
mod check;
mod crd_rules;
mod crd_validation;
mod crd_versions;
mod field_error;
pub mod gofmt;
mod listtype;
mod metadata;
mod modes;
pub mod old;
mod prune;
mod suggest;
mod validate;

pub use crdls_go::{formats, names, pattern};

pub use crd_rules::{crd_costs, factor_text, short_path, thousands, CostDriver, RuleCost, SchemaCost, PER_CRD_LIMIT, PER_EXPRESSION_LIMIT};
pub use crdls_crd::cel::Unbounded;

pub use check::{check_stream, check_stream_as, CheckOptions, DocumentCheck, DocumentKind, FileCheck};
pub use field_error::{ErrorType, FieldError};
pub use modes::FileMode;
pub use old::OldObjects;
pub use prune::{defaulted_value, prune_and_default, PrunedField, OBJECT_META_FIELDS};
pub use suggest::{did_you_mean, edit_distance};
