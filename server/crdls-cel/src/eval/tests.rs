//! Evaluator tests: values, errors absorbed or propagated as cel-go does, and the cost limit.

use super::*;
use crate::parse::parse;

fn run(source: &str) -> String {
    let parsed = parse(source).unwrap_or_else(|e| panic!("{source}: {e:?}"));
    match evaluate(&parsed.expr, &[], 1_000_000).outcome {
        Ok(v) => v.to_string(),
        Err(e) => format!("error: {}", e.message),
    }
}

#[test]
fn values() {
    let cases = [
        ("1 + 2 * 3", "7"),
        ("1 == 1.0 && 1u == 1 && [1, 2] == [1.0, 2u]", "true"),
        ("'abc'.size() + size(b'ab')", "5"),
        ("[1, 2, 3].map(x, x * 2)", "[2, 4, 6]"),
        ("[1, 2, 3].filter(x, x > 1)", "[2, 3]"),
        ("[1, 2, 3].exists_one(x, x > 2)", "true"),
        ("{'a': 1, 'b': 2}.all(k, v, v > 0)", "true"),
        ("{'a': 1}.transformMap(k, v, v + 1)", "{\"a\": 2}"),
        ("[5, 6].transformList(i, v, i + v)", "[5, 7]"),
        ("duration('1h30m') + duration('30m') == duration('2h')", "true"),
        ("string(timestamp('2009-02-13T23:31:30Z') + duration('1.5s'))", "\"2009-02-13T23:31:31.5Z\""),
        ("timestamp('2009-02-13T23:31:30Z').getHours('America/Los_Angeles')", "15"),
        ("'Hello'.lowerAscii() + 'x'.upperAscii()", "\"helloX\""),
        ("'a,b,c'.split(',')", "[\"a\", \"b\", \"c\"]"),
        ("'hello'.substring(1, 3) + 'hello'.charAt(4)", "\"elo\""),
        ("'%s has %d items'.format(['cart', 3])", "\"cart has 3 items\""),
        ("'abc123def'.find('[0-9]+')", "\"123\""),
        ("'a1b2'.findAll('[0-9]')", "[\"1\", \"2\"]"),
        ("quantity('1Gi').isGreaterThan(quantity('1000Mi'))", "true"),
        ("quantity('1.5').add(1).asApproximateFloat()", "2.5"),
        ("cidr('10.0.0.0/8').containsIP('10.1.2.3')", "true"),
        ("ip('::1').family() + ip('127.0.0.1').family()", "10"),
        ("url('https://example.com:80/p').getPort()", "\"80\""),
        ("semver('1.2.3').isLessThan(semver('1.10.0'))", "true"),
        ("format.dns1123Label().validate('Bad_Name').hasValue()", "true"),
        ("[1, 3, 2].isSorted() || [1, 2, 3].sum() == 6", "true"),
        ("sets.contains([1, 2, 3], [2, 3])", "true"),
        ("optional.of(1).orValue(2) + optional.none().orValue(5)", "6"),
        ("{'a': 1}.?b.orValue(7)", "7"),
        ("[1, 2][?5].hasValue()", "false"),
        ("type(1) == int && type('a') == string", "true"),
        ("string(1.5) + string(1e6)", "\"1.51e+06\""),
        ("int('42') + int(3.9) + int(-3.9)", "42"),
        ("int(duration('1.5s')) + int(timestamp('1970-01-01T00:00:01Z'))", "1500000001"),
        ("[?optional.none(), ?optional.of(2)]", "[2]"),
        ("'a' in ['a', 'b'] && 'k' in {'k': 1}", "true"),
    ];
    let got: Vec<String> = cases.iter().map(|(s, _)| run(s)).collect();
    let want: Vec<String> = cases.iter().map(|(_, v)| v.to_string()).collect();
    assert_eq!(got, want);
}

