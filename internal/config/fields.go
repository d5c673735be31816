package config

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/codemode/codemode/internal/audit"
	"github.com/codemode/codemode/internal/policy"
	"github.com/codemode/codemode/runtime"
)

// The keys of an object of the file — a server entry, the codemode section
// — are tables of fields. One table drives everything a key needs: reading
// it (with its key path in every message), the list of known keys behind
// "did you mean", the zero check, the non-negative check of programmatic
// configs, writing it back (MarshalJSON) and the reference in
// docs/config.md (TestConfigDoc keeps that page in step). A new key is one
// line here plus its struct field.

// valueKind is how a key's value is written in the file.
type valueKind uint8

const (
	kString    valueKind = iota // a non-empty string
	kPath                       // a string, possibly empty
	kBool                       // true or false
	kStrings                    // an array of strings
	kStringMap                  // an object of strings
	kCount                      // a whole number ≥ 1 (int)
	kSize                       // a size: "256MiB" or a number of bytes (int64)
	kDuration                   // a duration: "30s" or a number of milliseconds
	kOptBool                    // true or false, where absent differs from false (*bool)
	kObject                     // an object, read by its own table (field.sub)
	kObjects                    // an array of objects, each read by field.sub
)

// field is one key of an object of type T.
type field[T any] struct {
	key  string
	kind valueKind
	// at returns a pointer to the key's struct field in t: *string, *bool,
	// *[]string, *map[string]string, *int, *int64 or *time.Duration, as
	// the kind says.
	at func(t *T) any
	// empty completes "must not be empty" for a kString (e.g. with the
	// values it takes).
	empty string
	help  string
	// read replaces the kind's reader (for keys whose value maps to
	// something else, such as a server's "type").
	read func(p *parser, raw json.RawMessage, path string, t *T)
	// omit, if set, leaves the key out of writeObject for t (a value the
	// file spells by another key).
	omit func(t *T) bool
	// sub is the table of a kObject's value (at returns *U) or of each
	// element of a kObjects' value (at returns *[]U).
	sub table
}

// table is the fields of a nested object, behind a kObject or kObjects
// key: everything a table does, for a pointer to its struct (or slice).
type table interface {
	read(p *parser, raw json.RawMessage, path string, ptr any)
	write(ptr any) json.RawMessage
	zero(ptr any) bool
	nonNegative(p *parser, path string, ptr any)
	rows(prefix string) []docRow
}

// objectOf is the table of a kObject key whose value is a U.
func objectOf[U any](fields []field[U]) table { return objectTable[U](fields) }

// listOf is the table of a kObjects key whose value is a []U.
func listOf[U any](fields []field[U]) table { return listTable[U](fields) }

type objectTable[U any] []field[U]

func (o objectTable[U]) read(p *parser, raw json.RawMessage, path string, ptr any) {
	readObject(p, raw, path, []field[U](o), ptr.(*U))
}
func (o objectTable[U]) write(ptr any) json.RawMessage { return writeObject([]field[U](o), ptr.(*U)) }
func (o objectTable[U]) zero(ptr any) bool             { return isZero([]field[U](o), ptr.(*U)) }
func (o objectTable[U]) nonNegative(p *parser, path string, ptr any) {
	checkNonNegative(p, path, []field[U](o), ptr.(*U))
}
func (o objectTable[U]) rows(prefix string) []docRow { return rowsOf([]field[U](o), prefix+".") }

type listTable[U any] []field[U]

func (l listTable[U]) read(p *parser, raw json.RawMessage, path string, ptr any) {
	var list []json.RawMessage
	if kind(raw) != "an array" || json.Unmarshal(raw, &list) != nil {
		p.add(path, "want an array of objects, got %s", kind(raw))
		return
	}
	out := make([]U, len(list))
	for i, r := range list {
		readObject(p, r, fmt.Sprintf("%s[%d]", path, i), []field[U](l), &out[i])
	}
	if len(out) == 0 {
		out = nil // [] and absent are the same configuration
	}
	*ptr.(*[]U) = out
}

