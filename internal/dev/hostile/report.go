package hostile

import (
	"encoding/json"
	"fmt"
	"io"
	"sort"
	"strings"

	"github.com/codemode/codemode/runtime"
)

// Header describes a run for the report.
type Header struct {
	Date    string `json:"date"`
	Command string `json:"command"`
	Commit  string `json:"commit"`
	Machine string `json:"machine"`
	Memory  int64  `json:"memoryBudget"`
	Timeout string `json:"timeout"`
	Result  int64  `json:"resultAndLogBytes"`
}

// Report is the JSON form of a run.
type Report struct {
	Header  Header   `json:"header"`
	Results []Result `json:"results"`
}

// WriteJSON writes the report as indented JSON.
func WriteJSON(w io.Writer, h Header, rs []Result) error {
	e := json.NewEncoder(w)
	e.SetIndent("", "  ")
	return e.Encode(Report{Header: h, Results: rs})
}

var targetNames = []string{"survive", "rss", "cpu", "response", "canary", "code"}

// WriteMarkdown writes the summary and the table.
func WriteMarkdown(w io.Writer, h Header, rs []Result) {
	fmt.Fprintf(w, "# Hostile suite (issue 18)\n\n")
	fmt.Fprintf(w, "*Measured %s on %s, commit %s, with:*\n\n    %s\n\n", h.Date, h.Machine, h.Commit, h.Command)
	fmt.Fprintf(w, "Every case runs on a fresh server (or `run` process) with `memory` %s, `timeout` %s (unless the case sets one), "+
		"`maxResultBytes` and `maxLogBytes` %s each (so the response budget is %s), the fake MCP server as upstream. "+
		"Cases are data: `internal/dev/hostile/testdata/cases.txtar`.\n\n",
		sizeStr(h.Memory), h.Timeout, sizeStr(h.Result), sizeStr(2*h.Result))
	fmt.Fprintf(w, "Targets (issue 18): the server survives; peak RSS minus the idle server's RSS ≤ %.0f× the budget on goja, ≤ %.2f× on wazero; "+
		"CPU burnt in the %s after the answer (minus the canary's own rate) ≤ %s; response (result JSON plus progress notifications) ≤ budget + 4 KiB; "+
		"the canary (another session running a nested upstream call every 100 ms) sees no error and no latency step > %s; "+
		"and the answer has one of the codes the case allows (`code`).\n\n",
		RSSFactorGoja, RSSFactorWazero, "2 s", MaxCPUAfter, MaxCanaryStep)
	fmt.Fprintf(w, "How: peak RSS is the server's VmHWM after resetting it (clear_refs 5) once the canary is warm, or the highest VmRSS sampled every 10 ms; "+
		"the baseline subtracted is the server's VmRSS just before the case (for `run`, the peak of a run of `return 1`). "+
		"CPU after is utime+stime of the server from the answer to 2 s later, minus the canary's rate measured before the case (for `run`, until the process exits; "+
		"\"lingered\" when it was still running 2 s after its answer and was killed). "+
		"The canary: over HTTP a session of its own; over stdio (one client per process) concurrent `code_run` calls in the same session "+
		"(go-sdk serves calls concurrently; the driver's client frames messages with codemode's own stdiox, which writes a request's params as they are, "+
		"where the SDK's writer compacts them again under the session's write lock), and none for persistent cases, where it would share the agent's environment; none for `run --json`, a process per program. "+
		"Its step is its largest latency during the case minus its median before; \"warm-up\" is the largest step seen before the case, the loaded machine's own noise.\n\n")
	writeSummary(w, rs)
	fmt.Fprintf(w, "\n## Every case\n\n")
	fmt.Fprintf(w, "| case | class | engine | transport | code | RSS Δ / budget | CPU after | response / budget | canary max (step) | pass |\n")
	fmt.Fprintf(w, "|---|---|---|---|---|---|---|---|---|---|\n")
	for _, r := range rs {
		can := "n/a"
		if r.Transport == Stdio {
			can = "n/a (one agent)"
		}
		if c := r.Canary; c != nil {
			can = fmt.Sprintf("%.0f ms (+%.0f; warm-up +%.0f)", c.MaxMs, c.StepMs, c.NoiseMs)
			if c.Errors > 0 {
				can += fmt.Sprintf(", %d/%d errors", c.Errors, c.Runs)
			}
		}
		if r.Then != "" {
			can += ", then " + r.Then
		}
		pass := "✅"
		if !r.Pass() {
			pass = "❌ " + strings.Join(r.Fail, ", ")
		}
		code := r.Code
		if len(r.Codes) > 1 {
			code = strings.Join(r.Codes, " ")
		}
		if !r.Survived {
			code += " (" + r.Crash + ")"
		}
		cpu := fmt.Sprintf("%.2f s", r.CPUAfter)
		if r.Lingered {
			cpu += " (lingered)"
		}
		resp := fmt.Sprintf("%s (%.2f)", sizeStr(int64(r.Bytes)), float64(r.Bytes)/float64(r.ResponseBudget))
		if r.Progress > 0 {
			resp += fmt.Sprintf(", %d progress", r.Progress)
		}
		fmt.Fprintf(w, "| %s | %d | %s | %s | %s | %.2f (%s) | %s | %s | %s | %s |\n",
			r.Case, r.Class, r.Engine, r.Transport, mdEscape(code), r.RSSRatio, sizeStr(max(0, r.PeakRSS-r.BaselineRSS)), cpu, resp, can, pass)
	}
}

