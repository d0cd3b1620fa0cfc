//! Decoding a built-in object's body into its Go type, as the API server does before anything else:
//! what Go's JSON decoder refuses, in its words, and which refusal is the API server's whole answer.
//!
//! The API server converts the YAML to JSON (object keys sorted, as `sigs.k8s.io/yaml` writes them)
//! and decodes it into the kind's Go struct. A value of the wrong JSON type is an
//! `UnmarshalTypeError` (`json: cannot unmarshal string into Go struct field DeploymentSpec.spec.replicas
//! of type int32`): the decoder remembers the first one and goes on. A type that decodes itself (a
//! quantity, an int-or-string, a time or duration, which Go's time package parses) stops the decoding at
//! its first error. Base64 that does not
//! decode is remembered like a type error. The request fails with the stopping error if there is one,
//! else with the first one remembered, as `<Kind> in version "<v>" cannot be handled as a <Kind>:
//! <error>`, and nothing is validated. crdls reports every value Go cannot decode; the one the API
//! server names carries its answer.
//!
//! The Go types come from `crdls_builtins::go_types`.

use crdls_builtins::go_types::{self, GoType, Shape};
use crdls_diagnostics::{codes, Diagnostic, Severity, TextRange};
use crdls_yaml::{Node, Value};

use crate::gofmt;

/// One value Go's decoder refuses.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Problem {
    /// The value.
    pub(crate) range: TextRange,
    /// Its path as the API server prints paths (`spec.template.spec.containers[0].image`).
    pub(crate) path: String,
    /// The decoder's error, as it prints it.
    pub(crate) words: String,
    /// What crdls says (for a type error; a quantity or base64 already has its message).
    pub(crate) message: String,
    /// Whether the error stops the decoding (a self-decoding type's), or is remembered.
    pub(crate) stops: bool,
}

/// Every value of `root` (a built-in object of `group`/`version`/`kind`) that Go cannot decode, in
/// the decoder's order, with the index of the one the API server answers with. Nothing when the table
/// does not know the kind.
pub(crate) fn problems(root: &Node, group: &str, version: &str, kind: &str) -> (Vec<Problem>, Option<usize>) {
    let Some(body) = go_types::body(group, version, kind) else { return (Vec::new(), None) };
    let mut walk = Walk { out: Vec::new(), kind };
    let context = Context { go_struct: "", fields: String::new(), path: String::new() };
    walk.value(root, body, &context, 0);
    let answer = walk.out.iter().position(|p| p.stops).or(if walk.out.is_empty() { None } else { Some(0) });
    (walk.out, answer)
}

/// Adds what decoding refuses in a built-in object to `found`: a type error rewords the schema's
/// `schema/type` at the same value (or is added), and the refusal the API server answers with carries
/// its answer as the cause. A decoding cause crdls had given another value (a quantity, base64, a
/// metadata type) is dropped: the API server names only one.
pub(crate) fn apply(root: &Node, (group, version, kind): (&str, &str, &str), found: &mut Vec<Diagnostic>) {
    let (problems, answer) = problems(root, group, version, kind);
    if problems.is_empty() {
        return;
    }
    let refusal = |d: &Diagnostic| {
        d.cause
            .as_deref()
            .is_some_and(|c| c.contains(" cannot be handled as a ") || (d.code == codes::METADATA_TYPE && c.starts_with("json: ")))
    };
    for d in found.iter_mut().filter(|d| refusal(d)) {
        d.cause = None;
    }
    for (i, problem) in problems.into_iter().enumerate() {
        let cause =
            (Some(i) == answer).then(|| format!("{kind} in version \"{version}\" cannot be handled as a {kind}: {}", problem.words));
        let same = |d: &Diagnostic| {
            d.range == problem.range
                && matches!(d.code, codes::SCHEMA_TYPE | codes::METADATA_TYPE | codes::NATIVE_QUANTITY | codes::SCHEMA_FORMAT)
        };
        match found.iter_mut().find(|d| same(d)) {
            Some(d) => {
                if d.code == codes::SCHEMA_TYPE {
                    d.message = problem.message;
                }
                d.cause = cause;
            }
            None => {
                let mut d = Diagnostic::new(problem.range, Severity::Error, codes::SCHEMA_TYPE, problem.message).with_path(problem.path);
                d.cause = cause;
                found.push(d);
            }
        }
    }
}

