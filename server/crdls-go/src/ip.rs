//! Go's IP address parsers: `net/netip.ParseAddr` (Go 1.22 and later, which `net.ParseIP` also
//! uses) and the sloppy parsers of `k8s.io/utils/net` (Go 1.16's `net.ParseIP`, which allows leading
//! zeros). Format checks and CEL's `ip()` and `cidr()` share them.

/// Go's IP parsers as of Go 1.22 and later (`net/netip.ParseAddr`, which `net.ParseIP` uses).
pub mod strict {
    use std::net::{IpAddr, Ipv4Addr, Ipv6Addr};

    /// What `netip.ParseAddr` made of a string.
    #[derive(Debug, PartialEq, Eq, Clone, Copy)]
    pub enum Addr {
        V4,
        V6,
        V6WithZone,
    }

    /// An address `netip.ParseAddr` accepted: its kind and its value (the zone, when there is one, is
    /// not part of the value).
    #[derive(Debug, PartialEq, Eq, Clone, Copy)]
    pub struct Parsed {
        /// IPv4, IPv6, or IPv6 with a zone.
        pub kind: Addr,
        /// The address.
        pub ip: IpAddr,
    }

    /// `netip.ParseAddr`, which accepts an IPv6 zone (`fe80::1%eth0`); `net.ParseIP` rejects zones.
    pub fn parse_addr(s: &[u8]) -> Option<Addr> {
        parse(s).map(|p| p.kind)
    }

    /// `netip.ParseAddr` with the address it yields.
    pub fn parse(s: &[u8]) -> Option<Parsed> {
        for &c in s {
            match c {
                b'.' => return parse_ipv4_fields(s).map(|b| Parsed { kind: Addr::V4, ip: IpAddr::V4(Ipv4Addr::from(b)) }),
                b':' => return parse_ipv6(s).map(|(kind, b)| Parsed { kind, ip: IpAddr::V6(Ipv6Addr::from(b)) }),
                b'%' => return None,
                _ => {}
            }
        }
        None
    }

    /// Four decimal fields of at most 255 without leading zeros.
    fn parse_ipv4_fields(s: &[u8]) -> Option<[u8; 4]> {
        let (mut out, mut val, mut pos, mut digits) = ([0u8; 4], 0u32, 0usize, 0);
        for (i, &c) in s.iter().enumerate() {
            if c.is_ascii_digit() {
                if digits == 1 && val == 0 {
                    return None;
                }
                val = val * 10 + u32::from(c - b'0');
                digits += 1;
                if val > 255 {
                    return None;
                }
            } else if c == b'.' {
                if i == 0 || i == s.len() - 1 || s[i - 1] == b'.' || pos == 3 {
                    return None;
                }
                out[pos] = val as u8;
                pos += 1;
                val = 0;
                digits = 0;
            } else {
                return None;
            }
        }
        if pos != 3 {
            return None;
        }
        out[3] = val as u8;
        Some(out)
    }

    fn parse_ipv6(input: &[u8]) -> Option<(Addr, [u8; 16])> {
        let (mut s, zone) = match input.iter().position(|&c| c == b'%') {
            Some(i) if i + 1 == input.len() => return None,
            Some(i) => (&input[..i], true),
            None => (input, false),
        };
        let found = if zone { Addr::V6WithZone } else { Addr::V6 };
        let mut ip = [0u8; 16];
        let mut ellipsis = None;
        if s.starts_with(b"::") {
            ellipsis = Some(0);
            s = &s[2..];
            if s.is_empty() {
                return Some((found, ip));
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
                if (ellipsis.is_none() && i != 12) || i + 4 > 16 {
                    return None;
                }
                let v4 = parse_ipv4_fields(s)?;
                ip[i..i + 4].copy_from_slice(&v4);
                s = &[];
                i += 4;
                break;
            }
            let group = s[..digits].iter().fold(0u16, |acc, &c| acc << 4 | char::from(c).to_digit(16).unwrap_or(0) as u16);
            ip[i] = (group >> 8) as u8;
            ip[i + 1] = group as u8;
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
        match (i < 16, ellipsis) {
            (true, None) | (false, Some(_)) => None,
            (true, Some(at)) => {
                let n = 16 - i;
                for j in (at..i).rev() {
                    ip[j + n] = ip[j];
                }
                ip[at..at + n].fill(0);
                Some((found, ip))
            }
            (false, None) => Some((found, ip)),
        }
    }
}

/// The IP parsers of `k8s.io/utils/net` (`ParseIPSloppy`, `ParseCIDRSloppy`): Go 1.16's
/// `net.ParseIP`, which allows leading zeros in IPv4 fields and in IPv6 groups.
pub mod sloppy {
    const BIG: u32 = 0xFF_FFFF;

    /// Leading decimal digits: the value and how many bytes were used, or `None` when there are
    /// no digits or the value reaches 0xFFFFFF.
    pub fn dtoi(s: &[u8]) -> Option<(u32, usize)> {
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

    pub fn parse_ip(s: &[u8]) -> bool {
        for &c in s {
            match c {
                b'.' => return parse_ipv4(s),
                b':' => return parse_ipv6(s),
                _ => {}
            }
        }
        false
    }

    pub fn parse_ipv4(mut s: &[u8]) -> bool {
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

    pub fn parse_ipv6(mut s: &[u8]) -> bool {
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
