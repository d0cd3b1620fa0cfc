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

/// Whether `value` matches `pattern`, or `None` when the pattern does not compile (the CRD is where
/// that error belongs). Patterns compile once per thread and are used in place: cloning a `Regex`
/// would start its match cache from scratch on every call.
pub fn matches(pattern: &str, value: &str) -> Option<bool> {
    thread_local! {
        static CACHE: RefCell<HashMap<String, Option<Regex>>> = RefCell::new(HashMap::new());
    }
    CACHE.with(|cache| {
        if let Some(re) = cache.borrow().get(pattern) {
            return re.as_ref().map(|re| re.is_match(value));
        }
        let re = Regex::new(&to_rust_syntax(pattern)).ok();
        let result = re.as_ref().map(|re| re.is_match(value));
        cache.borrow_mut().insert(pattern.to_string(), re);
        result
    })
}

/// Runs `f` with `pattern` compiled (cached per thread), or returns the compile error's text.
pub fn with_regex<T>(pattern: &str, f: impl FnOnce(&Regex) -> T) -> Result<T, String> {
    thread_local! {
        static COMPILED: RefCell<HashMap<String, Result<Regex, String>>> = RefCell::new(HashMap::new());
    }
    COMPILED.with(|cache| {
        if let Some(re) = cache.borrow().get(pattern) {
            return re.as_ref().map(f).map_err(Clone::clone);
        }
        let re = Regex::new(&to_rust_syntax(pattern)).map_err(|e| format!("error parsing regexp: {}", first_line(&e.to_string())));
        let result = re.as_ref().map(f).map_err(Clone::clone);
        let mut cache = cache.borrow_mut();
        if cache.len() > 256 {
            cache.clear();
        }
        cache.insert(pattern.to_string(), re);
        result
    })
}

fn first_line(text: &str) -> &str {
    text.lines().rev().find(|l| l.starts_with("error:")).map_or(text, |l| l.trim_start_matches("error: "))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn perl_classes_are_ascii_like_go() {
        assert_eq!(matches(r"^\d+$", "123"), Some(true));
        assert_eq!(matches(r"^\d+$", "١٢٣"), Some(false), "Arabic-Indic digits are not \\d in Go");
        assert_eq!(matches(r"^\w+$", "h\u{e9}"), Some(false));
        assert_eq!(matches(r"^[\d\-]+$", "1-2"), Some(true));
        assert_eq!(matches(r"^a\\d$", "a\\d"), Some(true));
        assert_eq!(matches("(unclosed", "x"), None);
        assert_eq!(matches("^caf\u{e9}.$", "caf\u{e9}\u{1F600}"), Some(true));
    }
}
