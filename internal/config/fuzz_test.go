package config

import "testing"

func FuzzParse(f *testing.F) {
	for _, seed := range []string{
		`{}`,
		`{"mcpServers": {"fake": {"command": "codemode", "args": ["fakemcp"], "env": {"A": "1"}, "cwd": "/"}}}`,
		`{"mcpServers": {"r": {"type": "http", "url": "https://h/mcp", "headers": {"X": "y"}, "maxFrameBytes": "32MiB"}}}`,
		`{"mcpServers": {"s": {"command": "x", "maxFrameBytes": 4096}}}`,
		`{"codemode": {"engine": "goja", "mode": "per-call", "timeout": "30s", "memory": "256MiB", "maxSubcalls": 3,
			"native": ["a"], "idleTTL": 1000, "listen": "127.0.0.1:1", "trustedHosts": ["[::1]:8"], "bearerToken": "t"}}`,
		`{"codemode": {"memory": 9007199254740993, "maxLogBytes": "1.5KiB"}}`,
		`{"mcpServers": {"fake": {"comand": "x"}}}`,
		`{"mcpServers": {"f": {"fixture": "f.txtar"}}, "codemode": {"redact": ["token", "/a/0"]}}`,
		`{"a": 1, "a": 2}`,
	} {
		f.Add([]byte(seed))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		c, err := Parse(data)
		if err != nil {
			if e, ok := err.(*Error); !ok || len(e.Issues) == 0 {
				t.Fatalf("Parse error %T %v: want *Error with issues", err, err)
			}
			return
		}
		roundTrip(t, c)
	})
}
