//! `crdls cost`: the estimated cost of every CEL rule of the CRDs among the paths, as the API server
//! computes it when the CRD is applied, rule by rule and per version's schema against the limits.

use std::path::PathBuf;

use crdls_check::{crd_costs, short_path, thousands, CostDriver, RuleCost, SchemaCost, PER_CRD_LIMIT, PER_EXPRESSION_LIMIT};
use crdls_yaml::LineIndex;
use serde_json::json;

use crate::check::{collect_files, display_path};
use crate::io::{Io, EXIT_ERRORS, EXIT_OK, EXIT_USAGE};

#[derive(Debug, clap::Args)]
pub struct CostArgs {
    /// CRD files or directories (searched recursively for .yaml, .yml and .json).
    #[arg(value_name = "PATH", default_value = ".")]
    paths: Vec<PathBuf>,
    /// Output format.
    #[arg(long, value_enum, default_value_t = CostFormat::Human)]
    format: CostFormat,
}

#[derive(Clone, Copy, Debug, clap::ValueEnum)]
enum CostFormat {
    Human,
    Json,
}

/// The costs of one CRD document.
struct CrdCosts {
    file: String,
    name: String,
    line: u32,
    schemas: Vec<SchemaCost>,
    lines: LineIndex,
}

/// Runs `crdls cost`: exit code 1 when a rule or a schema is over its limit, as the API server would
/// then reject the CRD.
pub fn cost(args: CostArgs, io: &mut Io<'_>) -> i32 {
    let mut crds = Vec::new();
    for path in &args.paths {
        let full = io.cwd.join(path);
        let files = match collect_files(&full) {
            Ok(files) => files,
            Err(e) => {
                let _ = writeln!(io.stderr, "crdls: {}: {e}", path.display());
                return EXIT_USAGE;
            }
        };
        for file in files {
            let Ok(text) = crdls_workspace::files::read_text(&file) else {
                let _ = writeln!(io.stderr, "crdls: {}: not readable as UTF-8 text", file.display());
                return EXIT_USAGE;
            };
            let stream = crdls_yaml::parse(&text);
            let lines = LineIndex::new(&text);
            for doc in &stream.documents {
                let Some(root) = &doc.root else { continue };
                if crdls_crd::is_crd(root).is_none() {
                    continue;
                }
                let schemas = crd_costs(root, &text, true);
                let name = root.get("metadata").and_then(|m| m.get_str("name")).unwrap_or("(unnamed)").to_string();
                let line = lines.line_of(root.range.start) + 1;
                crds.push(CrdCosts { file: display_path(&file, &io.cwd), name, line, schemas, lines: lines.clone() });
            }
        }
    }
    let over = crds.iter().flat_map(|c| &c.schemas).any(|s| s.total > PER_CRD_LIMIT || s.rules.iter().any(over_limit));
    let rendered = match args.format {
        CostFormat::Human => human(&crds),
        CostFormat::Json => serde_json::to_string_pretty(&to_json(&crds)).unwrap_or_default() + "\n",
    };
    let _ = io.stdout.write_all(rendered.as_bytes());
    if over {
        EXIT_ERRORS
    } else {
        EXIT_OK
    }
}

fn over_limit(rule: &RuleCost) -> bool {
    rule.total > PER_EXPRESSION_LIMIT
}

/// `12.5%`, or `>999%` for the absurd.
fn percent(value: u64, limit: u64) -> String {
    let p = value as f64 * 100.0 / limit as f64;
    if p >= 1000.0 {
        ">999%".into()
    } else if p > 0.0 && p < 0.1 {
        "<0.1%".into()
    } else {
        format!("{p:.1}%")
    }
}

/// An expression on one line, cut to `width` characters.
fn shorten(expression: &str, width: usize) -> String {
    let one_line = expression.split_whitespace().collect::<Vec<_>>().join(" ");
    if one_line.chars().count() <= width {
        return one_line;
    }
    let mut cut: String = one_line.chars().take(width.saturating_sub(1)).collect();
    cut.push('…');
    cut
}

fn driver_text(d: &CostDriver) -> String {
    let role = if d.cardinality { "repeats the rule" } else { "sizes the rule" };
    format!("{} has no {} ({role})", short_path(&d.path), d.kind.keyword())
}

