//! CRDs read identity first. A workspace can hold thousands of CRDs, and nearly all of a CRD's bytes
//! are its schemas, of which a session uses a few. So the index is built from what names a CRD
//! (group, kinds, versions, served, storage), read from the text with the schemas cut out, and a
//! version's schema is built from its source when something first asks for it.

use std::fmt;
use std::sync::{Arc, Mutex, OnceLock};

use crdls_yaml::{Node, Stream};

use crdls_diagnostics::TextRange;

use crate::crd::{collect, crd_objects, is_crd, schema_node, Crd, CrdApiVersion, SchemaMaker};
use crate::schema::Schema;

/// Reads the text of a CRD's source as it is now (a file, a buffer, an archive member), for building
/// its schemas when first needed; `None` when it can no longer be read.
pub type TextReader = Arc<dyn Fn() -> Option<Arc<str>> + Send + Sync>;

/// Where in its CRD a version's schema is.
#[derive(Clone, Debug)]
pub(crate) enum Slot {
    /// `spec.versions[index].schema.openAPIV3Schema`, the entry named `name`.
    Version {
        /// The entry's position when the CRD was read.
        index: usize,
        /// The entry's name.
        name: String,
    },
    /// v1beta1's `spec.validation.openAPIV3Schema`, for every version without its own.
    Legacy,
}

/// A version's schema: built, or to be built from its source on first use (by one thread; others
/// asking meanwhile wait for it).
pub(crate) struct SchemaCell {
    built: OnceLock<Option<Arc<Schema>>>,
    deferred: Option<Deferred>,
}

/// A deferred schema: which of its CRD's schemas it is.
struct Deferred {
    crd: Arc<DeferredCrd>,
    /// Its position among the CRD's slots.
    index: usize,
}

/// What building the deferred schemas of one CRD needs. They are built together, from one parse of the
/// CRD's document, when the first of them is asked for (a CRD's versions often share most of their
/// sub-schemas, which then cost nothing more).
struct DeferredCrd {
    reader: TextReader,
    /// Where the CRD object started in the source when it was read.
    crd_start: usize,
    /// Its `metadata.name`, to find it again if the source changed.
    crd_name: String,
    api_version: CrdApiVersion,
    /// The slots of its schemas, and once built, the schemas.
    state: Mutex<CrdSchemas>,
}

#[derive(Default)]
struct CrdSchemas {
    slots: Vec<Slot>,
    built: Option<Vec<Option<Arc<Schema>>>>,
}

impl SchemaCell {
    /// A schema already built (or a version without one).
    pub(crate) fn ready(schema: Option<Arc<Schema>>) -> SchemaCell {
        SchemaCell { built: OnceLock::from(schema), deferred: None }
    }

    /// The schema, built now if it was not (without positions, its sub-schemas shared, when deferred).
    pub(crate) fn get(&self) -> Option<&Arc<Schema>> {
        self.built.get_or_init(|| self.deferred.as_ref().and_then(Deferred::load)).as_ref()
    }

    /// The schema with the range of every node in its source: the one built when it was read whole;
    /// read again from the source each time when deferred (for go-to-definition).
    pub(crate) fn located(&self) -> Option<Arc<Schema>> {
        match &self.deferred {
            Some(d) => d.located(),
            None => self.get().cloned(),
        }
    }

    /// Whether there is a schema, built.
    pub(crate) fn is_built(&self) -> bool {
        self.built.get().is_some_and(Option::is_some)
    }
}

impl fmt::Debug for SchemaCell {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        // A deferred schema shows where it is read from, built or not, so that the text does not change
        // when something first uses it (the language server fingerprints CRDs by this text).
        match (&self.deferred, self.built.get()) {
            (Some(d), _) => write!(f, "<schema {} of {} at byte {}, built on first use>", d.index, d.crd.crd_name, d.crd.crd_start),
            (None, Some(schema)) => schema.fmt(f),
            (None, None) => f.write_str("None"),
        }
    }
}

impl Deferred {
    /// The schema, without positions and shared: built with the CRD's others on first use.
    fn load(&self) -> Option<Arc<Schema>> {
        let mut state = self.crd.state.lock().unwrap_or_else(|e| e.into_inner());
        if state.built.is_none() {
            let slots = &state.slots;
            let built = (self.crd.reader)()
                .and_then(|text| {
                    self.crd.with_crd(&text, |crd| {
                        slots.iter().map(|slot| schema_node(crd, self.crd.api_version, slot).map(Schema::shared_from_node)).collect()
                    })
                })
                .unwrap_or_else(|| vec![None; slots.len()]);
            state.built = Some(built);
        }
        state.built.as_ref().and_then(|b| b.get(self.index)).cloned().flatten()
    }

