//! The transcript: each message recorded as the script consumes it, redacted of what changes from run to
//! run (the workspace's location, durations), and rendered for reading, with the text every diagnostic
//! range covers cut out of the client's copy of the document.

use serde_json::{json, Map, Value};

use super::text::{exact_offset, lsp_position};
use super::{Encoding, Session, WORKSPACE_URI};

impl Session {
    pub(super) fn record(&mut self, line: String) {
        let line = self.redact(line);
        self.transcript.push(line);
    }

    /// Replaces what changes from run to run: the workspace's location and durations.
    pub(super) fn redact(&self, text: String) -> String {
        let text = text.replace(&self.workspace_uri, WORKSPACE_URI).replace(&self.workspace.display().to_string(), "/WORKSPACE");
        redact_durations(&text)
    }

    pub(super) fn render_client(&self, id: Option<i64>, method: &str, params: &Value) -> String {
        let head = match id {
            Some(id) => format!("-> #{id} {method}"),
            None => format!("-> {method}"),
        };
        match method {
            "initialize" => format!(
                "{head} {} ({}) initializationOptions {}",
                params["rootUri"].as_str().unwrap_or_default(),
                self.options.describe_client(),
                compact(&params["initializationOptions"])
            ),
            "textDocument/didOpen" => {
                let doc = &params["textDocument"];
                let mut out = format!("{head} {} v{}", doc["uri"].as_str().unwrap_or_default(), doc["version"]);
                for (i, line) in doc["text"].as_str().unwrap_or_default().split_inclusive('\n').enumerate() {
                    out.push_str(&format!("\n   {i:>3}| {}", line.trim_end_matches(['\n', '\r'])));
                }
                out
            }
            "textDocument/codeAction" => {
                let held: Vec<String> = params["context"]["diagnostics"]
                    .as_array()
                    .into_iter()
                    .flatten()
                    .map(|d| format!("{} {}", d["source"].as_str().unwrap_or("?"), compact(&d["code"])))
                    .collect();
                format!(
                    "{head} {} {} with diagnostics [{}]",
                    params["textDocument"]["uri"].as_str().unwrap_or_default(),
                    render_range(&params["range"]),
                    held.join(", ")
                )
            }
            "textDocument/didChange" => {
                let doc = &params["textDocument"];
                let mut out = format!("{head} {} v{}", doc["uri"].as_str().unwrap_or_default(), doc["version"]);
                for change in params["contentChanges"].as_array().into_iter().flatten() {
                    let text = compact(&change["text"]);
                    match change.get("range") {
                        Some(range) => out.push_str(&format!("\n     {} => {text}", render_range(range))),
                        None => out.push_str(&format!("\n     (whole text) => {text}")),
                    }
                }
                out
            }
            _ => match params {
                Value::Null => head,
                Value::Object(map) if map.contains_key("textDocument") => {
                    let mut out = format!("{head} {}", params["textDocument"]["uri"].as_str().unwrap_or_default());
                    if let Some(position) = map.get("position") {
                        out.push_str(&format!(" {}", render_position(position)));
                    }
                    let rest: Map<String, Value> = map
                        .iter()
                        .filter(|(k, _)| !matches!(k.as_str(), "textDocument" | "position"))
                        .map(|(k, v)| (k.clone(), v.clone()))
                        .collect();
                    if !rest.is_empty() {
                        out.push_str(&format!(" {}", compact(&Value::Object(rest))));
                    }
                    out
                }
                _ => format!("{head} {}", compact(params)),
            },
        }
    }

