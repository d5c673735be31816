package config

import (
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/codemode/codemode/internal/audit"
	"github.com/codemode/codemode/internal/policy"
	"github.com/codemode/codemode/runtime"
)

func TestParseAccepts(t *testing.T) {
	tests := []struct {
		name string
		in   string
		want *Config
	}{
		{
			name: "empty",
			in:   `{}`,
			want: &Config{Servers: map[string]Server{}},
		},
		{
			name: "stdio server",
			in:   `{"mcpServers": {"fake": {"command": "codemode", "args": ["fakemcp"], "env": {"A": "1"}, "cwd": "/tmp"}}}`,
			want: &Config{Servers: map[string]Server{"fake": {Transport: TransportStdio, Command: "codemode", Args: []string{"fakemcp"}, Env: map[string]string{"A": "1"}, Cwd: "/tmp"}}},
		},
		{
			name: "stdio with type",
			in:   `{"mcpServers": {"a-1_b": {"type": "stdio", "command": "x", "roots": true}}}`,
			want: &Config{Servers: map[string]Server{"a-1_b": {Transport: TransportStdio, Command: "x", Roots: true}}},
		},
		{
			name: "http server",
			in:   `{"mcpServers": {"remote": {"url": "https://example.com/mcp", "headers": {"Authorization": "Bearer x"}}}}`,
			want: &Config{Servers: map[string]Server{"remote": {Transport: TransportHTTP, URL: "https://example.com/mcp", Headers: map[string]string{"Authorization": "Bearer x"}}}},
		},
		{
			name: "frame limits, as a number and as a size",
			in: `{"mcpServers": {"a": {"command": "x", "maxFrameBytes": 65536},
				"b": {"url": "https://example.com/mcp", "maxFrameBytes": "32MiB"},
				"c": {"command": "x", "maxFrameBytes": "1GiB"}, "d": {"command": "x", "maxFrameBytes": "4KiB"}}}`,
			want: &Config{Servers: map[string]Server{
				"a": {Transport: TransportStdio, Command: "x", MaxFrameBytes: 64 << 10},
				"b": {Transport: TransportHTTP, URL: "https://example.com/mcp", MaxFrameBytes: 32 << 20},
				"c": {Transport: TransportStdio, Command: "x", MaxFrameBytes: MaxFrameLimit},
				"d": {Transport: TransportStdio, Command: "x", MaxFrameBytes: MinFrameLimit},
			}},
		},
		{
			name: "streamable-http type",
			in:   `{"mcpServers": {"remote": {"type": "streamable-http", "url": "http://127.0.0.1:9/mcp"}}}`,
			want: &Config{Servers: map[string]Server{"remote": {Transport: TransportHTTP, URL: "http://127.0.0.1:9/mcp"}}},
		},
		{
			name: "empty lists are absent",
			in:   `{"mcpServers": {"s": {"command": "x", "args": [], "env": {}}}, "codemode": {"native": []}}`,
			want: &Config{Servers: map[string]Server{"s": {Transport: TransportStdio, Command: "x"}}},
		},
		{
			name: "full codemode section",
			in: `{"$schema": "x", "codemode": {"engine": "wazero", "mode": "persistent-in-memory", "timeout": "1m30s",
				"memory": "256MiB", "maxSubcalls": 50, "maxConcurrentSubcalls": 4, "maxLogBytes": "64KiB",
				"maxResultBytes": 1000000, "native": ["mcp__fake__ticker"], "catalogBudget": 4000,
				"maxEnvironments": 16, "idleTTL": 600000, "maxTotalMemoryBytes": "4GiB", "listen": "127.0.0.1:8080",
				"trustedHosts": ["localhost:8080", "[::1]:8080", "example.com"], "bearerTokenEnv": "TOKEN",
				"stateless": true, "replica": "r1", "drainTimeout": "45s", "timeZone": "Europe/Paris"}}`,
			want: &Config{Servers: map[string]Server{}, CodeMode: CodeMode{
				Engine: runtime.EngineWazero, Mode: string(runtime.ModePersistent), Timeout: 90 * time.Second,
				Memory: 256 << 20, MaxSubcalls: 50, MaxConcurrentSubcalls: 4, MaxLogBytes: 64 << 10,
				MaxResultBytes: 1000000, Native: []string{"mcp__fake__ticker"}, CatalogBudget: 4000,
				MaxEnvironments: 16, IdleTTL: 10 * time.Minute, MaxTotalMemoryBytes: 4 << 30, Listen: "127.0.0.1:8080",
				TrustedHosts: []string{"localhost:8080", "[::1]:8080", "example.com"}, BearerTokenEnv: "TOKEN",
				Stateless: true, Replica: "r1", DrainTimeout: 45 * time.Second, TimeZone: "Europe/Paris",
			}},
		},
		{
			name: "the issue's policy, audit and redaction shape",
			in: `{"codemode": {
				"policy": {"default": "allow", "rules": [
					{"tool": "mcp__fs__write_*", "action": "ask", "reason": "writes files"},
					{"server": "memory", "annotations": {"destructiveHint": true}, "action": "deny", "reason": "no deletes"},
					{"tool": "mcp__everything__*", "caller": "program", "action": "allow", "maxCallsPerRun": 5},
					{"annotations": {"readOnlyHint": false, "openWorldHint": false}, "action": "deny", "maxCallsPerSession": 2}
				]},
				"approvalTimeout": "2m",
				"audit": {"path": "audit.jsonl", "maxSizeMB": 100, "maxBackups": 5},
				"redact": ["token", "password", "/auth/pin"]}}`,
			want: &Config{Servers: map[string]Server{}, CodeMode: CodeMode{
				Policy: policy.Spec{Default: "allow", Rules: []policy.Rule{
					{Tool: "mcp__fs__write_*", Action: "ask", Reason: "writes files"},
					{Server: "memory", Annotations: policy.Annotations{DestructiveHint: ptr(true)}, Action: "deny", Reason: "no deletes"},
					{Tool: "mcp__everything__*", Caller: "program", Action: "allow", MaxCallsPerRun: 5},
					{Annotations: policy.Annotations{ReadOnlyHint: ptr(false), OpenWorldHint: ptr(false)}, Action: "deny", MaxCallsPerSession: 2},
				}},
				ApprovalTimeout: 2 * time.Minute,
				Audit:           audit.Config{Path: "audit.jsonl", MaxSizeMB: 100, MaxBackups: 5},
				Redact:          []string{"token", "password", "/auth/pin"},
			}},
		},
		{
			name: "fixture server and redaction rules",
			in:   `{"mcpServers": {"gh": {"fixture": "fixtures/gh.txtar", "maxFrameBytes": "1MiB"}}, "codemode": {"redact": ["secret", "/auth/pin"]}}`,
			want: &Config{Servers: map[string]Server{"gh": {Transport: TransportFixture, Fixture: "fixtures/gh.txtar", MaxFrameBytes: 1 << 20}},
				CodeMode: CodeMode{Redact: []string{"secret", "/auth/pin"}}},
		},
		{
			name: "timeout as milliseconds, sizes in every unit",
			in:   `{"codemode": {"timeout": 1500, "memory": "1.5 GB", "maxLogBytes": "10kb", "maxResultBytes": "2048"}}`,
			want: &Config{Servers: map[string]Server{}, CodeMode: CodeMode{Timeout: 1500 * time.Millisecond, Memory: 1500000000, MaxLogBytes: 10000, MaxResultBytes: 2048}},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := Parse([]byte(tt.in))
			if err != nil {
				t.Fatalf("Parse: got error %v, want none", err)
			}
			if !reflect.DeepEqual(got, tt.want) {
				t.Errorf("Parse:\ngot  %+v\nwant %+v", got, tt.want)
			}
			roundTrip(t, got)
		})
	}
}

