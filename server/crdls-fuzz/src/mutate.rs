//! Structure-aware mutators: byte and character edits, splices of two inputs, line edits, and the
//! tokens that matter to YAML and to CEL, so that mutants reach past the first syntax error.

use crate::rng::Rng;

/// Which language's tokens a mutator favours.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Dialect {
    /// YAML streams (manifests, CRDs, Helm templates).
    Yaml,
    /// CEL expressions.
    Cel,
}

/// Tokens with a meaning in YAML: indicators, anchors, aliases, merge keys, block scalars, document
/// markers, tags, quotes, odd whitespace and line endings, Go template actions.
const YAML_TOKENS: &[&str] = &[
    "- ",
    ": ",
    "{",
    "}",
    "[",
    "]",
    ", ",
    "&a ",
    "*a",
    "<<: ",
    "<<: *a",
    "? ",
    "---\n",
    "...\n",
    "|",
    "|-\n",
    ">+\n",
    "|2\n",
    "\"",
    "'",
    "\t",
    "\r\n",
    "\r",
    "\n",
    "\n  ",
    "\n    - ",
    "#",
    " #c",
    "!!str ",
    "!!int ",
    "!!binary ",
    "!!map ",
    "!custom ",
    "%YAML 1.2\n",
    "%TAG ! tag:x:\n",
    "~",
    "null",
    "true",
    "yes",
    "0x1F",
    "0o17",
    "0755",
    "1e309",
    "-.inf",
    ".nan",
    "1_000",
    "9223372036854775808",
    "-9223372036854775809",
    "12:30:00",
    "2024-01-01T00:00:00Z",
    "\"\\ud83d\"",
    "\"\\ud83d\\ude00\"",
    "\"\\U0001F600\"",
    "\"\\x80\\0\\L\\P\"",
    "'it''s'",
    "{{ .Values.x }}",
    "{{- if .Values.y }}",
    "{{- end }}",
    "{{ \"}}\" }}",
    "apiVersion: ",
    "kind: ",
    "metadata:\n  name: x\n",
    "spec:\n",
    "status:\n",
    "x-kubernetes-validations:\n- rule: ",
    "type: object\n",
    "properties:\n",
    "items:\n",
    "additionalProperties: ",
    "x-kubernetes-preserve-unknown-fields: true\n",
    "x-kubernetes-int-or-string: true\n",
    "x-kubernetes-list-type: map\n",
    "x-kubernetes-list-map-keys: [name]\n",
    "maxLength: ",
    "pattern: ",
    "format: ",
    "enum: [",
    "default: ",
    "required: [",
    "minimum: ",
    "multipleOf: 0.1",
    "\u{feff}",
    "\u{2028}",
    "\u{85}",
    "\u{0}",
    "\u{200b}",
    "e\u{301}",
    "日本",
    "🎉",
    "\u{fffd}",
    "\u{10ffff}",
];

