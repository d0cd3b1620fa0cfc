//! The `crdls` binary: the language server over stdio (`crdls`, `crdls lsp`, `crdls --stdio`) and
//! `crdls check` for CI and the terminal.

use std::io::{IsTerminal, Write};

fn main() {
    // Arguments as the system gives them: a file name need not be UTF-8 (`std::env::args` panics on
    // one that is not). Only the choice of the language server looks at them as text.
    let args: Vec<std::ffi::OsString> = std::env::args_os().collect();
    let lossy: Vec<String> = args.iter().map(|a| a.to_string_lossy().into_owned()).collect();
    if crdls::cli::wants_language_server(&lossy) {
        // Someone who typed `crdls` in a terminal would otherwise face a silent wait.
        if std::io::stdin().is_terminal() {
            let _ = writeln!(std::io::stderr(), "{}", crdls::cli::LANGUAGE_SERVER_IN_A_TERMINAL);
        }
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
        crdls::io::Io { stdin: &mut stdin.lock(), stdout: &mut stdout.lock(), stderr: &mut stderr.lock(), stdout_is_terminal, cwd };
    let code = crdls::cli::run(args, &mut io);
    std::process::exit(code);
}
