//! Tests of `ecosystem`.

use super::*;

#[test]
fn message_hash_is_stable_and_short() {
    assert_eq!(message_hash("unknown field \"spec.foo\""), message_hash("unknown field \"spec.foo\""));
    assert_ne!(message_hash("a"), message_hash("b"));
    assert_eq!(message_hash("").len(), 8);
}

#[test]
fn baseline_round_trips() {
    let key = ErrorKey { repo: "o/n".into(), file: "a b.yaml".into(), line: 7, code: "schema/type".into(), hash: message_hash("m") };
    let mut result = RepoResult { status: "ok".into(), files: 3, ..RepoResult::default() };
    result.counts.insert(("schema/type".into(), "error".into()), 1);
    result.counts.insert(("resource/no-crd".into(), "info".into()), 2);
    result.errors.insert(key, String::new());
    let all = BTreeMap::from([("o/n".to_string(), result.clone())]);
    let dir = std::env::temp_dir().join(format!("crdls-eco-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join("baseline.tsv");
    std::fs::write(&path, render_baseline(&all)).unwrap();
    let read = read_baseline(&path);
    std::fs::remove_dir_all(&dir).unwrap();
    assert!(read["o/n"] == result);
}

#[test]
fn json_report_is_read_into_counts_and_errors() {
    let dir = std::env::temp_dir().join(format!("crdls-eco-json-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join("r.json");
    std::fs::write(
        &path,
        r#"{"diagnostics": [
            {"file": "./x.yaml", "range": {"start": {"line": 4, "column": 1}, "end": {"line": 4, "column": 2}}, "severity": "error", "code": "schema/type", "message": "must be a string"},
            {"file": "x.yaml", "range": {"start": {"line": 1, "column": 1}, "end": {"line": 1, "column": 2}}, "severity": "warning", "code": "resource/deprecated-api", "message": "w"}
        ], "summary": {"files": 2}}"#,
    )
    .unwrap();
    let result = read_result("o/n", &path, "ok");
    std::fs::remove_dir_all(&dir).unwrap();
    assert_eq!(result.files, 2);
    assert_eq!(result.counts.len(), 2);
    let (key, message) = result.errors.iter().next().unwrap();
    assert_eq!((key.file.as_str(), key.line, key.code.as_str(), message.as_str()), ("x.yaml", 4, "schema/type", "must be a string"));
}

/// A stand-in for crdls (a shell script) shows how each way a run can end is recorded.
#[cfg(unix)]
#[test]
fn runs_end_ok_crashed_timed_out_or_absent() {
    use std::os::unix::fs::PermissionsExt;
    let dir = std::env::temp_dir().join(format!("crdls-eco-run-{}", std::process::id()));
    let repos = dir.join("repos");
    std::fs::create_dir_all(repos.join("o+n")).unwrap();
    std::fs::write(repos.join("o+n/MODE"), "").unwrap();
    let fake = dir.join("crdls");
    // Behaves as the MODE file in the checked directory says; prints a report either way.
    std::fs::write(
        &fake,
        "#!/bin/sh\n[ \"$1 $2 $3 $4\" = 'check . --format json' ] || exit 9\n\
         echo '{\"diagnostics\": [], \"summary\": {\"files\": 1}}'\n\
         case $(cat MODE) in crash) echo boom >&2; exit 3;; hang) exec sleep 30;; errors) exit 1;; esac\n",
    )
    .unwrap();
    std::fs::set_permissions(&fake, std::fs::Permissions::from_mode(0o755)).unwrap();
    let mut options = parse_options(std::iter::empty()).unwrap();
    options.crdls = fake;
    options.repos_dir = repos.clone();
    options.timeout = Duration::from_millis(500);
    let repo = Repo { name: "o/n".into(), commit: "c".into(), category: "gitops".into(), half: "tune".into() };
    let json = dir.join("o+n.json");
    let mut statuses = Vec::new();
    for mode in ["clean", "errors", "crash", "hang"] {
        std::fs::write(repos.join("o+n/MODE"), mode).unwrap();
        statuses.push(run_one(&options, &repo, &json));
    }
    assert_eq!(read_result("o/n", &json, "ok").files, 1);
    let absent = Repo { name: "o/absent".into(), ..repo };
    statuses.push(run_one(&options, &absent, &json));
    std::fs::remove_dir_all(&dir).unwrap();
    assert_eq!(statuses, ["ok", "ok", "crashed(3)", "timeout", "absent"]);
}

#[test]
fn ledger_rows_need_a_verdict() {
    let dir = std::env::temp_dir().join(format!("crdls-eco-ledger-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join("ledger.tsv");
    std::fs::write(&path, "# header\no/n\tx.yaml\t4\tschema/type\tabcd1234\ttrue\tan int where a string goes\tmust be a string\no/n\ty.yaml\t1\tschema/type\tabcd1234\t?\t\tm\n").unwrap();
    let ledger = read_ledger(&path);
    std::fs::remove_dir_all(&dir).unwrap();
    assert_eq!(ledger.len(), 1);
    assert_eq!(ledger.values().next().unwrap().verdict, "true");
}

/// A half is any name the list gives (`tune`, `held-out`, `fresh`, ...): `--half` takes it as it is.
#[test]
fn any_half_name_is_an_option() {
    let options = parse_options(["--half".to_string(), "fresh".to_string()].into_iter()).unwrap();
    assert_eq!(options.half.as_deref(), Some("fresh"));
    assert!(parse_options(["--half".to_string()].into_iter()).is_err());
}

/// The committed list: every repository once, pinned to a full commit, in one of the five
/// categories, and each half holding repositories of several categories.
#[test]
fn the_committed_list_is_well_formed() {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../tests/ecosystem/repos.toml");
    let list: RepoList = toml::from_str(&std::fs::read_to_string(path).unwrap()).unwrap();
    let mut names = BTreeSet::new();
    let mut categories: BTreeMap<&str, BTreeSet<&str>> = BTreeMap::new();
    for repo in &list.repo {
        assert!(names.insert(repo.name.to_lowercase()), "{} is listed twice", repo.name);
        assert!(repo.commit.len() == 40 && repo.commit.bytes().all(|b| b.is_ascii_hexdigit()), "{}: commit {}", repo.name, repo.commit);
        assert!(["gitops", "helm", "operator", "policy", "kustomize"].contains(&repo.category.as_str()), "{}", repo.name);
        categories.entry(repo.half.as_str()).or_default().insert(repo.category.as_str());
    }
    assert_eq!(
        categories.keys().copied().collect::<Vec<_>>(),
        [
            "fresh", "fresh10", "fresh11", "fresh12", "fresh2", "fresh3", "fresh4", "fresh5", "fresh6", "fresh7", "fresh8", "fresh9",
            "held-out", "tune"
        ]
    );
    assert!(categories.values().all(|c| c.len() == 5), "{categories:?}");
}
