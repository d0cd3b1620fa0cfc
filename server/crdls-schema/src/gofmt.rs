//! Printing values the way the Kubernetes API server's Go code prints them in error messages:
//! `%q` for strings, `%v` for numbers, and JSON for objects and arrays.

use crdls_yaml::{Node, Value};

/// Go's `strconv.Quote`: double quotes, with Go's escapes for control and non-printable characters.
pub fn quote(s: &str) -> String {
    let mut out = String::with_capacity(s.len() + 2);
    out.push('"');
    for c in s.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\u{7}' => out.push_str("\\a"),
            '\u{8}' => out.push_str("\\b"),
            '\u{c}' => out.push_str("\\f"),
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            '\t' => out.push_str("\\t"),
            '\u{b}' => out.push_str("\\v"),
            c if (c as u32) < 0x20 || c as u32 == 0x7f => out.push_str(&format!("\\x{:02x}", c as u32)),
            c if c.is_control() || c == '\u{feff}' => {
                if (c as u32) <= 0xffff {
                    out.push_str(&format!("\\u{:04x}", c as u32));
                } else {
                    out.push_str(&format!("\\U{:08x}", c as u32));
                }
            }
            c => out.push(c),
        }
    }
    out.push('"');
    out
}

/// Go's `%v` for a `float64`: the shortest digits, in exponent form when the decimal exponent is
/// below -4 or at least 6 (so a maximum of 2147483647 prints as `2.147483647e+09`, as the API server says).
pub fn float(f: f64) -> String {
    if f.is_nan() {
        return "NaN".into();
    }
    if f.is_infinite() {
        return if f > 0.0 { "+Inf".into() } else { "-Inf".into() };
    }
    if f == 0.0 {
        return if f.is_sign_negative() { "-0".into() } else { "0".into() };
    }
    // Rust's `{:e}` gives the shortest round-tripping digits, like Go's shortest formatting.
    let sci = format!("{f:e}");
    let (mantissa, exp) = sci.split_once('e').expect("exponent form");
    let exp: i32 = exp.parse().expect("exponent");
    if (-4..6).contains(&exp) {
        let s = format!("{f}");
        return s;
    }
    let sign = if exp < 0 { '-' } else { '+' };
    format!("{mantissa}e{sign}{:02}", exp.abs())
}

/// How `field.Error` prints a bad value: `%q` for strings, `%v` for numbers and booleans, `null`,
/// and JSON for objects and arrays.
pub fn value(node: &Node) -> String {
    match &node.value {
        Value::Str(s) => quote(s),
        Value::Null => "null".into(),
        Value::Bool(b) => b.to_string(),
        Value::Int(i) => i.to_string(),
        Value::Float(f) => float(*f),
        Value::Seq(_) | Value::Map(_) => json(node),
    }
}

/// Go's `json.Marshal` of an unstructured value: compact, object keys sorted, HTML characters escaped.
pub fn json(node: &Node) -> String {
    let mut out = String::new();
    write_json(node, &mut out);
    out
}

fn write_json(node: &Node, out: &mut String) {
    match &node.value {
        Value::Null => out.push_str("null"),
        Value::Bool(b) => out.push_str(if *b { "true" } else { "false" }),
        Value::Int(i) => out.push_str(&i.to_string()),
        Value::Float(f) => out.push_str(&json_float(*f)),
        Value::Str(s) => json_string(s, out),
        Value::Seq(items) => {
            out.push('[');
            for (i, item) in items.iter().enumerate() {
                if i > 0 {
                    out.push(',');
                }
                write_json(item, out);
            }
            out.push(']');
        }
        Value::Map(entries) => {
            // The last of duplicate keys wins, as in a Go map; keys print sorted.
            let mut sorted: Vec<(&str, &Node)> = Vec::with_capacity(entries.len());
            for e in entries {
                match sorted.iter_mut().find(|(k, _)| *k == e.key) {
                    Some(slot) => slot.1 = &e.value,
                    None => sorted.push((&e.key, &e.value)),
                }
            }
            sorted.sort_by(|a, b| a.0.cmp(b.0));
            out.push('{');
            for (i, (k, v)) in sorted.into_iter().enumerate() {
                if i > 0 {
                    out.push(',');
                }
                json_string(k, out);
                out.push(':');
                write_json(v, out);
            }
            out.push('}');
        }
    }
}

/// Go's JSON float formatting: plain digits for exponents in [-6, 21), else exponent form.
fn json_float(f: f64) -> String {
    if !f.is_finite() {
        return "null".into();
    }
    let abs = f.abs();
    if abs != 0.0 && !(1e-6..1e21).contains(&abs) {
        let sci = format!("{f:e}");
        let (m, e) = sci.split_once('e').expect("exponent form");
        let e: i32 = e.parse().expect("exponent");
        return format!("{m}e{}{:02}", if e < 0 { '-' } else { '+' }, e.abs());
    }
    format!("{f}")
}

/// Writes `s` as a JSON string the way Go's encoder does (HTML characters escaped).
pub fn json_string_into(s: &str, out: &mut String) {
    json_string(s, out)
}

fn json_string(s: &str, out: &mut String) {
    out.push('"');
    for c in s.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            '\t' => out.push_str("\\t"),
            '<' => out.push_str("\\u003c"),
            '>' => out.push_str("\\u003e"),
            '&' => out.push_str("\\u0026"),
            '\u{2028}' => out.push_str("\\u2028"),
            '\u{2029}' => out.push_str("\\u2029"),
            c if (c as u32) < 0x20 => out.push_str(&format!("\\u{:04x}", c as u32)),
            c => out.push(c),
        }
    }
    out.push('"');
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn prints_like_go() {
        assert_eq!(quote("a\"b\n\u{e9}"), "\"a\\\"b\\n\u{e9}\"");
        assert_eq!(float(10.0), "10");
        assert_eq!(float(1.5), "1.5");
        assert_eq!(float(0.0001), "0.0001");
        assert_eq!(float(0.00001), "1e-05");
        assert_eq!(float(1e21), "1e+21");
        assert_eq!(float(100000.0), "100000");
        assert_eq!(float(1e6), "1e+06");
        assert_eq!(float(2147483647.0), "2.147483647e+09");
        assert_eq!(float(123456789.0), "1.23456789e+08");
        let doc = crdls_yaml::parse("{protocol: TCP, containerPort: 88, x: [1, 2.5, null, '<']}");
        assert_eq!(json(doc.documents[0].root.as_ref().unwrap()), r#"{"containerPort":88,"protocol":"TCP","x":[1,2.5,null,"\u003c"]}"#);
    }
}