func (l listTable[U]) write(ptr any) json.RawMessage {
	var b bytes.Buffer
	b.WriteByte('[')
	for i := range *ptr.(*[]U) {
		if i > 0 {
			b.WriteByte(',')
		}
		b.Write(writeObject([]field[U](l), &(*ptr.(*[]U))[i]))
	}
	b.WriteByte(']')
	return b.Bytes()
}
func (l listTable[U]) zero(ptr any) bool { return len(*ptr.(*[]U)) == 0 }
func (l listTable[U]) nonNegative(p *parser, path string, ptr any) {
	for i := range *ptr.(*[]U) {
		checkNonNegative(p, fmt.Sprintf("%s[%d]", path, i), []field[U](l), &(*ptr.(*[]U))[i])
	}
}
func (l listTable[U]) rows(prefix string) []docRow { return rowsOf([]field[U](l), prefix+"[].") }

// docRow is one key of the reference in docs/config.md.
type docRow struct {
	key    string // its path below the section: "policy.rules[].tool"
	kind   valueKind
	custom bool // read by a custom reader (a string with its own values)
	help   string
}

// rowsOf lists fields and, after each nested key, its table's keys.
func rowsOf[T any](fields []field[T], prefix string) []docRow {
	var out []docRow
	for _, f := range fields {
		out = append(out, docRow{key: prefix + f.key, kind: f.kind, custom: f.read != nil, help: f.help})
		if f.sub != nil {
			out = append(out, f.sub.rows(prefix+f.key)...)
		}
	}
	return out
}

var serverFields = []field[Server]{
	{key: "type", help: `"stdio", "http" or "streamable-http"; optional, and when present it must agree with command or url`,
		at: func(s *Server) any { return &s.Transport }, read: readTransport,
		omit: func(s *Server) bool { return s.Transport == TransportFixture }}, // known by its "fixture" key
	{key: "command", kind: kString, at: func(s *Server) any { return &s.Command }, help: "the program of a stdio server: a name looked up in PATH, or a path, relative to the config file"},
	{key: "args", kind: kStrings, at: func(s *Server) any { return &s.Args }, help: "its arguments"},
	{key: "env", kind: kStringMap, at: func(s *Server) any { return &s.Env }, help: "variables added to codemode's own environment"},
	{key: "cwd", kind: kPath, at: func(s *Server) any { return &s.Cwd }, help: "its working directory, relative to the config file (default: the config file's directory)"},
	{key: "url", kind: kString, at: func(s *Server) any { return &s.URL }, help: "the endpoint of a streamable-HTTP server"},
	{key: "headers", kind: kStringMap, at: func(s *Server) any { return &s.Headers }, help: "headers sent with every request"},
	{key: "fixture", kind: kString, at: func(s *Server) any { return &s.Fixture },
		help: "a recording (docs/fixtures.md) served in process instead of a server; relative to the config file"},
	{key: "roots", kind: kBool, at: func(s *Server) any { return &s.Roots }, help: "advertise the roots capability to the server"},
	{key: "maxFrameBytes", kind: kSize, at: func(s *Server) any { return &s.MaxFrameBytes },
		help: "the largest JSON-RPC message exchanged with the server (4 KiB to 1 GiB; default 16 MiB)"},
}

