//! CRD evolution through `crdls check --old`: the previous version of a CRD from a file or from git
//! (the CI example of `docs/src/crd-evolution.md`), compared with the CRD as checked.

use crdls_tests::{run_cli_in, CliRun, TempTree};

/// The Widget CRD of these tests, at its first release.
const CRD_V1: &str = "\
apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata:
  name: widgets.evolve.crdls.dev
spec:
  group: evolve.crdls.dev
  names:
    kind: Widget
    plural: widgets
  scope: Namespaced
  versions:
  - name: v1
    served: true
    storage: true
    schema:
      openAPIV3Schema:
        type: object
        properties:
          spec:
            type: object
            properties:
              size:
                type: integer
                maximum: 10
              mode:
                type: string
                enum: [Managed, Unmanaged]
              owner:
                type: string
";

/// `(code, severity, path, line)` of every diagnostic of a JSON report.
fn findings(run: &CliRun) -> Vec<(String, String, String, u64)> {
    let json: serde_json::Value = serde_json::from_str(&run.stdout).unwrap_or_else(|e| panic!("{e}: {run:?}"));
    json["diagnostics"]
        .as_array()
        .unwrap()
        .iter()
        .map(|d| {
            (
                d["code"].as_str().unwrap().to_string(),
                d["severity"].as_str().unwrap().to_string(),
                d["path"].as_str().unwrap_or("-").to_string(),
                d["range"]["start"]["line"].as_u64().unwrap(),
            )
        })
        .collect()
}

fn finding(code: &str, severity: &str, path: &str, line: u64) -> (String, String, String, u64) {
    (code.to_string(), severity.to_string(), path.to_string(), line)
}

#[test]
fn old_crd_from_a_file_is_compared_with_the_new_one() {
    let new = CRD_V1.replace("                maximum: 10\n", "                maximum: 5\n").replace(", Unmanaged]", "]");
    let tree = TempTree::new("evolution-file", &[("old/widgets.yaml", CRD_V1), ("crds/widgets.yaml", &new)]);
    let run = run_cli_in(&tree.path, &["check", "crds", "--old", "old", "--format", "json"], "");
    assert_eq!(run.code, 1, "{run:?}");
    assert_eq!(
        findings(&run),
        [finding("crd-change/bound", "error", "spec.size", 24), finding("crd-change/enum", "error", "spec.mode", 27)],
        "{run:?}"
    );
    // Without the previous version, the same CRD is just a valid CRD.
    let alone = run_cli_in(&tree.path, &["check", "crds", "--format", "json"], "");
    assert_eq!((alone.code, findings(&alone)), (0, Vec::new()), "{alone:?}");
    // `[severity]` in crdls.toml changes a crd-change code as any other.
    tree.write("crdls.toml", "[severity]\n\"crd-change/bound\" = \"warning\"\n\"crd-change/enum\" = \"off\"\n");
    let relaxed = run_cli_in(&tree.path, &["check", "crds", "--old", "old", "--format", "json"], "");
    assert_eq!((relaxed.code, findings(&relaxed)), (0, vec![finding("crd-change/bound", "warning", "spec.size", 24)]), "{relaxed:?}");
}

