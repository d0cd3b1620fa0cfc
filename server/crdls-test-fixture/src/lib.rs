//! Test fixtures: CustomResourceDefinitions written from the few facts a test is about, usually a
//! schema. A dev-dependency of the crates whose tests use it (and a dependency of the fuzzing harness, the benchmarks
//! and the integration tests), never of a shipped crate, as rust-analyzer keeps its `test-fixture`.
//!
//! Tests across the workspace need a CRD to index, complete against or hover over, and they differ
//! mostly in the schema. [`Crd`] writes the rest (apiVersion, kind, metadata, group, names, scope,
//! versions) the same way every time, so that, as with rust-analyzer's `Fixture`, a test states only
//! what it is about:
//!
//! ```
//! use crdls_test_fixture as fixture;
//!
//! let yaml = fixture::Crd::new("Widget")
//!     .schema(
//!         r#"
//!         type: object
//!         properties:
//!           spec: {type: object}
//!         "#,
//!     )
//!     .yaml();
//! assert!(yaml.contains("  name: widgets.demo.crdls.dev\n"));
//! assert!(yaml.contains("      openAPIV3Schema:\n        type: object\n        properties:\n"));
//! assert_eq!(fixture::index(&yaml).len(), 1);
//! ```
//!
//! The layout is fixed: names in block style and the schema under `openAPIV3Schema:`, indented by
//! eight spaces, as the v1beta1 conversion writes them. Tests may find snippets of the schema in the
//! text and point into it; lines they assert move only when this layout changes.

use std::sync::Arc;

use crdls_crd::CrdIndex;

/// The group of a fixture CRD unless [`Crd::group`] says otherwise.
pub const GROUP: &str = "demo.crdls.dev";

/// The source [`index`] files the CRDs under.
pub const SOURCE: &str = "crd.yaml";

/// A CRD to write as YAML: `Crd::new(kind)` is namespaced, in [`GROUP`], with one version `v1`,
/// served and stored, whose schema is `type: object`.
#[derive(Clone, Debug)]
pub struct Crd {
    kind: String,
    group: String,
    cluster_scoped: bool,
    short_names: Vec<String>,
    categories: Vec<String>,
    /// The stored version first, then the others in the order they were added.
    versions: Vec<Version>,
}

/// A version of a [`Crd`] besides its stored one: `Version::new(name)` is served, not stored, and its
/// schema is `type: object`.
#[derive(Clone, Debug)]
pub struct Version {
    name: String,
    served: bool,
    deprecated: bool,
    deprecation_warning: Option<String>,
    schema: String,
}

impl Crd {
    /// A CRD for `kind`. Its plural is the kind in lower case plus `s` (`Widget`: `widgets`), its
    /// singular the kind in lower case, its list kind the kind plus `List`, and its name
    /// `<plural>.<group>`.
    pub fn new(kind: &str) -> Crd {
        Crd {
            kind: kind.to_string(),
            group: GROUP.to_string(),
            cluster_scoped: false,
            short_names: Vec::new(),
            categories: Vec::new(),
            versions: vec![Version::new("v1")],
        }
    }

    /// The API group, instead of [`GROUP`].
    pub fn group(mut self, group: &str) -> Crd {
        self.group = group.to_string();
        self
    }

    /// `scope: Cluster` instead of `Namespaced`.
    pub fn cluster_scoped(mut self) -> Crd {
        self.cluster_scoped = true;
        self
    }

    /// `names.shortNames`.
    pub fn short_names(mut self, names: &[&str]) -> Crd {
        self.short_names = names.iter().map(|n| n.to_string()).collect();
        self
    }

    /// `names.categories`.
    pub fn categories(mut self, categories: &[&str]) -> Crd {
        self.categories = categories.iter().map(|c| c.to_string()).collect();
        self
    }

    /// The name of the stored version, instead of `v1`.
    pub fn storage_version(mut self, name: &str) -> Crd {
        self.versions[0].name = name.to_string();
        self
    }

    /// The stored version's `openAPIV3Schema`, as YAML written from column zero or with a common
    /// indentation (which is removed, as is a first empty line); a one-line flow mapping such as
    /// `{type: object}` stays on the key's line.
    pub fn schema(mut self, schema: &str) -> Crd {
        self.versions[0].schema = trim_indent(schema);
        self
    }

    /// Adds a version after the stored one and those added before.
    pub fn version(mut self, version: Version) -> Crd {
        self.versions.push(version);
        self
    }

    /// The plural resource name: the kind in lower case plus `s`.
    fn plural(&self) -> String {
        format!("{}s", self.kind.to_lowercase())
    }

    /// The CRD as the text of one YAML document.
    pub fn yaml(&self) -> String {
        let (kind, group, plural) = (&self.kind, &self.group, self.plural());
        let scope = if self.cluster_scoped { "Cluster" } else { "Namespaced" };
        let mut out = format!(
            "apiVersion: apiextensions.k8s.io/v1\nkind: CustomResourceDefinition\nmetadata:\n  name: {plural}.{group}\nspec:\n  \
             group: {group}\n  scope: {scope}\n  names:\n    kind: {kind}\n    plural: {plural}\n    singular: {}\n    listKind: {kind}List\n",
            kind.to_lowercase()
        );
        if !self.short_names.is_empty() {
            out.push_str(&format!("    shortNames: [{}]\n", self.short_names.join(", ")));
        }
        if !self.categories.is_empty() {
            out.push_str(&format!("    categories: [{}]\n", self.categories.join(", ")));
        }
        out.push_str("  versions:\n");
        for (i, version) in self.versions.iter().enumerate() {
            out.push_str(&format!("  - name: {}\n    served: {}\n    storage: {}\n", version.name, version.served, i == 0));
            if version.deprecated {
                out.push_str("    deprecated: true\n");
            }
            if let Some(warning) = &version.deprecation_warning {
                out.push_str(&format!("    deprecationWarning: {}\n", crdls_yaml::double_quoted(warning)));
            }
            out.push_str("    schema:\n      openAPIV3Schema:");
            let schema = version.schema.as_str();
            if !schema.contains('\n') && schema.starts_with('{') {
                out.push_str(&format!(" {schema}\n"));
                continue;
            }
            out.push('\n');
            for line in schema.lines() {
                if !line.is_empty() {
                    out.push_str("        ");
                    out.push_str(line);
                }
                out.push('\n');
            }
        }
        out
    }
}