    pub(super) fn render_server(&self, message: &Value) -> String {
        if let Some(method) = message["method"].as_str() {
            let params = &message["params"];
            return match method {
                "textDocument/publishDiagnostics" => {
                    let uri = params["uri"].as_str().unwrap_or_default();
                    let version = params.get("version").filter(|v| !v.is_null());
                    let text = version.and_then(Value::as_i64).and_then(|v| self.text_at(uri, Some(v)));
                    let head = format!("<- {method} {uri} {}", version.map_or_else(|| "(no version)".to_string(), |v| format!("v{v}")));
                    format!("{head}{}", self.render_diagnostics(&params["diagnostics"], text))
                }
                "window/logMessage" | "window/showMessage" => {
                    let level = match params["type"].as_i64() {
                        Some(1) => "error",
                        Some(2) => "warning",
                        Some(3) => "info",
                        Some(4) => "log",
                        _ => "?",
                    };
                    format!("<- {method} {level}: {}", params["message"].as_str().unwrap_or_default())
                }
                _ => format!("<- {method} {}", compact(params)),
            };
        }
        let id = message["id"].as_i64().unwrap_or(-1);
        let head = format!("<- #{}", render_id(&message["id"]));
        if let Some(error) = message.get("error") {
            return format!("{head} error {}: {}", error["code"], error["message"].as_str().unwrap_or_default());
        }
        let result = &message["result"];
        let Some((method, params)) = self.requests.get(&id) else { return format!("{head} {}", compact(result)) };
        let uri = params["textDocument"]["uri"].as_str().unwrap_or_default();
        match method.as_str() {
            "initialize" => {
                let caps = &result["capabilities"];
                format!(
                    "{head} positionEncoding {}, textDocumentSync {}, diagnosticProvider {}",
                    compact(&caps["positionEncoding"]),
                    compact(&caps["textDocumentSync"]),
                    compact(&caps["diagnosticProvider"])
                )
            }
            "textDocument/diagnostic" if !result.is_null() => {
                let text = self.text_at(uri, None);
                format!("{head} {} report{}", result["kind"].as_str().unwrap_or("?"), self.render_diagnostics(&result["items"], text))
            }
            "textDocument/hover" if !result.is_null() => {
                let text = self.text_at(uri, None);
                let mut out = format!("{head} hover");
                if let Some(range) = result.get("range") {
                    out.push_str(&format!(" {}", render_range_with_text(range, text, self.encoding())));
                }
                let contents = &result["contents"];
                let body = contents["value"].as_str().map_or_else(|| compact(contents), str::to_string);
                if let Some(kind) = contents["kind"].as_str() {
                    out.push_str(&format!(" ({kind})"));
                }
                for line in body.lines() {
                    out.push_str(&format!("\n     | {line}"));
                }
                out
            }
            "textDocument/completion" if !result.is_null() => {
                let text = self.text_at(uri, None);
                let items = result["items"].as_array().or_else(|| result.as_array()).cloned().unwrap_or_default();
                let mut out = format!("{head} {} completion items, isIncomplete {}", items.len(), compact(&result["isIncomplete"]));
                for item in &items {
                    out.push_str(&format!("\n     {}", render_completion(item, text, self.encoding())));
                }
                out
            }
            "textDocument/definition" if !result.is_null() => {
                let locations = if result.is_array() { result.as_array().cloned().unwrap_or_default() } else { vec![result.clone()] };
                let mut out = format!("{head} definition");
                for location in &locations {
                    let target = location["uri"].as_str().or_else(|| location["targetUri"].as_str()).unwrap_or_default();
                    let range = location.get("range").or_else(|| location.get("targetSelectionRange")).unwrap_or(&Value::Null);
                    let text = self.text_at(target, None).map(str::to_string).or_else(|| self.read_workspace_uri(target));
                    out.push_str(&format!("\n     {target} {}", render_range_with_text(range, text.as_deref(), self.encoding())));
                }
                out
            }
            "textDocument/codeAction" if result.is_array() => {
                let text = self.text_at(uri, None);
                let actions = result.as_array().cloned().unwrap_or_default();
                let mut out = format!("{head} {} code action{}", actions.len(), if actions.len() == 1 { "" } else { "s" });
                for action in &actions {
                    let preferred = if action["isPreferred"] == json!(true) { " (preferred)" } else { "" };
                    let fixes: Vec<String> = action["diagnostics"].as_array().into_iter().flatten().map(|d| compact(&d["code"])).collect();
                    out.push_str(&format!(
                        "\n     {} [{}]{preferred} fixes {}",
                        compact(&action["title"]),
                        action["kind"].as_str().unwrap_or("no kind"),
                        fixes.join(", ")
                    ));
                    let changes = action["edit"]["changes"].as_object().cloned().unwrap_or_default();
                    for (target, edits) in &changes {
                        for edit in edits.as_array().into_iter().flatten() {
                            let shown = render_range_with_text(&edit["range"], text, self.encoding());
                            let target = if target == uri { String::new() } else { format!("{target} ") };
                            out.push_str(&format!("\n       {target}{shown} => {}", compact(&edit["newText"])));
                        }
                    }
                }
                out
            }
            "textDocument/inlayHint" if result.is_array() => {
                let hints = result.as_array().cloned().unwrap_or_default();
                let mut out = format!("{head} {} inlay hint{}", hints.len(), if hints.len() == 1 { "" } else { "s" });
                for hint in &hints {
                    let label = hint["label"].as_str().map_or_else(|| compact(&hint["label"]), |l| format!("{l:?}"));
                    out.push_str(&format!("\n     {} {label}", render_position(&hint["position"])));
                }
                out
            }
            _ => format!("{head} {}", compact(result)),
        }
    }

