//! Files a program carries with it and reads at run time, found from the program's side:
//! - a Go source file's `//go:embed` directive names files (or directories, or `path.Match` patterns,
//!   relative to the source's directory) that the compiler bundles into the binary;
//! - a Dockerfile's `COPY` or `ADD` in its final stage puts files of the build context into the image the
//!   program runs from (copies from another stage, `COPY --from`, are the build's own output).
//!
//! Such a YAML file is what the program reads, and a program may fill in or transform what it reads (an
//! image, a volume it injects, a name) or send it as a patch. It is read as a program's data: partial
//! objects. (ko's `kodata/` directory, the third way, is a directory convention: see `roles.rs`.)

use std::path::{Path, PathBuf};

use crate::files::{glob_match, normalize};

/// How many directories below one root are listed at most.
const MAX_DIRS: usize = 20_000;
/// How deep below the root sources are looked for.
const MAX_DEPTH: usize = 12;
/// How many Go files and Dockerfiles below one root are read at most.
const MAX_SOURCES: usize = 16_384;
/// The largest source read, in bytes; larger ones are skipped.
const MAX_SOURCE_BYTES: u64 = 1024 * 1024;
/// How many bytes of sources below one root are read at most.
const MAX_TOTAL_BYTES: u64 = 128 * 1024 * 1024;
/// How many paths one root's programs may carry at most (patterns of directives and instructions).
const MAX_CARRIED: usize = 4096;

/// How a program carries a file.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Carrier {
    /// Below a `kodata` directory: ko bundles it into the image, under `KO_DATA_PATH`.
    Ko,
    /// Named by a Go `//go:embed` directive: compiled into the binary.
    GoEmbed,
    /// Copied into a container image by a Dockerfile's `COPY` or `ADD`.
    Image,
}

/// One path a program carries: a file, a directory (everything below it), or a pattern.
#[derive(Clone, Debug)]
struct CarriedPath {
    /// The path or pattern, absolute (joined to the directory it is relative to).
    path: PathBuf,
    /// The Go file or Dockerfile that names it.
    source: PathBuf,
    carrier: Carrier,
}

/// The paths the programs of one workspace root carry.
#[derive(Default, Debug)]
pub(super) struct Carried {
    paths: Vec<CarriedPath>,
}

impl Carried {
    /// The source and carrier of `file`, if a program of the root carries it: the file itself, a
    /// directory above it, or a pattern matching either is named.
    pub(super) fn find(&self, file: &Path) -> Option<(PathBuf, Carrier)> {
        let file_text = file.to_string_lossy();
        self.paths
            .iter()
            .find(|c| {
                let pattern = c.path.to_string_lossy();
                if pattern.contains('*') {
                    glob_match(&pattern, &file_text) || file.ancestors().skip(1).any(|a| glob_match(&pattern, &a.to_string_lossy()))
                } else {
                    file.starts_with(&c.path)
                }
            })
            .map(|c| (c.source.clone(), c.carrier))
    }
}

/// What the Go files and Dockerfiles below `root` carry, within the bounds above; hidden directories,
/// test data and dependencies are skipped, and links are not followed.
pub(super) fn carried_below(root: &Path) -> Carried {
    let walk = super::RootWalk { depth: MAX_DEPTH, dirs: MAX_DIRS, files: MAX_SOURCES, skip_testdata: true };
    let sources = super::files_below_root(root, walk, |name| name.ends_with(".go") || is_dockerfile(name));
    let mut carried = Carried::default();
    let mut read = 0;
    for source in sources {
        let Ok(size) = std::fs::metadata(&source).map(|m| m.len()) else { continue };
        if size > MAX_SOURCE_BYTES || read + size > MAX_TOTAL_BYTES {
            continue;
        }
        read += size;
        let Ok(text) = crate::files::read_text(&source) else { continue };
        let dir = source.parent().unwrap_or(root);
        let found: Vec<CarriedPath> = if is_go_source(&source) {
            embedded(&text)
                .into_iter()
                .map(|pattern| CarriedPath { path: dir.join(pattern), source: source.clone(), carrier: Carrier::GoEmbed })
                .collect()
        } else {
            // The build context is the repository's root, or the Dockerfile's own directory.
            copied(&text)
                .into_iter()
                .flat_map(|from| [root, dir].map(|context| normalize(&context.join(&from))))
                .filter(|path| path.starts_with(root) && path != root && (path.to_string_lossy().contains('*') || path.exists()))
                .map(|path| CarriedPath { path, source: source.clone(), carrier: Carrier::Image })
                .collect()
        };
        for path in found {
            if carried.paths.len() >= MAX_CARRIED {
                return carried;
            }
            carried.paths.push(path);
        }
    }
    carried
}

