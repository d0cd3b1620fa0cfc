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

use crate::ip::{sloppy, strict};
use crate::url::is_request_uri;

mod mail;

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

/// Whether the API server keeps `format` on a string schema (`StripUnsupportedFormatsPostProcessor`:
/// the formats it checks, named after the same normalisation; any other is dropped).
pub fn is_supported_string_format(format: &str) -> bool {
    checker(format).is_some()
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
    if crate::duration::parse_duration(s).is_ok() {
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

/// `email`: Go's `net/mail.ParseAddress` finds exactly one address: `local@domain`, optionally
/// with a display name (`Name <local@domain>`), a trailing comment (`a@b.c (Name)`), or as the
/// only member of a group (`team: a@b.c;`). The domain need not contain a dot.
fn is_email(s: &str) -> bool {
    mail::parse_single_address(s)
}

#[cfg(test)]
mod tests;