/// The CI example of the documentation (`docs/src/ci.md`): a pull request that removes a field fails
/// `crdls check config/crd/ --old git:origin/main`, and the same command passes on the unchanged branch.
#[test]
fn a_pull_request_that_removes_a_field_fails_against_origin_main() {
    let tree = TempTree::new("evolution-git", &[("config/crd/widgets.yaml", CRD_V1)]);
    let git = |args: &[&str]| {
        std::process::Command::new("git")
            .arg("-C")
            .arg(&tree.path)
            .args(["-c", "user.name=t", "-c", "user.email=t@e", "-c", "init.defaultBranch=main"])
            .args(args)
            .output()
            .map(|o| o.status.success())
            .unwrap_or(false)
    };
    if !(git(&["init", "-q"]) && git(&["add", "."]) && git(&["commit", "-qm", "widgets"])) {
        crdls_tests::announce_skip(crdls_tests::Missing::Git, Some("the CI example with --old git:origin/main"));
        return;
    }
    // What a CI checkout of a pull request has: the base branch as a remote-tracking ref.
    assert!(git(&["update-ref", "refs/remotes/origin/main", "HEAD"]));
    let unchanged = run_cli_in(&tree.path, &["check", "--old", "git:origin/main", "--format", "json"], "");
    assert_eq!((unchanged.code, findings(&unchanged)), (0, Vec::new()), "{unchanged:?}");

    // The pull request removes spec.owner.
    tree.write("config/crd/widgets.yaml", &CRD_V1.replace("              owner:\n                type: string\n", ""));
    for trust in [&[][..], &["--trust-workspace"][..]] {
        let run = run_cli_in(&tree.path, &[&["check", "--old", "git:origin/main", "--format", "json"][..], trust].concat(), "");
        assert_eq!(run.code, 1, "{run:?}");
        assert_eq!(findings(&run), [finding("crd-change/field-removed", "error", "spec.owner", 21)], "{run:?}");
    }
    // Exactly the command of the documentation (docs/src/ci.md).
    let annotated = run_cli_in(&tree.path, &["check", "config/crd/", "--old", "git:origin/main", "--format", "github"], "");
    assert_eq!(annotated.code, 1, "{annotated:?}");
    assert!(
        annotated.stdout.contains("::error file=config/crd/widgets.yaml,line=21,")
            && annotated.stdout.contains("field spec.owner in v1 removed"),
        "{annotated:?}"
    );
}

/// The checked files' Widgets that the previous CRD accepts and the new one rejects are counted on the
/// CRD, with where they are; a Widget the previous CRD already rejects is not the change's doing.
#[test]
fn a_change_says_which_objects_of_the_workspace_it_breaks() {
    let new = CRD_V1.replace(", Unmanaged]", "]");
    let widget =
        |name: &str, spec: &str| format!("apiVersion: evolve.crdls.dev/v1\nkind: Widget\nmetadata: {{name: {name}}}\nspec: {spec}\n");
    let objects =
        [widget("fine", "{mode: Managed}"), widget("legacy", "{mode: Unmanaged}"), widget("broken", "{mode: Unmanaged, size: 50}")]
            .join("---\n");
    let tree =
        TempTree::new("evolution-objects", &[("old/widgets.yaml", CRD_V1), ("crds/widgets.yaml", &new), ("apps/widgets.yaml", &objects)]);
    let run = run_cli_in(&tree.path, &["check", "crds", "apps", "--old", "old", "--format", "json"], "");
    let json: serde_json::Value = serde_json::from_str(&run.stdout).unwrap_or_else(|e| panic!("{e}: {run:?}"));
    let on_crd: Vec<(&str, &str)> = json["diagnostics"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|d| d["file"] == "crds/widgets.yaml")
        .map(|d| (d["code"].as_str().unwrap(), d["message"].as_str().unwrap()))
        .collect();
    assert_eq!(on_crd.len(), 2, "{run:?}");
    assert_eq!(on_crd[0].0, "crd-change/breaks-objects");
    assert_eq!(
        on_crd[0].1,
        "this change breaks 1 of 3 Widget objects of the workspace: the previous CRD accepts them, this one rejects them when they are created again; an update that leaves them unchanged still passes (ratcheting): apps/widgets.yaml:6 legacy (spec.mode: Unsupported value: \"Unmanaged\": supported values: \"Managed\")"
    );
    assert_eq!(on_crd[1].0, "crd-change/enum");
}

/// The base schema of the crdify cases (`tests/evolution/crdify-cases.txt`): ours, with the fields
/// crdify's cases change.
const CRDIFY_BASE: &str = "{type: object, properties: {spec: {type: object, properties: {size: {type: integer, format: int32, description: the number of instances}, containerPort: {type: integer, format: int32}, containerPorts: {type: array, items: {type: integer}}, name: {type: string}, config: {type: object}, mode: {type: string, enum: [Managed, Unmanaged], default: Managed}, code: {type: string}}, required: [size]}, status: {type: object}}}";

/// One case of `tests/evolution/crdify-cases.txt`.
#[derive(Default)]
struct CrdifyCase {
    name: String,
    old: Vec<(String, String)>,
    new: Vec<(String, String)>,
    scope: Option<String>,
    crdify: Vec<(String, String)>,
    differs: Vec<(String, String, String)>,
}