/// Tokens with a meaning in CEL: operators, macros, variables, literals of every kind, the
/// Kubernetes libraries' functions and the lists and strings extensions.
const CEL_TOKENS: &[&str] = &[
    " || ",
    " && ",
    "!",
    "-",
    " ? ",
    " : ",
    " == ",
    " != ",
    " < ",
    " <= ",
    " >= ",
    " + ",
    " * ",
    " / ",
    " % ",
    " in ",
    ".all(x, ",
    ".exists(x, ",
    ".exists_one(x, ",
    ".map(x, ",
    ".filter(x, ",
    ".all(k, v, ",
    ".transformMap(k, v, ",
    "has(",
    "self.",
    "self",
    "oldSelf",
    "oldSelf.",
    "self.spec",
    "self.spec.replicas",
    "self.spec.items",
    "self.spec.labels",
    "self.spec.name",
    "self.metadata.name",
    "self.spec.quantity",
    "self.spec.tags",
    "self.spec.ports",
    "self.?spec",
    "self.spec.?name",
    ".orValue(",
    ".hasValue()",
    "optional.of(",
    "optional.none()",
    "quantity(\"",
    "quantity(\"1Gi\")",
    "quantity(\"100m\")",
    "isQuantity(",
    ".compareTo(",
    ".add(",
    ".sub(",
    ".asInteger()",
    ".asApproximateFloat()",
    ".isGreaterThan(",
    "9223372036854775807",
    "-9223372036854775808",
    "18446744073709551615u",
    "1e308",
    "-0.0",
    "0x7fffffffffffffff",
    "1u",
    "\"\\u00e9\"",
    "\"\\U0001F600\"",
    "\"\\xff\"",
    "b\"\\xff\"",
    "r\"\\d+\"",
    "'''",
    "\"\"\"",
    "'\\''",
    "\"\\ud800\"",
    "size(",
    ".size()",
    "int(",
    "uint(",
    "double(",
    "string(",
    "bytes(",
    "bool(",
    "dyn(",
    "type(",
    "duration(\"1h\")",
    "timestamp(\"2024-01-01T00:00:00Z\")",
    ".matches(\"",
    ".startsWith(\"",
    ".endsWith(\"",
    ".contains(\"",
    ".split(\",\")",
    ".join(\",\")",
    ".replace(\"a\", \"b\")",
    ".lowerAscii()",
    ".upperAscii()",
    ".substring(",
    ".charAt(",
    ".indexOf(",
    ".format([",
    "\"%s %d %x %e %f\"",
    "url(\"",
    "ip(\"",
    "cidr(\"",
    "isURL(",
    "isIP(",
    "isCIDR(",
    "semver(\"1.2.3\")",
    "format.dns1123Label()",
    ".validate(",
    "lists.range(",
    ".sortBy(x, ",
    ".distinct()",
    ".flatten()",
    ".slice(",
    ".reverse()",
    ".sum()",
    ".min()",
    ".max()",
    ".indexOf(",
    ".isSorted()",
    "[1, 2, 3]",
    "{\"a\": 1}",
    "[]",
    "{}",
    "[[[",
    "]]]",
    "(",
    ")",
    "`a.b`",
    "self.`x-y`",
    "__namespace__",
    "x",
    "y",
    "null",
    "true",
    "false",
];

/// Nested comprehensions and other shapes that multiply cost, for CEL.
const CEL_HEAVY: &[&str] = &[
    "self.spec.items.all(a, self.spec.items.all(b, self.spec.items.all(c, a + b + c != \"\")))",
    "lists.range(1000).map(i, lists.range(1000).map(j, i * j)).size() > 0",
    "self.spec.items.map(x, x + x + x + x).map(x, x + x + x + x).join(\"\").size() > 0",
    "self.spec.labels.all(k, v, self.spec.labels.exists(k2, v2, k == k2 && v.matches(v2)))",
    "[1,2,3].all(x, [1,2,3].all(y, [1,2,3].all(z, [1,2,3].all(w, x + y + z + w > 0))))",
    "\"ab\".repeat(1000)",
];

/// One random mutation of `input`, drawing material from `other` (another input) for splices.
/// The result is kept under `max_len` bytes.
pub fn mutate(rng: &mut Rng, input: &str, other: &str, dialect: Dialect, max_len: usize) -> String {
    let rounds = 1 + rng.small_len(6);
    let mut text = input.to_string();
    for _ in 0..rounds {
        text = mutate_once(rng, &text, other, dialect);
        if text.len() > max_len {
            let mut cut = max_len;
            while !text.is_char_boundary(cut) {
                cut -= 1;
            }
            text.truncate(cut);
        }
    }
    text
}

fn mutate_once(rng: &mut Rng, text: &str, other: &str, dialect: Dialect) -> String {
    let tokens = match dialect {
        Dialect::Yaml => YAML_TOKENS,
        Dialect::Cel => CEL_TOKENS,
    };
    match rng.below(20) {
        0 => flip_byte(rng, text),
        1 | 2 => {
            let piece = random_chars(rng);
            insert_at(rng, text, &piece)
        }
        3 | 4 => delete_range(rng, text),
        5..=7 => {
            let token = (*rng.pick(tokens)).to_string();
            insert_at(rng, text, &token)
        }
        8 => {
            let token = (*rng.pick(tokens)).to_string();
            replace_range(rng, text, &token)
        }
        9 | 10 => splice(rng, text, other),
        11 => duplicate_range(rng, text),
        12 | 13 => line_edit(rng, text),
        14 => match dialect {
            Dialect::Yaml => {
                let piece = deep_yaml(rng);
                insert_at(rng, text, &piece)
            }
            Dialect::Cel => {
                let piece = deep_cel(rng);
                insert_at(rng, text, &piece)
            }
        },
        15 => {
            let piece = long_run(rng, if dialect == Dialect::Cel { 2_000 } else { 20_000 });
            insert_at(rng, text, &piece)
        }
        16 => match dialect {
            Dialect::Yaml => indent_edit(rng, text),
            Dialect::Cel => (*rng.pick(CEL_HEAVY)).to_string(),
        },
        17 => change_number(rng, text),
        18 => match dialect {
            Dialect::Yaml => swap_scalar(rng, text),
            Dialect::Cel => wrap_cel(rng, text),
        },
        _ => {
            let token = (*rng.pick(tokens)).to_string();
            let at = line_start_boundary(rng, text);
            let mut out = text.to_string();
            out.insert_str(at, &token);
            out
        }
    }
}

