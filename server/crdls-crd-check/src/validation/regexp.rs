//! Whether a `pattern` compiles as a Go regular expression, and if not, Go's error text
//! (`error parsing regexp: missing argument to repetition operator: `*``), which the API server puts
//! in its message. Rust's regex crate shares RE2's syntax, so it decides whether a pattern is valid;
//! a small scanner that follows the order of Go's parser finds which error Go reports first.

use crate::pattern;

/// Go's error for `pattern`, or `None` when it compiles.
pub(super) fn go_error(pattern: &str) -> Option<String> {
    let scanned = scan(pattern);
    let rust = pattern::with_regex(&rust_classes(pattern), |_| ()).err();
    match (scanned, rust) {
        (Some((code, expr)), _) => Some(format!("error parsing regexp: {code}: `{expr}`")),
        (None, Some(rust)) => Some(rust),
        (None, None) => None,
    }
}

const MISSING_REPEAT_ARGUMENT: &str = "missing argument to repetition operator";
const INVALID_REPEAT_OP: &str = "invalid nested repetition operator";
const INVALID_REPEAT_SIZE: &str = "invalid repeat count";
const MISSING_PAREN: &str = "missing closing )";
const UNEXPECTED_PAREN: &str = "unexpected )";
const MISSING_BRACKET: &str = "missing closing ]";
const INVALID_ESCAPE: &str = "invalid escape sequence";
const INVALID_PERL_OP: &str = "invalid or unsupported Perl syntax";
const INVALID_NAMED_CAPTURE: &str = "invalid named capture";
const INVALID_CHAR_RANGE: &str = "invalid character class range";
const TRAILING_BACKSLASH: &str = "trailing backslash at end of expression";

/// The first error Go's parser reports, as (code, offending text). Only the errors this scanner is
/// sure about; anything else is left to the regex crate.
fn scan(re: &str) -> Option<(&'static str, String)> {
    let chars: Vec<char> = re.chars().collect();
    let mut i = 0;
    // Whether the last thing parsed can take a repetition operator, and whether it was one.
    let mut operand = false;
    let mut last_repeat: Option<String> = None;
    let mut depth = 0usize;
    while i < chars.len() {
        let c = chars[i];
        match c {
            '(' => {
                if chars.get(i + 1) == Some(&'?') {
                    let rest: String = chars[i..].iter().collect();
                    if rest.starts_with("(?P<") || rest.starts_with("(?<") {
                        let open = if rest.starts_with("(?P<") { 4 } else { 3 };
                        let Some(end) = rest.find('>') else { return Some((INVALID_NAMED_CAPTURE, rest)) };
                        let name = &rest[open..end];
                        if name.is_empty() || !name.chars().all(|c| c.is_alphanumeric() || c == '_') {
                            return Some((INVALID_NAMED_CAPTURE, rest[..=end].to_string()));
                        }
                        i += rest[..=end].chars().count();
                    } else {
                        // Flags: (?i) (?i:...) (?-s) and so on.
                        let mut j = i + 2;
                        let mut ok = false;
                        while let Some(&f) = chars.get(j) {
                            match f {
                                'i' | 'm' | 's' | 'U' | '-' => j += 1,
                                // `(?:` groups without flags; `(?)` and `(?i-)` are errors.
                                ':' => {
                                    ok = chars[j - 1] != '-';
                                    break;
                                }
                                ')' => {
                                    ok = j > i + 2 && chars[j - 1] != '-';
                                    break;
                                }
                                _ => break,
                            }
                        }
                        if !ok {
                            let end = (j + 1).min(chars.len());
                            return Some((INVALID_PERL_OP, chars[i..end].iter().collect()));
                        }
                        if chars[j] == ')' {
                            i = j + 1;
                            continue;
                        }
                        i = j + 1;
                    }
                } else {
                    i += 1;
                }
                depth += 1;
                operand = false;
                last_repeat = None;
                continue;
            }
            ')' => {
                if depth == 0 {
                    return Some((UNEXPECTED_PAREN, re.to_string()));
                }
                depth -= 1;
                operand = true;
                last_repeat = None;
            }
            '|' => {
                operand = false;
                last_repeat = None;
            }
            '*' | '+' | '?' => {
                let mut op = c.to_string();
                if chars.get(i + 1) == Some(&'?') {
                    op.push('?');
                }
                if let Some(prev) = &last_repeat {
                    return Some((INVALID_REPEAT_OP, format!("{prev}{op}")));
                }
                if !operand {
                    return Some((MISSING_REPEAT_ARGUMENT, op));
                }
                i += op.chars().count();
                last_repeat = Some(op);
                continue;
            }
            '{' => {
                if let Some((len, min, max)) = repeat(&chars[i..]) {
                    let mut op: String = chars[i..i + len].iter().collect();
                    let lazy = chars.get(i + len) == Some(&'?');
                    if lazy {
                        op.push('?');
                    }
                    if min > 1000 || max.is_some_and(|m| m > 1000 || m < min) {
                        return Some((INVALID_REPEAT_SIZE, op));
                    }
                    if let Some(prev) = &last_repeat {
                        return Some((INVALID_REPEAT_OP, format!("{prev}{op}")));
                    }
                    if !operand {
                        return Some((MISSING_REPEAT_ARGUMENT, op));
                    }
                    i += op.chars().count();
                    last_repeat = Some(op);
                    continue;
                }
                operand = true;
                last_repeat = None;
            }
            '[' => {
                match class(&chars[i..]) {
                    Ok(len) => i += len,
                    Err(e) => return Some(e),
                }
                operand = true;
                last_repeat = None;
                continue;
            }
            '\\' => {
                match escape(&chars[i..]) {
                    Ok(len) => i += len,
                    Err(e) => return Some(e),
                }
                operand = true;
                last_repeat = None;
                continue;
            }
            '^' | '$' => {
                operand = true;
                last_repeat = None;
            }
            _ => {
                operand = true;
                last_repeat = None;
            }
        }
        i += 1;
    }
    if depth > 0 {
        return Some((MISSING_PAREN, re.to_string()));
    }
    None
}

