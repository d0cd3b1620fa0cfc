//! Checker tests: types of well-typed expressions, and cel-go's errors for ill-typed ones.

use std::collections::BTreeMap;
use std::sync::Arc;

use super::*;
use crate::parse::{display_all, parse};
use crate::types::{Field, ObjectType};

fn object(name: &str, fields: &[(&str, Type)]) -> Type {
    let fields: BTreeMap<String, Field> =
        fields.iter().map(|(n, t)| (n.to_string(), Field { ty: t.clone(), property: n.to_string() })).collect();
    Type::Object(Arc::new(ObjectType { name: name.to_string(), fields }))
}

fn self_type() -> Type {
    let spec = object(
        "Object.spec",
        &[
            ("replicas", Type::Int),
            ("maxReplicas", Type::Int),
            ("name", Type::String),
            ("tags", Type::list(Type::String)),
            ("labels", Type::map(Type::String, Type::String)),
            ("port", Type::Dyn),
            ("timeout", Type::Duration),
        ],
    );
    object("Object", &[("spec", spec), ("apiVersion", Type::String)])
}

/// The result type, or the displayed errors.
fn check_source(source: &str) -> String {
    let parsed = match parse(source) {
        Ok(p) => p,
        Err(errors) => return display_all(&errors, source),
    };
    let checked = check(&parsed, &[("self", self_type())]);
    if checked.errors.is_empty() {
        checked.result.to_string()
    } else {
        display_all(&checked.errors, source)
    }
}

#[test]
fn well_typed_expressions_get_their_types() {
    let cases = [
        ("self.spec.replicas <= self.spec.maxReplicas", "bool"),
        ("self.spec.tags.map(t, t + '!')", "list(string)"),
        ("self.spec.tags.filter(t, t.startsWith('a')).size()", "int"),
        ("self.spec.labels.exists(k, k == 'app')", "bool"),
        ("self.spec.labels.all(k, v, k != v)", "bool"),
        ("self.spec.labels.transformMap(k, v, v.size())", "map(string, int)"),
        ("has(self.spec.name) ? self.spec.name : 'x'", "string"),
        ("self.spec.port", "dyn"),
        ("self.spec.port == 80 || self.spec.port == '80%'", "bool"),
        ("[1, 2, 3].exists_one(x, x > 2)", "bool"),
        ("{'a': 1}['a'] + 1", "int"),
        ("self.spec.?name.orValue('')", "string"),
        ("optional.of(1).hasValue()", "bool"),
        ("sets.contains(self.spec.tags, ['a'])", "bool"),
        ("quantity('1Gi').isLessThan(quantity('2Gi'))", "bool"),
        ("sign(quantity('2Gi')) == 1", "bool"),
        ("self.spec.timeout > duration('1s')", "bool"),
        // cel-go's duration_to_int64 and timestamp_to_int64.
        ("int(self.spec.timeout) + int(timestamp('2020-01-01T00:00:00Z'))", "int"),
        ("type(self.spec.name) == string", "bool"),
        ("1 < 1.5 && 2u > 1", "bool"),
        ("[]", "list(dyn)"),
        ("self.spec.tags.transformList(i, v, i)", "list(int)"),
        ("format.dns1123Label().validate('a').hasValue()", "bool"),
        ("'a,b'.split(',').join('-')", "string"),
        ("self.spec.tags.isSorted() && self.spec.tags.min() == 'a'", "bool"),
        ("self.spec.?labels[?'a']", "optional_type(string)"),
    ];
    let got: Vec<String> = cases.iter().map(|(s, _)| check_source(s)).collect();
    let want: Vec<String> = cases.iter().map(|(_, t)| t.to_string()).collect();
    assert_eq!(got, want);
}

