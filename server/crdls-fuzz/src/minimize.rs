//! Minimization of findings by delta debugging: chunks of lines, then of characters, are removed
//! while the same finding (the same kind; for a panic, the same place) still reproduces.

use std::sync::Arc;
use std::time::{Duration, Instant};

use crate::guard::{run_guarded, Finding, Verdict};
use crate::targets::{lsp, Target};

/// Whether `input` still shows `finding` on `target`.
pub fn reproduces(target: &Arc<dyn Target>, input: &str, finding: &Finding) -> bool {
    let t = target.clone();
    let owned = input.to_string();
    match run_guarded(target.deadline(), move || t.run(&owned)) {
        Verdict::Finding(f) => f.same_as(finding),
        Verdict::Pass => false,
    }
}

/// The smallest input found within `budget` that still shows `finding`. Hangs and memory growth are
/// not minimized (every attempt would leave a worker behind).
pub fn minimize(target: &Arc<dyn Target>, input: &str, finding: &Finding, budget: Duration) -> String {
    if finding.runaway() {
        return input.to_string();
    }
    let until = Instant::now() + budget;
    let mut check = |candidate: &str| Instant::now() < until && reproduces(target, candidate, finding);
    let lines: Vec<String> = input.split_inclusive('\n').map(str::to_string).collect();
    let lines = ddmin(lines, |items| items.concat(), &mut check);
    let mut best = lines.concat();
    if target.lines_only() {
        // A script: its steps first, then the lines of the text it opens.
        let script = lsp::Script::parse(&best);
        let text_lines: Vec<String> = script.text.split_inclusive('\n').map(str::to_string).collect();
        let render = |items: &[String]| lsp::Script { text: items.concat(), ..script.clone() }.render();
        let kept = ddmin(text_lines, render, &mut check);
        best = render(&kept);
    } else {
        let chars: Vec<char> = best.chars().collect();
        let chars = ddmin(chars, |items| items.iter().collect(), &mut check);
        best = chars.into_iter().collect();
    }
    best
}

/// Removes chunks of `items`, halving the chunk size, while `check` holds for what is left.
fn ddmin<T: Clone>(mut items: Vec<T>, render: impl Fn(&[T]) -> String, check: &mut impl FnMut(&str) -> bool) -> Vec<T> {
    let mut chunk = items.len().div_ceil(2).max(1);
    loop {
        let mut start = 0;
        while start < items.len() {
            let end = (start + chunk).min(items.len());
            let mut candidate = items[..start].to_vec();
            candidate.extend_from_slice(&items[end..]);
            if check(&render(&candidate)) {
                items = candidate;
            } else {
                start = end;
            }
        }
        if chunk == 1 {
            return items;
        }
        chunk = chunk.div_ceil(2);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ddmin_keeps_what_the_check_needs() {
        let items: Vec<char> = "xxaxxxbxxx".chars().collect();
        let kept = ddmin(items, |i| i.iter().collect(), &mut |s: &str| s.contains('a') && s.contains('b'));
        assert_eq!(kept.iter().collect::<String>(), "ab");
    }
}