/// `pattern` with the characters Go reads literally inside a character class, but Rust as nested
/// classes or set operations (`[`, `&&`, `--`, `~~`), escaped, and `\\Q...\\E` spelled out.
fn rust_classes(re: &str) -> String {
    let chars: Vec<char> = re.chars().collect();
    let mut out = String::with_capacity(re.len() + 8);
    let mut i = 0;
    while i < chars.len() {
        let c = chars[i];
        if c == '\\' && chars.get(i + 1) == Some(&'Q') {
            // Go's quoted literal text, which Rust does not have: escape it instead.
            i += 2;
            while i < chars.len() && !(chars[i] == '\\' && chars.get(i + 1) == Some(&'E')) {
                if chars[i].is_ascii_punctuation() {
                    out.push('\\');
                }
                out.push(chars[i]);
                i += 1;
            }
            i += 2;
            continue;
        }
        if c == '\\' {
            out.push(c);
            if let Some(&n) = chars.get(i + 1) {
                out.push(n);
            }
            i += 2;
            continue;
        }
        if c != '[' {
            out.push(c);
            i += 1;
            continue;
        }
        // A class: copy it, escaping what Rust would read differently.
        out.push('[');
        i += 1;
        if chars.get(i) == Some(&'^') {
            out.push('^');
            i += 1;
        }
        let mut first = true;
        while i < chars.len() {
            let c = chars[i];
            if c == ']' && !first {
                out.push(']');
                i += 1;
                break;
            }
            first = false;
            match c {
                '\\' => {
                    out.push(c);
                    if let Some(&n) = chars.get(i + 1) {
                        out.push(n);
                    }
                    i += 2;
                    continue;
                }
                '[' if chars.get(i + 1) == Some(&':') => {
                    if let Some(end) = chars[i + 2..].windows(2).position(|w| w == [':', ']']) {
                        out.extend(&chars[i..i + end + 4]);
                        i += end + 4;
                        continue;
                    }
                    out.push_str("\\[");
                }
                ']' => out.push_str("\\]"),
                '[' => out.push_str("\\["),
                '&' | '~' if chars.get(i + 1) == Some(&c) => {
                    out.push('\\');
                    out.push(c);
                }
                '-' if chars.get(i + 1) == Some(&'-') => out.push_str("\\-"),
                c => out.push(c),
            }
            i += 1;
        }
    }
    out
}

