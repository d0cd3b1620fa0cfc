//! CRD sources beyond the checked files, through the real binary: chart archives found in `charts/`,
//! URLs fetched once into the cache (offline afterwards, refreshed on request, pinned by sha256), and
//! the cluster of a kubeconfig context, each against a loopback server.

use std::process::{Command, Output};

use crdls_tests::loopback::{api_server, kubeconfig, Loopback};
use crdls_tests::{crdls_binary, repo_root, TempTree};

const GEAR: &str = "apiVersion: cluster.crdls.dev/v1\nkind: Gear\nmetadata:\n  name: g\nspec:\n  size: 11\n";

/// The Gear CRD as a cluster lists it (no `apiVersion` or `kind`, with server bookkeeping).
fn gear_crd(group: &str) -> serde_json::Value {
    serde_json::json!({
        "metadata": {"name": format!("gears.{group}"), "resourceVersion": "12", "managedFields": [{"manager": "kubectl"}]},
        "spec": {
            "group": group, "scope": "Namespaced",
            "names": {"kind": "Gear", "plural": "gears", "singular": "gear", "listKind": "GearList"},
            "versions": [{"name": "v1", "served": true, "storage": true, "schema": {"openAPIV3Schema": {
                "type": "object",
                "properties": {"spec": {"type": "object", "properties": {"size": {"type": "integer", "maximum": 10}}}}
            }}}]
        },
        "status": {"storedVersions": ["v1"]}
    })
}

/// Runs the binary in `dir` with its own cache directory.
fn crdls(dir: &TempTree, args: &[&str]) -> Output {
    crdls_with(dir, args, &[])
}

/// Runs the binary in `dir` with its own cache directory and the environment variables `env`.
fn crdls_with(dir: &TempTree, args: &[&str], env: &[(&str, &str)]) -> Output {
    Command::new(crdls_binary())
        .args(args)
        .current_dir(&dir.path)
        .env("CRDLS_CACHE_DIR", dir.path.join("cache"))
        .env_remove("KUBECONFIG")
        .env_remove("CRDLS_TRUST_WORKSPACE")
        .env("HOME", &dir.path)
        .envs(env.iter().copied())
        .output()
        .expect("the binary runs")
}

fn text(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).into_owned()
}

#[test]
fn a_url_is_fetched_once_then_read_from_the_cache() {
    let crd = std::fs::read_to_string(repo_root().join("fixtures/crds/widgets.yaml")).unwrap();
    let server = Loopback::start(move |request| match request.line.split(' ').nth(1) {
        Some("/v1/widgets.yaml") => (200, crd.clone()),
        _ => (404, "not found".into()),
    });
    let url = format!("{}/v1/widgets.yaml", server.address);
    let dir = TempTree::new(
        "sources-url",
        &[("w.yaml", "apiVersion: demo.crdls.dev/v1\nkind: Widget\nmetadata:\n  name: w\nspec:\n  size: 11\n  owner: team\n")],
    );

    // Offline before the first fetch: a usage error that names the URL, and no request.
    let run = crdls(&dir, &["check", "w.yaml", "--offline", "--crds", &url]);
    assert_eq!(run.status.code(), Some(2), "{run:?}");
    assert!(text(&run.stderr).contains(&format!("crdls: {url} is not in the cache, and the network is off (--offline)")), "{run:?}");
    assert!(server.requests().is_empty());

    let run = crdls(&dir, &["check", "w.yaml", "--crds", &url, "--verbose"]);
    assert_eq!(run.status.code(), Some(1), "{run:?}");
    let stdout = text(&run.stdout);
    assert!(stdout.contains("error[schema/maximum]"), "{stdout}");
    assert!(stdout.contains(&format!("note: CRDs from outside the workspace: 1 CRD from {url}")), "{stdout}");
    assert!(text(&run.stderr).contains(&format!("  {url} (URL): 1 CRD, fetched now (cached ")), "{}", text(&run.stderr));
    assert_eq!(server.requests().len(), 1);

    // From the cache afterwards, offline too, and from a trusted crdls.toml as well as --crds.
    dir.write("crdls.toml", &format!("crdPaths = [\"{url}\"]\n"));
    let run = crdls(&dir, &["check", "w.yaml", "--offline", "-v", "--trust-workspace"]);
    assert_eq!(run.status.code(), Some(1), "{run:?}");
    assert!(text(&run.stderr).contains(&format!("  {url} (URL): 1 CRD, from the cache (cached ")), "{}", text(&run.stderr));
    assert_eq!(server.requests().len(), 1);

    // --refresh fetches again.
    assert_eq!(crdls_with(&dir, &["check", "w.yaml", "--refresh"], &[("CRDLS_TRUST_WORKSPACE", "1")]).status.code(), Some(1));
    assert_eq!(server.requests().len(), 2);

    // A pin the content does not match: fetched again, refused, named.
    dir.write("crdls.toml", &format!("crdPaths = [\"{url}#sha256={}\"]\n", "0".repeat(64)));
    let run = crdls(&dir, &["check", "w.yaml", "--trust-workspace"]);
    assert_eq!(run.status.code(), Some(2), "{run:?}");
    assert!(text(&run.stderr).contains(&format!("but it is pinned to {}; not used", "0".repeat(64))), "{run:?}");
    assert_eq!(server.requests().len(), 3);

    // A URL that fails is a usage error with the server's answer.
    let run = crdls(&dir, &["check", "w.yaml", "--crds", &format!("{}/missing.yaml", server.address)]);
    assert_eq!(run.status.code(), Some(2), "{run:?}");
    assert!(text(&run.stderr).contains("missing.yaml: the server answered HTTP 404"), "{run:?}");
}

/// A download larger than the 16 MiB a workspace file may have (a cluster of a thousand CRDs lists
/// far more): its CRDs are indexed, and their schemas, built when a resource first needs them from the
/// cached copy, check it.
#[test]
fn a_large_download_gives_schemas_too() {
    let crd = std::fs::read_to_string(repo_root().join("fixtures/crds/widgets.yaml")).unwrap();
    let padding = "# padding, as a large bundle has other CRDs\n".repeat(17 * 1024 * 1024 / 44);
    let bundle = format!("{padding}---\n{crd}");
    assert!(bundle.len() > 16 * 1024 * 1024);
    let server = Loopback::start(move |_| (200, bundle.clone()));
    let url = format!("{}/bundle.yaml", server.address);
    let dir = TempTree::new(
        "sources-large",
        &[("w.yaml", "apiVersion: demo.crdls.dev/v1\nkind: Widget\nmetadata:\n  name: w\nspec:\n  size: 11\n")],
    );
    let run = crdls(&dir, &["check", "w.yaml", "--crds", &url]);
    assert_eq!(run.status.code(), Some(1), "{run:?}");
    assert!(text(&run.stdout).contains("error[schema/maximum]"), "{}", text(&run.stdout));
}

