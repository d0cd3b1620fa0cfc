//! The SARIF 2.1.0 report, in the subset GitHub code scanning accepts: one run, one rule per diagnostic code,
//! one result per diagnostic. Columns are UTF-16 code units (SARIF's default, stated in `columnKind`).

use std::collections::BTreeMap;
use std::fmt::Write as _;
use std::io;

use crdls_yaml::{ColumnUnit, LineIndex};

use crdls_diagnostics::Severity;
use serde::Serialize;

use super::{span, FileReport, Summary};

const SCHEMA: &str = "https://json.schemastore.org/sarif-2.1.0.json";
const INFORMATION_URI: &str = "https://github.com/crdls/crdls";

#[derive(Serialize)]
struct Log<'a> {
    #[serde(rename = "$schema")]
    schema: &'static str,
    version: &'static str,
    runs: [Run<'a>; 1],
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct Run<'a> {
    tool: Tool<'a>,
    column_kind: &'static str,
    results: Vec<SarifResult>,
    /// Present when the run has notes about itself (nothing found, CRDs shadowed).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    invocations: Vec<Invocation>,
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct Invocation {
    execution_successful: bool,
    tool_execution_notifications: Vec<Notification>,
}

#[derive(Serialize)]
struct Notification {
    level: &'static str,
    message: Message,
}

#[derive(Serialize)]
struct Tool<'a> {
    driver: Driver<'a>,
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct Driver<'a> {
    name: &'static str,
    information_uri: &'static str,
    version: &'static str,
    rules: Vec<Rule<'a>>,
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct Rule<'a> {
    id: &'a str,
    /// The code as an identifier (`SchemaRequired`), as SARIF viewers show rule names.
    name: String,
    short_description: Message,
    full_description: Message,
    help: Message,
    default_configuration: Configuration,
}

#[derive(Serialize)]
struct Configuration {
    level: &'static str,
}

