//! Whether a CEL rule reads a field its object leaves out: of a test input, which may leave out what its
//! test does not look at, a rule that fails while it reads such a field (`has(self.image) && ...`, or
//! `self.mysql.size > 0` failing with "no such key") is about what is left out, as a missing required
//! field is, and is not judged. A rule that fails on values the object writes is.

use crdls_cel::ast::{Expr, IdedExpr};
use crdls_cel::escape::unescape;
use crdls_yaml::{Node, Value};

/// How many sub-expressions are looked at before giving up (a rule's size is bounded, this is a bound
/// of our own).
const MAX_NODES: usize = 10_000;

/// Whether `expr`, a rule on `node`, selects a field of `self` (`self.a.b`, `has(self.a.b)`) that
/// `node` leaves out or writes as null.
pub fn reads_absent_field(expr: &IdedExpr, node: &Node) -> bool {
    let mut stack = vec![expr];
    let mut seen = 0usize;
    while let Some(e) = stack.pop() {
        seen += 1;
        if seen > MAX_NODES {
            return false;
        }
        if let Some(path) = self_path(e) {
            if absent(node, &path) {
                return true;
            }
            continue;
        }
        stack.extend(crdls_cel::parse::children(e));
    }
    false
}

/// The fields of a selection chain rooted at `self`, outermost last (`self.a.b` gives `[a, b]`).
fn self_path(e: &IdedExpr) -> Option<Vec<&str>> {
    let mut fields = Vec::new();
    let mut at = e;
    loop {
        match &at.expr {
            Expr::Select(select) => {
                fields.push(select.field.as_str());
                at = &select.operand;
            }
            Expr::Ident(name) if name == "self" && !fields.is_empty() => {
                fields.reverse();
                return Some(fields);
            }
            _ => return None,
        }
    }
}

/// Whether following `path` from `node` meets a map without the field (or with a null); a value that is
/// not a map on the way ends the walk (the rule's types decide what it reads there).
fn absent(node: &Node, path: &[&str]) -> bool {
    let mut at = node;
    for field in path {
        let Value::Map(_) = &at.value else { return false };
        let name = unescape(field).unwrap_or_else(|| field.to_string());
        match at.get(&name) {
            Some(child) if child.value != Value::Null => at = child,
            _ => return true,
        }
    }
    false
}

#[cfg(test)]
mod tests {
    use super::*;

    fn reads_absent(rule: &str, object: &str) -> bool {
        let parsed = crdls_cel::parse(rule).unwrap_or_else(|_| panic!("{rule} parses"));
        let stream = crdls_yaml::parse(object);
        let root = stream.documents[0].root.clone().expect("an object");
        reads_absent_field(&parsed.expr, &root)
    }

    #[test]
    fn a_rule_reads_a_field_the_object_leaves_out() {
        let object = "clusterType: async\nsize: 3\nhaproxy: {enabled: true}\nnote: null\n";
        assert!(reads_absent("has(self.image) && size(self.image) > 0", object));
        assert!(reads_absent("!self.haproxy.enabled || has(self.haproxy.image)", object));
        assert!(reads_absent("self.size <= self.maxSize", object));
        assert!(reads_absent("self.note.size() > 0", object));
        // Every field it reads is written: its failure is about those values.
        assert!(!reads_absent("self.size >= 5", object));
        assert!(!reads_absent("self.clusterType == 'group' || self.size > 5", object));
        assert!(!reads_absent("!has(self.haproxy) || self.haproxy.enabled == false", object));
        // What a comprehension's variable reads is not a field of `self`.
        assert!(!reads_absent("[1].all(x, has(x.y))", object));
    }
}
