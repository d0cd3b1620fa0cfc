//! The custom resources `crdls check` offers a CRD compared with its previous version, so that it can
//! say which of them the change breaks (`crd-change/breaks-objects`): the whole objects of the checked
//! files, read again the first time a changed CRD asks (a run that changes no CRD reads nothing more),
//! at most [`MAX_HELD`] of them.

use std::path::PathBuf;
use std::sync::OnceLock;

use crdls_check::old::{ObjectSource, SourcedObject};
use crdls_check::FileMode;
use crdls_workspace::{files, FileRole};

use super::inputs::Input;

/// How many objects are held at most, across kinds.
const MAX_HELD: usize = 20_000;

/// One checked file: what is shown, where its text is, and what it is.
#[derive(Debug)]
struct File {
    display: String,
    path: Option<PathBuf>,
    text: Option<String>,
    role: FileRole,
}

/// The objects of the checked files, read on first use.
#[derive(Debug)]
pub(crate) struct CheckedObjects {
    files: Vec<File>,
    objects: OnceLock<Vec<SourcedObject>>,
}

impl CheckedObjects {
    /// The reported inputs with their roles (`roles[i]` is `inputs[i]`'s).
    pub(crate) fn new(inputs: &[Input], roles: &[FileRole]) -> CheckedObjects {
        let files = inputs
            .iter()
            .zip(roles)
            .filter(|(input, _)| input.report)
            .map(|(input, role)| File {
                display: input.display.clone(),
                path: input.path.clone(),
                text: input.text.clone(),
                role: role.clone(),
            })
            .collect();
        CheckedObjects { files, objects: OnceLock::new() }
    }

    fn read_all(&self) -> Vec<SourcedObject> {
        let mut out = Vec::new();
        for file in &self.files {
            let text = match (&file.text, &file.path) {
                (Some(text), _) => text.clone(),
                (None, Some(path)) => match files::read_text(path) {
                    Ok(text) => text,
                    // Reported when the file itself is checked.
                    Err(_) => continue,
                },
                (None, None) => continue,
            };
            let (stream, mode) = file.role.parse(&text);
            if !matches!(mode, FileMode::Objects | FileMode::Assembled { .. }) {
                continue;
            }
            let lines = crdls_yaml::LineIndex::new(&text);
            for doc in stream.documents.iter().filter(|d| !d.has_syntax_error) {
                let Some(root) = &doc.root else { continue };
                let custom = root.get_str("apiVersion").is_some_and(|v| crdls_crd::split_api_version(v).0.contains('.'));
                if !custom || crdls_crd::is_crd(root).is_some() {
                    continue;
                }
                if out.len() >= MAX_HELD {
                    return out;
                }
                out.push(SourcedObject { source: file.display.clone(), line: lines.line_of(root.range.start), root: root.clone() });
            }
        }
        out
    }
}

impl ObjectSource for CheckedObjects {
    fn objects_of(&self, group: &str, kind: &str, limit: usize) -> Vec<SourcedObject> {
        let all = self.objects.get_or_init(|| self.read_all());
        all.iter()
            .filter(|o| {
                o.root.get_str("kind") == Some(kind)
                    && o.root.get_str("apiVersion").is_some_and(|v| crdls_crd::split_api_version(v).0 == group)
            })
            .take(limit)
            .cloned()
            .collect()
    }
}
