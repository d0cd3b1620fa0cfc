//! Go's `net/mail.ParseAddress`, as the `email` format check uses it.

/// A port of the parts of Go's `net/mail` address parser that decide success.
use std::sync::LazyLock;

use regex::Regex;

pub(super) fn parse_single_address(s: &str) -> bool {
    let mut p = Parser { s };
    let Some(count) = p.parse_address(true) else {
        return false;
    };
    p.skip_cfws() && p.s.is_empty() && count == 1
}

struct Parser<'a> {
    s: &'a str,
}

fn is_vchar(c: char) -> bool {
    ('!'..='~').contains(&c) || !c.is_ascii()
}

fn is_wsp(c: char) -> bool {
    c == ' ' || c == '\t'
}

fn is_atext(c: char, dot: bool) -> bool {
    match c {
        '.' => dot,
        '(' | ')' | '<' | '>' | '[' | ']' | ':' | ';' | '@' | '\\' | ',' | '"' => false,
        _ => is_vchar(c),
    }
}

fn is_qtext(c: char) -> bool {
    c != '\\' && c != '"' && is_vchar(c)
}

fn is_dtext(c: char) -> bool {
    c != '[' && c != ']' && c != '\\' && is_vchar(c)
}

impl Parser<'_> {
    fn peek(&self) -> Option<u8> {
        self.s.as_bytes().first().copied()
    }

    fn consume(&mut self, c: u8) -> bool {
        if self.peek() == Some(c) {
            self.s = &self.s[1..];
            true
        } else {
            false
        }
    }

    fn skip_space(&mut self) {
        self.s = self.s.trim_start_matches([' ', '\t']);
    }

    /// Skips spaces and parenthesised comments; false on an unclosed comment.
    fn skip_cfws(&mut self) -> bool {
        self.skip_space();
        while self.consume(b'(') {
            if self.consume_comment().is_none() {
                return false;
            }
            self.skip_space();
        }
        true
    }

    /// The text of a comment whose '(' is consumed, with nesting and backslash escapes.
    fn consume_comment(&mut self) -> Option<String> {
        let b = self.s.as_bytes();
        let mut depth = 1;
        let mut comment = Vec::new();
        let mut i = 0;
        while i < b.len() && depth > 0 {
            if b[i] == b'\\' && b.len() - i > 1 {
                i += 1;
            } else if b[i] == b'(' {
                depth += 1;
            } else if b[i] == b')' {
                depth -= 1;
            }
            if depth > 0 {
                comment.push(b[i]);
            }
            i += 1;
        }
        // The loop stops at the end or just after an ASCII ')', both character boundaries.
        self.s = &self.s[i..];
        (depth == 0).then(|| String::from_utf8_lossy(&comment).into_owned())
    }

    /// `mailbox / group`: the number of addresses found, or `None` on a syntax error.
    fn parse_address(&mut self, handle_group: bool) -> Option<usize> {
        self.skip_space();
        if self.s.is_empty() {
            return None;
        }
        // A bare addr-spec first, then the name-addr form.
        if self.consume_addr_spec() {
            self.skip_space();
            if self.peek() == Some(b'(') && !self.consume_display_name_comment() {
                return None;
            }
            return Some(1);
        }
        if self.peek() != Some(b'<') && !self.consume_phrase() {
            return None;
        }
        self.skip_space();
        if handle_group && self.consume(b':') {
            return self.consume_group_list();
        }
        if !self.consume(b'<') || !self.consume_addr_spec() || !self.consume(b'>') {
            return None;
        }
        Some(1)
    }

    fn consume_group_list(&mut self) -> Option<usize> {
        self.skip_space();
        if self.consume(b';') {
            return self.skip_cfws().then_some(0);
        }
        let mut count = 0;
        loop {
            self.skip_space();
            count += self.parse_address(false)?;
            if !self.skip_cfws() {
                return None;
            }
            if self.consume(b';') {
                return self.skip_cfws().then_some(count);
            }
            if !self.consume(b',') {
                return None;
            }
        }
    }

    /// `local-part "@" domain`; leaves the input untouched when it fails.
    fn consume_addr_spec(&mut self) -> bool {
        let orig = self.s;
        let ok = self.addr_spec();
        if !ok {
            self.s = orig;
        }
        ok
    }

    fn addr_spec(&mut self) -> bool {
        self.skip_space();
        if self.s.is_empty() {
            return false;
        }
        let local_ok = if self.peek() == Some(b'"') {
            self.consume_quoted_string().is_some_and(|q| !q.is_empty())
        } else {
            self.consume_atom(true, false)
        };
        if !local_ok || !self.consume(b'@') {
            return false;
        }
        self.skip_space();
        if self.s.is_empty() {
            return false;
        }
        if self.peek() == Some(b'[') {
            self.consume_domain_literal()
        } else {
            self.consume_atom(true, false)
        }
    }

    /// A quoted string whose opening '"' is next; its unquoted text.
    fn consume_quoted_string(&mut self) -> Option<String> {
        let mut text = String::new();
        let mut escaped = false;
        for (i, c) in self.s.char_indices().skip(1) {
            if escaped {
                if !is_vchar(c) && !is_wsp(c) {
                    return None;
                }
                text.push(c);
                escaped = false;
            } else if is_qtext(c) || is_wsp(c) {
                text.push(c);
            } else if c == '"' {
                self.s = &self.s[i + 1..];
                return Some(text);
            } else if c == '\\' {
                escaped = true;
            } else {
                return None;
            }
        }
        None
    }

    /// An atom (a dot-atom when `dot`); unless `permissive`, dots may not lead, trail or double.
    fn consume_atom(&mut self, dot: bool, permissive: bool) -> bool {
        let len = self.s.char_indices().find(|&(_, c)| !is_atext(c, dot)).map_or(self.s.len(), |(i, _)| i);
        if len == 0 {
            return false;
        }
        let atom = &self.s[..len];
        self.s = &self.s[len..];
        permissive || !(atom.starts_with('.') || atom.ends_with('.') || atom.contains(".."))
    }

    /// `[dtext]`, which must hold an IP address. Go 1.26 wants IPv6 written as `IPv6:…` and
    /// plain text to be IPv4; earlier releases take any IP. Both are accepted here.
    fn consume_domain_literal(&mut self) -> bool {
        if !self.consume(b'[') {
            return false;
        }
        let Some(end) = self.s.find(|c: char| !is_dtext(c)) else {
            return false;
        };
        if self.s.as_bytes()[end] != b']' {
            return false;
        }
        let dtext = &self.s[..end];
        self.s = &self.s[end + 1..];
        let is_ip = |t: &str| {
            matches!(crate::ip::strict::parse_addr(t.as_bytes()), Some(crate::ip::strict::Addr::V4 | crate::ip::strict::Addr::V6))
        };
        is_ip(dtext) || dtext.strip_prefix("IPv6:").is_some_and(is_ip)
    }

    /// A display name: words (atoms or quoted strings) with comments between them.
    fn consume_phrase(&mut self) -> bool {
        let mut words = 0;
        loop {
            if words > 0 && !self.skip_cfws() {
                return false;
            }
            self.skip_space();
            if self.s.is_empty() {
                break;
            }
            let ok = if self.peek() == Some(b'"') {
                self.consume_quoted_string().is_some()
            } else {
                let before = self.s;
                self.consume_atom(true, true) && {
                    let word = &before[..before.len() - self.s.len()];
                    !encoded_word_has_unknown_charset(word)
                }
            };
            if !ok {
                break;
            }
            words += 1;
        }
        words > 0
    }

    /// The `(comment)` after a bare address, whose words may be RFC 2047 encoded.
    fn consume_display_name_comment(&mut self) -> bool {
        if !self.consume(b'(') {
            return false;
        }
        let Some(comment) = self.consume_comment() else {
            return false;
        };
        comment.split([' ', '\t']).filter(|w| !w.is_empty()).all(|w| !encoded_word_has_unknown_charset(w))
    }
}

