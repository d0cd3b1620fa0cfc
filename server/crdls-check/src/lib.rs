//! The one checking pipeline every front end calls (`crdls check`, the language server): for each
//! document of a file, a CRD is validated as the API server validates CRDs on create, and any other
//! object is resolved against the CRD index and checked as the API server checks it. How the file is
//! read ([`FileMode`]: whole objects, patches, assertions, a template) decides which of those checks
//! hold and where.

mod admission;
mod awaited;
mod evolution;
mod fill_ins;
mod modes;
mod shell;

use crdls_crd::{is_crd, CrdIndex};
use crdls_diagnostics::Diagnostic;
use crdls_yaml::{Document, Stream};

pub use admission::{mutating_webhooks_of, name_webhooks};
pub use crdls_crd_check::{
    crd_costs, factor_text, short_path, thousands, CostDriver, RuleCost, SchemaCost, PER_CRD_LIMIT, PER_EXPRESSION_LIMIT,
};
pub use crdls_resource_check::{
    cel, defaulted_value, did_you_mean, edit_distance, formats, gofmt, is_builtin_group, kubernetes_release, metadata, names, old, pattern,
    prune_and_default, CheckOptions, DocumentKind, ErrorType, FieldError, OldObjects, PrunedField, Subresource, Unbounded,
    NEWEST_KUBERNETES_MINOR, OBJECT_META_FIELDS, OLDEST_KUBERNETES_MINOR,
};
use crdls_resource_check::{check_object, Reading};
pub use evolution::MAX_OBJECTS;
pub use modes::FileMode;

/// The result of checking one document.
#[derive(Clone, Debug)]
pub struct DocumentCheck {
    /// What the document is.
    pub kind: DocumentKind,
    /// Its diagnostics, sorted by position.
    pub diagnostics: Vec<Diagnostic>,
}

/// The result of checking one file.
#[derive(Clone, Debug, Default)]
pub struct FileCheck {
    /// One entry per document.
    pub documents: Vec<DocumentCheck>,
}

impl FileCheck {
    /// Every diagnostic of the file, sorted by position.
    pub fn diagnostics(&self) -> Vec<Diagnostic> {
        let mut all: Vec<Diagnostic> = self.documents.iter().flat_map(|d| d.diagnostics.iter().cloned()).collect();
        all.sort_by_key(|d| (d.range.start, d.range.end));
        all
    }

    /// How many documents are CRDs.
    pub fn crd_count(&self) -> usize {
        self.documents.iter().filter(|d| d.kind == DocumentKind::Crd).count()
    }
}

/// Checks every document of a parsed file of whole objects.
pub fn check_stream(stream: &Stream, index: &CrdIndex, options: &CheckOptions) -> FileCheck {
    check_stream_as(stream, index, options, &FileMode::Objects)
}

/// Checks every document of a parsed file read in `mode` (patches, assertions, a template parsed with
/// its actions masked).
pub fn check_stream_as(stream: &Stream, index: &CrdIndex, options: &CheckOptions, mode: &FileMode) -> FileCheck {
    // A shell script saved with a YAML name holds no document of its own (see [`shell`]).
    if shell::is_shell_script(&stream.text) {
        let not_an_object = || DocumentCheck { kind: DocumentKind::NotAnObject, diagnostics: Vec::new() };
        return FileCheck { documents: stream.documents.iter().map(|_| not_an_object()).collect() };
    }
    FileCheck { documents: stream.documents.iter().map(|doc| check_document(doc, &stream.text, index, options, mode)).collect() }
}

