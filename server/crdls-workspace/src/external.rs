//! Texts from outside the workspace that may hold CRDs, in one shape (`External`) that both front ends
//! index: the members of chart archives' `crds/` directories, and the texts of URLs and of the cluster
//! through the cache. How each is read or fetched is `crdls-sources`' job; this module turns the
//! settings into those calls.

use std::path::{Path, PathBuf};

use crdls_crd::SourceKind;
use crdls_sources::cluster::ClusterOptions;
use crdls_sources::{Cache, Location, Network, SourceError};

use crate::config::{ClusterSetting, Config};

/// A text from outside the workspace that may hold CRDs.
#[derive(Clone, Debug)]
pub struct External {
    /// What kind of source it is.
    pub kind: SourceKind,
    /// How it is named to users: a URL, `cluster NAME`; for an archive member, the member's name
    /// inside the archive.
    pub label: String,
    /// The file behind it: the archive, or the cached copy of a download.
    pub file: PathBuf,
    /// The member's name inside the archive (`app/crds/a.yaml`), for an archive member.
    pub member: Option<String>,
    /// The text.
    pub text: String,
    /// For a download: whether it came from the network in this run, and when the cached copy was
    /// written (seconds since the Unix epoch).
    pub fetched: Option<(bool, Option<u64>)>,
    /// Why a refresh failed, when the cached copy stands in for the fresh one.
    pub refresh_failed: Option<String>,
    /// Why a download could not be cached: the text is used, but `file` does not hold it.
    pub not_cached: Option<String>,
}

impl External {
    /// The warning to show when a refresh failed and the cached copy is used.
    pub fn stale_warning(&self) -> Option<String> {
        let reason = self.refresh_failed.as_ref()?;
        let when = self.fetched.and_then(|(_, at)| at).map(describe_time).map_or(String::new(), |t| format!(" (cached {t})"));
        Some(format!("cannot refresh {}: {reason}; using the cached copy{when}", self.label))
    }

    /// The warning to show when a download could not be cached.
    pub fn not_cached_warning(&self) -> Option<SourceError> {
        self.not_cached.as_ref().map(|reason| SourceError::Uncached { label: self.label.clone(), reason: reason.clone() })
    }
}

/// The CRD manifests of a chart archive.
pub fn archive_members(archive: &Path) -> Result<Vec<External>, crdls_sources::archive::ArchiveError> {
    Ok(crdls_sources::archive::crd_members(archive)?
        .into_iter()
        .map(|member| External {
            kind: SourceKind::ChartArchive,
            label: member.name.clone(),
            file: archive.to_path_buf(),
            member: Some(member.name),
            text: member.text,
            fetched: None,
            refresh_failed: None,
            not_cached: None,
        })
        .collect())
}

/// The URL sources among configured CRD locations.
pub fn urls(locations: &[String]) -> Vec<crdls_sources::UrlSource> {
    locations
        .iter()
        .filter_map(|l| match Location::parse(l) {
            Location::Url(url) => Some(url),
            Location::Path(_) => None,
        })
        .collect()
}

/// The local (file, directory, glob) locations among configured CRD locations.
pub fn local_paths(locations: &[String]) -> Vec<String> {
    locations.iter().filter(|l| matches!(Location::parse(l), Location::Path(_))).cloned().collect()
}

/// How the user can be reached while fetching.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Prompting {
    /// A command line: an exec credential plugin may ask the user on the terminal.
    Allowed,
    /// A language server: standard input carries the editor's messages, so no plugin may read it.
    Never,
}

/// A CRD source that gave no text: what kind of source (a URL, the cluster), and why.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Unavailable {
    /// What kind of source it is.
    pub kind: SourceKind,
    /// Why it gave no text.
    pub error: SourceError,
}

