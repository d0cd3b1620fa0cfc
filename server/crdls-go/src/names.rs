//! Kubernetes name, label and annotation rules with the API server's exact detail messages
//! (`k8s.io/apimachinery/pkg/util/validation`, `pkg/api/validate/content`, `pkg/api/validation`).
//!
//! Each check returns the detail strings the API server would produce, one per problem, in
//! upstream order; an empty vector means the value is valid. The caller wraps each detail in a
//! field error. How `ValidateObjectMetaAccessor` (the function the API server runs on every
//! custom resource, with `NameIsDNSSubdomain` as the name rule) reports each field:
//!
//! | field | check | error | path | printed value |
//! |---|---|---|---|---|
//! | `name` (empty or absent) | — | `Required` | `metadata.name` | none; detail `name or generateName is required` |
//! | `name` | [`dns1123_subdomain`] | `Invalid` | `metadata.name` | the name |
//! | `generateName` (non-empty) | [`generate_name`] | `Invalid` | `metadata.generateName` | the generateName as written |
//! | `namespace` (non-empty) | [`dns1123_label`] | `Invalid` | `metadata.namespace` | the namespace |
//! | label key | [`qualified_name`] | `Invalid` | `metadata.labels` (no `[key]`) | the key |
//! | label value | [`label_value`] | `Invalid` | `metadata.labels` (no `[key]`) | the value |
//! | annotation key | [`qualified_name`] of the key lower-cased | `Invalid` | `metadata.annotations` | the key as written |
//! | all annotations | total bytes of keys and values over [`TOTAL_ANNOTATION_SIZE_LIMIT`] | `TooLong` | `metadata.annotations` | none; detail [`annotations_too_long_detail`] |
//! | each finalizer | [`qualified_name`] | `Invalid` | `metadata.finalizers` (no index) | the finalizer |
//!
//! So a bad label value prints as
//! `metadata.labels: Invalid value: "_": a valid label must be an empty string or consist of …`
//! and the annotation size error as
//! `metadata.annotations: Too long: may not be more than 262144 bytes`.
//! Labels and annotations are Go maps, so the API server reports them in random order.
//! Embedded resources (`x-kubernetes-embedded-resource`) use the same table except that their
//! names are checked with [`path_segment_name`] (and `generateName` with [`path_segment_prefix`])
//! instead of the DNS rules, and a missing name is not an error there.
//!
//! Wording follows Kubernetes 1.35 and later. Kubernetes 1.34 and earlier differ in two ways
//! for label keys and values only (object names and namespaces are unchanged): lengths say
//! `characters` instead of `bytes`, and a key with two or more slashes says `a qualified name …`
//! instead of `a valid label key …`.

use std::sync::LazyLock;

use regex::bytes::Regex;

/// The most bytes all keys and values of an object's annotations may hold together.
pub const TOTAL_ANNOTATION_SIZE_LIMIT: usize = 256 * 1024;

const DNS1123_LABEL_FMT: &str = "[a-z0-9]([-a-z0-9]*[a-z0-9])?";
const DNS1123_SUBDOMAIN_FMT: &str = r"[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*";
const DNS1035_LABEL_FMT: &str = "[a-z]([-a-z0-9]*[a-z0-9])?";
const LABEL_KEY_FMT: &str = "([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]";
const LABEL_VALUE_FMT: &str = "(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?";

const DNS1123_LABEL_MSG: &str = "a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', and must start and end with an alphanumeric character";
const DNS1123_SUBDOMAIN_MSG: &str = "a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character";
const DNS1035_LABEL_MSG: &str = "a DNS-1035 label must consist of lower case alphanumeric characters or '-', start with an alphabetic character, and end with an alphanumeric character";
const LABEL_KEY_MSG: &str =
    "must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character";
const LABEL_VALUE_MSG: &str = "a valid label must be an empty string or consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character";

const DNS1123_LABEL_MAX: usize = 63;
const DNS1123_SUBDOMAIN_MAX: usize = 253;
const DNS1035_LABEL_MAX: usize = 63;
const LABEL_KEY_NAME_MAX: usize = 63;
const LABEL_VALUE_MAX: usize = 63;

/// Compiles a pattern anchored at both ends. Byte regexes let [`generate_name`] check the
/// masked prefix even when masking cut a multi-byte character, as Go's byte slicing does.
fn anchored(pattern: &str) -> Regex {
    Regex::new(&format!("^(?:{pattern})$")).expect("the name patterns are valid")
}