/// A random char boundary of `text` (its end included).
pub fn boundary(rng: &mut Rng, text: &str) -> usize {
    let mut at = rng.below(text.len() + 1);
    while !text.is_char_boundary(at) {
        at -= 1;
    }
    at
}

fn range(rng: &mut Rng, text: &str) -> (usize, usize) {
    let start = boundary(rng, text);
    let mut end = (start + rng.small_len(text.len().saturating_sub(start))).min(text.len());
    while !text.is_char_boundary(end) {
        end += 1;
    }
    (start, end)
}

fn line_start_boundary(rng: &mut Rng, text: &str) -> usize {
    let starts: Vec<usize> = std::iter::once(0).chain(text.match_indices('\n').map(|(i, _)| i + 1)).collect();
    *rng.pick(&starts)
}

fn flip_byte(rng: &mut Rng, text: &str) -> String {
    if text.is_empty() {
        return text.to_string();
    }
    let mut bytes = text.as_bytes().to_vec();
    let i = rng.below(bytes.len());
    bytes[i] ^= 1 << rng.below(8);
    String::from_utf8_lossy(&bytes).into_owned()
}

fn random_chars(rng: &mut Rng) -> String {
    let n = 1 + rng.small_len(16);
    (0..n)
        .map(|_| match rng.below(8) {
            0..=4 => char::from(b' ' + rng.below(95) as u8),
            5 => *rng.pick(&['\n', '\t', '\r', ' ', ':', '-', '"', '\'', '\\']),
            6 => char::from_u32(0x80 + rng.below(0x800) as u32).unwrap_or('é'),
            _ => char::from_u32(0x1_0000 + rng.below(0x1_0000) as u32).unwrap_or('🎉'),
        })
        .collect()
}

fn insert_at(rng: &mut Rng, text: &str, piece: &str) -> String {
    let at = boundary(rng, text);
    let mut out = String::with_capacity(text.len() + piece.len());
    out.push_str(&text[..at]);
    out.push_str(piece);
    out.push_str(&text[at..]);
    out
}

fn delete_range(rng: &mut Rng, text: &str) -> String {
    let (start, end) = range(rng, text);
    format!("{}{}", &text[..start], &text[end..])
}

fn replace_range(rng: &mut Rng, text: &str, piece: &str) -> String {
    let (start, end) = range(rng, text);
    format!("{}{piece}{}", &text[..start], &text[end..])
}

fn duplicate_range(rng: &mut Rng, text: &str) -> String {
    let (start, end) = range(rng, text);
    format!("{}{}", &text[..end], &text[start..])
}

/// Pieces of two inputs joined: a prefix of one and a suffix of the other, or a chunk of the other inserted.
fn splice(rng: &mut Rng, text: &str, other: &str) -> String {
    if rng.one_in(2) {
        let a = boundary(rng, text);
        let b = boundary(rng, other);
        format!("{}{}", &text[..a], &other[b..])
    } else {
        let (start, end) = range(rng, other);
        insert_at(rng, text, &other[start..end])
    }
}

fn line_edit(rng: &mut Rng, text: &str) -> String {
    let mut lines: Vec<&str> = text.split_inclusive('\n').collect();
    if lines.is_empty() {
        return text.to_string();
    }
    let i = rng.below(lines.len());
    match rng.below(4) {
        0 => {
            lines.remove(i);
        }
        1 => lines.insert(i, lines[i]),
        2 => {
            let j = rng.below(lines.len());
            lines.swap(i, j);
        }
        _ => {
            let line = lines.remove(i);
            let j = rng.below(lines.len() + 1);
            lines.insert(j, line);
        }
    }
    lines.concat()
}

