//! Go templates (Helm charts) read as YAML: every `{{ … }}` action is masked so that the literal YAML
//! around it parses, with byte offsets unchanged, and the masked ranges are kept so that a checker can
//! tell literal text from text the template language produces.
//!
//! An action alone on its line (`{{- if .Values.x }}`, `{{- include "labels" . | nindent 4 }}`)
//! becomes spaces: it contributes no YAML structure of its own, except when the literal lines below it
//! are deeper than where it writes, which only renders as YAML after a list item (see
//! `ends_with_list_item`). An action inside other text
//! (`image: {{ .Values.image }}:v1`, `"{{ .Release.Name }}"`) becomes a run of `x`, a plain scalar,
//! so that the key or value around it keeps its shape. Line breaks inside an action are kept.
//!
//! The masked text holds every branch of every block at once, and reads each action as if it wrote
//! nothing where it stands alone. Where the parent this gives literal lines is not the one Helm's
//! output gives them whatever the values, [`undecided`] names them, and a checker leaves them unchecked.

use crdls_diagnostics::TextRange;

use crate::{Entry, Node, Style, Value};

/// A template with its actions masked.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Masked {
    /// The text, the same length as the template, each action replaced.
    pub text: String,
    /// The byte range of every action, in order.
    pub actions: Vec<TextRange>,
}

impl Masked {
    /// Whether `range` overlaps an action, or touches one from either side: text next to an action
    /// is glued to what it produces (`{{ .Values.prefix }}-suffix`).
    pub fn touches_action(&self, range: TextRange) -> bool {
        let i = self.actions.partition_point(|a| a.end < range.start);
        self.actions.get(i).is_some_and(|a| a.start <= range.end)
    }
}

/// Whether `text` looks like a Go template: it holds an action opener and closer; or a Jinja template
/// (Ansible, mkdocs macros, cookiecutter), whose statements are `{% … %}`; or a FreeMarker template
/// (`*.ftl.yaml`, rendered by JVM tools), whose directives are `<#if …>`, `</#if>`, `<@macro/>`.
/// Or it writes a whole value as a `%` token that a program replaces before the file is YAML
/// (see [`percent_token_end`]), or a `<NAME>` token in capitals (see [`angle_token_end`]), or a line
/// that is only a variable in capitals (see [`variable_line_end`]).
pub fn has_actions(text: &str) -> bool {
    text.find("{{").is_some_and(|open| text[open..].contains("}}"))
        || text.find("{%").is_some_and(|open| text[open..].contains("%}"))
        || text.match_indices('<').any(|(i, _)| freemarker_directive_end(text.as_bytes(), i).is_some())
        || text.match_indices('%').any(|(i, _)| percent_token_end(text.as_bytes(), i).is_some())
        || text.match_indices('<').any(|(i, _)| angle_token_end(text.as_bytes(), i).is_some())
        || text.match_indices('$').any(|(i, _)| variable_line_end(text.as_bytes(), i).is_some())
}

/// The offset just past the variable that starts at `i`, if it stands alone on its line: `$NAME` or
/// `${NAME}`, a constant's name in capitals, digits and `_`, nothing but blanks around it. `envsubst`
/// (or a script's `sed`) puts a value of several lines there, a certificate or a list of entries, and
/// indents it as it goes; as written, YAML reads the line as a node of its own.
fn variable_line_end(bytes: &[u8], i: usize) -> Option<usize> {
    let line_start = bytes[..i].iter().rposition(|&b| b == b'\n').map_or(0, |p| p + 1);
    if !bytes[line_start..i].iter().all(|&b| b == b' ' || b == b'\t') {
        return None;
    }
    let braced = bytes.get(i + 1) == Some(&b'{');
    let start = i + 1 + usize::from(braced);
    let len = bytes[start.min(bytes.len())..].iter().take_while(|b| b.is_ascii_uppercase() || b.is_ascii_digit() || **b == b'_').count();
    if len < 2 || !bytes[start].is_ascii_uppercase() {
        return None;
    }
    let mut end = start + len;
    if braced {
        if bytes.get(end) != Some(&b'}') {
            return None;
        }
        end += 1;
    }
    let line_end = bytes[end..].iter().position(|&b| b == b'\n').map_or(bytes.len(), |p| end + p);
    bytes[end..line_end].iter().all(|&b| b == b' ' || b == b'\t' || b == b'\r').then_some(end)
}

/// Whether offset `i` lies in a YAML comment: after a `#` that starts its line or follows a blank,
/// outside quotes (a placeholder a comment mentions, `tcp://<IP>:<PORT>`, is prose).
fn in_comment(bytes: &[u8], i: usize) -> bool {
    let line_start = bytes[..i].iter().rposition(|&b| b == b'\n').map_or(0, |p| p + 1);
    let mut quote = None;
    for (j, &b) in bytes[line_start..i].iter().enumerate() {
        match (quote, b) {
            (None, b'"' | b'\'') => quote = Some(b),
            (Some(q), _) if b == q => quote = None,
            (None, b'#') if j == 0 || matches!(bytes[line_start + j - 1], b' ' | b'\t') => return true,
            _ => {}
        }
    }
    false
}

/// The offset just past the `<NAME>` token that starts at `i`, if one does: a constant's name in
/// capitals, digits and `_` between angle brackets (`<DOMAIN_NAME>`, `<CERT_MANAGER_ISSUER_ANNOTATION_1>`),
/// which a tool replaces with a string (kubefirst's templates, `strings.ReplaceAll`) before the file is
/// applied, in a value (`host: argocd.<DOMAIN_NAME>`) or as a whole line that becomes entries. Nobody
/// writes a Kubernetes name, value or key that way.
fn angle_token_end(bytes: &[u8], i: usize) -> Option<usize> {
    let len = bytes[i + 1..].iter().take_while(|b| b.is_ascii_uppercase() || b.is_ascii_digit() || **b == b'_').count();
    let name = &bytes[i + 1..i + 1 + len];
    let closed = bytes.get(i + 1 + len) == Some(&b'>');
    if !(closed && len >= 2 && name[0].is_ascii_uppercase() && !name.ends_with(b"_")) || in_comment(bytes, i) {
        return None;
    }
    let end = i + len + 2;
    // Where YAML reads a node: alone on its line, or in a plain value that starts after a key's `: ` or
    // an item's `- ` with no blank or quote before it (`host: argocd.<DOMAIN_NAME>`). Prose (a
    // description's `metadata.labels['<KEY>']`) has blanks or quotes there.
    let line_start = bytes[..i].iter().rposition(|&b| b == b'\n').map_or(0, |p| p + 1);
    let line_end = bytes[end..].iter().position(|&b| b == b'\n').map_or(bytes.len(), |p| end + p);
    let before = std::str::from_utf8(&bytes[line_start..i]).ok()?;
    let after = std::str::from_utf8(&bytes[end..line_end]).ok()?;
    let plain = |t: &str| !t.contains(|c: char| c.is_whitespace() || matches!(c, '"' | '\'' | '`' | '#' | '[' | '{'));
    let unmarked = before.trim_start().trim_start_matches(['-', ' ']);
    let placed = if before.trim().is_empty() {
        // A whole line, or the start of a value read on its own (`"<CLUSTER>-wait"` once unquoted).
        plain(after.trim_end())
    } else if let Some((key, value)) = unmarked.rsplit_once(": ") {
        plain(key) && plain(value.trim_start())
    } else {
        before.trim_start().starts_with("- ") && plain(unmarked)
    };
    placed.then_some(end)
}