fn crdify_cases() -> Vec<CrdifyCase> {
    let text = std::fs::read_to_string(crdls_tests::repo_root().join("tests/evolution/crdify-cases.txt")).unwrap();
    let mut cases: Vec<CrdifyCase> = Vec::new();
    for line in text.lines().filter(|l| !l.starts_with('#') && !l.trim().is_empty()) {
        let (word, rest) = line.split_once(' ').unwrap_or((line, ""));
        let replacement = |rest: &str| {
            let (from, to) = rest.split_once(" => ").unwrap_or_else(|| panic!("FROM => TO: {line}"));
            (from.to_string(), to.to_string())
        };
        let pair = |rest: &str| {
            let (path, validation) = rest.split_once(' ').unwrap_or_else(|| panic!("PATH VALIDATION: {line}"));
            (path.to_string(), validation.to_string())
        };
        if word == "case" {
            cases.push(CrdifyCase { name: rest.to_string(), ..CrdifyCase::default() });
            continue;
        }
        let case = cases.last_mut().expect("a case first");
        match word {
            "old" => case.old.push(replacement(rest)),
            "new" => case.new.push(replacement(rest)),
            "scope" => case.scope = Some(rest.to_string()),
            "crdify" => case.crdify.push(pair(rest)),
            "differs" => {
                let mut parts = rest.splitn(3, ' ');
                let (path, validation, reason) = (parts.next().unwrap(), parts.next().unwrap(), parts.next().unwrap());
                case.differs.push((path.to_string(), validation.to_string(), reason.to_string()));
            }
            _ => panic!("unknown line: {line}"),
        }
    }
    cases
}

/// A CRD of the crdify cases: the base schema with `replacements` made (each needle must occur once).
fn crdify_crd(replacements: &[(String, String)], scope: Option<&str>) -> String {
    let mut schema = CRDIFY_BASE.to_string();
    for (from, to) in replacements {
        assert_eq!(schema.matches(from.as_str()).count(), 1, "{from:?} occurs once in {schema}");
        schema = schema.replacen(from.as_str(), to, 1);
    }
    format!(
        "apiVersion: apiextensions.k8s.io/v1\nkind: CustomResourceDefinition\nmetadata:\n  name: memcacheds.cache.crdls.dev\nspec:\n  group: cache.crdls.dev\n  names: {{kind: Memcached, plural: memcacheds}}\n  scope: {}\n  versions:\n  - name: v1alpha1\n    served: true\n    storage: true\n    schema:\n      openAPIV3Schema: {schema}\n",
        scope.unwrap_or("Namespaced")
    )
}

/// crdify's name for the validation behind a crdls finding.
fn crdify_name(code: &str, message: &str) -> String {
    let name = match code {
        "crd-change/scope" => "scope",
        "crd-change/field-removed" => "existingFieldRemoval",
        "crd-change/type" => "type",
        "crd-change/required" => "required",
        "crd-change/default" => "default",
        "crd-change/enum" | "crd-change/enum-values-added" => "enum",
        "crd-change/pattern" | "crd-change/pattern-removed" => "pattern",
        "crd-change/nullable-removed" | "crd-change/nullable-added" => "nullable",
        // The keyword the message starts with: maximum, maxLength, minItems ...
        "crd-change/bound" => message.split(' ').next().unwrap_or_default(),
        other => other,
    };
    name.to_string()
}

