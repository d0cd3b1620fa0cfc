//! The functions the checker knows, with their overloads: CEL's standard library and the libraries the
//! Kubernetes API server adds for CRD validation rules (strings v2, Kubernetes lists, sets, regex, URLs,
//! quantity, IP and CIDR, named formats, semver, optional types, two-variable comprehensions, and
//! cel-go's lists extension).
//!
//! Signatures are written as text: `(int, int) -> int` for a global call, `string.(string) -> bool` for
//! a call on a receiver; single capital letters are type parameters.

use std::collections::HashMap;
use std::sync::OnceLock;

use crate::types::{parse_type, Type};

/// One overload of a function.
#[derive(Clone, Debug)]
pub struct Overload {
    /// Whether it is called on a receiver (`x.f()`); the receiver is then the first parameter.
    pub receiver: bool,
    /// The parameter types, the receiver first.
    pub params: Vec<Type>,
    /// The result type.
    pub result: Type,
    /// The Kubernetes minor version whose CEL environment first has this overload (0 for every one).
    pub since: u32,
}

/// Every declared function, by name.
pub fn functions() -> &'static HashMap<&'static str, Vec<Overload>> {
    static TABLE: OnceLock<HashMap<&'static str, Vec<Overload>>> = OnceLock::new();
    TABLE.get_or_init(|| {
        let mut table: HashMap<&'static str, Vec<Overload>> = HashMap::new();
        for (name, signatures) in DECLARATIONS {
            let overloads = table.entry(name).or_default();
            for signature in *signatures {
                let mut overload = parse_signature(signature);
                overload.since = introduced(name, signature);
                overloads.push(overload);
            }
        }
        table
    })
}

/// Parses `(a, b) -> r` or `recv.(a, b) -> r`.
fn parse_signature(signature: &str) -> Overload {
    let (call, result) = signature.split_once("->").unwrap_or_else(|| panic!("no result in {signature}"));
    let call = call.trim();
    let (receiver, args) = match call.strip_prefix('(') {
        Some(rest) => (None, rest),
        None => {
            let at = call.find(".(").unwrap_or_else(|| panic!("bad signature {signature}"));
            (Some(&call[..at]), &call[at + 2..])
        }
    };
    let args = args.strip_suffix(')').unwrap_or_else(|| panic!("bad signature {signature}"));
    let mut params: Vec<Type> = receiver.map(parse_type).into_iter().collect();
    let mut depth = 0usize;
    let mut start = 0usize;
    for (i, c) in args.char_indices() {
        match c {
            '(' => depth += 1,
            ')' => depth -= 1,
            ',' if depth == 0 => {
                params.push(parse_type(&args[start..i]));
                start = i + 1;
            }
            _ => {}
        }
    }
    if !args[start..].trim().is_empty() {
        params.push(parse_type(&args[start..]));
    }
    Overload { receiver: receiver.is_some(), params, result: parse_type(result), since: 0 }
}

/// The Kubernetes minor version whose CEL environment introduced an overload, as `k8s.io/apiserver`'s
/// `pkg/cel/environment/base.go` versions its libraries: quantity, optional types and comparisons
/// across numeric types in 1.28; the strings extension's `format`, `strings.quote` and `join`, and the
/// sets extension in 1.29; IP and CIDR in 1.30; named formats in 1.31; semver in 1.33; cel-go's lists
/// extension (version 3) in 1.34; the Kubernetes lists library's version 1 (`includes`) in 1.37 (1.36
/// added nothing). Everything else (the standard library, strings version 0, the
/// Kubernetes list functions, regex, URLs) is in every environment. A CRD's new rules compile in the
/// environment of the API server's compatibility version, one minor below its own.
fn introduced(name: &str, signature: &str) -> u32 {
    if LISTS_EXTENSION.contains(&name) {
        return LISTS_EXTENSION_SINCE;
    }
    if name == "includes" {
        return KUBERNETES_LISTS_V1_SINCE;
    }
    if signature.contains("kubernetes.Semver") || matches!(name, "semver" | "isSemver") {
        return 33;
    }
    if signature.contains("kubernetes.NamedFormat") {
        return 31;
    }
    if signature.contains("net.IP")
        || signature.contains("net.CIDR")
        || matches!(name, "isIP" | "ip.isCanonical" | "isCIDR" | "cidr" | "ip")
    {
        return 30;
    }
    if matches!(name, "format" | "strings.quote" | "join" | "sets.contains" | "sets.equivalent" | "sets.intersects") {
        return 29;
    }
    if signature.contains("optional_type") || signature.contains("kubernetes.Quantity") || matches!(name, "quantity" | "isQuantity") {
        return 28;
    }
    let comparison = matches!(name, "_<_" | "_<=_" | "_>_" | "_>=_");
    if comparison && ORDERED.iter().position(|o| *o == signature).is_some_and(|_| mixed_numbers(signature)) {
        return 28;
    }
    0
}

