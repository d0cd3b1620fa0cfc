//! Manifests a script fills in before applying them: a shell script or a Makefile pipes the file through
//! `sed` (`cat pod.yaml | sed -e "s/HOSTNAME/$node/g" | kubectl apply -f -`), so the words its
//! substitutions replace are placeholders, and the text that holds one is not what the API server sees.
//! Found from the scripts' side: what names the file is the command line that edits it.

use std::path::{Path, PathBuf};

use crdls_diagnostics::{Diagnostic, TextRange};
use crdls_yaml::{Node, Stream, Value};

/// How many scripts of one directory are read.
const MAX_SCRIPTS: usize = 32;
/// The file names of shell scripts.
const SCRIPT_EXTENSIONS: &[&str] = &[".sh", ".bash"];

/// The shell scripts of `dir` (`*.sh`, `*.bash`), sorted, at most [`MAX_SCRIPTS`]; their texts are read
/// within the usual bound.
pub(super) fn shell_scripts(dir: &Path) -> Vec<(PathBuf, String)> {
    super::files_in(dir, |name| SCRIPT_EXTENSIONS.iter().any(|e| name.ends_with(e)), MAX_SCRIPTS)
        .into_iter()
        .filter_map(|path| crate::files::read_text(&path).ok().map(|text| (path, text)))
        .collect()
}

/// The files a script's commands pass through `sed`, as written, with the words its substitutions
/// replace: per command (a line, its `\` continuations joined) that runs `sed` with `s/WORD/…/`
/// expressions (any delimiter) whose pattern is a literal word, the YAML and JSON files the command
/// reads (a file it writes to with `>` is its output).
pub(super) fn sed_fills(text: &str) -> Vec<(PathBuf, Vec<String>)> {
    let mut out: Vec<(PathBuf, Vec<String>)> = Vec::new();
    let mut command = String::new();
    for line in text.lines() {
        if let Some(continued) = line.strip_suffix('\\') {
            command.push_str(continued);
            command.push(' ');
            continue;
        }
        command.push_str(line);
        let words = substituted_words(&command);
        if !words.is_empty() {
            for file in files_read(&command) {
                match out.iter_mut().find(|(named, _)| *named == file) {
                    Some((_, known)) => known.extend(words.iter().filter(|w| !known.contains(w)).cloned().collect::<Vec<_>>()),
                    None => out.push((file, words.clone())),
                }
            }
        }
        command.clear();
    }
    out
}

/// The literal words a command's `sed` substitutions replace (`s/HOSTNAME/$i/g`, `s|__TAG__|v1|`): a
/// pattern of letters, digits, `_` and `-`, at least three long and with a letter, since a pattern with
/// regular-expression syntax matches text crdls cannot tell.
fn substituted_words(command: &str) -> Vec<String> {
    if !command.split(|c: char| !(c.is_ascii_alphanumeric() || c == '_' || c == '-')).any(|w| w == "sed") {
        return Vec::new();
    }
    let bytes = command.as_bytes();
    let mut words = Vec::new();
    for (i, &b) in bytes.iter().enumerate() {
        let starts = i == 0 || matches!(bytes[i - 1], b' ' | b'\t' | b'"' | b'\'' | b';' | b'=');
        let Some(&delimiter) = bytes.get(i + 1) else { break };
        if b != b's' || !starts || !matches!(delimiter, b'/' | b'|' | b'#' | b'@' | b',' | b':') {
            continue;
        }
        let rest = &command[i + 2..];
        let Some(end) = rest.find(delimiter as char) else { continue };
        // A replacement closed by the delimiter too: a whole `s` expression.
        if !rest[end + 1..].contains(delimiter as char) {
            continue;
        }
        let pattern = &rest[..end];
        let literal = pattern.len() >= 3
            && pattern.bytes().all(|c| c.is_ascii_alphanumeric() || c == b'_' || c == b'-')
            && pattern.bytes().any(|c| c.is_ascii_alphabetic());
        if literal && !words.iter().any(|w| w == pattern) {
            words.push(pattern.to_string());
        }
    }
    words
}

