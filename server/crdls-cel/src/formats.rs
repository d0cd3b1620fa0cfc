//! String `format`s as the Kubernetes API server checks them in custom resources: the formats
//! apiextensions-apiserver keeps and kube-openapi's default `strfmt` registry validates.
//!
//! Which formats count. apiextensions-apiserver strips every format it does not support before
//! building its validator (`StripUnsupportedFormatsPostProcessorForVersion`), and kube-openapi
//! runs a format check only on string data whose format is in its registry. Format names are
//! compared after removing every '-' (so `date-time`, `datetime` and `date--time` are one
//! format) and are case-sensitive. The surviving string formats are `bsonobjectid`, `uri`,
//! `email`, `hostname`, `ipv4`, `ipv6`, `cidr`, `mac`, `uuid`, `uuid3`, `uuid4`, `uuid5`,
//! `isbn`, `isbn10`, `isbn13`, `creditcard`, `ssn`, `hexcolor`, `rgbcolor`, `byte`, `password`,
//! `date`, `duration`, `datetime`, and since Kubernetes 1.34 `k8s-short-name` and
//! `k8s-long-name`. They apply when the schema's type is `string` or absent. The numeric formats
//! `int32`, `int64`, `float` and `double` are kept on `integer` and `number` schemas but never
//! checked: kube-openapi only uses them to accept an int32 where an int64 is declared, so a value
//! over 2^31 in an `int32` field is accepted. Any other format is ignored.
//!
//! The error. A failed check is kube-openapi's `errors.InvalidType(path, "body", format, value)`
//! (code `InvalidTypeCode`), whose message is `<path> in body must be of type <format>: <value>`
//! with the format as written in the schema and the value quoted by Go's `%q`. apiextensions
//! turns it into `field.TypeInvalid(<path>, value, message)`, which prints as, for example,
//! `spec.x: Invalid value: "foo": spec.x in body must be of type date-time: "foo"`
//! (reason `FieldValueTypeInvalid`; the printed words are `Invalid value`, as for `Invalid`).
//!
//! Each check below reproduces the Go function upstream calls, byte for byte where it matters.
//! Go version differences (the API server's Go toolchain moves with each release) are noted
//! where they change the result; where they disagree we accept what any current release accepts.

use std::sync::LazyLock;

use regex::Regex;

/// Whether `format` is one the API server validates for strings.
///
/// `password` counts although every string passes it: it is a registered format, not an unknown
/// one. The numeric formats (`int32`, `int64`, `float`, `double`) do not count.
pub fn is_validated_format(format: &str) -> bool {
    checker(format).is_some()
}

/// Checks `value` against a string format; true when valid or when the format is not validated.
pub fn check_string_format(format: &str, value: &str) -> bool {
    checker(format).is_none_or(|check| check(value))
}

/// The check for a format name, after kube-openapi's normalisation (every '-' removed).
fn checker(format: &str) -> Option<fn(&str) -> bool> {
    let normalized: String = format.chars().filter(|&c| c != '-').collect();
    let check: fn(&str) -> bool = match normalized.as_str() {
        "bsonobjectid" => is_bson_object_id,
        "uri" => is_request_uri,
        "email" => is_email,
        "hostname" => is_hostname,
        "ipv4" => is_ipv4,
        "ipv6" => is_ipv6,
        "cidr" => is_cidr,
        "mac" => is_mac,
        "uuid" => |s| UUID.is_match(s),
        "uuid3" => |s| UUID3.is_match(s),
        "uuid4" => |s| UUID4.is_match(s),
        "uuid5" => |s| UUID5.is_match(s),
        "isbn" => |s| is_isbn10(s) || is_isbn13(s),
        "isbn10" => is_isbn10,
        "isbn13" => is_isbn13,
        "creditcard" => is_credit_card,
        "ssn" => |s| s.len() == 11 && SSN.is_match(s),
        "hexcolor" => |s| HEX_COLOR.is_match(s),
        "rgbcolor" => |s| RGB_COLOR.is_match(s),
        "byte" => |s| BASE64.is_match(s),
        "password" => |_| true,
        "date" => is_date,
        "duration" => is_duration,
        "datetime" => is_date_time,
        "k8sshortname" => |s| s.len() <= 63 && K8S_SHORT_NAME.is_match(s),
        "k8slongname" => |s| s.len() <= 253 && K8S_LONG_NAME.is_match(s),
        _ => return None,
    };
    Some(check)
}

fn re(pattern: &str) -> Regex {
    Regex::new(pattern).expect("the format patterns are valid")
}

