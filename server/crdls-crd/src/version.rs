//! Kubernetes version priority: GA before beta before alpha, higher numbers first, then other names alphabetically.

use std::cmp::Ordering;

/// The parsed shape of a version name such as `v2beta1`.
#[derive(Debug, PartialEq, Eq)]
enum Shape {
    /// `vN`, `vNbetaM` or `vNalphaM`, with stability 2 (GA), 1 (beta) or 0 (alpha).
    Kube { major: u64, stability: u8, minor: u64 },
    /// Anything else.
    Other,
}

fn shape(name: &str) -> Shape {
    let Some(rest) = name.strip_prefix('v') else { return Shape::Other };
    let digits = rest.bytes().take_while(u8::is_ascii_digit).count();
    if digits == 0 || rest.as_bytes()[0] == b'0' {
        return Shape::Other;
    }
    let Ok(major) = rest[..digits].parse() else { return Shape::Other };
    let tail = &rest[digits..];
    if tail.is_empty() {
        return Shape::Kube { major, stability: 2, minor: 0 };
    }
    for (word, stability) in [("beta", 1), ("alpha", 0)] {
        if let Some(minor) = tail.strip_prefix(word) {
            if !minor.is_empty() && minor.bytes().all(|b| b.is_ascii_digit()) && !minor.starts_with('0') {
                if let Ok(minor) = minor.parse() {
                    return Shape::Kube { major, stability, minor };
                }
            }
        }
    }
    Shape::Other
}

/// Orders two version names by Kubernetes priority, the highest priority first.
pub fn compare_versions(a: &str, b: &str) -> Ordering {
    match (shape(a), shape(b)) {
        (Shape::Kube { major: ma, stability: sa, minor: na }, Shape::Kube { major: mb, stability: sb, minor: nb }) => {
            sb.cmp(&sa).then(mb.cmp(&ma)).then(nb.cmp(&na))
        }
        (Shape::Kube { .. }, Shape::Other) => Ordering::Less,
        (Shape::Other, Shape::Kube { .. }) => Ordering::Greater,
        (Shape::Other, Shape::Other) => a.cmp(b),
    }
}

/// Whether `version` most likely comes after every one of `declared` in a CRD's history: each is a
/// Kubernetes version name, and `version` is later in release order (a higher major; then GA after beta
/// after alpha; then a higher number: `v1beta3` after `v1beta2`, `v1` after `v1beta2`, `v2beta1` after
/// `v1`), at most one major past the latest declared one. A CRD gains versions over time, so an object
/// of such a version and a local CRD that lacks it most likely mean an older copy of the CRD than the
/// one installed; a version two majors ahead (`v3` beside `v1`) is rather a slip.
pub fn is_next_version(version: &str, declared: &[&str]) -> bool {
    let order = |name: &str| match shape(name) {
        Shape::Kube { major, stability, minor } => Some((major, stability, minor)),
        Shape::Other => None,
    };
    let Some(this) = order(version) else { return false };
    let mut latest = None;
    for name in declared {
        let Some(that) = order(name) else { return false };
        latest = latest.max(Some(that));
    }
    latest.is_some_and(|latest| this > latest && this.0 <= latest.0 + 1)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_next_version_follows_every_declared_one_by_at_most_a_major() {
        let next = |v: &str, declared: &[&str]| is_next_version(v, declared);
        assert!(next("v1", &["v1beta2", "v1beta1"]));
        assert!(next("v2", &["v2beta1", "v2beta2"]));
        assert!(next("v1beta3", &["v1beta2", "v1beta1"]));
        assert!(next("v2beta1", &["v1"]));
        assert!(next("v2", &["v1", "v1alpha1"]));
        // Older, equal, far ahead, or not a Kubernetes version name: not a next version.
        assert!(!next("v1beta1", &["v1"]));
        assert!(!next("v1alpha2", &["v1beta1"]));
        assert!(!next("v1", &["v1", "v1beta1"]));
        assert!(!next("v3", &["v1", "v1beta1"]));
        assert!(!next("v9", &["v1"]));
        assert!(!next("latest", &["v1"]));
        assert!(!next("v2", &["v1", "stable"]));
        assert!(!next("v2", &[]));
    }

    #[test]
    fn sorts_like_the_kubernetes_docs() {
        let expected = ["v10", "v2", "v1", "v11beta2", "v10beta3", "v3beta1", "v12alpha1", "v11alpha2", "foo1", "foo10"];
        let mut shuffled = expected.to_vec();
        shuffled.reverse();
        shuffled.swap(0, 5);
        shuffled.swap(2, 8);
        shuffled.sort_by(|a, b| compare_versions(a, b));
        assert_eq!(shuffled, expected);
    }
}
