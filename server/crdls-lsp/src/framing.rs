//! The client's byte stream cut into message bodies by their `Content-Length` headers, leniently and
//! with recovery: headers other than `Content-Length` are ignored, a body whose JSON ends before its
//! declared length is delivered where it ends (so a too-long length does not swallow the next message
//! or leave the server waiting for bytes that never come), and after a broken frame the reader skips to
//! the next `Content-Length:` header instead of stopping or reading garbage as headers forever.
//!
//! The recovery rests on a property of JSON: outside strings only structural characters, whitespace,
//! numbers and the literals `true`, `false` and `null` may appear, and inside strings no raw control
//! character may. So the next message's `Content-Length: 123\r\n` can never be part of a valid body, and
//! a scan of the body's bytes tells where a message really ends or where it stopped being JSON.

use tokio::io::{AsyncRead, AsyncReadExt};

/// Declared lengths above this are taken for a corrupt header: no LSP message comes near it.
const MAX_BODY_BYTES: usize = 256 * 1024 * 1024;

/// A header block longer than this is not one.
const MAX_HEADER_BYTES: usize = 8 * 1024;

/// What a header block starts with, compared without regard to ASCII case.
const MARKER: &[u8] = b"content-length:";

/// How much is read from the input at a time.
const CHUNK: usize = 64 * 1024;

/// One step of the input.
#[derive(Debug, PartialEq, Eq)]
pub(crate) enum Frame {
    /// A message body: the declared bytes, or fewer when its JSON value ended before them.
    Body(Vec<u8>),
    /// Bytes that were not a well-formed frame; the reader has skipped to the next header. The text
    /// says what was wrong.
    Broken(String),
}

/// Reads frames from `input`, recovering from broken ones.
pub(crate) struct FrameReader<R> {
    input: R,
    buf: Vec<u8>,
    /// Set after a broken frame: bytes are dropped up to the next `Content-Length:`.
    skipping: bool,
    /// Bytes the last body's header declared beyond the end of its JSON; only whitespace may fill them.
    owed: usize,
    /// What was repaired since the caller last asked (a length that did not match its body).
    notes: Vec<String>,
}

impl<R: AsyncRead + Unpin> FrameReader<R> {
    pub(crate) fn new(input: R) -> Self {
        FrameReader { input, buf: Vec::new(), skipping: false, owed: 0, notes: Vec::new() }
    }

    /// Skips to the next `Content-Length:` header: the caller found the last body unreadable.
    pub(crate) fn resync(&mut self) {
        self.skipping = true;
    }

    /// What the reader repaired since the last call, for the log.
    pub(crate) fn take_notes(&mut self) -> Vec<String> {
        std::mem::take(&mut self.notes)
    }

    /// The next frame, or `None` at the end of the input (or when it cannot be read any more).
    pub(crate) async fn next(&mut self) -> Option<Frame> {
        loop {
            if self.skipping {
                match find_marker(&self.buf) {
                    Some(at) => {
                        self.buf.drain(..at);
                        self.skipping = false;
                    }
                    None => {
                        // Keep a tail that may be the start of a marker split across reads.
                        let cut = self.buf.len().saturating_sub(MARKER.len() - 1);
                        self.buf.drain(..cut);
                        if !self.fill().await {
                            return None;
                        }
                        continue;
                    }
                }
            }
            let blank = self.buf.iter().take_while(|b| b.is_ascii_whitespace()).count();
            self.owed = self.owed.saturating_sub(blank);
            self.buf.drain(..blank);
            if self.buf.is_empty() {
                if !self.fill().await {
                    return None;
                }
                continue;
            }
            if self.owed > 0 {
                self.notes.push(format!(
                    "a message's Content-Length was {} bytes longer than its JSON; the next message started there",
                    self.owed
                ));
                self.owed = 0;
            }
            match parse_headers(&self.buf) {
                Headers::Partial => {
                    if !self.fill().await {
                        self.buf.clear();
                        return Some(Frame::Broken("the input ended inside a message's headers".into()));
                    }
                }
                Headers::Invalid(reason) => return Some(self.broken(1, reason)),
                Headers::Complete { header_len, body_len } if body_len > MAX_BODY_BYTES => {
                    return Some(self.broken(header_len, format!("a Content-Length of {body_len} bytes is not believable")));
                }
                Headers::Complete { header_len, body_len } => {
                    self.buf.drain(..header_len);
                    return Some(self.body(body_len).await);
                }
            }
        }
    }

    /// Reads a body of `declared` bytes, ending it early where its JSON ends or stops being JSON.
    async fn body(&mut self, declared: usize) -> Frame {
        let mut scan = JsonScan::default();
        let mut scanned = 0;
        loop {
            let available = self.buf.len().min(declared);
            match scan.feed(&self.buf[scanned..available]) {
                Scanned::More => scanned = available,
                Scanned::End(at) => {
                    let end = scanned + at;
                    self.owed = declared - end;
                    return Frame::Body(self.buf.drain(..end).collect());
                }
                Scanned::Invalid(at) => {
                    let at = scanned + at;
                    let byte = self.buf[at];
                    // The next header may have begun inside a string that never closed, before this
                    // byte: look for it from the start of the body.
                    return self.broken(0, format!("the message body stops being JSON at byte {at} ({:?})", char::from(byte)));
                }
            }
            if self.buf.len() >= declared {
                return Frame::Body(self.buf.drain(..declared).collect());
            }
            if !self.fill().await {
                self.buf.clear();
                return Frame::Broken(format!("the input ended inside a message body ({} of {declared} bytes)", available));
            }
        }
    }

    /// Drops `skip` bytes, then everything up to the next header; returns the frame that says why.
    fn broken(&mut self, skip: usize, reason: String) -> Frame {
        self.buf.drain(..skip.min(self.buf.len()));
        self.skipping = true;
        Frame::Broken(reason)
    }