    fn render_diagnostics(&self, diagnostics: &Value, text: Option<&str>) -> String {
        let items = diagnostics.as_array().cloned().unwrap_or_default();
        if items.is_empty() {
            return ": no diagnostics".into();
        }
        let mut out = format!(": {} diagnostic{}", items.len(), if items.len() == 1 { "" } else { "s" });
        for d in &items {
            let severity = match d["severity"].as_i64() {
                Some(1) => "error",
                Some(2) => "warning",
                Some(3) => "info",
                Some(4) => "hint",
                _ => "(no severity)",
            };
            let code = d["code"].as_str().map_or_else(|| compact(&d["code"]), str::to_string);
            out.push_str(&format!("\n     {} {severity} {code}", render_range_with_text(&d["range"], text, self.encoding())));
            if let Some(path) = d["data"]["path"].as_str() {
                out.push_str(&format!(" at {path}"));
            }
            for line in d["message"].as_str().unwrap_or_default().lines() {
                out.push_str(&format!("\n       {line}"));
            }
            let known = ["range", "severity", "code", "source", "message", "data"];
            let extra: Map<String, Value> = d
                .as_object()
                .into_iter()
                .flatten()
                .filter(|(k, _)| !known.contains(&k.as_str()))
                .map(|(k, v)| (k.clone(), v.clone()))
                .collect();
            if !extra.is_empty() {
                out.push_str(&format!("\n       also {}", compact(&Value::Object(extra))));
            }
            if d["source"] != "crdls" {
                out.push_str(&format!("\n       source {}", compact(&d["source"])));
            }
        }
        out
    }

    /// The text of a document at a version (the latest when `None`), as the client sent it.
    fn text_at(&self, uri: &str, version: Option<i64>) -> Option<&str> {
        let versions = self.documents.get(uri)?;
        match version {
            Some(v) => versions.get(&i32::try_from(v).ok()?).map(String::as_str),
            None => versions.values().next_back().map(String::as_str),
        }
    }
}

/// JSON on one line.
pub fn compact(value: &Value) -> String {
    value.to_string()
}

pub(super) fn render_id(id: &Value) -> String {
    id.as_str().map_or_else(|| id.to_string(), str::to_string)
}

fn render_position(position: &Value) -> String {
    format!("{}:{}", position["line"], position["character"])
}

fn render_range(range: &Value) -> String {
    format!("{}-{}", render_position(&range["start"]), render_position(&range["end"]))
}

/// A range followed by the text it covers, cut out by the harness (or a note that it is not valid).
fn render_range_with_text(range: &Value, text: Option<&str>, encoding: Encoding) -> String {
    let shown = render_range(range);
    let Some(text) = text else { return shown };
    let offsets = (|| {
        let start = exact_offset(text, lsp_position(&range["start"])?, encoding)?;
        let end = exact_offset(text, lsp_position(&range["end"])?, encoding)?;
        (start <= end).then_some((start, end))
    })();
    match offsets {
        Some((start, end)) => {
            let covered: String = text[start..end].chars().take(60).collect();
            let ellipsis = if text[start..end].chars().count() > 60 { "…" } else { "" };
            format!("{shown} `{}{ellipsis}`", covered.replace('\n', "\\n").replace('\r', "\\r"))
        }
        None => format!("{shown} (NOT A VALID RANGE OF THE DOCUMENT)"),
    }
}

fn render_completion(item: &Value, text: Option<&str>, encoding: Encoding) -> String {
    let kind = match item["kind"].as_i64() {
        Some(5) => "field".to_string(),
        Some(7) => "class".to_string(),
        Some(9) => "module".to_string(),
        Some(12) => "value".to_string(),
        Some(15) => "snippet".to_string(),
        Some(k) => format!("kind {k}"),
        None => "no kind".to_string(),
    };
    let mut out = format!("{} ({kind})", compact(&item["label"]));
    if let Some(detail) = item["detail"].as_str() {
        out.push_str(&format!(" {detail:?}"));
    }
    if let Some(edit) = item.get("textEdit") {
        let range = edit.get("range").or_else(|| edit.get("replace")).unwrap_or(&Value::Null);
        out.push_str(&format!(" edit {} => {}", render_range_with_text(range, text, encoding), compact(&edit["newText"])));
    } else if let Some(insert) = item.get("insertText") {
        out.push_str(&format!(" insert {}", compact(insert)));
    }
    if item["tags"].as_array().is_some_and(|t| t.contains(&json!(1))) {
        out.push_str(" deprecated");
    }
    out
}

/// `in 12 ms` becomes `in <N> ms`.
fn redact_durations(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    while let Some(at) = rest.find(" in ") {
        let after = &rest[at + 4..];
        let digits = after.len() - after.trim_start_matches(|c: char| c.is_ascii_digit()).len();
        if digits > 0 && after[digits..].starts_with(" ms") {
            out.push_str(&rest[..at]);
            out.push_str(" in <N> ms");
            rest = &after[digits + 3..];
        } else {
            out.push_str(&rest[..at + 4]);
            rest = after;
        }
    }
    out.push_str(rest);
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn durations_are_redacted() {
        assert_eq!(redact_durations("indexed 1 CRDs from 2 files in 13 ms"), "indexed 1 CRDs from 2 files in <N> ms");
        assert_eq!(redact_durations("in 3 files in x ms in 7 ms"), "in 3 files in x ms in <N> ms");
    }
}