static DNS1123_LABEL_RE: LazyLock<Regex> = LazyLock::new(|| anchored(DNS1123_LABEL_FMT));
static DNS1123_SUBDOMAIN_RE: LazyLock<Regex> = LazyLock::new(|| anchored(DNS1123_SUBDOMAIN_FMT));
static DNS1035_LABEL_RE: LazyLock<Regex> = LazyLock::new(|| anchored(DNS1035_LABEL_FMT));
static LABEL_KEY_RE: LazyLock<Regex> = LazyLock::new(|| anchored(LABEL_KEY_FMT));
static LABEL_VALUE_RE: LazyLock<Regex> = LazyLock::new(|| anchored(LABEL_VALUE_FMT));

/// The length detail of `pkg/util/validation` (object names, namespaces).
fn max_len_characters(max: usize) -> String {
    format!("must be no more than {max} characters")
}

/// The length detail of `pkg/api/validate/content` (label keys and values, since 1.35).
fn max_len_bytes(max: usize) -> String {
    format!("must be no more than {max} bytes")
}

/// The regex detail: the message, the examples (each followed by a comma, joined by " or ",
/// which is where upstream's double spaces come from), then the pattern.
fn regex_error(msg: &str, pattern: &str, examples: &[&str]) -> String {
    let mut out = msg.to_string();
    if examples.is_empty() {
        out.push_str(" (regex used for validation is '");
    } else {
        out.push_str(" (e.g. ");
        for (i, example) in examples.iter().enumerate() {
            if i > 0 {
                out.push_str(" or ");
            }
            out.push('\'');
            out.push_str(example);
            out.push_str("', ");
        }
        out.push_str("regex used for validation is '");
    }
    out.push_str(pattern);
    out.push_str("')");
    out
}

/// A DNS-1123 subdomain as object names must be: at most 253 characters of lower-case
/// alphanumerics, '-' and '.', each dot-separated part starting and ending alphanumeric.
pub fn dns1123_subdomain(value: &str) -> Vec<String> {
    subdomain_bytes(value.as_bytes(), max_len_characters)
}

fn subdomain_bytes(value: &[u8], max_len: fn(usize) -> String) -> Vec<String> {
    let mut errs = Vec::new();
    if value.len() > DNS1123_SUBDOMAIN_MAX {
        errs.push(max_len(DNS1123_SUBDOMAIN_MAX));
    }
    if !DNS1123_SUBDOMAIN_RE.is_match(value) {
        errs.push(regex_error(DNS1123_SUBDOMAIN_MSG, DNS1123_SUBDOMAIN_FMT, &["example.com"]));
    }
    errs
}

/// A DNS-1123 label as namespaces must be: at most 63 lower-case alphanumerics and '-',
/// starting and ending alphanumeric.
pub fn dns1123_label(value: &str) -> Vec<String> {
    let mut errs = Vec::new();
    if value.len() > DNS1123_LABEL_MAX {
        errs.push(max_len_characters(DNS1123_LABEL_MAX));
    }
    if !DNS1123_LABEL_RE.is_match(value.as_bytes()) {
        // A valid subdomain that is not a valid label can only be wrong because of its dots.
        if DNS1123_SUBDOMAIN_RE.is_match(value.as_bytes()) {
            errs.push("must not contain dots".to_string());
        } else {
            errs.push(regex_error(DNS1123_LABEL_MSG, DNS1123_LABEL_FMT, &["my-name", "123-abc"]));
        }
    }
    errs
}

/// A DNS-1035 label as service names must be: like a DNS-1123 label, but starting with a letter.
pub fn dns1035_label(value: &str) -> Vec<String> {
    let mut errs = Vec::new();
    if value.len() > DNS1035_LABEL_MAX {
        errs.push(max_len_characters(DNS1035_LABEL_MAX));
    }
    if !DNS1035_LABEL_RE.is_match(value.as_bytes()) {
        errs.push(regex_error(DNS1035_LABEL_MSG, DNS1035_LABEL_FMT, &["my-name", "abc-123"]));
    }
    errs
}

