//! The schemas of Kubernetes' built-in kinds (Deployment, Service, ...), per Kubernetes minor version,
//! shipped inside the binary and loaded on first use.
//!
//! # Use
//!
//! [`kubernetes_versions`] lists the releases shipped, [`lookup`] says whether a release serves a
//! group/version/kind (and, if it does not, which releases do), [`schema`] gives the kind's schema as
//! crdls's own [`crdls_crd::Schema`], and [`kinds`] lists a group's kinds for completion and
//! did-you-mean. Nothing is read at start-up: the first call inflates and parses the data (a few
//! milliseconds), and each kind's schema is built the first time it is asked for, then shared.
//!
//! The schemas carry no source ranges (every range is empty) and no descriptions.
//!
//! # Where the data comes from
//!
//! `data/kubernetes.json.deflate` is written by this crate's generator from the Kubernetes OpenAPI v3
//! documents as the `k8s.io/kubernetes` Go module of each release carries them
//! (`api/openapi-spec/v3/api__v1_openapi.json`, `apis__<group>__<version>_openapi.json`): the
//! documents the Kubernetes repository publishes, generated from the Go types and checked by its CI.
//! `data/kubernetes-releases.txt` names the module version of each release; the generator downloads
//! them through the Go module proxy (`go mod download`, which checks them against the checksum
//! database) into the Cargo target directory:
//!
//! ```text
//! server/crdls-builtins/update.sh v1.38.0    # add a release (or move one to a newer patch)
//! server/crdls-builtins/update.sh            # regenerate from the listed releases
//! ```
//!
//! Supporting a new Kubernetes release is that command and a review of its diff. The generator's test
//! regenerates the file wherever `go` is installed and fails if it differs from the committed one.
//! The documents of `apiregistration.k8s.io/v1` are in the tree only from 1.27 on; 1.23 to 1.26 take
//! 1.27's (the API was served, unchanged). Until 1.35 the data was generated from kubectl-validate's
//! copy of the same documents; regenerated from the modules it is byte for byte the same.
//!
//! # Format
//!
//! The file is raw DEFLATE (no zlib header) of minified JSON:
//!
//! ```text
//! {
//!   "format": 1,
//!   "releases": [
//!     { "version": "1.35",
//!       "kinds": [ [group, version, kind, root, scope], ... ] },   // sorted by group, version, kind
//!     ...                                                           // oldest release first
//!   ],
//!   "nodes": [ node, node, ... ]                                   // a node's id is its index
//! }
//! ```
//!
//! A kind is listed for a release when the document of its group/version has a schema whose
//! `x-kubernetes-group-version-kind` names it. The documents describe every group/version the release
//! has, including those an API server serves only when enabled (every alpha version, and the beta
//! versions added since 1.24), so "served" here means "served when enabled". `root` is the id of that schema's node. `scope` says how
//! the document's paths serve it: `namespaced`, `cluster`, `subresource` (only posted to another
//! object's subresource, such as `Scale` or `Eviction`) or `none` (no path: list, options and event
//! kinds).
//!
//! A node is a JSON object with the keywords of an OpenAPI v3 schema, restricted to the facts
//! ([`format::KEYWORDS`]): `type`, `format`, `nullable`, `enum`, `default`, `required`, `properties`,
//! `additionalProperties`, `items`, `allOf`/`anyOf`/`oneOf`/`not`, the bounds (`minimum` ...
//! `maxProperties`), `pattern`, and the Kubernetes extensions `x-kubernetes-list-type`,
//! `x-kubernetes-list-map-keys`, `x-kubernetes-map-type`, `x-kubernetes-int-or-string`,
//! `x-kubernetes-preserve-unknown-fields` and `x-kubernetes-embedded-resource`. The child schemas of
//! `properties` (an object of name to id), `items`, `not`, `additionalProperties` (an id, or a
//! boolean) and `allOf`/`anyOf`/`oneOf` (arrays of ids) are node ids, so a recursive type such as
//! `JSONSchemaProps` is a cycle of ids. Identical nodes are stored once, across groups and releases
//! (two nodes are identical when their keywords and, recursively, their children are), which is why
//! many releases cost little more than one.
//!
//! The generator translates the upstream documents as follows:
//!
//! - `$ref`s are resolved; a reference with keywords beside it (`allOf: [{$ref}]` with a `default`)
//!   becomes the referenced node with those keywords added; they win over the referenced node's
//!   (core/v1 `PersistentVolumeSpec.claimRef` is a `granular` map of the `atomic` `ObjectReference`).
//! - Descriptions, titles, examples, patch strategies, unions and group-version-kind lists are
//!   dropped. Any other keyword the generator does not know stops it, so that a new upstream fact is
//!   decided on rather than lost.
//! - `format: int-or-string` (with its `oneOf` integer or string, or 1.23's `type: string`) is written
//!   `x-kubernetes-int-or-string: true`, as a CRD would say it.
//! - A quantity is `oneOf` a string or a number; 1.23's document says only `type: string`, which its
//!   API server's decoder never held to, and is written as the later ones.
//! - Schemas that accept any JSON are written `x-kubernetes-preserve-unknown-fields: true`: the empty
//!   schema `{}` (apiextensions' `JSON` and `JSONSchemaPropsOr...`), and the Go types that hold raw
//!   JSON but are described only as `type: object` (`RawExtension`, `FieldsV1`, `Patch`).
//!
//! What the upstream documents lack, the data lacks: they have no `enum`s, bounds, patterns,
//! `nullable` or embedded-resource marks. Almost every `default` is `{}`, the mark of a struct field
//! without `omitempty` rather than a default the API server applies; [`schema`] leaves object and
//! array defaults out, and keeps the scalar ones (a service port's `protocol: TCP`), which the API
//! server's defaulting does apply.

