//! The `archive` target: a Helm chart archive built from a small text recipe (so that fixtures are
//! text) and read through `crdls_sources::archive::crd_members` and `read_member`. A recipe is a tree
//! of entries, one a line:
//!
//! ```text
//! file app/crds/a.yaml kind: A\n        a file of that text (`\n` is a line break)
//! repeat app/crds/b.yaml 1000 kind: B\n a file of the text repeated
//! zeros app/big.bin 1048576             a file of zero bytes
//! many app/templates/f 500              that many empty files, named f0.yaml, f1.yaml, …
//! dir app/templates                     a directory
//! link app/crds/l.yaml a.yaml           a symbolic link
//! archive app/charts/dep-1.0.0.tgz      a nested archive, whose entries follow until `end`
//! times 64                              multiplies the sizes of the archive's later entries
//! plain                                 leaves the archive's tar stream uncompressed
//! corrupt 300 255                       sets the byte at that offset of the archive's bytes
//! truncate 1000                         cuts the archive's bytes to that length
//! end
//! ```
//!
//! Nothing may panic or run past the deadline; every member returned is a file the recipe put below a
//! `crds/` directory, with the text the recipe gave it (where nothing was corrupted); `read_member`
//! reads each member alike; an error names its cause, and never a limit the recipe stays within; a
//! recipe within every limit, uncorrupted, reads without error.

use std::collections::HashMap;
use std::io::{Read, Write};
use std::path::{Component, Path};

use crdls_sources::archive::{ArchiveError, ArchiveFailure};

use crate::rng::Rng;
use crate::scratch::Scratch;

/// The archive limits of `crdls-sources` (`archive::LIMITS`), which the oracles compare errors with.
const LIMIT_BYTES: u64 = 100 * 1024 * 1024;
const LIMIT_MEMBERS: u64 = 10_000;
const LIMIT_DEPTH: usize = 8;
/// The largest manifest `crdls-sources` reads.
const MAX_MEMBER_BYTES: u64 = 16 * 1024 * 1024;

/// The most bytes a recipe's files may hold in all (past the inflate limit, so that it is reached).
const MAX_RECIPE_BYTES: u64 = 160 * 1024 * 1024;
/// The most bytes of a repeated text (held in memory while the archive is built).
const MAX_REPEAT_BYTES: u64 = 24 * 1024 * 1024;
/// The most entries a recipe makes (past the entry limit).
const MAX_RECIPE_ENTRIES: u64 = 12_000;
/// How deep the archives of a recipe nest at most (past the depth limit).
const MAX_RECIPE_DEPTH: usize = 11;
/// The largest recipe the mutator writes.
const MAX_LEN: usize = 16 * 1024;

