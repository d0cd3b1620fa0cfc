//! Helm chart archives (`charts/*.tgz`, what `helm dependency build` leaves): the files of their
//! `crds/` directories and of their dependencies' (subchart folders and nested archives), read in
//! memory without unpacking to disk. Helm installs these CRDs before anything else in the chart, so
//! the chart's custom resources are checked against them.
//!
//! A member is named `archive!/path/in/archive`, as Java names the entries of a jar; a nested
//! archive adds another `!/`.

use std::io::Read;
use std::path::Path;

/// How member names are joined to their archive.
pub const SEPARATOR: &str = "!/";

/// The most an archive may inflate to (Helm's own limit for a chart).
const MAX_ARCHIVE_BYTES: u64 = 100 * 1024 * 1024;
/// The largest member read.
const MAX_MEMBER_BYTES: u64 = 16 * 1024 * 1024;
/// How deep archives may nest in archives (a chart's dependency's dependency is two); deeper is taken
/// for a crafted archive that contains itself.
const MAX_NESTING: usize = 8;

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
pub fn crd_members(path: &Path) -> Result<Vec<Member>, String> {
    let file = std::fs::File::open(path).map_err(|e| format!("cannot read {}: {e}", path.display()))?;
    let mut out = Vec::new();
    read_archive(file, "", &mut out, &mut |_| false).map_err(|e| format!("{}: {e}", path.display()))?;
    Ok(out)
}

/// The text of one member (as named by [`crd_members`]) of the archive at `path`.
pub fn read_member(path: &Path, name: &str) -> Option<String> {
    let file = std::fs::File::open(path).ok()?;
    let mut out = Vec::new();
    read_archive(file, "", &mut out, &mut |member| member == name).ok()?;
    out.into_iter().find(|m| m.name == name).map(|m| m.text)
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

/// Reads a gzip-compressed tar stream, collecting the manifests below `crds/` directories of the
/// chart and its dependencies, and descending into nested chart archives. With `stop` true for a
/// member, reading ends once it is found.
fn read_archive(reader: impl Read, prefix: &str, out: &mut Vec<Member>, stop: &mut dyn FnMut(&str) -> bool) -> Result<(), String> {
    let decoder = flate2::read::GzDecoder::new(reader);
    let mut limited = decoder.take(MAX_ARCHIVE_BYTES + 1);
    let mut archive = tar::Archive::new(&mut limited);
    let entries = archive.entries().map_err(|e| format!("not a chart archive: {e}"))?;
    for entry in entries {
        let mut entry = entry.map_err(|e| format!("not a readable chart archive: {e}"))?;
        if !entry.header().entry_type().is_file() {
            continue;
        }
        let path = entry.path().map_err(|e| format!("a member has an unreadable name: {e}"))?.to_string_lossy().replace('\\', "/");
        let path = path.trim_start_matches("./").to_string();
        let name = format!("{prefix}{path}");
        match classify(&path) {
            Kind::Manifest => {
                if entry.size() > MAX_MEMBER_BYTES {
                    return Err(format!("{name} is larger than {} MiB", MAX_MEMBER_BYTES / (1024 * 1024)));
                }
                let mut text = String::new();
                entry.read_to_string(&mut text).map_err(|e| format!("{name}: not UTF-8 text ({e})"))?;
                let found = stop(&name);
                out.push(Member { name, text });
                if found {
                    return Ok(());
                }
            }
            Kind::Archive => {
                let mut bytes = Vec::new();
                (&mut entry).take(MAX_ARCHIVE_BYTES).read_to_end(&mut bytes).map_err(|e| format!("{name}: {e}"))?;
                if prefix.matches(SEPARATOR).count() >= MAX_NESTING {
                    return Err(format!("{name}: archives nest more than {MAX_NESTING} deep"));
                }
                let before = out.len();
                read_archive(bytes.as_slice(), &format!("{name}{SEPARATOR}"), out, stop)?;
                if out[before..].iter().any(|m| stop(&m.name)) {
                    return Ok(());
                }
            }
            Kind::Other => {}
        }
    }
    if limited.limit() == 0 {
        return Err(format!("larger than {} MiB when inflated", MAX_ARCHIVE_BYTES / (1024 * 1024)));
    }
    Ok(())
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

        // An archive that inflates past the limit is refused without being held in memory.
        let mut bomb = tar::Builder::new(flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::fast()));
        let mut header = tar::Header::new_gnu();
        header.set_size(MAX_ARCHIVE_BYTES + 1024);
        header.set_mode(0o644);
        header.set_cksum();
        bomb.append_data(&mut header, "app/big.bin", std::io::repeat(0).take(MAX_ARCHIVE_BYTES + 1024)).unwrap();
        std::fs::write(&path, bomb.into_inner().unwrap().finish().unwrap()).unwrap();
        let err = crd_members(&path).unwrap_err();
        assert!(err.contains("not a readable chart archive") || err.contains("larger than 100 MiB"), "{err}");

        // Archives nested past the limit (a crafted archive that holds itself) are refused.
        let mut nested = tgz(&[("c/crds/a.yaml", b"kind: A\n")]);
        for level in 0..=MAX_NESTING {
            let name = format!("c{level}/charts/c{}.tgz", level + 1);
            nested = tgz(&[(name.as_str(), &nested)]);
        }
        std::fs::write(&path, nested).unwrap();
        assert!(crd_members(&path).unwrap_err().contains("archives nest more than 8 deep"));

        std::fs::write(&path, b"not gzip").unwrap();
        assert!(crd_members(&path).unwrap_err().contains("not a"), "{:?}", crd_members(&path));
        let _ = std::fs::remove_dir_all(&dir);
    }
}
