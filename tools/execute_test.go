package tools

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/codemode/codemode/tools/errs"
)

var echoSchema = json.RawMessage(`{"type":"object","properties":{"text":{"type":"string"},"n":{"type":"integer","minimum":0}},"required":["text"],"additionalProperties":false}`)

func echoTool() Tool {
	return Tool{Name: "echo", Description: "echoes", InputSchema: echoSchema, Handler: func(ctx context.Context, e *Execution) (*Result, error) {
		return &Result{Value: e.Arguments()}, nil
	}}
}

type harness struct {
	r      *Registry
	events []ResultEvent
	mu     sync.Mutex
	ran    int // body runs
	posts  int // post-execute runs
}

func newHarness(t *testing.T, opts Options, extra ...Tool) *harness {
	t.Helper()
	h := &harness{r: New(opts)}
	for _, tool := range append([]Tool{echoTool()}, extra...) {
		inner := tool.Handler
		tool.Handler = func(ctx context.Context, e *Execution) (*Result, error) {
			h.mu.Lock()
			h.ran++
			h.mu.Unlock()
			return inner(ctx, e)
		}
		if _, err := h.r.Register(GlobalLayer(), tool); err != nil {
			t.Fatal(err)
		}
	}
	h.r.OnResult(func(ev ResultEvent) { h.mu.Lock(); h.events = append(h.events, ev); h.mu.Unlock() })
	h.r.OnPostExecute(func(ctx context.Context, e *Execution, r *Result, next func() PostDecision) PostDecision {
		h.mu.Lock()
		h.posts++
		h.mu.Unlock()
		return next()
	})
	return h
}

