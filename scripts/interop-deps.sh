#!/usr/bin/env bash
# Installs the pinned npm packages of the interop tests (snarkjs, circom2,
# circomlib: tests/interop/package.json and its lockfile) into
# BUILD/interop-npm, once per lockfile content.
#
#   scripts/interop-deps.sh [BUILD]
set -euo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
build=$(cd "${1:-build}" 2>/dev/null && pwd || { mkdir -p "${1:-build}" && cd "${1:-build}" && pwd; })
dest=$build/interop-npm
lock=$top/tests/interop/package-lock.json
command -v npm >/dev/null || { echo "interop-deps: npm is missing (scripts/deps.sh installs it)" >&2; exit 1; }
stamp=$(sha256sum "$lock" "$top/tests/interop/package.json" | sha256sum | cut -c1-64)
if [ -x "$dest/node_modules/.bin/snarkjs" ] && [ "$(cat "$dest/.stamp" 2>/dev/null)" = "$stamp" ]; then
    exit 0
fi
mkdir -p "$dest"
cp "$top/tests/interop/package.json" "$lock" "$dest/"
echo "interop-deps: installing snarkjs, circom2, circomlib (pinned) into $dest"
(cd "$dest" && npm ci --no-audit --no-fund --loglevel=error >/dev/null)
echo "$stamp" >"$dest/.stamp"
