//! Helm chart archives (`charts/*.tgz`, what `helm dependency build` leaves): the files of their
//! `crds/` directories and of their dependencies' (subchart folders and nested archives), read in
//! memory without unpacking to disk. Helm installs these CRDs before anything else in the chart, so
//! the chart's custom resources are checked against them.
//!
//! A member is named `archive!/path/in/archive`, as Java names the entries of a jar; a nested
//! archive adds another `!/`.

use std::cell::Cell;
use std::fmt;
use std::io::Read;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

/// How member names are joined to their archive.
pub const SEPARATOR: &str = "!/";

/// The largest member read.
const MAX_MEMBER_BYTES: u64 = 16 * 1024 * 1024;

/// Why a chart archive could not be read: the archive, and what stopped the reading.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ArchiveError {
    /// The archive.
    pub path: PathBuf,
    /// What stopped the reading.
    pub reason: ArchiveFailure,
}

/// What stopped the reading of a chart archive.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum ArchiveFailure {
    /// The file cannot be opened, or is not a regular file within the inflate limit.
    Open(String),
    /// The whole tree inflates to more bytes than the limit, in MiB.
    TooLarge(u64),
    /// The whole tree has more entries than the limit.
    TooManyMembers(u64),
    /// The whole tree was not read within the time limit, in seconds.
    TooSlow(u64),
    /// Archives nest deeper than the limit (the member that would go deeper, the limit).
    TooDeep(String, usize),
    /// One manifest is larger than a member may be (the member, the limit in MiB).
    MemberTooLarge(String, u64),
    /// The bytes are not a readable chart archive, or a manifest is not UTF-8 text.
    Damaged(String),
}

impl fmt::Display for ArchiveError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let path = self.path.display();
        match &self.reason {
            ArchiveFailure::Open(e) => write!(f, "cannot read {path}: {e}"),
            reason => write!(f, "{path}: {reason}"),
        }
    }
}

impl fmt::Display for ArchiveFailure {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ArchiveFailure::Open(e) | ArchiveFailure::Damaged(e) => f.write_str(e),
            ArchiveFailure::TooLarge(mib) => {
                write!(f, "larger than {mib} MiB when inflated, with the archives nested in it (the limit of a chart archive); not read")
            }
            ArchiveFailure::TooManyMembers(n) => {
                write!(f, "more than {n} files, with the archives nested in it (the limit of a chart archive); not read")
            }
            ArchiveFailure::TooSlow(s) => {
                write!(f, "not read within {s} s, with the archives nested in it (the time limit of a chart archive); not read")
            }
            ArchiveFailure::TooDeep(name, depth) => write!(f, "{name}: archives nest more than {depth} deep"),
            ArchiveFailure::MemberTooLarge(name, mib) => write!(f, "{name} is larger than {mib} MiB"),
        }
    }
}

impl std::error::Error for ArchiveError {}

/// What reading one archive, with every archive nested in it, may cost in all. The limits are one
/// budget for the whole tree: a small archive of a thousand nested archives, each within a
/// per-archive limit, would otherwise inflate to gigabytes (a chart archive in `charts/` is read by
/// `crdls check .` and by the editor's first scan without anyone asking).
#[derive(Clone, Copy, Debug)]
pub(crate) struct Limits {
    /// Bytes inflated, counting the archive and every nested archive (Helm's limit for a chart).
    pub(crate) bytes: u64,
    /// Entries of any kind (files, directories, links), in every archive together.
    pub(crate) members: u64,
    /// How deep archives may nest in archives (a chart's dependency's dependency is two).
    pub(crate) depth: usize,
    /// How long the reading may take.
    pub(crate) time: Duration,
}

/// The limits every archive is read within.
pub(crate) const LIMITS: Limits = Limits { bytes: 100 * 1024 * 1024, members: 10_000, depth: 8, time: Duration::from_secs(20) };

/// Which limit stopped a reading.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Exceeded {
    Bytes,
    Members,
    Time,
}

/// What is left of the [`Limits`] while one archive tree is read.
struct Budget {
    limits: Limits,
    inflated: Cell<u64>,
    members: Cell<u64>,
    deadline: Instant,
    exceeded: Cell<Option<Exceeded>>,
}

impl Budget {
    fn new(limits: Limits) -> Budget {
        Budget { limits, inflated: Cell::new(0), members: Cell::new(0), deadline: Instant::now() + limits.time, exceeded: Cell::new(None) }
    }

    /// Records that `limit` was reached, and returns the error that stops the reader.
    fn stop(&self, limit: Exceeded) -> std::io::Error {
        self.exceeded.set(Some(limit));
        std::io::Error::other("a limit of chart archives was reached")
    }