/// crdify's own end-to-end cases give the same verdicts through crdls, but for the differences the data
/// file lists with their reasons (printed for the CI log).
#[test]
fn crdify_cases_give_the_same_verdicts() {
    let cases = crdify_cases();
    assert!(cases.len() >= 22, "the data file lists crdify's cases");
    let mut differences = 0;
    for case in &cases {
        let tree = TempTree::new(&format!("crdify-{}", case.name), &[]);
        tree.write("old/crd.yaml", &crdify_crd(&case.old, None));
        tree.write("new/crd.yaml", &crdify_crd(&case.new, case.scope.as_deref()));
        let run = run_cli_in(&tree.path, &["check", "new", "--old", "old", "--format", "json"], "");
        let json: serde_json::Value = serde_json::from_str(&run.stdout).unwrap_or_else(|e| panic!("{e}: {run:?}"));
        let mut got: Vec<(String, String)> = json["diagnostics"]
            .as_array()
            .unwrap()
            .iter()
            .map(|d| {
                let code = d["code"].as_str().unwrap();
                assert!(code.starts_with("crd-change/"), "{}: the CRDs of the case are valid: {d}", case.name);
                let name = crdify_name(code, d["message"].as_str().unwrap());
                let path = if matches!(name.as_str(), "scope" | "existingFieldRemoval") { "-" } else { d["path"].as_str().unwrap_or("-") };
                (path.to_string(), name)
            })
            .collect();
        got.sort();
        got.dedup();
        let mut expected: Vec<(String, String)> =
            case.crdify.iter().filter(|(p, v)| !case.differs.iter().any(|(dp, dv, _)| dp == p && dv == v)).cloned().collect();
        expected.sort();
        assert_eq!(got, expected, "case {}: crdls's verdicts against crdify's (less the listed differences): {run:?}", case.name);
        for (path, validation, reason) in &case.differs {
            differences += 1;
            eprintln!("crdify case {}: {validation} at {path}: crdify reports it, crdls does not: {reason}", case.name);
        }
    }
    eprintln!("crdify cases: {} run, {differences} listed differences", cases.len());
}

/// The JSON report's change records: every diagnostic of a run with CRD changes and broken objects
/// is valid against the documented schema (`docs/src/report.schema.json`), and the records say the
/// version, the values before and after, and the objects broken. SARIF carries the same records.
#[test]
fn change_records_follow_the_documented_schema() {
    let new = CRD_V1.replace(", Unmanaged]", "]").replace("                maximum: 10\n", "                maximum: 5\n");
    let objects = "apiVersion: evolve.crdls.dev/v1\nkind: Widget\nmetadata: {name: legacy}\nspec: {mode: Unmanaged}\n---\napiVersion: evolve.crdls.dev/v1\nkind: Widget\nmetadata: {name: fine}\nspec: {size: 11}\n";
    let tree =
        TempTree::new("evolution-records", &[("old/widgets.yaml", CRD_V1), ("crds/widgets.yaml", &new), ("apps/widgets.yaml", objects)]);
    let run = run_cli_in(&tree.path, &["check", "crds", "apps", "--old", "old", "--format", "json"], "");
    let report: serde_json::Value = serde_json::from_str(&run.stdout).unwrap_or_else(|e| panic!("{e}: {run:?}"));
    let schema: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(crdls_tests::repo_root().join("docs/src/report.schema.json")).unwrap()).unwrap();
    assert_eq!(crdls_tests::json_schema::validate(&schema, &report), Vec::<String>::new(), "{run:?}");
    let records: Vec<(String, serde_json::Value)> = report["diagnostics"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|d| d["file"] == "crds/widgets.yaml")
        .map(|d| (d["code"].as_str().unwrap().to_string(), d["change"].clone()))
        .collect();
    assert_eq!(
        records,
        [
            (
                "crd-change/breaks-objects".to_string(),
                serde_json::json!({"version": null, "old": null, "new": null, "objects": [{"file": "apps/widgets.yaml", "line": 1, "name": "legacy", "error": "spec.mode: Unsupported value: \"Unmanaged\": supported values: \"Managed\""}]})
            ),
            ("crd-change/bound".to_string(), serde_json::json!({"version": "v1", "old": 10, "new": 5, "objects": []})),
            (
                "crd-change/enum".to_string(),
                serde_json::json!({"version": "v1", "old": ["Managed", "Unmanaged"], "new": ["Managed"], "objects": []})
            ),
        ],
        "{run:?}"
    );
    // A diagnostic that is not a change has a null record; a report that breaks the schema is caught.
    assert!(report["diagnostics"].as_array().unwrap().iter().filter(|d| d["file"] == "apps/widgets.yaml").all(|d| d["change"].is_null()));
    let mut broken = report.clone();
    broken["diagnostics"][0]["change"]["objects"][0]["line"] = serde_json::json!(0);
    assert_eq!(crdls_tests::json_schema::validate(&schema, &broken).len(), 1);

    // The schema holds for every other diagnostic too: the project's fixtures (CRD errors, objects,
    // projects with templates and test material) give hundreds of them.
    let fixtures = crdls_tests::run_cli(&["check", "fixtures", "--format", "json"], "");
    let fixtures: serde_json::Value = serde_json::from_str(&fixtures.stdout).unwrap();
    assert!(fixtures["diagnostics"].as_array().unwrap().len() > 100, "{fixtures}");
    assert_eq!(crdls_tests::json_schema::validate(&schema, &fixtures), Vec::<String>::new());

    let sarif = run_cli_in(&tree.path, &["check", "crds", "apps", "--old", "old", "--format", "sarif"], "");
    let sarif: serde_json::Value = serde_json::from_str(&sarif.stdout).unwrap();
    let enum_result = sarif["runs"][0]["results"].as_array().unwrap().iter().find(|r| r["ruleId"] == "crd-change/enum").cloned().unwrap();
    assert_eq!(enum_result["properties"]["change"], records[2].1);
}

