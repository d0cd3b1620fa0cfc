//! The human report: rustc-style excerpts of the source with carets under each problem, and a closing count.
//!
//! Written by hand rather than with `codespan-reporting` or `annotate-snippets`: both bring a colour crate and
//! their own idea of tabs, line endings and multi-line labels, while what is needed here is small and must hold
//! exactly on CRLF text, tabs and wide characters. Display widths come from `unicode-width`; a tab shows as four
//! spaces; other control characters show as their Unicode control pictures, so that no `\r` reaches the terminal.

use std::io;

use crdls_yaml::{ColumnUnit, Diagnostic, LineCol, LineIndex, Severity};
use unicode_width::UnicodeWidthChar;

use super::{clamp, coverage_lines, position, summary_line, FileReport, RenderOptions, Summary};

/// Lines of a range shown in full; a longer range shows its first lines, an elision mark and its last line.
const MAX_LINES: u32 = 4;
/// Of a range longer than `MAX_LINES`, the lines shown before the elision mark.
const HEAD_LINES: u32 = 2;
/// The display width of a tab.
const TAB_WIDTH: usize = 4;

/// ANSI SGR parameters.
const BOLD: &str = "1";
const GUTTER: &str = "1;34";
const RED: &str = "1;31";
const YELLOW: &str = "1;33";
const CYAN: &str = "1;36";
const GREEN: &str = "1;32";

pub(super) fn render(files: &[FileReport<'_>], summary: &Summary, options: &RenderOptions, out: &mut dyn io::Write) -> io::Result<()> {
    let paint = Paint { color: options.color };
    for file in files {
        if file.diagnostics.is_empty() {
            continue;
        }
        let index = LineIndex::new(file.text);
        for (i, diagnostic) in file.diagnostics.iter().enumerate() {
            match file.origin(i) {
                // Rendered output whose field was found in its template: the template's line is shown,
                // and where the rendered output has it.
                Some(origin) if origin.located().is_some() => {
                    let (text, range) = origin.located().expect("checked");
                    let template = FileReport { path: &origin.file, text, diagnostics: &[], origins: &[] };
                    let rendered = position(&index, file.text, diagnostic.range);
                    let moved = Diagnostic { range, ..diagnostic.clone() };
                    let note = format!("rendered: {}:{}:{}", file.path, rendered.line, rendered.column);
                    write_diagnostic(out, &paint, &template, &LineIndex::new(text), &moved, Some(&note))?;
                }
                Some(origin) => {
                    let note = format!("template: {}", origin.file);
                    write_diagnostic(out, &paint, file, &index, diagnostic, Some(&note))?;
                }
                None => write_diagnostic(out, &paint, file, &index, diagnostic, None)?,
            }
            writeln!(out)?;
        }
    }
    let style = if summary.errors > 0 {
        RED
    } else if summary.warnings > 0 {
        YELLOW
    } else {
        GREEN
    };
    writeln!(out, "{}", paint.style(style, &summary_line(summary)))?;
    for line in coverage_lines(&summary.coverage) {
        writeln!(out, "{line}")?;
    }
    for note in &summary.notes {
        writeln!(out, "{}: {note}", paint.style(YELLOW, "note"))?;
    }
    Ok(())
}

/// Wraps text in ANSI colours, or leaves it alone.
struct Paint {
    color: bool,
}

impl Paint {
    fn style(&self, sgr: &str, text: &str) -> String {
        if self.color && !text.is_empty() {
            format!("\x1b[{sgr}m{text}\x1b[0m")
        } else {
            text.to_owned()
        }
    }
}

fn severity_style(severity: Severity) -> &'static str {
    match severity {
        Severity::Error => RED,
        Severity::Warning => YELLOW,
        Severity::Information => CYAN,
        Severity::Hint => GREEN,
    }
}

/// One source line of an excerpt, with the characters to underline.
struct Mark<'a> {
    /// 0-based line number.
    line: u32,
    /// The line's text without its line ending.
    text: &'a str,
    /// Characters `from..to` (counted in characters) are underlined; an empty span shows one caret at `from`,
    /// and `None` shows no caret line at all.
    underline: Option<(usize, usize)>,
}