#[test]
fn errors_are_absorbed_or_propagated_as_cel_go_does() {
    let cases = [
        ("1 / 0", "error: division by zero"),
        ("false && 1 / 0 == 1", "false"),
        ("1 / 0 == 1 || true", "true"),
        ("1 / 0 == 1 && true", "error: division by zero"),
        ("{'a': 1}.b", "error: no such key: b"),
        ("has({'a': 1}.b)", "false"),
        ("[1, 2][5]", "error: index out of bounds: 5"),
        ("([1] + [2, 3])[-1]", "error: index out of bounds: -1"),
        ("[1, 2].map(x, x)[2]", "error: index out of bounds: 2"),
        ("9223372036854775807 + 1", "error: integer overflow"),
        ("[0, 1].all(x, 1 / x > 0)", "error: division by zero"),
        ("[0, 1].exists(x, 1 / x > 0)", "true"),
        ("dyn(1) + dyn('a')", "error: no such overload"),
        ("optional.none().value()", "error: optional.none() dereference"),
        ("'abc'.substring(2, 1)", "error: invalid substring range. start: 2, end: 1"),
        ("quantity('1.5.5')", "error: quantities must match the regular expression '^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$'"),
    ];
    let got: Vec<String> = cases.iter().map(|(s, _)| run(s)).collect();
    let want: Vec<String> = cases.iter().map(|(_, v)| v.to_string()).collect();
    assert_eq!(got, want);
}

#[test]
fn the_cost_limit_stops_runaway_rules() {
    let parsed = parse("[1, 2, 3, 4, 5, 6, 7, 8, 9, 10].map(x, [1, 2, 3, 4, 5, 6, 7, 8, 9, 10].map(y, x * y)).size() > 0").unwrap();
    let evaluation = evaluate(&parsed.expr, &[], 100);
    assert_eq!(evaluation.outcome.unwrap_err().kind, ErrorKind::CostLimit);
    let within = evaluate(&parsed.expr, &[], 1_000_000);
    assert!(within.outcome.is_ok());
    assert!(within.cost > 100, "{}", within.cost);
}

#[test]
fn deep_nesting_fits_the_stack_of_a_worker_thread() {
    let depth = 200;
    let source = format!("{}7{}", "int(uint(".repeat(depth / 2), "))".repeat(depth / 2));
    let parsed = parse(&source).unwrap();
    let checked = crate::check(&parsed, &[]);
    assert!(checked.errors.is_empty(), "{:?}", checked.errors);
    assert!(matches!(evaluate(&parsed.expr, &[], 1_000_000).outcome, Ok(Value::Int(7))));
}

/// The evaluation and its cost, or the error.
fn run_with_cost(source: &str) -> String {
    let parsed = parse(source).unwrap_or_else(|e| panic!("{source}: {e:?}"));
    let evaluation = evaluate(&parsed.expr, &[], 1_000_000);
    match evaluation.outcome {
        Ok(v) => format!("{v} (cost {})", evaluation.cost),
        Err(e) => format!("error: {}", e.message),
    }
}

