//! Shell text saved with a YAML name: a file whose first line (after blank lines and comments) is a
//! command that feeds a here-document to a program (`cat <<EOF | kubectl apply -f -`,
//! `kubectl create -f - <<'EOF'`), and which has the line that ends it. It is a script: the objects
//! inside are what the script applies, once its shell has read them, and the file as a whole is no YAML,
//! so what a YAML reader says of it concerns nobody.

/// The most lines looked at for the here-document's end.
const MAX_LINES: usize = 100_000;

/// Whether `text` is a shell script built around a here-document.
pub fn is_shell_script(text: &str) -> bool {
    let mut lines = text.lines().take(MAX_LINES);
    let Some(first) = lines.by_ref().map(str::trim).find(|l| !l.is_empty() && !l.starts_with('#')) else { return false };
    let Some(word) = heredoc_word(first) else { return false };
    lines.any(|l| l.trim_end() == word || l.trim() == word)
}

/// The word that ends the here-document a command line opens (`<<EOF`, `<<-EOF`, `<<'EOF'`,
/// `<< "EOF"`), when the line is a command: it starts with a program's name and is no YAML key or list
/// item (`key: cat <<EOF` is a string).
fn heredoc_word(line: &str) -> Option<&str> {
    let program = line.split_whitespace().next()?;
    if !program.bytes().all(|b| b.is_ascii_alphanumeric() || matches!(b, b'_' | b'-' | b'.' | b'/')) || program.ends_with(':') {
        return None;
    }
    let at = line.find("<<")?;
    if line[..at].contains(": ") || line.starts_with("- ") {
        return None;
    }
    let rest = line[at + 2..].trim_start_matches('-').trim_start();
    let rest = rest.trim_start_matches(['\'', '"']);
    let len = rest.bytes().take_while(|b| b.is_ascii_alphanumeric() || *b == b'_').count();
    let word = &rest[..len];
    (len > 0 && word.starts_with(|c: char| c.is_ascii_alphabetic() || c == '_')).then_some(word)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_here_document_fed_to_a_command_is_a_script() {
        let script = "kubectl delete job bench || true &&  cat <<EOF | kubectl create -f -\napiVersion: batch/v1\nkind: Job\nEOF\n";
        assert!(is_shell_script(script));
        assert!(is_shell_script("# set up\n\nkubectl apply -f - <<'END'\nkind: Pod\nEND\n"));
        assert!(is_shell_script("cat <<-EOF | kubectl apply -f -\n  kind: Pod\n\tEOF\n"));
        // No end of the here-document, or a YAML line that mentions one: YAML.
        assert!(!is_shell_script("cat <<EOF | kubectl create -f -\napiVersion: v1\n"));
        assert!(!is_shell_script("script: cat <<EOF\nEOF\n"));
        assert!(!is_shell_script("- cat <<EOF\nEOF\n"));
        assert!(!is_shell_script("apiVersion: v1\nkind: ConfigMap\ndata:\n  run: |\n    cat <<EOF\n    EOF\n"));
        assert!(!is_shell_script("<<: *defaults\nEOF\n"));
    }
}
