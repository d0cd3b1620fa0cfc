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

#[cfg(test)]
mod tests {
    use super::*;

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