#[test]
fn the_cluster_is_listed_with_the_kubeconfig_credentials_and_cached() {
    let server = api_server("t0ken", vec![gear_crd("cluster.crdls.dev"), gear_crd("other.crdls.dev")]);
    let dir = TempTree::new("sources-cluster", &[("gear.yaml", GEAR)]);
    dir.write("kubeconfig", &kubeconfig(&server.address, "t0ken"));
    dir.write("wrong-kubeconfig", &kubeconfig(&server.address, "wrong"));

    let run = crdls(&dir, &["check", "gear.yaml", "--kubeconfig", "wrong-kubeconfig"]);
    assert_eq!(run.status.code(), Some(2), "{run:?}");
    assert!(text(&run.stderr).contains("crdls: cannot fetch cluster test: ") && text(&run.stderr).contains("Unauthorized"), "{run:?}");

    let run = crdls(&dir, &["check", "gear.yaml", "--kubeconfig", "kubeconfig", "-v"]);
    assert_eq!(run.status.code(), Some(1), "{run:?}");
    let stdout = text(&run.stdout);
    assert!(stdout.contains("spec.size: Invalid value: 11: spec.size in body should be less than or equal to 10"), "{stdout}");
    assert!(stdout.contains("note: CRDs from outside the workspace: 2 CRDs from cluster test"), "{stdout}");
    assert!(text(&run.stderr).contains("  cluster test (cluster): 2 CRDs, fetched now"), "{}", text(&run.stderr));
    // Two pages, each asked for once, the second with the continue token of the first.
    let requests = server.requests();
    assert_eq!(requests.len(), 3, "{requests:?}");
    assert!(requests[2].contains("&continue=page-1 "), "{requests:?}");

    // Cached afterwards: offline works, and a trusted crdls.toml can ask for the cluster.
    dir.write("crdls.toml", "[cluster]\nkubeconfig = \"kubeconfig\"\ncontext = \"test\"\n");
    let run = crdls(&dir, &["check", "gear.yaml", "--offline", "--trust-workspace"]);
    assert_eq!(run.status.code(), Some(1), "{run:?}");
    assert_eq!(server.requests().len(), 3);
    let cached = std::fs::read_dir(dir.path.join("cache/cluster")).unwrap().count();
    assert_eq!(cached, 1);
}

/// A repository's crdls.toml may ask, only the user may allow: its URLs, its cluster (with a
/// kubeconfig whose exec plugin would run a program) and its paths outside the repository are not
/// used until the user trusts the workspace, and the run says what was withheld. With the trust, each
/// works: the plugin runs and the API server and the download site are asked.
#[test]
fn a_repository_cannot_make_the_cli_run_programs_or_touch_the_network_without_trust() {
    let crd = std::fs::read_to_string(repo_root().join("fixtures/crds/widgets.yaml")).unwrap();
    let site = Loopback::start(move |_| (200, crd.clone()));
    let cluster = api_server("from-plugin", vec![gear_crd("cluster.crdls.dev")]);
    let dir = TempTree::new(
        "sources-trust",
        &[
            ("gear.yaml", GEAR),
            ("w.yaml", "apiVersion: demo.crdls.dev/v1\nkind: Widget\nmetadata:\n  name: w\nspec:\n  size: 11\n  owner: team\n"),
        ],
    );
    let marker = dir.path.join("plugin-ran");
    let credential = r#"{"apiVersion":"client.authentication.k8s.io/v1","kind":"ExecCredential","status":{"token":"from-plugin"}}"#;
    let script = format!("touch {:?}; echo '{credential}'", marker.display().to_string());
    let user =
        format!("    exec:\n      apiVersion: client.authentication.k8s.io/v1\n      command: sh\n      args: [\"-c\", {script:?}]\n");
    let kubeconfig_text = kubeconfig(&cluster.address, "unused").replace("    token: unused\n", &user);
    dir.write("kube/config", &kubeconfig_text);
    let secret = dir.path.join("outside-secret.yaml");
    dir.write("outside-secret.yaml", "apiVersion: v1\nkind: Config\n");
    let toml = format!(
        "crdPaths = [\"{}/widgets.yaml\", {:?}]\n[cluster]\nkubeconfig = \"kube/config\"\ncontext = \"test\"\n",
        site.address,
        secret.display().to_string()
    );
    dir.write("crdls.toml", &toml);

    // Not trusted: nothing runs, nothing is fetched, both objects are unchecked, and the run says why.
    let run = crdls(&dir, &["check", "."]);
    assert_eq!(run.status.code(), Some(0), "{run:?}");
    let stderr = text(&run.stderr);
    assert!(
        stderr.contains(&format!(
            "crdls: warning: crdls.toml asks for the cluster (`cluster`), the URL {}/widgets.yaml and the path {}, outside the workspace; not used, because the workspace is not trusted (pass --trust-workspace, or set CRDLS_TRUST_WORKSPACE=1, to use them)",
            site.address,
            secret.display()
        )),
        "{stderr}"
    );
    assert!(!marker.exists(), "the exec plugin ran");
    assert!(site.requests().is_empty() && cluster.requests().is_empty());
    // The user's own --cluster reads the user's kubeconfig (here none), never the repository's.
    let run = crdls(&dir, &["check", ".", "--cluster"]);
    assert_eq!(run.status.code(), Some(2), "{run:?}");
    assert!(!marker.exists(), "the exec plugin ran");
    assert!(cluster.requests().is_empty());
    // CRDLS_TRUST_WORKSPACE=0 is no trust either.
    assert_eq!(crdls_with(&dir, &["check", "."], &[("CRDLS_TRUST_WORKSPACE", "0")]).status.code(), Some(0));
    assert!(!marker.exists() && site.requests().is_empty());

    // Trusted: the plugin runs, the cluster and the site are asked, and both objects are checked.
    for (args, env) in [
        (vec!["check", ".", "--trust-workspace", "--refresh"], vec![]),
        (vec!["check", ".", "--refresh"], vec![("CRDLS_TRUST_WORKSPACE", "1")]),
    ] {
        let _ = std::fs::remove_file(&marker);
        let run = crdls_with(&dir, &args, &env);
        assert_eq!(run.status.code(), Some(1), "{run:?}");
        let stdout = text(&run.stdout);
        assert!(stdout.contains("spec.size: Invalid value: 11: spec.size in body should be less than or equal to 10"), "{stdout}");
        assert!(stdout.matches("error[schema/maximum]").count() == 2, "{stdout}");
        assert!(marker.exists(), "the exec plugin did not run");
        assert!(!text(&run.stderr).contains("not trusted"), "{run:?}");
    }
    assert_eq!(site.requests().len(), 2);
}

