//! `crdls check --fix` and `--diff`: the fixes that need no judgement, listed as they are made, written
//! only over the text that was read (atomically, keeping the file's permissions), or shown as a
//! unified diff without touching anything.

use std::fmt::Write as _;
use std::path::Path;
use std::sync::atomic::{AtomicBool, Ordering};

use crdls_ide::Edit;
use crdls_yaml::{ColumnUnit, LineIndex};

use super::checker::Checker;
use crate::io::{Io, EXIT_ERRORS, EXIT_OK, EXIT_USAGE};
use crate::parallel;

/// Lines of context around each change in a diff.
const CONTEXT: usize = 3;

/// One line per edit: `file:line:col: `old` -> `new``, in the file's order.
pub(crate) fn describe(display: &str, text: &str, edits: &[Edit]) -> Vec<String> {
    let index = LineIndex::new(text);
    let mut sorted: Vec<&Edit> = edits.iter().collect();
    sorted.sort_by_key(|e| e.range.start);
    sorted
        .iter()
        .map(|e| {
            let at = index.line_col(text, e.range.start, ColumnUnit::Char);
            let old = text.get(e.range.start..e.range.end.min(text.len())).unwrap_or_default();
            format!("{display}:{}:{}: {} -> {}", at.line + 1, at.col + 1, shown(old), shown(&e.new_text))
        })
        .collect()
}

/// Text of an edit for a one-line listing: quoted, with line breaks made visible.
fn shown(text: &str) -> String {
    if text.is_empty() {
        return "(nothing)".into();
    }
    format!("`{}`", text.replace('\n', "\\n"))
}

/// Writes `new_text` to `path` only if the file still holds `read_text` (what the check saw), through a
/// temporary file in the same directory renamed over it, so that a concurrent edit is never lost and a
/// reader never sees half a file. The file's permissions are kept. A symbolic link is written through,
/// as editors do: the file it leads to is replaced and the link stays. A file with other hard links is
/// written in place instead (a rename would leave the other names with the old text). A read-only
/// file is not written: a rename would replace it all the same, which is not what its mode asks.
pub(crate) fn write_if_unchanged(path: &Path, read_text: &str, new_text: &str) -> Result<(), String> {
    let now = crdls_workspace::files::read_text(path).map_err(|e| format!("cannot read {} again: {e}", path.display()))?;
    if now != read_text {
        return Err(format!("{} changed while it was checked; not fixed (run again)", path.display()));
    }
    let cannot_write = |e: std::io::Error| format!("cannot write {}: {e}", path.display());
    let target = std::fs::canonicalize(path).map_err(cannot_write)?;
    let metadata = std::fs::metadata(&target).map_err(cannot_write)?;
    if metadata.permissions().readonly() {
        return Err(format!("{} is read-only; not fixed", path.display()));
    }
    if hard_links(&metadata) > 1 {
        return std::fs::OpenOptions::new()
            .write(true)
            .truncate(true)
            .open(&target)
            .and_then(|mut file| std::io::Write::write_all(&mut file, new_text.as_bytes()))
            .map_err(cannot_write);
    }
    let dir = target.parent().filter(|d| !d.as_os_str().is_empty()).unwrap_or(Path::new("."));
    let name = target.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_default();
    let temp = dir.join(format!(".{name}.crdls-fix-{}", std::process::id()));
    let result = (|| {
        // A new file, never one that is there already (a link planted under the temporary name would
        // otherwise be written through).
        let mut file = std::fs::OpenOptions::new().write(true).create_new(true).open(&temp)?;
        std::io::Write::write_all(&mut file, new_text.as_bytes())?;
        drop(file);
        std::fs::set_permissions(&temp, metadata.permissions())?;
        std::fs::rename(&temp, &target)
    })();
    if let Err(e) = result {
        // Only a file this run created is removed.
        if e.kind() != std::io::ErrorKind::AlreadyExists {
            let _ = std::fs::remove_file(&temp);
        }
        return Err(cannot_write(e));
    }
    Ok(())
}

