//! `x-kubernetes-list-type` checks: items of `set` lists must be unique, items of `map` lists must be
//! unique by their `x-kubernetes-list-map-keys`. Run after defaulting, as the API server does.

use std::collections::HashMap;

use crdls_crd::{AdditionalProperties, Schema};
use crdls_diagnostics::{Diagnostic, Severity};
use crdls_yaml::{Entry, FieldPath, Node, Value};

use crate::field_error::{ErrorType, FieldError};
use crate::gofmt;
use crdls_diagnostics::codes;

/// Walks the whole object and reports duplicates in every set and map list.
pub fn validate_lists(node: &Node, schema: &Schema, path: &FieldPath<'_>, out: &mut Vec<Diagnostic>) {
    match &node.value {
        Value::Seq(items) => {
            match schema.list_type.as_deref() {
                Some("set") => set_duplicates(items, path, out),
                Some("map") if !schema.rare().list_map_keys.is_empty() => map_duplicates(items, &schema.rare().list_map_keys, path, out),
                _ => {}
            }
            if let Some(item_schema) = &schema.items {
                for (i, item) in items.iter().enumerate() {
                    validate_lists(item, item_schema, &path.index(i), out);
                }
            }
        }
        Value::Map(entries) => {
            for entry in entries {
                if let Some(prop) = schema.property(&entry.key) {
                    validate_lists(&entry.value, &prop.schema, &path.field(&entry.key), out);
                } else if let Some(AdditionalProperties::Schema(extra)) = &schema.additional_properties {
                    validate_lists(&entry.value, extra, &path.field(&entry.key), out);
                }
            }
        }
        _ => {}
    }
}

/// Only the second occurrence of a value is reported, as the API server does: apiextensions-apiserver's
/// `validateListSet` counts the items seen (scalars by Go value, objects and lists by their JSON) and
/// reports an index only when its value was seen exactly once before. Items are looked up by their
/// [`Identity`], so a list of any length is checked in one pass.
fn set_duplicates(items: &[Node], path: &FieldPath<'_>, out: &mut Vec<Diagnostic>) {
    for (i, first) in second_occurrences(items) {
        let item = &items[i];
        let err = FieldError {
            ty: ErrorType::Duplicate,
            path: path.index(i).to_string(),
            value: Some(gofmt::value(item)),
            detail: String::new(),
        };
        out.push(err.diagnostic(
            item.range,
            Severity::Error,
            codes::SCHEMA_LIST_SET_DUPLICATE,
            format!("duplicate item in a set list: same as item {first}"),
        ));
    }
}

/// The items equal to exactly one item before them, each with the index of that first occurrence, in
/// the list's order.
fn second_occurrences(items: &[Node]) -> Vec<(usize, usize)> {
    let mut identity = Identity::default();
    // Each value's first index and how many times it was seen.
    let mut seen: HashMap<Vec<u8>, (usize, usize)> = HashMap::with_capacity(items.len());
    let mut found = Vec::new();
    for (i, item) in items.iter().enumerate() {
        let (first, times) = seen.entry(identity.of(item)).or_insert((i, 0));
        *times += 1;
        if *times == 2 {
            found.push((i, *first));
        }
    }
    found
}

/// The bytes that identify a JSON value as the API server compares list items: equal bytes for equal
/// values. Objects compare whatever their keys' order, the last of repeated keys winning (as Go's
/// decoder keeps it); numbers compare by value, so a whole float written `1.0` equals `1` (the YAML
/// reader already makes most such floats integers; the rest, near the limits of 64-bit integers, are
/// made so here); strings never equal numbers. Every part is tagged and sized, so no two different
/// values share bytes. A NaN, which JSON cannot carry, equals nothing, as it did when items were
/// compared pairwise.
#[derive(Default)]
struct Identity {
    nans: u64,
}

impl Identity {
    fn of(&mut self, node: &Node) -> Vec<u8> {
        let mut out = Vec::new();
        self.write(node, &mut out);
        out
    }

