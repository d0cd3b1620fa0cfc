//! CEL cost while a CRD is edited: an inlay hint after every rule (its estimated cost, times how often
//! it runs, and the share of the per-rule limit), a hover that explains the number and names the
//! unbounded lists, maps and strings behind it, and a quick fix that bounds them just enough.

use crdls_check::{crd_costs, short_path, thousands, CostDriver, RuleCost, SchemaCost, Unbounded, PER_CRD_LIMIT, PER_EXPRESSION_LIMIT};
use crdls_diagnostics::TextRange;
use crdls_yaml::{locate, Node, Stream, Style};

use crate::hints::InlayHint;
use crate::types::{CodeAction, Edit};

/// The cost hints of the CRD documents overlapping `range`: one after each rule and message expression.
pub(crate) fn hints(text: &str, stream: &Stream, range: TextRange, out: &mut Vec<InlayHint>) {
    for doc in &stream.documents {
        if doc.has_syntax_error || doc.range.end < range.start || doc.range.start > range.end {
            continue;
        }
        let Some(root) = &doc.root else { continue };
        if crdls_crd::is_crd(root).is_none() {
            continue;
        }
        for schema in crd_costs(root, text, true) {
            for rule in &schema.rules {
                out.push(InlayHint { offset: hint_offset(text, rule.range), label: label(rule), tooltip: explain(rule, &schema) });
            }
        }
    }
}

/// After the string, or at the end of its first line for a block scalar (the rest is the rule).
fn hint_offset(text: &str, range: TextRange) -> usize {
    let start = range.start.min(text.len());
    if text[start..].starts_with(['|', '>']) {
        return start + text[start..].find('\n').unwrap_or(text.len() - start);
    }
    range.end
}

/// `cost 6,291,454 (62.9%)`, or `cost 4 × 1,048,576 = 4,194,304 (41.9%)` when the rule runs more than once.
fn label(rule: &RuleCost) -> String {
    let share = percent(rule.total, PER_EXPRESSION_LIMIT);
    if rule.cardinality > 1 {
        format!("cost {} × {} = {} ({share})", thousands(rule.cost), thousands(rule.cardinality), thousands(rule.total))
    } else {
        format!("cost {} ({share})", thousands(rule.cost))
    }
}

fn percent(value: u64, limit: u64) -> String {
    let rel = relative(value, limit);
    match rel.strip_suffix(" of") {
        Some(share) => share.to_string(),
        None => format!("{rel} the limit"),
    }
}

/// `62.9% of` within the limit; `3.4x` or `more than 100x` over it.
fn relative(value: u64, limit: u64) -> String {
    let factor = value as f64 / limit as f64;
    if value > limit {
        if factor > 100.0 {
            "more than 100x".into()
        } else {
            format!("{factor:.1}x")
        }
    } else if value > 0 && factor < 0.001 {
        "<0.1% of".into()
    } else {
        format!("{:.1}% of", factor * 100.0)
    }
}

/// Markdown explaining a rule's cost.
fn explain(rule: &RuleCost, schema: &SchemaCost) -> String {
    let what = if rule.message_expression { "messageExpression" } else { "rule" };
    let mut md = format!("**Estimated {what} cost**, as the API server computes it when the CRD is applied\n\n");
    md.push_str(&format!("- one evaluation: at most **{}**\n", thousands(rule.cost)));
    if rule.message_expression {
        md.push_str("- a message expression is charged once, whatever the number of its node's instances\n");
    } else {
        let runs = if rule.cardinality == 1 {
            "once per object".to_string()
        } else if rule.drivers.iter().any(|d| d.cardinality) || rule.cardinality > 1 {
            format!("up to {} times per object (once for each instance of its node)", thousands(rule.cardinality))
        } else {
            String::new()
        };
        md.push_str(&format!("- runs {runs}\n"));
    }
    md.push_str(&format!(
        "- total **{}**: {} the per-{what} limit of {}\n",
        thousands(rule.total),
        relative(rule.total, PER_EXPRESSION_LIMIT),
        thousands(PER_EXPRESSION_LIMIT)
    ));
    md.push_str(&format!(
        "- all rules of {} together: {}, {} the limit of {}\n",
        if schema.versions.is_empty() { "this schema".to_string() } else { format!("version {}", schema.versions.join(", ")) },
        thousands(schema.total),
        relative(schema.total, PER_CRD_LIMIT),
        thousands(PER_CRD_LIMIT)
    ));
    let drivers = dedup(&rule.drivers);
    if !drivers.is_empty() {
        md.push_str("\nWithout a bound, the API server sizes these from its 3 MiB request limit:\n");
        for d in drivers {
            let role = if d.cardinality { "repeats the rule" } else { "sizes each evaluation" };
            md.push_str(&format!("- `{}` has no `{}` ({role})\n", short_path(&d.path), d.kind.keyword()));
        }
    }
    md
}

