//! What a file is, judged from its name and the files around it: a plain manifest, a Helm chart
//! template (below `templates/` of a directory with `Chart.yaml`), a patch (one a kustomization names,
//! or one a kustomization comments out, a Makefile adds with `kustomize edit add patch`, a patch
//! transformer names, or kubeadm reads from its patches directory), a file a Chainsaw test applies or
//! asserts, a test's expected output (a golden file), or, when none of these, a test input (a plain
//! manifest below a test directory of the workspace; `test_inputs.rs`). The role decides how the file
//! is parsed and read ([`FileMode`]).
//!
//! Finding a role reads a few small files near the checked one (`Chart.yaml`, `kustomization.yaml`,
//! `chainsaw-test.yaml`, a `Makefile`); [`Roles`] caches what each directory holds, so a run or a
//! session reads each once. The language server clears the cache when files change.

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use crdls_check::FileMode;
use crdls_yaml::template::mask_go_template;
use crdls_yaml::{Node, Stream};

use crate::files::{glob_match, normalize};

mod completed;
mod completion;
mod docs;
mod goldens;
mod policy_generator;
mod programs;
mod reading;
mod references;
mod scripts;
mod templates;
mod test_inputs;
pub use completed::Completed;
pub use completion::PatchedFields;
pub use programs::Carrier;
pub use references::refused_references;
pub use test_inputs::{Workspace, TEST_DIRS};

/// The names kustomize recognises for a kustomization.
pub(crate) const KUSTOMIZATION_FILES: &[&str] = &["kustomization.yaml", "kustomization.yml", "Kustomization"];
/// The names Chainsaw looks for a test under.
const CHAINSAW_TEST_FILES: &[&str] = &["chainsaw-test.yaml", "chainsaw-test.yml"];
/// The names the Kyverno CLI (`kyverno test`) looks for a test under.
const KYVERNO_TEST_FILES: &[&str] = &["kyverno-test.yaml", "kyverno-test.yml"];
/// How many directories up a kustomization may sit above a patch it names.
const KUSTOMIZATION_DEPTH: usize = 4;
/// The names make gives its makefile.
const MAKEFILES: &[&str] = &["Makefile", "GNUmakefile", "makefile"];
/// How many directories up a Makefile may sit above a patch its `kustomize edit add patch` names
/// (a project's Makefile at its root, `config/default/` two levels down).
const MAKEFILE_DEPTH: usize = 6;
/// How many directories up a Go test may sit above the directory it writes its output into.
const GOLDEN_WRITER_DEPTH: usize = 3;
/// How many directories up a script may sit above a file it fills in with `sed` (a repository's `hack/`
/// script or Makefile at its root, the file two levels down).
const SCRIPT_DEPTH: usize = 3;
/// How many directories up a script may sit above a file it writes (a repository's `.github/scripts/`
/// writing `tests/unit/fixtures/chart/case.yaml`).
const SCRIPT_WRITER_DEPTH: usize = 6;
/// The directories where projects keep their scripts, below the directory they are run from.
const SCRIPT_DIRS: &[&str] = &["hack", "scripts", "script", ".github/scripts"];
/// How many subdirectories of a scripts directory are looked in for scripts that fill in a manifest.
const MAX_SCRIPT_SUBDIRS: usize = 16;
/// kustomize's built-in patch transformers, whose configuration (named in a kustomization's
/// `transformers`) names patch files in `path`.
const PATCH_TRANSFORMERS: &[&str] = &["PatchTransformer", "PatchStrategicMergeTransformer", "PatchJson6902Transformer"];
/// The targets kubeadm reads patches for from its patches directory (`--patches`, or `patches.directory`
/// in its configuration): `target[suffix][+patchtype].{yaml,yml,json}`.
const KUBEADM_PATCH_TARGETS: &[&str] =
    &["kube-apiserver", "kube-controller-manager", "kube-scheduler", "etcd", "kubeletconfiguration", "corednsdeployment"];

/// What a file is.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum FileRole {
    /// A manifest of whole objects.
    Manifest,
    /// A template of a Helm chart.
    HelmTemplate {
        /// The chart's directory (the one holding `Chart.yaml`).
        chart_dir: PathBuf,
        /// The chart's name, from `Chart.yaml` (the directory's name when it has none).
        chart_name: String,
    },
    /// A strategic-merge patch named by a kustomization.
    Patch {
        /// The kustomization that names it.
        kustomization: PathBuf,
    },
    /// A JSON 6902 patch named by a kustomization.
    JsonPatch {
        /// The kustomization that names it.
        kustomization: PathBuf,
    },
    /// A file a Chainsaw test applies, creates or updates (or a kuttl step): objects whose values may
    /// be expressions.
    TestResource {
        /// The test (or the directory of numbered step files).
        test: PathBuf,
        /// Whether the step may merge the objects into existing ones (`apply`, `update`, kuttl steps),
        /// so that they may be partial; a `create` step takes whole objects.
        merges: bool,
    },
    /// A file a kustomization names in its `resources`: whole objects that kustomize assembles further.
    KustomizeResource {
        /// The kustomization that names it.
        kustomization: PathBuf,
        /// Whether kustomize sets the namespace of what it assembles there: the kustomization has
        /// `namespace`, or is a `Component` (whose users may set one).
        sets_namespace: bool,
        /// The fields the kustomization's own strategic-merge patches write, by the kind and name of the
        /// objects they land on: a resource that leaves one out is completed by kustomize.
        patched: Vec<PatchedFields>,
        /// The objects of the file that every kustomization including this one patches (see
        /// `completed.rs`): skeletons the overlays complete, read as partial objects.
        completed: Vec<Completed>,
    },
    /// A file a Kyverno CLI test (`kyverno-test.yaml`) names in `resources`: objects the CLI evaluates its
    /// policies against in memory, merged as a test step's objects are (so they may be partial), and
    /// never sent to an API server. The test's `results` find them by kind and name, so a name there is
    /// the test's label for an object, which no API server validates.
    EvaluatedResource {
        /// The test that names it.
        test: PathBuf,
    },
    /// A file a Chainsaw test asserts, expects as an error, or patches with: partial objects.
    TestAssertion {
        /// The test (or the directory of numbered step files).
        test: PathBuf,
    },
    /// A patch kubeadm reads from a patches directory: named after the component it patches
    /// (`kube-apiserver.yaml`, `etcd+json.yaml`), in a directory named `patches`.
    KubeadmPatch {
        /// Whether the name asks for a JSON 6902 patch (`+json`) rather than a strategic or merge one.
        json: bool,
    },
    /// A file its name calls a patch (`deployment-patch.yaml`, `patch.yaml`), outside any kustomize tree:
    /// what `kubectl patch --patch-file` reads, a partial object (or a list of JSON 6902 operations).
    PatchFile {
        /// Whether it holds a list of JSON 6902 operations.
        json: bool,
    },
    /// A test's expected output, by its name (`*.golden.yaml`, `expected.yaml`; see
    /// [`crate::files::is_expected_output`]): what a program printed, often a fragment or a patch, so
    /// it is read as partial objects. Directory walks skip these unless asked; a file named as a path
    /// or opened in the editor gets this role. A file in a directory a Go test writes its output into
    /// (see `goldens.rs`) is one too, whatever its name, and is walked.
    ExpectedOutput,
    /// A plain manifest below a test directory of the workspace ([`TEST_DIRS`]): objects a project's
    /// tests read (a linter's or a policy library's inputs, an end-to-end suite's objects), which leave
    /// out what the test does not look at. What they write is checked; what they leave out is not
    /// ([`FileMode::TestInputs`]). CRDs among them are indexed and checked as CRDs.
    TestInput {
        /// The test directory it lies in (the outermost between the workspace's root and the file).
        tests: PathBuf,
    },
    /// A manifest a script fills in before applying it: a shell script or Makefile in its directory or
    /// above, or in a scripts directory nearby, passes it through `sed` (`cat pod.yaml | sed -e
    /// "s/HOSTNAME/$node/g" | kubectl apply -f -`), so the words its substitutions replace are
    /// placeholders, and text holding one is not checked; or through `yq` setting fields (`yq eval
    /// '.metadata.name = "x"'`), whose values as written are not checked (see `scripts.rs`). Otherwise read
    /// as a manifest.
    ScriptFilled {
        /// The script that fills it in.
        script: PathBuf,
        /// The words it replaces.
        words: Vec<String>,
        /// The fields it sets, as dotted paths.
        fields: Vec<String>,
    },
    /// A file in a subdirectory of a kuttl test case (a directory whose numbered step files are kuttl
    /// `TestStep`s), or beside those steps without a step's name, that no step names. kuttl applies only
    /// the numbered step files at a case's root, so such a file is what the test's commands read: an
    /// overlay a script merges onto a base (`yq eval-all '$base * $test'`), a fragment it completes
    /// before `kubectl apply`. Read as partial objects ([`FileMode::Fragments`]): what they write is
    /// checked, what they leave out is not, nor are CEL rules (which see the object the command builds).
    /// `wholeTestInputs` reads them as whole objects again.
    TestFragment {
        /// The test case's directory.
        case: PathBuf,
    },
    /// A file an Open Cluster Management `PolicyGenerator` names in `policies[].manifests[].path`:
    /// object templates of a ConfigurationPolicy, compared with or merged into the cluster's objects,
    /// so partial objects (see `policy_generator.rs`).
    PolicyTemplate {
        /// The generator that names it.
        generator: PathBuf,
    },
    /// A file a documentation page includes in a code block (mdox's `cat`, mdBook's `{{#include}}`,
    /// MkDocs snippets, embedme, Hugo's `readfile`; see `docs.rs`): an example shown in a guide, often a
    /// fragment of a spec, so read as partial objects.
    DocsFragment {
        /// The page that includes it.
        page: PathBuf,
    },
    /// Data a program carries with it and reads at run time: a file below a `kodata` directory (ko's
    /// convention for data bundled into a Go program's image, read under `KO_DATA_PATH`), one a Go
    /// `//go:embed` directive names, or one a Dockerfile's final stage copies into its image (see
    /// `programs.rs`). The program may fill in or transform what it reads (set names, namespaces, images,
    /// inject volumes) or send it as a patch, so it is read as a program's template: partial objects
    /// ([`FileMode::Fragments`]), whose values and types are checked but not what they leave out; a CRD
    /// among them is a whole CRD.
    ProgramData {
        /// The `kodata` directory, the Go file with the directive, or the Dockerfile.
        source: PathBuf,
        /// How the program carries it.
        carrier: Carrier,
    },
}

impl FileRole {
    /// Parses `text` as this role reads it: a template with its actions masked, anything else as it is.
    pub fn parse(&self, text: &str) -> (Stream, FileMode) {
        // Whatever names it, a file whose template actions break its YAML is a template (`templates.rs`).
        templates::or_template(text, self.parse_as_written(text))
    }

    /// Parses `text` as this role reads it, before asking whether it stands as a template.
    fn parse_as_written(&self, text: &str) -> (Stream, FileMode) {
        match self {
            FileRole::HelmTemplate { .. } => template(text),
            FileRole::Manifest | FileRole::ScriptFilled { .. } => {
                let stream = crdls_yaml::parse(text);
                // A plain manifest that is not YAML as it stands but holds actions anywhere (clusterloader,
                // krew, clusterctl templates whose `${VAR}` lines break it) is a template too.
                if templates::is_broken(&stream) && crdls_yaml::template::has_actions(text) {
                    return template(text);
                }
                // A document that holds strategic-merge directives (`$patch: delete`) is a patch by its
                // shape, whatever names it: the API server knows no such field.
                if has_patch_directives(text, &stream) {
                    return (stream, FileMode::Patches);
                }
                (stream, FileMode::Objects)
            }
            FileRole::Patch { .. } | FileRole::KubeadmPatch { json: false } | FileRole::ExpectedOutput | FileRole::DocsFragment { .. } => {
                (crdls_yaml::parse(text), FileMode::Patches)
            }
            FileRole::KubeadmPatch { json: true } | FileRole::PatchFile { json: true } => (crdls_yaml::parse(text), FileMode::JsonPatches),
            FileRole::PatchFile { json: false } => (crdls_yaml::parse(text), FileMode::Patches),
            FileRole::JsonPatch { .. } => (crdls_yaml::parse(text), FileMode::JsonPatches),
            FileRole::TestResource { merges, .. } => (crdls_yaml::parse(text), FileMode::TestObjects { merges: *merges }),
            FileRole::EvaluatedResource { .. } => (crdls_yaml::parse(text), FileMode::TestObjects { merges: true }),
            FileRole::KustomizeResource { sets_namespace, completed, .. } => {
                let completed = completed.iter().map(|c| (c.kind.clone(), c.name.clone())).collect();
                (crdls_yaml::parse(text), FileMode::Assembled { renames_namespaces: *sets_namespace, completed })
            }
            FileRole::TestAssertion { .. } | FileRole::PolicyTemplate { .. } => (crdls_yaml::parse(text), FileMode::Assertions),
            // Read as a manifest is (a template, a patch by its shape), whole objects as test inputs.
            FileRole::TestInput { .. } => match FileRole::Manifest.parse(text) {
                (stream, FileMode::Objects) => (stream, FileMode::TestInputs),
                other => other,
            },
            // Read as a manifest is, partial objects (a patch by its shape stays one).
            FileRole::TestFragment { .. } | FileRole::ProgramData { .. } => match FileRole::Manifest.parse(text) {
                (stream, FileMode::Objects) => (stream, FileMode::Fragments),
                other => other,
            },
        }
    }

    /// The CRDs a file of this role defines, read identity first (see [`crdls_crd::Crd::read_identities`]),
    /// their schemas built from `reader` when first needed. A template defines those whose identity and
    /// schema it writes as literal text (see [`template_crds`]).
    pub fn crds(&self, text: &str, reader: crdls_crd::TextReader) -> Vec<crdls_crd::Crd> {
        match self {
            FileRole::HelmTemplate { .. } => template_crds(text),
            // A manifest with template actions may be read as a template (see `parse`).
            FileRole::Manifest
            | FileRole::ScriptFilled { .. }
            | FileRole::TestInput { .. }
            | FileRole::TestFragment { .. }
            | FileRole::ProgramData { .. }
                if crdls_yaml::template::has_actions(text) =>
            {
                match self.parse(text) {
                    (_, FileMode::Template { .. }) => template_crds(text),
                    (stream, _) => stream.documents.iter().flat_map(crdls_crd::Crd::from_document).collect(),
                }
            }
            _ => crdls_crd::Crd::read_identities(text, reader),
        }
    }

    /// Drops what the file's mode keeps but its role knows the API server never sees: text a script
    /// replaces, fields a kustomization's own patch adds, and the names of objects only a Kyverno CLI test reads. Runs after the pipeline, on
    /// the diagnostics of the whole file.
    pub fn filter(&self, stream: &Stream, diagnostics: &mut Vec<crdls_diagnostics::Diagnostic>) {
        match self {
            FileRole::ScriptFilled { words, fields, .. } => scripts::drop_filled(stream, words, fields, diagnostics),
            FileRole::KustomizeResource { patched, .. } => completion::drop_completed(stream, patched, diagnostics),
            FileRole::EvaluatedResource { .. } => diagnostics.retain(|d| !crdls_check::metadata::is_name_error(d)),
            _ => {}
        }
    }