// Go's `\d` and `\s` are ASCII-only (`\s` is `[\t\n\f\r ]`), so the patterns spell them out;
// the `regex` crate's versions would also match other Unicode digits and spaces.
static UUID: LazyLock<Regex> = LazyLock::new(|| re("(?i)^[0-9a-f]{8}-?[0-9a-f]{4}-?[0-9a-f]{4}-?[0-9a-f]{4}-?[0-9a-f]{12}$"));
static UUID3: LazyLock<Regex> = LazyLock::new(|| re("(?i)^[0-9a-f]{8}-?[0-9a-f]{4}-?3[0-9a-f]{3}-?[0-9a-f]{4}-?[0-9a-f]{12}$"));
static UUID4: LazyLock<Regex> = LazyLock::new(|| re("(?i)^[0-9a-f]{8}-?[0-9a-f]{4}-?4[0-9a-f]{3}-?[89ab][0-9a-f]{3}-?[0-9a-f]{12}$"));
static UUID5: LazyLock<Regex> = LazyLock::new(|| re("(?i)^[0-9a-f]{8}-?[0-9a-f]{4}-?5[0-9a-f]{3}-?[89ab][0-9a-f]{3}-?[0-9a-f]{12}$"));
static SSN: LazyLock<Regex> = LazyLock::new(|| re("^[0-9]{3}[- ]?[0-9]{2}[- ]?[0-9]{4}$"));
static HEX_COLOR: LazyLock<Regex> = LazyLock::new(|| re("^#?([0-9a-fA-F]{3}|[0-9a-fA-F]{6})$"));
static RGB_COLOR: LazyLock<Regex> = LazyLock::new(|| {
    let channel = "(0|[1-9][0-9]?|1[0-9][0-9]?|2[0-4][0-9]|25[0-5])";
    let space = r"[\t\n\f\r ]*";
    re(&format!(r"^rgb\({space}{channel}{space},{space}{channel}{space},{space}{channel}{space}\)$"))
});
// Standard base64 with padding, at least one group: the empty string is not valid `byte` data.
static BASE64: LazyLock<Regex> = LazyLock::new(|| re("^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=|[A-Za-z0-9+/]{4})$"));
static CREDIT_CARD: LazyLock<Regex> = LazyLock::new(|| {
    re("^(?:4[0-9]{12}(?:[0-9]{3})?|5[1-5][0-9]{14}|6(?:011|5[0-9][0-9])[0-9]{12}|3[47][0-9]{13}|3(?:0[0-5]|[68][0-9])[0-9]{11}|(?:2131|1800|35[0-9]{3})[0-9]{11})$")
});
static ISBN10: LazyLock<Regex> = LazyLock::new(|| re("^(?:[0-9]{9}X|[0-9]{10})$"));
static ISBN13: LazyLock<Regex> = LazyLock::new(|| re("^(?:[0-9]{13})$"));
static K8S_SHORT_NAME: LazyLock<Regex> = LazyLock::new(|| re("^[a-z0-9]([-a-z0-9]*[a-z0-9])?$"));
static K8S_LONG_NAME: LazyLock<Regex> = LazyLock::new(|| re(r"^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$"));
// The time part of a date-time after the first 't', lower-cased. The '.' before the fraction
// is unescaped upstream, so any one character may stand there.
static TIME_OF_DAY: LazyLock<Regex> = LazyLock::new(|| re("^([0-9]{2}):([0-9]{2}):([0-9]{2})(.[0-9]+)?(z|([+-][0-9]{2}:[0-9]{2}))$"));
// One "<number> <unit>" pair of kube-openapi's lenient duration syntax.
static DURATION_PAIR: LazyLock<Regex> = LazyLock::new(|| re(r"([0-9]+)[\t\n\f\r ]*([A-Za-zµ]+)"));
// A hostname is either a single label (one character, an optional '-', then at most 62 more
// characters, so a dash may only come second: `a-b` passes, `my-host` fails) or dot-terminated
// labels (dashes inside) followed by a top-level domain of 2 to 63 letters. Symbols (`\p{S}`,
// such as '+' or '~') count as label characters, as upstream's pattern says.
static HOSTNAME: LazyLock<Regex> = LazyLock::new(|| {
    re(
        r"^([a-zA-Z0-9\p{S}\p{L}]((-?[a-zA-Z0-9\p{S}\p{L}]{0,62})?)|([a-zA-Z0-9\p{S}\p{L}](([a-zA-Z0-9-\p{S}\p{L}]{0,61}[a-zA-Z0-9\p{S}\p{L}])?)(\.)){1,}([a-zA-Z\p{L}]){2,63})$",
    )
});

/// `bsonobjectid`: 24 hexadecimal digits (12 bytes), either case.
fn is_bson_object_id(s: &str) -> bool {
    s.len() == 24 && s.bytes().all(|b| b.is_ascii_hexdigit())
}

/// `hostname`: the pattern above, at most 255 bytes, and no dot-separated part over 63 bytes.
fn is_hostname(s: &str) -> bool {
    HOSTNAME.is_match(s) && s.len() <= 255 && s.split('.').all(|part| part.len() <= 63)
}

/// `isbn10`: after removing ASCII spaces and '-', nine digits and a check digit or 'X' with a
/// weighted sum divisible by 11.
fn is_isbn10(s: &str) -> bool {
    let digits = strip_isbn_separators(s);
    if !ISBN10.is_match(&digits) {
        return false;
    }
    let b = digits.as_bytes();
    let mut sum: u32 = (0..9).map(|i| (i as u32 + 1) * u32::from(b[i] - b'0')).sum();
    sum += 10 * if b[9] == b'X' { 10 } else { u32::from(b[9] - b'0') };
    sum.is_multiple_of(11)
}

/// `isbn13`: after removing ASCII spaces and '-', thirteen digits with an EAN-13 check digit.
fn is_isbn13(s: &str) -> bool {
    let digits = strip_isbn_separators(s);
    if !ISBN13.is_match(&digits) {
        return false;
    }
    let b = digits.as_bytes();
    let sum: u32 = (0..12).map(|i| (if i % 2 == 0 { 1 } else { 3 }) * u32::from(b[i] - b'0')).sum();
    u32::from(b[12] - b'0') == (10 - sum % 10) % 10
}

fn strip_isbn_separators(s: &str) -> String {
    s.chars().filter(|c| !matches!(c, '\t' | '\n' | '\x0c' | '\r' | ' ' | '-')).collect()
}