fn indent_edit(rng: &mut Rng, text: &str) -> String {
    let mut lines: Vec<String> = text.split_inclusive('\n').map(str::to_string).collect();
    if lines.is_empty() {
        return text.to_string();
    }
    let i = rng.below(lines.len());
    let n = 1 + rng.below(lines.len() - i).min(8);
    let add = rng.one_in(2);
    for line in &mut lines[i..i + n] {
        if add {
            line.insert_str(0, if rng.one_in(8) { "\t" } else { "  " });
        } else if line.starts_with(' ') {
            line.remove(0);
        }
    }
    lines.concat()
}

fn deep_yaml(rng: &mut Rng) -> String {
    let depth = 1 + rng.below(300);
    match rng.below(4) {
        0 => "[".repeat(depth),
        1 => "{a: ".repeat(depth),
        2 => (0..depth.min(120)).map(|d| format!("{}k{d}:\n", " ".repeat(d * 2))).collect(),
        _ => (0..depth.min(120)).map(|d| format!("{}- \n", "  ".repeat(d))).collect(),
    }
}

fn deep_cel(rng: &mut Rng) -> String {
    let depth = 1 + rng.below(300);
    match rng.below(5) {
        0 => "(".repeat(depth),
        1 => "[".repeat(depth),
        2 => "!".repeat(depth),
        3 => "-".repeat(depth),
        _ => {
            let n = 1 + depth % 6;
            let mut e = String::from("x > 0");
            for k in 0..n {
                e = format!("self.spec.items.exists(x{k}, {e})");
            }
            e
        }
    }
}

fn long_run(rng: &mut Rng, max: usize) -> String {
    let n = 100 + rng.below(max);
    let c = *rng.pick(&["x", " ", "é", "🎉", "a: b\n", "- ", "\\", "'"]);
    c.repeat(n / c.len())
}

fn change_number(rng: &mut Rng, text: &str) -> String {
    let digits: Vec<usize> = text.char_indices().filter(|(_, c)| c.is_ascii_digit()).map(|(i, _)| i).collect();
    if digits.is_empty() {
        return text.to_string();
    }
    let at = *rng.pick(&digits);
    let replacement = *rng.pick(&["0", "-1", "9999999999999999999999", "1.5", "1e400", "2147483648", "0x", "-0", ".5", "100Gi"]);
    format!("{}{replacement}{}", &text[..at], &text[at + 1..])
}

/// A scalar after `: ` replaced by a value of another type.
fn swap_scalar(rng: &mut Rng, text: &str) -> String {
    let colons: Vec<usize> = text.match_indices(": ").map(|(i, _)| i + 2).collect();
    if colons.is_empty() {
        return text.to_string();
    }
    let at = *rng.pick(&colons);
    let end = text[at..].find('\n').map_or(text.len(), |i| at + i);
    let value = *rng.pick(&["", "null", "[]", "{}", "1", "-1", "\"\"", "true", "[a, b]", "{a: 1}", "1.5", "'x'", "*a", "&a 1", "|\n  x"]);
    format!("{}{value}{}", &text[..at], &text[end..])
}

/// An expression wrapped in a larger one.
fn wrap_cel(rng: &mut Rng, text: &str) -> String {
    match rng.below(6) {
        0 => format!("!({text})"),
        1 => format!("({text}) || ({text})"),
        2 => format!("({text}) ? 1 : 2"),
        3 => format!("self.spec.items.all(x, {text})"),
        4 => format!("[{text}, {text}]"),
        _ => format!("has(self.spec) && {text}"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn mutants_are_deterministic_and_bounded() {
        let seed = "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: é🎉\n";
        let run = |seed_value| {
            let mut rng = Rng::new(seed_value);
            (0..500).map(|_| mutate(&mut rng, seed, "a: [1, 2]\n", Dialect::Yaml, 4096)).collect::<Vec<_>>()
        };
        let first = run(3);
        assert_eq!(first, run(3));
        assert!(first.iter().all(|m| m.len() <= 4096));
        assert!(first.iter().any(|m| m != seed));
    }
}
