//! Open Cluster Management's policy generator: a `PolicyGenerator` (`policy.open-cluster-management.io/v1`,
//! a kustomize generator plugin, also run on its own) names manifests under `policies[].manifests[].path`,
//! a file or a flat directory of files. Each object there becomes an object template of a
//! ConfigurationPolicy, which compares it with the cluster's object (`inform`, `mustnothave`) or merges
//! it into the one that exists (`musthave`): a partial object, often holding only the `status` a policy
//! checks or the labels it requires. Such a file is read as assertions are
//! ([`FileRole::PolicyTemplate`]): what it writes is checked, what it leaves out is not.
//!
//! A generator is found beside the files it names, as a kustomization is: the one a kustomization of
//! the directory lists in `generators` (whose paths are relative to the kustomization), or a YAML file
//! of the directory whose opening declares the kind (generators also run without kustomize). Its
//! `placementPath` and `placementRulePath` name whole objects, which keep their role.

use std::io::Read;
use std::path::{Path, PathBuf};

use crdls_yaml::Node;

use super::{within_root, FileRole};
use crate::files::normalize;

/// The API group of the generator's kind.
const GROUP: &str = "policy.open-cluster-management.io/";
/// How many YAML files of one directory are opened to look for a generator.
const MAX_CANDIDATES: usize = 256;
/// How much of a file's opening is read to look for the kind.
const OPENING_BYTES: u64 = 4096;
/// How many files of a directory a generator names at most are given the role.
const MAX_DIRECTORY_FILES: usize = 1024;

/// The files the policy generators of `dir` name, with their role: the generators its kustomization
/// (`kustomization`, if any) lists, and those among the directory's YAML files.
/// Generators are read only inside `bound` (see `Roles::bound`).
pub(super) fn object_templates(dir: &Path, bound: &Path, kustomization: Option<&Path>, out: &mut Vec<(PathBuf, FileRole)>) {
    let mut generators: Vec<(PathBuf, PathBuf)> = Vec::new();
    if let Some(kustomization) = kustomization {
        for path in listed_generators(bound, kustomization) {
            generators.push((normalize(&dir.join(path)), dir.to_path_buf()));
        }
    }
    for file in candidates(dir) {
        if !generators.iter().any(|(g, _)| *g == file) && declares_generator(&file) {
            generators.push((file, dir.to_path_buf()));
        }
    }
    for (generator, base) in generators {
        let Ok(text) = crate::files::read_inside(bound, &generator) else { continue };
        for document in crdls_yaml::parse(&text).documents {
            let Some(root) = &document.root else { continue };
            if is_generator(root) {
                named_manifests(root, &base, &generator, out);
            }
        }
    }
}

/// Whether a document is a `PolicyGenerator` of Open Cluster Management.
fn is_generator(root: &Node) -> bool {
    root.get_str("apiVersion").is_some_and(|v| v.starts_with(GROUP)) && root.get_str("kind") == Some("PolicyGenerator")
}

/// The paths a kustomization lists in `generators` that may be generator files: relative YAML paths
/// below it (inline configurations and directories are not followed).
fn listed_generators(bound: &Path, kustomization: &Path) -> Vec<String> {
    let Ok(text) = crate::files::read_inside(bound, kustomization) else { return Vec::new() };
    if !text.contains("generators") {
        return Vec::new();
    }
    let mut out = Vec::new();
    for document in crdls_yaml::parse(&text).documents {
        let Some(root) = &document.root else { continue };
        for entry in root.get("generators").and_then(Node::as_seq).unwrap_or_default() {
            if let Some(path) = entry.as_str().filter(|p| [".yaml", ".yml"].iter().any(|e| p.ends_with(e)) && within_root(p)) {
                out.push(path.to_string());
            }
        }
    }
    out
}

/// The YAML files of `dir` (sorted, at most [`MAX_CANDIDATES`]), kustomizations aside.
fn candidates(dir: &Path) -> Vec<PathBuf> {
    super::files_in(
        dir,
        |name| (name.ends_with(".yaml") || name.ends_with(".yml")) && !super::KUSTOMIZATION_FILES.contains(&name),
        MAX_CANDIDATES,
    )
}

/// Whether a file's opening (its first [`OPENING_BYTES`]) declares the generator's kind, a cheap test
/// before the file is read and parsed.
fn declares_generator(file: &Path) -> bool {
    // A regular file only: the candidates are listed without following links, but the name may have
    // been replaced by a FIFO since, and opening one blocks.
    let Ok((handle, _)) = crdls_sources::read::open_regular(file, crate::files::MAX_FILE_BYTES) else { return false };
    let mut opening = Vec::new();
    if handle.take(OPENING_BYTES).read_to_end(&mut opening).is_err() {
        return false;
    }
    let opening = String::from_utf8_lossy(&opening);
    opening.lines().any(|line| line.trim_end() == "kind: PolicyGenerator") && opening.contains(GROUP)
}

