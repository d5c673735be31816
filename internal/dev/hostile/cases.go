// Package hostile runs issue 18's hostile programs through the real
// codemode binary (serve over stdio and HTTP, run --json) and measures what
// each does to the process: peak RSS over the run's memory budget, CPU
// burnt after the answer, response bytes over the output budget, and what
// a canary session running a small program every 100 ms saw meanwhile.
// The cases are data (testdata/cases.txtar); Soak runs a mix of them for
// minutes. Linux only: the figures come from /proc.
package hostile

import (
	_ "embed"
	"encoding/json"
	"fmt"
	"strconv"
	"strings"
	"time"

	"golang.org/x/tools/txtar"
)

//go:embed testdata/cases.txtar
var casesTxtar []byte

// Case is one hostile program and what its answer may be.
type Case struct {
	Name    string
	Class   int
	Program string   // expanded
	Codes   []string // allowed codes; "OK" is no error; empty: any
	Value   json.RawMessage
	Forbid  []string
	Runs    int
	Mode    string
	Timeout time.Duration // 0: the harness's
	Config  map[string]any
	Server  map[string]any
	Then    string
	Cheap   bool
	NoSoak  bool
}

// Cases returns the embedded suite.
func Cases() ([]Case, error) { return ParseCases(casesTxtar) }

// ParseCases reads a txtar archive of NAME.js and NAME.want files.
func ParseCases(data []byte) ([]Case, error) {
	a := txtar.Parse(data)
	wants := map[string][]byte{}
	for _, f := range a.Files {
		if name, ok := strings.CutSuffix(f.Name, ".want"); ok {
			wants[name] = f.Data
		}
	}
	var cases []Case
	for _, f := range a.Files {
		name, ok := strings.CutSuffix(f.Name, ".js")
		if !ok {
			continue
		}
		w, ok := wants[name]
		if !ok {
			return nil, fmt.Errorf("case %q: no %s.want", name, name)
		}
		prog, err := expand(strings.TrimSuffix(string(f.Data), "\n"))
		if err != nil {
			return nil, fmt.Errorf("case %q: %w", name, err)
		}
		c := Case{Name: name, Program: prog, Runs: 1}
		if err := parseWant(&c, w); err != nil {
			return nil, fmt.Errorf("case %q: %w", name, err)
		}
		cases = append(cases, c)
	}
	return cases, nil
}

func parseWant(c *Case, data []byte) error {
	for _, line := range strings.Split(string(data), "\n") {
		line = strings.TrimSpace(line)
		if line == "" {
			continue
		}
		key, val, _ := strings.Cut(line, ":")
		val = strings.TrimSpace(val)
		var err error
		switch key {
		case "class":
			c.Class, err = strconv.Atoi(val)
		case "code":
			for _, s := range strings.Split(val, "|") {
				c.Codes = append(c.Codes, strings.TrimSpace(s))
			}
		case "value":
			if !json.Valid([]byte(val)) {
				err = fmt.Errorf("value %q is not JSON", val)
			}
			c.Value = json.RawMessage(val)
		case "forbid":
			c.Forbid = append(c.Forbid, val)
		case "runs":
			c.Runs, err = strconv.Atoi(val)
		case "mode":
			c.Mode = val
		case "timeout":
			c.Timeout, err = time.ParseDuration(val)
		case "config":
			err = json.Unmarshal([]byte(val), &c.Config)
		case "server":
			err = json.Unmarshal([]byte(val), &c.Server)
		case "then":
			c.Then = val
		case "cheap":
			c.Cheap = true
		case "nosoak":
			c.NoSoak = true
		default:
			err = fmt.Errorf("unknown key %q", key)
		}
		if err != nil {
			return fmt.Errorf("%s: %w", key, err)
		}
	}
	if c.Class < 1 || c.Class > 5 {
		return fmt.Errorf("class %d: want 1 to 5", c.Class)
	}
	return nil
}

// expand replaces each {{% repeat "TEXT" N %}} with TEXT repeated N times
// (TEXT a Go string literal).
func expand(s string) (string, error) {
	var b strings.Builder
	for {
		i := strings.Index(s, "{{%")
		if i < 0 {
			b.WriteString(s)
			return b.String(), nil
		}
		j := strings.Index(s[i:], "%}}")
		if j < 0 {
			return "", fmt.Errorf("unclosed {{%%")
		}
		b.WriteString(s[:i])
		f := strings.Fields(s[i+3 : i+j])
		if len(f) != 3 || f[0] != "repeat" {
			return "", fmt.Errorf("bad directive %q (want repeat \"TEXT\" N)", s[i:i+j+3])
		}
		text, err := strconv.Unquote(f[1])
		if err != nil {
			return "", fmt.Errorf("repeat: %w", err)
		}
		n, err := strconv.Atoi(f[2])
		if err != nil {
			return "", fmt.Errorf("repeat: %w", err)
		}
		b.WriteString(strings.Repeat(text, n))
		s = s[i+j+3:]
	}
}