func TestExecuteDecisions(t *testing.T) {
	slow := Tool{Name: "slow", Handler: func(ctx context.Context, e *Execution) (*Result, error) {
		<-ctx.Done()
		return nil, ctx.Err()
	}}
	stubborn := Tool{Name: "stubborn", Handler: func(ctx context.Context, e *Execution) (*Result, error) {
		time.Sleep(50 * time.Millisecond) // ignores ctx on purpose
		return TextResult("late"), nil
	}}
	panicky := Tool{Name: "panicky", Handler: func(ctx context.Context, e *Execution) (*Result, error) { panic("kaboom") }}
	failing := Tool{Name: "failing", Handler: func(ctx context.Context, e *Execution) (*Result, error) { return nil, errors.New("disk on fire") }}
	tests := []decisionCase{
		{name: "allow", in: Input{Name: "echo", Arguments: map[string]any{"text": "hi"}}, wantRan: true, wantVal: `{"text":"hi"}`, wantText: `{"text":"hi"}`},
		{name: "allow raw", in: Input{Name: "echo", Arguments: json.RawMessage(`{"text":"hi"}`)}, wantRan: true, wantVal: `{"text":"hi"}`},
		{name: "deny", pre: func(ctx context.Context, e *Execution, next func() Decision) Decision {
			return Deny{Reason: "STS-PROBE-DENY: blocked", Info: map[string]any{"code": "PROBE_DENY"}}
		}, in: Input{Name: "echo", Arguments: map[string]any{"text": "x"}}, wantCode: errs.CodeDenied, wantText: "Error: STS-PROBE-DENY: blocked"},
		{name: "cancel", pre: func(ctx context.Context, e *Execution, next func() Decision) Decision { return Cancel{} },
			in: Input{Name: "echo", Arguments: map[string]any{"text": "x"}}, wantCode: errs.CodeCancelled, wantText: "Error: cancelled"},
		{name: "ask approved", opts: Options{Approver: ApproveAll}, pre: func(ctx context.Context, e *Execution, next func() Decision) Decision { return Ask{Reason: "writes"} },
			in: Input{Name: "echo", Arguments: map[string]any{"text": "x"}}, wantRan: true, wantVal: `{"text":"x"}`},
		{name: "ask refused by default", pre: func(ctx context.Context, e *Execution, next func() Decision) Decision { return Ask{Reason: "writes"} },
			in: Input{Name: "echo", Arguments: map[string]any{"text": "x"}}, wantCode: errs.CodeDenied, wantText: "approval refused: writes"},
		{name: "approver error fails closed", opts: Options{Approver: ApproverFunc(func(context.Context, *Execution, string) (bool, error) { return true, errors.New("service down") })},
			pre: func(ctx context.Context, e *Execution, next func() Decision) Decision { return Ask{} },
			in:  Input{Name: "echo", Arguments: map[string]any{"text": "x"}}, wantCode: errs.CodeDenied, wantText: "service down"},
		{name: "approver's own denial passes as is", opts: Options{Approver: ApproverFunc(func(context.Context, *Execution, string) (bool, error) {
			return false, errs.Errorf(errs.CodeDenied, "the user declined (rule 2: writes files)")
		})},
			pre: func(ctx context.Context, e *Execution, next func() Decision) Decision { return Ask{} },
			in:  Input{Name: "echo", Arguments: map[string]any{"text": "x"}}, wantCode: errs.CodeDenied, wantText: "Error: the user declined (rule 2: writes files)"},
		{name: "guard deny survives a later allow", guard: func(e *Execution) string { return "guarded" },
			pre: func(ctx context.Context, e *Execution, next func() Decision) Decision { next(); return Allow{} },
			in:  Input{Name: "echo", Arguments: map[string]any{"text": "x"}}, wantCode: errs.CodeDenied, wantText: "Error: guarded"},
		{name: "post block", post: func(ctx context.Context, e *Execution, r *Result, next func() PostDecision) PostDecision {
			return Block{Feedback: []Content{Text{Text: "redacted by policy"}}}
		}, in: Input{Name: "echo", Arguments: map[string]any{"text": "x"}}, wantRan: true, wantCode: errs.CodeDenied, wantText: "redacted by policy"},
		{name: "post accept replaces value", post: func(ctx context.Context, e *Execution, r *Result, next func() PostDecision) PostDecision {
			return Accept{Value: json.RawMessage(`{"text":"rewritten"}`)}
		}, in: Input{Name: "echo", Arguments: map[string]any{"text": "x"}}, wantRan: true, wantVal: `{"text":"rewritten"}`},
		{name: "unknown with suggestion", in: Input{Name: "ecko"}, wantCode: errs.CodeUnknownTool, wantText: `did you mean "echo"`},
		{name: "invalid arguments names the path", in: Input{Name: "echo", Arguments: map[string]any{"text": "x", "n": -1}}, wantCode: errs.CodeInvalidArguments, wantText: "at arguments.n: minimum"},
		{name: "missing required", in: Input{Name: "echo", Arguments: map[string]any{}}, wantCode: errs.CodeInvalidArguments, wantText: "text"},
		{name: "extra property", in: Input{Name: "echo", Arguments: map[string]any{"text": "x", "zz": 1}}, wantCode: errs.CodeInvalidArguments, wantText: "zz"},
		{name: "wrong type", in: Input{Name: "echo", Arguments: map[string]any{"text": 5}}, wantCode: errs.CodeInvalidArguments, wantText: "at arguments.text: type"},
		{name: "non-serializable", in: Input{Name: "echo", Arguments: map[string]any{"text": "x", "f": func() {}}}, wantCode: errs.CodeInvalidArguments, wantText: "arguments.f: a value of type func()"},
		{name: "NaN", in: Input{Name: "echo", Arguments: map[string]any{"text": "x", "v": []any{math.NaN()}}}, wantCode: errs.CodeInvalidArguments, wantText: "arguments.v[0]: NaN"},
		{name: "not an object", in: Input{Name: "echo", Arguments: json.RawMessage(`[1]`)}, wantCode: errs.CodeInvalidArguments, wantText: "must be a JSON object"},
		{name: "bad json", in: Input{Name: "echo", Arguments: []byte(`{"text":`)}, wantCode: errs.CodeInvalidArguments, wantText: "not valid JSON"},
		{name: "body panic", in: Input{Name: "panicky"}, wantRan: true, wantCode: errs.CodeToolError, wantText: "kaboom"},
		{name: "body error", in: Input{Name: "failing"}, wantRan: true, wantCode: errs.CodeToolError, wantText: "Error: disk on fire"},
		{name: "deadline", in: Input{Name: "slow", Timeout: 20 * time.Millisecond}, wantRan: true, wantCode: errs.CodeTimeout, wantText: "timed out"},
		{name: "deadline with a body that ignores ctx", in: Input{Name: "stubborn", Timeout: time.Millisecond}, anyRan: true, wantCode: errs.CodeTimeout},
		{name: "cancellation", in: Input{Name: "slow"}, ctx: func() (context.Context, context.CancelFunc) {
			ctx, cancel := context.WithCancel(context.Background())
			go func() { time.Sleep(10 * time.Millisecond); cancel() }()
			return ctx, cancel
		}, wantRan: true, wantCode: errs.CodeCancelled},
		{name: "already cancelled", in: Input{Name: "echo", Arguments: map[string]any{"text": "x"}}, ctx: func() (context.Context, context.CancelFunc) {
			ctx, cancel := context.WithCancel(context.Background())
			cancel()
			return ctx, cancel
		}, wantCode: errs.CodeCancelled},
		{name: "listener panic fails closed", pre: func(ctx context.Context, e *Execution, next func() Decision) Decision { panic("bad listener") },
			in: Input{Name: "echo", Arguments: map[string]any{"text": "x"}}, wantCode: errs.CodeDenied, wantText: "bad listener"},
	}
	// Every case holds with the body on its own goroutine and inline (a
	// stubborn body then holds the caller, but the answer is the same).
	for _, inline := range []bool{false, true} {
		for _, tt := range tests {
			tt.in.Inline = inline
			name := tt.name
			if inline {
				name += "/inline"
			}
			t.Run(name, func(t *testing.T) { runDecisionCase(t, tt, slow, stubborn, panicky, failing) })
		}
	}
}

