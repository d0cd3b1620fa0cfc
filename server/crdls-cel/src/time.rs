//! Durations and timestamps as cel-go handles them: Go's duration syntax (`1h30m`, `1.5s`) and its
//! printing (`5400s`), RFC 3339 timestamps between years 1 and 9999, and the calendar accessors in
//! UTC or a named or fixed time zone.

use chrono::{DateTime, Datelike, FixedOffset, NaiveDateTime, Offset, TimeZone, Timelike, Utc};

use crate::value::Timestamp;

/// The earliest timestamp CEL allows: 0001-01-01T00:00:00Z.
const MIN_SECONDS: i64 = -62_135_596_800;
/// The latest: 9999-12-31T23:59:59.999999999Z.
const MAX_SECONDS: i64 = 253_402_300_799;

/// A duration as cel-go prints it: seconds with the shortest decimal fraction, then `s`.
pub fn duration_string(nanos: i64) -> String {
    let negative = nanos < 0;
    let abs = nanos.unsigned_abs();
    let (secs, frac) = (abs / 1_000_000_000, abs % 1_000_000_000);
    let mut out = if negative { "-".to_string() } else { String::new() };
    out.push_str(&secs.to_string());
    if frac != 0 {
        let digits = format!("{frac:09}");
        out.push('.');
        out.push_str(digits.trim_end_matches('0'));
    }
    out.push('s');
    out
}

/// Parses an RFC 3339 timestamp, as Go's `time.Parse(time.RFC3339, ..)` does.
pub fn parse_timestamp(text: &str) -> Result<Timestamp, String> {
    let bad = || format!("parsing time {:?} as \"2006-01-02T15:04:05Z07:00\": cannot parse", text);
    if !text.contains('T') {
        return Err(bad());
    }
    let parsed = DateTime::parse_from_rfc3339(text).map_err(|_| bad())?;
    let ts = Timestamp { seconds: parsed.timestamp(), nanos: parsed.timestamp_subsec_nanos() };
    check_range(ts)
}

/// The timestamp if it lies in CEL's range, else the overflow error.
pub fn check_range(ts: Timestamp) -> Result<Timestamp, String> {
    if ts.seconds < MIN_SECONDS || ts.seconds > MAX_SECONDS {
        Err("timestamp out of range".into())
    } else {
        Ok(ts)
    }
}

/// A timestamp as Go's RFC 3339 with nanoseconds prints it in UTC (`2009-02-13T23:31:30.5Z`).
pub fn timestamp_string(ts: Timestamp) -> String {
    let Some(dt) = utc(ts) else { return format!("{}s", ts.seconds) };
    let mut out = dt.format("%Y-%m-%dT%H:%M:%S").to_string();
    if ts.nanos != 0 {
        out.push('.');
        out.push_str(format!("{:09}", ts.nanos).trim_end_matches('0'));
    }
    out.push('Z');
    out
}

fn utc(ts: Timestamp) -> Option<DateTime<Utc>> {
    Utc.timestamp_opt(ts.seconds, ts.nanos).single()
}

/// `timestamp + duration` (or minus, with a negated duration), range-checked.
pub fn add_duration(ts: Timestamp, nanos: i64) -> Result<Timestamp, String> {
    let total = ts.seconds as i128 * 1_000_000_000 + ts.nanos as i128 + nanos as i128;
    let seconds = total.div_euclid(1_000_000_000);
    let nanos = total.rem_euclid(1_000_000_000) as u32;
    let seconds = i64::try_from(seconds).map_err(|_| "timestamp out of range".to_string())?;
    check_range(Timestamp { seconds, nanos })
}

/// `a - b` for timestamps, as a duration.
pub fn difference(a: Timestamp, b: Timestamp) -> Result<i64, String> {
    let total = (a.seconds as i128 - b.seconds as i128) * 1_000_000_000 + a.nanos as i128 - b.nanos as i128;
    i64::try_from(total).map_err(|_| "integer overflow".to_string())
}

/// A calendar field of a timestamp, in UTC or the time zone `tz` (an IANA name or `±HH:MM`).
pub fn timestamp_field(ts: Timestamp, field: &str, tz: Option<&str>) -> Result<i64, String> {
    let dt = utc(ts).ok_or("timestamp out of range")?;
    let local: NaiveDateTime = match tz {
        None => dt.naive_utc(),
        Some(name) => match fixed_offset(name) {
            Some(offset) => dt.with_timezone(&offset).naive_local(),
            None => {
                let zone: chrono_tz::Tz = name.parse().map_err(|_| format!("unknown time zone {name:?}"))?;
                let local = dt.with_timezone(&zone);
                let offset = local.offset().fix();
                dt.with_timezone(&offset).naive_local()
            }
        },
    };
    Ok(match field {
        "getFullYear" => local.year() as i64,
        "getMonth" => local.month0() as i64,
        "getDayOfYear" => local.ordinal0() as i64,
        "getDayOfMonth" => local.day0() as i64,
        "getDate" => local.day() as i64,
        "getDayOfWeek" => local.weekday().num_days_from_sunday() as i64,
        "getHours" => local.hour() as i64,
        "getMinutes" => local.minute() as i64,
        "getSeconds" => local.second() as i64,
        "getMilliseconds" => (local.nanosecond() / 1_000_000) as i64,
        _ => return Err(format!("no such overload: {field}")),
    })
}

/// `+05:30`, `-08:00` or `05:30` as a fixed offset.
fn fixed_offset(name: &str) -> Option<FixedOffset> {
    let (sign, rest) = match name.as_bytes().first()? {
        b'+' => (1, &name[1..]),
        b'-' => (-1, &name[1..]),
        b'0'..=b'9' => (1, name),
        _ => return None,
    };
    let (h, m) = rest.split_once(':')?;
    let (h, m): (i32, i32) = (h.parse().ok()?, m.parse().ok()?);
    FixedOffset::east_opt(sign * (h * 3600 + m * 60))
}

/// A duration field: whole hours, minutes, seconds or milliseconds.
pub fn duration_field(nanos: i64, field: &str) -> Result<i64, String> {
    Ok(match field {
        "getHours" => nanos / 3_600_000_000_000,
        "getMinutes" => nanos / 60_000_000_000,
        "getSeconds" => nanos / 1_000_000_000,
        // Milliseconds within the second, as cel-go gives them.
        "getMilliseconds" => (nanos / 1_000_000) % 1000,
        _ => return Err(format!("no such overload: {field}")),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn durations_parse_and_print_as_go() {
        assert_eq!(duration_string(5_400_000_000_000), "5400s");
        assert_eq!(duration_string(-1_500_000_000), "-1.5s");
        assert_eq!(duration_string(1), "0.000000001s");
    }

    #[test]
    fn timestamps_parse_print_and_split() {
        let ts = parse_timestamp("2009-02-13T23:31:30.5+01:00").unwrap();
        assert_eq!(timestamp_string(ts), "2009-02-13T22:31:30.5Z");
        assert_eq!(timestamp_field(ts, "getHours", None), Ok(22));
        assert_eq!(timestamp_field(ts, "getHours", Some("America/Los_Angeles")), Ok(14));
        assert_eq!(timestamp_field(ts, "getHours", Some("+05:30")), Ok(4));
        assert_eq!(timestamp_field(ts, "getMonth", None), Ok(1));
        assert!(parse_timestamp("10000-01-01T00:00:00Z").is_err());
    }
}
