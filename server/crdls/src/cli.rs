//! The command line: `crdls check`, `cost`, `explain`, `explain-field`, `completions` and `man` (the language server
//! starts in `main`). Kept in the library so tests drive it in-process with their own input and output.

use std::io::Write;
use std::path::PathBuf;

use clap::{CommandFactory, Parser, Subcommand};

use crate::io::{Io, EXIT_OK, EXIT_USAGE};

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
    /// Describe a field of a built-in kind as a hover does (`crdls explain-field apps/v1 Deployment
    /// spec.template.spec.containers.image`); with --field-docs, with its API documentation.
    ExplainField(crate::explain_field::ExplainFieldArgs),
    /// Run the language server over stdio (also what `crdls` with no arguments does).
    Lsp(LspArgs),
    /// Print a shell completion script, or write it into a directory with --dir, for example
    /// `crdls completions bash --dir ~/.local/share/bash-completion/completions`.
    Completions(CompletionsArgs),
    /// Print the manual page (roff) of crdls or of one command, or write every page into a directory.
    Man(ManArgs),
}

#[derive(Debug, clap::Args)]
struct CompletionsArgs {
    /// The shell to complete in.
    #[arg(value_enum)]
    shell: clap_complete::Shell,
    /// Write the script into this directory (created when missing), under the name the shell looks
    /// for (`crdls` for bash, `_crdls` for zsh, `crdls.fish`, ...), instead of printing it.
    #[arg(long, value_name = "DIR")]
    dir: Option<PathBuf>,
}

#[derive(Debug, clap::Args)]
struct ManArgs {
    /// The command whose page to print (`check` prints crdls-check(1)); crdls(1) when absent.
    #[arg(value_name = "COMMAND", conflicts_with = "dir", value_parser = KnownValues(command_names))]
    command: Option<String>,
    /// Write every page (crdls.1, crdls-check.1, ...) into this directory instead of printing one.
    #[arg(long, value_name = "DIR")]
    dir: Option<PathBuf>,
}

#[derive(Debug, clap::Args)]
struct LspArgs {
    /// Accepted for vscode-languageclient, which appends it; stdio is the only transport.
    #[arg(long)]
    stdio: bool,
}

/// What the language server says on standard error when its standard input is a terminal: someone
/// typed `crdls` rather than an editor starting it.
pub const LANGUAGE_SERVER_IN_A_TERMINAL: &str =
    "crdls: this is the language server: it waits for an editor's LSP messages (JSON-RPC) on standard input.\n\
     crdls: to check files, run `crdls check [PATH]...`; `crdls --help` lists the commands. Ctrl-D ends the server.";

/// Whether the arguments ask for the language server: none at all, `lsp`, or `--stdio` (which
/// vscode-languageclient appends) outside a `check` command.
pub fn wants_language_server(args: &[String]) -> bool {
    let rest = args.get(1..).unwrap_or_default();
    match rest.first().map(String::as_str) {
        None | Some("lsp") => true,
        Some("check") | Some("cost") | Some("explain") | Some("explain-field") | Some("completions") | Some("man") | Some("help") => false,
        Some(_) => rest.iter().any(|a| a == "--stdio"),
    }
}

/// Runs the command line with `args` (the program name first) and returns the exit code.
pub fn run<T: Into<std::ffi::OsString> + Clone>(args: impl IntoIterator<Item = T>, io: &mut Io<'_>) -> i32 {
    // Standard error quotes file names, settings and servers' answers: none may move the cursor, clear
    // the screen or write the clipboard.
    let mut stderr = crate::report::terminal::TerminalSafe::new(&mut *io.stderr);
    let io = &mut Io {
        stdin: &mut *io.stdin,
        stdout: &mut *io.stdout,
        stderr: &mut stderr,
        stdout_is_terminal: io.stdout_is_terminal,
        cwd: io.cwd.clone(),
    };
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
        Some(Command::ExplainField(args)) => crate::explain_field::explain_field(args, io),
        Some(Command::Completions(args)) => completions(args, io),
        Some(Command::Man(args)) => man(args, io),
        Some(Command::Lsp(_)) | None => {
            // `main` starts the server before parsing; reaching here means the library was called directly.
            let _ =
                writeln!(io.stderr, "crdls: the language server speaks LSP over stdio; start it from an editor as `crdls` or `crdls lsp`");
            EXIT_USAGE
        }
    }
}

/// `crdls completions`: the script on standard output, or into `--dir` under the shell's file name.
fn completions(args: CompletionsArgs, io: &mut Io<'_>) -> i32 {
    use clap_complete::Generator;
    // Generated into memory: clap_complete panics on a failed write, and a reader that stops early
    // (`crdls completions bash | head`) should end the run quietly.
    let mut script = Vec::new();
    clap_complete::generate(args.shell, &mut Cli::command(), "crdls", &mut script);
    let Some(dir) = args.dir else {
        let _ = io.stdout.write_all(&script);
        return EXIT_OK;
    };
    let file = io.cwd.join(dir).join(args.shell.file_name("crdls"));
    let written = std::fs::create_dir_all(file.parent().unwrap_or(&io.cwd)).and_then(|()| std::fs::write(&file, &script));
    match written {
        Ok(()) => {
            let _ = writeln!(io.stderr, "crdls: wrote {}", file.display());
            EXIT_OK
        }
        Err(err) => {
            let _ = writeln!(io.stderr, "crdls: cannot write the completion script {}: {err}", file.display());
            EXIT_USAGE
        }
    }
}

