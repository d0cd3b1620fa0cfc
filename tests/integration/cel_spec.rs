//! The cel-spec conformance tests (from the npm package `@bufbuild/cel-spec`, converted by
//! `tests/cel-spec/prepare.sh`) run through crdls's CEL parser, checker and evaluator. Tests that need
//! protobuf messages are left out, and so are the extension libraries Kubernetes does not enable (a
//! rule using them is rejected by the API server, so crdls must reject it too). Prints the pass rate
//! of every section; the whole must pass at 95% or better. Skipped, with a message, when the data has
//! not been prepared.

use std::collections::BTreeMap;
use std::sync::Arc;

use crdls_cel::value::{List, Map, Timestamp};
use crdls_cel::{check_with, evaluate, parse, Options, Type, Value};
use serde_json::Value as Json;

/// Files of extensions Kubernetes does not enable, or of protobuf messages only.
const OUT_OF_SCOPE: &[&str] =
    &["bindings_ext", "block_ext", "encoders_ext", "math_ext", "proto2", "proto2_ext", "proto3", "wrappers", "dynamic", "enums"];

#[test]
fn cel_spec_conformance() {
    let Ok(text) = std::fs::read_to_string(crdls_tests::cel_spec_data()) else {
        crdls_tests::announce_skip(crdls_tests::Missing::CelSpec, None);
        return;
    };
    let data: Json = serde_json::from_str(&text).expect("conformance JSON");
    let (mut passed, mut total) = (0usize, 0usize);
    let mut failures: Vec<String> = Vec::new();
    let mut report = String::new();
    for file in data["files"].as_array().into_iter().flatten() {
        let file_name = file["name"].as_str().unwrap_or_default();
        if OUT_OF_SCOPE.contains(&file_name) {
            continue;
        }
        for section in file["sections"].as_array().into_iter().flatten() {
            let (mut ok, mut count) = (0, 0);
            for test in section["tests"].as_array().into_iter().flatten() {
                if test["needsProto"].as_bool() == Some(true) {
                    continue;
                }
                count += 1;
                if std::env::var_os("CEL_SPEC_TRACE").is_some() {
                    eprintln!("RUN {}", test["expr"]);
                }
                match run(test) {
                    Ok(()) => ok += 1,
                    Err(why) => failures.push(format!(
                        "{file_name}/{}/{}: {} — {why}",
                        section["name"].as_str().unwrap_or_default(),
                        test["name"].as_str().unwrap_or_default(),
                        test["expr"].as_str().unwrap_or_default()
                    )),
                }
            }
            if count > 0 {
                report.push_str(&format!("  {file_name}/{}: {ok}/{count}\n", section["name"].as_str().unwrap_or_default()));
            }
            passed += ok;
            total += count;
        }
    }
    let rate = passed as f64 * 100.0 / total.max(1) as f64;
    eprintln!("cel-spec conformance, per section:\n{report}cel-spec conformance: {passed}/{total} passed ({rate:.1}%)");
    for f in failures.iter().take(400) {
        eprintln!("  FAIL {f}");
    }
    assert!(total > 1000, "expected the non-protobuf cel-spec tests, found {total}");
    assert!(rate >= 95.0, "cel-spec conformance {rate:.1}% is under 95%");
}

/// Runs one test: parse, check (unless disabled), evaluate, compare.
fn run(test: &Json) -> Result<(), String> {
    let expr = test["expr"].as_str().unwrap_or_default();
    let expect = &test["expect"];
    let expects_error = expect.get("error").is_some() || expect.get("anyErrors").is_some();
    let parsed = match parse(expr) {
        Ok(p) => p,
        Err(e) if expects_error => {
            let _ = e;
            return Ok(());
        }
        Err(e) => return Err(format!("parse error: {}", e[0].message)),
    };
    let mut variables: Vec<(String, Type)> = Vec::new();
    for decl in test["decls"].as_array().into_iter().flatten() {
        let name = decl["ident"].as_str().unwrap_or_default().to_string();
        variables.push((name, decl.get("type").map_or(Type::Dyn, decode_type)));
    }
    let declared: Vec<(&str, Type)> = variables.iter().map(|(n, t)| (n.as_str(), t.clone())).collect();
    let check_disabled = test["disableCheck"].as_bool() == Some(true);
    let mut result_type = None;
    if !check_disabled {
        let checked = check_with(&parsed, &declared, Options::SPEC);
        if !checked.errors.is_empty() {
            return if expects_error { Ok(()) } else { Err(format!("check error: {}", checked.errors[0].message)) };
        }
        result_type = Some(checked.result);
    }
    if let Some(t) = expect.get("type") {
        let want = decode_type(t);
        return match &result_type {
            Some(got) if types_match(got, &want) => Ok(()),
            other => Err(format!("type {other:?}, expected {want}")),
        };
    }
    if test["checkOnly"].as_bool() == Some(true) {
        return Ok(());
    }
    let bindings: Vec<(String, Value)> =
        test["bindings"].as_object().map_or(Vec::new(), |m| m.iter().map(|(k, v)| (k.clone(), decode_value(v))).collect());
    let activation: Vec<(&str, Value)> = bindings.iter().map(|(n, v)| (n.as_str(), v.clone())).collect();
    let outcome = evaluate(&parsed.expr, &activation, 10_000_000).outcome;
    match (outcome, expect) {
        (Err(_), _) if expects_error => Ok(()),
        (Ok(v), _) if expects_error => Err(format!("expected an error, got {v}")),
        (Err(e), _) => Err(format!("evaluation error: {}", e.message)),
        (Ok(got), expect) => {
            let (want, want_type) = match expect.get("typedValue") {
                Some(tv) => (decode_value(&tv["value"]), Some(decode_type(&tv["type"]))),
                None => (expect.get("value").map_or(Value::Bool(true), decode_value), None),
            };
            if !same(&got, &want) {
                return Err(format!("got {got}, expected {want}"));
            }
            if let (Some(want), Some(got)) = (want_type, &result_type) {
                if !types_match(got, &want) {
                    return Err(format!("type {got}, expected {want}"));
                }
            }
            Ok(())
        }
    }
}

