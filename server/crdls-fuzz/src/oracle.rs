//! The client of the differential oracle `crdls-oracle` (tests/oracle, a Go program of ours on the API
//! server's own libraries): building it, running it, and comparing its verdicts with crdls's. The
//! `differential` fuzz target and the oracle tests (`tests/integration/oracle.rs`) share it.

use std::collections::BTreeSet;
use std::io::{BufRead, BufReader, Write};
use std::path::{Path, PathBuf};
use std::process::{Child, ChildStdin, ChildStdout, Command, Stdio};

use crdls_diagnostics::{Diagnostic, Severity};
use serde_json::Value;

/// Cargo's target directory: `CARGO_TARGET_DIR` (relative to the repository when relative) or `target/`.
pub fn target_dir() -> PathBuf {
    let root = crate::repo_root();
    std::env::var_os("CARGO_TARGET_DIR").map_or_else(|| root.join("target"), |dir| root.join(dir))
}

/// Builds `tests/oracle` into `<target>/oracle/crdls-oracle`, with Go's build cache under the target
/// directory too (unless `GOCACHE` is set), so that caching the target directory caches both. `go
/// build` is a no-op after the first build when nothing changed.
pub fn build() -> Result<PathBuf, String> {
    let out_dir = target_dir().join("oracle");
    let binary = out_dir.join(format!("crdls-oracle{}", std::env::consts::EXE_SUFFIX));
    let mut command = Command::new("go");
    // No VCS stamping: a worktree or a checkout without git must build alike.
    command.args(["build", "-buildvcs=false", "-o"]).arg(&binary).arg(".").current_dir(crate::repo_root().join("tests/oracle"));
    if std::env::var_os("GOCACHE").is_none() {
        command.env("GOCACHE", out_dir.join("go-build"));
    }
    let output = command.output().map_err(|e| format!("go could not be run: {e}"))?;
    if !output.status.success() {
        return Err(format!("go build failed ({}):\n{}", output.status, String::from_utf8_lossy(&output.stderr)));
    }
    Ok(binary)
}

/// The Kubernetes minor version the oracle answers for: the one `tests/oracle/go.mod` pins
/// `k8s.io/apiextensions-apiserver` to (`v0.35.10` is 35).
pub fn kubernetes_minor() -> Option<u32> {
    let text = std::fs::read_to_string(crate::repo_root().join("tests/oracle/go.mod")).ok()?;
    let line = text.lines().find(|l| l.trim_start().starts_with("k8s.io/apiextensions-apiserver "))?;
    let version = line.split_whitespace().nth(1)?.strip_prefix("v0.")?;
    version.split('.').next()?.parse().ok()
}

/// A running oracle: one request line in, one answer line out.
pub struct Oracle {
    child: Child,
    stdin: Option<ChildStdin>,
    stdout: BufReader<ChildStdout>,
}

impl Oracle {
    /// Starts `binary`.
    pub fn start(binary: &Path) -> Result<Oracle, String> {
        let mut child = Command::new(binary)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .spawn()
            .map_err(|e| format!("{} does not start: {e}", binary.display()))?;
        let stdin = child.stdin.take();
        let stdout = BufReader::new(child.stdout.take().ok_or("the oracle's stdout is not piped")?);
        Ok(Oracle { child, stdin, stdout })
    }

    /// Sends one request and reads its answer.
    pub fn ask(&mut self, request: &Value) -> Result<Value, String> {
        let stdin = self.stdin.as_mut().ok_or("the oracle's stdin is closed")?;
        writeln!(stdin, "{request}").and_then(|()| stdin.flush()).map_err(|e| format!("the oracle does not read: {e}"))?;
        let mut line = String::new();
        match self.stdout.read_line(&mut line) {
            Ok(0) => Err("the oracle ended".to_string()),
            Ok(_) => serde_json::from_str(&line).map_err(|e| format!("the oracle's answer is not JSON ({e}): {line:?}")),
            Err(e) => Err(format!("the oracle does not answer: {e}")),
        }
    }
}

impl Drop for Oracle {
    fn drop(&mut self) {
        // Closing its input ends the oracle.
        drop(self.stdin.take());
        let _ = self.child.wait();
    }
}

/// A verdict, crdls's or the oracle's, split alike: the API server's causes (or crdls's own words
/// when it has none), the paths of unknown fields, and whether the write is accepted.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Verdict {
    /// Whether the write is accepted (with `fieldValidation=Strict`).
    pub accepted: bool,
    /// The field errors, as the API server words them (`path: Invalid value: ...`).
    pub causes: BTreeSet<String>,
    /// The paths of unknown fields.
    pub unknown: BTreeSet<String>,
}

