#!/usr/bin/env bash
# Records fixtures/recordings/{everything,memory}.txtar afresh from the
# pinned reference servers (scripts/fetch-npm-fixtures.sh installs them) by
# running fixtures/recordings/record.js with --record. Review the diff
# before committing it: see docs/fixtures.md.
set -euo pipefail
cd "$(dirname "$0")/.."
./scripts/fetch-npm-fixtures.sh
rm -f /tmp/codemode-fixtures-memory.jsonl   # server-memory's store: start empty
go run ./cmd/codemode run --config fixtures/recordings/record.json \
  --record fixtures/recordings fixtures/recordings/record.js
rm -f /tmp/codemode-fixtures-memory.jsonl
