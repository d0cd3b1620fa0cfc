//! What a CRD change does to the custom resources the front end knows (the workspace's files): each
//! object of the CRD's kind is checked against the previous CRD and against the new one, as a create
//! (what re-applying it would meet) and as an update that leaves it unchanged (what a controller's
//! write of a stored object meets, ratcheting included). Objects valid before and rejected now are
//! reported on the CRD, with where they are. The work is bounded: at most [`MAX_OBJECTS`] objects.

use std::sync::Arc;

use crdls_crd::{Crd, CrdIndex};
use crdls_diagnostics::codes;
use crdls_diagnostics::{listed, BrokenObject, Change, Diagnostic, Severity};
use crdls_resource_check::old::SourcedObject;
use crdls_resource_check::{check_object, CheckOptions, OldObjects, Reading};
use crdls_yaml::Node;

/// How many objects of a kind are checked against a changed CRD.
pub const MAX_OBJECTS: usize = 100;

/// Reports, on the CRD `new`, the objects of its kind that its previous version `old` accepts and it
/// rejects.
pub(crate) fn broken_objects(old: &Node, new: &Node, options: &CheckOptions, out: &mut Vec<Diagnostic>) {
    let Some(source) = options.objects.as_deref() else { return };
    let (Some(old_crd), Some(new_crd)) = (Crd::from_root(old).into_iter().next(), Crd::from_root(new).into_iter().next()) else {
        return;
    };
    if !new_crd.is_indexable() {
        return;
    }
    let objects = source.objects_of(&new_crd.group, &new_crd.names.kind, MAX_OBJECTS);
    if objects.is_empty() {
        return;
    }
    let kind = new_crd.names.kind.clone();
    let at = new_crd.kind_range;
    let index = |crd: Crd| {
        let mut index = CrdIndex::new();
        index.set_source(Arc::from("crdls:evolution"), vec![crd]);
        index
    };
    let (before, after) = (index(old_crd), index(new_crd));
    let created = CheckOptions { old: None, objects: None, ..options.clone() };
    let mut broken: Vec<(&SourcedObject, String, bool)> = Vec::new();
    for object in &objects {
        if !errors(&object.root, &before, &created).is_empty() {
            // Already rejected by the previous CRD: not this change's doing.
            continue;
        }
        let Some(first) = errors(&object.root, &after, &created).into_iter().next() else { continue };
        let mut old = OldObjects::new();
        old.add_root(&object.root);
        let updated = CheckOptions { old: Some(Arc::new(old)), ..created.clone() };
        let fails_update = !errors(&object.root, &after, &updated).is_empty();
        broken.push((object, first, fails_update));
    }
    if broken.is_empty() {
        return;
    }
    let on_update = broken.iter().filter(|(_, _, u)| *u).count();
    let shown: Vec<String> = broken
        .iter()
        .map(|(o, first, _)| {
            let name = o.root.get("metadata").and_then(|m| m.get_str("name")).unwrap_or("(unnamed)");
            format!("{}:{} {name} ({first})", o.source, o.line + 1)
        })
        .collect();
    let checked = if objects.len() == MAX_OBJECTS { format!("the first {MAX_OBJECTS}") } else { objects.len().to_string() };
    let update = match on_update {
        0 => "; an update that leaves them unchanged still passes (ratcheting)".to_string(),
        n if n == broken.len() => "; even an update that leaves them unchanged fails".to_string(),
        n => format!("; {n} of them fail even an update that leaves them unchanged"),
    };
    let message = format!(
        "this change breaks {} of {checked} {kind} objects of the workspace: the previous CRD accepts them, this one rejects them when they are created again{update}: {}",
        broken.len(),
        listed(&shown)
    );
    let severity = codes::lookup(codes::CRD_CHANGE_BREAKS_OBJECTS).map_or(Severity::Error, |c| c.severity);
    let mut diagnostic = Diagnostic::new(at, severity, codes::CRD_CHANGE_BREAKS_OBJECTS, message).with_path("spec.names.kind");
    let objects = broken
        .iter()
        .map(|(o, first, _)| BrokenObject {
            file: o.source.clone(),
            line: o.line + 1,
            name: o.root.get("metadata").and_then(|m| m.get_str("name")).unwrap_or_default().to_string(),
            error: first.clone(),
        })
        .collect();
    diagnostic.change = Some(Box::new(Change { objects, ..Change::default() }));
    out.push(diagnostic);
}

/// Each error of `root` checked against `index`, in one line.
fn errors(root: &Node, index: &CrdIndex, options: &CheckOptions) -> Vec<String> {
    let mut out = Vec::new();
    check_object(root, index, options, Reading { complete: true, whole: true, live_status: false }, &mut out);
    out.into_iter()
        .filter(|d| d.severity == Severity::Error)
        .map(|d| {
            // The API server's words when it has them, else crdls' message at its field path.
            if let Some(cause) = &d.cause {
                return cause.lines().next().unwrap_or_default().to_string();
            }
            let line = d.message.lines().next().unwrap_or_default().to_string();
            match &d.path {
                Some(path) if !line.starts_with(path.as_str()) => format!("{path}: {line}"),
                _ => line,
            }
        })
        .collect()
}