/// `creditcard`: the ASCII digits of the string (everything else is dropped) must look like a
/// card number of a known issuer and pass the Luhn check.
fn is_credit_card(s: &str) -> bool {
    let digits: String = s.chars().filter(char::is_ascii_digit).collect();
    if !CREDIT_CARD.is_match(&digits) {
        return false;
    }
    let mut sum = 0;
    for (i, b) in digits.bytes().rev().enumerate() {
        let d = u32::from(b - b'0');
        sum += if i % 2 == 1 {
            if d * 2 >= 10 {
                d * 2 - 9
            } else {
                d * 2
            }
        } else {
            d
        };
    }
    sum.is_multiple_of(10)
}

/// `date`: Go's `time.Parse("2006-01-02", s)`: exactly four-digit year, two-digit month and
/// two-digit day, with the day existing in that month (proleptic Gregorian leap years).
fn is_date(s: &str) -> bool {
    let b = s.as_bytes();
    if b.len() != 10 || b[4] != b'-' || b[7] != b'-' {
        return false;
    }
    let number = |range: std::ops::Range<usize>| -> Option<u32> {
        b[range].iter().try_fold(0u32, |acc, &c| c.is_ascii_digit().then(|| acc * 10 + u32::from(c - b'0')))
    };
    let (Some(year), Some(month), Some(day)) = (number(0..4), number(5..7), number(8..10)) else {
        return false;
    };
    let leap = year % 4 == 0 && (year % 100 != 0 || year % 400 == 0);
    let days_in_month = match month {
        1 | 3 | 5 | 7 | 8 | 10 | 12 => 31,
        4 | 6 | 9 | 11 => 30,
        2 if leap => 29,
        2 => 28,
        _ => return false,
    };
    (1..=days_in_month).contains(&day)
}

/// `date-time`: kube-openapi's own check, not an RFC 3339 parser. The string (at least 4 bytes,
/// lower-cased) is split at every 't'; the first piece must be a `date` and the second must be
/// `hh:mm:ss`, an optional fraction (any one character, then digits), and `z` or `±hh:mm`.
/// Hours may be 00-23, minutes and seconds 00-59; the offset is not range-checked, and pieces
/// after a second 't' are ignored.
fn is_date_time(s: &str) -> bool {
    if s.len() < 4 {
        return false;
    }
    // Go lower-cases the whole string, but only ASCII letters can matter to the checks below.
    let lower = s.to_ascii_lowercase();
    let mut pieces = lower.split('t');
    let (Some(date), Some(time)) = (pieces.next(), pieces.next()) else {
        return false;
    };
    if !is_date(date) {
        return false;
    }
    let Some(caps) = TIME_OF_DAY.captures(time) else {
        return false;
    };
    &caps[1] <= "23" && &caps[2] <= "59" && &caps[3] <= "59"
}

/// `duration`: Go's `time.ParseDuration`, or else kube-openapi's lenient syntax: the string holds
/// at least one `<digits><ASCII spaces><letters>` pair (anywhere; other text is ignored) whose
/// letters, lower-cased, name a unit (`ns`/`nano`, `us`/`µs`/`micro`, `ms`/`milli`, `s`/`sec`,
/// `m`/`min`, `h`/`hr`/`hour`, `d`/`day`, `w`/`wk`/`week`, where the long names may carry any
/// suffix such as `minutes`). A pair whose number does not fit an int64 makes it invalid.
fn is_duration(s: &str) -> bool {
    if go_parse_duration(s) {
        return true;
    }
    const UNITS: [&[&str]; 8] = [
        &["ns", "nano"],
        &["us", "µs", "micro"],
        &["ms", "milli"],
        &["s", "sec"],
        &["m", "min"],
        &["h", "hr", "hour"],
        &["d", "day"],
        &["w", "wk", "week"],
    ];
    let mut ok = false;
    for caps in DURATION_PAIR.captures_iter(s) {
        if caps[1].parse::<i64>().is_err() {
            return false;
        }
        let unit = caps[2].to_lowercase();
        for variants in UNITS {
            let last = variants.len() - 1;
            for (i, variant) in variants.iter().enumerate() {
                if (i == last && unit.starts_with(variant)) || unit == *variant {
                    ok = true;
                }
            }
        }
    }
    ok
}

/// Go's `time.ParseDuration` succeeds: `[-+]?([0-9]*(\.[0-9]*)?[a-z]+)+` with units `ns`, `us`,
/// `µs` (U+00B5), `μs` (U+03BC), `ms`, `s`, `m` and `h`, or a bare `0`, within ±2^63 ns.
fn go_parse_duration(s: &str) -> bool {
    const LIMIT: u64 = 1 << 63;
    let mut s = s.as_bytes();
    let mut neg = false;
    if let Some(&c) = s.first() {
        if c == b'-' || c == b'+' {
            neg = c == b'-';
            s = &s[1..];
        }
    }
    if s == b"0" {
        return true;
    }
    if s.is_empty() {
        return false;
    }
    let mut total: u64 = 0;
    while !s.is_empty() {
        if !(s[0] == b'.' || s[0].is_ascii_digit()) {
            return false;
        }
        // The integer part, failing on overflow.
        let mut v: u64 = 0;
        let int_len = s.iter().take_while(|c| c.is_ascii_digit()).count();
        for &c in &s[..int_len] {
            if v > LIMIT / 10 {
                return false;
            }
            v = v * 10 + u64::from(c - b'0');
            if v > LIMIT {
                return false;
            }
        }
        s = &s[int_len..];
        let pre = int_len > 0;
        // The fraction, which stops gaining precision instead of overflowing.
        let (mut f, mut scale, mut post) = (0u64, 1f64, false);
        if s.first() == Some(&b'.') {
            s = &s[1..];
            let frac_len = s.iter().take_while(|c| c.is_ascii_digit()).count();
            let mut overflow = false;
            for &c in &s[..frac_len] {
                if overflow {
                    continue;
                }
                if f > (LIMIT - 1) / 10 {
                    overflow = true;
                    continue;
                }
                let y = f * 10 + u64::from(c - b'0');
                if y > LIMIT {
                    overflow = true;
                    continue;
                }
                f = y;
                scale *= 10.0;
            }
            s = &s[frac_len..];
            post = frac_len > 0;
        }
        if !pre && !post {
            return false;
        }
        let unit_len = s.iter().position(|&c| c == b'.' || c.is_ascii_digit()).unwrap_or(s.len());
        let unit: u64 = match &s[..unit_len] {
            b"ns" => 1,
            b"us" | b"\xc2\xb5s" | b"\xce\xbcs" => 1_000,
            b"ms" => 1_000_000,
            b"s" => 1_000_000_000,
            b"m" => 60_000_000_000,
            b"h" => 3_600_000_000_000,
            _ => return false,
        };
        s = &s[unit_len..];
        if v > LIMIT / unit {
            return false;
        }
        v *= unit;
        if f > 0 {
            v += (f as f64 * (unit as f64 / scale)) as u64;
            if v > LIMIT {
                return false;
            }
        }
        // Go adds in uint64 arithmetic, which wraps.
        total = total.wrapping_add(v);
        if total > LIMIT {
            return false;
        }
    }
    neg || total < LIMIT
}

