// Package config reads codemode's JSON configuration: the upstream MCP
// servers to mount (the common "mcpServers" shape that agent hosts use) and
// the "codemode" section that tunes the sandbox and the MCP front.
//
// # Shape
//
//	{
//	  "mcpServers": {
//	    "fake":   {"command": "codemode", "args": ["fakemcp"], "env": {"K": "V"}, "cwd": "/tmp"},
//	    "remote": {"type": "http", "url": "https://example.com/mcp", "headers": {"Authorization": "Bearer …"},
//	               "maxFrameBytes": "32MiB"},
//	    "github": {"fixture": "fixtures/github.txtar"}
//	  },
//	  "codemode": {"engine": "wazero", "mode": "per-call", "timeout": "30s", "memory": "256MiB",
//	               "native": ["mcp__fake__ticker"]}
//	}
//
// A server has exactly one of command (stdio), url (streamable HTTP) and
// fixture (a recording, served in process; see internal/dev/fixture); "type"
// ("stdio", "http" or "streamable-http") is optional and, when present,
// must agree. A relative fixture path is taken from the directory of the
// config file ([Load]). Durations are Go duration strings ("30s", "1m30s")
// or a number of milliseconds; sizes are strings with a unit (B, KB, MB,
// GB, KiB, MiB, GiB) or a number of bytes.
//
// maxFrameBytes (any server) bounds one JSON-RPC message to or from that
// server: a reply over it fails its own call with RESULT_TOO_LARGE, a
// request over it fails before it is sent with ARGUMENTS_TOO_LARGE, and the
// connection is kept either way. It defaults to [DefaultFrameLimit] (the MCP
// Go SDK's own line limit) and must lie between [MinFrameLimit] and
// [MaxFrameLimit].
//
// # Strictness
//
// Unknown keys at every level, duplicate keys, wrong types and bad values
// are refused. Every problem is reported (not only the first), each naming
// its key path, for example
//
//	mcpServers.fake.comand: unknown key (did you mean "command"?)
//	codemode.memory: "12 parsecs" is not a size
//
// A zero field of [CodeMode] means "not configured": the component that
// reads it applies its own documented default.
//
// redact (codemode section) lists the redaction rules of recordings and
// the audit trail: key names, matched case-insensitively at any depth, or
// JSON pointers (see internal/redact). Absent (or empty), the defaults
// apply: password, token, authorization, apiKey. A list replaces the
// defaults; list them too to keep them.
package config

import (
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"time"

	"github.com/codemode/codemode/internal/audit"
	"github.com/codemode/codemode/internal/policy"
	"github.com/codemode/codemode/internal/redact"
)

// Config is a parsed, validated configuration.
type Config struct {
	// Servers are the upstream MCP servers by name (the "mcpServers" key).
	// A name is usable inside a tool name: [A-Za-z0-9_-]+ without "__".
	Servers map[string]Server
	// CodeMode is the "codemode" section.
	CodeMode CodeMode
}

// Transport kinds of a [Server].
const (
	TransportStdio = "stdio"
	TransportHTTP  = "http" // streamable HTTP; "streamable-http" in a file means the same
	// TransportFixture is a recording served in process (the "fixture"
	// key); see internal/dev/fixture.
	TransportFixture = "fixture"
)

// Server is one upstream MCP server.
type Server struct {
	// Transport is TransportStdio, TransportHTTP or TransportFixture,
	// derived from which of Command, URL and Fixture is set (and from
	// "type" when the file has it).
	Transport string

	// Stdio servers.
	Command string
	Args    []string
	// Env is added to codemode's own environment (and overrides it).
	Env map[string]string
	// Cwd is the child's working directory; "" means codemode's.
	Cwd string

	// Streamable-HTTP servers.
	URL     string
	Headers map[string]string

	// Fixture is the path of a recording (package internal/dev/fixture)
	// served in process instead of a server: no child process, no
	// network. [Load] makes a relative path relative to the config file.
	Fixture string

	// Roots makes the client advertise the roots capability to this server.
	// Off by default: codemode has no roots to offer.
	Roots bool

	// MaxFrameBytes bounds one JSON-RPC message (stdio line, HTTP body or
	// SSE event) exchanged with the server, either way; 0 means
	// [DefaultFrameLimit]. Otherwise it lies in [MinFrameLimit,
	// MaxFrameLimit]. See [Server.FrameLimit].
	MaxFrameBytes int64
}

