//! Schema validation of a pruned and defaulted custom resource, keyword by keyword, with the
//! API server's error types and wording (kube-openapi's messages as apiextensions-apiserver converts them).

use std::sync::Arc;

use crdls_crd::{AdditionalProperties, Schema};
use crdls_diagnostics::{Diagnostic, Severity, TextRange};
use crdls_yaml::{FieldPath, Node, Value};

use crate::field_error::{ErrorType, FieldError};
use crate::pattern;
use crate::{formats, gofmt};
use crdls_diagnostics::codes;

/// Validates `node` against `schema`, appending one diagnostic per API-server error.
pub fn validate(node: &Node, schema: &Schema, path: &FieldPath<'_>, anchor: TextRange, numbers: Numbers, out: &mut Vec<Diagnostic>) {
    Validator { out, numbers }.node(node, schema, path, anchor);
}

/// How numbers and formats are validated, which depends on the release and on what is validated.
///
/// kube-openapi words a type mismatch of a value that is neither a string nor an array with the
/// schema's `format` when it has one (`spec.when in body must be of type date-time: "int64"`, Go's
/// type of the value: `int64`, `float64`, or none), and does not type-check a string or an array
/// against a non-numeric schema with a format. Which formats it sees depends on the schema it is
/// given: for objects, the API server first drops the formats it does not support.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Numbers {
    /// A built-in object: its Go types decode the numbers, no format counts in a type mismatch.
    Native,
    /// Type and bounds only: the API server before 1.36 drops every numeric `format` (and the
    /// string formats it does not support).
    Plain,
    /// Since Kubernetes 1.36 the API server keeps `int32` and `int64` on integers and `float` and
    /// `double` on numbers, and kube-openapi then checks the value (and each bound) can be converted
    /// to that type without loss (`IsValueValidAgainstRange`: `Checked value must be of type integer
    /// with format int32 in spec.x`, or `(default format)` for an integer without one), and words a
    /// type mismatch of a non-string, non-array value with the format (`must be of type int32:
    /// "float64"`, Go's type of the value).
    WithFormats,
    /// A `default` in a CRD (`ValidateDefaults` validates against the structural schema as written,
    /// `ToKubeOpenAPI` with no format dropped): every `format` counts as written, int-or-string has no
    /// type, and numbers are checked as with [`Numbers::WithFormats`].
    Unstripped,
}

impl Numbers {
    /// Whether `int32`, `int64`, `float` and `double` bound the values.
    fn checks_numeric_formats(self) -> bool {
        matches!(self, Numbers::WithFormats | Numbers::Unstripped)
    }

    /// The `format` kube-openapi sees on `schema` (`StripUnsupportedFormatsPostProcessorForVersion`
    /// for objects), if any.
    fn format_kept(self, schema: &Schema) -> Option<&str> {
        let format = schema.format.as_deref().filter(|f| !f.is_empty())?;
        let single_type = if schema.int_or_string { "" } else { schema.ty.as_deref().unwrap_or_default() };
        let kept = match (self, single_type) {
            (Numbers::Native, _) => false,
            (Numbers::Unstripped, _) => true,
            (_, "" | "string") => crdls_go::formats::is_supported_string_format(format),
            (Numbers::WithFormats, "integer") => matches!(format, "int32" | "int64"),
            (Numbers::WithFormats, "number") => matches!(format, "float" | "double"),
            _ => false,
        };
        kept.then_some(format)
    }

    /// The rules of the Kubernetes minor version `minor`.
    pub fn of_release(minor: u32) -> Numbers {
        if minor >= 36 {
            Numbers::WithFormats
        } else {
            Numbers::Plain
        }
    }
}

struct Validator<'a> {
    out: &'a mut Vec<Diagnostic>,
    numbers: Numbers,
}

