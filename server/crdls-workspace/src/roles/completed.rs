//! Objects of a kustomize base that its overlays complete. A base often holds a skeleton (a Deployment
//! with `spec: {}`) that each kustomization including the base fills in with a patch of its own (by
//! kind and name, kustomize's target semantics): nobody applies the base alone, so the skeleton's
//! missing containers and selector are no mistake. The rule, from what kustomize outputs: an object of
//! a kustomization's resources is completed when at least one kustomization includes that
//! kustomization, and every one that does either patches the object or is itself included only by
//! kustomizations that do (following the chain up to [`MAX_CHAIN`] levels). A kustomization nobody
//! includes, that does not patch the object, outputs it as written: then it is a whole object.
//!
//! The kustomizations that include a directory are looked for where [`Roles::named_nearby`] looks for
//! what names a file: in the directory's ancestors up to [`super::NEARBY_UP`] levels and the
//! directories below each down to [`super::NEARBY_DOWN`] levels, inside the workspace root. One that lies
//! farther is not seen, and the object stays whole: a missed relaxation, never a lost error.

use std::collections::HashSet;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use crate::kustomize::{ObjectId, Patch};

use super::{subdirectories, FileRole, Roles, NEARBY_DIRS, NEARBY_DOWN, NEARBY_UP};

/// How many kustomizations up a chain of includes is followed.
const MAX_CHAIN: usize = 6;
/// How many documents of a resource file are looked at.
const MAX_OBJECTS: usize = 256;

/// An object of a kustomize base that every kustomization including the base patches.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Completed {
    /// Its kind.
    pub kind: String,
    /// Its name.
    pub name: String,
    /// The kustomizations whose patches complete it, one on each way up from the base.
    pub by: Vec<PathBuf>,
}

impl Roles {
    /// `role` (a resource of the kustomization in `kustomization_dir`, the file at `path`) with the
    /// objects of the file that the kustomizations including that one complete.
    pub(super) fn with_completion(&mut self, role: FileRole, kustomization_dir: &Path, path: &Path) -> FileRole {
        let FileRole::KustomizeResource { kustomization, sets_namespace, patched, .. } = role else { return role };
        let mut completed = Vec::new();
        // Every kustomization that names the file outputs its objects: each must be completed above.
        let mut holders = self.holders_of(path);
        if !holders.iter().any(|h| h == kustomization_dir) {
            holders.push(kustomization_dir.to_path_buf());
        }
        if holders.iter().all(|h| !self.includers_of(h).is_empty()) {
            if let Ok(text) = crate::files::read_text(path) {
                let stream = crdls_yaml::parse(&text);
                for root in stream.documents.iter().filter_map(|d| d.root.as_ref()).take(MAX_OBJECTS) {
                    // A CRD its overlays patch is still a whole CRD as written (the patched one is indexed
                    // from the kustomization that outputs it).
                    if crdls_crd::is_crd(root).is_some() {
                        continue;
                    }
                    let Some(id) = ObjectId::of(root).filter(|id| !id.name.is_empty()) else { continue };
                    let mut by = Vec::new();
                    for holder in &holders {
                        match self.completed_above(holder, &id, 0, &mut HashSet::new()) {
                            Some(found) => by.extend(found),
                            None => {
                                by.clear();
                                break;
                            }
                        }
                    }
                    if !by.is_empty() {
                        by.sort();
                        by.dedup();
                        completed.push(Completed { kind: id.kind, name: id.name, by });
                    }
                }
            }
        }
        FileRole::KustomizeResource { kustomization, sets_namespace, patched, completed }
    }

    /// The kustomizations whose patches complete the object `id` for every kustomization that includes
    /// the one in `dir`; `None` when one of them (or one above it) outputs it unpatched, or none does.
    fn completed_above(&mut self, dir: &Path, id: &ObjectId, depth: usize, visiting: &mut HashSet<PathBuf>) -> Option<Vec<PathBuf>> {
        if depth >= MAX_CHAIN || !visiting.insert(dir.to_path_buf()) {
            return None;
        }
        let includers = self.includers_of(dir);
        if includers.is_empty() {
            return None;
        }
        let mut by = Vec::new();
        for includer in &includers {
            if self.patches_of(includer).iter().any(|p| p.lands_on(id)) {
                by.extend(self.facts(includer).kustomization.clone());
            } else {
                by.extend(self.completed_above(includer, id, depth + 1, visiting)?);
            }
        }
        visiting.remove(dir);
        by.sort();
        by.dedup();
        Some(by)
    }

    /// The patches of the kustomization in `dir`, read once.
    fn patches_of(&mut self, dir: &Path) -> Arc<Vec<Patch>> {
        if let Some(patches) = self.patches.get(dir) {
            return patches.clone();
        }
        let bound = self.bound(dir);
        let mut patches = Vec::new();
        if let Some(file) = self.facts(dir).kustomization.clone() {
            if let Ok(text) = crate::files::read_inside(&bound, &file) {
                for root in crdls_yaml::parse(&text).documents.iter().filter_map(|d| d.root.as_ref()) {
                    patches.extend(crate::kustomize::patches(root, dir, &bound));
                }
            }
        }
        let patches = Arc::new(patches);
        self.patches.insert(dir.to_path_buf(), patches.clone());
        patches
    }

    /// The directories around `dir` whose kustomization includes `dir` (in `resources` or
    /// `components`), sorted.
    fn includers_of(&mut self, dir: &Path) -> Vec<PathBuf> {
        let around = self.kustomizations_around(dir);
        around.iter().filter(|k| self.facts(k).includes.iter().any(|(included, _)| included == dir)).cloned().collect()
    }

    /// The directories around `file` whose kustomization names it in `resources`, sorted.
    fn holders_of(&mut self, file: &Path) -> Vec<PathBuf> {
        let dir = file.parent().unwrap_or(Path::new(""));
        let around = self.kustomizations_around(dir);
        let holds = |role: &FileRole| matches!(role, FileRole::KustomizeResource { .. });
        around.iter().filter(|k| self.facts(k).patches.iter().any(|(named, role)| named == file && holds(role))).cloned().collect()
    }

    /// The directories with a kustomization around `dir`: its ancestors up to [`NEARBY_UP`] levels (not
    /// above the workspace root that holds it) and the directories below each down to [`NEARBY_DOWN`]
    /// levels, sorted; listed once per directory.
    fn kustomizations_around(&mut self, dir: &Path) -> Arc<Vec<PathBuf>> {
        if let Some(found) = self.around.get(dir) {
            return found.clone();
        }
        let top = match self.workspace.root_of(dir) {
            Some(root) => Some(root.to_path_buf()),
            None if dir.is_relative() => Some(PathBuf::new()),
            None => None,
        };
        let mut found = Vec::new();
        let mut seen = HashSet::new();
        if let Some(top) = top {
            for ancestor in dir.ancestors().take(NEARBY_UP + 1) {
                if !ancestor.starts_with(&top) {
                    break;
                }
                let mut level = vec![ancestor.to_path_buf()];
                for depth in 0..=NEARBY_DOWN {
                    for candidate in &level {
                        if seen.insert(candidate.clone()) && self.facts(candidate).kustomization.is_some() {
                            found.push(candidate.clone());
                        }
                    }
                    if depth < NEARBY_DOWN {
                        level = level.iter().flat_map(|d| subdirectories(d)).take(NEARBY_DIRS).collect();
                    }
                }
            }
        }
        found.sort();
        let found = Arc::new(found);
        self.around.insert(dir.to_path_buf(), found.clone());
        found
    }
}
