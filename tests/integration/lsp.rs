//! Language-server sessions, end to end: each test scripts a session against the server (in-process,
//! and once as the real binary over stdio), snapshots its transcript in message order, and asserts
//! the facts the snapshot shows. Waits are on versions and messages, never on time. Snapshots live in
//! `tests/snapshots/lsp/`; run with `UPDATE_EXPECT=1` to rewrite them, then review the diff.

use expect_test::expect_file;
use serde_json::{json, Value};

use crdls_tests::lsp::{Change, DiagnosticsMode, Encoding, Position, Session, SessionOptions};
use crdls_tests::{crdls_binary, repo_root};

/// A custom resource with three errors (size above its maximum, owner against its pattern, tier not in
/// its enum) and a line of Japanese and an emoji before a label value.
const WIDGET: &str = "\
apiVersion: demo.crdls.dev/v1
kind: Widget
metadata:
  name: w
spec:
  size: 15
  owner: Team_A
  tier: platinum
  labels: {名前: 日本語🎉, id: short}
";

/// A Gizmo (declared by `tests/lsp-fixtures/gizmos-crd.yaml`, maximum 3 replicas) with one error.
const GIZMO: &str = "\
apiVersion: lsp.crdls.dev/v1
kind: Gizmo
metadata:
  name: g
spec:
  replicas: 5
  name: gizmo
";

/// A Widget with only unknown fields wrong.
const TYPOS: &str = "\
apiVersion: demo.crdls.dev/v1
kind: Widget
metadata:
  name: typos
spec:
  size: 2
  owner: team-d
  replcas: 3
";

fn widgets_workspace() -> SessionOptions {
    SessionOptions::new().repo_file("crds/widgets.yaml", "fixtures/crds/widgets.yaml")
}

fn gizmo_crd() -> String {
    std::fs::read_to_string(repo_root().join("tests/lsp-fixtures/gizmos-crd.yaml")).expect("the Gizmo CRD fixture")
}

/// The `code`s of a list of diagnostics, in order.
fn codes(diagnostics: &Value) -> Vec<String> {
    diagnostics.as_array().expect("a list of diagnostics").iter().map(|d| d["code"].as_str().unwrap_or_default().to_string()).collect()
}

/// The one diagnostic with `code`.
fn only<'a>(diagnostics: &'a Value, code: &str) -> &'a Value {
    let matching: Vec<&Value> = diagnostics.as_array().into_iter().flatten().filter(|d| d["code"] == code).collect();
    assert_eq!(matching.len(), 1, "one {code} in {diagnostics:#}");
    matching[0]
}

/// Compares a session's transcript with its snapshot, `tests/snapshots/lsp/NAME.txt`.
fn check_transcript(name: &str, transcript: &str) {
    expect_file![repo_root().join(format!("tests/snapshots/lsp/{name}.txt"))].assert_eq(transcript);
}

fn range_json(start: Position, end: Position) -> Value {
    json!({"start": {"line": start.line, "character": start.character}, "end": {"line": end.line, "character": end.character}})
}

fn initialize_snapshot(encoding: Encoding) -> (Value, String) {
    let session = Session::start(SessionOptions::new().encoding(encoding).progress());
    let mut result = session.initialize_result().clone();
    // The version changes with every release; the snapshot is about capabilities.
    assert_eq!(result["serverInfo"]["name"], "crdls");
    result["serverInfo"]["version"] = json!("<VERSION>");
    let transcript = session.finish();
    (result.clone(), format!("{:#}\n\n{transcript}", result))
}

#[test]
fn initialize_utf16_client() {
    let (result, snapshot) = initialize_snapshot(Encoding::Utf16);
    let caps = &result["capabilities"];
    assert_eq!(caps["positionEncoding"], "utf-16");
    assert_eq!(caps["textDocumentSync"]["change"], 2, "incremental sync");
    assert!(caps["diagnosticProvider"].is_null(), "a push client is not offered pull diagnostics");
    check_transcript("initialize-utf16", &snapshot);
}

#[test]
fn initialize_utf8_client() {
    let (result, snapshot) = initialize_snapshot(Encoding::Utf8);
    assert_eq!(result["capabilities"]["positionEncoding"], "utf-8");
    assert_eq!(result["capabilities"]["textDocumentSync"]["change"], 2, "incremental sync");
    check_transcript("initialize-utf8", &snapshot);
}

/// The workspace scan, then three versions of a Widget: errors, one fixed, one added after multibyte text.
fn scan_and_edit(encoding: Encoding) -> String {
    let options = widgets_workspace()
        .file("charts/app/values.yaml", "replicaCount: 2\nimage:\n  repository: nginx\n  tag: \"1.27\"\n")
        .file("notes.txt", "not YAML, not scanned\n")
        .encoding(encoding);
    let mut session = Session::start(options);
    assert_eq!(session.encoding(), encoding);

    session.open("widget.yaml", WIDGET);
    let v1 = session.wait_for_diagnostics("widget.yaml", 1);
    assert_eq!(codes(&v1["diagnostics"]), ["schema/maximum", "schema/pattern", "schema/enum"]);
    let size = session.position_of("widget.yaml", "15");
    assert_eq!(only(&v1["diagnostics"], "schema/maximum")["range"], range_json(size, Position::new(size.line, size.character + 2)));

    session.replace("widget.yaml", 2, "15", "5");
    let v2 = session.wait_for_diagnostics("widget.yaml", 2);
    assert_eq!(codes(&v2["diagnostics"]), ["schema/pattern", "schema/enum"]);

    session.replace("widget.yaml", 3, "short", "a-very-long-value");
    let v3 = session.wait_for_diagnostics("widget.yaml", 3);
    assert_eq!(codes(&v3["diagnostics"]), ["schema/pattern", "schema/enum", "schema/max-length"]);
    // `  labels: {名前: 日本語🎉, id: ` is 26 UTF-16 code units and 38 UTF-8 bytes long.
    let (start, end) = match encoding {
        Encoding::Utf16 => (26, 43),
        Encoding::Utf8 => (38, 55),
    };
    assert_eq!(only(&v3["diagnostics"], "schema/max-length")["range"], range_json(Position::new(8, start), Position::new(8, end)));
    session.finish()
}

#[test]
fn workspace_scan_and_edits_utf16() {
    check_transcript("scan-and-edits-utf16", &scan_and_edit(Encoding::Utf16));
}

#[test]
fn workspace_scan_and_edits_utf8() {
    check_transcript("scan-and-edits-utf8", &scan_and_edit(Encoding::Utf8));
}

/// A lone CR ends a line (LSP 3.17, and YAML 1.2, which the parser follows): diagnostics land on the
/// lines the client counts, and edits at the client's positions land where the client meant, also
/// when an edit brings a lone CR of its own.
#[test]
fn a_lone_cr_ends_a_line_for_diagnostics_and_edits() {
    let text = WIDGET.replace('\n', "\r");
    let mut session = Session::start(widgets_workspace());
    session.open("widget.yaml", &text);
    let v1 = session.wait_for_diagnostics("widget.yaml", 1);
    assert_eq!(codes(&v1["diagnostics"]), ["schema/maximum", "schema/pattern", "schema/enum"]);
    assert_eq!(only(&v1["diagnostics"], "schema/maximum")["range"], range_json(Position::new(5, 8), Position::new(5, 10)));

    // The harness counts lines as LSP does: "15" is at 5:8, and the edit adds a line after it.
    session.replace("widget.yaml", 2, "15", "5\r  extra: 1");
    let v2 = session.wait_for_diagnostics("widget.yaml", 2);
    assert_eq!(codes(&v2["diagnostics"]), ["schema/unknown-field", "schema/pattern", "schema/enum"]);
    let extra = session.position_of("widget.yaml", "extra");
    assert_eq!(extra, Position::new(6, 2));
    assert_eq!(only(&v2["diagnostics"], "schema/unknown-field")["range"]["start"], range_json(extra, extra)["start"]);

    // An edit on a line after the one the previous edit added.
    session.replace("widget.yaml", 3, "platinum", "gold");
    let v3 = session.wait_for_diagnostics("widget.yaml", 3);
    assert_eq!(codes(&v3["diagnostics"]), ["schema/unknown-field", "schema/pattern"]);
    assert_eq!(session.position_of("widget.yaml", "gold"), Position::new(8, 8));
    session.finish();
}

#[test]
fn rapid_edits_settle_on_the_latest_version() {
    // The default debounce: checks of versions 1 to 3 are superseded (the harness drops any older version
    // published before version 4; one published after it would be left over and fail `finish`).
    let mut session = Session::start(widgets_workspace().setting("debounceMs", json!(50)));
    session.open("widget.yaml", WIDGET);
    session.replace("widget.yaml", 2, "15", "5");
    session.replace("widget.yaml", 3, "Team_A", "team-a");
    session.replace("widget.yaml", 4, "platinum", "gold");
    let v4 = session.wait_for_diagnostics("widget.yaml", 4);
    assert_eq!(v4["diagnostics"], json!([]));
    check_transcript("rapid-edits", &session.finish());
}

#[test]
fn plain_yaml_without_crds_has_no_diagnostics() {
    let mut session = Session::start(widgets_workspace());
    session.open(
        "values.yaml",
        "# Helm values\nreplicaCount: 2\nimage:\n  repository: nginx\n  tag: \"1.27\"\nservice: {type: ClusterIP, port: 80}\n",
    );
    session.open(
        "deployment.yaml",
        "apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: web\nspec:\n  replicas: 2\n  selector: {matchLabels: {app: web}}\n  template:\n    metadata: {labels: {app: web}}\n    spec:\n      containers:\n      - name: web\n        image: nginx:1.27\n",
    );
    let values = session.wait_for_diagnostics("values.yaml", 1);
    let deployment = session.wait_for_diagnostics("deployment.yaml", 1);
    assert_eq!(values["diagnostics"], json!([]));
    assert_eq!(deployment["diagnostics"], json!([]));
    check_transcript("plain-yaml", &session.finish());
}

/// A FIFO among the workspace's YAML files is not opened (that would block the scan for good): the scan
/// logs it and finishes, and the CRD beside it is found.
#[cfg(unix)]
#[test]
fn a_fifo_in_the_workspace_does_not_stop_indexing() {
    let crd = gizmo_crd();
    let mut session = Session::start(SessionOptions::new().file("crds/gizmos.yaml", &crd).fifo("crds/pipe.yaml"));
    let logged = session.expect_log_containing("not read: ");
    assert!(logged.ends_with("crds/pipe.yaml: not a regular file (a FIFO); crdls reads only regular files"), "{logged}");
    session.open("gizmo.yaml", GIZMO);
    let diagnostics = session.wait_for_diagnostics("gizmo.yaml", 1);
    assert_eq!(codes(&diagnostics["diagnostics"]), ["schema/maximum"]);
    session.finish();
}

#[test]
fn live_crd_buffer_rechecks_open_resources() {
    let crd = gizmo_crd();
    let mut session = Session::start(SessionOptions::new().file("crds/gizmos.yaml", &crd));
    session.open("gizmo.yaml", GIZMO);
    let before = session.wait_for_diagnostics("gizmo.yaml", 1);
    assert_eq!(codes(&before["diagnostics"]), ["schema/maximum"]);

    // Opening the CRD as it is on disk: the buffer now supplies the CRD (the Gizmo's recheck that follows
    // repeats its diagnostics, which the harness drops as it drops every identical republication).
    session.open("crds/gizmos.yaml", &crd);
    let crd_diagnostics = session.wait_for_diagnostics("crds/gizmos.yaml", 1);
    assert_eq!(crd_diagnostics["diagnostics"], json!([]));

    // Raising the maximum in the unsaved buffer clears the Gizmo's error; the file on disk is unchanged.
    session.replace("crds/gizmos.yaml", 2, "maximum: 3", "maximum: 10");
    session.wait_for_diagnostics("crds/gizmos.yaml", 2);
    let after = session.wait_for_next_diagnostics("gizmo.yaml");
    assert_eq!(after["version"], 1);
    assert_eq!(after["diagnostics"], json!([]));

    // Tightening the pattern in the buffer adds an error on the Gizmo's name.
    session.replace("crds/gizmos.yaml", 3, "'^[a-z]+$'", "'^[0-9]+$'");
    session.wait_for_diagnostics("crds/gizmos.yaml", 3);
    let pattern = session.wait_for_next_diagnostics("gizmo.yaml");
    assert_eq!(codes(&pattern["diagnostics"]), ["schema/pattern"]);

    // Closing the buffer brings back the CRD on disk (maximum 3, lowercase names).
    session.close("crds/gizmos.yaml");
    let closed = session.wait_for_next_diagnostics("crds/gizmos.yaml");
    assert!(closed["version"].is_null());
    assert_eq!(closed["diagnostics"], json!([]));
    let reverted = session.wait_for_next_diagnostics("gizmo.yaml");
    assert_eq!(codes(&reverted["diagnostics"]), ["schema/maximum"]);
    check_transcript("live-crd-buffer", &session.finish());
}