    /// Counts one more entry.
    fn count_member(&self) -> Result<(), ArchiveFailure> {
        self.members.set(self.members.get() + 1);
        if self.members.get() > self.limits.members {
            self.exceeded.set(Some(Exceeded::Members));
            return Err(self.explain(String::new()));
        }
        Ok(())
    }

    /// The error to report: the limit that was reached, whatever error the reader that ran into it
    /// made of it (tar and gzip see a stream cut short), else `other`.
    fn explain(&self, other: String) -> ArchiveFailure {
        let limits = self.limits;
        match self.exceeded.get() {
            Some(Exceeded::Bytes) => ArchiveFailure::TooLarge(limits.bytes / (1024 * 1024)),
            Some(Exceeded::Members) => ArchiveFailure::TooManyMembers(limits.members),
            Some(Exceeded::Time) => ArchiveFailure::TooSlow(limits.time.as_secs()),
            None => ArchiveFailure::Damaged(other),
        }
    }
}

/// A reader of inflated bytes that charges them to the budget and stops at its limits.
struct Metered<'a, R> {
    inner: R,
    budget: &'a Budget,
}

impl<R: Read> Read for Metered<'_, R> {
    fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        if self.budget.exceeded.get().is_some() {
            return Err(std::io::Error::other("a limit of chart archives was reached"));
        }
        if Instant::now() > self.budget.deadline {
            return Err(self.budget.stop(Exceeded::Time));
        }
        // Never hand out more than the budget has left, so nothing past the limit is held.
        let left = self.budget.limits.bytes.saturating_sub(self.budget.inflated.get());
        if left == 0 {
            // One byte more shows whether the stream ends exactly at the limit.
            let mut probe = [0u8; 1];
            return match self.inner.read(&mut probe)? {
                0 => Ok(0),
                _ => Err(self.budget.stop(Exceeded::Bytes)),
            };
        }
        let want = buf.len().min(usize::try_from(left).unwrap_or(usize::MAX));
        let n = self.inner.read(&mut buf[..want])?;
        self.budget.inflated.set(self.budget.inflated.get() + n as u64);
        Ok(n)
    }
}

/// A manifest in a chart archive's `crds/` directory.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Member {
    /// Its path in the archive (`cert-manager/crds/crds.yaml`), nested archives joined by `!/`.
    pub name: String,
    /// Its text.
    pub text: String,
}

/// Whether `path` names a chart archive: `.tgz` or `.tar.gz`.
pub fn is_chart_archive(path: &Path) -> bool {
    let name = path.file_name().map(|n| n.to_string_lossy().to_ascii_lowercase()).unwrap_or_default();
    name.ends_with(".tgz") || name.ends_with(".tar.gz")
}

/// The manifests of the `crds/` directories in the archive at `path`, in archive order.
pub fn crd_members(path: &Path) -> Result<Vec<Member>, ArchiveError> {
    crd_members_within(path, LIMITS)
}

/// [`crd_members`] within other limits.
pub(crate) fn crd_members_within(path: &Path, limits: Limits) -> Result<Vec<Member>, ArchiveError> {
    let error = |reason| ArchiveError { path: path.to_path_buf(), reason };
    let file = open(path, limits).map_err(error)?;
    let mut out = Vec::new();
    let budget = Budget::new(limits);
    read_archive(file, "", 0, &budget, &mut out, &mut |_| false).map_err(error)?;
    Ok(out)
}

/// The text of one member (as named by [`crd_members`]) of the archive at `path`.
pub fn read_member(path: &Path, name: &str) -> Option<String> {
    let file = open(path, LIMITS).ok()?;
    let mut out = Vec::new();
    let budget = Budget::new(LIMITS);
    read_archive(file, "", 0, &budget, &mut out, &mut |member| member == name).ok()?;
    out.into_iter().find(|m| m.name == name).map(|m| m.text)
}

/// The archive at `path`, if it is a regular file no larger than it may inflate to.
fn open(path: &Path, limits: Limits) -> Result<std::fs::File, ArchiveFailure> {
    crate::read::open_regular(path, limits.bytes).map(|(file, _)| file).map_err(|e| ArchiveFailure::Open(e.to_string()))
}

/// Splits a source id `…/chart.tgz!/member` into the archive and the member.
pub fn split_source(source: &str) -> Option<(&str, &str)> {
    let lower = source.to_ascii_lowercase();
    [".tgz!/", ".tar.gz!/"]
        .iter()
        .filter_map(|marker| lower.find(marker).map(|at| at + marker.len()))
        .min()
        .map(|end| (&source[..end - SEPARATOR.len()], &source[end..]))
}

