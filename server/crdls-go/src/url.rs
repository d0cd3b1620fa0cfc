//! Go's `net/url.ParseRequestURI`, as the `uri` format check and CEL's `url()` and `isURL()` use it.

/// A URL as `url.ParseRequestURI` splits it (the parts CEL's URL library reads).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Url {
    /// The text it was parsed from.
    pub raw: String,
    /// The scheme as written, empty for an absolute path or `*`.
    pub scheme: String,
    /// `host[:port]`, empty when there is no authority.
    pub host: String,
    /// The path as written (escaped); empty for an opaque URL (`mailto:x`).
    pub path: String,
    /// The query, without `?`.
    pub query: String,
}

/// `uri`: Go's `url.ParseRequestURI` succeeds. That is `*`, an absolute path (`/x`), or a scheme
/// followed by anything not starting with '/' (opaque, like `mailto:a@b`) or by a path that may
/// start with `//authority`. Only these are checked: no control characters, percent escapes are
/// well formed, the port is numeric, the host has no forbidden characters, a bracketed host is an
/// IPv6 address (Go 1.24.8/1.25.2 and later), and userinfo uses allowed characters. Fragments are
/// not split off, so `http://host#x` fails on the host while `http://host/#x` passes.
pub fn is_request_uri(raw: &str) -> bool {
    parse_request_uri(raw).is_ok()
}

/// Go's `url.ParseRequestURI`: the URL's parts, or Go's error detail (`empty url`, `invalid URI for
/// request`, `invalid port ":x" after host`, ...), which Go prints after `parse "<raw>": `.
pub fn parse_request_uri(raw: &str) -> Result<Url, String> {
    if raw.bytes().any(|b| b < 0x20 || b == 0x7f) {
        return Err("net/url: invalid control character in URL".into());
    }
    if raw.is_empty() {
        return Err("empty url".into());
    }
    let url = |scheme: &str, host: &str, path: &str, query: &str| Url {
        raw: raw.to_string(),
        scheme: scheme.to_string(),
        host: host.to_string(),
        path: path.to_string(),
        query: query.to_string(),
    };
    if raw == "*" {
        return Ok(url("", "", "*", ""));
    }
    let Some((scheme, rest)) = split_scheme(raw) else {
        return Err("missing protocol scheme".into());
    };
    let (rest, query) = if rest.ends_with('?') && rest.matches('?').count() == 1 {
        (&rest[..rest.len() - 1], "")
    } else {
        rest.split_once('?').unwrap_or((rest, ""))
    };
    if !rest.starts_with('/') {
        // Opaque when there is a scheme; a relative reference is not allowed in a request.
        return if scheme.is_empty() { Err("invalid URI for request".into()) } else { Ok(url(scheme, "", "", query)) };
    }
    let (mut host, mut path) = ("", rest);
    if !scheme.is_empty() && rest.starts_with("//") {
        let after = &rest[2..];
        let (authority, tail) = after.find('/').map_or((after, ""), |i| after.split_at(i));
        authority_error(authority)?;
        host = authority.rfind('@').map_or(authority, |i| &authority[i + 1..]);
        path = tail;
    }
    if !unescape_ok(path, Mode::Path) {
        return Err(format!("invalid URL escape {}", crate::print::quote(first_bad_escape(path))));
    }
    Ok(url(scheme, host, path, query))
}

impl Url {
    /// `Hostname()`: the host without its port and brackets.
    pub fn hostname(&self) -> String {
        let (host, _) = split_host_port(&self.host);
        host.trim_start_matches('[').trim_end_matches(']').to_string()
    }

    /// `Port()`: the port, or empty.
    pub fn port(&self) -> String {
        split_host_port(&self.host).1.to_string()
    }

    /// `Query()`: the query as keys with their values, in order of first appearance; pairs with a
    /// `;` or a bad escape are dropped, as Go drops them.
    pub fn query_map(&self) -> Vec<(String, Vec<String>)> {
        let mut out: Vec<(String, Vec<String>)> = Vec::new();
        for pair in self.query.split('&').filter(|p| !p.is_empty()) {
            if pair.contains(';') {
                continue;
            }
            let (k, v) = pair.split_once('=').unwrap_or((pair, ""));
            let (Some(k), Some(v)) = (query_unescape(k), query_unescape(v)) else { continue };
            match out.iter_mut().find(|(key, _)| *key == k) {
                Some((_, values)) => values.push(v),
                None => out.push((k, vec![v])),
            }
        }
        out
    }
}

