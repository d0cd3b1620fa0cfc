//! Cost estimates checked against cel-go's own cost test table (`checker/cost_test.go`), with size
//! hints by path as that table gives them. Cases that need protobuf messages use an object type, which
//! the estimator treats the same way (a field selection costs one).

use std::collections::{BTreeMap, HashMap};
use std::sync::Arc;

use super::*;
use crate::checker::{check_with, Options};
use crate::parse::parse;
use crate::types::{Field, ObjectType};

struct Hints(HashMap<String, u64>);

impl SizeEstimator for Hints {
    fn estimate_size(&self, path: &[String]) -> Option<Estimate> {
        self.0.get(&path.join(".")).map(|max| Estimate { min: 0, max: *max })
    }
}

fn all_types() -> Type {
    let fields: BTreeMap<String, Field> =
        [("single_int32", Type::Int)].iter().map(|(n, t)| (n.to_string(), Field { ty: t.clone(), property: n.to_string() })).collect();
    Type::Object(Arc::new(ObjectType { name: "TestAllTypes".into(), fields }))
}

fn cost(expr: &str, vars: &[(&str, Type)], hints: &[(&str, u64)], presence: u64) -> (u64, u64) {
    let parsed = parse(expr).unwrap();
    let checked = check_with(&parsed, vars, Options::SPEC);
    assert!(checked.errors.is_empty(), "{expr}: {:?}", checked.errors);
    let hints = Hints(hints.iter().map(|(k, v)| (k.to_string(), *v)).collect());
    let e = estimate_cost(&parsed, &checked, &hints, presence);
    (e.min, e.max)
}

/// Expression, variables, size hints, and the expected (min, max) cost.
type Case<'a> = (&'a str, Vec<(&'a str, Type)>, Vec<(&'a str, u64)>, (u64, u64));

#[test]
fn cel_go_cost_table() {
    let all = all_types();
    let all_list = Type::list(all.clone());
    let int_list = Type::list(Type::Int);
    let nested_list = Type::list(all_list.clone());
    let all_map = Type::map(Type::String, all.clone());
    let nested_map = Type::map(Type::String, all_map.clone());
    let cases: Vec<Case> = vec![
        ("\"Hello World!\"", vec![], vec![], (0, 0)),
        ("input", vec![("input", int_list.clone())], vec![], (1, 1)),
        ("input['key']", vec![("input", Type::map(Type::String, Type::String))], vec![], (2, 2)),
        ("input.single_int32", vec![("input", all.clone())], vec![], (2, 2)),
        ("[1, 2, 3]", vec![], vec![], (10, 10)),
        ("{\"a\": 1, \"b\": 2, \"c\": 3}", vec![], vec![], (30, 30)),
        ("input.all(x, true)", vec![("input", all_list.clone())], vec![("input", 100)], (2, 302)),
        ("input.all(x, x.all(y, true))", vec![("input", nested_list.clone())], vec![("input", 50), ("input.@items", 10)], (2, 1752)),
        ("[1, 2, 3].all(x, true)", vec![], vec![], (20, 20)),
        ("input.matches('[0-9]')", vec![("input", Type::String)], vec![("input", 500)], (3, 103)),
        ("'123'.matches('[0-9]')", vec![], vec![], (2, 2)),
        ("true || false", vec![], vec![], (0, 0)),
        ("true && false", vec![], vec![], (0, 0)),
        ("1 < 2", vec![], vec![], (1, 1)),
        ("1 <= 2", vec![], vec![], (1, 1)),
        ("1 == 2", vec![], vec![], (1, 1)),
        ("2 > 1", vec![], vec![], (1, 1)),
        ("2 >= 1", vec![], vec![], (1, 1)),
        ("2 in [1, 2, 3]", vec![], vec![], (13, 13)),
        ("1 + 1", vec![], vec![], (1, 1)),
        ("1 - 1", vec![], vec![], (1, 1)),
        ("1 / 1", vec![], vec![], (1, 1)),
        ("1 * 1", vec![], vec![], (1, 1)),
        ("1 % 1", vec![], vec![], (1, 1)),
        ("true ? 1 : 2", vec![], vec![], (0, 0)),
        ("size(\"123\")", vec![], vec![], (1, 1)),
        ("string(input)", vec![("input", Type::Bytes)], vec![("input", 500)], (1, 51)),
        ("bytes(input)", vec![("input", Type::String)], vec![("input", 500)], (1, 51)),
        ("string(1)", vec![], vec![], (1, 1)),
        ("input.contains(arg1)", vec![("input", Type::String), ("arg1", Type::String)], vec![("input", 500), ("arg1", 500)], (2, 2502)),
        ("input.matches('\\\\d+a\\\\d+b')", vec![("input", Type::String)], vec![("input", 500)], (3, 103)),
        ("input.startsWith(arg1)", vec![("input", Type::String), ("arg1", Type::String)], vec![("arg1", 500)], (2, 52)),
        ("input.endsWith(arg1)", vec![("input", Type::String), ("arg1", Type::String)], vec![("arg1", 500)], (2, 52)),
        ("input.size()", vec![("input", Type::String)], vec![], (2, 2)),
        ("size(input)", vec![("input", Type::String)], vec![], (2, 2)),
        (
            "(x > 2 ? input1 : input2).all(y, true)",
            vec![("x", Type::Int), ("input1", all_list.clone()), ("input2", all_list.clone())],
            vec![("input1", 1), ("input2", 1)],
            (4, 7),
        ),
        ("input.all(k, input[k].single_int32 > 3)", vec![("input", all_map.clone())], vec![("input", 10)], (2, 82)),
        ("input.all(k, input[k].all(x, true))", vec![("input", nested_map.clone())], vec![("input", 5), ("input.@values", 10)], (2, 187)),
        ("input.all(k, k.contains(k))", vec![("input", nested_map.clone())], vec![("input", 5), ("input.@keys", 10)], (2, 32)),
        (
            "input.all(k, input[k].all(k, true) && k.contains(k))",
            vec![("input", nested_map.clone())],
            vec![("input", 2), ("input.@values", 2), ("input.@keys", 5)],
            (2, 34),
        ),
        (
            "(list1 + list2).all(x, true)",
            vec![("list1", int_list.clone()), ("list2", int_list.clone())],
            vec![("list1", 10), ("list2", 10)],
            (4, 64),
        ),
        (
            "\"abcdefg\".contains(str1 + str2)",
            vec![("str1", Type::String), ("str2", Type::String)],
            vec![("str1", 10), ("str2", 10)],
            (2, 6),
        ),
    ];
    let mut failures = Vec::new();
    for (expr, vars, hints, want) in &cases {
        let got = cost(expr, vars, hints, 1);
        if got != *want {
            failures.push(format!("{expr}: got {got:?}, want {want:?}"));
        }
    }
    assert!(failures.is_empty(), "{} of {} cases differ:\n{}", failures.len(), cases.len(), failures.join("\n"));
}

#[test]
fn presence_tests_are_free_in_kubernetes() {
    assert_eq!(cost("has(input.single_int32)", &[("input", all_types())], &[], 0), (1, 1));
}