/// Reads a gzip-compressed tar stream `depth` archives deep, collecting the manifests below `crds/`
/// directories of the chart and its dependencies, and descending into nested chart archives, all
/// within one `budget`. With `stop` true for a member, reading ends once it is found.
fn read_archive(
    reader: impl Read,
    prefix: &str,
    depth: usize,
    budget: &Budget,
    out: &mut Vec<Member>,
    stop: &mut dyn FnMut(&str) -> bool,
) -> Result<(), ArchiveFailure> {
    let decoder = flate2::read::GzDecoder::new(reader);
    let mut archive = tar::Archive::new(Metered { inner: decoder, budget });
    let entries = archive.entries().map_err(|e| budget.explain(format!("not a chart archive: {e}")))?;
    for entry in entries {
        let mut entry = entry.map_err(|e| budget.explain(format!("not a readable chart archive: {e}")))?;
        budget.count_member()?;
        if !entry.header().entry_type().is_file() {
            continue;
        }
        let path = entry
            .path()
            .map_err(|e| ArchiveFailure::Damaged(format!("a member has an unreadable name: {e}")))?
            .to_string_lossy()
            .replace('\\', "/");
        let path = path.trim_start_matches("./").to_string();
        let name = format!("{prefix}{path}");
        match classify(&path) {
            Kind::Manifest => {
                if entry.size() > MAX_MEMBER_BYTES {
                    return Err(ArchiveFailure::MemberTooLarge(name, MAX_MEMBER_BYTES / (1024 * 1024)));
                }
                let mut text = String::new();
                entry.read_to_string(&mut text).map_err(|e| budget.explain(format!("{name}: not UTF-8 text ({e})")))?;
                let found = stop(&name);
                out.push(Member { name, text });
                if found {
                    return Ok(());
                }
            }
            Kind::Archive => {
                if depth >= budget.limits.depth {
                    return Err(ArchiveFailure::TooDeep(name, budget.limits.depth));
                }
                // The nested archive's compressed bytes are charged as the outer archive inflates them.
                let mut bytes = Vec::new();
                entry.read_to_end(&mut bytes).map_err(|e| budget.explain(format!("{name}: {e}")))?;
                let before = out.len();
                read_archive(bytes.as_slice(), &format!("{name}{SEPARATOR}"), depth + 1, budget, out, stop)?;
                if out[before..].iter().any(|m| stop(&m.name)) {
                    return Ok(());
                }
            }
            Kind::Other => {}
        }
    }
    // A limit reached while tar skipped to the end is an error too, though tar may have stopped quietly.
    match budget.exceeded.get() {
        Some(_) => Err(budget.explain(String::new())),
        None => Ok(()),
    }
}

enum Kind {
    Manifest,
    Archive,
    Other,
}

/// What a path inside a chart archive is: the chart is its first directory, a dependency is
/// `charts/NAME/` (or `charts/NAME.tgz`) below a chart, and Helm installs the `.yaml`, `.yml` and
/// `.json` files anywhere below a chart's `crds/`.
fn classify(path: &str) -> Kind {
    let parts: Vec<&str> = path.split('/').filter(|p| !p.is_empty()).collect();
    // parts[0] is the chart; after it come pairs `charts/NAME`, then `crds/...` or a nested archive.
    let mut at = 1;
    loop {
        match parts.get(at..) {
            Some(["crds", .., file]) if has_manifest_extension(file) => return Kind::Manifest,
            Some(["charts", file]) if is_chart_archive(Path::new(file)) => return Kind::Archive,
            Some(["charts", _, _, ..]) => at += 2,
            _ => return Kind::Other,
        }
    }
}

