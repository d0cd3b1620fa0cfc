//! Go's `time.ParseDuration`, the one parser behind the `duration` format check and CEL's
//! `duration()`: `[-+]?([0-9]*(\.[0-9]*)?[a-z]+)+` or a bare `0`, within ±2^63 nanoseconds.

use crate::time::{quote, quote_bytes};

/// Nanoseconds in each unit Go accepts.
fn unit_nanos(unit: &[u8]) -> Option<u64> {
    Some(match unit {
        b"ns" => 1,
        // `µs` with U+00B5 (micro sign) and with U+03BC (Greek mu).
        b"us" | b"\xc2\xb5s" | b"\xce\xbcs" => 1_000,
        b"ms" => 1_000_000,
        b"s" => 1_000_000_000,
        b"m" => 60_000_000_000,
        b"h" => 3_600_000_000_000,
        _ => return None,
    })
}

/// 2^63, the bound on the magnitude Go allows while adding up a duration.
const LIMIT: u64 = 1 << 63;

/// Parses a duration as Go does: the nanoseconds, or Go's error text (`time: invalid duration "x"`,
/// `time: missing unit in duration "1"`, `time: unknown unit "d" in duration "1d"`). A fraction with
/// more digits than an int64 holds stops gaining precision rather than failing, so
/// `0.999999999999999999999999999999h` is a valid duration just under an hour.
pub fn parse_duration(text: &str) -> Result<i64, String> {
    let invalid = || format!("time: invalid duration {}", quote(text));
    let mut s = text.as_bytes();
    let mut negative = false;
    if let Some(&c) = s.first() {
        if c == b'-' || c == b'+' {
            negative = c == b'-';
            s = &s[1..];
        }
    }
    if s == b"0" {
        return Ok(0);
    }
    if s.is_empty() {
        return Err(invalid());
    }
    let mut total: u64 = 0;
    while !s.is_empty() {
        if !(s[0] == b'.' || s[0].is_ascii_digit()) {
            return Err(invalid());
        }
        // The integer part; an overflow is an error.
        let int_len = s.iter().take_while(|c| c.is_ascii_digit()).count();
        let mut v: u64 = 0;
        for &c in &s[..int_len] {
            if v > LIMIT / 10 {
                return Err(invalid());
            }
            v = v * 10 + u64::from(c - b'0');
            if v > LIMIT {
                return Err(invalid());
            }
        }
        s = &s[int_len..];
        let pre = int_len > 0;
        // The fraction, which stops gaining precision instead of overflowing (`leadingFraction`).
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
            return Err(invalid());
        }
        let unit_len = s.iter().position(|&c| c == b'.' || c.is_ascii_digit()).unwrap_or(s.len());
        if unit_len == 0 {
            return Err(format!("time: missing unit in duration {}", quote(text)));
        }
        let unit_text = &s[..unit_len];
        let Some(unit) = unit_nanos(unit_text) else {
            return Err(format!("time: unknown unit {} in duration {}", quote_bytes(unit_text), quote(text)));
        };
        s = &s[unit_len..];
        if v > LIMIT / unit {
            return Err(invalid());
        }
        v *= unit;
        if f > 0 {
            // Go converts the product to uint64, saturating far out of range values.
            v += (f as f64 * (unit as f64 / scale)) as u64;
            if v > LIMIT {
                return Err(invalid());
            }
        }
        // Go adds in uint64 arithmetic, which wraps.
        total = total.wrapping_add(v);
        if total > LIMIT {
            return Err(invalid());
        }
    }
    if negative {
        // -2^63 is the one magnitude that fits only as a negative number.
        return Ok((total as i64).wrapping_neg());
    }
    if total > LIMIT - 1 {
        return Err(invalid());
    }
    Ok(total as i64)
}

#[cfg(test)]
mod tests {
    use super::parse_duration;

    #[test]
    fn parses_like_go() {
        let ok = [
            ("0", 0),
            ("1h30m", 5_400_000_000_000),
            ("-1.5s", -1_500_000_000),
            ("+100ms", 100_000_000),
            ("2us", 2_000),
            ("2µs", 2_000),
            ("2μs", 2_000),
            (".5s", 500_000_000),
            ("1.s", 1_000_000_000),
            ("9223372036854775807ns", i64::MAX),
            ("-9223372036854775808ns", i64::MIN),
            // A fraction longer than int64 precision is cut, not an overflow.
            ("0.999999999999999999999999999999h", 3_600_000_000_000),
        ];
        for (text, nanos) in ok {
            assert_eq!(parse_duration(text), Ok(nanos), "{text}");
        }
        assert_eq!(parse_duration("9223372036854775808ns"), Err("time: invalid duration \"9223372036854775808ns\"".into()));
        assert_eq!(parse_duration("1"), Err("time: missing unit in duration \"1\"".into()));
        assert_eq!(parse_duration("1d"), Err("time: unknown unit \"d\" in duration \"1d\"".into()));
        for bad in ["", "-", ".", "1h-2m", "h", "1.2.3s", "3000000h"] {
            assert!(parse_duration(bad).is_err(), "{bad}");
        }
    }
}