#[test]
fn pull_diagnostics_return_the_pushed_items() {
    let mut push = Session::start(widgets_workspace());
    push.open("widget.yaml", WIDGET);
    let pushed = push.wait_for_diagnostics("widget.yaml", 1)["diagnostics"].clone();
    push.finish();

    let mut session = Session::start(widgets_workspace().diagnostics(DiagnosticsMode::Pull));
    let provider = &session.initialize_result()["capabilities"]["diagnosticProvider"];
    assert_eq!(provider["identifier"], "crdls");
    assert_eq!(provider["interFileDependencies"], true);
    session.open("widget.yaml", WIDGET);
    let report = session.pull_diagnostics("widget.yaml");
    assert_eq!(report["kind"], "full");
    assert_eq!(codes(&report["items"]), ["schema/maximum", "schema/pattern", "schema/enum"]);
    assert_eq!(report["items"], pushed);

    session.replace("widget.yaml", 2, "15", "5");
    let report = session.pull_diagnostics("widget.yaml");
    assert_eq!(codes(&report["items"]), ["schema/pattern", "schema/enum"]);
    // A pull client gets no publishDiagnostics: `finish` fails on any message left unconsumed.
    check_transcript("pull-diagnostics", &session.finish());
}

/// The editor reports a required field left out beside a `${VAR}` substitution, as `crdls check`
/// does (fixtures/resources/substitutions.yaml): the substitution fills in its own value only.
#[test]
fn a_substitution_hides_no_required_field_left_out_beside_it() {
    let mut session = Session::start(widgets_workspace().diagnostics(DiagnosticsMode::Pull));
    let text = "apiVersion: demo.crdls.dev/v1\nkind: Widget\nmetadata:\n  name: w\nspec:\n  size: 2\n  owner: team-a\n  ports:\n  - protocol: ${PROTOCOL}\n";
    session.open("widget.yaml", text);
    let report = session.pull_diagnostics("widget.yaml");
    assert_eq!(codes(&report["items"]), ["schema/required"]);
    assert!(report["items"][0]["message"].as_str().unwrap_or_default().contains("\"containerPort\""), "{report:#}");
    session.finish();
}

/// A client that could pull but cannot be asked to pull again would keep what it pulled before the
/// CRDs were indexed: it is not offered pull diagnostics, and gets them pushed.
#[test]
fn client_without_refresh_support_gets_pushed_diagnostics() {
    let mut session = Session::start(widgets_workspace().diagnostics(DiagnosticsMode::PullWithoutRefresh));
    assert!(session.initialize_result()["capabilities"]["diagnosticProvider"].is_null());
    session.open("widget.yaml", WIDGET);
    let pushed = session.wait_for_diagnostics("widget.yaml", 1);
    assert_eq!(codes(&pushed["diagnostics"]), ["schema/maximum", "schema/pattern", "schema/enum"]);
    session.finish();
}

#[test]
fn pull_client_sees_live_crd_edits_after_pulling_the_crd() {
    let crd = gizmo_crd();
    let mut session = Session::start(SessionOptions::new().file("crds/gizmos.yaml", &crd).diagnostics(DiagnosticsMode::Pull));
    session.open("gizmo.yaml", GIZMO);
    assert_eq!(codes(&session.pull_diagnostics("gizmo.yaml")["items"]), ["schema/maximum"]);
    session.open("crds/gizmos.yaml", &crd);
    session.replace("crds/gizmos.yaml", 2, "maximum: 3", "maximum: 10");
    // Pulling the CRD buffer makes sure the server has indexed its latest text.
    assert_eq!(session.pull_diagnostics("crds/gizmos.yaml")["items"], json!([]));
    assert_eq!(session.pull_diagnostics("gizmo.yaml")["items"], json!([]));
    // Whether the server asks for workspace/diagnostic/refresh here depends on which of its own tasks
    // indexed the edited buffer first, so this transcript is not a snapshot.
    session.finish();
}

#[test]
fn watched_crd_file_is_indexed() {
    let mut session = Session::start(SessionOptions::new().watch_files());
    session.open("gizmo.yaml", GIZMO);
    let unknown = session.wait_for_diagnostics("gizmo.yaml", 1);
    assert_eq!(codes(&unknown["diagnostics"]), ["resource/no-crd"]);

    session.write_file("crds/gizmos.yaml", &gizmo_crd());
    session.watched_files_changed(&[("crds/gizmos.yaml", 1)]);
    let known = session.wait_for_next_diagnostics("gizmo.yaml");
    assert_eq!(codes(&known["diagnostics"]), ["schema/maximum"]);

    session.remove_file("crds/gizmos.yaml");
    session.watched_files_changed(&[("crds/gizmos.yaml", 3)]);
    let gone = session.wait_for_next_diagnostics("gizmo.yaml");
    assert_eq!(codes(&gone["diagnostics"]), ["resource/no-crd"]);
    let transcript = session.finish();
    assert!(transcript.contains("client/registerCapability"), "{transcript}");
    check_transcript("watched-files", &transcript);
}

/// Folders the user removes from the editor's workspace are forgotten and those added are scanned:
/// the open Gizmo loses its CRD when only a subfolder without it stays, and finds it again when the
/// whole folder comes back.
#[test]
fn workspace_folders_added_and_removed_are_scanned_again() {
    let mut session = Session::start(SessionOptions::new().file("crds/gizmos.yaml", &gizmo_crd()).file("app/README.md", "app\n"));
    session.open("app/gizmo.yaml", GIZMO);
    let known = session.wait_for_diagnostics("app/gizmo.yaml", 1);
    assert_eq!(codes(&known["diagnostics"]), ["schema/maximum"]);
    let whole = json!({"uri": session.uri("").trim_end_matches('/'), "name": "whole"});
    let app = json!({"uri": session.uri("app"), "name": "app"});
    session.notify("workspace/didChangeWorkspaceFolders", json!({"event": {"added": [app.clone()], "removed": [whole.clone()]}}));
    session.expect_log_containing("indexed 0 CRDs");
    let gone = session.wait_for_next_diagnostics("app/gizmo.yaml");
    assert_eq!(codes(&gone["diagnostics"]), ["resource/no-crd"]);
    session.notify("workspace/didChangeWorkspaceFolders", json!({"event": {"added": [whole], "removed": [app]}}));
    session.expect_log_containing("indexed 1 CRDs");
    let back = session.wait_for_next_diagnostics("app/gizmo.yaml");
    assert_eq!(codes(&back["diagnostics"]), ["schema/maximum"]);
    session.finish();
}

/// A script written beside a manifest that fills in one of its words with `sed` makes that word a
/// placeholder: the open manifest is checked again, without the error on it, and again with it once
/// the script is gone.
#[test]
fn a_script_that_fills_in_an_open_manifest_changes_its_diagnostics() {
    const CONFIG_MAP: &str = "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: my_host\ndata:\n  a: \"1\"\n";
    let mut session = Session::start(SessionOptions::new().watch_files());
    session.open("cm.yaml", CONFIG_MAP);
    let before = session.wait_for_diagnostics("cm.yaml", 1);
    assert_eq!(codes(&before["diagnostics"]), ["metadata/name"]);

    session.write_file("fill.sh", "#!/bin/sh\nsed -e \"s/my_host/$node/g\" cm.yaml | kubectl apply -f -\n");
    session.watched_files_changed(&[("fill.sh", 1)]);
    let filled = session.wait_for_next_diagnostics("cm.yaml");
    assert!(codes(&filled["diagnostics"]).is_empty(), "{filled}");

    session.remove_file("fill.sh");
    session.watched_files_changed(&[("fill.sh", 3)]);
    let again = session.wait_for_next_diagnostics("cm.yaml");
    assert_eq!(codes(&again["diagnostics"]), ["metadata/name"]);
    let transcript = session.finish();
    assert!(transcript.contains("**/*.{sh,bash}"), "the server watches scripts: {transcript}");
}

fn typos_session(options: SessionOptions) -> (Value, String) {
    let mut session = Session::start(options);
    session.open("typos.yaml", TYPOS);
    let diagnostics = session.wait_for_diagnostics("typos.yaml", 1)["diagnostics"].clone();
    (diagnostics, session.finish())
}

#[test]
fn unknown_fields_are_warnings_until_changed_settings_make_them_errors() {
    let mut session = Session::start(widgets_workspace());
    session.open("typos.yaml", TYPOS);
    let diagnostics = session.wait_for_diagnostics("typos.yaml", 1)["diagnostics"].clone();
    assert_eq!(codes(&diagnostics), ["schema/unknown-field"]);
    assert_eq!(diagnostics[0]["severity"], 2);
    session.notify("workspace/didChangeConfiguration", json!({"settings": {"crdls": {"strict": true}}}));
    let diagnostics = session.wait_for_next_diagnostics("typos.yaml")["diagnostics"].clone();
    assert_eq!(codes(&diagnostics), ["schema/unknown-field"]);
    assert_eq!(diagnostics[0]["severity"], 1);
    check_transcript("settings-changed", &session.finish());
}

#[test]
fn strict_setting_makes_unknown_fields_errors() {
    let (diagnostics, transcript) = typos_session(widgets_workspace().setting("strict", json!(true)));
    assert_eq!(codes(&diagnostics), ["schema/unknown-field"]);
    assert_eq!(diagnostics[0]["severity"], 1);
    check_transcript("settings-strict", &transcript);
}

#[test]
fn severity_setting_turns_unknown_fields_off() {
    let (diagnostics, transcript) = typos_session(widgets_workspace().setting("severity", json!({"schema/unknown-field": "off"})));
    assert_eq!(diagnostics, json!([]));
    check_transcript("settings-severity-off", &transcript);
}

#[test]
fn workspace_configuration_is_requested_and_applied() {
    let options = widgets_workspace().progress().configuration(json!({"crdls": {"strict": true, "severity": {"schema/pattern": "hint"}}}));
    let mut session = Session::start(options);
    session.open("typos.yaml", &TYPOS.replace("team-d", "Team_D"));
    let diagnostics = session.wait_for_diagnostics("typos.yaml", 1)["diagnostics"].clone();
    assert_eq!(codes(&diagnostics), ["schema/pattern", "schema/unknown-field"]);
    assert_eq!(diagnostics[0]["severity"], 4, "hint, from workspace/configuration");
    assert_eq!(diagnostics[1]["severity"], 1, "error, from strict in workspace/configuration");
    let transcript = session.finish();
    assert!(transcript.contains("workspace/configuration"), "{transcript}");
    check_transcript("settings-configuration", &transcript);
}

/// A crdls.toml that is there but cannot be read is said in the log (as `crdls check` says it), not
/// silently replaced by the defaults; an invalid one is said with what is wrong in it.
#[test]
fn a_crdls_toml_that_cannot_be_read_or_is_invalid_is_said() {
    let mut session = Session::start(SessionOptions::new().file("crdls.toml/inside.txt", ""));
    let logged = session.expect_log_containing("cannot read crdls.toml");
    assert!(logged.contains("not a regular file (a directory)") && logged.ends_with("its settings are not used"), "{logged}");
    session.finish();
    let mut session = Session::start(SessionOptions::new().file("crdls.toml", "[severity]\n\"schema/unknwon-field\" = \"off\"\n"));
    session
        .expect_log_containing("crdls.toml: severity: no diagnostic code \"schema/unknwon-field\"; did you mean \"schema/unknown-field\"?");
    session.finish();
}