/// The texts of the URLs and the cluster the settings name, through the cache, with an error for
/// each that could not be read. `root` is where a relative kubeconfig path starts.
pub fn fetch_remote(config: &Config, root: &Path, network: Network, prompting: Prompting) -> (Vec<External>, Vec<Unavailable>) {
    let urls = urls(&config.crd_paths);
    if urls.is_empty() && config.cluster.is_none() {
        return (Vec::new(), Vec::new());
    }
    let Some(cache) = Cache::from_env() else {
        let reason = "there is no cache directory: set CRDLS_CACHE_DIR (or XDG_CACHE_HOME or HOME)".to_string();
        let failed = |kind, label: String, reason: String| Unavailable { kind, error: SourceError::Fetch { label, reason } };
        let mut errors: Vec<Unavailable> =
            urls.iter().map(|u| failed(SourceKind::Url, crdls_sources::redact_url(&u.url), reason.clone())).collect();
        if config.cluster.is_some() {
            errors.push(failed(SourceKind::Cluster, "the cluster".into(), reason));
        }
        return (Vec::new(), errors);
    };
    let mut found = Vec::new();
    let mut errors = Vec::new();
    let mut add = |kind, result: Result<crdls_sources::Fetched, SourceError>| match result {
        Ok(f) => found.push(External {
            kind,
            label: f.label,
            file: f.path,
            member: None,
            text: f.text,
            fetched: Some((f.downloaded, f.fetched_at)),
            refresh_failed: f.refresh_failed,
            not_cached: f.not_cached,
        }),
        Err(error) => errors.push(Unavailable { kind, error }),
    };
    let policy = crdls_sources::UrlPolicy { redirect_hosts: config.redirect_hosts.clone() };
    for url in &urls {
        add(SourceKind::Url, crdls_sources::url::fetch(url, &cache, network, &policy));
    }
    if let Some(cluster) = &config.cluster {
        let options = ClusterOptions { interactive: prompting == Prompting::Allowed, ..cluster_options(cluster, root) };
        add(SourceKind::Cluster, crdls_sources::cluster::fetch(&options, &cache, network));
    }
    (found, errors)
}

/// The cluster setting with its kubeconfig path resolved (`~/` is the home directory).
fn cluster_options(setting: &ClusterSetting, root: &Path) -> ClusterOptions {
    let kubeconfig = setting.kubeconfig.as_deref().filter(|p| !p.is_empty()).map(|path| match path.strip_prefix("~/") {
        Some(rest) => std::env::var_os("HOME").map_or_else(|| PathBuf::from(path), |home| PathBuf::from(home).join(rest)),
        None => root.join(path),
    });
    ClusterOptions { kubeconfig, context: setting.context.clone().filter(|c| !c.is_empty()), interactive: true }
}

/// When a download was cached, for reports: `2026-11-25 18:03 UTC`.
pub fn describe_time(epoch_seconds: u64) -> String {
    let days = (epoch_seconds / 86_400) as i64;
    let (hour, minute) = ((epoch_seconds % 86_400) / 3600, (epoch_seconds % 3600) / 60);
    // Days since 1970-01-01 to a civil date (Howard Hinnant's algorithm).
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z - era * 146_097;
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let day = doy - (153 * mp + 2) / 5 + 1;
    let month = if mp < 10 { mp + 3 } else { mp - 9 };
    let year = yoe + era * 400 + i64::from(month <= 2);
    format!("{year:04}-{month:02}-{day:02} {hour:02}:{minute:02} UTC")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn splits_locations_and_names_times() {
        let locations = vec!["crds/".to_string(), "https://example.com/a.yaml#sha256=AB".to_string()];
        assert_eq!(local_paths(&locations), ["crds/"]);
        assert_eq!(urls(&locations)[0].sha256.as_deref(), Some("ab"));
        assert_eq!(describe_time(0), "1970-01-01 00:00 UTC");
        assert_eq!(describe_time(1_795_628_640), "2026-11-25 17:44 UTC");
        assert_eq!(describe_time(951_782_400), "2000-02-29 00:00 UTC");
        let options =
            cluster_options(&ClusterSetting { context: Some(String::new()), kubeconfig: Some("k/config".into()) }, Path::new("/w"));
        assert_eq!(options, ClusterOptions { kubeconfig: Some(PathBuf::from("/w/k/config")), context: None, interactive: true });
    }
}
