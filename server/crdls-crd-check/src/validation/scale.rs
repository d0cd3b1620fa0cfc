//! `crd/scale`: the scale subresource. `specReplicasPath` is required and under `.spec.`,
//! `statusReplicasPath` is required and under `.status.`, an optional `labelSelectorPath` is under
//! either; all start with a dot. The API server checks nothing more, so crdls warns where a path
//! does not resolve in the schema (the scale endpoint would read nothing, and what it writes would be
//! pruned) or resolves to the wrong type: replicas are integers, the selector is a string.
//!
//! Example: `specReplicasPath: spec.replicas`. Fix: `.spec.replicas`.

use crdls_crd::Schema;

use super::paths::{dot_steps, resolve, Resolved};
use super::{fe, get, key_at, text, value_at, CrdDoc, Sink};
use crate::field_error::ErrorType;
use crate::gofmt;
use crdls_diagnostics::codes;

const CODE: &str = codes::CRD_SCALE;

pub(super) fn check(crd: &CrdDoc<'_>, sink: &mut Sink<'_>) {
    for (prefix, version, subresources) in crd.per_version("subresources", crd.layout.subresources, "subresources") {
        let Some(scale) = get(subresources, "scale") else { continue };
        let anchor = key_at(subresources, "scale", subresources.range);
        let s = format!("{prefix}.scale");
        // The versions whose schemas the paths must resolve in.
        let schemas: Vec<(String, Schema)> = match version {
            Some(i) => crd.schema_of(i).map(|n| (name_of(crd, i), Schema::from_node(n))).into_iter().collect(),
            None => (0..crd.versions.len()).filter_map(|i| crd.schema_of(i).map(|n| (name_of(crd, i), Schema::from_node(n)))).collect(),
        };
        for (key, under, ty) in [("specReplicasPath", ".spec.", "integer"), ("statusReplicasPath", ".status.", "integer")] {
            let path = text(scale, key);
            let at = value_at(scale, key, anchor);
            if path.is_empty() {
                sink.error(at, CODE, fe(ErrorType::Required, format!("{s}.{key}"), None, ""), format!("the scale subresource needs {key}"));
            } else if !path.starts_with('.') {
                let detail = "must be a simple json path starting with .";
                sink.error(
                    at,
                    CODE,
                    fe(ErrorType::Invalid, format!("{s}.{key}"), Some(gofmt::quote(path)), detail),
                    format!("{key} must start with a dot (such as {under}replicas)"),
                );
            } else if !path.starts_with(under) {
                let detail = format!("should be a json path under {}", under.trim_end_matches('.'));
                sink.error(
                    at,
                    CODE,
                    fe(ErrorType::Invalid, format!("{s}.{key}"), Some(gofmt::quote(path)), &detail),
                    format!("{key} must be a path under {under}"),
                );
            } else {
                check_resolves(&schemas, key, path, ty, at, &format!("{s}.{key}"), sink);
            }
        }
        if let Some(selector) = get(scale, "labelSelectorPath") {
            let path = selector.as_str().unwrap_or_default();
            let at = selector.range;
            let p = format!("{s}.labelSelectorPath");
            if path.is_empty() {
                continue;
            }
            if !path.starts_with('.') {
                let detail = "must be a simple json path starting with .";
                sink.error(
                    at,
                    CODE,
                    fe(ErrorType::Invalid, &p, Some(gofmt::quote(path)), detail),
                    "labelSelectorPath must start with a dot",
                );
            } else if !path.starts_with(".spec.") && !path.starts_with(".status.") {
                let detail = "should be a json path under either .spec or .status";
                sink.error(
                    at,
                    CODE,
                    fe(ErrorType::Invalid, &p, Some(gofmt::json(selector)), detail),
                    "labelSelectorPath must be a path under .spec. or .status.",
                );
            } else {
                check_resolves(&schemas, "labelSelectorPath", path, "string", at, &p, sink);
            }
        }
    }
}

fn name_of(crd: &CrdDoc<'_>, i: usize) -> String {
    crd.versions.get(i).and_then(|v| v.get_str("name")).unwrap_or_default().to_string()
}

/// Warns when `path` does not lead to a field of type `ty` in some version's schema.
fn check_resolves(
    schemas: &[(String, Schema)],
    key: &str,
    path: &str,
    ty: &str,
    at: crdls_diagnostics::TextRange,
    field: &str,
    sink: &mut Sink<'_>,
) {
    let Some(steps) = dot_steps(path) else { return };
    for (version, schema) in schemas {
        match resolve(schema, &steps) {
            Resolved::Missing(prefix, name) => {
                let prefix = if prefix.is_empty() { "the root".to_string() } else { prefix };
                sink.warning(
                    at,
                    CODE,
                    field.to_string(),
                    format!("{path} is not in the schema of {version} ({prefix} has no field {name}): the scale subresource would read nothing there, and what it writes would be pruned"),
                );
                return;
            }
            Resolved::Found(target) => {
                let found = if target.int_or_string { Some("int-or-string") } else { target.ty.as_deref() };
                if found.is_some_and(|f| f != ty) {
                    let what = if ty == "integer" { "replicas are integers" } else { "the label selector is a string" };
                    sink.warning(
                        at,
                        CODE,
                        field.to_string(),
                        format!("{key} points at a field of type {} in {version}, but {what}", found.unwrap_or_default()),
                    );
                    return;
                }
            }
            Resolved::Unknown => {}
        }
    }
}
