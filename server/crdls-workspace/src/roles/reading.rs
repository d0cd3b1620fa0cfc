//! How crdls reads a file of each role, in one sentence for the user: the editor shows it in the hover
//! of a document's `apiVersion` and `kind`, so that a missing field nobody reports has a visible reason.

use std::path::{Component, Path, PathBuf};

use super::{Carrier, FileRole};

impl FileRole {
    /// How a file of this role at `file` is read, in Markdown; `None` for a plain manifest, which is
    /// read as whole objects to create. Paths are shown relative to the file's directory.
    pub fn reading(&self, file: &Path) -> Option<String> {
        let dir = file.parent().unwrap_or(Path::new(""));
        let shown = |path: &Path| format!("`{}`", relative(dir, path).display());
        let text = match self {
            FileRole::Manifest => return None,
            FileRole::HelmTemplate { chart_name, .. } => format!(
                "Read as a template of Helm chart `{chart_name}`: its template actions are masked, and only the literal \
                 YAML is checked, for mistakes no value can fix."
            ),
            FileRole::Patch { kustomization } => format!(
                "Read as a strategic-merge patch that {} names: partial objects, so what they leave out is not required.",
                shown(kustomization)
            ),
            FileRole::JsonPatch { kustomization } => {
                format!("Read as a JSON 6902 patch that {} names: a list of operations, not objects.", shown(kustomization))
            }
            FileRole::KustomizeResource { kustomization, sets_namespace, patched, completed } => {
                let mut text = format!(
                    "Read as a resource that {} assembles: whole objects{}{}.",
                    shown(kustomization),
                    if *sets_namespace { ", whose namespace kustomize sets" } else { "" },
                    if patched.is_empty() { "" } else { ", completed by its patches (a field a patch of it writes is not missing)" }
                );
                for c in completed {
                    let by: Vec<String> = c.by.iter().map(|k| shown(k)).collect();
                    text.push_str(&format!(
                        " {} {} is read as a partial object: every kustomization that includes this base patches it ({}), \
                         so what it leaves out (required fields, containers, a selector) is not reported; its fields are checked.",
                        c.kind,
                        c.name,
                        by.join(", ")
                    ));
                }
                text
            }
            FileRole::TestResource { test, merges } => format!(
                "Read as objects that the test {} applies: {}, whose values may be expressions.",
                shown(test),
                if *merges { "merged into existing objects, so they may be partial" } else { "created whole" }
            ),
            FileRole::EvaluatedResource { test } => format!(
                "Read as objects that the Kyverno CLI test {} evaluates its policies against, never sent to an API server: \
                 they may be partial, and their names are the test's labels for them, not checked.",
                shown(test)
            ),
            FileRole::ScriptFilled { script, words, fields } => {
                let quoted = |items: &[String]| items.iter().map(|w| format!("`{w}`")).collect::<Vec<_>>().join(", ");
                match (words.is_empty(), fields.is_empty()) {
                    (false, true) => format!(
                        "Read as a manifest that the script {} fills in with `sed`: text holding {} is a placeholder, not checked.",
                        shown(script),
                        quoted(words)
                    ),
                    (true, _) => format!(
                        "Read as a manifest that the script {} fills in with `yq`: the fields it sets ({}) are not checked as written.",
                        shown(script),
                        quoted(fields)
                    ),
                    (false, false) => format!(
                        "Read as a manifest that the script {} fills in with `sed` and `yq`: text holding {} is a placeholder, \
                         and the fields it sets ({}) are not checked as written.",
                        shown(script),
                        quoted(words),
                        quoted(fields)
                    ),
                }
            }
            FileRole::TestAssertion { test } => {
                format!("Read as assertions of the test {}: partial objects, whose keys and values may be expressions.", shown(test))
            }
            FileRole::KubeadmPatch { json } => format!(
                "Read as a patch kubeadm applies to a control-plane component: {}.",
                if *json { "a list of JSON 6902 operations" } else { "a partial object" }
            ),
            FileRole::PatchFile { json } => format!(
                "Read as a patch, as its name says (what `kubectl patch --patch-file` reads): {}.",
                if *json { "a list of JSON 6902 operations" } else { "partial objects" }
            ),
            FileRole::ExpectedOutput => {
                "Read as a test's expected output, as its name, its directory, or the test or script that writes it says: \
                 partial objects that a program printed."
                    .to_string()
            }
            FileRole::TestInput { tests } => format!(
                "Read as a test input, below {}: what its objects write is checked, what they leave out (a required field, \
                 an image, a selector) is not. Set `wholeTestInputs = true` in crdls.toml (in VS Code, \
                 `crdls.wholeTestInputs`) to check it as whole objects.",
                shown(tests)
            ),
            FileRole::TestFragment { case } => format!(
                "Read as a file the commands of the kuttl test case {} read (kuttl applies only the numbered steps at \
                 the case's root): partial objects, an overlay or a fragment the commands complete, so what they \
                 leave out is not required and CEL rules are not run. Set `wholeTestInputs = true` in crdls.toml \
                 (in VS Code, `crdls.wholeTestInputs`) to check it as whole objects.",
                shown(case)
            ),
            FileRole::PolicyTemplate { generator } => format!(
                "Read as object templates that the policy generator {} wraps in a ConfigurationPolicy: partial objects \
                 that the policy compares with, or merges into, the cluster's objects, so what they leave out is not required.",
                shown(generator)
            ),
            FileRole::ProgramData { source, carrier } => format!(
                "Read as data that a program carries with it ({}): the program may fill in or transform the objects, \
                 or send them as patches, so they are partial; what they write is checked, what they leave out is \
                 not, and CEL rules are not run.",
                match carrier {
                    Carrier::Ko => format!("bundled with ko from {}, read at run time under `KO_DATA_PATH`", shown(source)),
                    Carrier::GoEmbed => format!("embedded by the `//go:embed` directive of {}", shown(source)),
                    Carrier::Image => format!("copied into its image by {}", shown(source)),
                }
            ),
            FileRole::DocsFragment { page } => format!(
                "Read as an example that the documentation page {} includes: partial objects, often a fragment of a spec, \
                 so what they leave out is not required.",
                shown(page)
            ),
        };
        Some(text)
    }
}

