//! Go-to-definition: from a key or value of a custom resource to the property that declares it in the
//! CRD file, and from `kind` and `apiVersion` to the CRD itself.

use crdls_crd::{CrdIndex, Resolution, SourceId};
use crdls_diagnostics::TextRange;
use crdls_yaml::{locate, Segment, Stream};

use crate::schema_walk::{walk, Via};

/// A place in another source (a CRD file).
#[derive(Clone, Debug, PartialEq)]
pub struct Target {
    /// The source, as the index knows it.
    pub source: SourceId,
    /// The range in that source.
    pub range: TextRange,
}

/// Where the key or value at byte `offset` is defined: a field's property name in its CRD (its `items`
/// or `additionalProperties` schema for list items and map keys), the CRD's `spec.names.kind` for `kind`
/// and the `apiVersion` key, and the version's name for the `apiVersion` value. Fields Kubernetes defines
/// (`metadata.name`) have no definition in the CRD.
pub fn definition(_text: &str, stream: &Stream, index: &CrdIndex, offset: usize) -> Option<Target> {
    let location = locate(stream, offset)?;
    if !location.on_key() && !location.on_scalar() {
        return None;
    }
    let root = location.document.root.as_ref()?;
    if crdls_crd::is_crd(root).is_some() {
        return crd_path_definition(root, &location);
    }
    let (api_version, kind) = (root.get_str("apiVersion")?, root.get_str("kind")?);
    let resolution = index.resolve(api_version, kind);
    if let [Segment::Key(key @ ("apiVersion" | "kind"))] = location.path.as_slice() {
        return match resolution {
            Resolution::Found { crd, version } if *key == "apiVersion" && !location.on_key() => {
                Some(Target { source: crd.written_in(), range: version.name_range })
            }
            Resolution::Found { crd, .. } | Resolution::UnknownVersion { crd } => {
                Some(Target { source: crd.written_in(), range: crd.crd.kind_range })
            }
            _ => None,
        };
    }
    let Resolution::Found { crd, version } = resolution else { return None };
    let located = version.located_schema();
    let steps = walk(located.as_deref(), &location.path)?;
    let step = steps.last()?;
    let range = match (step.declared, step.via) {
        (Some(property), _) => property.name_range,
        (None, Via::Item | Via::MapKey) if !step.builtin => step.schema.range,
        _ => return None,
    };
    Some(Target { source: crd.written_in(), range })
}

/// In a CRD: from a printer column's or selectable field's `jsonPath`, or a scale subresource path, to
/// the schema property it names, in the same version's schema. The target's source is empty: this
/// document.
fn crd_path_definition(root: &crdls_yaml::Node, location: &crdls_yaml::Location<'_>) -> Option<Target> {
    if location.on_key() {
        return None;
    }
    let path = &location.path;
    let version = match path.as_slice() {
        [Segment::Key("spec"), Segment::Key("versions"), Segment::Index(v), Segment::Key("additionalPrinterColumns" | "selectableFields"), Segment::Index(_), Segment::Key("jsonPath")]
        | [Segment::Key("spec"), Segment::Key("versions"), Segment::Index(v), Segment::Key("subresources"), Segment::Key("scale"), Segment::Key("specReplicasPath" | "statusReplicasPath" | "labelSelectorPath")] => {
            Some(*v)
        }
        [Segment::Key("spec"), Segment::Key("additionalPrinterColumns" | "selectableFields"), Segment::Index(_), Segment::Key("JSONPath" | "jsonPath")]
        | [Segment::Key("spec"), Segment::Key("subresources"), Segment::Key("scale"), Segment::Key("specReplicasPath" | "statusReplicasPath" | "labelSelectorPath")] => {
            None
        }
        _ => return None,
    };
    let spec = root.get("spec")?;
    let schema = match version {
        Some(v) => spec.get("versions")?.as_seq()?.get(v)?.get("schema")?.get("openAPIV3Schema")?,
        None => spec.get("validation")?.get("openAPIV3Schema")?,
    };
    let json_path = location.node.as_str()?;
    let mut node = schema;
    let mut range = None;
    for field in json_path_fields(json_path) {
        let properties = node.get("properties")?;
        let entry = properties.entry(&field)?;
        range = Some(entry.key_range);
        node = &entry.value;
        // Through list items to their properties (`.spec.items[*].name`).
        while node.get("properties").is_none() {
            match node.get("items") {
                Some(items) => node = items,
                None => break,
            }
        }
    }
    Some(Target { source: SourceId::from(""), range: range? })
}

