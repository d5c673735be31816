package codemode

import (
	"encoding/json"
	"testing"

	"github.com/codemode/codemode/runtime"
)

// TestStructuredAsMarshal: code_run's structured content, written directly
// for a value without logs, is json.Marshal's text of it.
func TestStructuredAsMarshal(t *testing.T) {
	for _, c := range []struct {
		value string
		logs  []runtime.Log
		reset string
	}{
		{value: ""}, {value: "2"}, {value: `"s"`}, {value: `{"a":[1,2,{"b":null}]}`}, {value: `"<b>&amp;"`},
		{value: "\"\u2028\u2029\""}, {value: `"\ud800"`}, {value: `"é"`},
		{value: "1", logs: []runtime.Log{{Level: "log", Text: "x<y"}}}, {value: "1", reset: "note"},
	} {
		var v json.RawMessage
		if c.value != "" {
			v = json.RawMessage(c.value)
		}
		logs := c.logs
		if logs == nil {
			logs = []runtime.Log{}
		}
		want, err := json.Marshal(runOutput{Value: v, Logs: logs, Reset: c.reset})
		if err != nil {
			t.Fatal(err)
		}
		if got := structured(v, logs, c.reset); string(got) != string(want) {
			t.Errorf("%q: got %s, want %s", c.value, got, want)
		}
	}
}
