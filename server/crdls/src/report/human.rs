//! The human report: rustc-style excerpts of the source with carets under each problem, and a closing count.
//!
//! Written by hand rather than with `codespan-reporting` or `annotate-snippets`: both bring a colour crate and
//! their own idea of tabs, line endings and multi-line labels, while what is needed here is small and must hold
//! exactly on CRLF text, tabs and wide characters. Display widths come from `unicode-width`; a tab shows as four
//! spaces; other control characters show as their Unicode control pictures, so that no `\r` reaches the terminal.
//!
//! A source line wider than `MAX_LINE_WIDTH` is shown as rustc shows one: a window of it around what is
//! underlined, with `...` where it was cut, so a minified one-line JSON file with thousands of problems prints a
//! few hundred bytes per problem rather than the whole line each time.

use std::io;

use crdls_yaml::{ColumnUnit, LineCol, LineIndex};

use crdls_diagnostics::{Diagnostic, Severity};
use unicode_width::UnicodeWidthChar;

use super::terminal::{control_picture, sanitize};
use super::{clamp, coverage_lines, position, summary_line, FileReport, RenderOptions, Summary};

/// Lines of a range shown in full; a longer range shows its first lines, an elision mark and its last line.
const MAX_LINES: u32 = 4;
/// Of a range longer than `MAX_LINES`, the lines shown before the elision mark.
const HEAD_LINES: u32 = 2;
/// The display width of a tab.
const TAB_WIDTH: usize = 4;
/// The widest a source line is shown; a wider one shows a window of this width around its underline.
const MAX_LINE_WIDTH: usize = 160;
/// Marks where a line shown in a window was cut.
const CUT: &str = "...";

/// ANSI SGR parameters.
const BOLD: &str = "1";
const GUTTER: &str = "1;34";
const RED: &str = "1;31";
const YELLOW: &str = "1;33";
const CYAN: &str = "1;36";
const GREEN: &str = "1;32";

/// What the human report left out, to count in its summary instead.
#[derive(Default)]
pub(super) struct Collapsed {
    /// `resource/no-crd` information, one per object no known CRD serves: the summary counts the
    /// objects by group already.
    no_crd: usize,
}

/// Whether a diagnostic is one the human report counts in its summary rather than shows, unless
/// `--verbose`: information that repeats per object what the summary says once. Raised to a warning
/// or an error (`--fail-unchecked`, a severity setting), it is shown.
fn collapsed(diagnostic: &Diagnostic) -> bool {
    diagnostic.severity == Severity::Information && diagnostic.code == crdls_diagnostics::codes::RESOURCE_NO_CRD
}