/// The offset just past the `%` token that starts at `i`, if one does: a whole value after a key or a
/// list item's dash and a blank (`namespace: %%%`, `image: %IMAGE%`, `host: %{host}`, `name: %(name)s`),
/// running to the end of its line or to a comment. YAML cannot start a plain scalar with `%` (it opens a
/// directive), so such a value is no YAML as written: test harnesses, batch scripts and format strings
/// replace it first. The token is `%` repeated, or a name between `%` and `%`, in `%{…}`, or in `%(…)`
/// followed by one conversion letter.
fn percent_token_end(bytes: &[u8], i: usize) -> Option<usize> {
    if in_comment(bytes, i) {
        return None;
    }
    let line_start = bytes[..i].iter().rposition(|&b| b == b'\n').map_or(0, |p| p + 1);
    let before = &bytes[line_start..i];
    if !before.ends_with(b" ") {
        return None;
    }
    let lead = before.iter().rposition(|&b| b != b' ' && b != b'\t').map(|p| before[p]);
    let list_item = before.iter().all(|&b| matches!(b, b' ' | b'\t' | b'-')) && before.contains(&b'-');
    if !(lead == Some(b':') && !before.iter().any(|&b| b == b'"' || b == b'\'') || list_item) {
        return None;
    }
    let line_end = bytes[i..].iter().position(|&b| b == b'\n').map_or(bytes.len(), |p| i + p);
    let rest = &bytes[i..line_end];
    let value_end = rest.windows(2).position(|w| w == b" #").unwrap_or(rest.len());
    let token = rest[..value_end].trim_ascii_end();
    let name = |t: &[u8]| !t.is_empty() && t.iter().all(|&b| b.is_ascii_alphanumeric() || matches!(b, b'_' | b'.' | b'-'));
    let is_token = (token.len() >= 2 && token.iter().all(|&b| b == b'%'))
        || (token.len() >= 3 && token.ends_with(b"%") && name(&token[1..token.len() - 1]))
        || (token.starts_with(b"%{") && token.ends_with(b"}") && name(&token[2..token.len() - 1]))
        || (token.starts_with(b"%(")
            && token.len() >= 4
            && token[token.len() - 2] == b')'
            && token[token.len() - 1].is_ascii_alphabetic()
            && name(&token[2..token.len() - 2]));
    is_token.then_some(i + token.len())
}

/// The offset just past the action that starts at `i`, if one does: a Go template action or Jinja
/// expression (`{{ … }}`, an unterminated one running to the end of the text), or a Jinja statement
/// closed on its line (`{% raw %}`, `{% if x %}`). YAML outside quotes never writes `{%`: `%` cannot
/// start a plain scalar.
fn action_at(bytes: &[u8], i: usize) -> Option<usize> {
    match (bytes[i], bytes.get(i + 1)) {
        (b'{', Some(b'{')) => Some(action_end(bytes, i + 2)),
        (b'{', Some(b'%')) => jinja_statement_end(bytes, i + 2),
        (b'<', Some(b'#' | b'@' | b'/')) => freemarker_directive_end(bytes, i),
        (b'%', _) => percent_token_end(bytes, i),
        (b'<', Some(c)) if c.is_ascii_uppercase() => angle_token_end(bytes, i),
        (b'$', _) => variable_line_end(bytes, i),
        _ => None,
    }
}

/// The offset just past the FreeMarker directive that starts at `i`, if one does and closes on its line:
/// `<#name …>` or `</#name>` (`<#if x?? && y>`, `<#list xs as x>`, `</#list>`), a macro call `<@name …/>`
/// or `</@name>`, or a comment `<#-- … -->`. YAML never writes `<#` or `<@` followed by a letter where a
/// node starts, only inside text.
fn freemarker_directive_end(bytes: &[u8], i: usize) -> Option<usize> {
    let mut j = i + 1;
    if bytes.get(j) == Some(&b'/') {
        j += 1;
    }
    if !matches!(bytes.get(j), Some(b'#' | b'@')) {
        return None;
    }
    j += 1;
    let line_end = bytes[j.min(bytes.len())..].iter().position(|&b| b == b'\n').map_or(bytes.len(), |p| j + p);
    if bytes[j.min(bytes.len())..line_end].starts_with(b"--") {
        let close = bytes[j..line_end].windows(3).position(|w| w == b"-->")?;
        return Some(j + close + 3);
    }
    if !bytes.get(j).is_some_and(u8::is_ascii_alphabetic) {
        return None;
    }
    while j < line_end {
        match bytes[j] {
            b'"' | b'\'' => {
                let quote = bytes[j];
                j += 1;
                while j < line_end && bytes[j] != quote {
                    j += if bytes[j] == b'\\' { 2 } else { 1 };
                }
                j += 1;
            }
            b'>' => return Some(j + 1),
            _ => j += 1,
        }
    }
    None
}

/// The offset just past the `%}` that closes the Jinja statement whose body starts at `from`, skipping
/// quoted strings; `None` when the line ends first (`"{%s}"` is a format, not a statement).
fn jinja_statement_end(bytes: &[u8], from: usize) -> Option<usize> {
    let mut i = from;
    while i < bytes.len() && bytes[i] != b'\n' {
        match bytes[i] {
            b'"' | b'\'' => {
                let quote = bytes[i];
                i += 1;
                while i < bytes.len() && bytes[i] != quote && bytes[i] != b'\n' {
                    i += if bytes[i] == b'\\' { 2 } else { 1 };
                }
                i += 1;
            }
            b'%' if bytes.get(i + 1) == Some(&b'}') => return Some(i + 2),
            _ => i += 1,
        }
    }
    None
}