#[test]
fn the_lists_extension_computes_what_cel_go_computes() {
    // The cases of cel-go's `ext/lists_test.go` (TestLists, TestListsRuntimeErrors), as values.
    let cases = [
        ("lists.range(4)", "[0, 1, 2, 3]"),
        ("lists.range(0)", "[]"),
        ("lists.range(-2)", "[]"),
        ("[5, 1, 2, 3].reverse()", "[3, 2, 1, 5]"),
        ("[].reverse()", "[]"),
        ("['are', 'you', 'as', 'bored', 'as', 'I', 'am'].reverse()", "[\"am\", \"I\", \"as\", \"bored\", \"as\", \"you\", \"are\"]"),
        ("[1, 2, 3, 4].slice(0, 4)", "[1, 2, 3, 4]"),
        ("[1, 2, 3, 4].slice(1, 1)", "[]"),
        ("[1, 2, 3, 4].slice(4, 4)", "[]"),
        ("[1, 2, 3, 4].slice(1, 3)", "[2, 3]"),
        ("[1, 2, 3, 4].slice(3, 0)", "error: cannot slice(3, 0), start index must be less than or equal to end index"),
        ("[1, 2, 3, 4].slice(0, 10)", "error: cannot slice(0, 10), list is length 4"),
        ("[1, 2, 3, 4].slice(-5, 10)", "error: cannot slice(-5, 10), negative indexes not supported"),
        ("[1, 2, 3, 4].slice(-5, -3)", "error: cannot slice(-5, -3), negative indexes not supported"),
        ("dyn([]).flatten()", "[]"),
        ("dyn([1, 2, 3, 4]).flatten()", "[1, 2, 3, 4]"),
        ("[1, [2, [3, 4]]].flatten()", "[1, 2, [3, 4]]"),
        ("[1, 2, [], [], [3, 4]].flatten()", "[1, 2, 3, 4]"),
        ("[1, [2, [3, 4]]].flatten(2)", "[1, 2, 3, 4]"),
        ("[1, [2, [3, [4]]]].flatten(0)", "[1, [2, [3, [4]]]]"),
        ("[1, [2, [3, [4]]]].flatten(-1)", "error: level must be non-negative"),
        ("[].flatten(-1)", "error: level must be non-negative"),
        ("dyn({}).flatten()", "error: no such overload: map.flatten()"),
        ("dyn({}).flatten(0)", "error: no such overload: map.flatten(int)"),
        ("[].flatten(dyn('1'))", "error: no such overload: list.flatten(string)"),
        ("[].sort()", "[]"),
        ("[1].sort()", "[1]"),
        ("[4, 3, 2, 1].sort()", "[1, 2, 3, 4]"),
        ("['d', 'a', 'b', 'c'].sort()", "[\"a\", \"b\", \"c\", \"d\"]"),
        ("[b'b', b'a'].sort()", "[b\"a\", b\"b\"]"),
        ("[true, false].sort()", "[false, true]"),
        ("[duration('2s'), duration('1s')].sort()", "[1s, 2s]"),
        ("['d', 3, 2, 'c'].sort()", "error: list elements must have the same type"),
        ("[1, 2u].sort()", "error: list elements must have the same type"),
        ("[[1, 2, 3]].sort()", "error: list elements must be comparable"),
        ("[].sortBy(e, e)", "[]"),
        ("['a'].sortBy(e, e)", "[\"a\"]"),
        ("[-3, 1, -5, -2, 4].sortBy(e, -(e * e))", "[-5, 4, -3, -2, 1]"),
        ("[-3, 1, -5, -2, 4].map(e, e * 2).sortBy(e, -(e * e))", "[-10, 8, -6, -4, 2]"),
        ("lists.range(3).sortBy(e, -e)", "[2, 1, 0]"),
        ("['a', 'c', 'b', 'first'].sortBy(e, e == 'first' ? '' : e)", "[\"first\", \"a\", \"b\", \"c\"]"),
        ("[{'field': 'lo'}, {'field': 'hi'}].sortBy(m, m.field)", "[{\"field\": \"hi\"}, {\"field\": \"lo\"}]"),
        ("[{'k': 1}, {'k': 'a'}].sortBy(m, m.k)", "error: list elements must have the same type"),
        ("[].distinct()", "[]"),
        ("[-2, 5, -2, 1, 1, 5, -2, 1].distinct()", "[-2, 5, 1]"),
        ("['c', 'a', 'a', 'b', 'a', 'b', 'c', 'c'].distinct()", "[\"c\", \"a\", \"b\"]"),
        ("[1, 2.0, 'c', 3, 'c', 1].distinct()", "[1, 2, \"c\", 3]"),
        ("[1, 1.0, 2].distinct()", "[1, 2]"),
        ("[[1], [1], [2]].distinct()", "[[1], [2]]"),
    ];
    let got: Vec<String> = cases.iter().map(|(s, _)| run(s)).collect();
    let want: Vec<String> = cases.iter().map(|(_, v)| v.to_string()).collect();
    assert_eq!(got, want);
}

#[test]
fn sort_by_leaves_equal_keys_where_go_sort_leaves_them() {
    // Up to 12 elements Go's sort.Slice is an insertion sort: equal keys keep their order.
    assert_eq!(run("[3, 1, 4, 1, 5, 9, 2, 6].sortBy(x, x % 2)"), "[4, 2, 6, 3, 1, 1, 5, 9]");
    // Past 12 it is pattern-defeating quicksort. Traced by hand through Go's code: the pivot is the
    // median of elements 3, 6 and 9 (element 3, key 1); one partition puts 6 and 12 (key 0) first and
    // scrambles the rest, which insertion sort then leaves as they are, all keys being 1.
    assert_eq!(run("lists.range(13).sortBy(x, x == 12 ? 0 : (x == 6 ? 0 : 1))"), "[6, 12, 3, 0, 4, 5, 2, 7, 8, 9, 10, 11, 1]");
}

