//! The arguments of `crdls check`, as clap reads them from the command line.

use std::path::PathBuf;

use clap::ValueEnum;

use crate::report::Format;

#[derive(Debug, clap::Args)]
pub struct CheckArgs {
    /// Files or directories to check (directories are searched recursively for .yaml, .yml and .json);
    /// `-` reads a stream from standard input (kustomize or helm output).
    #[arg(value_name = "PATH", default_value = ".")]
    pub(super) paths: Vec<PathBuf>,
    /// More CRDs: files, directories, Helm chart archives (`.tgz`), or URLs (`https://...`, fetched
    /// once into the cache; `#sha256=HEX` pins the content). Their own problems are not reported.
    #[arg(long = "crds", value_name = "PATH|URL")]
    pub(super) crds: Vec<String>,
    /// Also read the CRDs the cluster serves, through the current kubeconfig context (listed once,
    /// then cached like a URL). A checked CRD the cluster serves is compared with it, as with --old.
    #[arg(long)]
    pub(super) cluster: bool,
    /// The kubeconfig context for --cluster (implies --cluster).
    #[arg(long, value_name = "NAME")]
    pub(super) context: Option<String>,
    /// The kubeconfig file for --cluster (implies --cluster); the default is $KUBECONFIG, else ~/.kube/config.
    #[arg(long, value_name = "PATH")]
    pub(super) kubeconfig: Option<PathBuf>,
    /// Trust crdls.toml in the working directory with what runs programs, reads credentials or
    /// touches the network: its cluster (and kubeconfig), URL sources, CRD paths outside the
    /// directory. Without it those settings are not used (flags on the command line always are).
    /// `CRDLS_TRUST_WORKSPACE` takes 1/0, true/false, yes/no, on/off.
    #[arg(long, env = "CRDLS_TRUST_WORKSPACE", value_parser = clap::builder::BoolishValueParser::new())]
    pub(super) trust_workspace: bool,
    /// A host that a URL given with --crds (or crdPaths) may be redirected to, besides its own (`*` for
    /// any); repeat for several. GitHub's release-asset hosts are allowed unless redirectHosts says
    /// otherwise.
    #[arg(long = "redirect-host", value_name = "HOST")]
    pub(super) redirect_hosts: Vec<String>,
    /// Fetch URLs and the cluster's CRDs again even when they are cached.
    #[arg(long, conflicts_with = "offline")]
    pub(super) refresh: bool,
    /// Never touch the network: URLs and the cluster come from the cache only, and one that is not
    /// cached is a usage error (exit code 2).
    #[arg(long)]
    pub(super) offline: bool,
    /// List every CRD source on standard error: how many CRDs each gave, and where a download is cached;
    /// and, for each object whose CRD is defined more than once, which definition it used and why.
    #[arg(long, short = 'v')]
    pub(super) verbose: bool,
    /// Output format.
    #[arg(long, value_enum, default_value_t = Format::Human)]
    pub(super) format: Format,
    /// Report unknown fields as errors, like `kubectl apply --validate=strict`, instead of warnings.
    #[arg(long)]
    pub(super) strict: bool,
    /// Fail when an object could not be validated because no known CRD serves it (as kubeconform does
    /// for a missing schema): `resource/no-crd` and `resource/undeclared-kind` become errors, and a run
    /// that found nothing to check fails.
    #[arg(long)]
    pub(super) fail_unchecked: bool,
    /// Also walk test material: `testdata` directories (which the Go tool ignores) and expected outputs
    /// such as golden files (`*.golden.yaml`, `expected.yaml`), skipped by default; a file named as a
    /// path is always checked. Or `includeTestdata = true` in crdls.toml.
    #[arg(long)]
    pub(super) include_testdata: bool,
    /// Check test inputs (plain manifests below a `test`, `tests` or `e2e` directory of the working
    /// directory or of a checked directory) as whole objects: by default what they leave out (a
    /// required field, an image, a selector) is not reported, since tests write only what they read.
    /// So are the files of a kuttl test case that kuttl does not apply (its commands' overlays).
    /// Or `wholeTestInputs = true` in crdls.toml.
    #[arg(long)]
    pub(super) whole_test_inputs: bool,
    /// The Kubernetes version whose API server is asked (`1.31`): it decides the CEL environment a new
    /// CRD's rules compile in. The default is the newest crdls knows (or `kubeVersion` in crdls.toml).
    #[arg(long, value_name = "X.Y", value_parser = crate::cli::KnownValues(crate::cli::kube_versions))]
    pub(super) kube_version: Option<String>,
    /// When to colour human output.
    #[arg(long, value_enum, default_value_t = ColorArg::Auto)]
    pub(super) color: ColorArg,
    /// The objects' old versions, to check an update as the API server does (transition rules with
    /// `oldSelf`, ratcheting of unchanged invalid values): files or directories, or `git:REF` for the
    /// version of each checked file at a git revision (`git:HEAD`, `git:origin/main`).
    #[arg(long = "old", value_name = "PATH|git:REF")]
    pub(super) old: Vec<String>,
    /// Check each object as a write to this subresource of it, as `kubectl --subresource` sends it:
    /// `status` takes the spec and metadata of the old object (`--old`; without one, of the document
    /// itself) and the status of the document, validated against the old status. A document can
    /// also say it for itself with a line `# crdls: subresource=status`.
    #[arg(long, value_enum, value_name = "NAME")]
    pub(super) subresource: Option<SubresourceArg>,
    /// Rewrite files in place with the fixes that need no judgement (a misspelled field, enum value or
    /// kind; a number that must be a string), list each change, then report what is left.
    #[arg(long, conflicts_with = "diff")]
    pub(super) fix: bool,
    /// Show the fixes `--fix` would make as a unified diff, without writing anything (exit code 1 when
    /// there is something to fix).
    #[arg(long)]
    pub(super) diff: bool,
}

#[derive(Clone, Copy, Debug, ValueEnum)]
pub(super) enum SubresourceArg {
    Status,
}

#[derive(Clone, Copy, Debug, ValueEnum)]
pub(super) enum ColorArg {
    Auto,
    Always,
    Never,
}
