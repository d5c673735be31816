package hostile

import (
	"encoding/json"
	"fmt"
	"io"
	"strings"
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
	writeSummary(w, rs)
	fmt.Fprintf(w, "\n## Every case\n\n")
	fmt.Fprintf(w, "| case | class | engine | transport | code | RSS Δ / budget | CPU after | response / budget | canary max (step) | pass |\n")
	fmt.Fprintf(w, "|---|---|---|---|---|---|---|---|---|---|\n")
	for _, r := range rs {
		can := "n/a"
		if c := r.Canary; c != nil {
			can = fmt.Sprintf("%.0f ms (+%.0f)", c.MaxMs, c.StepMs)
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
			if r.Engine == "goja" {
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