func TestParseRefuses(t *testing.T) {
	tests := []struct {
		name string
		in   string
		want []string // each must appear in the error, in order
	}{
		{"not JSON", `{`, []string{"invalid JSON"}},
		{"not an object", `[]`, []string{"want an object, got an array"}},
		{"trailing data", `{} {}`, []string{"unexpected data after the top-level object"}},
		{"unknown top key", `{"mcpServer": {}}`, []string{`mcpServer: unknown key (did you mean "mcpServers"?)`}},
		{"duplicate key", `{"codemode": {}, "codemode": {}}`, []string{"codemode: duplicate key"}},
		{"unknown server key", `{"mcpServers": {"fake": {"comand": "x"}}}`, []string{`mcpServers.fake.comand: unknown key (did you mean "command"?)`}},
		{"unknown key, no suggestion", `{"mcpServers": {"fake": {"command": "x", "zzzzzzzzzz": 1}}}`, []string{"mcpServers.fake.zzzzzzzzzz: unknown key"}},
		{"unknown codemode key", `{"codemode": {"engin": "goja"}}`, []string{`codemode.engin: unknown key (did you mean "engine"?)`}},
		{"bad size", `{"codemode": {"memory": "12 parsecs"}}`, []string{`codemode.memory: "12 parsecs" is not a size`}},
		{"zero size", `{"codemode": {"memory": 0}}`, []string{"codemode.memory: 0: want a whole number of bytes"}},
		{"fractional bytes", `{"codemode": {"maxLogBytes": 1.5}}`, []string{"codemode.maxLogBytes: 1.5: want a whole number of bytes"}},
		{"total under one program's budget", `{"codemode": {"memory": "512MiB", "maxTotalMemoryBytes": "256MiB"}}`, []string{"codemode.maxTotalMemoryBytes: 268435456 bytes is less than one program's memory budget (536870912 bytes"}},
		{"total under the default budget", `{"codemode": {"maxTotalMemoryBytes": "100MiB"}}`, []string{"codemode.maxTotalMemoryBytes: 104857600 bytes is less than one program's memory budget (268435456 bytes"}},
		{"bad duration", `{"codemode": {"timeout": "soon"}}`, []string{`codemode.timeout: "soon" is not a duration`}},
		{"negative duration", `{"codemode": {"idleTTL": "-1s"}}`, []string{"codemode.idleTTL: \"-1s\": the duration must be positive"}},
		{"duration wrong type", `{"codemode": {"timeout": true}}`, []string{"codemode.timeout: want a duration string or a number of milliseconds, got a boolean"}},
		{"bad engine", `{"codemode": {"engine": "v8"}}`, []string{`codemode.engine: "v8" is not an engine`}},
		{"bad mode", `{"codemode": {"mode": "forever"}}`, []string{`codemode.mode: "forever" is not a mode`}},
		{"bad time zone", `{"codemode": {"timeZone": "Mars/Olympus_Mons"}}`, []string{`codemode.timeZone: "Mars/Olympus_Mons" is not a time zone (want an IANA name`}},
		{"empty time zone", `{"codemode": {"timeZone": ""}}`, []string{`codemode.timeZone: `}},
		{"int not whole", `{"codemode": {"maxSubcalls": 2.5}}`, []string{"codemode.maxSubcalls: 2.5: want a whole number"}},
		{"int zero", `{"codemode": {"maxEnvironments": 0}}`, []string{"codemode.maxEnvironments: 0: want a whole number"}},
		{"int string", `{"codemode": {"catalogBudget": "10"}}`, []string{"codemode.catalogBudget: want a whole number, got a string"}},
		{"native not strings", `{"codemode": {"native": ["a", 1]}}`, []string{"codemode.native[1]: want a string, got a number"}},
		{"native duplicate", `{"codemode": {"native": ["a", "a"]}}`, []string{`codemode.native[1]: "a" is listed twice`}},
		{"listen", `{"codemode": {"listen": "8080"}}`, []string{`codemode.listen: "8080" is not host:port`}},
		{"listen port", `{"codemode": {"listen": "127.0.0.1:99999"}}`, []string{"codemode.listen:", "port must be a number"}},
		{"trusted host upper case", `{"codemode": {"trustedHosts": ["LocalHost"]}}`, []string{"codemode.trustedHosts[0]:", "not a canonical host[:port]"}},
		{"trusted host scheme", `{"codemode": {"trustedHosts": ["http://x"]}}`, []string{"codemode.trustedHosts[0]:"}},
		{"trusted host bare v6", `{"codemode": {"trustedHosts": ["::1"]}}`, []string{"codemode.trustedHosts[0]:", "brackets"}},
		{"trusted host port zero padded", `{"codemode": {"trustedHosts": ["a:080"]}}`, []string{"codemode.trustedHosts[0]:"}},
		{"both tokens", `{"codemode": {"bearerToken": "x", "bearerTokenEnv": "Y"}}`, []string{"codemode.bearerToken: set bearerToken or bearerTokenEnv, not both"}},
		{"policy misspelt", `{"codemode": {"polcy": {}}}`, []string{`codemode.polcy: unknown key (did you mean "policy"?)`}},
		{"rule key misspelt", `{"codemode": {"policy": {"rules": [{"action": "allow"}, {"tol": "x", "action": "deny"}]}}}`,
			[]string{`codemode.policy.rules[1].tol: unknown key (did you mean "tool"?)`}},
		{"annotation misspelt", `{"codemode": {"policy": {"rules": [{"annotations": {"destructive": true}, "action": "deny"}]}}}`,
			[]string{`codemode.policy.rules[0].annotations.destructive: unknown key (did you mean "destructiveHint"?)`}},
		{"annotation not bool", `{"codemode": {"policy": {"rules": [{"annotations": {"readOnlyHint": "yes"}, "action": "deny"}]}}}`,
			[]string{"codemode.policy.rules[0].annotations.readOnlyHint: want true or false, got a string"}},
		{"bad glob", `{"codemode": {"policy": {"rules": [{"tool": "mcp__[fs", "action": "deny"}]}}}`,
			[]string{`codemode.policy.rules[0].tool: "mcp__[fs" is not a glob`}},
		{"bad server glob", `{"codemode": {"policy": {"rules": [{"server": "a\\", "action": "deny"}]}}}`,
			[]string{`codemode.policy.rules[0].server:`, "is not a glob"}},
		{"bad action", `{"codemode": {"policy": {"rules": [{"tool": "x", "action": "maybe"}]}}}`,
			[]string{`codemode.policy.rules[0].action: "maybe" is not an action`}},
		{"no action", `{"codemode": {"policy": {"rules": [{"tool": "x"}]}}}`, []string{`codemode.policy.rules[0]: a rule needs an action`}},
		{"bad caller", `{"codemode": {"policy": {"rules": [{"caller": "human", "action": "deny"}]}}}`,
			[]string{`codemode.policy.rules[0].caller: "human" is not a caller`}},
		{"bad default", `{"codemode": {"policy": {"default": "never"}}}`, []string{`codemode.policy.default: "never" is not an action`}},
		{"rules not array", `{"codemode": {"policy": {"rules": {}}}}`, []string{"codemode.policy.rules: want an array of objects, got an object"}},
		{"rule not object", `{"codemode": {"policy": {"rules": ["deny"]}}}`, []string{"codemode.policy.rules[0]: want an object, got a string"}},
		{"budget zero", `{"codemode": {"policy": {"rules": [{"action": "allow", "maxCallsPerRun": 0}]}}}`,
			[]string{"codemode.policy.rules[0].maxCallsPerRun: 0: want a whole number"}},
		{"audit without path", `{"codemode": {"audit": {"maxBackups": 3}}}`, []string{"codemode.audit.path: the audit trail needs a path"}},
		{"audit key misspelt", `{"codemode": {"audit": {"path": "a", "maxSizeMb": 3}}}`, []string{`codemode.audit.maxSizeMb: unknown key (did you mean "maxSizeMB"?)`}},
		{"approval timeout", `{"codemode": {"approvalTimeout": "soon"}}`, []string{`codemode.approvalTimeout: "soon" is not a duration`}},
		{"redact bad pointer", `{"codemode": {"redact": ["token", "/a~2"]}}`, []string{`codemode.redact[1]: "/a~2" is not a JSON pointer`}},
		{"redact empty rule", `{"codemode": {"redact": [""]}}`, []string{"codemode.redact[0]: an empty rule"}},
		{"stateless not bool", `{"codemode": {"stateless": "yes"}}`, []string{"codemode.stateless: want true or false, got a string"}},
		{"empty replica", `{"codemode": {"replica": ""}}`, []string{"codemode.replica: must not be empty"}},
		{"negative drain timeout", `{"codemode": {"drainTimeout": "-5s"}}`, []string{"codemode.drainTimeout:", "must be positive"}},
		{"fixture and command", `{"mcpServers": {"fake": {"fixture": "f.txtar", "command": "x"}}}`, []string{"mcpServers.fake: has a fixture and a command or url"}},
		{"fixture with env", `{"mcpServers": {"fake": {"fixture": "f.txtar", "env": {"A": "b"}}}}`, []string{"mcpServers.fake: args, env, cwd, headers and roots do not apply to a fixture server"}},
		{"fixture with type", `{"mcpServers": {"fake": {"type": "stdio", "fixture": "f.txtar"}}}`, []string{`mcpServers.fake.type: a fixture server has no "type"`}},
		{"empty fixture", `{"mcpServers": {"fake": {"fixture": ""}}}`, []string{"mcpServers.fake.fixture: must not be empty"}},
		{"fixture not a string", `{"mcpServers": {"fake": {"fixture": ["a"]}}}`, []string{"mcpServers.fake.fixture: want a string, got an array"}},
		{"redact not strings", `{"codemode": {"redact": "token"}}`, []string{"codemode.redact: want an array of strings, got a string"}},
		{"redact misspelt", `{"codemode": {"redacted": ["token"]}}`, []string{`codemode.redacted: unknown key (did you mean "redact"?)`}},
		{"server not object", `{"mcpServers": {"fake": "x"}}`, []string{"mcpServers.fake: want an object, got a string"}},
		{"servers not object", `{"mcpServers": []}`, []string{"mcpServers: want an object, got an array"}},
		{"no command or url", `{"mcpServers": {"fake": {"args": []}}}`, []string{"mcpServers.fake: needs a command"}},
		{"both command and url", `{"mcpServers": {"fake": {"command": "x", "url": "http://a/"}}}`, []string{"mcpServers.fake: has both command and url"}},
		{"empty command", `{"mcpServers": {"fake": {"command": ""}}}`, []string{"mcpServers.fake.command: must not be empty"}},
		{"type mismatch", `{"mcpServers": {"fake": {"type": "stdio", "url": "http://a/"}}}`, []string{`mcpServers.fake.url: a "stdio" server has a command`}},
		{"type mismatch http", `{"mcpServers": {"fake": {"type": "http", "command": "x"}}}`, []string{"mcpServers.fake.command: an HTTP server has a url"}},
		{"sse", `{"mcpServers": {"fake": {"type": "sse", "url": "http://a/"}}}`, []string{`mcpServers.fake.type: "sse"`}},
		{"bad type", `{"mcpServers": {"fake": {"type": "ws", "url": "http://a/"}}}`, []string{`mcpServers.fake.type: "ws" is not a transport`}},
		{"args wrong type", `{"mcpServers": {"fake": {"command": "x", "args": "a b"}}}`, []string{"mcpServers.fake.args: want an array of strings, got a string"}},
		{"env wrong value", `{"mcpServers": {"fake": {"command": "x", "env": {"A": 1}}}}`, []string{"mcpServers.fake.env.A: want a string, got a number"}},
		{"env bad name", `{"mcpServers": {"fake": {"command": "x", "env": {"A=B": "1"}}}}`, []string{`mcpServers.fake.env: "A=B" is not a valid environment variable`}},
		{"roots not bool", `{"mcpServers": {"fake": {"command": "x", "roots": "yes"}}}`, []string{"mcpServers.fake.roots: want true or false, got a string"}},
		{"headers on stdio", `{"mcpServers": {"fake": {"command": "x", "headers": {"A": "b"}}}}`, []string{"mcpServers.fake.headers: headers apply to HTTP servers only"}},
		{"args on http", `{"mcpServers": {"fake": {"url": "http://a/", "args": ["x"]}}}`, []string{"mcpServers.fake: args, env and cwd apply to stdio servers only"}},
		{"bad url", `{"mcpServers": {"fake": {"url": "ftp://a/"}}}`, []string{`mcpServers.fake.url: "ftp://a/" is not an http(s) URL`}},
		{"bad header name", `{"mcpServers": {"fake": {"url": "http://a/", "headers": {"Bad Name": "x"}}}}`, []string{`mcpServers.fake.headers: "Bad Name" is not a valid header name`}},
		{"bad header value", `{"mcpServers": {"fake": {"url": "http://a/", "headers": {"X": "a\r\nb"}}}}`, []string{"mcpServers.fake.headers.X: the value must not contain CR"}},
		{"frame limit zero", `{"mcpServers": {"fake": {"command": "x", "maxFrameBytes": 0}}}`, []string{"mcpServers.fake.maxFrameBytes: 0: want a whole number of bytes"}},
		{"frame limit negative", `{"mcpServers": {"fake": {"command": "x", "maxFrameBytes": -1}}}`, []string{"mcpServers.fake.maxFrameBytes: -1: want a whole number of bytes"}},
		{"frame limit too small", `{"mcpServers": {"fake": {"command": "x", "maxFrameBytes": 100}}}`, []string{"mcpServers.fake.maxFrameBytes: 100 bytes is out of range (want 4KiB to 1GiB; leave the key out for the default, 16MiB)"}},
		{"frame limit absurd", `{"mcpServers": {"fake": {"url": "http://a/", "maxFrameBytes": "2GiB"}}}`, []string{"mcpServers.fake.maxFrameBytes: 2147483648 bytes is out of range"}},
		{"frame limit not a size", `{"mcpServers": {"fake": {"command": "x", "maxFrameBytes": "big"}}}`, []string{`mcpServers.fake.maxFrameBytes: "big" is not a size`}},
		{"frame limit misspelt", `{"mcpServers": {"fake": {"command": "x", "maxFrameByte": 65536}}}`, []string{`mcpServers.fake.maxFrameByte: unknown key (did you mean "maxFrameBytes"?)`}},
		{"server name chars", `{"mcpServers": {"my.server": {"command": "x"}}}`, []string{`mcpServers.my.server: server name "my.server": only letters`}},
		{"server name double underscore", `{"mcpServers": {"a__b": {"command": "x"}}}`, []string{`mcpServers.a__b: server name "a__b" must not contain "__"`}},
		{"server name empty", `{"mcpServers": {"": {"command": "x"}}}`, []string{"a server name must not be empty"}},
		{
			"every problem is reported",
			`{"mcpServers": {"fake": {"comand": "x"}}, "codemode": {"memory": "12 parsecs", "engine": "v8"}}`,
			[]string{`mcpServers.fake.comand: unknown key (did you mean "command"?)`, `codemode.memory: "12 parsecs" is not a size`, `codemode.engine: "v8" is not an engine`},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := Parse([]byte(tt.in))
			if err == nil {
				t.Fatalf("Parse: got %+v, want an error containing %q", got, tt.want)
			}
			if _, ok := err.(*Error); !ok {
				t.Errorf("Parse: got error type %T, want *Error", err)
			}
			msg, rest := err.Error(), err.Error()
			for _, w := range tt.want {
				i := strings.Index(rest, w)
				if i < 0 {
					t.Errorf("Parse: got error %q, want it to contain %q (in order)", msg, w)
					break
				}
				rest = rest[i+len(w):]
			}
		})
	}
}

