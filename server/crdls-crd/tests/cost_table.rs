//! The cost estimator against the Kubernetes cost tables: for every case of
//! `tests/cost/kubernetes-cases.json` (a schema, a rule at its root, and the maximum cost the upstream
//! tests assert), the rule compiled here must be estimated at exactly that cost.

use crdls_crd::cel::compile_rule;
use crdls_crd::Schema;

#[test]
fn estimates_match_the_kubernetes_cost_tables() {
    let path = concat!(env!("CARGO_MANIFEST_DIR"), "/../../tests/cost/kubernetes-cases.json");
    let table: serde_json::Value = serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap();
    let cases = table["cases"].as_array().unwrap();
    let mut mismatches = Vec::new();
    for case in cases {
        let mut schema = case["schema"].clone();
        schema["x-kubernetes-validations"] = serde_json::json!([{ "rule": case["rule"] }]);
        let stream = crdls_yaml::parse(&serde_json::to_string(&schema).unwrap());
        let schema = Schema::from_node(stream.documents[0].root.as_ref().unwrap());
        let compiled = compile_rule(&schema.validations[0], &schema, case["resourceRoot"].as_bool().unwrap());
        let got = match &compiled.rule {
            Ok(Some(program)) => Ok(program.cost.max),
            Ok(None) => Err("empty rule".to_string()),
            Err(e) => Err(e.detail.clone()),
        };
        let want = case["maxCost"].as_u64().unwrap();
        if got != Ok(want) {
            mismatches.push(format!("{} / {}: `{}` estimated {got:?}, upstream {want}", case["test"], case["name"], case["rule"]));
        }
    }
    assert!(cases.len() >= 400, "the table has {} cases", cases.len());
    assert!(mismatches.is_empty(), "{} of {} estimates differ:\n{}", mismatches.len(), cases.len(), mismatches.join("\n"));
}