/// The language server takes trust from the client alone (`trustedWorkspace` in the initialization
/// options): opening a repository whose crdls.toml names a URL and a cluster with an exec plugin runs
/// nothing and fetches nothing, and says so once; settings from the client cannot grant the trust;
/// trusted, the plugin runs and both sources are read.
#[test]
fn a_repository_cannot_make_the_language_server_run_programs_or_touch_the_network_without_trust() {
    use crdls_tests::lsp::{Session, SessionOptions};

    let crd = std::fs::read_to_string(repo_root().join("fixtures/crds/widgets.yaml")).unwrap();
    let site = Loopback::start(move |_| (200, crd.clone()));
    let cluster = api_server("from-plugin", vec![gear_crd("cluster.crdls.dev")]);
    let credential = r#"{"apiVersion":"client.authentication.k8s.io/v1","kind":"ExecCredential","status":{"token":"from-plugin"}}"#;
    let kubeconfig_with = |marker: &str| {
        let script = format!("touch {marker:?}; echo '{credential}'");
        let user =
            format!("    exec:\n      apiVersion: client.authentication.k8s.io/v1\n      command: sh\n      args: [\"-c\", {script:?}]\n");
        kubeconfig(&cluster.address, "unused").replace("    token: unused\n", &user)
    };
    let toml = format!("crdPaths = [\"{}/widgets.yaml\"]\n[cluster]\nkubeconfig = \"kube/config\"\ncontext = \"test\"\n", site.address);
    for trusted in [false, true] {
        let marker = std::env::temp_dir().join(format!("crdls-lsp-plugin-{}-{trusted}", std::process::id()));
        let _ = std::fs::remove_file(&marker);
        let mut options = SessionOptions::new()
            .file("crdls.toml", &toml)
            .file("kube/config", &kubeconfig_with(&marker.display().to_string()))
            .env("CRDLS_CACHE_DIR", "{workspace}/.cache")
            .env("HOME", "{workspace}");
        if trusted {
            options = options.trusted();
        }
        let mut session = Session::start_binary(&crdls_binary(), options);
        if trusted {
            session.expect_log_containing("indexed 2 CRDs from");
            assert!(marker.exists(), "the exec plugin did not run");
            session.open("w.yaml", "apiVersion: demo.crdls.dev/v1\nkind: Widget\nmetadata:\n  name: w\nspec:\n  size: 11\n  owner: o\n");
            let diagnostics = session.wait_for_diagnostics("w.yaml", 1);
            assert_eq!(diagnostics["diagnostics"][0]["code"], "schema/maximum", "{diagnostics}");
        } else {
            let shown = session.expect_notification("window/showMessage");
            let message = shown["message"].as_str().unwrap_or_default();
            assert!(message.starts_with("crdls: crdls.toml asks for the cluster (`cluster`) and the URL "), "{message}");
            assert!(message.contains("not used, because the workspace is not trusted"), "{message}");
            session.expect_log_containing("not used, because the workspace is not trusted");
            // The client's settings are the user's, but they cannot carry the trust.
            session.notify("workspace/didChangeConfiguration", serde_json::json!({"settings": {"crdls": {"trustedWorkspace": true}}}));
            session.expect_log_containing("trustedWorkspace is read only from the initialization options");
            session.open("w.yaml", "apiVersion: demo.crdls.dev/v1\nkind: Widget\nmetadata:\n  name: w\nspec:\n  size: 11\n");
            let diagnostics = session.wait_for_diagnostics("w.yaml", 1);
            assert_eq!(diagnostics["diagnostics"][0]["code"], "resource/no-crd", "{diagnostics}");
            assert!(!marker.exists(), "the exec plugin ran");
            assert!(site.requests().is_empty() && cluster.requests().is_empty());
        }
        session.finish();
        let _ = std::fs::remove_file(&marker);
    }
    assert_eq!(site.requests().len(), 1);
}

/// A repository's symbolic link cannot lead the CRD paths of its crdls.toml out of it: `crds ->
/// ../elsewhere` is inside the workspace as written, so it is not withheld with the paths that leave
/// it as written, but it is not read either until the user trusts the workspace; the run says why. The
/// user's own `--crds crds` reads it.
#[cfg(unix)]
#[test]
fn a_repository_link_cannot_lead_crd_paths_out_of_it_without_trust() {
    let widgets = std::fs::read_to_string(repo_root().join("fixtures/crds/widgets.yaml")).unwrap();
    let outside = TempTree::new("sources-link-outside", &[("widgets.yaml", &widgets)]);
    let dir = TempTree::new(
        "sources-link",
        &[
            ("crdls.toml", "crdPaths = [\"crds\"]\n"),
            ("w.yaml", "apiVersion: demo.crdls.dev/v1\nkind: Widget\nmetadata:\n  name: w\nspec:\n  size: 11\n  owner: team\n"),
        ],
    );
    std::os::unix::fs::symlink(&outside.path, dir.path.join("crds")).unwrap();

    let run = crdls(&dir, &["check", "w.yaml"]);
    assert_eq!(run.status.code(), Some(0), "{run:?}");
    assert!(text(&run.stdout).contains("(1 document, 0 CRDs known)"), "{run:?}");
    assert_eq!(
        text(&run.stderr),
        "crdls: warning: crdls.toml: the CRD path crds leads out of the workspace (through a symbolic link, or into .git); not read, \
         because the workspace is not trusted (pass --trust-workspace, or set CRDLS_TRUST_WORKSPACE=1, to use them)\n"
    );
    // Trusted, or named by the user (crdls.toml's own entry is still refused, and said), it is read.
    for (args, refused) in [(&["check", "w.yaml", "--trust-workspace"][..], false), (&["check", "w.yaml", "--crds", "crds"], true)] {
        let run = crdls(&dir, args);
        assert_eq!(run.status.code(), Some(1), "{args:?}: {run:?}");
        assert!(text(&run.stdout).contains("error[schema/maximum]"), "{args:?}: {run:?}");
        assert_eq!(text(&run.stderr).contains("leads out of the workspace"), refused, "{args:?}: {run:?}");
    }
}