    /// The schema with positions, read from the source now.
    fn located(&self) -> Option<Arc<Schema>> {
        let slot = self.crd.state.lock().unwrap_or_else(|e| e.into_inner()).slots.get(self.index)?.clone();
        let text = (self.crd.reader)()?;
        self.crd.with_crd(&text, |crd| schema_node(crd, self.crd.api_version, &slot).map(|n| Arc::new(Schema::from_node(n)))).flatten()
    }
}

impl DeferredCrd {
    /// Runs `f` on the CRD in `text`: the one that starts where it did, or, when the source changed
    /// since, the first CRD of the same name. A CRD whose document no longer parses is not found.
    fn with_crd<T>(&self, text: &str, f: impl FnOnce(&Node) -> T) -> Option<T> {
        let here = crdls_yaml::parse_at(text, self.crd_start.min(text.len()));
        if let Some(crd) = self.find(&here, Some(self.crd_start)) {
            return Some(f(crd));
        }
        let whole = crdls_yaml::parse(text);
        self.find(&whole, None).map(f)
    }

    /// In `stream`, the CRD (starting at `start`, if given) named as this one.
    fn find<'a>(&self, stream: &'a Stream, start: Option<usize>) -> Option<&'a Node> {
        let wanted = |n: &Node| {
            start.is_none_or(|s| n.range.start == s)
                && n.get("metadata").and_then(|m| m.get_str("name")).unwrap_or_default() == self.crd_name
        };
        stream
            .documents
            .iter()
            .filter(|d| !d.has_syntax_error)
            .filter_map(|d| d.root.as_ref())
            .find_map(|root| crd_objects(root, &mut |node, _| wanted(node)))
    }
}

/// Defers each schema to its source, placing CRDs by their offsets in the source.
struct Deferring<'a> {
    reader: &'a TextReader,
    cut: Option<&'a Cut>,
    /// The CRD whose schemas are being deferred, by where it starts in the text read.
    current: Option<(usize, Arc<DeferredCrd>)>,
}

impl Deferring<'_> {
    fn start(&self, offset: usize) -> usize {
        self.cut.map_or(offset, |c| c.start(offset))
    }

    fn range(&self, range: TextRange) -> TextRange {
        self.cut.map_or(range, |c| c.range(range))
    }
}

impl SchemaMaker for Deferring<'_> {
    fn make(&mut self, root: &Node, slot: Slot, _schema: &Node) -> Arc<SchemaCell> {
        let crd = match &self.current {
            Some((start, crd)) if *start == root.range.start => crd.clone(),
            _ => {
                let crd = Arc::new(DeferredCrd {
                    reader: self.reader.clone(),
                    crd_start: self.start(root.range.start),
                    crd_name: root.get("metadata").and_then(|m| m.get_str("name")).unwrap_or_default().to_string(),
                    api_version: is_crd(root).unwrap_or(CrdApiVersion::V1),
                    state: Mutex::default(),
                });
                self.current = Some((root.range.start, crd.clone()));
                crd
            }
        };
        let index = {
            let mut state = crd.state.lock().unwrap_or_else(|e| e.into_inner());
            state.slots.push(slot);
            state.slots.len() - 1
        };
        Arc::new(SchemaCell { built: OnceLock::new(), deferred: Some(Deferred { crd, index }) })
    }
}

/// See [`Crd::read_identities`].
pub(crate) fn read_identities(text: &str, reader: TextReader) -> Vec<Crd> {
    if let Some((cut, stream)) = cut_parses(text) {
        {
            let mut deferring = Deferring { reader: &reader, cut: Some(&cut), current: None };
            let mut out = Vec::new();
            for root in stream.documents.iter().filter_map(|d| d.root.as_ref()) {
                collect(root, &mut deferring, &mut out);
            }
            for crd in &mut out {
                crd.kind_range = deferring.range(crd.kind_range);
                for version in &mut crd.versions {
                    version.name_range = deferring.range(version.name_range);
                }
            }
            return out;
        }
    }
    let stream = crdls_yaml::parse(text);
    let mut deferring = Deferring { reader: &reader, cut: None, current: None };
    let mut out = Vec::new();
    for root in stream.documents.iter().filter(|d| !d.has_syntax_error).filter_map(|d| d.root.as_ref()) {
        collect(root, &mut deferring, &mut out);
    }
    out
}

