#!/usr/bin/env bash
# The pre-commit hook (.pre-commit-hooks.yaml), run by pre-commit itself in a throw-away git repository
# holding the Widget CRD and a Widget with two mistakes. The configuration names this repository
# (`repo: <this checkout>`, `rev: <HEAD>`), so pre-commit clones it and installs the hook as it would
# from GitHub: `pip install .` of the clone, which builds the wheel with maturin and cargo (the clone's
# own crates are compiled again; the dependencies come from the target directory). Checks:
# - `pre-commit run --all-files` fails with crdls's errors, and `--strict` (from `args`) makes the
#   unknown field one of them;
# - a commit that stages only the Widget is still checked against the CRD given by `--crds`;
# - both pass once the Widget is fixed;
# - the `repo: local`, `language: system` variant docs/src/ci.md shows runs the `crdls` on PATH (the
#   wheel's, from packaging/tests/wheel.sh) the same way.
# The hook definition is read from HEAD: commit changes to .pre-commit-hooks.yaml before running this.
set -euo pipefail
cd "$(dirname "$0")/../.."
. packaging/tests/lib.sh

venv="$(tools_venv)"
rev="$(git rev-parse HEAD)"
git diff --quiet HEAD -- .pre-commit-hooks.yaml pyproject.toml || echo "warning: uncommitted changes to the hook are not what pre-commit installs (it reads $rev)"
work="$dist/pre-commit"
rm -rf "$work"
mkdir -p "$work/repo/crds" "$work/repo/deploy"
# Kept between runs: pre-commit makes one environment per `rev`, so a second run of the same HEAD
# installs nothing.
export PRE_COMMIT_HOME="$dist/pre-commit-home"
repo="$work/repo"
cp fixtures/crds/widgets.yaml "$repo/crds/widgets.yaml"
bad='apiVersion: demo.crdls.dev/v1
kind: Widget
metadata:
  name: w
spec:
  size: 11
  owner: team
  extra: 1
'
good='apiVersion: demo.crdls.dev/v1
kind: Widget
metadata:
  name: w
spec:
  size: 3
  owner: team
'
printf '%s' "$bad" > "$repo/deploy/widget.yaml"
cat > "$repo/.pre-commit-config.yaml" <<YAML
repos:
  - repo: $root
    rev: $rev
    hooks:
      - id: crdls
        args: [--crds, crds/, --strict]
YAML
git_() { git -C "$repo" -c user.name=crdls -c user.email=crdls@example.invalid -c commit.gpgsign=false "$@"; }
git_ init --quiet
git_ add .
git_ commit --quiet -m "a Widget with mistakes"

# Runs pre-commit in the repository; expects exit code $1 and each further argument in its output.
expect_run() {
  local want="$1" code=0
  shift
  (cd "$repo" && "$venv/bin/pre-commit" run "${run_args[@]}") > "$work/out.txt" 2>&1 || code=$?
  if [ "$code" != "$want" ]; then
    cat "$work/out.txt"
    fail "pre-commit run ${run_args[*]} exited $code, not $want"
  fi
  local text
  for text in "$@"; do
    grep -qF -- "$text" "$work/out.txt" || { cat "$work/out.txt"; fail "pre-commit run ${run_args[*]}: no '$text' in its output"; }
  done
}

start=$(date +%s)
run_args=(--all-files)
expect_run 1 "crdls check" "Failed" "error[schema/maximum]: must be less than or equal to 10" "error[schema/unknown-field]" "deploy/widget.yaml:6:9"
echo "hook installed (the wheel built from $rev) or reused, and failed on the bad Widget in $(($(date +%s) - start)) s"
grep -E '^[0-9]+ errors? ' "$work/out.txt"

# A commit that touches only the Widget: pre-commit passes that one file; the CRD comes from --crds.
printf '%s' "$good" > "$repo/deploy/widget.yaml"
git_ commit --quiet -am "fix the Widget"
sed -i 's/size: 3/size: 12/' "$repo/deploy/widget.yaml"
git_ add deploy/widget.yaml
run_args=()
expect_run 1 "Failed" "error[schema/maximum]: must be less than or equal to 10" "1 error in 1 file (1 document, 1 CRD known)"
sed -i 's/size: 12/size: 4/' "$repo/deploy/widget.yaml"
git_ add deploy/widget.yaml
expect_run 0 "Passed"
run_args=(--all-files)
expect_run 0 "Passed"
echo "the staged Widget failed, and the fixed one passed"

# The `language: system` variant: whatever `crdls` is on PATH (here the wheel's).
PATH="$dist/wheel-venv/bin:$PATH"
command -v crdls > /dev/null || fail "no crdls on PATH: run packaging/tests/wheel.sh first"
cat > "$repo/.pre-commit-config.yaml" <<'YAML'
repos:
  - repo: local
    hooks:
      - id: crdls
        name: crdls check
        entry: crdls check
        language: system
        types_or: [yaml, json]
        require_serial: true
        args: [--crds, crds/, --strict]
YAML
git_ add .pre-commit-config.yaml
expect_run 0 "Passed"
printf '%s' "$bad" > "$repo/deploy/widget.yaml"
expect_run 1 "Failed" "error[schema/maximum]" "error[schema/unknown-field]"
echo "the language: system variant failed on the bad Widget and passed on the fixed one"
echo "pre-commit: ok in $(($(date +%s) - start)) s"