/// Splits `host[:port]` at the port's colon, after any bracketed IPv6 address.
fn split_host_port(host: &str) -> (&str, &str) {
    let after_bracket = host.rfind(']').map_or(0, |i| i + 1);
    match host[after_bracket..].rfind(':') {
        Some(i) => (&host[..after_bracket + i], &host[after_bracket + i + 1..]),
        None => (host, ""),
    }
}

/// `QueryUnescape`: `+` is a space and `%XX` a byte; `None` on a bad escape or bytes that are not UTF-8.
fn query_unescape(text: &str) -> Option<String> {
    let bytes = text.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        match bytes[i] {
            b'%' => {
                let hex = text.get(i + 1..i + 3)?;
                out.push(u8::from_str_radix(hex, 16).ok()?);
                i += 3;
            }
            b'+' => {
                out.push(b' ');
                i += 1;
            }
            b => {
                out.push(b);
                i += 1;
            }
        }
    }
    String::from_utf8(out).ok()
}

/// Why an authority fails, in Go's words, or nothing when it is fine.
fn authority_error(authority: &str) -> Result<(), String> {
    if authority_ok(authority) {
        return Ok(());
    }
    let host = authority.rfind('@').map_or(authority, |i| &authority[i + 1..]);
    if host.starts_with('[') && !host.contains(']') {
        return Err("missing ']' in host".into());
    }
    let after_bracket = host.rfind(']').map_or(0, |i| i + 1);
    if let Some(i) = host[after_bracket..].rfind(':') {
        let colon_port = &host[after_bracket + i..];
        if !port_ok(colon_port) {
            return Err(format!("invalid port {} after host", crate::print::quote(colon_port)));
        }
    }
    if authority.len() != host.len() {
        return Err("net/url: invalid userinfo".into());
    }
    Err(format!("invalid host {}", crate::print::quote(host)))
}

/// The first `%` escape of `s` that is not two hex digits, as Go quotes it.
fn first_bad_escape(s: &str) -> &str {
    let b = s.as_bytes();
    match (0..b.len())
        .find(|&i| b[i] == b'%' && !(b.get(i + 1).is_some_and(u8::is_ascii_hexdigit) && b.get(i + 2).is_some_and(u8::is_ascii_hexdigit)))
    {
        Some(i) => &s[i..(i + 3).min(s.len())],
        None => s,
    }
}

/// `getScheme`: the scheme and the rest, an empty scheme when there is none, or `None` when the
/// string starts with ':'.
fn split_scheme(raw: &str) -> Option<(&str, &str)> {
    for (i, c) in raw.bytes().enumerate() {
        match c {
            b'a'..=b'z' | b'A'..=b'Z' => {}
            b'0'..=b'9' | b'+' | b'-' | b'.' if i > 0 => {}
            b':' if i == 0 => return None,
            b':' => return Some((&raw[..i], &raw[i + 1..])),
            _ => return Some(("", raw)),
        }
    }
    Some(("", raw))
}

#[derive(Clone, Copy, PartialEq, Eq)]
enum Mode {
    Path,
    UserPassword,
    Host,
    Zone,
}

/// `shouldEscape(c, encodeHost)`: ASCII bytes a host may not contain literally.
fn host_must_escape(c: u8) -> bool {
    !(c.is_ascii_alphanumeric() || b"!$&'()*+,;=:[]<>\"-_.~".contains(&c))
}

/// `unescape` succeeds: every '%' starts a two-hex-digit escape, and in hosts neither the
/// escapes nor the literal characters stand for forbidden ASCII.
fn unescape_ok(s: &str, mode: Mode) -> bool {
    let b = s.as_bytes();
    let mut i = 0;
    while i < b.len() {
        if b[i] == b'%' {
            if i + 2 >= b.len() || !b[i + 1].is_ascii_hexdigit() || !b[i + 2].is_ascii_hexdigit() {
                return false;
            }
            let hi = char::from(b[i + 1]).to_digit(16).unwrap_or(0) as u8;
            let lo = char::from(b[i + 2]).to_digit(16).unwrap_or(0) as u8;
            let is_percent = &b[i..i + 3] == b"%25";
            if mode == Mode::Host && hi < 8 && !is_percent {
                return false;
            }
            let v = hi << 4 | lo;
            if mode == Mode::Zone && !is_percent && v != b' ' && host_must_escape(v) {
                return false;
            }
            i += 3;
        } else {
            if matches!(mode, Mode::Host | Mode::Zone) && b[i] < 0x80 && host_must_escape(b[i]) {
                return false;
            }
            i += 1;
        }
    }
    true
}

