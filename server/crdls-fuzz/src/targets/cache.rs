//! The `cache` target: a cached download or cluster listing (a YAML stream of JSON CRD documents, as
//! `cluster.rs` writes one, or any YAML a URL served) written to a file, read back through
//! `crdls_sources::cache::read_entry` and indexed as `crdls check` indexes a cached source: its CRDs read
//! identity first with `reader_of_cached`, every schema built from the file on first use. Nothing may
//! panic; the entry reads back as written; the CRDs read identity first are those read whole (when the
//! text parses without a diagnostic); every schema is built.

use std::sync::Arc;

use crdls_crd::{Crd, CrdIndex, Origin, SourceKind};
use crdls_workspace::FileRole;

use crate::mutate::{mutate, Dialect};
use crate::rng::Rng;
use crate::scratch::Scratch;

/// The largest input the target builds.
pub const MAX_LEN: usize = 256 * 1024;

/// A listing as crdls writes one for a cluster: a comment, then each CRD as pretty JSON after `---`.
const LISTING: &str = r#"# The CRDs served by https://10.0.0.1:6443 (kubeconfig context kind-dev), listed by crdls.
---
{
  "apiVersion": "apiextensions.k8s.io/v1",
  "kind": "CustomResourceDefinition",
  "metadata": {
    "name": "widgets.example.com",
    "resourceVersion": "1234"
  },
  "spec": {
    "group": "example.com",
    "names": {
      "kind": "Widget",
      "listKind": "WidgetList",
      "plural": "widgets",
      "singular": "widget"
    },
    "scope": "Namespaced",
    "versions": [
      {
        "name": "v1",
        "served": true,
        "storage": true,
        "subresources": {
          "status": {}
        },
        "schema": {
          "openAPIV3Schema": {
            "type": "object",
            "properties": {
              "spec": {
                "type": "object",
                "required": ["size"],
                "x-kubernetes-validations": [
                  {
                    "rule": "self.size <= self.max",
                    "message": "size must not exceed max"
                  }
                ],
                "properties": {
                  "size": {
                    "type": "integer",
                    "minimum": 0
                  },
                  "max": {
                    "type": "integer",
                    "default": 10
                  },
                  "tags": {
                    "type": "array",
                    "x-kubernetes-list-type": "set",
                    "items": {
                      "type": "string",
                      "maxLength": 63
                    }
                  },
                  "extra": {
                    "type": "object",
                    "x-kubernetes-preserve-unknown-fields": true
                  }
                }
              }
            }
          }
        }
      },
      {
        "name": "v1beta1",
        "served": true,
        "storage": false,
        "deprecated": true,
        "deprecationWarning": "use v1",
        "schema": {
          "openAPIV3Schema": {
            "type": "object",
            "x-kubernetes-preserve-unknown-fields": true
          }
        }
      }
    ]
  }
}
---
{
  "apiVersion": "apiextensions.k8s.io/v1",
  "kind": "CustomResourceDefinition",
  "metadata": {
    "name": "gadgets.other.io"
  },
  "spec": {
    "group": "other.io",
    "names": {
      "kind": "Gadget",
      "plural": "gadgets"
    },
    "scope": "Cluster",
    "versions": [
      {
        "name": "v2",
        "served": true,
        "storage": true,
        "schema": {
          "openAPIV3Schema": {
            "type": "object",
            "properties": {
              "spec": {
                "type": "object",
                "additionalProperties": {
                  "type": "string",
                  "enum": ["a", "b"]
                },
                "maxProperties": 4
              }
            }
          }
        }
      }
    ]
  }
}
"#;

/// The `cache` target.
pub struct CacheTarget {
    pub(crate) seeds: Vec<String>,
}

impl CacheTarget {
    /// The target over the built-in listings and `crd_texts` (the fixtures' CRD files, as URL downloads).
    pub fn new(crd_texts: Vec<String>) -> CacheTarget {
        let mut seeds = vec![LISTING.to_string(), LISTING.lines().take(1).collect::<Vec<_>>().join("\n") + "\n"];
        seeds.extend(crd_texts);
        CacheTarget { seeds }
    }
}

impl super::Target for CacheTarget {
    fn name(&self) -> &'static str {
        "cache"
    }

    fn extension(&self) -> &'static str {
        "yaml"
    }

    fn seeds(&self) -> &[String] {
        &self.seeds
    }

    fn mutate(&self, rng: &mut Rng, input: &str, other: &str) -> String {
        mutate(rng, input, other, Dialect::Yaml, MAX_LEN)
    }

    fn run(&self, input: &str) -> Result<(), String> {
        run(input)
    }
}

/// Writes one cached entry and indexes it.
pub fn run(input: &str) -> Result<(), String> {
    let scratch = Scratch::new("cache")?;
    let path = scratch.write("0123456789abcdef-kind-dev.yaml", input.as_bytes())?;
    let text = crdls_sources::cache::read_entry(&path).map_err(|e| format!("a cache entry of text does not read back: {e}"))?;
    if text != input {
        return Err(format!("a cache entry reads back as {} bytes, not the {} written", text.len(), input.len()));
    }
    let crds = FileRole::Manifest.crds(&text, crdls_workspace::files::reader_of_cached(path.clone()));
    for version in crds.iter().flat_map(|c| &c.versions) {
        let _ = version.schema();
        let _ = version.located_schema();
    }
    let stream = crdls_yaml::parse(&text);
    if !crdls_yaml::template::has_actions(&text) && stream.documents.iter().all(|d| d.diagnostics.is_empty()) {
        let whole: Vec<Crd> = stream.documents.iter().flat_map(Crd::from_document).collect();
        crdls_test_fixture::readings_agree(&crds, &whole)
            .map_err(|e| format!("a cached entry's CRDs read identity first differ from those read whole: {e}"))?;
    }
    let mut index = CrdIndex::new();
    let origin = Origin { kind: SourceKind::Cluster, label: Some(Arc::from("cluster kind-dev")) };
    index.set_source_from(Arc::from(path.to_string_lossy().as_ref()), origin, crds);
    Ok(())
}
