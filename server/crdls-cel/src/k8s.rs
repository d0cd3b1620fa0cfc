//! The value types of the Kubernetes CEL libraries: resource quantities (`quantity('1.5Gi')`), semantic
//! versions, URLs as Go's `url.ParseRequestURI` reads them, IP addresses and CIDRs as Go's `netip`
//! reads them (no zones, no IPv4-mapped IPv6), and the named formats of `format.*()`.

use std::cmp::Ordering;
use std::fmt;
use std::net::IpAddr;

pub use crdls_go::quantity::{Quantity, QUANTITY_ERROR};

/// A semantic version.
#[derive(Clone, Debug)]
pub struct Semver {
    major: u64,
    minor: u64,
    patch: u64,
    pre: Vec<String>,
    build: Vec<String>,
}

impl Semver {
    /// Parses `MAJOR.MINOR.PATCH[-PRE][+BUILD]`; with `normalize`, a leading `v`, missing minor or
    /// patch and leading zeros are accepted first, as Kubernetes' `semver(s, true)` does.
    pub fn parse(text: &str, normalize: bool) -> Result<Semver, String> {
        let mut text = text.to_string();
        if normalize {
            text = normalized(&text);
        }
        let err = |what: &str| format!("error parsing semver: {what}");
        let (rest, build) = match text.split_once('+') {
            Some((r, b)) => (r.to_string(), Some(b.to_string())),
            None => (text.clone(), None),
        };
        let (core, pre) = match rest.split_once('-') {
            Some((c, p)) => (c.to_string(), Some(p.to_string())),
            None => (rest.clone(), None),
        };
        let parts: Vec<&str> = core.split('.').collect();
        if parts.len() != 3 {
            return Err(err("No Major.Minor.Patch elements found"));
        }
        let number = |s: &str, what: &str| -> Result<u64, String> {
            if s.is_empty() || !s.bytes().all(|b| b.is_ascii_digit()) {
                return Err(err(&format!("Invalid character(s) found in {what} number {s:?}")));
            }
            if s.len() > 1 && s.starts_with('0') {
                return Err(err(&format!("{what} number must not contain leading zeroes {s:?}")));
            }
            s.parse().map_err(|_| err(&format!("{what} number too large")))
        };
        let (major, minor, patch) = (number(parts[0], "Major")?, number(parts[1], "Minor")?, number(parts[2], "Patch")?);
        let ident_ok = |s: &str| !s.is_empty() && s.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'-');
        let pre: Vec<String> = match pre {
            Some(p) => {
                let ids: Vec<String> = p.split('.').map(str::to_string).collect();
                for id in &ids {
                    if !ident_ok(id) {
                        return Err(err(&format!("Invalid character(s) found in prerelease {id:?}")));
                    }
                    if id.len() > 1 && id.starts_with('0') && id.bytes().all(|b| b.is_ascii_digit()) {
                        return Err(err(&format!("Prerelease number must not contain leading zeroes {id:?}")));
                    }
                }
                ids
            }
            None => Vec::new(),
        };
        let build: Vec<String> = match build {
            Some(b) => {
                let ids: Vec<String> = b.split('.').map(str::to_string).collect();
                if ids.iter().any(|id| !ident_ok(id)) {
                    return Err(err("Invalid character(s) found in build meta data"));
                }
                ids
            }
            None => Vec::new(),
        };
        Ok(Semver { major, minor, patch, pre, build })
    }

    /// The major, minor and patch numbers.
    pub fn parts(&self) -> (u64, u64, u64) {
        (self.major, self.minor, self.patch)
    }

    /// Semantic-version precedence (build metadata ignored).
    pub fn compare(&self, other: &Semver) -> Ordering {
        let core = (self.major, self.minor, self.patch).cmp(&(other.major, other.minor, other.patch));
        if core != Ordering::Equal {
            return core;
        }
        match (self.pre.is_empty(), other.pre.is_empty()) {
            (true, true) => return Ordering::Equal,
            (true, false) => return Ordering::Greater,
            (false, true) => return Ordering::Less,
            _ => {}
        }
        for (a, b) in self.pre.iter().zip(&other.pre) {
            let order = match (a.parse::<u64>(), b.parse::<u64>()) {
                (Ok(x), Ok(y)) => x.cmp(&y),
                (Ok(_), Err(_)) => Ordering::Less,
                (Err(_), Ok(_)) => Ordering::Greater,
                _ => a.cmp(b),
            };
            if order != Ordering::Equal {
                return order;
            }
        }
        self.pre.len().cmp(&other.pre.len())
    }
}

/// `v1.2` → `1.2.0`, `01.002.3` → `1.2.3`.
fn normalized(text: &str) -> String {
    let text = text.strip_prefix('v').unwrap_or(text);
    let cut = text.find(['-', '+']).unwrap_or(text.len());
    let (core, rest) = text.split_at(cut);
    let mut parts: Vec<String> = core
        .split('.')
        .map(|p| {
            let trimmed = p.trim_start_matches('0');
            if trimmed.is_empty() && !p.is_empty() {
                "0".to_string()
            } else {
                trimmed.to_string()
            }
        })
        .collect();
    while parts.len() < 3 {
        parts.push("0".to_string());
    }
    format!("{}{rest}", parts.join("."))
}

