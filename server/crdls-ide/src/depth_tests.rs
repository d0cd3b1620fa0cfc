//! Every editor feature over the deepest document the YAML layer builds, on a thread with the stack
//! of the language server's blocking workers: no walker over a tree may need more.

use crdls_check::CheckOptions;
use crdls_diagnostics::TextRange;
use crdls_test_fixture as fixture;
use crdls_yaml::{Node, MAX_NESTING};
use expect_test::expect;

/// The stack tokio gives the blocking threads the language server computes on.
const WORKER_STACK: usize = 2 << 20;

/// A schema nested `levels` objects deep under `spec.tree`, with a rule at its bottom, beside a
/// `spec.data` that keeps unknown fields and holds a rule comparing it with itself.
fn crd(levels: usize) -> String {
    let mut tree = String::from(
        "{type: object, x-kubernetes-validations: [{rule: 'self.leaf != 0'}], properties: {leaf: {type: integer, enum: [0, 1]}}}",
    );
    for _ in 0..levels {
        tree = format!("{{type: object, properties: {{n: {tree}}}}}");
    }
    let schema = format!(
        "type: object\nproperties:\n  spec:\n    type: object\n    x-kubernetes-validations:\n    - rule: self.data != self.data\n    properties:\n      data: {{type: object, x-kubernetes-preserve-unknown-fields: true}}\n      tree: {tree}\n"
    );
    fixture::Crd::new("Deep").schema(&schema).yaml()
}

/// A custom resource with `spec.data` nested to the limit and `spec.tree` following the schema.
fn resource(data: usize, levels: usize) -> String {
    let data = format!("{}1{}", "{a: ".repeat(data), "}".repeat(data));
    let tree = format!("{}{{leaf: 0}}{}", "{n: ".repeat(levels), "}".repeat(levels));
    format!("apiVersion: {}/v1\nkind: Deep\nmetadata:\n  name: d\nspec:\n  data: {data}\n  tree: {tree}\n", fixture::GROUP)
}

/// Runs every feature over `text`, at its last `leaf` where one is asked for, and says what came out.
fn exercise(text: &str, index: &crdls_crd::CrdIndex) -> String {
    let stream = crdls_yaml::parse(text);
    let height = stream.documents.iter().filter_map(|d| d.root.as_ref()).map(Node::height).max().unwrap_or(0);
    let deepest = text.rfind("leaf").unwrap_or(0);
    let diagnostics = crdls_check::check_stream(&stream, index, &CheckOptions::default()).diagnostics();
    let requests: Vec<_> = diagnostics
        .iter()
        .map(|d| crate::FixRequest { code: d.code, range: d.range, path: d.path.as_deref(), restore: d.restore.as_deref() })
        .collect();
    let actions = crate::code_actions(text, &stream, index, &requests);
    let symbols = crate::document_symbols(text, &stream);
    let folds = crate::folding_ranges(text, &stream);
    let hints = crate::inlay_hints(text, &stream, index, TextRange::new(0, text.len()));
    let hover = crate::hover(text, &stream, index, deepest, crdls_builtins::newest()).is_some();
    let completions = crate::completions(text, &stream, index, deepest, crdls_builtins::newest()).len();
    let definition = crate::definition(text, &stream, index, deepest).is_some();
    let codes: Vec<&str> = diagnostics.iter().map(|d| d.code).collect();
    format!(
        "height {height}: {codes:?}, {} actions, {} symbols, {} folds, {} hints, hover {hover}, {completions} completions, definition {definition}\n",
        actions.len(),
        symbols.len(),
        folds.len(),
        hints.len()
    )
}

#[test]
fn the_deepest_tree_is_walked_on_a_worker_threads_stack() {
    let crd = crd(100);
    let index = fixture::index(&crd);
    // The root, `spec` and `data` come before the nested maps.
    let cr = resource(MAX_NESTING - 2, 100);
    let report = std::thread::Builder::new()
        .stack_size(WORKER_STACK)
        .spawn(move || exercise(&crd, &crdls_crd::CrdIndex::new()) + &exercise(&cr, &index))
        .expect("a thread starts")
        .join()
        .expect("no walker overflows the stack");
    expect![[r#"
        height 213: [], 0 actions, 1 symbols, 12 folds, 1 hints, hover true, 0 completions, definition false
        height 255: ["cel/rule", "cel/rule"], 0 actions, 1 symbols, 3 folds, 0 hints, hover true, 0 completions, definition true
    "#]]
    .assert_eq(&report);
}
