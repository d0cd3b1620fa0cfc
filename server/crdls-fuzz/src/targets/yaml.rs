//! The `yaml` target: `crdls_yaml::parse` and the walkers over its tree. Nothing may panic; every
//! range (documents, nodes, keys, diagnostics, outline, folding) lies in the text on character
//! boundaries; `parse_at` yields the very document `parse` yields there; template masking keeps
//! every offset; line and column conversions round-trip.

use crdls_yaml::{ColumnUnit, FieldPath, LineIndex, Node, Stream, Value};

use crate::mutate::{mutate, Dialect};
use crate::rng::{hash, Rng};
use crate::{check_diagnostics, check_range};

/// The largest input the target builds.
pub const MAX_LEN: usize = 256 * 1024;

/// The `yaml` target.
pub struct YamlTarget {
    pub(crate) seeds: Vec<String>,
}

impl super::Target for YamlTarget {
    fn name(&self) -> &'static str {
        "yaml"
    }

    fn extension(&self) -> &'static str {
        "yaml"
    }

    fn seeds(&self) -> &[String] {
        &self.seeds
    }

    fn mutate(&self, rng: &mut Rng, input: &str, other: &str) -> String {
        mutate(rng, input, other, Dialect::Yaml, MAX_LEN)
    }

    fn run(&self, input: &str) -> Result<(), String> {
        run(input)
    }
}

/// Runs the YAML checks on one input.
pub fn run(text: &str) -> Result<(), String> {
    let stream = crdls_yaml::parse(text);
    check_stream(text, &stream)?;
    let offsets = probe_offsets(text);

    // parse_at parses only the document at an offset, and must agree with the whole parse.
    for &offset in &offsets {
        let one = crdls_yaml::parse_at(text, offset);
        for doc in &one.documents {
            let same = stream.documents.iter().find(|d| d.range == doc.range);
            let agrees = same.is_some_and(|d| d.root == doc.root && d.diagnostics == doc.diagnostics);
            if !agrees {
                return Err(format!("parse_at({offset}) yields document {:?}, which parse yields differently or not at all", doc.range));
            }
        }
        let _ = crdls_yaml::document_at(&stream, offset);
        if let Some(location) = crdls_yaml::locate(&stream, offset) {
            check_range(text, location.range(), "locate")?;
        }
    }

    // Paths to the first nodes of each document lead back to them.
    for doc in &stream.documents {
        if let Some(root) = &doc.root {
            let mut budget = 64;
            follow_paths(root, root, &FieldPath::root(), &mut budget);
        }
    }

    // Masking templates keeps every offset and the text's length.
    let masked = crdls_yaml::template::mask_go_template(text);
    if masked.text.len() != text.len() {
        return Err(format!("mask_go_template changed the length from {} to {}", text.len(), masked.text.len()));
    }
    for action in &masked.actions {
        check_range(text, *action, "template action")?;
    }
    for conditional in crdls_yaml::template::conditionals(text, &masked.actions) {
        check_range(text, conditional.range, "template conditional")?;
    }
    if crdls_yaml::template::has_actions(text) {
        check_stream(&masked.text, &crdls_yaml::parse(&masked.text))?;
    }

    // Editor walkers over the tree.
    for symbol in crdls_ide::outline::document_symbols(text, &stream) {
        check_symbol(text, &symbol)?;
    }
    for range in crdls_ide::outline::folding_ranges(text, &stream) {
        check_range(text, range, "folding range")?;
    }

    // Byte offsets and line/column positions round-trip at character boundaries outside a CRLF.
    let lines = LineIndex::new(text);
    for &offset in &offsets {
        let inside_crlf = offset > 0 && text.as_bytes()[offset - 1] == b'\r' && text.as_bytes().get(offset) == Some(&b'\n');
        if inside_crlf || ends_line_with_cr(text, offset) {
            continue;
        }
        for unit in [ColumnUnit::Utf8, ColumnUnit::Utf16, ColumnUnit::Char] {
            let position = lines.line_col(text, offset, unit);
            let back = lines.offset(text, position, unit);
            if back != offset {
                return Err(format!("offset {offset} → {position:?} ({unit:?}) → offset {back}"));
            }
        }
    }
    Ok(())
}

/// Whether `offset` follows a run of carriage returns that ends its line (those belong to the line
/// ending, where positions clamp).
fn ends_line_with_cr(text: &str, offset: usize) -> bool {
    let rest = &text.as_bytes()[offset..];
    let crs = rest.iter().take_while(|&&b| b == b'\r').count();
    let before = offset > 0 && text.as_bytes()[offset - 1] == b'\r';
    (before || crs > 0) && matches!(rest.get(crs), Some(b'\n') | None)
}

fn check_symbol(text: &str, symbol: &crdls_ide::outline::Symbol) -> Result<(), String> {
    check_range(text, symbol.range, "outline symbol")?;
    check_range(text, symbol.selection, "outline selection")?;
    symbol.children.iter().try_for_each(|c| check_symbol(text, c))
}

/// Character-boundary offsets to probe: the ends, and a few chosen by the input's hash.
fn probe_offsets(text: &str) -> Vec<usize> {
    let mut rng = Rng::new(hash(text));
    let mut offsets = vec![0, text.len()];
    for _ in 0..6 {
        offsets.push(crate::mutate::boundary(&mut rng, text));
    }
    offsets
}

/// Checks the ranges of every document, node, key and diagnostic of a parsed stream.
pub fn check_stream(text: &str, stream: &Stream) -> Result<(), String> {
    for doc in &stream.documents {
        check_range(text, doc.range, "document")?;
        check_diagnostics(text, &doc.diagnostics)?;
        if let Some(root) = &doc.root {
            let mut budget = 200_000;
            check_node(text, root, &mut budget)?;
        }
    }
    Ok(())
}

fn check_node(text: &str, node: &Node, budget: &mut usize) -> Result<(), String> {
    if *budget == 0 {
        return Ok(());
    }
    *budget -= 1;
    check_range(text, node.range, "node")?;
    match &node.value {
        Value::Seq(items) => items.iter().try_for_each(|i| check_node(text, i, budget)),
        Value::Map(entries) => entries.iter().try_for_each(|e| {
            check_range(text, e.key_range, "key")?;
            check_node(text, &e.value, budget)
        }),
        _ => Ok(()),
    }
}

/// Follows the path of the first few nodes from the root (nothing may panic on any path).
fn follow_paths(root: &Node, node: &Node, path: &FieldPath<'_>, budget: &mut usize) {
    if *budget == 0 {
        return;
    }
    *budget -= 1;
    let _ = crdls_yaml::follow(root, &path.to_string()).node();
    match &node.value {
        Value::Seq(items) => {
            for (i, item) in items.iter().enumerate().take(4) {
                follow_paths(root, item, &path.index(i), budget);
            }
        }
        Value::Map(entries) => {
            for e in entries.iter().take(8) {
                follow_paths(root, &e.value, &path.field(&e.key), budget);
            }
        }
        _ => {}
    }
}