    fn write(&mut self, node: &Node, out: &mut Vec<u8>) {
        match &node.value {
            Value::Null => out.push(b'z'),
            Value::Bool(b) => out.extend([b'b', u8::from(*b)]),
            Value::Int(i) => Self::int(*i, out),
            // 2^63 is the first float beyond the integers: those below it that are whole are integers.
            Value::Float(f) if f.fract() == 0.0 && *f >= -9_223_372_036_854_775_808.0 && *f < 9_223_372_036_854_775_808.0 => {
                Self::int(*f as i64, out)
            }
            Value::Float(f) if f.is_nan() => {
                self.nans += 1;
                out.push(b'n');
                out.extend(self.nans.to_le_bytes());
            }
            Value::Float(f) => {
                out.push(b'f');
                out.extend(f.to_bits().to_le_bytes());
            }
            Value::Str(s) => Self::string(s, b's', out),
            Value::Seq(items) => {
                out.push(b'l');
                out.extend((items.len() as u64).to_le_bytes());
                for item in items {
                    self.write(item, out);
                }
            }
            Value::Map(entries) => {
                // Sorted by key, stably, so that of repeated keys the last written comes last.
                let mut sorted: Vec<&Entry> = entries.iter().collect();
                sorted.sort_by(|a, b| a.key.cmp(&b.key));
                let kept: Vec<&Entry> = sorted
                    .iter()
                    .enumerate()
                    .filter(|(k, e)| sorted.get(k + 1).is_none_or(|next| next.key != e.key))
                    .map(|(_, e)| *e)
                    .collect();
                out.push(b'm');
                out.extend((kept.len() as u64).to_le_bytes());
                for entry in kept {
                    Self::string(&entry.key, b'k', out);
                    self.write(&entry.value, out);
                }
            }
        }
    }

    fn int(i: i64, out: &mut Vec<u8>) {
        out.push(b'i');
        out.extend(i.to_le_bytes());
    }

    fn string(s: &str, tag: u8, out: &mut Vec<u8>) {
        out.push(tag);
        out.extend((s.len() as u64).to_le_bytes());
        out.extend(s.as_bytes());
    }
}

