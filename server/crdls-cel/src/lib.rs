//! CEL for Kubernetes validation rules: expressions parsed with the `cel` crate (source offsets
//! kept), type-checked against the CEL types Kubernetes derives from a CRD's structural schema, and
//! evaluated with the libraries and cost limits of the API server.

pub mod checker;
pub mod cost;
pub mod decls;
pub mod escape;
pub mod eval;
pub mod format;
mod functions;
pub mod k8s;
mod lists;
pub mod parse;
pub mod time;
pub mod types;
pub mod value;

pub use cel::common::ast;
pub use checker::{check, check_with, Checked, Options};
pub use eval::{evaluate, evaluate_bindings, evaluate_with_depth, ErrorKind, EvalError, Evaluation, Outcome};
pub use parse::{display_all, parse, CelError, Parsed};
pub use types::{Field, ObjectType, Opaque, Type};
pub use value::{List, ListKind, Map, Object, Value};
