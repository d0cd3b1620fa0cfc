//! The command line: `crdls check` (and, later, the language server). Kept in the library so tests
//! drive it in-process with their own input and output.

use std::io::{Read, Write};
use std::path::PathBuf;

use clap::{Parser, Subcommand};

/// crdls: what the Kubernetes API server would say about your CRDs and custom resources, before you apply them.
#[derive(Debug, Parser)]
#[command(name = "crdls", version, about, long_about = None)]
pub struct Cli {
    #[command(subcommand)]
    command: Option<Command>,
}

#[derive(Debug, Subcommand)]
enum Command {
    /// Check custom resources against the CRDs found among the paths and in --crds.
    Check(crate::check::CheckArgs),
    /// Print the estimated cost of every CEL rule of the CRDs among the paths, as the API server
    /// computes it, against the per-rule and per-version limits (exit code 1 when over one).
    Cost(crate::cost::CostArgs),
    /// List every diagnostic code with its default severity and summary, or explain one code: what
    /// triggers it, an example, and how to fix it.
    Explain(crate::explain::ExplainArgs),
    /// Run the language server over stdio (also what `crdls` with no arguments does).
    Lsp(LspArgs),
}

#[derive(Debug, clap::Args)]
struct LspArgs {
    /// Accepted for vscode-languageclient, which appends it; stdio is the only transport.
    #[arg(long)]
    stdio: bool,
}

/// Where the CLI reads and writes, so tests can supply their own.
pub struct Io<'a> {
    /// Standard input, for `-`.
    pub stdin: &'a mut dyn Read,
    /// Standard output: the report.
    pub stdout: &'a mut dyn Write,
    /// Standard error: usage and I/O errors.
    pub stderr: &'a mut dyn Write,
    /// Whether standard output is a terminal (for `--color auto`).
    pub stdout_is_terminal: bool,
    /// The directory relative paths start from; reported paths are shown relative to it.
    pub cwd: PathBuf,
}

/// Exit code: no errors found.
pub const EXIT_OK: i32 = 0;
/// Exit code: the check found errors.
pub const EXIT_ERRORS: i32 = 1;
/// Exit code: bad usage or an unreadable input.
pub const EXIT_USAGE: i32 = 2;

/// Whether the arguments ask for the language server: none at all, `lsp`, or `--stdio` (which
/// vscode-languageclient appends) outside a `check` command.
pub fn wants_language_server(args: &[String]) -> bool {
    let rest = args.get(1..).unwrap_or_default();
    match rest.first().map(String::as_str) {
        None | Some("lsp") => true,
        Some("check") | Some("cost") | Some("explain") | Some("help") => false,
        Some(_) => rest.iter().any(|a| a == "--stdio"),
    }
}

/// Runs the command line with `args` (the program name first) and returns the exit code.
pub fn run(args: impl IntoIterator<Item = String>, io: &mut Io<'_>) -> i32 {
    let cli = match Cli::try_parse_from(args) {
        Ok(cli) => cli,
        Err(err) => {
            let code = if err.use_stderr() { EXIT_USAGE } else { EXIT_OK };
            let rendered = err.render().to_string();
            let target: &mut dyn Write = if err.use_stderr() { io.stderr } else { io.stdout };
            let _ = target.write_all(rendered.as_bytes());
            return code;
        }
    };
    match cli.command {
        Some(Command::Check(args)) => crate::check::check(args, io),
        Some(Command::Cost(args)) => crate::cost::cost(args, io),
        Some(Command::Explain(args)) => crate::explain::explain(args, io),
        Some(Command::Lsp(_)) | None => {
            // `main` starts the server before parsing; reaching here means the library was called directly.
            let _ =
                writeln!(io.stderr, "crdls: the language server speaks LSP over stdio; start it from an editor as `crdls` or `crdls lsp`");
            EXIT_USAGE
        }
    }
}
