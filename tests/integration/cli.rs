//! The command line's contract: exit codes, stdin, `--crds`, `--strict` and the JSON output shape.

use crdls_tests::{crdls_binary, repo_root, run_cli, run_cli_in, TempTree};

const WIDGET: &str = "apiVersion: demo.crdls.dev/v1\nkind: Widget\nmetadata:\n  name: w\nspec:\n  size: 11\n  owner: team\n  extra: 1\n";

#[test]
fn clean_input_exits_zero() {
    let run = run_cli(&["check", "fixtures/resources/valid.yaml", "--crds", "fixtures/crds"], "");
    assert_eq!(run.code, 0, "{run:?}");
    assert!(run.stdout.contains("no problems"), "{}", run.stdout);
}

#[test]
fn errors_exit_one_and_stdin_is_read() {
    let run = run_cli(&["check", "-", "--crds", "fixtures/crds", "--format", "json"], WIDGET);
    assert_eq!(run.code, 1, "{run:?}");
    let json: serde_json::Value = serde_json::from_str(&run.stdout).unwrap();
    let diagnostics = json["diagnostics"].as_array().unwrap();
    let max = diagnostics.iter().find(|d| d["code"] == "schema/maximum").expect("a maximum error");
    assert_eq!(max["file"], "<stdin>");
    assert_eq!(max["severity"], "error");
    assert_eq!(max["path"], "spec.size");
    assert_eq!(max["cause"], "spec.size: Invalid value: 11: spec.size in body should be less than or equal to 10");
    assert_eq!(max["range"]["start"], serde_json::json!({"line": 6, "column": 9}));
    assert_eq!(max["range"]["end"], serde_json::json!({"line": 6, "column": 11}));
    let unknown = diagnostics.iter().find(|d| d["code"] == "schema/unknown-field").expect("an unknown field");
    assert_eq!(unknown["severity"], "warning");
    assert_eq!(
        json["summary"],
        serde_json::json!({"files": 1, "documents": 1, "crds": 4, "errors": 1, "warnings": 1, "validated": 1, "crdDocuments": 0,
            "builtinValidated": 0, "builtin": 0, "unchecked": 0, "uncheckedByGroup": {}, "templates": 0, "partial": 0, "notes": []})
    );
}

/// A lone CR ends a line, as YAML 1.2 (and LSP) say and as the parser reads it: the error on `size` is
/// reported on line 6, not at the 78th character of one long first line.
#[test]
fn a_lone_cr_ends_a_line_in_reported_positions() {
    let run = run_cli(&["check", "-", "--crds", "fixtures/crds", "--format", "json"], &WIDGET.replace('\n', "\r"));
    assert_eq!(run.code, 1, "{run:?}");
    let json: serde_json::Value = serde_json::from_str(&run.stdout).unwrap();
    let max = json["diagnostics"].as_array().unwrap().iter().find(|d| d["code"] == "schema/maximum").expect("a maximum error");
    assert_eq!(max["range"]["start"], serde_json::json!({"line": 6, "column": 9}), "{max}");
    assert_eq!(max["range"]["end"], serde_json::json!({"line": 6, "column": 11}), "{max}");
    // The human report says where too.
    let run = run_cli(&["check", "-", "--crds", "fixtures/crds"], &WIDGET.replace('\n', "\r"));
    assert!(run.stdout.contains("<stdin>:6:9"), "{}", run.stdout);
}

#[test]
fn strict_turns_unknown_fields_into_errors() {
    let run = run_cli(&["check", "-", "--crds", "fixtures/crds", "--format", "json", "--strict"], WIDGET);
    let json: serde_json::Value = serde_json::from_str(&run.stdout).unwrap();
    let unknown = json["diagnostics"].as_array().unwrap().iter().find(|d| d["code"] == "schema/unknown-field").unwrap();
    assert_eq!(unknown["severity"], "error");
    assert_eq!(json["summary"]["errors"], 2);
}

/// `[severity]` in crdls.toml applies to every diagnostic, the chart hint (`helm/templates`) that the
/// check adds to a chart's first template included, as it does in the editor.
#[test]
fn severity_overrides_apply_to_the_chart_hint_too() {
    let chart = repo_root().join("fixtures/projects/chart");
    let dir = TempTree::new("cli-chart-hint", &[]);
    for file in ["Chart.yaml", "values.yaml", "templates/_helpers.tpl", "templates/widget.yaml"] {
        dir.write(&format!("chart/{file}"), &std::fs::read_to_string(chart.join(file)).unwrap());
    }
    let codes = |run: &crdls_tests::CliRun| -> Vec<String> {
        let json: serde_json::Value = serde_json::from_str(&run.stdout).unwrap();
        json["diagnostics"].as_array().unwrap().iter().map(|d| d["code"].as_str().unwrap().to_string()).collect()
    };
    let run = run_cli_in(&dir.path, &["check", "chart", "--format", "json"], "");
    assert!(codes(&run).contains(&"helm/templates".to_string()), "{run:?}");
    dir.write("crdls.toml", "[severity]\n\"helm/templates\" = \"off\"\n");
    let run = run_cli_in(&dir.path, &["check", "chart", "--format", "json"], "");
    assert!(!codes(&run).contains(&"helm/templates".to_string()), "{run:?}");
}

/// A directory walk reads no file through a symbolic link that leads outside the directory (a
/// repository's `leak.yaml -> ~/.kube/config` would otherwise be read, and its lines printed in a CI
/// log), and skips hidden files (tools' settings such as `.markdownlint.json`); the summary says so, and
/// a link or hidden file named on the command line is checked.
#[cfg(unix)]
#[test]
fn a_walk_follows_no_link_out_of_the_directory_and_skips_hidden_files() {
    let outside = TempTree::new("cli-links-outside", &[("secret.yaml", "kind: Secret\ntoken: s3cret-value\n  bad: [\n")]);
    let dir = TempTree::new(
        "cli-links",
        &[
            ("real/w.yaml", "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: c\ndata:\n  n: 1\n"),
            (".markdownlint.json", "{\"MD013\": false}\n"),
        ],
    );
    std::os::unix::fs::symlink(outside.path.join("secret.yaml"), dir.path.join("leak.yaml")).unwrap();
    std::os::unix::fs::symlink(dir.path.join("real/w.yaml"), dir.path.join("inside.yaml")).unwrap();
    let run = run_cli_in(&dir.path, &["check", ".", "--format", "json"], "");
    assert!(!run.stdout.contains("s3cret") && !run.stderr.contains("s3cret"), "{run:?}");
    let json: serde_json::Value = serde_json::from_str(&run.stdout).unwrap();
    let files: Vec<&str> = json["diagnostics"].as_array().unwrap().iter().map(|d| d["file"].as_str().unwrap()).collect();
    assert_eq!(files, ["inside.yaml", "real/w.yaml"], "the link inside is followed: {run:?}");
    assert_eq!(
        json["summary"]["notes"],
        serde_json::json!([
            "1 hidden file was skipped: .markdownlint.json; name one as a path to check it",
            "not read: leak.yaml, a symbolic link that leads outside the directory checked; name it as a path to check it"
        ])
    );
    let named = run_cli_in(&dir.path, &["check", "leak.yaml", "--format", "json"], "");
    assert!(named.stdout.contains("leak.yaml"), "{named:?}");
}

#[test]
fn missing_path_is_a_usage_error() {
    let run = run_cli(&["check", "does/not/exist.yaml"], "");
    assert_eq!(run.code, 2);
    assert!(run.stderr.contains("does/not/exist.yaml"), "{}", run.stderr);
    let run = run_cli(&["check", "--format", "xml", "fixtures"], "");
    assert_eq!(run.code, 2);
    assert!(run.stderr.contains("xml"), "{}", run.stderr);
}

#[test]
fn directories_are_searched_and_crds_among_paths_are_used() {
    let run = run_cli(&["check", "fixtures", "--format", "json"], "");
    assert_eq!(run.code, 1, "the fixtures hold deliberate errors");
    let json: serde_json::Value = serde_json::from_str(&run.stdout).unwrap();
    assert_eq!(json["summary"]["crdDocuments"], crd_documents_in(&repo_root().join("fixtures")));
    let files: std::collections::BTreeSet<&str> =
        json["diagnostics"].as_array().unwrap().iter().map(|d| d["file"].as_str().unwrap()).collect();
    assert!(files.contains("fixtures/resources/schema-errors.yaml"), "{files:?}");
    assert!(!files.contains("fixtures/resources/valid.yaml"), "{files:?}");
}

