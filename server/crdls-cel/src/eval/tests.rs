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
        ("[1, 2][5]", "error: index out of range: 5"),
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
