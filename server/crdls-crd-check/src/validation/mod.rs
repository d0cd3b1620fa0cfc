//! What the API server rejects when a CustomResourceDefinition (`apiextensions.k8s.io/v1`) is
//! created: `ValidateCustomResourceDefinition` of apiextensions-apiserver, with its field paths,
//! error types and wording, each error located on the node it is about.
//!
//! The API server validates its internal type, not the v1 object it received. The conversion moves
//! a `schema`, `subresources`, `additionalPrinterColumns` or `selectableFields` that every version
//! holds identically to the top level, so a single-version CRD reports its schema errors under
//! `spec.validation.openAPIV3Schema`, its columns under `spec.additionalPrinterColumns[j]` and so on,
//! and a CRD whose versions differ reports them under `spec.versions[i]`. [`Layout`] makes that
//! decision, field by field, as the conversion does.
//!
//! The codes, with the module that reports each (every rule group has an invalid and a valid fixture
//! under `fixtures/crd-errors/validation/`):
//!
//! | code | module | what the API server rejects |
//! |---|---|---|
//! | `crd/metadata` | `metadata` | a name that is not `<plural>.<group>`; a protected group without API approval |
//! | `crd/names` | `names` | group, scope, plural, singular, kind, listKind, shortNames, categories |
//! | `crd/versions` | `versions` | version names, exactly one storage version, a schema in every version, `deprecationWarning`, `preserveUnknownFields` |
//! | `crd/structural` | `structural` | structural schema rules 1–4, the int-or-string patterns, embedded-resource invariants |
//! | `crd/forbidden-field` | `openapi` | `id`, `$schema`, `$ref`, `definitions`, `dependencies`, `patternProperties`, `additionalItems`, array `items`, `uniqueItems: true`, `additionalProperties` with `properties` |
//! | `crd/schema` | `openapi`, `structural`, `schema` | other keyword values: unsupported or null `type`, a nullable root, `x-kubernetes-preserve-unknown-fields: false`, embedded resources in metadata, patterns Go cannot compile |
//! | `crd/format` | `format` | nothing: the API server warns about formats it does not know (`unrecognized format "url"`), and so does crdls |
//! | `crd/status` | `status` | root keywords other than the allowed ones when the status subresource is enabled |
//! | `crd/default` | `defaults` | defaults that fail their schema, would be pruned, or sit where defaults are not allowed |
//! | `crd/list-type` | `list_type` | `x-kubernetes-list-type`, `x-kubernetes-list-map-keys`, `x-kubernetes-map-type` |
//! | `crd/printer-column` | `columns` | printer column name, type, format and JSONPath (plus warnings for paths that do not parse or resolve) |
//! | `crd/scale` | `scale` | scale subresource paths (plus warnings for paths that do not resolve to the right type) |
//! | `crd/selectable-field` | `selectable` | selectable fields: resolvable, scalar, outside metadata, unique, at most 8 |
//! | `crd/conversion` | `conversion` | strategy, webhook client config, conversionReviewVersions |
//! | `crd/unknown-field` | `decode` | fields `apiextensions.k8s.io/v1` does not have (the CRD page's `deprecated`, `discriminator`, `readOnly`, `writeOnly`, `xml`, and typos): a warning, an error with strict field validation |
//! | `crd/field-type` | `decode` | values of the wrong JSON type, which the API server cannot even decode |
//!
//! Legacy `v1beta1` CRDs are not checked here: the API server no longer serves that version.
//! Checks that depend on the old object of an update (immutable names, ratcheting) are not made:
//! every CRD is validated as created.

mod columns;
mod conversion;
mod decode;
mod defaults;
mod format;
mod go_json;
mod list_type;
mod metadata;
mod names;
mod openapi;
mod paths;
mod regexp;
mod scale;
mod schema;
mod selectable;
mod status;
mod structural;
mod versions;

use crdls_crd::{is_crd, CrdApiVersion};
use crdls_diagnostics::{Diagnostic, Severity, TextRange};
use crdls_yaml::{Node, Value};

use crate::field_error::{ErrorType, FieldError};
use crdls_resource_check::CheckOptions;

pub(crate) use schema::{rule_gate, within, RuleGate};

/// Whether the API server moves the versions' schema to `spec.validation` (every version holds the
/// same one, compared as the conversion compares them), which decides the paths of schema errors.
pub(crate) fn shares_schema(root: &Node) -> bool {
    CrdDoc::new(root).layout.schema
}

