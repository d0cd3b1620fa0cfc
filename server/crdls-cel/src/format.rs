//! The strings extension's `"...".format([...])`, on Go's float printing (`crdls_go::print`).

use crdls_go::print::{go_e, go_f, go_g};

use crate::value::Value;

/// The strings extension's `format`: `%s`, `%d`, `%f`, `%e`, `%b`, `%o`, `%x`, `%X` and `%%`, with an
/// optional precision for `%f` and `%e`.
pub fn format(template: &str, args: &[Value]) -> Result<String, String> {
    let mut out = String::new();
    let mut chars = template.chars().peekable();
    let mut next = 0usize;
    while let Some(c) = chars.next() {
        if c != '%' {
            out.push(c);
            continue;
        }
        if chars.peek() == Some(&'%') {
            chars.next();
            out.push('%');
            continue;
        }
        let mut precision: Option<usize> = None;
        if chars.peek() == Some(&'.') {
            chars.next();
            let mut digits = String::new();
            while let Some(d) = chars.peek().copied().filter(char::is_ascii_digit) {
                digits.push(d);
                chars.next();
            }
            precision = Some(
                digits.parse().map_err(|_| "could not parse formatting clause: unable to find end of precision specifier".to_string())?,
            );
        }
        let Some(verb) = chars.next() else {
            return Err("could not parse formatting clause: unexpected end of string".into());
        };
        let Some(arg) = args.get(next) else {
            return Err(format!("index {next} out of range"));
        };
        next += 1;
        let text = match verb {
            's' => format_s(arg)?,
            'd' => match arg {
                Value::Int(i) => i.to_string(),
                Value::Uint(u) => u.to_string(),
                Value::Double(d) if d.is_nan() || d.is_infinite() => go_g(*d).replace("+Inf", "Infinity").replace("-Inf", "-Infinity"),
                other => {
                    return Err(format!(
                        "error during formatting: decimal clause can only be used on integers, was given {}",
                        other.type_name()
                    ))
                }
            },
            'f' | 'e' => {
                let p = precision.unwrap_or(6);
                let f = match arg {
                    Value::Double(d) => *d,
                    Value::Int(i) => *i as f64,
                    Value::Uint(u) => *u as f64,
                    other => {
                        let kind = if verb == 'f' { "fixed-point" } else { "scientific" };
                        return Err(format!(
                            "error during formatting: {kind} clause can only be used on doubles, was given {}",
                            other.type_name()
                        ));
                    }
                };
                let s = if verb == 'f' { go_f(f, p) } else { go_e(f, p) };
                s.replace("+Inf", "Infinity").replace("-Inf", "-Infinity")
            }
            'b' => match arg {
                Value::Int(i) => format!("{}{:b}", if *i < 0 { "-" } else { "" }, i.unsigned_abs()),
                Value::Uint(u) => format!("{u:b}"),
                Value::Bool(b) => if *b { "1" } else { "0" }.to_string(),
                other => {
                    return Err(format!(
                        "error during formatting: only integers and bools can be formatted as binary, was given {}",
                        other.type_name()
                    ))
                }
            },
            'o' => match arg {
                Value::Int(i) => format!("{}{:o}", if *i < 0 { "-" } else { "" }, i.unsigned_abs()),
                Value::Uint(u) => format!("{u:o}"),
                other => {
                    return Err(format!(
                        "error during formatting: octal clause can only be used on integers, was given {}",
                        other.type_name()
                    ))
                }
            },
            'x' | 'X' => {
                let s = match arg {
                    Value::Int(i) => format!("{}{:x}", if *i < 0 { "-" } else { "" }, i.unsigned_abs()),
                    Value::Uint(u) => format!("{u:x}"),
                    Value::String(s) => s.bytes().map(|b| format!("{b:02x}")).collect(),
                    Value::Bytes(b) => b.iter().map(|b| format!("{b:02x}")).collect(),
                    other => {
                        return Err(format!(
                            "error during formatting: only integers, byte buffers, and strings can be formatted as hex, was given {}",
                            other.type_name()
                        ))
                    }
                };
                if verb == 'X' {
                    s.to_uppercase()
                } else {
                    s
                }
            }
            other => return Err(format!("could not parse formatting clause: unrecognized formatting clause \"{other}\"")),
        };
        out.push_str(&text);
    }
    Ok(out)
}

/// `%s` of a value: strings as they are, other values as `string()` would give them, lists and maps
/// with their elements formatted the same way.
fn format_s(v: &Value) -> Result<String, String> {
    Ok(match v {
        Value::String(s) => s.to_string(),
        Value::Bytes(b) => String::from_utf8_lossy(b).into_owned(),
        Value::Int(i) => i.to_string(),
        Value::Uint(u) => u.to_string(),
        Value::Double(d) => go_g(*d).replace("+Inf", "Infinity").replace("-Inf", "-Infinity"),
        Value::Bool(b) => b.to_string(),
        Value::Null => "null".into(),
        Value::Duration(d) => crate::time::duration_string(*d),
        Value::Timestamp(t) => crate::time::timestamp_string(*t),
        Value::Type(t) => t.to_string(),
        Value::List(l) => {
            let items: Result<Vec<String>, String> = l.items.iter().map(format_quoted).collect();
            format!("[{}]", items?.join(", "))
        }
        Value::Map(m) => {
            let mut entries: Vec<(String, String)> = Vec::new();
            for (k, v) in &m.entries {
                entries.push((format_quoted(k)?, format_quoted(v)?));
            }
            entries.sort();
            format!("{{{}}}", entries.iter().map(|(k, v)| format!("{k}: {v}")).collect::<Vec<_>>().join(", "))
        }
        Value::Ip(ip) => ip.to_string(),
        Value::Cidr(ip, n) => format!("{ip}/{n}"),
        other => return Err(format!("error during formatting: string clause can only be used on strings, bools, bytes, ints, doubles, maps, lists, types, durations, and timestamps, was given {}", other.type_name())),
    })
}

/// Elements inside a formatted list or map, formatted as `%s` formats them.
fn format_quoted(v: &Value) -> Result<String, String> {
    format_s(v)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn floats_print_as_go() {
        let cases =
            [(1.5, "1.5"), (1e6, "1e+06"), (123456.0, "123456"), (1e-5, "1e-05"), (0.0001, "0.0001"), (-2.0, "-2"), (1e21, "1e+21")];
        for (f, want) in cases {
            assert_eq!(go_g(f), want, "{f}");
        }
        assert_eq!(go_e(1234.5678, 2), "1.23e+03");
        assert_eq!(format("%s is %d, %.2f%%", &[Value::string("x"), Value::Int(3), Value::Double(1.005)]).unwrap(), "x is 3, 1.00%");
    }
}