    /// The text to parse for editor features at a cursor (completion, hover): a template's actions
    /// masked, anything else as it is.
    pub fn text_for_features<'a>(&self, text: &'a str) -> std::borrow::Cow<'a, str> {
        match self {
            FileRole::HelmTemplate { .. } => std::borrow::Cow::Owned(mask_go_template(text).text),
            _ => std::borrow::Cow::Borrowed(text),
        }
    }
}

/// The CRDs a Go template (a chart's `templates/crds.yaml`, a CRDs-only chart) defines in literal text:
/// a CustomResourceDefinition whose `apiVersion`, `kind` and whole `spec` (group, names, scope,
/// versions and their schemas) no template action touches, whatever surrounds it (`{{- if
/// .Values.crds.enabled }}`), whatever its labels and annotations, and whatever its `conversion`
/// (a webhook's namespace is often the release's). A templated `metadata.name` is the one the API
/// server requires, `<plural>.<group>`. A CRD of which any of that is computed is not indexed: its
/// objects would be checked against a definition nobody renders.
pub fn template_crds(text: &str) -> Vec<crdls_crd::Crd> {
    if !text.contains("CustomResourceDefinition") {
        return Vec::new();
    }
    let masked = mask_go_template(text);
    let stream = crdls_yaml::parse(&masked.text);
    let literal = |node: &Node| !masked.touches_action(node.range);
    let mut out = Vec::new();
    for document in &stream.documents {
        let Some(root) = &document.root else { continue };
        if crdls_crd::is_crd(root).is_none() || !["apiVersion", "kind"].iter().all(|key| root.get(key).is_some_and(literal)) {
            continue;
        }
        if !literal_spec(root, document.range.end, &masked) {
            continue;
        }
        let name_is_literal = root.get("metadata").and_then(|m| m.get("name")).is_some_and(literal);
        for mut crd in crdls_crd::Crd::from_document(document) {
            if !name_is_literal {
                crd.name = format!("{}.{}", crd.names.plural, crd.group);
            }
            out.push(crd);
        }
    }
    out
}

/// Whether no action lies in the text of a CRD's `spec` (from its key to the next top-level key or the
/// end of the document, at a column deeper than `spec` itself, so that an `{{- end }}` closing a
/// condition around the whole CRD does not count), except in its `conversion`.
fn literal_spec(root: &Node, document_end: usize, masked: &crdls_yaml::template::Masked) -> bool {
    let crdls_yaml::Value::Map(entries) = &root.value else { return false };
    let Some(at) = entries.iter().position(|e| e.key == "spec") else { return false };
    let spec = &entries[at];
    let crdls_yaml::Value::Map(fields) = &spec.value.value else { return false };
    let span = |start: usize, next: Option<&crdls_yaml::Entry>, end: usize| start..next.map_or(end, |n| n.key_range.start);
    let spec_span = span(spec.key_range.start, entries.get(at + 1), document_end);
    let conversion =
        fields.iter().position(|f| f.key == "conversion").map(|i| span(fields[i].key_range.start, fields.get(i + 1), spec_span.end));
    let text = masked.text.as_bytes();
    let column = |offset: usize| offset - text[..offset].iter().rposition(|&b| b == b'\n').map_or(0, |p| p + 1);
    let spec_column = column(spec.key_range.start);
    !masked.actions.iter().any(|a| {
        spec_span.contains(&a.start) && column(a.start) > spec_column && !conversion.as_ref().is_some_and(|c| c.contains(&a.start))
    })
}

/// A Go template parsed with its actions masked. The masked text has the same offsets; the stream keeps
/// the real text for excerpts and fixes.
fn template(text: &str) -> (Stream, FileMode) {
    let masked = mask_go_template(text);
    let mut stream = crdls_yaml::parse(&masked.text);
    stream.text = std::sync::Arc::from(text);
    let blocks = crdls_yaml::template::conditionals(text, &masked.actions);
    let alternatives = blocks.iter().filter(|c| c.has_else).map(|c| c.range).collect();
    let conditionals = blocks.iter().map(|c| c.range).collect();
    let asks_capabilities = masked.actions.iter().any(|a| text.get(a.start..a.end).is_some_and(|t| t.contains(".Capabilities")));
    let undecided = stream
        .documents
        .iter()
        .filter_map(|d| d.root.as_ref())
        .flat_map(|root| crdls_yaml::template::undecided(text, &masked, root))
        .collect();
    (stream, FileMode::Template { actions: masked.actions, undecided, alternatives, asks_capabilities, conditionals })
}

/// The hint a chart's templates get: crdls checks only their literal YAML, and `helm template` shows
/// what they render. `templates` is how many template files of the chart were checked, for the
/// command line's one hint per chart; `None` words it for the one template open in an editor.
pub fn helm_template_hint(chart_name: &str, chart_dir: &str, templates: Option<usize>) -> String {
    let what = match templates {
        None => format!("this file is a Go template of Helm chart {chart_name}"),
        Some(1) => format!("Helm chart {chart_name} has 1 template, a Go template"),
        Some(n) => format!("Helm chart {chart_name} has {n} templates, Go templates"),
    };
    format!(
        "{what}: crdls checks only literal YAML there, for mistakes no template value can fix; to check what the chart renders, run `helm template {chart_dir} | crdls check -`"
    )
}

/// The directory conftest reads its Rego policies from unless told otherwise.
const CONFTEST_POLICY_DIR: &str = "policy";

/// The directory ko bundles into a Go program's image, for the program to read under `KO_DATA_PATH`.
const KO_DATA_DIR: &str = "kodata";

/// Roles of files, with what each directory holds read once.
#[derive(Default)]
pub struct Roles {
    dirs: HashMap<PathBuf, DirFacts>,
    /// What each directory's scripts and Go tests do to other files, read when first needed.
    scripts: HashMap<PathBuf, DirScripts>,
    /// Per directory, what the kustomizations and tests in the directories below it (down to
    /// [`NEARBY_DOWN`] levels) name, for files named from a sibling or cousin directory.
    nearby: HashMap<PathBuf, Arc<HashMap<PathBuf, FileRole>>>,
    /// Per kustomization directory, its patches, read when first asked whether they land on an object
    /// (see `completed.rs`).
    patches: HashMap<PathBuf, Arc<Vec<crate::kustomize::Patch>>>,
    /// Per directory, the directories with a kustomization around it (see `completed.rs`).
    around: HashMap<PathBuf, Arc<Vec<PathBuf>>>,
    /// Per workspace root, the files its documentation pages include, with the page (see `docs.rs`),
    /// read when first needed.
    docs: HashMap<PathBuf, Arc<HashMap<PathBuf, PathBuf>>>,
    /// Per workspace root, the files its Go programs embed and its images copy in (see `programs.rs`),
    /// read when first needed.
    carried: HashMap<PathBuf, Arc<programs::Carried>>,
    /// Where the workspace is: it decides which files are test inputs.
    workspace: Workspace,
}

/// What one directory holds that decides the roles of files in or below it.
#[derive(Clone, Default)]
struct DirFacts {
    /// The chart name, when the directory holds `Chart.yaml`.
    chart: Option<String>,
    /// The kustomization file here, if any.
    kustomization: Option<PathBuf>,
    /// Files a kustomization here names as patches or resources, resolved to paths, with their role;
    /// the patch files its patch transformers name; and the object templates a policy generator here
    /// names.
    patches: Vec<(PathBuf, FileRole)>,
    /// Files the kustomization here names as patches in comments (entries switched off).
    commented_patches: Vec<(PathBuf, FileRole)>,
    /// The paths a Makefile here adds as patches (`kustomize edit add patch --path X`), as written.
    make_patches: Vec<PathBuf>,
    /// Files (or globs) a Chainsaw test here names, resolved, with their role.
    test_files: Vec<(PathBuf, FileRole)>,
    /// The Chainsaw test file here, if any; without one, numbered step files follow the naming rule.
    test: Option<PathBuf>,
    /// Whether this directory is a kuttl test case: one of its numbered step files is a kuttl object
    /// (`TestStep`, `TestAssert`).
    kuttl_case: bool,
    /// Whether a `policy` directory here holds Rego policies: conftest's default place for them, so the
    /// YAML files here are what `conftest test` evaluates them against.
    conftest_policies: bool,
    /// The local directories the kustomization here names in `resources` or `components`, each with
    /// whether the kustomization renames the namespaces of what it includes (it sets `namespace`, or
    /// is a Component, whose includer may).
    includes: Vec<(PathBuf, bool)>,
}

/// What the scripts and Go tests of one directory do to other files: read only for a file whose role
/// is not decided before (see [`Roles::role_of`]), so that looking around for kustomizations and tests
/// reads no Go source.
#[derive(Default)]
struct DirScripts {
    /// The files the shell scripts and Makefiles here fill in with `sed` or `yq` (see
    /// [`scripts::script_fills`]), each with the script.
    fills: Vec<(scripts::Fill, PathBuf)>,
    /// The directories the Go tests here write their output into (see `goldens.rs`).
    test_writes: Vec<PathBuf>,
    /// What the shell scripts and Makefiles here write a command's output into, as written.
    writes: Vec<scripts::Written>,
}

/// What the scripts of `dir` do to other files; a Makefile is read only when it stays inside `bound` (see
/// [`Roles::bound`]).
fn read_dir_scripts(dir: &Path, bound: &Path) -> DirScripts {
    let mut scripts = DirScripts { test_writes: goldens::written_dirs(dir), ..DirScripts::default() };
    for name in MAKEFILES {
        if let Ok(text) = crate::files::read_inside(bound, &dir.join(name)) {
            scripts.fills.extend(scripts::script_fills(&text).into_iter().map(|fill| (fill, dir.join(name))));
            scripts.writes.extend(scripts::redirect_targets(&text));
        }
    }
    for (script, text) in scripts::shell_scripts(dir) {
        scripts.fills.extend(scripts::script_fills(&text).into_iter().map(|fill| (fill, script.clone())));
        scripts.writes.extend(scripts::redirect_targets(&text));
    }
    scripts
}

impl Roles {
    /// An empty cache, for a run without a workspace: no file is a test input. This is how CRDs are
    /// read wherever they are found, since a test input's CRDs are read as a manifest's are.
    pub fn new() -> Roles {
        Roles::default()
    }

    /// An empty cache for files of `workspace`.
    pub fn of(workspace: Workspace) -> Roles {
        Roles { workspace, ..Roles::default() }
    }

    /// The workspace the roles are decided in.
    pub fn workspace(&self) -> &Workspace {
        &self.workspace
    }

    /// Forgets everything read, after files changed.
    pub fn clear(&mut self) {
        self.dirs.clear();
        self.scripts.clear();
        self.nearby.clear();
        self.docs.clear();
        self.carried.clear();
        self.patches.clear();
        self.around.clear();
    }

    /// Sets the workspace the roles are decided in (the editor's folders and settings change).
    /// What was read is forgotten when the workspace is another one: it was read within the old
    /// folders' bounds (see [`Roles::bound`]), which may have refused, or allowed, a reference that the
    /// new folders decide otherwise.
    pub fn set_workspace(&mut self, workspace: &Workspace) {
        if self.workspace != *workspace {
            self.workspace = workspace.clone();
            self.clear();
        }
    }

    /// The role of the file at `path` (absolute, or relative to the working directory).
    pub fn role_of(&mut self, path: &Path) -> FileRole {
        let path = normalize(path);
        let Some(dir) = path.parent().map(Path::to_path_buf) else { return FileRole::Manifest };
        // A template: somewhere below `templates/` of a chart.
        for ancestor in dir.ancestors() {
            if ancestor.file_name().is_some_and(|n| n == "templates") {
                if let Some(chart_dir) = ancestor.parent() {
                    if let Some(name) = self.facts(chart_dir).chart.clone() {
                        return FileRole::HelmTemplate { chart_dir: chart_dir.to_path_buf(), chart_name: name };
                    }
                }
            }
        }
        // Elsewhere in a chart, a file that stands as a template (its `files/`, rendered with `tpl`).
        if let Some(role) = self.chart_fragment(&path, &dir) {
            return role;
        }
        // Data a Go program bundles with ko and reads at run time, whatever its name: knative-style
        // projects number their files (`500-webhooks.yaml`), which is no test step there.
        let root = self.workspace.root_of(&path).map(Path::to_path_buf);
        let inside = |a: &Path| root.as_deref().is_none_or(|r| a.starts_with(r) && a != r);
        if let Some(kodata) = dir.ancestors().take_while(|a| inside(a)).find(|a| a.file_name().is_some_and(|n| n == KO_DATA_DIR)) {
            return FileRole::ProgramData { source: kodata.to_path_buf(), carrier: Carrier::Ko };
        }
        // A file a Chainsaw test beside it (or one level up) names, or a numbered step file.
        for test_dir in dir.ancestors().take(2) {
            let facts = self.facts(test_dir).clone();
            for (named, role) in &facts.test_files {
                if *named == path || glob_match(&named.to_string_lossy(), &path.to_string_lossy()) {
                    return role.clone();
                }
            }
        }
        let facts = self.facts(&dir);
        if let Some(test) = facts.test.clone() {
            // A file beside a test that the test does not name (a step commented out, a leftover) is
            // test material all the same: read as an assertion, the most lenient reading.
            if !CHAINSAW_TEST_FILES.iter().any(|t| path.file_name().is_some_and(|n| n == *t)) {
                return FileRole::TestAssertion { test };
            }
        } else if let Some(role) = numbered_step_role(&path, &dir) {
            return role;
        }
        // A patch a kustomization here or above names, or names in a comment (a patch switched off).
        let mut nearest_kustomization = None;
        for kustomization_dir in dir.ancestors().take(KUSTOMIZATION_DEPTH) {
            let facts = self.facts(kustomization_dir);
            if let Some((_, role)) = facts.patches.iter().find(|(p, _)| *p == path) {
                let role = role.clone();
                let role = self.with_inherited_namespace(role, kustomization_dir);
                return self.with_completion(role, kustomization_dir, &path);
            }
            if nearest_kustomization.is_none() {
                nearest_kustomization = facts.kustomization.clone();
            }
        }
        // A file a kustomization or a test in a sibling or cousin directory names (`../patches/x.yaml`,
        // `file: ../cluster.yaml`).
        if let Some(role) = self.named_nearby(&path, &dir) {
            return role;
        }
        for kustomization_dir in dir.ancestors().take(KUSTOMIZATION_DEPTH) {
            let facts = self.facts(kustomization_dir);
            if let Some((_, role)) = facts.commented_patches.iter().find(|(p, _)| *p == path) {
                return role.clone();
            }
        }
        if let Some(kustomization) = nearest_kustomization {
            // A patch no kustomization names (yet): kubebuilder scaffolds `config/crd/patches/*.yaml` and
            // `*_patch.yaml` files whose references stay commented out until a feature is enabled.
            if looks_like_a_patch(&path) {
                return FileRole::Patch { kustomization };
            }
            // A patch a Makefile adds to the kustomization when it runs (`kustomize edit add patch
            // --path image.yaml`).
            for make_dir in dir.ancestors().take(MAKEFILE_DEPTH) {
                if self.facts(make_dir).make_patches.iter().any(|named| ends_with_path(&path, named)) {
                    return FileRole::Patch { kustomization };
                }
            }
            // A copy of a patch that a kustomization below names, left behind when the patch moved
            // into a component or an overlay of its own: the same name and the same text.
            if let Some(role) = self.copy_of_a_patch_below(&path, &dir) {
                return role;
            }
        }
        // A kubeadm patch: named after a control-plane component, in a patches directory.
        if let Some(json) = kubeadm_patch(&path) {
            return FileRole::KubeadmPatch { json };
        }
        // A manifest a script here or above fills in with `sed` or `yq`: named by the script from its own
        // directory, or by a path of more than one component from wherever the script runs; or a script in
        // a scripts directory nearby (`hack/`, `scripts/kind/`) names it so.
        if let Some(role) = self.filled_by_scripts(&path, &dir) {
            return role;
        }
        // A manifest beside such a script and the files it fills in, holding one of the words it replaces
        // that is a constant's name (`HOSTNAME`): the directory's convention for what the script, or its
        // user by hand, replaces.
        if let Some(role) = self.filled_beside(&path, &dir) {
            return role;
        }
        // A test's expected output, by its name, or by a test that writes it.
        if crate::files::is_expected_output(&path) || self.workspace.in_golden_dir(&path) || self.written_by_tests(&dir) {
            return FileRole::ExpectedOutput;
        }
        // Below a test directory, what a project's script writes a command's output into: a rendering
        // kept to compare with (`helm template … > tests/fixtures/case.yaml`), not an input.
        if self.workspace.test_dir_of(&path).is_some() && self.written_by_scripts(&path, &dir) {
            return FileRole::ExpectedOutput;
        }
        // A patch by its name, for `kubectl patch --patch-file` (a kustomize tree decided above), or by the
        // name its first line gives it.
        if named_as_patch(&path) || calls_itself_a_patch(&path) {
            return FileRole::PatchFile { json: holds_operation_list(&path) };
        }
        // Data a Go program embeds, or an image's Dockerfile copies in.
        if let Some(role) = self.carried_by_a_program(&path) {
            return role;
        }
        // What a kuttl test's commands read, not kuttl itself.
        if let Some(case) = self.kuttl_case_of(&dir) {
            return FileRole::TestFragment { case };
        }
        // A plain manifest below a test directory of the workspace.
        if let Some(tests) = self.workspace.test_dir_of(&path) {
            return FileRole::TestInput { tests };
        }
        // What conftest evaluates the Rego policies of the `policy` directory beside it against (its
        // default), a test input of a policy; read so unless test inputs are read whole.
        if !self.workspace.whole_test_inputs && self.facts(&dir).conftest_policies {
            return FileRole::TestInput { tests: dir };
        }
        // An example a documentation page of the workspace shows through an include directive.
        if let Some(page) = self.included_by_docs(&path) {
            return FileRole::DocsFragment { page };
        }
        FileRole::Manifest
    }