/// A qualified name as label keys, annotation keys and finalizers must be: an optional DNS
/// subdomain prefix and '/', then a name of at most 63 alphanumerics, '-', '_' and '.',
/// starting and ending alphanumeric.
pub fn qualified_name(value: &str) -> Vec<String> {
    let mut errs = Vec::new();
    let parts: Vec<&str> = value.split('/').collect();
    let name = match parts.as_slice() {
        [name] => *name,
        [prefix, name] => {
            if prefix.is_empty() {
                errs.push("prefix part must be non-empty".to_string());
            } else {
                for msg in subdomain_bytes(prefix.as_bytes(), max_len_bytes) {
                    errs.push(format!("prefix part {msg}"));
                }
            }
            *name
        }
        _ => {
            // Only this one message, whatever else is wrong.
            let inner = regex_error(LABEL_KEY_MSG, LABEL_KEY_FMT, &["MyName", "my.name", "123-abc"]);
            errs.push(format!("a valid label key {inner} with an optional DNS subdomain prefix and '/' (e.g. 'example.com/MyName')"));
            return errs;
        }
    };
    if name.is_empty() {
        errs.push("name part must be non-empty".to_string());
    } else if name.len() > LABEL_KEY_NAME_MAX {
        errs.push(format!("name part {}", max_len_bytes(LABEL_KEY_NAME_MAX)));
    }
    // An empty name fails the pattern as well, so it gets two details.
    if !LABEL_KEY_RE.is_match(name.as_bytes()) {
        errs.push(format!("name part {}", regex_error(LABEL_KEY_MSG, LABEL_KEY_FMT, &["MyName", "my.name", "123-abc"])));
    }
    errs
}

/// A label value: empty, or at most 63 alphanumerics, '-', '_' and '.', starting and ending
/// alphanumeric.
pub fn label_value(value: &str) -> Vec<String> {
    let mut errs = Vec::new();
    if value.len() > LABEL_VALUE_MAX {
        errs.push(max_len_bytes(LABEL_VALUE_MAX));
    }
    if !LABEL_VALUE_RE.is_match(value.as_bytes()) {
        errs.push(regex_error(LABEL_VALUE_MSG, LABEL_VALUE_FMT, &["MyValue", "my_value", "12345"]));
    }
    errs
}

/// A non-empty `generateName` of an object whose names are DNS subdomains
/// (`NameIsDNSSubdomain(name, prefix=true)`).
///
/// A trailing '-' is allowed because random characters follow it. Upstream masks it by
/// replacing the last *two* bytes with `a` (so `ab-` is checked as `aa`); the messages describe
/// that masked string, while the field error prints the generateName as written.
pub fn generate_name(value: &str) -> Vec<String> {
    let bytes = value.as_bytes();
    if bytes.len() > 1 && bytes.ends_with(b"-") {
        let mut masked = bytes[..bytes.len() - 2].to_vec();
        masked.push(b'a');
        subdomain_bytes(&masked, max_len_characters)
    } else {
        subdomain_bytes(bytes, max_len_characters)
    }
}

/// A non-empty `generateName` of an object whose names follow `rule` (`dns1123_label` or
/// `dns1035_label`), as `NameIsDNSLabel(name, prefix=true)` checks it: the trailing '-' masked as in
/// [`generate_name`].
pub fn generate_name_for(value: &str, rule: fn(&str) -> Vec<String>) -> Vec<String> {
    let bytes = value.as_bytes();
    if bytes.len() > 1 && bytes.ends_with(b"-") {
        let mut masked = bytes[..bytes.len() - 2].to_vec();
        masked.push(b'a');
        rule(&String::from_utf8_lossy(&masked))
    } else {
        rule(value)
    }
}

/// The name of an embedded resource (`IsPathSegmentName`): not `.` or `..`, and neither '/'
/// nor '%' anywhere. Empty names and lengths are not checked.
pub fn path_segment_name(value: &str) -> Vec<String> {
    if value == "." || value == ".." {
        return vec![format!("may not be '{value}'")];
    }
    path_segment_prefix(value)
}

/// The `generateName` of an embedded resource (`IsPathSegmentPrefix`): neither '/' nor '%'.
pub fn path_segment_prefix(value: &str) -> Vec<String> {
    ["/", "%"].iter().filter(|bad| value.contains(**bad)).map(|bad| format!("may not contain '{bad}'")).collect()
}