impl Version {
    /// A served version that is not stored, with the schema `type: object`.
    pub fn new(name: &str) -> Version {
        Version { name: name.to_string(), served: true, deprecated: false, deprecation_warning: None, schema: "type: object".to_string() }
    }

    /// `served: false`.
    pub fn not_served(mut self) -> Version {
        self.served = false;
        self
    }

    /// `deprecated: true`.
    pub fn deprecated(mut self) -> Version {
        self.deprecated = true;
        self
    }

    /// `deprecated: true` with a `deprecationWarning`.
    pub fn deprecation_warning(mut self, warning: &str) -> Version {
        self.deprecated = true;
        self.deprecation_warning = Some(warning.to_string());
        self
    }

    /// The version's `openAPIV3Schema`, written as for [`Crd::schema`].
    pub fn schema(mut self, schema: &str) -> Version {
        self.schema = trim_indent(schema);
        self
    }
}

/// Several CRDs as one YAML stream, separated by `---`.
pub fn join(crds: &[Crd]) -> String {
    crds.iter().map(Crd::yaml).collect::<Vec<_>>().join("---\n")
}

/// The index of every CRD in `yaml`, under the source [`SOURCE`].
pub fn index(yaml: &str) -> CrdIndex {
    let crds = crdls_yaml::parse(yaml).documents.iter().flat_map(crdls_crd::Crd::from_document).collect();
    let mut index = CrdIndex::new();
    index.set_source(Arc::from(SOURCE), crds);
    index
}

/// `text` without a first empty line, trailing empty lines, and the indentation its non-empty lines
/// share.
fn trim_indent(text: &str) -> String {
    let text = text.strip_prefix('\n').unwrap_or(text);
    let indent = text.lines().filter(|l| !l.trim().is_empty()).map(|l| l.len() - l.trim_start_matches(' ').len()).min().unwrap_or(0);
    let lines: Vec<&str> = text.lines().map(|l| if l.trim().is_empty() { "" } else { &l[indent..] }).collect();
    let end = lines.iter().rposition(|l| !l.is_empty()).map_or(0, |i| i + 1);
    lines[..end].join("\n")
}

/// Checks that CRDs read identity first (`lazy`, see [`crdls_crd::Crd::read_identities`]) are those read
/// whole from the same text (`whole`, see [`crdls_crd::Crd::from_document`]): the same identities and
/// ranges; each version's located schema the same, ranges included; and each version's shared schema
/// the same but for its ranges, which it does not keep. Builds every schema of both.
pub fn readings_agree(lazy: &[crdls_crd::Crd], whole: &[crdls_crd::Crd]) -> Result<(), String> {
    let identity = |crds: &[crdls_crd::Crd]| {
        crds.iter()
            .map(|c| {
                let versions: Vec<String> = c
                    .versions
                    .iter()
                    .map(|v| {
                        format!(
                            "{} {:?} served={} storage={} deprecated={} {:?} status={}",
                            v.name, v.name_range, v.served, v.storage, v.deprecated, v.deprecation_warning, v.status_subresource
                        )
                    })
                    .collect();
                format!("{} {:?} {} {:?} {} {:?} {versions:?}", c.name, c.api_version, c.group, c.names, c.scope, c.kind_range)
            })
            .collect::<Vec<_>>()
    };
    if identity(lazy) != identity(whole) {
        return Err(format!("identities differ:\n{:#?}\n{:#?}", identity(lazy), identity(whole)));
    }
    for (l, w) in lazy.iter().zip(whole).flat_map(|(l, w)| l.versions.iter().zip(&w.versions)) {
        let whole_schema = format!("{:?}", w.schema());
        let located = format!("{:?}", l.located_schema().as_ref());
        if located != whole_schema {
            return Err(format!("the located schema of {} differs:\n{located}\n{whole_schema}", l.name));
        }
        let shared = format!("{:?}", l.schema());
        if without_ranges(&shared) != without_ranges(&whole_schema) {
            return Err(format!("the shared schema of {} differs:\n{shared}\n{whole_schema}", l.name));
        }
    }
    Ok(())
}

/// A `Debug` text with every `TextRange { start: N, end: M }` emptied.
fn without_ranges(debug: &str) -> String {
    const OPEN: &str = "TextRange { start: ";
    let mut out = String::with_capacity(debug.len());
    let mut rest = debug;
    while let Some(at) = rest.find(OPEN) {
        out.push_str(&rest[..at]);
        out.push_str("TextRange");
        let after = &rest[at..];
        rest = after.find('}').map_or("", |close| &after[close + 1..]);
    }
    out.push_str(rest);
    out
}
