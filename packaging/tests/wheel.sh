#!/usr/bin/env bash
# The Python wheel (pyproject.toml): builds it with `pip wheel .` (maturin, from PyPI, drives cargo,
# which reuses the release build in the target directory), checks that it carries the binary, installs
# it into a fresh virtual environment and runs the `crdls` that gives: `--version`, and
# `crdls check fixtures/`, which must exit 1 (the fixtures hold deliberate errors) with its summary.
# Then builds the wheel PyPI would take (manylinux_2_34), with maturin's check of the glibc symbols.
set -euo pipefail
cd "$(dirname "$0")/../.."
. packaging/tests/lib.sh

rm -rf "$dist/wheels" "$dist/wheel-venv"
start=$(date +%s)
python3 -m pip wheel . --no-deps --disable-pip-version-check --quiet --wheel-dir "$dist/wheels"
wheel="$(built_wheel)"
echo "built $(basename "$wheel") ($(du -h "$wheel" | cut -f1)) in $(($(date +%s) - start)) s"

version="$(sed -n 's/^version = "\(.*\)"$/\1/p' Cargo.toml | head -n 1)"
case "$(basename "$wheel")" in
  "crdls-$version-py3-none-"*.whl) ;;
  *) fail "the wheel is named $(basename "$wheel"), not crdls-$version-py3-none-PLATFORM.whl" ;;
esac
# The binary is the package's one script: `crdls-VERSION.data/scripts/crdls`.
python3 -m zipfile -l "$wheel" > "$dist/wheel-files.txt"
grep -q "^crdls-$version.data/scripts/crdls " "$dist/wheel-files.txt" || fail "the wheel has no crdls-$version.data/scripts/crdls"

python3 -m venv "$dist/wheel-venv"
"$dist/wheel-venv/bin/pip" install --quiet --disable-pip-version-check --no-index "$wheel"
export PATH="$dist/wheel-venv/bin:$PATH"
[ "$(command -v crdls)" = "$dist/wheel-venv/bin/crdls" ] || fail "crdls is $(command -v crdls), not the virtual environment's"
[ "$(crdls --version)" = "crdls $version" ] || fail "crdls --version says $(crdls --version)"
echo "$(command -v crdls): $(crdls --version)"

set +e
crdls check fixtures/ --color never > "$dist/wheel-fixtures.txt"
code=$?
set -e
[ "$code" = 1 ] || fail "crdls check fixtures/ from the wheel exited $code, not 1 (deliberate errors)"
grep -E '^[0-9]+ errors?(, [0-9]+ warnings?)? in [0-9]+ files? \([0-9]+ documents?, [0-9]+ CRDs? known\)$' "$dist/wheel-fixtures.txt" ||
  fail "no summary line in crdls check fixtures/'s output"

# What PyPI would take: a manylinux tag, which maturin grants only after checking the binary's glibc
# symbol versions against the policy (the build itself is the one above, reused).
tools="$(tools_venv)"
"$tools/bin/pip" install --quiet --disable-pip-version-check "maturin==$MATURIN_VERSION"
rm -rf "$dist/pypi-wheels"
"$tools/bin/maturin" build --quiet --release --compatibility manylinux_2_34 --out "$dist/pypi-wheels" 2> "$dist/maturin.txt" ||
  { cat "$dist/maturin.txt"; fail "maturin build --compatibility manylinux_2_34 failed"; }
pypi_wheel="$(ls "$dist"/pypi-wheels/crdls-*.whl)"
case "$(basename "$pypi_wheel")" in
  "crdls-$version-py3-none-manylinux_2_34_x86_64.whl") echo "built $(basename "$pypi_wheel")" ;;
  *) fail "maturin named the PyPI wheel $(basename "$pypi_wheel")" ;;
esac
echo "wheel: ok"