fn is_go_source(path: &Path) -> bool {
    path.extension().is_some_and(|e| e == "go")
}

/// Whether a file name is a Dockerfile's: `Dockerfile`, `Containerfile`, `Dockerfile.x`, `x.Dockerfile`.
fn is_dockerfile(name: &str) -> bool {
    let lower = name.to_ascii_lowercase();
    ["dockerfile", "containerfile"].iter().any(|d| lower == *d || lower.starts_with(&format!("{d}.")) || lower.ends_with(&format!(".{d}")))
}

/// The patterns of a Go source's `//go:embed` directives: separated by blanks, each possibly quoted
/// (`"…"` or `` `…` ``), without the `all:` prefix. A pattern that leaves its directory (`..`) or is
/// absolute is refused by the Go tool, and skipped.
fn embedded(text: &str) -> Vec<String> {
    let mut out = Vec::new();
    if !text.contains("go:embed") {
        return out;
    }
    for line in text.lines() {
        let Some(rest) = line.trim_start().strip_prefix("//go:embed") else { continue };
        if !rest.starts_with([' ', '\t']) {
            continue;
        }
        for pattern in split_quoted(rest) {
            let pattern = pattern.strip_prefix("all:").unwrap_or(&pattern).to_string();
            if pattern.is_empty() || pattern.starts_with('/') || pattern.split('/').any(|part| part == ".." || part == ".") {
                continue;
            }
            out.push(pattern);
        }
    }
    out
}

/// Words separated by blanks, where `"…"` and `` `…` `` hold blanks.
fn split_quoted(text: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut chars = text.chars().peekable();
    while let Some(&c) = chars.peek() {
        if c.is_whitespace() {
            chars.next();
            continue;
        }
        let mut word = String::new();
        if c == '"' || c == '`' {
            chars.next();
            for d in chars.by_ref() {
                if d == c {
                    break;
                }
                word.push(d);
            }
        } else {
            while let Some(&d) = chars.peek() {
                if d.is_whitespace() {
                    break;
                }
                word.push(d);
                chars.next();
            }
        }
        out.push(word);
    }
    out
}

/// The sources that a Dockerfile's final stage copies from the build context: the `COPY` and `ADD`
/// instructions after its last `FROM` (none when that stage is a Go toolchain's image or runs the Go
/// tool: it compiles or tests what it copies), without those that copy from another stage or an image
/// (`--from`), and without sources that are URLs, hold a variable, leave the context, or are the whole
/// context (`.`), which says nothing about which files the program reads.
fn copied(text: &str) -> Vec<String> {
    let mut instructions: Vec<String> = Vec::new();
    let mut current = String::new();
    for line in text.lines() {
        let trimmed = line.trim();
        if current.is_empty() && (trimmed.starts_with('#') || trimmed.is_empty()) {
            continue;
        }
        if let Some(continued) = trimmed.strip_suffix('\\') {
            current.push_str(continued);
            current.push(' ');
            continue;
        }
        current.push_str(trimmed);
        instructions.push(std::mem::take(&mut current));
    }
    let last_from = instructions.iter().rposition(|i| keyword(i).eq_ignore_ascii_case("FROM"));
    let stage = &instructions[last_from.map_or(0, |i| i + 1)..];
    // A stage that builds Go code copies sources to compile (or tests to run), not a program's data.
    let base = last_from.and_then(|i| instructions[i].split_whitespace().skip(1).find(|w| !w.starts_with("--")));
    let toolchain = base.is_some_and(|image| image.rsplit('/').next().is_some_and(|name| name.starts_with("golang")));
    let compiles = stage
        .iter()
        .any(|i| keyword(i).eq_ignore_ascii_case("RUN") && ["go build", "go test", "go install", "go mod"].iter().any(|g| i.contains(g)));
    if toolchain || compiles {
        return Vec::new();
    }
    let mut out = Vec::new();
    for instruction in stage {
        let word = keyword(instruction);
        if !word.eq_ignore_ascii_case("COPY") && !word.eq_ignore_ascii_case("ADD") {
            continue;
        }
        let args = instruction[word.len()..].trim();
        let words: Vec<String> = if args.starts_with('[') {
            args.trim_start_matches('[').trim_end_matches(']').split(',').map(|w| w.trim().trim_matches('"').to_string()).collect()
        } else {
            args.split_whitespace().map(str::to_string).collect()
        };
        if words.iter().any(|w| w.starts_with("--from")) {
            continue;
        }
        let words: Vec<&String> = words.iter().filter(|w| !w.starts_with("--")).collect();
        let Some((_, sources)) = words.split_last() else { continue };
        for source in sources {
            let source = source.trim_start_matches("./").trim_end_matches('/');
            let whole = source.is_empty() || source == "." || source == "*";
            if whole || source.contains("://") || source.contains('$') || source.starts_with('/') || source.split('/').any(|p| p == "..") {
                continue;
            }
            out.push(source.to_string());
        }
    }
    out
}