    /// The kuttl test case that `dir` is, or lies in up to [`KUTTL_FRAGMENT_DEPTH`] levels below, for a
    /// file in `dir` that is not one of its numbered steps (those were given their role before); `None`
    /// when test inputs are read as whole objects.
    fn kuttl_case_of(&mut self, dir: &Path) -> Option<PathBuf> {
        if self.workspace.whole_test_inputs {
            return None;
        }
        dir.ancestors().take(KUTTL_FRAGMENT_DEPTH + 1).find(|case| self.facts(case).kuttl_case).map(Path::to_path_buf)
    }

    /// The documentation page of the workspace root that holds `path` which includes it, if one does
    /// and the file shows a fragment: an object without a name. An example a page includes whole (with
    /// its name) is checked as the whole object a reader would copy.
    fn included_by_docs(&mut self, path: &Path) -> Option<PathBuf> {
        let root = self.workspace.root_of(path)?.to_path_buf();
        let included = self.docs.entry(root.clone()).or_insert_with(|| Arc::new(docs::included_by_pages(&root)));
        let page = included.get(path).cloned()?;
        let text = crate::files::read_text(path).ok()?;
        docs::shows_a_fragment(&crdls_yaml::parse(&text)).then_some(page)
    }

    /// The role of a file that a Go program of the workspace root holding it embeds, or that a Dockerfile
    /// there copies into its image.
    fn carried_by_a_program(&mut self, path: &Path) -> Option<FileRole> {
        let root = self.workspace.root_of(path)?.to_path_buf();
        let carried = self.carried.entry(root.clone()).or_insert_with(|| Arc::new(programs::carried_below(&root)));
        carried.find(path).map(|(source, carrier)| FileRole::ProgramData { source, carrier })
    }

    /// The role of a manifest that a script fills in (see [`FileRole::ScriptFilled`]): a script in `dir` or
    /// up to [`SCRIPT_DEPTH`] levels above that names it from its directory, or by a path of more than one
    /// component (matched at the end of the file's path, from wherever the script runs); or a script in a
    /// scripts directory ([`SCRIPT_DIRS`]) of an ancestor up to the workspace root (at most
    /// [`SCRIPT_WRITER_DEPTH`] levels), or in one of its subdirectories, that names it by such a path.
    fn filled_by_scripts(&mut self, path: &Path, dir: &Path) -> Option<FileRole> {
        let role = |fill: &scripts::Fill, script: &PathBuf| FileRole::ScriptFilled {
            script: script.clone(),
            words: fill.words.clone(),
            fields: fill.fields.clone(),
        };
        let by_path = |file: &Path| {
            file.components().filter(|c| matches!(c, std::path::Component::Normal(_))).count() > 1 && ends_with_path(path, file)
        };
        for script_dir in dir.ancestors().take(SCRIPT_DEPTH) {
            let named = |file: &Path| normalize(&script_dir.join(file)) == path || by_path(file);
            if let Some((fill, script)) = self.scripts(script_dir).fills.iter().find(|(fill, _)| named(&fill.file)) {
                return Some(role(fill, script));
            }
        }
        let top = self.workspace.root_of(path).map(Path::to_path_buf)?;
        for ancestor in
            dir.ancestors().take(SCRIPT_WRITER_DEPTH + 1).filter(|a| a.starts_with(&top)).map(Path::to_path_buf).collect::<Vec<_>>()
        {
            for sub in SCRIPT_DIRS {
                let scripts_dir = ancestor.join(sub);
                if !scripts_dir.is_dir() {
                    continue;
                }
                let mut dirs = vec![scripts_dir.clone()];
                dirs.extend(subdirectories(&scripts_dir).into_iter().take(MAX_SCRIPT_SUBDIRS));
                for script_dir in dirs {
                    if let Some((fill, script)) = self.scripts(&script_dir).fills.iter().find(|(fill, _)| by_path(&fill.file)) {
                        return Some(role(fill, script));
                    }
                }
            }
        }
        None
    }

    /// The role of a manifest in `dir` that no script names but that holds a constant's name (`HOSTNAME`)
    /// which a script of `dir` replaces with `sed` in another file of `dir`.
    fn filled_beside(&mut self, path: &Path, dir: &Path) -> Option<FileRole> {
        let facts = self.scripts(dir);
        let in_dir = |file: &Path| normalize(&dir.join(file)).parent() == Some(dir);
        let (script, words) = facts.fills.iter().filter(|(fill, _)| in_dir(&fill.file)).find_map(|(fill, script)| {
            let constants: Vec<String> = fill.words.iter().filter(|w| scripts::is_constant_name(w)).cloned().collect();
            (!constants.is_empty()).then(|| (script.clone(), constants))
        })?;
        let text = crate::files::read_text(path).ok()?;
        let words: Vec<String> = words.into_iter().filter(|w| text.contains(w.as_str())).collect();
        (!words.is_empty()).then_some(FileRole::ScriptFilled { script, words, fields: Vec::new() })
    }

    /// A resource of a kustomization that sets no namespace itself, but that a kustomization above it
    /// includes as a directory and that renames namespaces (or that is included so by one that does,
    /// up to [`NEARBY_UP`] levels): kustomize's namespace transformer renames it all the same.
    fn with_inherited_namespace(&mut self, role: FileRole, kustomization_dir: &Path) -> FileRole {
        match role {
            FileRole::KustomizeResource { kustomization, sets_namespace: false, patched, completed } => {
                let sets_namespace = self.renamed_by_includer(kustomization_dir, NEARBY_UP);
                FileRole::KustomizeResource { kustomization, sets_namespace, patched, completed }
            }
            other => other,
        }
    }

    /// Whether a kustomization in an ancestor of `dir` (up to `depth` levels) includes `dir` and renames
    /// namespaces, or includes it and is itself so included.
    fn renamed_by_includer(&mut self, dir: &Path, depth: usize) -> bool {
        if depth == 0 {
            return false;
        }
        let ancestors: Vec<PathBuf> = dir.ancestors().skip(1).take(depth).map(Path::to_path_buf).collect();
        for (up, ancestor) in ancestors.iter().enumerate() {
            let Some(renames) = self.facts(ancestor).includes.iter().find(|(included, _)| included == dir).map(|(_, r)| *r) else {
                continue;
            };
            if renames || self.renamed_by_includer(ancestor, depth - up - 1) {
                return true;
            }
        }
        false
    }

    /// The role of a patch that a kustomization in a directory below `dir` names (see
    /// [`Roles::named_below`]) and that `path` is a copy of: a file of the same name and the same text.
    fn copy_of_a_patch_below(&mut self, path: &Path, dir: &Path) -> Option<FileRole> {
        let name = path.file_name()?;
        let named = match self.nearby.get(dir) {
            Some(named) => named.clone(),
            None => {
                let named = Arc::new(self.named_below(dir));
                self.nearby.insert(dir.to_path_buf(), named.clone());
                named
            }
        };
        let mut copies: Vec<(&PathBuf, &FileRole)> = named
            .iter()
            .filter(|(file, role)| file.file_name() == Some(name) && *file != path && matches!(role, FileRole::Patch { .. }))
            .collect();
        copies.sort_by(|a, b| a.0.cmp(b.0));
        let text = crate::files::read_text(path).ok()?;
        let bound = self.bound(dir);
        copies.into_iter().find(|(file, _)| crate::files::read_inside(&bound, file).is_ok_and(|t| t == text)).map(|(_, role)| role.clone())
    }

    /// Whether a Go test in `dir` or up to [`GOLDEN_WRITER_DEPTH`] levels above writes its output into `dir`.
    fn written_by_tests(&mut self, dir: &Path) -> bool {
        dir.ancestors().take(GOLDEN_WRITER_DEPTH + 1).any(|test_dir| self.scripts(test_dir).test_writes.iter().any(|w| w == dir))
    }

    /// Whether a shell script or Makefile of the project writes a command's output into `path` (in `dir`):
    /// one in `dir` or an ancestor up to the workspace root (at most [`SCRIPT_WRITER_DEPTH`] levels up), or
    /// in a directory where projects keep their scripts ([`SCRIPT_DIRS`]) of one of those. A target is
    /// resolved from the script's directory, from the ancestor (where a `hack/` script is run from), or,
    /// when it has more than one component, from wherever the script runs (matched at the end of the
    /// path).
    fn written_by_scripts(&mut self, path: &Path, dir: &Path) -> bool {
        let top = match self.workspace.root_of(path) {
            Some(root) => root.to_path_buf(),
            None if path.is_relative() => PathBuf::new(),
            None => return false,
        };
        for ancestor in dir.ancestors().take(SCRIPT_WRITER_DEPTH + 1) {
            if !ancestor.starts_with(&top) {
                break;
            }
            for sub in std::iter::once("").chain(SCRIPT_DIRS.iter().copied()) {
                // A directory that does not exist reads as one without scripts, and is remembered so.
                let script_dir = if sub.is_empty() { ancestor.to_path_buf() } else { ancestor.join(sub) };
                let writes = self.scripts(&script_dir).writes.clone();
                if writes.iter().any(|w| writes_into(w, path, &[&script_dir, ancestor])) {
                    return true;
                }
            }
        }
        false
    }

    fn facts(&mut self, dir: &Path) -> &DirFacts {
        let bound = self.bound(dir);
        self.dirs.entry(dir.to_path_buf()).or_insert_with(|| read_dir_facts(dir, &bound))
    }

    fn scripts(&mut self, dir: &Path) -> &DirScripts {
        let bound = self.bound(dir);
        self.scripts.entry(dir.to_path_buf()).or_insert_with(|| read_dir_scripts(dir, &bound))
    }

    /// Where the files that `dir`'s kustomizations, charts, scripts and tests name may be read from: the
    /// workspace root that holds `dir`, or `dir` itself when no root does (a directory above the
    /// workspace, or a run without one). A reference that leads elsewhere, through `..`, an absolute
    /// path or a symbolic link, is not read (see [`crate::files::read_inside`]): a repository's file
    /// cannot make crdls open a kubeconfig or a key, nor wait on a FIFO.
    fn bound(&self, dir: &Path) -> PathBuf {
        self.workspace.root_of(dir).unwrap_or(dir).to_path_buf()
    }

    /// The role a kustomization or a test gives `path` from a directory that is not one of its
    /// ancestors: one below an ancestor of `dir` up to [`NEARBY_UP`] levels up, and no higher than the
    /// workspace root that holds the file (for a relative path, the working directory). A file outside
    /// every root is not looked around for.
    fn named_nearby(&mut self, path: &Path, dir: &Path) -> Option<FileRole> {
        let top = match self.workspace.root_of(path) {
            Some(root) => root.to_path_buf(),
            None if path.is_relative() => PathBuf::new(),
            None => return None,
        };
        for ancestor in dir.ancestors().take(NEARBY_UP + 1) {
            if !ancestor.starts_with(&top) {
                break;
            }
            let named = match self.nearby.get(ancestor) {
                Some(named) => named.clone(),
                None => {
                    let named = Arc::new(self.named_below(ancestor));
                    self.nearby.insert(ancestor.to_path_buf(), named.clone());
                    named
                }
            };
            if let Some(role) = named.get(path) {
                return Some(role.clone());
            }
        }
        None
    }

    /// What the kustomizations and tests in the directories below `dir` (not `dir` itself) name, down
    /// to [`NEARBY_DOWN`] levels and at most [`NEARBY_DIRS`] directories a level, the first naming of a
    /// file (in sorted order, nearer levels first) winning.
    fn named_below(&mut self, dir: &Path) -> HashMap<PathBuf, FileRole> {
        let mut named = HashMap::new();
        let mut level = vec![dir.to_path_buf()];
        for _ in 0..NEARBY_DOWN {
            let next: Vec<PathBuf> = level.iter().flat_map(|d| subdirectories(d)).take(NEARBY_DIRS).collect();
            for below in &next {
                let facts = self.facts(below);
                for (file, role) in facts.patches.iter().chain(&facts.test_files) {
                    named.entry(file.clone()).or_insert_with(|| role.clone());
                }
            }
            level = next;
        }
        named
    }
}

/// How many levels above a file's directory [`Roles::named_nearby`] looks for what names it.
const NEARBY_UP: usize = 3;
/// How many levels below each of those directories it looks.
const NEARBY_DOWN: usize = 2;
/// How many directories of one level it reads at most.
const NEARBY_DIRS: usize = 512;

