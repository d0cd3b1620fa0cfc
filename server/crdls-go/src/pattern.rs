//! `pattern` with Go RE2 semantics. Rust's regex crate shares RE2's syntax, but its Perl classes
//! (`\d`, `\w`, `\s`, `\b`) are Unicode-aware while Go's are ASCII-only; this module rewrites them
//! to their ASCII meaning and caches compiled patterns per thread.

use std::cell::RefCell;
use std::collections::HashMap;

use regex::Regex;

/// Rewrites Go's ASCII-only Perl classes into explicit ASCII classes Rust understands the same way.
/// Inside a bracketed class, a `-` after a Perl, Unicode or POSIX class (`[\d-_]`, `[\pL-x]`) is the
/// character `-` in Go, where Rust refuses it as a range's end: it is escaped.
pub fn to_rust_syntax(pattern: &str) -> String {
    let chars: Vec<char> = pattern.chars().collect();
    let mut out = String::with_capacity(pattern.len() + 8);
    let mut in_class = false;
    let mut i = 0;
    while i < chars.len() {
        let c = chars[i];
        // Whether what was just written is a class, which a `-` cannot end a range after.
        let mut class_item = false;
        if c == '\\' {
            class_item = matches!(chars.get(i + 1), Some('d' | 'D' | 'w' | 'W' | 's' | 'S' | 'p' | 'P'));
            match chars.get(i + 1) {
                Some('d') => out.push_str("[0-9]"),
                Some('D') => out.push_str("[^0-9]"),
                Some('w') => out.push_str("[0-9A-Za-z_]"),
                Some('W') => out.push_str("[^0-9A-Za-z_]"),
                Some('s') => out.push_str("[\\t\\n\\f\\r ]"),
                Some('S') => out.push_str("[^\\t\\n\\f\\r ]"),
                Some('b') => out.push_str("(?-u:\\b)"),
                Some('B') => out.push_str("(?-u:\\B)"),
                Some(&p @ ('p' | 'P')) => {
                    out.push('\\');
                    out.push(p);
                    let name_len = match chars.get(i + 2) {
                        Some('{') => chars[i + 2..].iter().position(|&c| c == '}').map_or(chars.len() - i - 2, |end| end + 1),
                        Some(_) => 1,
                        None => 0,
                    };
                    out.extend(&chars[i + 2..i + 2 + name_len]);
                    i += name_len;
                }
                Some(&other) => {
                    out.push('\\');
                    out.push(other);
                }
                None => out.push('\\'),
            }
            i += 2;
        } else if in_class && c == '[' && chars.get(i + 1) == Some(&':') {
            let end = chars[i + 2..].windows(2).position(|w| w == [':', ']']).map_or(chars.len(), |e| i + 2 + e + 2);
            out.extend(&chars[i..end]);
            class_item = true;
            i = end;
        } else if !in_class && c == '[' {
            in_class = true;
            out.push(c);
            i += 1;
            // A `]` first in the class (after any `^`) is the character `]`.
            if chars.get(i) == Some(&'^') {
                out.push('^');
                i += 1;
            }
            if chars.get(i) == Some(&']') {
                out.push_str("\\]");
                i += 1;
            }
            continue;
        } else {
            if in_class && c == ']' {
                in_class = false;
            }
            out.push(c);
            i += 1;
        }
        if in_class && class_item && chars.get(i) == Some(&'-') && chars.get(i + 1).is_some_and(|&n| n != ']') {
            out.push_str("\\-");
            i += 1;
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
        // After a Perl, Unicode or POSIX class in a class, `-` is itself, as Go reads it.
        assert_eq!(matches(r"^[a-zA-Z\d-_]+$", "a-_9"), Some(true));
        assert_eq!(matches(r"^[a-zA-Z\d-_]+$", "a.b"), Some(false));
        assert_eq!(matches(r"^[\pL-x]+$", "\u{e9}-x"), Some(true));
        assert_eq!(matches(r"^[\p{Greek}-]+$", "\u{3b1}-"), Some(true));
        assert_eq!(matches("^[[:alpha:]-9]+$", "a-9"), Some(true));
        assert_eq!(matches(r"^[\d-a-c]+$", "1-b"), Some(true));
        assert_eq!(matches(r"^[\d-a-c]+$", "d"), Some(false));
        assert_eq!(matches(r"^[]a]+$", "]a"), Some(true));
    }
}