#[test]
fn github_and_sarif_formats() {
    let run = run_cli(&["check", "-", "--crds", "fixtures/crds", "--format", "github"], WIDGET);
    assert!(run.stdout.lines().any(|l| l.starts_with("::error file=<stdin>,line=6,col=9")), "{}", run.stdout);
    let run = run_cli(&["check", "-", "--crds", "fixtures/crds", "--format", "sarif"], WIDGET);
    let sarif: serde_json::Value = serde_json::from_str(&run.stdout).unwrap();
    assert_eq!(sarif["version"], "2.1.0");
    let results = sarif["runs"][0]["results"].as_array().unwrap();
    assert!(results.iter().any(|r| r["ruleId"] == "schema/maximum" && r["level"] == "error"));
}

#[test]
fn crdls_toml_sets_crd_paths_strictness_and_severities() {
    let dir = std::env::temp_dir().join(format!("crdls-cli-config-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(dir.join("deploy/crds")).unwrap();
    std::fs::copy(crdls_tests::repo_root().join("fixtures/crds/widgets.yaml"), dir.join("deploy/crds/widgets.yaml")).unwrap();
    std::fs::write(dir.join("widget.yaml"), WIDGET).unwrap();
    std::fs::write(dir.join("crdls.toml"), "crdPaths = [\"deploy/**/*.yaml\"]\nstrict = true\n[severity]\n\"schema/maximum\" = \"off\"\n")
        .unwrap();
    let run = crdls_tests::run_cli_in(&dir, &["check", "widget.yaml", "--format", "json"], "");
    let json: serde_json::Value = serde_json::from_str(&run.stdout).unwrap_or_else(|e| panic!("{e}: {run:?}"));
    let codes: Vec<(&str, &str)> =
        json["diagnostics"].as_array().unwrap().iter().map(|d| (d["code"].as_str().unwrap(), d["severity"].as_str().unwrap())).collect();
    assert_eq!(codes, [("schema/unknown-field", "error")], "{run:?}");
    assert_eq!(run.code, 1);
    std::fs::write(dir.join("crdls.toml"), "strict = maybe\n").unwrap();
    let run = crdls_tests::run_cli_in(&dir, &["check", "widget.yaml"], "");
    assert_eq!(run.code, 2);
    assert!(run.stderr.contains("crdls.toml"), "{}", run.stderr);
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn fix_rewrites_only_clear_mistakes_and_reports_the_rest() {
    let dir = std::env::temp_dir().join(format!("crdls-cli-fix-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::copy(crdls_tests::repo_root().join("fixtures/crds/widgets.yaml"), dir.join("widgets.yaml")).unwrap();
    let before = "apiVersion: demo.crdls.dev/v1\nkind: Widget\nmetadata:\n  name: w\nspec:\n  size: 3\n  owner: team-a\n  tier: Gold\n  tiers: x\n  ratio: \"0.5\"\n---\napiVersion: demo.crdls.dev/v1\nkind: Widget\nmetadata:\n  name: v\nspec:\n  size: 30\n";
    std::fs::write(dir.join("widget.yaml"), before).unwrap();
    let run = crdls_tests::run_cli_in(&dir, &["check", "widget.yaml", "--crds", "widgets.yaml", "--fix", "--format", "json"], "");
    let after = std::fs::read_to_string(dir.join("widget.yaml")).unwrap();
    // `tier: Gold` and `ratio: "0.5"` are fixed; the unknown `tiers` has no clear meaning (`tier` is
    // taken) and stays, as do the missing owner and the size out of bounds of the second document.
    assert_eq!(after, before.replace("tier: Gold", "tier: gold").replace("ratio: \"0.5\"", "ratio: 0.5"));
    assert_eq!(
        run.stderr,
        "fixed widget.yaml:8:9: `Gold` -> `gold`\nfixed widget.yaml:10:10: `\"0.5\"` -> `0.5`\ncrdls: made 2 fixes in 1 file\n"
    );
    let json: serde_json::Value = serde_json::from_str(&run.stdout).unwrap_or_else(|e| panic!("{e}: {run:?}"));
    let codes: Vec<&str> = json["diagnostics"].as_array().unwrap().iter().map(|d| d["code"].as_str().unwrap()).collect();
    assert_eq!(codes, ["schema/unknown-field", "schema/required", "schema/maximum"], "{run:?}");
    assert_eq!(run.code, 1);
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn old_versions_run_transition_rules_and_ratchet_unchanged_values() {
    let dir = std::env::temp_dir().join(format!("crdls-cli-old-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    for crd in ["scalers.yaml", "widgets.yaml"] {
        std::fs::copy(crdls_tests::repo_root().join("fixtures/crds").join(crd), dir.join(crd)).unwrap();
    }
    let old = "apiVersion: autoscale.crdls.dev/v1\nkind: Scaler\nmetadata: {name: scaler-a}\nspec: {replicas: 3, maxReplicas: 5, window: 30s, owner: team-a}\n---\napiVersion: demo.crdls.dev/v1\nkind: Widget\nmetadata: {name: w}\nspec: {size: 15, owner: team-a}\n";
    let new = old.replace("owner: team-a}\n---", "owner: team-b}\n---");
    std::fs::write(dir.join("old.yaml"), old).unwrap();
    std::fs::write(dir.join("app.yaml"), &new).unwrap();
    let codes = |run: &crdls_tests::CliRun| -> Vec<(String, String, String)> {
        let json: serde_json::Value = serde_json::from_str(&run.stdout).unwrap_or_else(|e| panic!("{e}: {run:?}"));
        json["diagnostics"]
            .as_array()
            .unwrap()
            .iter()
            .map(|d| (d["code"].as_str().unwrap().into(), d["severity"].as_str().unwrap().into(), d["message"].as_str().unwrap().into()))
            .collect()
    };
    let crds = ["--crds", "scalers.yaml", "--crds", "widgets.yaml", "--format", "json"];
    // As a create: no transition rule runs, every invalid value is an error.
    let created = crdls_tests::run_cli_in(&dir, &[&["check", "app.yaml"][..], &crds].concat(), "");
    let created = codes(&created);
    assert!(created.iter().any(|(c, s, _)| c == "cel/rule" && s == "error"), "{created:?}");
    assert!(created.iter().any(|(c, _, _)| c == "schema/maximum"), "{created:?}");
    assert!(!created.iter().any(|(_, _, m)| m.contains("immutable")), "{created:?}");
    // As an update of old.yaml: the owner change breaks the transition rule; the unchanged window only
    // warns, and the unchanged widget size is let through.
    let updated = crdls_tests::run_cli_in(&dir, &[&["check", "app.yaml", "--old", "old.yaml"][..], &crds].concat(), "");
    let updated = codes(&updated);
    assert_eq!(
        updated,
        [
            (
                "cel/rule".to_string(),
                "warning".to_string(),
                "the window must be at least a minute (unchanged from the old object: the API server lets it through with a warning)"
                    .to_string()
            ),
            ("cel/rule".to_string(), "error".to_string(), "owner is immutable".to_string()),
        ]
    );
    // The same update, with the old version taken from git.
    let git = |args: &[&str]| {
        std::process::Command::new("git").arg("-C").arg(&dir).args(args).output().map(|o| o.status.success()).unwrap_or(false)
    };
    if git(&["init", "-q"]) {
        std::fs::write(dir.join("app.yaml"), old).unwrap();
        assert!(git(&["add", "app.yaml"]));
        assert!(git(&["-c", "user.name=t", "-c", "user.email=t@e", "commit", "-qm", "old"]));
        std::fs::write(dir.join("app.yaml"), &new).unwrap();
        let from_git = crdls_tests::run_cli_in(&dir, &[&["check", "app.yaml", "--old", "git:HEAD"][..], &crds].concat(), "");
        assert_eq!(codes(&from_git), updated);
    } else {
        crdls_tests::announce_skip(crdls_tests::Missing::Git, Some("the update with --old git:HEAD"));
    }
    let _ = std::fs::remove_dir_all(&dir);
}

/// How many documents under `dir` declare themselves CRDs, counted from the text.
fn crd_documents_in(dir: &std::path::Path) -> usize {
    let mut count = 0;
    for entry in std::fs::read_dir(dir).unwrap() {
        let path = entry.unwrap().path();
        // A chart's templates are counted as templates, whatever they define.
        if path.is_dir() && path.ends_with("templates") && dir.join("Chart.yaml").is_file() {
            continue;
        }
        if path.is_dir() {
            count += crd_documents_in(&path);
        } else {
            let text = std::fs::read_to_string(&path).unwrap_or_default();
            count += text
                .lines()
                .filter(|l| {
                    l.trim() == "kind: CustomResourceDefinition"
                        || l.trim().trim_end_matches(',') == "\"kind\": \"CustomResourceDefinition\""
                })
                .count();
        }
    }
    count
}

/// `crdls cost` on the CRD page's examples: the table, the unbounded nodes behind the rules over the
/// limit, the totals per version, and exit code 1 since two of the CRDs would be rejected.
#[test]
fn cost_command_prints_every_rule_against_the_limits() {
    let run = run_cli(&["cost", "fixtures/crd-errors/cost.yaml"], "");
    assert_eq!(run.code, 1, "{}{}", run.stdout, run.stderr);
    expect_test::expect_file![repo_root().join("tests/snapshots/cost-command.txt")].assert_eq(&run.stdout);

    let run = run_cli(&["cost", "fixtures/crd-errors/cost.yaml", "--format", "json"], "");
    let json: serde_json::Value = serde_json::from_str(&run.stdout).unwrap();
    assert_eq!(json["summary"]["rules"], 6);
    assert_eq!(json["summary"]["rulesOverLimit"], 2);
    let unbounded = &json["crds"][0]["schemas"][0];
    assert_eq!(unbounded["versions"], serde_json::json!(["v1"]));
    assert_eq!(unbounded["overLimit"], true);
    let rule = &unbounded["rules"][0];
    assert_eq!(rule["cost"], 329_857_577_777u64);
    assert_eq!(rule["cardinality"], 1);
    assert_eq!(rule["schemaPath"], ".unbounded");
    let missing: Vec<&str> = rule["unbounded"].as_array().unwrap().iter().map(|u| u["missing"].as_str().unwrap()).collect();
    assert_eq!(missing, ["maxLength", "maxItems"]);
    let ints = &json["crds"][3]["schemas"][0]["rules"][0];
    assert_eq!((ints["total"].as_u64(), ints["overLimit"].as_bool()), (Some(6_291_454), Some(false)));

    // The shipped CRDs are all within the limits.
    let run = run_cli(&["cost", "fixtures/crds"], "");
    assert_eq!(run.code, 0, "{}", run.stdout);
}

#[test]
fn diff_shows_the_fixes_without_writing() {
    let widget = "apiVersion: demo.crdls.dev/v1\nkind: Widget\nmetadata:\n  name: w\nspec:\n  size: 3\n  owner: team-a\n  tier: Gold\n";
    let tree = TempTree::new("cli-diff", &[("widget.yaml", widget)]);
    let crds = repo_root().join("fixtures/crds");
    let run = run_cli_in(&tree.path, &["check", "widget.yaml", "--crds", crds.to_str().unwrap(), "--diff"], "");
    assert_eq!(run.code, 1, "{run:?}");
    assert_eq!(
        run.stdout,
        "--- a/widget.yaml\n+++ b/widget.yaml\n@@ -5,4 +5,4 @@\n spec:\n   size: 3\n   owner: team-a\n-  tier: Gold\n+  tier: gold\n"
    );
    assert_eq!(tree.read("widget.yaml"), widget, "--diff writes nothing");
    let clean = widget.replace("Gold", "gold");
    tree.write("widget.yaml", &clean);
    let run = run_cli_in(&tree.path, &["check", "widget.yaml", "--crds", crds.to_str().unwrap(), "--diff"], "");
    assert_eq!((run.code, run.stdout.as_str()), (0, ""), "{run:?}");
}

#[test]
fn a_run_that_finds_nothing_says_so_and_can_fail() {
    let tree = TempTree::new("cli-empty", &[("README.md", "# not YAML\n")]);
    let run = run_cli_in(&tree.path, &["check", "."], "");
    assert_eq!(run.code, 0, "{run:?}");
    assert!(run.stdout.contains("note: no YAML or JSON file was found to check"), "{}", run.stdout);
    let run = run_cli_in(&tree.path, &["check", ".", "--fail-unchecked"], "");
    assert_eq!(run.code, 1, "{run:?}");
    let run = run_cli_in(&tree.path, &["check", "-", "--format", "json"], "# only a comment\n");
    let json: serde_json::Value = serde_json::from_str(&run.stdout).unwrap();
    assert_eq!(json["summary"]["notes"], serde_json::json!(["the files hold no YAML document to check"]));
}

/// A JSON stream of several values (`jq -c`, `mongoexport`) is read value by value, as kubectl reads
/// it: objects in it are checked, and a data dump without apiVersion and kind is no error.
#[test]
fn json_streams_are_read_value_by_value() {
    let stream = "{\"apiVersion\": \"v1\", \"kind\": \"ConfigMap\", \"metadata\": {\"name\": \"a\"}}\n{\"apiVersion\": \"v1\", \"kind\": \"ConfigMap\", \"metadata\": {\"name\": \"B\"}}\n";
    let run = run_cli(&["check", "-", "--format", "json"], stream);
    let json: serde_json::Value = serde_json::from_str(&run.stdout).unwrap();
    assert_eq!(json["summary"]["documents"], 2, "{run:?}");
    let codes: Vec<&str> = json["diagnostics"].as_array().unwrap().iter().map(|d| d["code"].as_str().unwrap()).collect();
    assert_eq!(codes, ["metadata/name"], "{run:?}");
    let dump = std::fs::read_to_string(repo_root().join("fixtures/projects/not-kubernetes/dump.json")).unwrap();
    let run = run_cli(&["check", "-"], &dump);
    assert_eq!(run.code, 0, "{run:?}");
    assert!(run.stdout.contains("nothing was checked: none of the 2 documents is a Kubernetes object"), "{}", run.stdout);
}

/// `includeTestdata = true` in crdls.toml walks test material, as `--include-testdata` does.
#[test]
fn include_testdata_in_crdls_toml() {
    let input = std::fs::read_to_string(repo_root().join("fixtures/projects/goldens/testdata/invalid-input.yaml")).unwrap();
    let tree = TempTree::new("cli-testdata", &[("pkg/testdata/input.yaml", &input), ("pkg/out.golden.yaml", "kind: Deployment\n")]);
    let run = run_cli_in(&tree.path, &["check", ".", "--format", "json"], "");
    assert_eq!(run.code, 0, "{run:?}");
    let json: serde_json::Value = serde_json::from_str(&run.stdout).unwrap();
    assert_eq!(json["summary"]["files"], 0, "{run:?}");
    tree.write("crdls.toml", "includeTestdata = true\n");
    let run = run_cli_in(&tree.path, &["check", ".", "--format", "json"], "");
    assert_eq!(run.code, 1, "{run:?}");
    let json: serde_json::Value = serde_json::from_str(&run.stdout).unwrap();
    assert_eq!(json["summary"]["files"], 2, "{run:?}");
    let files: std::collections::BTreeSet<&str> =
        json["diagnostics"].as_array().unwrap().iter().map(|d| d["file"].as_str().unwrap()).collect();
    assert_eq!(files, std::collections::BTreeSet::from(["pkg/testdata/input.yaml"]), "the golden is a partial object: {run:?}");
}

/// A plain manifest below a test directory of the working directory is a test input: what it leaves out
/// is not reported, what it writes is; the summary says so, `--verbose` names the directory, and
/// `--whole-test-inputs` (or `wholeTestInputs = true`) checks it whole. A named file there is a test
/// input too; a project that itself lives below a `tests` directory loses nothing.
#[test]
fn test_inputs_are_checked_for_what_they_write() {
    let linter_input = "apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: only-annotated\n  annotations: {check: \"true\"}\n---\napiVersion: v1\nkind: Service\nmetadata: {name: s}\nspec:\n  ports:\n  - port: 0\n";
    let tree = TempTree::new("cli-test-inputs", &[("proj/tests/checks/input.yaml", linter_input), ("proj/deploy/app.yaml", linter_input)]);
    let proj = tree.path.join("proj");
    let files_with = |run: &crdls_tests::CliRun, code: &str| -> std::collections::BTreeSet<String> {
        let json: serde_json::Value = serde_json::from_str(&run.stdout).unwrap();
        json["diagnostics"]
            .as_array()
            .unwrap()
            .iter()
            .filter(|d| d["code"] == code)
            .map(|d| d["file"].as_str().unwrap().to_string())
            .collect()
    };
    let run = run_cli_in(&proj, &["check", ".", "--format", "json"], "");
    assert_eq!(files_with(&run, "schema/required"), std::collections::BTreeSet::from(["deploy/app.yaml".to_string()]), "{run:?}");
    assert_eq!(files_with(&run, "native/port").len(), 2, "what a test input writes is checked: {run:?}");
    let json: serde_json::Value = serde_json::from_str(&run.stdout).unwrap();
    let notes = json["summary"]["notes"].to_string();
    assert!(
        notes.contains("1 file below 1 test directory (tests) was read as test inputs") && notes.contains("--whole-test-inputs"),
        "{notes}"
    );
    // Named as a path, it is still a test input.
    let run = run_cli_in(&proj, &["check", "tests/checks/input.yaml", "--format", "json"], "");
    assert!(files_with(&run, "schema/required").is_empty(), "{run:?}");
    // --verbose names the test directory.
    let run = run_cli_in(&proj, &["check", ".", "--verbose", "--color", "never"], "");
    assert!(run.stderr.contains("read as test inputs: 1 file in tests"), "{}", run.stderr);
    // Whole when asked, by flag or in crdls.toml.
    let run = run_cli_in(&proj, &["check", ".", "--format", "json", "--whole-test-inputs"], "");
    assert_eq!(files_with(&run, "schema/required").len(), 2, "{run:?}");
    tree.write("proj/crdls.toml", "wholeTestInputs = true\n");
    let run = run_cli_in(&proj, &["check", ".", "--format", "json"], "");
    assert_eq!(files_with(&run, "schema/required").len(), 2, "{run:?}");
    // A project that lives below a `tests` directory: checked from its own root, nothing is a test input.
    let run = run_cli_in(&proj.join("tests/checks"), &["check", ".", "--format", "json"], "");
    assert_eq!(files_with(&run, "schema/required"), std::collections::BTreeSet::from(["input.yaml".to_string()]), "{run:?}");
}

/// The human report counts the objects no known CRD serves instead of showing each; --verbose shows
/// each, and the machine formats always list them.
#[test]
fn verbose_shows_each_object_no_crd_serves() {
    let stream =
        "apiVersion: a.example.com/v1\nkind: A\nmetadata: {name: a}\n---\napiVersion: b.example.com/v1\nkind: B\nmetadata: {name: b}\n";
    let run = run_cli(&["check", "-", "--color", "never"], stream);
    assert!(!run.stdout.contains("info[resource/no-crd]"), "{}", run.stdout);
    assert!(
        run.stdout.contains(
            "note: 2 objects of groups no known CRD serves are not shown one by one (resource/no-crd information); --verbose shows each"
        ),
        "{}",
        run.stdout
    );
    let run = run_cli(&["check", "-", "--color", "never", "--verbose"], stream);
    assert_eq!(run.stdout.matches("info[resource/no-crd]").count(), 2, "{}", run.stdout);
    let run = run_cli(&["check", "-", "--format", "github"], stream);
    assert_eq!(run.stdout.matches("resource/no-crd").count(), 2, "{}", run.stdout);
}

#[test]
fn unvalidated_objects_are_counted_by_group_and_can_fail() {
    let stream = "apiVersion: argoproj.io/v1alpha1\nkind: Rollout\nmetadata: {name: r}\n---\napiVersion: v1\nkind: ConfigMap\nmetadata: {name: d}\n---\n".to_string()
        + WIDGET.replace("size: 11", "size: 1").replace("  extra: 1\n", "").as_str();
    let run = run_cli(&["check", "-", "--crds", "fixtures/crds", "--format", "json"], &stream);
    assert_eq!(run.code, 0, "{run:?}");
    let json: serde_json::Value = serde_json::from_str(&run.stdout).unwrap();
    let summary = &json["summary"];
    let counts = ["validated", "builtinValidated", "builtin", "unchecked"].map(|k| summary[k].as_u64());
    assert_eq!(counts, [Some(1), Some(1), Some(0), Some(1)]);
    assert_eq!(summary["uncheckedByGroup"], serde_json::json!({"argoproj.io": 1}));
    let run = run_cli(&["check", "-", "--crds", "fixtures/crds", "--fail-unchecked"], &stream);
    assert_eq!(run.code, 1, "{run:?}");
    assert!(run.stdout.contains("error[resource/no-crd]"), "{}", run.stdout);
    assert!(run.stdout.contains("not validated, no schema known: 1 object (argoproj.io 1)"), "{}", run.stdout);
}

#[test]
fn skipped_hidden_directories_and_shadowed_crds_are_noted() {
    let widgets = std::fs::read_to_string(repo_root().join("fixtures/crds/widgets.yaml")).unwrap();
    let tree = TempTree::new(
        "cli-notes",
        &[("deploy/crd.yaml", &widgets), (".chainsaw-test/assert.yaml", "kind: X\n"), (".github/workflows/ci.yaml", "on: push\n")],
    );
    let crds = repo_root().join("fixtures/crds");
    let run = run_cli_in(&tree.path, &["check", ".", "--crds", crds.to_str().unwrap(), "--format", "json"], "");
    let json: serde_json::Value = serde_json::from_str(&run.stdout).unwrap_or_else(|e| panic!("{e}: {run:?}"));
    let notes: Vec<String> =
        json["summary"]["notes"].as_array().unwrap().iter().map(|n| n.as_str().unwrap().replace(crds.to_str().unwrap(), "CRDS")).collect();
    assert_eq!(
        notes,
        [
            "2 hidden directories were skipped: .chainsaw-test, .github; name one as a path to check it",
            "CRD widgets.demo.crdls.dev is defined in 2 places (deploy/crd.yaml, --crds CRDS/widgets.yaml): each object uses one that serves its version, the nearest to its file first (--verbose names it)",
        ]
    );
    // A hidden directory named as a path is checked, and no longer noted as skipped.
    let run = run_cli_in(&tree.path, &["check", ".", ".chainsaw-test", "--format", "json"], "");
    let json: serde_json::Value = serde_json::from_str(&run.stdout).unwrap_or_else(|e| panic!("{e}: {run:?}"));
    assert_eq!(json["summary"]["notes"][0], "1 hidden directory was skipped: .github; name one as a path to check it");
}

/// A CRD defined twice: an old test fixture (found first) serves only v1alpha2, the current one v1.
/// Objects of v1 use the current one, with no "does not declare version" error, objects of v1alpha2
/// the old one; of two that serve the version the nearest wins; `--verbose` says which was used.
#[test]
fn each_object_uses_the_nearest_definition_that_serves_its_version() {
    let crd = |version: &str, maximum: u32| {
        format!(
            "apiVersion: apiextensions.k8s.io/v1\nkind: CustomResourceDefinition\nmetadata: {{name: gadgets.example.com}}\nspec:\n  \
             group: example.com\n  scope: Namespaced\n  names: {{kind: Gadget, plural: gadgets}}\n  versions:\n  - name: {version}\n    \
             served: true\n    storage: true\n    schema:\n      openAPIV3Schema:\n        type: object\n        properties:\n          \
             spec: {{type: object, properties: {{size: {{type: integer, maximum: {maximum}}}}}}}\n"
        )
    };
    let gadget = |version: &str, size: u32| {
        format!("apiVersion: example.com/{version}\nkind: Gadget\nmetadata: {{name: g}}\nspec: {{size: {size}}}\n")
    };
    let tree = TempTree::new(
        "cli-definitions",
        &[
            ("api/testing/crd.yaml", &crd("v1alpha2", 10)),
            ("config/crd/gadgets.yaml", &crd("v1", 10)),
            ("config/samples/gadget.yaml", &gadget("v1", 5)),
            ("config/samples/old.yaml", &gadget("v1alpha2", 5)),
            ("examples/crd.yaml", &crd("v1", 100)),
            ("examples/big.yaml", &gadget("v1", 50)),
            ("deploy/big.yaml", &gadget("v1", 50)),
        ],
    );
    let run = run_cli_in(&tree.path, &["check", ".", "--format", "json", "--verbose"], "");
    let json: serde_json::Value = serde_json::from_str(&run.stdout).unwrap_or_else(|e| panic!("{e}: {run:?}"));
    let found: Vec<(String, String)> = json["diagnostics"]
        .as_array()
        .unwrap()
        .iter()
        .map(|d| (d["file"].as_str().unwrap().to_string(), d["code"].as_str().unwrap().to_string()))
        .collect();
    // deploy/ shares no directory with either v1 definition: the shallower, examples/crd.yaml, is used.
    assert_eq!(found, [], "{run:?}");
    assert_eq!((json["summary"]["validated"].as_u64(), json["summary"]["unchecked"].as_u64()), (Some(4), Some(0)), "{run:?}");
    let run = run_cli_in(&tree.path, &["check", "config/samples", "examples/crd.yaml", "api", "config/crd", "--verbose"], "");
    assert_eq!(run.code, 0, "{run:?}");
    let choices: Vec<&str> = run.stderr.lines().filter(|l| l.contains(" uses CRD ")).collect();
    assert_eq!(
        choices,
        [
            "crdls: config/samples/gadget.yaml:1: Gadget example.com/v1 uses CRD gadgets.example.com in config/crd/gadgets.yaml; \
             examples/crd.yaml is farther from the file; api/testing/crd.yaml does not declare v1",
            "crdls: config/samples/old.yaml:1: Gadget example.com/v1alpha2 uses CRD gadgets.example.com in api/testing/crd.yaml; \
             config/crd/gadgets.yaml and examples/crd.yaml do not declare v1alpha2",
        ],
        "{run:?}"
    );
    // A file checked alone sees only the definitions given with it.
    let run = run_cli_in(&tree.path, &["check", "deploy/big.yaml", "config/crd/gadgets.yaml", "api/testing/crd.yaml"], "");
    assert_eq!(run.code, 1, "{run:?}");
    assert!(run.stdout.contains("error[schema/maximum]"), "{run:?}");
    assert!(!run.stdout.contains("unknown-version"), "{run:?}");
}

#[test]
fn a_reader_that_stops_early_ends_the_run_quietly() {
    use std::io::{Read, Write};
    // Thousands of errors make a report far larger than a pipe holds, so the reader surely leaves first.
    let stream = format!("---\n{WIDGET}").repeat(5000);
    let mut child = std::process::Command::new(crdls_binary())
        .args(["check", "-", "--crds", "fixtures/crds", "--color", "never"])
        .current_dir(repo_root())
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .expect("the binary starts");
    let mut stdin = child.stdin.take().unwrap();
    let writer = std::thread::spawn(move || stdin.write_all(stream.as_bytes()));
    let mut first = [0u8; 64];
    child.stdout.take().unwrap().read_exact(&mut first).unwrap();
    // The read end is closed here, as `head` closes it.
    let output = child.wait_with_output().unwrap();
    writer.join().unwrap().unwrap();
    assert_eq!(String::from_utf8_lossy(&output.stderr), "", "nothing about the broken pipe");
    assert_eq!(output.status.code(), Some(1), "the exit code still says errors were found");
}

#[test]
fn rendered_charts_are_reported_against_their_templates() {
    let args = |format: &str| ["check", "-", "--crds", "fixtures/crds", "--color", "never", "--format", format].map(str::to_string);
    let rendered = std::fs::read_to_string(repo_root().join("fixtures/projects/rendered/widgets.yaml")).unwrap();
    let run = |format: &str| run_cli(&args(format).iter().map(String::as_str).collect::<Vec<_>>(), &rendered);
    let template = "fixtures/projects/chart/templates/widget.yaml";

    let human = run("human");
    assert_eq!(human.code, 1, "{human:?}");
    // The template is found through the chart's name, and the field's line in it.
    assert!(human.stdout.contains(&format!(" --> {template}:12:")), "{}", human.stdout);
    assert!(human.stdout.contains("= rendered: <stdin>:11:9"), "{}", human.stdout);
    assert!(human.stdout.contains(&format!(" --> {template}:19:3")), "{}", human.stdout);
    // A template that is not on disk is named as the Source line gives it.
    assert!(human.stdout.contains("= template: widgets/templates/gone.yaml"), "{}", human.stdout);

    let github = run("github");
    assert!(github.stdout.contains(&format!("::error file={template},line=12,")), "{}", github.stdout);
    assert!(github.stdout.contains("::error file=widgets/templates/gone.yaml,title=schema/maximum::"), "{}", github.stdout);

    let json: serde_json::Value = serde_json::from_str(&run("json").stdout).unwrap();
    let first = &json["diagnostics"][0];
    assert_eq!((first["file"].as_str(), first["range"]["start"]["line"].as_u64()), (Some("<stdin>"), Some(11)));
    assert_eq!(first["template"]["file"], template);
    assert_eq!(first["template"]["range"]["start"]["line"], 12);
    let gone = json["diagnostics"].as_array().unwrap().iter().find(|d| d["template"]["file"] == "widgets/templates/gone.yaml").unwrap();
    assert_eq!(gone["template"]["range"], serde_json::Value::Null);

    let sarif: serde_json::Value = serde_json::from_str(&run("sarif").stdout).unwrap();
    let location = &sarif["runs"][0]["results"][0]["locations"][0]["physicalLocation"];
    assert_eq!(location["artifactLocation"]["uri"], template);
    assert_eq!(location["region"]["startLine"], 12);
    assert_eq!(sarif["runs"][0]["results"][0]["properties"]["rendered"], "<stdin>:11:9");
}

/// A `# Source:` line is the repository's text like any other: one that leads out of the working
/// directory (`../..`, an absolute path, a symbolic link) is not read, so the lines of a kubeconfig
/// cannot be printed through a field path crafted to land on its token.
#[cfg(unix)]
#[test]
fn rendered_sources_outside_the_working_directory_are_not_read() {
    let crd = "apiVersion: apiextensions.k8s.io/v1\nkind: CustomResourceDefinition\nmetadata:\n  name: leaks.leak.dev\nspec:\n  group: leak.dev\n  scope: Namespaced\n  names: {kind: Leak, plural: leaks}\n  versions:\n  - name: v1\n    served: true\n    storage: true\n    schema:\n      openAPIV3Schema:\n        type: object\n        properties:\n          users:\n            type: array\n            items:\n              type: object\n              properties:\n                user:\n                  type: object\n                  properties:\n                    token: {type: integer}\n";
    let kubeconfig = "apiVersion: v1\nkind: Config\nusers:\n- name: me\n  user:\n    token: s3cret-token\n";
    let outside = TempTree::new("cli-rendered-outside", &[("kube/config", kubeconfig)]);
    let dir = TempTree::new("cli-rendered-inside", &[("crds/leak.yaml", crd), ("chart/Chart.yaml", "name: web\n")]);
    std::os::unix::fs::symlink(outside.path.join("kube/config"), dir.path.join("chart/link.yaml")).unwrap();
    let object = "apiVersion: leak.dev/v1\nkind: Leak\nmetadata:\n  name: l\nusers:\n- user:\n    token: \"x\"\n";
    let relative = format!("../crdls-cli-rendered-outside-{}/kube/config", std::process::id());
    for source in [relative.as_str(), &outside.path.join("kube/config").display().to_string(), "chart/link.yaml", "web/link.yaml"] {
        let rendered = format!("---\n# Source: {source}\n{object}");
        let run = run_cli_in(&dir.path, &["check", "-", "--crds", "crds", "--color", "never"], &rendered);
        assert_eq!(run.code, 1, "{run:?}");
        assert!(run.stdout.contains("users[0].user.token: Invalid value"), "{source}: {run:?}");
        assert!(!run.stdout.contains("s3cret") && !run.stderr.contains("s3cret"), "{source}: {run:?}");
    }
}

#[test]
fn the_documented_examples_run() {
    let page = std::fs::read_to_string(repo_root().join("docs/src/check.md")).unwrap();
    let block = page.split("Examples, all runnable from the repository's root").nth(1).expect("the examples paragraph");
    let block = block.split("```sh\n").nth(1).and_then(|b| b.split("```").next()).expect("a sh block");
    let mut ran = 0;
    for line in block.lines().filter(|l| !l.trim().is_empty()) {
        let args: Vec<&str> = line.split_whitespace().collect();
        assert_eq!(args[0], "crdls", "every example is a crdls command: {line}");
        let run = run_cli(&args[1..], "");
        assert!(run.code == 0 || run.code == 1, "{line}: {run:?}");
        assert_eq!(run.stderr, "", "{line}");
        ran += 1;
    }
    assert!(ran >= 5, "the examples were found");
}

#[test]
fn explain_lists_every_code_and_documents_each() {
    let run = run_cli(&["explain"], "");
    assert_eq!(run.code, 0, "{run:?}");
    assert_eq!(run.stdout.lines().count(), crdls_diagnostics::codes::ALL.len());
    assert!(run.stdout.lines().any(|l| l.starts_with("schema/required") && l.contains("error")), "{}", run.stdout);
    let run = run_cli(&["explain", "schema/unknown-field"], "");
    assert_eq!(run.code, 0, "{run:?}");
    assert!(run.stdout.starts_with("schema/unknown-field (warning by default)\n"), "{}", run.stdout);
    assert!(run.stdout.contains("Fix:"), "{}", run.stdout);
    let run = run_cli(&["explain", "schema/unknwon-field"], "");
    assert_eq!(run.code, 2, "{run:?}");
    assert_eq!(
        run.stderr,
        "crdls: no diagnostic code schema/unknwon-field; did you mean schema/unknown-field? (`crdls explain` lists them)\n"
    );
}

#[test]
fn a_misspelt_code_in_the_severity_table_is_reported() {
    let tree =
        TempTree::new("cli-bad-severity", &[("crdls.toml", "[severity]\n\"schema/unknwon-field\" = \"off\"\n"), ("a.yaml", "a: 1\n")]);
    let run = run_cli_in(&tree.path, &["check", "a.yaml"], "");
    assert_eq!(run.code, 2, "{run:?}");
    assert!(run.stderr.contains("no diagnostic code \"schema/unknwon-field\"; did you mean \"schema/unknown-field\"?"), "{}", run.stderr);
}

/// A minified one-line Widget of about a megabyte: an error near the start (`size`), two thousand unknown
/// fields whose values mix ASCII, Japanese (two columns a character) and tabs, and an error at the very end
/// (`tier`). Before long lines were windowed, the human report printed the whole line for each of its
/// 2,002 problems: two gigabytes.
fn one_line_widget() -> String {
    let mut line =
        String::from(r#"{"apiVersion":"demo.crdls.dev/v1","kind":"Widget","metadata":{"name":"w"},"spec":{"size":15,"owner":"team-a""#);
    for i in 0..2000 {
        let filler = format!("{}\t{}", "日本語のテキスト".repeat(20), "ascii text ".repeat(20));
        line.push_str(&format!(r#","u{i:04}":"{filler}""#));
    }
    line.push_str(r#","tier":"platinum"}}"#);
    line
}

#[test]
fn long_lines_show_a_window_around_each_problem() {
    let text = one_line_widget();
    assert!(text.len() > 1_000_000 && !text.contains('\n'));
    let run = run_cli(&["check", "-", "--crds", "fixtures/crds", "--color", "never"], &text);
    assert_eq!(run.code, 1, "{}", run.stderr);
    let reports: Vec<&str> = run.stdout.split("\n\n").collect();
    assert_eq!(reports.len(), 2003, "2,002 problems and the summary");
    assert!(run.stdout.len() < 2003 * 600, "each problem takes a few hundred bytes, not the line: {} bytes", run.stdout.len());
    // The first problems, one from the middle, the last, and the summary.
    let shown = [&reports[..3], &reports[1001..1002], &reports[2001..]].concat().join("\n\n");
    expect_test::expect_file![repo_root().join("tests/snapshots/long-line.txt")].assert_eq(&shown);
}

#[test]
fn documents_nested_200_000_deep_are_reported_not_a_crash() {
    // Block sequences and block mappings (explicit keys) nested 200,000 deep, one a document, checked
    // by the real binary: a stack overflow would abort it rather than fail a test.
    let seq = format!("{}1\n", "- ".repeat(200_000));
    let map = format!("{}k\n", "? ".repeat(200_000));
    let tree = TempTree::new("cli-deep", &[("seq.yaml", &seq), ("map.yaml", &map)]);
    let output = std::process::Command::new(crdls_binary())
        .args(["check", "seq.yaml", "map.yaml", "--format", "json"])
        .current_dir(&tree.path)
        .output()
        .expect("crdls runs");
    assert_eq!(output.status.code(), Some(1), "{output:?}");
    let json: serde_json::Value = serde_json::from_slice(&output.stdout).expect("JSON output");
    let found: Vec<String> =
        json["diagnostics"].as_array().unwrap().iter().map(|d| format!("{} {} {}", d["file"], d["code"], d["cause"])).collect();
    assert_eq!(
        found,
        [
            r#""seq.yaml" "yaml/too-deep" "yaml: exceeded max depth of 10000""#,
            r#""map.yaml" "yaml/too-deep" "yaml: exceeded max depth of 10000""#
        ]
    );
}

#[test]
fn a_long_enum_is_listed_briefly_in_messages_and_whole_in_the_cause() {
    // 100,000 values: the message names ten and counts the rest; the cause is the API server's
    // NotSupported detail, which lists every value.
    let values: Vec<String> = (0..100_000).map(|i| format!("v{i}")).collect();
    let crd = crdls_test_fixture::Crd::new("Widget")
        .schema(&format!(
            "type: object\nproperties:\n  spec:\n    type: object\n    properties:\n      tier: {{type: string, enum: [{}]}}\n",
            values.join(", ")
        ))
        .yaml();
    let cr = "apiVersion: demo.crdls.dev/v1\nkind: Widget\nmetadata:\n  name: w\nspec:\n  tier: gold\n";
    let tree = TempTree::new("cli-long-enum", &[("crd.yaml", &crd), ("cr.yaml", cr)]);
    let run = run_cli_in(&tree.path, &["check", "cr.yaml", "--crds", "crd.yaml", "--format", "json"], "");
    let json: serde_json::Value = serde_json::from_str(&run.stdout).unwrap_or_else(|e| panic!("{e}: {run:?}"));
    let enum_error = &json["diagnostics"][0];
    assert_eq!(enum_error["code"], "schema/enum");
    assert_eq!(enum_error["message"], r#"must be one of "v0", "v1", "v2", "v3", "v4", "v5", "v6", "v7", "v8", "v9" … and 99,990 more"#);
    let cause = enum_error["cause"].as_str().unwrap();
    assert!(cause.starts_with(r#"spec.tier: Unsupported value: "gold": supported values: "v0", "v1", "#), "{}", &cause[..200]);
    assert!(cause.ends_with(r#""v98", "v99" … and 99,900 more"#), "{}", &cause[cause.len() - 100..]);
    assert!(run.stdout.len() < 10_000, "the report stays small: {} bytes", run.stdout.len());
}

/// A FIFO or a link to an endless device among the files of a checked directory is named and skipped,
/// not read (reading would block or never end); named on the command line, it is a usage error.
#[cfg(unix)]
#[test]
fn fifos_and_devices_are_not_read() {
    let tree = TempTree::new("cli-fifo", &[("dir/a.yaml", "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: a\n")]);
    let fifo = tree.path.join("dir/pipe.yaml");
    let made = std::process::Command::new("mkfifo").arg(&fifo).status().expect("mkfifo runs");
    assert!(made.success(), "mkfifo made {}", fifo.display());
    std::os::unix::fs::symlink("/dev/zero", tree.path.join("dir/zero.yaml")).unwrap();
    std::fs::write(tree.path.join("dir/binary.yaml"), [0xff, 0xfe, 0x00]).unwrap();
    let run = run_cli_in(&tree.path, &["check", "dir"], "");
    assert_eq!(run.code, 0, "{run:?}");
    assert!(run.stdout.contains("note: not read: dir/binary.yaml: not UTF-8 text"), "{}", run.stdout);
    assert!(run.stdout.contains("no problems in 1 file"), "{}", run.stdout);
    assert!(
        run.stdout.contains("note: not read: dir/pipe.yaml: not a regular file (a FIFO); crdls reads only regular files"),
        "{}",
        run.stdout
    );
    // A link out of the walked directory is not followed at all; named, it is refused as a device.
    assert!(
        run.stdout.contains("note: not read: dir/zero.yaml, a symbolic link that leads outside the directory checked"),
        "{}",
        run.stdout
    );
    let run = run_cli_in(&tree.path, &["check", "dir/zero.yaml"], "");
    assert_eq!(run.code, 2, "{run:?}");
    assert!(run.stderr.contains("zero.yaml: not a regular file (a device)"), "{}", run.stderr);
    let run = run_cli_in(&tree.path, &["check", "dir/pipe.yaml"], "");
    assert_eq!(run.code, 2, "{run:?}");
    assert!(run.stderr.contains("pipe.yaml: not a regular file (a FIFO)"), "{}", run.stderr);
}

/// Files are checked in parallel and reported as they are done, a bounded number at a time: with
/// more files than are in flight at once, and files of very different sizes, the report still
/// follows the files' order, and the JSON written piece by piece is one document. The CRD's kind is
/// spelled with an escape, which the first pass (that parses only files that may hold a CRD) must
/// still find.
#[test]
fn many_files_are_reported_in_their_order() {
    let widgets = std::fs::read_to_string(repo_root().join("fixtures/crds/widgets.yaml")).unwrap();
    let crd = widgets.replacen("kind: CustomResourceDefinition", "kind: \"Custom\\x52esourceDefinition\"", 1);
    assert_ne!(crd, widgets);
    let mut files = vec![("crd.yaml".to_string(), crd)];
    for i in 0..600 {
        let copies = if i % 7 == 0 { 60 } else { 1 };
        let text = vec![WIDGET.replace("name: w", &format!("name: w{i}")); copies].join("---\n");
        files.push((format!("d{}/w{i:03}.yaml", i % 3), text));
    }
    let tree = TempTree::new("cli-many", &files.iter().map(|(f, t)| (f.as_str(), t.as_str())).collect::<Vec<_>>());
    let mut expected: Vec<&str> = files.iter().skip(1).map(|(f, _)| f.as_str()).collect();
    expected.sort();

    let run = run_cli_in(&tree.path, &["check", ".", "--format", "json"], "");
    assert_eq!(run.code, 1, "{}", run.stderr);
    let json: serde_json::Value = serde_json::from_str(&run.stdout).unwrap_or_else(|e| panic!("{e}: {}", &run.stdout[..200]));
    assert_eq!(json["summary"]["files"], 601);
    let maximum: Vec<&str> = json["diagnostics"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|d| d["code"] == "schema/maximum")
        .map(|d| d["file"].as_str().unwrap())
        .collect();
    let mut in_order = maximum.clone();
    in_order.dedup();
    assert_eq!(in_order, expected, "each file once, in order, each validated against the escaped CRD");

    let human = run_cli_in(&tree.path, &["check", "."], "");
    let shown: Vec<&str> =
        human.stdout.lines().filter_map(|l| l.trim_start().strip_prefix("--> ")).map(|l| l.split(':').next().unwrap()).collect();
    let mut shown_files = shown.clone();
    shown_files.dedup();
    assert!(shown_files.ends_with(&expected), "{:?}", &shown_files[..5]);
    assert_eq!(run_cli_in(&tree.path, &["check", "."], "").stdout, human.stdout, "the same report every run");
}

#[test]
fn escape_sequences_in_input_never_reach_the_terminal() {
    // A key that writes the clipboard (OSC 52), a file name that clears the screen, and a `--crds`
    // path whose error message quotes it.
    let widget = WIDGET.replace("extra: 1", "\"x\\e]52;c;aGk=\\a\": 1");
    let tree = TempTree::new("cli-escapes", &[("w\u{1b}[2J.yaml", &widget)]);
    let crds = repo_root().join("fixtures/crds");
    let run = run_cli_in(&tree.path, &["check", ".", "--crds", crds.to_str().unwrap()], "");
    assert_eq!(run.code, 1, "{run:?}");
    assert!(!run.stdout.contains('\u{1b}') && !run.stdout.contains('\u{7}'), "{}", run.stdout);
    assert!(run.stdout.contains("w␛[2J.yaml:8:3"), "{}", run.stdout);
    assert!(run.stdout.contains("= path: spec.x␛]52;c;aGk=␇"), "{}", run.stdout);
    // The JSON report keeps the exact text (JSON escapes it).
    let run = run_cli_in(&tree.path, &["check", ".", "--crds", crds.to_str().unwrap(), "--format", "json"], "");
    let json: serde_json::Value = serde_json::from_str(&run.stdout).unwrap_or_else(|e| panic!("{e}: {run:?}"));
    assert_eq!(json["diagnostics"][1]["path"], "spec.x\u{1b}]52;c;aGk=\u{7}", "{run:?}");
    let run = run_cli_in(&tree.path, &["check", ".", "--crds", "missing\u{1b}[2J\u{9b}1m.yaml"], "");
    assert_eq!(run.code, 2, "{run:?}");
    assert!(run.stderr.contains("missing␛[2J�1m.yaml"), "{}", run.stderr);
    assert!(!run.stderr.contains('\u{1b}') && !run.stderr.contains('\u{9b}'), "{}", run.stderr);
}

#[test]
fn absolute_globs_in_crds_find_files_as_relative_ones_do() {
    let widgets = std::fs::read_to_string(repo_root().join("fixtures/crds/widgets.yaml")).unwrap();
    let tree = TempTree::new("cli-absolute-glob", &[("crds/widgets.yaml", &widgets), ("deploy/w.yaml", WIDGET)]);
    let absolute = format!("{}/crds/*.yaml", tree.path.display());
    for pattern in [absolute.as_str(), "crds/*.yaml", "./crds/**/*.yaml"] {
        let run = run_cli_in(&tree.path, &["check", "deploy", "--crds", pattern, "--format", "json"], "");
        let json: serde_json::Value = serde_json::from_str(&run.stdout).unwrap_or_else(|e| panic!("{e}: {run:?}"));
        assert_eq!(json["summary"]["validated"], 1, "{pattern}: {run:?}");
    }
}

#[cfg(unix)]
#[test]
fn fix_writes_through_a_symbolic_link() {
    let tree = TempTree::new("cli-fix-symlink", &[("real/widget.yaml", &WIDGET.replace("  extra: 1\n", "  tier: Gold\n"))]);
    std::os::unix::fs::symlink("real/widget.yaml", tree.path.join("widget.yaml")).unwrap();
    let crds = repo_root().join("fixtures/crds");
    let run = run_cli_in(&tree.path, &["check", "widget.yaml", "--crds", crds.to_str().unwrap(), "--fix"], "");
    assert!(run.stderr.starts_with("fixed widget.yaml:8:9: `Gold` -> `gold`"), "{run:?}");
    assert!(std::fs::symlink_metadata(tree.path.join("widget.yaml")).unwrap().file_type().is_symlink());
    assert!(tree.read("real/widget.yaml").contains("tier: gold"));
}

#[cfg(unix)]
#[test]
fn file_names_that_are_not_utf8_are_read_not_a_crash() {
    use std::os::unix::ffi::OsStrExt;
    let tree = TempTree::new("cli-not-utf8", &[]);
    let name = std::ffi::OsStr::from_bytes(b"w\xff.yaml");
    std::fs::write(tree.path.join(name), WIDGET).unwrap();
    let crds = repo_root().join("fixtures/crds");
    let output = std::process::Command::new(crdls_binary())
        .current_dir(&tree.path)
        .arg("check")
        .arg(name)
        .arg("--crds")
        .arg(&crds)
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&output.stdout);
    assert_eq!(output.status.code(), Some(1), "{stdout}{}", String::from_utf8_lossy(&output.stderr));
    assert!(stdout.contains("w\u{fffd}.yaml:6:9"), "{stdout}");
}

/// Bare `crdls` typed in a terminal is the language server waiting for an editor: it says so on
/// standard error, and ends at the end of its input (Ctrl-D). Started by an editor, with pipes, it
/// says nothing.
#[test]
fn the_language_server_says_what_it_waits_for_when_started_in_a_terminal() {
    use std::io::Read;
    use std::process::{Command, Stdio};
    let binary = crdls_binary();
    // An editor's pipes: no notice.
    let out = Command::new(&binary).stdin(Stdio::null()).output().expect("crdls runs");
    assert!(!String::from_utf8_lossy(&out.stderr).contains("waits for an editor"), "{out:?}");

    // `script` runs crdls with a pseudo-terminal as its standard input, output and error, copies what
    // crdls writes to its own standard output, and ends crdls's input when its own (empty) input ends.
    let Ok(mut child) = Command::new("script")
        .args(["--quiet", "--return", "--command"])
        .arg(&binary)
        .arg("/dev/null")
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
    else {
        crdls_tests::announce_skip(crdls_tests::Missing::Script, None);
        return;
    };
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(60);
    while child.try_wait().expect("script can be waited for").is_none() {
        if std::time::Instant::now() > deadline {
            let _ = child.kill();
            panic!("crdls did not end at the end of its terminal input");
        }
        std::thread::sleep(std::time::Duration::from_millis(50));
    }
    let mut shown = String::new();
    child.stdout.take().expect("piped").read_to_string(&mut shown).expect("UTF-8");
    let shown = shown.replace("\r\n", "\n");
    assert!(shown.contains(crdls::cli::LANGUAGE_SERVER_IN_A_TERMINAL), "the terminal shows:\n{shown}");
}

/// `crdls cost`'s closing line counts in the singular when there is one (`1 rule in 1 CRD`).
#[test]
fn cost_counts_one_rule_in_one_crd_in_the_singular() {
    let crd = "apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata:
  name: singles.demo.crdls.dev
spec:
  group: demo.crdls.dev
  names: {kind: Single, plural: singles}
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
                size: {type: integer}
              x-kubernetes-validations:
                - rule: self.size > 0
";
    let tree = TempTree::new("cli-cost-one", &[("single.yaml", crd)]);
    let run = run_cli_in(&tree.path, &["cost", "single.yaml"], "");
    assert_eq!(run.code, 0, "{run:?}");
    let last = run.stdout.lines().last().unwrap_or_default();
    assert_eq!(last, "1 rule in 1 CRD; 0 over the per-rule limit of 10,000,000, 0 schemas over the per-version limit of 100,000,000");
}

/// The README's terminal transcript is what `crdls check` prints: its first lines, then, after `...`,
/// its last ones.
#[test]
fn the_readme_transcript_is_real_output() {
    let readme = std::fs::read_to_string(repo_root().join("README.md")).unwrap();
    let block = readme.split("In the terminal:\n\n```\n").nth(1).and_then(|b| b.split("\n```").next()).expect("the transcript");
    let (command, shown) = block.split_once('\n').unwrap();
    let args: Vec<&str> = command.strip_prefix("$ crdls ").expect("a crdls command").split_whitespace().collect();
    let run = run_cli(&args, "");
    assert_eq!(run.code, 1, "{run:?}");
    let (head, tail) = shown.split_once("\n...\n").expect("the elided middle");
    assert!(run.stdout.starts_with(&format!("{head}\n")), "the README's first lines:\n{head}\nthe output:\n{}", run.stdout);
    assert!(run.stdout.ends_with(&format!("{tail}\n")), "the README's last lines:\n{tail}\nthe output:\n{}", run.stdout);
}

/// `--subresource status` checks each object as a write to its /status: the stored spec (the `--old`
/// object's) with the status sent. The same document as an update of the main resource keeps the
/// stored status, and passes.
#[test]
fn subresource_status_checks_the_status_sent_against_the_stored_object() {
    let heater = "apiVersion: thermal.crdls.dev/v1\nkind: Heater\nmetadata:\n  name: hall\n  namespace: default\nspec:\n  watts: 10\n  room: hall\nstatus:\n  maxWatts: 900\n  serial: h-1\n";
    let common = ["check", "-", "--crds", "fixtures/status/crds.yaml", "--old", "fixtures/status/stored.yaml", "--format", "json"];
    let main = run_cli(&common, heater);
    assert_eq!(main.code, 0, "an update of the main resource keeps the stored status: {main:?}");
    let mut args = common.to_vec();
    args.extend(["--subresource", "status"]);
    let status = run_cli(&args, heater);
    assert_eq!(status.code, 1, "{status:?}");
    let json: serde_json::Value = serde_json::from_str(&status.stdout).unwrap();
    let causes: Vec<&str> = json["diagnostics"].as_array().unwrap().iter().filter_map(|d| d["cause"].as_str()).collect();
    // The stored spec's 1000 watts, not the 10 sent, against the new maxWatts.
    assert_eq!(causes, ["<nil>: Invalid value: watts must not exceed the status's maxWatts"], "{}", status.stdout);
    let fan = "apiVersion: thermal.crdls.dev/v1\nkind: Fan\nmetadata:\n  name: hall-fan\n  namespace: default\nstatus:\n  rpm: 5\n";
    let run = run_cli(&args, fan);
    assert_eq!(run.code, 1, "{run:?}");
    assert!(run.stdout.contains("resource/no-status-subresource"), "{}", run.stdout);
}

/// The list types of built-in kinds are server-side apply's merge keys: a container's env entry named
/// twice or a container port listed twice is created with a warning, where a Service's port listed
/// twice is refused.
#[test]
fn built_in_lists_refuse_only_the_duplicates_the_api_server_refuses() {
    let deployment = "apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: web\nspec:\n  selector:\n    matchLabels: {app: web}\n  template:\n    metadata:\n      labels: {app: web}\n    spec:\n      containers:\n        - name: web\n          image: nginx\n          env:\n            - {name: A, value: '1'}\n            - {name: A, value: '2'}\n          ports:\n            - containerPort: 80\n            - containerPort: 80\n";
    let run = run_cli(&["check", "-", "--format", "json"], deployment);
    assert_eq!(run.code, 0, "{run:?}");
    let service = "apiVersion: v1\nkind: Service\nmetadata:\n  name: web\nspec:\n  selector: {app: web}\n  ports:\n    - {name: a, port: 80}\n    - {name: b, port: 80}\n";
    let run = run_cli(&["check", "-", "--format", "json"], service);
    assert_eq!(run.code, 1, "{run:?}");
    // In the API server's words: the port, with its internal ServicePort (not the list type's words).
    assert!(run.stdout.contains("native/port"), "{}", run.stdout);
    assert!(run.stdout.contains(r#"spec.ports[1]: Duplicate value: {\"Name\":\"\",\"Protocol\":\"TCP\""#), "{}", run.stdout);
    assert!(!run.stdout.contains("schema/list-map-duplicate"), "{}", run.stdout);
}

/// A Kyverno CLI test: the CLI's own files (values, even where the repository holds CRDs of the
/// `cli.kyverno.io` group for editors) are never sent to an API server, and the resources a test
/// evaluates its policies against may leave out what a create would need; a plain manifest beside
/// them is still checked whole.
#[test]
fn kyverno_cli_tests_are_read_as_the_cli_reads_them() {
    let crd = "apiVersion: apiextensions.k8s.io/v1\nkind: CustomResourceDefinition\nmetadata:\n  name: values.cli.kyverno.io\nspec:\n  group: cli.kyverno.io\n  names: {kind: Values, plural: values, listKind: ValuesList, singular: values}\n  scope: Cluster\n  versions:\n  - name: v1alpha1\n    served: true\n    storage: true\n    schema:\n      openAPIV3Schema:\n        type: object\n        x-kubernetes-preserve-unknown-fields: true\n";
    let tree = TempTree::new(
        "cli-kyverno-test",
        &[
            ("config/crds/values.yaml", crd),
            ("test/kyverno-test.yaml", "apiVersion: cli.kyverno.io/v1alpha1\nkind: Test\nmetadata:\n  name: t\nresources:\n- resources.yaml\nvariables: values.yaml\n"),
            ("test/values.yaml", "apiVersion: cli.kyverno.io/v1alpha1\nkind: Value\nglobalValues:\n  request.operation: CREATE\n"),
            ("test/resources.yaml", "apiVersion: v1\nkind: Pod\nmetadata:\n  name: bare\nspec: {}\n"),
            // With a label, not only a name: a document of a name and `spec: {}` alone is a reference.
            ("deploy/pod.yaml", "apiVersion: v1\nkind: Pod\nmetadata:\n  name: bare\n  labels: {app: bare}\nspec: {}\n"),
        ],
    );
    let run = run_cli_in(&tree.path, &["check", ".", "--format", "json"], "");
    let json: serde_json::Value = serde_json::from_str(&run.stdout).unwrap_or_else(|e| panic!("{e}: {run:?}"));
    let errors: Vec<String> = json["diagnostics"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|d| d["severity"] == "error")
        .map(|d| format!("{} {}", d["file"].as_str().unwrap(), d["code"].as_str().unwrap()))
        .collect();
    assert_eq!(errors, ["deploy/pod.yaml schema/required"], "{}", run.stdout);
}

/// Objects that say they are a KRM tool's configuration are not sent to an API server: kustomize and
/// kpt drop `config.kubernetes.io/local-config: "true"` objects from what they output, and a KRM
/// function reads its `config.kubernetes.io/function` configuration itself. Values that a tool fills
/// in (`$(VAR)`, `${ VAR }`, `<< Name >>`) are opaque.
#[test]
fn tool_configuration_and_tool_variables_are_not_the_api_servers() {
    let input = "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: Not_A_Name\n  annotations:\n    config.kubernetes.io/local-config: \"true\"\n---\napiVersion: example.com/v1\nkind: LabelNamespace\nmetadata:\n  name: UPPER\n  annotations:\n    config.kubernetes.io/function: |\n      container:\n        image: example.com/fn\n---\napiVersion: v1\nkind: Service\nmetadata:\n  name: $(app-name)\n  namespace: << Namespace >>\nspec:\n  ports:\n  - port: 80\n---\napiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: ${ CLUSTER_NAME }-config\n---\napiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: Still_Checked\n";
    let run = run_cli(&["check", "-", "--format", "json"], input);
    let json: serde_json::Value = serde_json::from_str(&run.stdout).unwrap_or_else(|e| panic!("{e}: {run:?}"));
    let errors: Vec<String> = json["diagnostics"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|d| d["severity"] == "error")
        .map(|d| format!("{} {}", d["range"]["start"]["line"], d["code"].as_str().unwrap()))
        .collect();
    assert_eq!(errors, ["34 metadata/name"], "{}", run.stdout);
}
