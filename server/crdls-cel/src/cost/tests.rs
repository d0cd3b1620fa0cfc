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

#[test]
fn cel_go_lists_extension_cost_table() {
    // The estimates of cel-go's `ext/lists_test.go` (TestListsCosts), with its size hints.
    let max = u64::MAX;
    let int_list = Type::list(Type::Int);
    let string_list = Type::list(Type::String);
    let dyn_list = Type::list(Type::Dyn);
    let cases: Vec<Case> = vec![
        ("lists.range(4) == [0, 1, 2, 3]", vec![], vec![], (26, 26)),
        // Only a literal bounds the size of the list made.
        ("lists.range(4 / 2) == [0, 1]", vec![], vec![], (max, max)),
        ("lists.range(x) == [0, 1, 2, 3, 4]", vec![("x", Type::Int)], vec![("x", 10)], (max, max)),
        ("[[1, 2], 3].flatten(1) == [1, 2, 3]", vec![], vec![], (44, 44)),
        ("[[1, 2], 3].flatten(2) == [1, 2, 3]", vec![], vec![], (46, 46)),
        ("[[1, 2], 3].flatten(3) == [1, 2, 3]", vec![], vec![], (48, 48)),
        ("[[1], 2, 3].flatten() == [1, 2, 3]", vec![], vec![], (45, 45)),
        ("x.flatten() == [1, 2, 3]", vec![("x", dyn_list.clone())], vec![("x", 3)], (23, 26)),
        ("[[1, 2], 3].flatten(x) == [1, 2, 3]", vec![("x", Type::Int)], vec![("x", 10)], (max, max)),
        ("[1, 2, 3].distinct() == [1, 2, 3]", vec![], vec![], (50, 50)),
        ("[1, 1, 1].distinct() == [1]", vec![], vec![], (50, 50)),
        ("x.distinct() == ['hello']", vec![("x", string_list.clone())], vec![("x", 3)], (23, 41)),
        ("[1, 2, 3, 4, 5].slice(x, y) == [2, 3]", vec![("x", Type::Int), ("y", Type::Int)], vec![], (39, 39)),
        ("z.slice(1, 3) == [2, 3]", vec![("z", int_list.clone())], vec![("z", 10)], (25, 25)),
        ("z.slice(x, y) == [2, 3]", vec![("x", Type::Int), ("y", Type::Int), ("z", int_list.clone())], vec![("z", 10)], (35, 35)),
        ("[1, 2, 3].slice(1, 3) == [2, 3]", vec![], vec![], (34, 34)),
        ("[3, 2, 1].reverse() == [1, 2, 3]", vec![], vec![], (35, 35)),
        ("x.reverse() == [1, 2, 3]", vec![("x", int_list.clone())], vec![("x", 5)], (23, 28)),
        ("[2, 3, 1].sort() == [1, 2, 3]", vec![], vec![], (50, 50)),
        ("x.sort() == [1, 2, 3]", vec![("x", int_list.clone())], vec![("x", 5)], (23, 73)),
        ("x.sort() == ['a', 'a', 'b', 'b', 'c', 'c']", vec![("x", string_list.clone())], vec![("x", 10)], (23, 233)),
        ("x.sort() == []", vec![("x", int_list.clone())], vec![("x", 10)], (22, 222)),
        ("[{'x': 4}, {'x': 3}].sortBy(m, m['x']) == [{'x': 3}, {'x': 4}]", vec![], vec![], (211, 211)),
        (
            "x.sortBy(m, m['x']) == [{'x': 'a'}, {'x': 'b'}, {'x': 'c'}]",
            vec![("x", Type::list(Type::map(Type::String, Type::String)))],
            vec![("x", 3)],
            (136, 197),
        ),
        // cel-go's table says (106, 226) in an environment without optional types, where `m['x']` on
        // a dyn `m` has one overload and the keys' type variable binds to the first sort overload
        // (int). With Kubernetes' optional types `m['x']` is dyn, all eight key overloads match, and
        // the string one's factor of 2.1 makes the maximum 229.
        ("x.sortBy(m, m['x']) == [{'x': 3}, {'x': 4}]", vec![("x", dyn_list.clone())], vec![("x", 5)], (106, 229)),
        // A literal start past the end wraps around, as Go's unsigned subtraction does.
        ("[1, 2, 3].slice(2, 1)", vec![], vec![], (max, max)),
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
fn includes_costs_what_index_of_costs_on_a_list() {
    // The Kubernetes estimator charges `includes` as `indexOf` on a list (one comparison per element,
    // plus the strings' traversal), and one comparison per element where the target is only `dyn`.
    let strings = vec![("x", Type::list(Type::String))];
    let hints = vec![("x", 10), ("x.@items", 20)];
    assert_eq!(cost("x.includes('a')", &strings, &hints, 1), cost("x.indexOf('a') >= 0", &strings, &hints, 1).min_max_less(1));
    let ints = vec![("x", Type::list(Type::Int))];
    assert_eq!(cost("x.includes(1)", &ints, &[("x", 10)], 1), cost("x.indexOf(1) >= 0", &ints, &[("x", 10)], 1).min_max_less(1));
    let (_, max) = cost("x.includes(1)", &[("x", Type::Dyn)], &[], 1);
    assert_eq!(max, u64::MAX);
}

trait LessOne {
    fn min_max_less(self, n: u64) -> (u64, u64);
}

impl LessOne for (u64, u64) {
    /// The estimate without the `n` of a comparison after the call.
    fn min_max_less(self, n: u64) -> (u64, u64) {
        (self.0 - n, self.1 - n)
    }
}

/// cel-go 0.29 (Kubernetes 1.37) costs the global `matches(s, re)` as it costs `s.matches(re)`;
/// before, the global form cost 1, as any function the estimator does not know.
#[test]
fn the_global_matches_is_costed_since_1_37() {
    let expr = "matches(s, '^[a-z]+$')";
    let parsed = parse(expr).unwrap();
    let checked = check_with(&parsed, &[("s", Type::String)], Options::KUBERNETES);
    assert!(checked.errors.is_empty(), "{:?}", checked.errors);
    let hints = Hints([("s".to_string(), 100)].into_iter().collect());
    let member = {
        let parsed = parse("s.matches('^[a-z]+$')").unwrap();
        let checked = check_with(&parsed, &[("s", Type::String)], Options::KUBERNETES);
        estimate_cost_for(&parsed, &checked, &hints, 0, Some(36)).max
    };
    assert_eq!(estimate_cost_for(&parsed, &checked, &hints, 0, Some(37)).max, member);
    assert_eq!(estimate_cost_for(&parsed, &checked, &hints, 0, None).max, member);
    assert_eq!(estimate_cost_for(&parsed, &checked, &hints, 0, Some(36)).max, 2, "the call and its string argument");
}