func TestParseSize(t *testing.T) {
	tests := []struct {
		in   string
		want int64
		ok   bool
	}{
		{"1", 1, true}, {"1B", 1, true}, {"2KB", 2000, true}, {"2KiB", 2048, true}, {"3MB", 3e6, true},
		{"3MiB", 3 << 20, true}, {"1GB", 1e9, true}, {"1GiB", 1 << 30, true}, {"0.5KiB", 512, true},
		{" 4 mib ", 4 << 20, true}, {"", 0, false}, {"MiB", 0, false}, {"1.2.3KB", 0, false}, {"1TB", 0, false},
		{"-1", 0, false}, {".5KB", 0, false}, {"5.KB", 0, false}, {"99999999999999999999", 0, false},
		{"9999999999GiB", 0, false},
	}
	for _, tt := range tests {
		got, err := ParseSize(tt.in)
		if (err == nil) != tt.ok || got != tt.want {
			t.Errorf("ParseSize(%q) = %d, %v; want %d, ok=%v", tt.in, got, err, tt.want, tt.ok)
		}
	}
}

func TestDefault(t *testing.T) {
	c := Default("/usr/bin/codemode")
	if err := c.Validate(); err != nil {
		t.Fatalf("Default().Validate(): got %v, want nil", err)
	}
	want := Server{Transport: TransportStdio, Command: "/usr/bin/codemode", Args: []string{"fakemcp"}}
	if got := c.Servers[DefaultServerName]; !reflect.DeepEqual(got, want) || len(c.Servers) != 1 {
		t.Errorf("Default: got %+v, want one server %q: %+v", c.Servers, DefaultServerName, want)
	}
	roundTrip(t, c)
}

