//! The words kubectl and the API server use for a YAML syntax error: go-yaml v2's (through
//! sigs.k8s.io/yaml), which reports libyaml's problem without its context ("while parsing a block
//! mapping"), and numbers lines its own way. crdls reads YAML with saphyr, whose messages are
//! libyaml's with the context in front, and a few of its own; this maps them.
//!
//! go-yaml's line: a scanner error prints the problem's line counted from 1, a parser error the
//! problem's line counted from 0 (the scanner's marks are advanced before the parser sees them, its
//! own are not), and a problem on the first line prints none. Errors of go-yaml's decoder (an unknown
//! anchor) print no line at all.

/// Which part of go-yaml finds a problem, which decides how its line is printed.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Finder {
    Scanner,
    Parser,
    Decoder,
}

/// go-yaml's error for saphyr's `info` at byte `at` of `text`, or `None` when saphyr's problem has no
/// counterpart in libyaml (the caller keeps saphyr's words).
pub(crate) fn go_syntax_error(info: &str, text: &str, at: usize) -> Option<String> {
    if info == "simple key expected" {
        // saphyr's words for a block mapping's key still without its `:` where the stream ends; go-yaml
        // meets the end after the line break its reader gives the last line.
        let ended = if text.ends_with('\n') { text.to_string() } else { format!("{text}\n") };
        return Some(go_error(Finder::Scanner, "could not find expected ':'", &ended, ended.len()));
    }
    let (finder, problem) = go_problem(info, text, at)?;
    Some(go_error(finder, &problem, text, at))
}

/// go-yaml's error for a problem its parser finds at byte `at` of `text`, the document as kubectl
/// sends it.
pub(crate) fn go_parser_error(problem: &str, text: &str, at: usize) -> String {
    go_error(Finder::Parser, problem, text, at)
}

fn go_error(finder: Finder, problem: &str, text: &str, at: usize) -> String {
    let mark = match finder {
        // libyaml marks the end of the stream it met, saphyr the scalar it was reading.
        _ if problem == "found unexpected end of stream" => text.len(),
        // libyaml's parser marks the token it could not take; saphyr may stop on the blanks, line
        // breaks or comment before it.
        Finder::Parser => next_token(text, at),
        _ => at,
    };
    let line = text.as_bytes()[..mark.min(text.len())].iter().filter(|&&b| b == b'\n').count();
    let printed = match finder {
        Finder::Decoder => 0,
        Finder::Scanner if line != 0 => line + 1,
        Finder::Scanner | Finder::Parser => line,
    };
    if printed == 0 {
        format!("yaml: {problem}")
    } else {
        format!("yaml: line {printed}: {problem}")
    }
}

/// The start of the first token at or after `at`: past blanks, line breaks and comments.
fn next_token(text: &str, at: usize) -> usize {
    let bytes = text.as_bytes();
    let mut i = at.min(bytes.len());
    while i < bytes.len() {
        match bytes[i] {
            b' ' | b'\t' | b'\r' | b'\n' => i += 1,
            b'#' => i = bytes[i..].iter().position(|&b| b == b'\n').map_or(bytes.len(), |n| i + n),
            _ => break,
        }
    }
    i
}