/// A `{n}`, `{n,}` or `{n,m}` repetition at the start of `t`: its length, min and max.
fn repeat(t: &[char]) -> Option<(usize, u64, Option<u64>)> {
    let close = t.iter().position(|&c| c == '}')?;
    let inner: String = t[1..close].iter().collect();
    let number = |s: &str| -> Option<u64> {
        if s.is_empty() || !s.chars().all(|c| c.is_ascii_digit()) || (s.len() > 1 && s.starts_with('0')) {
            return None;
        }
        Some(s.parse::<u64>().unwrap_or(u64::MAX))
    };
    let (min, max) = match inner.split_once(',') {
        None => {
            let n = number(&inner)?;
            (n, Some(n))
        }
        Some((a, "")) => (number(a)?, None),
        Some((a, b)) => (number(a)?, Some(number(b)?)),
    };
    Some((close + 1, min, max))
}

/// A character class at the start of `t` (which begins with `[`): its length, or Go's error.
fn class(t: &[char]) -> Result<usize, (&'static str, String)> {
    let whole: String = t.iter().collect();
    let mut i = 1;
    if t.get(i) == Some(&'^') {
        i += 1;
    }
    let mut first = true;
    while i < t.len() {
        let c = t[i];
        if c == ']' && !first {
            return Ok(i + 1);
        }
        first = false;
        if c == '[' && t.get(i + 1) == Some(&':') {
            if let Some(end) = t[i + 2..].windows(2).position(|w| w == [':', ']']) {
                i += end + 4;
                continue;
            }
        }
        let (lo, len) = if c == '\\' {
            let len = escape(&t[i..])?;
            // A Perl or Unicode class (`\d`, `\pL`) is no range's end: Go reads a `-` after it as itself.
            if matches!(t.get(i + 1), Some('d' | 'D' | 's' | 'S' | 'w' | 'W' | 'p' | 'P')) {
                i += len;
                continue;
            }
            (t.get(i + 1).copied().filter(|_| len == 2), len)
        } else {
            (Some(c), 1)
        };
        i += len;
        if t.get(i) == Some(&'-') && t.get(i + 1).is_some_and(|&n| n != ']') {
            let hi_start = i + 1;
            let (hi, hi_len) = if t[hi_start] == '\\' {
                let len = escape(&t[hi_start..])?;
                (t.get(hi_start + 1).copied().filter(|_| len == 2), len)
            } else {
                (Some(t[hi_start]), 1)
            };
            if let (Some(lo), Some(hi)) = (lo, hi) {
                if hi < lo {
                    let text: String = t[i - len..hi_start + hi_len].iter().collect();
                    return Err((INVALID_CHAR_RANGE, text));
                }
            }
            i = hi_start + hi_len;
        }
    }
    Err((MISSING_BRACKET, whole))
}