/// Checks a CRD document the way the API server validates it on create.
pub(crate) fn check_crd(root: &Node, options: &CheckOptions, out: &mut Vec<Diagnostic>) {
    if is_crd(root) != Some(CrdApiVersion::V1) {
        return;
    }
    let crd = CrdDoc::new(root);
    let mut sink = Sink { out, strict: options.strict, minor: crdls_resource_check::release_minor(options) };
    decode::check(root, &mut sink);
    metadata::check(&crd, &mut sink);
    names::check(&crd, &mut sink);
    versions::check(&crd, &mut sink);
    for target in crd.schemas() {
        schema::check(&target, &mut sink);
        format::check(&target, &mut sink);
    }
    scale::check(&crd, &mut sink);
    columns::check(&crd, &mut sink);
    selectable::check(&crd, &mut sink);
    conversion::check(&crd, &mut sink);
}

/// Where findings go.
pub(super) struct Sink<'a> {
    out: &'a mut Vec<Diagnostic>,
    /// Unknown fields are errors, as with `kubectl --validate=strict`.
    strict: bool,
    /// The Kubernetes minor version asked.
    minor: u32,
}

impl Sink<'_> {
    /// An API-server error at `range`; `message` is what the user reads first, the error itself
    /// travels as the cause.
    pub(super) fn error(&mut self, range: TextRange, code: &'static str, err: FieldError, message: impl Into<String>) {
        self.out.push(err.diagnostic(range, Severity::Error, code, message));
    }

    /// A finding of crdls's own (the API server accepts the CRD).
    pub(super) fn warning(&mut self, range: TextRange, code: &'static str, path: String, message: impl Into<String>) {
        self.out.push(Diagnostic::new(range, Severity::Warning, code, message).with_path(path));
    }

    /// Appends findings collected on the side.
    pub(super) fn extend(&mut self, found: Vec<Found>) {
        self.out.extend(found.into_iter().map(Found::diagnostic));
    }
}

/// One API-server error, located, before it becomes a diagnostic (schema checks collect them to
/// decide what runs next, as the API server does).
#[derive(Clone, Debug)]
pub(super) struct Found {
    pub(super) range: TextRange,
    pub(super) code: &'static str,
    /// The field path.
    pub(super) path: String,
    /// The error as the API server prints it.
    pub(super) cause: String,
    pub(super) message: String,
}

impl Found {
    pub(super) fn new(range: TextRange, code: &'static str, err: FieldError, message: impl Into<String>) -> Found {
        Found { range, code, path: err.path.clone(), cause: err.cause(), message: message.into() }
    }

    fn diagnostic(self) -> Diagnostic {
        let d = Diagnostic::new(self.range, Severity::Error, self.code, self.message).with_cause(self.cause);
        if self.path.is_empty() {
            d
        } else {
            d.with_path(self.path)
        }
    }
}

/// A field error.
pub(super) fn fe(ty: ErrorType, path: impl Into<String>, value: Option<String>, detail: impl Into<String>) -> FieldError {
    FieldError { ty, path: path.into(), value, detail: detail.into() }
}

/// The value of `key` in a mapping, unless absent or null (JSON null leaves a Go field at its zero value).
pub(super) fn get<'a>(node: &'a Node, key: &str) -> Option<&'a Node> {
    node.get(key).filter(|v| v.value != Value::Null)
}

/// The string value of `key`, or `""` (absent, null, or not a string).
pub(super) fn text<'a>(node: &'a Node, key: &str) -> &'a str {
    node.get_str(key).unwrap_or_default()
}

/// Whether `key` is `true`.
pub(super) fn flag(node: &Node, key: &str) -> bool {
    matches!(node.get(key).map(|v| &v.value), Some(Value::Bool(true)))
}

/// The entries of a mapping value of `key` (none when absent or not a mapping).
pub(super) fn entries<'a>(node: &'a Node, key: &str) -> &'a [crdls_yaml::Entry] {
    node.get(key).and_then(Node::as_map).unwrap_or_default()
}

/// The items of a sequence value of `key` (none when absent or not a sequence).
pub(super) fn items<'a>(node: &'a Node, key: &str) -> &'a [Node] {
    node.get(key).and_then(Node::as_seq).unwrap_or_default()
}

/// Whether a mapping or sequence value of `key` has entries.
pub(super) fn non_empty(node: &Node, key: &str) -> bool {
    match node.get(key).map(|v| &v.value) {
        Some(Value::Map(e)) => !e.is_empty(),
        Some(Value::Seq(i)) => !i.is_empty(),
        _ => false,
    }
}

/// The range of `key` itself, or `fallback`.
pub(super) fn key_at(node: &Node, key: &str, fallback: TextRange) -> TextRange {
    node.entry(key).map_or(fallback, |e| e.key_range)
}

/// The range of the value of `key` (its key when the value has no text), or `fallback`.
pub(super) fn value_at(node: &Node, key: &str, fallback: TextRange) -> TextRange {
    match node.entry(key) {
        Some(e) if !e.value.range.is_empty() => e.value.range,
        Some(e) => e.key_range,
        None => fallback,
    }
}