/// Masks every action of `text`. An unterminated action runs to the end of the text.
pub fn mask_go_template(text: &str) -> Masked {
    let bytes = text.as_bytes();
    let mut out = bytes.to_vec();
    let mut actions = Vec::new();
    let mut i = 0;
    while i + 1 < bytes.len() {
        let Some(end) = action_at(bytes, i) else {
            i += 1;
            continue;
        };
        let start = i;
        actions.push(TextRange::new(start, end));
        let line_start = bytes[..start].iter().rposition(|&b| b == b'\n').map_or(0, |p| p + 1);
        let line_end = bytes[end..].iter().position(|&b| b == b'\n').map_or(bytes.len(), |p| end + p);
        i = end;
        // Alone on its line(s) when everything else there is blank or another action.
        let alone = only_blanks_and_actions(&bytes[line_start..start]) && only_blanks_and_actions(&bytes[end..line_end]);
        let opens_block = !alone && only_blanks_and_actions(&bytes[end..line_end]) && opens_block(bytes, line_start, start, end, line_end);
        let fill = if alone || opens_block { b' ' } else { b'x' };
        for b in &mut out[start..end] {
            if *b != b'\n' && *b != b'\r' {
                *b = fill;
            }
        }
        if alone {
            if let Some(dash) = ends_with_list_item(bytes, line_start, start, end, line_end) {
                out[dash] = b'-';
            } else if let Some(key) = writes_keys_before_items(bytes, line_start, start, end, line_end) {
                out[key] = b'x';
                out[key + 1] = b':';
            }
        }
    }
    // Only ASCII bytes were written over whole actions (which start and end at ASCII braces), and
    // characters outside actions are untouched, so the text stays UTF-8; a multi-byte character inside an
    // action is replaced byte by byte.
    let text = String::from_utf8(out).unwrap_or_else(|e| String::from_utf8_lossy(e.as_bytes()).into_owned());
    Masked { text, actions }
}

/// The offset just past the `}}` that closes the action whose body starts at `from`, skipping quoted
/// strings, raw strings and comments, where `}}` does not close it.
fn action_end(bytes: &[u8], from: usize) -> usize {
    let mut i = from;
    while i < bytes.len() {
        match bytes[i] {
            b'"' | b'\'' => {
                let quote = bytes[i];
                i += 1;
                while i < bytes.len() && bytes[i] != quote && bytes[i] != b'\n' {
                    i += if bytes[i] == b'\\' { 2 } else { 1 };
                }
                i += 1;
            }
            b'`' => {
                i += 1;
                while i < bytes.len() && bytes[i] != b'`' {
                    i += 1;
                }
                i += 1;
            }
            b'/' if bytes.get(i + 1) == Some(&b'*') => {
                i += 2;
                while i + 1 < bytes.len() && !(bytes[i] == b'*' && bytes[i + 1] == b'/') {
                    i += 1;
                }
                i += 2;
            }
            b'}' if bytes.get(i + 1) == Some(&b'}') => return i + 2,
            _ => i += 1,
        }
    }
    bytes.len()
}

/// Whether an action that ends its line after a list item's dash or a key (`- {{- toYaml . | nindent 4 }}`,
/// `labels: {{- include "labels" . | nindent 4 }}`) is followed by lines indented deeper than that line:
/// those lines are then the rest of the item's mapping or the key's value, which only renders as YAML
/// when the action writes nothing on the line itself (it starts its output with a line break, or writes
/// nothing). Masked as a scalar, the action would turn the item or the value into a string and cut the
/// lines below off from it. So is a key whose action writes deeper (`affinity: {{- toYaml . | nindent 8 }}`)
/// followed by a list item at the key's column (see the comment inside).
fn opens_block(bytes: &[u8], line_start: usize, start: usize, end: usize, line_end: usize) -> bool {
    let before = &bytes[line_start..start];
    let last = before.iter().rposition(|&b| b != b' ' && b != b'\t');
    let lead = last.map(|p| before[p]);
    // The column the lines below must be deeper than: a lone item's dash, or the key (after the dashes
    // of the items it starts, as in `- - key:`).
    let dashes = before.iter().take_while(|&&b| matches!(b, b'-' | b' ' | b'\t')).count();
    let indent = match (lead, last) {
        (Some(b'-'), Some(p)) if dashes > p => p,
        (Some(b':'), _) => dashes,
        _ => return false,
    };
    // The next line that holds something other than blanks, actions or a comment.
    let mut at = line_end;
    while at < bytes.len() {
        let next_start = at + 1;
        let next_end = bytes[next_start.min(bytes.len())..].iter().position(|&b| b == b'\n').map_or(bytes.len(), |p| next_start + p);
        let line = &bytes[next_start.min(bytes.len())..next_end];
        let deeper = line.iter().take_while(|&&b| b == b' ').count();
        let content = &line[deeper..];
        if !(only_blanks_and_actions(content) || content.first() == Some(&b'#')) {
            // A list item at the key's own column is its value only where the action writes nothing;
            // masked as a scalar, the item would be no YAML and end the document's tree there. Blank,
            // the item is the key's value, which `undecided` leaves unchecked.
            let item = content.first() == Some(&b'-') && matches!(content.get(1), None | Some(b' ' | b'\t' | b'\r'));
            let writes_deeper = bytes[start] == b'{' && indent_argument(bytes, start, end).is_some_and(|n| n.is_ok_and(|n| n > indent));
            return deeper > indent || lead == Some(b':') && deeper == indent && item && writes_deeper;
        }
        at = next_end;
    }
    false
}

/// Where a lone action that writes text (`{{- toYaml .Values.endpoints | nindent 4 }}`) must be masked
/// as a list item's dash, if it must: when the next literal line is deeper than the column the action
/// writes at (its `indent`/`nindent` argument, else its own column). Helm's output is YAML only if what
/// the action wrote ends with a list item at that column, which the deeper lines continue
/// (`      relabelings:` after a list of endpoints); masked as blanks, those lines would become keys of the
/// list's parent. Control actions (`if`, `with`, `range`, `end`, ...), comments and assignments write
/// nothing: the deeper lines after them belong to what comes before.
fn ends_with_list_item(bytes: &[u8], line_start: usize, start: usize, end: usize, line_end: usize) -> Option<usize> {
    // A FreeMarker directive writes no text of its own (its body is literal YAML).
    if bytes[line_start..start].iter().any(|&b| b != b' ') || bytes[start] == b'<' {
        return None;
    }
    let own = start - line_start;
    let column = written_column(bytes, start, end, own)?;
    let dash = start + column.checked_sub(own)?;
    if dash >= end || bytes[start..=dash].iter().any(|&b| b == b'\n' || b == b'\r') {
        return None;
    }
    // The next line that holds something other than blanks, actions or a comment.
    let mut at = line_end;
    while at < bytes.len() {
        let next_start = at + 1;
        let next_end = bytes[next_start.min(bytes.len())..].iter().position(|&b| b == b'\n').map_or(bytes.len(), |p| next_start + p);
        let line = &bytes[next_start.min(bytes.len())..next_end];
        let deeper = line.iter().take_while(|&&b| b == b' ').count();
        let content = &line[deeper..];
        if !(only_blanks_and_actions(content) || content.first() == Some(&b'#')) {
            // A list item there is a sibling of the items the action writes, whatever column its own
            // text starts at (`{{ template "mounts" . }}` above `    - name: home`, the helper's
            // items indented as the template's): nothing continues an item of the action's.
            let item = content.first() == Some(&b'-') && matches!(content.get(1), None | Some(b' ' | b'\t' | b'\r'));
            return (deeper > column && !item).then_some(dash);
        }
        at = next_end;
    }
    None
}