/// The language server refuses the same link, and says so where the path is written: a warning on
/// crdls.toml (`source/outside-workspace`) and a message.
#[cfg(unix)]
#[test]
fn the_language_server_says_on_crdls_toml_that_a_crd_path_leads_out() {
    use crdls_tests::lsp::{Session, SessionOptions};

    let widgets = std::fs::read_to_string(repo_root().join("fixtures/crds/widgets.yaml")).unwrap();
    let outside = TempTree::new("sources-lsp-link-outside", &[("widgets.yaml", &widgets)]);
    let options = SessionOptions::new()
        .file("crdls.toml", "strict = false\ncrdPaths = [\"crds\"]\n")
        .symlink("crds", &outside.path)
        .env("CRDLS_CACHE_DIR", "{workspace}/.cache");
    let mut session = Session::start_binary(&crdls_binary(), options);
    let warnings = session.wait_for_next_diagnostics("crdls.toml");
    let warning = &warnings["diagnostics"][0];
    assert_eq!(warning["code"], "source/outside-workspace", "{warnings}");
    assert_eq!(warning["severity"], 2, "{warnings}");
    assert_eq!(warning["range"]["start"], serde_json::json!({"line": 1, "character": 13}), "{warnings}");
    let shown = session.expect_notification("window/showMessage");
    assert!(shown["message"].as_str().unwrap_or_default().contains("the CRD path crds leads out of the workspace"), "{shown}");
    // Logged each time the problems of the scan and of the fetch are shown together (twice: the fetch
    // has nothing to do).
    for _ in 0..2 {
        session.expect_log_containing("crdls: the CRD path crds leads out of the workspace");
    }
    session.open("w.yaml", "apiVersion: demo.crdls.dev/v1\nkind: Widget\nmetadata:\n  name: w\nspec:\n  size: 11\n  owner: o\n");
    let diagnostics = session.wait_for_diagnostics("w.yaml", 1);
    assert_eq!(diagnostics["diagnostics"][0]["code"], "resource/no-crd", "{diagnostics}");
    session.finish();
}

/// A kustomization's patch that leads out of the workspace is not read, and both front ends say so on
/// its path: `crdls check` and the language server report `source/outside-workspace` there.
#[cfg(unix)]
#[test]
fn a_kustomizations_patch_out_of_the_workspace_is_said_on_its_path() {
    use crdls_tests::lsp::{Session, SessionOptions};

    let identity = "kind: ConfigMap\nmetadata:\n  name: c\ndata:\n  token: s3cret\n";
    let outside = TempTree::new("sources-kustomize-outside", &[("identity.yaml", identity)]);
    let kustomization = "resources:\n- cm.yaml\npatches:\n- path: link.yaml\n";
    let cm = "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: c\n";
    let dir = TempTree::new("sources-kustomize", &[("overlay/kustomization.yaml", kustomization), ("overlay/cm.yaml", cm)]);
    std::os::unix::fs::symlink(outside.path.join("identity.yaml"), dir.path.join("overlay/link.yaml")).unwrap();
    let run = crdls(&dir, &["check", "overlay/kustomization.yaml", "--format", "json"]);
    let json: serde_json::Value = serde_json::from_str(&text(&run.stdout)).unwrap_or_else(|e| panic!("{e}: {run:?}"));
    let warning = &json["diagnostics"][0];
    assert_eq!(warning["code"], "source/outside-workspace", "{json}");
    assert_eq!(warning["range"]["start"]["line"], 4, "{json}");
    assert!(!text(&run.stdout).contains("s3cret"), "{run:?}");

    let options = SessionOptions::new()
        .file("overlay/kustomization.yaml", kustomization)
        .file("overlay/cm.yaml", cm)
        .symlink("overlay/link.yaml", &outside.path.join("identity.yaml"));
    let mut session = Session::start(options);
    session.open("overlay/kustomization.yaml", kustomization);
    let diagnostics = session.wait_for_diagnostics("overlay/kustomization.yaml", 1);
    let codes: Vec<&str> = diagnostics["diagnostics"].as_array().unwrap().iter().filter_map(|d| d["code"].as_str()).collect();
    assert_eq!(codes, ["source/outside-workspace"], "{diagnostics}");
    assert_eq!(diagnostics["diagnostics"][0]["range"]["start"], serde_json::json!({"line": 3, "character": 8}), "{diagnostics}");
    session.finish();
}

/// `--old git:REV` never hands git an option: a revision starting with `-` is a usage error, and
/// nothing is written.
#[test]
fn a_git_revision_cannot_be_an_option() {
    let dir = TempTree::new("sources-git-option", &[("w.yaml", "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: c\n")]);
    std::fs::create_dir_all(dir.path.join("x:.")).unwrap();
    let run = crdls(&dir, &["check", "w.yaml", "--old", "git:--output=x"]);
    assert_eq!(run.status.code(), Some(2), "{run:?}");
    assert!(
        text(&run.stderr).contains("--old git:--output=x: \"--output=x\" is not a git revision crdls uses: it starts with '-'"),
        "{run:?}"
    );
    assert!(!dir.path.join("x").exists());
}

#[test]
fn chart_archives_in_charts_directories_give_their_crds() {
    let dir = TempTree::new("sources-archive", &[]);
    let archive = repo_root().join("fixtures/projects/umbrella/charts/sprockets-0.1.0.tgz");
    std::fs::create_dir_all(dir.path.join("app/charts")).unwrap();
    std::fs::copy(&archive, dir.path.join("app/charts/sprockets-0.1.0.tgz")).unwrap();
    dir.write("app/sprocket.yaml", "apiVersion: charts.crdls.dev/v1\nkind: Sprocket\nmetadata:\n  name: s\nspec:\n  teeth: 1\n");
    let run = crdls(&dir, &["check", "app", "-v"]);
    assert_eq!(run.status.code(), Some(1), "{run:?}");
    assert!(text(&run.stdout).contains("spec.teeth in body should be greater than or equal to 3"), "{run:?}");
    assert!(text(&run.stderr).contains("app/charts/sprockets-0.1.0.tgz!/sprockets/crds/sprockets.yaml (chart archive): 1 CRD"), "{run:?}");
    // Named directly, an archive counts wherever it is.
    std::fs::rename(dir.path.join("app/charts/sprockets-0.1.0.tgz"), dir.path.join("sprockets.tgz")).unwrap();
    assert_eq!(crdls(&dir, &["check", "app/sprocket.yaml"]).status.code(), Some(0));
    assert_eq!(crdls(&dir, &["check", "app/sprocket.yaml", "--crds", "sprockets.tgz"]).status.code(), Some(1));
    // A broken archive is a usage error that names it.
    std::fs::write(dir.path.join("sprockets.tgz"), "not an archive").unwrap();
    let run = crdls(&dir, &["check", "app/sprocket.yaml", "--crds", "sprockets.tgz"]);
    assert_eq!(run.status.code(), Some(2), "{run:?}");
    assert!(text(&run.stderr).contains("sprockets.tgz: not a"), "{run:?}");
}