func TestValidateProgrammatic(t *testing.T) {
	c := &Config{
		Servers: map[string]Server{
			"x": {Transport: TransportHTTP, Command: "y"},
			"z": {Command: "y", MaxFrameBytes: -5},
		},
		CodeMode: CodeMode{Timeout: -time.Second},
	}
	err := c.Validate()
	if err == nil {
		t.Fatal("Validate: got nil, want an error")
	}
	for _, w := range []string{`mcpServers.x.type: "http" does not match the server's command`, "mcpServers.z.maxFrameBytes: -5 bytes is out of range", "codemode.timeout: must not be negative"} {
		if !strings.Contains(err.Error(), w) {
			t.Errorf("Validate: got %q, want it to contain %q", err, w)
		}
	}
}

func TestLoad(t *testing.T) {
	dir := t.TempDir()
	good := filepath.Join(dir, "good.json")
	if err := os.WriteFile(good, []byte(`{"mcpServers": {"fake": {"command": "x"}}}`), 0o644); err != nil {
		t.Fatal(err)
	}
	c, err := Load(good)
	if err != nil || c.Servers["fake"].Command != "x" {
		t.Errorf("Load(good): got %+v, %v; want the fake server", c, err)
	}
	bad := filepath.Join(dir, "bad.json")
	if err := os.WriteFile(bad, []byte(`{"codemode": {"memory": "lots"}}`), 0o644); err != nil {
		t.Fatal(err)
	}
	_, err = Load(bad)
	if err == nil || !strings.Contains(err.Error(), bad) || !strings.Contains(err.Error(), "codemode.memory") {
		t.Errorf("Load(bad): got %v, want an error naming the file and codemode.memory", err)
	}
	if _, err := Load(filepath.Join(dir, "missing.json")); err == nil {
		t.Error("Load(missing): got nil error, want one")
	}
	fx := filepath.Join(dir, "fx.json")
	if err := os.WriteFile(fx, []byte(`{"mcpServers": {"rel": {"fixture": "rec/rel.txtar"}, "abs": {"fixture": "/srv/abs.txtar"}}}`), 0o644); err != nil {
		t.Fatal(err)
	}
	c, err = Load(fx)
	if err != nil {
		t.Fatal(err)
	}
	if got, want := c.Servers["rel"].Fixture, filepath.Join(dir, "rec", "rel.txtar"); got != want {
		t.Errorf("relative fixture: got %s, want %s (relative to the config file)", got, want)
	}
	if got := c.Servers["abs"].Fixture; got != "/srv/abs.txtar" {
		t.Errorf("absolute fixture: got %s, want it unchanged", got)
	}
}