/// The format the API server keeps on a numeric schema (since 1.36), and the schema's type.
fn numeric_format(schema: &Schema) -> (Option<&'static str>, Option<&'static str>) {
    match (schema.ty.as_deref(), schema.format.as_deref()) {
        (Some("integer"), Some("int32")) => (Some("integer"), Some("int32")),
        (Some("integer"), Some("int64")) => (Some("integer"), Some("int64")),
        (Some("integer"), _) => (Some("integer"), None),
        (Some("number"), Some("float")) => (Some("number"), Some("float")),
        (Some("number"), Some("double")) => (Some("number"), Some("double")),
        (Some("number"), _) => (Some("number"), None),
        _ => (None, None),
    }
}

/// Whether kube-openapi's `IsValueValidAgainstRange` refuses `value` (an int64 when `integral`, else
/// a float64, as bounds always are) for a type and format: an integer must parse as a 64-bit (with
/// `int32`, 32-bit) integer once printed as Go prints it (`1.5` does not; `3.0` prints `3` and
/// does); a number with `float` must fit a float32.
fn out_of_range(value: f64, integral: bool, ty: &str, format: Option<&str>) -> bool {
    match (ty, format) {
        ("integer", Some("int32")) => value.fract() != 0.0 || !(f64::from(i32::MIN)..=f64::from(i32::MAX)).contains(&value),
        // Every i64 prints as itself; a float64 must be integral and within the i64 range.
        ("integer", _) => !integral && (value.fract() != 0.0 || !(-9.223_372_036_854_776e18..9.223_372_036_854_776e18).contains(&value)),
        ("number", Some("float")) => value.is_finite() && value.abs() > f64::from(f32::MAX),
        _ => false,
    }
}

/// The range to underline for a node: the node itself, or the key it hangs from when it has no text of its own.
fn at(node: &Node, anchor: TextRange) -> TextRange {
    if node.range.is_empty() {
        anchor
    } else {
        node.range
    }
}

