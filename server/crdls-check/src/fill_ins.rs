//! Values a reader or a tool fills in before the file is applied, told by their own form: a whole value
//! written as an angle-bracketed word (`name: <backup-name>`, the form READMEs and test templates use
//! for "put yours here": plain, it is opaque; quoted, it stays a string, so a string where the schema
//! wants an object or a number is still the writer's mistake, as with a quoted constant's name), and a value a kpt setter sets (`format: PLACEHOLDER # kpt-set: ${img-format}`,
//! or the older `# {"$kpt-set":"img-format"}`), which kpt's `apply-setters` replaces before the package
//! is deployed. What is said of such a value is about the placeholder, not about the object.

use crdls_diagnostics::Diagnostic;
use crdls_yaml::{Node, Style, Value};

/// Whether a whole value is an angle-bracketed word: `<`, a letter, then letters, digits, `-` and `_`,
/// and `>` (`<backup-name>`, `<your_bucket>`, `<CLUSTER_NAME>`). Only a whole value: text around it
/// (`List<String>`, `x <b>`) is prose or a type. No name, quantity, enum or format is written that way,
/// a one-letter word included (`replicas: <n>`).
pub fn is_angle_word(text: &str) -> bool {
    text.strip_prefix('<').and_then(|t| t.strip_suffix('>')).is_some_and(|word| {
        !word.is_empty()
            && word.starts_with(|c: char| c.is_ascii_alphabetic())
            && word.bytes().all(|b| b.is_ascii_alphanumeric() || matches!(b, b'-' | b'_'))
    })
}

/// Drops the diagnostics about a scalar value whose line ends with a kpt setter's comment.
pub fn drop_setter_values(root: &Node, text: &str, diagnostics: &mut Vec<Diagnostic>) {
    if !text.contains("kpt-set") {
        return;
    }
    let mut set = Vec::new();
    setter_values(root, text, &mut set);
    if set.is_empty() {
        return;
    }
    diagnostics.retain(|d| !set.iter().any(|r| r.start <= d.range.start && d.range.end <= r.end));
}

/// The ranges of the scalar values below `node` that a kpt setter sets.
fn setter_values(node: &Node, text: &str, out: &mut Vec<crdls_diagnostics::TextRange>) {
    match &node.value {
        Value::Map(entries) => entries.iter().for_each(|e| setter_values(&e.value, text, out)),
        Value::Seq(items) => items.iter().for_each(|i| setter_values(i, text, out)),
        _ if node.style != Style::Flow && has_setter_comment(text, node.range.end) => out.push(node.range),
        _ => {}
    }
}

/// Whether the rest of the line from `at` (the end of a scalar) is a kpt setter's comment: blanks, then
/// `# kpt-set: ${name}` or `# {"$kpt-set":"name"}`.
fn has_setter_comment(text: &str, at: usize) -> bool {
    let Some(rest) = text.get(at..) else { return false };
    let line = rest.split('\n').next().unwrap_or_default();
    let Some(comment) = line.trim_start_matches([' ', '\t']).strip_prefix('#') else { return false };
    let comment = comment.trim();
    comment.strip_prefix("kpt-set:").is_some_and(|name| name.trim().starts_with("${")) || comment.starts_with("{\"$kpt-set\":")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn angle_words_are_whole_values_only() {
        for text in ["<backup-name>", "<restore_name>", "<CLUSTER_NAME>", "<Name2>", "<n>"] {
            assert!(is_angle_word(text), "{text}");
        }
        for text in ["List<String>", "<a b>", "<-a>", "x <b>", "<b> x", "<1a>", "<a.b>", "<>"] {
            assert!(!is_angle_word(text), "{text}");
        }
    }

    #[test]
    fn values_with_a_setter_comment_are_set_by_kpt() {
        let text = "spec:\n  format: PLACEHOLDER_FORMAT # kpt-set: ${img-format}\n  type: md6 # {\"$kpt-set\":\"type\"}\n  mac: X # a comment\n  other: Y\n";
        let root = crdls_yaml::parse(text).documents[0].root.clone().expect("an object");
        let mut set = Vec::new();
        setter_values(&root, text, &mut set);
        let shown: Vec<&str> = set.iter().map(|r| &text[r.start..r.end]).collect();
        assert_eq!(shown, ["PLACEHOLDER_FORMAT", "md6"]);
    }
}