/// One case of `tests/evolution/crd-schema-checker-cases.txt`.
#[derive(Default)]
struct CheckerCase {
    name: String,
    old: Vec<(String, String)>,
    old_name: Option<String>,
    new: Vec<(String, String)>,
    checker: Vec<(String, String)>,
    differs: Vec<(String, String, String)>,
    extra: Vec<(String, String, String)>,
}

fn checker_cases() -> Vec<CheckerCase> {
    let text = std::fs::read_to_string(crdls_tests::repo_root().join("tests/evolution/crd-schema-checker-cases.txt")).unwrap();
    let mut cases: Vec<CheckerCase> = Vec::new();
    for line in text.lines().filter(|l| !l.starts_with('#') && !l.trim().is_empty()) {
        let (word, rest) = line.split_once(' ').unwrap_or((line, ""));
        if word == "case" {
            cases.push(CheckerCase { name: rest.to_string(), ..CheckerCase::default() });
            continue;
        }
        let case = cases.last_mut().expect("a case first");
        let two = |rest: &str| {
            let (a, b) = rest.split_once(' ').unwrap_or_else(|| panic!("two words: {line}"));
            (a.to_string(), b.to_string())
        };
        let three = |rest: &str| {
            let mut parts = rest.splitn(3, ' ');
            let (a, b, c) = (parts.next().unwrap(), parts.next().unwrap(), parts.next().unwrap_or_else(|| panic!("a reason: {line}")));
            (a.to_string(), b.to_string(), c.to_string())
        };
        match word {
            "old" => case.old.push(two(rest)),
            "oldname" => case.old_name = Some(rest.to_string()),
            "new" => case.new.push(two(rest)),
            "checker" => case.checker.push(two(rest)),
            "differs" => case.differs.push(three(rest)),
            "extra" => case.extra.push(three(rest)),
            _ => panic!("unknown line: {line}"),
        }
    }
    cases
}

/// A CRD of the crd-schema-checker cases: its versions (the first stored, all served) with their schemas.
fn checker_crd(name: &str, versions: &[(String, String)]) -> String {
    let mut text = format!(
        "apiVersion: apiextensions.k8s.io/v1\nkind: CustomResourceDefinition\nmetadata:\n  name: {name}\nspec:\n  group: api.crdls.dev\n  names: {{kind: TheKind, plural: thepluralresource}}\n  scope: Cluster\n  versions:\n"
    );
    for (i, (version, schema)) in versions.iter().enumerate() {
        text.push_str(&format!(
            "  - name: {version}\n    served: true\n    storage: {}\n    schema:\n      openAPIV3Schema: {schema}\n",
            i == 0
        ));
    }
    text
}

/// The comparator and paths of crd-schema-checker that a crdls finding stands for (`crd-change/required`
/// names the object, the checker each field it requires); `None` for a finding of another kind.
fn checker_findings(code: &str, path: &str, message: &str) -> Option<Vec<(String, String)>> {
    let comparator = match code {
        "crd-change/type" => "NoDataTypeChange",
        "crd-change/enum" => "NoEnumRemoval",
        "crd-change/field-removed" => "NoFieldRemoval",
        "crd-change/required" => {
            let fields = message.split_once(" now requires ")?.1.split(';').next()?;
            return Some(fields.split(", ").map(|f| ("NoNewRequiredFields".to_string(), format!("{path}.{f}"))).collect());
        }
        _ => return None,
    };
    Some(vec![(comparator.to_string(), path.to_string())])
}

