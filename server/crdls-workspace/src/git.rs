//! Old versions of files from git (`git show REV:./file`), for checking an edit as the update it
//! will be: transition rules (`oldSelf`) run and unchanged invalid values are ratcheted. The revision
//! is checked before git sees it, and passed after `--end-of-options`, so no revision can be read as
//! one of git's options (`--output=FILE` writes files).

use std::path::Path;
use std::process::Command;

/// Why `rev` cannot be a revision crdls hands to git, if it cannot: empty, starting with `-` (git
/// would read an option), or holding a control character, a colon (it would change which file is
/// shown) or whitespace.
pub fn check_revision(rev: &str) -> Result<(), String> {
    let problem = if rev.is_empty() {
        "is empty"
    } else if rev.starts_with('-') {
        "starts with '-'"
    } else if rev.chars().any(|c| c.is_control() || c.is_whitespace()) {
        "holds a space or a control character"
    } else if rev.contains(':') {
        "holds ':'"
    } else {
        return Ok(());
    };
    Err(format!("\"{}\" is not a git revision crdls uses: it {problem}", rev.escape_debug()))
}

/// The text of `path` at revision `rev`; `None` when the file did not exist there; an error when the
/// revision is not one crdls uses, git cannot be run, the directory is not in a repository, or git
/// rejects the revision.
pub fn show(path: &Path, rev: &str) -> Result<Option<String>, String> {
    check_revision(rev)?;
    let dir = path.parent().filter(|d| !d.as_os_str().is_empty()).unwrap_or(Path::new("."));
    let name = path.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_default();
    let output = Command::new("git")
        .arg("-C")
        .arg(dir)
        .args(["show", "--no-textconv", "--end-of-options", &format!("{rev}:./{name}")])
        .stdin(std::process::Stdio::null())
        .output()
        .map_err(|e| format!("cannot run git: {e}"))?;
    if output.status.success() {
        return Ok(Some(String::from_utf8_lossy(&output.stdout).into_owned()));
    }
    let stderr = String::from_utf8_lossy(&output.stderr);
    if stderr.contains("exists on disk, but not in") || stderr.contains("does not exist in") {
        return Ok(None);
    }
    Err(stderr.trim().to_string())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn revisions_that_git_would_read_as_options_are_refused() {
        for rev in ["HEAD", "origin/main", "v1.2.3", "HEAD~2", "abc123^{commit}", "@{u}"] {
            assert_eq!(check_revision(rev), Ok(()), "{rev}");
        }
        for rev in ["", "--output=x", "-p", "HEAD:x", "a b", "a\nb"] {
            assert!(check_revision(rev).is_err(), "{rev}");
        }
        // Refused before git runs: nothing is written, whatever the directory holds.
        let dir = std::env::temp_dir().join(format!("crdls-git-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let error = show(&dir.join("w.yaml"), "--output=x").unwrap_err();
        assert!(error.contains("starts with '-'"), "{error}");
        assert!(!dir.join("x").exists());
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