/// `text` with its schemas cut out, parsed, when that is the fast way to read it. Anything the cut
/// could have changed the meaning of (an alias of an anchor cut out, a quoted string cut in two) shows
/// as a diagnostic: then the whole text is read.
pub(crate) fn cut_parses(text: &str) -> Option<(Cut, Stream)> {
    let cut = without_schemas(text)?;
    let stream = crdls_yaml::parse(&cut.text);
    stream.documents.iter().all(|d| d.diagnostics.is_empty()).then_some((cut, stream))
}

/// A text with its block-style `openAPIV3Schema` values cut out, and where its pieces came from.
pub(crate) struct Cut {
    /// The text: each `openAPIV3Schema:` key with `{}` for its value.
    pub(crate) text: String,
    /// Where each piece of `text` starts, and where it came from in the original, in order.
    pieces: Vec<(usize, usize)>,
    /// The original's length.
    original_len: usize,
}

impl Cut {
    /// The original offset of `offset` in the cut text.
    fn start(&self, offset: usize) -> usize {
        let at = self.pieces.partition_point(|&(cut, _)| cut <= offset).saturating_sub(1);
        let (cut, original) = self.pieces[at];
        (original + (offset - cut)).min(self.original_len)
    }

    /// The original range of `range` in the cut text: a scalar, which never spans a cut.
    fn range(&self, range: TextRange) -> TextRange {
        let start = self.start(range.start);
        TextRange::new(start, (start + range.end.saturating_sub(range.start)).min(self.original_len))
    }
}

const SCHEMA_KEY: &str = "openAPIV3Schema:";

/// Cuts out the value of every `openAPIV3Schema:` key written alone at the end of its line (block
/// style, as every generator writes CRDs): the lines after it that are blank, comments, or indented
/// more than the key belong to the value in any YAML that parses. `None` when there is nothing to cut
/// (JSON, flow style, no schemas). Cutting never turns valid YAML into YAML with another meaning for
/// what is kept, except through anchors and quoted scalars, which then fail to parse (see
/// [`read_identities`]).
pub(crate) fn without_schemas(text: &str) -> Option<Cut> {
    if !text.contains(SCHEMA_KEY) {
        return None;
    }
    let mut out = String::with_capacity(text.len() / 8);
    let mut pieces = vec![(0, 0)];
    let mut cutting: Option<usize> = None;
    let mut kept_from = 0;
    let mut at = 0;
    while at < text.len() {
        let end = text[at..].find('\n').map_or(text.len(), |i| at + i + 1);
        let line = text[at..end].trim_end_matches(['\n', '\r']);
        let indent = line.len() - line.trim_start_matches(' ').len();
        if let Some(key_column) = cutting {
            let content = line[indent..].trim_start();
            if content.is_empty() || content.starts_with('#') || indent > key_column {
                at = end;
                continue;
            }
            cutting = None;
            kept_from = at;
            pieces.push((out.len(), at));
        }
        // The key may follow sequence dashes (`- openAPIV3Schema:`).
        let mut column = indent;
        let mut rest = &line[indent..];
        while let Some(after) = rest.strip_prefix("- ") {
            let after = after.trim_start_matches(' ');
            column += rest.len() - after.len();
            rest = after;
        }
        if let Some(value) = rest.strip_prefix(SCHEMA_KEY) {
            let trimmed = value.trim_start_matches([' ', '\t']);
            if trimmed.is_empty() || (trimmed.starts_with('#') && trimmed.len() < value.len()) {
                let key_end = at + column + SCHEMA_KEY.len();
                out.push_str(&text[kept_from..key_end]);
                pieces.push((out.len(), key_end));
                out.push_str(" {}");
                out.push_str(&text[at + line.len()..end]);
                cutting = Some(column);
            }
        }
        at = end;
    }
    if pieces.len() == 1 {
        return None;
    }
    if cutting.is_none() {
        out.push_str(&text[kept_from..]);
    }
    Some(Cut { text: out, pieces, original_len: text.len() })
}