/// The directories in `dir`, sorted, at most [`NEARBY_DIRS`]: not followed through links, and without
/// `.git` and dependencies (`node_modules`, `target`, a Go `vendor` tree), which hold no kustomization of
/// the project.
fn subdirectories(dir: &Path) -> Vec<PathBuf> {
    let Ok(entries) = std::fs::read_dir(if dir.as_os_str().is_empty() { Path::new(".") } else { dir }) else { return Vec::new() };
    let mut dirs: Vec<PathBuf> = entries
        .filter_map(Result::ok)
        .filter(|e| e.file_type().is_ok_and(|t| t.is_dir()))
        .map(|e| e.file_name())
        .map(|name| (dir.join(&name), name))
        .filter(|(path, name)| name != ".git" && !crate::files::is_dependency_dir(path, &name.to_string_lossy()))
        .map(|(path, _)| path)
        .take(NEARBY_DIRS * 4)
        .collect();
    dirs.sort();
    dirs.truncate(NEARBY_DIRS);
    dirs
}

/// The files in `dir` whose names `keep` takes, sorted, at most `max` of them: not followed through
/// links, and read from at most `4 * max` entries, so a huge directory costs no more than a small one.
/// How far a walk of a whole workspace root for files of one sort goes (documentation pages, Go sources).
#[derive(Clone, Copy)]
pub(super) struct RootWalk {
    /// How deep below the root.
    pub(super) depth: usize,
    /// How many directories are listed at most.
    pub(super) dirs: usize,
    /// How many files are kept at most.
    pub(super) files: usize,
    /// Whether Go's `testdata` directories are skipped too.
    pub(super) skip_testdata: bool,
}

/// The files below `root` whose names `keep` takes, sorted per directory, within `walk`'s bounds; hidden
/// entries and dependencies (see [`crate::files::is_dependency_dir`]) are skipped, and links are not
/// followed.
pub(super) fn files_below_root(root: &Path, walk: RootWalk, keep: impl Fn(&str) -> bool) -> Vec<PathBuf> {
    fn visit(dir: &Path, depth: usize, walk: RootWalk, keep: &dyn Fn(&str) -> bool, dirs: &mut usize, out: &mut Vec<PathBuf>) {
        if depth > walk.depth || *dirs >= walk.dirs || out.len() >= walk.files {
            return;
        }
        *dirs += 1;
        let Ok(entries) = std::fs::read_dir(dir) else { return };
        let mut entries: Vec<(PathBuf, std::fs::FileType)> =
            entries.flatten().filter_map(|e| e.file_type().ok().map(|t| (e.path(), t))).collect();
        entries.sort_by(|a, b| a.0.cmp(&b.0));
        for (path, ty) in entries {
            let name = path.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_default();
            if name.starts_with('.') {
                continue;
            }
            if ty.is_dir() {
                let skipped = crate::files::is_dependency_dir(&path, &name) || (walk.skip_testdata && name == crate::files::TESTDATA_DIR);
                if !skipped {
                    visit(&path, depth + 1, walk, keep, dirs, out);
                }
            } else if ty.is_file() && keep(&name) {
                if out.len() >= walk.files {
                    return;
                }
                out.push(path);
            }
        }
    }
    let mut out = Vec::new();
    visit(root, 0, walk, &keep, &mut 0, &mut out);
    out
}

pub(super) fn files_in(dir: &Path, keep: impl Fn(&str) -> bool, max: usize) -> Vec<PathBuf> {
    let Ok(entries) = std::fs::read_dir(if dir.as_os_str().is_empty() { Path::new(".") } else { dir }) else { return Vec::new() };
    let mut files: Vec<PathBuf> = entries
        .filter_map(Result::ok)
        .filter(|e| e.file_type().is_ok_and(|t| t.is_file()))
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .filter(|name| keep(name))
        .map(|name| dir.join(name))
        .take(max.saturating_mul(4))
        .collect();
    files.sort();
    files.truncate(max);
    files
}

fn read_dir_facts(dir: &Path, bound: &Path) -> DirFacts {
    let mut facts = DirFacts::default();
    let read = |name: &str| crate::files::read_inside(bound, &dir.join(name)).ok();
    if let Some(text) = read("Chart.yaml") {
        let stream = crdls_yaml::parse(&text);
        let name = stream.documents.first().and_then(|d| d.root.as_ref()).and_then(|r| r.get_str("name")).map(str::to_string);
        facts.chart = Some(name.unwrap_or_else(|| dir.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_default()));
    }
    for name in KUSTOMIZATION_FILES {
        if let Some(text) = read(name) {
            let kustomization = dir.join(name);
            facts.kustomization = Some(kustomization.clone());
            for doc in crdls_yaml::parse(&text).documents {
                if let Some(root) = &doc.root {
                    kustomization_patches(root, dir, bound, &kustomization, &mut facts.patches);
                    transformer_patches(root, dir, bound, &kustomization, &mut facts.patches);
                    included_directories(root, dir, &mut facts.includes);
                }
            }
            commented_patches(&text, dir, bound, &kustomization, &mut facts.commented_patches);
            break;
        }
    }
    policy_generator::object_templates(dir, bound, facts.kustomization.as_deref(), &mut facts.patches);
    let policies = dir.join(CONFTEST_POLICY_DIR);
    facts.conftest_policies = policies.starts_with(bound) && !files_in(&policies, |n| n.ends_with(".rego"), 1).is_empty();
    for name in MAKEFILES {
        if let Some(text) = read(name) {
            facts.make_patches.extend(make_patch_paths(&text));
        }
    }
    for name in KYVERNO_TEST_FILES {
        if let Some(text) = read(name) {
            let test = dir.join(name);
            for doc in crdls_yaml::parse(&text).documents {
                if let Some(root) = &doc.root {
                    kyverno_test_files(root, dir, &test, &mut facts.test_files);
                }
            }
        }
    }
    for (name, text) in kuttl_step_texts(dir, bound) {
        let step = dir.join(name);
        for doc in crdls_yaml::parse(&text).documents {
            if let Some(root) = &doc.root {
                facts.kuttl_case |= root.get_str("apiVersion").is_some_and(|v| v.starts_with("kuttl.dev/"));
                kuttl_step_files(root, dir, &step, &mut facts.test_files);
            }
        }
    }
    for name in CHAINSAW_TEST_FILES {
        if let Some(text) = read(name) {
            let test = dir.join(name);
            facts.test = Some(test.clone());
            for doc in crdls_yaml::parse(&text).documents {
                if let Some(root) = &doc.root {
                    chainsaw_files(root, dir, &test, &mut facts.test_files);
                }
            }
        }
    }
    facts
}

/// The files a kustomization (or component) names: patches (`patches` entries with a `path`, or bare
/// paths, a JSON 6902 patch when the file holds a list of operations; `patchesStrategicMerge` paths;
/// `patchesJson6902` paths), then resource files.
fn kustomization_patches(root: &Node, dir: &Path, bound: &Path, kustomization: &Path, out: &mut Vec<(PathBuf, FileRole)>) {
    let seq = |key: &str| root.get(key).and_then(Node::as_seq).unwrap_or_default();
    let by = || kustomization.to_path_buf();
    for entry in seq("patches") {
        // An entry is `{path: ...}` (or inline `{patch: ...}`); kustomize also takes a bare path.
        if let Some(path) = entry.get_str("path").or_else(|| entry.as_str().filter(|p| !p.contains('\n') && !p.contains(": "))) {
            let file = normalize(&dir.join(path));
            let role = if names_operation_list(bound, &file) {
                FileRole::JsonPatch { kustomization: by() }
            } else {
                FileRole::Patch { kustomization: by() }
            };
            out.push((file, role));
        }
    }
    for entry in seq("patchesStrategicMerge") {
        // An entry is inline patch text when it holds a line break or a key; else it is a path.
        if let Some(path) = entry.as_str().filter(|p| !p.contains('\n') && !p.contains(": ")) {
            out.push((normalize(&dir.join(path)), FileRole::Patch { kustomization: by() }));
        }
    }
    for entry in seq("patchesJson6902") {
        if let Some(path) = entry.get_str("path") {
            out.push((normalize(&dir.join(path)), FileRole::JsonPatch { kustomization: by() }));
        }
    }
    // Resource files (directories and remote bases hold their own kustomization), completed by the
    // kustomization's own strategic-merge patches.
    let sets_namespace = root.get_str("namespace").is_some() || root.get_str("kind") == Some("Component");
    let mut patched = Vec::new();
    for entry in seq("patches").iter().chain(seq("patchesStrategicMerge").iter()) {
        patched.extend(completion::patched_fields(entry, dir, bound));
    }
    for entry in seq("resources") {
        if let Some(path) = entry.as_str().filter(|p| [".yaml", ".yml", ".json"].iter().any(|e| p.ends_with(e)) && !p.contains("://")) {
            let file = normalize(&dir.join(path));
            if !out.iter().any(|(p, _)| *p == file) {
                out.push((
                    file,
                    FileRole::KustomizeResource { kustomization: by(), sets_namespace, patched: patched.clone(), completed: Vec::new() },
                ));
            }
        }
    }
}

/// The local directories a kustomization names in `resources` and `components` (not files, not remote
/// bases), with whether it renames the namespaces of what they hold.
fn included_directories(root: &Node, dir: &Path, out: &mut Vec<(PathBuf, bool)>) {
    let renames = root.get_str("namespace").is_some() || root.get_str("kind") == Some("Component");
    for key in ["resources", "components"] {
        for entry in root.get(key).and_then(Node::as_seq).unwrap_or_default() {
            let Some(path) = entry.as_str() else { continue };
            let file = [".yaml", ".yml", ".json"].iter().any(|e| path.ends_with(e));
            if !file && !path.contains("://") && !path.contains("?ref=") && !path.starts_with("github.com/") {
                out.push((normalize(&dir.join(path)), renames));
            }
        }
    }
}

/// The patch files that the built-in patch transformers named in a kustomization's `transformers` name
/// (`kind: PatchTransformer` with `path: patch.yaml`); each transformer's `path` is relative to the
/// kustomization.
fn transformer_patches(root: &Node, dir: &Path, bound: &Path, kustomization: &Path, out: &mut Vec<(PathBuf, FileRole)>) {
    let entries = root.get("transformers").and_then(Node::as_seq).unwrap_or_default();
    for entry in entries {
        // An entry is a file (or directory) path, or an inline configuration (a mapping, or its text).
        let configs: Vec<Node> = match entry.as_str() {
            Some(inline) if inline.contains('\n') => crdls_yaml::parse(inline).documents.into_iter().filter_map(|d| d.root).collect(),
            // A file below the kustomization's directory, as kustomize's default load restrictor
            // demands: a repository's kustomization makes crdls read nothing outside it.
            Some(path) if [".yaml", ".yml"].iter().any(|e| path.ends_with(e)) && within_root(path) => {
                let Ok(text) = crate::files::read_inside(bound, &dir.join(path)) else { continue };
                crdls_yaml::parse(&text).documents.into_iter().filter_map(|d| d.root).collect()
            }
            Some(_) => continue,
            None => vec![entry.clone()],
        };
        for config in configs {
            if !config.get_str("kind").is_some_and(|k| PATCH_TRANSFORMERS.contains(&k)) {
                continue;
            }
            let Some(path) = config.get_str("path").filter(|p| within_root(p)) else { continue };
            let file = normalize(&dir.join(path));
            let json = config.get_str("kind") == Some("PatchJson6902Transformer") || names_operation_list(bound, &file);
            let by = kustomization.to_path_buf();
            let role = if json { FileRole::JsonPatch { kustomization: by } } else { FileRole::Patch { kustomization: by } };
            out.push((file, role));
        }
    }
}

/// The patch files a kustomization names in comments: entries of `patches`, `patchesStrategicMerge` or
/// `patchesJson6902` switched off with `#` (`#- path: webhook_patch.yaml`, `# - cainjection.yaml`), or
/// under a section that is itself commented out. A comment is read as the line it would be without its
/// `#`s; the section it belongs to is the last top-level key above it, commented or not.
fn commented_patches(text: &str, dir: &Path, bound: &Path, kustomization: &Path, out: &mut Vec<(PathBuf, FileRole)>) {
    const PATCH_SECTIONS: &[&str] = &["patches", "patchesStrategicMerge", "patchesJson6902"];
    let mut section: Option<&str> = None;
    for line in text.lines() {
        let commented = line.trim_start().starts_with('#');
        let uncommented = line.trim_start().trim_start_matches('#');
        // A top-level key opens a section: at the line's start, or after the `#`s and at most one blank.
        let at_top =
            if commented { !uncommented.starts_with("  ") && !uncommented.starts_with('\t') } else { !line.starts_with([' ', '\t']) };
        let trimmed = uncommented.trim();
        if at_top {
            if let Some(key) = trimmed.split_once(':').map(|(k, _)| k).filter(|k| KUSTOMIZATION_FIELDS.contains(k)) {
                section = PATCH_SECTIONS.iter().find(|s| **s == key).copied();
                continue;
            }
        }
        if !commented || section.is_none() {
            continue;
        }
        // `- path: x.yaml`, `-  x.yaml`, `  path: x.yaml`.
        let entry = trimmed.trim_start_matches('-').trim();
        let value = entry.strip_prefix("path:").map(str::trim).unwrap_or(entry);
        let value = value.trim_matches(['"', '\'']);
        if value.contains([' ', '$']) || !within_root(value) || ![".yaml", ".yml", ".json"].iter().any(|e| value.ends_with(e)) {
            continue;
        }
        let file = normalize(&dir.join(value));
        let by = kustomization.to_path_buf();
        let json = section == Some("patchesJson6902") || names_operation_list(bound, &file);
        let role = if json { FileRole::JsonPatch { kustomization: by } } else { FileRole::Patch { kustomization: by } };
        out.push((file, role));
    }
}

/// The top-level fields of a kustomization (`kustomize.config.k8s.io/v1beta1`, and `v1alpha1`
/// components), which open its sections.
const KUSTOMIZATION_FIELDS: &[&str] = &[
    "apiVersion",
    "kind",
    "metadata",
    "resources",
    "bases",
    "components",
    "crds",
    "patches",
    "patchesStrategicMerge",
    "patchesJson6902",
    "namespace",
    "namePrefix",
    "nameSuffix",
    "commonLabels",
    "labels",
    "commonAnnotations",
    "images",
    "replicas",
    "configMapGenerator",
    "secretGenerator",
    "generatorOptions",
    "generators",
    "transformers",
    "validators",
    "vars",
    "replacements",
    "openapi",
    "helmCharts",
    "helmGlobals",
    "configurations",
    "sortOptions",
    "buildMetadata",
];

/// Whether a path a kustomization names stays below its directory (relative, without `..`), as
/// kustomize's default load restrictor (`LoadRestrictionsRootOnly`) requires of the files it reads.
fn within_root(path: &str) -> bool {
    if path.contains("://") || path.starts_with('~') {
        return false;
    }
    let path = Path::new(path);
    path.is_relative() && path.components().all(|c| matches!(c, std::path::Component::Normal(_) | std::path::Component::CurDir))
}