#[test]
fn errors_are_worded_and_located_as_cel_go_does() {
    expect_test::expect![[r#"
        ERROR: <input>:1:10: undefined field 'replica'
         | self.spec.replica > 1
         | .........^
        ERROR: <input>:1:20: found no matching overload for '_==_' applied to '(int, bool)'
         | self.spec.replicas == true
         | ...................^
        ERROR: <input>:1:1: undeclared reference to 'spec' (in container '')
         | spec.replicas
         | ^
        ERROR: <input>:1:16: found no matching overload for '_==_' applied to '(string, null)'
         | self.spec.name == null
         | ...............^
        ERROR: <input>:1:5: expected type 'int' but found 'string'
         | [1, 'a']
         | ....^
        ERROR: <input>:1:30: found no matching overload for 'startsWith' applied to 'int.(string)'
         | self.spec.replicas.startsWith('a')
         | .............................^
        ERROR: <input>:1:19: type 'int' does not support field selection
         | self.spec.replicas.x
         | ..................^
        ERROR: <input>:1:10: expression of type 'int' cannot be range of a comprehension (must be list, map, or dynamic)
         | self.spec.replicas.all(x, x > 0)
         | .........^
        ERROR: <input>:1:21: found no matching overload for 'sign' applied to 'kubernetes.Quantity.()'
         | quantity('2Gi').sign() == 1
         | ....................^"#]]
    .assert_eq(
        &[
            "self.spec.replica > 1",
            "self.spec.replicas == true",
            "spec.replicas",
            "self.spec.name == null",
            "[1, 'a']",
            "self.spec.replicas.startsWith('a')",
            "self.spec.replicas.x",
            "self.spec.replicas.all(x, x > 0)",
            "quantity('2Gi').sign() == 1",
        ]
        .iter()
        .map(|s| check_source(s))
        .collect::<Vec<_>>()
        .join("\n"),
    );
}

#[test]
fn literal_arguments_are_validated_as_cel_go_validates_them() {
    // cel-go's duration, timestamp and regex literal validators (Kubernetes 1.29 and later), run once
    // the expression type-checks: the first argument, when it is a literal.
    expect_test::expect![[r#"
        ERROR: <input>:1:14: invalid matches argument
         | self.matches('[')
         | .............^
        ERROR: <input>:1:10: invalid duration argument
         | duration('1x') > duration('1s')
         | .........^
        ERROR: <input>:1:11: invalid timestamp argument
         | timestamp('2024-13-01T00:00:00Z') == timestamp(0)
         | ..........^
        ERROR: <input>:1:9: invalid matches argument
         | matches('(', self)
         | ........^
        bool
        bool"#]]
    .assert_eq(
        &[
            "self.matches('[')",
            "duration('1x') > duration('1s')",
            "timestamp('2024-13-01T00:00:00Z') == timestamp(0)",
            // The global form's first argument is the string, compiled as a pattern all the same.
            "matches('(', self)",
            "self.matches('^[a-z]+$')",
            "self.matches(self)",
        ]
        .iter()
        .map(|s| {
            let parsed = parse(s).expect("parses");
            let checked = check(&parsed, &[("self", Type::String)]);
            if checked.errors.is_empty() {
                checked.result.to_string()
            } else {
                display_all(&checked.errors, s)
            }
        })
        .collect::<Vec<_>>()
        .join("\n"),
    );
    // The validators came with 1.29's environment.
    let parsed = parse("self.matches('[')").expect("parses");
    assert!(check_with(&parsed, &[("self", Type::String)], Options::kubernetes(28)).errors.is_empty());
    assert!(!check_with(&parsed, &[("self", Type::String)], Options::kubernetes(29)).errors.is_empty());
}

#[test]
fn optional_values_propagate_through_selections() {
    assert_eq!(check_source("self.?spec.name.orValue('') == 'a'"), "bool");
    assert_eq!(check_source("self.?spec.tags == null"), "bool");
}

#[test]
fn the_environment_of_a_release_lacks_later_libraries() {
    let errors = |source: &str, minor: u32| -> Vec<String> {
        let parsed = crate::parse(source).unwrap();
        check_with(&parsed, &[("self", Type::String)], Options::kubernetes(minor)).errors.into_iter().map(|e| e.message).collect()
    };
    assert_eq!(errors("isIP(self)", 29), ["undeclared reference to 'isIP' (in container '')"]);
    assert!(errors("isIP(self)", 30).is_empty());
    assert_eq!(errors("isSemver(self)", 32), ["undeclared reference to 'isSemver' (in container '')"]);
    assert!(errors("isSemver(self)", 33).is_empty());
    assert_eq!(errors("1 < 2.0", 27), ["found no matching overload for '_<_' applied to '(int, double)'"]);
    assert!(errors("1 < 2.0", 28).is_empty());
    assert_eq!(
        errors("[1, 2].all(i, v, v > i)", 31),
        ["two-variable comprehensions are not in the CEL environment of Kubernetes 1.31: they arrive in 1.32"]
    );
    assert!(errors("[1, 2].all(i, v, v > i)", 32).is_empty());
    assert_eq!(errors("'%s'.format([self]) == self", 28), ["undeclared reference to 'format' (in container '')"]);
    assert!(errors("self.size() > 0 && self.matches('a')", 23).is_empty());
    // The Kubernetes lists library's version 1 (`includes`) arrives in 1.37; 1.36 added nothing.
    assert_eq!(errors("['a', 'b'].includes(self)", 36), ["undeclared reference to 'includes' (in container '')"]);
    assert!(errors("['a', 'b'].includes(self) && self.includes('a')", 37).is_empty());
}

#[test]
fn the_lists_extension_is_typed_as_cel_go_declares_it() {
    let cases = [
        ("[1, 2, 2].distinct()", "list(int)"),
        ("lists.range(3)", "list(int)"),
        ("self.spec.tags.reverse()", "list(string)"),
        ("self.spec.tags.slice(0, 1)", "list(string)"),
        ("[[1], [2, 3]].flatten()", "list(int)"),
        ("[[1], [2, 3]].flatten(2)", "list(dyn)"),
        ("self.spec.tags.sort()", "list(string)"),
        ("[duration('1s')].sort()", "list(duration)"),
        ("self.spec.tags.sortBy(t, t.size())", "list(string)"),
        ("[{'x': 4}, {'x': 3}].sortBy(m, m['x'])[0]", "map(string, int)"),
        ("self.spec.port.sort()", "dyn"),
    ];
    let got: Vec<String> = cases.iter().map(|(s, _)| check_source(s)).collect();
    let want: Vec<String> = cases.iter().map(|(_, t)| t.to_string()).collect();
    assert_eq!(got, want);
    expect_test::expect![[r#"
        ERROR: <input>:1:16: found no matching overload for 'sort' applied to 'list(list(int)).()'
         | [[1], [2]].sort()
         | ...............^
        ERROR: <input>:1:15: found no matching overload for 'flatten' applied to 'list(int).()'
         | [1, 2].flatten()
         | ..............^
        ERROR: <input>:1:11: found no matching overload for '@sortByAssociatedKeys' applied to 'list(int).(list(list(int)))'
         | [1].sortBy(x, [x])
         | ..........^
        ERROR: <input>:1:21: found no matching overload for 'slice' applied to 'list(string).(int)'
         | self.spec.tags.slice(1)
         | ....................^"#]]
    .assert_eq(
        &["[[1], [2]].sort()", "[1, 2].flatten()", "[1].sortBy(x, [x])", "self.spec.tags.slice(1)"]
            .iter()
            .map(|s| check_source(s))
            .collect::<Vec<_>>()
            .join("\n"),
    );
}

#[test]
fn the_lists_extension_arrives_in_kubernetes_1_34() {
    let errors = |source: &str, minor: u32| -> Vec<String> {
        let parsed = crate::parse(source).unwrap();
        let list = Type::list(Type::Int);
        check_with(&parsed, &[("self", list)], Options::kubernetes(minor)).errors.into_iter().map(|e| e.message).collect()
    };
    assert_eq!(errors("[1, 2].distinct()", 33), ["undeclared reference to 'distinct' (in container '')"]);
    assert!(errors("[1, 2].distinct()", 34).is_empty());
    assert_eq!(errors("self.sort() == self", 33), ["undeclared reference to 'sort' (in container '')"]);
    assert_eq!(errors("self.sortBy(x, -x) == self", 33), ["undeclared reference to 'sortBy' (in container '')"]);
    assert!(errors("self.sortBy(x, -x) == self", 34).is_empty());
    // cel-go reads `lists` as a variable when no `lists.range` is declared.
    assert_eq!(
        errors("lists.range(2) == self", 33),
        ["undeclared reference to 'lists' (in container '')", "undeclared reference to 'range' (in container '')"]
    );
    assert!(errors("lists.range(2) == self && self.slice(0, 1).reverse().flatten(1).size() == 1", 34).is_empty());
    // The Kubernetes list library has been there all along.
    assert!(errors("self.isSorted() && self.indexOf(1) == 0", 33).is_empty());
}

/// The checker's work on type variables (bindings written and removed) for a rule of `terms`
/// comparisons joined by `op`.
fn binding_work(op: &str, term: &str, terms: usize) -> usize {
    let source = vec![term; terms].join(op);
    let parsed = parse(&source).expect("the rule parses");
    let mut checker = Checker::new(&parsed, &[("self", self_type())], Options::KUBERNETES);
    checker.check(&parsed.expr);
    assert!(checker.errors.is_empty(), "{:?}", checker.errors);
    checker.touched
}

#[test]
fn work_on_type_variables_grows_linearly_with_long_chains() {
    // Each generic overload tried binds fresh variables; undoing a failed trial must cost its own
    // bindings, not a copy of every binding so far (which made 16,000 terms take half a minute).
    for (op, term) in [(" || ", "self.spec.replicas == 1"), (" && ", "self.spec.replicas != 1"), (" || ", "'a' == 'a'")] {
        let (small, large) = (binding_work(op, term, 1_000), binding_work(op, term, 2_000));
        assert!(large <= 2 * small + 16, "{term}: {small} for 1,000 terms, {large} for 2,000");
    }
}

#[test]
fn long_rules_are_refused_as_cel_go_refuses_them_and_shorter_ones_check() {
    // cel-go counts code points: just under 100,000 of them parse (a balanced tree, so no deep recursion).
    let under = format!("{}true", "true || ".repeat(12_499));
    assert_eq!(under.chars().count(), 99_996);
    expect_test::expect!["bool"].assert_eq(&check_source(&under));
    let over = vec!["self.spec.replicas == 1"; 20_000].join(" || ");
    expect_test::expect!["ERROR: <input>:-1:0: expression code point size exceeds limit: size: 539996, limit 100000"]
        .assert_eq(&check_source(&over));
}

#[test]
fn rules_nested_past_the_recursion_limit_get_cel_go_s_one_error() {
    // 10,000 nested parentheses: cel-go stops at its limit of 250 with one error and no location.
    let deep = format!("{}self.spec.replicas{} == 1", "(".repeat(10_000), ")".repeat(10_000));
    expect_test::expect!["ERROR: <input>:-1:0: expression recursion limit exceeded: 250"].assert_eq(&check_source(&deep));
    let list = format!("{}1{}", "[".repeat(300), "]".repeat(300));
    expect_test::expect!["ERROR: <input>:-1:0: expression recursion limit exceeded: 250"].assert_eq(&check_source(&list));
    // Within the limit, nesting is fine.
    let shallow = format!("{}self.spec.replicas{} == 1", "(".repeat(100), ")".repeat(100));
    expect_test::expect!["bool"].assert_eq(&check_source(&shallow));
}

#[test]
fn reserved_words_name_fields_plainly_from_compatibility_version_1_31() {
    let ty = object("Object", &[("__namespace__", Type::String), ("__in__", Type::String)]);
    let errors = |source: &str, minor: u32| -> Vec<String> {
        let parsed = match parse(source) {
            Ok(p) => p,
            Err(errors) => return vec![display_all(&errors, source)],
        };
        check_with(&parsed, &[("self", ty.clone())], Options::kubernetes(minor)).errors.into_iter().map(|e| e.message).collect()
    };
    // The escaped name works in every release; the plain one from 1.31's environment (new rules on
    // API servers 1.32 and later), as the API server's type provider finds it.
    assert!(errors("self.__namespace__ == 'a'", 30).is_empty());
    assert_eq!(errors("self.namespace == 'a'", 30), ["undefined field 'namespace'"]);
    assert!(errors("self.namespace == 'a'", 31).is_empty());
    assert!(errors("has(self.namespace)", 31).is_empty());
    // A name that is not reserved is not looked up escaped.
    assert_eq!(errors("self.spec == 'a'", 35), ["undefined field 'spec'"]);
    // `in` cannot follow a dot at all: the parser refuses it before any type is looked at.
    assert!(errors("self.in == 'a'", 35)[0].contains("Syntax error"));
}

/// cel-go checks each argument of `&&` and `||` against `bool` on its own (so also the step of the
/// `all` and `exists` macros): one that is not is reported where it is, and one already in error
/// passes.
#[test]
fn logical_operators_check_each_argument_against_bool() {
    expect_test::expect![[r#"
        ERROR: <input>:1:25: expected type 'bool' but found 'string'
         | self.spec.name == '' && 'x'
         | ........................^
        ERROR: <input>:1:1: expected type 'bool' but found 'int'
         | 1 || self.spec.replicas
         | ^
        ERROR: <input>:1:15: expected type 'bool' but found 'int'
         | 1 || self.spec.replicas
         | ..............^
        ERROR: <input>:1:1: undeclared reference to 'f' (in container '')
         | f.all(x, '')
         | ^
        ERROR: <input>:1:10: expected type 'bool' but found 'string'
         | f.all(x, '')
         | .........^
        ERROR: <input>:1:26: expected type 'bool' but found 'string'
         | self.spec.tags.exists(t, t)
         | .........................^"#]]
    .assert_eq(
        &["self.spec.name == '' && 'x'", "1 || self.spec.replicas", "f.all(x, '')", "self.spec.tags.exists(t, t)"]
            .map(check_source)
            .join("\n"),
    );
}

/// An argument in error fits any parameter (cel-go's `isAssignable`), so a call whose other
/// arguments fit no overload is still reported, the argument in error shown as `!error!`; one they
/// fit is not.
#[test]
fn a_call_with_an_argument_in_error_is_still_resolved() {
    expect_test::expect![[r#"
        ERROR: <input>:1:13: undeclared reference to 'f' (in container '')
         | self.spec / f
         | ............^
        ERROR: <input>:1:11: found no matching overload for '_/_' applied to '(Object.spec, !error!)'
         | self.spec / f
         | ..........^
        ERROR: <input>:1:22: undeclared reference to 'f' (in container '')
         | self.spec.replicas + f == 1
         | .....................^"#]]
    .assert_eq(&["self.spec / f", "self.spec.replicas + f == 1"].map(check_source).join("\n"));
}
