//! The functions at run time, matched on the argument values (the checker has already resolved the
//! overloads it could; values typed `dyn` arrive here unchecked, and a call that no overload accepts is
//! cel-go's `no such overload`).

use std::cmp::Ordering;
use std::sync::Arc;

use crate::eval::{EvalError, Outcome};
use crate::format::format;
use crate::k8s;
use crate::time;
use crate::value::{concat_lists, List, Value};
use crdls_go::pattern::with_regex;
use crdls_go::print::go_g;

/// Calls `name` with `args` (the receiver first for receiver-style calls), adding traversal costs.
pub fn call(name: &str, args: &[Value], cost: &mut u64) -> Outcome {
    use Value::*;
    let traverse = |cost: &mut u64, n: usize| *cost = cost.saturating_add((n as u64).div_ceil(10));
    Ok(match (name, args) {
        // Operators.
        ("!_", [Bool(b)]) => Bool(!b),
        ("-_", [Int(i)]) => Int(i.checked_neg().ok_or_else(overflow)?),
        ("-_", [Double(d)]) => Double(-d),
        ("_==_", [a, b]) => Bool(a.equals(b)),
        ("_!=_", [a, b]) => Bool(!a.equals(b)),
        ("_<_" | "_<=_" | "_>_" | "_>=_", [a, b]) => {
            let ord = match a.compare(b) {
                Some(o) => o,
                None if is_number(a) && is_number(b) => return Ok(Bool(false)),
                None => return Err(EvalError::no_overload()),
            };
            Bool(match name {
                "_<_" => ord == Ordering::Less,
                "_<=_" => ord != Ordering::Greater,
                "_>_" => ord == Ordering::Greater,
                _ => ord != Ordering::Less,
            })
        }
        ("_+_", [Int(a), Int(b)]) => Int(a.checked_add(*b).ok_or_else(overflow)?),
        ("_+_", [Uint(a), Uint(b)]) => Uint(a.checked_add(*b).ok_or_else(uoverflow)?),
        ("_+_", [Double(a), Double(b)]) => Double(a + b),
        ("_+_", [String(a), String(b)]) => {
            traverse(cost, a.len() + b.len());
            String(Arc::from(format!("{a}{b}")))
        }
        ("_+_", [Bytes(a), Bytes(b)]) => Bytes(Arc::from([a.as_ref(), b.as_ref()].concat())),
        ("_+_", [List(a), List(b)]) => {
            traverse(cost, a.items.len() + b.items.len());
            List(Arc::new(concat_lists(a, b)))
        }
        ("_+_", [Timestamp(t), Duration(d)]) | ("_+_", [Duration(d), Timestamp(t)]) => Timestamp(time::add_duration(*t, *d)?),
        ("_+_", [Duration(a), Duration(b)]) => Duration(a.checked_add(*b).ok_or_else(overflow)?),
        ("_-_", [Int(a), Int(b)]) => Int(a.checked_sub(*b).ok_or_else(overflow)?),
        ("_-_", [Uint(a), Uint(b)]) => Uint(a.checked_sub(*b).ok_or_else(uoverflow)?),
        ("_-_", [Double(a), Double(b)]) => Double(a - b),
        ("_-_", [Timestamp(a), Timestamp(b)]) => Duration(time::difference(*a, *b)?),
        ("_-_", [Timestamp(t), Duration(d)]) => Timestamp(time::add_duration(*t, d.checked_neg().ok_or_else(overflow)?)?),
        ("_-_", [Duration(a), Duration(b)]) => Duration(a.checked_sub(*b).ok_or_else(overflow)?),
        ("_*_", [Int(a), Int(b)]) => Int(a.checked_mul(*b).ok_or_else(overflow)?),
        ("_*_", [Uint(a), Uint(b)]) => Uint(a.checked_mul(*b).ok_or_else(uoverflow)?),
        ("_*_", [Double(a), Double(b)]) => Double(a * b),
        ("_/_", [Int(_), Int(0)]) | ("_/_", [Uint(_), Uint(0)]) => return Err(EvalError::runtime("division by zero")),
        ("_/_", [Int(a), Int(b)]) => Int(a.checked_div(*b).ok_or_else(overflow)?),
        ("_/_", [Uint(a), Uint(b)]) => Uint(a / b),
        ("_/_", [Double(a), Double(b)]) => Double(a / b),
        ("_%_", [Int(_), Int(0)]) | ("_%_", [Uint(_), Uint(0)]) => return Err(EvalError::runtime("modulus by zero")),
        ("_%_", [Int(a), Int(b)]) => Int(a.checked_rem(*b).ok_or_else(overflow)?),
        ("_%_", [Uint(a), Uint(b)]) => Uint(a % b),
        ("_[_]", [Optional(None), _]) => Optional(None),
        ("_[_]" | "_[?_]", [Optional(Some(inner)), key]) => return optional_index(inner, key),
        ("_[?_]", [container, key]) => return optional_index(container, key),
        ("_[_]", [List(l), index]) => {
            let i = list_index(index)?;
            match usize::try_from(i).ok().and_then(|i| l.items.get(i)) {
                Some(v) => v.clone(),
                // cel-go's interpreter checks the bounds of an index itself, whatever the list
                // (`refQualify`), and words it so.
                None => return Err(EvalError::runtime(format!("index out of bounds: {i}"))),
            }
        }
        ("_[_]", [Map(m), key]) => match m.get(key) {
            Some(v) => v.clone(),
            None => return Err(EvalError::runtime(format!("no such key: {}", key_text(key)))),
        },
        ("@in", [v, List(l)]) => {
            traverse(cost, l.items.len());
            Bool(l.items.iter().any(|x| x.equals(v)))
        }
        ("@in", [k, Map(m)]) => Bool(m.get(k).is_some()),
        ("cel.@mapInsert", [Map(m), k, v]) => {
            if m.get(k).is_some() {
                return Err(EvalError::runtime(format!("insert failed: key {} already exists", key_text(k))));
            }
            let mut entries = m.entries.clone();
            entries.push((k.clone(), v.clone()));
            Map(Arc::new(crate::value::Map { entries }))
        }
        ("cel.@mapInsert", [Map(m), Map(add)]) => {
            let mut entries = m.entries.clone();
            for (k, v) in &add.entries {
                if m.get(k).is_some() {
                    return Err(EvalError::runtime(format!("insert failed: key {} already exists", key_text(k))));
                }
                entries.push((k.clone(), v.clone()));
            }
            Map(Arc::new(crate::value::Map { entries }))
        }
        // Sizes and strings.
        ("size", [String(s)]) => Int(s.chars().count() as i64),
        ("size", [Bytes(b)]) => Int(b.len() as i64),
        ("size", [List(l)]) => Int(l.items.len() as i64),
        ("size", [Map(m)]) => Int(m.entries.len() as i64),
        ("contains", [String(s), String(sub)]) => {
            traverse(cost, s.len());
            Bool(s.contains(&**sub))
        }
        ("startsWith", [String(s), String(p)]) => Bool(s.starts_with(&**p)),
        ("endsWith", [String(s), String(p)]) => Bool(s.ends_with(&**p)),
        ("matches", [String(s), String(p)]) => {
            traverse(cost, s.len() + p.len());
            Bool(with_regex(p, |re| re.is_match(s))?)
        }
        // Conversions.
        ("int", [Int(i)]) => Int(*i),
        ("int", [Uint(u)]) => Int(i64::try_from(*u).map_err(|_| overflow())?),
        ("int", [Double(d)]) => Int(double_to_int(*d)?),
        ("int", [String(s)]) => Int(s.parse().map_err(|_| conversion_error("string", "int"))?),
        ("int", [Timestamp(t)]) => Int(t.seconds),
        // A duration's nanoseconds.
        ("int", [Duration(d)]) => Int(*d),
        ("uint", [Uint(u)]) => Uint(*u),
        ("uint", [Int(i)]) => Uint(u64::try_from(*i).map_err(|_| uoverflow())?),
        ("uint", [Double(d)]) => Uint(double_to_uint(*d)?),
        ("uint", [String(s)]) => Uint(s.parse().map_err(|_| conversion_error("string", "uint"))?),
        ("double", [Double(d)]) => Double(*d),
        ("double", [Int(i)]) => Double(*i as f64),
        ("double", [Uint(u)]) => Double(*u as f64),
        ("double", [String(s)]) => Double(parse_double(s)?),
        ("string", [String(s)]) => String(s.clone()),
        ("string", [Int(i)]) => Value::string(i.to_string()),
        ("string", [Uint(u)]) => Value::string(u.to_string()),
        ("string", [Double(d)]) => Value::string(go_g(*d)),
        ("string", [Bool(b)]) => Value::string(b.to_string()),
        ("string", [Bytes(b)]) => {
            Value::string(std::str::from_utf8(b).map_err(|_| EvalError::runtime("invalid UTF-8 in bytes, cannot convert to string"))?)
        }
        ("string", [Timestamp(t)]) => Value::string(time::timestamp_string(*t)),
        ("string", [Duration(d)]) => Value::string(time::duration_string(*d)),
        ("string", [Ip(ip)]) => Value::string(ip.to_string()),
        ("string", [Cidr(ip, n)]) => Value::string(format!("{ip}/{n}")),
        ("bytes", [Bytes(b)]) => Bytes(b.clone()),
        ("bytes", [String(s)]) => Bytes(Arc::from(s.as_bytes())),
        ("bool", [Bool(b)]) => Bool(*b),
        ("bool", [String(s)]) => Bool(match &**s {
            "1" | "t" | "T" | "TRUE" | "true" | "True" => true,
            "0" | "f" | "F" | "FALSE" | "false" | "False" => false,
            _ => return Err(conversion_error("string", "bool")),
        }),
        ("duration", [Duration(d)]) => Duration(*d),
        ("duration", [String(s)]) => Duration(crdls_go::duration::parse_duration(s)?),
        ("timestamp", [Timestamp(t)]) => Timestamp(*t),
        ("timestamp", [String(s)]) => Timestamp(time::parse_timestamp(s)?),
        ("timestamp", [Int(i)]) => Timestamp(time::check_range(crate::value::Timestamp { seconds: *i, nanos: 0 })?),
        ("dyn", [v]) => v.clone(),
        ("type", [v]) => Type(v.type_name()),
        // Time.
        (
            "getFullYear" | "getMonth" | "getDayOfYear" | "getDayOfMonth" | "getDate" | "getDayOfWeek" | "getHours" | "getMinutes"
            | "getSeconds" | "getMilliseconds",
            [Timestamp(t)],
        ) => Int(time::timestamp_field(*t, name, None)?),
        (
            "getFullYear" | "getMonth" | "getDayOfYear" | "getDayOfMonth" | "getDate" | "getDayOfWeek" | "getHours" | "getMinutes"
            | "getSeconds" | "getMilliseconds",
            [Timestamp(t), String(tz)],
        ) => Int(time::timestamp_field(*t, name, Some(tz))?),
        ("getHours" | "getMinutes" | "getSeconds" | "getMilliseconds", [Duration(d)]) => Int(time::duration_field(*d, name)?),
        // The strings extension.
        ("charAt", [String(s), Int(i)]) => {
            let count = s.chars().count() as i64;
            if *i < 0 || *i > count {
                return Err(EvalError::runtime(format!("index out of range: {i}")));
            }
            Value::string(s.chars().nth(*i as usize).map(|c| c.to_string()).unwrap_or_default())
        }
        ("indexOf", [String(s), String(sub)]) => Int(index_of(s, sub, 0)?),
        ("indexOf", [String(s), String(sub), Int(start)]) => Int(index_of(s, sub, *start)?),
        ("lastIndexOf", [String(s), String(sub)]) => Int(last_index_of(s, sub, None)?),
        ("lastIndexOf", [String(s), String(sub), Int(last)]) => Int(last_index_of(s, sub, Some(*last))?),
        ("lowerAscii", [String(s)]) => Value::string(s.to_ascii_lowercase()),
        ("upperAscii", [String(s)]) => Value::string(s.to_ascii_uppercase()),
        ("replace", [String(s), String(from), String(to)]) => {
            traverse(cost, s.len());
            Value::string(s.replace(&**from, to))
        }
        ("replace", [String(s), String(from), String(to), Int(n)]) => {
            traverse(cost, s.len());
            Value::string(if *n < 0 { s.replace(&**from, to) } else { s.replacen(&**from, to, *n as usize) })
        }
        ("split", [String(s), String(sep)]) => split(s, sep, -1),
        ("split", [String(s), String(sep), Int(n)]) => split(s, sep, *n),
        ("substring", [String(s), Int(start)]) => {
            let count = s.chars().count() as i64;
            substring(s, *start, count)?
        }
        ("substring", [String(s), Int(start), Int(end)]) => substring(s, *start, *end)?,
        ("trim", [String(s)]) => Value::string(s.trim()),
        ("join", [List(l)]) => Value::string(strings(l)?.join("")),
        ("join", [List(l), String(sep)]) => Value::string(strings(l)?.join(sep)),
        ("format", [String(s), List(l)]) => Value::string(format(s, &l.items)?),
        ("strings.quote", [String(s)]) => Value::string(quote(s)),
        // Kubernetes lists.
        ("isSorted", [List(l)]) => {
            for pair in l.items.windows(2) {
                match pair[0].compare(&pair[1]) {
                    Some(Ordering::Greater) => return Ok(Bool(false)),
                    Some(_) => {}
                    None => return Err(EvalError::no_overload()),
                }
            }
            Bool(true)
        }
        ("sum", [List(l)]) => sum(&l.items)?,
        ("min" | "max", [List(l)]) => {
            let mut best: Option<&Value> = None;
            for v in &l.items {
                best = Some(match best {
                    None => v,
                    Some(b) => match v.compare(b) {
                        Some(Ordering::Less) if name == "min" => v,
                        Some(Ordering::Greater) if name == "max" => v,
                        Some(_) => b,
                        None => return Err(EvalError::no_overload()),
                    },
                });
            }
            match best {
                Some(v) => v.clone(),
                None => return Err(EvalError::runtime(format!("{name} called on empty list"))),
            }
        }
        // cel-go's lists extension.
        (f, _) if crate::lists::is_lists_function(f) => return crate::lists::call(name, args),
        ("indexOf", [List(l), v]) => Int(l.items.iter().position(|x| x.equals(v)).map_or(-1, |i| i as i64)),
        ("lastIndexOf", [List(l), v]) => Int(l.items.iter().rposition(|x| x.equals(v)).map_or(-1, |i| i as i64)),
        ("includes", [List(l), v]) => Bool(l.items.iter().any(|x| x.equals(v))),
        ("includes", [target, v]) => Bool(target.equals(v)),
        // Sets.
        ("sets.contains", [List(a), List(b)]) => Bool(b.items.iter().all(|y| a.items.iter().any(|x| x.equals(y)))),
        ("sets.equivalent", [List(a), List(b)]) => {
            Bool(b.items.iter().all(|y| a.items.iter().any(|x| x.equals(y))) && a.items.iter().all(|x| b.items.iter().any(|y| x.equals(y))))
        }
        ("sets.intersects", [List(a), List(b)]) => Bool(a.items.iter().any(|x| b.items.iter().any(|y| x.equals(y)))),
        // Regex.
        ("find", [String(s), String(p)]) => {
            traverse(cost, s.len());
            Value::string(with_regex(p, |re| re.find(s).map(|m| m.as_str().to_string()).unwrap_or_default())?)
        }
        ("findAll", [String(s), String(p)]) => find_all(s, p, -1)?,
        ("findAll", [String(s), String(p), Int(n)]) => find_all(s, p, *n)?,
        // URLs.
        ("url", [String(s)]) => Url(Arc::new(k8s::parse_url(s)?)),
        ("isURL", [String(s)]) => Bool(k8s::parse_url(s).is_ok()),
        ("getScheme", [Url(u)]) => Value::string(u.scheme.as_str()),
        ("getHost", [Url(u)]) => Value::string(u.host.as_str()),
        ("getHostname", [Url(u)]) => Value::string(u.hostname()),
        ("getPort", [Url(u)]) => Value::string(u.port()),
        ("getEscapedPath", [Url(u)]) => Value::string(u.path.as_str()),
        ("getQuery", [Url(u)]) => Map(Arc::new(crate::value::Map {
            entries: u
                .query_map()
                .into_iter()
                .map(|(k, vs)| (Value::string(k), Value::list(vs.into_iter().map(Value::string).collect())))
                .collect(),
        })),
        // Quantity.
        ("quantity", [String(s)]) => Quantity(Arc::new(k8s::Quantity::parse(s)?)),
        ("isQuantity", [String(s)]) => Bool(k8s::Quantity::parse(s).is_ok()),
        ("sign", [Quantity(q)]) => Int(q.sign()),
        ("isInteger", [Quantity(q)]) => Bool(q.as_i64().is_some()),
        ("asInteger", [Quantity(q)]) => Int(q.as_i64().ok_or_else(|| EvalError::runtime("cannot convert value to integer"))?),
        ("asApproximateFloat", [Quantity(q)]) => Double(q.as_f64()),
        ("add", [Quantity(a), Quantity(b)]) => Quantity(Arc::new(a.add(b, false)?)),
        ("add", [Quantity(a), Int(b)]) => Quantity(Arc::new(a.add(&k8s::Quantity::from_int(*b), false)?)),
        ("sub", [Quantity(a), Quantity(b)]) => Quantity(Arc::new(a.add(b, true)?)),
        ("sub", [Quantity(a), Int(b)]) => Quantity(Arc::new(a.add(&k8s::Quantity::from_int(*b), true)?)),
        ("isLessThan", [Quantity(a), Quantity(b)]) => Bool(a.cmp_value(b) == Ordering::Less),
        ("isGreaterThan", [Quantity(a), Quantity(b)]) => Bool(a.cmp_value(b) == Ordering::Greater),
        ("compareTo", [Quantity(a), Quantity(b)]) => Int(a.cmp_value(b) as i64),
        // IP and CIDR.
        ("ip", [String(s)]) => Ip(k8s::parse_ip(s)?),
        ("ip", [Cidr(ip, _)]) => Ip(*ip),
        ("isIP", [String(s)]) => Bool(k8s::parse_ip(s).is_ok()),
        ("ip.isCanonical", [String(s)]) => Bool(k8s::parse_ip(s)?.to_string() == **s),
        ("family", [Ip(ip)]) => Int(if ip.is_ipv4() { 4 } else { 6 }),
        ("isUnspecified", [Ip(ip)]) => Bool(ip.is_unspecified()),
        ("isLoopback", [Ip(ip)]) => Bool(ip.is_loopback()),
        ("isLinkLocalMulticast", [Ip(ip)]) => Bool(k8s::is_link_local_multicast(*ip)),
        ("isLinkLocalUnicast", [Ip(ip)]) => Bool(k8s::is_link_local_unicast(*ip)),
        ("isGlobalUnicast", [Ip(ip)]) => Bool(k8s::is_global_unicast(*ip)),
        ("cidr", [String(s)]) => {
            let (ip, bits) = k8s::parse_cidr(s)?;
            Cidr(ip, bits)
        }
        ("isCIDR", [String(s)]) => Bool(k8s::parse_cidr(s).is_ok()),
        ("containsIP", [Cidr(net, bits), Ip(ip)]) => Bool(k8s::cidr_contains(*net, *bits, *ip)),
        ("containsIP", [Cidr(net, bits), String(s)]) => Bool(k8s::cidr_contains(*net, *bits, k8s::parse_ip(s)?)),
        ("containsCIDR", [Cidr(net, bits), Cidr(other, other_bits)]) => Bool(other_bits >= bits && k8s::cidr_contains(*net, *bits, *other)),
        ("containsCIDR", [Cidr(net, bits), String(s)]) => {
            let (other, other_bits) = k8s::parse_cidr(s)?;
            Bool(other_bits >= *bits && k8s::cidr_contains(*net, *bits, other))
        }
        ("masked", [Cidr(ip, bits)]) => Cidr(k8s::masked(*ip, *bits), *bits),
        ("prefixLength", [Cidr(_, bits)]) => Int(*bits as i64),
        // Named formats.
        ("format.named", [String(s)]) => Optional(k8s::FORMAT_NAMES.iter().find(|n| **n == &**s).map(|n| Arc::new(Format(n)))),
        (f, []) if f.starts_with("format.") => match k8s::FORMAT_NAMES.iter().find(|n| f[7..] == ***n) {
            Some(n) => Format(n),
            None => return Err(EvalError::no_overload()),
        },
        ("validate", [Format(n), String(s)]) => {
            let problems = k8s::validate_format(n, s);
            if problems.is_empty() {
                Optional(None)
            } else {
                Optional(Some(Arc::new(Value::list(problems.into_iter().map(Value::string).collect()))))
            }
        }
        // Semver.
        ("semver", [String(s)]) => Semver(Arc::new(k8s::Semver::parse(s, false)?)),
        ("semver", [String(s), Bool(normalize)]) => Semver(Arc::new(k8s::Semver::parse(s, *normalize)?)),
        ("isSemver", [String(s)]) => Bool(k8s::Semver::parse(s, false).is_ok()),
        ("isSemver", [String(s), Bool(normalize)]) => Bool(k8s::Semver::parse(s, *normalize).is_ok()),
        ("major", [Semver(v)]) => Int(v.parts().0 as i64),
        ("minor", [Semver(v)]) => Int(v.parts().1 as i64),
        ("patch", [Semver(v)]) => Int(v.parts().2 as i64),
        ("isLessThan", [Semver(a), Semver(b)]) => Bool(a.compare(b) == Ordering::Less),
        ("isGreaterThan", [Semver(a), Semver(b)]) => Bool(a.compare(b) == Ordering::Greater),
        ("compareTo", [Semver(a), Semver(b)]) => Int(a.compare(b) as i64),
        // Optional types.
        ("optional.of", [v]) => Optional(Some(Arc::new(v.clone()))),
        ("optional.ofNonZeroValue", [v]) => Optional((!v.is_zero()).then(|| Arc::new(v.clone()))),
        ("optional.none", []) => Optional(None),
        ("hasValue", [Optional(o)]) => Bool(o.is_some()),
        ("value", [Optional(Some(v))]) => (**v).clone(),
        ("value", [Optional(None)]) => return Err(EvalError::runtime("optional.none() dereference")),
        ("orValue", [Optional(o), v]) => o.as_ref().map_or_else(|| v.clone(), |inner| (**inner).clone()),
        ("or", [Optional(o), other @ Optional(_)]) => match o {
            Some(_) => args[0].clone(),
            None => other.clone(),
        },
        _ => return Err(EvalError::no_overload()),
    })
}