static BASE64_OR_EMPTY: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new("^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=|[A-Za-z0-9+/]{4})?$").expect("valid pattern")
});

/// Whether `word` is an RFC 2047 encoded word (`=?charset?b|q?text?=`) whose text decodes
/// but whose charset Go cannot convert (only UTF-8, US-ASCII and ISO-8859-1 are built in).
/// Go's parser fails on such a word; malformed encoded words are taken as plain text.
fn encoded_word_has_unknown_charset(word: &str) -> bool {
    if word.len() < 8 || !word.starts_with("=?") || !word.ends_with("?=") || word.matches('?').count() != 4 {
        return false;
    }
    let inner = &word[2..word.len() - 2];
    let Some((charset, rest)) = inner.split_once('?') else {
        return false;
    };
    let Some((encoding, text)) = rest.split_once('?') else {
        return false;
    };
    if charset.is_empty() || encoding.len() != 1 {
        return false;
    }
    let decodes = match encoding {
        "B" | "b" => BASE64_OR_EMPTY.is_match(text),
        "Q" | "q" => q_decodes(text),
        _ => false,
    };
    decodes && !["utf-8", "us-ascii", "iso-8859-1"].iter().any(|known| known.eq_ignore_ascii_case(charset))
}

/// RFC 2047 "Q" encoding: printable ASCII, tabs and line breaks, and `=XX` hex escapes.
fn q_decodes(text: &str) -> bool {
    let b = text.as_bytes();
    let mut i = 0;
    while i < b.len() {
        match b[i] {
            b'=' => {
                if i + 2 >= b.len() || !b[i + 1].is_ascii_hexdigit() || !b[i + 2].is_ascii_hexdigit() {
                    return false;
                }
                i += 3;
            }
            b' '..=b'~' | b'\n' | b'\r' | b'\t' => i += 1,
            _ => return false,
        }
    }
    true
}