var codeModeFields = []field[CodeMode]{
	{key: "engine", kind: kString, empty: "(want one of the engines: " + quoted(runtime.Engines(), ", ") + ")", at: func(c *CodeMode) any { return &c.Engine }, help: "the sandbox: " + quoted(runtime.Engines(), " or ")},
	{key: "mode", kind: kString, empty: `(want "per-call" or "persistent-in-memory")`, at: func(c *CodeMode) any { return &c.Mode },
		help: `"per-call" (a fresh environment per program) or "persistent-in-memory" (one per agent, like a REPL)`},
	{key: "timeout", kind: kDuration, at: func(c *CodeMode) any { return &c.Timeout }, help: "wall-clock limit of one program, parsing included (default 30s)"},
	{key: "memory", kind: kSize, at: func(c *CodeMode) any { return &c.Memory }, help: "memory budget of one environment (default 256MiB)"},
	{key: "maxSubcalls", kind: kCount, at: func(c *CodeMode) any { return &c.MaxSubcalls }, help: "nested tool calls per program (default 1000)"},
	{key: "maxConcurrentSubcalls", kind: kCount, at: func(c *CodeMode) any { return &c.MaxConcurrentSubcalls }, help: "nested calls in flight at once (default 8)"},
	{key: "maxLogBytes", kind: kSize, at: func(c *CodeMode) any { return &c.MaxLogBytes }, help: "console output kept per program; past it, a truncation marker (default 1MiB)"},
	{key: "maxResultBytes", kind: kSize, at: func(c *CodeMode) any { return &c.MaxResultBytes }, help: "a program's JSON return value (default 1MiB)"},
	{key: "maxCodeBytes", kind: kSize, at: func(c *CodeMode) any { return &c.MaxCodeBytes }, help: "a program's text, checked before anything parses it (default 256KiB)"},
	{key: "maxNestingDepth", kind: kCount, at: func(c *CodeMode) any { return &c.MaxNestingDepth }, help: "how deeply a program may nest brackets, operators and statements (default 1000)"},
	{key: "maxTotalMemoryBytes", kind: kSize, at: func(c *CodeMode) any { return &c.MaxTotalMemoryBytes },
		help: "the memory of every program and persistent environment of the process together: past it the least recently used idle environment is released, then programs are refused with OVERLOADED (default: 3/4 of the cgroup memory limit or of the RAM, whichever is smaller)"},
	{key: "maxArgumentBytes", kind: kSize, at: func(c *CodeMode) any { return &c.MaxArgumentBytes }, help: "a tool call's JSON arguments, direct or nested (default 4MiB)"},
	{key: "native", kind: kStrings, at: func(c *CodeMode) any { return &c.Native }, help: "tool names that stay visible to the model instead of being masked"},
	{key: "catalogBudget", kind: kCount, at: func(c *CodeMode) any { return &c.CatalogBudget }, help: "the tool catalog in code_run's description, in o200k_base tokens: tools keep their one-line signatures while they fit, the rest are listed by name or counted (default 3000)"},
	{key: "maxEnvironments", kind: kCount, at: func(c *CodeMode) any { return &c.MaxEnvironments }, help: "persistent environments kept at once (least recently used released first)"},
	{key: "idleTTL", kind: kDuration, at: func(c *CodeMode) any { return &c.IdleTTL }, help: "a persistent environment idle this long is released"},
	{key: "maxAbandonedRuns", kind: kCount, at: func(c *CodeMode) any { return &c.MaxAbandonedRuns },
		help: "programs stopped at their deadline while a built-in that cannot be interrupted still runs (goja): at this many at once, new programs fail with OVERLOADED until one finishes (default 2)"},
	{key: "timeZone", kind: kString, empty: `(leave the key out for UTC)`, at: func(c *CodeMode) any { return &c.TimeZone },
		help: `the programs' time zone: Date's local time and Intl's default, an IANA name ("Europe/Paris"), an offset ("+05:30") or "UTC" (default UTC)`},
	{key: "listen", kind: kString, empty: "(leave the key out to serve stdio)", at: func(c *CodeMode) any { return &c.Listen }, help: "host:port of the streamable-HTTP front (default: stdio)"},
	{key: "trustedHosts", kind: kStrings, at: func(c *CodeMode) any { return &c.TrustedHosts }, help: "extra canonical host[:port] values the HTTP front accepts in Host"},
	{key: "bearerToken", kind: kString, at: func(c *CodeMode) any { return &c.BearerToken }, help: "the token the HTTP front requires"},
	{key: "bearerTokenEnv", kind: kString, at: func(c *CodeMode) any { return &c.BearerTokenEnv }, help: "the environment variable holding that token (not both)"},
	{key: "stateless", kind: kBool, at: func(c *CodeMode) any { return &c.Stateless },
		help: "HTTP: a session per request (no Mcp-Session-Id), so any replica answers any request; per-call mode only (docs/deploy.md)"},
	{key: "replica", kind: kString, at: func(c *CodeMode) any { return &c.Replica },
		help: "HTTP: the name session ids start with (NAME.<random>), for a load balancer to route on (default: host name and listen port)"},
	{key: "drainTimeout", kind: kDuration, at: func(c *CodeMode) any { return &c.DrainTimeout },
		help: "on SIGTERM: how long running calls may take to finish before the server exits (default 30s)"},
	{key: "policy", kind: kObject, sub: objectOf(policyFields), at: func(c *CodeMode) any { return &c.Policy },
		help: "the operator's rules for every call, direct or nested (see [policy.md](policy.md))"},
	{key: "approvalTimeout", kind: kDuration, at: func(c *CodeMode) any { return &c.ApprovalTimeout },
		help: "how long an `ask` waits for the person; the program's own clock is held meanwhile (default 2m)"},
	{key: "audit", kind: kObject, sub: objectOf(auditFields), at: func(c *CodeMode) any { return &c.Audit },
		help: "the audit trail: one JSON line per call, written before the call is reported done"},
	{key: "redact", kind: kStrings, at: func(c *CodeMode) any { return &c.Redact },
		help: "fields hidden from approval prompts, the audit digest and recordings: key names (any depth, any case) or JSON pointers (default: password, token, authorization, apiKey)"},
	{key: "telemetry", kind: kObject, sub: objectOf(telemetryFields), at: func(c *CodeMode) any { return &c.Telemetry },
		help: "traces, metrics and the run viewer (docs/observability.md)"},
}