#[test]
fn changed_settings_replace_the_previous_ones_and_crd_paths_rescan() {
    // crdls.toml makes unknown fields errors; the CRD sits in a hidden directory the scan skips unless
    // crdPaths names it.
    let options = SessionOptions::new()
        .file("crdls.toml", "strict = true\n")
        .repo_file(".crds/widgets.yaml", "fixtures/crds/widgets.yaml")
        .configuration(json!({"crdls": {"strict": false, "crdPaths": [".crds/"], "server": {"path": ""}, "trace": {"server": "off"}}}));
    let mut session = Session::start(options);
    session.open("typos.yaml", TYPOS);
    let diagnostics = session.wait_for_diagnostics("typos.yaml", 1)["diagnostics"].clone();
    assert_eq!(codes(&diagnostics), ["schema/unknown-field"], "the CRD from crdPaths serves the Widget");
    assert_eq!(diagnostics[0]["severity"], 2, "strict off in the client settings wins over crdls.toml");

    // The user removes `strict` from their settings: crdls.toml's value is back (not the last one sent).
    session.set_configuration(json!({"crdls": {"crdPaths": [".crds/"]}}));
    session.notify("workspace/didChangeConfiguration", json!({"settings": null}));
    let diagnostics = session.wait_for_next_diagnostics("typos.yaml")["diagnostics"].clone();
    assert_eq!(codes(&diagnostics), ["schema/unknown-field"]);
    assert_eq!(diagnostics[0]["severity"], 1, "strict = true from crdls.toml");

    // Then removes crdPaths: the workspace is scanned again and the Widget CRD is gone.
    session.set_configuration(json!({"crdls": {}}));
    session.notify("workspace/didChangeConfiguration", json!({"settings": null}));
    session.expect_log_containing("indexed 0 CRDs");
    let diagnostics = session.wait_for_next_diagnostics("typos.yaml")["diagnostics"].clone();
    assert_eq!(codes(&diagnostics), ["resource/no-crd"], "{diagnostics:#}");
    let transcript = session.finish();
    assert!(!transcript.contains("crdls settings:"), "the client-only keys are not complained about:\n{transcript}");
}

#[test]
fn a_crd_open_before_the_scan_counts_from_the_start() {
    // As after a restart: the editor re-opens its buffers, the CRD among them, while the scan runs.
    let crd = std::fs::read_to_string(repo_root().join("fixtures/crds/widgets.yaml")).expect("the Widget CRD");
    let options = widgets_workspace().no_index_wait();
    let mut session = Session::start(options);
    session.open("crds/widgets.yaml", &crd);
    session.open("typos.yaml", TYPOS);
    assert_eq!(session.wait_for_diagnostics("crds/widgets.yaml", 1)["diagnostics"], json!([]));
    let log = session.expect_log_containing("indexed ");
    assert!(log.contains("indexed 1 CRDs from 1 files"), "{log}");
    // An edit after the scan: its diagnostics are checked against the index as the scan left it.
    session.replace("typos.yaml", 2, "replcas", "replicas");
    let diagnostics = session.wait_for_diagnostics("typos.yaml", 2)["diagnostics"].clone();
    assert_eq!(codes(&diagnostics), ["schema/unknown-field"], "{diagnostics:#}");
    session.finish();
}

/// While the first scan reads a workspace of many CRDs, a document opened at once gets no diagnostics
/// computed against the partial index ("no CRD for group ...", taken back when the scan ends): its
/// first diagnostics are the right ones.
#[test]
fn no_diagnostics_come_from_a_partial_index() {
    let widgets = std::fs::read_to_string(repo_root().join("fixtures/crds/widgets.yaml")).expect("the Widget CRD");
    let mut options = SessionOptions::new().no_index_wait();
    for i in 0..400 {
        let crd = widgets.replace("demo.crdls.dev", &format!("g{i}.crdls.dev"));
        options = options.file(&format!("crds/{i:03}/widgets.yaml"), &crd);
    }
    // The Gizmo CRD sorts last, so the scan reads it after the four hundred others.
    let mut session = Session::start(options.file("crds/zz/gizmos.yaml", &gizmo_crd()));
    session.open("gizmo.yaml", GIZMO);
    let first = session.wait_for_next_diagnostics("gizmo.yaml");
    assert_eq!(codes(&first["diagnostics"]), ["schema/maximum"], "{first:#}");
    let log = session.expect_log_containing("indexed ");
    assert!(log.contains("indexed 401 CRDs from 401 files"), "{log}");
    session.finish();

    // A client that pulls is answered once the scan is done.
    let mut options = SessionOptions::new().no_index_wait().diagnostics(DiagnosticsMode::Pull);
    for i in 0..400 {
        let crd = widgets.replace("demo.crdls.dev", &format!("g{i}.crdls.dev"));
        options = options.file(&format!("crds/{i:03}/widgets.yaml"), &crd);
    }
    let mut session = Session::start(options.file("crds/zz/gizmos.yaml", &gizmo_crd()));
    session.open("gizmo.yaml", GIZMO);
    let pulled = session.pull_diagnostics("gizmo.yaml");
    assert_eq!(codes(&pulled["items"]), ["schema/maximum"], "{pulled:#}");
    session.expect_log_containing("indexed 401 CRDs");
    session.finish();
}

#[test]
fn bad_requests_and_edits_do_not_kill_the_server() {
    let mut session = Session::start(widgets_workspace());
    // Requests about a document that is not open.
    let nowhere = Position::new(0, 0);
    assert!(session.hover("missing.yaml", nowhere).is_null());
    assert!(session.completion("missing.yaml", nowhere).is_null());
    assert!(session.definition("missing.yaml", nowhere).is_null());
    let uri = session.uri("missing.yaml");
    let pulled = session.request_response("textDocument/diagnostic", json!({"textDocument": {"uri": uri}}));
    assert_eq!(pulled["error"]["code"], -32602, "{pulled}");
    // A method nobody implements.
    let unknown = session.request_response("crdls/noSuchMethod", json!({}));
    assert_eq!(unknown["error"]["code"], -32601, "{unknown}");
    // A body that is not JSON gets a ParseError (its id cannot be known); the session goes on.
    session.send_raw_body("{this is not json");
    let parse_error = session.expect_response(Value::Null);
    assert_eq!(parse_error["error"]["code"], -32700, "{parse_error}");
    let after = session.request_response("crdls/noSuchMethod", json!({}));
    assert_eq!(after["error"]["code"], -32601, "the server still answers after a malformed message: {after}");
    // A change to a document that is not open is ignored (no diagnostics for it: `finish` checks).
    let unopened = session.uri("unopened.yaml");
    session.notify(
        "textDocument/didChange",
        json!({"textDocument": {"uri": unopened, "version": 2}, "contentChanges": [{"text": "kind: Widget\n"}]}),
    );

    session.open("widget.yaml", WIDGET);
    session.wait_for_diagnostics("widget.yaml", 1);
    // Ranges past the end of a line and of the document are clamped; a reversed range inserts.
    session.change(
        "widget.yaml",
        2,
        &[
            Change::range(Position::new(5, 8), Position::new(5, 400), "4"),
            Change::range(Position::new(40, 0), Position::new(99, 7), "status: {ready: true}\n"),
            Change::range(Position::new(6, 9), Position::new(6, 2), "x"),
        ],
    );
    let v2 = session.wait_for_diagnostics("widget.yaml", 2);
    assert_eq!(session.text("widget.yaml").lines().nth(5), Some("  size: 4"));
    assert!(session.text("widget.yaml").ends_with("}\nstatus: {ready: true}\n"));
    assert_eq!(codes(&v2["diagnostics"]), ["schema/pattern", "schema/enum"]);
    let owner = only(&v2["diagnostics"], "schema/pattern");
    assert_eq!(owner["range"]["start"], json!({"line": 6, "character": 9}));
    // A position inside a surrogate pair (the second UTF-16 unit of the emoji) lands before the emoji:
    // the API server's cause quotes the value as the server sees it.
    let owner = session.position_of("widget.yaml", "xTeam_A");
    let inside_emoji = Position::new(owner.line, owner.character + 3);
    session.change(
        "widget.yaml",
        3,
        &[Change::range(owner, Position::new(owner.line, owner.character + 7), "\"a🎉b\""), Change::range(inside_emoji, inside_emoji, "!")],
    );
    let v3 = session.wait_for_diagnostics("widget.yaml", 3);
    assert!(session.text("widget.yaml").contains("owner: \"a!🎉b\"\n"));
    let cause = only(&v3["diagnostics"], "schema/pattern")["message"].as_str().unwrap_or_default().to_string();
    assert!(cause.contains("Invalid value: \"a!🎉b\""), "{cause}");
    // Still answering.
    let uri = session.uri("widget.yaml");
    let hover =
        session.request_response("textDocument/hover", json!({"textDocument": {"uri": uri}, "position": {"line": 5, "character": 3}}));
    assert!(hover.get("error").is_none(), "{hover}");
    check_transcript("robustness", &session.finish());
}

#[test]
fn completion_hover_and_definition_on_a_custom_resource() {
    let mut session = Session::start(widgets_workspace());
    let cursor = session.open_with_cursor(
        "widget.yaml",
        "apiVersion: demo.crdls.dev/v1\nkind: Widget\nmetadata:\n  name: w\nspec:\n  size: 3\n  owner: team-a\n  ti$0\n",
    );
    session.wait_for_diagnostics("widget.yaml", 1);
    let completion = session.completion("widget.yaml", cursor);
    let labels: Vec<&str> = completion["items"].as_array().expect("items").iter().filter_map(|i| i["label"].as_str()).collect();
    assert!(labels.contains(&"tier"), "{labels:?}");
    assert!(!labels.contains(&"size"), "keys already present are not offered: {labels:?}");
    let size = session.position_of("widget.yaml", "size");
    let hover = session.hover("widget.yaml", Position::new(size.line, size.character + 1));
    assert_eq!(hover["contents"]["kind"], "markdown", "{hover}");
    assert!(hover["contents"]["value"].as_str().unwrap_or_default().contains("spec.size"), "{hover}");
    let owner = session.position_of("widget.yaml", "owner");
    let definition = session.definition("widget.yaml", owner);
    assert_eq!(definition["uri"], session.uri("crds/widgets.yaml"));
    check_transcript("completion-hover-definition", &session.finish());
}

#[test]
fn outline_and_folding() {
    let mut session = Session::start(widgets_workspace());
    session.open(
        "two.yaml",
        "apiVersion: demo.crdls.dev/v1\nkind: Widget\nmetadata:\n  name: w\nspec:\n  size: 3\n  owner: team-a\n---\nreplicaCount: 1\n",
    );
    session.wait_for_diagnostics("two.yaml", 1);
    let uri = session.uri("two.yaml");
    let symbols = session.request("textDocument/documentSymbol", json!({"textDocument": {"uri": uri}}));
    let names: Vec<&str> = symbols.as_array().expect("symbols").iter().filter_map(|s| s["name"].as_str()).collect();
    assert_eq!(names, ["Widget w", "document 2"]);
    assert_eq!(symbols[0]["children"][3]["name"], "spec");
    assert_eq!(symbols[0]["children"][3]["children"][0]["name"], "size");
    let folds = session.request("textDocument/foldingRange", json!({"textDocument": {"uri": uri}}));
    let lines: Vec<(u64, u64)> =
        folds.as_array().expect("folds").iter().map(|f| (f["startLine"].as_u64().unwrap(), f["endLine"].as_u64().unwrap())).collect();
    assert_eq!(lines, [(0, 6), (2, 3), (4, 6)]);
    check_transcript("outline-and-folding", &session.finish());
}

/// A Widget with one diagnostic of each fixable kind, and a second document in a deprecated version.
const FIXABLE: &str = "\
apiVersion: demo.crdls.dev/v1
kind: Widget
metadata:
  name: w
spec:
  size: 3
  tier: golld
  replcas: 2
  ports:
  - containerPort: 80
---
apiVersion: demo.crdls.dev/v1beta1
kind: Widget
metadata:
  name: old
spec: {size: 1, owner: team-b}
";