fn overflow() -> EvalError {
    EvalError::runtime("integer overflow")
}

fn uoverflow() -> EvalError {
    EvalError::runtime("unsigned integer overflow")
}

fn is_number(v: &Value) -> bool {
    matches!(v, Value::Int(_) | Value::Uint(_) | Value::Double(_))
}

fn double_to_int(d: f64) -> Result<i64, EvalError> {
    if d.is_nan() || d <= i64::MIN as f64 || d >= i64::MAX as f64 {
        return Err(overflow());
    }
    Ok(d.trunc() as i64)
}

fn double_to_uint(d: f64) -> Result<u64, EvalError> {
    if d.is_nan() || !(0.0..u64::MAX as f64).contains(&d) {
        return Err(uoverflow());
    }
    Ok(d.trunc() as u64)
}

fn parse_double(s: &str) -> Result<f64, EvalError> {
    let lower = s.to_ascii_lowercase();
    let cleaned = lower.trim_start_matches(['+', '-']);
    if matches!(cleaned, "inf" | "infinity" | "nan") {
        return s.to_ascii_lowercase().replace("infinity", "inf").parse().map_err(|_| EvalError::runtime("invalid double"));
    }
    s.parse().map_err(|_| conversion_error("string", "double"))
}

/// cel-go's error for a string that does not convert (`String.ConvertToType`).
fn conversion_error(from: &str, to: &str) -> EvalError {
    EvalError::runtime(format!("type conversion error from '{from}' to '{to}'"))
}

