#!/usr/bin/env bash
# Fetches the cel-spec conformance tests (npm package @bufbuild/cel-spec, pinned) and converts them to
# tests/cel-spec/conformance.json for the `cel_spec_conformance` test. Needs node and npm.
set -euo pipefail
cd "$(dirname "$0")/../.."
npm install --no-save --no-audit --no-fund --ignore-scripts --legacy-peer-deps --prefix target/cel-spec @bufbuild/cel-spec@0.6.1 >/dev/null
node tests/cel-spec/convert.mjs target/cel-spec/node_modules tests/cel-spec/conformance.json
