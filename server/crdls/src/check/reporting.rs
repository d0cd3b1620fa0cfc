//! The report of `crdls check`'s second pass, written a file at a time as the files are checked,
//! with the run's counts.

use std::io::Write as _;

use crdls_diagnostics::Severity;

use super::checker::Checked;
use super::rendered;
use crate::io::Io;
use crate::report::{FileReport, Reporter, Summary};

/// The second pass's report: the run's counts so far, and the report written a file at a time.
pub(super) struct Report<'a> {
    pub(super) reporter: Reporter,
    pub(super) summary: Summary,
    /// Rendered charts (`helm template ... | crdls check -`) are reported against their templates.
    pub(super) locator: rendered::Locator,
    /// Reports are written in many small pieces: buffered, and flushed after each file on a terminal.
    pub(super) stdout: std::io::BufWriter<&'a mut dyn std::io::Write>,
    pub(super) flush_each_file: bool,
    pub(super) stderr: &'a mut dyn std::io::Write,
    /// After a failed write nothing more is written, but the counts still decide the exit code.
    pub(super) written: std::io::Result<()>,
}

impl<'a> Report<'a> {
    pub(super) fn new(reporter: Reporter, summary: Summary, io: &'a mut Io<'_>) -> Report<'a> {
        Report {
            reporter,
            summary,
            locator: rendered::Locator::new(&io.cwd),
            flush_each_file: io.stdout_is_terminal,
            stdout: std::io::BufWriter::with_capacity(1 << 16, &mut *io.stdout),
            stderr: &mut *io.stderr,
            written: Ok(()),
        }
    }

    /// Counts one checked file and writes its part of the report.
    pub(super) fn file(&mut self, path: &str, checked: &Checked<'_>) {
        let summary = &mut self.summary;
        summary.files += 1;
        summary.documents += checked.documents;
        summary.errors += checked.diagnostics.iter().filter(|d| d.severity == Severity::Error).count();
        summary.warnings += checked.diagnostics.iter().filter(|d| d.severity == Severity::Warning).count();
        summary.coverage.add(&checked.coverage);
        if self.written.is_err() {
            return;
        }
        let origins = self.locator.origins(checked.rendered.as_ref(), &checked.diagnostics);
        let file = FileReport { path, text: &checked.text, diagnostics: &checked.diagnostics, origins: &origins };
        self.written = self.reporter.file(&file, &mut self.stdout);
        if self.written.is_ok() && self.flush_each_file {
            self.written = self.stdout.flush();
        }
    }
}