    /// Appends what the input has; `false` at its end or on a read error (logged).
    async fn fill(&mut self) -> bool {
        self.buf.reserve(CHUNK);
        match self.input.read_buf(&mut self.buf).await {
            Ok(0) => false,
            Ok(_) => true,
            Err(e) => {
                crate::log_stderr(&format!("cannot read the client's input: {e}"));
                false
            }
        }
    }
}

/// Where `Content-Length:` first occurs in `bytes`, in any ASCII case.
fn find_marker(bytes: &[u8]) -> Option<usize> {
    bytes.windows(MARKER.len()).position(|w| w.eq_ignore_ascii_case(MARKER))
}

/// What the start of the buffer holds.
#[derive(Debug, PartialEq, Eq)]
enum Headers {
    /// Not all of the header block has arrived.
    Partial,
    /// A header block of `header_len` bytes declaring a body of `body_len`.
    Complete { header_len: usize, body_len: usize },
    /// Not a header block.
    Invalid(String),
}

/// Reads a header block at the start of `bytes`: `Name: value` lines ended by an empty line (CRLF
/// as the specification says, a lone LF tolerated). Garbage is recognised as soon as it is seen, even
/// before a line ends, so a stream of bytes without line breaks cannot stall the reader.
fn parse_headers(bytes: &[u8]) -> Headers {
    let mut length = None;
    let mut at = 0;
    loop {
        let rest = &bytes[at..];
        let line_end = rest.iter().position(|&b| b == b'\n');
        let line = &rest[..line_end.unwrap_or(rest.len())];
        let line = line.strip_suffix(b"\r").unwrap_or(line);
        if line_end.is_some() && line.is_empty() {
            let header_len = at + 1 + usize::from(rest.starts_with(b"\r\n"));
            return match length {
                Some(body_len) => Headers::Complete { header_len, body_len },
                None => Headers::Invalid("a header block without Content-Length".into()),
            };
        }
        let name_end = line.iter().position(|&b| b == b':');
        let name = &line[..name_end.unwrap_or(line.len())];
        if let Some(bad) = name.iter().find(|&&b| !(b.is_ascii_alphanumeric() || b == b'-')) {
            return Headers::Invalid(format!("a header line with {:?} in its name", char::from(*bad)));
        }
        // A length must be digits, checked before its line ends: text that merely mentions the header
        // (where the reader looks for one after a broken frame) would otherwise be waited on.
        if let Some(name_end) = name_end.filter(|_| name.eq_ignore_ascii_case(b"content-length")) {
            if let Some(bad) = line[name_end + 1..].iter().find(|&&b| !(b.is_ascii_digit() || b == b' ' || b == b'\t')) {
                return Headers::Invalid(format!("a Content-Length with {:?} in it", char::from(*bad)));
            }
        }
        let Some(line_end) = line_end else {
            return if bytes.len() > MAX_HEADER_BYTES {
                Headers::Invalid("a header block that does not end".into())
            } else {
                Headers::Partial
            };
        };
        let Some(name_end) = name_end else {
            return Headers::Invalid("a header line without a colon".into());
        };
        if name.eq_ignore_ascii_case(b"content-length") {
            let value = String::from_utf8_lossy(&line[name_end + 1..]);
            match value.trim().parse::<usize>() {
                Ok(n) => length = Some(n),
                Err(_) => return Headers::Invalid(format!("a Content-Length of {:?}", value.trim())),
            }
        }
        at += line_end + 1;
        if at > MAX_HEADER_BYTES {
            return Headers::Invalid("a header block that does not end".into());
        }
    }
}

/// What a scan of body bytes found.
#[derive(Debug, PartialEq, Eq)]
enum Scanned {
    /// The value goes on (or the body is not an object or array, whose end the scan does not find).
    More,
    /// The value ends just before this offset of the bytes fed.
    End(usize),
    /// The byte at this offset cannot be part of JSON text here.
    Invalid(usize),
}

/// An incremental scan of a JSON object or array: nesting depth and string state, enough to find where
/// the value ends and to notice bytes that no JSON text may hold. It validates nothing else; serde does.
#[derive(Default)]
struct JsonScan {
    depth: usize,
    started: bool,
    /// The body does not start with `{` or `[`: its length alone decides.
    opaque: bool,
    in_string: bool,
    escaped: bool,
}

impl JsonScan {
    fn feed(&mut self, bytes: &[u8]) -> Scanned {
        if self.opaque {
            return Scanned::More;
        }
        for (i, &b) in bytes.iter().enumerate() {
            if self.in_string {
                if self.escaped {
                    self.escaped = false;
                } else if b == b'\\' {
                    self.escaped = true;
                } else if b == b'"' {
                    self.in_string = false;
                } else if b < 0x20 {
                    return Scanned::Invalid(i);
                }
                continue;
            }
            match b {
                b'{' | b'[' => {
                    self.started = true;
                    self.depth += 1;
                }
                b'}' | b']' if self.started => {
                    self.depth -= 1;
                    if self.depth == 0 {
                        return Scanned::End(i + 1);
                    }
                }
                _ if b.is_ascii_whitespace() => {}
                _ if !self.started => {
                    self.opaque = true;
                    return Scanned::More;
                }
                b'"' => self.in_string = true,
                b',' | b':' | b'-' | b'+' | b'.' | b'0'..=b'9' => {}
                b'a' | b'e' | b'f' | b'l' | b'n' | b'r' | b's' | b't' | b'u' | b'E' => {}
                _ => return Scanned::Invalid(i),
            }
        }
        Scanned::More
    }
}

#[cfg(test)]
mod tests;
