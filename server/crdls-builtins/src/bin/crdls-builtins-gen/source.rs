//! Where the generator's documents come from: the list of releases and the `k8s.io/kubernetes` module
//! version of each, the download of a module through `go mod download`, and the reading of a
//! module's `api/openapi-spec/v3` directory.

use std::collections::BTreeMap;
use std::io::Read;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use crdls_builtins::KubeVersion;
use serde_json::Value;

use crate::generate::{Document, Release};
use crate::name;

/// The Go module whose tree carries the OpenAPI documents.
pub const MODULE: &str = "k8s.io/kubernetes";

/// How long one `go mod download` may take (a module is about 20 MB).
const DOWNLOAD_TIMEOUT: Duration = Duration::from_secs(600);

/// Group/versions that API servers served before the Kubernetes tree published their document. A
/// release whose tree lacks one takes it from the oldest later release listed that has it.
/// `apiregistration.k8s.io/v1` (`APIService`) has been served since 1.10, but its document is in the
/// tree only from 1.27 on; its schema did not change in between.
const BORROWED: &[(&str, &str)] = &[("apiregistration.k8s.io", "v1")];

/// The releases shipped: each minor version with the module version (`v1.35.4`) it is generated from,
/// oldest first.
pub type Releases = Vec<(KubeVersion, String)>;

const RELEASES_HEADER: &str = "\
# The Kubernetes releases crdls ships built-in schemas for: the minor version, and the k8s.io/kubernetes
# module version whose api/openapi-spec/v3 documents they are generated from. Written by
# crdls-builtins-gen --add (server/crdls-builtins/update.sh); the generator test downloads these.
";

/// Reads the list of releases.
pub fn read_releases(path: &Path) -> Result<Releases, String> {
    let text = std::fs::read_to_string(path).map_err(|e| format!("cannot read {}: {e}", path.display()))?;
    let mut releases = Releases::new();
    for (number, line) in text.lines().enumerate() {
        let line = line.trim();
        if line.is_empty() || line.starts_with('#') {
            continue;
        }
        let at = || format!("{}:{}", path.display(), number + 1);
        let (minor, version) = line.split_once(' ').ok_or_else(|| format!("{}: expected `<minor> <module version>`", at()))?;
        let minor: KubeVersion = minor.parse().map_err(|e| format!("{}: {e}", at()))?;
        let version = version.trim();
        if module_minor(version) != Some(minor) {
            return Err(format!("{}: {version} is not a release of Kubernetes {minor}", at()));
        }
        if releases.iter().any(|(m, _)| *m == minor) {
            return Err(format!("{}: Kubernetes {minor} is listed twice", at()));
        }
        releases.push((minor, version.to_string()));
    }
    releases.sort();
    if releases.is_empty() {
        return Err(format!("{}: no releases listed", path.display()));
    }
    Ok(releases)
}

/// Adds a module version (`v1.38.0`) to the list, replacing the line of its minor version.
pub fn add_release(releases: &mut Releases, module_version: &str) -> Result<(KubeVersion, String), String> {
    let version = if module_version.starts_with('v') { module_version.to_string() } else { format!("v{module_version}") };
    let minor = module_minor(&version)
        .ok_or_else(|| format!("`{module_version}` is not a release of {MODULE}: expected vMAJOR.MINOR.PATCH, such as v1.38.0"))?;
    releases.retain(|(m, _)| *m != minor);
    releases.push((minor, version.clone()));
    releases.sort();
    Ok((minor, version))
}

/// Writes the list of releases.
pub fn write_releases(path: &Path, releases: &Releases) -> Result<(), String> {
    let mut text = RELEASES_HEADER.to_string();
    for (minor, version) in releases {
        text.push_str(&format!("{minor} {version}\n"));
    }
    std::fs::write(path, text).map_err(|e| format!("cannot write {}: {e}", path.display()))
}

/// The minor version of a released module version: `v1.35.4` is 1.35; pre-releases are not releases.
fn module_minor(version: &str) -> Option<KubeVersion> {
    let parts: Vec<&str> = version.strip_prefix('v')?.split('.').collect();
    let [major, minor, patch] = parts.as_slice() else { return None };
    let number = |part: &str| (!part.is_empty() && part.bytes().all(|b| b.is_ascii_digit())).then(|| part.parse::<u16>().ok()).flatten();
    number(patch)?;
    Some(KubeVersion::new(number(major)?, number(minor)?))
}

/// The default download cache: `kubernetes-modules` in the Cargo target directory.
pub fn default_cache() -> PathBuf {
    let workspace = Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");
    let target = std::env::var_os("CARGO_TARGET_DIR").map_or_else(|| workspace.join("target"), |dir| workspace.join(dir));
    target.join("kubernetes-modules")
}