var telemetryFields = []field[Telemetry]{
	{key: "traces", kind: kBool, at: func(t *Telemetry) any { return &t.Traces },
		help: "export traces over OTLP; the standard OTEL_* variables choose the endpoint and protocol (OTEL_EXPORTER_OTLP_ENDPOINT alone switches tracing on too)"},
	{key: "metrics", kind: kBool, at: func(t *Telemetry) any { return &t.Metrics },
		help: "serve Prometheus metrics at /metrics on the HTTP listener (or on `serve --metrics ADDR`, which switches them on too)"},
	{key: "serviceName", kind: kString, at: func(t *Telemetry) any { return &t.ServiceName },
		help: `the service.name of spans and metrics (default "codemode"; OTEL_SERVICE_NAME overrides)`},
	{key: "runs", kind: kCount, at: func(t *Telemetry) any { return &t.Runs },
		help: "how many recent runs the run viewer (/runs on the HTTP listener) keeps (default 50)"},
	{key: "maxPayloadBytes", kind: kSize, at: func(t *Telemetry) any { return &t.MaxPayloadBytes },
		help: "the run viewer cuts each argument, result, value and log line to this size, after redaction (default 4KiB)"},
}

var policyFields = []field[policy.Spec]{
	{key: "default", kind: kString, empty: `(want "allow", "deny" or "ask")`, at: func(s *policy.Spec) any { return &s.Default },
		help: `the action when no rule matches: "allow" (the default), "deny" or "ask"`},
	{key: "rules", kind: kObjects, sub: listOf(ruleFields), at: func(s *policy.Spec) any { return &s.Rules },
		help: "the rules, in order: the first that matches decides"},
}