fn write_diagnostic(
    out: &mut dyn io::Write,
    paint: &Paint,
    file: &FileReport<'_>,
    index: &LineIndex,
    diagnostic: &Diagnostic,
    note: Option<&str>,
) -> io::Result<()> {
    let text = file.text;
    let range = clamp(diagnostic.range, text.len());
    let start = index.line_col(text, range.start, ColumnUnit::Char);
    let end = index.line_col(text, range.end, ColumnUnit::Char);

    let (marks, elided) = marks(text, index, start, end);
    let last_number = marks.last().map_or(start.line + 1, |m| m.line + 1);
    let width = last_number.to_string().len();
    let pad = " ".repeat(width);
    let severity = severity_style(diagnostic.severity);

    let header = format!("{}[{}]", diagnostic.severity.as_str(), diagnostic.code);
    writeln!(out, "{}{}", paint.style(severity, &header), paint.style(BOLD, &format!(": {}", diagnostic.message)))?;
    writeln!(out, "{pad}{} {}:{}:{}", paint.style(GUTTER, "-->"), file.path, start.line + 1, start.col + 1)?;
    writeln!(out, "{pad} {}", paint.style(GUTTER, "|"))?;
    for (i, mark) in marks.iter().enumerate() {
        if elided && i == HEAD_LINES as usize {
            writeln!(out, "{}", paint.style(GUTTER, "..."))?;
        }
        let (shown_text, columns) = expand(mark.text);
        let number = format!("{:>width$} |", mark.line + 1);
        if shown_text.is_empty() {
            writeln!(out, "{}", paint.style(GUTTER, &number))?;
        } else {
            writeln!(out, "{} {shown_text}", paint.style(GUTTER, &number))?;
        }
        if let Some((from, to)) = mark.underline {
            let last = columns.len() - 1;
            let (from, to) = (columns[from.min(last)], columns[to.min(last)]);
            let carets = "^".repeat(to.saturating_sub(from).max(1));
            writeln!(out, "{pad} {} {}{}", paint.style(GUTTER, "|"), " ".repeat(from), paint.style(severity, &carets))?;
        }
    }
    if let Some(path) = &diagnostic.path {
        writeln!(out, "{pad} {} path: {path}", paint.style(GUTTER, "="))?;
    }
    if let Some(cause) = &diagnostic.cause {
        writeln!(out, "{pad} {} cause: {cause}", paint.style(GUTTER, "="))?;
    }
    if let Some(note) = note {
        writeln!(out, "{pad} {} {note}", paint.style(GUTTER, "="))?;
    }
    Ok(())
}

/// The lines of a range to show, each with what to underline, and whether lines were left out before the last.
///
/// The first line is underlined from the range's start to its end (or the end of the line), later lines from
/// their first non-blank character, the last line up to the range's end. A range that ends at the very start of
/// a line ends, for showing, on the line before. Of a range over more than `MAX_LINES` lines only the first
/// `HEAD_LINES` and the last are shown.
fn marks<'a>(text: &'a str, index: &LineIndex, start: LineCol, end: LineCol) -> (Vec<Mark<'a>>, bool) {
    let (last, end_col) = if end.line > start.line && end.col == 0 { (end.line - 1, usize::MAX) } else { (end.line, end.col as usize) };
    let elided = last - start.line + 1 > MAX_LINES;
    let lines: Vec<u32> =
        if elided { (start.line..start.line + HEAD_LINES).chain([last]).collect() } else { (start.line..=last).collect() };
    let marks = lines
        .into_iter()
        .map(|line| {
            let text = line_text(text, index, line);
            let len = text.chars().count();
            let from = if line == start.line { start.col as usize } else { text.chars().take_while(|c| c.is_whitespace()).count() };
            let to = if line == last { end_col.min(len) } else { len };
            let underline = if line == start.line || from < to { Some((from, to.max(from))) } else { None };
            Mark { line, text, underline }
        })
        .collect();
    (marks, elided)
}

/// The text of 0-based `line`, without its `\n` or `\r\n`.
fn line_text<'a>(text: &'a str, index: &LineIndex, line: u32) -> &'a str {
    let start = index.line_start(line);
    let end = index.line_start(line + 1);
    let line = &text[start..end];
    let line = line.strip_suffix('\n').unwrap_or(line);
    line.strip_suffix('\r').unwrap_or(line)
}

/// A line as the terminal shows it, and the display column where each character starts (plus one entry for the
/// end of the line).
fn expand(line: &str) -> (String, Vec<usize>) {
    let mut shown = String::with_capacity(line.len());
    let mut columns = Vec::with_capacity(line.len() + 1);
    let mut column = 0;
    for c in line.chars() {
        columns.push(column);
        match c {
            '\t' => {
                shown.push_str(&" ".repeat(TAB_WIDTH));
                column += TAB_WIDTH;
            }
            c if c.is_control() => {
                shown.push(control_picture(c));
                column += 1;
            }
            c => {
                shown.push(c);
                column += c.width().unwrap_or(0);
            }
        }
    }
    columns.push(column);
    (shown, columns)
}

/// The visible stand-in for a control character: `␍` for `\r` and so on, `�` where Unicode has no picture.
fn control_picture(c: char) -> char {
    match c as u32 {
        code @ 0..=0x1f => char::from_u32(0x2400 + code).unwrap_or('\u{fffd}'),
        0x7f => '\u{2421}',
        _ => '\u{fffd}',
    }
}

#[cfg(test)]
mod tests {
    use crdls_yaml::{Diagnostic, Severity, TextRange};
    use expect_test::expect;

    use super::super::fixture::{render_files, render_fixture};
    use super::super::{FileReport, Format, Summary};