/// How many names the file has.
fn hard_links(metadata: &std::fs::Metadata) -> u64 {
    #[cfg(unix)]
    {
        std::os::unix::fs::MetadataExt::nlink(metadata)
    }
    #[cfg(not(unix))]
    {
        let _ = metadata;
        1
    }
}

/// A unified diff (`--- a/x`, `+++ b/x`, `@@` hunks with three lines of context) from `old` to the
/// text the edits make of it.
pub(crate) fn unified_diff(display: &str, old: &str, edits: &[Edit]) -> String {
    let old_lines: Vec<&str> = old.split_inclusive('\n').collect();
    let new = crdls_ide::apply_edits(old, edits);
    let new_lines: Vec<&str> = new.split_inclusive('\n').collect();
    // The changed block: everything between the common prefix and the common suffix of lines. Edits
    // are few and local, so the block is split into hunks where unchanged stretches are long.
    let prefix = old_lines.iter().zip(&new_lines).take_while(|(a, b)| a == b).count();
    let suffix = old_lines[prefix..].iter().rev().zip(new_lines[prefix..].iter().rev()).take_while(|(a, b)| a == b).count();
    let old_block = &old_lines[prefix..old_lines.len() - suffix];
    let new_block = &new_lines[prefix..new_lines.len() - suffix];
    let mut out = format!("--- {}\n+++ {}\n", diff_name("a/", display), diff_name("b/", display));
    for hunk in hunks(old_block, new_block) {
        let start = prefix + hunk.old_start;
        let before = start.saturating_sub(CONTEXT);
        let old_end = prefix + hunk.old_end;
        let after = (old_end + CONTEXT).min(old_lines.len());
        let new_start = prefix + hunk.new_start;
        let old_count = after - before;
        let new_count = (start - before) + (hunk.new_end - hunk.new_start) + (after - old_end);
        let _ = writeln!(out, "@@ -{} +{} @@", range(before, old_count), range(new_start - (start - before), new_count));
        for line in &old_lines[before..start] {
            push_line(&mut out, ' ', line);
        }
        if old_block.len() == new_block.len() {
            // Lines pair up one to one: each changed line is shown removed then added, the rest as context.
            for i in hunk.old_start..hunk.old_end {
                if old_block[i] == new_block[i] {
                    push_line(&mut out, ' ', old_block[i]);
                } else {
                    push_line(&mut out, '-', old_block[i]);
                    push_line(&mut out, '+', new_block[i]);
                }
            }
        } else {
            for line in &old_block[hunk.old_start..hunk.old_end] {
                push_line(&mut out, '-', line);
            }
            for line in &new_block[hunk.new_start..hunk.new_end] {
                push_line(&mut out, '+', line);
            }
        }
        for line in &old_lines[old_end..after] {
            push_line(&mut out, ' ', line);
        }
    }
    out
}

/// A file's name in a diff header, `prefix` before it, quoted as git quotes one when it holds a
/// control character, a double quote or a backslash: in double quotes, with C escapes (`"a/x\ny.yaml"`),
/// so that the header stays one line and `git apply` and `patch` read the name back. Other characters
/// are kept as they are, as git does with `core.quotePath` off.
fn diff_name(prefix: &str, name: &str) -> String {
    if !name.chars().any(|c| c.is_control() || c == '"' || c == '\\') {
        return format!("{prefix}{name}");
    }
    let mut quoted = String::from("\"");
    for c in prefix.chars().chain(name.chars()) {
        match c {
            '\x07' => quoted.push_str("\\a"),
            '\x08' => quoted.push_str("\\b"),
            '\t' => quoted.push_str("\\t"),
            '\n' => quoted.push_str("\\n"),
            '\x0b' => quoted.push_str("\\v"),
            '\x0c' => quoted.push_str("\\f"),
            '\r' => quoted.push_str("\\r"),
            '"' => quoted.push_str("\\\""),
            '\\' => quoted.push_str("\\\\"),
            // Other controls as the octal of their bytes (the C1 controls are two bytes of UTF-8).
            c if c.is_control() => {
                for byte in c.to_string().bytes() {
                    let _ = write!(quoted, "\\{byte:03o}");
                }
            }
            c => quoted.push(c),
        }
    }
    quoted.push('"');
    quoted
}

