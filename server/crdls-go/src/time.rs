//! Go's `time.Parse` for the two layouts the API server reads times with: `time.RFC3339`
//! (`metav1.Time`) and apimachinery's `RFC3339Micro` (`metav1.MicroTime`), with the errors Go gives
//! (`parsing time "x" as "2006-01-02T15:04:05Z07:00": cannot parse "x" as "2006"`), and the time
//! package's own quoting, which differs from `strconv.Quote`.
//!
//! Go parses a layout element by element: the year takes four digits, the month, day, minute and
//! second two, the hour one or two; the literal text between them must be there as written. Where
//! an element cannot be read, the error names what is left of the value and the element; where a
//! number is out of its range, the error names the element's range ("month out of range"); text
//! after the layout is "extra text"; and the day is checked against its month last.

/// Which layout a time is read with.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Layout {
    /// `2006-01-02T15:04:05Z07:00`: any fraction of a second may follow the seconds.
    Rfc3339,
    /// `2006-01-02T15:04:05.000000Z07:00`: exactly six digits of fraction.
    Rfc3339Micro,
}

impl Layout {
    /// The layout as Go writes it.
    pub fn text(self) -> &'static str {
        match self {
            Layout::Rfc3339 => "2006-01-02T15:04:05Z07:00",
            Layout::Rfc3339Micro => "2006-01-02T15:04:05.000000Z07:00",
        }
    }

    fn elements(self) -> &'static [Element] {
        use Element::*;
        match self {
            Layout::Rfc3339 => &[Year, Lit("-"), Month, Lit("-"), Day, Lit("T"), Hour, Lit(":"), Minute, Lit(":"), Second, Zone],
            Layout::Rfc3339Micro => {
                &[Year, Lit("-"), Month, Lit("-"), Day, Lit("T"), Hour, Lit(":"), Minute, Lit(":"), Second, Micro, Zone]
            }
        }
    }
}

/// One element of a layout.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Element {
    Lit(&'static str),
    Year,
    Month,
    Day,
    Hour,
    Minute,
    Second,
    /// `.000000`.
    Micro,
    /// `Z07:00`.
    Zone,
}

impl Element {
    /// The element as the layout writes it, which Go's error names.
    fn text(self) -> &'static str {
        match self {
            Element::Lit(s) => s,
            Element::Year => "2006",
            Element::Month => "01",
            Element::Day => "02",
            Element::Hour => "15",
            Element::Minute => "04",
            Element::Second => "05",
            Element::Micro => ".000000",
            Element::Zone => "Z07:00",
        }
    }
}