impl fmt::Display for Semver {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}.{}.{}", self.major, self.minor, self.patch)?;
        if !self.pre.is_empty() {
            write!(f, "-{}", self.pre.join("."))?;
        }
        if !self.build.is_empty() {
            write!(f, "+{}", self.build.join("."))?;
        }
        Ok(())
    }
}

pub use crdls_go::url::Url;

/// CEL's `url()`: Go's `url.ParseRequestURI`, with its error as the URL library words it.
pub fn parse_url(text: &str) -> Result<Url, String> {
    crdls_go::url::parse_request_uri(text)
        .map_err(|detail| format!("URL parse error during conversion from string: parse {}: {detail}", crdls_go::print::quote(text)))
}

/// Parses an IP address as Kubernetes' `ip()` does: `netip.ParseAddr`, without a zone, and not an
/// IPv4-mapped IPv6 address.
pub fn parse_ip(text: &str) -> Result<IpAddr, String> {
    use crdls_go::ip::strict::{parse, Addr};
    if text.contains('%') {
        return Err(format!("IP address with zone value is not allowed: {text}"));
    }
    let quoted = crdls_go::print::quote(text);
    let parsed = parse(text.as_bytes())
        .filter(|p| p.kind != Addr::V6WithZone)
        .ok_or_else(|| format!("IP Address {quoted} parse error during conversion from string: ParseAddr({quoted}): unable to parse IP"))?;
    if let IpAddr::V6(v6) = parsed.ip {
        if v6.to_ipv4_mapped().is_some() {
            return Err(format!("IPv4-mapped IPv6 address {quoted} is not allowed"));
        }
    }
    Ok(parsed.ip)
}

/// Parses a CIDR as Kubernetes' `cidr()` does: the address as written and the prefix length.
pub fn parse_cidr(text: &str) -> Result<(IpAddr, u8), String> {
    let bad = || {
        format!(
            "network address parse error during conversion from string: netip.ParsePrefix({}): bad prefix",
            crdls_go::print::quote(text)
        )
    };
    let (addr, bits) = text.split_once('/').ok_or_else(bad)?;
    let ip = parse_ip(addr).map_err(|_| bad())?;
    if bits.is_empty() || (bits.len() > 1 && bits.starts_with('0')) || !bits.bytes().all(|b| b.is_ascii_digit()) {
        return Err(bad());
    }
    let bits: u8 = bits.parse().map_err(|_| bad())?;
    let max = if ip.is_ipv4() { 32 } else { 128 };
    if bits > max {
        return Err(bad());
    }
    Ok((ip, bits))
}

/// The network address of a CIDR (host bits cleared).
pub fn masked(ip: IpAddr, bits: u8) -> IpAddr {
    match ip {
        IpAddr::V4(v4) => {
            let mask = if bits == 0 { 0 } else { u32::MAX << (32 - bits) };
            IpAddr::V4((u32::from(v4) & mask).into())
        }
        IpAddr::V6(v6) => {
            let mask = if bits == 0 { 0 } else { u128::MAX << (128 - bits) };
            IpAddr::V6((u128::from(v6) & mask).into())
        }
    }
}

/// Whether `ip` lies in the CIDR.
pub fn cidr_contains(net: IpAddr, bits: u8, ip: IpAddr) -> bool {
    net.is_ipv4() == ip.is_ipv4() && masked(ip, bits) == masked(net, bits)
}

/// Go's `IsGlobalUnicast`: not unspecified, loopback, multicast, link-local or the IPv4 broadcast.
pub fn is_global_unicast(ip: IpAddr) -> bool {
    match ip {
        IpAddr::V4(v4) => !(v4.is_unspecified() || v4.is_loopback() || v4.is_multicast() || v4.is_link_local() || v4.is_broadcast()),
        IpAddr::V6(v6) => {
            let first = v6.segments()[0];
            !(v6.is_unspecified() || v6.is_loopback() || v6.is_multicast() || (first & 0xffc0) == 0xfe80)
        }
    }
}

/// Go's `IsLinkLocalUnicast`.
pub fn is_link_local_unicast(ip: IpAddr) -> bool {
    match ip {
        IpAddr::V4(v4) => v4.is_link_local(),
        IpAddr::V6(v6) => (v6.segments()[0] & 0xffc0) == 0xfe80,
    }
}

/// Go's `IsLinkLocalMulticast`.
pub fn is_link_local_multicast(ip: IpAddr) -> bool {
    match ip {
        IpAddr::V4(v4) => v4.octets()[..3] == [224, 0, 0],
        IpAddr::V6(v6) => (v6.segments()[0] & 0xff0f) == 0xff02,
    }
}

