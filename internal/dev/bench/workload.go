package bench

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math"
	"strconv"
	"strings"

	"github.com/codemode/codemode/internal/dev/fakemcp"
)

// Tool names the workloads call: the fake MCP server's tools as the
// registry names them when the server is mounted as "fake" (the embedded
// default of `codemode serve`), so the same programs run in process and
// through `--via mcp`.
const (
	ToolTicker = "mcp__fake__ticker"
	ToolEcho   = "mcp__fake__echo"
)

// Workload is one program to time, with the answer every run must give.
type Workload struct {
	// Name is the row's name: trivial, calls10, repl, calls1000, repl100k, …
	Name string
	// Family groups the points of one growth curve ("calls", "repl"); ""
	// for a workload that is on no curve.
	Family string
	// Param is the amount of work: nested calls (calls*), records (repl*),
	// bytes of recorded results per run (fx-*); 0 for the others.
	Param int
	// Setup, when not empty, is run once per environment before the timed
	// runs in persistent mode, untimed for the latency figures (its own
	// time is reported as the row's setup time). In per-call mode there is
	// nothing to keep, so every run is PerCall.
	Setup string
	// Code is the timed program in persistent mode (after Setup).
	Code string
	// PerCall is the timed program in per-call mode. If empty, Code.
	PerCall string
	// Calls is the number of nested tool calls one timed run makes.
	Calls int
	// Scale divides the row's run count: heavy sweep points run n/Scale
	// times (at least minRuns) so that a sweep stays a few minutes. If
	// zero, 1.
	Scale int
	// want is the JSON the program must return, compared after
	// canonicalisation.
	want json.RawMessage
	// fixtures, when set, are the recordings (server name → path) the
	// workload's tools come from, instead of the fake's Go tools.
	fixtures map[string]string
}

// Program returns the timed program for a mode.
func (w *Workload) Program(persistent bool) string {
	if !persistent && w.PerCall != "" {
		return w.PerCall
	}
	return w.Code
}

// Check reports whether got is the workload's answer.
func (w *Workload) Check(got json.RawMessage) error {
	g, err := canonical(got)
	if err != nil {
		return fmt.Errorf("%s: the program returned %.200q, not JSON: %v", w.Name, got, err)
	}
	if !bytes.Equal(g, w.want) {
		return fmt.Errorf("%s: wrong answer: got %.200s, want %s", w.Name, g, w.want)
	}
	return nil
}

// Want is the expected answer (canonical JSON).
func (w *Workload) Want() json.RawMessage { return w.want }

func canonical(raw json.RawMessage) (json.RawMessage, error) {
	var v any
	if err := json.Unmarshal(raw, &v); err != nil {
		return nil, err
	}
	return json.Marshal(v) // map keys sorted, numbers normalised
}

func mustCanonical(v any) json.RawMessage {
	b, err := json.Marshal(v)
	if err != nil {
		panic(err)
	}
	c, err := canonical(b)
	if err != nil {
		panic(err)
	}
	return c
}

// Workloads returns the standard workloads, in table order. calls10 and
// repl (10k records) are also points of the sweep's curves.
func Workloads() []*Workload {
	calls10 := callsWorkload("calls10", 10)
	calls10.Family = "calls"
	r := repl("repl", 10000)
	r.Family = "repl"
	return []*Workload{trivial(), calls10, parallel(10), cpu(25), data(10000), r}
}

// SweepWorkloads returns the growth sweep: calls with 1, 10, 100, 1000
// nested calls and repl with 1k, 10k, 100k records. The 10-call and
// 10k-record points are the standard calls10 and repl.
func SweepWorkloads() []*Workload {
	std := map[string]*Workload{}
	for _, w := range Workloads() {
		std[w.Name] = w
	}
	var out []*Workload
	for _, n := range []int{1, 10, 100, 1000} {
		name := "calls" + strconv.Itoa(n)
		w, ok := std[name]
		if !ok {
			w = callsWorkload(name, n)
			w.Family = "calls"
			w.Scale = max(1, n/50)
		}
		out = append(out, w)
	}
	for _, n := range []int{1000, 10000, 100000} {
		var w *Workload
		if n == 10000 {
			w = std["repl"]
		} else {
			w = repl("repl"+strconv.Itoa(n/1000)+"k", n)
			w.Family = "repl"
			w.Scale = max(1, n/10000)
		}
		out = append(out, w)
	}
	return out
}

// IsStandard reports whether name is one of Workloads.
func IsStandard(name string) bool {
	for _, w := range Workloads() {
		if w.Name == name {
			return true
		}
	}
	return false
}

// Lookup finds a workload by name among the standard and sweep workloads
// ("repl10k" is another name for repl).
func Lookup(name string) (*Workload, bool) {
	if name == "repl10k" {
		name = "repl"
	}
	for _, w := range append(Workloads(), SweepWorkloads()...) {
		if w.Name == name {
			return w, true
		}
	}
	return nil, false
}

func trivial() *Workload {
	return &Workload{Name: "trivial", Code: "return 1 + 1", want: mustCanonical(2)}
}

// cents is what the workloads add up: ticker prices in whole cents, so the
// sum is exact in JavaScript and in Go.
func cents(symbol string) int64 {
	return int64(math.Round(fakemcp.PriceOf(symbol).Price * 100))
}