#[test]
fn code_actions_fix_what_the_diagnostics_report() {
    let mut session = Session::start(widgets_workspace());
    session.open("fix.yaml", FIXABLE);
    let diagnostics = session.wait_for_diagnostics("fix.yaml", 1)["diagnostics"].clone();
    assert_eq!(codes(&diagnostics), ["schema/required", "schema/enum", "schema/unknown-field", "resource/deprecated-version"]);
    let actions = session.code_actions("fix.yaml", Position::new(0, 0), Position::new(16, 0), diagnostics.clone());
    let titles: Vec<&str> = actions.as_array().expect("actions").iter().filter_map(|a| a["title"].as_str()).collect();
    assert_eq!(
        titles,
        [
            "Add required field \"owner\"",
            "Change to gold",
            "Change to silver",
            "Change to bronze",
            "Remove unknown field \"replcas\"",
            "Change apiVersion to demo.crdls.dev/v1"
        ]
    );
    // Apply the preferred fix of each diagnostic, bottom first so earlier ranges stay valid.
    let mut edits: Vec<(Position, Position, String)> = actions
        .as_array()
        .into_iter()
        .flatten()
        .filter(|a| a["isPreferred"] == json!(true))
        .flat_map(|a| a["edit"]["changes"].as_object().cloned().unwrap_or_default().into_values())
        .flat_map(|edits| edits.as_array().cloned().unwrap_or_default())
        .map(|e| {
            let at = |p: &Value| Position::new(p["line"].as_u64().unwrap() as u32, p["character"].as_u64().unwrap() as u32);
            (at(&e["range"]["start"]), at(&e["range"]["end"]), e["newText"].as_str().unwrap().to_string())
        })
        .collect();
    edits.sort_by_key(|(start, _, _)| std::cmp::Reverse((start.line, start.character)));
    let changes: Vec<Change> = edits.iter().map(|(start, end, text)| Change::range(*start, *end, text)).collect();
    session.change("fix.yaml", 2, &changes);
    let fixed = session.wait_for_diagnostics("fix.yaml", 2)["diagnostics"].clone();
    // What is left is the placeholder of the added field, for the user to fill in.
    assert_eq!(codes(&fixed), ["schema/min-length"], "{}", session.text("fix.yaml"));
    // Only quick fixes are asked for here, and a diagnostic from another tool gets none.
    let foreign =
        json!([{"range": range_json(Position::new(0, 0), Position::new(0, 1)), "message": "x", "source": "other", "code": "schema/enum"}]);
    let none = session.code_actions("fix.yaml", Position::new(0, 0), Position::new(0, 1), foreign);
    assert_eq!(none, json!([]));
    check_transcript("code-actions", &session.finish());
}

#[test]
fn inlay_hints_show_the_defaults_the_api_server_adds() {
    let mut session = Session::start(widgets_workspace());
    session.open("hints.yaml", "apiVersion: demo.crdls.dev/v1\nkind: Widget\nmetadata:\n  name: w\nspec:\n  size: 3\n  owner: team-a\n  ports:\n  - containerPort: 80\n  - {containerPort: 81, protocol: UDP}\n");
    session.wait_for_diagnostics("hints.yaml", 1);
    let hints = session.inlay_hints("hints.yaml");
    let labels: Vec<(u64, &str)> =
        hints.as_array().expect("hints").iter().map(|h| (h["position"]["line"].as_u64().unwrap(), h["label"].as_str().unwrap())).collect();
    assert_eq!(labels, [(4, "tier: bronze (default)"), (8, "protocol: TCP (default)")]);
    // The setting turns them off.
    session.notify("workspace/didChangeConfiguration", json!({"settings": {"crdls": {"inlayHints": false}}}));
    let off = session.inlay_hints("hints.yaml");
    assert!(off.is_null(), "{off}");
    check_transcript("inlay-hints", &session.finish());
}

/// A CRD whose rule iterates an unbounded list of unbounded strings: over the cost limit.
const COSTLY_CRD: &str = "apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata:
  name: hosts.demo.crdls.dev
spec:
  group: demo.crdls.dev
  scope: Namespaced
  names: {kind: Host, plural: hosts}
  versions:
  - name: v1
    served: true
    storage: true
    schema:
      openAPIV3Schema:
        type: object
        properties:
          names:
            type: array
            items:
              type: string
            x-kubernetes-validations:
            - rule: self.all(x, x.contains('a string'))
";

/// Authoring a rule: the cost error, the cost hint, the hover that explains it, and the quick fix that
/// bounds the list and its strings, after which the CRD is clean.
#[test]
fn rule_cost_is_shown_explained_and_fixed() {
    let mut session = Session::start(SessionOptions::new());
    session.open("crd.yaml", COSTLY_CRD);
    let diagnostics = session.wait_for_diagnostics("crd.yaml", 1)["diagnostics"].clone();
    assert_eq!(codes(&diagnostics), ["cel/cost-total", "cel/cost", "cel/cost-total"]);
    let hints = session.inlay_hints("crd.yaml");
    let labels: Vec<&str> = hints.as_array().expect("hints").iter().map(|h| h["label"].as_str().unwrap()).collect();
    assert_eq!(labels, ["cost 329,857,577,777 (more than 100x the limit)"]);
    let hover = session.hover("crd.yaml", session.position_of("crd.yaml", "contains"));
    let markdown = hover["contents"]["value"].as_str().unwrap_or_default();
    assert!(markdown.contains("`.names` has no `maxItems`"), "{hover}");
    let rule = diagnostics.as_array().unwrap().iter().find(|d| d["code"] == "cel/cost").unwrap().clone();
    let at = |p: &Value| Position::new(p["line"].as_u64().unwrap() as u32, p["character"].as_u64().unwrap() as u32);
    let actions = session.code_actions("crd.yaml", at(&rule["range"]["start"]), at(&rule["range"]["end"]), json!([rule]));
    let action = &actions[0];
    assert!(action["title"].as_str().unwrap().starts_with("Bound the rule's cost"), "{actions}");
    let mut edits: Vec<(Position, Position, String)> = action["edit"]["changes"]
        .as_object()
        .unwrap()
        .values()
        .flat_map(|e| e.as_array().cloned().unwrap_or_default())
        .map(|e| (at(&e["range"]["start"]), at(&e["range"]["end"]), e["newText"].as_str().unwrap().to_string()))
        .collect();
    edits.sort_by_key(|(start, _, _)| std::cmp::Reverse((start.line, start.character)));
    let changes: Vec<Change> = edits.iter().map(|(start, end, text)| Change::range(*start, *end, text)).collect();
    session.change("crd.yaml", 2, &changes);
    let fixed = session.wait_for_diagnostics("crd.yaml", 2)["diagnostics"].clone();
    assert_eq!(fixed, json!([]), "{}", session.text("crd.yaml"));
    session.finish();
}

/// A raw request frame for `textDocument/hover` on a document that is not open, with id `id`.
fn hover_body(id: i64) -> String {
    format!(
        r#"{{"jsonrpc":"2.0","id":{id},"method":"textDocument/hover","params":{{"textDocument":{{"uri":"file:///nowhere.yaml"}},"position":{{"line":0,"character":0}}}}}}"#
    )
}

/// Asserts that `response` is an error with `code`.
fn assert_error(response: &Value, code: i64) {
    assert_eq!(response["error"]["code"], code, "{response}");
}