/// A list index: an int, a uint, or a double with no fraction.
fn list_index(index: &Value) -> Result<i64, EvalError> {
    match index {
        Value::Int(i) => Ok(*i),
        Value::Uint(u) => i64::try_from(*u).map_err(|_| EvalError::runtime(format!("unsupported index value {u} in list"))),
        Value::Double(d) if d.fract() == 0.0 && d.is_finite() => Ok(*d as i64),
        Value::Double(d) => Err(EvalError::runtime(format!("unsupported index value {d} in list"))),
        _ => Err(EvalError::no_overload()),
    }
}

/// `c[?k]`: an optional of the element, none when absent.
fn optional_index(container: &Value, key: &Value) -> Outcome {
    Ok(match container {
        Value::List(l) => {
            let i = list_index(key)?;
            Value::Optional(usize::try_from(i).ok().and_then(|i| l.items.get(i)).map(|v| Arc::new(v.clone())))
        }
        Value::Map(m) => Value::Optional(m.get(key).map(|v| Arc::new(v.clone()))),
        Value::Optional(None) => Value::Optional(None),
        Value::Optional(Some(inner)) => return optional_index(inner, key),
        _ => return Err(EvalError::no_overload()),
    })
}

fn key_text(key: &Value) -> String {
    match key {
        Value::String(s) => s.to_string(),
        other => other.to_string().trim_end_matches('u').to_string(),
    }
}

