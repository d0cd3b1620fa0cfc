#!/usr/bin/env bash
# End-to-end tests in real editors: builds the release server if needed, installs what each editor
# test needs when it is missing (as root on Debian; CI runs this on a fresh machine), then runs every
# editor's test and exits non-zero if any fails. README: "Run the editor end-to-end tests".
set -euo pipefail
cd "$(dirname "$0")/../.."

target_dir="${CARGO_TARGET_DIR:-target}"
[ -x "$target_dir/release/crdls" ] || cargo build --release --locked
CRDLS_BIN="${CRDLS_BIN:-$(cd "$target_dir" && pwd)/release/crdls}"
export CRDLS_BIN

apt_install() {
  if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then
    apt-get update -qq
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "$@" >/dev/null
  else
    echo "missing: $* (install them with apt-get, or run as root)" >&2
    return 1
  fi
}

failed=0

echo "== Neovim"
if ! [ -x /usr/bin/nvim ] || ! python3 -c 'import venv, ensurepip' 2>/dev/null; then
  apt_install neovim python3-venv
fi
bash tests/e2e/neovim/run.sh || failed=1

if [ -f tests/e2e/vscode/run.sh ]; then
  echo "== VS Code"
  bash tests/e2e/vscode/run.sh || failed=1
fi

exit "$failed"
