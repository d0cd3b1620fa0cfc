//! Library half of the crdls binary: the command line, its reporters and the work spreading they use.

mod check;
pub mod cli;
pub mod cost;
mod explain;
mod explain_field;
pub mod io;
pub mod parallel;
pub mod report;