/// libyaml's problem for saphyr's message, and who reports it.
fn go_problem(info: &str, text: &str, at: usize) -> Option<(Finder, String)> {
    // saphyr puts libyaml's context first: "while parsing a block mapping, did not find expected key".
    let (context, problem) = match info.strip_prefix("while ").and_then(|rest| rest.split_once(", ")) {
        Some((context, problem)) => (Some(context), problem),
        None => (None, info),
    };
    let parser = |p: &str| Some((Finder::Parser, p.to_string()));
    let scanner = |p: &str| Some((Finder::Scanner, p.to_string()));
    match (context, problem) {
        (Some("parsing a flow sequence"), "expected ',' or ']'") => parser("did not find expected ',' or ']'"),
        (Some(c), p) if c.starts_with("parsing a") && p.starts_with("did not find expected") && !c.contains("quoted scalar") => {
            if c.contains("tag") {
                scanner(p)
            } else {
                parser(p)
            }
        }
        (Some("parsing node"), "found unknown anchor") => {
            // libyaml's anchor names are letters, digits, `_` and `-`.
            let name: String =
                text.get(at..)?.strip_prefix('*')?.chars().take_while(|c| c.is_ascii_alphanumeric() || *c == '_' || *c == '-').collect();
            Some((Finder::Decoder, format!("unknown anchor '{name}' referenced")))
        }
        (Some(c), p) if c.starts_with("scanning") || c.starts_with("parsing a quoted scalar") => scanner(p),
        (None, "did not find expected <document start>" | "did not find expected <document-start>") => {
            parser("did not find expected <document start>")
        }
        (
            None,
            "mapping values are not allowed in this context"
            | "block sequence entries are not allowed in this context"
            | "mapping keys are not allowed in this context",
        ) => scanner(problem),
        // A block mapping's key (after its first) whose `:` lies too far from its start: saphyr and
        // libyaml both forget it (see `crate::implicit_keys`), in their own words.
        (None, "simple key expect ':'") => scanner("could not find expected ':'"),
        // A tab where a block's indentation is: libyaml's scanner cannot start a token on it.
        (None, "tabs disallowed within this context (block indentation)") => scanner("found character that cannot start any token"),
        _ => None,
    }
}

/// A value as go-yaml v2 decodes it into `interface{}` and Go's `%#v` prints it: how go-yaml words a
/// collection used as a key (`invalid map key: []interface {}{"a"}`).
pub(crate) fn go_sharp_v(node: &crate::Node) -> String {
    use crate::Value;
    match &node.value {
        Value::Null => "interface {}(nil)".to_string(),
        Value::Bool(b) => b.to_string(),
        Value::Int(i) => i.to_string(),
        Value::Float(f) => crdls_go::print::float(*f),
        Value::Str(s) => crdls_go::print::quote(s),
        Value::Seq(items) => {
            let items: Vec<String> = items.iter().map(go_sharp_v).collect();
            format!("[]interface {{}}{{{}}}", items.join(", "))
        }
        Value::Map(entries) => {
            // fmt prints a map's keys sorted; go-yaml's keys here are strings.
            let mut entries: Vec<(&str, String)> = entries.iter().map(|e| (e.key.as_str(), go_sharp_v(&e.value))).collect();
            entries.sort_by(|a, b| a.0.cmp(b.0));
            let entries: Vec<String> = entries.iter().map(|(k, v)| format!("{}:{v}", crdls_go::print::quote(k))).collect();
            format!("map[interface {{}}]interface {{}}{{{}}}", entries.join(", "))
        }
    }
}

#[cfg(test)]
mod tests {
    use super::go_syntax_error;