// callsWorkload makes n sequential awaited nested calls.
func callsWorkload(name string, n int) *Workload {
	code := fmt.Sprintf(`let cents = 0;
for (let i = 0; i < %d; i++) {
  const q = await tools[%q]({symbol: "S" + (i %% 50)});
  cents += Math.round(q.price * 100);
}
return {calls: %d, cents};`, n, ToolTicker, n)
	var sum int64
	for i := range n {
		sum += cents("S" + strconv.Itoa(i%50))
	}
	return &Workload{Name: name, Param: n, Code: code, Calls: n, want: mustCanonical(map[string]any{"calls": n, "cents": sum})}
}

// parallel makes n nested calls under Promise.all.
func parallel(n int) *Workload {
	code := fmt.Sprintf(`const qs = await Promise.all(Array.from({length: %d}, (_, i) => tools[%q]({symbol: "P" + i})));
return {calls: qs.length, cents: qs.reduce((a, q) => a + Math.round(q.price * 100), 0)};`, n, ToolTicker)
	var sum int64
	for i := range n {
		sum += cents("P" + strconv.Itoa(i))
	}
	return &Workload{Name: "parallel" + strconv.Itoa(n), Code: code, Calls: n, want: mustCanonical(map[string]any{"calls": n, "cents": sum})}
}

// cpu is recursive Fibonacci: pure interpretation, no calls, few objects.
func cpu(n int) *Workload {
	code := fmt.Sprintf(`function fib(n) { return n < 2 ? n : fib(n - 1) + fib(n - 2); }
return fib(%d);`, n)
	a, b := 0, 1
	for range n {
		a, b = b, a+b
	}
	return &Workload{Name: "cpu", Code: code, want: mustCanonical(a)}
}

// data builds n objects and runs filter/map/reduce over them, returning a
// JSON summary: allocation-heavy JavaScript.
func data(n int) *Workload {
	code := fmt.Sprintf(`const items = [];
for (let i = 0; i < %d; i++) items.push({id: i, group: i %% 7, value: (i * 37) %% 1000, tag: "t" + (i %% 13)});
const picked = items.filter(x => x.group === 3 && x.tag !== "t0").map(x => ({id: x.id, v: x.value * 2}));
const total = picked.reduce((a, x) => a + x.v, 0);
return JSON.parse(JSON.stringify({count: picked.length, total, first: picked.slice(0, 3).map(x => x.id)}));`, n)
	count, total := 0, 0
	var first []int
	for i := range n {
		if i%7 == 3 && i%13 != 0 {
			count++
			total += (i * 37) % 1000 * 2
			if len(first) < 3 {
				first = append(first, i)
			}
		}
	}
	return &Workload{Name: "data", Code: code, want: mustCanonical(map[string]any{"count": count, "total": total, "first": first})}
}

// repl is the reuse case. Setup loads n records into top-level state and
// indexes them by symbol; the query reads one symbol's records. In
// persistent mode Setup runs once per environment and each timed run is the
// query; in per-call mode nothing survives a run, so each run loads and
// indexes again before the same query.
func repl(name string, n int) *Workload {
	setup := fmt.Sprintf(`const records = [];
for (let i = 0; i < %d; i++) records.push({id: i, sym: "S" + (i %% 100), qty: (i * 7) %% 50, price: ((i * 37) %% 10000) / 100});
const bySym = {};
for (const r of records) { if (!bySym[r.sym]) bySym[r.sym] = []; bySym[r.sym].push(r); }
`, n)
	query := `const hits = bySym["S42"] || [];
return {records: records.length, hits: hits.length, qty: hits.reduce((a, r) => a + r.qty, 0)};`
	hits, qty := 0, 0
	for i := range n {
		if i%100 == 42 {
			hits++
			qty += (i * 7) % 50
		}
	}
	return &Workload{
		Name:    name,
		Param:   n,
		Setup:   setup + "return records.length;",
		Code:    query,
		PerCall: setup + query,
		want:    mustCanonical(map[string]any{"records": n, "hits": hits, "qty": qty}),
	}
}

// ParseWorkloads resolves a comma-separated list of names ("" means the
// standard set).
func ParseWorkloads(list string) ([]*Workload, error) {
	if strings.TrimSpace(list) == "" {
		return Workloads(), nil
	}
	var out []*Workload
	seen := map[string]bool{}
	for _, name := range strings.Split(list, ",") {
		name = strings.TrimSpace(name)
		if name == "" || seen[name] {
			continue
		}
		w, ok := Lookup(name)
		if !ok {
			return nil, fmt.Errorf("unknown workload %q (want one of %s)", name, strings.Join(Names(), ", "))
		}
		if seen[w.Name] {
			continue
		}
		seen[name], seen[w.Name] = true, true
		out = append(out, w)
	}
	return out, nil
}

// Names lists every workload name once, standard then sweep.
func Names() []string {
	var out []string
	seen := map[string]bool{}
	for _, w := range append(Workloads(), SweepWorkloads()...) {
		if !seen[w.Name] {
			seen[w.Name] = true
			out = append(out, w.Name)
		}
	}
	return out
}