/// The files a generator names under `policies[].manifests[].path`, relative to `base`: a file, or each
/// YAML or JSON file of a directory.
fn named_manifests(root: &Node, base: &Path, generator: &Path, out: &mut Vec<(PathBuf, FileRole)>) {
    let role = FileRole::PolicyTemplate { generator: generator.to_path_buf() };
    for policy in root.get("policies").and_then(Node::as_seq).unwrap_or_default() {
        for manifest in policy.get("manifests").and_then(Node::as_seq).unwrap_or_default() {
            // The generator refuses paths outside the kustomization's directory.
            let Some(path) = manifest.get_str("path").filter(|p| within_root(p)) else { continue };
            let named = normalize(&base.join(path));
            if named.is_dir() {
                for file in directory_files(&named) {
                    out.push((file, role.clone()));
                }
            } else {
                out.push((named, role.clone()));
            }
        }
    }
}

/// The YAML and JSON files directly in `dir` (the generator reads a flat directory), at most
/// [`MAX_DIRECTORY_FILES`].
fn directory_files(dir: &Path) -> Vec<PathBuf> {
    let Ok(entries) = std::fs::read_dir(dir) else { return Vec::new() };
    entries
        .filter_map(Result::ok)
        .filter(|e| e.file_type().is_ok_and(|t| t.is_file()))
        .map(|e| dir.join(e.file_name()))
        .filter(|p| crate::files::is_yaml_or_json(p))
        .take(MAX_DIRECTORY_FILES)
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::roles::Roles;

    fn tree(name: &str, files: &[(&str, &str)]) -> PathBuf {
        let root = std::env::temp_dir().join(format!("crdls-policy-generator-{name}-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&root);
        for (file, text) in files {
            let path = root.join(file);
            std::fs::create_dir_all(path.parent().unwrap()).unwrap();
            std::fs::write(path, text).unwrap();
        }
        root
    }

    const GENERATOR: &str = "apiVersion: policy.open-cluster-management.io/v1\nkind: PolicyGenerator\nmetadata:\n  name: g\npolicyDefaults:\n  namespace: p\n  placement:\n    placementPath: input/placement.yaml\npolicies:\n- name: a\n  manifests:\n  - path: input-a/object.yaml\n- name: b\n  manifests:\n  - path: input-b/\n  - path: ../outside.yaml\n";

    #[test]
    fn files_a_policy_generator_names_are_object_templates() {
        let root = tree(
            "named",
            &[
                ("kustomized/kustomization.yaml", "generators:\n- gen/generator.yaml\n"),
                ("kustomized/gen/generator.yaml", GENERATOR),
                ("kustomized/input-a/object.yaml", ""),
                ("kustomized/input-b/one.yaml", ""),
                ("kustomized/input-b/two.yml", ""),
                ("kustomized/input/placement.yaml", ""),
                ("alone/policyGenerator.yaml", GENERATOR),
                ("alone/input-a/object.yaml", ""),
                ("alone/input-a/other.yaml", ""),
                ("outside.yaml", ""),
                ("foreign/generator.yaml", &GENERATOR.replace("policy.open-cluster-management.io", "example.com")),
                ("foreign/input-a/object.yaml", ""),
            ],
        );
        let mut roles = Roles::new();
        let role = |roles: &mut Roles, file: &str| roles.role_of(&root.join(file));
        // Named from a kustomization's generators: paths relative to the kustomization.
        let by = FileRole::PolicyTemplate { generator: root.join("kustomized/gen/generator.yaml") };
        assert_eq!(role(&mut roles, "kustomized/input-a/object.yaml"), by);
        assert_eq!(role(&mut roles, "kustomized/input-b/one.yaml"), by);
        assert_eq!(role(&mut roles, "kustomized/input-b/two.yml"), by);
        assert_eq!(role(&mut roles, "kustomized/input/placement.yaml"), FileRole::Manifest, "a placement is whole");
        // Found by its kind beside what it names.
        let alone = FileRole::PolicyTemplate { generator: root.join("alone/policyGenerator.yaml") };
        assert_eq!(role(&mut roles, "alone/input-a/object.yaml"), alone);
        assert_eq!(role(&mut roles, "alone/input-a/other.yaml"), FileRole::Manifest);
        // Nothing outside the generator's directory, and no other group's PolicyGenerator.
        assert_eq!(role(&mut roles, "outside.yaml"), FileRole::Manifest);
        assert_eq!(role(&mut roles, "foreign/input-a/object.yaml"), FileRole::Manifest);
        // Read as assertions: what they leave out is not required.
        assert_eq!(alone.parse("apiVersion: v1\nkind: Pod\nstatus:\n  phase: Failed\n").1, crdls_check::FileMode::Assertions);
        let _ = std::fs::remove_dir_all(&root);
    }
}