/// Writes one file's diagnostics, each with its excerpt.
pub(super) fn file(file: &FileReport<'_>, options: &RenderOptions, left_out: &mut Collapsed, out: &mut dyn io::Write) -> io::Result<()> {
    let paint = Paint { color: options.color };
    if file.diagnostics.is_empty() {
        return Ok(());
    }
    let index = LineIndex::new(file.text);
    for (i, diagnostic) in file.diagnostics.iter().enumerate() {
        if !options.verbose && collapsed(diagnostic) {
            left_out.no_crd += 1;
            continue;
        }
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
    Ok(())
}

/// Writes the closing lines: the counts, the coverage and the notes.
pub(super) fn finish(summary: &Summary, options: &RenderOptions, left_out: &Collapsed, out: &mut dyn io::Write) -> io::Result<()> {
    let paint = Paint { color: options.color };
    let style = if summary.errors > 0 {
        RED
    } else if summary.warnings > 0 {
        YELLOW
    } else {
        GREEN
    };
    writeln!(out, "{}", paint.style(style, &summary_line(summary)))?;
    // Group names and notes (which name files and sources) come from the inputs.
    for line in coverage_lines(&summary.coverage) {
        writeln!(out, "{}", sanitize(&line))?;
    }
    let mut notes: Vec<String> = summary.notes.clone();
    if left_out.no_crd > 0 {
        let objects = if left_out.no_crd == 1 { "1 object".to_string() } else { format!("{} objects", left_out.no_crd) };
        let verb = if left_out.no_crd == 1 { "is" } else { "are" };
        notes.push(format!(
            "{objects} of groups no known CRD serves {verb} not shown one by one (resource/no-crd information); --verbose shows each"
        ));
    }
    match summary.shadowing.len() {
        0 => {}
        1 => notes.push(summary.shadowing[0].clone()),
        _ if options.verbose => notes.extend(summary.shadowing.iter().cloned()),
        n => notes.push(format!(
            "{n} CRDs are defined in several places: each object uses a definition that serves its version, the nearest to its file first; --verbose names each"
        )),
    }
    for note in &notes {
        writeln!(out, "{}: {}", paint.style(YELLOW, "note"), sanitize(note))?;
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

/// One source line of an excerpt, with the bytes to underline.
struct Mark<'a> {
    /// 0-based line number.
    line: u32,
    /// The line's text without its line ending.
    text: &'a str,
    /// Bytes `from..to` of `text` (on character boundaries) are underlined; an empty span shows one caret at
    /// `from`, and `None` shows no caret line at all.
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

    let (marks, elided) = marks(text, index, (range.start, start), (range.end, end));
    let last_number = marks.last().map_or(start.line + 1, |m| m.line + 1);
    let width = last_number.to_string().len();
    let pad = " ".repeat(width);
    let severity = severity_style(diagnostic.severity);

    let header = format!("{}[{}]", diagnostic.severity.as_str(), diagnostic.code);
    // The message, path and cause quote keys and values of the input, and the file's name is the
    // user's: all are shown as the excerpts are, with control characters made visible.
    writeln!(out, "{}{}", paint.style(severity, &header), paint.style(BOLD, &format!(": {}", sanitize(&diagnostic.message))))?;
    writeln!(out, "{pad}{} {}:{}:{}", paint.style(GUTTER, "-->"), sanitize(file.path), start.line + 1, start.col + 1)?;
    writeln!(out, "{pad} {}", paint.style(GUTTER, "|"))?;
    for (i, mark) in marks.iter().enumerate() {
        if elided && i == HEAD_LINES as usize {
            writeln!(out, "{}", paint.style(GUTTER, "..."))?;
        }
        let (shown_text, carets) = excerpt(mark.text, mark.underline);
        let number = format!("{:>width$} |", mark.line + 1);
        if shown_text.is_empty() {
            writeln!(out, "{}", paint.style(GUTTER, &number))?;
        } else {
            writeln!(out, "{} {shown_text}", paint.style(GUTTER, &number))?;
        }
        if let Some((from, count)) = carets {
            let carets = "^".repeat(count);
            writeln!(out, "{pad} {} {}{}", paint.style(GUTTER, "|"), " ".repeat(from), paint.style(severity, &carets))?;
        }
    }
    if let Some(path) = &diagnostic.path {
        writeln!(out, "{pad} {} path: {}", paint.style(GUTTER, "="), sanitize(path))?;
    }
    if let Some(cause) = &diagnostic.cause {
        writeln!(out, "{pad} {} cause: {}", paint.style(GUTTER, "="), sanitize(cause))?;
    }
    if let Some(note) = note {
        writeln!(out, "{pad} {} {}", paint.style(GUTTER, "="), sanitize(note))?;
    }
    Ok(())
}

/// The lines of a range to show, each with what to underline, and whether lines were left out before the last.
///
/// The first line is underlined from the range's start to its end (or the end of the line), later lines from
/// their first non-blank character, the last line up to the range's end. A range that ends at the very start of
/// a line ends, for showing, on the line before. Of a range over more than `MAX_LINES` lines only the first
/// `HEAD_LINES` and the last are shown. Each end of the range comes as its byte offset and its line and column.
fn marks<'a>(text: &'a str, index: &LineIndex, start: (usize, LineCol), end: (usize, LineCol)) -> (Vec<Mark<'a>>, bool) {
    let ((start_offset, start), (end_offset, end)) = (start, end);
    let (last, end_offset) = if end.line > start.line && end.col == 0 { (end.line - 1, usize::MAX) } else { (end.line, end_offset) };
    let elided = last - start.line + 1 > MAX_LINES;
    let lines: Vec<u32> =
        if elided { (start.line..start.line + HEAD_LINES).chain([last]).collect() } else { (start.line..=last).collect() };
    let marks = lines
        .into_iter()
        .map(|line| {
            let line_start = index.line_start(line);
            let text = line_text(text, index, line);
            let from = if line == start.line {
                floor_boundary(text, start_offset.saturating_sub(line_start))
            } else {
                text.len() - text.trim_start_matches(char::is_whitespace).len()
            };
            let to = if line == last { floor_boundary(text, end_offset.saturating_sub(line_start)) } else { text.len() };
            let underline = if line == start.line || from < to { Some((from, to.max(from))) } else { None };
            Mark { line, text, underline }
        })
        .collect();
    (marks, elided)
}

/// `at`, or the end of `text` if beyond it, moved back to the start of the character it falls in.
fn floor_boundary(text: &str, at: usize) -> usize {
    let mut at = at.min(text.len());
    while !text.is_char_boundary(at) {
        at -= 1;
    }
    at
}

/// The text of 0-based `line`, without its `\n` or `\r\n`.
fn line_text<'a>(text: &'a str, index: &LineIndex, line: u32) -> &'a str {
    let start = index.line_start(line);
    let end = index.line_start(line + 1);
    let line = &text[start..end];
    let line = line.strip_suffix('\n').unwrap_or(line);
    line.strip_suffix('\r').unwrap_or(line)
}

