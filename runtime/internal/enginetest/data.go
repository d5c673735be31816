package enginetest

import (
	"bytes"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	goruntime "runtime"
	"sort"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"golang.org/x/tools/txtar"

	"github.com/codemode/codemode/tools/errs"
)

// Conformance as data: most of the suite is program → outcome pairs kept
// as txtar archives in testdata/, one archive per group, readable without
// reading Go. An archive's comment says what the group covers; each case
// is two files:
//
//	-- NAME.js --          the program (NAME.ts for TypeScript; the
//	                       extension is for the reader, both run alike)
//	-- NAME.want --        what it must produce, one fact a line:
//
//	value: JSON            the return value (compared as JSON);
//	value: undefined       no value
//	error: CODE | CODE     the error code (any of them)
//	message: TEXT          the error message contains TEXT (any case)
//	line: N / column: N    the error's position in the user's source
//	log: LEVEL: TEXT       console lines, all of them, in order
//	timeout: DURATION      the run's deadline (default 5s)
//	memory: BYTES          the memory limit, in bytes or NMiB (default
//	                       SuiteMemoryLimit)
//	hostile                must end within the deadline plus Grace, and a
//	                       fresh environment runs fine afterwards
//	slow                   skipped under -short
//	interruptible          the engine stops the program itself: no VM of
//	                       its is still busy seconds after the answer (no
//	                       built-in burns CPU on)
//
// A program's last newline is not part of it. Cases that need Go to
// check them (timing, stacks, scenarios, generated programs) are in
// cases.go.
//
// go test -run TestConformance -update (in an engine's package) rewrites
// the value, error and log lines of every archive from that engine's
// outcomes, keeping the rest; an error line whose codes include the one
// seen is kept as is. Run it on one engine, read the diff, and run the
// other engine's suite to see that it agrees.

var update = flag.Bool("update", false, "rewrite the conformance archives' expectations from this engine's outcomes")

// dataGroup is one archive.
type dataGroup struct {
	name, path string
	archive    *txtar.Archive
	cases      []Case
	want       map[string]int // case name → index of its .want file
}

// dataDir is testdata/ of this package, found from this file's path: the
// suite runs in the test binaries of other packages.
func dataDir() string {
	_, file, _, _ := goruntime.Caller(0)
	return filepath.Join(filepath.Dir(file), "testdata")
}

// loadGroups reads every archive of dir.
func loadGroups(dir string) ([]*dataGroup, error) {
	paths, err := filepath.Glob(filepath.Join(dir, "*.txtar"))
	if err != nil {
		return nil, err
	}
	sort.Strings(paths)
	var out []*dataGroup
	for _, p := range paths {
		g, err := loadGroup(p)
		if err != nil {
			return nil, err
		}
		out = append(out, g)
	}
	return out, nil
}

func loadGroup(path string) (*dataGroup, error) {
	a, err := txtar.ParseFile(path)
	if err != nil {
		return nil, err
	}
	g := &dataGroup{name: strings.TrimSuffix(filepath.Base(path), ".txtar"), path: path, archive: a, want: map[string]int{}}
	code := map[string]string{}
	for i, f := range a.Files {
		ext := filepath.Ext(f.Name)
		name := strings.TrimSuffix(f.Name, ext)
		switch ext {
		case ".js", ".ts":
			if _, dup := code[name]; dup {
				return nil, fmt.Errorf("%s: two programs named %q", path, name)
			}
			code[name] = strings.TrimSuffix(string(f.Data), "\n")
			g.cases = append(g.cases, Case{Name: name, Code: code[name]})
		case ".want":
			g.want[name] = i
		default:
			return nil, fmt.Errorf("%s: file %q is neither NAME.js, NAME.ts nor NAME.want", path, f.Name)
		}
	}
	for k := range g.cases {
		c := &g.cases[k]
		i, ok := g.want[c.Name]
		if !ok {
			return nil, fmt.Errorf("%s: %q has no %s.want", path, c.Name, c.Name)
		}
		if err := parseWant(c, a.Files[i].Data); err != nil {
			return nil, fmt.Errorf("%s: %s.want: %v", path, c.Name, err)
		}
	}
	for name := range g.want {
		if _, ok := code[name]; !ok {
			return nil, fmt.Errorf("%s: %s.want has no program", path, name)
		}
	}
	return g, nil
}