fn human(crds: &[CrdCosts]) -> String {
    let header = ["CRD", "VERSION", "PATH", "RULE", "COST", "CARDINALITY", "TOTAL", "% LIMIT"];
    let mut rows: Vec<[String; 8]> = Vec::new();
    let mut notes: Vec<(usize, Vec<String>)> = Vec::new();
    let mut totals = Vec::new();
    for crd in crds {
        for schema in &crd.schemas {
            let versions = schema.versions.join(",");
            for rule in &schema.rules {
                let expression = if rule.message_expression { format!("message: {}", rule.expression) } else { rule.expression.clone() };
                rows.push([
                    crd.name.clone(),
                    versions.clone(),
                    short_path(&rule.node_path),
                    shorten(&expression, 48),
                    thousands(rule.cost),
                    thousands(rule.cardinality),
                    thousands(rule.total),
                    percent(rule.total, PER_EXPRESSION_LIMIT),
                ]);
                if rule.total > PER_EXPRESSION_LIMIT / 10 * 9 && !rule.drivers.is_empty() {
                    let line = crd.lines.line_of(rule.range.start) + 1;
                    let mut lines = vec![format!("{}:{line}: {}", crd.file, rule.path)];
                    lines.extend(rule.drivers.iter().map(driver_text));
                    notes.push((rows.len() - 1, lines));
                }
            }
            let verdict = if schema.total > PER_CRD_LIMIT {
                " (over the limit: the API server rejects this CRD)"
            } else if schema.total > PER_CRD_LIMIT / 10 * 9 {
                " (within 10% of the limit)"
            } else {
                ""
            };
            totals.push(format!(
                "{} {} ({}:{}): all rules {} of {} ({}){verdict}",
                crd.name,
                if versions.is_empty() { "(no version)".into() } else { versions },
                crd.file,
                crd.line,
                thousands(schema.total),
                thousands(PER_CRD_LIMIT),
                percent(schema.total, PER_CRD_LIMIT),
            ));
        }
    }
    let mut out = String::new();
    if rows.is_empty() {
        out.push_str("no CEL rules found\n");
    } else {
        let mut widths = header.map(str::len);
        for row in &rows {
            for (w, cell) in widths.iter_mut().zip(row) {
                *w = (*w).max(cell.chars().count());
            }
        }
        let numeric = [false, false, false, false, true, true, true, true];
        let line = |cells: &[String]| {
            let mut l = String::new();
            for (i, cell) in cells.iter().enumerate() {
                let pad = widths[i].saturating_sub(cell.chars().count());
                if i > 0 {
                    l.push_str("  ");
                }
                if numeric[i] {
                    l.push_str(&" ".repeat(pad));
                    l.push_str(cell);
                } else {
                    l.push_str(cell);
                    if i + 1 < cells.len() {
                        l.push_str(&" ".repeat(pad));
                    }
                }
            }
            l.trim_end().to_string() + "\n"
        };
        out.push_str(&line(&header.map(str::to_string)));
        for row in &rows {
            out.push_str(&line(row));
        }
        for (_, lines) in &notes {
            out.push('\n');
            let (first, rest) = lines.split_first().map_or(("", &[][..]), |(f, r)| (f.as_str(), r));
            out.push_str(first);
            out.push('\n');
            for l in rest {
                out.push_str("  ");
                out.push_str(l);
                out.push('\n');
            }
        }
    }
    out.push('\n');
    for t in totals {
        out.push_str(&t);
        out.push('\n');
    }
    let over_rules = crds.iter().flat_map(|c| &c.schemas).flat_map(|s| &s.rules).filter(|r| over_limit(r)).count();
    let over_schemas = crds.iter().flat_map(|c| &c.schemas).filter(|s| s.total > PER_CRD_LIMIT).count();
    out.push_str(&format!(
        "{} in {}; {over_rules} over the per-rule limit of {}, {} over the per-version limit of {}\n",
        counted(rows.len(), "rule", "rules"),
        counted(crds.len(), "CRD", "CRDs"),
        thousands(PER_EXPRESSION_LIMIT),
        counted(over_schemas, "schema", "schemas"),
        thousands(PER_CRD_LIMIT)
    ));
    out
}

/// `1 rule`, `2 rules`: a count with its noun in the right number.
fn counted(n: usize, one: &str, many: &str) -> String {
    format!("{n} {}", if n == 1 { one } else { many })
}

fn to_json(crds: &[CrdCosts]) -> serde_json::Value {
    let crd_values: Vec<serde_json::Value> = crds
        .iter()
        .map(|crd| {
            let schemas: Vec<serde_json::Value> = crd
                .schemas
                .iter()
                .map(|schema| {
                    let rules: Vec<serde_json::Value> = schema
                        .rules
                        .iter()
                        .map(|r| {
                            json!({
                                "path": r.path,
                                "schemaPath": short_path(&r.node_path),
                                "line": crd.lines.line_of(r.range.start) + 1,
                                "expression": r.expression,
                                "messageExpression": r.message_expression,
                                "cost": r.cost,
                                "cardinality": r.cardinality,
                                "total": r.total,
                                "limit": PER_EXPRESSION_LIMIT,
                                "overLimit": over_limit(r),
                                "unbounded": r.drivers.iter().map(|d| json!({
                                    "path": d.path,
                                    "schemaPath": short_path(&d.path),
                                    "line": crd.lines.line_of(d.range.start) + 1,
                                    "missing": d.kind.keyword(),
                                    "repeatsRule": d.cardinality,
                                })).collect::<Vec<_>>(),
                            })
                        })
                        .collect();
                    json!({
                        "path": schema.path,
                        "versions": schema.versions,
                        "total": schema.total,
                        "limit": PER_CRD_LIMIT,
                        "overLimit": schema.total > PER_CRD_LIMIT,
                        "rules": rules,
                    })
                })
                .collect();
            json!({"file": crd.file, "line": crd.line, "name": crd.name, "schemas": schemas})
        })
        .collect();
    let rules = crds.iter().flat_map(|c| &c.schemas).flat_map(|s| &s.rules);
    json!({
        "crds": crd_values,
        "summary": {
            "crds": crds.len(),
            "rules": rules.clone().count(),
            "rulesOverLimit": rules.filter(|r| over_limit(r)).count(),
            "schemasOverLimit": crds.iter().flat_map(|c| &c.schemas).filter(|s| s.total > PER_CRD_LIMIT).count(),
        }
    })
}
