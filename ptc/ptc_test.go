package ptc_test

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"sync"
	"testing"

	"github.com/codemode/codemode/ptc"
	"github.com/codemode/codemode/runtime"
	"github.com/codemode/codemode/scope"
	"github.com/codemode/codemode/tools"
	"github.com/codemode/codemode/tools/errs"
)

// TestNestedCallsThroughThePipeline runs a real program whose bindings go
// through the registry, and checks what the pipeline saw.
func TestNestedCallsThroughThePipeline(t *testing.T) {
	reg := tools.New(tools.Options{})
	reg.Register(tools.GlobalLayer(), tools.Tool{Name: "structured", Handler: func(ctx context.Context, e *tools.Execution) (*tools.Result, error) {
		return &tools.Result{Value: e.Arguments()}, nil
	}})
	reg.Register(tools.GlobalLayer(), tools.Tool{Name: "text", Handler: func(ctx context.Context, e *tools.Execution) (*tools.Result, error) {
		return tools.TextResult("plain"), nil
	}})
	reg.Register(tools.GlobalLayer(), tools.Tool{Name: "forbidden", Handler: func(ctx context.Context, e *tools.Execution) (*tools.Result, error) {
		t.Error("a denied tool ran")
		return nil, nil
	}})
	type seen struct {
		callID, root, parent, agent string
		nested                      bool
	}
	var mu sync.Mutex
	var calls []seen
	reg.OnPreExecute(func(ctx context.Context, e *tools.Execution, next func() tools.Decision) tools.Decision {
		mu.Lock()
		calls = append(calls, seen{e.CallID(), e.RootCallID(), e.ParentCallID(), e.Agent().ID(), !e.Parent().IsZero()})
		mu.Unlock()
		if e.Name() == "forbidden" {
			return tools.Deny{Reason: "policy says no"}
		}
		return next()
	})
	rt, err := runtime.New(runtime.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer rt.Close()
	var out runtime.Outcome
	reg.Register(tools.GlobalLayer(), tools.Tool{Name: "program", Handler: func(ctx context.Context, e *tools.Execution) (*tools.Result, error) {
		c := ptc.New(reg, e, ptc.Options{})
		out = rt.Run(ctx, runtime.Request{Code: `
const a = await tools.structured({ x: 1 });
const b = await tools.text({});
let denied;
try { await tools.forbidden({}) } catch (err) { denied = err.code + ": " + err.message }
return { a, b, denied };`, Tools: []string{"structured", "text", "forbidden"}, Call: c.Call})
		return &tools.Result{Value: out.Value}, nil
	}})
	host := scope.NewHost("host")
	defer host.Dispose()
	agent, err := reg.NewAgent(host, "agent-1")
	if err != nil {
		t.Fatal(err)
	}
	res := reg.Execute(context.Background(), tools.Input{CallID: "root", Name: "program", Agent: agent})
	if res.IsError {
		t.Fatal(res.Err)
	}
	if want := `{"a":{"x":1},"b":"plain","denied":"DENIED: policy says no"}`; string(res.Value) != want {
		t.Fatalf("got %s, want %s", res.Value, want)
	}
	want := []seen{
		{"root", "root", "", "agent-1", false},
		{"root:ptc:1", "root", "root", "agent-1", true},
		{"root:ptc:2", "root", "root", "agent-1", true},
		{"root:ptc:3", "root", "root", "agent-1", true},
	}
	if len(calls) != len(want) {
		t.Fatalf("got %+v", calls)
	}
	for i := range want {
		if calls[i] != want[i] {
			t.Errorf("call %d: got %+v, want %+v", i, calls[i], want[i])
		}
	}
	var ids []string
	for _, c := range out.Calls {
		ids = append(ids, c.ID+"/"+string(c.Code))
	}
	if got, _ := json.Marshal(ids); string(got) != `["root:ptc:1/","root:ptc:2/","root:ptc:3/DENIED"]` {
		t.Errorf("call records: got %s", got)
	}
}

func TestCallDirect(t *testing.T) {
	reg := tools.New(tools.Options{})
	var parent *tools.Execution
	done := make(chan struct{})
	release := make(chan struct{})
	reg.Register(tools.GlobalLayer(), tools.Tool{Name: "parent", Handler: func(ctx context.Context, e *tools.Execution) (*tools.Result, error) {
		parent = e
		close(done)
		<-release
		return nil, nil
	}})
	go reg.Execute(context.Background(), tools.Input{CallID: "p", RootCallID: "r", Name: "parent"})
	<-done
	c := ptc.New(reg, parent, ptc.Options{})
	id, _, err := c.Call(context.Background(), "nope", json.RawMessage(`{}`))
	var te *errs.Error
	if id != "p:ptc:1" || !errors.As(err, &te) || te.Code != errs.CodeUnknownTool {
		t.Fatalf("got %q %v", id, err)
	}
	close(release)
}

// TestValue: what a binding resolves to, for each shape of result.
func TestValue(t *testing.T) {
	tests := []struct {
		name string
		res  *tools.Result
		want string
	}{
		{"structured content wins", &tools.Result{Value: json.RawMessage(`{"a":1}`), Content: []tools.Content{tools.Text{Text: `{"b":2}`}}}, `{"a":1}`},
		{"JSON object as text is parsed", tools.TextResult(` {"items": [1, 2]} `), `{"items": [1, 2]}`},
		{"JSON array as text is parsed", tools.TextResult(`[{"id":"x"}]`), `[{"id":"x"}]`},
		{"a JSON string stays text", tools.TextResult(`"quoted"`), `"\"quoted\""`},
		{"a number stays text", tools.TextResult(`42`), `"42"`},
		{"broken JSON stays text", tools.TextResult(`{"a":`), `"{\"a\":"`},
		{"plain text", tools.TextResult("hello"), `"hello"`},
		{"text blocks are joined", &tools.Result{Content: []tools.Content{tools.Text{Text: "a"}, tools.Text{Text: "b"}}}, `"a\nb"`},
		{"no content", &tools.Result{}, `""`},
		{"an image makes the MCP shape", &tools.Result{Content: []tools.Content{tools.Text{Text: "chart"}, tools.Image{Data: []byte{1, 2}, MIMEType: "image/png"}}},
			`{"content":[{"type":"text","text":"chart"},{"type":"image","data":"AQI=","mimeType":"image/png"}]}`},
	}
	for _, tt := range tests {
		if got := string(ptc.Value(tt.res)); got != tt.want {
			t.Errorf("%s: got %s, want %s", tt.name, got, tt.want)
		}
	}
}

// TestExplainAndRaw: Explain rewords a failed call's error for Call and
// Raw alike; Raw returns the whole result.
func TestExplainAndRaw(t *testing.T) {
	reg := tools.New(tools.Options{})
	reg.Register(tools.GlobalLayer(), tools.Tool{Name: "img", Handler: func(ctx context.Context, e *tools.Execution) (*tools.Result, error) {
		return &tools.Result{Content: []tools.Content{tools.Image{Data: []byte("x"), MIMEType: "image/gif"}}}, nil
	}})
	var parent *tools.Execution
	done, release := make(chan struct{}), make(chan struct{})
	reg.Register(tools.GlobalLayer(), tools.Tool{Name: "parent", Handler: func(ctx context.Context, e *tools.Execution) (*tools.Result, error) {
		parent = e
		close(done)
		<-release
		return nil, nil
	}})
	go reg.Execute(context.Background(), tools.Input{CallID: "p", Name: "parent"})
	<-done
	defer close(release)
	c := ptc.New(reg, parent, ptc.Options{Explain: func(name string, err *errs.Error) *errs.Error {
		return &errs.Error{Code: err.Code, Message: err.Message + " (explained for " + name + ")"}
	}})
	if _, _, err := c.Call(context.Background(), "nope", json.RawMessage(`{}`)); err == nil || !strings.HasSuffix(err.Error(), "(explained for nope)") {
		t.Errorf("Call: got %v, want the explained error", err)
	}
	id, res := c.Raw(context.Background(), "nope", json.RawMessage(`{}`))
	if id != "p:ptc:2" || !res.IsError || res.Err.Code != errs.CodeUnknownTool || !strings.HasSuffix(res.Err.Message, "(explained for nope)") {
		t.Errorf("Raw of a failed call: got %s %+v", id, res.Err)
	}
	if _, res := c.Raw(context.Background(), "img", json.RawMessage(`{}`)); res.IsError || len(res.Content) != 1 {
		t.Errorf("Raw: got %+v, want the image block", res)
	}
}