/// `ipv4`: the Kubernetes "sloppy" IP parser (Go's pre-1.17 `net.ParseIP`, which allows leading
/// zeros such as `010.1.1.1`) accepts it, and it contains a '.'. An IPv6 address with an
/// embedded IPv4 part, like `::ffff:1.2.3.4`, therefore passes too.
fn is_ipv4(s: &str) -> bool {
    sloppy::parse_ip(s.as_bytes()) && s.contains('.')
}

/// `ipv6`: today's Go `net.ParseIP` accepts it (strict: at most four hex digits per group, no
/// leading zeros in an embedded IPv4 part, no zone) and it contains a ':'.
fn is_ipv6(s: &str) -> bool {
    matches!(strict::parse_addr(s.as_bytes()), Some(strict::Addr::V4 | strict::Addr::V6)) && s.contains(':')
}

/// `cidr`: the sloppy parser's `ParseCIDR`: an address (IPv4 tried first, then IPv6), a '/', and
/// a decimal prefix length (leading zeros allowed) of at most 32 or 128.
fn is_cidr(s: &str) -> bool {
    let Some(slash) = s.find('/') else {
        return false;
    };
    let (addr, mask) = s.as_bytes().split_at(slash);
    let mask = &mask[1..];
    let bits = if sloppy::parse_ipv4(addr) {
        32
    } else if sloppy::parse_ipv6(addr) {
        128
    } else {
        return false;
    };
    matches!(sloppy::dtoi(mask), Some((n, used)) if used == mask.len() && n <= bits)
}

/// `mac`: Go's `net.ParseMAC`: 6, 8 or 20 bytes written as pairs of hex digits separated by
/// ':' or '-' (one separator throughout), or as groups of four hex digits separated by '.'.
fn is_mac(s: &str) -> bool {
    let b = s.as_bytes();
    if b.len() < 14 {
        return false;
    }
    let hex2 = |pair: &[u8]| pair.len() == 2 && pair.iter().all(u8::is_ascii_hexdigit);
    let (group, sep, bytes_per_group) = if b[2] == b':' || b[2] == b'-' {
        (2, b[2], 1)
    } else if b[4] == b'.' {
        (4, b'.', 2)
    } else {
        return false;
    };
    if !(b.len() + 1).is_multiple_of(group + 1) {
        return false;
    }
    let n = (b.len() + 1) / (group + 1) * bytes_per_group;
    if n != 6 && n != 8 && n != 20 {
        return false;
    }
    b.chunks(group + 1).all(|chunk| {
        let (digits, rest) = chunk.split_at(group);
        (rest.is_empty() || rest == [sep]) && digits.chunks(2).all(hex2)
    })
}

/// Go's IP parsers as of Go 1.22 and later (`net/netip.ParseAddr`, which `net.ParseIP` uses).
mod strict {
    /// What `netip.ParseAddr` made of a string.
    #[derive(Debug, PartialEq, Eq, Clone, Copy)]
    pub(super) enum Addr {
        V4,
        V6,
        V6WithZone,
    }

    /// `netip.ParseAddr`, which accepts an IPv6 zone (`fe80::1%eth0`); `net.ParseIP` rejects zones.
    pub(super) fn parse_addr(s: &[u8]) -> Option<Addr> {
        for &c in s {
            match c {
                b'.' => return parse_ipv4_fields(s).then_some(Addr::V4),
                b':' => return parse_ipv6(s),
                b'%' => return None,
                _ => {}
            }
        }
        None
    }

    /// Four decimal fields of at most 255 without leading zeros.
    fn parse_ipv4_fields(s: &[u8]) -> bool {
        let (mut val, mut pos, mut digits) = (0u32, 0, 0);
        for (i, &c) in s.iter().enumerate() {
            if c.is_ascii_digit() {
                if digits == 1 && val == 0 {
                    return false;
                }
                val = val * 10 + u32::from(c - b'0');
                digits += 1;
                if val > 255 {
                    return false;
                }
            } else if c == b'.' {
                if i == 0 || i == s.len() - 1 || s[i - 1] == b'.' || pos == 3 {
                    return false;
                }
                pos += 1;
                val = 0;
                digits = 0;
            } else {
                return false;
            }
        }
        pos == 3
    }

