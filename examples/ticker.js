// Find the quote tool by searching, then call it for a few symbols at once.
// Run: go run ./cmd/codemode run examples/ticker.js
const { hits } = await tools.code_tools_search({ query: "ticker quote" });
const quote = tools[hits[0].name];
const symbols = ["AAPL", "MSFT", "GOOG"];
const quotes = await Promise.all(symbols.map((symbol) => quote({ symbol })));
console.log(`called ${hits[0].name} ${quotes.length} times`);
return quotes.sort((a, b) => b.price - a.price).map((q) => `${q.symbol} ${q.price} ${q.currency}`);
