package bench

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"sync/atomic"

	"github.com/codemode/codemode/codemode"
	"github.com/codemode/codemode/internal/config"
	"github.com/codemode/codemode/internal/dev/fakemcp"
	"github.com/codemode/codemode/internal/edge/upstream"
	"github.com/codemode/codemode/runtime"
	"github.com/codemode/codemode/scope"
	"github.com/codemode/codemode/tools"
)

// Modes as the bench names them (the table's words); see codemode.Mode for
// what they mean.
const (
	ModePerCall    = "per-call"
	ModePersistent = "persistent"
)

// target runs code_run programs for a number of agents. Runs of one agent
// are never concurrent (the runner gives each worker its own agent), which
// is what persistent mode requires of an owner anyway.
type target interface {
	// run runs code as agent i's code_run and returns the program's value.
	run(ctx context.Context, agent int, code string) (json.RawMessage, error)
	close()
}

// stack is the full in-process stack users get: a host, the fake MCP
// server's tools registered as Go tools in the global layer, the code-mode
// preset mounted with an engine and a mode, and one agent per worker.
// Every run is a code_run through Registry.Execute, so nested calls take
// the registry's whole pipeline (ptc).
type stack struct {
	host     *scope.Scope
	reg      *tools.Registry
	plugin   *codemode.Plugin
	rt       *runtime.Runtime
	upstream *upstream.Manager // fixture workloads only
	agents   []*tools.Agent
	seq      atomic.Int64
}

// checkEngine reports whether engine can be created here; the error says
// why not (the wazero artifact missing, say).
func checkEngine(engine string) error {
	rt, err := runtime.New(runtime.Options{Engine: engine, PoolSize: 1})
	if err != nil {
		return err
	}
	return rt.Close()
}

// newStack builds the stack. With fixtures (server name → recording), the
// tools are those recordings, mounted in process through the upstream
// package as a {"fixture": …} config server is; else the fake's Go tools.
func newStack(engine, mode string, agents int, fixtures map[string]string) (*stack, error) {
	m := runtime.ModePerCall
	if mode == ModePersistent {
		m = runtime.ModePersistent
	}
	rt, err := runtime.New(runtime.Options{Engine: engine})
	if err != nil {
		return nil, err
	}
	s := &stack{host: scope.NewHost("host"), reg: tools.New(tools.Options{}), rt: rt}
	if len(fixtures) > 0 {
		servers := map[string]config.Server{}
		for name, path := range fixtures {
			servers[name] = config.Server{Fixture: path}
		}
		m, err := upstream.Start(context.Background(), s.reg, servers, upstream.Options{})
		if err == nil {
			err = readyAll(m)
		}
		if err != nil {
			if m != nil {
				m.Close()
			}
			s.host.Dispose()
			rt.Close()
			return nil, err
		}
		s.upstream = m
	} else if err := registerFakeTools(s.reg); err != nil {
		s.host.Dispose()
		rt.Close()
		return nil, err
	}
	preset := s.host.Child(scope.KindPreset, "codemode")
	// No idle expiry: a slow row must not lose its state half-way (and
	// there is then no sweeper goroutine to stop).
	p, err := codemode.Mount(s.reg, preset, codemode.Options{Runtime: rt, Mode: m, MaxEnvironments: max(64, agents), IdleTTL: -1})
	if err != nil {
		s.host.Dispose()
		rt.Close()
		return nil, err
	}
	s.plugin = p
	for i := range agents {
		a, err := s.reg.NewAgent(preset, "bench-"+strconv.Itoa(i))
		if err != nil {
			s.close()
			return nil, err
		}
		s.agents = append(s.agents, a)
	}
	return s, nil
}

func (s *stack) run(ctx context.Context, agent int, code string) (json.RawMessage, error) {
	id := "bench-" + strconv.FormatInt(s.seq.Add(1), 10)
	res := s.reg.Execute(ctx, tools.Input{
		CallID:    id,
		Name:      codemode.ToolCodeRun,
		Arguments: map[string]any{"code": code},
		Agent:     s.agents[agent],
	})
	if res.IsError {
		return nil, fmt.Errorf("code_run: %s", res.TextOf())
	}
	return codeRunValue(res.Value)
}

// codeRunValue extracts value from code_run's structured {value, logs}.
func codeRunValue(structured json.RawMessage) (json.RawMessage, error) {
	var out struct {
		Value json.RawMessage `json:"value"`
	}
	if err := json.Unmarshal(structured, &out); err != nil {
		return nil, fmt.Errorf("code_run: structured content %.200q: %w", structured, err)
	}
	if out.Value == nil {
		return nil, errors.New("code_run: the program returned nothing")
	}
	return out.Value, nil
}

func (s *stack) close() {
	// Disposing the plugin releases every persistent environment; the
	// runtime is ours (Options.Runtime), so it is closed here, last.
	s.plugin.Close()
	if s.upstream != nil {
		s.upstream.Close()
	}
	s.host.Dispose()
	s.rt.Close()
}

// readyAll reports why a server of m is not ready (a recording that does
// not parse, say), or nil.
func readyAll(m *upstream.Manager) error {
	for _, st := range m.Status() {
		if st.State != upstream.StateReady {
			return fmt.Errorf("recording of %q: %s", st.Name, st.LastError)
		}
	}
	return nil
}

// Schemas of the fake MCP server's tools (internal/dev/fakemcp), so that the
// in-process tools validate exactly what the real ones do.
var (
	tickerSchema = json.RawMessage(`{"type":"object","properties":{"symbol":{"type":"string","minLength":1}},"required":["symbol"],"additionalProperties":false}`)
	echoSchema   = json.RawMessage(`{"type":"object","properties":{"text":{"type":"string"}},"required":["text"]}`)
)

// registerFakeTools registers Go equivalents of the fake MCP server's
// ticker and echo in the global layer, under the names an upstream server
// called "fake" gets, so in-process numbers measure codemode and not a
// pipe.
func registerFakeTools(reg *tools.Registry) error {
	if _, err := reg.Register(tools.GlobalLayer(), tools.Tool{
		Name:        ToolTicker,
		Description: "Look up the current price of a stock ticker symbol (fake, deterministic).",
		InputSchema: tickerSchema,
		Handler: func(ctx context.Context, e *tools.Execution) (*tools.Result, error) {
			var in struct {
				Symbol string `json:"symbol"`
			}
			if err := json.Unmarshal(e.Arguments(), &in); err != nil {
				return nil, err
			}
			return tools.ValueResult(fakemcp.PriceOf(in.Symbol))
		},
	}); err != nil {
		return fmt.Errorf("registering %s: %w", ToolTicker, err)
	}
	if _, err := reg.Register(tools.GlobalLayer(), tools.Tool{
		Name:        ToolEcho,
		Description: "Return the given text.",
		InputSchema: echoSchema,
		Handler: func(ctx context.Context, e *tools.Execution) (*tools.Result, error) {
			var in struct {
				Text string `json:"text"`
			}
			if err := json.Unmarshal(e.Arguments(), &in); err != nil {
				return nil, err
			}
			return tools.ValueResult(map[string]string{"text": in.Text})
		},
	}); err != nil {
		return fmt.Errorf("registering %s: %w", ToolEcho, err)
	}
	return nil
}