/// The language server reads the same sources: a URL from crdls.toml (fetched after the scan, in the
/// background), a chart archive in `charts/`; hover names them, definition opens a file, and the
/// refresh command fetches again, turning a failure into a warning on crdls.toml while the cached
/// copy keeps working.
#[test]
fn the_language_server_reads_urls_and_chart_archives_and_refreshes_on_command() {
    use crdls_tests::lsp::{Session, SessionOptions};
    use std::sync::atomic::{AtomicBool, Ordering};
    use std::sync::Arc;

    let crd = std::fs::read_to_string(repo_root().join("fixtures/crds/widgets.yaml")).unwrap();
    let broken = Arc::new(AtomicBool::new(false));
    let down = broken.clone();
    let server = Loopback::start(move |_| if down.load(Ordering::SeqCst) { (500, "down".into()) } else { (200, crd.clone()) });
    let url = format!("{}/widgets.yaml", server.address);
    let options = SessionOptions::new()
        .trusted()
        .file("crdls.toml", &format!("crdPaths = [\"{url}\"]\n"))
        .repo_binary_file("charts/sprockets-0.1.0.tgz", "fixtures/projects/umbrella/charts/sprockets-0.1.0.tgz")
        .env("CRDLS_CACHE_DIR", "{workspace}/.cache");
    let mut session = Session::start_binary(&crdls_binary(), options);
    // The scan found the archive; the URL was not cached, so it is fetched after the scan.
    session.expect_log_containing(&format!("indexed 1 CRDs from {url}"));
    assert_eq!(server.requests().len(), 1);

    session.open("w.yaml", "apiVersion: demo.crdls.dev/v1\nkind: Widget\nmetadata:\n  name: w\nspec:\n  size: 11\n  owner: team\n");
    let diagnostics = session.wait_for_diagnostics("w.yaml", 1);
    assert_eq!(diagnostics["diagnostics"][0]["code"], "schema/maximum", "{diagnostics}");
    session.open("s.yaml", "apiVersion: charts.crdls.dev/v1\nkind: Sprocket\nmetadata:\n  name: s\nspec:\n  teeth: 1\n");
    let diagnostics = session.wait_for_diagnostics("s.yaml", 1);
    assert_eq!(diagnostics["diagnostics"][0]["code"], "schema/minimum", "{diagnostics}");

    let hover = session.hover("w.yaml", session.position_of("w.yaml", "size"));
    let markdown = hover["contents"]["value"].as_str().unwrap_or_default().to_string();
    assert!(markdown.contains(&format!("in `{url}` (cached as [")), "{markdown}");
    assert!(markdown.contains("/.cache/urls/"), "{markdown}");
    let hover = session.hover("s.yaml", session.position_of("s.yaml", "teeth"));
    let markdown = hover["contents"]["value"].as_str().unwrap_or_default().to_string();
    assert!(markdown.contains("in chart archive `sprockets-0.1.0.tgz`, `sprockets/crds/sprockets.yaml`."), "{markdown}");

    // Definition opens the archive's member, extracted into the cache (the archive stays as it is).
    let target = session.definition("s.yaml", session.position_of("s.yaml", "teeth"));
    let uri = target["uri"].as_str().unwrap_or_default().to_string();
    assert!(uri.contains("/.cache/archives/") && uri.ends_with("-sprockets.yaml"), "{target}");
    let extracted = std::fs::read_to_string(uri.trim_start_matches("file://")).unwrap();
    let line = target["range"]["start"]["line"].as_u64().unwrap() as usize;
    assert!(extracted.lines().nth(line).unwrap_or_default().trim_start().starts_with("teeth:"), "{target}\n{extracted}");

    // The source goes down; a refresh says so on crdls.toml and in a message, and keeps the cached copy.
    broken.store(true, Ordering::SeqCst);
    let result = session.request("workspace/executeCommand", serde_json::json!({"command": "crdls.refreshCrdSources"}));
    assert!(result.is_null(), "{result}");
    let shown = session.expect_notification("window/showMessage");
    assert!(shown["message"].as_str().unwrap_or_default().contains("the server answered HTTP 500; the cached copy is used"), "{shown}");
    let warnings = session.wait_for_next_diagnostics("crdls.toml");
    assert_eq!(warnings["diagnostics"][0]["code"], "source/unavailable", "{warnings}");
    assert_eq!(warnings["diagnostics"][0]["severity"], 2, "{warnings}");
    session.expect_log_containing("CRDs from 1 files in");
    session.expect_log_containing("HTTP 500");
    session.expect_log_containing(&format!("indexed 1 CRDs from {url}"));
    assert_eq!(server.requests().len(), 2);
    session.replace("w.yaml", 2, "size: 11", "size: 12");
    let diagnostics = session.wait_for_diagnostics("w.yaml", 2);
    assert_eq!(diagnostics["diagnostics"][0]["code"], "schema/maximum", "{diagnostics}");

    // Back up: the next refresh clears the warning.
    broken.store(false, Ordering::SeqCst);
    session.request("workspace/executeCommand", serde_json::json!({"command": "crdls.refreshCrdSources"}));
    let cleared = session.wait_for_next_diagnostics("crdls.toml");
    assert_eq!(cleared["diagnostics"], serde_json::json!([]), "{cleared}");
    session.expect_log_containing("CRDs from 1 files in");
    session.expect_log_containing(&format!("indexed 1 CRDs from {url}"));
    assert_eq!(server.requests().len(), 3);
    session.finish();
}

/// A gzip-compressed tar of `files` (path, bytes).
fn tgz(files: &[(&str, &[u8])]) -> Vec<u8> {
    let mut builder = tar::Builder::new(Vec::new());
    for (path, bytes) in files {
        let mut header = tar::Header::new_gnu();
        header.set_size(bytes.len() as u64);
        header.set_mode(0o644);
        header.set_cksum();
        builder.append_data(&mut header, path, *bytes).expect("appending to a tar in memory works");
    }
    let tar = builder.into_inner().expect("a tar in memory finishes");
    let mut encoder = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::best());
    std::io::Write::write_all(&mut encoder, &tar).expect("gzip in memory works");
    encoder.finish().expect("gzip in memory finishes")
}

/// A chart in `charts/` whose nested archives (259 of them, 0.3 MB) would inflate to 1.7 GiB, each
/// within 100 MiB: `crdls check .` reads it unasked, and refuses it quickly, naming the limit.
#[test]
fn a_nested_archive_bomb_in_charts_is_refused_quickly() {
    let zeros = vec![0u8; 8 * 1024 * 1024];
    let mut level = tgz(&[("c/crds/a.yaml", b"kind: A\n"), ("c/zeros.bin", &zeros)]);
    for _ in 0..3 {
        let names: Vec<String> = (0..6).map(|i| format!("c/charts/c{i}.tgz")).collect();
        let files: Vec<(&str, &[u8])> = names.iter().map(|n| (n.as_str(), level.as_slice())).collect();
        level = tgz(&files);
    }
    let dir = TempTree::new("sources-bomb", &[("app/Chart.yaml", "name: app\n")]);
    std::fs::create_dir_all(dir.path.join("app/charts")).unwrap();
    std::fs::write(dir.path.join("app/charts/bomb-1.0.0.tgz"), &level).unwrap();
    // The binary is built first (the first test to ask builds it), so that only the check is timed.
    crdls_binary();
    let started = std::time::Instant::now();
    let run = crdls(&dir, &["check", "."]);
    assert!(started.elapsed() < std::time::Duration::from_secs(20), "{:?}", started.elapsed());
    assert_eq!(run.status.code(), Some(2), "{run:?}");
    assert!(
        text(&run.stderr).contains(
            "bomb-1.0.0.tgz: larger than 100 MiB when inflated, with the archives nested in it (the limit of a chart archive); not read"
        ),
        "{run:?}"
    );
}