// Bounds of [Server.MaxFrameBytes] (the "maxFrameBytes" key).
const (
	// DefaultFrameLimit is the MCP Go SDK's mcp.DefaultMaxLineLength, so
	// an unconfigured server keeps the limit it always had.
	DefaultFrameLimit = 16 << 20
	// MinFrameLimit leaves room for initialize and a modest tools/list.
	MinFrameLimit = 4 << 10
	// MaxFrameLimit: a frame is held in memory whole, twice (ours and the
	// SDK's decoder), so anything larger is a mistake.
	MaxFrameLimit = 1 << 30
)

// FrameLimit returns s.MaxFrameBytes, or [DefaultFrameLimit] if it is 0.
func (s Server) FrameLimit() int64 {
	if s.MaxFrameBytes == 0 {
		return DefaultFrameLimit
	}
	return s.MaxFrameBytes
}

// CodeMode is the "codemode" section. Every zero field means "not
// configured".
type CodeMode struct {
	Engine string // one of runtime.Engines
	Mode   string // one of runtime.Modes

	Timeout               time.Duration // per code_run
	Memory                int64         // bytes, per environment
	MaxSubcalls           int           // nested tool calls per run
	MaxConcurrentSubcalls int
	MaxLogBytes           int64
	MaxResultBytes        int64
	MaxCodeBytes          int64 // program text, checked before any parse
	MaxNestingDepth       int   // program nesting, checked before any recursion
	MaxArgumentBytes      int64 // a call's JSON arguments
	// MaxTotalMemoryBytes is the memory governor's budget, across every
	// run and persistent environment of the process; 0 means
	// runtime.DefaultTotalMemory (3/4 of the cgroup limit or the RAM).
	MaxTotalMemoryBytes int64
	// Native lists tool names (as registered, e.g. "mcp__fake__ticker")
	// that stay visible to the model instead of being masked.
	Native          []string
	CatalogBudget   int // size budget of the tool catalog in the Code Mode section
	MaxEnvironments int // persistent environments kept at once
	IdleTTL         time.Duration
	// MaxAbandonedRuns bounds programs stopped at their deadline whose
	// engine is still busy in a built-in (runtime.Options.MaxAbandonedRuns).
	MaxAbandonedRuns int
	// TimeZone is the programs' time zone (runtime.Options.TimeZone); ""
	// means UTC.
	TimeZone string

	// Listen is the host:port of the streamable-HTTP front; "" means stdio.
	Listen string
	// TrustedHosts are extra canonical host[:port] entries the HTTP front
	// accepts in Host headers.
	TrustedHosts []string
	// BearerToken, or the environment variable named by BearerTokenEnv
	// (never both), is the token the HTTP front requires. See
	// [CodeMode.Token].
	BearerToken    string
	BearerTokenEnv string

	// Policy is the operator's rules for calls (see internal/policy); zero
	// means none: every call is allowed.
	Policy policy.Spec
	// ApprovalTimeout bounds an ask's wait for a person; 0 means 2m.
	ApprovalTimeout time.Duration
	// Audit is the audit trail; a zero Path means none.
	Audit audit.Config
	// Stateless makes the HTTP front serve every request with a session of
	// its own (no Mcp-Session-Id), so that any replica of a fleet answers
	// any request; only for per-call mode (see docs/deploy.md).
	Stateless bool
	// Replica names this process in HTTP session ids, for a load balancer
	// that routes on them; "" means the host name and listen port.
	Replica string
	// DrainTimeout bounds how long a shutdown (SIGTERM) waits for running
	// calls; 0 means 30s.
	DrainTimeout time.Duration
	// Redact lists redaction rules (key names or JSON pointers; see
	// internal/redact); nil means the defaults. See [CodeMode.RedactRules].
	Redact []string
	// Telemetry is the "telemetry" object: traces, metrics, the run viewer.
	Telemetry Telemetry
}

// Telemetry is the codemode section's "telemetry" object
// (docs/observability.md). Every zero field means "not configured".
type Telemetry struct {
	// Traces switches tracing on; the OTEL_* variables configure the
	// exporter (and OTEL_EXPORTER_OTLP_ENDPOINT alone switches it on).
	Traces bool
	// Metrics switches the Prometheus metrics on.
	Metrics bool
	// ServiceName is the resource's service.name; "" means "codemode".
	ServiceName string
	// Runs is the size of the run viewer's ring; 0 means 50.
	Runs int
	// MaxPayloadBytes cuts what the run viewer keeps of each argument,
	// result, value and log line; 0 means 4 KiB.
	MaxPayloadBytes int64
}