/// A line as shown, and where its carets go (display column, count) when it has an underline of bytes
/// `from..to`. A line wider than `MAX_LINE_WIDTH` is shown as a window around the underline.
fn excerpt(line: &str, underline: Option<(usize, usize)>) -> (String, Option<(usize, usize)>) {
    // No character is wider than a tab, so a short line cannot be too wide; a longer one is measured only as
    // far as the limit.
    let narrow = line.len() * TAB_WIDTH <= MAX_LINE_WIDTH
        || line.chars().try_fold(0, |width, c| Some(width + display_width(c)).filter(|&w| w <= MAX_LINE_WIDTH)).is_some();
    if !narrow {
        return window(line, underline);
    }
    let (shown, columns) = expand(line);
    let carets = underline.map(|(from, to)| {
        let (from, to) = (columns[line[..from].chars().count()], columns[line[..to].chars().count()]);
        (from, to.saturating_sub(from).max(1))
    });
    (shown, carets)
}

/// A window of a wide line, at most `MAX_LINE_WIDTH` columns plus the cut marks: as much of the underlined
/// characters as fits in `MAX_LINE_WIDTH - 2 * CONTEXT` (all of them, usually), then the text either side,
/// half of the room to each side unless one side has less to show. Only the window's characters are looked at,
/// so thousands of problems on a one-megabyte line stay cheap.
fn window(line: &str, underline: Option<(usize, usize)>) -> (String, Option<(usize, usize)>) {
    /// The room kept for context when the underline alone would fill the window.
    const CONTEXT: usize = 20;
    let (start, end) = underline.unwrap_or((0, 0));
    let (span_end, span_width) = advance(&line[..end], start, MAX_LINE_WIDTH - 2 * CONTEXT);
    let room = MAX_LINE_WIDTH - span_width;
    let (_, right_has) = advance(line, span_end, room);
    let (left, left_width) = retreat(line, start, (room / 2).max(room - right_has));
    let (right, _) = advance(line, span_end, room - left_width);
    let mut shown = String::new();
    let mut caret = left_width;
    if left > 0 {
        shown.push_str(CUT);
        caret += CUT.len();
    }
    shown.push_str(&expand(&line[left..right]).0);
    if right < line.len() {
        shown.push_str(CUT);
    }
    (shown, underline.map(|_| (caret, span_width.max(1))))
}

/// From byte `at` of `text`, the furthest byte reached going right within `room` display columns, and the
/// columns used.
fn advance(text: &str, at: usize, room: usize) -> (usize, usize) {
    let mut width = 0;
    for (i, c) in text[at..].char_indices() {
        if width + display_width(c) > room {
            return (at + i, width);
        }
        width += display_width(c);
    }
    (text.len(), width)
}

/// From byte `at` of `text`, the furthest byte reached going left within `room` display columns, and the
/// columns used.
fn retreat(text: &str, at: usize, room: usize) -> (usize, usize) {
    let mut width = 0;
    for (i, c) in text[..at].char_indices().rev() {
        if width + display_width(c) > room {
            return (i + c.len_utf8(), width);
        }
        width += display_width(c);
    }
    (0, width)
}

/// How many columns a character takes as shown (see `expand`).
fn display_width(c: char) -> usize {
    match c {
        '\t' => TAB_WIDTH,
        c if c.is_control() => 1,
        c => c.width().unwrap_or(0),
    }
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
            '\t' => shown.push_str(&" ".repeat(TAB_WIDTH)),
            c if c.is_control() => shown.push(control_picture(c)),
            c => shown.push(c),
        }
        column += display_width(c);
    }
    columns.push(column);
    (shown, columns)
}

#[cfg(test)]
mod tests;
