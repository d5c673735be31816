#!/usr/bin/env bash
# Installs the pinned reference MCP servers (@modelcontextprotocol/
# server-everything, server-memory, server-filesystem) and the official
# TypeScript MCP client (@modelcontextprotocol/sdk) into fixtures/npm, with
# npm ci (exact versions from package-lock.json). The fixture tests that
# need them skip without them, unless CODEMODE_REQUIRE_NODE=1 (CI).
# Needs node and npm. Safe to rerun: an up-to-date install is left alone.
set -euo pipefail
cd "$(dirname "$0")/../fixtures/npm"
stamp=node_modules/.codemode-installed-lock.json
if cmp -s package-lock.json "$stamp" 2>/dev/null; then
  exit 0
fi
npm ci --no-audit --no-fund --loglevel=error
cp package-lock.json "$stamp"
