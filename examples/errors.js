// Failed calls throw an Error with .code and .message; catch what you expect.
// Run: go run ./cmd/codemode run examples/errors.js
try {
  await tools["mcp__fake__ticker"]({ symbol: "AAPL", extra: true });
} catch (e) {
  console.log(`caught ${e.code}: ${e.message}`);
}
try {
  await tools.no_such_tool({});
} catch (e) {
  console.log(`caught ${e.code}: ${e.message}`);
}
return "done";