/// Go's `time.Parse(layout, value)`: `Ok` when Go reads the value, or Go's error text.
pub fn parse_time(value: &str, layout: Layout) -> Result<(), String> {
    let cannot = |rest: &[u8], element: &str| {
        Err(format!("parsing time {} as {}: cannot parse {} as {}", quote(value), quote(layout.text()), quote_bytes(rest), quote(element)))
    };
    let out_of_range = |what: &str| Err(format!("parsing time {}: {what} out of range", quote(value)));
    let elements = layout.elements();
    let mut rest = value.as_bytes();
    let (mut year, mut month, mut day) = (0i64, 0i64, 0i64);
    for (i, element) in elements.iter().enumerate() {
        let hold = rest;
        match *element {
            Element::Lit(lit) => match rest.strip_prefix(lit.as_bytes()) {
                Some(after) => rest = after,
                None => return cannot(rest, lit),
            },
            Element::Year => {
                if rest.len() < 4 || !rest[0].is_ascii_digit() || !rest[..4].iter().all(u8::is_ascii_digit) {
                    return cannot(hold, "2006");
                }
                year = rest[..4].iter().fold(0, |n, d| n * 10 + i64::from(d - b'0'));
                rest = &rest[4..];
            }
            Element::Month | Element::Day | Element::Minute | Element::Second | Element::Hour => {
                let Some((n, after)) = number(rest, *element != Element::Hour) else {
                    return cannot(hold, element.text());
                };
                rest = after;
                match *element {
                    Element::Month if !(1..=12).contains(&n) => return out_of_range("month"),
                    Element::Month => month = n,
                    Element::Day => day = n,
                    Element::Hour if n >= 24 => return out_of_range("hour"),
                    Element::Minute if n >= 60 => return out_of_range("minute"),
                    Element::Second if n >= 60 => return out_of_range("second"),
                    // A fraction the layout does not write is read here, with any number of digits.
                    Element::Second
                        if elements.get(i + 1) != Some(&Element::Micro)
                            && rest.len() >= 2
                            && matches!(rest[0], b'.' | b',')
                            && rest[1].is_ascii_digit() =>
                    {
                        let digits = rest[1..].iter().take_while(|c| c.is_ascii_digit()).count();
                        rest = &rest[1 + digits..];
                    }
                    _ => {}
                }
            }
            Element::Micro => {
                // Go reads the six digits with `atoi`, which takes a sign too.
                if rest.len() < 7 || !matches!(rest[0], b'.' | b',') {
                    return cannot(hold, ".000000");
                }
                let digits = &rest[1..7];
                let (negative, unsigned) = match digits[0] {
                    b'-' => (true, &digits[1..]),
                    b'+' => (false, &digits[1..]),
                    _ => (false, digits),
                };
                if !unsigned.iter().all(u8::is_ascii_digit) {
                    return cannot(hold, ".000000");
                }
                if negative && unsigned.iter().any(|&d| d != b'0') {
                    return out_of_range("fractional second");
                }
                rest = &rest[7..];
            }
            Element::Zone => {
                if rest.first() == Some(&b'Z') {
                    rest = &rest[1..];
                    continue;
                }
                if rest.len() < 6 || rest[3] != b':' {
                    return cannot(hold, "Z07:00");
                }
                // The minutes are read only when the hours were; the range is told before a bad
                // number or sign, and Go allows an offset of 24 hours or 60 minutes.
                let hours = number(&rest[1..3], true).map(|(n, _)| n);
                let minutes = hours.and_then(|_| number(&rest[4..6], true).map(|(n, _)| n));
                if minutes.is_some_and(|m| m > 60) {
                    return out_of_range("time zone offset minute");
                }
                if hours.is_some_and(|h| h > 24) {
                    return out_of_range("time zone offset hour");
                }
                if minutes.is_none() || !matches!(rest[0], b'+' | b'-') {
                    return cannot(hold, "Z07:00");
                }
                rest = &rest[6..];
            }
        }
    }
    if !rest.is_empty() {
        return Err(format!("parsing time {}: extra text: {}", quote(value), quote_bytes(rest)));
    }
    if day < 1 || day > days_in(month, year) {
        return out_of_range("day");
    }
    Ok(())
}

/// Go's `getnum`: one digit, or two; `fixed` wants two.
fn number(s: &[u8], fixed: bool) -> Option<(i64, &[u8])> {
    match s {
        [a, b, rest @ ..] if a.is_ascii_digit() && b.is_ascii_digit() => Some((i64::from(a - b'0') * 10 + i64::from(b - b'0'), rest)),
        [a, rest @ ..] if a.is_ascii_digit() && !fixed => Some((i64::from(a - b'0'), rest)),
        _ => None,
    }
}

fn days_in(month: i64, year: i64) -> i64 {
    match month {
        2 if year % 4 == 0 && (year % 100 != 0 || year % 400 == 0) => 29,
        2 => 28,
        4 | 6 | 9 | 11 => 30,
        _ => 31,
    }
}

/// The time package's quoting of a value in its errors: double quotes, `"` and `\` escaped, and
/// every byte of a control or non-ASCII character written as `\xNN` (it is not `strconv.Quote`).
pub fn quote(s: &str) -> String {
    quote_bytes(s.as_bytes())
}

/// [`quote`] of bytes.
pub(crate) fn quote_bytes(s: &[u8]) -> String {
    let mut out = String::with_capacity(s.len() + 2);
    out.push('"');
    for &b in s {
        match b {
            b'"' | b'\\' => {
                out.push('\\');
                out.push(char::from(b));
            }
            b' '..=0x7f => out.push(char::from(b)),
            _ => out.push_str(&format!("\\x{b:02x}")),
        }
    }
    out.push('"');
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn times_go_reads() {
        for t in ["2024-02-29T23:59:59Z", "2024-01-02T03:04:05.123456789+01:00", "2024-01-02T3:04:05Z", "2024-01-02T03:04:05,5Z"] {
            assert_eq!(parse_time(t, Layout::Rfc3339), Ok(()), "{t}");
        }
        assert_eq!(parse_time("2024-01-02T03:04:05+24:00", Layout::Rfc3339), Ok(()));
        assert_eq!(parse_time("2024-01-02T03:04:05.000001Z", Layout::Rfc3339Micro), Ok(()));
    }

    #[test]
    fn quoting_is_the_time_packages() {
        assert_eq!(quote("a\"b\\c"), "\"a\\\"b\\\\c\"");
        assert_eq!(quote("é\n"), "\"\\xc3\\xa9\\x0a\"");
    }
}