/// A `start,count` pair of a hunk header, 1-based (`0,0` style for an empty range, as diff writes it).
fn range(start: usize, count: usize) -> String {
    if count == 0 {
        format!("{start},0")
    } else {
        format!("{},{count}", start + 1)
    }
}

fn push_line(out: &mut String, mark: char, line: &str) {
    out.push(mark);
    out.push_str(line);
    if !line.ends_with('\n') {
        out.push_str("\n\\ No newline at end of file\n");
    }
}

/// A changed stretch of the block: lines `old_start..old_end` became `new_start..new_end`.
struct Hunk {
    old_start: usize,
    old_end: usize,
    new_start: usize,
    new_end: usize,
}

/// Splits a changed block into hunks at runs of more than twice the context of unchanged lines. Fixes
/// replace text within lines and keep the line count, so lines pair up one to one; when the counts
/// differ, the block is one hunk.
fn hunks(old: &[&str], new: &[&str]) -> Vec<Hunk> {
    if old.len() != new.len() {
        return vec![Hunk { old_start: 0, old_end: old.len(), new_start: 0, new_end: new.len() }];
    }
    let changed: Vec<usize> = (0..old.len()).filter(|&i| old[i] != new[i]).collect();
    let mut out: Vec<Hunk> = Vec::new();
    for i in changed {
        match out.last_mut() {
            Some(last) if i - last.old_end <= 2 * CONTEXT => {
                last.old_end = i + 1;
                last.new_end = i + 1;
            }
            _ => out.push(Hunk { old_start: i, old_end: i + 1, new_start: i, new_end: i + 1 }),
        }
    }
    out
}

#[derive(Clone, Copy, PartialEq, Eq)]
pub(super) enum Fixing {
    /// `--fix`: rewrite the files.
    Write,
    /// `--diff`: print what `--fix` would change.
    Diff,
}

pub(super) enum FixOutcome {
    /// The files were fixed; report what is left.
    Fixed,
    /// The run ends with this exit code.
    Exit(i32),
}

/// `--fix` and `--diff`: every reported file on disk checked for automatic fixes, in parallel; in input
/// order, each fixed file is written (`--fix`, stopping at the first that cannot be) or its diff
/// printed (`--diff`, which then ends the run). The report that follows reads the fixed files again.
pub(super) fn fix_files(checker: &Checker<'_>, reported_at: &[usize], fixing: Fixing, io: &mut Io<'_>) -> FixOutcome {
    let files: Vec<usize> = reported_at.iter().copied().filter(|&i| checker.inputs[i].path.is_some()).collect();
    let stop = AtomicBool::new(false);
    let mut changes: Vec<Vec<String>> = Vec::new();
    let mut failure: Option<String> = None;
    let mut diffs = false;
    let mut written: std::io::Result<()> = Ok(());
    let (stdout, stderr) = (&mut *io.stdout, &mut *io.stderr);
    parallel::for_each_ordered(
        files.len(),
        parallel::WINDOW,
        |k| if stop.load(Ordering::Relaxed) { Err(String::new()) } else { checker.fixes(files[k]) },
        |k, fixes| {
            if failure.is_some() {
                return;
            }
            let input = &checker.inputs[files[k]];
            let (text, edits) = match fixes {
                Ok(fixes) => fixes,
                Err(e) => {
                    failure = Some(e);
                    stop.store(true, Ordering::Relaxed);
                    return;
                }
            };
            if edits.is_empty() {
                return;
            }
            if fixing == Fixing::Diff {
                diffs = true;
                if written.is_ok() {
                    written = stdout.write_all(unified_diff(&input.display, &text, &edits).as_bytes());
                }
                return;
            }
            let fixed = crdls_ide::apply_edits(&text, &edits);
            let path = input.path.as_deref().expect("only files are fixed");
            if let Err(e) = write_if_unchanged(path, &text, &fixed) {
                failure = Some(e);
                stop.store(true, Ordering::Relaxed);
                return;
            }
            changes.push(describe(&input.display, &text, &edits));
        },
    );
    if let Some(e) = failure {
        let _ = writeln!(stderr, "crdls: {e}");
        return FixOutcome::Exit(EXIT_USAGE);
    }
    if fixing == Fixing::Diff {
        return FixOutcome::Exit(match written {
            Ok(()) if !diffs => EXIT_OK,
            Ok(()) => EXIT_ERRORS,
            Err(e) if e.kind() == std::io::ErrorKind::BrokenPipe => EXIT_OK,
            Err(e) => {
                let _ = writeln!(stderr, "crdls: cannot write the diff: {e}");
                EXIT_USAGE
            }
        });
    }
    let fixes: usize = changes.iter().map(Vec::len).sum();
    for line in changes.iter().flatten() {
        let _ = writeln!(stderr, "fixed {line}");
    }
    let _ = writeln!(
        stderr,
        "crdls: made {fixes} {} in {} {}",
        plural(fixes, "fix", "fixes"),
        changes.len(),
        plural(changes.len(), "file", "files")
    );
    FixOutcome::Fixed
}