/// An escape at the start of `t` (which begins with `\`): its length, or Go's error.
fn escape(t: &[char]) -> Result<usize, (&'static str, String)> {
    let Some(&c) = t.get(1) else { return Err((TRAILING_BACKSLASH, String::new())) };
    match c {
        '1'..='7' if !t.get(2).is_some_and(|d| ('0'..='7').contains(d)) => Err((INVALID_ESCAPE, format!("\\{c}"))),
        '0'..='7' => Ok(1 + 1 + t[2..].iter().take(2).take_while(|d| ('0'..='7').contains(d)).count()),
        '8' | '9' => Err((INVALID_ESCAPE, format!("\\{c}"))),
        'x' => {
            if t.get(2) == Some(&'{') {
                match t[3..].iter().position(|&c| c == '}') {
                    Some(end) => Ok(3 + end + 1),
                    None => Err((INVALID_ESCAPE, t.iter().collect())),
                }
            } else {
                let hex = t[2..].iter().take(2).take_while(|d| d.is_ascii_hexdigit()).count();
                if hex == 2 {
                    Ok(4)
                } else {
                    Err((INVALID_ESCAPE, t[..(2 + hex + 1).min(t.len())].iter().collect()))
                }
            }
        }
        'p' | 'P' => {
            if t.get(2) == Some(&'{') {
                match t[3..].iter().position(|&c| c == '}') {
                    Some(end) => Ok(3 + end + 1),
                    None => Err(("invalid character class range", t.iter().collect())),
                }
            } else {
                Ok(3)
            }
        }
        'Q' => {
            let rest: String = t[2..].iter().collect();
            Ok(2 + rest.find("\\E").map_or(rest.chars().count(), |e| rest[..e].chars().count() + 2))
        }
        'a' | 'f' | 'n' | 'r' | 't' | 'v' | 'd' | 'D' | 's' | 'S' | 'w' | 'W' | 'b' | 'B' | 'A' | 'z' => Ok(2),
        c if c.is_ascii_alphanumeric() => Err((INVALID_ESCAPE, format!("\\{c}"))),
        c if (c as u32) < 0x80 => Ok(2),
        _ => Err((INVALID_ESCAPE, format!("\\{c}"))),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn errors_read_like_go() {
        assert_eq!(go_error("^a+$"), None);
        assert_eq!(go_error("*a").as_deref(), Some("error parsing regexp: missing argument to repetition operator: `*`"));
        assert_eq!(go_error("a**").as_deref(), Some("error parsing regexp: invalid nested repetition operator: `**`"));
        assert_eq!(go_error("(?=a)").as_deref(), Some("error parsing regexp: invalid or unsupported Perl syntax: `(?=`"));
        assert_eq!(go_error("(a").as_deref(), Some("error parsing regexp: missing closing ): `(a`"));
        assert_eq!(go_error("a)").as_deref(), Some("error parsing regexp: unexpected ): `a)`"));
        assert_eq!(go_error("[a-").as_deref(), Some("error parsing regexp: missing closing ]: `[a-`"));
        assert_eq!(go_error("[z-a]").as_deref(), Some("error parsing regexp: invalid character class range: `z-a`"));
        // After a Perl or Unicode class, or a POSIX one, Go reads `-` as itself.
        for valid in [r"^[a-zA-Z\d-_]+$", r"[\w-.]", r"[\d-]", r"[\s-\d]", r"[\pL-x]", r"[\p{Greek}-x]", "[[:alpha:]-x]", r"[\d-a-z]"] {
            assert_eq!(go_error(valid), None, "{valid}");
        }
        assert_eq!(go_error(r"(a)\1").as_deref(), Some("error parsing regexp: invalid escape sequence: `\\1`"));
        assert_eq!(go_error("a{1001}").as_deref(), Some("error parsing regexp: invalid repeat count: `{1001}`"));
        assert_eq!(go_error(r"^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$"), None);
        assert_eq!(go_error(r"^(?P<x>a)(?i:b)\d{2,3}\pL[[:alpha:]]\x41\Q*\E$"), None);
        assert_eq!(go_error("^[a-z0-9]+(?:[.+_-][a-z0-9]+)*$"), None);
        assert_eq!(go_error(r#"^[^][ ()\\<>@,;:"/?.=\x00-\x1F\x7F]+$"#), None);
        assert_eq!(go_error("(?)").as_deref(), Some("error parsing regexp: invalid or unsupported Perl syntax: `(?)`"));
    }
}