/// Checks one document of `text`.
fn check_document(doc: &Document, text: &str, index: &CrdIndex, options: &CheckOptions, mode: &FileMode) -> DocumentCheck {
    if *mode == FileMode::JsonPatches {
        return DocumentCheck { kind: DocumentKind::NotAnObject, diagnostics: Vec::new() };
    }
    let mut diagnostics = doc.diagnostics.clone();
    // A document that names a kind but describes no object to create (a tool's type header, a
    // generated field reference) is not validated; what reading its YAML found still counts.
    // (A document cut short by a syntax error may show only its first keys: it is not judged so.)
    if !doc.has_syntax_error && doc.root.as_ref().is_some_and(|root| modes::describes_no_object(root, text)) {
        mode.filter(doc.root.as_ref(), &mut diagnostics);
        return DocumentCheck { kind: DocumentKind::NotAnObject, diagnostics };
    }
    let mode = mode.for_document(doc.root.as_ref());
    let kind = match &doc.root {
        Some(root) => match is_crd(root) {
            Some(_) if mode.whole_objects() && modes::is_ungrouped_crd(root) => {
                // A generator's by-product for types without an API group: said once, not validated.
                if let Some(group) = root.get("spec").and_then(|s| s.get("group")) {
                    diagnostics.push(Diagnostic::new(
                        group.range,
                        crdls_diagnostics::Severity::Warning,
                        crdls_diagnostics::codes::CRD_NAMES,
                        "spec.group is empty: this is what controller-gen writes for Go types whose package declares no API group (+groupName); no API server serves such a CRD, so crdls does not check it further",
                    ).with_path("spec.group"));
                }
                DocumentKind::Crd
            }
            Some(version) => {
                // A patch is never sent as it is (its apiVersion only says what it patches): the API
                // server's refusal of a removed CRD version is about CRDs that are created.
                if *mode != FileMode::Patches {
                    crdls_crd_check::check_legacy_version(root, version, &mut diagnostics);
                }
                // A CRD in a patch or an assertion is partial: there is no whole CRD to validate.
                if !doc.has_syntax_error && mode.whole_objects() {
                    crdls_crd_check::check_crd(root, text, options, &mut diagnostics);
                    // With the CRD's previous version (`--old`, the editor's base revision): what the change breaks.
                    if let Some(previous) = options.old.as_deref().and_then(|old| old.get(root)) {
                        let before = diagnostics.len();
                        crdls_crd_check::compare_crds(previous, root, &mut diagnostics);
                        if diagnostics.len() > before {
                            evolution::broken_objects(previous, root, options, &mut diagnostics);
                        }
                    }
                }
                DocumentKind::Crd
            }
            // An object whose apiVersion or kind a template or a substitution computes could be of any
            // kind: resolving the masked text would report a kind or version nobody wrote.
            None if mode.computes_identity(root) => DocumentKind::Unchecked { group: String::new() },
            None => {
                let reading =
                    Reading { complete: !doc.has_syntax_error, whole: mode.whole_objects(), live_status: mode.reads_live_status() };
                let range = doc.range.start.min(text.len())..doc.range.end.min(text.len());
                let (kind, subresource) = match text.get(range).and_then(subresource_directive) {
                    Some(subresource) if subresource != options.subresource => {
                        let options = CheckOptions { subresource, ..options.clone() };
                        (check_object(root, index, &options, reading, &mut diagnostics), subresource)
                    }
                    _ => (check_object(root, index, options, reading, &mut diagnostics), options.subresource),
                };
                // Mutating admission runs before a create is validated (a status update is no create).
                if matches!(kind, DocumentKind::CustomResource { .. }) && subresource == Subresource::Main {
                    admission::soften_filled_by_webhooks(root, index, &mut diagnostics);
                }
                kind
            }
        },
        None => DocumentKind::NotAnObject,
    };
    if kind == DocumentKind::NotAnObject && !names_identity(doc, text) {
        // Another tool's file (a TypeScript config with comments, a data dump, a proposal's metadata):
        // what kubectl's reader would say of it concerns nobody who applies objects.
        diagnostics.retain(|d| !YAML_READING_CODES.contains(&d.code));
    }
    mode.filter(doc.root.as_ref(), &mut diagnostics);
    if let Some(root) = &doc.root {
        modes::drop_token_placeholders(root, text, &mut diagnostics);
        fill_ins::drop_setter_values(root, text, &mut diagnostics);
    }
    diagnostics.sort_by_key(|d| (d.range.start, d.range.end));
    DocumentCheck { kind, diagnostics }
}

/// The codes of what reading YAML found, which concern a document only if it may be an object.
const YAML_READING_CODES: &[&str] =
    &[crdls_diagnostics::codes::YAML_SYNTAX, crdls_diagnostics::codes::YAML_DUPLICATE_KEY, crdls_diagnostics::codes::YAML_COMPLEX_KEY];