/// crd-schema-checker's comparator test data for the changes of a CRD give the same verdicts through
/// crdls, but for the differences the data file lists with their reasons (printed for the CI log).
/// The CRDs of the cases are valid: crdls reports nothing on them but the changes.
#[test]
fn crd_schema_checker_cases_give_the_same_verdicts() {
    let cases = checker_cases();
    assert_eq!(cases.len(), 26, "the data file lists the 26 cases of the four comparators of changes");
    let (mut same, mut differences, mut extras) = (0, 0, 0);
    for case in &cases {
        let tree = TempTree::new(&format!("checker-{}", case.name.replace('/', "-")), &[]);
        let name = "thepluralresource.api.crdls.dev";
        tree.write("new/crd.yaml", &checker_crd(name, &case.new));
        let mut args = vec!["check", "new", "--format", "json"];
        if !case.old.is_empty() {
            tree.write("old/crd.yaml", &checker_crd(case.old_name.as_deref().unwrap_or(name), &case.old));
            args.extend(["--old", "old"]);
        }
        let run = run_cli_in(&tree.path, &args, "");
        let json: serde_json::Value = serde_json::from_str(&run.stdout).unwrap_or_else(|e| panic!("{e}: {run:?}"));
        let (mut got, mut extra) = (Vec::new(), Vec::new());
        for d in json["diagnostics"].as_array().unwrap() {
            let (code, path) = (d["code"].as_str().unwrap(), d["path"].as_str().unwrap_or("-"));
            assert!(code.starts_with("crd-change/") || d["severity"] != "error", "{}: the CRDs of the case are valid: {d}", case.name);
            if !code.starts_with("crd-change/") {
                continue;
            }
            match checker_findings(code, path, d["message"].as_str().unwrap()) {
                Some(findings) => got.extend(findings),
                None => extra.push((code.to_string(), path.to_string())),
            }
        }
        got.sort();
        let mut expected: Vec<(String, String)> =
            case.checker.iter().filter(|(c, p)| !case.differs.iter().any(|(dc, dp, _)| dc == c && dp == p)).cloned().collect();
        expected.sort();
        assert_eq!(
            got, expected,
            "case {}: crdls's verdicts against crd-schema-checker's (less the listed differences): {run:?}",
            case.name
        );
        let listed_extra: Vec<(String, String)> = case.extra.iter().map(|(c, p, _)| (c.clone(), p.clone())).collect();
        assert_eq!(extra, listed_extra, "case {}: crdls's findings the checker does not make: {run:?}", case.name);
        same += case.checker.len() - case.differs.len();
        for (comparator, path, reason) in &case.differs {
            differences += 1;
            eprintln!("crd-schema-checker case {}: {comparator} at {path}: the checker reports it, crdls does not: {reason}", case.name);
        }
        for (code, path, reason) in &case.extra {
            extras += 1;
            eprintln!("crd-schema-checker case {}: {code} at {path}: crdls reports it, the checker does not: {reason}", case.name);
        }
    }
    eprintln!(
        "crd-schema-checker cases: {} run, {same} errors reported alike, {differences} not reported by crdls, {extras} reported by crdls only",
        cases.len()
    );
}

/// The Widget CRD as a cluster serves it: versions `v1` (stored) and `v1beta1` (served), and
/// `status.storedVersions` naming both, with the server's bookkeeping.
fn served_widgets() -> serde_json::Value {
    let schema = serde_json::json!({"openAPIV3Schema": {"type": "object", "properties": {"spec": {"type": "object", "properties": {
        "size": {"type": "integer", "maximum": 10}, "mode": {"type": "string", "enum": ["Managed", "Unmanaged"]}, "owner": {"type": "string"}}}}}});
    serde_json::json!({
        "metadata": {"name": "widgets.evolve.crdls.dev", "resourceVersion": "7", "managedFields": [{"manager": "kubectl"}]},
        "spec": {
            "group": "evolve.crdls.dev", "scope": "Namespaced", "names": {"kind": "Widget", "plural": "widgets"},
            "versions": [
                {"name": "v1", "served": true, "storage": true, "schema": schema},
                {"name": "v1beta1", "served": true, "storage": false, "schema": schema}
            ]
        },
        "status": {"storedVersions": ["v1beta1", "v1"], "conditions": [{"type": "Established", "status": "True"}]}
    })
}