pub mod docs;
pub mod format;
pub mod go_types;
mod version;

mod data;
mod materialize;

use std::sync::Arc;

use crdls_crd::Schema;

pub use format::Scope;
pub use version::{KubeVersion, ParseKubeVersionError};

/// The process's data, loaded on first use.
static BUILTINS: data::Builtins = data::Builtins::new();

/// What a release says about a group/version/kind.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Lookup {
    /// The release knows the kind (see [`Scope`] for whether it is a resource). Its group/version may
    /// be one that API servers serve only when enabled (alpha, and beta since 1.24).
    Served {
        /// How the API serves it.
        scope: Scope,
    },
    /// The release does not serve it; these shipped releases do (oldest first).
    NotServed {
        /// The releases that serve it.
        served_in: Vec<KubeVersion>,
    },
    /// No shipped release knows it.
    Unknown,
}

/// The Kubernetes releases shipped, oldest first.
pub fn kubernetes_versions() -> &'static [KubeVersion] {
    &BUILTINS.data().versions
}

/// The newest Kubernetes release shipped: the default target.
pub fn newest() -> KubeVersion {
    *kubernetes_versions().last().expect("the data ships at least one release")
}

/// What release `kube` says about `group` (`""` for the core group), `version` (the API version within
/// the group: `v1`) and `kind`. A release that is not shipped serves nothing.
pub fn lookup(kube: KubeVersion, group: &str, version: &str, kind: &str) -> Lookup {
    BUILTINS.data().lookup(kube, group, version, kind)
}

/// The schema of a kind that release `kube` serves, or `None`. Built on the first request for it and
/// shared afterwards (also by the releases whose schema of the kind is the same). Object and array
/// `default`s are left out: they mark struct fields, and are not defaults the API server applies.
pub fn schema(kube: KubeVersion, group: &str, version: &str, kind: &str) -> Option<Arc<Schema>> {
    BUILTINS.data().schema(kube, group, version, kind).cloned()
}

/// [`schema`], borrowed for the life of the process (the schemas are built once and never dropped),
/// for callers that hold schema references alongside the CRD index's.
pub fn schema_ref(kube: KubeVersion, group: &str, version: &str, kind: &str) -> Option<&'static Schema> {
    BUILTINS.data().schema(kube, group, version, kind).map(|s| &**s)
}

/// The kinds release `kube` serves as resources in `group`, as (API version within the group, kind),
/// sorted. List, options and subresource kinds are left out.
pub fn kinds(kube: KubeVersion, group: &str) -> Vec<(&'static str, &'static str)> {
    BUILTINS.data().kinds(kube, group)
}

#[cfg(test)]
mod tests;