/// Whether a word is written as a constant's name: capitals, digits and `_`, starting with a capital
/// (`HOSTNAME`, `NODE_NAME`), as placeholders are.
pub(super) fn is_constant_name(word: &str) -> bool {
    word.starts_with(|c: char| c.is_ascii_uppercase()) && word.bytes().all(|c| c.is_ascii_uppercase() || c.is_ascii_digit() || c == b'_')
}

/// The YAML and JSON files a command names and does not write to: its words ending in `.yaml`, `.yml`
/// or `.json` that hold no variable or glob, except the target of a `>` redirection.
fn files_read(command: &str) -> Vec<PathBuf> {
    let mut files = Vec::new();
    let mut redirected = false;
    for word in command.split(|c: char| c.is_whitespace() || matches!(c, '|' | ';' | '<' | '(' | ')')) {
        if word.is_empty() {
            continue;
        }
        let writes = word.starts_with('>') || redirected;
        redirected = word.chars().all(|c| c == '>');
        let word = word.trim_start_matches('>').trim_matches(['"', '\'']);
        if writes || word.contains(['$', '*', '`']) || ![".yaml", ".yml", ".json"].iter().any(|e| word.ends_with(e)) {
            continue;
        }
        files.push(PathBuf::from(word));
    }
    files
}

/// Drops the diagnostics that touch a scalar (a value or a key) holding one of `words`: text a script
/// replaces before the API server sees it.
pub(super) fn drop_filled(stream: &Stream, words: &[String], diagnostics: &mut Vec<Diagnostic>) {
    let mut filled = Vec::new();
    for root in stream.documents.iter().filter_map(|d| d.root.as_ref()) {
        holding(root, words, 0, &mut filled);
    }
    if filled.is_empty() {
        return;
    }
    diagnostics.retain(|d| !filled.iter().any(|r| r.start <= d.range.end && d.range.start <= r.end));
}

/// The ranges of the scalars below `node` that hold one of `words`, keys included.
fn holding(node: &Node, words: &[String], depth: usize, out: &mut Vec<TextRange>) {
    if depth > 64 {
        return;
    }
    let holds = |text: &str| words.iter().any(|w| text.contains(w.as_str()));
    match &node.value {
        Value::Map(entries) => {
            for entry in entries {
                if holds(&entry.key) {
                    out.push(entry.key_range);
                }
                holding(&entry.value, words, depth + 1, out);
            }
        }
        Value::Seq(items) => items.iter().for_each(|item| holding(item, words, depth + 1, out)),
        Value::Str(text) if holds(text) => out.push(node.range),
        _ => {}
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sed_substitutions_name_the_words_a_script_fills_in() {
        let script = "#!/bin/bash\nfor i in $WORKERS; do\n  cat wipe.yaml | sed -e \"s/HOSTNAME/$i/g\" | kubectl apply -f -\ndone\n\
                      sed 's|__TAG__|v1|; s/[0-9]+/x/' \\\n  deploy/app.yml > out/app.yaml\n\
                      sed -i s/ab/cd/ short.yaml\n\
                      cat other.yaml | kubectl apply -f -\n\
                      echo s/NOTSED/x/ echo.yaml\n";
        assert_eq!(
            sed_fills(script),
            [(PathBuf::from("wipe.yaml"), vec!["HOSTNAME".to_string()]), (PathBuf::from("deploy/app.yml"), vec!["__TAG__".to_string()])]
        );
    }

    #[test]
    fn diagnostics_on_filled_text_are_dropped() {
        let text = "kind: Pod\nmetadata:\n  name: wipe-HOSTNAME\nspec:\n  nodeName: Node_1\n";
        let stream = crdls_yaml::parse(text);
        let at = |s: &str| {
            let start = text.find(s).unwrap();
            Diagnostic::new(
                TextRange::new(start, start + s.len()),
                crdls_diagnostics::Severity::Error,
                crdls_diagnostics::codes::METADATA_NAME,
                "x",
            )
        };
        let mut diagnostics = vec![at("wipe-HOSTNAME"), at("Node_1")];
        drop_filled(&stream, &["HOSTNAME".to_string()], &mut diagnostics);
        assert_eq!(diagnostics.len(), 1);
        assert_eq!(diagnostics[0].range.start, text.find("Node_1").unwrap());
    }
}
