//! An LSP session harness: runs the language server in-process on `tokio::io::duplex` pipes (or the
//! `crdls` binary over stdio), scripts a session message by message, answers the server's own
//! requests, and records a transcript of every message in the order the script consumed it.
//!
//! Waits are on content (a diagnostics version, a log line, a response id), never on time; each wait
//! has a generous deadline that fails the test. Server messages that arrive while the script waits for
//! something else stay queued, in order, until a later call consumes them, and `finish` shuts the server
//! down and fails if any was never consumed or if the server ends with another status than the protocol
//! asks (0 after `shutdown` and `exit`, 1 after `exit` alone). Raw bytes can be sent to test broken
//! framing, and the binary's stderr waited on. Because messages enter the transcript when the script
//! consumes them (the client's own messages when they are sent), a transcript depends on the script
//! and the server's answers, not on how the server's concurrent tasks happened to interleave. For the
//! same reason, a `publishDiagnostics` that repeats exactly what was last consumed for its document
//! (same version, same items) is dropped, and so is an older version queued before an awaited one.
//!
//! The transcript is rendered for reading and for snapshots: the workspace's temporary URI becomes
//! `file:///WORKSPACE`, durations such as `in 12 ms` become `in <N> ms`, positions stay as sent
//! (zero-based `line:character` in the negotiated encoding), and every diagnostic range is followed by
//! the text it covers, cut out of the document by the harness's own position arithmetic.
//!
//! The harness is split by job: `options` (what a session starts with: workspace files, settings, the
//! client's capabilities), `session` (starting the server and the client's side of the script),
//! `workspace` (the workspace folder on disk), `wait` (consuming server messages, answering the server's
//! requests, and ending a session), `transport` (Content-Length framing), `render` (the transcript) and
//! `text` (positions, encodings and the harness's own offset arithmetic).

mod options;
mod render;
mod session;
mod text;
mod transport;
mod wait;
mod workspace;

use std::time::Duration;

pub use options::{DiagnosticsMode, SessionOptions};
pub use render::compact;
pub use session::Session;
pub use text::{cursor, exact_offset, position_at, Change, Encoding, Position};

/// How long any one wait may take before the test fails (debug builds on two shared cores are slow).
pub const TIMEOUT: Duration = Duration::from_secs(60);

/// What the workspace folder's URI is rendered as in transcripts.
pub const WORKSPACE_URI: &str = "file:///WORKSPACE";