/// Whether a comparison's two parameters are different numeric types (`(int, double) -> bool`).
fn mixed_numbers(signature: &str) -> bool {
    let params = signature.trim_start_matches('(').split(')').next().unwrap_or_default();
    let mut types = params.split(',').map(str::trim);
    matches!((types.next(), types.next()), (Some(a), Some(b)) if a != b)
}

/// The CEL environment of the given Kubernetes minor version has the two-variable comprehension
/// macros (`all(k, v, ...)`, `transformList`, `transformMap`, ...).
pub const TWO_VARIABLE_COMPREHENSIONS_SINCE: u32 = 32;
/// The environment's type provider finds a property named after a reserved word by its plain name
/// (`self.namespace` as well as `self.__namespace__`).
pub const KEYWORD_FIELD_NAMES_SINCE: u32 = 31;
/// The environment validates duration, timestamp and regex literals when the rule compiles.
pub const LITERAL_VALIDATION_SINCE: u32 = 29;
/// The environment has cel-go's lists extension, version 3 (`distinct`, `flatten`, `lists.range`,
/// `reverse`, `slice`, `sort` and the `sortBy` macro).
pub const LISTS_EXTENSION_SINCE: u32 = 34;

/// The environment has version 1 of the Kubernetes lists library (`includes`).
pub const KUBERNETES_LISTS_V1_SINCE: u32 = 37;

/// The functions of cel-go's lists extension; `@sortByAssociatedKeys` is what `sortBy` expands to.
const LISTS_EXTENSION: &[&str] = &["slice", "flatten", "distinct", "reverse", "sort", "@sortByAssociatedKeys", "lists.range"];

const ORDERED: &[&str] = &[
    "(bool, bool) -> bool",
    "(int, int) -> bool",
    "(int, uint) -> bool",
    "(int, double) -> bool",
    "(uint, uint) -> bool",
    "(uint, int) -> bool",
    "(uint, double) -> bool",
    "(double, double) -> bool",
    "(double, int) -> bool",
    "(double, uint) -> bool",
    "(string, string) -> bool",
    "(bytes, bytes) -> bool",
    "(timestamp, timestamp) -> bool",
    "(duration, duration) -> bool",
];

const TIME_GETTER: &[&str] = &["timestamp.() -> int", "timestamp.(string) -> int"];
const TIME_AND_DURATION_GETTER: &[&str] = &["timestamp.() -> int", "timestamp.(string) -> int", "duration.() -> int"];
const SORTABLE_LIST: &[&str] = &[
    "list(int).() -> int",
    "list(uint).() -> uint",
    "list(double).() -> double",
    "list(bool).() -> bool",
    "list(string).() -> string",
    "list(bytes).() -> bytes",
    "list(duration).() -> duration",
    "list(timestamp).() -> timestamp",
];
const FORMAT: &[&str] = &["() -> kubernetes.NamedFormat"];
/// `sort` takes lists of the types whose values cel-go orders.
const SORT: &[&str] = &[
    "list(int).() -> list(int)",
    "list(uint).() -> list(uint)",
    "list(double).() -> list(double)",
    "list(bool).() -> list(bool)",
    "list(duration).() -> list(duration)",
    "list(timestamp).() -> list(timestamp)",
    "list(string).() -> list(string)",
    "list(bytes).() -> list(bytes)",
];
/// `sortBy`'s keys are of those types too.
const SORT_BY_KEYS: &[&str] = &[
    "list(A).(list(int)) -> list(A)",
    "list(A).(list(uint)) -> list(A)",
    "list(A).(list(double)) -> list(A)",
    "list(A).(list(bool)) -> list(A)",
    "list(A).(list(duration)) -> list(A)",
    "list(A).(list(timestamp)) -> list(A)",
    "list(A).(list(string)) -> list(A)",
    "list(A).(list(bytes)) -> list(A)",
];

