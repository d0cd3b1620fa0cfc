//! The ways crdls is installed and plugged in besides cargo: shell completions, manual pages, the
//! GitHub Action (`action.yml`), the pre-commit hook (`.pre-commit-hooks.yaml`) and the Python package
//! (`pyproject.toml`). What needs a built wheel (installing it, running the hook and the action's steps)
//! is run by `.ci/run` through `packaging/tests/`; these tests check what can be checked without one.

use std::collections::BTreeSet;
use std::io::Write;
use std::process::{Command, Stdio};

use crdls_tests::{announce_skip, repo_root, run_cli, Missing, TempTree};
use crdls_yaml::{Node, Value};

const SHELLS: [&str; 5] = ["bash", "zsh", "fish", "powershell", "elvish"];

#[test]
fn completions_are_printed_for_every_shell() {
    for shell in SHELLS {
        let run = run_cli(&["completions", shell], "");
        assert_eq!(run.code, 0, "{shell}: {run:?}");
        assert_eq!(run.stderr, "", "{shell}");
        // fish declares long options as `-l crds`; the others spell them out.
        let long = |name: &str| if shell == "fish" { format!("-l {name}") } else { format!("--{name}") };
        for word in ["check".to_string(), "explain".to_string(), long("crds"), long("strict"), long("format")] {
            assert!(run.stdout.contains(&word), "the {shell} script completes {word}:\n{}", run.stdout);
        }
    }
    let run = run_cli(&["completions", "tcsh"], "");
    assert_eq!(run.code, 2, "{run:?}");
    assert!(run.stderr.contains("bash"), "the error lists the shells: {}", run.stderr);
    for command in ["completions", "man"] {
        let args = ["crdls".to_string(), command.to_string()];
        assert!(!crdls::cli::wants_language_server(&args), "`crdls {command}` is not the language server");
    }
}

