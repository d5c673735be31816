package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"strings"
	"sync"
	"time"

	"github.com/codemode/codemode/codemode"
	"github.com/codemode/codemode/internal/human"
	"github.com/codemode/codemode/tools"
	"github.com/codemode/codemode/tools/errs"
)

// runJSON is the --json output of `codemode run`: exactly one object.
type runJSON struct {
	Value json.RawMessage `json:"value"`
	Logs  []logLine       `json:"logs"`
	Error *runError       `json:"error"`
	Calls []callJSON      `json:"calls"`
	Ms    float64         `json:"ms"`
}

type logLine struct {
	Level string `json:"level"`
	Text  string `json:"text"`
}

type runError struct {
	Code    errs.Code `json:"code"`
	Message string    `json:"message"`
}

type callJSON struct {
	ID    string     `json:"id"`
	Name  string     `json:"name"`
	Ms    float64    `json:"ms"`
	Error *errs.Code `json:"error"` // null on success
}

func cmdRun(ctx context.Context, env *cliEnv, args []string) int {
	var cf commonFlags
	var ff fixtureFlags
	var asJSON bool
	fs := newFlags(env, "run", "[flags] FILE|-")
	cf.register(fs)
	ff.register(fs)
	fs.BoolVar(&asJSON, "json", false, `print exactly one JSON object {"value","logs","error","calls","ms"} on stdout`)
	if code, ok := parseFlags(env, fs, args); !ok {
		return code
	}
	if fs.NArg() != 1 {
		fmt.Fprintln(env.stderr, "codemode run: want exactly one program file (or - for stdin)")
		fs.Usage()
		return exitUsage
	}
	code, err := readProgram(fs.Arg(0), env.stdin)
	if err != nil {
		fmt.Fprintf(env.stderr, "codemode run: %v\n", err)
		return exitUsage
	}
	cfg, _, err := cf.loadConfig()
	if err != nil {
		fmt.Fprintf(env.stderr, "codemode run: config: %v\n", err)
		return exitUsage
	}
	log, sync := newLogger(env.stderr, cf.verbose)
	defer sync()
	rec, err := ff.apply(cfg, log)
	if err != nil {
		fmt.Fprintf(env.stderr, "codemode run: %v\n", err)
		return exitUsage
	}
	a, err := newRecordingApp(ctx, cfg, log, rec)
	if err != nil {
		fmt.Fprintf(env.stderr, "codemode run: %v\n", err)
		return exitUsage
	}
	defer a.Close()
	setGoMemoryLimit(a.plugin.Runtime().Governor(), log)
	start := time.Now()
	res, calls := runProgram(ctx, a, code, !asJSON, env.stdout)
	if asJSON {
		return printJSON(env, res, calls, time.Since(start))
	}
	if res.IsError {
		fmt.Fprintln(env.stderr, res.TextOf())
		return exitFail
	}
	var out struct{ Value json.RawMessage }
	_ = json.Unmarshal(res.Value, &out)
	if out.Value != nil {
		fmt.Fprintln(env.stdout, pretty(out.Value))
	}
	return exitOK
}

func readProgram(path string, stdin io.Reader) (string, error) {
	if path == "-" {
		b, err := io.ReadAll(stdin)
		return string(b), err
	}
	b, err := os.ReadFile(path)
	return string(b), err
}

// runProgram runs code through code_run as a model's direct call would,
// collecting the nested calls from the registry's tool/result events.
// With stream set, console output is written to w as it happens.
func runProgram(ctx context.Context, a *app, code string, stream bool, w io.Writer) (*tools.Result, []callJSON) {
	agent, err := a.reg.NewAgent(a.preset, "cli")
	if err != nil {
		return &tools.Result{IsError: true, Err: errs.AsError(err)}, nil
	}
	defer agent.Scope().Dispose()
	const callID = "cli_1"
	var mu sync.Mutex
	calls := []callJSON{}
	remove := a.reg.OnResult(func(ev tools.ResultEvent) {
		if ev.RootCallID == callID && ev.ParentCallID != "" {
			mu.Lock()
			// A name past the registry's bound never resolved: keep it
			// from costing the output what the program could not.
			c := callJSON{ID: ev.CallID, Name: human.Cut(ev.Name, tools.MaxNameBytes), Ms: float64(ev.Duration.Microseconds()) / 1000}
			if ev.Code != "" {
				code := ev.Code
				c.Error = &code
			}
			calls = append(calls, c)
			mu.Unlock()
		}
	})
	defer remove()
	if stream {
		ctx = codemode.WithProgress(ctx, func(level, text string) {
			if level != "log" && level != "info" {
				text = "[" + level + "] " + text
			}
			fmt.Fprintln(w, text)
		})
	}
	res := a.reg.Execute(ctx, tools.Input{CallID: callID, Name: codemode.ToolCodeRun, Arguments: map[string]any{"code": code}, Agent: agent})
	mu.Lock()
	defer mu.Unlock()
	return res, append([]callJSON(nil), calls...)
}

func printJSON(env *cliEnv, res *tools.Result, calls []callJSON, elapsed time.Duration) int {
	out := runJSON{Logs: []logLine{}, Calls: calls, Value: json.RawMessage("null")}
	var sc struct {
		Value json.RawMessage `json:"value"`
		Logs  []logLine       `json:"logs"`
	}
	if res.IsError {
		out.Error = &runError{Code: res.Err.Code, Message: res.Err.Message}
		if logs, ok := res.Err.Info["logs"]; ok {
			b, _ := json.Marshal(logs)
			_ = json.Unmarshal(b, &out.Logs)
		}
	} else {
		_ = json.Unmarshal(res.Value, &sc)
		if sc.Value != nil {
			out.Value = sc.Value
		}
		if sc.Logs != nil {
			out.Logs = sc.Logs
		}
	}
	out.Ms = float64(elapsed.Microseconds()) / 1000
	enc := json.NewEncoder(env.stdout)
	if err := enc.Encode(out); err != nil {
		fmt.Fprintf(env.stderr, "codemode run: %v\n", err)
		return exitFail
	}
	if res.IsError {
		return exitFail
	}
	return exitOK
}

func pretty(v json.RawMessage) string {
	var s string
	if json.Unmarshal(v, &s) == nil {
		return s // a string value prints as itself
	}
	var b strings.Builder
	enc := json.NewEncoder(&b)
	enc.SetIndent("", "  ")
	var x any
	if json.Unmarshal(v, &x) != nil || enc.Encode(x) != nil {
		return string(v)
	}
	return strings.TrimRight(b.String(), "\n")
}
