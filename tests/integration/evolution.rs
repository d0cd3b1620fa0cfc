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

/// The CI example of the documentation: a pull request that removes a field fails
/// `crdls check --old git:origin/main`, and the same command passes on the unchanged branch.
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
    let annotated = run_cli_in(&tree.path, &["check", "--old", "git:origin/main", "--format", "github"], "");
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
