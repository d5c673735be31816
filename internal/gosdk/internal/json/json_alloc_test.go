package json

import (
	"encoding/json"
	"runtime"
	"testing"
)

// codemode patch (PATCHES.md): Unmarshal parses its input in place: it must
// not allocate a decoder buffer (32 KiB in segmentio/encoding) per call, as
// it did when it went through NewDecoder(bytes.NewReader(data)). It runs
// several times for every message an MCP session sends or receives.
func TestUnmarshalDoesNotBuffer(t *testing.T) {
	data := []byte(`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"x","arguments":{}}}`)
	var m runtime.MemStats
	runtime.ReadMemStats(&m)
	before := m.TotalAlloc
	const n = 100
	for range n {
		var v struct {
			ID     int             `json:"id"`
			Method string          `json:"method"`
			Params json.RawMessage `json:"params"`
		}
		if err := Unmarshal(data, &v); err != nil || v.Method != "tools/call" || v.ID != 1 {
			t.Fatalf("Unmarshal: %v, %+v", err, v)
		}
	}
	runtime.ReadMemStats(&m)
	if per := (m.TotalAlloc - before) / n; per > 4096 {
		t.Errorf("Unmarshal of a %d-byte message allocates %d bytes", len(data), per)
	}
}

// As with the Decoder it replaced, only the first value is decoded, and the
// depth check still comes first.
func TestUnmarshalTrailingDataAndDepth(t *testing.T) {
	var v map[string]any
	if err := Unmarshal([]byte(`{"a":1} {"b":2}`), &v); err != nil || len(v) != 1 {
		t.Fatalf("got %v, %v", v, err)
	}
	deep := make([]byte, 0, 2*100000)
	for range 100000 {
		deep = append(deep, '[')
	}
	for range 100000 {
		deep = append(deep, ']')
	}
	var x any
	if err := Unmarshal(deep, &x); err == nil {
		t.Fatal("a 100,000-deep array was accepted")
	}
}
