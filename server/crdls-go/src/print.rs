//! Go's printing of values as the API server's error messages and cel-go show them: `strconv.Quote`
//! (`%q`), the shortest float formatting behind `%v` and `%g`, `%f`, `%e`, and `encoding/json`'s
//! numbers and strings.

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

/// Go's `%v` for a `float64`, which is `%g` with the shortest precision: the shortest digits, in
/// exponent form when the decimal exponent is below -4 or at least 6 (so the API server prints a
/// maximum of 2147483647 as `2.147483647e+09`).
pub fn float(f: f64) -> String {
    go_g(f)
}

/// The shortest decimal digits of `f` (no sign) and the exponent of the first digit.
fn shortest(f: f64) -> (String, i32) {
    let text = format!("{:e}", f.abs());
    let (mantissa, exp) = text.split_once('e').unwrap_or((&text, "0"));
    let digits: String = mantissa.chars().filter(char::is_ascii_digit).collect();
    (digits, exp.parse().unwrap_or(0))
}

/// Go's `%g` with the shortest precision (`strconv.FormatFloat(f, 'g', -1, 64)`): `1.5`, `1e+06`, `1e-05`.
pub fn go_g(f: f64) -> String {
    if let Some(s) = special(f) {
        return s;
    }
    let sign = if f.is_sign_negative() { "-" } else { "" };
    if f == 0.0 {
        return format!("{sign}0");
    }
    let (digits, exp) = shortest(f);
    if !(-4..6).contains(&exp) {
        let mut out = format!("{sign}{}", &digits[..1]);
        if digits.len() > 1 {
            out.push('.');
            out.push_str(&digits[1..]);
        }
        out.push_str(&exponent(exp));
        return out;
    }
    format!("{sign}{}", fixed_digits(&digits, exp))
}

/// Digits with the decimal point placed for exponent `exp`, no trailing zeros after the point.
fn fixed_digits(digits: &str, exp: i32) -> String {
    if exp < 0 {
        format!("0.{}{digits}", "0".repeat((-exp - 1) as usize))
    } else {
        let point = exp as usize + 1;
        if digits.len() <= point {
            format!("{digits}{}", "0".repeat(point - digits.len()))
        } else {
            format!("{}.{}", &digits[..point], &digits[point..])
        }
    }
}

fn exponent(exp: i32) -> String {
    format!("e{}{:02}", if exp < 0 { '-' } else { '+' }, exp.abs())
}

fn special(f: f64) -> Option<String> {
    if f.is_nan() {
        Some("NaN".into())
    } else if f.is_infinite() {
        Some(if f > 0.0 { "+Inf" } else { "-Inf" }.into())
    } else {
        None
    }
}

/// Go's `%.{precision}f`.
pub fn go_f(f: f64, precision: usize) -> String {
    if let Some(s) = special(f) {
        return s;
    }
    format!("{f:.precision$}")
}

/// Go's `%.{precision}e`: `1.500000e+00`.
pub fn go_e(f: f64, precision: usize) -> String {
    if let Some(s) = special(f) {
        return s;
    }
    let text = format!("{f:.precision$e}");
    let (mantissa, exp) = text.split_once('e').unwrap_or((&text, "0"));
    format!("{mantissa}{}", exponent(exp.parse().unwrap_or(0)))
}

/// Go's JSON float formatting: plain digits for exponents in [-6, 21), else exponent form.
pub fn json_float(f: f64) -> String {
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
        assert_eq!(float(-0.0), "-0");
        assert_eq!((float(f64::NAN), float(f64::INFINITY), float(f64::NEG_INFINITY)), ("NaN".into(), "+Inf".into(), "-Inf".into()));
        assert_eq!(go_f(1.5, 3), "1.500");
        assert_eq!(go_e(1.5, 6), "1.500000e+00");
        assert_eq!(
            (json_float(1e21), json_float(1e20), json_float(1e-7), json_float(2.5)),
            ("1e+21".into(), "100000000000000000000".into(), "1e-07".into(), "2.5".into())
        );
        let mut s = String::new();
        json_string_into("<a>&\u{2028}", &mut s);
        assert_eq!(s, "\"\\u003ca\\u003e\\u0026\\u2028\"");
    }
}
