#!/usr/bin/env bash
# Re-derives the QuickJS-NG wasm artifact that codemode embeds
# (runtime/internal/quickjs/embed) from npm and compares it byte for byte:
# package @jitl/quickjs-ng-wasmfile-release-sync at the pinned version,
# npm integrity and sha256 checked, its wasm re-optimised by binaryen's
# wasm-opt with the pinned release and flags (PROVENANCE). Exit 1 if
# anything differs.
#
# Building and testing codemode need none of this: the artifact is in git.
# When npm is not installed or its registry cannot be reached, or wasm-opt
# of the pinned binaryen release is not installed (Debian: apt-get install
# binaryen), the check is skipped with a message and exit 0 (CI installs
# binaryen and runs it wherever npm answers).
#
#   scripts/fetch-quickjs.sh            compare with the embedded copy
#   scripts/fetch-quickjs.sh -o DIR     write the files into DIR instead
#                                       (for $CODEMODE_QUICKJS_DIR, or to
#                                       replace the embedded copy)
set -euo pipefail
cd "$(dirname "$0")/.."
pkg=$(sed -n 's/^package: //p' runtime/internal/quickjs/embed/PROVENANCE)
ver=$(sed -n 's/^version: //p' runtime/internal/quickjs/embed/PROVENANCE)
if ! command -v npm >/dev/null 2>&1; then
  echo "fetch-quickjs: SKIP: npm is not installed; the embedded artifact was not re-derived"
  exit 0
fi
optver=$(sed -n 's/^wasm-opt: binaryen \([0-9]*\):.*/\1/p' runtime/internal/quickjs/embed/PROVENANCE)
if [ "$(wasm-opt --version 2>/dev/null)" != "wasm-opt version $optver" ]; then
  echo "fetch-quickjs: SKIP: wasm-opt of binaryen $optver is not installed (apt-get install binaryen); the embedded artifact was not re-derived"
  exit 0
fi
if ! timeout 60 npm view "$pkg@$ver" version >/dev/null 2>&1; then
  echo "fetch-quickjs: SKIP: the npm registry did not answer for $pkg@$ver; the embedded artifact was not re-derived"
  exit 0
fi
exec go run ./runtime/internal/quickjs/cmd/fetchquickjs "$@"