type decisionCase struct {
	name     string
	opts     Options
	pre      PreExecute
	guard    Guard
	post     PostExecute
	in       Input
	ctx      func() (context.Context, context.CancelFunc)
	wantCode errs.Code
	wantText string // substring of the result text
	wantRan  bool   // the body ran
	wantVal  string
	anyRan   bool // the body may or may not have started before the deadline
}

func runDecisionCase(t *testing.T, tt decisionCase, extra ...Tool) {
	h := newHarness(t, tt.opts, extra...)
	if tt.pre != nil {
		h.r.OnPreExecute(tt.pre)
	}
	if tt.guard != nil {
		h.r.OnGuard(tt.guard)
	}
	if tt.post != nil {
		h.r.OnPostExecute(tt.post)
	}
	ctx := context.Background()
	if tt.ctx != nil {
		var cancel context.CancelFunc
		ctx, cancel = tt.ctx()
		defer cancel()
	}
	tt.in.CallID = "call_1"
	res := h.r.Execute(ctx, tt.in)
	if tt.wantCode == "" {
		if res.IsError {
			t.Fatalf("got error %v, want success", res.Err)
		}
	} else {
		if !res.IsError || res.Err == nil || res.Err.Code != tt.wantCode {
			t.Fatalf("got %+v (err %v), want code %s", res, res.Err, tt.wantCode)
		}
		if res.Value != nil {
			t.Errorf("error result carries a value %s", res.Value)
		}
		if !strings.HasPrefix(res.TextOf(), "Error: ") && tt.name != "post block" {
			t.Errorf("got text %q, want an Error: prefix", res.TextOf())
		}
		if !errors.Is(res.Err, &errs.Error{Code: tt.wantCode}) {
			t.Errorf("errors.Is does not match the code")
		}
	}
	if tt.wantText != "" && !strings.Contains(res.TextOf(), tt.wantText) {
		t.Errorf("got text %q, want it to contain %q", res.TextOf(), tt.wantText)
	}
	if tt.wantVal != "" && string(res.Value) != tt.wantVal {
		t.Errorf("got value %s, want %s", res.Value, tt.wantVal)
	}
	h.mu.Lock()
	defer h.mu.Unlock()
	if !tt.anyRan && (h.ran > 0) != tt.wantRan {
		t.Errorf("body ran %d times, want ran=%v", h.ran, tt.wantRan)
	}
	wantPosts := 1
	if tt.wantCode == errs.CodeUnknownTool || tt.wantCode == errs.CodeInvalidArguments {
		wantPosts = 0 // resolution and validation failures precede the policy pipeline
	}
	if h.posts != wantPosts {
		t.Errorf("post-execute ran %d times, want %d", h.posts, wantPosts)
	}
	if len(h.events) != 1 || h.events[0].CallID != "call_1" || h.events[0].Code != tt.wantCode || h.events[0].RootCallID != "call_1" {
		t.Errorf("events: got %+v", h.events)
	}
}

