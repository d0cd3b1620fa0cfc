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
/// The interpreters of a script without an extension, by its first line (`#!/bin/bash`,
/// `#!/usr/bin/env sh`).
const SHELLS: &[&str] = &["sh", "bash", "zsh", "ksh", "dash"];

/// The shell scripts of `dir`, sorted, at most [`MAX_SCRIPTS`]: `*.sh` and `*.bash`, and files without
/// an extension whose first line runs a shell (an end-to-end suite's `run`); their texts are read within
/// the usual bound.
pub(super) fn shell_scripts(dir: &Path) -> Vec<(PathBuf, String)> {
    let named = |name: &str| SCRIPT_EXTENSIONS.iter().any(|e| name.ends_with(e));
    let bare = |name: &str| !name.contains('.') && !super::MAKEFILES.contains(&name);
    super::files_in(dir, |name| named(name) || bare(name), MAX_SCRIPTS * 4)
        .into_iter()
        .filter(|path| path.file_name().is_some_and(|n| named(&n.to_string_lossy())) || starts_a_shell(path))
        .take(MAX_SCRIPTS)
        .filter_map(|path| crate::files::read_text(&path).ok().map(|text| (path, text)))
        .collect()
}

/// Whether a file's first line is a `#!` line that runs a shell; only its first bytes are read.
fn starts_a_shell(path: &Path) -> bool {
    use std::io::Read;
    let Ok(file) = std::fs::File::open(path) else { return false };
    let mut head = [0u8; 128];
    let mut len = 0;
    let mut reader = file.take(head.len() as u64);
    while let Ok(n) = reader.read(&mut head[len..]) {
        if n == 0 {
            break;
        }
        len += n;
    }
    let head = String::from_utf8_lossy(&head[..len]);
    let Some(line) = head.lines().next().and_then(|l| l.strip_prefix("#!")) else { return false };
    let mut words = line.split_whitespace();
    let Some(program) = words.next().and_then(|p| p.rsplit('/').next()) else { return false };
    let program = if program == "env" { words.find(|w| !w.starts_with('-')).unwrap_or("") } else { program };
    SHELLS.contains(&program)
}

/// A file a script fills in before it applies it, as the script names it (see [`script_fills`]).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub(super) struct Fill {
    /// The file, as written, or resolved from the script's own directory (`${DIR}/conf/x.yaml` where
    /// `DIR=$(dirname "$0")`), or from the file a `cp` copied to where the script edits it.
    pub(super) file: PathBuf,
    /// The words its `sed` substitutions replace.
    pub(super) words: Vec<String>,
    /// The fields its `yq` expressions set (`.metadata.name = "$name"`), as dotted paths.
    pub(super) fields: Vec<String>,
}

