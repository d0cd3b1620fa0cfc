#!/usr/bin/env bash
# The GitHub Action (action.yml): its steps run as a runner runs them (packaging/tests/run_action.py:
# bash with the runner's variables, outputs and PATH additions), in a workspace holding the Widget CRD
# and a Widget with two mistakes. Each run gets a fresh RUNNER_TEMP, so the action makes its virtual
# environment and installs crdls anew:
# 1. from `wheel` (packaging/tests/wheel.sh's), `format: github`: exit 1, `::error` annotations on the
#    Widget's lines, the `exit-code` output;
# 2. `format: sarif` and `strict: true`: the SARIF file with the unknown field as an error;
# 3. from `version` (`crdls==VERSION`, pip pointed at the wheel's directory as its index), on the fixed
#    Widget with `args: --fail-unchecked`: exit 0;
# 4. with neither, from the action's own source (maturin and cargo, reusing the target directory),
#    with a glob in `crds` that crdls, not the shell, expands: exit 0;
# 5. `strict: yes`: exit 2 with an annotation saying what `strict` takes.
set -euo pipefail
cd "$(dirname "$0")/../.."
. packaging/tests/lib.sh

venv="$(tools_venv)"
wheel="$(built_wheel)"
version="$(sed -n 's/^version = "\(.*\)"$/\1/p' Cargo.toml | head -n 1)"
work="$dist/action"
rm -rf "$work"
mkdir -p "$work/workspace/crds" "$work/workspace/deploy"
ws="$work/workspace"
cp fixtures/crds/widgets.yaml "$ws/crds/widgets.yaml"
printf 'apiVersion: demo.crdls.dev/v1\nkind: Widget\nmetadata:\n  name: w\nspec:\n  size: 11\n  owner: team\n  extra: 1\n' > "$ws/deploy/widget.yaml"

runs=0
# run_action EXPECTED_CODE NAME=VALUE...: runs the action with these inputs; its output is in $out.
run_action() {
  local want="$1" code=0
  shift
  runs=$((runs + 1))
  out="$work/run-$runs.txt"
  local inputs=()
  for given in "$@"; do inputs+=(--input "$given"); done
  "$venv/bin/python" packaging/tests/run_action.py . --workspace "$ws" --runner-temp "$work/temp-$runs" "${inputs[@]}" > "$out" 2>&1 || code=$?
  if [ "$code" != "$want" ]; then
    cat "$out"
    fail "action run $runs ($*) exited $code, not $want"
  fi
}
expect() {
  grep -qF -- "$1" "$out" || { cat "$out"; fail "action run $runs: no '$1' in its output"; }
}

start=$(date +%s)
run_action 1 "wheel=$wheel" paths=deploy crds=crds
expect "Installing $wheel"
expect "crdls $version"
expect "crdls check --color never deploy --crds crds --format github"
expect "::error file=deploy/widget.yaml,line=6,col=9,endLine=6,endColumn=11,title=schema/maximum::must be less than or equal to 10"
expect "::warning file=deploy/widget.yaml,line=8,col=3"
expect "output exit-code=1"
grep -qx "$work/temp-1/crdls-venv/bin" "$work/temp-1/github_path" || fail "the action did not put its crdls on GITHUB_PATH"
echo "1. from the wheel, annotations: ok"

run_action 1 "wheel=$wheel" paths=deploy "crds=crds/" strict=true format=sarif
expect "output sarif-file=crdls.sarif"
expect "output exit-code=1"
"$venv/bin/python" - "$ws/crdls.sarif" <<'PY' || fail "the SARIF file is not what the upload needs"
import json, sys
sarif = json.load(open(sys.argv[1]))
assert sarif["version"] == "2.1.0", sarif["version"]
results = {(r["ruleId"], r["level"]) for r in sarif["runs"][0]["results"]}
assert ("schema/maximum", "error") in results and ("schema/unknown-field", "error") in results, results
uris = {r["locations"][0]["physicalLocation"]["artifactLocation"]["uri"] for r in sarif["runs"][0]["results"]}
assert uris == {"deploy/widget.yaml"}, uris
PY
echo "2. SARIF with strict: ok"

printf 'apiVersion: demo.crdls.dev/v1\nkind: Widget\nmetadata:\n  name: w\nspec:\n  size: 3\n  owner: team\n' > "$ws/deploy/widget.yaml"
PIP_NO_INDEX=1 PIP_FIND_LINKS="$dist/wheels" run_action 0 "version=$version" paths=deploy crds=crds args=--fail-unchecked
expect "Installing crdls==$version"
expect "crdls check --color never deploy --crds crds --format github --fail-unchecked"
expect "output exit-code=0"
echo "3. from a version on the package index: ok"

run_action 0 "paths=deploy crds" "crds=crds/*.yaml"
expect "Installing $root"
expect "crdls check --color never deploy crds --crds crds/*.yaml --format github"
expect "output exit-code=0"
echo "4. from the action's source: ok"

run_action 2 "wheel=$wheel" strict=yes
expect "::error title=crdls::strict must be true or false, not 'yes'"
expect "output exit-code="
echo "5. a bad input: ok"
echo "action: ok in $(($(date +%s) - start)) s"