/// The column a lone action that writes text writes at (its last `indent`/`nindent` argument, else its
/// own column), or `None` for one that writes nothing: control actions (`if`, `with`, `range`, `end`,
/// ...), comments, assignments and FreeMarker directives.
fn output_column(bytes: &[u8], line_start: usize, start: usize, end: usize) -> Option<usize> {
    if bytes[line_start..start].iter().any(|&b| b != b' ') || bytes[start] != b'{' || bytes.get(start + 1) != Some(&b'{') {
        return None;
    }
    written_column(bytes, start, end, start - line_start)
}

/// The column the action at `start..end` (at column `own`) writes at: its pipeline's last `indent N`
/// or `nindent N`, else `own`; `None` for an action that writes nothing (`if`, `else`, `end`, `with`,
/// `range`, `define`, ..., an assignment, a comment).
fn written_column(bytes: &[u8], start: usize, end: usize, own: usize) -> Option<usize> {
    let body = std::str::from_utf8(&bytes[start + 2..end.saturating_sub(2).max(start + 2)]).ok()?;
    let body = body.trim_start_matches('-').trim_end_matches('-').trim();
    let mut words = body.split_whitespace();
    let first = words.next()?;
    let keyword = ["if", "else", "end", "with", "range", "define", "block", "break", "continue"].contains(&first);
    let assignment = first.starts_with('$') && matches!(words.next(), Some(":=" | "="));
    if keyword || assignment || first.starts_with("/*") {
        return None;
    }
    match indent_argument(bytes, start, end) {
        Some(Ok(column)) => Some(column),
        Some(Err(())) => None,
        None => Some(own),
    }
}

/// The argument of the last `indent N` or `nindent N` of the action at `start..end` (`Err` when it is
/// no number), or `None` when its pipeline has none.
fn indent_argument(bytes: &[u8], start: usize, end: usize) -> Option<Result<usize, ()>> {
    let body = std::str::from_utf8(&bytes[start + 2..end.saturating_sub(2).max(start + 2)]).ok()?;
    let body = body.trim_start_matches('-').trim_end_matches('-').trim();
    let tokens: Vec<&str> = body.split(|c: char| c.is_whitespace() || c == '|' || c == '(' || c == ')').filter(|t| !t.is_empty()).collect();
    tokens.windows(2).rev().find(|pair| matches!(pair[0], "indent" | "nindent")).map(|pair| pair[1].parse().map_err(|_| ()))
}

/// Where a lone action that writes text must be masked as a key (`x:`), if it must: it writes at the
/// column of a mapping's keys (the nearest literal line above at that column, past the list items a
/// key there holds, is a key), the next literal line is a list item at that same column, and no
/// other action that writes text comes between. Such items continue the last key above them: in
/// Helm's output, a key the action wrote (a helper's `env:` after `args:`), or, if it wrote none, the
/// key above. Which one cannot be known, so the items are given a key of the action's own, whose
/// fields nothing validates, rather than the literal key above (whose list they would wrongly join).
fn writes_keys_before_items(bytes: &[u8], line_start: usize, start: usize, end: usize, line_end: usize) -> Option<usize> {
    let column = output_column(bytes, line_start, start, end)?;
    let own = start - line_start;
    let key = start + column.checked_sub(own)?;
    if key + 2 > end || bytes[start..key + 2].iter().any(|&b| b == b'\n' || b == b'\r') {
        return None;
    }
    let line = |from: usize| {
        let to = bytes[from..].iter().position(|&b| b == b'\n').map_or(bytes.len(), |p| from + p);
        (to, &bytes[from..to])
    };
    let item_at = |content: &[u8]| content.first() == Some(&b'-') && matches!(content.get(1), None | Some(b' ' | b'\t' | b'\r'));
    // Below: the next literal line is an item at the column, with only control actions before it.
    let mut at = line_end;
    loop {
        if at >= bytes.len() {
            return None;
        }
        let (next_end, text) = line(at + 1);
        let indent = text.iter().take_while(|&&b| b == b' ').count();
        let content = &text[indent..];
        if content.first() == Some(&b'#') || content.iter().all(|b| b.is_ascii_whitespace()) {
            at = next_end;
            continue;
        }
        if only_blanks_and_actions(content) {
            let action = at + 1 + indent;
            let action_end = action_at(bytes, action)?;
            if output_column(bytes, at + 1, action, action_end).is_some() {
                return None;
            }
            at = next_end;
            continue;
        }
        if !(indent == column && item_at(content)) {
            return None;
        }
        break;
    }
    // Above: past blanks, actions, comments, deeper lines and items at the column, a key at the column.
    let mut before = line_start;
    while before > 0 {
        let from = bytes[..before - 1].iter().rposition(|&b| b == b'\n').map_or(0, |p| p + 1);
        let text = &bytes[from..before - 1];
        before = from;
        let indent = text.iter().take_while(|&&b| b == b' ').count();
        let content = &text[indent..];
        let skipped = content.is_empty()
            || content.first() == Some(&b'#')
            || only_blanks_and_actions(content)
            || indent > column
            || indent == column && item_at(content);
        if skipped {
            continue;
        }
        let is_key = indent == column && content.first() != Some(&b'-') && content.contains(&b':');
        return is_key.then_some(key);
    }
    None
}

/// Whether a stretch of one line holds only blanks and complete actions.
fn only_blanks_and_actions(bytes: &[u8]) -> bool {
    let mut i = 0;
    while i < bytes.len() {
        match bytes[i] {
            b' ' | b'\t' | b'\r' => i += 1,
            b'{' | b'<' => match action_at(bytes, i) {
                Some(end) => i = end,
                None => return false,
            },
            _ => return false,
        }
    }
    true
}

/// A block of a template that renders only when a condition holds: `{{ if }}` or `{{ with }}` to its
/// `{{ end }}`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Conditional {
    /// From the start of the opening action to the end of the closing one.
    pub range: TextRange,
    /// Whether it has an `{{ else }}` branch: the masked text then holds both branches one after the
    /// other, which no rendering does.
    pub has_else: bool,
}

/// The `if` and `with` blocks of a template whose `actions` were found by [`mask_go_template`], in
/// order of their start. `range` and `define` blocks are nested through but not reported. An
/// unbalanced template yields the blocks that closed.
pub fn conditionals(text: &str, actions: &[TextRange]) -> Vec<Conditional> {
    blocks(text, actions).into_iter().filter(|b| b.conditional).map(|b| Conditional { range: b.range, has_else: b.has_else }).collect()
}

/// One block of a template, from its opening action to its `{{ end }}`.
struct Block {
    range: TextRange,
    /// Whether it is an `if` or a `with` (not a `range`, `define` or `block`).
    conditional: bool,
    has_else: bool,
}