/// Downloads `k8s.io/kubernetes@version` through the Go module proxy (checked against the checksum
/// database, as `go` does) into `cache`, and gives the module's directory.
pub fn download(version: &str, cache: &Path) -> Result<PathBuf, String> {
    std::fs::create_dir_all(cache).map_err(|e| format!("cannot create {}: {e}", cache.display()))?;
    let mut command = Command::new("go");
    command
        .args(["mod", "download", "-json"])
        .arg(format!("{MODULE}@{version}"))
        .current_dir(cache)
        .env("GOMODCACHE", cache.join("gomod"))
        // Writable files, so that the target directory can be removed as usual; no toolchain switch.
        .env("GOFLAGS", "-modcacherw")
        .env("GOTOOLCHAIN", "local")
        .env("GO111MODULE", "on")
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    let mut child = command.spawn().map_err(|e| format!("go could not be run (is it installed?): {e}"))?;
    let start = Instant::now();
    let status = loop {
        if let Some(status) = child.try_wait().map_err(|e| e.to_string())? {
            break status;
        }
        if start.elapsed() > DOWNLOAD_TIMEOUT {
            let _ = child.kill();
            let _ = child.wait();
            return Err(format!("go mod download {MODULE}@{version} took more than {} s", DOWNLOAD_TIMEOUT.as_secs()));
        }
        std::thread::sleep(Duration::from_millis(50));
    };
    let mut stdout = String::new();
    let mut stderr = String::new();
    if let Some(mut out) = child.stdout.take() {
        let _ = out.read_to_string(&mut stdout);
    }
    if let Some(mut err) = child.stderr.take() {
        let _ = err.read_to_string(&mut stderr);
    }
    let answer: Value = serde_json::from_str(&stdout).unwrap_or(Value::Null);
    if let Some(error) = answer.get("Error").and_then(Value::as_str) {
        return Err(format!("go mod download {MODULE}@{version}: {error}"));
    }
    if !status.success() {
        return Err(format!("go mod download {MODULE}@{version} failed ({status}): {}{}", stdout.trim(), stderr.trim()));
    }
    answer
        .get("Dir")
        .and_then(Value::as_str)
        .map(PathBuf::from)
        .ok_or_else(|| format!("go mod download {MODULE}@{version} named no directory: {stdout}"))
}

/// The documents of each release, read one release at a time (a release's parsed documents are large).
pub fn read(dirs: &[(KubeVersion, PathBuf)]) -> Result<impl Iterator<Item = Result<Release, String>>, String> {
    let mut files: Vec<(KubeVersion, DocumentFiles)> = Vec::new();
    for (minor, dir) in dirs {
        files.push((*minor, document_files(dir)?));
    }
    files.sort_by_key(|(minor, _)| *minor);
    for at in 0..files.len() {
        for (group, version) in BORROWED {
            let key = (group.to_string(), version.to_string());
            if files[at].1.contains_key(&key) {
                continue;
            }
            if let Some(path) = files[at + 1..].iter().find_map(|(_, later)| later.get(&key).cloned()) {
                files[at].1.insert(key, path);
            }
        }
    }
    Ok(files.into_iter().map(|(version, files)| {
        let mut documents = Vec::new();
        for ((group, api_version), path) in files {
            let text = std::fs::read_to_string(&path).map_err(|e| format!("cannot read {}: {e}", path.display()))?;
            let json = serde_json::from_str(&text).map_err(|e| format!("{}: {e}", path.display()))?;
            documents.push(Document { group, version: api_version, json });
        }
        Ok(Release { version, documents })
    }))
}

/// The file of each (group, version)'s document in one tree.
type DocumentFiles = BTreeMap<(String, String), PathBuf>;

/// The document of each group/version in a Kubernetes tree (or its `api/openapi-spec/v3` directory):
/// `api__v1_openapi.json` is the core group's, `apis__<group>__<version>_openapi.json` a group's. The
/// other files (the lists of groups and versions, `/logs`, `/version`, OpenID discovery) serve no kind.
fn document_files(dir: &Path) -> Result<DocumentFiles, String> {
    let nested = dir.join("api/openapi-spec/v3");
    let dir = if nested.is_dir() { nested } else { dir.to_path_buf() };
    let entries = std::fs::read_dir(&dir).map_err(|e| format!("cannot read {}: {e}", dir.display()))?;
    let mut files = BTreeMap::new();
    for entry in entries {
        let path = entry.map_err(|e| e.to_string())?.path();
        let file = name(&path);
        let Some(stem) = file.strip_suffix("_openapi.json") else { continue };
        let group_version = if let Some(version) = stem.strip_prefix("api__") {
            Some((String::new(), version.to_string()))
        } else {
            stem.strip_prefix("apis__").and_then(|rest| rest.split_once("__")).map(|(g, v)| (g.to_string(), v.to_string()))
        };
        if let Some(key) = group_version {
            files.insert(key, path);
        }
    }
    if files.is_empty() {
        return Err(format!("no OpenAPI v3 documents (api__v1_openapi.json, apis__*__*_openapi.json) in {}", dir.display()));
    }
    Ok(files)
}