pub(super) fn plural<'a>(n: usize, one: &'a str, many: &'a str) -> &'a str {
    if n == 1 {
        one
    } else {
        many
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crdls_diagnostics::TextRange;

    fn edit(text: &str, old: &str, new: &str) -> Edit {
        let start = text.find(old).unwrap();
        Edit { range: TextRange::new(start, start + old.len()), new_text: new.into() }
    }

    #[test]
    fn edits_are_listed_with_their_place() {
        let text = "a: 1\nspec:\n  replcas: 3\n  tier: Gold\n";
        let edits = [edit(text, "Gold", "gold"), edit(text, "replcas", "replicas")];
        assert_eq!(describe("x.yaml", text, &edits), ["x.yaml:3:3: `replcas` -> `replicas`", "x.yaml:4:9: `Gold` -> `gold`"]);
    }

    #[test]
    fn a_file_changed_since_it_was_read_is_not_overwritten() {
        let dir = std::env::temp_dir().join(format!("crdls-fix-write-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).unwrap();
        let path = dir.join("w.yaml");
        std::fs::write(&path, "edited meanwhile\n").unwrap();
        let err = write_if_unchanged(&path, "as read\n", "fixed\n").unwrap_err();
        assert!(err.contains("changed while it was checked"), "{err}");
        assert_eq!(std::fs::read_to_string(&path).unwrap(), "edited meanwhile\n");
        #[cfg(unix)]
        {
            use std::os::unix::fs::PermissionsExt;
            std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o640)).unwrap();
        }
        write_if_unchanged(&path, "edited meanwhile\n", "fixed\n").unwrap();
        assert_eq!(std::fs::read_to_string(&path).unwrap(), "fixed\n");
        #[cfg(unix)]
        {
            use std::os::unix::fs::PermissionsExt;
            assert_eq!(std::fs::metadata(&path).unwrap().permissions().mode() & 0o777, 0o640);
        }
        // No temporary file is left behind.
        assert_eq!(std::fs::read_dir(&dir).unwrap().count(), 1);
        let _ = std::fs::remove_dir_all(&dir);
    }

    #[test]
    fn diffs_are_unified_with_context() {
        let text = "1\n2\n3\n4\nspec:\n  replcas: 3\n6\n7\n8\n9\n10\n11\n12\n13\n14\n  tier: Gold\n";
        let edits = [edit(text, "Gold", "gold"), edit(text, "replcas", "replicas")];
        expect_test::expect![[r#"
            --- a/x.yaml
            +++ b/x.yaml
            @@ -3,7 +3,7 @@
             3
             4
             spec:
            -  replcas: 3
            +  replicas: 3
             6
             7
             8
            @@ -13,4 +13,4 @@
             12
             13
             14
            -  tier: Gold
            +  tier: gold
        "#]]
        .assert_eq(&unified_diff("x.yaml", text, &edits));
    }

    /// A fresh directory for one test.
    fn scratch(name: &str) -> std::path::PathBuf {
        let dir = std::env::temp_dir().join(format!("crdls-{name}-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).unwrap();
        dir
    }

    #[cfg(unix)]
    #[test]
    fn a_symbolic_link_is_written_through_and_kept() {
        let dir = scratch("fix-symlink");
        std::fs::create_dir_all(dir.join("real")).unwrap();
        std::fs::write(dir.join("real/w.yaml"), "as read\n").unwrap();
        std::os::unix::fs::symlink("real/w.yaml", dir.join("link.yaml")).unwrap();
        write_if_unchanged(&dir.join("link.yaml"), "as read\n", "fixed\n").unwrap();
        assert!(std::fs::symlink_metadata(dir.join("link.yaml")).unwrap().file_type().is_symlink(), "the link stays a link");
        assert_eq!(std::fs::read_link(dir.join("link.yaml")).unwrap(), Path::new("real/w.yaml"));
        assert_eq!(std::fs::read_to_string(dir.join("real/w.yaml")).unwrap(), "fixed\n");
        // No temporary file is left beside the link or the target.
        assert_eq!(std::fs::read_dir(&dir).unwrap().count(), 2);
        assert_eq!(std::fs::read_dir(dir.join("real")).unwrap().count(), 1);
        let _ = std::fs::remove_dir_all(&dir);
    }

    #[cfg(unix)]
    #[test]
    fn hard_links_keep_sharing_the_fixed_text_and_read_only_files_are_left_alone() {
        use std::os::unix::fs::PermissionsExt;
        let dir = scratch("fix-links");
        std::fs::write(dir.join("w.yaml"), "as read\n").unwrap();
        std::fs::hard_link(dir.join("w.yaml"), dir.join("other.yaml")).unwrap();
        write_if_unchanged(&dir.join("w.yaml"), "as read\n", "fixed\n").unwrap();
        assert_eq!(std::fs::read_to_string(dir.join("other.yaml")).unwrap(), "fixed\n");
        std::fs::write(dir.join("ro.yaml"), "as read\n").unwrap();
        std::fs::set_permissions(dir.join("ro.yaml"), std::fs::Permissions::from_mode(0o444)).unwrap();
        let err = write_if_unchanged(&dir.join("ro.yaml"), "as read\n", "fixed\n").unwrap_err();
        assert!(err.ends_with("ro.yaml is read-only; not fixed"), "{err}");
        assert_eq!(std::fs::read_to_string(dir.join("ro.yaml")).unwrap(), "as read\n");
        let _ = std::fs::remove_dir_all(&dir);
    }

    #[test]
    fn names_with_control_characters_are_quoted_in_diff_headers() {
        let text = "tier: Gold\n";
        let edits = [edit(text, "Gold", "gold")];
        let header = |name: &str| unified_diff(name, text, &edits).lines().take(2).collect::<Vec<_>>().join("\n");
        assert_eq!(header("my widget.yaml"), "--- a/my widget.yaml\n+++ b/my widget.yaml");
        assert_eq!(header("日本.yaml"), "--- a/日本.yaml\n+++ b/日本.yaml");
        assert_eq!(header("a\nb.yaml"), "--- \"a/a\\nb.yaml\"\n+++ \"b/a\\nb.yaml\"");
        assert_eq!(
            header("q\"\\\t\x1b\u{9b}.yaml"),
            "--- \"a/q\\\"\\\\\\t\\033\\302\\233.yaml\"\n+++ \"b/q\\\"\\\\\\t\\033\\302\\233.yaml\""
        );
    }
}
