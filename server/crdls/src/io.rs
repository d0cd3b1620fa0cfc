//! Where a command reads and writes (`Io`, so tests can supply their own streams) and the exit codes
//! every command returns: what the commands share, apart from the argument parsing that calls them.

use std::io::{Read, Write};
use std::path::PathBuf;

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