/// `[userinfo@]host[:port]`, split at the last '@'.
fn authority_ok(authority: &str) -> bool {
    let (userinfo, host) = match authority.rfind('@') {
        Some(i) => (Some(&authority[..i]), &authority[i + 1..]),
        None => (None, authority),
    };
    if !host_ok(host) {
        return false;
    }
    userinfo.is_none_or(|u| {
        u.chars().all(|c| c.is_ascii_alphanumeric() || "-._:~!$&'()*+,;=%@".contains(c)) && unescape_ok(u, Mode::UserPassword)
    })
}

fn port_ok(colon_port: &str) -> bool {
    colon_port.is_empty() || colon_port.strip_prefix(':').is_some_and(|p| p.bytes().all(|b| b.is_ascii_digit()))
}

fn host_ok(host: &str) -> bool {
    match host.rfind('[') {
        Some(0) => {
            let Some(close) = host.rfind(']') else {
                return false;
            };
            if !port_ok(&host[close + 1..]) {
                return false;
            }
            let inner = &host[1..close];
            let unescaped = match inner.find("%25") {
                Some(z) => {
                    if !unescape_ok(&inner[..z], Mode::Host) || !unescape_ok(&inner[z..], Mode::Zone) {
                        return false;
                    }
                    percent_decode(inner)
                }
                None => {
                    if !unescape_ok(inner, Mode::Host) {
                        return false;
                    }
                    percent_decode(inner)
                }
            };
            matches!(crate::ip::strict::parse_addr(&unescaped), Some(crate::ip::strict::Addr::V6 | crate::ip::strict::Addr::V6WithZone))
        }
        Some(_) => false,
        None => {
            if let Some(i) = host.rfind(':') {
                if !port_ok(&host[i..]) {
                    return false;
                }
            }
            unescape_ok(host, Mode::Host)
        }
    }
}

/// Decodes percent escapes already known to be well formed.
fn percent_decode(s: &str) -> Vec<u8> {
    let b = s.as_bytes();
    let mut out = Vec::with_capacity(b.len());
    let mut i = 0;
    while i < b.len() {
        if b[i] == b'%' && i + 2 < b.len() {
            let hex = |c: u8| char::from(c).to_digit(16).unwrap_or(0) as u8;
            out.push(hex(b[i + 1]) << 4 | hex(b[i + 2]));
            i += 3;
        } else {
            out.push(b[i]);
            i += 1;
        }
    }
    out
}
#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn request_uris_split_as_go_splits_them() {
        let u = parse_request_uri("https://user@example.com:8443/a%20b?x=1&y=2&x=3").unwrap();
        assert_eq!(
            (u.scheme.as_str(), u.host.as_str(), u.path.as_str(), u.query.as_str()),
            ("https", "example.com:8443", "/a%20b", "x=1&y=2&x=3")
        );
        assert_eq!((u.hostname(), u.port()), ("example.com".to_string(), "8443".to_string()));
        assert_eq!(u.query_map(), [("x".to_string(), vec!["1".to_string(), "3".to_string()]), ("y".to_string(), vec!["2".to_string()])]);
        let v6 = parse_request_uri("http://[::1]:80/").unwrap();
        assert_eq!((v6.hostname(), v6.port()), ("::1".to_string(), "80".to_string()));
        assert_eq!(parse_request_uri("mailto:a@b").unwrap().path, "");
        assert_eq!(parse_request_uri("/just/a/path").unwrap().scheme, "");
        assert_eq!(parse_request_uri(""), Err("empty url".to_string()));
        assert_eq!(parse_request_uri("relative/path"), Err("invalid URI for request".to_string()));
        assert_eq!(parse_request_uri("http://h:x/"), Err("invalid port \":x\" after host".to_string()));
        assert_eq!(parse_request_uri("http://[::1/"), Err("missing ']' in host".to_string()));
        assert_eq!(parse_request_uri("/a%zz"), Err("invalid URL escape \"%zz\"".to_string()));
        assert_eq!(parse_request_uri("a\u{7f}"), Err("net/url: invalid control character in URL".to_string()));
    }
}