/// The paths a Makefile's recipes add as patches with `kustomize edit add patch` (`--path X`,
/// `--path=X`; older kustomize took the paths as arguments), as written: relative to whatever directory
/// the recipe changed into, so they are matched against the end of a file's path.
fn make_patch_paths(text: &str) -> Vec<PathBuf> {
    let mut out = Vec::new();
    for line in text.lines() {
        let Some(at) = line.find("edit add patch") else { continue };
        let mut words = line[at + "edit add patch".len()..].split_whitespace().map(|w| w.trim_matches(['"', '\'', ';']));
        while let Some(word) = words.next() {
            if matches!(word, "&&" | "||" | "|" | ";") {
                break;
            }
            let value = match word.strip_prefix("--path") {
                Some("") => words.next(),
                Some(rest) => rest.strip_prefix('='),
                None if !word.starts_with('-') => Some(word),
                None => None,
            };
            if let Some(value) = value.filter(|v| [".yaml", ".yml", ".json"].iter().any(|e| v.ends_with(e)) && !v.contains('$')) {
                out.push(PathBuf::from(value));
            }
        }
    }
    out
}

/// Whether `path` ends with the components of `named` (`./` and `..` aside).
/// Whether a script's write target is `path`, or a directory above it when the target's variables leave
/// only a directory: resolved from each of `from`, or matched at the end when it has more than one
/// component.
fn writes_into(written: &scripts::Written, path: &Path, from: &[&Path]) -> bool {
    let several = written.path.components().count() > 1;
    let hits = |candidate: &Path| {
        from.iter().any(|dir| normalize(&dir.join(&written.path)) == candidate) || (several && ends_with_path(candidate, &written.path))
    };
    if written.below {
        path.parent().is_some_and(|parent| parent.ancestors().any(|a| !a.as_os_str().is_empty() && hits(a)))
    } else {
        hits(path)
    }
}

fn ends_with_path(path: &Path, named: &Path) -> bool {
    let named = normalize(named);
    let parts: Vec<_> = named.components().filter(|c| matches!(c, std::path::Component::Normal(_))).collect();
    !parts.is_empty() && path.components().rev().zip(parts.iter().rev()).filter(|(a, b)| a == *b).count() == parts.len()
}

/// Whether a file is a kubeadm patch: in a directory named `patches`, named after a component kubeadm
/// patches (`kube-apiserver.yaml`, `etcd0+merge.json`), with what kind of patch its name asks for
/// (`Some(true)` for `+json`).
fn kubeadm_patch(path: &Path) -> Option<bool> {
    if path.parent().and_then(Path::file_name).is_none_or(|d| d != "patches") {
        return None;
    }
    let name = path.file_name()?.to_string_lossy();
    let stem = [".yaml", ".yml", ".json"].iter().find_map(|e| name.strip_suffix(e))?;
    let (target, patch_type) = match stem.split_once('+') {
        Some((target, kind)) if matches!(kind, "strategic" | "merge" | "json") => (target, kind),
        Some(_) => return None,
        None => (stem, "strategic"),
    };
    let known = KUBEADM_PATCH_TARGETS
        .iter()
        .any(|t| target.strip_prefix(t).is_some_and(|suffix| suffix.bytes().all(|b| b.is_ascii_alphanumeric())));
    known.then_some(patch_type == "json")
}

/// Whether a parsed file holds strategic-merge patch directives (`$patch`, `$setElementOrder/...`,
/// `$retainKeys`, `$deleteFromPrimitiveList/...`) as keys: the shape of a patch, never of an object.
fn has_patch_directives(text: &str, stream: &Stream) -> bool {
    const DIRECTIVES: &[&str] = &["$patch", "$setElementOrder/", "$retainKeys", "$deleteFromPrimitiveList/"];
    if !DIRECTIVES.iter().any(|d| text.contains(d)) {
        return false;
    }
    fn walk(node: &Node, depth: usize) -> bool {
        if depth > 64 {
            return false;
        }
        if let Some(entries) = node.as_map() {
            return entries.iter().any(|e| {
                DIRECTIVES.iter().any(|d| e.key.as_str() == *d || (d.ends_with('/') && e.key.as_str().starts_with(d)))
                    || walk(&e.value, depth + 1)
            });
        }
        node.as_seq().unwrap_or_default().iter().any(|item| walk(item, depth + 1))
    }
    stream.documents.iter().filter_map(|d| d.root.as_ref()).any(|root| walk(root, 0))
}

/// Whether a file in a kustomize tree is named or placed as a patch: in a `patches` directory, or with
/// `patch` in its name (`manager_webhook_patch.yaml`).
fn looks_like_a_patch(path: &Path) -> bool {
    let in_patches = path.parent().and_then(Path::file_name).is_some_and(|d| d == "patches" || d == "patch");
    let named = path.file_stem().is_some_and(|n| n.to_string_lossy().to_ascii_lowercase().contains("patch"));
    in_patches || named
}

/// Whether a file's name calls it a patch: its last word (told apart at `.`, `-` and `_`) is `patch` or
/// `patches` (`repo-server-patch.yaml`, `webhook_patch.yaml`, `patch.json`), as the files given to
/// `kubectl patch --patch-file` and kustomize are named. `k8s-patch-workflow.yaml` is not: the word
/// there describes what the object does.
fn named_as_patch(path: &Path) -> bool {
    let Some(stem) = path.file_stem().map(|n| n.to_string_lossy().to_ascii_lowercase()) else { return false };
    crate::files::is_yaml_or_json(path) && stem.rsplit(['.', '-', '_']).next().is_some_and(|w| w == "patch" || w == "patches")
}

/// Whether a file's first line is a comment that gives it a patch's name (`# server-extension-patch.yaml`),
/// as files kept under another name for a program that sends them with `kubectl patch` are headed.
fn calls_itself_a_patch(path: &Path) -> bool {
    let Ok(text) = crate::files::read_text(path) else { return false };
    let Some(first) = text.lines().map(str::trim).find(|l| !l.is_empty()) else { return false };
    let Some(comment) = first.strip_prefix('#') else { return false };
    let name = comment.trim();
    !name.contains(char::is_whitespace) && !name.contains('/') && named_as_patch(Path::new(name))
}

/// Whether a patch file holds a list of JSON 6902 operations rather than a partial object, as
/// kustomize tells them apart: by content.
fn holds_operation_list(file: &Path) -> bool {
    crate::files::read_text(file).is_ok_and(|text| operation_list(&text))
}

/// [`holds_operation_list`] for a file that a file of the workspace names: read only inside `bound`.
fn names_operation_list(bound: &Path, file: &Path) -> bool {
    crate::files::read_inside(bound, file).is_ok_and(|text| operation_list(&text))
}

/// Whether a text holds a list of JSON 6902 operations.
fn operation_list(text: &str) -> bool {
    let stream = crdls_yaml::parse(text);
    stream
        .documents
        .iter()
        .filter_map(|d| d.root.as_ref())
        .any(|root| root.as_seq().is_some_and(|ops| ops.iter().any(|op| op.get("op").is_some() && op.get("path").is_some())))
}

/// The files a Chainsaw test names, by operation: `apply`, `create` and `update` take whole objects;
/// `assert` and `error` take assertion trees, and `patch` a partial object; `delete` uses its objects
/// only to find what to delete.
fn chainsaw_files(root: &Node, dir: &Path, test: &Path, out: &mut Vec<(PathBuf, FileRole)>) {
    if !root.get_str("apiVersion").is_some_and(|v| v.starts_with("chainsaw.kyverno.io/")) {
        return;
    }
    let steps = root.get("spec").and_then(|s| s.get("steps")).and_then(Node::as_seq).unwrap_or_default();
    for step in steps {
        for block in ["try", "catch", "finally", "cleanup"] {
            for operation in step.get(block).and_then(Node::as_seq).unwrap_or_default() {
                let Some(entries) = operation.as_map() else { continue };
                for entry in entries {
                    let Some(file) = entry.value.get_str("file") else { continue };
                    let role = match entry.key.as_str() {
                        "create" => FileRole::TestResource { test: test.to_path_buf(), merges: false },
                        "apply" | "update" => FileRole::TestResource { test: test.to_path_buf(), merges: true },
                        "assert" | "error" | "patch" | "delete" => FileRole::TestAssertion { test: test.to_path_buf() },
                        _ => continue,
                    };
                    out.push((normalize(&dir.join(file)), role));
                }
            }
        }
    }
}

/// The files a Kyverno CLI test names: its `resources` are objects the policies are evaluated
/// against, never created (they may leave out what the API server would require), and the
/// `patchedResource`, `generatedResource` and `cloneSourceResource` of its results are expected
/// outputs: partial objects either way. Its policies are whole objects and keep their role; its
/// `variables`, `userinfo` and `context` files are the CLI's own (`cli.kyverno.io`) configuration.
fn kyverno_test_files(root: &Node, dir: &Path, test: &Path, out: &mut Vec<(PathBuf, FileRole)>) {
    if !root.get_str("apiVersion").is_some_and(|v| v.starts_with("cli.kyverno.io/")) {
        return;
    }
    let strings = |node: Option<&Node>| -> Vec<String> {
        match node {
            Some(n) => match n.as_seq() {
                Some(items) => items.iter().filter_map(Node::as_str).map(str::to_string).collect(),
                None => n.as_str().map(str::to_string).into_iter().collect(),
            },
            None => Vec::new(),
        }
    };
    for file in strings(root.get("resources")) {
        out.push((normalize(&dir.join(file)), FileRole::EvaluatedResource { test: test.to_path_buf() }));
    }
    // Its policies are the project's policies as they are applied: whole objects, wherever they lie.
    for file in strings(root.get("policies")) {
        out.push((normalize(&dir.join(file)), FileRole::Manifest));
    }
    for result in root.get("results").and_then(Node::as_seq).unwrap_or_default() {
        for key in ["patchedResource", "patchedResources", "generatedResource", "cloneSourceResource"] {
            for file in strings(result.get(key)) {
                out.push((normalize(&dir.join(file)), FileRole::TestAssertion { test: test.to_path_buf() }));
            }
        }
    }
}

/// The numbered step files of `dir` (`NN-name.yaml`) that may be kuttl `TestStep`s: the texts of at
/// most [`MAX_KUTTL_STEPS`] of them, each read within the usual bound, that name kuttl's API group.
fn kuttl_step_texts(dir: &Path, bound: &Path) -> Vec<(String, String)> {
    let Ok(entries) = std::fs::read_dir(dir) else { return Vec::new() };
    let mut names: Vec<String> = entries
        .filter_map(Result::ok)
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .filter(|name| numbered_step_role(&dir.join(name), dir).is_some())
        .collect();
    names.sort();
    names.truncate(MAX_KUTTL_STEPS);
    names
        .into_iter()
        .filter_map(|name| crate::files::read_inside(bound, &dir.join(&name)).ok().filter(|t| t.contains("kuttl.dev/")).map(|t| (name, t)))
        .collect()
}

/// How many directories below a kuttl test case a file its commands read may lie (`conf/backup/x.yaml`).
const KUTTL_FRAGMENT_DEPTH: usize = 3;

/// How many numbered step files of one directory are read for kuttl `TestStep`s.
const MAX_KUTTL_STEPS: usize = 64;

/// The files a kuttl `TestStep` names: `apply` takes objects applied over existing ones, `assert` and
/// `error` take partial objects matched against the cluster. The paths are relative to the test's
/// directory, where the step file is.
fn kuttl_step_files(root: &Node, dir: &Path, step: &Path, out: &mut Vec<(PathBuf, FileRole)>) {
    if !root.get_str("apiVersion").is_some_and(|v| v.starts_with("kuttl.dev/")) || root.get_str("kind") != Some("TestStep") {
        return;
    }
    for (key, role) in [
        ("apply", FileRole::TestResource { test: step.to_path_buf(), merges: true }),
        ("assert", FileRole::TestAssertion { test: step.to_path_buf() }),
        ("error", FileRole::TestAssertion { test: step.to_path_buf() }),
    ] {
        for file in root.get(key).and_then(Node::as_seq).unwrap_or_default().iter().filter_map(Node::as_str) {
            out.push((normalize(&dir.join(file)), role.clone()));
        }
    }
}