fn strings(l: &List) -> Result<Vec<&str>, EvalError> {
    l.items
        .iter()
        .map(|v| match v {
            Value::String(s) => Ok(&**s),
            _ => Err(EvalError::no_overload()),
        })
        .collect()
}

/// The character index of `sub` in `s` at or after character `start`.
fn index_of(s: &str, sub: &str, start: i64) -> Result<i64, EvalError> {
    let chars: Vec<char> = s.chars().collect();
    if start < 0 || start as usize > chars.len() {
        return Err(EvalError::runtime(format!("index out of range: {start}")));
    }
    let needle: Vec<char> = sub.chars().collect();
    let start = start as usize;
    if needle.is_empty() {
        return Ok(start as i64);
    }
    Ok(chars[start..].windows(needle.len()).position(|w| w == needle.as_slice()).map_or(-1, |i| (i + start) as i64))
}

/// The character index of the last `sub` in `s` starting at or before character `last`.
fn last_index_of(s: &str, sub: &str, last: Option<i64>) -> Result<i64, EvalError> {
    let chars: Vec<char> = s.chars().collect();
    let last = last.unwrap_or(chars.len() as i64);
    if last < 0 || last as usize > chars.len() {
        return Err(EvalError::runtime(format!("index out of range: {last}")));
    }
    let needle: Vec<char> = sub.chars().collect();
    if needle.is_empty() {
        return Ok(last);
    }
    let last = last as usize;
    let mut i = (last + needle.len()).min(chars.len());
    while i >= needle.len() {
        if chars[i - needle.len()..i] == needle[..] {
            return Ok((i - needle.len()) as i64);
        }
        i -= 1;
    }
    Ok(-1)
}

