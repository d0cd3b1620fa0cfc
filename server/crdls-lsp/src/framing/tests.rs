//! Tests of the frame reader: well-formed frames, lengths that are too short or too long, garbage
//! between frames, and input that arrives a byte at a time.

use std::pin::Pin;
use std::task::{Context, Poll};

use tokio::io::{AsyncRead, ReadBuf};

use super::{Frame, FrameReader};

/// Input that hands out one byte per read, the worst a pipe can do.
struct Trickle<'a>(&'a [u8]);

impl AsyncRead for Trickle<'_> {
    fn poll_read(mut self: Pin<&mut Self>, _: &mut Context<'_>, buf: &mut ReadBuf<'_>) -> Poll<std::io::Result<()>> {
        if let Some((&first, rest)) = self.0.split_first() {
            buf.put_slice(&[first]);
            self.0 = rest;
        }
        Poll::Ready(Ok(()))
    }
}

fn frame(body: &str) -> String {
    format!("Content-Length: {}\r\n\r\n{body}", body.len())
}

/// Every frame of `input`, read whole and a byte at a time (which must agree), as text.
fn frames(input: &str) -> Vec<String> {
    let runtime = tokio::runtime::Builder::new_current_thread().build().expect("a runtime");
    runtime.block_on(async {
        let whole = read_all(FrameReader::new(input.as_bytes())).await;
        let trickled = read_all(FrameReader::new(Trickle(input.as_bytes()))).await;
        assert_eq!(whole, trickled, "reading a byte at a time changes the frames");
        whole
    })
}

async fn read_all<R: AsyncRead + Unpin>(mut reader: FrameReader<R>) -> Vec<String> {
    let mut out = Vec::new();
    while let Some(frame) = reader.next().await {
        out.extend(reader.take_notes().into_iter().map(|n| format!("note: {n}")));
        match frame {
            Frame::Body(body) => {
                let text = String::from_utf8_lossy(&body).into_owned();
                // The caller's part: a body that is not JSON makes the reader skip to the next header.
                if serde_json::from_slice::<serde_json::Value>(&body).is_err() {
                    reader.resync();
                }
                out.push(text);
            }
            Frame::Broken(reason) => out.push(format!("broken: {reason}")),
        }
    }
    out
}

#[test]
fn well_formed_frames_with_other_headers_and_lone_line_feeds() {
    let input = format!(
        "{}Content-Type: application/vscode-jsonrpc; charset=utf-8\r\nContent-Length: 2\r\n\r\n[]content-length: 4\n\n\"ab\"{}",
        frame(r#"{"a":"}{\"\n"}"#),
        frame("{}")
    );
    assert_eq!(frames(&input), [r#"{"a":"}{\"\n"}"#, "[]", "\"ab\"", "{}"]);
}

#[test]
fn a_length_too_short_costs_that_message_only() {
    let input = format!("Content-Length: 10\r\n\r\n{{\"id\":1,\"method\":\"x\"}}{}", frame(r#"{"id":2}"#));
    assert_eq!(frames(&input), [r#"{"id":1,"m"#, r#"{"id":2}"#]);
}

#[test]
fn a_length_too_long_ends_the_body_where_its_json_ends() {
    // The first message is delivered without waiting for the bytes its length promised; the second
    // is read from its own header.
    let input = format!("Content-Length: 99\r\n\r\n{{\"id\":1}}{}", frame(r#"{"id":2}"#));
    assert_eq!(
        frames(&input),
        [
            r#"{"id":1}"#,
            "note: a message's Content-Length was 91 bytes longer than its JSON; the next message started there",
            r#"{"id":2}"#
        ]
    );
    // Whitespace may fill the promised length.
    assert_eq!(frames("Content-Length: 4\r\n\r\n{}\r\n"), ["{}"]);
}

#[test]
fn a_body_that_stops_being_json_is_skipped_up_to_the_next_header() {
    let input = format!("Content-Length: 99\r\n\r\n{{\"id\":1, oops{}", frame("{}"));
    assert_eq!(frames(&input), ["broken: the message body stops being JSON at byte 9 ('o')", "{}"]);
    // An unterminated string meets the next header's line break.
    let input = format!("Content-Length: 99\r\n\r\n{{\"id\":\"1{}", frame("{}"));
    assert_eq!(frames(&input), ["broken: the message body stops being JSON at byte 25 ('\\r')", "{}"]);
}

#[test]
fn garbage_and_bad_headers_are_skipped() {
    let input = format!("hello{}Content-Length: x\r\n\r\n{}X-Thing\r\n\r\n{}", frame("[1]"), frame("[2]"), frame("[3]"));
    assert_eq!(
        frames(&input),
        [
            "broken: a header block without Content-Length",
            "[1]",
            "broken: a Content-Length with 'x' in it",
            "[2]",
            "broken: a header line without a colon",
            "[3]"
        ]
    );
    let input = format!("Content-Type: x\r\n\r\n{}Content-Length: 99999999999\r\n\r\n{}", frame("[1]"), frame("[2]"));
    assert_eq!(
        frames(&input),
        ["broken: a header block without Content-Length", "[1]", "broken: a Content-Length of 99999999999 bytes is not believable", "[2]"]
    );
}

#[test]
fn the_end_of_the_input_inside_a_frame_is_reported() {
    assert_eq!(frames("Content-Len"), ["broken: the input ended inside a message's headers"]);
    assert_eq!(frames("Content-Length: 9\r\n\r\n[1,"), ["broken: the input ended inside a message body (3 of 9 bytes)"]);
    // Text that mentions a header, where a header is looked for, is not taken for one.
    assert_eq!(frames("Content-Length: 5, said the text\"}"), ["broken: a Content-Length with ',' in it"]);
    assert!(frames("\r\n  ").is_empty());
}
