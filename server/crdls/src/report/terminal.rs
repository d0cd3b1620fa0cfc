//! Text bound for a terminal made harmless: every control character but line feed and tab is shown as
//! its Unicode control picture, so that no escape sequence from a file's content, a file's name or a
//! server's error reaches the terminal (an `ESC ]52` sequence, for one, writes the clipboard).

use std::borrow::Cow;
use std::io;

/// `text` with every control character other than `\n` and `\t` replaced by its visible stand-in
/// (see [`control_picture`]): ESC becomes `␛`, `\r` becomes `␍`, and the C1 controls, which some
/// terminals obey as escapes too, become `�`.
pub fn sanitize(text: &str) -> Cow<'_, str> {
    if !text.chars().any(is_unsafe) {
        return Cow::Borrowed(text);
    }
    Cow::Owned(text.chars().map(|c| if is_unsafe(c) { control_picture(c) } else { c }).collect())
}

/// Whether a terminal could take `c` as part of a command, or `c` could make the text around it read
/// in another order than it is (Unicode's bidirectional embeddings, overrides and isolates: a file
/// name holding them can hide what a message says).
fn is_unsafe(c: char) -> bool {
    (c.is_control() && c != '\n' && c != '\t') || matches!(c, '\u{202a}'..='\u{202e}' | '\u{2066}'..='\u{2069}')
}

/// The visible stand-in for a control character: `␍` for `\r` and so on, `�` where Unicode has no picture.
pub(super) fn control_picture(c: char) -> char {
    match c as u32 {
        code @ 0..=0x1f => char::from_u32(0x2400 + code).unwrap_or('\u{fffd}'),
        0x7f => '\u{2421}',
        _ => '\u{fffd}',
    }
}

/// A writer that passes what it is given through [`sanitize`]: the CLI's standard error, where file
/// names, configuration values and servers' answers are quoted in messages.
pub struct TerminalSafe<'a> {
    inner: &'a mut dyn io::Write,
}

impl<'a> TerminalSafe<'a> {
    /// Wraps `inner`.
    pub fn new(inner: &'a mut dyn io::Write) -> TerminalSafe<'a> {
        TerminalSafe { inner }
    }
}

impl io::Write for TerminalSafe<'_> {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        // Formatted output arrives a whole `str` piece at a time, so a character is never split
        // between two calls; bytes that are not UTF-8 show as `�`.
        let text = String::from_utf8_lossy(buf);
        self.inner.write_all(sanitize(&text).as_bytes())?;
        Ok(buf.len())
    }

    fn flush(&mut self) -> io::Result<()> {
        self.inner.flush()
    }
}

#[cfg(test)]
mod tests {
    use std::io::Write as _;

    use super::*;

    #[test]
    fn control_characters_are_shown_not_obeyed() {
        assert_eq!(sanitize("plain\ttext\nnext"), "plain\ttext\nnext");
        assert!(matches!(sanitize("plain"), Cow::Borrowed(_)));
        assert_eq!(sanitize("a\x1b]52;c;aGk=\x07b\r\u{9b}2J\x7f"), "a␛]52;c;aGk=␇b␍�2J␡");
        assert_eq!(sanitize("crd\u{202e}lmay.yaml and \u{2067}x\u{2069}"), "crd�lmay.yaml and �x�");
        let mut out = Vec::new();
        let answer = "nope 401 \x1b[2J";
        writeln!(TerminalSafe::new(&mut out), "crdls: {answer}").unwrap();
        assert_eq!(String::from_utf8(out).unwrap(), "crdls: nope 401 ␛[2J\n");
    }
}