/// A chart archive the editor's scan cannot read is said once, as the archive's own error (its path
/// once, not a "cannot fetch" of a local file).
#[test]
fn the_language_server_says_which_chart_archive_it_cannot_read() {
    use crdls_tests::lsp::{Session, SessionOptions};

    let mut session = Session::start(SessionOptions::new().file("charts/broken-1.0.0.tgz", "not an archive"));
    let shown = session.expect_notification("window/showMessage");
    let message = shown["message"].as_str().unwrap_or_default();
    assert!(message.starts_with("crdls: ") && message.contains("broken-1.0.0.tgz: not a"), "{shown}");
    assert_eq!(message.matches("broken-1.0.0.tgz").count(), 1, "{shown}");
    assert!(!message.contains("cannot fetch"), "{shown}");
    // Logged when the scan reads the archives, and again when the fetch after it reports every source.
    session.expect_log_containing("broken-1.0.0.tgz: not a");
    session.expect_log_containing("broken-1.0.0.tgz: not a");
    session.finish();
}

/// A cluster that cannot be read is a warning on crdls.toml's `cluster` key, which names it (a URL's is
/// on the URL as written): the editor knows which source failed from its kind, not from its label.
#[test]
fn the_language_server_puts_a_cluster_failure_on_the_cluster_key() {
    use crdls_tests::lsp::{Session, SessionOptions};

    let options = SessionOptions::new()
        .trusted()
        .file("crdls.toml", "strict = true\n\n[cluster]\nkubeconfig = \"missing-kubeconfig\"\n")
        .env("CRDLS_CACHE_DIR", "{workspace}/.cache");
    let mut session = Session::start_binary(&crdls_binary(), options);
    let shown = session.expect_notification("window/showMessage");
    let message = shown["message"].as_str().unwrap_or_default();
    assert!(message.starts_with("crdls: cannot fetch the cluster: cannot read the kubeconfig "), "{shown}");
    let warnings = session.wait_for_next_diagnostics("crdls.toml");
    let warning = &warnings["diagnostics"][0];
    assert_eq!(warning["code"], "source/unavailable", "{warnings}");
    assert_eq!(warning["range"]["start"], serde_json::json!({"line": 2, "character": 1}), "{warnings}");
    assert_eq!(warning["range"]["end"], serde_json::json!({"line": 2, "character": 8}), "{warnings}");
    session.expect_log_containing("cannot fetch the cluster");
    session.finish();
}

/// A download that cannot be cached (the cache directory cannot be created) is used, and a warning
/// says so; credentials in its URL are shown nowhere, not in the warning, the notes or the JSON report.
#[test]
fn an_uncached_download_is_used_with_a_warning_and_its_credentials_are_hidden() {
    let crd = std::fs::read_to_string(repo_root().join("fixtures/crds/widgets.yaml")).unwrap();
    let server = Loopback::start(move |_| (200, crd.clone()));
    let url = format!("{}/widgets.yaml", server.address.replace("http://", "http://me:s3cret@"));
    let shown = format!("{}/widgets.yaml", server.address.replace("http://", "http://me:***@"));
    let dir = TempTree::new(
        "sources-uncached",
        &[("w.yaml", "apiVersion: demo.crdls.dev/v1\nkind: Widget\nmetadata:\n  name: w\nspec:\n  size: 11\n  owner: team\n")],
    );
    dir.write("cache", "a file where the cache directory would be");
    let run = crdls(&dir, &["check", "w.yaml", "--crds", &url]);
    assert_eq!(run.status.code(), Some(1), "{run:?}");
    assert!(text(&run.stdout).contains("error[schema/maximum]"), "{run:?}");
    assert!(text(&run.stdout).contains(&format!("1 CRD from {shown}")), "{run:?}");
    assert!(text(&run.stderr).contains(&format!("crdls: warning: {shown} was fetched but not cached: cannot write the cache ")), "{run:?}");
    let json = crdls(&dir, &["check", "w.yaml", "--crds", &url, "--format", "json"]);
    assert_eq!(json.status.code(), Some(1), "{json:?}");
    assert!(text(&json.stdout).contains(&shown), "{json:?}");
    for output in [&run.stdout, &run.stderr, &json.stdout, &json.stderr] {
        assert!(!text(output).contains("s3cret"), "{}", text(output));
    }
}

/// Forty refresh commands in a row, while the first refresh's download is held up: the refreshes run
/// one at a time, the thirty-nine asked during the first coalescing into one more, so the URL is
/// fetched twice (after the start's fetch), not forty times at once into the same cache file, and no
/// warning comes of it (`finish` fails on any message the script did not consume).
#[test]
fn refresh_commands_in_a_burst_run_one_at_a_time_and_coalesce() {
    use crdls_tests::lsp::{Session, SessionOptions};
    use std::sync::atomic::{AtomicBool, Ordering};
    use std::sync::{mpsc, Arc, Mutex};
    use std::time::Duration;

    let crd = std::fs::read_to_string(repo_root().join("fixtures/crds/widgets.yaml")).unwrap();
    let held = Arc::new(AtomicBool::new(false));
    let (entered, held_up) = mpsc::channel();
    let entered = Mutex::new(entered);
    let hold = held.clone();
    let server = Loopback::start(move |_| {
        if hold.load(Ordering::SeqCst) {
            let _ = entered.lock().unwrap().send(());
            while hold.load(Ordering::SeqCst) {
                std::thread::sleep(Duration::from_millis(5));
            }
        }
        (200, crd.clone())
    });
    let url = format!("{}/widgets.yaml", server.address);
    let options = SessionOptions::new()
        .trusted()
        .file("crdls.toml", &format!("crdPaths = [\"{url}\"]\n"))
        .env("CRDLS_CACHE_DIR", "{workspace}/.cache");
    let mut session = Session::start_binary(&crdls_binary(), options);
    session.expect_log_containing(&format!("indexed 1 CRDs from {url}"));
    assert_eq!(server.requests().len(), 1);

    held.store(true, Ordering::SeqCst);
    let refresh = serde_json::json!({"command": "crdls.refreshCrdSources"});
    session.request("workspace/executeCommand", refresh.clone());
    held_up.recv_timeout(crdls_tests::lsp::TIMEOUT).expect("the first refresh reaches the download");
    for _ in 1..40 {
        session.request("workspace/executeCommand", refresh.clone());
    }
    held.store(false, Ordering::SeqCst);
    for _ in 0..2 {
        session.expect_log_containing("CRDs from 0 files in");
        session.expect_log_containing(&format!("indexed 1 CRDs from {url}"));
    }
    session.finish();
    assert_eq!(server.requests().len(), 3, "{:?}", server.requests());
}