/// Go's `strings.SplitN`.
fn split(s: &str, sep: &str, n: i64) -> Value {
    if n == 0 {
        return Value::list(Vec::new());
    }
    let parts: Vec<String> = if sep.is_empty() {
        let chars: Vec<String> = s.chars().map(|c| c.to_string()).collect();
        if n > 0 && (n as usize) < chars.len() {
            let mut out: Vec<String> = chars[..n as usize - 1].to_vec();
            out.push(chars[n as usize - 1..].concat());
            out
        } else {
            chars
        }
    } else if n < 0 {
        s.split(sep).map(str::to_string).collect()
    } else {
        s.splitn(n as usize, sep).map(str::to_string).collect()
    };
    Value::list(parts.into_iter().map(Value::string).collect())
}

fn substring(s: &str, start: i64, end: i64) -> Result<Value, EvalError> {
    let count = s.chars().count() as i64;
    if start < 0 || start > count {
        return Err(EvalError::runtime(format!("index out of range: {start}")));
    }
    if end < 0 || end > count {
        return Err(EvalError::runtime(format!("index out of range: {end}")));
    }
    if start > end {
        return Err(EvalError::runtime(format!("invalid substring range. start: {start}, end: {end}")));
    }
    Ok(Value::string(s.chars().skip(start as usize).take((end - start) as usize).collect::<String>()))
}