fn dedup(drivers: &[CostDriver]) -> Vec<&CostDriver> {
    let mut out: Vec<&CostDriver> = Vec::new();
    for d in drivers {
        if !out.iter().any(|o| o.path == d.path) {
            out.push(d);
        }
    }
    out
}

/// The cost section of the hover over a rule or message expression (the string or its key).
pub(crate) fn hover(text: &str, stream: &Stream, offset: usize) -> Option<(TextRange, String)> {
    let location = locate(stream, offset)?;
    let root = location.document.root.as_ref()?;
    crdls_crd::is_crd(root)?;
    let target = if location.on_key() { location.node.range } else { TextRange::new(offset, offset) };
    for schema in crd_costs(root, text, true) {
        if let Some(rule) = schema
            .rules
            .iter()
            .find(|r| r.range == target || (r.range.start <= target.start && target.end <= r.range.end && !location.on_key()))
        {
            return Some((rule.range, explain(rule, &schema)));
        }
    }
    None
}

/// Bounds to try, most generous first: for lists and maps, and for strings.
const LEVELS: &[(u64, u64)] =
    &[(1000, 4096), (500, 2048), (250, 1024), (100, 512), (100, 256), (50, 128), (20, 64), (10, 64), (10, 32), (5, 16), (1, 8)];

/// The quick fix for a rule (or a schema total) over its cost limit, or within 10% of it: the most
/// generous round bounds, at the unbounded nodes behind the rule, that bring it under 90% of the
/// limit without pushing the schema's total over its own.
pub(crate) fn bound_rule(text: &str, root: &Node, at: TextRange) -> Vec<CodeAction> {
    let costs = crd_costs(root, text, true);
    let Some((rule, _)) =
        costs.iter().flat_map(|s| s.rules.iter().map(move |r| (r, s))).find(|(r, _)| r.range == at || r.range.start == at.start)
    else {
        return Vec::new();
    };
    let drivers: Vec<&CostDriver> = dedup(&rule.drivers);
    if drivers.is_empty() {
        return Vec::new();
    }
    let offset = root.range.start;
    for &(collection, string) in LEVELS {
        let edits: Vec<Edit> = drivers
            .iter()
            .filter_map(|d| {
                let node = node_with_range(root, d.range)?;
                let value = if d.kind == Unbounded::String { string } else { collection };
                insert_key(text, node, d.kind.keyword(), value)
            })
            .collect();
        if edits.len() != drivers.len() {
            return Vec::new();
        }
        let changed = crate::types::apply_edits(text, &edits);
        let stream = crdls_yaml::parse(&changed);
        let Some(doc) = stream.documents.iter().find(|d| d.range.start <= offset && offset <= d.range.end) else { continue };
        let Some(new_root) = &doc.root else { continue };
        let new_costs = crd_costs(new_root, &changed, false);
        let Some((new_rule, new_schema)) =
            new_costs.iter().flat_map(|s| s.rules.iter().map(move |r| (r, s))).find(|(r, _)| r.path == rule.path)
        else {
            continue;
        };
        if new_rule.total <= PER_EXPRESSION_LIMIT / 10 * 9 && new_schema.total <= PER_CRD_LIMIT {
            let bounds: Vec<String> = drivers
                .iter()
                .map(|d| {
                    let value = if d.kind == Unbounded::String { string } else { collection };
                    format!("{}: {value} at {}", d.kind.keyword(), short_path(&d.path))
                })
                .collect();
            let title = format!("Bound the rule's cost to {} ({})", thousands(new_rule.total), bounds.join(", "));
            return vec![CodeAction { title, edits, preferred: true, automatic: false, fixes: Vec::new() }];
        }
    }
    Vec::new()
}

fn node_with_range(node: &Node, range: TextRange) -> Option<&Node> {
    if node.range == range {
        return Some(node);
    }
    match &node.value {
        crdls_yaml::Value::Map(entries) => entries.iter().find_map(|e| {
            (e.value.range.start <= range.start && range.end <= e.value.range.end).then(|| node_with_range(&e.value, range)).flatten()
        }),
        crdls_yaml::Value::Seq(items) => items
            .iter()
            .find_map(|i| (i.range.start <= range.start && range.end <= i.range.end).then(|| node_with_range(i, range)).flatten()),
        _ => None,
    }
}