/// The start of a node, as an empty range: where to point when nothing more precise exists.
pub(super) fn start_of(node: &Node) -> TextRange {
    TextRange::empty(node.range.start)
}

/// Equality as `apiequality.Semantic.DeepEqual` sees two decoded values: mapping order does not
/// matter, and a null or an empty list is the same as an absent field. The values of a schema's
/// `default` and `example` are JSON held by pointer: only a null one is absent, and inside them an
/// empty list or a null is a value like any other (`default: []` differs from no default).
pub(super) fn semantic_eq(a: Option<&Node>, b: Option<&Node>) -> bool {
    fields_eq(a, b, false)
}

/// [`semantic_eq`] of two values; `names` when the keys of a mapping are names (of properties,
/// definitions) rather than the keywords of a schema.
fn fields_eq(a: Option<&Node>, b: Option<&Node>, names: bool) -> bool {
    fn norm(n: Option<&Node>) -> Option<&Node> {
        n.filter(|n| !matches!(&n.value, Value::Null) && !matches!(&n.value, Value::Seq(s) if s.is_empty()))
    }
    let json_valued = |key: &str| !names && matches!(key, "default" | "example");
    match (norm(a), norm(b)) {
        (None, None) => true,
        (Some(x), Some(y)) => match (&x.value, &y.value) {
            (Value::Map(p), Value::Map(q)) => {
                let keys = |m: &[crdls_yaml::Entry]| -> Vec<String> {
                    let present = |e: &crdls_yaml::Entry| {
                        if json_valued(&e.key) {
                            e.value.value != Value::Null
                        } else {
                            norm(Some(&e.value)).is_some()
                        }
                    };
                    let mut k: Vec<String> = m.iter().filter(|e| present(e)).map(|e| e.key.clone()).collect();
                    k.sort();
                    k.dedup();
                    k
                };
                let (kp, kq) = (keys(p), keys(q));
                kp == kq
                    && kp.iter().all(|k| match (x.get(k), y.get(k)) {
                        (Some(v), Some(w)) if json_valued(k) => json_eq(v, w),
                        (v, w) => fields_eq(v, w, !names && matches!(k.as_str(), "properties" | "patternProperties" | "definitions")),
                    })
            }
            (Value::Seq(p), Value::Seq(q)) => p.len() == q.len() && p.iter().zip(q).all(|(a, b)| fields_eq(Some(a), Some(b), false)),
            (Value::Int(i), Value::Float(f)) | (Value::Float(f), Value::Int(i)) => *i as f64 == *f,
            (p, q) => p == q,
        },
        _ => false,
    }
}

/// Equality of two JSON values: every key and item counts, nulls and empty lists included.
fn json_eq(a: &Node, b: &Node) -> bool {
    match (&a.value, &b.value) {
        (Value::Map(p), Value::Map(q)) => {
            let mut kp: Vec<&str> = p.iter().map(|e| e.key.as_str()).collect();
            let mut kq: Vec<&str> = q.iter().map(|e| e.key.as_str()).collect();
            kp.sort_unstable();
            kp.dedup();
            kq.sort_unstable();
            kq.dedup();
            kp == kq && kp.iter().all(|k| matches!((a.get(k), b.get(k)), (Some(v), Some(w)) if json_eq(v, w)))
        }
        (Value::Seq(p), Value::Seq(q)) => p.len() == q.len() && p.iter().zip(q).all(|(v, w)| json_eq(v, w)),
        (Value::Int(i), Value::Float(f)) | (Value::Float(f), Value::Int(i)) => *i as f64 == *f,
        (p, q) => p == q,
    }
}

/// The parts of a CRD document the checks need, with the v1 → internal conversion decided.
pub(super) struct CrdDoc<'a> {
    pub(super) root: &'a Node,
    pub(super) spec: Option<&'a Node>,
    pub(super) versions: Vec<&'a Node>,
    pub(super) layout: Layout,
}

/// Which per-version fields the conversion moves to the top level (identical in every version).
#[derive(Clone, Copy, Debug, Default)]
pub(super) struct Layout {
    pub(super) schema: bool,
    pub(super) subresources: bool,
    pub(super) columns: bool,
    pub(super) selectable: bool,
}

/// One schema the API server validates: `spec.validation` or a version's `schema`.
pub(super) struct SchemaTarget<'a> {
    /// `openAPIV3Schema`.
    pub(super) node: &'a Node,
    /// The range of the `openAPIV3Schema` key, for errors about the root.
    pub(super) anchor: TextRange,
    /// `spec.validation` or `spec.versions[i].schema`.
    pub(super) base: String,
    /// Whether a status subresource applies to this schema.
    pub(super) status_enabled: bool,
}

impl SchemaTarget<'_> {
    /// The path of the schema's root: `<base>.openAPIV3Schema`.
    pub(super) fn path(&self) -> String {
        format!("{}.openAPIV3Schema", self.base)
    }
}