/// Strict equality: the same type and the same value (NaN equal to itself).
fn same(a: &Value, b: &Value) -> bool {
    match (a, b) {
        (Value::Double(x), Value::Double(y)) => x == y || (x.is_nan() && y.is_nan()),
        (Value::List(x), Value::List(y)) => x.items.len() == y.items.len() && x.items.iter().zip(&y.items).all(|(p, q)| same(p, q)),
        (Value::Map(x), Value::Map(y)) => {
            x.entries.len() == y.entries.len() && x.entries.iter().all(|(k, v)| y.entries.iter().any(|(k2, v2)| same(k, k2) && same(v, v2)))
        }
        (Value::Type(x), Value::Type(y)) => x == y,
        _ => std::mem::discriminant(a) == std::mem::discriminant(b) && a.equals(b),
    }
}

fn types_match(got: &Type, want: &Type) -> bool {
    got.to_string() == want.to_string()
}

fn decode_type(t: &Json) -> Type {
    if let Some(p) = t.get("primitive").and_then(Json::as_str) {
        return match p {
            "BOOL" => Type::Bool,
            "INT64" => Type::Int,
            "UINT64" => Type::Uint,
            "DOUBLE" => Type::Double,
            "STRING" => Type::String,
            "BYTES" => Type::Bytes,
            _ => Type::Dyn,
        };
    }
    if let Some(e) = t.get("list") {
        return Type::list(decode_type(e));
    }
    if let Some(kv) = t.get("map").and_then(Json::as_array) {
        return Type::map(decode_type(&kv[0]), decode_type(&kv[1]));
    }
    if t.get("null").is_some() {
        return Type::Null;
    }
    if let Some(w) = t.get("wellKnown").and_then(Json::as_str) {
        return match w {
            "DURATION" => Type::Duration,
            "TIMESTAMP" => Type::Timestamp,
            _ => Type::Dyn,
        };
    }
    if let Some(m) = t.get("message").and_then(Json::as_str) {
        return match m {
            "google.protobuf.Duration" => Type::Duration,
            "google.protobuf.Timestamp" => Type::Timestamp,
            _ => Type::Dyn,
        };
    }
    if let Some(inner) = t.get("type") {
        return Type::type_of(decode_type(inner));
    }
    if let Some(a) = t.get("abstract") {
        if a["name"] == "optional_type" {
            return Type::optional(a["params"].as_array().and_then(|p| p.first()).map_or(Type::Dyn, decode_type));
        }
    }
    if let Some(p) = t.get("typeParam").and_then(Json::as_str) {
        return Type::param(p);
    }
    Type::Dyn
}

fn decode_value(v: &Json) -> Value {
    let Some((kind, inner)) = v.as_object().and_then(|m| m.iter().next()) else { return Value::Null };
    match kind.as_str() {
        "null" => Value::Null,
        "bool" => Value::Bool(inner.as_bool().unwrap_or_default()),
        "int" => Value::Int(inner.as_str().and_then(|s| s.parse().ok()).or_else(|| inner.as_i64()).unwrap_or_default()),
        "uint" => Value::Uint(inner.as_str().and_then(|s| s.parse().ok()).or_else(|| inner.as_u64()).unwrap_or_default()),
        "double" => Value::Double(match inner {
            Json::String(s) => match s.as_str() {
                "NaN" => f64::NAN,
                "Infinity" => f64::INFINITY,
                "-Infinity" => f64::NEG_INFINITY,
                "-0" => -0.0,
                other => other.parse().unwrap_or_default(),
            },
            other => other.as_f64().unwrap_or_default(),
        }),
        "string" => Value::string(inner.as_str().unwrap_or_default()),
        "bytes" => Value::Bytes(Arc::from(base64(inner.as_str().unwrap_or_default()))),
        "list" => Value::List(Arc::new(List {
            items: inner.as_array().into_iter().flatten().map(decode_value).collect(),
            kind: Default::default(),
        })),
        "map" => Value::Map(Arc::new(Map {
            entries: inner
                .as_array()
                .into_iter()
                .flatten()
                .filter_map(|kv| Some((decode_value(kv.get(0)?), decode_value(kv.get(1)?))))
                .collect(),
        })),
        "type" => Value::Type(Arc::from(inner.as_str().unwrap_or_default())),
        "duration" => Value::Duration(crdls_go::duration::parse_duration(inner.as_str().unwrap_or_default()).unwrap_or_default()),
        "timestamp" => Value::Timestamp(
            crdls_cel::time::parse_timestamp(inner.as_str().unwrap_or_default()).unwrap_or(Timestamp { seconds: 0, nanos: 0 }),
        ),
        _ => Value::Null,
    }
}

fn base64(s: &str) -> Vec<u8> {
    let table: BTreeMap<u8, u8> =
        b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/".iter().enumerate().map(|(i, c)| (*c, i as u8)).collect();
    let (mut out, mut buf, mut bits) = (Vec::new(), 0u32, 0u32);
    for c in s.bytes().filter(|c| *c != b'=') {
        let Some(v) = table.get(&c) else { continue };
        buf = (buf << 6) | *v as u32;
        bits += 6;
        if bits >= 8 {
            bits -= 8;
            out.push((buf >> bits) as u8);
            buf &= (1 << bits) - 1;
        }
    }
    out
}