    fn parse_ipv6(input: &[u8]) -> Option<Addr> {
        let (mut s, zone) = match input.iter().position(|&c| c == b'%') {
            Some(i) if i + 1 == input.len() => return None,
            Some(i) => (&input[..i], true),
            None => (input, false),
        };
        let found = if zone { Addr::V6WithZone } else { Addr::V6 };
        let mut ellipsis = None;
        if s.starts_with(b"::") {
            ellipsis = Some(0);
            s = &s[2..];
            if s.is_empty() {
                return Some(found);
            }
        }
        let mut i = 0;
        while i < 16 {
            let digits = s.iter().take_while(|c| c.is_ascii_hexdigit()).count();
            if digits == 0 || digits > 4 {
                return None;
            }
            if s.get(digits) == Some(&b'.') {
                // An embedded IPv4 address must take the last four bytes.
                if (ellipsis.is_none() && i != 12) || i + 4 > 16 || !parse_ipv4_fields(s) {
                    return None;
                }
                s = &[];
                i += 4;
                break;
            }
            i += 2;
            s = &s[digits..];
            if s.is_empty() {
                break;
            }
            if s[0] != b':' || s.len() == 1 {
                return None;
            }
            s = &s[1..];
            if s[0] == b':' {
                if ellipsis.is_some() {
                    return None;
                }
                ellipsis = Some(i);
                s = &s[1..];
                if s.is_empty() {
                    break;
                }
            }
        }
        if !s.is_empty() {
            return None;
        }
        // Too few groups need a '::' to fill, and a '::' must stand for at least one group.
        match (i < 16, ellipsis.is_some()) {
            (true, false) | (false, true) => None,
            _ => Some(found),
        }
    }
}

/// The IP parsers of `k8s.io/utils/net` (`ParseIPSloppy`, `ParseCIDRSloppy`): Go 1.16's
/// `net.ParseIP`, which allows leading zeros in IPv4 fields and in IPv6 groups.
mod sloppy {
    const BIG: u32 = 0xFF_FFFF;

    /// Leading decimal digits: the value and how many bytes were used, or `None` when there are
    /// no digits or the value reaches 0xFFFFFF.
    pub(super) fn dtoi(s: &[u8]) -> Option<(u32, usize)> {
        let mut n = 0u32;
        let mut i = 0;
        while i < s.len() && s[i].is_ascii_digit() {
            n = n * 10 + u32::from(s[i] - b'0');
            if n >= BIG {
                return None;
            }
            i += 1;
        }
        (i > 0).then_some((n, i))
    }

    /// Leading hex digits, like [`dtoi`].
    fn xtoi(s: &[u8]) -> Option<(u32, usize)> {
        let mut n = 0u32;
        let mut i = 0;
        while i < s.len() {
            let Some(d) = char::from(s[i]).to_digit(16) else { break };
            n = n * 16 + d;
            if n >= BIG {
                return None;
            }
            i += 1;
        }
        (i > 0).then_some((n, i))
    }

    pub(super) fn parse_ip(s: &[u8]) -> bool {
        for &c in s {
            match c {
                b'.' => return parse_ipv4(s),
                b':' => return parse_ipv6(s),
                _ => {}
            }
        }
        false
    }

    pub(super) fn parse_ipv4(mut s: &[u8]) -> bool {
        for i in 0..4 {
            if i > 0 {
                if s.first() != Some(&b'.') {
                    return false;
                }
                s = &s[1..];
            }
            match dtoi(s) {
                Some((n, used)) if n <= 0xFF => s = &s[used..],
                _ => return false,
            }
        }
        s.is_empty()
    }

    pub(super) fn parse_ipv6(mut s: &[u8]) -> bool {
        let mut ellipsis = None;
        if s.starts_with(b"::") {
            ellipsis = Some(0);
            s = &s[2..];
            if s.is_empty() {
                return true;
            }
        }
        let mut i = 0;
        while i < 16 {
            let Some((_, used)) = xtoi(s).filter(|&(n, _)| n <= 0xFFFF) else {
                return false;
            };
            if s.get(used) == Some(&b'.') {
                if (ellipsis.is_none() && i != 12) || i + 4 > 16 || !parse_ipv4(s) {
                    return false;
                }
                s = &[];
                i += 4;
                break;
            }
            i += 2;
            s = &s[used..];
            if s.is_empty() {
                break;
            }
            if s[0] != b':' || s.len() == 1 {
                return false;
            }
            s = &s[1..];
            if s[0] == b':' {
                if ellipsis.is_some() {
                    return false;
                }
                ellipsis = Some(i);
                s = &s[1..];
                if s.is_empty() {
                    break;
                }
            }
        }
        if !s.is_empty() {
            return false;
        }
        !matches!((i < 16, ellipsis.is_some()), (true, false) | (false, true))
    }
}