func writeSummary(w io.Writer, rs []Result) {
	fmt.Fprintf(w, "## Summary\n\n%d case runs, %d pass every target.\n\n", len(rs), countPass(rs))
	fmt.Fprintf(w, "| target | goja pass | wazero pass |\n|---|---|---|\n")
	for _, t := range targetNames {
		var g, gn, z, zn int
		for _, r := range rs {
			ok := !contains(r.Fail, t)
			if t == "canary" && r.Canary == nil && r.Then == "" {
				continue
			}
			if r.Engine == runtime.EngineGoja {
				gn++
				if ok {
					g++
				}
			} else {
				zn++
				if ok {
					z++
				}
			}
		}
		fmt.Fprintf(w, "| %s | %d / %d | %d / %d |\n", t, g, gn, z, zn)
	}
	var canFail, noisy int
	for _, r := range rs {
		if c := r.Canary; c != nil && contains(r.Fail, "canary") && c.Errors == 0 && (r.Then == "" || r.Then == "OK") {
			canFail++
			if c.StepMs <= c.NoiseMs+float64(MaxCanaryStep.Milliseconds()) {
				noisy++
			}
		}
	}
	if canFail > 0 {
		fmt.Fprintf(w, "\nOf the %d canary failures by latency alone, %d had a step within 100 ms of the largest step the canary saw before the case (the loaded machine's noise, not necessarily the case).\n", canFail, noisy)
	}
	fmt.Fprintf(w, "\nFailing case runs by class:\n\n")
	byClass := map[int][]string{}
	for _, r := range rs {
		if !r.Pass() {
			byClass[r.Class] = append(byClass[r.Class], fmt.Sprintf("%s (%s/%s: %s)", r.Case, r.Engine, r.Transport, strings.Join(r.Fail, ",")))
		}
	}
	for cl := 1; cl <= 5; cl++ {
		fmt.Fprintf(w, "- class %d: %d failing", cl, len(byClass[cl]))
		if len(byClass[cl]) > 0 {
			fmt.Fprintf(w, ": %s", strings.Join(byClass[cl], "; "))
		}
		fmt.Fprintln(w)
	}
	// One cause, one code (issue 18): the cases whose engines disagree.
	codes := map[string]map[string]bool{}
	var order []string
	for _, r := range rs {
		k := r.Case
		if codes[k] == nil {
			codes[k] = map[string]bool{}
			order = append(order, k)
		}
		codes[k][r.Engine+" "+r.Code] = true
	}
	var differ []string
	for _, k := range order {
		byEngine := map[string][]string{}
		for ec := range codes[k] {
			e, c, _ := strings.Cut(ec, " ")
			byEngine[e] = append(byEngine[e], c)
		}
		if len(byEngine) < 2 {
			continue
		}
		var parts []string
		same := true
		var first string
		for _, e := range runtime.Engines() {
			cs := byEngine[e]
			sort.Strings(cs)
			j := strings.Join(cs, "/")
			if first == "" {
				first = j
			} else if j != first {
				same = false
			}
			parts = append(parts, e+" "+j)
		}
		if !same {
			differ = append(differ, fmt.Sprintf("%s (%s)", k, strings.Join(parts, ", ")))
		}
	}
	fmt.Fprintf(w, "\nCases whose code differs between the engines (one cause should have one code): %d", len(differ))
	if len(differ) > 0 {
		fmt.Fprintf(w, ": %s", mdEscape(strings.Join(differ, "; ")))
	}
	fmt.Fprintln(w)
}

func countPass(rs []Result) int {
	n := 0
	for _, r := range rs {
		if r.Pass() {
			n++
		}
	}
	return n
}

func contains(xs []string, s string) bool {
	for _, x := range xs {
		if x == s {
			return true
		}
	}
	return false
}

func mdEscape(s string) string {
	return strings.NewReplacer("|", "\\|", "\n", " ").Replace(s)
}

func sizeStr(n int64) string {
	switch {
	case n >= 1<<30:
		return fmt.Sprintf("%.1f GiB", float64(n)/(1<<30))
	case n >= 1<<20:
		return fmt.Sprintf("%.1f MiB", float64(n)/(1<<20))
	case n >= 1<<10:
		return fmt.Sprintf("%.1f KiB", float64(n)/(1<<10))
	}
	return fmt.Sprintf("%d B", n)
}
