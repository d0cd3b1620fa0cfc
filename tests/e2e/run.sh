#!/usr/bin/env bash
# End-to-end tests in real editors: builds the release server if needed, installs what each editor
# test needs when it is missing (as root on Debian; CI runs this on a fresh machine), then runs every
# editor's test and exits non-zero if any fails. See docs/src/contributing/tests.md.
set -euo pipefail
cd "$(dirname "$0")/../.."

target_dir="${CARGO_TARGET_DIR:-target}"
[ -x "$target_dir/release/crdls" ] || cargo build --release --locked
CRDLS_BIN="${CRDLS_BIN:-$(cd "$target_dir" && pwd)/release/crdls}"
export CRDLS_BIN

# shellcheck source=tests/e2e/lib.sh
. tests/e2e/lib.sh

failed=0

echo "== Neovim"
if ! [ -x /usr/bin/nvim ] || ! python3 -c 'import venv, ensurepip' 2>/dev/null; then
  apt_install neovim python3-venv
fi
bash tests/e2e/neovim/run.sh || failed=1

echo "== VS Code"
bash tests/e2e/vscode/run.sh || failed=1

exit "$failed"