/// `path` relative to directory `dir`, with `..` where it lies elsewhere; `path` itself when the two
/// share no root (another drive, or one is relative and the other not).
fn relative(dir: &Path, path: &Path) -> PathBuf {
    let (from, to): (Vec<Component>, Vec<Component>) = (dir.components().collect(), path.components().collect());
    if from.first() != to.first() {
        return path.to_path_buf();
    }
    let common = from.iter().zip(&to).take_while(|(a, b)| a == b).count();
    let mut out = PathBuf::new();
    for _ in common..from.len() {
        out.push("..");
    }
    for part in &to[common..] {
        out.push(part);
    }
    if out.as_os_str().is_empty() {
        out.push(".");
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn paths_are_shown_from_the_file() {
        assert_eq!(relative(Path::new("/w/base/patches"), Path::new("/w/base/kustomization.yaml")), Path::new("../kustomization.yaml"));
        assert_eq!(relative(Path::new("/w/tests"), Path::new("/w/tests/e2e/x.yaml")), Path::new("e2e/x.yaml"));
        assert_eq!(relative(Path::new("/w/tests"), Path::new("/w/tests")), Path::new("."));
        assert_eq!(relative(Path::new("a/b"), Path::new("/abs/x")), Path::new("/abs/x"));
    }

    #[test]
    fn each_role_but_a_manifest_says_how_it_is_read() {
        let file = Path::new("/w/tests/e2e/object.yaml");
        let fragment = FileRole::DocsFragment { page: PathBuf::from("/w/docs/guide.md") }.reading(file).unwrap();
        assert!(fragment.starts_with("Read as an example that the documentation page `../../docs/guide.md` includes"), "{fragment}");
        assert_eq!(FileRole::Manifest.reading(file), None);
        let input = FileRole::TestInput { tests: PathBuf::from("/w/tests") }.reading(file).unwrap();
        assert!(input.starts_with("Read as a test input, below `..`:"), "{input}");
        assert!(input.contains("wholeTestInputs"), "{input}");
        let patch = FileRole::Patch { kustomization: PathBuf::from("/w/tests/kustomization.yaml") }.reading(file).unwrap();
        assert!(patch.contains("`../kustomization.yaml` names"), "{patch}");
        let merged = FileRole::TestResource { test: PathBuf::from("/w/tests/e2e/chainsaw-test.yaml"), merges: true };
        assert!(merged.reading(file).unwrap().contains("`chainsaw-test.yaml` applies: merged"));
        assert!(FileRole::PatchFile { json: true }.reading(file).unwrap().contains("JSON 6902"));
        let evaluated = FileRole::EvaluatedResource { test: PathBuf::from("/w/tests/e2e/kyverno-test.yaml") }.reading(file).unwrap();
        assert!(evaluated.contains("Kyverno CLI test `kyverno-test.yaml` evaluates"), "{evaluated}");
        let filled =
            FileRole::ScriptFilled { script: PathBuf::from("/w/hack/wipe.sh"), words: vec!["HOSTNAME".into()], fields: Vec::new() };
        let filled = filled.reading(file).unwrap();
        assert!(filled.contains("script `../../hack/wipe.sh` fills in") && filled.contains("`HOSTNAME`"), "{filled}");
        let template = FileRole::PolicyTemplate { generator: PathBuf::from("/w/tests/policyGenerator.yaml") }.reading(file).unwrap();
        assert!(template.contains("policy generator `../policyGenerator.yaml` wraps"), "{template}");
    }
}