impl Validator<'_> {
    fn push(&mut self, err: FieldError, range: TextRange, code: &'static str, message: String) {
        self.out.push(err.diagnostic(range, Severity::Error, code, message));
    }

    fn invalid(&mut self, node: &Node, anchor: TextRange, path: &FieldPath<'_>, code: &'static str, detail: String, message: String) {
        let err = FieldError { ty: ErrorType::Invalid, path: path.to_string(), value: Some(gofmt::value(node)), detail };
        self.push(err, at(node, anchor), code, message);
    }

    /// One node, with the API server's validators in its order. A type mismatch does not stop the
    /// others: each still runs when it applies to the kind of value found.
    fn node(&mut self, node: &Node, schema: &Schema, path: &FieldPath<'_>, anchor: TextRange) {
        if node.value == Value::Null && schema.nullable {
            // A null on a nullable field only has to be one of the enum members, if there is an enum.
            self.enumeration(node, schema, path, anchor);
            return;
        }
        self.check_type(node, schema, path, anchor);
        self.combinators(node, schema, path, anchor);
        match &node.value {
            Value::Str(s) => self.string(node, s, schema, path, anchor),
            Value::Int(_) | Value::Float(_) => self.number(node, schema, path, anchor),
            Value::Seq(items) => self.array(node, items, schema, path, anchor),
            _ => {}
        }
        self.enumeration(node, schema, path, anchor);
        if let Value::Map(_) = node.value {
            self.object(node, schema, path, anchor);
        }
    }

    /// `type` (and `x-kubernetes-int-or-string`, which the API server turns into the types integer
    /// and string), as kube-openapi's `typeValidator` checks it, `format` included (see [`Numbers`]).
    fn check_type(&mut self, node: &Node, schema: &Schema, path: &FieldPath<'_>, anchor: TextRange) {
        let actual = node.value.type_name();
        let single: [&str; 1];
        // The API server's conversion for objects gives int-or-string the types integer and string;
        // `ToKubeOpenAPI`, which defaults are validated with, gives it none.
        let types: &[&str] = if schema.int_or_string && self.numbers != Numbers::Unstripped {
            &["integer", "string"]
        } else {
            match schema.ty.as_deref() {
                None | Some("") => &[],
                Some(t) => {
                    single = [t];
                    &single
                }
            }
        };
        let ok = types.contains(&actual) || (actual == "integer" && types.contains(&"number"));
        let format = self.numbers.format_kept(schema);
        let string_or_array = matches!(node.value, Value::Str(_) | Value::Seq(_));
        if let (Some(format), false, false) = (format, ok, string_or_array) {
            let go_type = match node.value {
                Value::Int(_) => "int64",
                Value::Float(_) => "float64",
                _ => "",
            };
            if go_type != format {
                let err = FieldError {
                    ty: ErrorType::TypeInvalid,
                    path: path.to_string(),
                    value: Some(gofmt::quote(go_type)),
                    detail: format!("{path} in body must be of type {format}: {}", gofmt::quote(go_type)),
                };
                self.push(err, at(node, anchor), codes::SCHEMA_TYPE, format!("expected {format}, found {actual}"));
                return;
            }
        }
        let numeric = types.iter().any(|t| matches!(*t, "integer" | "number"));
        if ok || types.is_empty() || (format.is_some() && string_or_array && !numeric) {
            return;
        }
        let expected = types.join(",");
        let err = FieldError {
            ty: ErrorType::TypeInvalid,
            path: path.to_string(),
            value: Some(gofmt::quote(actual)),
            detail: format!("{path} in body must be of type {expected}: {}", gofmt::quote(actual)),
        };
        self.push(err, at(node, anchor), codes::SCHEMA_TYPE, format!("expected {}, found {actual}", expected.replace(',', " or ")));
    }

    /// kube-openapi's range error for a value (`Checked`) or a bound that does not fit the type and
    /// format. It is not a field error: the API server prints it with no path (`<nil>`) and an empty value.
    #[allow(clippy::too_many_arguments)]
    fn range_error(&mut self, node: &Node, anchor: TextRange, path: &FieldPath<'_>, prefix: &str, ty: &str, format: Option<&str>) {
        let of_type = match format {
            Some(format) => format!("{ty} with format {format}"),
            None => format!("{ty} (default format)"),
        };
        let err = FieldError {
            ty: ErrorType::Invalid,
            path: String::new(),
            value: Some(gofmt::quote("")),
            detail: format!("{prefix} value must be of type {of_type} in {path}"),
        };
        let subject = if prefix == "Checked" { "the value".to_string() } else { format!("the schema's {}", prefix.to_lowercase()) };
        let message = format!("{subject} is not a valid {of_type}");
        let code = if format.is_some() { codes::SCHEMA_FORMAT } else { codes::SCHEMA_TYPE };
        self.out.push(err.diagnostic(at(node, anchor), Severity::Error, code, message).with_path(path.to_string()));
    }

    fn string(&mut self, node: &Node, s: &str, schema: &Schema, path: &FieldPath<'_>, anchor: TextRange) {
        let chars = s.chars().count() as u64;
        // The API server stops at the first failing string check, in this order.
        if let Some(max) = schema.rare().max_length.filter(|&max| chars > max) {
            let unit = if max == 1 { "byte" } else { "bytes" };
            let err = FieldError {
                ty: ErrorType::TooLong,
                path: path.to_string(),
                value: None,
                detail: format!("may not be more than {max} {unit}"),
            };
            self.push(
                err,
                at(node, anchor),
                codes::SCHEMA_MAX_LENGTH,
                format!("must be at most {max} {} long (it has {chars})", plural(max, "character")),
            );
        } else if let Some(min) = schema.rare().min_length.filter(|&min| chars < min) {
            self.invalid(
                node,
                anchor,
                path,
                codes::SCHEMA_MIN_LENGTH,
                format!("{path} in body should be at least {min} chars long"),
                format!("must be at least {min} {} long (it has {chars})", plural(min, "character")),
            );
        } else if let Some(pattern) = &schema.rare().pattern {
            if pattern::matches(pattern, s) == Some(false) {
                self.invalid(
                    node,
                    anchor,
                    path,
                    codes::SCHEMA_PATTERN,
                    format!("{path} in body should match '{pattern}'"),
                    format!("must match the pattern '{pattern}'"),
                );
            }
        }
        // For objects, the API server drops a string format from a schema whose type is not a
        // string (`type: integer` with `format: email`) before validating.
        let format = match self.numbers {
            Numbers::Native | Numbers::Unstripped => schema.format.as_deref(),
            Numbers::Plain | Numbers::WithFormats => self.numbers.format_kept(schema),
        };
        if let Some(format) = format {
            if !formats::check_string_format(format, s) {
                let err = FieldError {
                    ty: ErrorType::TypeInvalid,
                    path: path.to_string(),
                    value: Some(gofmt::quote(s)),
                    detail: format!("{path} in body must be of type {format}: {}", gofmt::quote(s)),
                };
                self.push(err, at(node, anchor), codes::SCHEMA_FORMAT, format!("must be a valid {format}"));
            }
        }
    }

    fn number(&mut self, node: &Node, schema: &Schema, path: &FieldPath<'_>, anchor: TextRange) {
        // Integer data is compared with bounds truncated to integers, and the bounds print as such.
        let (v, integral) = match node.value {
            Value::Int(i) => (i as f64, true),
            Value::Float(f) => (f, false),
            _ => return,
        };
        if let (true, (Some(ty), format)) = (self.numbers.checks_numeric_formats(), numeric_format(schema)) {
            if out_of_range(v, integral, ty, format) {
                self.range_error(node, anchor, path, "Checked", ty, format);
            }
        }
        // A bound that does not fit the type is reported, and then compared as a plain number.
        let mut fits = |bound: f64, prefix: &str| -> bool {
            let (true, (Some(ty), format)) = (self.numbers.checks_numeric_formats(), numeric_format(schema)) else { return true };
            if !out_of_range(bound, false, ty, format) {
                return true;
            }
            self.range_error(node, anchor, path, prefix, ty, format);
            false
        };
        let exact = |b: f64| (b, gofmt::float(b));
        let truncated = |b: f64| if integral { (b.trunc(), (b.trunc() as i64).to_string()) } else { (b, gofmt::float(b)) };
        let multiple_of = schema.rare().multiple_of.map(|b| if fits(b, "MultipleOf") { truncated(b) } else { exact(b) });
        let minimum = schema.rare().minimum.map(|b| if fits(b, "Minimum boundary") { truncated(b) } else { exact(b) });
        let maximum = schema.rare().maximum.map(|b| if fits(b, "Maximum boundary") { truncated(b) } else { exact(b) });
        if let Some((factor, shown)) = multiple_of {
            if factor != 0.0 && !is_multiple(v, factor) {
                self.invalid(
                    node,
                    anchor,
                    path,
                    codes::SCHEMA_MULTIPLE_OF,
                    format!("{path} in body should be a multiple of {shown}"),
                    format!("must be a multiple of {shown}"),
                );
            }
        }
        if let Some((min, shown)) = minimum {
            let (bad, words) =
                if schema.rare().exclusive_minimum { (v <= min, "greater than") } else { (v < min, "greater than or equal to") };
            if bad {
                self.invalid(
                    node,
                    anchor,
                    path,
                    codes::SCHEMA_MINIMUM,
                    format!("{path} in body should be {words} {shown}"),
                    format!("must be {words} {shown}"),
                );
            }
        }
        if let Some((max, shown)) = maximum {
            let (bad, words) = if schema.rare().exclusive_maximum { (v >= max, "less than") } else { (v > max, "less than or equal to") };
            if bad {
                self.invalid(
                    node,
                    anchor,
                    path,
                    codes::SCHEMA_MAXIMUM,
                    format!("{path} in body should be {words} {shown}"),
                    format!("must be {words} {shown}"),
                );
            }
        }
    }

    fn array(&mut self, node: &Node, items: &[Node], schema: &Schema, path: &FieldPath<'_>, anchor: TextRange) {
        let len = items.len() as u64;
        if let Some(item_schema) = &schema.items {
            for (i, item) in items.iter().enumerate() {
                self.node(item, item_schema, &path.index(i), at(node, anchor));
            }
        }
        if let Some(min) = schema.rare().min_items.filter(|&min| len < min) {
            let err = FieldError {
                ty: ErrorType::Invalid,
                path: path.to_string(),
                value: Some(len.to_string()),
                detail: format!("{path} in body should have at least {min} items"),
            };
            self.push(
                err,
                at(node, anchor),
                codes::SCHEMA_MIN_ITEMS,
                format!("must have at least {min} {} (it has {len})", plural(min, "item")),
            );
        }
        if let Some(max) = schema.rare().max_items.filter(|&max| len > max) {
            let unit = if max == 1 { "item" } else { "items" };
            let err = FieldError {
                ty: ErrorType::TooMany,
                path: path.to_string(),
                value: Some(len.to_string()),
                detail: format!("must have at most {max} {unit}"),
            };
            self.push(err, at(node, anchor), codes::SCHEMA_MAX_ITEMS, format!("must have at most {max} {unit} (it has {len})"));
        }
    }

    fn object(&mut self, node: &Node, schema: &Schema, path: &FieldPath<'_>, anchor: TextRange) {
        let entries = node.as_map().unwrap_or_default();
        let count = entries.len() as u64;
        if let Some(max) = schema.rare().max_properties {
            if count > max {
                let unit = if max == 1 { "item" } else { "items" };
                let err = FieldError {
                    ty: ErrorType::TooMany,
                    path: path.to_string(),
                    value: Some(count.to_string()),
                    detail: format!("must have at most {max} {unit}"),
                };
                self.push(
                    err,
                    at(node, anchor),
                    codes::SCHEMA_MAX_PROPERTIES,
                    format!("must have at most {max} {} (it has {count})", plural(max, "property")),
                );
            }
        }
        if let Some(min) = schema.rare().min_properties {
            if count < min {
                let err = FieldError {
                    ty: ErrorType::Invalid,
                    path: path.to_string(),
                    value: Some(count.to_string()),
                    detail: format!("{path} in body should have at least {min} properties"),
                };
                self.push(
                    err,
                    at(node, anchor),
                    codes::SCHEMA_MIN_PROPERTIES,
                    format!("must have at least {min} {} (it has {count})", plural(min, "property")),
                );
            }
        }
        for required in &schema.required {
            if !entries.iter().any(|e| &e.key == required) {
                let err =
                    FieldError { ty: ErrorType::Required, path: path.field(required).to_string(), value: None, detail: String::new() };
                self.push(err, anchor, codes::SCHEMA_REQUIRED, format!("missing required field \"{required}\""));
            }
        }
        for entry in entries {
            let child_path = path.field(&entry.key);
            if let Some(prop) = schema.property(&entry.key) {
                self.node(&entry.value, &prop.schema, &child_path, entry.key_range);
            } else if let Some(AdditionalProperties::Schema(extra)) = &schema.additional_properties {
                self.node(&entry.value, extra, &child_path, entry.key_range);
            }
        }
    }

    fn enumeration(&mut self, node: &Node, schema: &Schema, path: &FieldPath<'_>, anchor: TextRange) {
        /// The most values an enum error's cause lists.
        const CAUSE_VALUES: usize = 100;
        // An empty enum is no enum (kube-openapi checks one only when it has members).
        let Some(members) = schema.enumeration.as_ref().filter(|m| !m.is_empty()) else { return };
        // A null member matches nothing, a null value included: kube-openapi skips members without a
        // Go type.
        if members.iter().any(|m| m.value != Value::Null && json_equal(m, node)) {
            return;
        }
        // Every member prints quoted: strings as they are, other values as their JSON. The cause lists
        // every value, as the API server does, up to a hundred: past that (an enum of 100,000 values
        // would make each diagnostic megabytes long) it counts the rest. crdls's message lists ten.
        let shown = members.len().min(CAUSE_VALUES);
        let supported: Vec<String> =
            members[..shown].iter().map(|m| gofmt::quote(&m.as_str().map_or_else(|| gofmt::json(m), str::to_string))).collect();
        let err = FieldError {
            ty: ErrorType::NotSupported,
            path: path.to_string(),
            value: Some(gofmt::value(node)),
            detail: format!("supported values: {}", crdls_diagnostics::listed_up_to(&supported, members.len(), CAUSE_VALUES)),
        };
        let message = format!("must be one of {}", crdls_diagnostics::listed_of(&supported, members.len()));
        self.push(err, at(node, anchor), codes::SCHEMA_ENUM, message);
    }

    /// `allOf`, `anyOf`, `oneOf` and `not`: each alternative is validated on the side, and the
    /// API server's summary error (at the root path) comes with the most relevant alternative's errors.
    fn combinators(&mut self, node: &Node, schema: &Schema, path: &FieldPath<'_>, anchor: TextRange) {
        let numbers = self.numbers;
        let run = |s: &Schema| {
            let mut errs = Vec::new();
            Validator { out: &mut errs, numbers }.node(node, s, path, anchor);
            errs
        };
        let summary = |detail: String| FieldError { ty: ErrorType::Invalid, path: String::new(), value: Some("\"\"".into()), detail };
        if !schema.rare().all_of.is_empty() {
            let failures: Vec<Vec<Diagnostic>> = schema.rare().all_of.iter().map(|s| run(s)).filter(|e| !e.is_empty()).collect();
            if !failures.is_empty() {
                let none = if failures.len() == schema.rare().all_of.len() { ". None validated" } else { "" };
                self.out.extend(failures.into_iter().flatten());
                let err = summary(format!("\"{path}\" must validate all the schemas (allOf){none}"));
                self.push(err, at(node, anchor), codes::SCHEMA_ALL_OF, "must match every schema in allOf".into());
            }
        }
        if !schema.rare().any_of.is_empty() {
            let results: Vec<Vec<Diagnostic>> = schema.rare().any_of.iter().map(|s| run(s)).collect();
            if results.iter().all(|e| !e.is_empty()) {
                let err = summary(format!("\"{path}\" must validate at least one schema (anyOf)"));
                self.push(err, at(node, anchor), codes::SCHEMA_ANY_OF, "must match at least one schema in anyOf".into());
                self.out.extend(best(&schema.rare().any_of, results, node));
            }
        }
        if !schema.rare().one_of.is_empty() {
            let results: Vec<Vec<Diagnostic>> = schema.rare().one_of.iter().map(|s| run(s)).collect();
            let valid = results.iter().filter(|e| e.is_empty()).count();
            if valid != 1 {
                let found = if valid == 0 { "Found none valid".to_string() } else { format!("Found {valid} valid alternatives") };
                let err = summary(format!("\"{path}\" must validate one and only one schema (oneOf). {found}"));
                self.push(
                    err,
                    at(node, anchor),
                    codes::SCHEMA_ONE_OF,
                    format!("must match exactly one schema in oneOf ({})", found.to_lowercase()),
                );
                if valid == 0 {
                    self.out.extend(best(&schema.rare().one_of, results, node));
                }
            }
        }
        if let Some(not) = &schema.rare().not {
            if run(not).is_empty() {
                let err = summary(format!("\"{path}\" must not validate the schema (not)"));
                self.push(err, at(node, anchor), codes::SCHEMA_NOT, "must not match the schema in not".into());
            }
        }
    }
}

