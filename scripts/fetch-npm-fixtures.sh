#!/usr/bin/env bash
# Installs, with npm ci (exact versions from each package-lock.json):
#   fixtures/npm — the pinned reference MCP servers (@modelcontextprotocol/
#     server-everything, server-memory, server-filesystem) and the official
#     TypeScript MCP client (@modelcontextprotocol/sdk) for the fixture tests;
#   cmd/codemode/testdata/policyclient — the same client with an elicitation
#     handler, for the policy end-to-end tests;
#   internal/dev/bench/peer — the same-protocol peer (node:vm behind the
#     TypeScript SDK) that `codemode bench --peer` and TestPeer compare with.
# The tests that need them skip without them, unless CODEMODE_REQUIRE_NODE=1
# (CI). Needs node and npm. Safe to rerun: an up-to-date install is left
# alone.
set -euo pipefail
top="$(cd "$(dirname "$0")/.." && pwd)"
for dir in fixtures/npm cmd/codemode/testdata/policyclient internal/dev/bench/peer; do
  cd "$top/$dir"
  stamp=node_modules/.codemode-installed-lock.json
  if cmp -s package-lock.json "$stamp" 2>/dev/null; then
    continue
  fi
  npm ci --no-audit --no-fund --loglevel=error
  cp package-lock.json "$stamp"
done
