//! The schema of a CustomResourceDefinition itself, for completion and hover while a CRD is edited:
//! every field of `apiextensions.k8s.io/v1`, and the keywords of a schema node (JSONSchemaProps) with
//! every `x-kubernetes-*` extension. Schema nodes nest: a node titled `@JSONSchemaProps` stands for
//! the JSONSchemaProps schema again.

use std::sync::{Arc, OnceLock};

use crdls_crd::Schema;

/// The title that marks a nested schema node.
const SCHEMA_PROPS: &str = "@JSONSchemaProps";

struct Builtin {
    crd: Arc<Schema>,
    props: Arc<Schema>,
}

fn builtin() -> &'static Builtin {
    static BUILTIN: OnceLock<Builtin> = OnceLock::new();
    BUILTIN.get_or_init(|| {
        let stream = crdls_yaml::parse(include_str!("builtin/crd-v1.yaml"));
        let root = stream.documents.first().and_then(|d| d.root.as_ref());
        let schema = |key: &str| Arc::new(root.and_then(|r| r.get(key)).map(Schema::from_node).unwrap_or_default());
        Builtin { crd: schema("customResourceDefinition"), props: schema("jsonSchemaProps") }
    })
}

/// The schema of a whole CRD object.
pub(crate) fn crd_schema() -> &'static Schema {
    &builtin().crd
}

/// The schema of one schema node (JSONSchemaProps).
pub(crate) fn schema_props() -> &'static Schema {
    &builtin().props
}

/// Whether a node of the built-in schema stands for a nested schema node.
pub(crate) fn is_schema_props(schema: &Schema) -> bool {
    schema.rare().title.as_deref() == Some(SCHEMA_PROPS)
}

/// Whether a document is a CRD of the version the built-in schema describes.
pub(crate) fn is_crd_document(api_version: Option<&str>, kind: Option<&str>) -> bool {
    api_version == Some("apiextensions.k8s.io/v1") && kind == Some("CustomResourceDefinition")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_builtin_crd_schema_parses_and_nests() {
        assert!(crd_schema().property("spec").is_some());
        assert!(schema_props().property("type").is_some());
    }
}

#[cfg(test)]
mod editing_tests {
    use crdls_crd::CrdIndex;

    fn complete(with_cursor: &str) -> Vec<String> {
        let offset = with_cursor.find("$0").unwrap();
        let text = with_cursor.replacen("$0", "", 1);
        let stream = crdls_yaml::parse(&text);
        crate::completions(&text, &stream, &CrdIndex::new(), offset, crdls_builtins::newest()).into_iter().map(|i| i.label).collect()
    }

    const HEAD: &str = "apiVersion: apiextensions.k8s.io/v1\nkind: CustomResourceDefinition\nmetadata:\n  name: pumps.demo.crdls.dev\n";

    #[test]
    fn crd_fields_complete_at_every_level() {
        let spec = complete(&format!("{HEAD}spec:\n  $0\n"));
        for field in ["group", "names", "scope", "versions", "conversion"] {
            assert!(spec.contains(&field.to_string()), "{field} in {spec:?}");
        }
        let scope = complete(&format!("{HEAD}spec:\n  scope: $0\n"));
        assert_eq!(scope, ["Namespaced", "Cluster"]);
        let nested = complete(&format!(
            "{HEAD}spec:\n  versions:\n  - name: v1\n    schema:\n      openAPIV3Schema:\n        type: object\n        properties:\n          spec:\n            type: object\n            properties:\n              size:\n                $0\n"
        ));
        for keyword in ["type", "maximum", "x-kubernetes-validations", "x-kubernetes-int-or-string"] {
            assert!(nested.contains(&keyword.to_string()), "{keyword} in {nested:?}");
        }
    }

    #[test]
    fn crd_keywords_explain_themselves_on_hover() {
        let text = format!("{HEAD}spec:\n  versions:\n  - name: v1\n    schema:\n      openAPIV3Schema:\n        type: object\n        properties:\n          items:\n            type: array\n            x-kubernetes-list-type: set\n");
        let stream = crdls_yaml::parse(&text);
        let at = text.find("x-kubernetes-list-type").unwrap() + 3;
        let hover = crate::hover(&text, &stream, &CrdIndex::new(), at, crdls_builtins::newest()).unwrap();
        assert!(hover.markdown.contains("x-kubernetes-list-type"), "{}", hover.markdown);
        assert!(hover.markdown.contains("set"), "{}", hover.markdown);
    }
}