/// Chainsaw's (and kuttl's) numbered step files, in a directory without a test file:
/// `NN-assert.yaml` and `NN-errors.yaml` are assertions, any other `NN-name.yaml` is applied.
fn numbered_step_role(path: &Path, dir: &Path) -> Option<FileRole> {
    let name = path.file_name()?.to_string_lossy();
    let stem = name.strip_suffix(".yaml").or_else(|| name.strip_suffix(".yml"))?;
    let (number, rest) = stem.split_once('-')?;
    if number.is_empty() || !number.bytes().all(|b| b.is_ascii_digit()) || rest.is_empty() {
        return None;
    }
    let test = dir.to_path_buf();
    if rest == "assert" || rest == "errors" || rest.starts_with("assert-") || rest.starts_with("errors-") {
        Some(FileRole::TestAssertion { test })
    } else {
        // kuttl applies a step's objects over existing ones.
        Some(FileRole::TestResource { test, merges: true })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    struct Tree(PathBuf);

    impl Tree {
        fn new(name: &str, files: &[(&str, &str)]) -> Tree {
            let root = std::env::temp_dir().join(format!("crdls-roles-{name}-{}", std::process::id()));
            let _ = std::fs::remove_dir_all(&root);
            for (file, text) in files {
                let path = root.join(file);
                std::fs::create_dir_all(path.parent().unwrap()).unwrap();
                std::fs::write(path, text).unwrap();
            }
            Tree(root)
        }

        fn role(&self, roles: &mut Roles, file: &str) -> FileRole {
            roles.role_of(&self.0.join(file))
        }
    }

    #[test]
    fn a_template_defines_the_crds_it_writes_in_literal_text() {
        let crd = |name: &str, group: &str, kind: &str| {
            let plural = format!("{}s", kind.to_lowercase());
            format!(
                "apiVersion: apiextensions.k8s.io/v1\nkind: CustomResourceDefinition\nmetadata:\n  name: {name}\n  labels:\n    {{{{- include \"labels\" . | nindent 4 }}}}\nspec:\n  group: {group}\n  scope: Namespaced\n  names: {{kind: {kind}, plural: {plural}}}\n  versions:\n  - name: v1\n    served: true\n    storage: true\n    schema:\n      openAPIV3Schema:\n        type: object\n"
            )
        };
        let names = |text: &str| -> Vec<String> { template_crds(text).iter().map(|c| format!("{} {}", c.name, c.names.kind)).collect() };
        // Wrapped in a condition that ends right after the schema, with templated labels.
        let wrapped = format!("{{{{- if .Values.crds.enabled }}}}\n{}{{{{- end }}}}\n", crd("gears.a.dev", "a.dev", "Gear"));
        assert_eq!(names(&wrapped), ["gears.a.dev Gear"]);
        // A templated name is the one the API server requires.
        assert_eq!(names(&crd("{{ .Values.name }}", "a.dev", "Gear")), ["gears.a.dev Gear"]);
        // A computed group, kind or schema: not indexed.
        assert_eq!(names(&crd("gears.a.dev", "{{ .Values.group }}", "Gear")), Vec::<String>::new());
        assert_eq!(names(&crd("gears.a.dev", "a.dev", "{{ .Values.kind }}")), Vec::<String>::new());
        let schema = crd("gears.a.dev", "a.dev", "Gear") + "        {{- toYaml .Values.schema | nindent 8 }}\n";
        assert_eq!(names(&schema), Vec::<String>::new());
        // Several documents: each on its own.
        let two = format!("{}---\n{}", crd("gears.a.dev", "a.dev", "Gear"), crd("x", "{{ .Values.group }}", "Chain"));
        assert_eq!(names(&two), ["gears.a.dev Gear"]);
        // The role decides: a chart template is read so, a plain manifest as it always was.
        let reader: crdls_crd::TextReader = std::sync::Arc::new(|| None);
        let role = FileRole::HelmTemplate { chart_dir: PathBuf::from("chart"), chart_name: "c".into() };
        assert_eq!(role.crds(&wrapped, reader).len(), 1);
    }

    impl Drop for Tree {
        fn drop(&mut self) {
            let _ = std::fs::remove_dir_all(&self.0);
        }
    }

    /// A kustomization's transformer file reached through a link to a sibling directory is read only
    /// when the workspace holds that directory too; when the editor's folders widen, the cache read
    /// within the old folder is forgotten, and the patch it names is found.
    #[cfg(unix)]
    #[test]
    fn a_new_set_of_folders_forgets_what_the_old_bounds_decided() {
        let tree = Tree::new(
            "folders",
            &[
                ("base/kustomization.yaml", "resources: [deploy.yaml]\ntransformers: [t.yaml]\n"),
                ("base/deploy.yaml", "kind: Deployment\n"),
                ("base/p.yaml", "kind: Deployment\n"),
                ("shared/t.yaml", "apiVersion: builtin\nkind: PatchTransformer\nmetadata: {name: p}\npath: p.yaml\n"),
            ],
        );
        std::os::unix::fs::symlink(tree.0.join("shared/t.yaml"), tree.0.join("base/t.yaml")).unwrap();
        let mut roles = Roles::of(Workspace::new([tree.0.join("base")], Path::new("/"), false));
        assert_eq!(tree.role(&mut roles, "base/p.yaml"), FileRole::Manifest);
        roles.set_workspace(&Workspace::new([tree.0.clone()], Path::new("/"), false));
        assert_eq!(tree.role(&mut roles, "base/p.yaml"), FileRole::Patch { kustomization: tree.0.join("base/kustomization.yaml") });
    }

    #[test]
    fn chart_templates_are_templates_and_the_rest_of_the_chart_is_not() {
        let tree = Tree::new(
            "helm",
            &[
                ("chart/Chart.yaml", "apiVersion: v2\nname: web\n"),
                ("chart/templates/deploy.yaml", "{{ x }}"),
                ("chart/templates/tests/test.yaml", "{{ x }}"),
                ("chart/crds/crd.yaml", ""),
                ("other/templates/x.yaml", ""),
            ],
        );
        let mut roles = Roles::new();
        let expected = FileRole::HelmTemplate { chart_dir: tree.0.join("chart"), chart_name: "web".into() };
        assert_eq!(tree.role(&mut roles, "chart/templates/deploy.yaml"), expected);
        assert_eq!(tree.role(&mut roles, "chart/templates/tests/test.yaml"), expected);
        assert_eq!(tree.role(&mut roles, "chart/crds/crd.yaml"), FileRole::Manifest);
        assert_eq!(tree.role(&mut roles, "other/templates/x.yaml"), FileRole::Manifest);
    }

    #[test]
    fn kustomization_patches_by_every_spelling() {
        let tree = Tree::new(
            "kustomize",
            &[
                (
                    "overlay/kustomization.yaml",
                    "resources: [../base, app.yaml]\npatches:\n- path: smp.yaml\n- bare.yaml\n- path: ops.yaml\n  target: {kind: Deployment}\n- patch: |-\n    - op: remove\npatchesStrategicMerge:\n- legacy.yaml\n- |-\n  apiVersion: v1\npatchesJson6902:\n- path: patches/json.yaml\n",
                ),
                ("overlay/smp.yaml", "kind: Deployment\n"),
                ("overlay/ops.yaml", "- op: replace\n  path: /spec/replicas\n  value: 2\n"),
                ("overlay/legacy.yaml", ""),
                ("overlay/bare.yaml", ""),
                ("overlay/app.yaml", ""),
                ("overlay/patches/json.yaml", ""),
                ("overlay/patches/other.yaml", ""),
                ("overlay/extra.yaml", ""),
                ("overlay/manager_webhook_patch.yaml", ""),
                ("plain/patches/x.yaml", ""),
                ("base/deploy.yaml", ""),
            ],
        );
        let mut roles = Roles::new();
        let by = tree.0.join("overlay/kustomization.yaml");
        assert_eq!(tree.role(&mut roles, "overlay/smp.yaml"), FileRole::Patch { kustomization: by.clone() });
        assert_eq!(tree.role(&mut roles, "overlay/legacy.yaml"), FileRole::Patch { kustomization: by.clone() });
        assert_eq!(tree.role(&mut roles, "overlay/bare.yaml"), FileRole::Patch { kustomization: by.clone() });
        assert_eq!(
            tree.role(&mut roles, "overlay/app.yaml"),
            FileRole::KustomizeResource { kustomization: by.clone(), sets_namespace: false, patched: Vec::new(), completed: Vec::new() }
        );
        assert_eq!(tree.role(&mut roles, "overlay/ops.yaml"), FileRole::JsonPatch { kustomization: by.clone() });
        assert_eq!(tree.role(&mut roles, "overlay/patches/json.yaml"), FileRole::JsonPatch { kustomization: by.clone() });
        // Placed or named as a patch in a kustomize tree, though no kustomization names it (yet).
        assert_eq!(tree.role(&mut roles, "overlay/patches/other.yaml"), FileRole::Patch { kustomization: by.clone() });
        assert_eq!(tree.role(&mut roles, "overlay/manager_webhook_patch.yaml"), FileRole::Patch { kustomization: by });
        assert_eq!(tree.role(&mut roles, "overlay/extra.yaml"), FileRole::Manifest);
        assert_eq!(tree.role(&mut roles, "plain/patches/x.yaml"), FileRole::Manifest);
        assert_eq!(tree.role(&mut roles, "base/deploy.yaml"), FileRole::Manifest);
    }

    /// Patches no kustomization names, found by what refers to them (a comment in the kustomization, a
    /// Makefile's `kustomize edit add patch`, a patch transformer) or by their name and place (kubeadm).
    #[test]
    fn patches_no_kustomization_names_are_found_by_what_refers_to_them() {
        let tree = Tree::new(
            "unnamed-patches",
            &[
                ("Makefile", "deploy:\n\tcd config/default && $(KUSTOMIZE) edit add patch --path manager_image.yaml --kind Deployment\n\tcd config/x && kustomize edit add patch --path=$(PATCH)\n"),
                (
                    "config/default/kustomization.yaml",
                    "resources:\n- ../manager\npatches:\n- path: named.yaml\n# [WEBHOOK] uncomment to enable\n# Note: needs cert-manager\n#- path: webhook_config.yaml\n#  target:\n#    kind: Deployment\n#patchesJson6902:\n#- path: ops.yaml\n#- path: ../../outside.yaml\n#- path: /etc/abs.yaml\nnamespace: x\n#- path: commented_resource.yaml\ntransformers:\n- transformer.yaml\n- |-\n  apiVersion: builtin\n  kind: PatchStrategicMergeTransformer\n  metadata: {name: inline}\n  path: inline.yaml\n",
                ),
                ("config/default/named.yaml", ""),
                ("config/default/webhook_config.yaml", ""),
                ("config/default/ops.yaml", ""),
                ("config/default/commented_resource.yaml", ""),
                ("config/default/manager_image.yaml", ""),
                ("config/default/other.yaml", ""),
                ("outside.yaml", ""),
                ("config/default/transformer.yaml", "apiVersion: builtin\nkind: PatchTransformer\nmetadata: {name: t}\npath: replicas.yaml\ntarget: {kind: Deployment}\n"),
                ("config/default/replicas.yaml", ""),
                ("config/default/inline.yaml", ""),
                ("cluster/patches/kube-apiserver.yaml", ""),
                ("cluster/patches/etcd0+json.yaml", ""),
                ("cluster/patches/kube-scheduler+merge.json", ""),
                ("cluster/patches/nginx.yaml", ""),
                ("cluster/etcd.yaml", ""),
            ],
        );
        let mut roles = Roles::new();
        let by = tree.0.join("config/default/kustomization.yaml");
        let patch = FileRole::Patch { kustomization: by.clone() };
        assert_eq!(tree.role(&mut roles, "config/default/named.yaml"), patch);
        assert_eq!(tree.role(&mut roles, "config/default/webhook_config.yaml"), patch, "commented out, below prose comments");
        assert_eq!(tree.role(&mut roles, "config/default/ops.yaml"), FileRole::JsonPatch { kustomization: by.clone() });
        assert_eq!(tree.role(&mut roles, "config/default/commented_resource.yaml"), FileRole::Manifest, "commented out under namespace");
        assert_eq!(tree.role(&mut roles, "config/default/manager_image.yaml"), patch, "added by the Makefile");
        assert_eq!(tree.role(&mut roles, "config/default/replicas.yaml"), patch, "named by a patch transformer");
        assert_eq!(tree.role(&mut roles, "config/default/inline.yaml"), patch, "named by an inline transformer");
        assert_eq!(tree.role(&mut roles, "config/default/other.yaml"), FileRole::Manifest);
        // Like kustomize's load restrictor, nothing outside the kustomization's directory is taken.
        assert_eq!(tree.role(&mut roles, "outside.yaml"), FileRole::Manifest);
        assert!(!within_root("/etc/abs.yaml") && !within_root("../x.yaml") && !within_root("~/x.yaml") && within_root("./a/b.yaml"));
        assert_eq!(tree.role(&mut roles, "cluster/patches/kube-apiserver.yaml"), FileRole::KubeadmPatch { json: false });
        assert_eq!(tree.role(&mut roles, "cluster/patches/etcd0+json.yaml"), FileRole::KubeadmPatch { json: true });
        assert_eq!(tree.role(&mut roles, "cluster/patches/kube-scheduler+merge.json"), FileRole::KubeadmPatch { json: false });
        assert_eq!(tree.role(&mut roles, "cluster/patches/nginx.yaml"), FileRole::Manifest);
        assert_eq!(tree.role(&mut roles, "cluster/etcd.yaml"), FileRole::Manifest, "a component's manifest outside a patches directory");
    }

    /// A kustomization that sets no namespace but that a Component (or a kustomization setting one)
    /// includes as a directory has its resources renamed all the same, through any number of plain
    /// kustomizations between; included by none such, it renames nothing.
    #[test]
    fn resources_below_a_component_or_a_namespaced_includer_are_renamed() {
        let tree = Tree::new(
            "inherited-namespace",
            &[
                ("components/namespace/kustomization.yaml", "kind: Component\nresources:\n- ./namespace\n"),
                ("components/namespace/namespace/kustomization.yaml", "resources:\n- ./namespace.yaml\n"),
                ("components/namespace/namespace/namespace.yaml", ""),
                ("apps/kustomization.yaml", "namespace: apps\nresources:\n- ./web\n"),
                ("apps/web/kustomization.yaml", "resources:\n- ./app\n"),
                ("apps/web/app/kustomization.yaml", "resources:\n- ./deploy.yaml\n"),
                ("apps/web/app/deploy.yaml", ""),
                ("plain/kustomization.yaml", "resources:\n- ./inner\n"),
                ("plain/inner/kustomization.yaml", "resources:\n- ./deploy.yaml\n"),
                ("plain/inner/deploy.yaml", ""),
            ],
        );
        let mut roles = Roles::new();
        let renamed = |roles: &mut Roles, file: &str| match tree.role(roles, file) {
            FileRole::KustomizeResource { sets_namespace, .. } => sets_namespace,
            other => panic!("{file}: {other:?}"),
        };
        assert!(renamed(&mut roles, "components/namespace/namespace/namespace.yaml"));
        assert!(renamed(&mut roles, "apps/web/app/deploy.yaml"));
        assert!(!renamed(&mut roles, "plain/inner/deploy.yaml"));
    }

    /// A copy of a patch a component below names, left beside the kustomization that includes the
    /// component: the same name and text make it that patch; another text or name does not.
    #[test]
    fn a_leftover_copy_of_a_patch_a_component_names_is_that_patch() {
        let patch = "apiVersion: apps/v1\nkind: Deployment\nmetadata: {name: web}\nspec:\n  template:\n    spec:\n      containers: [{name: web, env: [{name: A, value: b}]}]\n";
        let tree = Tree::new(
            "leftover-patch",
            &[
                ("variant/kustomization.yaml", "resources:\n- ../base\ncomponents:\n- ./wait\n"),
                ("variant/web-wait.yaml", patch),
                ("variant/edited.yaml", &patch.replace("value: b", "value: c")),
                ("variant/wait/kustomization.yaml", "kind: Component\npatches:\n- path: web-wait.yaml\n- path: edited.yaml\n"),
                ("variant/wait/web-wait.yaml", patch),
                ("variant/wait/edited.yaml", patch),
                ("variant/other.yaml", patch),
            ],
        );
        let mut roles = Roles::new();
        let by = tree.0.join("variant/wait/kustomization.yaml");
        assert_eq!(tree.role(&mut roles, "variant/web-wait.yaml"), FileRole::Patch { kustomization: by });
        assert_eq!(tree.role(&mut roles, "variant/edited.yaml"), FileRole::Manifest, "another text");
        assert_eq!(tree.role(&mut roles, "variant/other.yaml"), FileRole::Manifest, "another name");
    }

    #[test]
    fn expected_outputs_are_partial_objects_and_patch_directives_make_a_patch() {
        let tree = Tree::new("expected", &[("pkg/testdata/gateway.golden.yaml", ""), ("pkg/testdata/input.yaml", "")]);
        let mut roles = Roles::new();
        assert_eq!(tree.role(&mut roles, "pkg/testdata/gateway.golden.yaml"), FileRole::ExpectedOutput);
        assert_eq!(FileRole::ExpectedOutput.parse("kind: Gateway\n").1, FileMode::Patches);
        // A test input named as a path is what it is: a manifest.
        assert_eq!(tree.role(&mut roles, "pkg/testdata/input.yaml"), FileRole::Manifest);
        let smp = "apiVersion: apps/v1\nkind: Deployment\nmetadata: {name: d}\nspec:\n  template:\n    spec:\n      containers:\n      - name: sidecar\n        $patch: delete\n";
        assert_eq!(FileRole::Manifest.parse(smp).1, FileMode::Patches);
        assert_eq!(FileRole::Manifest.parse("kind: ConfigMap\ndata:\n  k: $patch\n").1, FileMode::Objects, "a value is no directive");
    }

    /// Plain manifests below a test directory of the workspace are test inputs; what another role
    /// claims keeps it, and a test directory above the workspace's root does not count.
    #[test]
    fn plain_manifests_below_a_test_directory_of_the_workspace_are_test_inputs() {
        let tree = Tree::new(
            "test-inputs",
            &[
                ("proj/tests/checks/deploy.yaml", ""),
                ("proj/test/e2e/config/kustomization.yaml", "resources:\n- app.yaml\n"),
                ("proj/test/e2e/config/app.yaml", ""),
                ("proj/test/e2e/config/leftover.yaml", ""),
                ("proj/test/e2e/chainsaw/chainsaw-test.yaml", "apiVersion: chainsaw.kyverno.io/v1alpha1\nkind: Test\n"),
                ("proj/test/e2e/chainsaw/step.yaml", ""),
                ("proj/tests/out.golden.yaml", ""),
                ("proj/tests/chart/Chart.yaml", "name: c\n"),
                ("proj/tests/chart/templates/t.yaml", ""),
                (
                    "proj/test/cli/kyverno-test.yaml",
                    "apiVersion: cli.kyverno.io/v1alpha1\nkind: Test\npolicies: [policy.yaml]\nresources: [resource.yaml]\n",
                ),
                ("proj/test/cli/policy.yaml", ""),
                ("proj/deploy/app.yaml", ""),
                ("proj/deploy/app-patch.yaml", "apiVersion: apps/v1\nkind: Deployment\n"),
                ("proj/deploy/ops-patch.json", "[{\"op\": \"remove\", \"path\": \"/spec/replicas\"}]\n"),
                ("proj/deploy/k8s-patch-workflow.yaml", ""),
            ],
        );
        let root = tree.0.join("proj");
        let mut roles = Roles::of(Workspace::new([root.clone()], Path::new("/"), false));
        let input = |dir: &str| FileRole::TestInput { tests: root.join(dir) };
        assert_eq!(tree.role(&mut roles, "proj/tests/checks/deploy.yaml"), input("tests"));
        assert_eq!(tree.role(&mut roles, "proj/test/e2e/config/leftover.yaml"), input("test"));
        assert!(matches!(tree.role(&mut roles, "proj/test/e2e/config/app.yaml"), FileRole::KustomizeResource { .. }));
        assert!(matches!(tree.role(&mut roles, "proj/test/e2e/chainsaw/step.yaml"), FileRole::TestAssertion { .. }));
        assert_eq!(tree.role(&mut roles, "proj/tests/out.golden.yaml"), FileRole::ExpectedOutput);
        assert!(matches!(tree.role(&mut roles, "proj/tests/chart/templates/t.yaml"), FileRole::HelmTemplate { .. }));
        assert!(matches!(tree.role(&mut roles, "proj/test/cli/resource.yaml"), FileRole::EvaluatedResource { .. }));
        assert_eq!(tree.role(&mut roles, "proj/test/cli/policy.yaml"), FileRole::Manifest, "a Kyverno test's policy is whole");
        assert_eq!(tree.role(&mut roles, "proj/deploy/app.yaml"), FileRole::Manifest);
        // Read whole when asked; and a root below the test directory (a project in `tests/`) loses nothing.
        let mut whole = Roles::of(Workspace::new([root.clone()], Path::new("/"), true));
        assert_eq!(tree.role(&mut whole, "proj/tests/checks/deploy.yaml"), FileRole::Manifest);
        let mut inside = Roles::of(Workspace::new([root.join("tests/checks")], Path::new("/"), false));
        assert_eq!(tree.role(&mut inside, "proj/tests/checks/deploy.yaml"), FileRole::Manifest);
        assert_eq!(tree.role(&mut Roles::new(), "proj/tests/checks/deploy.yaml"), FileRole::Manifest, "no workspace, no test input");
        // A test input is read as a manifest is, then as test inputs.
        let role = input("tests");
        assert_eq!(role.parse("apiVersion: v1\nkind: Pod\n").1, FileMode::TestInputs);
        assert!(matches!(role.parse("metadata:\n  name: {{ .Name }}\nspec:\n  x: {{ (A .B) }}\n").1, FileMode::Template { .. }));
        // Patches by their name, outside a kustomize tree; a word inside the name does not make one.
        assert_eq!(tree.role(&mut roles, "proj/deploy/app-patch.yaml"), FileRole::PatchFile { json: false });
        assert_eq!(tree.role(&mut roles, "proj/deploy/ops-patch.json"), FileRole::PatchFile { json: true });
        assert_eq!(tree.role(&mut roles, "proj/deploy/k8s-patch-workflow.yaml"), FileRole::Manifest);
    }

    /// Below a test directory, what a project's script renders into a file is an expected output; the
    /// same script's output outside test directories, and a test input no script writes, are not.
    #[test]
    fn what_a_script_renders_into_a_test_directory_is_an_expected_output() {
        let render = "#!/bin/bash\nfor file in tests/values/*; do\n  CASE=$(basename \"$file\")\n\
                      OUT=\"./tests/fixtures/${CASE}\"\n  helm template -f \"$file\" \"$CASE\" ./chart > \"${OUT}\"\ndone\n";
        let tree = Tree::new(
            "script-writes",
            &[
                ("proj/.github/scripts/render.sh", render),
                ("proj/tests/fixtures/default.yaml", ""),
                ("proj/tests/fixtures/nested/case.yaml", ""),
                ("proj/tests/e2e/pod.yaml", ""),
                ("proj/Makefile", "install:\n\tkustomize build config > dist/install.yaml\n\thelm template . > test/render/all.yaml\n"),
                ("proj/dist/install.yaml", ""),
                ("proj/test/render/all.yaml", ""),
                ("proj/test/render/other.yaml", ""),
                ("proj/sub/hack/snap.sh", "kubectl get pods -o yaml > test/snap/pods.yaml\n"),
                ("proj/sub/test/snap/pods.yaml", ""),
            ],
        );
        let root = tree.0.join("proj");
        let mut roles = Roles::of(Workspace::new([root.clone()], Path::new("/"), false));
        assert_eq!(tree.role(&mut roles, "proj/tests/fixtures/default.yaml"), FileRole::ExpectedOutput, "from .github/scripts");
        assert_eq!(tree.role(&mut roles, "proj/tests/fixtures/nested/case.yaml"), FileRole::ExpectedOutput, "below the directory");
        assert_eq!(tree.role(&mut roles, "proj/test/render/all.yaml"), FileRole::ExpectedOutput, "from the Makefile");
        assert_eq!(tree.role(&mut roles, "proj/sub/test/snap/pods.yaml"), FileRole::ExpectedOutput, "from hack/, resolved from sub/");
        assert_eq!(tree.role(&mut roles, "proj/tests/e2e/pod.yaml"), FileRole::TestInput { tests: root.join("tests") });
        assert_eq!(tree.role(&mut roles, "proj/test/render/other.yaml"), FileRole::TestInput { tests: root.join("test") });
        // What a script renders for users to apply is a manifest.
        assert_eq!(tree.role(&mut roles, "proj/dist/install.yaml"), FileRole::Manifest);
    }

    #[test]
    fn kyverno_cli_tests_name_resources_and_expected_outputs() {
        let tree = Tree::new(
            "kyverno",
            &[
                (
                    "k/kyverno-test.yaml",
                    "apiVersion: cli.kyverno.io/v1alpha1\nkind: Test\nmetadata:\n  name: t\npolicies:\n- policy.yaml\nresources:\n- resources.yaml\nvariables: values.yaml\nresults:\n- policy: p\n  rule: r\n  resources: [a]\n  patchedResources: patched.yaml\n  result: pass\n",
                ),
                ("k/policy.yaml", ""),
                ("k/resources.yaml", ""),
                ("k/patched.yaml", ""),
                ("k/other.yaml", ""),
                ("elsewhere/kyverno-test.yaml", "apiVersion: example.com/v1\nkind: Test\nresources:\n- r.yaml\n"),
                ("elsewhere/r.yaml", ""),
            ],
        );
        let mut roles = Roles::new();
        let test = tree.0.join("k/kyverno-test.yaml");
        assert_eq!(tree.role(&mut roles, "k/resources.yaml"), FileRole::EvaluatedResource { test: test.clone() });
        assert_eq!(tree.role(&mut roles, "k/patched.yaml"), FileRole::TestAssertion { test });
        assert_eq!(tree.role(&mut roles, "k/policy.yaml"), FileRole::Manifest);
        assert_eq!(tree.role(&mut roles, "k/other.yaml"), FileRole::Manifest);
        // Only the Kyverno CLI's own test files name files so.
        assert_eq!(tree.role(&mut roles, "elsewhere/r.yaml"), FileRole::Manifest);
    }

    #[test]
    fn manifests_a_script_fills_in_with_sed_have_its_words_as_placeholders() {
        let tree = Tree::new(
            "sed",
            &[
                ("hack/wipe.sh", "for i in $NODES; do\n  cat wipe.yaml | sed -e \"s/HOSTNAME/$i/g\" | kubectl apply -f -\ndone\n"),
                ("hack/wipe.yaml", "metadata:\n  name: wipe-HOSTNAME\n"),
                ("hack/shell.yaml", "metadata:\n  name: shell-HOSTNAME\n"),
                ("hack/plain.yaml", "metadata:\n  name: plain\n"),
                ("Makefile", "render:\n\tsed 's|__TAG__|v1|' deploy/app/web.yaml | kubectl apply -f -\n"),
                ("deploy/app/web.yaml", "image: web:__TAG__\n"),
                ("deploy/app/other/web.yaml", "image: web:__TAG__\n"),
            ],
        );
        let mut roles = Roles::new();
        let filled = |script: &str, word: &str| FileRole::ScriptFilled {
            script: tree.0.join(script),
            words: vec![word.to_string()],
            fields: Vec::new(),
        };
        assert_eq!(tree.role(&mut roles, "hack/wipe.yaml"), filled("hack/wipe.sh", "HOSTNAME"));
        // Beside it, holding the same constant: filled in the same way; without it, a manifest.
        assert_eq!(tree.role(&mut roles, "hack/shell.yaml"), filled("hack/wipe.sh", "HOSTNAME"));
        assert_eq!(tree.role(&mut roles, "hack/plain.yaml"), FileRole::Manifest);
        // A Makefile two levels up names it by its path; another file of that name elsewhere is not it.
        assert_eq!(tree.role(&mut roles, "deploy/app/web.yaml"), filled("Makefile", "__TAG__"));
        assert_eq!(tree.role(&mut roles, "deploy/app/other/web.yaml"), FileRole::Manifest);
    }

    /// What a repository's kustomizations, charts, Makefiles and tests name is read only inside the
    /// workspace: a patch named by `../..`, by an absolute path, or through a symbolic link out (to a
    /// kubeconfig, say) is never opened, so its content decides nothing; a FIFO or a link loop named so
    /// does not stop the run. Each refused read shows as the role the file would have without it.
    #[cfg(unix)]
    #[test]
    fn references_out_of_the_workspace_are_not_read() {
        let ops = "- op: replace\n  path: /spec/replicas\n  value: 2\n";
        let identity = "kind: ControlPlane\nmetadata:\n  name: cp\nspec:\n  identityRef:\n    name: id\n";
        let tree = Tree::new(
            "hostile",
            &[("outside/ops.yaml", ops), ("outside/identity.yaml", identity), ("outside/Chart.yaml", "name: leaked\n")],
        );
        let outside = tree.0.join("outside");
        let kustomization = format!(
            "resources: [cp.yaml]\npatches:\n- path: ../../outside/ops.yaml\n- path: {}/ops.yaml\n- path: link-ops.yaml\n\
             - path: pipe.yaml\n- path: loop.yaml\n- path: ../../outside/identity.yaml\n- path: link-identity.yaml\n",
            outside.display()
        );
        let proj = tree.0.join("proj");
        for (file, text) in
            [("overlay/kustomization.yaml", kustomization.as_str()), ("overlay/cp.yaml", ""), ("chart/templates/x.yaml", "")]
        {
            std::fs::create_dir_all(proj.join(file).parent().unwrap()).unwrap();
            std::fs::write(proj.join(file), text).unwrap();
        }
        let overlay = proj.join("overlay");
        std::os::unix::fs::symlink(outside.join("ops.yaml"), overlay.join("link-ops.yaml")).unwrap();
        std::os::unix::fs::symlink(outside.join("identity.yaml"), overlay.join("link-identity.yaml")).unwrap();
        std::os::unix::fs::symlink("loop.yaml", overlay.join("loop.yaml")).unwrap();
        std::os::unix::fs::symlink(outside.join("Chart.yaml"), proj.join("chart/Chart.yaml")).unwrap();
        assert!(std::process::Command::new("mkfifo").arg(overlay.join("pipe.yaml")).status().unwrap().success());

        let workspace = Workspace::new([proj.clone()], Path::new("/"), false);
        let (done, finished) = std::sync::mpsc::channel();
        let (proj_in, overlay_in) = (proj.clone(), overlay.clone());
        std::thread::spawn(move || {
            let mut roles = Roles::of(workspace);
            let named: Vec<(PathBuf, FileRole)> = roles.facts(&overlay_in).patches.clone();
            let roles_of: Vec<FileRole> = ["overlay/link-ops.yaml", "overlay/cp.yaml", "chart/templates/x.yaml"]
                .iter()
                .map(|f| roles.role_of(&proj_in.join(f)))
                .collect();
            let _ = done.send((named, roles_of));
        });
        let (named, roles_of) = finished.recv_timeout(std::time::Duration::from_secs(20)).expect("a FIFO or a link loop stopped the run");
        let by = overlay.join("kustomization.yaml");
        // None of the operation lists was read, so every patch is a strategic-merge patch by default.
        for (file, role) in &named {
            if file.ends_with("ops.yaml") || file.ends_with("link-ops.yaml") {
                assert_eq!(*role, FileRole::Patch { kustomization: by.clone() }, "{}", file.display());
            }
        }
        assert_eq!(roles_of[0], FileRole::Patch { kustomization: by.clone() });
        // Nor the identity patch, whose fields would complete the resource.
        assert_eq!(
            roles_of[1],
            FileRole::KustomizeResource { kustomization: by, sets_namespace: false, patched: Vec::new(), completed: Vec::new() }
        );
        // A Chart.yaml linked from outside makes no chart.
        assert_eq!(roles_of[2], FileRole::Manifest);
    }

    #[test]
    fn a_kustomize_resource_knows_what_its_kustomizations_patches_write() {
        let tree = Tree::new(
            "completed",
            &[
                (
                    "base/kustomization.yaml",
                    "resources:\n- cp.yaml\npatches:\n- path: ../shared/identity.yaml\n- path: all.yaml\n  target:\n    kind: Pool\n",
                ),
                ("base/cp.yaml", ""),
                ("base/all.yaml", "- op: add\n  path: /spec/x\n  value: 1\n"),
                ("shared/identity.yaml", "kind: ControlPlane\nmetadata:\n  name: cp\nspec:\n  identityRef:\n    name: id\n"),
            ],
        );
        // `../shared` is read as it lies inside the workspace.
        let mut roles = Roles::of(Workspace::new([tree.0.clone()], Path::new("/"), false));
        let FileRole::KustomizeResource { patched, .. } = tree.role(&mut roles, "base/cp.yaml") else { panic!("not a resource") };
        // The JSON 6902 operations write no object's fields.
        assert_eq!(
            patched,
            [PatchedFields {
                kind: "ControlPlane".into(),
                name: Some("cp".into()),
                paths: vec!["spec.identityRef.name".into(), "spec.identityRef".into()]
            }]
        );
    }

    /// An object of a base that every kustomization including the base patches (by a target, by a
    /// strategic-merge patch's own kind and name, or higher up the chain) is completed by them; one that a
    /// single includer leaves as written, or that a kustomization listing the file directly does not
    /// patch, is not; a base nobody includes completes nothing.
    #[test]
    fn objects_every_includer_patches_are_completed_by_the_overlays() {
        let deployment =
            |name: &str| format!("apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: {name}\n  labels: {{a: b}}\nspec: {{}}\n");
        let skeletons = format!("{}---\n{}---\n{}", deployment("app"), deployment("worker"), deployment("api"));
        let tree = Tree::new(
            "completed",
            &[
                ("base/kustomization.yaml", "resources:\n- deploy.yaml\n"),
                ("base/deploy.yaml", skeletons.as_str()),
                ("lone/kustomization.yaml", "resources:\n- deploy.yaml\n"),
                ("lone/deploy.yaml", deployment("solo").as_str()),
                (
                    "overlays/a/kustomization.yaml",
                    "resources:\n- ../../base\npatches:\n- path: app.yaml\n  target: {kind: Deployment, name: app|api}\n- path: worker.yaml\n",
                ),
                ("overlays/a/app.yaml", "spec:\n  replicas: 2\n"),
                ("overlays/a/worker.yaml", "apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: worker\nspec:\n  replicas: 2\n"),
                ("overlays/b/kustomization.yaml", "resources:\n- ../../base/\n- ../../lone\npatches:\n- target: {kind: Deploy.*, name: app}\n  patch: |\n    - {op: add, path: /spec/replicas, value: 1}\n"),
                // Includes overlay c, which patches api for it.
                ("overlays/b/api/kustomization.yaml", "resources:\n- ..\npatches:\n- target: {name: api}\n  patch: |\n    - {op: add, path: /spec/replicas, value: 1}\n"),
            ],
        );
        let mut roles = Roles::of(Workspace::new([tree.0.clone()], Path::new("/"), false));
        let completed = |roles: &mut Roles, file: &str| match tree.role(roles, file) {
            FileRole::KustomizeResource { completed, .. } => completed,
            other => panic!("{other:?}"),
        };
        let found = completed(&mut roles, "base/deploy.yaml");
        let names: Vec<(&str, usize)> = found.iter().map(|c| (c.name.as_str(), c.by.len())).collect();
        // app: both overlays patch it; api: a patches it, b's only includer does; worker: b leaves it.
        assert_eq!(names, [("app", 2), ("api", 2)]);
        assert_eq!(found[0].by, [tree.0.join("overlays/a/kustomization.yaml"), tree.0.join("overlays/b/kustomization.yaml")]);
        assert_eq!(found[1].by, [tree.0.join("overlays/a/kustomization.yaml"), tree.0.join("overlays/b/api/kustomization.yaml")]);
        // Overlay b includes lone but does not patch its solo: a whole object.
        assert!(completed(&mut roles, "lone/deploy.yaml").is_empty());
        // Read as partial objects: the mode says which.
        let (_, mode) = tree.role(&mut roles, "base/deploy.yaml").parse(&skeletons);
        let FileMode::Assembled { completed: objects, .. } = mode else { panic!("{mode:?}") };
        assert_eq!(objects, [("Deployment".to_string(), "app".to_string()), ("Deployment".to_string(), "api".to_string())]);
        // A file that another kustomization names directly, without patching it, is whole.
        let tree = Tree::new(
            "completed-direct",
            &[
                ("base/kustomization.yaml", "resources:\n- deploy.yaml\n"),
                ("base/deploy.yaml", deployment("app").as_str()),
                ("overlay/kustomization.yaml", "resources:\n- ../base\npatches:\n- target: {name: app}\n  path: p.yaml\n"),
                ("overlay/p.yaml", "spec: {replicas: 1}\n"),
                ("direct/kustomization.yaml", "resources:\n- ../base/deploy.yaml\n"),
            ],
        );
        let mut roles = Roles::of(Workspace::new([tree.0.clone()], Path::new("/"), false));
        assert!(completed(&mut roles, "base/deploy.yaml").is_empty());
        let _ = std::fs::remove_dir_all(&tree.0);
    }

    #[test]
    fn chainsaw_tests_name_resources_and_assertions() {
        let tree = Tree::new(
            "chainsaw",
            &[
                (
                    "t/.chainsaw-test/chainsaw-test.yaml",
                    "apiVersion: chainsaw.kyverno.io/v1alpha1\nkind: Test\nspec:\n  steps:\n  - try:\n    - apply:\n        file: ../policy.yaml\n    - assert:\n        file: policy-ready.yaml\n    - apply:\n        file: good-*.yaml\n    - create:\n        file: new.yaml\n  - catch:\n    - error:\n        file: gone.yaml\n",
                ),
                ("t/policy.yaml", ""),
                ("t/.chainsaw-test/policy-ready.yaml", ""),
                ("t/.chainsaw-test/good-pod.yaml", ""),
                ("t/.chainsaw-test/new.yaml", ""),
                ("t/.chainsaw-test/gone.yaml", ""),
                ("t/.chainsaw-test/leftover.yaml", ""),
                ("kuttl/01-assert.yaml", ""),
                ("kuttl/01-install.yaml", ""),
                ("kuttl/02-errors.yaml", ""),
            ],
        );
        let mut roles = Roles::new();
        let test = tree.0.join("t/.chainsaw-test/chainsaw-test.yaml");
        assert_eq!(tree.role(&mut roles, "t/.chainsaw-test/policy-ready.yaml"), FileRole::TestAssertion { test: test.clone() });
        assert_eq!(tree.role(&mut roles, "t/.chainsaw-test/gone.yaml"), FileRole::TestAssertion { test: test.clone() });
        assert_eq!(tree.role(&mut roles, "t/.chainsaw-test/good-pod.yaml"), FileRole::TestResource { test: test.clone(), merges: true });
        assert_eq!(tree.role(&mut roles, "t/.chainsaw-test/new.yaml"), FileRole::TestResource { test: test.clone(), merges: false });
        assert_eq!(tree.role(&mut roles, "t/.chainsaw-test/leftover.yaml"), FileRole::TestAssertion { test: test.clone() });
        // The policy beside the test directory is a manifest of its own, applied by the test as it is.
        assert_eq!(tree.role(&mut roles, "t/policy.yaml"), FileRole::Manifest);
        let kuttl = tree.0.join("kuttl");
        assert_eq!(tree.role(&mut roles, "kuttl/01-assert.yaml"), FileRole::TestAssertion { test: kuttl.clone() });
        assert_eq!(tree.role(&mut roles, "kuttl/02-errors.yaml"), FileRole::TestAssertion { test: kuttl.clone() });
        assert_eq!(tree.role(&mut roles, "kuttl/01-install.yaml"), FileRole::TestResource { test: kuttl, merges: true });
    }

    #[test]
    fn files_named_from_a_sibling_or_cousin_directory_keep_their_role() {
        let tree = Tree::new(
            "nearby",
            &[
                ("proj/templates/flavors/aks/kustomization.yaml", "resources:\n- ../base\npatches:\n- path: ../../identity/ref.yaml\n"),
                ("proj/templates/identity/ref.yaml", ""),
                ("proj/templates/ci/prow/kustomization.yaml", "patches:\n- path: ../patches/tags.yaml\n"),
                ("proj/templates/ci/patches/tags.yaml", ""),
                ("proj/templates/ci/patches/unnamed.yaml", ""),
                ("proj/e2e-suite/cluster.yaml", ""),
                (
                    "proj/e2e-suite/delete/chainsaw-test.yaml",
                    "apiVersion: chainsaw.kyverno.io/v1alpha1\nkind: Test\nspec:\n  steps:\n  - try:\n    - apply:\n        file: ../cluster.yaml\n",
                ),
                ("elsewhere/prow/kustomization.yaml", "patches:\n- path: ../patches/tags.yaml\n"),
                ("elsewhere/patches/tags.yaml", ""),
            ],
        );
        let root = tree.0.join("proj");
        let mut roles = Roles::of(Workspace::new([root.clone()], Path::new("/"), false));
        let by = |k: &str| root.join(k);
        assert_eq!(
            tree.role(&mut roles, "proj/templates/identity/ref.yaml"),
            FileRole::Patch { kustomization: by("templates/flavors/aks/kustomization.yaml") }
        );
        assert_eq!(
            tree.role(&mut roles, "proj/templates/ci/patches/tags.yaml"),
            FileRole::Patch { kustomization: by("templates/ci/prow/kustomization.yaml") }
        );
        assert_eq!(tree.role(&mut roles, "proj/templates/ci/patches/unnamed.yaml"), FileRole::Manifest);
        assert_eq!(
            tree.role(&mut roles, "proj/e2e-suite/cluster.yaml"),
            FileRole::TestResource { test: by("e2e-suite/delete/chainsaw-test.yaml"), merges: true }
        );
        // Outside every root of the workspace, nothing is looked around for.
        assert_eq!(tree.role(&mut roles, "elsewhere/patches/tags.yaml"), FileRole::Manifest);
    }

    #[test]
    fn kuttl_test_steps_name_the_files_they_apply_and_assert() {
        let step = "apiVersion: kuttl.dev/v1beta1\nkind: TestStep\napply:\n- files/cluster.yaml\nassert:\n- files/cluster-checks.yaml\nerror:\n- files/gone.yaml\n";
        let tree = Tree::new(
            "kuttl-steps",
            &[
                ("e2e/tls/00-create.yaml", step),
                ("e2e/tls/files/cluster.yaml", ""),
                ("e2e/tls/files/cluster-checks.yaml", ""),
                ("e2e/tls/files/gone.yaml", ""),
                ("e2e/tls/files/other.yaml", ""),
                ("e2e/tls/conf/backup/restore.yaml", ""),
                ("e2e/tls/overlay.yaml", ""),
                ("e2e/tls/a/b/c/d/e.yaml", ""),
                // A numbered file that is no kuttl step names nothing.
                ("plain/00-setup.yaml", "apiVersion: v1\nkind: List\nassert:\n- files/x.yaml\n"),
                ("plain/files/x.yaml", ""),
            ],
        );
        let mut roles = Roles::new();
        let test = tree.0.join("e2e/tls/00-create.yaml");
        assert_eq!(tree.role(&mut roles, "e2e/tls/files/cluster.yaml"), FileRole::TestResource { test: test.clone(), merges: true });
        assert_eq!(tree.role(&mut roles, "e2e/tls/files/cluster-checks.yaml"), FileRole::TestAssertion { test: test.clone() });
        assert_eq!(tree.role(&mut roles, "e2e/tls/files/gone.yaml"), FileRole::TestAssertion { test });
        // What no step names is read by the test's commands, whatever its depth below the case: never
        // applied by kuttl itself.
        let case = tree.0.join("e2e/tls");
        assert_eq!(tree.role(&mut roles, "e2e/tls/files/other.yaml"), FileRole::TestFragment { case: case.clone() });
        assert_eq!(tree.role(&mut roles, "e2e/tls/conf/backup/restore.yaml"), FileRole::TestFragment { case: case.clone() });
        assert_eq!(tree.role(&mut roles, "e2e/tls/overlay.yaml"), FileRole::TestFragment { case });
        assert_eq!(tree.role(&mut roles, "plain/files/x.yaml"), FileRole::Manifest);
        // Too deep below the case, a file is no longer taken for one of its fragments.
        assert_eq!(tree.role(&mut roles, "e2e/tls/a/b/c/d/e.yaml"), FileRole::Manifest);
        // With test inputs read as whole objects, so are the fragments.
        let mut whole = Roles::of(Workspace { roots: vec![tree.0.clone()], whole_test_inputs: true });
        assert_eq!(tree.role(&mut whole, "e2e/tls/files/other.yaml"), FileRole::Manifest);
    }

    #[test]
    fn files_below_a_kodata_directory_are_a_programs_data() {
        let tree = Tree::new(
            "kodata",
            &[
                ("cmd/operator/kodata/tekton-addon/pipeline.yaml", ""),
                ("cmd/webhook/kodata/webhooks/500-webhooks.yaml", ""),
                ("cmd/operator/kodata/chart/Chart.yaml", "apiVersion: v2\nname: bundled\nversion: 0.1.0\n"),
                ("cmd/operator/kodata/chart/templates/a.yaml", ""),
                ("cmd/operator/main.yaml", ""),
                ("config/kodata-notes/x.yaml", ""),
            ],
        );
        let mut roles = Roles::of(Workspace { roots: vec![tree.0.clone()], whole_test_inputs: false });
        let source = tree.0.join("cmd/operator/kodata");
        assert_eq!(
            tree.role(&mut roles, "cmd/operator/kodata/tekton-addon/pipeline.yaml"),
            FileRole::ProgramData { source, carrier: Carrier::Ko }
        );
        // A numbered file there is the program's data, not a kuttl step.
        let source = tree.0.join("cmd/webhook/kodata");
        assert_eq!(
            tree.role(&mut roles, "cmd/webhook/kodata/webhooks/500-webhooks.yaml"),
            FileRole::ProgramData { source, carrier: Carrier::Ko }
        );
        // A chart's template is a template wherever the chart lies; a file beside kodata, or in a
        // directory that only starts with the name, is a manifest.
        assert!(matches!(tree.role(&mut roles, "cmd/operator/kodata/chart/templates/a.yaml"), FileRole::HelmTemplate { .. }));
        assert_eq!(tree.role(&mut roles, "cmd/operator/main.yaml"), FileRole::Manifest);
        assert_eq!(tree.role(&mut roles, "config/kodata-notes/x.yaml"), FileRole::Manifest);
        // The workspace's root itself named kodata does not make every file data.
        let inside = Tree::new("kodata-root", &[("kodata/pod.yaml", "")]);
        let mut roles = Roles::of(Workspace { roots: vec![inside.0.join("kodata")], whole_test_inputs: false });
        assert_eq!(inside.role(&mut roles, "kodata/pod.yaml"), FileRole::Manifest);
        // Read as partial objects: the name and other fields left out are not reported; a CRD is whole.
        let (_, mode) =
            FileRole::ProgramData { source: PathBuf::from("kodata"), carrier: Carrier::Ko }.parse("apiVersion: v1\nkind: ConfigMap\n");
        assert_eq!(mode, FileMode::Fragments);
    }

    #[test]
    fn manifests_that_only_parse_as_templates_are_templates() {
        let broken = "metadata:\n  name: {{ .Name }}\nspec:\n  quota: {{ (DivideInt .A .B) }}\n";
        assert!(matches!(FileRole::Manifest.parse(broken).1, FileMode::Template { .. }));
        // Actions inside strings leave valid YAML, sent to the API server as written: a manifest.
        let quoted = "metadata:\n  name: '{{path.basename}}'\n";
        assert_eq!(FileRole::Manifest.parse(quoted).1, FileMode::Objects);
    }

    #[test]
    fn templates_parse_with_actions_masked() {
        let role = FileRole::HelmTemplate { chart_dir: PathBuf::from("c"), chart_name: "c".into() };
        let text = "{{- if .Values.on }}\napiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: {{ .Release.Name }}\n{{- end }}\n";
        let (stream, mode) = role.parse(text);
        assert_eq!(&*stream.text, text);
        assert!(stream.documents[0].diagnostics.is_empty());
        assert!(matches!(mode, FileMode::Template { actions, .. } if actions.len() == 3));
    }
}
