#!/usr/bin/env bash
# Adds a Kubernetes release to the built-in schemas, or regenerates them: downloads the k8s.io/kubernetes
# module of each release in data/kubernetes-releases.txt through the Go module proxy (into the Cargo
# target directory) and rewrites data/kubernetes.json.deflate from its api/openapi-spec/v3 documents.
#
#   server/crdls-builtins/update.sh v1.38.0   # add (or move to) a release, then review `git diff`
#   server/crdls-builtins/update.sh           # regenerate from the listed releases
set -euo pipefail
cd "$(dirname "$0")/../.."
args=()
if [ $# -gt 1 ]; then
  echo "usage: $0 [MODULE-VERSION]   (such as v1.38.0)" >&2
  exit 2
elif [ $# -eq 1 ]; then
  args=(--add "$1")
fi
cargo run -q -p crdls-builtins --bin crdls-builtins-gen -- "${args[@]}"
git --no-pager diff --stat -- server/crdls-builtins/data
