//! The `crdls` binary: the language server over stdio (`crdls`, `crdls lsp`, `crdls --stdio`) and
//! `crdls check` for CI and the terminal.

use std::io::IsTerminal;

fn main() {
    let args: Vec<String> = std::env::args().collect();
    if crdls::cli::wants_language_server(&args) {
        let code = crdls_lsp::run_stdio();
        // Exec credential plugins still running would outlive the server.
        crdls_sources::cluster::stop_plugins();
        std::process::exit(code);
    }
    let stdin = std::io::stdin();
    let stdout = std::io::stdout();
    let stderr = std::io::stderr();
    let stdout_is_terminal = stdout.is_terminal();
    let cwd = std::env::current_dir().unwrap_or_default();
    let mut io =
        crdls::cli::Io { stdin: &mut stdin.lock(), stdout: &mut stdout.lock(), stderr: &mut stderr.lock(), stdout_is_terminal, cwd };
    let code = crdls::cli::run(args, &mut io);
    std::process::exit(code);
}
