//! `crdls explain`: every diagnostic code with its default severity and summary, or one code's
//! documentation (what triggers it, an example, how to fix it), from the registry in
//! `crdls_yaml::codes`.

use crdls_yaml::codes;

use crate::cli::{Io, EXIT_OK, EXIT_USAGE};

#[derive(Debug, clap::Args)]
pub struct ExplainArgs {
    /// The code to explain (`schema/required`); without it, every code is listed.
    #[arg(value_name = "CODE")]
    code: Option<String>,
}

/// Runs `crdls explain`: exit code 2 for a code that does not exist.
pub fn explain(args: ExplainArgs, io: &mut Io<'_>) -> i32 {
    let written = match &args.code {
        None => write_list(io),
        Some(name) => match codes::lookup(name) {
            Some(code) => writeln!(
                io.stdout,
                "{} ({} by default)\n\n{}\n\n{}",
                code.name,
                code.severity.as_str(),
                code.summary,
                codes::explanation(code.name).unwrap_or_default()
            ),
            None => {
                let known = codes::ALL.iter().map(|c| c.name);
                let hint = match crdls_check::did_you_mean(name, known) {
                    Some(s) => format!("; did you mean {s}?"),
                    None => String::new(),
                };
                let _ = writeln!(io.stderr, "crdls: no diagnostic code {name}{hint} (`crdls explain` lists them)");
                return EXIT_USAGE;
            }
        },
    };
    match written {
        Ok(()) => EXIT_OK,
        Err(e) if e.kind() == std::io::ErrorKind::BrokenPipe => EXIT_OK,
        Err(e) => {
            let _ = writeln!(io.stderr, "crdls: cannot write: {e}");
            EXIT_USAGE
        }
    }
}

fn write_list(io: &mut Io<'_>) -> std::io::Result<()> {
    let width = codes::ALL.iter().map(|c| c.name.len()).max().unwrap_or(0);
    for code in codes::ALL {
        writeln!(io.stdout, "{:width$}  {:7}  {}", code.name, code.severity.as_str(), code.summary)?;
    }
    Ok(())
}