/// crdls's verdict from its diagnostics; `unknown_code` is the code of an unknown field
/// (`schema/unknown-field` for objects, `crd/unknown-field` for CRDs).
pub fn our_verdict(diagnostics: &[Diagnostic], unknown_code: &str) -> Verdict {
    let mut verdict = Verdict { accepted: true, ..Verdict::default() };
    for d in diagnostics {
        // An unknown field the API server would only drop (crdls words it as a warning with no
        // cause: a CRD's schemas below `items` are decoded without field validation) rejects nothing.
        if d.code == unknown_code && (d.severity == Severity::Error || d.cause.is_some()) {
            verdict.unknown.insert(d.path.clone().unwrap_or_default());
            verdict.accepted = false;
        } else if d.severity == Severity::Error {
            verdict.accepted = false;
            verdict.causes.insert(d.cause.clone().unwrap_or_else(|| format!("(crdls, no cause) {}: {}", d.code, d.message)));
        } else if d.code == crdls_diagnostics::codes::CEL_SKIPPED {
            // A note, not an error, for crdls, but a cause of the API server's answer (only ever beside
            // errors, so it does not change the verdict).
            verdict.causes.extend(d.cause.clone());
        }
    }
    verdict
}

/// crdls's verdict on an object (see [`our_verdict`]), with the errors for which the API server
/// refuses the request before validating it, `(rejected)` as the oracle says: metadata it cannot
/// decode (the handler's coercion), a built-in object's body Go cannot decode, a built-in version the
/// release does not serve (kubectl's discovery finds no resource for it), and a status write to a
/// version without `/status` (404). A refused
/// request gets no other answer, so when crdls finds a refusal the verdict holds the refusals alone.
pub fn our_object_verdict(diagnostics: &[Diagnostic]) -> Verdict {
    use crdls_diagnostics::codes;
    // A built-in object's body that Go cannot decode (base64 data, a quantity) is refused in the
    // decoder's words: `<Kind> in version "<v>" cannot be handled as a <Kind>: ...`.
    let decoding = |d: &Diagnostic| d.cause.as_deref().is_some_and(|c| c.contains(" cannot be handled as a "));
    let refusal = |d: &Diagnostic| {
        (matches!(d.code, codes::METADATA_TYPE | codes::RESOURCE_NO_STATUS_SUBRESOURCE | codes::RESOURCE_API_NOT_SERVED)
            && d.cause.is_some())
            || decoding(d)
    };
    let refusals: Vec<Diagnostic> = diagnostics
        .iter()
        .filter(|d| refusal(d))
        .cloned()
        .map(|mut d| {
            d.cause = d.cause.map(|c| format!("(rejected) {c}"));
            d
        })
        .collect();
    if refusals.is_empty() {
        our_verdict(diagnostics, crdls_diagnostics::codes::SCHEMA_UNKNOWN_FIELD)
    } else {
        our_verdict(&refusals, crdls_diagnostics::codes::SCHEMA_UNKNOWN_FIELD)
    }
}

/// The oracle's verdict from its answer to a `cr` or `crd` request.
pub fn their_verdict(answer: &Value) -> Verdict {
    let strings = |key: &str| -> BTreeSet<String> {
        answer[key].as_array().map(|a| a.iter().filter_map(Value::as_str).map(str::to_string).collect()).unwrap_or_default()
    };
    let mut causes: BTreeSet<String> = answer["errors"]
        .as_array()
        .map(|a| a.iter().filter_map(|e| e["message"].as_str()).map(str::to_string).collect())
        .unwrap_or_default();
    causes.extend(strings("strictErrors").into_iter().filter(|e| !e.starts_with("unknown field ")));
    if let Some(rejection) = answer["rejection"].as_str() {
        causes.insert(format!("(rejected) {rejection}"));
    }
    let mut unknown = strings("unknownFields");
    // The strict decoder's unknown fields (a CRD's), as paths: it quotes them with `strconv.Quote`.
    unknown.extend(strings("strictErrors").iter().filter_map(|e| e.strip_prefix("unknown field ")).map(go_unquote));
    Verdict { accepted: answer["accepted"].as_bool().unwrap_or(false), causes, unknown }
}

