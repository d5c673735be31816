package tools

import (
	"context"
	"encoding/json"
	"testing"
)

// FuzzExecuteArguments feeds arbitrary argument bytes through snapshot and
// validation: whatever comes in, Execute returns a result (never panics),
// a success echoes JSON that is the snapshot, and a failure has a code.
func FuzzExecuteArguments(f *testing.F) {
	for _, s := range []string{`{}`, `{"text":"hi"}`, `{"text":"x","n":3}`, `[]`, `null`, `{"text":1}`, `{"text":"\u0000"}`, `{`, ``, `{"text":"x","n":1e400}`} {
		f.Add([]byte(s))
	}
	r := New(Options{})
	if _, err := r.Register(GlobalLayer(), echoTool()); err != nil {
		f.Fatal(err)
	}
	f.Fuzz(func(t *testing.T, args []byte) {
		res := r.Execute(context.Background(), Input{CallID: "f", Name: "echo", Arguments: json.RawMessage(args)})
		if res == nil {
			t.Fatal("nil result")
		}
		if res.IsError {
			if res.Err == nil || res.Err.Code == "" {
				t.Fatalf("error without code: %+v", res)
			}
			return
		}
		if !json.Valid(res.Value) {
			t.Fatalf("success with invalid JSON value %q", res.Value)
		}
		var m map[string]any
		if err := json.Unmarshal(res.Value, &m); err != nil {
			t.Fatalf("value is not an object: %v", err)
		}
		if _, ok := m["text"].(string); !ok {
			t.Fatalf("schema let %s through", res.Value)
		}
	})
}