/// A value parser that takes any text (the command itself says what is wrong with an unknown value,
/// with a did-you-mean) but names the values it knows, so that shell completion offers them.
#[derive(Clone, Copy)]
pub(crate) struct KnownValues(pub(crate) fn() -> Vec<&'static str>);

impl clap::builder::TypedValueParser for KnownValues {
    type Value = String;

    fn parse_ref(&self, cmd: &clap::Command, arg: Option<&clap::Arg>, value: &std::ffi::OsStr) -> Result<String, clap::Error> {
        clap::builder::TypedValueParser::parse_ref(&clap::builder::StringValueParser::new(), cmd, arg, value)
    }

    fn possible_values(&self) -> Option<Box<dyn Iterator<Item = clap::builder::PossibleValue> + '_>> {
        Some(Box::new((self.0)().into_iter().map(clap::builder::PossibleValue::new)))
    }
}

/// The commands that have a manual page of their own, for `crdls man <TAB>`.
pub fn command_names() -> Vec<&'static str> {
    vec!["check", "cost", "explain", "explain-field", "lsp", "completions", "man"]
}

/// The Kubernetes releases crdls answers for (`1.23` to `1.35`), for `--kube-version <TAB>`.
pub(crate) fn kube_versions() -> Vec<&'static str> {
    static VERSIONS: std::sync::OnceLock<Vec<String>> = std::sync::OnceLock::new();
    let versions = VERSIONS.get_or_init(|| {
        (crdls_check::OLDEST_KUBERNETES_MINOR..=crdls_check::NEWEST_KUBERNETES_MINOR).rev().map(|minor| format!("1.{minor}")).collect()
    });
    versions.iter().map(String::as_str).collect()
}

/// `crdls man`: one page on standard output, or every page into `--dir`.
fn man(args: ManArgs, io: &mut Io<'_>) -> i32 {
    // Built once, so that each subcommand knows its full name (`crdls check`, shown as crdls-check).
    let mut cmd = Cli::command().disable_help_subcommand(true);
    // The NAME line is `crdls - ABOUT`: an about that starts with the name would say it twice.
    if let Some(rest) = cmd.get_about().and_then(|about| about.to_string().strip_prefix("crdls: ").map(str::to_string)) {
        let mut chars = rest.chars();
        let capitalized: String = chars.next().map(|first| first.to_uppercase().chain(chars).collect()).unwrap_or_default();
        cmd = cmd.about(capitalized);
    }
    cmd.build();
    let pages: Vec<clap::Command> = std::iter::once(cmd.clone()).chain(cmd.get_subcommands().cloned()).collect();
    // Every page's footer names the release, the subcommands' too (clap gives them no version).
    let page = |cmd: clap::Command| clap_mangen::Man::new(cmd).source(format!("crdls {}", env!("CARGO_PKG_VERSION")));
    if let Some(dir) = args.dir {
        let dir = io.cwd.join(dir);
        let written =
            std::fs::create_dir_all(&dir).and_then(|()| pages.into_iter().try_for_each(|cmd| page(cmd).generate_to(&dir).map(drop)));
        return match written {
            Ok(()) => EXIT_OK,
            Err(err) => {
                let _ = writeln!(io.stderr, "crdls: cannot write the manual pages into {}: {err}", dir.display());
                EXIT_USAGE
            }
        };
    }
    let chosen = match &args.command {
        None => cmd,
        Some(name) => match cmd.find_subcommand(name) {
            Some(sub) => sub.clone(),
            None => {
                let names: Vec<&str> = cmd.get_subcommands().map(|s| s.get_name()).collect();
                let _ = writeln!(io.stderr, "crdls: no command `{name}`; the commands are {}", names.join(", "));
                return EXIT_USAGE;
            }
        },
    };
    // A reader that stops early (`crdls man | head`) ends the run quietly, as `crdls check` does.
    let _ = page(chosen).render(io.stdout);
    EXIT_OK
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_pages_offered_for_completion_are_the_commands() {
        let mut cmd = Cli::command();
        cmd.build();
        let commands: Vec<&str> = cmd.get_subcommands().map(|c| c.get_name()).filter(|name| *name != "help").collect();
        assert_eq!(command_names(), commands);
    }

    #[test]
    fn the_kubernetes_versions_offered_are_those_crdls_knows_newest_first() {
        let versions = kube_versions();
        assert_eq!(versions.first().copied(), Some(format!("1.{}", crdls_check::NEWEST_KUBERNETES_MINOR).as_str()));
        assert_eq!(versions.last().copied(), Some(format!("1.{}", crdls_check::OLDEST_KUBERNETES_MINOR).as_str()));
        for version in versions {
            assert!(crdls_workspace::config::parse_kube_version(version).is_ok_and(|minor| minor.is_some()), "{version}");
        }
    }
}
