//! Tests of `archive`.

use super::*;

#[test]
fn the_seeds_read_as_expected() {
    for seed in SEEDS {
        assert_eq!(run(seed), Ok(()), "{seed}");
    }
    let mut expected = Expected::default();
    let recipe = parse(&mut SEEDS[2].lines(), 0);
    build(&recipe, "", 0, &mut expected).expect("the seed builds");
    assert_eq!(expected.depth, 3);
    assert!(
        expected.files.contains_key("c/charts/c1.tgz!/c1/charts/c2.tgz!/c2/charts/c3.tar.gz!/c3/crds/deep.yaml"),
        "{:?}",
        expected.files.keys()
    );
}

/// The recipes the mutator's lines make reach the entry and depth limits, and the errors name them.
#[test]
fn recipes_reach_the_limits() {
    let error = |recipe: &str| {
        let mut expected = Expected::default();
        let bytes = build(&parse(&mut recipe.lines(), 0), "", 0, &mut expected).expect("the recipe builds");
        let scratch = Scratch::new("archive-test").expect("a scratch directory");
        let path = scratch.write("a.tgz", &bytes).expect("written");
        crdls_sources::archive::crd_members(&path).expect_err("over a limit")
    };
    let many = error("many app/f 10001\n");
    assert_eq!(many.reason, ArchiveFailure::TooManyMembers(10_000));
    assert!(many.to_string().contains("more than 10000 files"), "{many}");
    let deep = format!("{}file c/crds/a.yaml kind: A\n{}", "archive c/charts/c.tgz\n".repeat(9), "end\n".repeat(9));
    let deep = error(&deep);
    assert!(matches!(deep.reason, ArchiveFailure::TooDeep(_, 8)), "{deep:?}");
    assert!(deep.to_string().contains("archives nest more than 8 deep"), "{deep}");
}