/// The detail of the `TooLong` error on `metadata.annotations` when the keys and values of all
/// annotations together exceed [`TOTAL_ANNOTATION_SIZE_LIMIT`] bytes. The error prints no
/// value: `metadata.annotations: Too long: may not be more than 262144 bytes`.
pub fn annotations_too_long_detail() -> String {
    format!("may not be more than {TOTAL_ANNOTATION_SIZE_LIMIT} bytes")
}

/// The whole field error for oversized annotations, for the metadata at `path` (such as
/// `metadata` or `spec.template.metadata`).
pub fn annotations_too_long_message(metadata_path: &str) -> String {
    format!("{metadata_path}.annotations: Too long: {}", annotations_too_long_detail())
}

#[cfg(test)]
mod tests {
    use super::*;

    const SUBDOMAIN_REGEX_DETAIL: &str = r"a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character (e.g. 'example.com', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')";
    const LABEL_VALUE_REGEX_DETAIL: &str = "a valid label must be an empty string or consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyValue',  or 'my_value',  or '12345', regex used for validation is '(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?')";
    const NAME_PART_REGEX_DETAIL: &str = "name part must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]')";

    /// The detail of kubectl-validate's `error_invalid_name.yaml`.
    #[test]
    fn invalid_name_matches_corpus() {
        assert_eq!(dns1123_subdomain("x.com^2"), vec![SUBDOMAIN_REGEX_DETAIL.to_string()]);
    }

    /// The detail of kubectl-validate's `error_name_exceeds_max_length.yaml`.
    #[test]
    fn long_name_matches_corpus() {
        let name = "thisisaveryveryveryveryveryveryverylongname".repeat(6);
        assert_eq!(name.len(), 258);
        assert_eq!(dns1123_subdomain(&name), vec!["must be no more than 253 characters".to_string()]);
    }

    /// The detail of kubectl-validate's `error_invalid_label.yaml` (label `owner: _`).
    #[test]
    fn invalid_label_value_matches_corpus() {
        assert_eq!(label_value("_"), vec![LABEL_VALUE_REGEX_DETAIL.to_string()]);
        assert!(qualified_name("owner").is_empty());
    }

    #[test]
    fn subdomains() {
        for ok in ["a", "example.com", "a-b.c-d", "0.1", &"a".repeat(253)] {
            assert!(dns1123_subdomain(ok).is_empty(), "{ok}");
        }
        for bad in ["", "A", "-a", "a-", "a..b", ".a", "a.", "a_b", "é"] {
            assert_eq!(dns1123_subdomain(bad), vec![SUBDOMAIN_REGEX_DETAIL.to_string()], "{bad}");
        }
        let long_and_bad = format!("{}_", "a".repeat(253));
        assert_eq!(
            dns1123_subdomain(&long_and_bad),
            vec!["must be no more than 253 characters".to_string(), SUBDOMAIN_REGEX_DETAIL.to_string()]
        );
        // Go counts bytes: 127 two-byte characters are too long.
        assert_eq!(dns1123_subdomain(&"é".repeat(127))[0], "must be no more than 253 characters");
    }

    #[test]
    fn label_prefixes_mask_their_trailing_dash() {
        assert!(generate_name_for("web-", dns1123_label).is_empty());
        assert_eq!(generate_name_for("a.b-", dns1123_label), vec!["must not contain dots".to_string()]);
        assert!(generate_name_for("1a-", dns1123_label).is_empty());
        assert_eq!(generate_name_for("1a-", dns1035_label).len(), 1);
    }

    #[test]
    fn dns1123_labels() {
        let regex_detail = "a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', and must start and end with an alphanumeric character (e.g. 'my-name',  or '123-abc', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?')";
        assert!(dns1123_label("kube-system").is_empty());
        assert!(dns1123_label("0").is_empty());
        assert_eq!(dns1123_label("a.b"), vec!["must not contain dots".to_string()]);
        assert_eq!(dns1123_label("Default"), vec![regex_detail.to_string()]);
        assert_eq!(dns1123_label(""), vec![regex_detail.to_string()]);
        assert_eq!(dns1123_label(&"a".repeat(64)), vec!["must be no more than 63 characters".to_string()]);
    }

