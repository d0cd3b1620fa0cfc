//! Test inputs: the plain manifests of a project's tests. Linters, policy libraries and unit tests keep
//! the objects they feed to their checks below a `test`, `tests` or `e2e` directory, and those objects
//! leave out whatever the test does not look at (a Deployment without selector, a container without
//! image, an object without name): nobody creates them as they are. Such a file is read as test inputs
//! ([`FileMode::TestInputs`](crdls_check::FileMode::TestInputs)): what it writes is checked, what it
//! leaves out is not.
//!
//! Only a directory *below* the workspace's root counts, so that a project that itself lives in
//! `/home/me/tests/app` loses nothing; and only a file no other role claims (a chart template, a
//! kustomize resource or patch, a Chainsaw step keep theirs). `wholeTestInputs` reads them as whole
//! objects again.

use std::path::{Component, Path, PathBuf};

/// The names of the directories whose plain manifests are test inputs: Go's and Python's (pytest)
/// `test` and `tests`, and `e2e`, where end-to-end suites keep what they apply (Chainsaw and kuttl
/// suites, Go's e2e frameworks). `testdata` is skipped by walks altogether (see
/// [`crate::files::TESTDATA_DIR`]); a file in one that is named as a path is read as a manifest.
pub const TEST_DIRS: &[&str] = &["test", "tests", "e2e"];

/// Where the workspace is, which decides the roles that depend on it, and how its test inputs are read.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Workspace {
    /// The roots a file's place is measured from: the workspace folders in the editor; the working
    /// directory and every directory named on the command line for `crdls check`. A file below none
    /// of them is never a test input.
    pub roots: Vec<PathBuf>,
    /// Whether test inputs are read as whole objects, as manifests are (`wholeTestInputs = true`,
    /// `--whole-test-inputs`).
    pub whole_test_inputs: bool,
}

impl Workspace {
    /// A workspace of these roots (made absolute against `cwd` and normalized), its test inputs read as
    /// test inputs unless `whole_test_inputs`.
    pub fn new(roots: impl IntoIterator<Item = PathBuf>, cwd: &Path, whole_test_inputs: bool) -> Workspace {
        let mut roots: Vec<PathBuf> = roots.into_iter().map(|r| crate::files::normalize(&cwd.join(r))).collect();
        roots.sort();
        roots.dedup();
        Workspace { roots, whole_test_inputs }
    }

    /// The deepest root that holds `path`, if any.
    pub fn root_of(&self, path: &Path) -> Option<&Path> {
        self.roots.iter().filter(|r| path.starts_with(r)).max_by_key(|r| r.components().count()).map(PathBuf::as_path)
    }

    /// Whether `path` lies in a golden directory ([`crate::files::GOLDEN_DIRS`]) below the deepest
    /// root that holds it: a golden-file test's output. A conversion test's output directory there
    /// ([`crate::files::is_paired_output_dir`]) is one too.
    pub fn in_golden_dir(&self, path: &Path) -> bool {
        let Some(root) = self.root_of(path) else { return false };
        let Some(below) = path.strip_prefix(root).ok().and_then(Path::parent) else { return false };
        let mut dir = root.to_path_buf();
        below.components().any(|c| {
            let Component::Normal(name) = c else { return false };
            dir.push(name);
            crate::files::GOLDEN_DIRS.iter().any(|g| name == *g) || crate::files::is_paired_output_dir(&dir)
        })
    }

    /// The test directory `path` lies in (the outermost of [`TEST_DIRS`] between the deepest root that
    /// holds it and the file), when its test inputs are read as such.
    pub fn test_dir_of(&self, path: &Path) -> Option<PathBuf> {
        if self.whole_test_inputs {
            return None;
        }
        let root = self.root_of(path)?;
        let below = path.strip_prefix(root).ok()?.parent()?;
        let mut dir = root.to_path_buf();
        for component in below.components() {
            let Component::Normal(name) = component else { return None };
            dir.push(name);
            if TEST_DIRS.iter().any(|t| name == *t) {
                return Some(dir);
            }
        }
        None
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_test_directories_below_the_root_count() {
        let cwd = Path::new("/home/me/tests/app");
        let workspace = Workspace::new([PathBuf::from(".")], cwd, false);
        let dir = |p: &str| workspace.test_dir_of(&cwd.join(p));
        assert_eq!(dir("tests/checks/a.yaml"), Some(cwd.join("tests")));
        assert_eq!(dir("pkg/e2e/suite/b.yaml"), Some(cwd.join("pkg/e2e")));
        assert_eq!(dir("src/test/resources/c.yaml"), Some(cwd.join("src/test")));
        assert_eq!(dir("test/e2e/c.yaml"), Some(cwd.join("test")), "the outermost");
        // The project's own place above the root, and names that only contain the word, do not count.
        assert_eq!(dir("deploy/app.yaml"), None);
        assert_eq!(dir("testing/a.yaml"), None);
        assert_eq!(dir("e2e-tests/a.yaml"), None);
        assert_eq!(dir("tests.yaml"), None, "a file named so is no directory");
        // A file outside every root is none.
        assert_eq!(workspace.test_dir_of(Path::new("/srv/tests/a.yaml")), None);
        // The deepest root decides: a test directory named as a root is checked as it is.
        let named = Workspace::new([PathBuf::from("."), PathBuf::from("tests")], cwd, false);
        assert_eq!(named.test_dir_of(&cwd.join("tests/checks/a.yaml")), None);
        // Golden directories count below the root only.
        assert!(workspace.in_golden_dir(&cwd.join("tests/expected/bundle.yaml")));
        assert!(!workspace.in_golden_dir(&cwd.join("deploy/app.yaml")));
        let goldens = Workspace::new([PathBuf::from(".")], Path::new("/home/me/goldens"), false);
        assert!(!goldens.in_golden_dir(Path::new("/home/me/goldens/deploy.yaml")));
        // Read whole when asked.
        let whole = Workspace::new([PathBuf::from(".")], cwd, true);
        assert_eq!(whole.test_dir_of(&cwd.join("tests/a.yaml")), None);
    }
}