/// The files a script's commands fill in before applying them:
/// - per command (a line, its `\` continuations joined) that runs `sed` (itself, or through a variable
///   whose name says so, `${SED_COMMAND}`) with `s/WORD/…/` expressions (any delimiter) whose pattern is
///   a literal word, the YAML and JSON files the command reads, with the words;
/// - per command that runs `yq` with an assignment (`.metadata.name = "$name"`), the files it reads, with
///   the fields it sets.
///
/// A file a command writes to with `>` is its output. A file named through a variable holding the
/// script's directory is resolved from there; one the script copied with `cp` earlier is the copy's
/// source.
pub(super) fn script_fills(text: &str) -> Vec<Fill> {
    let commands = commands(text);
    let dirs = script_dir_variables(&commands);
    let mut copies: Vec<(String, String)> = Vec::new();
    let mut out: Vec<Fill> = Vec::new();
    for command in &commands {
        if let Some(copy) = copied(command) {
            copies.retain(|(to, _)| *to != copy.0);
            copies.push(copy);
            continue;
        }
        let words = substituted_words(command);
        let fields = assigned_fields(command);
        if words.is_empty() && fields.is_empty() {
            continue;
        }
        for word in read_words(command) {
            let word = copies.iter().find(|(to, _)| *to == word).map_or(word, |(_, from)| from.clone());
            let Some(file) = resolved(&word, &dirs) else { continue };
            let fill = match out.iter_mut().find(|f| f.file == file) {
                Some(fill) => fill,
                None => {
                    out.push(Fill { file, ..Fill::default() });
                    out.last_mut().expect("pushed")
                }
            };
            for w in &words {
                if !fill.words.contains(w) {
                    fill.words.push(w.clone());
                }
            }
            for f in &fields {
                if !fill.fields.contains(f) {
                    fill.fields.push(f.clone());
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

/// The variables a script assigns its own directory, with how many levels above it they point
/// (`DIR=$(dirname "$0")`, `test_dir=$(realpath $(dirname $0))`, `ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"`).
fn script_dir_variables(commands: &[String]) -> Vec<(String, usize)> {
    let mut out: Vec<(String, usize)> = Vec::new();
    for command in commands {
        let line = command.trim();
        let line = ["export ", "local ", "readonly ", "declare "].iter().find_map(|p| line.strip_prefix(p)).unwrap_or(line).trim_start();
        let Some(eq) = line.find('=') else { continue };
        let name = &line[..eq];
        let is_name =
            name.starts_with(|c: char| c.is_ascii_alphabetic() || c == '_') && name.bytes().all(|c| c.is_ascii_alphanumeric() || c == b'_');
        let value = &line[eq + 1..];
        if !is_name || !value.contains("dirname") || !(value.contains("$0") || value.contains("BASH_SOURCE")) {
            out.retain(|(n, _)| n != name);
            continue;
        }
        let after = &value[value.find("dirname").unwrap_or(0)..];
        let ups = after.matches("/..").count();
        out.retain(|(n, _)| n != name);
        out.push((name.to_string(), ups));
    }
    out
}

/// A `cp SOURCE DEST` command's destination and source, as written (quotes dropped), when it copies one
/// YAML or JSON file.
fn copied(command: &str) -> Option<(String, String)> {
    let words: Vec<&str> = command.split_whitespace().collect();
    let at = words.iter().position(|w| *w == "cp")?;
    let args: Vec<String> = words[at + 1..]
        .iter()
        .take_while(|w| !matches!(**w, "|" | "&&" | ";" | "||"))
        .filter(|w| !w.starts_with('-'))
        .map(|w| w.trim_matches(['"', '\'']).to_string())
        .collect();
    let [from, to] = args.as_slice() else { return None };
    crate::files::is_yaml_or_json(Path::new(from)).then(|| (to.clone(), from.clone()))
}

/// The literal words a command's `sed` substitutions replace (`s/HOSTNAME/$i/g`, `s|__TAG__|v1|`): a
/// pattern of letters, digits, `_` and `-`, at least three long and with a letter, since a pattern with
/// regular-expression syntax matches text crdls cannot tell.
fn substituted_words(command: &str) -> Vec<String> {
    let runs_sed = command.split(|c: char| !(c.is_ascii_alphanumeric() || c == '_' || c == '-' || c == '$' || c == '{')).any(|w| {
        let variable = w.trim_start_matches(['$', '{']);
        w == "sed" || w == "gsed" || (w.starts_with('$') && variable.to_ascii_lowercase().contains("sed"))
    });
    if !runs_sed {
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

/// The fields a command's `yq` expressions assign (`yq eval '.metadata.name = "x"'`, `|=` too), as
/// dotted paths; a path with anything but names (`.items[0]`, `.a.*`) is left out.
fn assigned_fields(command: &str) -> Vec<String> {
    if !command.split(|c: char| !(c.is_ascii_alphanumeric() || c == '_' || c == '-')).any(|w| w == "yq") {
        return Vec::new();
    }
    let mut fields = Vec::new();
    let bytes = command.as_bytes();
    for (i, _) in command.match_indices('=') {
        // `==` compares; `!=`, `<=`, `>=` too.
        if bytes.get(i + 1) == Some(&b'=') || (i > 0 && matches!(bytes[i - 1], b'=' | b'!' | b'<' | b'>')) {
            continue;
        }
        let before = command[..i].trim_end().trim_end_matches('|').trim_end();
        let start = before.rfind(|c: char| !(c.is_ascii_alphanumeric() || matches!(c, '.' | '_' | '-'))).map_or(0, |p| p + 1);
        let path = &before[start..];
        let after_a_break = start == 0 || before[..start].ends_with([' ', '\t', '\'', '"', '(', '|']);
        let Some(path) = path.strip_prefix('.').filter(|_| after_a_break) else { continue };
        let names: Vec<&str> = path.split('.').collect();
        if !names.is_empty() && names.iter().all(|n| !n.is_empty() && n.starts_with(|c: char| c.is_ascii_alphabetic())) {
            let path = names.join(".");
            if !fields.contains(&path) {
                fields.push(path);
            }
        }
    }
    fields
}

/// The words a command names that may be YAML or JSON files it reads: those ending in `.yaml`, `.yml` or
/// `.json`, quotes dropped, except the target of a `>` redirection.
fn read_words(command: &str) -> Vec<String> {
    let mut files = Vec::new();
    let mut redirected = false;
    for word in command.split(|c: char| c.is_whitespace() || matches!(c, '|' | ';' | '<' | '(' | ')')) {
        if word.is_empty() {
            continue;
        }
        let writes = word.starts_with('>') || redirected;
        redirected = word.chars().all(|c| c == '>');
        let word = word.trim_start_matches('>').trim_matches(['"', '\'']);
        if writes || ![".yaml", ".yml", ".json"].iter().any(|e| word.ends_with(e)) {
            continue;
        }
        files.push(word.to_string());
    }
    files
}

/// The file a word names, as written, or relative to the script's directory when it starts with a
/// variable holding that directory; `None` when it holds another variable, a glob or a command.
fn resolved(word: &str, dirs: &[(String, usize)]) -> Option<PathBuf> {
    let mut word = word.to_string();
    if let Some(rest) = word.strip_prefix('$') {
        let (name, after) = match rest.strip_prefix('{') {
            Some(inner) => {
                let close = inner.find('}')?;
                (&inner[..close], &inner[close + 1..])
            }
            None => {
                let len = rest.bytes().take_while(|c| c.is_ascii_alphanumeric() || *c == b'_').count();
                (&rest[..len], &rest[len..])
            }
        };
        let (_, ups) = dirs.iter().find(|(n, _)| n == name)?;
        let after = after.strip_prefix('/')?;
        word = format!("{}{after}", "../".repeat(*ups));
    }
    (!word.contains(['$', '*', '`', '?'])).then(|| PathBuf::from(word))
}

/// Whether a word is written as a constant's name: capitals, digits and `_`, starting with a capital
/// (`HOSTNAME`, `NODE_NAME`), as placeholders are.
pub(super) fn is_constant_name(word: &str) -> bool {
    word.starts_with(|c: char| c.is_ascii_uppercase()) && word.bytes().all(|c| c.is_ascii_uppercase() || c.is_ascii_digit() || c == b'_')
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
/// replaces before the API server sees it; and those about one of `fields` (dotted paths a script sets)
/// or below it: their paths, or a range in the field's value as written.
pub(super) fn drop_filled(stream: &Stream, words: &[String], fields: &[String], diagnostics: &mut Vec<Diagnostic>) {
    let mut filled = Vec::new();
    for root in stream.documents.iter().filter_map(|d| d.root.as_ref()) {
        if !words.is_empty() {
            holding(root, words, 0, &mut filled);
        }
        for field in fields {
            let mut node = Some(root);
            for name in field.split('.') {
                node = node.and_then(|n| n.get(name));
            }
            if let Some(node) = node {
                filled.push(node.range);
            }
        }
    }
    let set =
        |path: &str| fields.iter().any(|f| path == f || path.strip_prefix(f.as_str()).is_some_and(|rest| rest.starts_with(['.', '['])));
    diagnostics.retain(|d| !filled.iter().any(|r| r.start <= d.range.end && d.range.start <= r.end) && !d.path.as_deref().is_some_and(set));
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

    fn fill(file: &str, words: &[&str], fields: &[&str]) -> Fill {
        Fill {
            file: PathBuf::from(file),
            words: words.iter().map(|w| w.to_string()).collect(),
            fields: fields.iter().map(|f| f.to_string()).collect(),
        }
    }

    #[test]
    fn sed_substitutions_name_the_words_a_script_fills_in() {
        let script = "#!/bin/bash\nfor i in $WORKERS; do\n  cat wipe.yaml | sed -e \"s/HOSTNAME/$i/g\" | kubectl apply -f -\ndone\n\
                      sed 's|__TAG__|v1|; s/[0-9]+/x/' \\\n  deploy/app.yml > out/app.yaml\n\
                      sed -i s/ab/cd/ short.yaml\n\
                      cat other.yaml | kubectl apply -f -\n\
                      echo s/NOTSED/x/ echo.yaml\n\
                      cat $OTHER/x.yaml | sed s/VARIABLE/x/ | kubectl apply -f -\n";
        assert_eq!(script_fills(script), [fill("wipe.yaml", &["HOSTNAME"], &[]), fill("deploy/app.yml", &["__TAG__"], &[])]);
    }

    #[test]
    fn a_fill_follows_copies_sed_through_variables_and_the_script_s_own_directory() {
        // The file is copied to a temporary directory and edited there by a sed the script chose.
        let script = "create() {\n  TMP_DIR=$(mktemp -d)\n  cp src/test/config/svc.yaml ${TMP_DIR}/svc.yaml\n\
                      SED_COMMAND=\"sed -i\"\n  ${SED_COMMAND} \"s/APP_REPLACEME/${APP}/g\" ${TMP_DIR}/svc.yaml\n\
                      kubectl apply -f ${TMP_DIR}/svc.yaml\n}\n";
        assert_eq!(script_fills(script), [fill("src/test/config/svc.yaml", &["APP_REPLACEME"], &[])]);
        // A variable holding the script's directory (or one above it) names files from there.
        let script = "#!/bin/bash\ntest_dir=$(realpath $(dirname $0))\nROOT=\"$(cd \"$(dirname \"${BASH_SOURCE[0]}\")/..\" && pwd)\"\n\
                      cat ${test_dir}/conf/quota.yml | sed \"s/QUOTA/${quota}/\" | kubectl apply -f -\n\
                      sed -e s/SIZE/1Gi/ $ROOT/conf/pvc.yaml | kubectl apply -f -\n";
        assert_eq!(script_fills(script), [fill("conf/quota.yml", &["QUOTA"], &[]), fill("../conf/pvc.yaml", &["SIZE"], &[])]);
    }

    #[test]
    fn yq_assignments_name_the_fields_a_script_fills_in() {
        let script = "#!/bin/bash\ntest_dir=$(realpath $(dirname $0))\n\
                      yq eval \".metadata.name = \\\"${name}\\\"\" ${test_dir}/conf/backup.yml | kubectl apply -f -\n\
                      yq e -i '.spec.replicas |= 3 | .spec.items[0].x = 1' deploy/cr.yaml\n\
                      yq '.spec.size == 3' deploy/check.yaml\n";
        assert_eq!(
            script_fills(script),
            [fill("conf/backup.yml", &[], &["metadata.name"]), fill("deploy/cr.yaml", &[], &["spec.replicas"])]
        );
    }

    #[test]
    fn scripts_without_an_extension_are_read_by_their_first_line() {
        let dir = std::env::temp_dir().join(format!("crdls-scripts-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).unwrap();
        std::fs::write(dir.join("run"), "#!/usr/bin/env bash\necho\n").unwrap();
        std::fs::write(dir.join("check"), "#!/bin/sh\n").unwrap();
        std::fs::write(dir.join("tool"), "#!/usr/bin/env python3\n").unwrap();
        std::fs::write(dir.join("OWNERS"), "approvers: []\n").unwrap();
        std::fs::write(dir.join("Makefile"), "#!/bin/sh\n").unwrap();
        let names: Vec<String> =
            shell_scripts(&dir).into_iter().map(|(p, _)| p.file_name().unwrap().to_string_lossy().into_owned()).collect();
        assert_eq!(names, ["check", "run"]);
        let _ = std::fs::remove_dir_all(&dir);
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
        drop_filled(&stream, &["HOSTNAME".to_string()], &[], &mut diagnostics);
        assert_eq!(diagnostics.len(), 1);
        assert_eq!(diagnostics[0].range.start, text.find("Node_1").unwrap());
        // A field a script sets: the diagnostics on its value, or with its path or one below it.
        let mut diagnostics = vec![at("Node_1"), at("wipe-HOSTNAME").with_path("metadata.name")];
        drop_filled(&stream, &[], &["spec.nodeName".to_string(), "metadata.name".to_string()], &mut diagnostics);
        assert!(diagnostics.is_empty(), "{diagnostics:?}");
    }
}