/// Whether a document may be a Kubernetes object: its top level is a mapping with an `apiVersion` or a
/// `kind` (and is not a Helm chart's metadata), or, when it did not parse into one, its text holds such a key at its top level (see
/// [`holds_key`]), so that a manifest with a syntax error above its identity keeps its errors, while
/// another tool's file whose nested items have an `apiVersion` (a cloud template's resources) does not.
fn names_identity(doc: &Document, text: &str) -> bool {
    if let Some(root) = doc.root.as_ref().filter(|_| !doc.has_syntax_error) {
        if root.as_map().is_some() {
            // A Helm chart's metadata (`Chart.yaml`: an `apiVersion`, a `name` and a `version`, no
            // `kind`) is Helm's file, not an object.
            let chart_metadata = root.get("kind").is_none() && root.get("name").is_some() && root.get("version").is_some();
            return !chart_metadata && (root.get("apiVersion").is_some() || root.get("kind").is_some());
        }
    }
    let range = doc.range.start.min(text.len())..doc.range.end.min(text.len());
    text.get(range).is_some_and(|text| ["apiVersion", "kind"].iter().any(|key| holds_key(text, key)))
}

/// Whether `key` appears in `text` as a key of the top level: followed, after an optional closing quote
/// and blanks, by `:`, and either at the start of a line (a block mapping's top level) or, in text that
/// opens with `{` (JSON, or a YAML flow mapping; not `{{`, a template action), inside the outermost
/// braces only. Brackets in strings
/// and comments (`#`, and JSON's `//` and `/* */`, which some tools allow) do not count.
fn holds_key(text: &str, key: &str) -> bool {
    let is_key = |at: usize| {
        let rest = &text[at + key.len()..];
        let rest = rest.strip_prefix(['"', '\'']).unwrap_or(rest);
        rest.trim_start_matches([' ', '\t']).starts_with(':')
    };
    let opening = text.trim_start();
    if !opening.starts_with('{') || opening.starts_with("{{") {
        return text.match_indices(key).any(|(at, _)| {
            let line_start = text[..at].rfind('\n').map_or(0, |n| n + 1);
            matches!(&text[line_start..at], "" | "\"" | "'") && is_key(at)
        });
    }
    let bytes = text.as_bytes();
    let (mut depth, mut i) = (0usize, 0);
    while i < bytes.len() {
        match bytes[i] {
            b'{' | b'[' => depth += 1,
            b'}' | b']' => depth = depth.saturating_sub(1),
            quote @ (b'"' | b'\'') => {
                let start = i + 1;
                i += 1;
                while i < bytes.len() && bytes[i] != quote {
                    i += if bytes[i] == b'\\' { 2 } else { 1 };
                }
                if depth == 1 && text.get(start..).is_some_and(|t| t.starts_with(key)) && start + key.len() == i && is_key(start) {
                    return true;
                }
            }
            b'/' if bytes.get(i + 1) == Some(&b'/') => i = text[i..].find('\n').map_or(bytes.len(), |n| i + n),
            b'/' if bytes.get(i + 1) == Some(&b'*') => i = text[i + 2..].find("*/").map_or(bytes.len(), |n| i + 2 + n + 1),
            b'#' => i = text[i..].find('\n').map_or(bytes.len(), |n| i + n),
            _ if depth == 1 && bytes[i..].starts_with(key.as_bytes()) && (i == 0 || !bytes[i - 1].is_ascii_alphanumeric()) && is_key(i) => {
                return true;
            }
            _ => {}
        }
        i += 1;
    }
    false
}

/// The subresource a document names for itself with a comment line `# crdls: subresource=status` (at
/// the start of a line, anywhere in the document): the document is then checked as a write to the
/// object's `/status`, as `crdls check --subresource status` checks every document. This is how a
/// file in the editor, or a test fixture, says that its object is a status update.
pub fn subresource_directive(document: &str) -> Option<Subresource> {
    document.lines().find_map(|line| {
        let words = line.strip_prefix('#')?.trim().strip_prefix("crdls:")?.trim();
        match words.split_whitespace().collect::<Vec<_>>().as_slice() {
            ["subresource=status"] => Some(Subresource::Status),
            ["subresource=main"] => Some(Subresource::Main),
            _ => None,
        }
    })
}

#[cfg(test)]
mod tests;