/// The editor reads a download larger than a workspace file may be (16 MiB) as the CLI does
/// (`a_large_download_gives_schemas_too`): its CRDs are indexed, and their schemas check a resource.
/// The cache here is inside the workspace (as in that test), so the client's file watcher reports the
/// cached copy when it is written, and a refresh's scan walks past it: neither may read it as a
/// workspace file, whose 16 MiB limit would drop the download's CRDs.
#[test]
fn the_language_server_reads_a_large_download_too() {
    use crdls_tests::lsp::{Session, SessionOptions};

    let crd = std::fs::read_to_string(repo_root().join("fixtures/crds/widgets.yaml")).unwrap();
    let padding = "# padding, as a large bundle has other CRDs\n".repeat(17 * 1024 * 1024 / 44);
    let bundle = format!("{padding}---\n{crd}");
    assert!(bundle.len() > 16 * 1024 * 1024);
    let server = Loopback::start(move |_| (200, bundle.clone()));
    let url = format!("{}/bundle.yaml", server.address);
    let options = SessionOptions::new()
        .trusted()
        .file("crdls.toml", &format!("crdPaths = [\"{url}\"]\n"))
        .env("CRDLS_CACHE_DIR", "{workspace}/cache");
    let mut session = Session::start_binary(&crdls_binary(), options);
    session.expect_log_containing(&format!("indexed 1 CRDs from {url}"));
    let cached: Vec<String> = std::fs::read_dir(session.workspace().join("cache/urls"))
        .unwrap()
        .map(|entry| format!("cache/urls/{}", entry.unwrap().file_name().to_string_lossy()))
        .collect();
    assert_eq!(cached.len(), 1, "{cached:?}");
    // The watcher saw the download land in the cache.
    session.watched_files_changed(&[(&cached[0], 1)]);
    let widget = "apiVersion: demo.crdls.dev/v1\nkind: Widget\nmetadata:\n  name: w\nspec:\n  size: 11\n  owner: team\n";
    session.open("w.yaml", widget);
    let diagnostics = session.wait_for_diagnostics("w.yaml", 1);
    assert_eq!(diagnostics["diagnostics"][0]["code"], "schema/maximum", "{diagnostics}");

    // A refresh: the scan finds the cached copy among the workspace's files, then the URL is fetched.
    session.request("workspace/executeCommand", serde_json::json!({"command": "crdls.refreshCrdSources"}));
    session.expect_log_containing(" files in ");
    session.expect_log_containing(&format!("indexed 1 CRDs from {url}"));
    session.replace("w.yaml", 2, "size: 11", "size: 12");
    let diagnostics = session.wait_for_diagnostics("w.yaml", 2);
    assert_eq!(diagnostics["diagnostics"][0]["code"], "schema/maximum", "{diagnostics}");
    session.finish();
    assert_eq!(server.requests().len(), 2);
}

/// An OpenAPI v3 document of `apps/v1` in the upstream layout, with descriptions invented for the test:
/// a Deployment whose pod template's containers have an image, through `allOf` references and a list.
fn invented_apps_document() -> String {
    let reference = |name: &str| serde_json::json!({"allOf": [{"$ref": format!("#/components/schemas/{name}")}]});
    let with = |mut node: serde_json::Value, description: &str| {
        node["description"] = description.into();
        node
    };
    serde_json::json!({
        "openapi": "3.0.0",
        "info": {"title": "invented", "version": "v0"},
        "paths": {},
        "components": {"schemas": {
            "invented.Deployment": {
                "description": "An invented deployment.",
                "x-kubernetes-group-version-kind": [{"group": "apps", "version": "v1", "kind": "Deployment"}],
                "properties": {"spec": with(reference("invented.DeploymentSpec"), "Invented words about the spec.")}
            },
            "invented.DeploymentSpec": {"properties": {"template": reference("invented.PodTemplateSpec")}},
            "invented.PodTemplateSpec": {"description": "An invented pod template.", "properties": {"spec": reference("invented.PodSpec")}},
            "invented.PodSpec": {"properties": {
                "containers": {"type": "array", "description": "Invented containers.", "items": reference("invented.Container")}
            }},
            "invented.Container": {"properties": {
                "image": {"type": "string", "description": "Zebra-striped image words, invented for this test."}
            }}
        }}
    })
    .to_string()
}

const DEPLOYMENT: &str = "apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: d\nspec:\n  selector:\n    matchLabels:\n      app: d\n  template:\n    metadata:\n      labels:\n        app: d\n    spec:\n      containers:\n      - name: web\n        image: nginx\n";