func TestArgumentsImmutable(t *testing.T) {
	h := newHarness(t, Options{})
	args := map[string]any{"text": "original"}
	h.r.OnPreExecute(func(ctx context.Context, e *Execution, next func() Decision) Decision {
		b := e.Arguments()
		copy(b[len(`{"text":"`):], "XXXXXXXX") // scribble on the copy
		args["text"] = "mutated"               // and on the caller's map
		return next()
	})
	res := h.r.Execute(context.Background(), Input{CallID: "c", Name: "echo", Arguments: args})
	if string(res.Value) != `{"text":"original"}` {
		t.Fatalf("got %s, want the original arguments", res.Value)
	}
}

func TestNestedExecution(t *testing.T) {
	r := New(Options{})
	var inner struct {
		parentID, root string
		nested         bool
	}
	r.Register(GlobalLayer(), Tool{Name: "leaf", Handler: func(ctx context.Context, e *Execution) (*Result, error) {
		inner.parentID, inner.root, inner.nested = e.ParentCallID(), e.RootCallID(), !e.Parent().IsZero()
		return TextResult("leaf"), nil
	}})
	var stale Token
	r.Register(GlobalLayer(), Tool{Name: "outer", Handler: func(ctx context.Context, e *Execution) (*Result, error) {
		stale = e.Token()
		res := r.Execute(ctx, Input{CallID: e.CallID() + ":ptc:1", RootCallID: e.RootCallID(), Name: "leaf", Parent: e.Token(), Agent: e.Agent()})
		return res, nil
	}})
	var events []ResultEvent
	r.OnResult(func(ev ResultEvent) { events = append(events, ev) })
	res := r.Execute(context.Background(), Input{CallID: "root", Name: "outer"})
	if res.IsError || res.TextOf() != "leaf" {
		t.Fatalf("got %+v", res)
	}
	if inner.parentID != "root" || inner.root != "root" || !inner.nested {
		t.Fatalf("got %+v", inner)
	}
	if len(events) != 2 || events[0].CallID != "root:ptc:1" || events[0].ParentCallID != "root" || events[0].RootCallID != "root" {
		t.Fatalf("events: got %+v", events)
	}
	// A token of a finished execution no longer vouches for anything.
	res = r.Execute(context.Background(), Input{CallID: "late:ptc:1", Name: "leaf", Parent: stale})
	if res.Err == nil || res.Err.Code != errs.CodeDenied {
		t.Fatalf("stale parent: got %+v", res)
	}
	// Nor does a token of another registry.
	other := New(Options{})
	other.Register(GlobalLayer(), Tool{Name: "leaf", Handler: func(ctx context.Context, e *Execution) (*Result, error) { return nil, nil }})
	r.Register(GlobalLayer(), Tool{Name: "cross", Handler: func(ctx context.Context, e *Execution) (*Result, error) {
		return other.Execute(ctx, Input{CallID: "x", Name: "leaf", Parent: e.Token()}), nil
	}})
	res = r.Execute(context.Background(), Input{CallID: "c", Name: "cross"})
	if res.Err == nil || res.Err.Code != errs.CodeDenied {
		t.Fatalf("foreign parent: got %+v", res)
	}
}

func TestRegister(t *testing.T) {
	r := New(Options{})
	noop := func(ctx context.Context, e *Execution) (*Result, error) { return nil, nil }
	tests := []struct {
		name    string
		layer   Layer
		tool    Tool
		wantErr string
	}{
		{"ok", GlobalLayer(), Tool{Name: "a", Handler: noop}, ""},
		{"reserved", GlobalLayer(), Tool{Name: "run_code", Handler: noop}, "reserved"},
		{"duplicate in a layer", GlobalLayer(), Tool{Name: "a", Handler: noop}, "already registered"},
		{"same name in another layer", PresetLayer("p"), Tool{Name: "a", Handler: noop}, ""},
		{"empty", GlobalLayer(), Tool{Handler: noop}, "empty name"},
		{"no handler", GlobalLayer(), Tool{Name: "b"}, "no handler"},
		{"bad schema json", GlobalLayer(), Tool{Name: "c", Handler: noop, InputSchema: json.RawMessage(`{`)}, "input schema"},
		{"unresolvable schema", GlobalLayer(), Tool{Name: "d", Handler: noop, InputSchema: json.RawMessage(`{"$ref":"#/$defs/missing"}`)}, "input schema"},
	}
	for _, tt := range tests {
		_, err := r.Register(tt.layer, tt.tool)
		if (err == nil) != (tt.wantErr == "") || (err != nil && !strings.Contains(err.Error(), tt.wantErr)) {
			t.Errorf("%s: got %v, want %q", tt.name, err, tt.wantErr)
		}
	}
	rm, _ := r.Register(AgentLayer("a1"), Tool{Name: "team", Handler: noop})
	if _, ok := r.Lookup("team", &Agent{id: "a1", preset: "p"}); !ok {
		t.Fatal("agent tool not visible to its agent")
	}
	if _, ok := r.Lookup("team", &Agent{id: "a2", preset: "p"}); ok {
		t.Fatal("agent tool visible to another agent")
	}
	rm.Remove()
	if _, ok := r.Lookup("team", &Agent{id: "a1"}); ok {
		t.Fatal("removed tool still visible")
	}
	if !r.Owned("a", "p") == true && r.Owned("a", "p") {
		t.Fatal("unreachable")
	}
	if info, ok := r.GetIn("a", "p"); !ok || info.Layer != PresetLayer("p") {
		t.Fatalf("GetIn: got %+v", info)
	}
	if _, ok := r.Get("a"); !ok {
		t.Fatal("Get")
	}
	if got := len(r.List(&Agent{id: "a1", preset: "p"})); got != 1 {
		t.Fatalf("List: got %d tools, want 1 (preset shadows global)", got)
	}
}