/// Every block of a template (`if`, `with`, `range`, `define`, `block`), in order of their start.
fn blocks(text: &str, actions: &[TextRange]) -> Vec<Block> {
    // The open blocks: their start, whether they are conditional, whether an else was seen.
    let mut open: Vec<(usize, bool, bool)> = Vec::new();
    let mut out = Vec::new();
    for action in actions.iter().filter(|a| text.get(a.start..a.start + 2) == Some("{{")) {
        let body = text.get(action.start + 2..action.end.saturating_sub(2).max(action.start + 2)).unwrap_or_default();
        let body = body.trim_start_matches('-').trim_end_matches('-').trim();
        let word = body.split(|c: char| c.is_whitespace() || c == '(').next().unwrap_or_default();
        match word {
            "if" | "with" => open.push((action.start, true, false)),
            "range" | "define" | "block" => open.push((action.start, false, false)),
            "else" => {
                if let Some(top) = open.last_mut() {
                    top.2 = true;
                }
            }
            "end" => {
                if let Some((start, conditional, has_else)) = open.pop() {
                    out.push(Block { range: TextRange::new(start, action.end), conditional, has_else });
                }
            }
            _ => {}
        }
    }
    out.sort_by_key(|b| b.range.start);
    out
}

/// The nodes of a masked template's tree (`root`, parsed from `masked.text`) whose place in Helm's
/// output the template does not decide, so that nothing in them can be checked against the parent the
/// masked text gives them:
///
/// - A key or list item whose parent key lies inside a block (`{{ if }}`, `{{ with }}`, `{{ range }}`,
///   ...) that ends before the node starts. Where the block renders nothing, the lines after its
///   `{{ end }}` join whatever key comes before it (or are no YAML at all); the masked text, which keeps
///   every block, always gives them the key inside. (A list item inside a block is no such parent: the
///   lines after the block continue an item of the same list either way.)
/// - The value of a key written below an action that writes at a deeper column
///   (`affinity:` then `{{ toYaml .Values.affinity | indent 8 }}`) when the value's literal lines start
///   at a shallower column than the action writes: a list item at the key's own column, or lines
///   between the two. Helm's output is YAML there only if the action writes nothing at all; otherwise
///   the action's text is the key's value, and the lines below are no value of it.
pub fn undecided(text: &str, masked: &Masked, root: &Node) -> Vec<TextRange> {
    let blocks = blocks(text, &masked.actions);
    if masked.actions.is_empty() {
        return Vec::new();
    }
    let mut out = Vec::new();
    undecided_below(text, masked, &blocks, root, None, &mut out);
    out
}

/// [`undecided`] below `node`, the value of the key that starts at `owner` (`None` for a document's root
/// and a list item).
fn undecided_below(text: &str, masked: &Masked, blocks: &[Block], node: &Node, owner: Option<usize>, out: &mut Vec<TextRange>) {
    // Whether a child starting at `child` leaves a block that holds its parent.
    let cut = |child: usize| {
        owner.is_some_and(|owner| {
            child >= owner && blocks.iter().any(|b| b.range.start <= owner && owner < b.range.end && b.range.end <= child)
        })
    };
    match &node.value {
        Value::Map(entries) => {
            for entry in entries {
                let range = TextRange::new(entry.key_range.start, entry.value.range.end.max(entry.key_range.end));
                if cut(entry.key_range.start) {
                    out.push(range);
                } else if value_written_deeper(text, masked, entry) {
                    out.push(entry.value.range);
                } else {
                    undecided_below(text, masked, blocks, &entry.value, Some(entry.key_range.start), out);
                }
            }
        }
        Value::Seq(items) => {
            for item in items {
                if cut(item.range.start) {
                    out.push(item.range);
                } else if item_written_below(text, masked, item) {
                    // An empty item's node lies where its line ends; its dash starts the line's text. What is
                    // said of an empty node is said at the key that holds its list.
                    let line_start = text.as_bytes()[..item.range.start].iter().rposition(|&b| b == b'\n').map_or(0, |p| p + 1);
                    out.push(TextRange::new(line_start, item.range.end));
                    if let Some(owner) = owner {
                        out.push(TextRange::new(owner, owner));
                    }
                } else {
                    // An item is no owner: the lines after a block that holds it continue, where the block
                    // renders nothing, an item of the same list (or no YAML).
                    undecided_below(text, masked, blocks, item, None, out);
                }
            }
        }
        _ => {}
    }
}

/// Whether a list item written empty (`- # {{ $key }}`, a comment only) is followed by a line holding only
/// an action (`{{- toYaml $value | nindent 8 }}`): the action writes the item's value, which is never the
/// null the masked text gives it.
fn item_written_below(text: &str, masked: &Masked, item: &Node) -> bool {
    if !matches!(item.value, Value::Null) {
        return false;
    }
    let bytes = text.as_bytes();
    let Some(newline) = bytes.get(item.range.end..).and_then(|rest| rest.iter().position(|&b| b == b'\n')) else { return false };
    let next = item.range.end + newline + 1;
    let line_end = bytes[next..].iter().position(|&b| b == b'\n').map_or(bytes.len(), |p| next + p);
    let indent = bytes[next..line_end].iter().take_while(|&&b| b == b' ' || b == b'\t').count();
    let start = next + indent;
    text[start..line_end].starts_with("{{")
        && masked.actions.iter().any(|a| a.start == start)
        && masked.text.get(next..line_end).is_some_and(|line| line.trim().is_empty())
}

