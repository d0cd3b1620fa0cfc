//! The crdls language server, the only crate that knows LSP. Handlers either mutate state (fast,
//! synchronous, no `.await` before the state is updated) or read a snapshot on a blocking thread.
//! Checking a document is the same function `crdls check` runs, debounced, single-flight per
//! document, and published only while the document is still at the checked version.
//!
//! Where things are: `server.rs` routes each LSP method to its handler in `handlers/`, one module per
//! family of methods. `session.rs` holds the state the handlers share; `scheduler.rs` decides when a
//! document is checked and `analysis.rs` checks it; `index.rs` keeps the CRD index (workspace scan,
//! open buffers, watched files), its scans run one at a time by `flight.rs`; `settings.rs` layers the settings; `capabilities.rs` reads the
//! client's capabilities and declares the server's; `ext.rs` is the protocol extension
//! (`crdls/indexStatus`, `crdls/crdForDocument`). Conversions to LSP types live at the edge, in
//! `proto.rs` (positions and diagnostics) and `convert.rs` (the editor features' results). tower-lsp
//! runs the protocol between edges of our own: `framing.rs` and `input.rs` read and check the client's
//! messages before it does, `guard.rs` wraps its service (panics, `$/` requests), and `transport.rs`
//! wires them together and decides the exit status.

mod analysis;
mod capabilities;
mod convert;
mod document;
mod ext;
mod fetch;
mod flight;
mod framing;
mod git;
mod guard;
mod handlers;
mod index;
mod input;
mod objects;
mod proto;
mod scheduler;
mod server;
mod session;
mod settings;
mod transport;

use tokio::io::{AsyncRead, AsyncWrite};
use tower_lsp::LspService;

pub use crate::ext::CrdForDocumentParams;
pub use crate::session::Backend;
pub use crate::transport::Ending;

/// Serves LSP over the given streams until the client exits; says how the session ended.
pub async fn serve<I: AsyncRead + Unpin + Send + 'static, O: AsyncWrite>(input: I, output: O) -> Ending {
    let (service, socket) =
        LspService::build(Backend::new).custom_method(ext::CRD_FOR_DOCUMENT, handlers::definition::crd_for_document).finish();
    let client = service.inner().client.clone();
    transport::serve(input, output, service, socket, client).await
}

/// Serves LSP over stdin and stdout (stdout carries JSON-RPC only; logs go to stderr and the client).
/// Returns the process's exit status: 0 after `shutdown` and `exit`, 1 otherwise.
pub fn run_stdio() -> i32 {
    let runtime = match tokio::runtime::Builder::new_multi_thread().worker_threads(2).enable_all().build() {
        Ok(runtime) => runtime,
        Err(e) => {
            log_stderr(&format!("cannot start the async runtime: {e}"));
            return 1;
        }
    };
    let ending = runtime.block_on(serve(tokio::io::stdin(), tokio::io::stdout()));
    // The stdin reader blocks in a read that only the client closing stdin would end: do not wait for it.
    runtime.shutdown_background();
    ending.exit_code()
}

/// Writes a line to stderr, the one place the server may print.
#[allow(clippy::print_stderr)]
fn log_stderr(message: &str) {
    eprintln!("crdls: {message}");
}

/// The CRD index the editor's workspace scan builds from the files below `roots` and the configured
/// local CRD paths (downloads aside, which come from the cache as `crdls check` reads them). `crdls
/// check` builds its index from the same resolver; a test holds the two to the same result.
pub fn scan_index(roots: &[std::path::PathBuf], config: &crdls_workspace::Config) -> crdls_crd::CrdIndex {
    let mut index = crdls_crd::CrdIndex::new();
    index::scan_disk(roots, config).apply(&mut index, &std::collections::HashSet::new());
    index
}
