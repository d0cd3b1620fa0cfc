//! YAML with positions for crdls: parsing never fails and yields documents whose every node and key
//! keeps its byte range, plus located syntax, duplicate-key and aliasing diagnostics.

mod go_words;
mod implicit_keys;
mod line_index;
mod locate;
mod parse;
mod path;
mod scalar;
mod scalar_map;
pub mod template;
mod tree;

pub use line_index::{ColumnUnit, LineCol, LineIndex};
pub use locate::{document_at, locate, Location, Segment};
pub use parse::{parse, parse_at, Document, Stream, MAX_EXPANDED_NODES, MAX_NESTING};
pub use path::{follow, FieldPath, Followed};
pub use scalar::{double_quoted, resolve_plain, resolve_tagged};
pub use scalar_map::ScalarMap;
pub use tree::{Entry, Node, Style, Value};

#[cfg(test)]
mod tests;