#[derive(Serialize)]
struct Message {
    text: String,
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct SarifResult {
    rule_id: &'static str,
    rule_index: usize,
    level: &'static str,
    message: Message,
    locations: [Location; 1],
    #[serde(skip_serializing_if = "Properties::is_empty")]
    properties: Properties,
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct Location {
    physical_location: PhysicalLocation,
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct PhysicalLocation {
    artifact_location: ArtifactLocation,
    /// Absent when the result concerns a template as a whole (its field could not be found in it).
    #[serde(skip_serializing_if = "Option::is_none")]
    region: Option<Region>,
}

#[derive(Serialize)]
struct ArtifactLocation {
    uri: String,
}

/// 1-based; the end column is the one just past the region.
#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct Region {
    start_line: u32,
    start_column: u32,
    end_line: u32,
    end_column: u32,
}

#[derive(Serialize)]
struct Properties {
    #[serde(skip_serializing_if = "Option::is_none")]
    path: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    cause: Option<String>,
    /// For rendered output, where the result is in it (`<stdin>:57:9`).
    #[serde(skip_serializing_if = "Option::is_none")]
    rendered: Option<String>,
    /// For a change from a CRD's previous version, the change record of the JSON report.
    #[serde(skip_serializing_if = "Option::is_none")]
    change: Option<serde_json::Value>,
}

impl Properties {
    fn is_empty(&self) -> bool {
        self.path.is_none() && self.cause.is_none() && self.rendered.is_none() && self.change.is_none()
    }
}

/// The results gathered file by file. SARIF puts the table of rules before the results, and a
/// result names its rule by its index in that table, which depends on every code the run reports; so
/// the results (without the files' texts) are kept until the end, and the log is written then.
#[derive(Default)]
pub(super) struct SarifReport {
    results: Vec<SarifResult>,
}

impl SarifReport {
    /// Adds the results of one file.
    pub(super) fn file(&mut self, file: &FileReport<'_>) {
        if file.diagnostics.is_empty() {
            return;
        }
        let index = LineIndex::new(file.text);
        let uri = artifact_uri(file.path);
        for (i, diagnostic) in file.diagnostics.iter().enumerate() {
            let (start, end) = span(&index, file.text, diagnostic.range, ColumnUnit::Utf16);
            let region = |s: super::Position, e: super::Position| Region {
                start_line: s.line,
                start_column: s.column,
                end_line: e.line,
                end_column: e.column,
            };
            // Rendered output is reported on its template, with the line when the field was found there.
            let (uri, region, rendered) = match file.origin(i) {
                Some(origin) => {
                    let located = origin.located().map(|(text, range)| {
                        let (s, e) = span(&LineIndex::new(text), text, range, ColumnUnit::Utf16);
                        region(s, e)
                    });
                    (artifact_uri(&origin.file), located, Some(format!("{}:{}:{}", file.path, start.line, start.column)))
                }
                None => (uri.clone(), Some(region(start, end)), None),
            };
            self.results.push(SarifResult {
                rule_id: diagnostic.code,
                // Set in `finish`, once every code is known.
                rule_index: 0,
                level: level(diagnostic.severity),
                message: Message { text: diagnostic.message.clone() },
                locations: [Location { physical_location: PhysicalLocation { artifact_location: ArtifactLocation { uri }, region } }],
                properties: Properties {
                    path: diagnostic.path.clone(),
                    cause: diagnostic.cause.clone(),
                    rendered,
                    change: diagnostic.change.as_deref().map(super::json::change_value),
                },
            });
        }
    }

    /// Writes the log: the rules of the codes reported, the results, and the run's notes.
    pub(super) fn finish(mut self, summary: &Summary, out: &mut dyn io::Write) -> io::Result<()> {
        // Rules are sorted by code, so that a rule's index does not depend on which file was checked first.
        let mut rule_index: BTreeMap<&str, usize> = self.results.iter().map(|r| (r.rule_id, 0)).collect();
        for (i, index) in rule_index.values_mut().enumerate() {
            *index = i;
        }
        for result in &mut self.results {
            result.rule_index = rule_index[result.rule_id];
        }
        let rules = rule_index.keys().map(|&id| rule(id)).collect();
        let log = Log {
            schema: SCHEMA,
            version: "2.1.0",
            runs: [Run {
                tool: Tool {
                    driver: Driver { name: "crdls", information_uri: INFORMATION_URI, version: env!("CARGO_PKG_VERSION"), rules },
                },
                column_kind: "utf16CodeUnits",
                results: self.results,
                invocations: notifications(summary),
            }],
        };
        serde_json::to_writer_pretty(&mut *out, &log)?;
        writeln!(out)
    }
}

/// The run's notes as tool notifications of one invocation, or nothing when there are none.
fn notifications(summary: &Summary) -> Vec<Invocation> {
    let all = summary.all_notes();
    if all.is_empty() {
        return Vec::new();
    }
    let notes = all.iter().map(|n| Notification { level: "warning", message: Message { text: n.clone() } }).collect();
    vec![Invocation { execution_successful: true, tool_execution_notifications: notes }]
}

/// A rule from the registry of codes: its summary, its documentation as the full description and
/// help, and its default level.
fn rule(id: &str) -> Rule<'_> {
    let code = crdls_diagnostics::codes::lookup(id);
    let summary = code.map_or(id, |c| c.summary).to_string();
    let explanation = crdls_diagnostics::codes::explanation(id).unwrap_or_default();
    let first_paragraph = explanation.split("\n\n").next().filter(|p| !p.is_empty()).unwrap_or(&summary).replace('\n', " ");
    let name = id.split(['/', '-']).map(|w| w[..1].to_uppercase() + &w[1..]).collect();
    Rule {
        id,
        name,
        short_description: Message { text: summary.clone() },
        full_description: Message { text: first_paragraph },
        help: Message { text: if explanation.is_empty() { summary } else { explanation.to_string() } },
        default_configuration: Configuration { level: level(code.map_or(Severity::Warning, |c| c.severity)) },
    }
}

/// The SARIF level of a severity.
fn level(severity: Severity) -> &'static str {
    match severity {
        Severity::Error => "error",
        Severity::Warning => "warning",
        Severity::Information | Severity::Hint => "note",
    }
}

/// The SARIF `uri` of a displayed path: a relative URI reference with forward slashes for a relative path, a
/// `file://` URI for an absolute one, and every character outside the unreserved set and `/` percent-encoded.
fn artifact_uri(path: &str) -> String {
    let path = path.replace('\\', "/");
    let path = path.strip_prefix("./").unwrap_or(&path);
    let bytes = path.as_bytes();
    let drive = bytes.len() >= 3 && bytes[0].is_ascii_alphabetic() && bytes[1] == b':' && bytes[2] == b'/';
    let mut uri = String::with_capacity(path.len() + 8);
    if drive {
        uri.push_str("file:///");
    } else if path.starts_with('/') {
        uri.push_str("file://");
    }
    for (i, &b) in bytes.iter().enumerate() {
        match b {
            b'A'..=b'Z' | b'a'..=b'z' | b'0'..=b'9' | b'-' | b'.' | b'_' | b'~' | b'/' => uri.push(b as char),
            b':' if drive && i == 1 => uri.push(':'),
            _ => {
                let _ = write!(uri, "%{b:02X}");
            }
        }
    }
    uri
}