#[test]
fn bash_sources_the_completion_script_and_completes_with_it() {
    let script = run_cli(&["completions", "bash"], "").stdout;
    let tree = TempTree::new("completions-bash", &[("crdls.bash", &script)]);
    let file = tree.path.join("crdls.bash");
    let status = Command::new("bash").arg("-n").arg(&file).status().expect("bash runs");
    assert!(status.success(), "bash -n rejects the script");
    // What bash does on <TAB>: the function that `complete -p` names is called with the words so far.
    let session = r#"
        source "$1"
        complete -p crdls
        COMP_WORDS=(crdls check --cr); COMP_CWORD=2; COMP_LINE="crdls check --cr"; COMP_POINT=${#COMP_LINE}
        _crdls crdls --cr check
        echo "check --cr: ${COMPREPLY[*]}"
        COMP_WORDS=(crdls check --format ''); COMP_CWORD=3; COMP_LINE="crdls check --format "; COMP_POINT=${#COMP_LINE}
        _crdls crdls '' --format
        echo "check --format: ${COMPREPLY[*]}"
        COMP_WORDS=(crdls co); COMP_CWORD=1; COMP_LINE="crdls co"; COMP_POINT=${#COMP_LINE}
        _crdls crdls co crdls
        echo "co: ${COMPREPLY[*]}"
        COMP_WORDS=(crdls check --kube-version 1.3); COMP_CWORD=3; COMP_LINE="crdls check --kube-version 1.3"; COMP_POINT=${#COMP_LINE}
        _crdls crdls 1.3 --kube-version
        echo "check --kube-version 1.3: ${COMPREPLY[*]}"
        COMP_WORDS=(crdls explain schema/req); COMP_CWORD=2; COMP_LINE="crdls explain schema/req"; COMP_POINT=${#COMP_LINE}
        _crdls crdls schema/req explain
        echo "explain schema/req: ${COMPREPLY[*]}"
        COMP_WORDS=(crdls man ''); COMP_CWORD=2; COMP_LINE="crdls man "; COMP_POINT=${#COMP_LINE}
        _crdls crdls '' man
        echo "man: ${COMPREPLY[*]}"
    "#;
    let out = Command::new("bash").args(["--norc", "--noprofile", "-c", session, "bash"]).arg(&file).output().expect("bash runs");
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(out.status.success(), "{stdout}{}", String::from_utf8_lossy(&out.stderr));
    let lines: Vec<&str> = stdout.lines().collect();
    assert!(lines[0].starts_with("complete ") && lines[0].contains(" -F _crdls ") && lines[0].ends_with(" crdls"), "{stdout}");
    assert_eq!(lines[1], "check --cr: --crds", "{stdout}");
    assert_eq!(lines[2], "check --format: human json github sarif", "{stdout}");
    assert_eq!(lines[3], "co: cost completions", "{stdout}");
    // The values crdls knows, where the shell would otherwise offer file names or nothing.
    let newest = format!("1.{}", crdls_check::NEWEST_KUBERNETES_MINOR);
    assert!(lines[4].starts_with(&format!("check --kube-version 1.3: {newest} ")), "{stdout}");
    assert!(lines[4].ends_with(" 1.30"), "{stdout}");
    assert_eq!(lines[5], "explain schema/req: schema/required", "{stdout}");
    let pages: BTreeSet<&str> = lines[6].strip_prefix("man: ").unwrap_or_default().split(' ').filter(|w| !w.starts_with('-')).collect();
    let expected: BTreeSet<&str> = crdls::cli::command_names().into_iter().collect();
    assert_eq!(pages, expected, "`crdls man <TAB>` offers every command with a page: {stdout}");
}

#[test]
fn completions_are_written_into_a_directory_that_need_not_exist() {
    let tree = TempTree::new("completions-dir", &[]);
    for (shell, file) in [("bash", "crdls.bash"), ("zsh", "_crdls"), ("fish", "crdls.fish"), ("elvish", "crdls.elv")] {
        let dir = tree.path.join("share").join(shell);
        let run = run_cli(&["completions", shell, "--dir", dir.to_str().unwrap()], "");
        assert_eq!(run.code, 0, "{shell}: {run:?}");
        assert_eq!(run.stdout, "", "{shell}: the script goes into the directory");
        assert_eq!(run.stderr, format!("crdls: wrote {}\n", dir.join(file).display()));
        assert_eq!(std::fs::read_to_string(dir.join(file)).unwrap(), run_cli(&["completions", shell], "").stdout, "{shell}");
    }
    // A directory that cannot be made: a usage error naming the file, nothing on stdout.
    tree.write("blocker", "a file, not a directory\n");
    let run = run_cli(&["completions", "bash", "--dir", tree.path.join("blocker").to_str().unwrap()], "");
    assert_eq!(run.code, 2, "{run:?}");
    assert!(run.stderr.starts_with("crdls: cannot write the completion script "), "{}", run.stderr);
}

#[test]
fn the_wheel_and_package_outputs_are_ignored_by_git() {
    let out = Command::new("git")
        .args(["check-ignore", "--no-index", "dist/crdls-0.1.0-py3-none-linux_x86_64.whl", "editors/vscode/dist/crdls-linux-x64.vsix"])
        .arg("docs/book/index.html")
        .current_dir(repo_root())
        .output();
    let Ok(out) = out else {
        announce_skip(Missing::Git, None);
        return;
    };
    let ignored = String::from_utf8_lossy(&out.stdout);
    assert_eq!(
        ignored.lines().count(),
        3,
        "git ignores what `pip wheel . -w dist`, `package-platform` and `mdbook build docs` write: {ignored}"
    );
}

#[test]
fn man_pages_are_roff_and_render() {
    let run = run_cli(&["man"], "");
    assert_eq!(run.code, 0, "{run:?}");
    let page = run.stdout;
    assert!(page.starts_with(".ie \\n(.g .ds Aq \\(aq"), "{page}");
    let version = concat!("\"crdls ", env!("CARGO_PKG_VERSION"), "\"");
    for line in [".TH crdls 1 ", ".SH NAME", ".SH SYNOPSIS", ".SH SUBCOMMANDS", ".SH VERSION"] {
        assert!(page.lines().any(|l| l.starts_with(line)), "{line} in:\n{page}");
    }
    let name = page.lines().skip_while(|l| *l != ".SH NAME").nth(1).unwrap_or_default();
    assert!(name.starts_with("crdls \\- Kubernetes CRD and custom"), "the NAME line says the name once: {name}");
    assert!(page.contains("crdls\\-check(1)"), "the page names the check command's page:\n{page}");
    let run = run_cli(&["man", "check"], "");
    assert_eq!(run.code, 0, "{run:?}");
    let check = run.stdout;
    let title = check.lines().find(|l| l.starts_with(".TH ")).unwrap();
    assert_eq!(title, format!(".TH crdls-check 1  {version} "), "the footer names the release");
    assert!(check.contains("\\-\\-crds") && check.contains("\\-\\-strict"), "{check}");
    let run = run_cli(&["man", "chekc"], "");
    assert_eq!(run.code, 2, "{run:?}");
    assert!(run.stderr.starts_with("crdls: no command `chekc`; the commands are check, cost,"), "{}", run.stderr);

    let tree = TempTree::new("man-pages", &[]);
    let run = run_cli(&["man", "--dir", tree.path.join("man1").to_str().unwrap()], "");
    assert_eq!(run.code, 0, "{run:?}");
    let written: BTreeSet<String> =
        std::fs::read_dir(tree.path.join("man1")).unwrap().map(|e| e.unwrap().file_name().to_string_lossy().into_owned()).collect();
    let expected: BTreeSet<String> =
        ["crdls", "crdls-check", "crdls-completions", "crdls-cost", "crdls-explain", "crdls-explain-field", "crdls-lsp", "crdls-man"]
            .iter()
            .map(|page| format!("{page}.1"))
            .collect();
    assert_eq!(written, expected);
    assert_eq!(std::fs::read_to_string(tree.path.join("man1/crdls-check.1")).unwrap(), check, "--dir writes what `man check` prints");

    if Command::new("man").arg("--version").output().is_err() {
        announce_skip(Missing::Man, Some("rendering the pages"));
        return;
    }
    let out = Command::new("man")
        .arg("-l")
        .arg(tree.path.join("man1/crdls-check.1"))
        .env("MANWIDTH", "100")
        .env("MANPAGER", "cat")
        .env("LC_ALL", "C.UTF-8")
        .output()
        .expect("man runs");
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(out.status.success(), "man -l fails: {}", String::from_utf8_lossy(&out.stderr));
    assert!(out.stderr.is_empty(), "man or groff warns: {}", String::from_utf8_lossy(&out.stderr));
    for words in ["NAME", "crdls-check - Check custom resources", "SYNOPSIS", "--crds", "--strict", "--format"] {
        assert!(text.contains(words), "the rendered page shows {words:?}:\n{text}");
    }
}

/// The first document of a YAML file of the repository, parsed.
fn yaml_file(path: &str) -> (String, Node) {
    let text = std::fs::read_to_string(repo_root().join(path)).unwrap_or_else(|e| panic!("{path}: {e}"));
    let stream = crdls_yaml::parse(&text);
    let document = &stream.documents[0];
    assert!(document.diagnostics.is_empty(), "{path}: {:?}", document.diagnostics);
    let root = document.root.clone().unwrap_or_else(|| panic!("{path} is empty"));
    (text, root)
}

fn entries(node: &Node) -> &[crdls_yaml::Entry] {
    match &node.value {
        Value::Map(entries) => entries,
        other => panic!("a mapping, not {other:?}"),
    }
}

fn items(node: &Node) -> &[Node] {
    match &node.value {
        Value::Seq(items) => items,
        other => panic!("a sequence, not {other:?}"),
    }
}

fn string<'a>(node: &'a Node, key: &str) -> &'a str {
    node.get(key).and_then(Node::as_str).unwrap_or_else(|| panic!("a string at {key}"))
}

#[test]
fn every_action_input_reaches_a_script_and_every_script_parses() {
    let (_, action) = yaml_file("action.yml");
    assert_eq!(string(action.get("runs").unwrap(), "using"), "composite");
    let declared: BTreeSet<&str> = entries(action.get("inputs").unwrap()).iter().map(|e| e.key.as_str()).collect();
    let input_ref = regex::Regex::new(r"^\$\{\{ inputs\.([a-z-]+) \}\}$").unwrap();
    let mut used = BTreeSet::new();
    let mut outputs_written = BTreeSet::new();
    for step in items(action.get("runs").unwrap().get("steps").unwrap()) {
        let name = string(step, "name");
        assert_eq!(string(step, "shell"), "bash", "{name}");
        let script = string(step, "run");
        // Expressions spliced into a script are a shell injection; inputs come in through `env`.
        assert!(!script.contains("${{"), "{name}: an expression inside `run`");
        let mut bash = Command::new("bash").arg("-n").stdin(Stdio::piped()).stderr(Stdio::piped()).spawn().expect("bash runs");
        bash.stdin.take().unwrap().write_all(script.as_bytes()).unwrap();
        let out = bash.wait_with_output().unwrap();
        assert!(out.status.success(), "{name}: bash -n: {}", String::from_utf8_lossy(&out.stderr));
        for env in step.get("env").map(entries).unwrap_or_default() {
            let value = env.value.as_str().unwrap();
            if let Some(input) = input_ref.captures(value) {
                let input = input.get(1).unwrap().as_str();
                assert!(declared.contains(input), "{name}: {} reads the undeclared input {input}", env.key);
                used.insert(input.to_string());
            } else {
                assert_eq!(value, "${{ github.action_path }}", "{name}: {}", env.key);
            }
            let read = format!("${}", env.key);
            let read_braced = format!("${{{}", env.key);
            assert!(script.contains(&read) || script.contains(&read_braced), "{name}: the script never reads {}", env.key);
        }
        for line in script.lines().filter(|l| l.contains(">> \"$GITHUB_OUTPUT\"")) {
            let written = line.trim().trim_start_matches("echo \"").split('=').next().unwrap();
            outputs_written.insert(format!("steps.{}.outputs.{written}", string(step, "id")));
        }
    }
    let declared: BTreeSet<String> = declared.iter().map(|s| s.to_string()).collect();
    assert_eq!(used, declared, "every input reaches a script");
    for output in entries(action.get("outputs").unwrap()) {
        let value = string(&output.value, "value");
        let expression = value.trim_start_matches("${{ ").trim_end_matches(" }}");
        assert!(
            outputs_written.contains(expression),
            "output {} reads {expression}, which no step writes ({outputs_written:?})",
            output.key
        );
    }
}

#[test]
fn the_documented_workflows_use_the_action_inputs() {
    let readme = std::fs::read_to_string(repo_root().join("docs/src/ci.md")).unwrap();
    let (_, action) = yaml_file("action.yml");
    let declared: BTreeSet<&str> = entries(action.get("inputs").unwrap()).iter().map(|e| e.key.as_str()).collect();
    let mut workflows = 0;
    for block in readme.split("```yaml\n").skip(1).filter_map(|b| b.split("```").next()) {
        if !block.contains("uses: crdls/crdls@") {
            continue;
        }
        workflows += 1;
        let stream = crdls_yaml::parse(block);
        assert!(stream.documents[0].diagnostics.is_empty(), "{block}: {:?}", stream.documents[0].diagnostics);
        let workflow = stream.documents[0].root.clone().unwrap();
        for job in entries(workflow.get("jobs").unwrap()) {
            for step in items(job.value.get("steps").unwrap()) {
                if step.get("uses").and_then(Node::as_str).is_some_and(|u| u.starts_with("crdls/crdls@")) {
                    for with in step.get("with").map(entries).unwrap_or_default() {
                        assert!(
                            declared.contains(with.key.as_str()),
                            "docs/src/ci.md passes {}, which action.yml does not declare",
                            with.key
                        );
                    }
                }
            }
        }
    }
    assert!(workflows >= 2, "docs/src/ci.md shows a workflow with annotations and one with SARIF");
}

#[test]
fn the_pre_commit_hook_runs_crdls_check_on_yaml_and_json() {
    let (_, hooks) = yaml_file(".pre-commit-hooks.yaml");
    let hooks = items(&hooks);
    assert_eq!(hooks.len(), 1);
    let hook = &hooks[0];
    assert_eq!(string(hook, "id"), "crdls");
    assert_eq!(string(hook, "entry"), "crdls check");
    assert_eq!(string(hook, "language"), "python", "pre-commit installs the wheel of pyproject.toml");
    let types: Vec<&str> = items(hook.get("types_or").unwrap()).iter().filter_map(Node::as_str).collect();
    assert_eq!(types, ["yaml", "json"]);
    assert_eq!(hook.get("require_serial").map(|n| &n.value), Some(&Value::Bool(true)), "one run sees every CRD");
    // The arguments the documented configuration (docs/src/ci.md) passes are `crdls check` options.
    let run = run_cli(&["check", "--crds", "fixtures/crds", "--strict", "fixtures/resources/valid.yaml"], "");
    assert_eq!(run.code, 0, "{run:?}");
}

#[test]
fn the_python_package_is_the_crdls_binary() {
    let text = std::fs::read_to_string(repo_root().join("pyproject.toml")).unwrap();
    let pyproject: toml::Table = toml::from_str(&text).unwrap();
    assert_eq!(pyproject["build-system"]["build-backend"].as_str(), Some("maturin"));
    assert_eq!(pyproject["project"]["name"].as_str(), Some("crdls"));
    let maturin = &pyproject["tool"]["maturin"];
    assert_eq!(maturin["bindings"].as_str(), Some("bin"));
    let manifest = maturin["manifest-path"].as_str().unwrap();
    let cargo: toml::Table = toml::from_str(&std::fs::read_to_string(repo_root().join(manifest)).unwrap()).unwrap();
    assert_eq!(cargo["package"]["name"].as_str(), Some("crdls"));
    assert_eq!(cargo["bin"][0]["name"].as_str(), Some("crdls"), "the wheel's one binary is `crdls`");
}