/// Field documentation for built-in kinds is read only where the user turned it on: from the user's
/// settings (here the initialization options, naming a mirror), the document of the configured
/// release is fetched once into the cache and the hover shows the field's description below what it
/// showed before; a workspace's crdls.toml alone fetches nothing, and says so.
#[test]
fn built_in_hovers_show_the_documentation_the_user_turned_on() {
    use crdls_tests::lsp::{Session, SessionOptions};

    let document = invented_apps_document();
    let site = Loopback::start(move |request| {
        if request.line.starts_with("GET /mirror/v1.36.") && request.line.contains("/api/openapi-spec/v3/apis__apps__v1_openapi.json ") {
            (200, document.clone())
        } else {
            (404, "no".into())
        }
    });
    let mirror = format!("{}/mirror", site.address);

    // The user's own setting: fetched once, for 1.36, into the cache.
    let options = SessionOptions::new()
        .file("crdls.toml", "kubeVersion = \"1.36\"\n")
        .setting("fieldDocs", serde_json::Value::String(mirror.clone()))
        .env("CRDLS_CACHE_DIR", "{workspace}/.cache");
    let mut session = Session::start_binary(&crdls_binary(), options);
    session.open("d.yaml", DEPLOYMENT);
    session.wait_for_diagnostics("d.yaml", 1);
    let hover = session.hover("d.yaml", session.position_of("d.yaml", "image"));
    let markdown = hover["contents"]["value"].as_str().unwrap_or_default().to_string();
    let (before, docs) = markdown.split_once("\n\n---\n\n").unwrap_or_else(|| panic!("no documentation: {markdown}"));
    assert!(before.starts_with("`spec.template.spec.containers[0].image`: **string**"), "{markdown}");
    assert!(before.contains("Kubernetes 1.36."), "{markdown}");
    assert!(docs.starts_with("Zebra-striped image words, invented for this test.\n\n*Kubernetes v1.36."), "{markdown}");
    assert!(docs.ends_with(&format!("'s API documentation, from {mirror}.*")), "{markdown}");
    let hover = session.hover("d.yaml", session.position_of("d.yaml", "template"));
    let markdown = hover["contents"]["value"].as_str().unwrap_or_default().to_string();
    assert!(markdown.contains("\n\n---\n\nAn invented pod template.\n\n"), "{markdown}");
    assert_eq!(site.requests().len(), 1, "{:?}", site.requests());
    let cached: Vec<_> = std::fs::read_dir(session.workspace().join(".cache/kubernetes-openapi")).unwrap().flatten().collect();
    assert_eq!(cached.len(), 1);
    assert!(cached[0].file_name().to_string_lossy().ends_with("-apis__apps__v1_openapi.json"), "{cached:?}");
    // A kind whose document the mirror does not have: the hover is as before, the failure said once.
    session.open("s.yaml", "apiVersion: v1\nkind: Service\nmetadata:\n  name: s\nspec:\n  type: ClusterIP\n");
    session.wait_for_diagnostics("s.yaml", 1);
    let hover = session.hover("s.yaml", session.position_of("s.yaml", "type"));
    let markdown = hover["contents"]["value"].as_str().unwrap_or_default();
    assert!(markdown.starts_with("`spec.type`: **string**") && !markdown.contains("---"), "{hover}");
    session.expect_log_containing("field documentation: cannot fetch");
    session.hover("s.yaml", session.position_of("s.yaml", "type"));
    assert_eq!(site.requests().len(), 2, "{:?}", site.requests());
    session.finish();

    // The workspace alone asks for it: nothing is fetched, the hover is what it was, and it is said.
    let options = SessionOptions::new()
        .file("crdls.toml", &format!("kubeVersion = \"1.36\"\nfieldDocs = \"{mirror}\"\n"))
        .env("CRDLS_CACHE_DIR", "{workspace}/.cache");
    let mut session = Session::start_binary(&crdls_binary(), options);
    let shown = session.expect_notification("window/showMessage");
    let message = shown["message"].as_str().unwrap_or_default();
    assert!(message.starts_with("crdls: crdls.toml asks for field documentation from the network (`fieldDocs`); not used"), "{message}");
    session.expect_log_containing("not used, because the workspace is not trusted");
    session.open("d.yaml", DEPLOYMENT);
    session.wait_for_diagnostics("d.yaml", 1);
    let hover = session.hover("d.yaml", session.position_of("d.yaml", "image"));
    let markdown = hover["contents"]["value"].as_str().unwrap_or_default();
    assert!(markdown.starts_with("`spec.template.spec.containers[0].image`: **string**") && !markdown.contains("---"), "{markdown}");
    session.finish();
    assert_eq!(site.requests().len(), 2, "{:?}", site.requests());
}

/// `crdls explain-field` prints what the hover shows; with `--field-docs`, the documentation of the
/// release it names, downloaded once and then read from the cache, even `--offline`; without the flag
/// nothing is fetched, and a crdls.toml asking for it changes nothing.
#[test]
fn explain_field_prints_the_hover_with_the_documentation_asked_for() {
    let document = invented_apps_document();
    let site = Loopback::start(move |request| {
        if request.line.contains("/api/openapi-spec/v3/apis__apps__v1_openapi.json ") {
            (200, document.clone())
        } else {
            (404, "no".into())
        }
    });
    let dir = TempTree::new("explain-field", &[]);
    dir.write("crdls.toml", &format!("fieldDocs = \"{}\"\n", site.address));
    let field = ["explain-field", "apps/v1", "Deployment", "spec.template.spec.containers.image", "--kube-version", "1.36"];
    let plain = crdls(&dir, &field);
    assert_eq!(plain.status.code(), Some(0), "{plain:?}");
    let plain = text(&plain.stdout);
    assert!(plain.starts_with("`spec.template.spec.containers[0].image`: **string**"), "{plain}");
    assert!(plain.contains("Kubernetes 1.36.") && !plain.contains("Zebra"), "{plain}");
    assert!(site.requests().is_empty());

    let flag = format!("--field-docs={}", site.address);
    let with_docs = crdls(&dir, &[&field[..], &[flag.as_str()]].concat());
    assert_eq!(with_docs.status.code(), Some(0), "{with_docs:?}");
    let with_docs = text(&with_docs.stdout);
    assert_eq!(
        with_docs.strip_prefix(plain.trim_end()).map(|rest| rest.starts_with("\n\n---\n\nZebra-striped image words")),
        Some(true),
        "{with_docs}"
    );
    assert_eq!(site.requests().len(), 1);
    assert!(site.requests()[0].starts_with("GET /v1.36."), "{:?}", site.requests());
    let offline = crdls(&dir, &[&field[..], &[flag.as_str(), "--offline"]].concat());
    assert_eq!(text(&offline.stdout), with_docs);
    assert_eq!(site.requests().len(), 1, "read from the cache");

    // Offline with nothing cached, or a document the site lacks: the field without documentation, and a warning.
    let service = crdls(&dir, &["explain-field", "v1", "Service", "spec.type", flag.as_str()]);
    assert_eq!(service.status.code(), Some(0), "{service:?}");
    assert!(text(&service.stderr).starts_with("crdls: warning: field documentation: cannot fetch "), "{service:?}");
    assert!(!text(&service.stdout).contains("---"), "{service:?}");

    let unknown = crdls(&dir, &["explain-field", "apps/v1", "Deployment", "spec.tempalte"]);
    assert_eq!(unknown.status.code(), Some(2), "{unknown:?}");
    assert!(text(&unknown.stderr).starts_with("crdls: Deployment spec has no field tempalte in Kubernetes 1."), "{unknown:?}");
    // `crdls check` has no hovers: the crdls.toml asking for field documentation draws no warning there.
    dir.write("d.yaml", DEPLOYMENT);
    let check = crdls(&dir, &["check", "d.yaml"]);
    assert_eq!(check.status.code(), Some(0), "{check:?}");
    assert!(!text(&check.stderr).contains("fieldDocs"), "{check:?}");
    let bad = crdls(&dir, &["explain-field", "apps/v1", "Deployment", "spec", "--field-docs=file:///etc"]);
    assert_eq!(text(&bad.stderr), "crdls: --field-docs: \"file:///etc\" is not true, false or an http(s) URL\n", "{bad:?}");
}