fn map_duplicates(items: &[Node], keys: &[String], path: &FieldPath<'_>, out: &mut Vec<Diagnostic>) {
    // An item that is not an object makes the list unusable as a map: the first is reported (the API
    // server's `validateListMap` stops there), and duplicates are not looked for.
    if let Some((i, item)) = items.iter().enumerate().find(|(_, item)| !matches!(item.value, Value::Map(_) | Value::Null)) {
        let err = FieldError {
            ty: ErrorType::Invalid,
            path: path.index(i).to_string(),
            value: Some(gofmt::value(item)),
            detail: "must be an object for an array of list-type map".into(),
        };
        out.push(err.diagnostic(item.range, Severity::Error, codes::SCHEMA_LIST_MAP_ITEM, "items of a map list must be objects"));
        return;
    }
    let key_of = |item: &Node| -> Node {
        let entries = keys.iter().filter_map(|k| item.entry(k).cloned()).collect::<Vec<Entry>>();
        Node { range: item.range, value: Value::Map(entries), style: item.style }
    };
    let tuples: Vec<Node> = items.iter().map(key_of).collect();
    for (i, first) in second_occurrences(&tuples) {
        let item = &items[i];
        let err = FieldError {
            ty: ErrorType::Duplicate,
            path: path.index(i).to_string(),
            value: Some(gofmt::json(&tuples[i])),
            detail: String::new(),
        };
        let shown = keys.join(", ");
        out.push(err.diagnostic(
            item.range,
            Severity::Error,
            codes::SCHEMA_LIST_MAP_DUPLICATE,
            format!("duplicate item in a map list: same keys ({shown}) as item {first}"),
        ));
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The root sequence of a one-document YAML text.
    fn list(text: &str) -> Vec<Node> {
        let stream = crdls_yaml::parse(text);
        match stream.documents.into_iter().next().and_then(|d| d.root).map(|n| n.value) {
            Some(Value::Seq(items)) => items,
            other => panic!("not a list: {other:?}"),
        }
    }

    /// Each diagnostic as `message | cause`.
    fn shown(out: &[Diagnostic]) -> Vec<String> {
        out.iter().map(|d| format!("{} | {}", d.message, d.cause.as_deref().unwrap_or_default())).collect()
    }

    #[test]
    fn a_set_reports_each_value_at_its_second_occurrence_only() {
        let items = list("[a, b, a, {x: 1, z: [1, 2]}, a, b, {z: [1, 2], x: 1}, [1], [1.0], '1', 1, c]");
        let mut out = Vec::new();
        set_duplicates(&items, &FieldPath::root().field("tags"), &mut out);
        assert_eq!(
            shown(&out),
            [
                r#"duplicate item in a set list: same as item 0 | tags[2]: Duplicate value: "a""#,
                r#"duplicate item in a set list: same as item 1 | tags[5]: Duplicate value: "b""#,
                r#"duplicate item in a set list: same as item 3 | tags[6]: Duplicate value: {"x":1,"z":[1,2]}"#,
                r#"duplicate item in a set list: same as item 7 | tags[8]: Duplicate value: [1]"#,
            ]
        );
    }

    #[test]
    fn numbers_compare_by_value_and_repeated_keys_by_their_last_value() {
        let mut items = list("[1, 1, 2.5, 2.5, {a: 1, a: 2}, {a: 2}, .nan, .nan, 9223372036854775807, 9223372036854775807]");
        // Whole floats the reader left as floats still equal the integer they are.
        items[1].value = Value::Float(1.0);
        items[9].value = Value::Float(9.2233720368547e18);
        items[8].value = Value::Int(9_223_372_036_854_700_032);
        let mut out = Vec::new();
        set_duplicates(&items, &FieldPath::root(), &mut out);
        let reported: Vec<_> = out.iter().map(|d| d.message.clone()).collect();
        assert_eq!(
            reported,
            [
                "duplicate item in a set list: same as item 0",
                "duplicate item in a set list: same as item 2",
                "duplicate item in a set list: same as item 4",
                "duplicate item in a set list: same as item 8",
            ]
        );
    }

    #[test]
    fn a_map_list_compares_its_keys_only() {
        let items = list(
            "- {name: a, port: 1, x: 1}\n- {port: 1, name: a, x: 2}\n- {name: a, port: 2}\n- {name: a}\n- null\n- {name: a, port: 1}\n- {x: 3}\n",
        );
        let mut out = Vec::new();
        map_duplicates(&items, &["name".to_string(), "port".to_string()], &FieldPath::root().field("ports"), &mut out);
        assert_eq!(
            shown(&out),
            [
                r#"duplicate item in a map list: same keys (name, port) as item 0 | ports[1]: Duplicate value: {"name":"a","port":1}"#,
                "duplicate item in a map list: same keys (name, port) as item 4 | ports[6]: Duplicate value: {}",
            ]
        );
    }

    /// Runs `check` on a thread and fails if it takes longer than `limit` (the thread is left to finish
    /// on its own), so that a slow algorithm fails the test rather than hanging it.
    fn within(limit: std::time::Duration, check: impl FnOnce() -> usize + Send + 'static) -> usize {
        let (send, receive) = std::sync::mpsc::channel();
        std::thread::spawn(move || send.send(check()));
        receive.recv_timeout(limit).unwrap_or_else(|_| panic!("took longer than {limit:?}"))
    }

    #[test]
    fn long_lists_are_checked_in_linear_time() {
        // 100,000 distinct items: compared pairwise, 5·10^9 comparisons (minutes); hashed, a fraction of
        // a second even unoptimised.
        let set: String = (0..100_000).map(|i| format!("- v{i}\n")).collect::<String>() + "- v7\n";
        let map: String = (0..50_000).map(|i| format!("- {{name: n{i}, port: {i}}}\n")).collect::<String>() + "- {name: n7, port: 7}\n";
        let (set, map) = (list(&set), list(&map));
        let limit = std::time::Duration::from_secs(20);
        let found = within(limit, move || {
            let mut out = Vec::new();
            set_duplicates(&set, &FieldPath::root(), &mut out);
            out.len()
        });
        assert_eq!(found, 1);
        let found = within(limit, move || {
            let mut out = Vec::new();
            map_duplicates(&map, &["name".to_string(), "port".to_string()], &FieldPath::root(), &mut out);
            out.len()
        });
        assert_eq!(found, 1);
    }

    /// The API server reports the first item of a map list that is not an object, and only it.
    #[test]
    fn a_map_list_reports_its_first_item_that_is_not_an_object() {
        let items = list("[{name: a}, 7, '', {name: a}]");
        let mut out = Vec::new();
        map_duplicates(&items, &["name".to_string()], &FieldPath::root().field("domains"), &mut out);
        assert_eq!(
            shown(&out),
            ["items of a map list must be objects | domains[1]: Invalid value: 7: must be an object for an array of list-type map"]
        );
    }
}