// RedactRules returns the parsed Redact rules, or the defaults when none
// are configured. c must have passed [Config.Validate].
func (c CodeMode) RedactRules() *redact.Rules {
	if len(c.Redact) == 0 {
		return redact.Default()
	}
	r, err := redact.New(c.Redact)
	if err != nil {
		return redact.Default() // Validate refuses such a config; fail closed anyway
	}
	return r
}

// Token returns the configured bearer token: BearerToken, or the value of
// the environment variable BearerTokenEnv names (looked up with getenv; nil
// means os.Getenv). "" means no token.
func (c CodeMode) Token(getenv func(string) string) string {
	if c.BearerToken != "" {
		return c.BearerToken
	}
	if c.BearerTokenEnv == "" {
		return ""
	}
	if getenv == nil {
		getenv = os.Getenv
	}
	return getenv(c.BearerTokenEnv)
}

// DefaultServerName is the name of the one server of [Default].
const DefaultServerName = "fake"

// Default returns the embedded default configuration: the fake MCP server,
// run as `<exe> fakemcp` over stdio, under the name "fake". exe is the
// path of the running executable (os.Executable).
func Default(exe string) *Config {
	return &Config{Servers: map[string]Server{
		DefaultServerName: {Transport: TransportStdio, Command: exe, Args: []string{"fakemcp"}},
	}}
}

// Load reads and parses the file at path, and resolves what is relative in
// it against the file's directory, not the working directory (which an MCP
// client chooses: Claude Desktop starts servers in /): a fixture path, a
// stdio command given as a path ("./server", "bin/server"; a bare name such
// as "npx" is still looked up in PATH), and a stdio server's cwd, which
// defaults to that directory, so relative arguments resolve there too.
// Errors name the file.
func Load(path string) (*Config, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("reading config: %w", err)
	}
	c, err := Parse(data)
	if err != nil {
		return nil, fmt.Errorf("config %s: %w", path, err)
	}
	dir, err := filepath.Abs(filepath.Dir(path))
	if err != nil {
		return nil, fmt.Errorf("config %s: %w", path, err)
	}
	c.Resolve(dir)
	return c, nil
}

// Resolve makes the config's relative paths relative to dir (see [Load]).
func (c *Config) Resolve(dir string) {
	rel := func(p string) string {
		if p == "" || filepath.IsAbs(p) {
			return p
		}
		return filepath.Join(dir, p)
	}
	for name, s := range c.Servers {
		s.Fixture = rel(s.Fixture)
		if s.Transport == TransportStdio {
			if strings.ContainsRune(s.Command, '/') || strings.ContainsRune(s.Command, filepath.Separator) {
				s.Command = rel(s.Command)
			}
			if s.Cwd == "" {
				s.Cwd = dir
			} else {
				s.Cwd = rel(s.Cwd)
			}
		}
		c.Servers[name] = s
	}
}

// Parse parses and validates a configuration. The error, if any, is an
// *[Error] listing every problem found.
func Parse(data []byte) (*Config, error) {
	p := &parser{}
	c := p.config(data)
	if len(p.issues) > 0 {
		return nil, &Error{Issues: p.issues}
	}
	return c, nil
}

// ServerNames returns the server names in sorted order.
func (c *Config) ServerNames() []string {
	names := make([]string, 0, len(c.Servers))
	for n := range c.Servers {
		names = append(names, n)
	}
	sort.Strings(names)
	return names
}

// Issue is one problem in a configuration.
type Issue struct {
	// Path is the key path, e.g. "mcpServers.fake.command" or
	// "codemode.trustedHosts[1]"; "" for the document itself.
	Path    string
	Message string
}

func (i Issue) String() string {
	if i.Path == "" {
		return i.Message
	}
	return i.Path + ": " + i.Message
}

// Error is returned by [Parse] and [Config.Validate]: every problem found,
// in document order.
type Error struct{ Issues []Issue }

func (e *Error) Error() string {
	parts := make([]string, len(e.Issues))
	for i, is := range e.Issues {
		parts[i] = is.String()
	}
	return strings.Join(parts, "; ")
}