/// The errors of the alternative that matched best: the first whose type fits the value, else the first.
fn best(schemas: &[Arc<Schema>], results: Vec<Vec<Diagnostic>>, node: &Node) -> Vec<Diagnostic> {
    let actual = node.value.type_name();
    let pick = schemas
        .iter()
        .position(|s| s.ty.as_deref() == Some(actual) || (s.ty.as_deref() == Some("number") && actual == "integer"))
        .unwrap_or(0);
    results.into_iter().nth(pick).unwrap_or_default()
}

fn is_multiple(v: f64, factor: f64) -> bool {
    let q = v / factor;
    (q - q.round()).abs() < 1e-9 * q.abs().max(1.0)
}

/// Deep equality of two values as JSON (map order does not matter).
pub fn json_equal(a: &Node, b: &Node) -> bool {
    match (&a.value, &b.value) {
        (Value::Int(x), Value::Float(y)) | (Value::Float(y), Value::Int(x)) => (*x as f64) == *y,
        (Value::Seq(x), Value::Seq(y)) => x.len() == y.len() && x.iter().zip(y).all(|(a, b)| json_equal(a, b)),
        (Value::Map(x), Value::Map(y)) => x.len() == y.len() && x.iter().all(|e| b.get(&e.key).is_some_and(|v| json_equal(&e.value, v))),
        (x, y) => x == y,
    }
}