/// The instruction word of a Dockerfile line.
fn keyword(instruction: &str) -> &str {
    instruction.split_whitespace().next().unwrap_or("")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn embed_directives_name_patterns() {
        let go = "package demo\n\nimport _ \"embed\"\n\n//go:embed config/requeue.yaml\nvar requeue string\n\n\
                  //go:embed all:app \"with space.yaml\" `tick.yaml` manifests/*.yaml\nvar fs embed.FS\n\n\
                  // go:embed not-a-directive.yaml\n//go:embedded.yaml\n//go:embed ../up.yaml /abs.yaml\n";
        assert_eq!(embedded(go), ["config/requeue.yaml", "app", "with space.yaml", "tick.yaml", "manifests/*.yaml"]);
    }

    #[test]
    fn the_final_stage_copies_from_the_context() {
        let dockerfile = "FROM golang AS builder\nCOPY api/ api/\nCOPY config/ config/\n\n\
                          FROM distroless\n# COPY commented/ /x\nCOPY --from=builder /workspace/manager /\n\
                          COPY assets /opt/assets/\nADD --chown=1:1 manifests \\\n  more.yaml /opt/\n\
                          COPY [\"json form/\", \"/dst\"]\nCOPY . /app\nADD https://example.com/x.yaml /x\n\
                          COPY ${DIR}/x.yaml /x\nCOPY ../outside /x\n";
        assert_eq!(copied(dockerfile), ["assets", "manifests", "more.yaml", "json form"]);
        // One stage only: all of it counts.
        assert_eq!(copied("FROM scratch\nCOPY cfg/ cfg/\n"), ["cfg"]);
        // A final stage that builds or tests Go code copies sources, not data.
        assert!(copied("FROM docker.io/library/golang:1.26\nCOPY config/ config/\nCOPY test/ test/\n").is_empty());
        assert!(copied("FROM ubuntu AS build\nCOPY config/ config/\nRUN go test ./test/...\n").is_empty());
    }

    #[test]
    fn dockerfile_names() {
        for name in ["Dockerfile", "dockerfile", "Dockerfile.ubi", "bundle.Dockerfile", "Containerfile"] {
            assert!(is_dockerfile(name), "{name}");
        }
        for name in ["Dockerfiles.md", "mydockerfile", "Dockerfile-notes.txt"] {
            assert!(!is_dockerfile(name), "{name}");
        }
    }

    #[test]
    fn a_root_s_programs_carry_files_directories_and_patterns() {
        let root = std::env::temp_dir().join(format!("crdls-programs-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&root);
        let write = |path: &str, text: &str| {
            let path = root.join(path);
            std::fs::create_dir_all(path.parent().unwrap()).unwrap();
            std::fs::write(path, text).unwrap();
        };
        write(
            "cmd/demo/install.go",
            "package main\n//go:embed config/requeue.yaml\nvar r string\n//go:embed manifests/*.yaml\nvar m embed.FS\n",
        );
        write("cmd/demo/config/requeue.yaml", "");
        write("cmd/demo/config/other.yaml", "");
        write("cmd/demo/manifests/crds.yaml", "");
        write("docker/Dockerfile", "FROM a AS b\nCOPY config/ config/\nFROM c\nCOPY assets /opt/\n");
        write("assets/state/ds.yaml", "");
        write("config/samples/x.yaml", "");
        write("vendor/modules.txt", "");
        write("vendor/x/y.go", "package y\n//go:embed z.yaml\nvar z string\n");
        let carried = carried_below(&root);
        let find = |path: &str| carried.find(&root.join(path));
        assert_eq!(find("cmd/demo/config/requeue.yaml"), Some((root.join("cmd/demo/install.go"), Carrier::GoEmbed)));
        assert_eq!(find("cmd/demo/manifests/crds.yaml"), Some((root.join("cmd/demo/install.go"), Carrier::GoEmbed)));
        assert_eq!(find("assets/state/ds.yaml"), Some((root.join("docker/Dockerfile"), Carrier::Image)));
        assert_eq!(find("cmd/demo/config/other.yaml"), None);
        // The builder stage's copies are sources to compile, not the program's data.
        assert_eq!(find("config/samples/x.yaml"), None);
        // A dependency's directives are not the project's.
        assert_eq!(find("vendor/x/z.yaml"), None);
        let _ = std::fs::remove_dir_all(&root);
    }
}