/// The field names of a simple JSONPath (`.spec.replicas`, `.metadata['name']`, `.items[*].name`).
fn json_path_fields(path: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut rest = path.trim().trim_start_matches('{').trim_end_matches('}');
    while !rest.is_empty() {
        if let Some(r) = rest.strip_prefix('.') {
            let end = r.find(['.', '[']).unwrap_or(r.len());
            if end > 0 {
                out.push(r[..end].to_string());
            }
            rest = &r[end..];
        } else if let Some(r) = rest.strip_prefix('[') {
            let end = r.find(']').unwrap_or(r.len());
            let inner = r[..end].trim_matches(['\'', '"']);
            if !inner.is_empty() && inner != "*" && !inner.bytes().all(|b| b.is_ascii_digit()) {
                out.push(inner.to_string());
            }
            rest = r.get(end + 1..).unwrap_or_default();
        } else {
            break;
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use crdls_test_fixture as fixture;
    use expect_test::{expect, Expect};

    use super::*;

    fn crd() -> String {
        fixture::Crd::new("Widget")
            .schema(
                r#"
                type: object
                properties:
                  spec:
                    type: object
                    properties:
                      nested:
                        type: object
                        properties:
                          leaf: {type: string}
                      ports:
                        type: array
                        items:
                          type: object
                          properties:
                            containerPort: {type: integer}
                      tags:
                        type: array
                        items: {type: string}
                      labels:
                        type: object
                        additionalProperties: {type: string}
                "#,
            )
            .yaml()
    }

    const DOC: &str = "apiVersion: demo.crdls.dev/v1\nkind: Widget\nmetadata:\n  name: w\nspec:\n  nested:\n    leaf: x\n  ports:\n  - containerPort: 80\n  tags: [a]\n  labels:\n    app: web\n";

    /// Goes to the definition of what is at `$0` and renders the target: the source and the line of the
    /// CRD it points into, with the target range in brackets.
    fn check_definition(crd_yaml: &str, doc_with_cursor: &str, expect: Expect) {
        let offset = doc_with_cursor.find("$0").expect("the fixture has a $0 cursor");
        let text = doc_with_cursor.replacen("$0", "", 1);
        let stream = crdls_yaml::parse(&text);
        let got = match definition(&text, &stream, &fixture::index(crd_yaml), offset) {
            Some(Target { source, range }) => {
                let line_start = crd_yaml[..range.start].rfind('\n').map_or(0, |i| i + 1);
                let line_end = crd_yaml[range.end..].find('\n').map_or(crd_yaml.len(), |i| range.end + i);
                let line = crdls_yaml::LineIndex::new(crd_yaml).line_of(range.start) + 1;
                format!(
                    "{source}:{line}: {}[{}]{}",
                    &crd_yaml[line_start..range.start],
                    &crd_yaml[range.start..range.end],
                    &crd_yaml[range.end..line_end]
                )
            }
            None => "none".to_string(),
        };
        expect.assert_eq(&got);
    }

    /// `DOC` with the cursor after the first occurrence of `at`.
    fn doc_at(at: &str) -> String {
        let i = DOC.find(at).map_or(0, |i| i + at.len());
        format!("{}$0{}", &DOC[..i], &DOC[i..])
    }

    #[test]
    fn from_a_nested_key() {
        check_definition(&crd(), &doc_at("lea"), expect!["crd.yaml:27:                   [leaf]: {type: string}"]);
        check_definition(&crd(), &doc_at("leaf: x"), expect!["crd.yaml:27:                   [leaf]: {type: string}"]);
    }

    #[test]
    fn from_a_list_item_key_and_items() {
        check_definition(&crd(), &doc_at("containerP"), expect!["crd.yaml:33:                     [containerPort]: {type: integer}"]);
        check_definition(&crd(), &doc_at("tags: [a"), expect!["crd.yaml:36:                 items: [{type: string}]"]);
        check_definition(&crd(), &doc_at("app"), expect!["crd.yaml:39:                 additionalProperties: [{type: string}]"]);
    }

    #[test]
    fn from_kind_and_api_version() {
        check_definition(&crd(), &doc_at("kind: Wid"), expect!["crd.yaml:9:     kind: [Widget]"]);
        check_definition(&crd(), &doc_at("apiVersion: demo"), expect!["crd.yaml:14:   - name: [v1]"]);
        check_definition(&crd(), &doc_at("apiVer"), expect!["crd.yaml:9:     kind: [Widget]"]);
    }

    #[test]
    fn nothing_for_kubernetes_fields_unknown_fields_and_odd_offsets() {
        check_definition(&crd(), &doc_at("  na"), expect!["none"]);
        check_definition(&crd(), "apiVersion: demo.crdls.dev/v1\nkind: Widget\nspec:\n  bogus$0: 1\n", expect!["none"]);
        let index = fixture::index(&crd());
        for text in ["", "é", DOC] {
            let stream = crdls_yaml::parse(text);
            for offset in 0..=text.len() + 2 {
                let _ = definition(text, &stream, &index, offset);
            }
        }
    }
}

#[cfg(test)]
mod crd_path_tests {
    use super::*;

    #[test]
    fn printer_columns_and_scale_paths_lead_to_their_schema_property() {
        // Written out rather than with `crdls_test_fixture`: this CRD is the document being edited, and
        // what the test is about (the scale subresource and the printer columns) is beside its schema.
        let text = "apiVersion: apiextensions.k8s.io/v1\nkind: CustomResourceDefinition\nmetadata: {name: a.b.c}\nspec:\n  versions:\n  - name: v1\n    schema:\n      openAPIV3Schema:\n        type: object\n        properties:\n          spec:\n            type: object\n            properties:\n              replicas: {type: integer}\n              ports:\n                type: array\n                items:\n                  type: object\n                  properties:\n                    name: {type: string}\n    subresources:\n      scale: {specReplicasPath: .spec.replicas, statusReplicasPath: .status.replicas}\n    additionalPrinterColumns:\n    - {name: Port, type: string, jsonPath: \".spec.ports[*].name\"}\n";
        let stream = crdls_yaml::parse(text);
        let index = CrdIndex::new();
        let at = |needle: &str| text.find(needle).unwrap() + 2;
        let target = definition(text, &stream, &index, at(".spec.replicas")).unwrap();
        assert_eq!((target.source.as_ref(), &text[target.range.start..target.range.end]), ("", "replicas"));
        let column = definition(text, &stream, &index, at(".spec.ports[*]")).unwrap();
        assert_eq!(&text[column.range.start..column.range.end], "name");
        assert!(definition(text, &stream, &index, at(".status.replicas")).is_none(), "no status in this schema");
    }
}
