#!/usr/bin/env bash
# Places the pinned QuickJS-ng wasm artifact (npm package
# @jitl/quickjs-ng-wasmfile-release-sync, sha256-verified) where the wazero
# engine finds it: $CODEMODE_QUICKJS_DIR, else the user cache directory.
# Needs go and npm. Safe to rerun: a verified artifact is left alone.
set -euo pipefail
cd "$(dirname "$0")/.."
exec go run ./runtime/internal/quickjs/cmd/fetchquickjs "$@"
