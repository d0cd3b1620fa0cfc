//! What crdls reads from disk around the files it checks, kept out of the pure layers, and the one
//! `check_file` both front ends run on a file in its role (`check.rs`): the settings
//! (`config.rs`: `crdls.toml`, initialization options, client settings), file discovery and globs
//! (`files.rs`), what each file is from the files around it (`roles.rs`: chart templates, kustomize
//! patches, test assertions), what a kustomization's patches do (`kustomize.rs`: the objects they land on, the CRDs it outputs patched), which files a run reads and how their CRDs rank (`resolver.rs`, the one
//! resolver of both front ends), old versions of files from git (`git.rs`), and CRD sources beyond the
//! workspace's files, read into one shape, `External` (`external.rs`; fetching them is `crdls-sources`' job), and what a workspace that
//! the user has not trusted may ask for (`trust.rs`), and the field documentation of built-in kinds
//! that the user turned on (`docs.rs`).

pub mod check;
pub mod config;
pub mod docs;
pub mod external;
pub mod files;
pub mod git;
pub mod kustomize;
pub mod resolver;
pub mod roles;
pub mod trust;

pub use config::{ClusterSetting, Config, SeverityOverride, CONFIG_FILE};
pub use roles::{helm_template_hint, template_crds, Carrier, FileRole, Roles};
pub use trust::{Trust, Withheld};