/// Whether an entry's block value starts at a column shallower than an action between its key and
/// its value writes at (the action's `indent N` or `nindent N`): the value is then no continuation of
/// what the action writes (see [`undecided`]). The value starts at the first line below the key that
/// holds literal text (a list item's dash, a key); an action on that line is inside the value (`- {{-
/// toYaml . | nindent 4 }}` writes an item's first keys), not between.
fn value_written_deeper(text: &str, masked: &Masked, entry: &Entry) -> bool {
    let value = &entry.value;
    if !matches!(value.value, Value::Seq(_) | Value::Map(_)) || value.style != Style::Block {
        return false;
    }
    let bytes = masked.text.as_bytes();
    let Some(newline) = bytes[entry.key_range.end..].iter().position(|&b| b == b'\n') else { return false };
    let mut line_start = entry.key_range.end + newline + 1;
    let column = loop {
        if line_start >= bytes.len() || line_start >= value.range.end {
            return false;
        }
        let line_end = bytes[line_start..].iter().position(|&b| b == b'\n').map_or(bytes.len(), |p| line_start + p);
        let line = &bytes[line_start..line_end];
        let indent = line.iter().take_while(|&&b| b == b' ').count();
        if line.get(indent).is_some_and(|&b| !matches!(b, b'#' | b'\r' | b'\t')) {
            break indent;
        }
        line_start = line_end + 1;
    };
    let first = masked.actions.partition_point(|a| a.start < entry.key_range.end);
    masked.actions[first..].iter().take_while(|a| a.start < line_start).any(|a| {
        text.as_bytes()[a.start] == b'{' && indent_argument(text.as_bytes(), a.start, a.end).is_some_and(|n| n.is_ok_and(|n| column < n))
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_empty_item_an_action_below_writes_is_undecided() {
        let text = "spec:\n  tolerations:\n  {{- range $k, $v := .Values.t }}\n  - # {{ $k }}\n  {{- toYaml $v | nindent 4 }}\n  {{- end }}\n  - # plain\n  - key: x\n";
        let masked = mask_go_template(text);
        let stream = crate::parse(&masked.text);
        let root = stream.documents[0].root.as_ref().unwrap();
        let undecided = undecided(text, &masked, root);
        let dash = text.find("- # {{").unwrap();
        assert!(undecided.iter().any(|r| r.start <= dash && dash < r.end), "{undecided:?}");
        // An empty item with literal text below it is as empty as it looks.
        let plain = text.find("- # plain").unwrap();
        assert!(!undecided.iter().any(|r| r.start <= plain + 2 && plain <= r.end), "{undecided:?}");
    }

    #[test]
    fn a_variable_alone_on_its_line_is_an_action() {
        let text = "spec:\n  cert: |\n$SSL_CERT\n  keys:\n    ${KEY_LINES}\n  note: $HOME is $NOT_ALONE\n";
        assert!(has_actions(text));
        let masked = mask_go_template(text);
        assert!(!masked.text.contains("SSL_CERT") && !masked.text.contains("KEY_LINES"), "{}", masked.text);
        assert!(masked.text.contains("$HOME is $NOT_ALONE"), "{}", masked.text);
        for text in ["a: b\n$x\n", "a: b\n$A\n", "a: b\n${UNCLOSED\n", "a: b\n# $COMMENTED\n", "a: |\n  text $NAME\n"] {
            assert!(!has_actions(text), "{text}");
        }
    }

    #[test]
    fn actions_alone_on_a_line_become_blank_and_inline_ones_a_scalar() {
        let text = "metadata:\n  name: {{ include \"full\" . }}\n  labels:\n    {{- include \"labels\" . | nindent 4 }}\nspec:\n  {{- if .Values.x }}\n  replicas: 1\n  {{- end }}\n";
        let masked = mask_go_template(text);
        assert_eq!(masked.text.len(), text.len());
        let expected: Vec<String> = text
            .lines()
            .map(|line| match line.find("{{") {
                Some(at) if line[..at].trim().is_empty() => " ".repeat(line.len()),
                Some(at) => format!("{}{}", &line[..at], "x".repeat(line.len() - at)),
                None => line.to_string(),
            })
            .collect();
        assert_eq!(masked.text, expected.join("\n") + "\n");
        assert_eq!(masked.actions.len(), 4);
        let parsed = crate::parse(&masked.text);
        assert!(parsed.documents[0].diagnostics.is_empty(), "{:?}", parsed.documents[0].diagnostics);
    }

    #[test]
    fn conditional_blocks_are_found_with_their_else() {
        let text = "{{- if .a }}\nkind: A\n{{- else }}\nkind: B\n{{- end }}\n{{ range .x }}{{ with .y }}z{{ end }}{{ end }}\n{{/* if */}}";
        let masked = mask_go_template(text);
        let blocks = conditionals(text, &masked.actions);
        let shown: Vec<(&str, bool)> = blocks.iter().map(|c| (&text[c.range.start..c.range.end], c.has_else)).collect();
        assert_eq!(shown, [("{{- if .a }}\nkind: A\n{{- else }}\nkind: B\n{{- end }}", true), ("{{ with .y }}z{{ end }}", false)]);
    }

    #[test]
    fn freemarker_directives_are_actions_too() {
        let text = "<#if config.mail?? && config.mail>\nkind: Pod\nmetadata:\n  name: a\n  labels:\n  <#list labels as l>\n    ${l.key}: x\n  </#list>\n</#if><#-- done -->\n";
        assert!(has_actions(text) && !has_actions("a: <b>\nc: '<#'\nd: x<#1>\n"));
        let masked = mask_go_template(text);
        assert_eq!(masked.actions.len(), 5);
        assert!(masked.text.starts_with("                                  \nkind: Pod\n"), "{}", masked.text);
        let parsed = crate::parse(&masked.text);
        assert!(parsed.documents[0].diagnostics.is_empty(), "{:?}", parsed.documents[0].diagnostics);
        // Unclosed on its line, `<#` is text.
        assert_eq!(freemarker_directive_end(b"<#if x\n>", 0), None);
        assert_eq!(freemarker_directive_end(b"<@m a=\"b>\"/>", 0), Some(12));
    }

    #[test]
    fn whole_values_written_as_percent_tokens_are_actions_too() {
        let text = "metadata:\n  namespace: %%%\n  name: %NAME% # filled in\nspec:\n  hosts:\n  - %{host}\n  - %(port)d\n";
        assert!(has_actions(text));
        let masked = mask_go_template(text);
        assert_eq!(masked.actions.len(), 4);
        assert_eq!(masked.text, "metadata:\n  namespace: xxx\n  name: xxxxxx # filled in\nspec:\n  hosts:\n  - xxxxxxx\n  - xxxxxxxx\n");
        let parsed = crate::parse(&masked.text);
        assert!(parsed.documents[0].diagnostics.is_empty(), "{:?}", parsed.documents[0].diagnostics);
        // A `%` inside a value, quoted, alone, or with anything but a name is text.
        for text in
            ["a: 50%\n", "a: '%%%'\n", "a: %\n", "a: x %A%\n", "a: %A B%\n", "a:%%%\n", "\"k: x\": %A%\n", "- a %{b}\n", "a: %(b)\n"]
        {
            assert!(!has_actions(text), "{text:?}");
        }
    }

    #[test]
    fn constant_names_in_angle_brackets_are_actions_too() {
        let text = "metadata:\n  namespace: <WORKLOAD_CLUSTER_NAME>\n  annotations:\n    <CERT_ISSUER_ANNOTATION_1>\n    a: b\nspec:\n  host: argocd.<DOMAIN_NAME>\n";
        assert!(has_actions(text));
        let masked = mask_go_template(text);
        assert_eq!(masked.actions.len(), 3);
        let parsed = crate::parse(&masked.text);
        assert!(parsed.documents[0].diagnostics.is_empty(), "{:?}", parsed.documents[0].diagnostics);
        assert!(masked.text.contains("\n                              \n    a: b\n"), "{}", masked.text);
        // Anything else between angle brackets is text: a type, a lower-case or mixed-case placeholder.
        let description = "      description: |-\n        Selects a field of the pod: supports `metadata.labels['<KEY>']`, `<KEY>`\n";
        assert!(!has_actions(description));
        assert!(has_actions("- name: <APP>-web\n") && has_actions("hosts:\n  - argocd.<DOMAIN_NAME>\n"));
        assert!(has_actions("<CLUSTER_NAME>-wait") && !has_actions("<CLUSTER_NAME> waits"));
        for text in [
            "a: List<String>\n",
            "a: <ingress-name>\n",
            "a: 'x <HOST>'\n",
            "a: b <HOST>\n",
            "a: <A>\n",
            "a: <A_>\n",
            "a: <AB\n",
            "a: Map<K,V>\n",
            "a: <Name>\n",
            "  # as tcp://<IP>:<PORT>\n",
            "a: b # <HOST>\n",
            "# a: %%%\n",
        ] {
            assert!(!has_actions(text), "{text:?}");
        }
    }

    #[test]
    fn jinja_statements_are_actions_too() {
        let text = "{% raw %}\nkind: Pod\nmetadata:\n  name: a-{% if x %}b{% endif %}\n{% endraw %}\n";
        assert!(has_actions(text) && !has_actions("a: 5%\nb: '{x}'\n"));
        let masked = mask_go_template(text);
        assert_eq!(masked.text, "         \nkind: Pod\nmetadata:\n  name: a-xxxxxxxxxxbxxxxxxxxxxx\n            \n");
        assert_eq!(masked.actions.len(), 4);
        let parsed = crate::parse(&masked.text);
        assert!(parsed.documents[0].diagnostics.is_empty(), "{:?}", parsed.documents[0].diagnostics);
        // Jinja's `{% if %}` is not a Go template's `if`: its blocks end with `endif`, not `end`.
        assert!(conditionals(text, &masked.actions).is_empty());
    }

    #[test]
    fn braces_inside_strings_and_comments_do_not_close_an_action() {
        let text = "a: {{ \"}}\" }}b\nc: {{/* }} */}}\nd: {{ `}}` }}\n";
        let masked = mask_go_template(text);
        assert_eq!(masked.text, "a: xxxxxxxxxxb\nc: xxxxxxxxxxxx\nd: xxxxxxxxxx\n");
        let unterminated = mask_go_template("a: {{ .x\nb: 1\n");
        assert_eq!(unterminated.actions, [TextRange::new(3, 14)]);
    }

    #[test]
    fn multi_byte_text_keeps_offsets_and_stays_text() {
        let text = "name: \"{{ \"é\" }}-ü\"\n";
        let masked = mask_go_template(text);
        assert_eq!(masked.text.len(), text.len());
        assert!(masked.text.ends_with("-ü\"\n"));
        assert!(masked.touches_action(TextRange::new(6, 20)));
        assert!(!masked.touches_action(TextRange::new(0, 4)));
    }

    /// The shape of the masked text: each mapping and list with its keys, scalars as `s`.
    fn shape(text: &str) -> String {
        fn show(node: &crate::Node) -> String {
            match &node.value {
                crate::Value::Map(entries) => {
                    format!("{{{}}}", entries.iter().map(|e| format!("{}: {}", e.key, show(&e.value))).collect::<Vec<_>>().join(", "))
                }
                crate::Value::Seq(items) => format!("[{}]", items.iter().map(show).collect::<Vec<_>>().join(", ")),
                crate::Value::Null => "null".to_string(),
                _ => "s".to_string(),
            }
        }
        let parsed = crate::parse(&mask_go_template(text).text);
        let document = &parsed.documents[0];
        assert!(parsed_cleanly(document), "{:?}", document.diagnostics);
        document.root.as_ref().map(show).unwrap_or_default()
    }

    /// Whether a masked template's document parsed without errors but duplicate keys, which a masked
    /// text holding both branches of an `if`/`else` has.
    fn parsed_cleanly(document: &crate::Document) -> bool {
        document.diagnostics.iter().all(|d| d.code == crdls_diagnostics::codes::YAML_DUPLICATE_KEY)
    }

    #[test]
    fn an_action_that_writes_the_start_of_a_block_keeps_the_lines_below_in_it() {
        // After a lone dash: the lines below are the rest of the item's mapping.
        assert_eq!(
            shape("endpoints:\n  - {{- toYaml .Values.extra | nindent 4 }}\n    relabelings:\n    - a: b\n  - port: y\n"),
            "{endpoints: [{relabelings: [{a: s}]}, {port: s}]}"
        );
        // After a key: the lines below are the rest of its value.
        assert_eq!(shape("metadata:\n  labels: {{- include \"labels\" . | nindent 4 }}\n    app: x\n"), "{metadata: {labels: {app: s}}}");
        // Lines that are not deeper than the key are its siblings, and the action a scalar.
        assert_eq!(
            shape("endpoints:\n  - port: {{ .Values.port }}\n    {{- toYaml .Values.extra | nindent 4 }}\n    relabelings: []\n"),
            "{endpoints: [{port: s, relabelings: []}]}"
        );
        assert_eq!(shape("items:\n  - {{ .Values.a }}\n  - b\n"), "{items: [s, s]}");
        // An action alone on its line inside an item is blank: the keys after it stay in the item.
        assert_eq!(
            shape("endpoints:\n  - port: x\n    {{- toYaml .Values.extra | nindent 4 }}\n    relabelings: []\n"),
            "{endpoints: [{port: s, relabelings: []}]}"
        );
    }

    #[test]
    fn an_action_that_writes_list_items_keeps_the_deeper_lines_below_in_the_last_item() {
        // `toYaml` writes a list at column 4; the literal keys at column 6 continue its last item.
        let template = "spec:\n  endpoints:\n    {{- toYaml .Values.endpoints | nindent 4 }}\n      relabelings:\n        - action: keep\n  selector: {}\n";
        assert_eq!(shape(template), "{spec: {endpoints: [{relabelings: [{action: s}]}], selector: {}}}");
        // The same after literal items, inside a `with`, and with the action at another column than it writes.
        assert_eq!(
            shape("endpoints:\n  - port: a\n  {{- with .Values.more }}\n  {{- toYaml . | nindent 2 }}\n  {{- end }}\n    path: /x\n"),
            "{endpoints: [{port: s}, {path: s}]}"
        );
        assert_eq!(shape("endpoints:\n{{ toYaml .Values.endpoints | indent 2 }}\n    path: /x\n"), "{endpoints: [{path: s}]}");
        // A control action writes nothing: the deeper lines after it stay in the item before.
        assert_eq!(
            shape("endpoints:\n  - port: a\n  {{- if .Values.tls }}\n    scheme: https\n  {{- end }}\n"),
            "{endpoints: [{port: s, scheme: s}]}"
        );
        assert_eq!(shape("endpoints:\n  - port: a\n  {{- $x := 1 }}\n    path: /x\n"), "{endpoints: [{port: s, path: s}]}");
        // An action that writes at the column of the lines below continues the item it is in.
        assert_eq!(
            shape("endpoints:\n  - port: a\n  {{- include \"extra\" . | nindent 4 }}\n    path: /x\n"),
            "{endpoints: [{port: s, path: s}]}"
        );
        // Lines below at the action's column are siblings of what it writes.
        assert_eq!(shape("labels:\n  {{- toYaml .Values.labels | nindent 2 }}\n  app: x\n"), "{labels: {app: s}}");
        // So is a deeper list item: a helper writes its items with their own indentation.
        assert_eq!(shape("mounts:\n{{ template \"mounts\" . }}\n  - name: home\nports:\n  - 1\n"), "{mounts: [{name: s}], ports: [s]}");
    }

    #[test]
    fn list_items_after_an_action_that_may_write_keys_leave_the_key_above() {
        // A helper writes `envFrom:` and `env:` at the container's column: the items below belong to
        // one of its keys (or to args, if it writes none), so they do not join args' list.
        let template = "containers:\n  - name: app\n    args:\n    {{- toYaml .Values.args | nindent 4 }}\n    {{- include \"env\" . | indent 4 }}\n    {{- if .Values.gcp }}\n    - name: GCP\n      value: \"true\"\n    {{- end }}\n    image: x\n";
        assert_eq!(shape(template), "{containers: [{name: s, args: null, x: [{name: s, value: s}], image: s}]}");
        // After literal items of the key above too; the last action that writes text before them is the key.
        let after_items = "spec:\n  args:\n  - a\n  {{- include \"one\" . | indent 2 }}\n  {{- include \"two\" . | indent 2 }}\n  - b\n";
        assert_eq!(shape(after_items), "{spec: {args: [s], x: [s]}}");
        // Items deeper than the key keep it, whatever an action between writes.
        assert_eq!(shape("env:\n  {{- toYaml .Values.env | nindent 2 }}\n  - name: A\n"), "{env: [{name: s}]}");
        // So do items of a list that is not under a key at their column, and items after control actions only.
        assert_eq!(shape("- a\n{{ include \"more\" . }}\n- b\n"), "[s, s]");
        assert_eq!(shape("args:\n{{- if .Values.x }}\n- a\n{{- end }}\n"), "{args: [s]}");
    }

    /// The texts of the nodes [`undecided`] finds in the masked template, which must parse.
    fn undecided_texts(text: &str) -> Vec<&str> {
        let masked = mask_go_template(text);
        let parsed = crate::parse(&masked.text);
        let document = &parsed.documents[0];
        assert!(parsed_cleanly(document), "{:?}", document.diagnostics);
        let root = document.root.as_ref().unwrap();
        undecided(text, &masked, root).iter().map(|r| &text[r.start..r.end]).collect()
    }

    #[test]
    fn a_list_item_after_a_value_an_action_writes_deeper_has_no_known_parent() {
        // `affinity:` gets its value from an action at column 8, in either branch; the item at the
        // key's column after the blocks is its value only where the action writes nothing, and follows
        // another key where neither branch renders.
        let template = "spec:\n  containers:\n  - name: db\n{{- if .Values.affinity }}\n  affinity:\n{{ .Values.affinity | toYaml | indent 4 }}\n{{- else if .Values.affinityTemplate }}\n  affinity:\n{{ tpl .Values.affinityTemplate . | indent 4 }}\n{{- end }}\n  {{- if not .Values.persistence }}\n  - name: data\n    emptyDir: {}\n  {{- end }}\n";
        assert_eq!(shape(template), "{spec: {containers: [{name: s}], affinity: null, affinity: [{name: s, emptyDir: {}}]}}");
        assert_eq!(undecided_texts(template), ["name: data\n    emptyDir: {}"]);
        // Without any block, and with the action after the key on its line, or inside a `range`.
        assert_eq!(undecided_texts("affinity:\n{{ toYaml .Values.affinity | indent 2 }}\n- name: data\n"), ["name: data"]);
        assert_eq!(undecided_texts("spec:\n  affinity: {{- toYaml . | nindent 4 }}\n  - name: data\nkind: A\n"), ["name: data"]);
        assert_eq!(
            undecided_texts("spec:\n  tolerations:\n    {{- toYaml .Values.tolerations | nindent 4 }}\n  {{- range .Values.volumes }}\n  - name: {{ .name }}\n  {{- end }}\n"),
            ["name: {{ .name }}"]
        );
        // Lines between the key's column and the action's are no continuation of its value either.
        assert_eq!(undecided_texts("labels:\n{{ include \"labels\" . | indent 4 }}\n  app: x\n"), ["app: x"]);
    }

    #[test]
    fn lines_after_a_block_that_holds_their_key_have_no_known_parent() {
        // Where the `if` renders nothing, `- key: b` follows `image` (no YAML), not tolerations.
        let template = "spec:\n  image: a\n  {{- if .Values.x }}\n  tolerations:\n  - key: a\n  {{- end }}\n  - key: b\n";
        assert_eq!(undecided_texts(template), ["key: b"]);
        assert_eq!(undecided_texts("spec:\n{{- with .Values.a }}\n  annotations:\n{{- end }}\n    a: b\n"), ["a: b"]);
    }

    #[test]
    fn lines_whose_parent_every_rendering_agrees_on_are_decided() {
        for template in [
            // What the action writes and the literal lines below share the value's column.
            "labels:\n{{ include \"labels\" . | indent 2 }}\n  app: x\n",
            "spec:\n  labels: {{- include \"labels\" . | nindent 4 }}\n    app: x\n",
            "env:\n  {{- toYaml .Values.env | nindent 2 }}\n  - name: A\n",
            "endpoints:\n  {{- toYaml .Values.endpoints | nindent 2 }}\n    path: /x\n",
            // An action on the value's first line writes inside it (an item's first keys), not above it.
            "ports:\n- {{- toYaml .Values.port | nindent 2 }}\n  protocol: TCP\n- port: 1\n  {{- toYaml .Values.extra | nindent 2 }}\n  name: a\n",
            "spec:\n  endpoints:\n    {{- toYaml .Values.endpoints | nindent 4 }}\n      path: /x\n",
            // Keys and items after a block whose key is outside it.
            "spec:\n  {{- if .Values.x }}\n  foo: 1\n  {{- end }}\n  bar: 2\n",
            "env:\n{{- range .Values.env }}\n- name: {{ .name }}\n{{- end }}\n- name: static\n",
            "args:\n{{- if .Values.x }}\n- a\n{{- end }}\n- b\n",
            // A list item inside a block: the lines after it continue an item of the same list either way.
            "ports:\n- port: 1\n{{- if .Values.x }}\n- port: 2\n{{- end }}\n  name: b\n",
            // A key after a value an action writes is its sibling.
            "spec:\n  affinity:\n{{ toYaml .Values.affinity | indent 4 }}\n  volumes:\n  - name: data\n",
            // Without `indent`, a helper writes at a column of its own, which may be the item's.
            "volumes:\n{{ include \"volumes\" . }}\n- name: data\n",
        ] {
            assert_eq!(undecided_texts(template), Vec::<&str>::new(), "{template}");
        }
    }

    #[test]
    fn templates_are_recognised() {
        assert!(has_actions("a: {{ .x }}"));
        assert!(!has_actions("a: '{{'"));
    }
}