// TestLoadResolvesAgainstTheConfigFile: a stdio command given as a path and
// a server's cwd are relative to the config file, which is also the default
// cwd; a bare command stays a PATH lookup.
func TestLoadResolvesAgainstTheConfigFile(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "codemode.json")
	if err := os.WriteFile(path, []byte(`{"mcpServers": {
		"bare": {"command": "npx", "args": ["server.js"]},
		"rel": {"command": "./bin/server", "cwd": "data"},
		"abs": {"command": "/usr/bin/server", "cwd": "/srv"},
		"web": {"url": "http://127.0.0.1:1/mcp"}}}`), 0o644); err != nil {
		t.Fatal(err)
	}
	c, err := Load(path)
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		server, command, cwd string
	}{
		{"bare", "npx", dir},
		{"rel", filepath.Join(dir, "bin", "server"), filepath.Join(dir, "data")},
		{"abs", "/usr/bin/server", "/srv"},
		{"web", "", ""},
	}
	for _, tt := range tests {
		s := c.Servers[tt.server]
		if s.Command != tt.command || s.Cwd != tt.cwd {
			t.Errorf("%s: got command %q cwd %q, want %q and %q", tt.server, s.Command, s.Cwd, tt.command, tt.cwd)
		}
	}
}

func TestRedactRules(t *testing.T) {
	if got := strings.Join((CodeMode{}).RedactRules().Entries(), ","); got != "password,token,authorization,apiKey" {
		t.Errorf("unconfigured: got %s, want the defaults", got)
	}
	if got := strings.Join((CodeMode{Redact: []string{"pin", "/a/b"}}).RedactRules().Entries(), ","); got != "pin,/a/b" {
		t.Errorf("configured: got %s, want pin,/a/b (the list replaces the defaults)", got)
	}
}

