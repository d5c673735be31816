package config

import (
	"encoding/json"
	"time"
)

// MarshalJSON writes c in the file shape [Parse] reads, so that
// Parse(json.Marshal(c)) yields c again. Durations are written as Go
// duration strings and sizes as numbers of bytes; zero fields are left out.
func (c *Config) MarshalJSON() ([]byte, error) {
	type server struct {
		Type          string            `json:"type,omitempty"`
		Command       string            `json:"command,omitempty"`
		Args          []string          `json:"args,omitempty"`
		Env           map[string]string `json:"env,omitempty"`
		Cwd           string            `json:"cwd,omitempty"`
		URL           string            `json:"url,omitempty"`
		Headers       map[string]string `json:"headers,omitempty"`
		Fixture       string            `json:"fixture,omitempty"`
		Roots         bool              `json:"roots,omitempty"`
		MaxFrameBytes int64             `json:"maxFrameBytes,omitempty"`
	}
	type codemode struct {
		Engine                string   `json:"engine,omitempty"`
		Mode                  string   `json:"mode,omitempty"`
		Timeout               string   `json:"timeout,omitempty"`
		Memory                int64    `json:"memory,omitempty"`
		MaxSubcalls           int      `json:"maxSubcalls,omitempty"`
		MaxConcurrentSubcalls int      `json:"maxConcurrentSubcalls,omitempty"`
		MaxLogBytes           int64    `json:"maxLogBytes,omitempty"`
		MaxResultBytes        int64    `json:"maxResultBytes,omitempty"`
		MaxCodeBytes          int64    `json:"maxCodeBytes,omitempty"`
		MaxNestingDepth       int      `json:"maxNestingDepth,omitempty"`
		MaxArgumentBytes      int64    `json:"maxArgumentBytes,omitempty"`
		Native                []string `json:"native,omitempty"`
		CatalogBudget         int      `json:"catalogBudget,omitempty"`
		MaxEnvironments       int      `json:"maxEnvironments,omitempty"`
		IdleTTL               string   `json:"idleTTL,omitempty"`
		Listen                string   `json:"listen,omitempty"`
		TrustedHosts          []string `json:"trustedHosts,omitempty"`
		BearerToken           string   `json:"bearerToken,omitempty"`
		BearerTokenEnv        string   `json:"bearerTokenEnv,omitempty"`
		Redact                []string `json:"redact,omitempty"`
	}
	dur := func(d time.Duration) string {
		if d == 0 {
			return ""
		}
		return d.String()
	}
	out := struct {
		Servers  map[string]server `json:"mcpServers"`
		CodeMode *codemode         `json:"codemode,omitempty"`
	}{Servers: map[string]server{}}
	for name, s := range c.Servers {
		typ := s.Transport
		if typ == TransportFixture {
			typ = "" // a fixture server is known by its "fixture" key
		}
		out.Servers[name] = server{typ, s.Command, s.Args, s.Env, s.Cwd, s.URL, s.Headers, s.Fixture, s.Roots, s.MaxFrameBytes}
	}
	m := c.CodeMode
	cm := codemode{m.Engine, m.Mode, dur(m.Timeout), m.Memory, m.MaxSubcalls, m.MaxConcurrentSubcalls,
		m.MaxLogBytes, m.MaxResultBytes, m.MaxCodeBytes, m.MaxNestingDepth, m.MaxArgumentBytes, m.Native, m.CatalogBudget, m.MaxEnvironments, dur(m.IdleTTL),
		m.Listen, m.TrustedHosts, m.BearerToken, m.BearerTokenEnv, m.Redact}
	if !isZero(m) {
		out.CodeMode = &cm
	}
	return json.Marshal(out)
}

func isZero(m CodeMode) bool {
	return m.Engine == "" && m.Mode == "" && m.Timeout == 0 && m.Memory == 0 && m.MaxSubcalls == 0 &&
		m.MaxConcurrentSubcalls == 0 && m.MaxLogBytes == 0 && m.MaxResultBytes == 0 && m.MaxCodeBytes == 0 &&
		m.MaxNestingDepth == 0 && m.MaxArgumentBytes == 0 && len(m.Native) == 0 &&
		m.CatalogBudget == 0 && m.MaxEnvironments == 0 && m.IdleTTL == 0 && m.Listen == "" &&
		len(m.TrustedHosts) == 0 && m.BearerToken == "" && m.BearerTokenEnv == "" && len(m.Redact) == 0
}