/// The text of a string Go's `strconv.Quote` printed (the text as it is when it does not parse).
fn go_unquote(quoted: &str) -> String {
    let Some(inner) = quoted.strip_prefix('"').and_then(|q| q.strip_suffix('"')) else { return quoted.to_string() };
    let mut out = String::new();
    let mut chars = inner.chars();
    while let Some(c) = chars.next() {
        if c != '\\' {
            out.push(c);
            continue;
        }
        let hex = |chars: &mut std::str::Chars<'_>, n: usize| {
            let digits: String = chars.by_ref().take(n).collect();
            u32::from_str_radix(&digits, 16).ok().and_then(char::from_u32).unwrap_or('\u{fffd}')
        };
        match chars.next() {
            Some('n') => out.push('\n'),
            Some('t') => out.push('\t'),
            Some('r') => out.push('\r'),
            Some('a') => out.push('\u{7}'),
            Some('b') => out.push('\u{8}'),
            Some('f') => out.push('\u{c}'),
            Some('v') => out.push('\u{b}'),
            Some('x') => out.push(hex(&mut chars, 2)),
            Some('u') => out.push(hex(&mut chars, 4)),
            Some('U') => out.push(hex(&mut chars, 8)),
            Some(other) => out.push(other),
            None => out.push('\\'),
        }
    }
    out
}

/// What differs between two verdicts, a line each (the verdict first, then causes, then unknown
/// fields), or `None`.
pub fn compare(ours: &Verdict, theirs: &Verdict) -> Option<String> {
    let mut lines = Vec::new();
    if ours.accepted != theirs.accepted {
        lines.push(format!("crdls {}, the oracle {}", verb(ours.accepted), verb(theirs.accepted)));
    }
    for cause in theirs.causes.difference(&ours.causes) {
        lines.push(format!("only the oracle: {cause}"));
    }
    for cause in ours.causes.difference(&theirs.causes) {
        lines.push(format!("only crdls:      {cause}"));
    }
    for path in theirs.unknown.difference(&ours.unknown) {
        lines.push(format!("unknown field only for the oracle: {path}"));
    }
    for path in ours.unknown.difference(&theirs.unknown) {
        lines.push(format!("unknown field only for crdls: {path}"));
    }
    (!lines.is_empty()).then(|| lines.join("\n"))
}

fn verb(accepted: bool) -> &'static str {
    if accepted {
        "accepts"
    } else {
        "rejects"
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_oracles_unknown_fields_are_unquoted() {
        let answer = serde_json::json!({"accepted": false, "strictErrors": ["unknown field \"spec.a\\nb\\\"c\\u00e9\""]});
        assert_eq!(their_verdict(&answer).unknown.into_iter().collect::<Vec<_>>(), ["spec.a\nb\"c\u{e9}"]);
    }

    #[test]
    fn the_pinned_release_is_read_from_go_mod() {
        let minor = kubernetes_minor().expect("tests/oracle/go.mod pins k8s.io/apiextensions-apiserver");
        assert!((30..100).contains(&minor), "{minor}");
    }

    #[test]
    fn a_refusal_is_the_whole_answer() {
        use crdls_diagnostics::{codes, TextRange};
        let error = |code, cause: &str| Diagnostic::new(TextRange::empty(0), Severity::Error, code, "m").with_cause(cause.to_string());
        let refused = our_object_verdict(&[
            error(codes::SCHEMA_TYPE, "spec.a: Invalid value: \"string\": spec.a in body must be of type integer: \"string\""),
            error(codes::METADATA_TYPE, "json: cannot unmarshal number into Go value of type v1.ObjectMeta"),
        ]);
        assert!(!refused.accepted);
        assert_eq!(
            refused.causes.into_iter().collect::<Vec<_>>(),
            ["(rejected) json: cannot unmarshal number into Go value of type v1.ObjectMeta"]
        );
        let validated = our_object_verdict(&[error(codes::SCHEMA_TYPE, "spec.a: Invalid value")]);
        assert_eq!(validated.causes.into_iter().collect::<Vec<_>>(), ["spec.a: Invalid value"]);
    }

    #[test]
    fn verdicts_that_differ_say_how() {
        let theirs = their_verdict(&serde_json::json!({
            "accepted": false,
            "errors": [{"message": "spec.a: Invalid value: 1: must be less than or equal to 0"}],
            "unknownFields": ["spec.b"],
        }));
        assert_eq!(compare(&theirs, &theirs), None);
        let ours = Verdict { accepted: true, ..Verdict::default() };
        let detail = compare(&ours, &theirs).expect("they differ");
        assert_eq!(
            detail,
            "crdls accepts, the oracle rejects\nonly the oracle: spec.a: Invalid value: 1: must be less than or equal to 0\n\
             unknown field only for the oracle: spec.b"
        );
    }
}