/// The named formats of `format.<name>()`.
pub const FORMAT_NAMES: &[&str] = &[
    "dns1123Label",
    "dns1123Subdomain",
    "dns1035Label",
    "qualifiedName",
    "dns1123LabelPrefix",
    "dns1123SubdomainPrefix",
    "dns1035LabelPrefix",
    "labelValue",
    "uri",
    "uuid",
    "byte",
    "date",
    "datetime",
];

/// The problems of `value` under a named format (empty when valid).
pub fn validate_format(name: &str, value: &str) -> Vec<String> {
    use crdls_go::names;
    let mask = |v: &str| -> String {
        match v.strip_suffix('-') {
            Some(stem) => format!("{stem}a"),
            None => v.to_string(),
        }
    };
    match name {
        "dns1123Label" => names::dns1123_label(value),
        "dns1123Subdomain" => names::dns1123_subdomain(value),
        "dns1035Label" => names::dns1035_label(value),
        "qualifiedName" => names::qualified_name(value),
        "dns1123LabelPrefix" => names::dns1123_label(&mask(value)),
        "dns1123SubdomainPrefix" => names::dns1123_subdomain(&mask(value)),
        "dns1035LabelPrefix" => names::dns1035_label(&mask(value)),
        "labelValue" => names::label_value(value),
        "uri" => match crdls_go::url::parse_request_uri(value) {
            Ok(_) => Vec::new(),
            Err(_) => vec!["invalid URI".to_string()],
        },
        "uuid" => (!crdls_go::formats::check_string_format("uuid", value))
            .then(|| "does not match the UUID format".to_string())
            .into_iter()
            .collect(),
        "byte" => (!crdls_go::formats::check_string_format("byte", value)).then(|| "invalid base64".to_string()).into_iter().collect(),
        "date" => (!crdls_go::formats::check_string_format("date", value)).then(|| "invalid date".to_string()).into_iter().collect(),
        "datetime" => {
            (!crdls_go::formats::check_string_format("date-time", value)).then(|| "invalid datetime".to_string()).into_iter().collect()
        }
        _ => Vec::new(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn quantities_parse_exactly_and_compare() {
        let q = |s: &str| Quantity::parse(s).unwrap();
        assert_eq!(q("1Gi").cmp_value(&q("1073741824")), Ordering::Equal);
        assert_eq!(q("1.5").cmp_value(&q("1500m")), Ordering::Equal);
        assert_eq!(q("1k").as_i64(), Some(1000));
        assert_eq!(q("500m").as_i64(), None);
        assert_eq!(q("-2e3").as_i64(), Some(-2000));
        assert_eq!(q("1500m").to_string(), "1500m");
        assert!(Quantity::parse("1.5.5").is_err());
        assert!(Quantity::parse("1Zi").is_err());
        assert_eq!(q("1").add(&q("500m"), false).unwrap().to_string(), "1500m");
    }

    #[test]
    fn semvers_order_by_precedence() {
        let v = |s: &str| Semver::parse(s, false).unwrap();
        assert_eq!(v("1.2.3").compare(&v("1.10.0")), Ordering::Less);
        assert_eq!(v("1.0.0-alpha").compare(&v("1.0.0")), Ordering::Less);
        assert_eq!(v("1.0.0-alpha.1").compare(&v("1.0.0-alpha.beta")), Ordering::Less);
        assert!(Semver::parse("v1.2", false).is_err());
        assert_eq!(Semver::parse("v1.2", true).unwrap().to_string(), "1.2.0");
        assert!(Semver::parse("01.2.3", false).is_err());
    }

    #[test]
    fn urls_ips_and_cidrs() {
        let u = parse_url("https://user@example.com:8443/a%20b?x=1&x=2&y=").unwrap();
        assert_eq!(
            (u.scheme.as_str(), u.host.as_str(), u.hostname(), u.port(), u.path.as_str()),
            ("https", "example.com:8443", "example.com".to_string(), "8443".to_string(), "/a%20b")
        );
        assert_eq!(u.query_map(), vec![("x".to_string(), vec!["1".to_string(), "2".to_string()]), ("y".to_string(), vec![String::new()])]);
        assert!(parse_url("example.com").is_err());
        assert_eq!(parse_url("https://[::1]:80").unwrap().hostname(), "::1");
        assert!(parse_ip("::ffff:1.2.3.4").is_err());
        assert!(parse_ip("fe80::1%eth0").is_err());
        let (net, bits) = parse_cidr("10.0.0.0/8").unwrap();
        assert!(cidr_contains(net, bits, parse_ip("10.1.2.3").unwrap()));
        assert!(!cidr_contains(net, bits, parse_ip("11.0.0.1").unwrap()));
        assert!(parse_cidr("10.0.0.0/33").is_err());
        assert_eq!(masked(parse_ip("192.168.1.77").unwrap(), 24).to_string(), "192.168.1.0");
    }
}
