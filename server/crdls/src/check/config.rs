//! The settings of a `crdls check` run: `crdls.toml` in the working directory (what an untrusted
//! workspace asks for withheld), with the command line's flags over it.

use crdls_workspace::{files, trust, ClusterSetting, Config, Trust, Withheld, CONFIG_FILE};

use super::args::CheckArgs;
use crate::io::Io;

/// The run's settings: `crdls.toml` under the flags of `args`. `--crds` comes before crdPaths; URLs
/// among them are fetched later, with the cluster.
pub(super) fn configure(args: &CheckArgs, io: &mut Io<'_>) -> Result<Config, String> {
    let trust = if args.trust_workspace { Trust::Trusted } else { Trust::Restricted };
    let mut config = read_config(io, trust)?;
    config.strict |= args.strict;
    config.fail_unchecked |= args.fail_unchecked;
    config.include_testdata |= args.include_testdata;
    config.whole_test_inputs |= args.whole_test_inputs;
    if let Some(version) = &args.kube_version {
        let minor = crdls_workspace::config::parse_kube_version(version).map_err(|e| format!("--kube-version: {e}"))?;
        config.kube_version = minor;
    }
    config.redirect_hosts.extend(args.redirect_hosts.iter().cloned());
    config.crd_paths.splice(0..0, args.crds.iter().cloned());
    if args.cluster || args.context.is_some() || args.kubeconfig.is_some() {
        let configured = config.cluster.take().unwrap_or_default();
        config.cluster = Some(ClusterSetting {
            context: args.context.clone().or(configured.context),
            kubeconfig: args.kubeconfig.as_ref().map(|p| p.to_string_lossy().into_owned()).or(configured.kubeconfig),
        });
    }
    Ok(config)
}

/// How the user trusts the workspace on the command line, for the warnings that say what was not used.
pub(super) const HOW_TO_TRUST: &str = "pass --trust-workspace, or set CRDLS_TRUST_WORKSPACE=1, to use them";

/// `crdls.toml` in the working directory, under the command line's flags. Unless the user trusts the
/// workspace, what it asks for that would run a program, read a credential or touch the network is
/// not used, with a warning that names it.
fn read_config(io: &mut Io<'_>, trust: Trust) -> Result<Config, String> {
    let mut config = Config { trust, ..Config::default() };
    let withheld = match files::read_text(&io.cwd.join(CONFIG_FILE)) {
        Ok(text) => config.merge_workspace_toml(&text).map_err(|e| e.to_string())?,
        Err(files::ReadError::Io(e)) if e.kind() == std::io::ErrorKind::NotFound => Vec::new(),
        Err(e) => return Err(format!("cannot read {CONFIG_FILE}: {e}")),
    };
    // `crdls check` shows no hovers, so whether `fieldDocs` was withheld changes nothing here: a
    // project that turns it on for its editors gets no warning in every CI run.
    let withheld: Vec<Withheld> = withheld.into_iter().filter(|w| *w != Withheld::FieldDocs).collect();
    if !withheld.is_empty() {
        let _ = writeln!(io.stderr, "crdls: warning: {}", trust::describe(&withheld, HOW_TO_TRUST));
    }
    Ok(config)
}