    /// Each document's syntax error, through crdls's reading, against what go-yaml v2 said of the same
    /// document (crdls-oracle's `yaml` answers).
    #[test]
    fn syntax_errors_in_go_yamls_words() {
        let cases: &[(&str, &str)] = &[
            ("a: |\n    x\n  y\n", "yaml: line 2: did not find expected key"),
            ("x:\n  - a\n - b\n", "yaml: line 2: did not find expected key"),
            ("k: [a #b]\n", "yaml: line 1: did not find expected ',' or ']'"),
            ("k: {x: a: b}\n", "yaml: did not find expected ',' or '}'"),
            ("{a: 1\n", "yaml: line 1: did not find expected ',' or '}'"),
            ("k: a: b\n", "yaml: mapping values are not allowed in this context"),
            ("a:\n  b: c: d\n", "yaml: line 2: mapping values are not allowed in this context"),
            ("a:\n  b: \"x\n", "yaml: line 3: found unexpected end of stream"),
            ("a:\n  - b\n  c: d\n", "yaml: line 2: did not find expected '-' indicator"),
            ("a: \"b\\qc\"\n", "yaml: found unknown escape character"),
            ("a: 1\nb: *x\n", "yaml: unknown anchor 'x' referenced"),
            ("*x: 1\n", "yaml: unknown anchor 'x' referenced"),
            // kubectl reads each document apart, and go-yaml counts its lines from the document's first.
            ("a: 1\n---\nb: [x\n", "yaml: line 1: did not find expected ',' or ']'"),
            ("a:\n\tb: 1\n", "yaml: line 2: found character that cannot start any token"),
            ("[a, b,]: 1\n", "yaml: invalid map key: []interface {}{\"a\", \"b\"}"),
            ("{a, b: c}: 1\n", "yaml: invalid map key: map[interface {}]interface {}{\"a\":interface {}(nil), \"b\":\"c\"}"),
            (
                "{a: [b, {c: d}]}: 1\n",
                "yaml: invalid map key: map[interface {}]interface {}{\"a\":[]interface {}{\"b\", map[interface {}]interface {}{\"c\":\"d\"}}}",
            ),
        ];
        for (text, go) in cases {
            let stream = crate::parse(text);
            let causes: Vec<&str> = stream.documents.iter().flat_map(|d| &d.diagnostics).filter_map(|d| d.cause.as_deref()).collect();
            assert_eq!(causes, [*go], "{text:?}");
        }
        // Keys whose `:` lies more than 1,024 characters from their start (see `crate::implicit_keys`).
        let k = "k".repeat(1025);
        let long: &[(String, &str)] = &[
            (format!("a: {{{k}: 1}}\n"), "yaml: did not find expected ',' or '}'"),
            (format!("x: 1\na: [{k}: 2]\n"), "yaml: line 1: did not find expected ',' or ']'"),
            (format!("x: 1\ny: 2\na: {{b: 1,\n  {k}: 1}}\n"), "yaml: line 3: did not find expected ',' or '}'"),
            (format!("a: [{{{k}: 2}}]\n"), "yaml: did not find expected ',' or '}'"),
            (format!("a: 1\n{k}: 1\n"), "yaml: line 2: could not find expected ':'"),
            (format!("a:\n  b: 1\n  {k}: 1\n"), "yaml: line 3: could not find expected ':'"),
            (format!("a: 1\n\"{k}\": 1\n"), "yaml: line 2: could not find expected ':'"),
            (format!("\"{k}\": 1\n"), "yaml: mapping values are not allowed in this context"),
            // A key without its `:` at all, which saphyr words as the overlong one.
            ("a: 1\nb\nc: 2\n".to_string(), "yaml: line 3: could not find expected ':'"),
            ("a: 1\nb".to_string(), "yaml: line 3: could not find expected ':'"),
            ("a: 1\nb\n".to_string(), "yaml: line 3: could not find expected ':'"),
            ("x:\n  a: 1\n  b\n  c: 2\n".to_string(), "yaml: line 4: could not find expected ':'"),
        ];
        for (text, go) in long {
            let stream = crate::parse(text);
            let causes: Vec<&str> = stream.documents.iter().flat_map(|d| &d.diagnostics).filter_map(|d| d.cause.as_deref()).collect();
            assert_eq!(causes, [*go], "{}", &text[..text.len().min(12)]);
        }
        // kubectl reads a stream that starts with `{` as JSON, which has no such limit.
        assert!(crate::parse(&format!("{{\"{k}\": 1}}\n")).documents[0].diagnostics.is_empty());
        assert_eq!(crate::parse(&format!("a: {{{}: 1}}\n", "k".repeat(1022))).documents[0].diagnostics, []);
        // A problem saphyr words its own way keeps saphyr's words.
        assert_eq!(go_syntax_error("invalid trailing content after double-quoted scalar", "\"a\n b\": 1\n", 4), None);
    }
}
