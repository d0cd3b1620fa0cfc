//! Go's standard base64 decoding (`encoding/base64.StdEncoding`), as `encoding/json` uses it for a
//! `[]byte` field: what it accepts and, for what it refuses, the offset its `CorruptInputError` names
//! (`illegal base64 data at input byte N`). Line breaks (`\r`, `\n`) are skipped anywhere; the alphabet
//! is the standard one with `=` padding, and a last group must be whole.

/// The value of a character of the standard alphabet.
fn sextet(c: u8) -> Option<u8> {
    match c {
        b'A'..=b'Z' => Some(c - b'A'),
        b'a'..=b'z' => Some(c - b'a' + 26),
        b'0'..=b'9' => Some(c - b'0' + 52),
        b'+' => Some(62),
        b'/' => Some(63),
        _ => None,
    }
}

/// Whether `c` is a line break, which the decoder skips.
fn is_break(c: u8) -> bool {
    c == b'\r' || c == b'\n'
}

/// Decodes `text` as Go's `StdEncoding` does, without keeping the bytes: `Err(n)` is the input byte its
/// error names.
pub fn check_std(text: &str) -> Result<(), usize> {
    let src = text.as_bytes();
    let mut at = 0;
    loop {
        // One group of four characters (line breaks skipped), starting at `at`.
        let mut taken = 0;
        while taken < 4 {
            if at == src.len() {
                return match taken {
                    0 => Ok(()),
                    // A group cut short: padding is required, so the error names where it began.
                    _ => Err(at - taken),
                };
            }
            let c = src[at];
            at += 1;
            if sextet(c).is_some() {
                taken += 1;
                continue;
            }
            if is_break(c) {
                continue;
            }
            if c != b'=' || taken < 2 {
                return Err(at - 1);
            }
            // Padding after two characters needs a second `=`.
            if taken == 2 {
                while at < src.len() && is_break(src[at]) {
                    at += 1;
                }
                if at == src.len() {
                    return Err(src.len());
                }
                if src[at] != b'=' {
                    return Err(at - 1);
                }
                at += 1;
            }
            // After padding, only line breaks may follow.
            while at < src.len() && is_break(src[at]) {
                at += 1;
            }
            return if at < src.len() { Err(at) } else { Ok(()) };
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn offsets_are_those_go_names() {
        // Accepted: whole groups, padding, line breaks anywhere, nothing at all.
        for ok in ["", "aGVsbG8=", "aGVs\nbG8=\n", "aGk=", "YQ==", "YW\r\nJj", "YQ=\n="] {
            assert_eq!(check_std(ok), Ok(()), "{ok:?}");
        }
        // A character outside the alphabet names itself.
        assert_eq!(check_std("not base64!"), Err(3));
        assert_eq!(check_std("[REDACTED]"), Err(0));
        // A last group cut short names where the group began.
        assert_eq!(check_std("aGVsbG8"), Err(4));
        assert_eq!(check_std("aGVsb"), Err(4));
        // Padding too early, a lone `=` after two characters at the end, and text after padding.
        assert_eq!(check_std("a==="), Err(1));
        assert_eq!(check_std("YQ="), Err(3));
        assert_eq!(check_std("YQ=x"), Err(2));
        assert_eq!(check_std("aGk=aGk="), Err(4));
        assert_eq!(check_std("aGVsbG8gd29ybGQhIQ-_"), Err(18));
        assert_eq!(check_std("aGVs bG8="), Err(4));
        assert_eq!(check_std("aGVsbG8gd29ybGQ=\n\nx"), Err(18));
        assert_eq!(check_std("YQ==\nYQ=="), Err(5));
    }
}
