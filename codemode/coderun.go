package codemode

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"time"

	"github.com/codemode/codemode/ptc"
	"github.com/codemode/codemode/runtime"
	"github.com/codemode/codemode/tools"
	"github.com/codemode/codemode/tools/errs"
)

var codeRunSchema = json.RawMessage(`{
  "type": "object",
  "properties": {
    "code": {"type": "string", "description": "The program: the body of an async JavaScript or TypeScript function."},
    "reset": {"type": "boolean", "description": "Persistent mode: start from a fresh environment."},
    "timeoutMs": {"type": "number", "minimum": 1, "description": "A time limit lower than the server's, in milliseconds."}
  },
  "required": ["code"],
  "additionalProperties": false
}`)

// codeRunOutputSchema is terse: clients list it with the tool, and the
// description already says what a result holds.
var codeRunOutputSchema = json.RawMessage(`{
  "type": "object",
  "properties": {
    "value": {},
    "logs": {"type": "array", "items": {"type": "object", "properties": {"level": {"type": "string"}, "text": {"type": "string"}}}},
    "reset": {"type": "string"}
  },
  "required": ["logs"]
}`)

type codeRunArgs struct {
	Code      string   `json:"code"`
	Reset     bool     `json:"reset"`
	TimeoutMs *float64 `json:"timeoutMs"`
}

// runOutput is code_run's structured content.
type runOutput struct {
	Value json.RawMessage `json:"value,omitempty"`
	Logs  []runtime.Log   `json:"logs"`
	Reset string          `json:"reset,omitempty"`
}

func (p *Plugin) codeRun(ctx context.Context, e *tools.Execution) (*tools.Result, error) {
	var args codeRunArgs
	if err := json.Unmarshal(e.Arguments(), &args); err != nil {
		return nil, &errs.Error{Code: errs.CodeInvalidArguments, Message: "code_run: " + err.Error()}
	}
	req := runtime.Request{
		Code:  args.Code,
		Tools: p.bindings(e.Agent()),
		Call:  ptc.New(p.reg, e, ptc.Options{Explain: p.explainer(e.Agent())}).Call,
	}
	if args.TimeoutMs != nil {
		d := time.Duration(*args.TimeoutMs * float64(time.Millisecond))
		if lim := p.rt.Limits().Timeout; d > lim {
			d = lim
		}
		req.Limits.Timeout = d
	}
	watches := p.observe(ctx, e, args.Code)
	req.OnLog = logTo(progressFrom(ctx), watches)
	owner := p.owner(e.Agent())
	if args.Reset {
		p.envs.Reset(owner)
	}
	out := p.envs.Run(ctx, owner, req)
	p.observed(watches, out)
	p.recordDebug(e.Agent(), args.Code, out)
	return renderOutcome(out, p.resetNote(out.ResetCause)), nil
}

// bindings are the names bound on `tools`: everything callable. Listing
// and sorting the registry on every run is a measurable share of a short
// program's cost, so the names are cached per view until the tool set
// changes.
func (p *Plugin) bindings(agent *tools.Agent) []string {
	var key bindingKey
	if agent != nil {
		key = bindingKey{agent.ID(), agent.Preset()}
	}
	gen := p.reg.Generation()
	p.mu.Lock()
	if c, ok := p.bindingCache[key]; ok && c.gen == gen {
		p.mu.Unlock()
		return c.names
	}
	p.mu.Unlock()
	infos := p.callable(agent)
	names := make([]string, len(infos))
	for i, in := range infos {
		names[i] = in.Name
	}
	p.mu.Lock()
	if len(p.bindingCache) >= maxBindingCache {
		clear(p.bindingCache) // a bound, not an LRU: agents come and go
	}
	p.bindingCache[key] = bindingEntry{gen: gen, names: names}
	p.mu.Unlock()
	return names
}

const maxBindingCache = 1024

// bindingKey is a view: an agent's id and preset.
type bindingKey struct{ id, preset string }

type bindingEntry struct {
	gen   uint64
	names []string // shared: never modified after caching
}

// owner is the state owner of agent's programs: the agent itself, the
// default of docs/contract.md#environments. Per-call mode, or a call without
// an agent, has no owner: each run gets a fresh environment.
func (p *Plugin) owner(agent *tools.Agent) runtime.Owner {
	if p.opts.Mode != runtime.ModePersistent || agent == nil {
		return runtime.Owner{}
	}
	return p.envs.Owner(agent.Scope(), provider)
}

// renderOutcome turns a run into code_run's result: console output, then
// the return value, as text; {value, logs} as structured content. A failure
// is an error result carrying the code, the message and the logs printed
// before it. A reset note, when there is one, is the text's first line and
// the structured content's (or the error's Info's) "reset".
func renderOutcome(out runtime.Outcome, resetNote string) *tools.Result {
	logs := out.Logs
	if logs == nil {
		logs = []runtime.Log{}
	}
	var b strings.Builder
	if resetNote != "" {
		b.WriteString(resetNote + "\n")
	}
	for _, l := range logs {
		if l.Level != "log" && l.Level != "info" {
			b.WriteString("[" + l.Level + "] ")
		}
		b.WriteString(l.Text)
		b.WriteByte('\n')
	}
	if out.Err != nil {
		err := *out.Err
		info := make(map[string]any, len(out.Err.Info)+1)
		for k, v := range out.Err.Info {
			info[k] = v
		}
		info["logs"] = logs // the run's own: nothing a program threw replaces them
		if resetNote != "" {
			info["reset"] = resetNote
		}
		err.Info = info
		fmt.Fprintf(&b, "Error: [%s] %s", err.Code, err.Message)
		if line, ok := info["line"]; ok {
			fmt.Fprintf(&b, " (program.js:%v:%v)", line, info["column"])
		}
		if out.Err.Code == errs.CodeRuntimeError {
			if st, _ := info["stack"].(string); st != "" && !strings.Contains(err.Message, st) {
				b.WriteString("\n" + st)
			}
		}
		return &tools.Result{Content: []tools.Content{tools.Text{Text: b.String()}}, IsError: true, Err: &err}
	}
	if out.Value != nil {
		b.Write(out.Value)
	} else if len(logs) == 0 {
		b.WriteString("undefined")
	}
	sc, _ := json.Marshal(runOutput{Value: out.Value, Logs: logs, Reset: resetNote})
	return &tools.Result{Content: []tools.Content{tools.Text{Text: strings.TrimRight(b.String(), "\n")}}, Value: sc}
}