#[cfg(test)]
mod tests {
    use expect_test::expect;

    use super::super::fixture::render_fixture;
    use super::super::Format;
    use super::{artifact_uri, rule};

    #[test]
    fn fixture() {
        let output = render_fixture(Format::Sarif, false);
        let value: serde_json::Value = serde_json::from_str(&output).expect("the report is JSON");
        assert_eq!(value["runs"][0]["tool"]["driver"]["version"], env!("CARGO_PKG_VERSION"));
        // The version is left out of the snapshot, so that a release does not change it.
        let output = output.replace(&format!("\"version\": \"{}\"", env!("CARGO_PKG_VERSION")), "\"version\": \"VERSION\"");
        expect![[r#"
            {
              "$schema": "https://json.schemastore.org/sarif-2.1.0.json",
              "version": "2.1.0",
              "runs": [
                {
                  "tool": {
                    "driver": {
                      "name": "crdls",
                      "informationUri": "https://github.com/crdls/crdls",
                      "version": "VERSION",
                      "rules": [
                        {
                          "id": "metadata/label-value",
                          "name": "MetadataLabelValue",
                          "shortDescription": {
                            "text": "A label value is not valid."
                          },
                          "fullDescription": {
                            "text": "A value of `metadata.labels` is not a valid label value: empty, or at most 63 characters of letters, digits, `-`, `_` and `.`, starting and ending with a letter or digit. The API server rejects the object."
                          },
                          "help": {
                            "text": "A value of `metadata.labels` is not a valid label value: empty, or at most 63 characters of\nletters, digits, `-`, `_` and `.`, starting and ending with a letter or digit. The API server\nrejects the object.\n\nExample:\n\n```yaml\napiVersion: demo.crdls.dev/v1\nkind: Widget\nmetadata:\n  name: web\n  labels:\n    owner: platform-team@example.com   # \"@\" is not allowed\nspec:\n  size: 3\n  owner: team-a\n```\n\ncrdls reports: `error[metadata/label-value]: invalid label value: a valid label must be an empty string or consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyValue',  or 'my_value',  or '12345', regex used for validation is '(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?')`\n\nFix: change the value (`platform-team`), or move free text to an annotation, whose values may be\nany string."
                          },
                          "defaultConfiguration": {
                            "level": "error"
                          }
                        },
                        {
                          "id": "resource/deprecated-version",
                          "name": "ResourceDeprecatedVersion",
                          "shortDescription": {
                            "text": "The version is deprecated; the API server warns when it is used."
                          },
                          "fullDescription": {
                            "text": "The version is marked `deprecated: true` in the CRD. The API server accepts the object but returns a warning, which `kubectl` prints: the CRD's `deprecationWarning`, or a default text naming a newer version. crdls reports the same text."
                          },
                          "help": {
                            "text": "The version is marked `deprecated: true` in the CRD. The API server accepts the object but returns\na warning, which `kubectl` prints: the CRD's `deprecationWarning`, or a default text naming a\nnewer version. crdls reports the same text.\n\nExample:\n\n```yaml\napiVersion: demo.crdls.dev/v1beta1   # deprecated: true in the CRD\nkind: Widget\nmetadata:\n  name: demo\n```\n\ncrdls reports: `warning[resource/deprecated-version]: demo.crdls.dev/v1beta1 Widget is deprecated; migrate to demo.crdls.dev/v1`\n\nFix: move the object to the version the warning names; the editor offers \"Change apiVersion to\n...\". Moving changes the schema, so `--fix` leaves it to you."
                          },
                          "defaultConfiguration": {
                            "level": "warning"
                          }
                        },
                        {
                          "id": "schema/list-map-duplicate",
                          "name": "SchemaListMapDuplicate",
                          "shortDescription": {
                            "text": "A list of type map holds two items with the same keys."
                          },
                          "fullDescription": {
                            "text": "A list declared with `x-kubernetes-list-type: map` holds two items with the same values of its `x-kubernetes-list-map-keys`. Defaults are applied first, so a key left out may collide through its default. The API server rejects the object with `Duplicate value`."
                          },
                          "help": {
                            "text": "A list declared with `x-kubernetes-list-type: map` holds two items with the same values of its\n`x-kubernetes-list-map-keys`. Defaults are applied first, so a key left out may collide through its\ndefault. The API server rejects the object with `Duplicate value`.\n\nExample:\n\n```yaml\napiVersion: demo.crdls.dev/v1\nkind: Widget\nmetadata:\n  name: demo\nspec:\n  size: 3\n  owner: team-a\n  ports:   # map keys: [containerPort, protocol]; protocol defaults to TCP\n  - containerPort: 8080\n    name: http\n  - containerPort: 8080\n    name: metrics\n```\n\ncrdls reports: `error[schema/list-map-duplicate]: duplicate item in a map list: same keys (containerPort, protocol) as item 0`\n\nFix: make the key fields of each item unique (here, another port or another `protocol`), or merge\nthe two items."
                          },
                          "defaultConfiguration": {
                            "level": "error"
                          }
                        },
                        {
                          "id": "schema/maximum",
                          "name": "SchemaMaximum",
                          "shortDescription": {
                            "text": "A number above the field's maximum."
                          },
                          "fullDescription": {
                            "text": "A number is above the field's `maximum` (or equal to it with `exclusiveMaximum: true`). The API server rejects the object."
                          },
                          "help": {
                            "text": "A number is above the field's `maximum` (or equal to it with `exclusiveMaximum: true`). The API\nserver rejects the object.\n\nExample:\n\n```yaml\napiVersion: demo.crdls.dev/v1\nkind: Widget\nmetadata:\n  name: demo\nspec:\n  size: 12   # maximum: 10\n  owner: team-a\n```\n\ncrdls reports: `error[schema/maximum]: must be less than or equal to 10`\n\nFix: use a value within the bound."
                          },
                          "defaultConfiguration": {
                            "level": "error"
                          }
                        },
                        {
                          "id": "schema/pattern",
                          "name": "SchemaPattern",
                          "shortDescription": {
                            "text": "A string that does not match the field's pattern."
                          },
                          "fullDescription": {
                            "text": "A string does not match the field's `pattern`. Patterns are matched with RE2 semantics, as the API server does, and only when the string passed its `maxLength` and `minLength`. The API server rejects the object."
                          },
                          "help": {
                            "text": "A string does not match the field's `pattern`. Patterns are matched with RE2 semantics, as the API\nserver does, and only when the string passed its `maxLength` and `minLength`. The API server\nrejects the object.\n\nExample:\n\n```yaml\napiVersion: demo.crdls.dev/v1\nkind: Widget\nmetadata:\n  name: demo\nspec:\n  size: 3\n  owner: Team-A   # pattern: '^[a-z][a-z0-9-]*$'\n```\n\ncrdls reports: `error[schema/pattern]: must match the pattern '^[a-z][a-z0-9-]*$'`\n\nFix: change the value so that the pattern matches it (here, `team-a`)."
                          },
                          "defaultConfiguration": {
                            "level": "error"
                          }
                        },
                        {
                          "id": "yaml/syntax",
                          "name": "YamlSyntax",
                          "shortDescription": {
                            "text": "The YAML cannot be parsed."
                          },
                          "fullDescription": {
                            "text": "The text of a document is not valid YAML, so the API server cannot decode it and rejects the whole request. crdls reports the first error of each broken document and keeps checking the documents around it; the broken document itself is only resolved (`apiVersion` and `kind`), never validated, since its tree stops at the error."
                          },
                          "help": {
                            "text": "The text of a document is not valid YAML, so the API server cannot decode it and rejects the whole\nrequest. crdls reports the first error of each broken document and keeps checking the documents\naround it; the broken document itself is only resolved (`apiVersion` and `kind`), never validated,\nsince its tree stops at the error.\n\nExample:\n\n```yaml\napiVersion: demo.crdls.dev/v1\nkind: Widget\nmetadata:\n  name: demo\nspec:\n  size: 3\n  owner: team-a\n  tags: [blue, green   # the flow sequence is never closed\n```\n\ncrdls reports: `error[yaml/syntax]: YAML syntax error: while parsing a flow sequence, expected ',' or ']'`\n\nFix: correct the YAML at the reported position (here, close the list with `]`). In Helm chart\ntemplates syntax errors are not reported, since template actions are not YAML."
                          },
                          "defaultConfiguration": {
                            "level": "error"
                          }
                        }
                      ]
                    }
                  },
                  "columnKind": "utf16CodeUnits",
                  "results": [
                    {
                      "ruleId": "resource/deprecated-version",
                      "ruleIndex": 1,
                      "level": "note",
                      "message": {
                        "text": "demo.crdls.dev/v1 Widget is deprecated; use demo.crdls.dev/v2 Widget"
                      },
                      "locations": [
                        {
                          "physicalLocation": {
                            "artifactLocation": {
                              "uri": "deploy/my%20widget.yaml"
                            },
                            "region": {
                              "startLine": 1,
                              "startColumn": 13,
                              "endLine": 1,
                              "endColumn": 30
                            }
                          }
                        }
                      ]
                    },
                    {
                      "ruleId": "metadata/label-value",
                      "ruleIndex": 0,
                      "level": "error",
                      "message": {
                        "text": "invalid label value"
                      },
                      "locations": [
                        {
                          "physicalLocation": {
                            "artifactLocation": {
                              "uri": "deploy/my%20widget.yaml"
                            },
                            "region": {
                              "startLine": 6,
                              "startColumn": 11,
                              "endLine": 6,
                              "endColumn": 17
                            }
                          }
                        }
                      ],
                      "properties": {
                        "path": "metadata.labels.team",
                        "cause": "metadata.labels: Invalid value: \"日本語チーム\": a valid label must be an empty string or consist of alphanumeric characters, '-', '_' or '.'"
                      }
                    },
                    {
                      "ruleId": "schema/maximum",
                      "ruleIndex": 3,
                      "level": "error",
                      "message": {
                        "text": "must be less than or equal to 10"
                      },
                      "locations": [
                        {
                          "physicalLocation": {
                            "artifactLocation": {
                              "uri": "deploy/my%20widget.yaml"
                            },
                            "region": {
                              "startLine": 8,
                              "startColumn": 9,
                              "endLine": 8,
                              "endColumn": 11
                            }
                          }
                        }
                      ],
                      "properties": {
                        "path": "spec.size",
                        "cause": "spec.size: Invalid value: 11: spec.size in body should be less than or equal to 10"
                      }
                    },
                    {
                      "ruleId": "schema/pattern",
                      "ruleIndex": 4,
                      "level": "warning",
                      "message": {
                        "text": "should match '^[a-z]+$'"
                      },
                      "locations": [
                        {
                          "physicalLocation": {
                            "artifactLocation": {
                              "uri": "deploy/my%20widget.yaml"
                            },
                            "region": {
                              "startLine": 9,
                              "startColumn": 14,
                              "endLine": 9,
                              "endColumn": 18
                            }
                          }
                        }
                      ],
                      "properties": {
                        "path": "spec.owner"
                      }
                    },
                    {
                      "ruleId": "schema/list-map-duplicate",
                      "ruleIndex": 2,
                      "level": "error",
                      "message": {
                        "text": "duplicate entries for key [name=\"http\"]"
                      },
                      "locations": [
                        {
                          "physicalLocation": {
                            "artifactLocation": {
                              "uri": "deploy/my%20widget.yaml"
                            },
                            "region": {
                              "startLine": 11,
                              "startColumn": 3,
                              "endLine": 14,
                              "endColumn": 15
                            }
                          }
                        }
                      ],
                      "properties": {
                        "path": "spec.ports[1]",
                        "cause": "spec.ports[1]: Duplicate value: map[string]interface {}{\"name\":\"http\"}"
                      }
                    },
                    {
                      "ruleId": "yaml/syntax",
                      "ruleIndex": 5,
                      "level": "error",
                      "message": {
                        "text": "unexpected end of the stream"
                      },
                      "locations": [
                        {
                          "physicalLocation": {
                            "artifactLocation": {
                              "uri": "deploy/my%20widget.yaml"
                            },
                            "region": {
                              "startLine": 15,
                              "startColumn": 1,
                              "endLine": 15,
                              "endColumn": 1
                            }
                          }
                        }
                      ]
                    }
                  ]
                }
              ]
            }
        "#]].assert_eq(&output);
    }

    #[test]
    fn uris() {
        assert_eq!(artifact_uri("deploy/my widget.yaml"), "deploy/my%20widget.yaml");
        assert_eq!(artifact_uri("./a.yaml"), "a.yaml");
        assert_eq!(artifact_uri("deploy\\a#1.yaml"), "deploy/a%231.yaml");
        assert_eq!(artifact_uri("/abs/ü.yaml"), "file:///abs/%C3%BC.yaml");
        assert_eq!(artifact_uri("C:\\ci\\a.yaml"), "file:///C:/ci/a.yaml");
        assert_eq!(artifact_uri("<stdin>"), "%3Cstdin%3E");
        assert_eq!(artifact_uri("a:b.yaml"), "a%3Ab.yaml");
    }

    #[test]
    fn rules_come_from_the_registry() {
        let max_length = rule("schema/max-length");
        assert_eq!(max_length.name, "SchemaMaxLength");
        assert_eq!(max_length.short_description.text, "A string longer than the field's maxLength.");
        assert_eq!(max_length.default_configuration.level, "error");
        assert!(max_length.help.text.contains("Fix"), "{}", max_length.help.text);
        assert_eq!(rule("resource/no-crd").default_configuration.level, "note");
    }
}
