//! The CRD sources of `crdls check` that come through the cache: the URLs among `--crds` and
//! crdPaths, and the cluster, fetched as `--offline` and `--refresh` allow.

use crdls_sources::Network;
use crdls_workspace::{external, Config};

use super::args::CheckArgs;
use super::inputs::Input;
use crate::io::Io;

/// The inputs of the URLs and the cluster `config` names, with a message for each that cannot be read;
/// a stale or uncached download is a warning on standard error.
pub(super) fn remote_inputs(args: &CheckArgs, config: &Config, io: &mut Io<'_>) -> (Vec<Input>, Vec<String>) {
    let network = match (args.offline, args.refresh) {
        (true, _) => Network::Offline,
        (_, true) => Network::Refresh,
        _ => Network::CacheFirst,
    };
    let (remote, errors) = external::fetch_remote(config, &io.cwd, network, external::Prompting::Allowed);
    for warning in remote.iter().filter_map(external::External::stale_warning) {
        let _ = writeln!(io.stderr, "crdls: warning: {warning}");
    }
    for warning in remote.iter().filter_map(external::External::not_cached_warning) {
        let _ = writeln!(io.stderr, "crdls: warning: {warning}");
    }
    let inputs = remote.into_iter().map(|r| Input::external(r, &io.cwd)).collect();
    (inputs, errors.iter().map(|e| e.error.to_string()).collect())
}