/// An edit adding `key: value` to a schema mapping: a line of its own, at the indentation of its keys,
/// before its first key (block style), or first inside the braces (flow style).
fn insert_key(text: &str, node: &Node, key: &str, value: u64) -> Option<Edit> {
    let crdls_yaml::Value::Map(entries) = &node.value else { return None };
    let first = entries.first()?;
    match node.style {
        Style::Flow => {
            let open = text[..first.key_range.start].rfind('{')?;
            Some(Edit { range: TextRange::new(open + 1, open + 1), new_text: format!("{key}: {value}, ") })
        }
        _ => {
            let at = first.key_range.start;
            let line_start = text[..at].rfind('\n').map_or(0, |i| i + 1);
            let prefix = &text[line_start..at];
            // The first key may follow a sequence dash (`- type: string`): indent to the key's column.
            let indent: String = prefix.chars().map(|c| if c == '\t' { '\t' } else { ' ' }).collect();
            if prefix.trim().is_empty() {
                Some(Edit { range: TextRange::new(line_start, line_start), new_text: format!("{indent}{key}: {value}\n") })
            } else {
                Some(Edit { range: TextRange::new(at, at), new_text: format!("{key}: {value}\n{indent}") })
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use crdls_test_fixture as fixture;

    use super::*;

    /// A CRD with one rule far over the cost limit and one well within it.
    fn crd() -> String {
        fixture::Crd::new("Host")
            .schema(
                r#"
                type: object
                properties:
                  names:
                    type: array
                    items:
                      type: string
                    x-kubernetes-validations:
                    - rule: self.all(x, x.contains('a string'))
                  ports:
                    type: array
                    maxItems: 10
                    items: {type: integer}
                    x-kubernetes-validations:
                    - rule: self.all(p, p > 0)
                "#,
            )
            .yaml()
    }

    #[test]
    fn every_rule_gets_a_cost_hint() {
        let crd = crd();
        let stream = crdls_yaml::parse(&crd);
        let mut out = Vec::new();
        hints(&crd, &stream, TextRange::new(0, crd.len()), &mut out);
        let labels: Vec<&str> = out.iter().map(|h| h.label.as_str()).collect();
        assert_eq!(labels, ["cost 329,857,577,777 (more than 100x the limit)", "cost 52 (<0.1%)"]);
        assert!(crd[..out[0].offset].ends_with("x.contains('a string'))"));
        assert!(out[0].tooltip.contains("`.names` has no `maxItems`"), "{}", out[0].tooltip);
    }

    #[test]
    fn hover_on_a_rule_explains_its_cost() {
        let crd = crd();
        let stream = crdls_yaml::parse(&crd);
        let at = crd.find("x.contains").unwrap();
        let (range, md) = hover(&crd, &stream, at).unwrap();
        assert_eq!(&crd[range.start..range.end], "self.all(x, x.contains('a string'))");
        assert!(md.contains("one evaluation: at most **329,857,577,777**"), "{md}");
        assert!(md.contains("`.names[*]` has no `maxLength` (sizes each evaluation)"), "{md}");
        let key = crd.find("- rule: self.all(p").unwrap() + 3;
        let (_, md) = hover(&crd, &stream, key).unwrap();
        assert!(md.contains("at most **52**"), "{md}");
    }

    #[test]
    fn the_fix_bounds_what_drives_the_cost() {
        let crd = crd();
        let stream = crdls_yaml::parse(&crd);
        let root = stream.documents[0].root.as_ref().unwrap();
        let at = {
            let start = crd.find("self.all(x").unwrap();
            TextRange::new(start, start + "self.all(x, x.contains('a string'))".len())
        };
        let actions = bound_rule(&crd, root, at);
        assert_eq!(actions.len(), 1);
        let fixed = crate::types::apply_edits(&crd, &actions[0].edits);
        assert!(fixed.contains("          names:\n            maxItems: 1000\n            type: array\n"), "{fixed}");
        assert!(fixed.contains("            items:\n              maxLength: 4096\n              type: string\n"), "{fixed}");
        assert!(actions[0].title.starts_with("Bound the rule's cost to "), "{}", actions[0].title);
        // The fixed CRD is accepted: no cost error is left.
        let stream = crdls_yaml::parse(&fixed);
        let costs = crd_costs(stream.documents[0].root.as_ref().unwrap(), &fixed, false);
        assert!(costs[0].rules.iter().all(|r| r.total <= PER_EXPRESSION_LIMIT), "{costs:?}");
        // A rule within its limit has nothing to fix.
        let ports = crd.find("self.all(p, p > 0)").unwrap();
        assert!(bound_rule(&crd, root, TextRange::new(ports, ports + 18)).is_empty());
    }
}
