//! A JSON Schema validator for the keywords the project's own schemas use (`docs/src/*.schema.json`):
//! `type`, `enum`, `required`, `properties`, `additionalProperties`, `items`, `oneOf`, `minimum` and
//! local `$ref`s (`#/$defs/NAME`). Annotations (`description`, `title`, `$id`) are ignored; any
//! other keyword is refused, so a schema cannot say more than this checks.

use serde_json::Value;

/// The places where `value` breaks `schema` (empty when it is valid), each as `PATH: what`.
pub fn validate(schema: &Value, value: &Value) -> Vec<String> {
    let mut errors = Vec::new();
    check(schema, schema, value, "$", &mut errors);
    errors
}

fn check(root: &Value, schema: &Value, value: &Value, at: &str, errors: &mut Vec<String>) {
    let Some(keywords) = schema.as_object() else {
        if schema != &Value::Bool(true) {
            errors.push(format!("{at}: the schema is not an object"));
        }
        return;
    };
    for (keyword, rule) in keywords {
        match keyword.as_str() {
            "$schema" | "$id" | "$defs" | "title" | "description" => {}
            "$ref" => {
                let name = rule.as_str().and_then(|r| r.strip_prefix("#/$defs/")).unwrap_or_else(|| panic!("unsupported $ref {rule}"));
                let target = root["$defs"].get(name).unwrap_or_else(|| panic!("no $defs/{name}"));
                check(root, target, value, at, errors);
            }
            "type" => {
                let allowed: Vec<&str> = match rule {
                    Value::String(t) => vec![t.as_str()],
                    Value::Array(ts) => ts.iter().filter_map(Value::as_str).collect(),
                    _ => panic!("type {rule}"),
                };
                if !allowed.iter().any(|t| is_type(value, t)) {
                    errors.push(format!("{at}: {value} is not of type {}", allowed.join(" or ")));
                }
            }
            "enum" => {
                if !rule.as_array().is_some_and(|values| values.contains(value)) {
                    errors.push(format!("{at}: {value} is not one of {rule}"));
                }
            }
            "minimum" => {
                if let (Some(n), Some(min)) = (value.as_f64(), rule.as_f64()) {
                    if n < min {
                        errors.push(format!("{at}: {n} is less than {min}"));
                    }
                }
            }
            "required" => {
                if let Some(object) = value.as_object() {
                    for name in rule.as_array().into_iter().flatten().filter_map(Value::as_str) {
                        if !object.contains_key(name) {
                            errors.push(format!("{at}: {name} is missing"));
                        }
                    }
                }
            }
            "properties" => {
                if let Some(object) = value.as_object() {
                    for (name, property) in rule.as_object().into_iter().flatten() {
                        if let Some(v) = object.get(name) {
                            check(root, property, v, &format!("{at}.{name}"), errors);
                        }
                    }
                }
            }
            "additionalProperties" => {
                if let Some(object) = value.as_object() {
                    let declared = keywords.get("properties").and_then(Value::as_object);
                    for (name, v) in object.iter().filter(|(name, _)| !declared.is_some_and(|d| d.contains_key(*name))) {
                        match rule {
                            Value::Bool(false) => errors.push(format!("{at}: {name} is not declared")),
                            Value::Bool(true) => {}
                            _ => check(root, rule, v, &format!("{at}.{name}"), errors),
                        }
                    }
                }
            }
            "items" => {
                for (i, item) in value.as_array().into_iter().flatten().enumerate() {
                    check(root, rule, item, &format!("{at}[{i}]"), errors);
                }
            }
            "oneOf" => {
                let passing = rule
                    .as_array()
                    .into_iter()
                    .flatten()
                    .filter(|alternative| {
                        let mut inner = Vec::new();
                        check(root, alternative, value, at, &mut inner);
                        inner.is_empty()
                    })
                    .count();
                if passing != 1 {
                    errors.push(format!("{at}: {value} matches {passing} of the oneOf alternatives, not one"));
                }
            }
            other => panic!("the validator does not know the keyword {other}"),
        }
    }
}

fn is_type(value: &Value, ty: &str) -> bool {
    match ty {
        "null" => value.is_null(),
        "boolean" => value.is_boolean(),
        "object" => value.is_object(),
        "array" => value.is_array(),
        "string" => value.is_string(),
        "number" => value.is_number(),
        "integer" => value.is_i64() || value.is_u64(),
        _ => panic!("unknown type {ty}"),
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    #[test]
    fn each_keyword_rejects_what_it_should() {
        let schema = json!({
            "type": "object", "required": ["a"], "additionalProperties": false,
            "properties": {"a": {"$ref": "#/$defs/n"}, "b": {"oneOf": [{"type": "null"}, {"enum": ["x"]}]}, "c": {"type": "array", "items": {"type": "string"}}},
            "$defs": {"n": {"type": "integer", "minimum": 1}}
        });
        assert_eq!(super::validate(&schema, &json!({"a": 1, "b": null, "c": ["s"]})), Vec::<String>::new());
        let mut errors = super::validate(&schema, &json!({"a": 0, "b": "y", "c": [1], "d": true}));
        errors.sort();
        assert_eq!(
            errors,
            [
                "$.a: 0 is less than 1",
                "$.b: \"y\" matches 0 of the oneOf alternatives, not one",
                "$.c[0]: 1 is not of type string",
                "$: d is not declared",
            ]
        );
        assert_eq!(super::validate(&schema, &json!({"b": null})), ["$: a is missing"]);
    }
}