var ruleFields = []field[policy.Rule]{
	{key: "server", kind: kString, at: func(r *policy.Rule) any { return &r.Server }, help: "a glob over the server of `mcp__<server>__<tool>` (upstream tools only)"},
	{key: "tool", kind: kString, at: func(r *policy.Rule) any { return &r.Tool }, help: "a glob over the tool name, e.g. `mcp__github__delete_*`"},
	{key: "annotations", kind: kObject, sub: objectOf(annotationFields), at: func(r *policy.Rule) any { return &r.Annotations },
		help: "the tool's MCP hints the rule requires (MCP's defaults for hints a tool leaves out)"},
	{key: "caller", kind: kString, empty: `(want "model" or "program")`, at: func(r *policy.Rule) any { return &r.Caller },
		help: `"model" (direct calls) or "program" (nested calls); default both`},
	{key: "action", kind: kString, empty: `(want "allow", "deny" or "ask")`, at: func(r *policy.Rule) any { return &r.Action }, help: `"allow", "deny" or "ask"`},
	{key: "reason", kind: kString, at: func(r *policy.Rule) any { return &r.Reason }, help: "shown to the model in a denial and to the person asked"},
	{key: "maxCallsPerRun", kind: kCount, at: func(r *policy.Rule) any { return &r.MaxCallsPerRun }, help: "calls the rule lets through per code_run program"},
	{key: "maxCallsPerSession", kind: kCount, at: func(r *policy.Rule) any { return &r.MaxCallsPerSession }, help: "calls the rule lets through per session"},
}

var annotationFields = []field[policy.Annotations]{
	{key: "readOnlyHint", kind: kOptBool, at: func(a *policy.Annotations) any { return &a.ReadOnlyHint }, help: "the tool does not modify its environment (default false)"},
	{key: "destructiveHint", kind: kOptBool, at: func(a *policy.Annotations) any { return &a.DestructiveHint }, help: "it may destroy, not only add (default true; false for a read-only tool)"},
	{key: "idempotentHint", kind: kOptBool, at: func(a *policy.Annotations) any { return &a.IdempotentHint }, help: "repeating a call has no further effect (default false)"},
	{key: "openWorldHint", kind: kOptBool, at: func(a *policy.Annotations) any { return &a.OpenWorldHint }, help: "it reaches outside entities (default true)"},
}

var auditFields = []field[audit.Config]{
	{key: "path", kind: kString, at: func(a *audit.Config) any { return &a.Path }, help: "the audit file (JSON lines); required"},
	{key: "maxSizeMB", kind: kCount, at: func(a *audit.Config) any { return &a.MaxSizeMB }, help: "rotate the file at this size in megabytes (default 100)"},
	{key: "maxBackups", kind: kCount, at: func(a *audit.Config) any { return &a.MaxBackups }, help: "rotated files kept (default 5)"},
}

func keysOf[T any](fields []field[T]) []string {
	out := make([]string, len(fields))
	for i, f := range fields {
		out[i] = f.key
	}
	return out
}

// readObject reads the members of an object into t by its fields.
func readObject[T any](p *parser, raw json.RawMessage, path string, fields []field[T], t *T) bool {
	ms, ok := p.object(raw, path)
	if !ok {
		return false
	}
	for _, m := range ms {
		f := lookup(fields, m.key)
		if f == nil {
			p.unknown(path, m.key, keysOf(fields))
			continue
		}
		at := join(path, m.key)
		if f.read != nil {
			f.read(p, m.raw, at, t)
			continue
		}
		if f.sub != nil {
			f.sub.read(p, m.raw, at, f.at(t))
			continue
		}
		switch ptr := f.at(t).(type) {
		case *string:
			*ptr, _ = p.str(m.raw, at)
			if *ptr == "" && f.kind == kString {
				if f.empty != "" {
					p.add(at, "must not be empty %s", f.empty)
				} else {
					p.add(at, "must not be empty")
				}
			}
		case *bool:
			*ptr, _ = p.boolean(m.raw, at)
		case **bool:
			if v, ok := p.boolean(m.raw, at); ok {
				*ptr = &v
			}
		case *[]string:
			*ptr, _ = p.strings(m.raw, at)
		case *map[string]string:
			*ptr, _ = p.stringMap(m.raw, at)
		case *int:
			*ptr, _ = p.positiveInt(m.raw, at)
		case *int64:
			*ptr, _ = p.size(m.raw, at)
		case *time.Duration:
			*ptr, _ = p.duration(m.raw, at)
		}
	}
	return true
}

