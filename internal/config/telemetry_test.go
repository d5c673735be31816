package config

import (
	"encoding/json"
	"strings"
	"testing"
)

func TestTelemetrySection(t *testing.T) {
	cfg, err := Parse([]byte(`{"mcpServers": {}, "codemode": {"telemetry": {"traces": true, "metrics": true, "serviceName": "cm", "runs": 7, "maxPayloadBytes": "8KiB"}}}`))
	if err != nil {
		t.Fatal(err)
	}
	want := Telemetry{Traces: true, Metrics: true, ServiceName: "cm", Runs: 7, MaxPayloadBytes: 8 << 10}
	if cfg.CodeMode.Telemetry != want {
		t.Errorf("got %+v, want %+v", cfg.CodeMode.Telemetry, want)
	}
	b, err := json.Marshal(cfg)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(b), `"telemetry":{"traces":true,"metrics":true,"serviceName":"cm","runs":7,"maxPayloadBytes":8192}`) {
		t.Errorf("marshalled: %s", b)
	}
	again, err := Parse(b)
	if err != nil || again.CodeMode.Telemetry != want {
		t.Errorf("round trip: %+v, %v", again, err)
	}
	if b, _ := json.Marshal(&Config{}); strings.Contains(string(b), "telemetry") {
		t.Errorf("an unset section is written: %s", b)
	}
	for _, c := range []struct{ doc, want string }{
		{`{"codemode": {"telemetry": {"trace": true}}}`, `codemode.telemetry.trace: unknown key (did you mean "traces"?)`},
		{`{"codemode": {"telemetry": {"runs": 0}}}`, `codemode.telemetry.runs`},
		{`{"codemode": {"telemetry": true}}`, `codemode.telemetry: want an object`},
	} {
		_, err := Parse([]byte(c.doc))
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: got %v, want %q", c.doc, err, c.want)
		}
	}
}