/// `n item` or `n items`, for our own messages (the API server's causes keep their own wording).
fn plural(n: u64, word: &str) -> String {
    match (n, word) {
        (1, _) => word.to_string(),
        (_, "property") => "properties".to_string(),
        _ => format!("{word}s"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The causes of validating `value` against `schema` (both YAML) with `numbers`.
    fn causes(schema: &str, value: &str, numbers: Numbers) -> Vec<String> {
        let schema_stream = crdls_yaml::parse(schema);
        let schema = Schema::from_node(schema_stream.documents[0].root.as_ref().expect("a schema"));
        let stream = crdls_yaml::parse(&format!("x: {value}\n"));
        let object = stream.documents[0].root.as_ref().expect("an object");
        let root = FieldPath::root();
        let mut out = Vec::new();
        validate(object.get("x").expect("x"), &schema, &root.field("x"), object.range, numbers, &mut out);
        out.into_iter().filter_map(|d| d.cause).collect()
    }

    #[test]
    fn a_format_words_the_type_mismatch_of_a_value_that_is_not_a_string_or_an_array() {
        // What the API server (1.37, the oracle) answers for objects: a supported string format is
        // kept, an unsupported one dropped, and a string or array on a non-numeric schema with a
        // format is not type-checked at all.
        let release = Numbers::of_release(37);
        let date_time = "{type: string, format: date-time}";
        assert_eq!(causes(date_time, "5", release), ["x: Invalid value: \"int64\": x in body must be of type date-time: \"int64\""]);
        assert_eq!(causes(date_time, "true", release), ["x: Invalid value: \"\": x in body must be of type date-time: \"\""]);
        assert_eq!(causes("{type: string, format: uuid}", "[1]", release), Vec::<String>::new());
        assert_eq!(
            causes("{type: string, format: foo}", "true", release),
            ["x: Invalid value: \"boolean\": x in body must be of type string: \"boolean\""]
        );
        assert_eq!(
            causes("{type: boolean, format: date-time}", "1", release),
            ["x: Invalid value: \"integer\": x in body must be of type boolean: \"integer\""]
        );
        // A CRD's default sees every format as written, and int-or-string without a type.
        assert_eq!(
            causes("{type: boolean, format: date-time}", "1", Numbers::Unstripped),
            ["x: Invalid value: \"int64\": x in body must be of type date-time: \"int64\""]
        );
        assert_eq!(causes("{x-kubernetes-int-or-string: true}", "{a: 1}", Numbers::Unstripped), Vec::<String>::new());
        // Built-in objects: their Go types decode the values, no format counts.
        assert_eq!(
            causes(date_time, "5", Numbers::Native),
            ["x: Invalid value: \"integer\": x in body must be of type string: \"integer\""]
        );
    }

    #[test]
    fn a_null_enum_member_matches_nothing() {
        // The oracle (1.37): kube-openapi skips an enum member that is null, so a null value is
        // refused even where it is nullable and the enum lists null.
        let release = Numbers::of_release(37);
        let unsupported = "x: Unsupported value: null: supported values: \"null\", \"a\"";
        assert_eq!(causes("{type: string, nullable: true, enum: [null, a]}", "null", release), [unsupported]);
        assert_eq!(
            causes("{type: string, enum: [null, a]}", "null", release),
            ["x: Invalid value: \"null\": x in body must be of type string: \"null\"", unsupported]
        );
        assert_eq!(causes("{type: string, enum: [null, a]}", "a", release), Vec::<String>::new());
    }

    #[test]
    fn numeric_formats_are_checked_since_1_36() {
        let int32 = "{type: integer, format: int32}";
        // Before 1.36 the format is dropped: any integer goes, and a float is only of the wrong type.
        assert_eq!(causes(int32, "3000000000", Numbers::of_release(35)), Vec::<String>::new());
        assert_eq!(
            causes(int32, "1.5", Numbers::of_release(35)),
            ["x: Invalid value: \"number\": x in body must be of type integer: \"number\""]
        );
        // Since, the value must fit, and a mismatch is worded with the format and Go's type.
        assert_eq!(
            causes(int32, "3000000000", Numbers::of_release(36)),
            ["<nil>: Invalid value: \"\": Checked value must be of type integer with format int32 in x"]
        );
        assert_eq!(
            causes(int32, "1.5", Numbers::of_release(37)),
            [
                "x: Invalid value: \"float64\": x in body must be of type int32: \"float64\"",
                "<nil>: Invalid value: \"\": Checked value must be of type integer with format int32 in x"
            ]
        );
        assert_eq!(causes(int32, "true", Numbers::of_release(37)), ["x: Invalid value: \"\": x in body must be of type int32: \"\""]);
        // Strings and arrays keep the plain wording.
        assert_eq!(
            causes(int32, "'1'", Numbers::of_release(37)),
            ["x: Invalid value: \"string\": x in body must be of type integer: \"string\""]
        );
        // An integer without a format must still be integral; a float32 must fit.
        assert_eq!(
            causes("{type: integer}", "1.5", Numbers::of_release(37)),
            [
                "x: Invalid value: \"number\": x in body must be of type integer: \"number\"",
                "<nil>: Invalid value: \"\": Checked value must be of type integer (default format) in x"
            ]
        );
        // 3.0 reaches the API server as 3 (Go prints the float64 without a fraction).
        assert_eq!(causes("{type: integer}", "3.0", Numbers::of_release(37)), Vec::<String>::new());
        assert_eq!(
            causes("{type: number, format: float}", "1e300", Numbers::of_release(37)),
            ["<nil>: Invalid value: \"\": Checked value must be of type number with format float in x"]
        );
        assert_eq!(causes("{type: number, format: double}", "1e300", Numbers::of_release(37)), Vec::<String>::new());
        // A bound that does not fit is reported with every value, and compared as a plain number.
        assert_eq!(
            causes("{type: integer, maximum: 2.5}", "3", Numbers::of_release(37)),
            [
                "<nil>: Invalid value: \"\": Maximum boundary value must be of type integer (default format) in x",
                "x: Invalid value: 3: x in body should be less than or equal to 2.5"
            ]
        );
        // Before 1.36 integer data meets the bound truncated.
        assert_eq!(
            causes("{type: integer, maximum: 2.5}", "3", Numbers::of_release(35)),
            ["x: Invalid value: 3: x in body should be less than or equal to 2"]
        );
    }
}