func TestRegistrationUpdate(t *testing.T) {
	r := New(Options{})
	changes := 0
	stopWatching := r.OnChange(func(l Layer) {
		if l != GlobalLayer() {
			t.Errorf("OnChange: got layer %v, want global", l)
		}
		changes++
	})
	answer := func(v string) Handler {
		return func(ctx context.Context, e *Execution) (*Result, error) { return TextResult(v), nil }
	}
	g, err := r.Register(GlobalLayer(), Tool{Name: "t", Description: "v1", Handler: answer("1")})
	if err != nil {
		t.Fatal(err)
	}
	gen := r.Generation()
	if err := g.Update(Tool{Name: "t", Description: "v2", InputSchema: json.RawMessage(`{"type":"object","required":["x"]}`), Handler: answer("2")}); err != nil {
		t.Fatal(err)
	}
	if r.Generation() == gen {
		t.Error("Update did not move the generation")
	}
	if info, _ := r.Get("t"); info.Description != "v2" {
		t.Errorf("description: got %q", info.Description)
	}
	if res := r.Execute(context.Background(), Input{Name: "t"}); res.Err == nil || res.Err.Code != errs.CodeInvalidArguments {
		t.Errorf("the new schema is not enforced: %v", res.TextOf())
	}
	if res := r.Execute(context.Background(), Input{Name: "t", Arguments: map[string]any{"x": 1}}); res.TextOf() != "2" {
		t.Errorf("the new handler does not run: %q", res.TextOf())
	}
	for _, tt := range []struct {
		tool Tool
		want string
	}{
		{Tool{Name: "other", Handler: answer("x")}, "name cannot change"},
		{Tool{Name: "t"}, "no handler"},
		{Tool{Name: "t", Handler: answer("x"), InputSchema: json.RawMessage(`{`)}, "input schema"},
	} {
		if err := g.Update(tt.tool); err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("Update(%+v): got %v, want %q", tt.tool.Name, err, tt.want)
		}
	}
	if info, _ := r.Get("t"); info.Description != "v2" {
		t.Errorf("a refused update changed the tool: %q", info.Description)
	}
	g.Remove()
	g.Remove()
	if err := g.Update(Tool{Name: "t", Handler: answer("3")}); !errors.Is(err, ErrRemoved) {
		t.Errorf("Update after Remove: got %v, want ErrRemoved", err)
	}
	if _, ok := r.Get("t"); ok {
		t.Error("Update after Remove resurrected the tool")
	}
	if changes != 3 { // add, update, remove (refused updates and the second Remove do not count)
		t.Errorf("OnChange ran %d times, want 3", changes)
	}
	stopWatching()
	rm, _ := r.Register(GlobalLayer(), Tool{Name: "u", Handler: answer("u")})
	rm.Remove()
	if changes != 3 {
		t.Errorf("OnChange ran after its removal")
	}
}

