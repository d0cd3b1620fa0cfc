//! Property names as CEL code spells them: Kubernetes escapes the characters CEL identifiers cannot hold
//! (`x-prop` is `x__dash__prop`) and CEL's reserved words (`namespace` is `__namespace__`). Names that
//! cannot be escaped (a leading digit, a space, a non-ASCII letter) are not accessible from rules.

/// CEL's reserved words, escaped as `__word__` when they are property names.
pub const RESERVED: &[&str] = &[
    "true",
    "false",
    "null",
    "in",
    "as",
    "break",
    "const",
    "continue",
    "else",
    "for",
    "function",
    "if",
    "import",
    "let",
    "loop",
    "package",
    "namespace",
    "return",
    "var",
    "void",
    "while",
];

/// The CEL name of a property, or `None` when rules cannot refer to it.
pub fn escape(name: &str) -> Option<String> {
    let first = name.bytes().next()?;
    if first.is_ascii_digit() {
        return None;
    }
    if RESERVED.contains(&name) {
        return Some(format!("__{name}__"));
    }
    if !name.bytes().all(|b| b.is_ascii_alphanumeric() || matches!(b, b'_' | b'.' | b'-' | b'/')) {
        return None;
    }
    let mut out = String::with_capacity(name.len() + 8);
    let bytes = name.as_bytes();
    let mut i = 0;
    while i < bytes.len() {
        match bytes[i] {
            b'_' if bytes.get(i + 1) == Some(&b'_') => {
                out.push_str("__underscores__");
                i += 2;
                continue;
            }
            b'.' => out.push_str("__dot__"),
            b'-' => out.push_str("__dash__"),
            b'/' => out.push_str("__slash__"),
            b => out.push(b as char),
        }
        i += 1;
    }
    Some(out)
}

/// The property name a CEL field name stands for (the inverse of [`escape`]).
pub fn unescape(escaped: &str) -> Option<String> {
    if let Some(word) = escaped.strip_prefix("__").and_then(|s| s.strip_suffix("__")) {
        if RESERVED.contains(&word) {
            return Some(word.to_string());
        }
    }
    let mut out = String::with_capacity(escaped.len());
    let mut rest = escaped;
    while let Some(at) = rest.find("__") {
        out.push_str(&rest[..at]);
        let after = &rest[at + 2..];
        let Some(end) = after.find("__") else {
            out.push_str(&rest[at..]);
            return Some(out);
        };
        let word = &after[..end];
        match word {
            "underscores" => out.push_str("__"),
            "dot" => out.push('.'),
            "dash" => out.push('-'),
            "slash" => out.push('/'),
            _ => return None,
        }
        rest = &after[end + 2..];
    }
    out.push_str(rest);
    Some(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_escape_as_kubernetes_escapes_them() {
        let cases = [
            ("x-prop", Some("x__dash__prop")),
            ("redact__d", Some("redact__underscores__d")),
            ("a.b/c", Some("a__dot__b__slash__c")),
            ("namespace", Some("__namespace__")),
            ("namespaces", Some("namespaces")),
            ("-foo", Some("__dash__foo")),
            ("___", Some("__underscores___")),
            ("1st", None),
            ("a b", None),
            ("", None),
        ];
        for (name, want) in cases {
            assert_eq!(escape(name).as_deref(), want, "{name}");
            if let Some(escaped) = want {
                assert_eq!(unescape(escaped).as_deref(), Some(name), "{escaped}");
            }
        }
    }
}