/// Runs the binary in `dir` with its own cache and no kubeconfig of the user's.
fn crdls_binary_in(dir: &TempTree, args: &[&str]) -> CliRun {
    let output = std::process::Command::new(crdls_tests::crdls_binary())
        .args(args)
        .current_dir(&dir.path)
        .env("CRDLS_CACHE_DIR", dir.path.join("cache"))
        .env_remove("KUBECONFIG")
        .env_remove("CRDLS_TRUST_WORKSPACE")
        .env("HOME", &dir.path)
        .output()
        .expect("the binary runs");
    CliRun {
        code: output.status.code().unwrap_or(-1),
        stdout: String::from_utf8_lossy(&output.stdout).into_owned(),
        stderr: String::from_utf8_lossy(&output.stderr).into_owned(),
    }
}

/// With `--cluster`, the CRD the cluster serves is the previous version of the checked CRD of the
/// same name: a version still in its `status.storedVersions` that the checked CRD drops is an error,
/// as is a field removed. `--old` takes the cluster's place. A repository's crdls.toml cannot ask
/// for the cluster without the user's trust.
#[test]
fn the_cluster_s_crd_is_the_previous_version_with_its_stored_versions() {
    use crdls_tests::loopback::{api_server, kubeconfig};
    let server = api_server("t0ken", vec![served_widgets()]);
    let new = CRD_V1.replace("              owner:\n                type: string\n", "");
    let tree = TempTree::new("evolution-cluster", &[("crds/widgets.yaml", &new), ("old/widgets.yaml", CRD_V1)]);
    tree.write("kubeconfig", &kubeconfig(&server.address, "t0ken"));

    let run = crdls_binary_in(&tree, &["check", "crds", "--kubeconfig", "kubeconfig", "--format", "json"]);
    assert_eq!(run.code, 1, "{run:?}");
    assert_eq!(
        findings(&run),
        [
            finding("crd-change/stored-version-removed", "error", "spec.versions", 11),
            finding("crd-change/field-removed", "error", "spec.owner", 21)
        ],
        "{run:?}"
    );
    let report: serde_json::Value = serde_json::from_str(&run.stdout).unwrap();
    assert!(
        report["diagnostics"][0]["message"]
            .as_str()
            .unwrap()
            .starts_with("version v1beta1 removed, but it was listed in status.storedVersions"),
        "{run:?}"
    );
    assert_eq!(report["diagnostics"][0]["change"], serde_json::json!({"version": "v1beta1", "old": "v1beta1", "new": null, "objects": []}));
    assert_eq!(server.requests().len(), 1);

    // The listing is cached with the stored versions: offline gives the same findings.
    let offline = crdls_binary_in(&tree, &["check", "crds", "--kubeconfig", "kubeconfig", "--offline", "--format", "json"]);
    assert_eq!(findings(&offline), findings(&run), "{offline:?}");
    assert_eq!(server.requests().len(), 1);

    // `--old` takes the cluster's place: the file's previous version has no v1beta1.
    let old = crdls_binary_in(&tree, &["check", "crds", "--kubeconfig", "kubeconfig", "--offline", "--old", "old", "--format", "json"]);
    assert_eq!(findings(&old), [finding("crd-change/field-removed", "error", "spec.owner", 21)], "{old:?}");

    // A crdls.toml that names the cluster is not followed without trust: no comparison, and a warning.
    tree.write("crdls.toml", "[cluster]\nkubeconfig = \"kubeconfig\"\ncontext = \"test\"\n");
    let untrusted = crdls_binary_in(&tree, &["check", "crds", "--format", "json"]);
    assert_eq!((untrusted.code, findings(&untrusted)), (0, Vec::new()), "{untrusted:?}");
    assert!(untrusted.stderr.contains("not used, because the workspace is not trusted"), "{untrusted:?}");
    let trusted = crdls_binary_in(&tree, &["check", "crds", "--trust-workspace", "--offline", "--format", "json"]);
    assert_eq!(findings(&trusted), findings(&run), "{trusted:?}");
}