// Update swaps a definition in one step: concurrent calls always find the
// tool, with the old or the new definition.
func TestRegistrationUpdateIsAtomic(t *testing.T) {
	r := New(Options{})
	answer := func(v string) Handler {
		return func(ctx context.Context, e *Execution) (*Result, error) { return TextResult(v), nil }
	}
	g, _ := r.Register(GlobalLayer(), Tool{Name: "t", Handler: answer("old")})
	var wg sync.WaitGroup
	stop := make(chan struct{})
	for range 2 {
		wg.Go(func() {
			for {
				select {
				case <-stop:
					return
				default:
				}
				if res := r.Execute(context.Background(), Input{Name: "t"}); res.IsError {
					t.Errorf("call during updates: %s", res.TextOf())
					return
				}
			}
		})
	}
	for i := range 2000 {
		if err := g.Update(Tool{Name: "t", Description: fmt.Sprint(i), Handler: answer(fmt.Sprint(i))}); err != nil {
			t.Fatal(err)
		}
	}
	close(stop)
	wg.Wait()
}

func TestErrors(t *testing.T) {
	tests := []struct {
		err  error
		want errs.Code
	}{
		{nil, ""},
		{errs.Errorf(errs.CodeTimeout, "x"), errs.CodeTimeout},
		{context.DeadlineExceeded, errs.CodeTimeout},
		{context.Canceled, errs.CodeCancelled},
		{errors.New("x"), errs.CodeToolError},
		{errors.Join(errors.New("a"), &errs.Error{Code: errs.CodeMemoryLimit}), errs.CodeMemoryLimit},
	}
	for _, tt := range tests {
		if got := errs.CodeOf(tt.err); got != tt.want {
			t.Errorf("CodeOf(%v): got %q, want %q", tt.err, got, tt.want)
		}
	}
	if !errors.Is(errs.Errorf(errs.CodeDenied, "no"), errs.ErrDenied) || errors.Is(errs.Errorf(errs.CodeDenied, "no"), errs.ErrTimeout) {
		t.Error("errors.Is by code")
	}
	if errs.AsError(nil) != nil || errs.AsError(errors.New("x")).Code != errs.CodeToolError || (&errs.Error{Code: errs.CodeInternal}).Error() != "INTERNAL" {
		t.Error("AsError")
	}
}

func TestSuggest(t *testing.T) {
	names := []string{"mcp__fake__ticker", "mcp__fake__echo", "code_run", "read_file"}
	tests := []struct {
		in   string
		want string
	}{
		{"ticker", "mcp__fake__ticker"},
		{"mcp__fake__tickr", "mcp__fake__ticker"},
		{"read", "read_file"},
		{"code-run", "code_run"},
	}
	for _, tt := range tests {
		got := errs.Suggest(tt.in, names, 3)
		if len(got) == 0 || got[0] != tt.want {
			t.Errorf("Suggest(%q): got %v, want %q first", tt.in, got, tt.want)
		}
	}
	if got := errs.Suggest("zzzzzz", names, 3); len(got) != 0 {
		t.Errorf("got %v, want none", got)
	}
}

// TestInputLimits: a name or arguments too large fail before anything
// costly runs (the name's suggestions, the arguments' parse), and the body
// never runs.
func TestInputLimits(t *testing.T) {
	big := strings.Repeat("x", 1<<20)
	tests := []struct {
		name string
		in   Input
		max  int
		want errs.Code
	}{
		{"3 MB tool name", Input{Name: strings.Repeat("echo", 3<<18)}, 0, errs.CodeUnknownTool},
		{"raw arguments over the limit", Input{Name: "echo", Arguments: json.RawMessage(`{"text":"` + big + `"}`)}, 1 << 20, errs.CodeArgumentsTooLarge},
		{"map arguments over the limit", Input{Name: "echo", Arguments: map[string]any{"text": big}}, 1 << 20, errs.CodeArgumentsTooLarge},
		{"bytes over the default limit", Input{Name: "echo", Arguments: []byte(`{"text":"` + strings.Repeat(big, 5) + `"}`)}, 0, errs.CodeArgumentsTooLarge},
		{"under the limit", Input{Name: "echo", Arguments: map[string]any{"text": big}}, 2 << 20, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			h := newHarness(t, Options{MaxArgumentBytes: tt.max})
			res := h.r.Execute(context.Background(), tt.in)
			if got := errs.CodeOf(res.Err); got != tt.want {
				t.Fatalf("got %q (%v), want %q", got, res.Err, tt.want)
			}
			if tt.want != "" && h.ran != 0 {
				t.Errorf("the body ran %d times, want 0", h.ran)
			}
			if tt.want == errs.CodeUnknownTool && res.Err.Info["suggestions"] != nil {
				t.Errorf("got suggestions %v for an overlong name", res.Err.Info["suggestions"])
			}
		})
	}
}
