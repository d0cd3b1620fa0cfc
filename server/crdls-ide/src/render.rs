//! Writing values back as YAML text (quoted where YAML would otherwise read another type) and as LSP
//! snippet text, for completion inserts and hover Markdown.

use crdls_yaml::{double_quoted, resolve_plain, Node, Value};

/// A string as a YAML scalar: plain when YAML reads it back as that same string, double-quoted otherwise
/// (`"on"`, `"1.0"`, `"a: b"`, `""`).
pub(crate) fn yaml_string(s: &str) -> String {
    if plain_is_safe(s) {
        s.to_string()
    } else {
        double_quoted(s)
    }
}

/// Whether `s` written plain reads back as the string `s`.
fn plain_is_safe(s: &str) -> bool {
    let Some(first) = s.chars().next() else { return false };
    if !matches!(resolve_plain(s), Value::Str(ref read) if read == s) {
        return false;
    }
    if "-?:,[]{}#&*!|>'\"%@`".contains(first) && !(first == '-' && s.len() > 1 && !s[1..].starts_with(' ')) {
        return false;
    }
    let ends_badly = s.ends_with(':') || s.ends_with(' ') || s.starts_with(' ');
    !(ends_badly || s.contains(": ") || s.contains(" #") || s.chars().any(char::is_control))
}

/// A node as inline YAML: scalars as written back, collections in flow style (`[a, b]`, `{k: v}`).
pub(crate) fn yaml_inline(node: &Node) -> String {
    match &node.value {
        Value::Null => "null".to_string(),
        Value::Bool(b) => b.to_string(),
        Value::Int(i) => i.to_string(),
        Value::Float(f) => float_text(*f),
        Value::Str(s) => yaml_string(s),
        Value::Seq(items) => format!("[{}]", items.iter().map(yaml_inline).collect::<Vec<_>>().join(", ")),
        Value::Map(entries) => format!(
            "{{{}}}",
            entries.iter().map(|e| format!("{}: {}", yaml_string(&e.key), yaml_inline(&e.value))).collect::<Vec<_>>().join(", ")
        ),
    }
}

/// A float as YAML reads it back as a float (`1.5`, `.inf`, `.nan`).
fn float_text(f: f64) -> String {
    if f.is_nan() {
        ".nan".to_string()
    } else if f.is_infinite() {
        if f > 0.0 { ".inf" } else { "-.inf" }.to_string()
    } else {
        f.to_string()
    }
}

/// Text escaped for an LSP snippet (`$`, `}` and `\` are special there).
pub(crate) fn snippet_escape(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for c in s.chars() {
        if matches!(c, '$' | '}' | '\\') {
            out.push('\\');
        }
        out.push(c);
    }
    out
}

/// A choice element of an LSP snippet (`${1|a,b|}`), where `,` and `|` are special as well.
pub(crate) fn choice_escape(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for c in s.chars() {
        if matches!(c, '$' | '}' | '\\' | ',' | '|') {
            out.push('\\');
        }
        out.push(c);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn strings_are_quoted_only_when_yaml_would_misread_them() {
        let cases: Vec<String> =
            ["gold", "on", "1.0", "", "a: b", "-x", "- x", "#c", "ü", "y", "null", "10Gi", "0755"].iter().map(|s| yaml_string(s)).collect();
        assert_eq!(
            cases,
            ["gold", "\"on\"", "\"1.0\"", "\"\"", "\"a: b\"", "-x", "\"- x\"", "\"#c\"", "ü", "\"y\"", "\"null\"", "10Gi", "\"0755\""]
        );
        assert_eq!(snippet_escape("a$b}c\\"), "a\\$b\\}c\\\\");
        assert_eq!(choice_escape("a,b|c"), "a\\,b\\|c");
    }
}
