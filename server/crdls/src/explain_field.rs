//! `crdls explain-field`: what a hover on a field of a built-in kind shows (type, constraints, the
//! release), on the command line; with `--field-docs`, the field's API documentation too, read from
//! the cache or downloaded once (see `crdls-workspace/src/docs.rs`). The flag is the user's own, so
//! it needs no trust.

use crdls_sources::Network;
use crdls_workspace::config::Problem;
use crdls_workspace::docs::KubeDocs;
use crdls_workspace::Config;

use crate::io::{Io, EXIT_OK, EXIT_USAGE};

#[derive(Debug, clap::Args)]
pub struct ExplainFieldArgs {
    /// The API version of the kind: `apps/v1`, or `v1` for the core group.
    #[arg(value_name = "API_VERSION")]
    api_version: String,
    /// The kind: `Deployment`.
    #[arg(value_name = "KIND")]
    kind: String,
    /// The field, with dots, as `kubectl explain` names it: `spec.template.spec.containers.image`
    /// (list items need no index).
    #[arg(value_name = "FIELD")]
    field: String,
    /// The Kubernetes release whose schema to describe; the newest crdls knows by default.
    #[arg(long, value_name = "X.Y", value_parser = crate::cli::KnownValues(crate::cli::kube_versions))]
    kube_version: Option<String>,
    /// Also print the field's description from the release's API documentation, which crdls does not
    /// ship: downloaded once into the cache from the Kubernetes repository on GitHub, or from the
    /// mirror URL given (`--field-docs=https://mirror.example/kubernetes`).
    #[arg(long, value_name = "URL", num_args = 0..=1, require_equals = true, default_missing_value = "true")]
    field_docs: Option<String>,
    /// Never touch the network: the documentation is read from the cache only.
    #[arg(long)]
    offline: bool,
}

/// Runs `crdls explain-field`: exit code 2 for a kind or field crdls does not know.
pub fn explain_field(args: ExplainFieldArgs, io: &mut Io<'_>) -> i32 {
    let mut config = Config::default();
    if let Some(version) = &args.kube_version {
        match crdls_workspace::config::parse_kube_version(version) {
            Ok(minor) => config.kube_version = minor,
            Err(e) => {
                let _ = writeln!(io.stderr, "crdls: --kube-version: {e}");
                return EXIT_USAGE;
            }
        }
    }
    if let Some(docs) = &args.field_docs {
        let value = if docs == "true" { serde_json::Value::Bool(true) } else { serde_json::Value::String(docs.clone()) };
        if let Err(e) = config.merge_json(&serde_json::json!({ "fieldDocs": value })) {
            // Said of the flag, not of the settings key it is passed as.
            let _ = match &e.problem {
                Problem::FieldDocs(reason) => writeln!(io.stderr, "crdls: --field-docs: {reason}"),
                _ => writeln!(io.stderr, "crdls: --field-docs: {e}"),
            };
            return EXIT_USAGE;
        }
    }
    let kube = crdls_check::kubernetes_release(config.kube_version);
    let store = KubeDocs::new();
    let cache = config.field_docs.as_ref().and_then(|_| crdls_sources::Cache::from_env());
    if config.field_docs.is_some() && cache.is_none() {
        let _ = writeln!(
            io.stderr,
            "crdls: warning: --field-docs: no cache directory (set CRDLS_CACHE_DIR or HOME); the documentation is left out"
        );
    }
    let network = if args.offline { Network::Offline } else { Network::CacheFirst };
    let docs = store.source(config.field_docs.as_deref(), cache.as_ref(), network);
    let explained = crdls_ide::explain_builtin_field(&args.api_version, &args.kind, &args.field, kube, &docs);
    for failure in store.take_failures() {
        let _ = writeln!(io.stderr, "crdls: warning: {failure}");
    }
    match explained {
        Ok(markdown) => match writeln!(io.stdout, "{markdown}") {
            Ok(()) => EXIT_OK,
            Err(e) if e.kind() == std::io::ErrorKind::BrokenPipe => EXIT_OK,
            Err(e) => {
                let _ = writeln!(io.stderr, "crdls: cannot write: {e}");
                EXIT_USAGE
            }
        },
        Err(e) => {
            let _ = writeln!(io.stderr, "crdls: {e}");
            EXIT_USAGE
        }
    }
}