/// `strings.quote`: a double-quoted string with escapes, as cel-go writes it.
fn quote(s: &str) -> String {
    let mut out = String::from("\"");
    for c in s.chars() {
        match c {
            '\u{7}' => out.push_str("\\a"),
            '\u{8}' => out.push_str("\\b"),
            '\u{c}' => out.push_str("\\f"),
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            '\t' => out.push_str("\\t"),
            '\u{b}' => out.push_str("\\v"),
            '\\' => out.push_str("\\\\"),
            '"' => out.push_str("\\\""),
            c => out.push(c),
        }
    }
    out.push('"');
    out
}

fn sum(items: &[Value]) -> Outcome {
    let Some(first) = items.first() else { return Ok(Value::Int(0)) };
    let mut total = match first {
        Value::Int(_) => Value::Int(0),
        Value::Uint(_) => Value::Uint(0),
        Value::Double(_) => Value::Double(0.0),
        Value::Duration(_) => Value::Duration(0),
        _ => return Err(EvalError::no_overload()),
    };
    let mut cost = 0;
    for v in items {
        total = call("_+_", &[total, v.clone()], &mut cost)?;
    }
    Ok(total)
}

fn find_all(s: &str, pattern: &str, n: i64) -> Outcome {
    if n == 0 {
        return Ok(Value::list(Vec::new()));
    }
    let found = with_regex(pattern, |re| {
        let all = re.find_iter(s).map(|m| Value::string(m.as_str()));
        if n < 0 {
            all.collect::<Vec<_>>()
        } else {
            all.take(n as usize).collect()
        }
    })?;
    Ok(Value::list(found))
}
