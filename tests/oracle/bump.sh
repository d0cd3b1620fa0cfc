#!/usr/bin/env bash
# Moves the oracle to another Kubernetes release: every k8s.io module the oracle requires directly
# goes to VERSION together (v0.35.10 is Kubernetes 1.35.10), k8s.io/kubernetes to the matching v1
# release, and every replaced staging module to VERSION; then go.mod and go.sum are tidied.
# Usage: tests/oracle/bump.sh v0.38.0
set -euo pipefail
version="${1:?usage: bump.sh VERSION (such as v0.35.10)}"
cd "$(dirname "$0")"
modules=(k8s.io/apiextensions-apiserver k8s.io/apiserver k8s.io/apimachinery k8s.io/api k8s.io/client-go)
for module in $(sed -n 's/^[[:space:]]*\(k8s\.io\/[a-z0-9-]*\) => .*/\1/p' go.mod); do
  go mod edit -replace="$module=$module@$version"
done
go get "${modules[@]/%/@$version}" "k8s.io/kubernetes@v1.${version#v0.}"
go mod tidy
grep -E '^\s*k8s.io/(apiextensions-apiserver|apiserver|apimachinery|api|client-go|kubernetes) ' go.mod
echo "now regenerate the Go type table: see README.md, crdls-oracle go-types" >&2
