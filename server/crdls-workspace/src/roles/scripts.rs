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
    for command in commands(text) {
        let words = substituted_words(&command);
        if !words.is_empty() {
            for file in files_read(&command) {
                match out.iter_mut().find(|(named, _)| *named == file) {
                    Some((_, known)) => known.extend(words.iter().filter(|w| !known.contains(w)).cloned().collect::<Vec<_>>()),
                    None => out.push((file, words.clone())),
                }
            }
        }
    }
    out
}

/// A script's commands: each line, joined with the lines its trailing `\` continues onto.
fn commands(text: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut command = String::new();
    for line in text.lines() {
        if let Some(continued) = line.strip_suffix('\\') {
            command.push_str(continued);
            command.push(' ');
            continue;
        }
        command.push_str(line);
        out.push(std::mem::take(&mut command));
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

/// A path a script writes a command's output into (`helm template … > tests/fixtures/x.yaml`), as
/// written: a file, or a directory everything below which it may write (the target held a variable
/// after the directory: `> "./tests/fixtures/${case}"`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub(super) struct Written {
    pub(super) path: PathBuf,
    pub(super) below: bool,
}

/// What a shell script's or Makefile's commands write into: per command (a line, its `\` continuations
/// joined), the target of each `>` or `>>` redirection of standard output, and the files `tee` is given.
/// A variable in the target is replaced by the literal text the script assigns it (`OUT="./tests/x/${n}"`,
/// `OUT := tests/x`), once; the target is then cut at the first variable left, and what it still names
/// is a directory below which the script writes. Only relative paths count: an absolute one
/// (`/dev/null`, `/tmp/…`) names no file of the project, and one with `..`, a glob or nothing literal says
/// nothing about where.
pub(super) fn redirect_targets(text: &str) -> Vec<Written> {
    let commands: Vec<String> = commands(text).into_iter().filter(|c| !c.trim_start().starts_with('#')).collect();
    let assigned = assignments(&commands);
    let mut out = Vec::new();
    for command in &commands {
        for segment in command.split(['|', ';', '&']) {
            let words: Vec<&str> = segment.split_whitespace().collect();
            let mut targets = Vec::new();
            for (i, word) in words.iter().enumerate() {
                let stripped = word.strip_prefix('1').unwrap_or(word);
                if let Some(rest) = stripped.strip_prefix(">>").or_else(|| stripped.strip_prefix('>')) {
                    match rest {
                        "" => targets.extend(words.get(i + 1).copied()),
                        _ if !rest.starts_with(['&', '>']) => targets.push(rest),
                        _ => {}
                    }
                }
            }
            if let Some(at) = words.iter().position(|w| *w == "tee") {
                targets.extend(words[at + 1..].iter().copied().filter(|w| !w.starts_with(['-', '>'])));
            }
            for target in targets {
                if let Some(written) = written(target, &assigned) {
                    if !out.contains(&written) {
                        out.push(written);
                    }
                }
            }
        }
    }
    out
}

/// The variables a script assigns literal text (`NAME=value`, `export NAME="value"`, make's
/// `NAME := value`), the last assignment winning.
fn assignments(commands: &[String]) -> Vec<(String, String)> {
    let mut out: Vec<(String, String)> = Vec::new();
    for command in commands {
        let line = command.trim();
        let line = ["export ", "local ", "readonly ", "declare "].iter().find_map(|p| line.strip_prefix(p)).unwrap_or(line).trim_start();
        let Some(eq) = line.find('=') else { continue };
        let name = line[..eq].trim_end().trim_end_matches([':', '?', '+']).trim_end();
        let is_name =
            name.starts_with(|c: char| c.is_ascii_alphabetic() || c == '_') && name.bytes().all(|c| c.is_ascii_alphanumeric() || c == b'_');
        let value = line[eq + 1..].trim().trim_matches(['"', '\'']);
        if !is_name || value.is_empty() || value.contains(char::is_whitespace) || value.contains('`') {
            continue;
        }
        out.retain(|(n, _)| n != name);
        out.push((name.to_string(), value.to_string()));
    }
    out
}

/// The path a redirection's target names, once its variables are replaced (see [`redirect_targets`]).
fn written(target: &str, assigned: &[(String, String)]) -> Option<Written> {
    let target = target.trim_matches(['"', '\'']);
    let mut expanded = String::new();
    let mut rest = target;
    while let Some(at) = rest.find('$') {
        expanded.push_str(&rest[..at]);
        let after = &rest[at + 1..];
        let (name, len) = if let Some(inner) = after.strip_prefix('{').or_else(|| after.strip_prefix('(')) {
            let close = inner.find(['}', ')'])?;
            (&inner[..close], close + 2)
        } else {
            let len = after.bytes().take_while(|c| c.is_ascii_alphanumeric() || *c == b'_').count();
            (&after[..len], len)
        };
        match assigned.iter().find(|(n, _)| n == name) {
            Some((_, value)) if !name.is_empty() => expanded.push_str(value.trim_matches(['"', '\''])),
            _ => expanded.push_str(&rest[at..at + 1 + len]),
        }
        rest = &after[len.min(after.len())..];
    }
    expanded.push_str(rest);
    let cut = expanded.find(['$', '`']);
    let literal = &expanded[..cut.unwrap_or(expanded.len())];
    if literal.contains(['*', '?', '~', '[']) {
        return None;
    }
    let (path, below) = match cut {
        None => (literal, false),
        Some(_) => (literal.rfind('/').map_or("", |slash| &literal[..slash]), true),
    };
    let path = Path::new(path);
    let plain =
        path.is_relative() && path.components().all(|c| matches!(c, std::path::Component::Normal(_) | std::path::Component::CurDir));
    let named = path.components().any(|c| matches!(c, std::path::Component::Normal(_)));
    (plain && named).then(|| Written { path: crate::files::normalize(path), below })
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
    fn redirections_name_what_a_script_writes() {
        let script = "#!/bin/bash\nSTATIC=\"./tests/unit/${path}\"\nfor file in \"${STATIC}\"/*; do\n\
                      CASE=$(basename \"$file\")\n  FIXTURE=\"./tests/unit/fixtures/${path}/${CASE}\"\n\
                      helm template -f \"$file\" \"$CASE\" ./chart \\\n    --debug > \"${FIXTURE}\"\ndone\n\
                      kustomize build config/default > dist/install.yaml 2>/dev/null\n\
                      render | tee -a out/all.yaml >&2\n\
                      echo x > /dev/null; echo y >$TMPDIR/x.yaml; echo z > ../up/x.yaml; cat a >> rendered/*.yaml\n\
                      # helm template . > commented/out.yaml\n";
        let written = |path: &str, below: bool| Written { path: PathBuf::from(path), below };
        assert_eq!(
            redirect_targets(script),
            [written("tests/unit/fixtures", true), written("dist/install.yaml", false), written("out/all.yaml", false)]
        );
        let makefile = "OUT_DIR ?= test/golden\nrender:\n\t$(HELM) template charts/app > $(OUT_DIR)/app.yaml\n";
        assert_eq!(redirect_targets(makefile), [written("test/golden/app.yaml", false)]);
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
