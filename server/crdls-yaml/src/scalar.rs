//! Resolving plain scalars the way the Kubernetes API server's YAML decoder does (YAML 1.1 rules:
//! `yes`/`no`/`on`/`off` are booleans, `0755` is octal), then converting to JSON (whole floats become integers).

use crate::Value;

/// Resolves a plain (unquoted) scalar.
pub fn resolve_plain(s: &str) -> Value {
    match s {
        "" | "~" | "null" | "Null" | "NULL" => return Value::Null,
        "y" | "Y" | "yes" | "Yes" | "YES" | "true" | "True" | "TRUE" | "on" | "On" | "ON" => return Value::Bool(true),
        "n" | "N" | "no" | "No" | "NO" | "false" | "False" | "FALSE" | "off" | "Off" | "OFF" => return Value::Bool(false),
        ".inf" | ".Inf" | ".INF" | "+.inf" | "+.Inf" | "+.INF" => return Value::Float(f64::INFINITY),
        "-.inf" | "-.Inf" | "-.INF" => return Value::Float(f64::NEG_INFINITY),
        ".nan" | ".NaN" | ".NAN" => return Value::Float(f64::NAN),
        _ => {}
    }
    let first = s.as_bytes()[0];
    if !(first.is_ascii_digit() || matches!(first, b'-' | b'+' | b'.')) {
        return Value::Str(s.to_string());
    }
    let plain = s.replace('_', "");
    if let Some(i) = parse_go_int(&plain) {
        return Value::Int(i);
    }
    if is_yaml_float(&plain) {
        if let Ok(f) = plain.parse::<f64>() {
            return number(f);
        }
    }
    Value::Str(s.to_string())
}

/// Resolves a scalar with an explicit tag (`!!str 10`). A tag go-yaml v2 does not resolve (a local tag
/// such as `!foo` or `!self.contains('*')`, the non-specific `!`, or any other) leaves the scalar's text
/// as a string, as sigs.k8s.io/yaml reads it: `!foo 10` is `"10"` and a bare `!foo` is `""`, not null.
pub fn resolve_tagged(tag: &str, s: &str) -> Value {
    let core = tag.strip_prefix("tag:yaml.org,2002:").or_else(|| tag.strip_prefix("!!"));
    match core {
        Some("str" | "binary" | "timestamp") => Value::Str(s.to_string()),
        Some("null") => Value::Null,
        Some("bool" | "int" | "float") => match resolve_plain(s) {
            Value::Str(_) => Value::Str(s.to_string()),
            v => v,
        },
        _ => Value::Str(s.to_string()),
    }
}

/// `s` as a YAML double-quoted scalar that reads back as `s`: quotes and backslashes escaped, line
/// feeds and tabs as `\n` and `\t`, other control characters as `\uXXXX`.
pub fn double_quoted(s: &str) -> String {
    let mut out = String::with_capacity(s.len() + 2);
    out.push('"');
    for c in s.chars() {
        match c {
            '"' | '\\' => {
                out.push('\\');
                out.push(c);
            }
            '\n' => out.push_str("\\n"),
            '\t' => out.push_str("\\t"),
            c if c.is_control() => out.push_str(&format!("\\u{:04x}", c as u32)),
            c => out.push(c),
        }
    }
    out.push('"');
    out
}

/// The JSON key a plain scalar key becomes.
pub fn key_text(s: &str) -> String {
    match resolve_plain(s) {
        Value::Bool(b) => b.to_string(),
        Value::Int(i) => i.to_string(),
        Value::Null if !s.is_empty() => "null".to_string(),
        _ => s.to_string(),
    }
}

/// A float as JSON carries it: whole values within range become integers.
fn number(f: f64) -> Value {
    if f.is_finite() && f.fract() == 0.0 && f.abs() < 9.2e18 {
        Value::Int(f as i64)
    } else {
        Value::Float(f)
    }
}