/// The malformed input an adversarial client can send, each followed by proof that the server still
/// answers: JSON that is not a request, text that is not JSON, Content-Length headers that are too
/// short, too long or missing, an unknown `$/` request and notification, and `shutdown` with null
/// params. The script is the same for the binary and the in-process server.
fn malformed_input(mut session: Session) -> String {
    // Valid JSON, not a request: InvalidRequest, with the id when there is one, null otherwise.
    session.send_raw_body("{}");
    assert_error(&session.expect_response(Value::Null), -32600);
    session.send_raw_body(r#"{"jsonrpc":"2.0","id":901}"#);
    assert_error(&session.expect_response(json!(901)), -32600);
    session.send_raw_body(r#"[{"jsonrpc":"2.0","id":902,"method":"shutdown"}]"#);
    assert_error(&session.expect_response(Value::Null), -32600);
    assert!(session.hover("missing.yaml", Position::new(0, 0)).is_null(), "still answering after JSON that is not a request");
    // Not JSON: ParseError.
    session.send_raw_body("{this is not json");
    assert_error(&session.expect_response(Value::Null), -32700);
    // A Content-Length too short: that message is lost (ParseError), the next one is answered.
    let body = hover_body(903);
    session.send_raw_bytes(&format!("Content-Length: 20\r\n\r\n{body}"));
    assert_error(&session.expect_response(Value::Null), -32700);
    session.send_raw_bytes(&format!("Content-Length: {}\r\n\r\n{}", hover_body(904).len(), hover_body(904)));
    assert!(session.expect_response(json!(904))["result"].is_null());
    // A Content-Length too long: the message ends where its JSON ends, so it is answered without
    // waiting for bytes that never come, and so is the next one, sent together with it.
    session.send_raw_bytes(&format!("Content-Length: 500\r\n\r\n{}", hover_body(905)));
    assert!(session.expect_response(json!(905))["result"].is_null());
    session.send_raw_bytes(&format!(
        "Content-Length: 500\r\n\r\n{}Content-Length: {}\r\n\r\n{}",
        hover_body(906),
        hover_body(907).len(),
        hover_body(907)
    ));
    assert!(session.expect_response(json!(906))["result"].is_null());
    assert!(session.expect_response(json!(907))["result"].is_null());
    // Broken headers: a misspelt Content-Length, then a length that is not a number.
    session.send_raw_bytes("Content-Lenght: 2\r\n\r\n{}");
    assert_error(&session.expect_response(Value::Null), -32700);
    session.send_raw_bytes(&format!("Content-Length: many\r\n\r\n{}", hover_body(908)));
    assert_error(&session.expect_response(Value::Null), -32700);
    assert!(session.hover("missing.yaml", Position::new(0, 0)).is_null(), "still answering after broken frames");
    // An unknown `$/` request gets MethodNotFound; an unknown `$/` notification is ignored (`finish`
    // fails on any message nobody consumed).
    let unknown = session.request_response("$/crdls.noSuchRequest", json!({}));
    assert_error(&unknown, -32601);
    session.notify("$/crdls.noSuchNotification", json!({}));
    // `shutdown` with `"params": null`, as Emacs eglot and IntelliJ send it.
    session.send_raw_body(r#"{"jsonrpc":"2.0","id":909,"method":"shutdown","params":null}"#);
    let shutdown = session.expect_response(json!(909));
    assert!(shutdown.get("error").is_none() && shutdown["result"].is_null(), "{shutdown}");
    session.finish_after_shutdown()
}

#[test]
fn malformed_input_is_answered_and_the_server_keeps_serving() {
    let options = SessionOptions::new();
    let binary = Session::start_binary(&crdls_binary(), options.clone());
    let over_stdio = malformed_input(binary);
    let in_process = malformed_input(Session::start(options));
    assert_eq!(over_stdio, in_process, "the binary and the in-process server answer the same script alike");
    check_transcript("malformed-input", &over_stdio);
}

#[test]
fn broken_frames_are_logged_on_stderr() {
    let mut session = Session::start_binary(&crdls_binary(), SessionOptions::new());
    session.send_raw_bytes("Content-Length: 20\r\n\r\n{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"shutdown\"}");
    assert_error(&session.expect_response(Value::Null), -32700);
    session.expect_stderr_containing(
        "crdls: a message body is not JSON (EOF while parsing a string at line 1 column 20); skipped to the next Content-Length header",
    );
    session.send_raw_body("{}");
    assert_error(&session.expect_response(Value::Null), -32600);
    session.expect_stderr_containing("crdls: a message without \"jsonrpc\": \"2.0\": {}");
    session.send_raw_bytes("Content-Length: x\r\n\r\n");
    assert_error(&session.expect_response(Value::Null), -32700);
    session.expect_stderr_containing("crdls: a Content-Length with 'x' in it; skipped to the next Content-Length header");
    session.finish();
}

#[test]
fn exit_without_shutdown_ends_with_status_1() {
    // `finish_without_shutdown` asserts the status: the process's, and the in-process server's ending.
    let options = SessionOptions::new();
    let over_stdio = Session::start_binary(&crdls_binary(), options.clone()).finish_without_shutdown();
    let in_process = Session::start(options).finish_without_shutdown();
    assert_eq!(over_stdio, in_process);
}

/// Starts the binary for a client that never answers the server's requests, and waits until the
/// server has sent `request` from `initialized` (which then waits for an answer that never comes).
fn server_waiting_for(options: SessionOptions, request: &str) -> Session {
    let mut session = Session::start_binary(&crdls_binary(), options.unanswering());
    let asked = session.expect(&format!("the server's {request} request"), |m| m["method"] == request && m.get("id").is_some());
    assert!(asked["id"].is_number(), "{asked}");
    session
}

// `exit`, and the end of the input, stop the process while a handler waits for the client's answer to
// one of the server's own requests (tower-lsp 0.20 ends only when every handler has returned). Each
// finish waits for the process with a deadline and fails if it is not over by then, or if it was the
// transport's last-resort deadline that stopped it.

#[test]
fn exit_stops_the_server_while_it_waits_to_register_the_file_watcher() {
    server_waiting_for(SessionOptions::new().watch_files(), "client/registerCapability").finish_without_shutdown_keeping_input_open();
}

#[test]
fn the_end_of_input_stops_the_server_while_it_waits_to_register_the_file_watcher() {
    server_waiting_for(SessionOptions::new().watch_files(), "client/registerCapability").finish_by_closing_input();
}

#[test]
fn exit_stops_the_server_while_it_waits_for_the_settings() {
    server_waiting_for(SessionOptions::new().configuration(json!({})), "workspace/configuration")
        .finish_without_shutdown_keeping_input_open();
}

#[test]
fn the_end_of_input_stops_the_server_while_it_waits_for_the_settings() {
    server_waiting_for(SessionOptions::new().configuration(json!({})), "workspace/configuration").finish_by_closing_input();
}

/// The `crdls` binary, built once per test run (honouring `CARGO_TARGET_DIR`).
fn short_session(mut session: Session) -> String {
    session.open("gizmo.yaml", GIZMO);
    let diagnostics = session.wait_for_diagnostics("gizmo.yaml", 1);
    assert_eq!(codes(&diagnostics["diagnostics"]), ["schema/maximum"]);
    // The server must stop on `exit` alone, even when the client keeps the pipe open (Helix does).
    session.finish_keeping_input_open()
}

#[test]
fn binary_speaks_lsp_over_stdio_and_exits_cleanly() {
    let options = SessionOptions::new().file("crds/gizmos.yaml", &gizmo_crd()).encoding(Encoding::Utf8);
    // `finish` asserts that the process exits with status 0 within the timeout after `exit`.
    let over_stdio = short_session(Session::start_binary(&crdls_binary(), options.clone()));
    let in_process = short_session(Session::start(options));
    assert_eq!(over_stdio, in_process, "the binary and the in-process server answer the same script alike");
    check_transcript("binary-stdio", &over_stdio);
}

#[test]
#[should_panic(expected = "server messages nobody consumed")]
fn harness_fails_when_a_server_message_is_left_unconsumed() {
    // The progress notifications precede the log line, so they are surely queued, and never consumed.
    let mut session = Session::start(SessionOptions::new().progress().no_index_wait());
    session.expect_log_containing("indexed 0 CRDs");
    session.finish();
}

/// A Scaler as committed in `committed_scaler_session`: owner `team-a` (immutable), and a window
/// under a minute, which the API server lets through on an update only when it is unchanged.
const COMMITTED_SCALER: &str = "apiVersion: autoscale.crdls.dev/v1\nkind: Scaler\nmetadata: {name: scaler-a}\nspec: {replicas: 3, maxReplicas: 5, window: 30s, owner: team-a}\n";

/// The first line of the warning on the Scaler's unchanged window.
const WINDOW_UNCHANGED: &str =
    "the window must be at least a minute (unchanged from the old object: the API server lets it through with a warning)";

/// Runs git in the session's workspace; returns whether it succeeded.
fn git(session: &Session, args: &[&str]) -> bool {
    let run = std::process::Command::new("git").arg("-C").arg(session.workspace()).args(args).output();
    run.map(|o| o.status.success()).unwrap_or(false)
}

/// Commits every change to the workspace's tracked files, as a user does in a terminal (the server is
/// not told).
fn commit(session: &Session, message: &str) -> bool {
    git(session, &["-c", "user.name=t", "-c", "user.email=t@e", "commit", "-qam", message])
}

/// A session whose workspace is a git repository with `COMMITTED_SCALER` committed as `app.yaml`;
/// `None` (the session finished) when git is not available.
fn committed_scaler_session() -> Option<Session> {
    let scalers = std::fs::read_to_string(repo_root().join("fixtures/crds/scalers.yaml")).unwrap();
    let session = Session::start(widgets_workspace().trusted().file("crds/scalers.yaml", &scalers).file("app.yaml", COMMITTED_SCALER));
    if git(&session, &["init", "-q"]) && git(&session, &["add", "app.yaml"]) && commit(&session, "old") {
        return Some(session);
    }
    crdls_tests::announce_skip(crdls_tests::Missing::Git, None);
    session.finish();
    None
}

/// The first line of each diagnostic's message, with its severity.
fn first_lines(diagnostics: &Value) -> Vec<(String, u64)> {
    let all = diagnostics.as_array().expect("a list of diagnostics");
    all.iter().map(|d| (d["message"].as_str().unwrap().lines().next().unwrap().to_string(), d["severity"].as_u64().unwrap())).collect()
}

#[test]
fn edits_are_checked_as_updates_of_the_committed_version() {
    let Some(mut session) = committed_scaler_session() else { return };
    session.open("app.yaml", &COMMITTED_SCALER.replace("team-a", "team-b"));
    let diagnostics = session.wait_for_diagnostics("app.yaml", 1)["diagnostics"].clone();
    assert_eq!(first_lines(&diagnostics), [(WINDOW_UNCHANGED.to_string(), 2), ("owner is immutable".to_string(), 1)]);
    session.finish();
}

/// Git runs only in a workspace the user trusts. Untrusted (no `trustedWorkspace`), the edit that is an
/// update of the committed Scaler is checked as a create, and crdls.toml's `oldObject` is named as
/// withheld; trusted, a revision git would read as an option (`--output=x`) is refused before git runs,
/// so nothing is written.
#[test]
fn git_runs_only_in_a_trusted_workspace_and_never_with_an_option_for_a_revision() {
    let scalers = std::fs::read_to_string(repo_root().join("fixtures/crds/scalers.yaml")).unwrap();
    for trusted in [false, true] {
        let mut options = widgets_workspace()
            .file("crds/scalers.yaml", &scalers)
            .file("app.yaml", COMMITTED_SCALER)
            .file("crdls.toml", "oldObject = \"--output=x\"\n");
        if trusted {
            options = options.trusted();
        }
        let mut session = Session::start(options);
        if !(git(&session, &["init", "-q"]) && git(&session, &["add", "app.yaml"]) && commit(&session, "old")) {
            crdls_tests::announce_skip(crdls_tests::Missing::Git, None);
            session.finish();
            return;
        }
        if !trusted {
            let shown = session.expect_notification("window/showMessage");
            let message = shown["message"].as_str().unwrap_or_default();
            assert!(message.contains("crdls.toml asks for git revision --output=x (`oldObject`); not used"), "{shown}");
            session.expect_log_containing("not used, because the workspace is not trusted");
        }
        session.open("app.yaml", &COMMITTED_SCALER.replace("team-a", "team-b"));
        let diagnostics = session.wait_for_diagnostics("app.yaml", 1)["diagnostics"].clone();
        let lines = first_lines(&diagnostics);
        assert!(lines.iter().all(|(m, _)| m != "owner is immutable"), "checked as a create: {lines:?}");
        assert!(!session.workspace().join("x").exists());
        session.finish();
    }
    // Untrusted, the default revision (HEAD) is not asked either.
    let mut session = Session::start(widgets_workspace().file("crds/scalers.yaml", &scalers).file("app.yaml", COMMITTED_SCALER));
    if git(&session, &["init", "-q"]) && git(&session, &["add", "app.yaml"]) && commit(&session, "old") {
        session.open("app.yaml", &COMMITTED_SCALER.replace("team-a", "team-b"));
        let lines = first_lines(&session.wait_for_diagnostics("app.yaml", 1)["diagnostics"]);
        assert!(lines.iter().all(|(m, _)| m != "owner is immutable"), "{lines:?}");
    }
    session.finish();
}

/// The Scaler opened with a new owner (an error against the commit), then the new owner committed.
fn new_owner_committed() -> Option<Session> {
    let mut session = committed_scaler_session()?;
    let edited = COMMITTED_SCALER.replace("team-a", "team-b");
    session.open("app.yaml", &edited);
    let diagnostics = session.wait_for_diagnostics("app.yaml", 1)["diagnostics"].clone();
    assert_eq!(first_lines(&diagnostics), [(WINDOW_UNCHANGED.to_string(), 2), ("owner is immutable".to_string(), 1)]);
    session.write_file("app.yaml", &edited);
    assert!(commit(&session, "new owner"), "git commit failed");
    Some(session)
}

#[test]
fn a_save_rechecks_the_document_against_what_git_holds_now() {
    let Some(mut session) = new_owner_committed() else { return };
    // The server keeps what git said for a few seconds; the save makes it ask again, and re-checks the
    // saved document: the owner is no longer a change.
    let uri = session.uri("app.yaml");
    session.notify("textDocument/didSave", json!({"textDocument": {"uri": uri}}));
    let saved = session.wait_for_next_diagnostics("app.yaml");
    assert_eq!(saved["version"], 1);
    assert_eq!(first_lines(&saved["diagnostics"]), [(WINDOW_UNCHANGED.to_string(), 2)]);
    session.finish();
}

#[test]
fn a_settings_change_asks_git_again() {
    let Some(mut session) = new_owner_committed() else { return };
    // Any change of settings re-checks the open documents, against what git holds now rather than what
    // it held a moment ago.
    session.notify("workspace/didChangeConfiguration", json!({"settings": {"crdls": {"inlayHints": false}}}));
    let rechecked = session.wait_for_next_diagnostics("app.yaml");
    assert_eq!(rechecked["version"], 1);
    assert_eq!(first_lines(&rechecked["diagnostics"]), [(WINDOW_UNCHANGED.to_string(), 2)]);
    session.finish();
}

#[test]
fn crd_rules_are_checked_while_the_crd_is_edited() {
    let crd = std::fs::read_to_string(repo_root().join("fixtures/crd-errors/rules.yaml")).unwrap();
    let mut session = Session::start(SessionOptions::new().encoding(Encoding::Utf16));
    session.open("gauges.yaml", &crd);
    let diagnostics = session.wait_for_diagnostics("gauges.yaml", 1)["diagnostics"].clone();
    let first = diagnostics.as_array().unwrap().iter().find(|d| d["code"] == "cel/compile-error").unwrap();
    // Underlined inside the rule string: `.maximun`, not the whole entry.
    let at = session.position_of("gauges.yaml", ".maximun");
    assert_eq!(first["range"]["start"], json!({"line": at.line, "character": at.character}));
    assert_eq!(first["range"]["end"], json!({"line": at.line, "character": at.character + 8}));
    // Fixing the typo removes the error as the user types.
    session.replace("gauges.yaml", 2, "self.maximun", "self.maximum");
    let fixed = session.wait_for_diagnostics("gauges.yaml", 2)["diagnostics"].clone();
    assert!(fixed.as_array().unwrap().iter().all(|d| !d["message"].as_str().unwrap_or_default().contains("maximun")), "{fixed}");
    assert_eq!(fixed.as_array().unwrap().len(), diagnostics.as_array().unwrap().len() - 1);
    check_transcript("crd-rules", &session.finish());
}

#[test]
fn editors_get_the_index_status_and_the_crd_of_a_document() {
    let mut session = Session::start(widgets_workspace().file("crds/gizmos.yaml", &gizmo_crd()).index_status());
    let status = session.expect_notification("crdls/indexStatus");
    assert_eq!(status, json!({"crds": 2, "files": 2}));
    session.open("gizmo.yaml", &format!("{WIDGET}---\n{GIZMO}"));
    session.wait_for_diagnostics("gizmo.yaml", 1);
    let uri = session.uri("gizmo.yaml");
    let widget = session.request("crdls/crdForDocument", json!({"textDocument": {"uri": uri}}));
    assert_eq!(widget["uri"], session.uri("crds/widgets.yaml"));
    let at = session.position_of("gizmo.yaml", "kind: Gizmo");
    let gizmo =
        session.request("crdls/crdForDocument", json!({"textDocument": {"uri": uri}, "position": {"line": at.line, "character": 0}}));
    assert_eq!(gizmo["uri"], session.uri("crds/gizmos.yaml"));
    check_transcript("index-status-and-crd-for-document", &session.finish());
}

#[test]
fn templates_patches_and_assertions_are_read_for_what_they_are() {
    let fixture = |path: &str| std::fs::read_to_string(repo_root().join("fixtures/projects").join(path)).unwrap();
    let options = widgets_workspace()
        .file("chart/Chart.yaml", &fixture("chart/Chart.yaml"))
        .file("kustomize/overlays/prod/kustomization.yaml", &fixture("kustomize/overlays/prod/kustomization.yaml"))
        .file("chainsaw/widget-test/chainsaw-test.yaml", &fixture("chainsaw/widget-test/chainsaw-test.yaml"));
    let mut session = Session::start(options);

    // A chart template: no YAML errors for its actions, a hint, and the literal typo.
    let template = "apiVersion: demo.crdls.dev/v1\nkind: Widget\nmetadata:\n  name: {{ .Release.Name }}\nspec:\n  {{- if .Values.size }}\n  size: {{ .Values.size }}\n  {{- end }}\n  owner: {{ .Values.owner | quote }}\n  replcas: 2\n";
    session.open("chart/templates/widget.yaml", template);
    let diagnostics = session.wait_for_diagnostics("chart/templates/widget.yaml", 1)["diagnostics"].clone();
    assert_eq!(codes(&diagnostics), ["helm/templates", "schema/unknown-field"], "{diagnostics:#}");
    assert_eq!(only(&diagnostics, "helm/templates")["severity"], 4);
    let cursor = session.open_with_cursor("chart/templates/other.yaml", &template.replace("  replcas: 2\n", "  ti$0\n"));
    session.wait_for_diagnostics("chart/templates/other.yaml", 1);
    let completion = session.completion("chart/templates/other.yaml", cursor);
    let labels: Vec<&str> = completion["items"].as_array().expect("items").iter().filter_map(|i| i["label"].as_str()).collect();
    assert!(labels.contains(&"tier"), "completion works inside a template: {labels:?}");

    // A patch the kustomization names: partial, so no missing owner, but its size is still checked.
    session.open("kustomize/overlays/prod/size.yaml", &fixture("kustomize/overlays/prod/size.yaml"));
    let diagnostics = session.wait_for_diagnostics("kustomize/overlays/prod/size.yaml", 1)["diagnostics"].clone();
    assert_eq!(codes(&diagnostics), ["schema/maximum"], "{diagnostics:#}");

    // An assertion the test names: expression keys are not fields, the status is the live one.
    session.open("chainsaw/widget-test/widget-ready.yaml", &fixture("chainsaw/widget-test/widget-ready.yaml"));
    let diagnostics = session.wait_for_diagnostics("chainsaw/widget-test/widget-ready.yaml", 1)["diagnostics"].clone();
    assert_eq!(codes(&diagnostics), ["schema/type"], "{diagnostics:#}");
    session.finish();
}

/// The editor agrees with `crdls check` on test inputs: a plain manifest below a test directory of the
/// workspace folder is checked for what it writes (a restart policy, a port, a selector that is written
/// and does not match), not for what it leaves out; the same text elsewhere is a whole manifest; and the
/// `wholeTestInputs` setting makes the test input whole again.
#[test]
fn test_inputs_are_checked_for_what_they_write_in_the_editor() {
    let text = std::fs::read_to_string(repo_root().join("fixtures/projects/test-inputs/tests/checks/workloads.yaml")).unwrap();
    let mut session = Session::start(SessionOptions::new());
    session.open("tests/checks/workloads.yaml", &text);
    let diagnostics = session.wait_for_diagnostics("tests/checks/workloads.yaml", 1)["diagnostics"].clone();
    assert_eq!(codes(&diagnostics), ["native/restart-policy", "native/port", "native/selector"], "{diagnostics:#}");
    session.open("deploy/workloads.yaml", &text);
    let whole = session.wait_for_diagnostics("deploy/workloads.yaml", 1)["diagnostics"].clone();
    for code in ["schema/required", "native/container", "metadata/name-required"] {
        assert!(codes(&whole).contains(&code.to_string()), "{code} in {whole:#}");
    }
    // The hover of `kind` says why a missing field goes unreported, and how to have it reported.
    assert!(text.lines().nth(3).is_some_and(|line| line.starts_with("kind: Deployment")), "the fixture's first kind moved");
    let reading = |session: &mut Session, file: &str| {
        session.hover(file, Position::new(3, 8))["contents"]["value"].as_str().unwrap_or_default().to_string()
    };
    let input = reading(&mut session, "tests/checks/workloads.yaml");
    assert!(input.contains("Read as a test input, below `..`") && input.contains("wholeTestInputs"), "{input}");
    assert!(!reading(&mut session, "deploy/workloads.yaml").contains("Read as"));
    session.notify("workspace/didChangeConfiguration", json!({"settings": {"crdls": {"wholeTestInputs": true}}}));
    let diagnostics = session.wait_for_next_diagnostics("tests/checks/workloads.yaml")["diagnostics"].clone();
    assert_eq!(codes(&diagnostics), codes(&whole), "{diagnostics:#}");
    assert!(!reading(&mut session, "tests/checks/workloads.yaml").contains("Read as"));
    session.finish();
}

/// The editor agrees with `crdls check` on kuttl test fragments: a file below a kuttl test case's steps is
/// partial (what it leaves out and the CEL rules that read it are not reported, its wrong enum value and
/// misspelt field are), and its hover says why; the same text outside the case is a whole object.
#[test]
fn kuttl_test_fragments_are_partial_objects_in_the_editor() {
    let fixture = |path: &str| std::fs::read_to_string(repo_root().join("fixtures/projects/kuttl").join(path)).unwrap();
    let options = SessionOptions::new()
        .file("crds/databases.yaml", &fixture("crds/databases.yaml"))
        .file("suite/backup/00-create-cluster.yaml", &fixture("suite/backup/00-create-cluster.yaml"));
    let mut session = Session::start(options);
    let overlay = fixture("suite/backup/conf/backup.yaml");
    session.open("suite/backup/conf/backup.yaml", &overlay);
    let diagnostics = session.wait_for_diagnostics("suite/backup/conf/backup.yaml", 1)["diagnostics"].clone();
    assert_eq!(codes(&diagnostics), ["schema/enum", "schema/unknown-field"], "{diagnostics:#}");
    let restore = fixture("suite/backup/conf/backup/restore.yaml");
    session.open("suite/backup/conf/backup/restore.yaml", &restore);
    let diagnostics = session.wait_for_diagnostics("suite/backup/conf/backup/restore.yaml", 1)["diagnostics"].clone();
    assert_eq!(codes(&diagnostics), Vec::<String>::new(), "{diagnostics:#}");
    // Outside the case, the overlay without an engine is a whole Database, which lacks it.
    session.open("deploy/restore.yaml", &restore);
    let whole = session.wait_for_diagnostics("deploy/restore.yaml", 1)["diagnostics"].clone();
    assert!(codes(&whole).contains(&"schema/required".to_string()), "{whole:#}");
    let line = restore.lines().position(|l| l.starts_with("kind:")).expect("a kind line") as u32;
    let hover = session.hover("suite/backup/conf/backup/restore.yaml", Position::new(line, 8))["contents"]["value"]
        .as_str()
        .unwrap_or_default()
        .to_string();
    assert!(hover.contains("kuttl test case `../..`") && hover.contains("CEL rules are not run"), "{hover}");
    session.finish();
}

/// The editor resolves as `crdls check` does between a CRD and its OLM bundle copy: the example nearer to
/// the bundle uses the project's own definition (its `notification_rule` is allowed; the misspelt type
/// is not).
#[test]
fn an_olm_bundle_copy_yields_to_the_projects_own_crd_in_the_editor() {
    let fixture = |path: &str| std::fs::read_to_string(repo_root().join("fixtures/projects/olm-bundle").join(path)).unwrap();
    let mut options = SessionOptions::new();
    for file in [
        "config/crd/bases/olm.crdls.dev_monitors.yaml",
        "bundle/manifests/olm.crdls.dev_monitors.yaml",
        "bundle/manifests/monitor-operator.clusterserviceversion.yaml",
        "bundle/metadata/annotations.yaml",
    ] {
        options = options.file(file, &fixture(file));
    }
    let mut session = Session::start(options);
    session.open("examples/notification-rule.yaml", &fixture("examples/notification-rule.yaml"));
    let diagnostics = session.wait_for_diagnostics("examples/notification-rule.yaml", 1)["diagnostics"].clone();
    assert_eq!(codes(&diagnostics), ["schema/enum"], "{diagnostics:#}");
    assert!(diagnostics[0]["message"].as_str().is_some_and(|m| m.contains("notification_rule")), "{diagnostics:#}");
    session.finish();
}

/// The editor agrees with `crdls check` on what a file is when no kustomization names it: a golden
/// file, a patch a kustomization comments out, a kubeadm patch. Each is a partial object, its missing
/// fields not reported, its wrong values still are.
#[test]
fn goldens_and_unnamed_patches_are_partial_objects_in_the_editor() {
    let fixture = |path: &str| std::fs::read_to_string(repo_root().join("fixtures/projects").join(path)).unwrap();
    let options = widgets_workspace()
        .file("config/default/kustomization.yaml", &fixture("unnamed-patches/config/default/kustomization.yaml"))
        .file("config/default/replicas_transformer.yaml", &fixture("unnamed-patches/config/default/replicas_transformer.yaml"));
    let mut session = Session::start(options);
    let golden = fixture("goldens/render/deployment.golden.yaml");
    session.open("pkg/testdata/deployment.golden.yaml", &golden);
    let diagnostics = session.wait_for_diagnostics("pkg/testdata/deployment.golden.yaml", 1)["diagnostics"].clone();
    assert_eq!(codes(&diagnostics), Vec::<String>::new(), "{diagnostics:#}");
    // The same text under a name that is no golden's is a whole Deployment, which lacks its spec.
    session.open("pkg/deployment.yaml", &golden);
    let diagnostics = session.wait_for_diagnostics("pkg/deployment.yaml", 1)["diagnostics"].clone();
    assert!(codes(&diagnostics).contains(&"schema/required".to_string()), "{diagnostics:#}");
    // A wrong value in a golden is still wrong.
    session.open("expected.yaml", &fixture("goldens/render/expected.yaml"));
    let diagnostics = session.wait_for_diagnostics("expected.yaml", 1)["diagnostics"].clone();
    assert_eq!(codes(&diagnostics), ["schema/type"], "{diagnostics:#}");
    session.open("config/default/webhook_config.yaml", &fixture("unnamed-patches/config/default/webhook_config.yaml"));
    let diagnostics = session.wait_for_diagnostics("config/default/webhook_config.yaml", 1)["diagnostics"].clone();
    assert_eq!(codes(&diagnostics), Vec::<String>::new(), "{diagnostics:#}");
    session.open("config/default/replicas.yaml", &fixture("unnamed-patches/config/default/replicas.yaml"));
    let diagnostics = session.wait_for_diagnostics("config/default/replicas.yaml", 1)["diagnostics"].clone();
    assert_eq!(codes(&diagnostics), ["schema/type"], "{diagnostics:#}");
    session.open("kubeadm/patches/kube-apiserver.yaml", &fixture("unnamed-patches/kubeadm/patches/kube-apiserver.yaml"));
    let diagnostics = session.wait_for_diagnostics("kubeadm/patches/kube-apiserver.yaml", 1)["diagnostics"].clone();
    assert_eq!(codes(&diagnostics), Vec::<String>::new(), "{diagnostics:#}");
    session.finish();
}

/// The editor agrees with `crdls check` on what the files around a document say the API server never
/// sees: a word a script fills in with `sed`, the names of a Kyverno CLI test's resources, a field a
/// kustomization's own patch adds, a rendering a Go test writes. What each still writes wrong is reported,
/// and the hover of `kind` says how the file is read.
#[test]
fn what_scripts_tests_and_kustomizations_do_to_a_file_is_seen_in_the_editor() {
    let fixture = |path: &str| std::fs::read_to_string(repo_root().join("fixtures/projects").join(path)).unwrap();
    let options = widgets_workspace()
        .file("hack/wipe.sh", &fixture("by-products/hack/wipe.sh"))
        .file("autogen/kyverno-test.yaml", &fixture("kyverno-cli/autogen/kyverno-test.yaml"))
        .file("completed/kustomization.yaml", &fixture("kustomize/completed/kustomization.yaml"))
        .file("completed/owner.yaml", &fixture("kustomize/completed/owner.yaml"))
        .file("render/render_test.go", &fixture("goldens/render/render_test.go"))
        .file("scripts/render-fixtures.sh", &fixture("goldens/scripts/render-fixtures.sh"));
    let mut session = Session::start(options);
    let mut check = |file: &str, text: &str| {
        session.open(file, text);
        codes(&session.wait_for_diagnostics(file, 1)["diagnostics"])
    };
    assert_eq!(check("hack/wipe.yaml", &fixture("by-products/hack/wipe.yaml")), ["native/restart-policy"]);
    assert_eq!(check("autogen/resources.yaml", &fixture("kyverno-cli/autogen/resources.yaml")), ["schema/type"]);
    assert_eq!(check("completed/widgets.yaml", &fixture("kustomize/completed/widgets.yaml")), ["schema/required"]);
    let rendered = fixture("goldens/render/baseline/manifests/ports.yaml");
    assert_eq!(check("render/baseline/manifests/ports.yaml", &rendered), ["schema/type"]);
    // A rendering a script writes below a test directory: the container named after the release is not
    // reported, the replica count written as text is; a test input no script writes is checked for both.
    let script_rendered = fixture("goldens/tests/fixtures/default.yaml");
    assert_eq!(check("tests/fixtures/default.yaml", &script_rendered), ["schema/type"]);
    assert_eq!(check("tests/e2e/default.yaml", &script_rendered), ["native/container", "schema/type"]);
    // Elsewhere, the same texts are whole objects to create.
    assert_eq!(check("elsewhere/wipe.yaml", &fixture("by-products/hack/wipe.yaml")), ["metadata/name", "native/restart-policy"]);
    assert!(check("elsewhere/resources.yaml", &fixture("kyverno-cli/autogen/resources.yaml")).contains(&"metadata/name".to_string()));
    assert!(check("elsewhere/ports.yaml", &rendered).contains(&"native/port".to_string()));
    let reading = |session: &mut Session, file: &str, line: u32| {
        session.hover(file, Position::new(line, 7))["contents"]["value"].as_str().unwrap_or_default().to_string()
    };
    let filled = reading(&mut session, "hack/wipe.yaml", 3);
    assert!(filled.contains("fills in with `sed`") && filled.contains("`HOSTNAME`"), "{filled}");
    let evaluated = reading(&mut session, "autogen/resources.yaml", 3);
    assert!(evaluated.contains("Kyverno CLI test `kyverno-test.yaml` evaluates"), "{evaluated}");
    assert!(script_rendered.lines().nth(6).is_some_and(|line| line.starts_with("kind: Pod")), "the fixture's first kind moved");
    let written = reading(&mut session, "tests/fixtures/default.yaml", 6);
    assert!(written.contains("expected output") && written.contains("script that writes it"), "{written}");
    session.finish();
}

/// The editor agrees with `crdls check` on documents told by their shape: an object a program printed
/// (`creationTimestamp: null`) is reported for what it writes (a port out of range), not for what it
/// leaves out (a name, a selector, an
/// image); the same printed text without `creationTimestamp: null` is a whole Deployment again.
#[test]
fn printed_objects_are_checked_for_what_they_write_in_the_editor() {
    let fixture = |path: &str| std::fs::read_to_string(repo_root().join("fixtures/projects/by-products").join(path)).unwrap();
    let mut session = Session::start(SessionOptions::new());
    let printed = fixture("printed/encoded.yaml");
    session.open("printed/encoded.yaml", &printed);
    let diagnostics = session.wait_for_diagnostics("printed/encoded.yaml", 1)["diagnostics"].clone();
    assert_eq!(codes(&diagnostics), ["native/port"], "{diagnostics:#}");
    session.open("deploy/encoded.yaml", &printed.replace("  creationTimestamp: null\n  namespace", "  namespace"));
    let whole = session.wait_for_diagnostics("deploy/encoded.yaml", 1)["diagnostics"].clone();
    for code in ["metadata/name-required", "native/container", "native/port"] {
        assert!(codes(&whole).contains(&code.to_string()), "{code} in {whole:#}");
    }
    session.finish();
}

/// The editor agrees with `crdls check` on object templates a policy generator names (partial objects:
/// a Deployment with only its status is not missing its spec, a wrong type is still wrong), and on a
/// chart's file that its templates render with `tpl` (a template of the chart: its actions are no YAML
/// errors, its literal mistake is reported).
#[test]
fn policy_templates_and_chart_files_are_read_as_in_the_cli() {
    let fixture = |path: &str| std::fs::read_to_string(repo_root().join("fixtures/projects").join(path)).unwrap();
    let chart_file = fixture("chart-files/runtimes/files/servers/server-patch.yaml");
    let options = widgets_workspace()
        .file("policies/kustomization.yaml", &fixture("policy-generator/hardening/kustomization.yaml"))
        .file("policies/generator.yaml", &fixture("policy-generator/hardening/generator.yaml"))
        .file("policies/input-labels/namespace.yaml", &fixture("policy-generator/hardening/input-labels/namespace.yaml"))
        .file("charts/runtimes/Chart.yaml", &fixture("chart-files/runtimes/Chart.yaml"))
        .file("charts/runtimes/files/servers/server-patch.yaml", &chart_file);
    let mut session = Session::start(options);
    let ready = fixture("policy-generator/hardening/input-status/web-ready.yaml");
    session.open("policies/input-status/web-ready.yaml", &ready);
    let diagnostics = session.wait_for_diagnostics("policies/input-status/web-ready.yaml", 1)["diagnostics"].clone();
    assert_eq!(codes(&diagnostics), Vec::<String>::new(), "{diagnostics:#}");
    let at = session.position_of("policies/input-status/web-ready.yaml", "kind: Deployment");
    let kind = Position::new(at.line, at.character + 8);
    let hover = session.hover("policies/input-status/web-ready.yaml", kind)["contents"]["value"].as_str().unwrap_or_default().to_string();
    assert!(hover.contains("policy generator `../generator.yaml` wraps in a ConfigurationPolicy"), "{hover}");
    // The same text that no generator names is a whole Deployment.
    session.open("deploy/web.yaml", &ready);
    let diagnostics = session.wait_for_diagnostics("deploy/web.yaml", 1)["diagnostics"].clone();
    assert!(codes(&diagnostics).contains(&"schema/required".to_string()), "{diagnostics:#}");
    session.open("policies/input-labels/namespace.yaml", &fixture("policy-generator/hardening/input-labels/namespace.yaml"));
    let diagnostics = session.wait_for_diagnostics("policies/input-labels/namespace.yaml", 1)["diagnostics"].clone();
    assert_eq!(codes(&diagnostics), ["schema/type"], "{diagnostics:#}");
    session.open("charts/runtimes/files/servers/server-patch.yaml", &chart_file);
    let diagnostics = session.wait_for_diagnostics("charts/runtimes/files/servers/server-patch.yaml", 1)["diagnostics"].clone();
    assert_eq!(codes(&diagnostics), ["helm/templates", "schema/enum"], "{diagnostics:#}");
    session.finish();
}

#[test]
fn the_kubernetes_version_setting_decides_the_cel_environment_of_new_rules() {
    let crd = std::fs::read_to_string(repo_root().join("fixtures/crd-errors/kube-versions.yaml")).unwrap();
    let mut session = Session::start(SessionOptions::new().setting("kubeVersion", json!("1.32")));
    session.open("crd.yaml", &crd);
    let diagnostics = session.wait_for_diagnostics("crd.yaml", 1)["diagnostics"].clone();
    // 1.32 compiles new rules in the 1.31 environment: the lists extension (1.34), semver (1.33) and
    // two-variable comprehensions (1.32) are missing, IP (1.30) and named formats (1.31) are there.
    let messages: Vec<String> = diagnostics.as_array().unwrap().iter().map(|d| d["message"].as_str().unwrap().to_string()).collect();
    assert_eq!(codes(&diagnostics), ["cel/compile-error"; 4], "{messages:?}");
    assert!(messages[0].starts_with("two-variable comprehensions are not in the CEL environment of Kubernetes 1.31"), "{messages:?}");
    assert!(messages[1].starts_with("undeclared reference to 'isSemver'"), "{messages:?}");
    assert!(messages[2].starts_with("undeclared reference to 'distinct'"), "{messages:?}");
    assert!(messages[3].starts_with("undeclared reference to 'sortBy'"), "{messages:?}");
    session.notify("workspace/didChangeConfiguration", json!({"settings": {"crdls": {"kubeVersion": "1.35"}}}));
    let diagnostics = session.wait_for_next_diagnostics("crd.yaml")["diagnostics"].clone();
    assert_eq!(codes(&diagnostics), Vec::<String>::new());
    session.finish();
}

#[test]
fn hover_of_built_in_kinds_follows_the_release_the_settings_name() {
    // Pod's `schedulingGroup` is new in 1.36: hover describes it only where the configured release has it
    // (completion follows the same release: crdls-ide's tests).
    let pod = "apiVersion: v1\nkind: Pod\nmetadata:\n  name: p\nspec:\n  schedulingGroup: {}\n  containers: []\n";
    let mut session = Session::start(SessionOptions::new().setting("kubeVersion", json!("1.35")));
    session.open("pod.yaml", pod);
    session.wait_for_diagnostics("pod.yaml", 1);
    let at = session.position_of("pod.yaml", "schedulingGroup");
    let on_key = Position::new(at.line, at.character + 2);
    assert!(session.hover("pod.yaml", on_key).is_null(), "1.35 has no schedulingGroup");
    let containers = session.position_of("pod.yaml", "containers");
    let hover = session.hover("pod.yaml", Position::new(containers.line, containers.character + 2));
    assert!(hover["contents"]["value"].as_str().unwrap_or_default().ends_with("Kubernetes 1.35."), "{hover}");
    session.notify("workspace/didChangeConfiguration", json!({"settings": {"crdls": {"kubeVersion": ""}}}));
    session.wait_for_next_diagnostics("pod.yaml");
    let hover = session.hover("pod.yaml", on_key);
    assert!(hover["contents"]["value"].as_str().unwrap_or_default().ends_with("Kubernetes 1.37."), "{hover}");
    session.finish();
}

#[test]
fn built_in_objects_are_checked_against_the_release_the_settings_name() {
    let pdb = "apiVersion: policy/v1beta1\nkind: PodDisruptionBudget\nmetadata:\n  name: web\nspec:\n  minAvailable: 1\n  selectr: {}\n";
    let mut session = Session::start(SessionOptions::new().setting("kubeVersion", json!("1.24")));
    session.open("pdb.yaml", pdb);
    let diagnostics = session.wait_for_diagnostics("pdb.yaml", 1)["diagnostics"].clone();
    // 1.24 serves policy/v1beta1 (with a warning that 1.25 does not), and knows its schema.
    assert_eq!(codes(&diagnostics), ["resource/deprecated-api", "schema/unknown-field"], "{diagnostics}");
    session.notify("workspace/didChangeConfiguration", json!({"settings": {"crdls": {"kubeVersion": "1.35"}}}));
    let diagnostics = session.wait_for_next_diagnostics("pdb.yaml")["diagnostics"].clone();
    assert_eq!(codes(&diagnostics), ["resource/api-not-served"], "{diagnostics}");
    assert_eq!(diagnostics[0]["severity"], 1);
    session.finish();
}

/// A CRD whose `spec.mode` allows `Managed` and `Unmanaged`, committed in the tests of CRD evolution.
const EVOLVING_CRD: &str = "\
apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata:
  name: widgets.evolve.crdls.dev
spec:
  group: evolve.crdls.dev
  names: {kind: Widget, plural: widgets}
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
              mode:
                type: string
                enum: [Managed, Unmanaged]
";

/// CRD evolution in the editor: a CRD buffer is compared with its committed version as the user
/// types, and the change that removes an enum value is an error on the CRD, with the count of the
/// workspace's objects it breaks (the one Widget set to the removed value, not the other).
#[test]
fn a_crd_edit_is_compared_with_its_committed_version_with_the_objects_it_breaks() {
    let objects = "apiVersion: evolve.crdls.dev/v1\nkind: Widget\nmetadata: {name: fine}\nspec: {mode: Managed}\n---\napiVersion: evolve.crdls.dev/v1\nkind: Widget\nmetadata: {name: legacy}\nspec: {mode: Unmanaged}\n";
    let mut session =
        Session::start(SessionOptions::new().trusted().file("crds/widgets.yaml", EVOLVING_CRD).file("apps/widgets.yaml", objects));
    if !(git(&session, &["init", "-q"]) && git(&session, &["add", "."]) && commit(&session, "widgets")) {
        crdls_tests::announce_skip(crdls_tests::Missing::Git, None);
        session.finish();
        return;
    }
    session.open("crds/widgets.yaml", EVOLVING_CRD);
    let unchanged = session.wait_for_diagnostics("crds/widgets.yaml", 1)["diagnostics"].clone();
    assert_eq!(codes(&unchanged), Vec::<String>::new());
    session.replace("crds/widgets.yaml", 2, ", Unmanaged]", "]");
    let edited = session.wait_for_diagnostics("crds/widgets.yaml", 2)["diagnostics"].clone();
    assert_eq!(codes(&edited), ["crd-change/breaks-objects", "crd-change/enum"], "{edited}");
    let message = |i: usize| edited[i]["message"].as_str().unwrap().to_string();
    assert!(message(0).starts_with("this change breaks 1 of 2 Widget objects of the workspace"), "{edited}");
    assert!(message(0).contains("apps/widgets.yaml:6 legacy (spec.mode: Unsupported value: \"Unmanaged\""), "{edited}");
    assert!(message(1).starts_with("enum values of spec.mode in v1 removed: \"Unmanaged\" → (gone)"), "{edited}");
    assert_eq!((edited[1]["severity"].as_u64(), edited[1]["range"]["start"]["line"].as_u64()), (Some(1), Some(21)), "{edited}");
    // Typing the value back undoes both.
    session.replace("crds/widgets.yaml", 3, "[Managed]", "[Managed, Unmanaged]");
    let restored = session.wait_for_diagnostics("crds/widgets.yaml", 3)["diagnostics"].clone();
    assert_eq!(codes(&restored), Vec::<String>::new());
    session.finish();
}

/// A document that names itself a status write (`# crdls: subresource=status`) is checked as one in
/// the editor: its status is validated (here, an enum value and a status rule), where without the
/// line the status subresource makes the API server ignore that status.
#[test]
fn a_status_directive_checks_the_document_as_a_status_write() {
    let mut session = Session::start(SessionOptions::new().repo_file("crds/thermal.yaml", "fixtures/status/crds.yaml"));
    let heater = "# crdls: subresource=status\napiVersion: thermal.crdls.dev/v1\nkind: Heater\nmetadata:\n  name: hall\n  namespace: default\nspec:\n  watts: 1000\nstatus:\n  maxWatts: 6000\n  phase: Cooling\n";
    session.open("heater.yaml", heater);
    let status = session.wait_for_diagnostics("heater.yaml", 1);
    assert_eq!(codes(&status["diagnostics"]), ["schema/maximum", "schema/enum", "cel/skipped"], "{:#}", status["diagnostics"]);
    session.replace("heater.yaml", 2, "# crdls: subresource=status", "# a status the API server drops");
    let main = session.wait_for_diagnostics("heater.yaml", 2);
    assert_eq!(codes(&main["diagnostics"]), ["resource/status-ignored"], "{:#}", main["diagnostics"]);
    session.finish();
}

/// A CRD defined five times in the workspace (`fixtures/projects/definitions`): each document's objects
/// use the nearest definition that serves their version, as `crdls check` does, and the hover says
/// which was chosen and why not the others.
#[test]
fn each_document_uses_the_nearest_definition_that_serves_its_version() {
    let files = [
        "apis/fixtures/gadgets.yaml",
        "deploy/crds/gadgets.yaml",
        "examples/gadgets-crd.yaml",
        "test/scenarios/v1beta1/crd.yaml",
        "test/scenarios/v1beta2/crd.yaml",
    ];
    let mut options = SessionOptions::new();
    for file in files {
        options = options.repo_file(file, &format!("fixtures/projects/definitions/{file}"));
    }
    let mut session = Session::start(options);
    let fixture = |path: &str| std::fs::read_to_string(repo_root().join("fixtures/projects/definitions").join(path)).unwrap();
    // Of the two definitions that serve v1, deploy/'s own (maximum 10) ...
    session.open("deploy/gadget.yaml", &fixture("deploy/gadget.yaml"));
    let diagnostics = session.wait_for_diagnostics("deploy/gadget.yaml", 1)["diagnostics"].clone();
    assert_eq!(codes(&diagnostics), ["schema/maximum"], "{diagnostics:#}");
    // ... and the examples' (maximum 100).
    session.open("examples/gadget.yaml", &fixture("examples/gadget.yaml"));
    assert_eq!(session.wait_for_diagnostics("examples/gadget.yaml", 1)["diagnostics"], json!([]));
    // Alternatives: only the version none serves is an error, and it names every declared version.
    session.open("test/e2e/gadgets.yaml", &fixture("test/e2e/gadgets.yaml"));
    let diagnostics = session.wait_for_diagnostics("test/e2e/gadgets.yaml", 1)["diagnostics"].clone();
    let unknown = only(&diagnostics, "resource/unknown-version");
    assert_eq!(codes(&diagnostics), ["resource/unknown-version"], "{diagnostics:#}");
    assert!(unknown["message"].as_str().unwrap().contains("none of the 5 definitions"), "{unknown:#}");
    // The hover names the definition used, and why not the others.
    let size = session.position_of("deploy/gadget.yaml", "size:");
    let hover = session.hover("deploy/gadget.yaml", Position::new(size.line, size.character + 1));
    let text = hover["contents"]["value"].as_str().unwrap_or_default().to_string();
    assert!(text.contains("[gadgets.yaml](") && text.contains("/deploy/crds/gadgets.yaml)"), "{text}");
    assert!(text.contains("Chosen for this file among 5 definitions: [gadgets-crd.yaml]("), "{text}");
    assert!(text.contains("is farther from the file;"), "{text}");
    assert!(text.contains("do not declare `v1`."), "{text}");
    session.finish();
}

/// A chart template whose `toYaml` writes a list that the literal lines below continue: in the editor
/// too, those lines stay in an item (`spec.ports[0].protocl`), and the list is not taken for a mapping.
#[test]
fn lines_after_a_list_written_by_a_template_stay_in_its_last_item() {
    let fixture = |path: &str| std::fs::read_to_string(repo_root().join("fixtures/projects/guarded").join(path)).unwrap();
    let options = widgets_workspace().file("chart/Chart.yaml", &fixture("Chart.yaml")).file("chart/values.yaml", &fixture("values.yaml"));
    let mut session = Session::start(options);
    session.open("chart/templates/listed.yaml", &fixture("templates/listed.yaml"));
    let diagnostics = session.wait_for_diagnostics("chart/templates/listed.yaml", 1)["diagnostics"].clone();
    assert_eq!(codes(&diagnostics), ["helm/templates", "schema/unknown-field"], "{diagnostics:#}");
    let unknown = only(&diagnostics, "schema/unknown-field");
    assert!(unknown["message"].as_str().unwrap().contains("\"spec.ports[0].protocl\""), "{unknown:#}");
    session.finish();
}

/// A chart that ships its CRDs only as templates (`fixtures/projects/crd-chart`): the workspace scan and
/// the open template's buffer index the CRD whose identity and schema are literal text, as `crdls check`
/// does, and an object of it is checked.
#[test]
fn crds_written_literally_in_chart_templates_are_indexed() {
    let fixture = |path: &str| std::fs::read_to_string(repo_root().join("fixtures/projects/crd-chart").join(path)).unwrap();
    let options = SessionOptions::new()
        .file("chart/Chart.yaml", &fixture("chart/Chart.yaml"))
        .file("chart/values.yaml", &fixture("chart/values.yaml"))
        .file("chart/templates/crds.yaml", &fixture("chart/templates/crds.yaml"));
    let mut session = Session::start(options);
    session.open("examples/sprocket.yaml", &fixture("examples/sprocket.yaml"));
    let diagnostics = session.wait_for_diagnostics("examples/sprocket.yaml", 1)["diagnostics"].clone();
    assert_eq!(codes(&diagnostics), ["schema/minimum", "resource/no-crd"], "{diagnostics:#}");
    // The template open in the editor: its buffer's CRD replaces the file's, and a change to its schema
    // reaches the object.
    session.open("chart/templates/crds.yaml", &fixture("chart/templates/crds.yaml"));
    let diagnostics = session.wait_for_diagnostics("chart/templates/crds.yaml", 1)["diagnostics"].clone();
    assert_eq!(codes(&diagnostics), ["helm/templates"], "{diagnostics:#}");
    session.replace("chart/templates/crds.yaml", 2, "minimum: 3", "minimum: 1");
    session.wait_for_diagnostics("chart/templates/crds.yaml", 2);
    let diagnostics = session.wait_for_next_diagnostics("examples/sprocket.yaml")["diagnostics"].clone();
    assert_eq!(codes(&diagnostics), ["resource/no-crd"], "{diagnostics:#}");
    session.finish();
}

/// The editor and `crdls check` give the same diagnostics for the same file and crdls.toml, severities
/// included, because both run the one `check_file` (role, parse, pipeline, hint, severities). The
/// chart hint differs only in its words: the command line gives one per chart and counts its
/// templates, the editor one per open template; its code and (overridden) severity are the same.
#[test]
fn the_editor_and_the_command_line_give_the_same_diagnostics() {
    let widgets = std::fs::read_to_string(repo_root().join("fixtures/crds/widgets.yaml")).unwrap();
    let toml = "strict = true\n[severity]\n\"schema/minimum\" = \"info\"\n\"helm/templates\" = \"warning\"\n";
    let widget = "apiVersion: demo.crdls.dev/v1\nkind: Widget\nmetadata:\n  name: w\nspec:\n  size: 0\n  colour: red\n  tier: iron\n";
    let template = "apiVersion: demo.crdls.dev/v1\nkind: Widget\nmetadata:\n  name: {{ .Release.Name }}\nspec:\n  size: 0\n  owner: {{ .Values.owner }}\n  tier: iron\n";
    let files = [
        ("crds/widgets.yaml", widgets.as_str()),
        ("crdls.toml", toml),
        ("w.yaml", widget),
        ("chart/Chart.yaml", "apiVersion: v2\nname: app\nversion: 0.1.0\n"),
        ("chart/templates/w.yaml", template),
    ];
    let tree = crdls_tests::TempTree::new("front-ends-diagnostics", &files);
    let cli = crdls_tests::run_cli_in(&tree.path, &["check", "--format", "json", "w.yaml", "chart", "crds"], "");
    let report: Value = serde_json::from_str(&cli.stdout).unwrap_or_else(|e| panic!("{e}: {}{}", cli.stdout, cli.stderr));
    let mut options = SessionOptions::new();
    for (path, text) in &files {
        options = options.file(path, text);
    }
    let mut session = Session::start(options);
    for file in ["w.yaml", "chart/templates/w.yaml"] {
        let from_cli: Vec<String> = report["diagnostics"]
            .as_array()
            .unwrap()
            .iter()
            .filter(|d| d["file"] == file)
            .map(|d| {
                let start = &d["range"]["start"];
                let message = if d["code"] == "helm/templates" { "" } else { d["message"].as_str().unwrap() };
                format!(
                    "{}:{} {} {} {message}",
                    start["line"],
                    start["column"],
                    d["severity"].as_str().unwrap(),
                    d["code"].as_str().unwrap()
                )
            })
            .collect();
        session.open(file, session_text(&files, file));
        let from_editor: Vec<String> = session.wait_for_diagnostics(file, 1)["diagnostics"]
            .as_array()
            .unwrap()
            .iter()
            .map(|d| {
                let start = &d["range"]["start"];
                let severity = ["", "error", "warning", "info", "hint"][d["severity"].as_u64().unwrap() as usize];
                // The editor adds the API server's words on a line of their own; the JSON report does not.
                let message = if d["code"] == "helm/templates" { "" } else { d["message"].as_str().unwrap().lines().next().unwrap() };
                let (line, column) = (start["line"].as_u64().unwrap() + 1, start["character"].as_u64().unwrap() + 1);
                format!("{line}:{column} {severity} {} {message}", d["code"].as_str().unwrap())
            })
            .collect();
        assert!(from_cli.iter().any(|d| d.contains(" info schema/minimum ")), "{file}: {from_cli:#?}");
        // The chart hint is where each front end puts it: on the chart's Chart.yaml when the command
        // line checked it, on each open template in the editor; the user's severity holds in both.
        let (hints, from_editor): (Vec<String>, Vec<String>) = from_editor.into_iter().partition(|d| d.contains(" helm/templates "));
        assert_eq!(hints, if file == "w.yaml" { vec![] } else { vec!["1:1 warning helm/templates ".to_string()] }, "{file}");
        assert_eq!(from_editor, from_cli, "{file}");
    }
    assert!(
        report["diagnostics"].as_array().unwrap().iter().any(|d| d["code"] == "helm/templates" && d["severity"] == "warning"),
        "{report:#}"
    );
    session.finish();
}

fn session_text<'a>(files: &[(&str, &'a str)], path: &str) -> &'a str {
    files.iter().find(|(p, _)| *p == path).map(|(_, t)| *t).expect("a file of the tree")
}
