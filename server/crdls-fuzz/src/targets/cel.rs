//! The `cel` target: an expression parsed, type-checked against the environment a CRD's schema
//! gives (`self` and `oldSelf` of the schema in `cel_env.yaml`, in the newest Kubernetes environment
//! and in an older one), its cost estimated as the API server estimates it, and, when it checks,
//! evaluated on the object of `cel_env.yaml` under the API server's per-call cost limit.

use std::sync::{Arc, OnceLock};

use crdls_cel::{Options, Type, Value};
use crdls_crd::cel::{cel_type, SchemaSizes, ROOT_TYPE_NAME};
use crdls_crd::{Crd, Schema};

use crate::mutate::{mutate, Dialect};
use crate::rng::{hash, Rng};

/// The largest expression the target builds (well past the API server's limits on rule length is not
/// needed to find bugs, and keeps iterations fast).
pub const MAX_LEN: usize = 4 * 1024;

/// The schema and object of `cel_env.yaml`.
const ENV_YAML: &str = include_str!("cel_env.yaml");

/// Expressions written for the environment, beside the rules of the CRDs read as seeds.
const OWN_SEEDS: &[&str] = &[
    "self.spec.replicas <= 10",
    "self.spec.name.size() < 64 && self.spec.name.matches('^[a-z]')",
    "has(self.spec.quantity) && quantity(string(self.spec.quantity)).isLessThan(quantity('2'))",
    "self.spec.ports.all(p, p.port > 0 && p.port < 65536)",
    "self.spec.ports.exists_one(p, p.name == 'http')",
    "self.spec.labels.all(k, self.spec.labels[k] != '')",
    "self.spec.tags.map(t, t.upperAscii()).join(',').size() > 0",
    "self.spec.matrix.all(row, row.all(x, x >= 0))",
    "timestamp(self.spec.when) < timestamp('2030-01-01T00:00:00Z') && duration(self.spec.every) > duration('1m')",
    "self.spec.?nested.?deeper.?value.orValue('') == 'v'",
    "self.spec.counts.exists(k, self.spec.counts[k] < 0)",
    "self.metadata.name.startsWith('p') && self.kind == 'Probe'",
    "oldSelf.spec.replicas <= self.spec.replicas",
    "self.spec.x__dash__dashed == 'dash'",
    "self.spec.items.sortBy(x, x.size()).reverse()[0] == 'zzz'",
    "'%s has %d ports'.format([self.spec.name, size(self.spec.ports)]) != ''",
    "isURL('https://a.b/c') && url('https://a.b/c').getHost() == 'a.b'",
    "ip('10.0.0.1').family() == 4 && cidr('10.0.0.0/8').containsIP(ip('10.0.0.1'))",
    "semver('1.2.3').isLessThan(semver('1.10.0'))",
    "lists.range(5).sum() == 10",
    "self.spec.embedded.kind == 'ConfigMap'",
    "self.spec.free.anything[0] == 1",
    "self.spec.ratio * 2.0 == 1.0 && int(self.spec.ratio * 10.0) == 5",
    "string(self.spec.data) == 'hello'",
];

/// The environment, built once.
struct Env {
    schema: Arc<Schema>,
    self_type: Type,
    self_value: Value,
}

fn env() -> &'static Env {
    static ENV: OnceLock<Env> = OnceLock::new();
    ENV.get_or_init(|| {
        let stream = crdls_yaml::parse(ENV_YAML);
        let crd = Crd::from_document(&stream.documents[0]).into_iter().next().expect("cel_env.yaml holds a CRD");
        let schema = crd.versions[0].schema().cloned().expect("cel_env.yaml's CRD has a schema");
        let self_type = cel_type(&schema, true, ROOT_TYPE_NAME).expect("cel_env.yaml's schema has a CEL type");
        let object = stream.documents[1].root.as_ref().expect("cel_env.yaml holds an object");
        let self_value = crdls_check::cel::to_value(object, &schema, true, ROOT_TYPE_NAME);
        Env { schema, self_type, self_value }
    })
}

/// The `cel` target.
pub struct CelTarget {
    pub(crate) seeds: Vec<String>,
}

impl CelTarget {
    /// The target, its seeds the given rules and the environment's own expressions.
    pub fn new(mut rules: Vec<String>) -> CelTarget {
        rules.extend(OWN_SEEDS.iter().map(|s| s.to_string()));
        rules.sort();
        rules.dedup();
        CelTarget { seeds: rules }
    }
}

impl super::Target for CelTarget {
    fn name(&self) -> &'static str {
        "cel"
    }

    fn extension(&self) -> &'static str {
        "cel"
    }

    fn seeds(&self) -> &[String] {
        &self.seeds
    }

    fn mutate(&self, rng: &mut Rng, input: &str, other: &str) -> String {
        mutate(rng, input, other, Dialect::Cel, MAX_LEN)
    }

    fn run(&self, input: &str) -> Result<(), String> {
        run(input)
    }
}

/// Runs one expression through the parser, the checker, the cost estimator and the evaluator.
pub fn run(source: &str) -> Result<(), String> {
    let env = env();
    let parsed = match crdls_cel::parse(source) {
        Ok(parsed) => parsed,
        Err(errors) => {
            let _ = crdls_cel::display_all(&errors, source);
            return Ok(());
        }
    };
    let types = [("self", env.self_type.clone()), ("oldSelf", env.self_type.clone())];
    let older = 23 + (hash(source) % 13) as u32;
    let _ = crdls_cel::check_with(&parsed, &types, Options::kubernetes(older));
    let checked = crdls_cel::check_with(&parsed, &types, Options::KUBERNETES);
    let sizes = SchemaSizes { root: &env.schema, resource_root: true, kubernetes: None };
    let estimate = crdls_cel::cost::estimate_cost(&parsed, &checked, &sizes, 0);
    if estimate.min > estimate.max {
        return Err(format!("the cost estimate's minimum {} exceeds its maximum {}", estimate.min, estimate.max));
    }
    if !checked.errors.is_empty() {
        let _ = crdls_cel::display_all(&checked.errors, source);
        return Ok(());
    }
    let depth = crdls_cel::parse::depth(&parsed.expr);
    let variables = [("self", env.self_value.clone()), ("oldSelf", env.self_value.clone())];
    let evaluation = crdls_cel::evaluate_with_depth(&parsed.expr, depth, &variables, crdls_check::cel::PER_CALL_LIMIT);
    if let Ok(value) = &evaluation.outcome {
        let _ = format!("{value:?}");
    }
    Ok(())
}

/// The `rule` and `messageExpression` strings of every `x-kubernetes-validations` in a YAML text.
pub fn rules_in(text: &str) -> Vec<String> {
    let mut out = Vec::new();
    for doc in crdls_yaml::parse(text).documents {
        if let Some(root) = &doc.root {
            collect_rules(root, &mut out);
        }
    }
    out
}

fn collect_rules(node: &crdls_yaml::Node, out: &mut Vec<String>) {
    match &node.value {
        crdls_yaml::Value::Map(entries) => {
            for e in entries {
                if e.key == "x-kubernetes-validations" {
                    for rule in e.value.as_seq().unwrap_or_default() {
                        for key in ["rule", "messageExpression"] {
                            if let Some(s) = rule.get_str(key) {
                                out.push(s.to_string());
                            }
                        }
                    }
                } else {
                    collect_rules(&e.value, out);
                }
            }
        }
        crdls_yaml::Value::Seq(items) => items.iter().for_each(|i| collect_rules(i, out)),
        _ => {}
    }
}