    #[test]
    fn fixture() {
        let output = render_fixture(Format::Human, false);
        assert!(!output.contains('\r'), "no carriage return reaches the terminal");
        expect![[r#"
            info[resource/deprecated-version]: demo.crdls.dev/v1 Widget is deprecated; use demo.crdls.dev/v2 Widget
             --> deploy/my widget.yaml:1:13
              |
            1 | apiVersion: demo.crdls.dev/v1
              |             ^^^^^^^^^^^^^^^^^

            error[metadata/label-value]: invalid label value
             --> deploy/my widget.yaml:6:11
              |
            6 |     team: 日本語チーム
              |           ^^^^^^^^^^^^
              = path: metadata.labels.team
              = cause: metadata.labels: Invalid value: "日本語チーム": a valid label must be an empty string or consist of alphanumeric characters, '-', '_' or '.'

            error[schema/maximum]: must be less than or equal to 10
             --> deploy/my widget.yaml:8:9
              |
            8 |   size: 11
              |         ^^
              = path: spec.size
              = cause: spec.size: Invalid value: 11: spec.size in body should be less than or equal to 10

            warning[schema/pattern]: should match '^[a-z]+$'
             --> deploy/my widget.yaml:9:13
              |
            9 |   owner: "😀    team"
              |                 ^^^^
              = path: spec.owner

            error[schema/list-map-duplicate]: duplicate entries for key [name="http"]
              --> deploy/my widget.yaml:11:3
               |
            11 |   - name: http
               |   ^^^^^^^^^^^^
            12 |     port: 80
               |     ^^^^^^^^
            13 |   - name: http
               |   ^^^^^^^^^^^^
            14 |     port: 8080
               |     ^^^^^^^^^^
               = path: spec.ports[1]
               = cause: spec.ports[1]: Duplicate value: map[string]interface {}{"name":"http"}

            error[yaml/syntax]: unexpected end of the stream
              --> deploy/my widget.yaml:15:1
               |
            15 |
               | ^

            4 errors, 1 warning in 2 files (3 documents, 1 CRD known)
        "#]]
        .assert_eq(&output);
    }

    #[test]
    fn colors_only_when_asked() {
        let text = "a: 1\n";
        let diagnostics = [Diagnostic::new(TextRange::new(3, 4), Severity::Error, "schema/type", "must be a string")];
        let files = [FileReport { path: "a.yaml", text, diagnostics: &diagnostics, origins: &[] }];
        let summary = Summary { files: 1, documents: 1, crds: 0, errors: 1, warnings: 0, ..Summary::default() };
        let colored = render_files(Format::Human, &files, &summary, true).replace('\x1b', "␛");
        expect![[r#"
            ␛[1;31merror[schema/type]␛[0m␛[1m: must be a string␛[0m
             ␛[1;34m-->␛[0m a.yaml:1:4
              ␛[1;34m|␛[0m
            ␛[1;34m1 |␛[0m a: 1
              ␛[1;34m|␛[0m    ␛[1;31m^␛[0m

            ␛[1;31m1 error in 1 file (1 document, 0 CRDs known)␛[0m
        "#]]
        .assert_eq(&colored);
        assert!(!render_files(Format::Human, &files, &summary, false).contains('\x1b'));
    }

    #[test]
    fn a_clean_run_says_so() {
        let files = [FileReport { path: "a.yaml", text: "a: 1\n", diagnostics: &[], origins: &[] }];
        let summary = Summary { files: 1, documents: 1, crds: 2, errors: 0, warnings: 0, ..Summary::default() };
        expect![[r#"
            no problems in 1 file (1 document, 2 CRDs known)
        "#]]
        .assert_eq(&render_files(Format::Human, &files, &summary, false));
    }

    #[test]
    fn long_ranges_are_elided_and_stray_control_characters_are_shown() {
        let text = "items:\n- 1\n- 2\n- 3\n- 4\n- 5\nbell: \u{7}\rx\n";
        let start = text.find("- 1").unwrap();
        let end = text.find("bell").unwrap();
        let bell = text.find('\u{7}').unwrap();
        let diagnostics = [
            Diagnostic::new(TextRange::new(start, end), Severity::Hint, "schema/max-items", "too many items"),
            Diagnostic::new(TextRange::new(bell, bell + 3), Severity::Warning, "yaml/control", "a control character"),
        ];
        let files = [FileReport { path: "list.yaml", text, diagnostics: &diagnostics, origins: &[] }];
        let summary = Summary { files: 1, documents: 1, crds: 0, errors: 0, warnings: 1, ..Summary::default() };
        expect![[r#"
            hint[schema/max-items]: too many items
             --> list.yaml:2:1
              |
            2 | - 1
              | ^^^
            3 | - 2
              | ^^^
            ...
            6 | - 5
              | ^^^

            warning[yaml/control]: a control character
             --> list.yaml:7:7
              |
            7 | bell: ␇␍x
              |       ^^^

            1 warning in 1 file (1 document, 0 CRDs known)
        "#]]
        .assert_eq(&render_files(Format::Human, &files, &summary, false));
    }
}