const SEEDS: &[&str] = &[
    "file app/Chart.yaml name: app\\nversion: 1.0.0\\n
file app/values.yaml replicas: 1\\n
file app/crds/widgets.yaml apiVersion: apiextensions.k8s.io/v1\\nkind: CustomResourceDefinition\\nmetadata:\\n  name: widgets.example.com\\n
file app/templates/crd.yaml kind: Templated\\n
file app/crds/nested/more.yml kind: More\\n
file app/crds/README.md not a manifest\\n
",
    "file app/Chart.yaml name: app\\n
file app/charts/dep/crds/b.json {\"kind\": \"B\"}
archive app/charts/dep-0.1.0.tgz
file dep/Chart.yaml name: dep\\n
file dep/crds/dep.yaml kind: Dep\\n
end
file app/crds/a.yaml kind: A\\n
",
    "file c/crds/top.yaml kind: Top\\n
archive c/charts/c1.tgz
archive c1/charts/c2.tgz
archive c2/charts/c3.tar.gz
file c3/crds/deep.yaml kind: Deep\\n
end
end
end
",
    "times 4
repeat app/crds/big.yaml 1000 # a comment line\\n
zeros app/zeros.bin 65536
many app/templates/f 100
dir app/crds
link app/crds/link.yaml big.yaml
",
    "file app/crds/a.yaml kind: A\\n
archive app/charts/broken.tgz
file broken/crds/b.yaml kind: B\\n
corrupt 40 255
end
archive app/charts/cut.tgz
file cut/crds/c.yaml kind: C\\n
truncate 60
end
",
];

/// Lines the mutator inserts.
const LINES: &[&str] = &[
    "file app/crds/x.yaml kind: X\\n",
    "file app/crds/bad.yaml \\xff",
    "repeat app/crds/r.yaml 100000 kind: R\\n",
    "zeros app/crds/z.yaml 17000000",
    "zeros app/big.bin 120000000",
    "many app/f 10001",
    "many app/crds/m 3000",
    "times 1000",
    "times 100000",
    "plain",
    "corrupt 10 0",
    "corrupt 512 48",
    "truncate 20",
    "truncate 1024",
    "dir app/crds/d.yaml",
    "link app/crds/l.yaml ../../etc/passwd",
    "file /abs/crds/a.yaml kind: Abs\\n",
    "file ../up/crds/a.yaml kind: Up\\n",
    "file ./dot/crds/a.yaml kind: Dot\\n",
    "file app\\crds\\win.yaml kind: Win\\n",
    "file app/crds/a-very-long-name-that-needs-the-gnu-long-name-extension-of-tar-because-it-is-longer-than-one-hundred-bytes.yaml kind: Long\\n",
    "archive app/charts/n.tgz",
    "archive app/charts/n/charts/m.tar.gz",
    "end",
];

/// The `archive` target: recipes of lines, minimized by whole lines. The archive's own time limit is
/// 20 s (past it, reading stops and says so), so an input has 30.
pub fn target(regressions: Vec<String>) -> super::FnTarget {
    super::FnTarget {
        name: "archive",
        extension: "txt",
        seeds: SEEDS.iter().map(|s| s.to_string()).chain(regressions).collect(),
        mutate,
        run,
        deadline: std::time::Duration::from_secs(30) * super::UNOPTIMISED_SLOWDOWN,
        lines_only: true,
    }
}

/// A mutant recipe: lines inserted, removed, duplicated or taken from `other`, numbers changed, or a
/// text mutation of one line.
fn mutate(rng: &mut Rng, input: &str, other: &str) -> String {
    let mut lines: Vec<String> = input.lines().map(str::to_string).collect();
    for _ in 0..1 + rng.small_len(4) {
        let at = rng.below(lines.len() + 1);
        match rng.below(8) {
            0 | 1 => lines.insert(at, rng.pick(LINES).to_string()),
            2 if !lines.is_empty() => {
                lines.remove(at.min(lines.len() - 1));
            }
            3 if !lines.is_empty() => {
                let line = lines[at.min(lines.len() - 1)].clone();
                lines.insert(at, line);
            }
            4 => {
                let theirs: Vec<&str> = other.lines().collect();
                if !theirs.is_empty() {
                    lines.insert(at, rng.pick(&theirs).to_string());
                }
            }
            5 if !lines.is_empty() => {
                // A number of the line changed: halved, doubled, made tiny or huge.
                let i = at.min(lines.len() - 1);
                let words: Vec<String> = lines[i]
                    .split(' ')
                    .map(|w| match w.parse::<u64>() {
                        Ok(n) => match rng.below(4) {
                            0 => (n / 2).to_string(),
                            1 => n.saturating_mul(2).to_string(),
                            2 => rng.below(600).to_string(),
                            _ => (rng.next_u64() % 200_000_000).to_string(),
                        },
                        Err(_) => w.to_string(),
                    })
                    .collect();
                lines[i] = words.join(" ");
            }
            6 if !lines.is_empty() => {
                let i = at.min(lines.len() - 1);
                let mutated = crate::mutate::mutate(rng, &lines[i], other, crate::mutate::Dialect::Yaml, 512);
                lines[i] = mutated.replace(['\n', '\r'], " ");
            }
            _ => lines.insert(at, "end".to_string()),
        }
    }
    let mut out = lines.join("\n");
    out.push('\n');
    if out.len() > MAX_LEN {
        let mut cut = MAX_LEN;
        while !out.is_char_boundary(cut) {
            cut -= 1;
        }
        out.truncate(cut);
    }
    out
}

/// A parsed recipe: one archive and what it holds.
#[derive(Debug, Default)]
struct Recipe {
    plain: bool,
    entries: Vec<Entry>,
    corrupt: Vec<(usize, u8)>,
    truncate: Option<usize>,
}

#[derive(Debug)]
enum Entry {
    File { path: String, content: Content },
    Many { prefix: String, count: u64 },
    Dir { path: String },
    Link { path: String, target: String },
    Archive { path: String, recipe: Recipe },
}

#[derive(Debug)]
enum Content {
    Text(String),
    Repeat(String, u64),
    Zeros(u64),
}

/// Parses the lines of one archive, up to its `end` (or the text's), `depth` archives deep.
fn parse(lines: &mut std::str::Lines<'_>, depth: usize) -> Recipe {
    let mut recipe = Recipe::default();
    let mut times: u64 = 1;
    while let Some(line) = lines.next() {
        let (word, rest) = line.trim_start().split_once(' ').unwrap_or((line.trim(), ""));
        let (first, tail) = rest.split_once(' ').unwrap_or((rest, ""));
        let number = |s: &str| s.trim().parse::<u64>().ok();
        match word {
            "end" => return recipe,
            "plain" => recipe.plain = true,
            "times" => times = number(first).unwrap_or(1).clamp(1, 1 << 20),
            "corrupt" => {
                if let (Some(at), Some(byte)) = (number(first), number(tail)) {
                    recipe.corrupt.push((at as usize, byte as u8));
                }
            }
            "truncate" => recipe.truncate = number(first).map(|n| n as usize),
            "file" => recipe.entries.push(Entry::File { path: first.to_string(), content: Content::Text(unescape(tail)) }),
            "repeat" => {
                let (count, text) = tail.split_once(' ').unwrap_or((tail, ""));
                let count = number(count).unwrap_or(1).saturating_mul(times);
                recipe.entries.push(Entry::File { path: first.to_string(), content: Content::Repeat(unescape(text), count) });
            }
            "zeros" => {
                let size = number(tail).unwrap_or(0).saturating_mul(times);
                recipe.entries.push(Entry::File { path: first.to_string(), content: Content::Zeros(size) });
            }
            "many" => {
                let count = number(tail).unwrap_or(0).saturating_mul(times).min(MAX_RECIPE_ENTRIES);
                recipe.entries.push(Entry::Many { prefix: first.to_string(), count });
            }
            "dir" => recipe.entries.push(Entry::Dir { path: first.to_string() }),
            "link" => recipe.entries.push(Entry::Link { path: first.to_string(), target: tail.to_string() }),
            "archive" => {
                let inner = parse(lines, depth + 1);
                if depth < MAX_RECIPE_DEPTH {
                    recipe.entries.push(Entry::Archive { path: first.to_string(), recipe: inner });
                }
            }
            _ => {}
        }
    }
    recipe
}

/// A recipe's text with `\n` a line break and `\xHH` a byte (kept as text when it is not UTF-8).
fn unescape(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut chars = text.chars().peekable();
    while let Some(c) = chars.next() {
        match (c, chars.peek()) {
            ('\\', Some('n')) => {
                chars.next();
                out.push('\n');
            }
            ('\\', Some('x')) => {
                chars.next();
                let hex: String = chars.by_ref().take(2).collect();
                match u8::from_str_radix(&hex, 16) {
                    Ok(b) if b.is_ascii() => out.push(b as char),
                    // A byte that is not ASCII alone is not UTF-8: the replacement character stands in,
                    // and the file gets the raw byte (see `bytes_of`).
                    Ok(_) => out.push('\u{fffd}'),
                    Err(_) => out.push_str(&hex),
                }
            }
            _ => out.push(c),
        }
    }
    out
}

/// What the built archives hold, for the oracles.
#[derive(Default)]
struct Expected {
    /// Each file's full name (nested archives joined by `!/`, as `crd_members` names members) and its
    /// text, when it is known (not zeros, and nothing on the way to it corrupted).
    files: HashMap<String, Vec<Option<String>>>,
    /// Name prefixes of archives that were corrupted: below them nothing is known.
    unknown: Vec<String>,
    /// The bytes of every tar stream together (an upper bound of what is inflated).
    tar_bytes: u64,
    /// Entries of every archive together.
    entries: u64,
    /// How deep archives nest.
    depth: usize,
    /// Whether some archive is plain, corrupted or cut short (and may then fail to read).
    damaged: bool,
    /// Whether some file is larger than a member may be.
    large_file: bool,
    /// Bytes of files made so far (see [`MAX_RECIPE_BYTES`]).
    made: u64,
    /// Whether some file holds bytes that are not UTF-8.
    not_utf8: bool,
}

/// A name as `crd_members` reports it: backslashes as slashes, a leading `./` dropped.
fn reported(name: &str) -> String {
    name.replace('\\', "/").trim_start_matches("./").to_string()
}

/// The name `tar` stores for `path`: its normal components joined by `/` (the builder drops `.` and
/// doubled slashes), or `None` when the builder refuses the path (absolute, with `..`).
fn stored(path: &str) -> Option<String> {
    let mut parts = Vec::new();
    for component in Path::new(path).components() {
        match component {
            Component::Normal(part) => parts.push(part.to_string_lossy().into_owned()),
            Component::CurDir => {}
            _ => return None,
        }
    }
    Some(parts.join("/"))
}

/// Builds the archive of `recipe` named by `prefix`, `depth` archives deep.
fn build(recipe: &Recipe, prefix: &str, depth: usize, expected: &mut Expected) -> Result<Vec<u8>, String> {
    expected.depth = expected.depth.max(depth);
    let corrupted = !recipe.corrupt.is_empty();
    if corrupted {
        expected.unknown.push(prefix.to_string());
    }
    if recipe.plain || corrupted || recipe.truncate.is_some() {
        expected.damaged = true;
    }
    let known = !expected.unknown.iter().any(|u| prefix.starts_with(u.as_str()));
    let mut builder = tar::Builder::new(Vec::new());
    for entry in &recipe.entries {
        if expected.entries >= MAX_RECIPE_ENTRIES {
            break;
        }
        match entry {
            Entry::File { path, content } => {
                let (bytes, text): (Vec<u8>, Option<String>) = match content {
                    Content::Text(t) => (bytes_of(t), Some(t.clone())),
                    Content::Repeat(t, n) => {
                        let room = MAX_REPEAT_BYTES.min(MAX_RECIPE_BYTES.saturating_sub(expected.made));
                        let n = (*n).min(room / (t.len() as u64).max(1));
                        let text = t.repeat(n as usize);
                        (bytes_of(&text), Some(text))
                    }
                    Content::Zeros(n) => {
                        let n = (*n).min(MAX_RECIPE_BYTES.saturating_sub(expected.made));
                        append(&mut builder, path, EntryKind::File(n), prefix, known, None, expected)?;
                        continue;
                    }
                };
                expected.not_utf8 |= text.as_ref().is_some_and(|t| t.as_bytes() != bytes.as_slice());
                let text = text.filter(|t| t.as_bytes() == bytes.as_slice());
                append(&mut builder, path, EntryKind::Bytes(&bytes), prefix, known, text, expected)?;
            }
            Entry::Many { prefix: stem, count } => {
                for i in 0..*count {
                    if expected.entries >= MAX_RECIPE_ENTRIES {
                        break;
                    }
                    append(&mut builder, &format!("{stem}{i}.yaml"), EntryKind::Bytes(b""), prefix, known, Some(String::new()), expected)?;
                }
            }
            Entry::Dir { path } => append(&mut builder, path, EntryKind::Dir, prefix, known, None, expected)?,
            Entry::Link { path, target } => append(&mut builder, path, EntryKind::Link(target), prefix, known, None, expected)?,
            Entry::Archive { path, recipe: inner } => {
                let name = stored(path).unwrap_or_else(|| path.clone());
                let bytes =
                    build(inner, &format!("{prefix}{}{}", reported(&name), crdls_sources::archive::SEPARATOR), depth + 1, expected)?;
                append(&mut builder, path, EntryKind::Bytes(&bytes), prefix, known, None, expected)?;
            }
        }
    }
    let tar = builder.into_inner().map_err(|e| format!("the recipe's tar cannot be finished: {e}"))?;
    expected.tar_bytes += tar.len() as u64;
    let mut bytes = if recipe.plain {
        tar
    } else {
        let mut encoder = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::fast());
        encoder.write_all(&tar).map_err(|e| format!("gzip in memory failed: {e}"))?;
        encoder.finish().map_err(|e| format!("gzip in memory failed: {e}"))?
    };
    for &(at, byte) in &recipe.corrupt {
        if let Some(b) = bytes.get_mut(at) {
            *b = byte;
        }
    }
    if let Some(n) = recipe.truncate {
        bytes.truncate(n);
    }
    Ok(bytes)
}

