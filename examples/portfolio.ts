// TypeScript is accepted: types are stripped before the program runs.
// Run: go run ./cmd/codemode run examples/portfolio.ts
interface Quote { symbol: string; price: number; currency: string }
const holdings: Record<string, number> = { AAPL: 10, MSFT: 4, NVDA: 7 };
const quotes: Quote[] = await Promise.all(
  Object.keys(holdings).map((symbol) => tools["mcp__fake__ticker"]({ symbol })),
);
const total = quotes.reduce((sum, q) => sum + q.price * holdings[q.symbol], 0);
return { total: Math.round(total * 100) / 100, currency: quotes[0].currency };