func lookup[T any](fields []field[T], key string) *field[T] {
	for i := range fields {
		if fields[i].key == key {
			return &fields[i]
		}
	}
	return nil
}

// isZero reports whether no field of t is set.
func isZero[T any](fields []field[T], t *T) bool {
	for _, f := range fields {
		if f.sub != nil {
			if !f.sub.zero(f.at(t)) {
				return false
			}
			continue
		}
		if !zeroValue(f.at(t)) {
			return false
		}
	}
	return true
}

func zeroValue(ptr any) bool {
	switch v := ptr.(type) {
	case *string:
		return *v == ""
	case *bool:
		return !*v
	case **bool:
		return *v == nil
	case *[]string:
		return len(*v) == 0
	case *map[string]string:
		return len(*v) == 0
	case *int:
		return *v == 0
	case *int64:
		return *v == 0
	case *time.Duration:
		return *v == 0
	}
	return true
}

// checkNonNegative reports the numeric fields of a programmatic config
// that are negative (the file's readers refuse them already).
func checkNonNegative[T any](p *parser, path string, fields []field[T], t *T) {
	for _, f := range fields {
		if f.sub != nil {
			f.sub.nonNegative(p, join(path, f.key), f.at(t))
			continue
		}
		neg := false
		switch v := f.at(t).(type) {
		case *int:
			neg = *v < 0
		case *int64:
			neg = *v < 0
		case *time.Duration:
			neg = *v < 0
		}
		if neg {
			p.add(join(path, f.key), "must not be negative")
		}
	}
}

// writeObject writes t's set fields as a JSON object in table order, in
// the form the readers take: durations as Go duration strings, sizes as
// numbers of bytes.
func writeObject[T any](fields []field[T], t *T) json.RawMessage {
	var b bytes.Buffer
	b.WriteByte('{')
	n := 0
	for _, f := range fields {
		ptr := f.at(t)
		if f.omit != nil && f.omit(t) {
			continue
		}
		var val []byte
		if f.sub != nil {
			if f.sub.zero(ptr) {
				continue
			}
			val = f.sub.write(ptr)
		} else {
			if zeroValue(ptr) {
				continue
			}
			var v any
			switch x := ptr.(type) {
			case *time.Duration:
				v = x.String()
			default:
				v = ptr
			}
			val, _ = json.Marshal(v)
		}
		key, _ := json.Marshal(f.key)
		if n > 0 {
			b.WriteByte(',')
		}
		b.Write(key)
		b.WriteByte(':')
		b.Write(val)
		n++
	}
	b.WriteByte('}')
	return b.Bytes()
}

// readTransport reads a server's "type".
func readTransport(p *parser, raw json.RawMessage, path string, s *Server) {
	v, ok := p.str(raw, path)
	if !ok {
		return
	}
	switch v {
	case "stdio":
		s.Transport = TransportStdio
	case "http", "streamable-http", "streamableHttp":
		s.Transport = TransportHTTP
	case "sse":
		p.add(path, `"sse" (the deprecated HTTP+SSE transport) is not supported; use a streamable-HTTP endpoint ("type": "http")`)
	default:
		p.add(path, `%q is not a transport (want "stdio", "http" or "streamable-http")`, v)
	}
}

// quoted lists names as Go-quoted strings joined by sep: the engine list is
// written once, in package runtime.
func quoted(names []string, sep string) string {
	q := make([]string, len(names))
	for i, n := range names {
		q[i] = strconv.Quote(n)
	}
	return strings.Join(q, sep)
}