impl<'a> CrdDoc<'a> {
    pub(super) fn new(root: &'a Node) -> CrdDoc<'a> {
        let spec = get(root, "spec");
        let versions: Vec<&Node> = spec.map(|s| items(s, "versions").iter().collect()).unwrap_or_default();
        let identical = |key: &str| versions.windows(2).all(|w| semantic_eq(w[0].get(key), w[1].get(key)));
        let layout = if versions.is_empty() {
            Layout::default()
        } else {
            Layout {
                schema: identical("schema"),
                subresources: identical("subresources"),
                columns: identical("additionalPrinterColumns"),
                selectable: identical("selectableFields"),
            }
        };
        CrdDoc { root, spec, versions, layout }
    }

    /// The range to point at for something missing from `spec`.
    pub(super) fn spec_anchor(&self) -> TextRange {
        key_at(self.root, "spec", self.root.get("kind").map_or(start_of(self.root), |k| k.range))
    }

    /// The range to point at for a version as a whole: its name, else its start.
    pub(super) fn version_anchor(version: &Node) -> TextRange {
        value_at(version, "name", start_of(version))
    }

    /// `spec.preserveUnknownFields: true`.
    pub(super) fn preserves_unknown_fields(&self) -> bool {
        self.spec.is_some_and(|s| flag(s, "preserveUnknownFields"))
    }

    /// Whether a version enables the status subresource.
    pub(super) fn status_enabled(version: &Node) -> bool {
        get(version, "subresources").and_then(|s| get(s, "status")).is_some()
    }

    /// Every schema to validate, with its path.
    pub(super) fn schemas(&self) -> Vec<SchemaTarget<'a>> {
        let open_api =
            |v: &'a Node| get(v, "schema").and_then(|s| get(s, "openAPIV3Schema").map(|n| (n, key_at(s, "openAPIV3Schema", n.range))));
        if self.layout.schema {
            let Some(first) = self.versions.first() else { return Vec::new() };
            let Some((node, anchor)) = open_api(first) else { return Vec::new() };
            let status_enabled = self.versions.iter().any(|v| Self::status_enabled(v));
            return vec![SchemaTarget { node, anchor, base: "spec.validation".into(), status_enabled }];
        }
        self.versions
            .iter()
            .enumerate()
            .filter_map(|(i, v)| {
                open_api(v).map(|(node, anchor)| SchemaTarget {
                    node,
                    anchor,
                    base: format!("spec.versions[{i}].schema"),
                    status_enabled: Self::status_enabled(v),
                })
            })
            .collect()
    }

    /// The schema (`openAPIV3Schema`) that applies to version `i` after the conversion: its own, or
    /// the shared one.
    pub(super) fn schema_of(&self, i: usize) -> Option<&'a Node> {
        let v = if self.layout.schema { self.versions.first()? } else { self.versions.get(i)? };
        get(v, "schema").and_then(|s| get(s, "openAPIV3Schema"))
    }

    /// The per-version field `key` as the API server sees it: `(path prefix, node)` once at the top
    /// level when shared (`spec.<top>`), else once per version that has it.
    pub(super) fn per_version(&self, key: &str, shared: bool, top: &str) -> Vec<(String, Option<usize>, &'a Node)> {
        if shared {
            return self.versions.first().and_then(|v| get(v, key)).map(|n| vec![(format!("spec.{top}"), None, n)]).unwrap_or_default();
        }
        self.versions
            .iter()
            .enumerate()
            .filter_map(|(i, v)| get(v, key).map(|n| (format!("spec.versions[{i}].{key}"), Some(i), n)))
            .collect()
    }
}

#[cfg(test)]
mod semantic_tests {
    use super::semantic_eq;

    fn eq(a: &str, b: &str) -> bool {
        let (a, b) = (crdls_yaml::parse(a), crdls_yaml::parse(b));
        semantic_eq(a.documents[0].root.as_ref(), b.documents[0].root.as_ref())
    }

    #[test]
    fn a_default_of_an_empty_list_is_a_default() {
        // Keywords: an empty list or a null is as good as none.
        assert!(eq("{type: object, required: []}", "{type: object}"));
        assert!(eq("{type: object, default: null}", "{type: object}"));
        // A default is JSON held by pointer: `[]` is one, and so is a null inside it.
        assert!(!eq("{type: object, default: []}", "{type: object}"));
        assert!(!eq("{type: object, default: {a: null}}", "{type: object, default: {}}"));
        assert!(!eq("{example: {a: []}}", "{example: {}}"));
        assert!(eq("{default: {a: [], b: 1}}", "{default: {b: 1.0, a: []}}"));
        // A property named `default` is a schema, compared as one.
        assert!(eq("{properties: {default: {type: string, enum: []}}}", "{properties: {default: {type: string}}}"));
    }
}