// parseWant reads a .want file into c.
func parseWant(c *Case, data []byte) error {
	c.Want = nil
	for _, line := range strings.Split(strings.TrimSpace(string(data)), "\n") {
		line = strings.TrimSpace(line)
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		key, val, _ := strings.Cut(line, ":")
		val = strings.TrimSpace(val)
		var err error
		switch key {
		case "value":
			if val != "undefined" {
				if err = json.Unmarshal([]byte(val), &c.Want); err != nil {
					return fmt.Errorf("value: %v", err)
				}
			}
		case "error":
			for _, code := range strings.Split(val, "|") {
				c.WantCodes = append(c.WantCodes, errs.Code(strings.TrimSpace(code)))
			}
		case "message":
			c.WantMsg = val
		case "line":
			c.WantLine, err = strconv.Atoi(val)
		case "column":
			c.WantColumn, err = strconv.Atoi(val)
		case "log":
			c.WantLogs = append(c.WantLogs, val)
		case "timeout":
			c.Timeout, err = time.ParseDuration(val)
		case "memory":
			n, unit := val, int64(1)
			if strings.HasSuffix(val, "MiB") {
				n, unit = strings.TrimSpace(strings.TrimSuffix(val, "MiB")), 1<<20
			}
			c.MemoryLimit, err = strconv.ParseInt(n, 10, 64)
			c.MemoryLimit *= unit
		case "hostile":
			c.Hostile = true
		case "slow":
			c.Slow = true
		case "interruptible":
			c.Interruptible = true
		default:
			return fmt.Errorf("unknown line %q", line)
		}
		if err != nil {
			return fmt.Errorf("%s: %v", key, err)
		}
	}
	return nil
}

// formatWant writes c's expectations in the .want format.
func formatWant(c Case) []byte {
	var b bytes.Buffer
	if len(c.WantCodes) > 0 {
		codes := make([]string, len(c.WantCodes))
		for i, code := range c.WantCodes {
			codes[i] = string(code)
		}
		fmt.Fprintf(&b, "error: %s\n", strings.Join(codes, " | "))
	} else if c.Want == nil {
		b.WriteString("value: undefined\n")
	} else {
		v, _ := json.Marshal(c.Want)
		fmt.Fprintf(&b, "value: %s\n", v)
	}
	if c.WantMsg != "" {
		fmt.Fprintf(&b, "message: %s\n", c.WantMsg)
	}
	if c.WantLine != 0 {
		fmt.Fprintf(&b, "line: %d\n", c.WantLine)
	}
	if c.WantColumn != 0 {
		fmt.Fprintf(&b, "column: %d\n", c.WantColumn)
	}
	for _, l := range c.WantLogs {
		fmt.Fprintf(&b, "log: %s\n", l)
	}
	if c.Timeout != 0 {
		fmt.Fprintf(&b, "timeout: %s\n", c.Timeout)
	}
	if c.MemoryLimit != 0 {
		if c.MemoryLimit%(1<<20) == 0 {
			fmt.Fprintf(&b, "memory: %dMiB\n", c.MemoryLimit>>20)
		} else {
			fmt.Fprintf(&b, "memory: %d\n", c.MemoryLimit)
		}
	}
	if c.Hostile {
		b.WriteString("hostile\n")
	}
	if c.Slow {
		b.WriteString("slow\n")
	}
	if c.Interruptible {
		b.WriteString("interruptible\n")
	}
	return b.Bytes()
}

// updated returns c with its value, error and logs taken from o.
func updated(c Case, o *Outcome) Case {
	if o.Err != nil {
		keep := false
		for _, code := range c.WantCodes {
			keep = keep || code == o.Err.Code
		}
		if !keep {
			c.WantCodes = []errs.Code{o.Err.Code}
		}
		c.Want = nil
	} else {
		c.WantCodes, c.WantMsg, c.WantLine, c.WantColumn = nil, "", 0, 0
		c.Want = nil
		if o.Value != nil {
			_ = json.Unmarshal(o.Value, &c.Want)
		}
	}
	c.WantLogs = nil
	if len(o.Logs) > 0 {
		c.WantLogs = append([]string(nil), o.Logs...)
	}
	return c
}

var updateMu sync.Mutex

// runGroup runs one archive's cases, and rewrites it under -update.
func runGroup(t *testing.T, g *dataGroup, run func(t *testing.T, c Case) *Outcome) {
	got := make([]*Outcome, len(g.cases))
	for k, c := range g.cases {
		t.Run(c.Name, func(t *testing.T) { got[k] = run(t, c) })
	}
	if !*update {
		return
	}
	updateMu.Lock()
	defer updateMu.Unlock()
	for k, c := range g.cases {
		if got[k] == nil {
			continue // skipped
		}
		g.archive.Files[g.want[c.Name]].Data = formatWant(updated(c, got[k]))
	}
	if err := os.WriteFile(g.path, txtar.Format(g.archive), 0o644); err != nil {
		t.Errorf("-update: %v", err)
	}
}