/// Every function: name, then signatures.
const DECLARATIONS: &[(&str, &[&str])] = &[
    // Operators.
    ("!_", &["(bool) -> bool"]),
    ("-_", &["(int) -> int", "(double) -> double"]),
    ("_&&_", &["(bool, bool) -> bool"]),
    ("_||_", &["(bool, bool) -> bool"]),
    ("_?_:_", &["(bool, A, A) -> A"]),
    ("_==_", &["(A, A) -> bool"]),
    ("_!=_", &["(A, A) -> bool"]),
    ("_<_", ORDERED),
    ("_<=_", ORDERED),
    ("_>_", ORDERED),
    ("_>=_", ORDERED),
    (
        "_+_",
        &[
            "(int, int) -> int",
            "(uint, uint) -> uint",
            "(double, double) -> double",
            "(string, string) -> string",
            "(bytes, bytes) -> bytes",
            "(list(A), list(A)) -> list(A)",
            "(timestamp, duration) -> timestamp",
            "(duration, timestamp) -> timestamp",
            "(duration, duration) -> duration",
        ],
    ),
    (
        "_-_",
        &[
            "(int, int) -> int",
            "(uint, uint) -> uint",
            "(double, double) -> double",
            "(timestamp, timestamp) -> duration",
            "(timestamp, duration) -> timestamp",
            "(duration, duration) -> duration",
        ],
    ),
    ("_*_", &["(int, int) -> int", "(uint, uint) -> uint", "(double, double) -> double"]),
    ("_/_", &["(int, int) -> int", "(uint, uint) -> uint", "(double, double) -> double"]),
    ("_%_", &["(int, int) -> int", "(uint, uint) -> uint"]),
    (
        "_[_]",
        &[
            "(list(A), int) -> A",
            "(map(K, V), K) -> V",
            "(optional_type(list(A)), int) -> optional_type(A)",
            "(optional_type(map(K, V)), K) -> optional_type(V)",
        ],
    ),
    (
        "_[?_]",
        &[
            "(list(A), int) -> optional_type(A)",
            "(map(K, V), K) -> optional_type(V)",
            "(optional_type(list(A)), int) -> optional_type(A)",
            "(optional_type(map(K, V)), K) -> optional_type(V)",
        ],
    ),
    ("@in", &["(A, list(A)) -> bool", "(A, map(A, B)) -> bool"]),
    ("@not_strictly_false", &["(bool) -> bool"]),
    ("cel.@mapInsert", &["(map(K, V), K, V) -> map(K, V)", "(map(K, V), map(K, V)) -> map(K, V)"]),
    // Sizes and strings.
    (
        "size",
        &[
            "(string) -> int",
            "(bytes) -> int",
            "(list(A)) -> int",
            "(map(K, V)) -> int",
            "string.() -> int",
            "bytes.() -> int",
            "list(A).() -> int",
            "map(K, V).() -> int",
        ],
    ),
    ("contains", &["string.(string) -> bool"]),
    ("startsWith", &["string.(string) -> bool"]),
    ("endsWith", &["string.(string) -> bool"]),
    ("matches", &["(string, string) -> bool", "string.(string) -> bool"]),
    // Conversions.
    ("int", &["(int) -> int", "(uint) -> int", "(double) -> int", "(duration) -> int", "(string) -> int", "(timestamp) -> int"]),
    ("uint", &["(uint) -> uint", "(int) -> uint", "(double) -> uint", "(string) -> uint"]),
    ("double", &["(double) -> double", "(int) -> double", "(uint) -> double", "(string) -> double"]),
    (
        "string",
        &[
            "(string) -> string",
            "(int) -> string",
            "(uint) -> string",
            "(double) -> string",
            "(bool) -> string",
            "(bytes) -> string",
            "(timestamp) -> string",
            "(duration) -> string",
            "(net.IP) -> string",
            "(net.CIDR) -> string",
        ],
    ),
    ("bytes", &["(bytes) -> bytes", "(string) -> bytes"]),
    ("bool", &["(bool) -> bool", "(string) -> bool"]),
    ("duration", &["(duration) -> duration", "(string) -> duration"]),
    ("timestamp", &["(timestamp) -> timestamp", "(string) -> timestamp", "(int) -> timestamp"]),
    ("dyn", &["(A) -> dyn"]),
    ("type", &["(A) -> type(A)"]),
    // Time.
    ("getFullYear", TIME_GETTER),
    ("getMonth", TIME_GETTER),
    ("getDayOfYear", TIME_GETTER),
    ("getDayOfMonth", TIME_GETTER),
    ("getDate", TIME_GETTER),
    ("getDayOfWeek", TIME_GETTER),
    ("getHours", TIME_AND_DURATION_GETTER),
    ("getMinutes", TIME_AND_DURATION_GETTER),
    ("getSeconds", TIME_AND_DURATION_GETTER),
    ("getMilliseconds", TIME_AND_DURATION_GETTER),
    // The strings extension, version 2.
    ("charAt", &["string.(int) -> string"]),
    ("indexOf", &["string.(string) -> int", "string.(string, int) -> int", "list(A).(A) -> int"]),
    ("lastIndexOf", &["string.(string) -> int", "string.(string, int) -> int", "list(A).(A) -> int"]),
    // The Kubernetes lists library, version 1 (1.37): on a list, whether it has the element; on anything
    // else, whether the two are equal.
    ("includes", &["dyn.(dyn) -> bool"]),
    ("lowerAscii", &["string.() -> string"]),
    ("upperAscii", &["string.() -> string"]),
    ("replace", &["string.(string, string) -> string", "string.(string, string, int) -> string"]),
    ("split", &["string.(string) -> list(string)", "string.(string, int) -> list(string)"]),
    ("substring", &["string.(int) -> string", "string.(int, int) -> string"]),
    ("trim", &["string.() -> string"]),
    ("join", &["list(string).() -> string", "list(string).(string) -> string"]),
    ("format", &["string.(list(dyn)) -> string"]),
    ("strings.quote", &["(string) -> string"]),
    // Kubernetes lists.
    (
        "isSorted",
        &[
            "list(int).() -> bool",
            "list(uint).() -> bool",
            "list(double).() -> bool",
            "list(bool).() -> bool",
            "list(string).() -> bool",
            "list(bytes).() -> bool",
            "list(duration).() -> bool",
            "list(timestamp).() -> bool",
        ],
    ),
    ("sum", &["list(int).() -> int", "list(uint).() -> uint", "list(double).() -> double", "list(duration).() -> duration"]),
    ("min", SORTABLE_LIST),
    ("max", SORTABLE_LIST),
    // cel-go's lists extension, version 3. `flatten()` unwraps one level of a list of lists; with a
    // depth it takes any list (cel-go declares it on `list(dyn)`).
    ("slice", &["list(A).(int, int) -> list(A)"]),
    ("flatten", &["list(list(A)).() -> list(A)", "list(dyn).(int) -> list(dyn)"]),
    ("distinct", &["list(A).() -> list(A)"]),
    ("reverse", &["list(A).() -> list(A)"]),
    ("sort", SORT),
    ("@sortByAssociatedKeys", SORT_BY_KEYS),
    ("lists.range", &["(int) -> list(int)"]),
    // Sets.
    ("sets.contains", &["(list(A), list(A)) -> bool"]),
    ("sets.equivalent", &["(list(A), list(A)) -> bool"]),
    ("sets.intersects", &["(list(A), list(A)) -> bool"]),
    // Regex.
    ("find", &["string.(string) -> string"]),
    ("findAll", &["string.(string) -> list(string)", "string.(string, int) -> list(string)"]),
    // URLs.
    ("url", &["(string) -> kubernetes.URL"]),
    ("isURL", &["(string) -> bool"]),
    ("getScheme", &["kubernetes.URL.() -> string"]),
    ("getHost", &["kubernetes.URL.() -> string"]),
    ("getHostname", &["kubernetes.URL.() -> string"]),
    ("getPort", &["kubernetes.URL.() -> string"]),
    ("getEscapedPath", &["kubernetes.URL.() -> string"]),
    ("getQuery", &["kubernetes.URL.() -> map(string, list(string))"]),
    // Quantity.
    ("quantity", &["(string) -> kubernetes.Quantity"]),
    ("isQuantity", &["(string) -> bool"]),
    // `sign` is a global function, `sign(q)`: k8s.io/apiserver's quantity library declares it with a global
    // overload, although its documentation writes `<Quantity>.sign()`, which the API server rejects.
    ("sign", &["(kubernetes.Quantity) -> int"]),
    ("isInteger", &["kubernetes.Quantity.() -> bool"]),
    ("asInteger", &["kubernetes.Quantity.() -> int"]),
    ("asApproximateFloat", &["kubernetes.Quantity.() -> double"]),
    ("add", &["kubernetes.Quantity.(kubernetes.Quantity) -> kubernetes.Quantity", "kubernetes.Quantity.(int) -> kubernetes.Quantity"]),
    ("sub", &["kubernetes.Quantity.(kubernetes.Quantity) -> kubernetes.Quantity", "kubernetes.Quantity.(int) -> kubernetes.Quantity"]),
    ("isLessThan", &["kubernetes.Quantity.(kubernetes.Quantity) -> bool", "kubernetes.Semver.(kubernetes.Semver) -> bool"]),
    ("isGreaterThan", &["kubernetes.Quantity.(kubernetes.Quantity) -> bool", "kubernetes.Semver.(kubernetes.Semver) -> bool"]),
    ("compareTo", &["kubernetes.Quantity.(kubernetes.Quantity) -> int", "kubernetes.Semver.(kubernetes.Semver) -> int"]),
    // IP and CIDR.
    ("ip", &["(string) -> net.IP", "net.CIDR.() -> net.IP"]),
    ("isIP", &["(string) -> bool"]),
    ("ip.isCanonical", &["(string) -> bool"]),
    ("family", &["net.IP.() -> int"]),
    ("isUnspecified", &["net.IP.() -> bool"]),
    ("isLoopback", &["net.IP.() -> bool"]),
    ("isLinkLocalMulticast", &["net.IP.() -> bool"]),
    ("isLinkLocalUnicast", &["net.IP.() -> bool"]),
    ("isGlobalUnicast", &["net.IP.() -> bool"]),
    ("cidr", &["(string) -> net.CIDR"]),
    ("isCIDR", &["(string) -> bool"]),
    ("containsIP", &["net.CIDR.(string) -> bool", "net.CIDR.(net.IP) -> bool"]),
    ("containsCIDR", &["net.CIDR.(string) -> bool", "net.CIDR.(net.CIDR) -> bool"]),
    ("masked", &["net.CIDR.() -> net.CIDR"]),
    ("prefixLength", &["net.CIDR.() -> int"]),
    // Named formats.
    ("format.named", &["(string) -> optional_type(kubernetes.NamedFormat)"]),
    ("format.dns1123Label", FORMAT),
    ("format.dns1123Subdomain", FORMAT),
    ("format.dns1035Label", FORMAT),
    ("format.qualifiedName", FORMAT),
    ("format.dns1123LabelPrefix", FORMAT),
    ("format.dns1123SubdomainPrefix", FORMAT),
    ("format.dns1035LabelPrefix", FORMAT),
    ("format.labelValue", FORMAT),
    ("format.uri", FORMAT),
    ("format.uuid", FORMAT),
    ("format.byte", FORMAT),
    ("format.date", FORMAT),
    ("format.datetime", FORMAT),
    ("validate", &["kubernetes.NamedFormat.(string) -> optional_type(list(string))"]),
    // Semver.
    ("semver", &["(string) -> kubernetes.Semver", "(string, bool) -> kubernetes.Semver"]),
    ("isSemver", &["(string) -> bool", "(string, bool) -> bool"]),
    ("major", &["kubernetes.Semver.() -> int"]),
    ("minor", &["kubernetes.Semver.() -> int"]),
    ("patch", &["kubernetes.Semver.() -> int"]),
    // Optional types.
    ("optional.of", &["(A) -> optional_type(A)"]),
    ("optional.ofNonZeroValue", &["(A) -> optional_type(A)"]),
    ("optional.none", &["() -> optional_type(A)"]),
    ("hasValue", &["optional_type(A).() -> bool"]),
    ("value", &["optional_type(A).() -> A"]),
    ("orValue", &["optional_type(A).(A) -> A"]),
    ("or", &["optional_type(A).(optional_type(A)) -> optional_type(A)"]),
];

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_signature_parses() {
        let table = functions();
        let size = &table["size"];
        assert_eq!(size.len(), 8);
        assert!(size[4].receiver);
        assert_eq!(size[4].params, vec![Type::String]);
        let add = &table["add"][0];
        assert_eq!(add.params.len(), 2);
        assert_eq!(add.result.to_string(), "kubernetes.Quantity");
        assert_eq!(table["_[_]"][1].params[0].to_string(), "map(K, V)");
    }

    #[test]
    fn overloads_know_the_release_that_brought_them() {
        let table = functions();
        let since = |name: &str, i: usize| table[name][i].since;
        assert_eq!((since("isIP", 0), since("string", 8), since("string", 0)), (30, 30, 0));
        assert_eq!((since("_<_", 1), since("_<_", 2), since("_<_", 3)), (0, 28, 28));
        assert_eq!(
            (since("format", 0), since("sets.contains", 0), since("isSemver", 0), since("format.dns1123Label", 0)),
            (29, 29, 33, 31)
        );
        assert_eq!((since("quantity", 0), since("optional.of", 0), since("_[_]", 2), since("size", 0)), (28, 28, 28, 0));
        assert_eq!((since("distinct", 0), since("sort", 7), since("lists.range", 0), since("isSorted", 0)), (34, 34, 34, 0));
        assert_eq!(since("includes", 0), 37);
    }
}