/// A text's bytes, each replacement character from `\xHH` back to a raw byte that is not UTF-8.
fn bytes_of(text: &str) -> Vec<u8> {
    let mut out = Vec::with_capacity(text.len());
    for c in text.chars() {
        match c {
            '\u{fffd}' => out.push(0xff),
            c => out.extend_from_slice(c.encode_utf8(&mut [0; 4]).as_bytes()),
        }
    }
    out
}

enum EntryKind<'a> {
    Bytes(&'a [u8]),
    File(u64),
    Dir,
    Link(&'a str),
}

/// Appends one entry named `path` (as the builder stores it, or written raw when it refuses the name and
/// the name fits the header), recording it in `expected`.
fn append(
    builder: &mut tar::Builder<Vec<u8>>,
    path: &str,
    kind: EntryKind<'_>,
    prefix: &str,
    known: bool,
    text: Option<String>,
    expected: &mut Expected,
) -> Result<(), String> {
    if path.contains('\0') {
        return Ok(());
    }
    let mut header = tar::Header::new_gnu();
    header.set_mode(0o644);
    let size = match &kind {
        EntryKind::Bytes(b) => b.len() as u64,
        EntryKind::File(n) => *n,
        EntryKind::Dir | EntryKind::Link(_) => 0,
    };
    header.set_size(size);
    match &kind {
        EntryKind::Dir => header.set_entry_type(tar::EntryType::Directory),
        EntryKind::Link(target) => {
            header.set_entry_type(tar::EntryType::Symlink);
            if header.set_link_name(target).is_err() {
                return Ok(());
            }
        }
        _ => header.set_entry_type(tar::EntryType::Regular),
    }
    let data: Box<dyn Read> = match kind {
        EntryKind::Bytes(b) => Box::new(b),
        EntryKind::File(n) => Box::new(std::io::repeat(0).take(n)),
        EntryKind::Dir | EntryKind::Link(_) => Box::new(std::io::empty()),
    };
    let name = match stored(path) {
        Some(name) if !name.is_empty() => {
            builder.append_data(&mut header, &name, data).map_err(|e| format!("the recipe's entry {path} cannot be written: {e}"))?;
            name
        }
        _ => {
            // A name the builder refuses (absolute, with `..`), written into the header as it is.
            if path.len() > 100 || path.is_empty() {
                return Ok(());
            }
            header.as_old_mut().name[..path.len()].copy_from_slice(path.as_bytes());
            header.set_cksum();
            builder.append(&header, data).map_err(|e| format!("the recipe's entry {path} cannot be written: {e}"))?;
            path.to_string()
        }
    };
    expected.entries += 1;
    expected.made += size;
    if size > MAX_MEMBER_BYTES {
        expected.large_file = true;
    }
    if matches!(header.entry_type(), tar::EntryType::Regular) {
        let text = if known { text } else { None };
        expected.files.entry(format!("{prefix}{}", reported(&name))).or_default().push(text);
    }
    Ok(())
}

/// Builds the recipe's archive, reads it, and checks what was read.
pub fn run(input: &str) -> Result<(), String> {
    let recipe = parse(&mut input.lines(), 0);
    let mut expected = Expected::default();
    let bytes = build(&recipe, "", 0, &mut expected)?;
    let scratch = Scratch::new("archive")?;
    let path = scratch.write("app-1.0.0.tgz", &bytes)?;
    let within_limits = expected.tar_bytes <= LIMIT_BYTES && expected.entries <= LIMIT_MEMBERS && expected.depth <= LIMIT_DEPTH;
    let members = match crdls_sources::archive::crd_members(&path) {
        Ok(members) => members,
        Err(e) => return check_error(&e, &path, &expected, within_limits),
    };
    for member in &members {
        let last = member.name.rsplit(crdls_sources::archive::SEPARATOR).next().unwrap_or_default();
        if !last.split('/').any(|part| part == "crds") {
            return Err(format!("crd_members returned {}, which is not below a crds/ directory", member.name));
        }
        if expected.unknown.iter().any(|u| member.name.starts_with(u.as_str())) {
            continue;
        }
        let Some(texts) = expected.files.get(&member.name) else {
            return Err(format!("crd_members returned {}, a file the recipe did not make", member.name));
        };
        let known: Vec<&String> = texts.iter().flatten().collect();
        if known.len() == texts.len() && !known.iter().any(|t| **t == member.text) {
            return Err(format!("crd_members returned {} with text that the recipe did not give it", member.name));
        }
    }
    for member in members.iter().take(3) {
        match crdls_sources::archive::read_member(&path, &member.name) {
            Some(text) if text == member.text => {}
            other => {
                // A name given twice is found first where it first is; what matters is that it is found.
                let first = members.iter().find(|m| m.name == member.name).map(|m| &m.text);
                if other.as_ref() != first {
                    return Err(format!("read_member({}) does not read what crd_members read", member.name));
                }
            }
        }
    }
    Ok(())
}

/// An error must be about the archive read and name a cause, and not a limit the recipe stays within;
/// a recipe within every limit and undamaged must not fail.
fn check_error(error: &ArchiveError, path: &Path, expected: &Expected, within_limits: bool) -> Result<(), String> {
    if error.path != path {
        return Err(format!("an archive error names another file: {error}"));
    }
    let cause = &error.reason;
    if let ArchiveFailure::Damaged(text) | ArchiveFailure::Open(text) = cause {
        if text.trim().is_empty() || text.contains("a limit of chart archives was reached") {
            return Err(format!("an archive error names no cause: {error}"));
        }
    }
    if !expected.damaged {
        if expected.tar_bytes <= LIMIT_BYTES && matches!(cause, ArchiveFailure::TooLarge(_)) {
            return Err(format!("an archive of {} tar bytes in all is said to be over the inflate limit: {cause}", expected.tar_bytes));
        }
        if expected.entries <= LIMIT_MEMBERS && matches!(cause, ArchiveFailure::TooManyMembers(_)) {
            return Err(format!("an archive of {} entries in all is said to be over the entry limit: {cause}", expected.entries));
        }
        if expected.depth <= LIMIT_DEPTH && matches!(cause, ArchiveFailure::TooDeep(..)) {
            return Err(format!("archives {} deep are said to nest too deep: {cause}", expected.depth));
        }
        if within_limits && !expected.large_file && !expected.not_utf8 && !matches!(cause, ArchiveFailure::TooSlow(_)) {
            return Err(format!("an undamaged archive within every limit does not read: {cause}"));
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests;