/// Go's `strconv.ParseInt(s, 0, 64)`: an optional sign, then decimal, `0x` hex, `0o`/leading-zero octal or `0b` binary.
fn parse_go_int(s: &str) -> Option<i64> {
    let (neg, digits) = match s.as_bytes().first()? {
        b'-' => (true, &s[1..]),
        b'+' => (false, &s[1..]),
        _ => (false, s),
    };
    if digits.is_empty() {
        return None;
    }
    let (radix, body) = if let Some(h) = digits.strip_prefix("0x").or_else(|| digits.strip_prefix("0X")) {
        (16, h)
    } else if let Some(b) = digits.strip_prefix("0b").or_else(|| digits.strip_prefix("0B")) {
        (2, b)
    } else if let Some(o) = digits.strip_prefix("0o").or_else(|| digits.strip_prefix("0O")) {
        (8, o)
    } else if digits.len() > 1 && digits.starts_with('0') {
        (8, &digits[1..])
    } else {
        (10, digits)
    };
    if body.is_empty() || !body.chars().all(|c| c.is_digit(radix)) {
        return None;
    }
    let magnitude = u64::from_str_radix(body, radix).ok()?;
    if neg {
        if magnitude <= i64::MAX as u64 + 1 {
            Some((magnitude as i128).wrapping_neg() as i64)
        } else {
            None
        }
    } else {
        i64::try_from(magnitude).ok()
    }
}

/// The YAML 1.1 float pattern `[-+]?(\.[0-9]+|[0-9]+(\.[0-9]*)?)([eE][-+]?[0-9]+)?`.
fn is_yaml_float(s: &str) -> bool {
    let b = s.as_bytes();
    let mut i = 0;
    if matches!(b.first(), Some(b'-' | b'+')) {
        i += 1;
    }
    let int_start = i;
    while i < b.len() && b[i].is_ascii_digit() {
        i += 1;
    }
    let int_digits = i - int_start;
    if i < b.len() && b[i] == b'.' {
        i += 1;
        let frac_start = i;
        while i < b.len() && b[i].is_ascii_digit() {
            i += 1;
        }
        if int_digits == 0 && i == frac_start {
            return false;
        }
    } else if int_digits == 0 {
        return false;
    }
    if i < b.len() && matches!(b[i], b'e' | b'E') {
        i += 1;
        if matches!(b.get(i), Some(b'-' | b'+')) {
            i += 1;
        }
        let exp_start = i;
        while i < b.len() && b[i].is_ascii_digit() {
            i += 1;
        }
        if i == exp_start {
            return false;
        }
    }
    i == b.len()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn resolves_like_the_api_server() {
        assert_eq!(resolve_plain("yes"), Value::Bool(true));
        assert_eq!(resolve_plain("Off"), Value::Bool(false));
        assert_eq!(resolve_plain("~"), Value::Null);
        assert_eq!(resolve_plain("0755"), Value::Int(493));
        assert_eq!(resolve_plain("0x1F"), Value::Int(31));
        assert_eq!(resolve_plain("1_000"), Value::Int(1000));
        assert_eq!(resolve_plain("-12"), Value::Int(-12));
        assert_eq!(resolve_plain("1.0"), Value::Int(1));
        assert_eq!(resolve_plain("1e3"), Value::Int(1000));
        assert_eq!(resolve_plain("1.5"), Value::Float(1.5));
        assert_eq!(resolve_plain("08"), Value::Int(8));
        assert_eq!(resolve_plain("1.2.3"), Value::Str("1.2.3".into()));
        assert_eq!(resolve_plain("2024-01-01"), Value::Str("2024-01-01".into()));
        assert_eq!(resolve_plain("500m"), Value::Str("500m".into()));
        assert_eq!(resolve_plain("-"), Value::Str("-".into()));
        assert_eq!(resolve_plain("."), Value::Str(".".into()));
        assert_eq!(resolve_tagged("!!str", "10"), Value::Str("10".into()));
        // A tag go-yaml does not resolve keeps the text as a string (checked against sigs.k8s.io/yaml).
        assert_eq!(resolve_tagged("!foo", ""), Value::Str(String::new()));
        assert_eq!(resolve_tagged("!foo", "10"), Value::Str("10".into()));
        assert_eq!(resolve_tagged("!", "true"), Value::Str("true".into()));
        assert_eq!(resolve_tagged("!self.contains('*')", ""), Value::Str(String::new()));
        assert_eq!(resolve_tagged("!!null", ""), Value::Null);
        assert_eq!(resolve_tagged("!!int", "10"), Value::Int(10));
        assert_eq!(key_text("yes"), "true");
        assert_eq!(key_text("y"), "true");
        assert_eq!(resolve_plain("N"), Value::Bool(false));
        assert_eq!(key_text("80"), "80");
    }
}