func TestFrameLimit(t *testing.T) {
	tests := []struct {
		in   int64
		want int64
	}{{0, DefaultFrameLimit}, {MinFrameLimit, MinFrameLimit}, {64 << 10, 64 << 10}}
	for _, tt := range tests {
		if got := (Server{MaxFrameBytes: tt.in}).FrameLimit(); got != tt.want {
			t.Errorf("Server{MaxFrameBytes: %d}.FrameLimit() = %d, want %d", tt.in, got, tt.want)
		}
	}
}

func TestToken(t *testing.T) {
	env := func(k string) string { return map[string]string{"T": "from-env"}[k] }
	tests := []struct {
		name string
		c    CodeMode
		want string
	}{
		{"none", CodeMode{}, ""},
		{"literal", CodeMode{BearerToken: "lit"}, "lit"},
		{"env", CodeMode{BearerTokenEnv: "T"}, "from-env"},
		{"env unset", CodeMode{BearerTokenEnv: "U"}, ""},
	}
	for _, tt := range tests {
		if got := tt.c.Token(env); got != tt.want {
			t.Errorf("%s: Token() = %q, want %q", tt.name, got, tt.want)
		}
	}
}

// roundTrip checks that an accepted config re-validates and survives
// MarshalJSON → Parse unchanged.
func roundTrip(t *testing.T, c *Config) {
	t.Helper()
	if err := c.Validate(); err != nil {
		t.Fatalf("accepted config does not re-validate: %v", err)
	}
	data, err := json.Marshal(c)
	if err != nil {
		t.Fatalf("MarshalJSON: %v", err)
	}
	again, err := Parse(data)
	if err != nil {
		t.Fatalf("Parse(MarshalJSON(c)) = %v\n%s", err, data)
	}
	if !reflect.DeepEqual(again, c) {
		t.Fatalf("round trip changed the config:\ngot  %+v\nwant %+v\n%s", again, c, data)
	}
}

func ptr[T any](v T) *T { return &v }