#[test]
fn the_lists_extension_costs_what_cel_go_tracks() {
    // Actual costs of cel-go's TestListsCosts where the expression uses only these functions; the
    // tracker's part is the list made (times the depth for flatten), or twice the square of the
    // compared list's size, 2.1 times for strings, plus 11.
    let cases = [
        ("lists.range(4) == [0, 1, 2, 3]", "true (cost 26)"),
        ("lists.range(4 / 2) == [0, 1]", "true (cost 25)"),
        ("[[1, 2], 3].flatten(1) == [1, 2, 3]", "true (cost 44)"),
        ("[[1, 2], 3].flatten(2) == [1, 2, 3]", "true (cost 46)"),
        ("[[1, 2], 3].flatten(3) == [1, 2, 3]", "true (cost 48)"),
        ("[[1], 2, 3].flatten() == [1, 2, 3]", "true (cost 45)"),
        ("[1, 2, 3].distinct() == [1, 2, 3]", "true (cost 50)"),
        ("[1, 1, 1].distinct() == [1]", "true (cost 50)"),
        ("[1, 2, 3].slice(1, 3) == [2, 3]", "true (cost 34)"),
        ("[3, 2, 1].reverse() == [1, 2, 3]", "true (cost 35)"),
        ("[2, 3, 1].sort() == [1, 2, 3]", "true (cost 50)"),
        // 6 strings: 36 * 2.1 = 75.6, truncated.
        ("['b', 'a', 'b', 'a', 'c', 'c'].sort()", "[\"a\", \"a\", \"b\", \"b\", \"c\", \"c\"] (cost 96)"),
        // An error is a result of size one: 1 + 10 + 1 for the call.
        ("[1, 2, 3].slice(2, 1)", "error: cannot slice(2, 1), start index must be less than or equal to end index"),
    ];
    let got: Vec<String> = cases.iter().map(|(s, _)| run_with_cost(s)).collect();
    let want: Vec<String> = cases.iter().map(|(_, v)| v.to_string()).collect();
    assert_eq!(got, want);
    let parsed = parse("[1, 2, 3].slice(2, 1)").unwrap();
    assert_eq!(evaluate(&parsed.expr, &[], 1_000_000).cost, 10 + 12);
}

#[test]
fn a_list_call_over_the_limit_never_runs() {
    // cel-go charges a billion elements after making them; here the call stops before.
    let parsed = parse("lists.range(1000000000).size() > 0").unwrap();
    let evaluation = evaluate(&parsed.expr, &[], 1_000_000);
    assert_eq!(evaluation.outcome.unwrap_err().kind, ErrorKind::CostLimit);
    let parsed = parse("lists.range(2000).distinct().size()").unwrap();
    assert_eq!(evaluate(&parsed.expr, &[], 1_000_000).outcome.unwrap_err().kind, ErrorKind::CostLimit);
}

#[test]
fn a_reserved_word_selects_its_escaped_field() {
    let object = crate::value::Object {
        type_name: Arc::from("Object"),
        fields: [("__namespace__".to_string(), Value::string("a"))].into_iter().collect(),
        ..Default::default()
    };
    let variables = [("self", Value::Object(Arc::new(object)))];
    let run = |source: &str| {
        let parsed = parse(source).unwrap_or_else(|e| panic!("{source}: {e:?}"));
        match evaluate(&parsed.expr, &variables, 1_000_000).outcome {
            Ok(v) => v.to_string(),
            Err(e) => format!("error: {}", e.message),
        }
    };
    assert_eq!(run("self.namespace == 'a' && self.__namespace__ == 'a' && has(self.namespace)"), "true");
    assert_eq!(run("self.?namespace.orValue('') + self.?package.orValue('-')"), "\"a-\"");
    assert_eq!(run("self.package"), "error: no such key: package");
}

#[test]
fn includes_looks_in_a_list_or_compares() {
    // The Kubernetes lists library, version 1 (1.37).
    assert_eq!(run("[1, 2, 3].includes(2)"), "true");
    assert_eq!(run("[1, 2, 3].includes(4)"), "false");
    assert_eq!(run("[[1], [2]].includes([2])"), "true");
    assert_eq!(run("'model-a'.includes('model-a')"), "true");
    assert_eq!(run("'model-a'.includes('model-b')"), "false");
    assert_eq!(run("[].includes(1)"), "false");
}
