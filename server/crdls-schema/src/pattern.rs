//! `pattern` with Go RE2 semantics. Rust's regex crate shares RE2's syntax, but its Perl classes
//! (`\d`, `\w`, `\s`, `\b`) are Unicode-aware while Go's are ASCII-only; this module rewrites them
//! to their ASCII meaning and caches compiled patterns per thread.

use std::cell::RefCell;
use std::collections::HashMap;

use regex::Regex;

/// Rewrites Go's ASCII-only Perl classes into explicit ASCII classes Rust understands the same way.
pub fn to_rust_syntax(pattern: &str) -> String {
    let mut out = String::with_capacity(pattern.len() + 8);
    let mut chars = pattern.chars();
    while let Some(c) = chars.next() {
        if c != '\\' {
            out.push(c);
            continue;
        }
        match chars.next() {
            Some('d') => out.push_str("[0-9]"),
            Some('D') => out.push_str("[^0-9]"),
            Some('w') => out.push_str("[0-9A-Za-z_]"),
            Some('W') => out.push_str("[^0-9A-Za-z_]"),
            Some('s') => out.push_str("[\\t\\n\\f\\r ]"),
            Some('S') => out.push_str("[^\\t\\n\\f\\r ]"),
            Some('b') => out.push_str("(?-u:\\b)"),
            Some('B') => out.push_str("(?-u:\\B)"),
            Some(other) => {
                out.push('\\');
                out.push(other);
            }
            None => out.push('\\'),
        }
    }
    out
}

/// The compiled pattern, or `None` when it does not compile (the CRD is where that error belongs).
/// Compiled once per thread, so checking takes no lock.
pub fn compiled(pattern: &str) -> Option<Regex> {
    thread_local! {
        static CACHE: RefCell<HashMap<String, Option<Regex>>> = RefCell::new(HashMap::new());
    }
    CACHE.with(|cache| {
        if let Some(re) = cache.borrow().get(pattern) {
            return re.clone();
        }
        let re = Regex::new(&to_rust_syntax(pattern)).ok();
        cache.borrow_mut().insert(pattern.to_string(), re.clone());
        re
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn perl_classes_are_ascii_like_go() {
        let digits = compiled(r"^\d+$").unwrap();
        assert!(digits.is_match("123"));
        assert!(!digits.is_match("١٢٣"), "Arabic-Indic digits are not \\d in Go");
        let word = compiled(r"^\w+$").unwrap();
        assert!(!word.is_match("h\u{e9}"));
        let class = compiled(r"^[\d\-]+$").unwrap();
        assert!(class.is_match("1-2"));
        let escaped = compiled(r"^a\\d$").unwrap();
        assert!(escaped.is_match("a\\d"));
        assert!(compiled("(unclosed").is_none());
        assert!(compiled("^caf\u{e9}.$").unwrap().is_match("caf\u{e9}\u{1F600}"));
    }
}