/// Where the decoder is: the struct whose field it decodes and the JSON names of the fields from the
/// body down (with the embedded structs' Go names), which its type errors print; and the API path.
struct Context<'a> {
    go_struct: &'a str,
    fields: String,
    path: String,
}

struct Walk<'k> {
    out: Vec<Problem>,
    kind: &'k str,
}

/// A mapping's entries in the order the decoder reads them: the JSON it is given has its keys sorted.
fn in_key_order(entries: &[crdls_yaml::Entry]) -> Vec<&crdls_yaml::Entry> {
    let mut sorted: Vec<_> = entries.iter().collect();
    sorted.sort_by(|a, b| a.key.cmp(&b.key));
    sorted
}

/// Deeper than any built-in type nests; a hostile document stops here.
const MAX_DEPTH: usize = 64;

impl Walk<'_> {
    fn value(&mut self, node: &Node, ty: GoType, at: &Context<'_>, depth: usize) {
        // A null leaves any Go value as it is; every self-decoding type takes it too.
        if depth > MAX_DEPTH || node.value == Value::Null {
            return;
        }
        match ty.shape() {
            Shape::Struct(name) => {
                let Value::Map(entries) = &node.value else { return self.type_error(node, ty.name(), at) };
                for entry in in_key_order(entries) {
                    let Some((field, via)) = ty.field(&entry.key) else { continue };
                    let mut fields = at.fields.clone();
                    for part in via.into_iter().chain([entry.key.as_str()]) {
                        if !fields.is_empty() {
                            fields.push('.');
                        }
                        fields.push_str(part);
                    }
                    let path = if at.path.is_empty() { entry.key.clone() } else { format!("{}.{}", at.path, entry.key) };
                    self.value(&entry.value, field, &Context { go_struct: name, fields, path }, depth + 1);
                }
            }
            Shape::Slice(items) => {
                let Value::Seq(list) = &node.value else { return self.type_error(node, ty.name(), at) };
                for (i, item) in list.iter().enumerate() {
                    let path = format!("{}[{i}]", at.path);
                    self.value(item, items, &Context { go_struct: at.go_struct, fields: at.fields.clone(), path }, depth + 1);
                }
            }
            Shape::Map(values) => {
                let Value::Map(entries) = &node.value else { return self.type_error(node, ty.name(), at) };
                for entry in in_key_order(entries) {
                    // crdls's paths name a map's key as a field, as the schema's do.
                    let path = format!("{}.{}", at.path, entry.key);
                    self.value(&entry.value, values, &Context { go_struct: at.go_struct, fields: at.fields.clone(), path }, depth + 1);
                }
            }
            Shape::Str => {
                if !matches!(node.value, Value::Str(_)) {
                    self.type_error(node, ty.name(), at);
                }
            }
            Shape::Bool => {
                if !matches!(node.value, Value::Bool(_)) {
                    self.type_error(node, ty.name(), at);
                }
            }
            Shape::Int(bits) => self.integer(node, ty.name(), bits, true, at, false),
            Shape::Uint(bits) => self.integer(node, ty.name(), bits, false, at, false),
            Shape::Float => {
                if !matches!(node.value, Value::Int(_) | Value::Float(_)) {
                    self.type_error(node, ty.name(), at);
                }
            }
            Shape::Bytes => match &node.value {
                Value::Str(text) => {
                    if let Err(at_byte) = crdls_go::base64::check_std(text) {
                        let words = format!("illegal base64 data at input byte {at_byte}");
                        self.out.push(Problem { range: node.range, path: at.path.clone(), message: words.clone(), words, stops: false });
                    }
                }
                _ => self.type_error(node, ty.name(), at),
            },
            Shape::Quantity => {
                // The quantity's own decoder reads a string's text, or any other value's JSON text.
                let text = match &node.value {
                    Value::Str(text) => text.clone(),
                    Value::Bool(b) => b.to_string(),
                    Value::Map(_) | Value::Seq(_) => gofmt::json(node),
                    _ => return,
                };
                if let Err(reason) = crdls_go::quantity::Quantity::parse(text.trim()) {
                    self.out.push(Problem {
                        range: node.range,
                        path: at.path.clone(),
                        message: reason.clone(),
                        words: reason,
                        stops: true,
                    });
                }
            }
            // A string, or what an int32 takes; its decoder's error stops the decoding, with the
            // field's context added.
            Shape::IntOrString => {
                if !matches!(node.value, Value::Str(_)) {
                    self.integer(node, "int32", 32, true, at, true);
                }
            }
            // Decoded as a string first, then parsed by Go's time package, whose error stops the
            // decoding as it is (no field named).
            Shape::Time | Shape::MicroTime | Shape::Duration => {
                let Value::Str(text) = &node.value else { return self.push_type_error(node, "string", at, true) };
                let parsed = match ty.shape() {
                    Shape::Time => crdls_go::time::parse_time(text, crdls_go::time::Layout::Rfc3339),
                    Shape::MicroTime => crdls_go::time::parse_time(text, crdls_go::time::Layout::Rfc3339Micro),
                    _ => crdls_go::duration::parse_duration(text).map(|_| ()),
                };
                if let Err(words) = parsed {
                    let message = format!("{words}: the API server cannot decode this {}", self.kind);
                    self.out.push(Problem { range: node.range, path: at.path.clone(), words, message, stops: true });
                }
            }
            Shape::Any | Shape::Opaque => {}
        }
    }

    /// An integer of `bits` bits (signed or not): a number in range; another number is named with its
    /// text.
    fn integer(&mut self, node: &Node, go: &str, bits: u32, signed: bool, at: &Context<'_>, stops: bool) {
        let fits = match node.value {
            Value::Int(i) if signed => bits >= 64 || (i >= -(1i64 << (bits - 1)) && i < (1i64 << (bits - 1))),
            Value::Int(i) => i >= 0 && (bits >= 64 || i < (1i64 << bits)),
            _ => false,
        };
        if !fits {
            self.push_type_error(node, go, at, stops);
        }
    }

    fn type_error(&mut self, node: &Node, go: &str, at: &Context<'_>) {
        self.push_type_error(node, go, at, false);
    }

    fn push_type_error(&mut self, node: &Node, go: &str, at: &Context<'_>, stops: bool) {
        // For an integer, Go names the number too (`number 1.5`), as the JSON text of the value.
        let value = match &node.value {
            Value::Int(_) | Value::Float(_) if go.starts_with("int") || go.starts_with("uint") => format!("number {}", gofmt::json(node)),
            other => other.json_type().to_string(),
        };
        let words = format!("json: cannot unmarshal {value} into Go struct field {}.{} of type {go}", at.go_struct, at.fields);
        let found = node.value.type_name();
        let message = format!("expected {go}, found {found}: the API server cannot decode this {}", self.kind);
        self.out.push(Problem { range: node.range, path: at.path.clone(), words, message, stops });
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn answer(text: &str) -> Option<String> {
        let stream = crdls_yaml::parse(text);
        let root = stream.documents[0].root.clone().unwrap();
        let api = root.get_str("apiVersion").unwrap().to_string();
        let (group, version) = api.rsplit_once('/').unwrap_or(("", &api));
        let kind = root.get_str("kind").unwrap().to_string();
        let (problems, answer) = problems(&root, group, version, &kind);
        answer.map(|i| problems[i].words.clone())
    }

    const DEPLOYMENT: &str = "apiVersion: apps/v1\nkind: Deployment\nmetadata: {name: d}\nspec:\n  selector: {matchLabels: {a: b}}\n  template:\n    metadata: {labels: {a: b}}\n    spec:\n      containers:\n      - name: c\n        image: i\n";

    /// The answers below are the oracle's (k8s.io/kubernetes v1.37.2) for the same documents.
    #[test]
    fn the_first_type_error_in_key_order_is_the_answer() {
        assert_eq!(answer(DEPLOYMENT), None);
        let two = DEPLOYMENT.replace("spec:\n  selector", "spec:\n  replicas: x\n  minReadySeconds: y\n  selector");
        assert_eq!(
            answer(&two).as_deref(),
            Some("json: cannot unmarshal bool into Go struct field DeploymentSpec.spec.minReadySeconds of type int32")
        );
        let float = DEPLOYMENT.replace("spec:\n  selector", "spec:\n  replicas: 1.5\n  selector");
        assert_eq!(
            answer(&float).as_deref(),
            Some("json: cannot unmarshal number 1.5 into Go struct field DeploymentSpec.spec.replicas of type int32")
        );
        let large = DEPLOYMENT.replace("spec:\n  selector", "spec:\n  replicas: 3000000000\n  selector");
        assert_eq!(
            answer(&large).as_deref(),
            Some("json: cannot unmarshal number 3000000000 into Go struct field DeploymentSpec.spec.replicas of type int32")
        );
        assert_eq!(answer(&DEPLOYMENT.replace("spec:\n  selector", "spec:\n  replicas: 1.0\n  selector")), None);
        let list = DEPLOYMENT.replace("      containers:\n      - name: c\n        image: i\n", "      containers: x\n");
        assert_eq!(
            answer(&list).as_deref(),
            Some("json: cannot unmarshal string into Go struct field PodSpec.spec.template.spec.containers of type []v1.Container")
        );
        let labels = DEPLOYMENT.replace("metadata: {name: d}", "metadata: {name: d, labels: {a: 1}}");
        assert_eq!(
            answer(&labels).as_deref(),
            Some("json: cannot unmarshal number into Go struct field ObjectMeta.metadata.labels of type string")
        );
    }

    #[test]
    fn promoted_fields_print_their_embedded_struct_and_self_decoding_types_stop() {
        let volume = format!("{DEPLOYMENT}      volumes: [{{name: v, hostPath: x}}]\n");
        assert_eq!(
            answer(&volume).as_deref(),
            Some("json: cannot unmarshal string into Go struct field Volume.spec.template.spec.volumes.VolumeSource.hostPath of type v1.HostPathVolumeSource")
        );
        let port = format!("{DEPLOYMENT}        readinessProbe: {{httpGet: {{port: true}}}}\n");
        assert_eq!(
            answer(&port).as_deref(),
            Some("json: cannot unmarshal bool into Go struct field HTTPGetAction.spec.template.spec.containers.readinessProbe.ProbeHandler.httpGet.port of type int32")
        );
        // A quantity's error stops the decoding, and wins over a type error met before it.
        let quantity =
            DEPLOYMENT.replace("spec:\n  selector", "spec:\n  minReadySeconds: x\n  selector") + "        resources: {limits: {cpu: zz}}\n";
        assert!(answer(&quantity).unwrap().starts_with("quantities must match the regular expression"), "{:?}", answer(&quantity));
        let time = DEPLOYMENT.replace("metadata: {name: d}", "metadata: {name: d, creationTimestamp: 5}");
        assert_eq!(
            answer(&time).as_deref(),
            Some("json: cannot unmarshal number into Go struct field ObjectMeta.metadata.creationTimestamp of type string")
        );
        let bytes = "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: s}\nbinaryData: {a: 5}\n";
        assert_eq!(
            answer(bytes).as_deref(),
            Some("json: cannot unmarshal number into Go struct field ConfigMap.binaryData of type []uint8")
        );
        let base64 = "apiVersion: v1\nkind: Secret\nmetadata: {name: s}\ndata: {a: \"!!!\"}\nimmutable: \"x\"\n";
        assert_eq!(answer(base64).as_deref(), Some("illegal base64 data at input byte 0"));
    }

    /// Times as Go's time package reads them: `metav1.Time` with RFC 3339, `MicroTime` with six digits
    /// of fraction. Each answer is the oracle's for a ConfigMap's `creationTimestamp` and a Lease's
    /// `renewTime` holding the value (after `<Kind> in version "v1" cannot be handled as a <Kind>: `).
    #[test]
    fn times_are_parsed_as_go_parses_them() {
        let cases: &[(&str, Option<&str>, Option<&str>)] = &[
            ("yesterday", Some("parsing time \"yesterday\" as \"2006-01-02T15:04:05Z07:00\": cannot parse \"yesterday\" as \"2006\""), Some("parsing time \"yesterday\" as \"2006-01-02T15:04:05.000000Z07:00\": cannot parse \"yesterday\" as \"2006\"")),
            ("", Some("parsing time \"\" as \"2006-01-02T15:04:05Z07:00\": cannot parse \"\" as \"2006\""), Some("parsing time \"\" as \"2006-01-02T15:04:05.000000Z07:00\": cannot parse \"\" as \"2006\"")),
            ("2024-13-01T00:00:00Z", Some("parsing time \"2024-13-01T00:00:00Z\": month out of range"), Some("parsing time \"2024-13-01T00:00:00Z\": month out of range")),
            ("2024-00-01T00:00:00Z", Some("parsing time \"2024-00-01T00:00:00Z\": month out of range"), Some("parsing time \"2024-00-01T00:00:00Z\": month out of range")),
            ("2024-02-30T00:00:00Z", Some("parsing time \"2024-02-30T00:00:00Z\": day out of range"), Some("parsing time \"2024-02-30T00:00:00Z\" as \"2006-01-02T15:04:05.000000Z07:00\": cannot parse \"Z\" as \".000000\"")),
            ("2023-02-29T00:00:00Z", Some("parsing time \"2023-02-29T00:00:00Z\": day out of range"), Some("parsing time \"2023-02-29T00:00:00Z\" as \"2006-01-02T15:04:05.000000Z07:00\": cannot parse \"Z\" as \".000000\"")),
            ("2024-02-29T00:00:00Z", None, Some("parsing time \"2024-02-29T00:00:00Z\" as \"2006-01-02T15:04:05.000000Z07:00\": cannot parse \"Z\" as \".000000\"")),
            ("2024-01-02T03:04:05Z junk", Some("parsing time \"2024-01-02T03:04:05Z junk\": extra text: \" junk\""), Some("parsing time \"2024-01-02T03:04:05Z junk\" as \"2006-01-02T15:04:05.000000Z07:00\": cannot parse \"Z junk\" as \".000000\"")),
            ("2024-01-02", Some("parsing time \"2024-01-02\" as \"2006-01-02T15:04:05Z07:00\": cannot parse \"\" as \"T\""), Some("parsing time \"2024-01-02\" as \"2006-01-02T15:04:05.000000Z07:00\": cannot parse \"\" as \"T\"")),
            ("2024-01-02T03:04:05", Some("parsing time \"2024-01-02T03:04:05\" as \"2006-01-02T15:04:05Z07:00\": cannot parse \"\" as \"Z07:00\""), Some("parsing time \"2024-01-02T03:04:05\" as \"2006-01-02T15:04:05.000000Z07:00\": cannot parse \"\" as \".000000\"")),
            ("2024-1-02T03:04:05Z", Some("parsing time \"2024-1-02T03:04:05Z\" as \"2006-01-02T15:04:05Z07:00\": cannot parse \"1-02T03:04:05Z\" as \"01\""), Some("parsing time \"2024-1-02T03:04:05Z\" as \"2006-01-02T15:04:05.000000Z07:00\": cannot parse \"1-02T03:04:05Z\" as \"01\"")),
            ("2024-01-02 03:04:05Z", Some("parsing time \"2024-01-02 03:04:05Z\" as \"2006-01-02T15:04:05Z07:00\": cannot parse \" 03:04:05Z\" as \"T\""), Some("parsing time \"2024-01-02 03:04:05Z\" as \"2006-01-02T15:04:05.000000Z07:00\": cannot parse \" 03:04:05Z\" as \"T\"")),
            ("2024-01-02T3:04:05Z", None, Some("parsing time \"2024-01-02T3:04:05Z\" as \"2006-01-02T15:04:05.000000Z07:00\": cannot parse \"Z\" as \".000000\"")),
            ("2024-01-02T24:00:00Z", Some("parsing time \"2024-01-02T24:00:00Z\": hour out of range"), Some("parsing time \"2024-01-02T24:00:00Z\": hour out of range")),
            ("2024-01-02T03:60:00Z", Some("parsing time \"2024-01-02T03:60:00Z\": minute out of range"), Some("parsing time \"2024-01-02T03:60:00Z\": minute out of range")),
            ("2024-01-02T03:04:60Z", Some("parsing time \"2024-01-02T03:04:60Z\": second out of range"), Some("parsing time \"2024-01-02T03:04:60Z\": second out of range")),
            ("2024-01-02T03:04:05.123Z", None, Some("parsing time \"2024-01-02T03:04:05.123Z\" as \"2006-01-02T15:04:05.000000Z07:00\": cannot parse \".123Z\" as \".000000\"")),
            ("2024-01-02T03:04:05,5Z", None, Some("parsing time \"2024-01-02T03:04:05,5Z\" as \"2006-01-02T15:04:05.000000Z07:00\": cannot parse \",5Z\" as \".000000\"")),
            ("2024-01-02T03:04:05+0100", Some("parsing time \"2024-01-02T03:04:05+0100\" as \"2006-01-02T15:04:05Z07:00\": cannot parse \"+0100\" as \"Z07:00\""), Some("parsing time \"2024-01-02T03:04:05+0100\" as \"2006-01-02T15:04:05.000000Z07:00\": cannot parse \"+0100\" as \".000000\"")),
            ("2024-01-02T03:04:05+25:00", Some("parsing time \"2024-01-02T03:04:05+25:00\": time zone offset hour out of range"), Some("parsing time \"2024-01-02T03:04:05+25:00\" as \"2006-01-02T15:04:05.000000Z07:00\": cannot parse \"+25:00\" as \".000000\"")),
            ("2024-01-02T03:04:05+01:61", Some("parsing time \"2024-01-02T03:04:05+01:61\": time zone offset minute out of range"), Some("parsing time \"2024-01-02T03:04:05+01:61\" as \"2006-01-02T15:04:05.000000Z07:00\": cannot parse \"+01:61\" as \".000000\"")),
            ("2024-01-02T03:04:05+24:60", None, Some("parsing time \"2024-01-02T03:04:05+24:60\" as \"2006-01-02T15:04:05.000000Z07:00\": cannot parse \"+24:60\" as \".000000\"")),
            ("2024-01-02T03:04:05*01:00", Some("parsing time \"2024-01-02T03:04:05*01:00\" as \"2006-01-02T15:04:05Z07:00\": cannot parse \"*01:00\" as \"Z07:00\""), Some("parsing time \"2024-01-02T03:04:05*01:00\" as \"2006-01-02T15:04:05.000000Z07:00\": cannot parse \"*01:00\" as \".000000\"")),
            ("2024-01-02T03:04:05z", Some("parsing time \"2024-01-02T03:04:05z\" as \"2006-01-02T15:04:05Z07:00\": cannot parse \"z\" as \"Z07:00\""), Some("parsing time \"2024-01-02T03:04:05z\" as \"2006-01-02T15:04:05.000000Z07:00\": cannot parse \"z\" as \".000000\"")),
            ("20a4-01-02T03:04:05Z", Some("parsing time \"20a4-01-02T03:04:05Z\" as \"2006-01-02T15:04:05Z07:00\": cannot parse \"20a4-01-02T03:04:05Z\" as \"2006\""), Some("parsing time \"20a4-01-02T03:04:05Z\" as \"2006-01-02T15:04:05.000000Z07:00\": cannot parse \"20a4-01-02T03:04:05Z\" as \"2006\"")),
            ("é2024", Some("parsing time \"\\xc3\\xa92024\" as \"2006-01-02T15:04:05Z07:00\": cannot parse \"\\xc3\\xa92024\" as \"2006\""), Some("parsing time \"\\xc3\\xa92024\" as \"2006-01-02T15:04:05.000000Z07:00\": cannot parse \"\\xc3\\xa92024\" as \"2006\"")),
            ("2024-01-02T03:04:05+25:xx", Some("parsing time \"2024-01-02T03:04:05+25:xx\": time zone offset hour out of range"), Some("parsing time \"2024-01-02T03:04:05+25:xx\" as \"2006-01-02T15:04:05.000000Z07:00\": cannot parse \"+25:xx\" as \".000000\"")),
            ("2024-01-02T03:04:05.Z", Some("parsing time \"2024-01-02T03:04:05.Z\" as \"2006-01-02T15:04:05Z07:00\": cannot parse \".Z\" as \"Z07:00\""), Some("parsing time \"2024-01-02T03:04:05.Z\" as \"2006-01-02T15:04:05.000000Z07:00\": cannot parse \".Z\" as \".000000\"")),
            ("2024-01-02T03:04:05.123456Z", None, None),
            ("2024-01-02T03:04:05.12345Z", None, Some("parsing time \"2024-01-02T03:04:05.12345Z\" as \"2006-01-02T15:04:05.000000Z07:00\": cannot parse \".12345Z\" as \".000000\"")),
            ("2024-01-02T03:04:05.1234567Z", None, Some("parsing time \"2024-01-02T03:04:05.1234567Z\" as \"2006-01-02T15:04:05.000000Z07:00\": cannot parse \"7Z\" as \"Z07:00\"")),
            ("2024-01-02T03:04:05.+12345Z", Some("parsing time \"2024-01-02T03:04:05.+12345Z\" as \"2006-01-02T15:04:05Z07:00\": cannot parse \".+12345Z\" as \"Z07:00\""), None),
            ("2024-01-02T03:04:05.-12345Z", Some("parsing time \"2024-01-02T03:04:05.-12345Z\" as \"2006-01-02T15:04:05Z07:00\": cannot parse \".-12345Z\" as \"Z07:00\""), Some("parsing time \"2024-01-02T03:04:05.-12345Z\": fractional second out of range")),
            ("2024-01-02T03:04:05.-00000Z", Some("parsing time \"2024-01-02T03:04:05.-00000Z\" as \"2006-01-02T15:04:05Z07:00\": cannot parse \".-00000Z\" as \"Z07:00\""), None),
            ("2024-01-02T03:04:05Z\"x", Some("parsing time \"2024-01-02T03:04:05Z\\\"x\": extra text: \"\\\"x\""), Some("parsing time \"2024-01-02T03:04:05Z\\\"x\" as \"2006-01-02T15:04:05.000000Z07:00\": cannot parse \"Z\\\"x\" as \".000000\"")),
            ("0000-01-01T00:00:00Z", None, Some("parsing time \"0000-01-01T00:00:00Z\" as \"2006-01-02T15:04:05.000000Z07:00\": cannot parse \"Z\" as \".000000\"")),
            ("2024-01-00T00:00:00Z", Some("parsing time \"2024-01-00T00:00:00Z\": day out of range"), Some("parsing time \"2024-01-00T00:00:00Z\" as \"2006-01-02T15:04:05.000000Z07:00\": cannot parse \"Z\" as \".000000\"")),
            ("2024-04-31T00:00:00Z", Some("parsing time \"2024-04-31T00:00:00Z\": day out of range"), Some("parsing time \"2024-04-31T00:00:00Z\" as \"2006-01-02T15:04:05.000000Z07:00\": cannot parse \"Z\" as \".000000\"")),
            ("1900-02-29T00:00:00Z", Some("parsing time \"1900-02-29T00:00:00Z\": day out of range"), Some("parsing time \"1900-02-29T00:00:00Z\" as \"2006-01-02T15:04:05.000000Z07:00\": cannot parse \"Z\" as \".000000\"")),
            ("2000-02-29T00:00:00Z", None, Some("parsing time \"2000-02-29T00:00:00Z\" as \"2006-01-02T15:04:05.000000Z07:00\": cannot parse \"Z\" as \".000000\"")),
        ];
        for (value, time, micro) in cases {
            let quoted = crdls_go::print::quote(value);
            let config_map = format!("apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: a\n  creationTimestamp: {quoted}\n");
            assert_eq!(answer(&config_map).as_deref(), *time, "{value:?}");
            let lease = format!("apiVersion: coordination.k8s.io/v1\nkind: Lease\nmetadata:\n  name: a\nspec:\n  renewTime: {quoted}\n");
            assert_eq!(answer(&lease).as_deref(), *micro, "{value:?} (MicroTime)");
        }
    }
}
