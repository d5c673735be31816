// Persistent mode keeps top-level declarations between code_run calls:
//   go run ./cmd/codemode run --mode persistent-in-memory examples/repl.js
// (one run shows the first call; over MCP, `codemode serve` keeps the
// environment for the whole session).
const records = Array.from({ length: 10000 }, (_, i) => ({ id: i, group: i % 7, value: (i * 37) % 101 }));
function byGroup(g) { return records.filter((r) => r.group === g).length; }
return { loaded: records.length, group3: byGroup(3) };
