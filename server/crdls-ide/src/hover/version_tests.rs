//! Tests of `hover`.

use super::*;

#[test]
fn a_property_hover_lists_it_in_the_other_versions() {
    let text = std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/../../fixtures/crd-errors/versions.yaml")).unwrap();
    let stream = crdls_yaml::parse(&text);
    let at = text.find("size: {type: integer}").unwrap() + 1;
    let hover = hover(&text, &stream, &CrdIndex::new(), at, crdls_builtins::newest()).unwrap();
    let tail = hover.markdown.rsplit("\n\n").next().unwrap();
    assert_eq!(tail, "`spec.size` in the other versions:\n- `v1beta1`: line 43, string\n- `v1alpha1`: not declared");
}
