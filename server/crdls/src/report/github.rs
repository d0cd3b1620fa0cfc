//! The GitHub Actions report: one workflow command per diagnostic (`::error file=...::message`), which GitHub
//! shows as an annotation on the line, then the closing count as a plain log line.
//!
//! Escaping follows GitHub's runner: in the message `%`, `\r` and `\n` are percent-encoded; in properties `:`
//! and `,` are too, since they separate the properties. The runner decodes nothing else, and its log viewer
//! obeys ANSI escapes, so every other control character is shown as its Unicode picture, as in the human
//! report.

use std::io;

use crdls_yaml::{ColumnUnit, LineIndex};

use crdls_diagnostics::Severity;

use super::terminal::sanitize;
use super::{coverage_lines, span, summary_line, FileReport, Summary};

/// Writes one workflow command per diagnostic of one file.
pub(super) fn file(file: &FileReport<'_>, out: &mut dyn io::Write) -> io::Result<()> {
    if file.diagnostics.is_empty() {
        return Ok(());
    }
    let index = LineIndex::new(file.text);
    for (i, diagnostic) in file.diagnostics.iter().enumerate() {
        let (start, end) = span(&index, file.text, diagnostic.range, ColumnUnit::Char);
        let command = match diagnostic.severity {
            Severity::Error => "error",
            Severity::Warning => "warning",
            Severity::Information | Severity::Hint => "notice",
        };
        let mut message = diagnostic.message.clone();
        if let Some(cause) = &diagnostic.cause {
            message.push('\n');
            message.push_str(cause);
        }
        // Rendered output is annotated on its template, a file of the repository: on the line
        // that writes the field when it was found, else on the file as a whole.
        let location = match file.origin(i) {
            Some(origin) => {
                message.push_str(&format!("\n(rendered at {}:{}:{})", file.path, start.line, start.column));
                match origin.located() {
                    Some((text, range)) => {
                        let (s, e) = span(&LineIndex::new(text), text, range, ColumnUnit::Char);
                        format!(
                            "file={},line={},col={},endLine={},endColumn={}",
                            escape_property(&origin.file),
                            s.line,
                            s.column,
                            e.line,
                            e.column
                        )
                    }
                    None => format!("file={}", escape_property(&origin.file)),
                }
            }
            None => format!(
                "file={},line={},col={},endLine={},endColumn={}",
                escape_property(file.path),
                start.line,
                start.column,
                end.line,
                end.column
            ),
        };
        writeln!(out, "::{command} {location},title={}::{}", escape_property(diagnostic.code), escape_data(&message))?;
    }
    Ok(())
}

/// Writes the closing count, the coverage and the notes.
pub(super) fn finish(summary: &Summary, out: &mut dyn io::Write) -> io::Result<()> {
    writeln!(out, "crdls: {}", summary_line(summary))?;
    for line in coverage_lines(&summary.coverage) {
        writeln!(out, "crdls: {}", sanitize(&line))?;
    }
    // Notes about the run itself (nothing found, CRDs shadowed) become file-less warnings, so a job
    // that checked nothing says so on its summary page.
    for note in &summary.all_notes() {
        writeln!(out, "::warning title=crdls::{}", escape_data(note))?;
    }
    Ok(())
}

/// Escapes a command's message.
fn escape_data(text: &str) -> String {
    escape(text, &['%', '\r', '\n'])
}

/// Escapes a property's value: as a message, and its `:` and `,`, which end a property.
fn escape_property(text: &str) -> String {
    escape(text, &['%', '\r', '\n', ':', ','])
}

/// `text` with the characters of `special` percent-encoded, as the runner decodes them, and the
/// control characters left shown as pictures.
fn escape(text: &str, special: &[char]) -> String {
    let mut escaped = String::with_capacity(text.len());
    for c in text.chars() {
        if special.contains(&c) {
            escaped.push_str(&format!("%{:02X}", u32::from(c)));
        } else {
            escaped.push(c);
        }
    }
    sanitize(&escaped).into_owned()
}

#[cfg(test)]
mod tests {
    use crdls_diagnostics::{Diagnostic, Severity, TextRange};
    use expect_test::expect;

    use super::super::fixture::{render_files, render_fixture};
    use super::super::{FileReport, Format, Summary};
    use super::{escape_data, escape_property};

    #[test]
    fn fixture() {
        expect![[r#"
            ::notice file=deploy/my widget.yaml,line=1,col=13,endLine=1,endColumn=30,title=resource/deprecated-version::demo.crdls.dev/v1 Widget is deprecated; use demo.crdls.dev/v2 Widget
            ::error file=deploy/my widget.yaml,line=6,col=11,endLine=6,endColumn=17,title=metadata/label-value::invalid label value%0Ametadata.labels: Invalid value: "日本語チーム": a valid label must be an empty string or consist of alphanumeric characters, '-', '_' or '.'
            ::error file=deploy/my widget.yaml,line=8,col=9,endLine=8,endColumn=11,title=schema/maximum::must be less than or equal to 10%0Aspec.size: Invalid value: 11: spec.size in body should be less than or equal to 10
            ::warning file=deploy/my widget.yaml,line=9,col=13,endLine=9,endColumn=17,title=schema/pattern::should match '^[a-z]+$'
            ::error file=deploy/my widget.yaml,line=11,col=3,endLine=14,endColumn=15,title=schema/list-map-duplicate::duplicate entries for key [name="http"]%0Aspec.ports[1]: Duplicate value: map[string]interface {}{"name":"http"}
            ::error file=deploy/my widget.yaml,line=15,col=1,endLine=15,endColumn=1,title=yaml/syntax::unexpected end of the stream
            crdls: 4 errors, 1 warning in 2 files (3 documents, 1 CRD known)
        "#]]
        .assert_eq(&render_fixture(Format::Github, false));
    }

    #[test]
    fn escaping() {
        assert_eq!(escape_data("100% sure\r\nnext: a, b"), "100%25 sure%0D%0Anext: a, b");
        assert_eq!(escape_property("C:\\ci\\a,b%.yaml\n"), "C%3A\\ci\\a%2Cb%25.yaml%0A");
        // The runner decodes only those; an escape sequence is shown, not passed to the log viewer.
        assert_eq!(escape_data("key \x1b]52;c;aGk=\x07\t%0A"), "key ␛]52;c;aGk=␇\t%250A");
        assert_eq!(escape_property("a\x1b[2J.yaml"), "a␛[2J.yaml");

        let text = "a: 1\r\nb: 2\r\n";
        let diagnostics = [Diagnostic::new(TextRange::new(3, 4), Severity::Error, "schema/type", "50% of\r\nthe values, really")
            .with_severity(Severity::Hint)
            .with_cause("a: Invalid value: \"1\": must be 100%")];
        let files = [FileReport { path: "dir,with:odd%chars/a.yaml", text, diagnostics: &diagnostics, origins: &[] }];
        let summary = Summary { files: 1, documents: 1, crds: 0, errors: 0, warnings: 0, ..Summary::default() };
        expect![[r#"
            ::notice file=dir%2Cwith%3Aodd%25chars/a.yaml,line=1,col=4,endLine=1,endColumn=5,title=schema/type::50%25 of%0D%0Athe values, really%0Aa: Invalid value: "1": must be 100%25
            crdls: no problems in 1 file (1 document, 0 CRDs known)
        "#]]
        .assert_eq(&render_files(Format::Github, &files, &summary, false));
    }
}