/// `uri`: Go's `url.ParseRequestURI` succeeds. That is `*`, an absolute path (`/x`), or a scheme
/// followed by anything not starting with '/' (opaque, like `mailto:a@b`) or by a path that may
/// start with `//authority`. Only these are checked: no control characters, percent escapes are
/// well formed, the port is numeric, the host has no forbidden characters, a bracketed host is an
/// IPv6 address (Go 1.24.8/1.25.2 and later), and userinfo uses allowed characters. Fragments are
/// not split off, so `http://host#x` fails on the host while `http://host/#x` passes.
fn is_request_uri(raw: &str) -> bool {
    if raw.bytes().any(|b| b < 0x20 || b == 0x7f) || raw.is_empty() {
        return false;
    }
    if raw == "*" {
        return true;
    }
    let Some((scheme, rest)) = split_scheme(raw) else {
        return false;
    };
    let rest = if rest.ends_with('?') && rest.matches('?').count() == 1 {
        &rest[..rest.len() - 1]
    } else {
        rest.split_once('?').map_or(rest, |(before, _)| before)
    };
    if !rest.starts_with('/') {
        // Opaque when there is a scheme; a relative reference is not allowed in a request.
        return !scheme.is_empty();
    }
    let mut path = rest;
    if !scheme.is_empty() && rest.starts_with("//") {
        let after = &rest[2..];
        let (authority, tail) = after.find('/').map_or((after, ""), |i| after.split_at(i));
        if !uri::authority_ok(authority) {
            return false;
        }
        path = tail;
    }
    uri::unescape_ok(path, uri::Mode::Path)
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

/// Pieces of Go's `net/url` parser that decide whether an authority and a path are acceptable.
mod uri {
    #[derive(Clone, Copy, PartialEq, Eq)]
    pub(super) enum Mode {
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
    pub(super) fn unescape_ok(s: &str, mode: Mode) -> bool {
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
    pub(super) fn authority_ok(authority: &str) -> bool {
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
                matches!(super::strict::parse_addr(&unescaped), Some(super::strict::Addr::V6 | super::strict::Addr::V6WithZone))
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
}

/// `email`: Go's `net/mail.ParseAddress` finds exactly one address: `local@domain`, optionally
/// with a display name (`Name <local@domain>`), a trailing comment (`a@b.c (Name)`), or as the
/// only member of a group (`team: a@b.c;`). The domain need not contain a dot.
fn is_email(s: &str) -> bool {
    mail::parse_single_address(s)
}

/// A port of the parts of Go's `net/mail` address parser that decide success.
mod mail {
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
            let is_ip =
                |t: &str| matches!(super::strict::parse_addr(t.as_bytes()), Some(super::strict::Addr::V4 | super::strict::Addr::V6));
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
}

#[cfg(test)]
mod tests {
    use super::*;

    fn valid(format: &str, values: &[&str]) {
        for v in values {
            assert!(check_string_format(format, v), "{format}: {v:?} should be valid");
        }
    }

    fn invalid(format: &str, values: &[&str]) {
        for v in values {
            assert!(!check_string_format(format, v), "{format}: {v:?} should be invalid");
        }
    }

    #[test]
    fn registry() {
        for f in ["date-time", "datetime", "date--time", "-uuid", "ip-v4", "password", "k8s-short-name", "k8sshortname", "byte"] {
            assert!(is_validated_format(f), "{f}");
        }
        for f in ["int32", "int64", "float", "double", "url", "DATE-TIME", "Email", "ipv4 ", "", "quantity", "int-or-string"] {
            assert!(!is_validated_format(f), "{f}");
            assert!(check_string_format(f, "anything at all"), "{f}");
        }
    }

    #[test]
    fn date() {
        valid("date", &["2024-02-29", "2000-02-29", "0000-01-01", "9999-12-31"]);
        invalid(
            "date",
            &[
                "2023-02-29",
                "1900-02-29",
                "2024-13-01",
                "2024-00-10",
                "2024-01-00",
                "2024-04-31",
                "2024-1-01",
                "24-01-01",
                "2024-01-01T00:00:00Z",
                "2024/01/01",
                " 2024-01-01",
                "",
                "+024-01-01",
            ],
        );
    }

    #[test]
    fn date_time() {
        valid(
            "date-time",
            &[
                "2024-01-02T03:04:05Z",
                "2024-01-02t03:04:05z",
                "2024-01-02T03:04:05.123456789Z",
                "2024-01-02T03:04:05+01:00",
                "2024-01-02T03:04:05.5-08:00",
                "2024-01-02T23:59:59Z",
                // Quirks of upstream's check: any character before the fraction digits, any
                // offset numbers, and anything after a second 't'.
                "2024-01-02T03:04:05,5Z",
                "2024-01-02T03:04:05x5Z",
                "2024-01-02T03:04:05+99:99",
                "2024-01-02T03:04:05ZTrailing",
            ],
        );
        invalid(
            "datetime",
            &[
                "2024-01-02",
                "2024-01-02 03:04:05Z",
                "2024-01-02T03:04:05",
                "2024-01-02T24:00:00Z",
                "2024-01-02T23:60:00Z",
                "2024-01-02T23:59:60Z",
                "2024-01-02T3:04:05Z",
                "2024-01-02T03:04:05.Z",
                "2024-01-02T03:04:05+0100",
                "2024-02-30T03:04:05Z",
                "T03:04:05Z",
                "foo",
                "",
            ],
        );
    }

    #[test]
    fn duration() {
        valid(
            "duration",
            &[
                "0",
                "-0",
                "+0",
                "1h",
                "1h30m",
                "1.5h",
                ".5s",
                "5.s",
                "-1m",
                "300ms",
                "1us",
                "1µs",
                "1μs",
                "2562047h47m16.854775807s",
                // Too long for Go, but the lenient syntax still finds "2562047h" and more.
                "2562047h47m16.854775808s",
                // kube-openapi's lenient syntax.
                "3 days",
                "1d",
                "2w",
                "5 minutes",
                "1 hour 30 min",
                "10 sec",
                "7 nano",
                "15 Milliseconds",
                "1h 30m",
                "wait 5 secs please",
            ],
        );
        invalid(
            "duration",
            &["", "h", "1", "1x", "-", ".s", "forever", "1.5", "99999999999999999999ns", "1h 99999999999999999999x", "1 parsec"],
        );
    }

    #[test]
    fn go_durations_alone() {
        assert!(go_parse_duration("-2562047h47m16.854775808s"));
        assert!(!go_parse_duration("2562047h47m16.854775808s"));
        assert!(go_parse_duration("0.99999999999999999999999s"));
        assert!(!go_parse_duration("1h "));
        assert!(!go_parse_duration("1d"));
        assert!(!go_parse_duration("00"));
        assert!(go_parse_duration("00s"));
    }

    #[test]
    fn byte() {
        valid("byte", &["aGVsbG8=", "aGVsbG8h", "aGk=", "+/+/", "AAAA"]);
        invalid("byte", &["", "aGVsbG8", "aGVsbG8==", "a", "aGVs bG8=", "aGVsbG8_", "aGVsbG8-", "=AAA"]);
    }

    #[test]
    fn uuids() {
        valid("uuid", &["123e4567-e89b-12d3-a456-426614174000", "123E4567E89B12D3A456426614174000", "123e4567-e89b12d3-a456-426614174000"]);
        invalid(
            "uuid",
            &[
                "123e4567-e89b-12d3-a456-42661417400",
                "123e4567-e89b-12d3-a456-4266141740000",
                "g23e4567-e89b-12d3-a456-426614174000",
                "{123e4567-e89b-12d3-a456-426614174000}",
                "",
            ],
        );
        valid("uuid3", &["a3bb189e-8bf9-3888-9912-ace4e6543002"]);
        invalid("uuid3", &["a3bb189e-8bf9-4888-9912-ace4e6543002"]);
        valid("uuid4", &["713ae7e3-cb32-45f9-adcb-7c4fa86b90c1", "713AE7E3-CB32-45F9-BDCB-7C4FA86B90C1"]);
        invalid("uuid4", &["713ae7e3-cb32-45f9-cdcb-7c4fa86b90c1", "713ae7e3-cb32-35f9-adcb-7c4fa86b90c1"]);
        valid("uuid5", &["987fbc97-4bed-5078-af07-9141ba07c9f3"]);
        invalid("uuid5", &["987fbc97-4bed-5078-0f07-9141ba07c9f3", "987fbc97-4bed-4078-af07-9141ba07c9f3"]);
    }

    #[test]
    fn hostname() {
        valid(
            "hostname",
            &[
                "localhost",
                "example.com",
                "a.b.example.com",
                "xn--bcher-kva.example",
                "bücher.de",
                "a-b.example.com",
                "my-host.example.com",
                // Without a dot, upstream's pattern allows one '-' only as the second character
                // (so `a-` and `a-bc` pass), and symbols count as letters.
                "a-",
                "a-bc",
                "a+b.com",
                &"a".repeat(63),
                &format!("{}.com", "a".repeat(63)),
            ],
        );
        invalid(
            "hostname",
            &[
                "",
                "example.com.",
                ".example.com",
                "a.b",
                "1.2.3.4",
                "example.c0m",
                "-host",
                "my-host",
                "host-",
                "a--b",
                "a_b",
                "a..com",
                "host name",
                "-a.com",
                "a-.com",
                &format!("{}.com", "a".repeat(64)),
                // Too long overall though every label fits.
                &format!("{}com", format!("{}.", "a".repeat(63)).repeat(4)),
            ],
        );
    }

    #[test]
    fn ipv4() {
        valid(
            "ipv4",
            &["192.168.0.1", "0.0.0.0", "255.255.255.255", "010.001.0.1", "0000000001.2.3.4", "::ffff:1.2.3.4", "1:2:3:4:5:6:1.2.3.4"],
        );
        invalid(
            "ipv4",
            &["", "256.0.0.1", "1.2.3", "1.2.3.4.5", "1..2.3", "1.2.3.4 ", "::1", "2001:db8::1", "a.b.c.d", "1.2.3.-4", "16777215.1.1.1"],
        );
    }

    #[test]
    fn ipv6() {
        valid(
            "ipv6",
            &[
                "::",
                "::1",
                "2001:db8::1",
                "2001:0db8:0000:0000:0000:ff00:0042:8329",
                "FE80::1",
                "::ffff:1.2.3.4",
                "1:2:3:4:5:6:1.2.3.4",
                "1::",
                "1:2:3:4:5:6:7:8",
                "::1.2.3.4",
            ],
        );
        invalid(
            "ipv6",
            &[
                "",
                "1.2.3.4",
                "fe80::1%eth0",
                "02001:db8::1",
                "::ffff:01.2.3.4",
                "1:2:3:4:5:6:7:8:9",
                "1:2:3:4:5:6:7",
                "1::2::3",
                ":1::",
                "1:",
                "::1:",
                "1:2:3:4:5:6:7::8",
                "1:2:3:4:5:6:7:8::",
                "g::1",
                "[::1]",
            ],
        );
    }

    #[test]
    fn cidr() {
        valid(
            "cidr",
            &["10.0.0.0/8", "10.0.0.1/32", "0.0.0.0/0", "010.0.0.0/08", "2001:db8::/32", "::/0", "::1/128", "::ffff:1.2.3.4/120"],
        );
        invalid(
            "cidr",
            &["10.0.0.0", "10.0.0.0/33", "10.0.0.0/", "2001:db8::/129", "10.0.0.0/8/8", "10.0.0.0/-1", "10.0.0.0/ 8", "/8", "host/8"],
        );
    }

    #[test]
    fn mac() {
        valid(
            "mac",
            &[
                "00:00:5e:00:53:01",
                "00-00-5E-00-53-01",
                "0000.5e00.5301",
                "02:00:5e:10:00:00:00:01",
                "0200.5e10.0000.0001",
                "00:00:00:00:fe:80:00:00:00:00:00:00:02:00:5e:10:00:00:00:01",
                "0000.0000.fe80.0000.0000.0000.0200.5e10.0000.0001",
            ],
        );
        invalid(
            "mac",
            &[
                "",
                "00:00:5e:00:53",
                "00:00:5e:00:53:01:02",
                "00:00:5e-00:53:01",
                "00:00:5e:00:53:0g",
                "0:00:5e:00:53:01:0",
                "0000.5e00-5301",
                "00005e005301",
                "00:00:5e:00:53:01:",
                "0000.5e00.5301.ab",
            ],
        );
    }

    #[test]
    fn uri() {
        valid(
            "uri",
            &[
                "http://example.com",
                "https://example.com:8443/path?q=1",
                "http://user:pass@example.com/",
                "http://[::1]:80/",
                "http://[fe80::1%25en0]/",
                "http://[::ffff:1.2.3.4]/",
                "mailto:someone@example.com",
                "urn:isbn:0451450523",
                "/absolute/path",
                "*",
                "http://example.com/#fragment",
                "http://example.com/a%20b",
                "ftp:///no-host",
                "http://example.com:/",
                "s3://bucket/key",
            ],
        );
        invalid(
            "uri",
            &[
                "",
                "example.com",
                "relative/path",
                ":foo",
                "http://example.com#fragment",
                "http://exa mple.com/",
                "http://example.com:port/",
                "http://example.com/%zz",
                "http://example.com/%2",
                "http://[::1/",
                "http://[1.2.3.4]/",
                "http://a[::1]/",
                "http://example.com/\n",
                "http://ex%41mple.com/",
                "http://us er@example.com/",
            ],
        );
    }

    #[test]
    fn email() {
        valid(
            "email",
            &[
                "user@example.com",
                "first.last+tag@sub.example.co",
                "user@localhost",
                "User Name <user@example.com>",
                "\"User Name\" <user@example.com>",
                "<user@example.com>",
                "user@example.com (User Name)",
                "\"quoted local\"@example.com",
                "  user@example.com  ",
                "team: user@example.com;",
                "user@[192.168.0.1]",
                "user@[IPv6:2001:db8::1]",
                "jörg@bücher.de",
            ],
        );
        invalid(
            "email",
            &[
                "",
                "user",
                "user@",
                "@example.com",
                "user@@example.com",
                "user@exa mple.com",
                ".user@example.com",
                "user.@example.com",
                "us..er@example.com",
                "user@example..com",
                "User Name user@example.com",
                "<user@example.com",
                "a@b.c, d@e.f",
                "team:;",
                "team: a@b.c, d@e.f;",
                "\"\"@example.com",
                "user@[not an ip]",
                "user@example.com (unclosed",
                "=?koi8-r?q?x?= <user@example.com>",
            ],
        );
        // Known charsets and malformed encoded words are fine as display names.
        valid("email", &["=?utf-8?q?J=C3=B6rg?= <user@example.com>", "=?koi8-r?x?x?= <user@example.com>"]);
    }

    #[test]
    fn isbn() {
        valid("isbn10", &["0321751043", "0-321-75104-3", "080442957X", "0 8044 2957 X"]);
        invalid("isbn10", &["0321751044", "032175104", "080442957x", "9780321751041"]);
        valid("isbn13", &["9780321751041", "978-0-321-75104-1", "978 0321751041"]);
        invalid("isbn13", &["9780321751042", "978032175104", "0321751043"]);
        valid("isbn", &["0321751043", "978-0321751041"]);
        invalid("isbn", &["0321751044", "abc", ""]);
    }

    #[test]
    fn credit_card() {
        valid(
            "creditcard",
            &[
                "4111111111111111",
                "4111-1111-1111-1111",
                "4111 1111 1111 1111",
                "5500000000000004",
                "340000000000009",
                "6011000000000004",
                "30000000000004",
                "x4111111111111111y",
            ],
        );
        invalid("creditcard", &["4111111111111112", "1234567812345678", "", "4111"]);
    }

    #[test]
    fn ssn() {
        valid("ssn", &["123-45-6789", "123 45 6789", "123-45 6789"]);
        invalid("ssn", &["123456789", "12-345-6789", "123-45-678a", "123--45-6789", "123-456789 "]);
    }

    #[test]
    fn colors() {
        valid("hexcolor", &["#fff", "#FFFFFF", "abc", "a1B2c3"]);
        invalid("hexcolor", &["#ffff", "#gggggg", "##fff", "", "#fffffff"]);
        valid("rgbcolor", &["rgb(0,0,0)", "rgb(255, 255, 255)", "rgb( 1 ,22, 199 )"]);
        invalid("rgbcolor", &["rgb(256,0,0)", "rgb(0,0)", "RGB(0,0,0)", "rgb(00,0,0)", "rgba(0,0,0,0)", "rgb(-1,0,0)"]);
    }

    #[test]
    fn bson_object_id() {
        valid("bsonobjectid", &["507f1f77bcf86cd799439011", "507F1F77BCF86CD799439011"]);
        invalid("bsonobjectid", &["507f1f77bcf86cd79943901", "507f1f77bcf86cd7994390111", "507f1f77bcf86cd79943901g", ""]);
    }

    #[test]
    fn kubernetes_names() {
        valid("k8s-short-name", &["a", "my-name", "0abc", &"a".repeat(63)]);
        invalid("k8s-short-name", &["", "My-name", "-a", "a-", "a.b", &"a".repeat(64)]);
        valid("k8s-long-name", &["a", "a.b", "example.com", &"a".repeat(253), &format!("{}.b", "a".repeat(100))]);
        invalid("k8s-long-name", &["", "A.b", "a..b", "a.", &"a".repeat(254)]);
    }

    #[test]
    fn password() {
        valid("password", &["", "hunter2", "anything \n at all"]);
    }
}