fn has_manifest_extension(name: &str) -> bool {
    let lower = name.to_ascii_lowercase();
    lower.ends_with(".yaml") || lower.ends_with(".yml") || lower.ends_with(".json")
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;

    /// A gzip-compressed tar of `files` (path, text), as `helm package` writes one.
    pub(crate) fn tgz(files: &[(&str, &[u8])]) -> Vec<u8> {
        let mut builder = tar::Builder::new(Vec::new());
        for (path, bytes) in files {
            let mut header = tar::Header::new_gnu();
            header.set_size(bytes.len() as u64);
            header.set_mode(0o644);
            header.set_cksum();
            builder.append_data(&mut header, path, *bytes).expect("appending to a tar in memory works");
        }
        let tar = builder.into_inner().expect("a tar in memory finishes");
        let mut encoder = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::fast());
        std::io::Write::write_all(&mut encoder, &tar).expect("gzip in memory works");
        encoder.finish().expect("gzip in memory finishes")
    }

    #[test]
    fn classifies_chart_paths() {
        assert!(matches!(classify("app/crds/a.yaml"), Kind::Manifest));
        assert!(matches!(classify("app/crds/nested/b.YML"), Kind::Manifest));
        assert!(matches!(classify("app/crds/README.md"), Kind::Other));
        assert!(matches!(classify("app/templates/crds/a.yaml"), Kind::Other));
        assert!(matches!(classify("app/charts/dep/crds/a.json"), Kind::Manifest));
        assert!(matches!(classify("app/charts/dep/charts/inner/crds/a.yaml"), Kind::Manifest));
        assert!(matches!(classify("app/charts/dep-1.2.3.tgz"), Kind::Archive));
        assert!(matches!(classify("app/charts/dep/charts/inner.tar.gz"), Kind::Archive));
        assert!(matches!(classify("app/values.yaml"), Kind::Other));
        assert!(matches!(classify("crds/a.yaml"), Kind::Other));
    }

    #[test]
    fn reads_crds_of_the_chart_and_its_dependencies() {
        let inner = tgz(&[("inner/Chart.yaml", b"name: inner\n"), ("inner/crds/inner.yaml", b"kind: Inner\n")]);
        let outer = tgz(&[
            ("app/Chart.yaml", b"name: app\n"),
            ("app/crds/a.yaml", b"kind: A\n"),
            ("app/templates/crd.yaml", b"kind: Templated\n"),
            ("app/charts/dep/crds/b.yaml", b"kind: B\n"),
            ("app/charts/inner-0.1.0.tgz", &inner),
        ]);
        let dir = std::env::temp_dir().join(format!("crdls-archive-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let path = dir.join("app-1.0.0.tgz");
        std::fs::write(&path, outer).unwrap();
        let members = crd_members(&path).unwrap();
        let names: Vec<&str> = members.iter().map(|m| m.name.as_str()).collect();
        assert_eq!(names, ["app/crds/a.yaml", "app/charts/dep/crds/b.yaml", "app/charts/inner-0.1.0.tgz!/inner/crds/inner.yaml"]);
        assert_eq!(read_member(&path, "app/charts/inner-0.1.0.tgz!/inner/crds/inner.yaml").as_deref(), Some("kind: Inner\n"));
        assert_eq!(read_member(&path, "app/crds/missing.yaml"), None);
        let source = format!("{}!/app/charts/inner-0.1.0.tgz!/inner/crds/inner.yaml", path.display());
        let (archive, member) = split_source(&source).unwrap();
        assert_eq!(archive, path.to_string_lossy());
        assert_eq!(member, "app/charts/inner-0.1.0.tgz!/inner/crds/inner.yaml");
        assert_eq!(split_source("/a/b.yaml"), None);

        // An archive that inflates past the limit is refused without being held in memory, and the
        // error names the limit (tar, seeing its stream cut short, would call it unreadable).
        let mut bomb = tar::Builder::new(flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::fast()));
        let mut header = tar::Header::new_gnu();
        header.set_size(LIMITS.bytes + 1024);
        header.set_mode(0o644);
        header.set_cksum();
        bomb.append_data(&mut header, "app/big.bin", std::io::repeat(0).take(LIMITS.bytes + 1024)).unwrap();
        std::fs::write(&path, bomb.into_inner().unwrap().finish().unwrap()).unwrap();
        let err = crd_members(&path).unwrap_err().to_string();
        assert!(
            err.ends_with("larger than 100 MiB when inflated, with the archives nested in it (the limit of a chart archive); not read"),
            "{err}"
        );

        // Archives nested past the limit (a crafted archive that holds itself) are refused.
        let mut nested = tgz(&[("c/crds/a.yaml", b"kind: A\n")]);
        for level in 0..=LIMITS.depth {
            let name = format!("c{level}/charts/c{}.tgz", level + 1);
            nested = tgz(&[(name.as_str(), &nested)]);
        }
        std::fs::write(&path, nested).unwrap();
        assert!(crd_members(&path).unwrap_err().to_string().contains("archives nest more than 8 deep"));

        std::fs::write(&path, b"not gzip").unwrap();
        assert!(crd_members(&path).unwrap_err().to_string().contains("not a"), "{:?}", crd_members(&path));
        let _ = std::fs::remove_dir_all(&dir);
    }

    /// A tree of archives, each holding `fan` copies of the level below, `depth` levels; the leaves
    /// hold a CRD and `leaf_bytes` of zeros. Small on disk, large when inflated.
    fn nested_bomb(fan: usize, depth: usize, leaf_bytes: usize) -> Vec<u8> {
        let zeros = vec![0u8; leaf_bytes];
        let mut level = tgz(&[("c/crds/a.yaml", b"kind: A\n"), ("c/zeros.bin", &zeros)]);
        for _ in 0..depth {
            let names: Vec<String> = (0..fan).map(|i| format!("c/charts/c{i}.tgz")).collect();
            let files: Vec<(&str, &[u8])> = names.iter().map(|n| (n.as_str(), level.as_slice())).collect();
            level = tgz(&files);
        }
        level
    }

    fn write_temp(name: &str, bytes: &[u8]) -> std::path::PathBuf {
        let dir = std::env::temp_dir().join(format!("crdls-archive-{name}-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let path = dir.join(format!("{name}.tgz"));
        std::fs::write(&path, bytes).unwrap();
        path
    }

    /// Nested archives share one budget: 259 archives, each far below 100 MiB, inflating to 1.7 GiB
    /// together, are refused as soon as the whole tree passes 100 MiB.
    #[test]
    fn nested_archives_share_one_inflate_budget() {
        let bomb = nested_bomb(6, 3, 8 * 1024 * 1024);
        assert!(bomb.len() < 2 * 1024 * 1024, "{}", bomb.len());
        let path = write_temp("bomb", &bomb);
        let started = Instant::now();
        let err = crd_members(&path).unwrap_err().to_string();
        let took = started.elapsed();
        assert!(
            err.ends_with("larger than 100 MiB when inflated, with the archives nested in it (the limit of a chart archive); not read"),
            "{err}"
        );
        assert!(took < LIMITS.time, "{took:?}");
        assert_eq!(read_member(&path, "c/charts/c5.tgz!/c/charts/c5.tgz!/c/charts/c5.tgz!/c/crds/a.yaml"), None);
        let _ = std::fs::remove_dir_all(path.parent().unwrap());
    }

    /// Entries are counted across the tree: an archive of more than 10,000 empty files is refused.
    #[test]
    fn the_files_of_all_archives_are_counted() {
        let names: Vec<String> = (0..=LIMITS.members).map(|i| format!("c/templates/f{i}.txt")).collect();
        let files: Vec<(&str, &[u8])> = names.iter().map(|n| (n.as_str(), &b""[..])).collect();
        let path = write_temp("many", &tgz(&files));
        let err = crd_members(&path).unwrap_err().to_string();
        assert!(err.ends_with("more than 10000 files, with the archives nested in it (the limit of a chart archive); not read"), "{err}");
        let _ = std::fs::remove_dir_all(path.parent().unwrap());
    }

    /// The reading of a whole tree stops at its deadline, and says so.
    #[test]
    fn the_whole_tree_is_read_within_a_time_limit() {
        let path = write_temp("slow", &nested_bomb(2, 2, 1024));
        let quick = Limits { time: Duration::ZERO, ..LIMITS };
        let err = crd_members_within(&path, quick).unwrap_err().to_string();
        assert!(
            err.ends_with("not read within 0 s, with the archives nested in it (the time limit of a chart archive); not read"),
            "{err}"
        );
        assert_eq!(crd_members(&path).unwrap().len(), 4);
        let _ = std::fs::remove_dir_all(path.parent().unwrap());
    }

    /// A manifest cut short by the limit is reported as over the limit, not as text that is not UTF-8;
    /// a nested archive cut short, not as an unreadable archive.
    #[test]
    fn a_member_cut_by_the_limit_names_the_limit() {
        let small = Limits { bytes: 1024 * 1024, ..LIMITS };
        let manifest = "# comment\n".repeat(150 * 1024);
        let path = write_temp("cut", &tgz(&[("c/crds/a.yaml", manifest.as_bytes())]));
        let err = crd_members_within(&path, small).unwrap_err().to_string();
        assert!(
            err.ends_with("larger than 1 MiB when inflated, with the archives nested in it (the limit of a chart archive); not read"),
            "{err}"
        );
        let inner = tgz(&[("d/crds/a.yaml", manifest.as_bytes())]);
        std::fs::write(&path, tgz(&[("c/charts/d.tgz", &inner)])).unwrap();
        let err = crd_members_within(&path, small).unwrap_err().to_string();
        assert!(err.contains("(the limit of a chart archive)"), "{err}");
        let _ = std::fs::remove_dir_all(path.parent().unwrap());
    }
}