    #[test]
    fn dns1035_labels() {
        let regex_detail = "a DNS-1035 label must consist of lower case alphanumeric characters or '-', start with an alphabetic character, and end with an alphanumeric character (e.g. 'my-name',  or 'abc-123', regex used for validation is '[a-z]([-a-z0-9]*[a-z0-9])?')";
        assert!(dns1035_label("web-1").is_empty());
        assert_eq!(dns1035_label("1web"), vec![regex_detail.to_string()]);
        assert_eq!(dns1035_label(&"a".repeat(64)), vec!["must be no more than 63 characters".to_string()]);
    }

    #[test]
    fn qualified_names() {
        for ok in ["app", "app.kubernetes.io/name", "A_b.C-1", "example.com/MyName", &"a".repeat(63)] {
            assert!(qualified_name(ok).is_empty(), "{ok}");
        }
        assert_eq!(qualified_name("-app"), vec![NAME_PART_REGEX_DETAIL.to_string()]);
        assert_eq!(qualified_name(""), vec!["name part must be non-empty".to_string(), NAME_PART_REGEX_DETAIL.to_string()]);
        assert_eq!(qualified_name("example.com/"), vec!["name part must be non-empty".to_string(), NAME_PART_REGEX_DETAIL.to_string()]);
        assert_eq!(qualified_name(&"a".repeat(64)), vec!["name part must be no more than 63 bytes".to_string()]);
        assert_eq!(qualified_name("/app"), vec!["prefix part must be non-empty".to_string()]);
        assert_eq!(qualified_name("Example.com/app"), vec![format!("prefix part {SUBDOMAIN_REGEX_DETAIL}")]);
        assert_eq!(qualified_name(&format!("{}/app", "a".repeat(254))), vec!["prefix part must be no more than 253 bytes".to_string()]);
        assert_eq!(
            qualified_name("a/b/c"),
            vec!["a valid label key must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]') with an optional DNS subdomain prefix and '/' (e.g. 'example.com/MyName')".to_string()]
        );
        // Prefix and name errors add up, prefix first.
        assert_eq!(qualified_name("_/_"), vec![format!("prefix part {SUBDOMAIN_REGEX_DETAIL}"), NAME_PART_REGEX_DETAIL.to_string()]);
    }

    #[test]
    fn label_values() {
        for ok in ["", "v1", "My_Value.2", &"a".repeat(63)] {
            assert!(label_value(ok).is_empty(), "{ok:?}");
        }
        assert_eq!(label_value("a b"), vec![LABEL_VALUE_REGEX_DETAIL.to_string()]);
        assert_eq!(label_value(&"a".repeat(64)), vec!["must be no more than 63 bytes".to_string()]);
        assert_eq!(
            label_value(&format!("{}-", "a".repeat(63))),
            vec!["must be no more than 63 bytes".to_string(), LABEL_VALUE_REGEX_DETAIL.to_string()]
        );
    }

    #[test]
    fn generate_names() {
        assert!(generate_name("web-").is_empty());
        assert!(generate_name("web").is_empty());
        // The character before the dash goes too, so "a.-" is checked as "aa" and is fine,
        // while "-" alone is not masked.
        assert!(generate_name("a.-").is_empty());
        assert_eq!(generate_name("-"), vec![SUBDOMAIN_REGEX_DETAIL.to_string()]);
        assert_eq!(generate_name("Web-"), vec![SUBDOMAIN_REGEX_DETAIL.to_string()]);
        // 254 bytes ending in '-' are masked to 253 and fit.
        assert!(generate_name(&format!("{}-", "a".repeat(253))).is_empty());
        // A cut multi-byte character never matches.
        assert_eq!(generate_name("é-"), vec![SUBDOMAIN_REGEX_DETAIL.to_string()]);
    }

    #[test]
    fn path_segments() {
        assert!(path_segment_name("fakename").is_empty());
        assert_eq!(path_segment_name(".."), vec!["may not be '..'".to_string()]);
        assert_eq!(path_segment_name("a/b%"), vec!["may not contain '/'".to_string(), "may not contain '%'".to_string()]);
        assert!(path_segment_prefix("..").is_empty());
    }

    #[test]
    fn annotation_size() {
        assert_eq!(TOTAL_ANNOTATION_SIZE_LIMIT, 262_144);
        assert_eq!(annotations_too_long_detail(), "may not be more than 262144 bytes");
        assert_eq!(annotations_too_long_message("metadata"), "metadata.annotations: Too long: may not be more than 262144 bytes");
    }
}
