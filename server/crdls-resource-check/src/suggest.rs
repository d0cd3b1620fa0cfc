//! "Did you mean" suggestions for misspelled kinds, versions and fields.

/// The candidate closest to `word` when it is close enough to be a likely typo.
pub fn did_you_mean<'a>(word: &str, candidates: impl IntoIterator<Item = &'a str>) -> Option<&'a str> {
    let lower = word.to_lowercase();
    let length = word.chars().count();
    let limit = (length / 3).clamp(1, 3);
    let mut best: Option<(usize, &str)> = None;
    for candidate in candidates {
        // The distance is at least the difference in length: most candidates end here, unallocated.
        if candidate == word || candidate.chars().count().abs_diff(length) > limit {
            continue;
        }
        let distance = if candidate.to_lowercase() == lower { 0 } else { edit_distance(&lower, &candidate.to_lowercase()) };
        if distance <= limit && best.is_none_or(|(d, _)| distance < d) {
            best = Some((distance, candidate));
        }
    }
    best.map(|(_, c)| c)
}

/// The declared kind that `kind` misspells, judged more strictly than [`did_you_mean`]: kinds of one
/// group are often close to each other (`TCPRoute`, `UDPRoute`, `TLSRoute`), so a kind that the index
/// does not declare counts as a typo only when it differs in case alone or by one edit (two for kinds
/// of ten characters or more). Anything further may be a real kind of a CRD that is not indexed.
pub fn misspelled_kind<'a>(kind: &str, declared: impl IntoIterator<Item = &'a str>) -> Option<&'a str> {
    let limit = if kind.chars().count() >= 10 { 2 } else { 1 };
    let lower = kind.to_lowercase();
    let mut best: Option<(usize, &str)> = None;
    for candidate in declared {
        let distance = edit_distance(&lower, &candidate.to_lowercase());
        if candidate != kind && distance <= limit && best.is_none_or(|(d, _)| distance < d) {
            best = Some((distance, candidate));
        }
    }
    best.map(|(_, c)| c)
}

/// The edit distance between two strings, in characters: insertions, deletions, substitutions and
/// swaps of two neighbours (`burts` is one edit from `burst`) each count one.
pub fn edit_distance(a: &str, b: &str) -> usize {
    let (a, b): (Vec<char>, Vec<char>) = (a.chars().collect(), b.chars().collect());
    // Three rows of the optimal-string-alignment table: two back, one back, current.
    let mut before: Vec<usize> = vec![0; b.len() + 1];
    let mut prev: Vec<usize> = (0..=b.len()).collect();
    for i in 0..a.len() {
        let mut cur = vec![i + 1; b.len() + 1];
        for j in 0..b.len() {
            let cost = usize::from(a[i] != b[j]);
            cur[j + 1] = (prev[j] + cost).min(prev[j + 1] + 1).min(cur[j] + 1);
            if i > 0 && j > 0 && a[i] == b[j - 1] && a[i - 1] == b[j] {
                cur[j + 1] = cur[j + 1].min(before[j - 1] + 1);
            }
        }
        before = std::mem::replace(&mut prev, cur);
    }
    prev[b.len()]
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn suggests_close_names_only() {
        assert_eq!(did_you_mean("replcas", ["replicas", "selector"]), Some("replicas"));
        assert_eq!(did_you_mean("Pmup", ["Pump", "Pipe"]), Some("Pump"));
        assert_eq!((edit_distance("burts", "burst"), edit_distance("ab", "ba"), edit_distance("", "abc")), (1, 1, 3));
        assert_eq!(did_you_mean("widget", ["Widget", "Gadget"]), Some("Widget"));
        assert_eq!(did_you_mean("zzz", ["replicas"]), None);
    }

    #[test]
    fn misspelled_kinds_are_close() {
        assert_eq!(misspelled_kind("gateway", ["Gateway", "GatewayClass"]), Some("Gateway"));
        assert_eq!(misspelled_kind("HTTPRoue", ["HTTPRoute"]), Some("HTTPRoute"));
        assert_eq!(misspelled_kind("Certficate", ["Certificate"]), Some("Certificate"));
        assert_eq!(misspelled_kind("ApplicatonSt", ["ApplicationSet"]), Some("ApplicationSet"));
        // Real kinds of a CRD that may simply be missing from the index.
        assert_eq!(misspelled_kind("UDPRoute", ["TCPRoute", "TLSRoute"]), None);
        assert_eq!(misspelled_kind("Rollout", ["Application", "ApplicationSet", "AppProject"]), None);
    }
}
