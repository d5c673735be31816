package bench

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/codemode/codemode/internal/dev/fixture"
	"github.com/codemode/codemode/internal/edge/upstream"
)

// FixturePrefix starts the name of every fixture workload: "fx-<server>".
const FixturePrefix = "fx-"

// FixtureWorkloads returns one workload per recording in dir (a file
// <server>.txtar, as `codemode run --record` writes them) that has calls:
// a program that makes the recorded calls again, in recorded order, one
// after another, each with its recorded arguments, so nested calls are
// timed on real result sizes and schemas. The server is mounted from the
// recording in process (as a {"fixture": …} config server is), under its
// file's name. Every run must see each call succeed or fail as it did when
// recorded; the answer is {calls, ok, errors, unexpected: null}.
func FixtureWorkloads(dir string) ([]*Workload, error) {
	paths, err := filepath.Glob(filepath.Join(dir, "*"+fixture.Ext))
	if err != nil {
		return nil, err
	}
	sort.Strings(paths)
	var out []*Workload
	for _, path := range paths {
		w, err := fixtureWorkload(path)
		if err != nil {
			return nil, err
		}
		if w != nil {
			out = append(out, w)
		}
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("no recording with calls in %s (want <server>%s files written by codemode run --record)", dir, fixture.Ext)
	}
	return out, nil
}

func fixtureWorkload(path string) (*Workload, error) {
	fx, err := fixture.ReadFile(path)
	if err != nil {
		return nil, err
	}
	if len(fx.Calls) == 0 {
		return nil, nil
	}
	abs, err := filepath.Abs(path)
	if err != nil {
		return nil, err
	}
	server := strings.TrimSuffix(filepath.Base(path), fixture.Ext)
	var steps []any
	ok, bytes := 0, 0
	for _, c := range fx.Calls {
		good := c.Error == nil && !isErrorResult(c.Result)
		if good {
			ok++
		}
		bytes += len(c.Result)
		steps = append(steps, []any{upstream.ToolName(server, c.Tool), c.Arguments, good})
	}
	list, err := json.Marshal(steps)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	code := fmt.Sprintf(`const calls = %s;
let ok = 0, errors = 0, unexpected = null;
for (const [name, args, recordedOK] of calls) {
  let good = true, why = "";
  try { await tools[name](args); } catch (e) { good = false; why = (e && e.code) + ": " + (e && e.message); }
  if (good) ok++; else errors++;
  if (good !== recordedOK && unexpected === null)
    unexpected = name + (good ? ": succeeded, but failed when recorded" : " failed (" + why + "), but succeeded when recorded");
}
return {calls: calls.length, ok, errors, unexpected};`, list)
	n := len(fx.Calls)
	return &Workload{
		Name:     FixturePrefix + server,
		Param:    bytes,
		Code:     code,
		Calls:    n,
		fixtures: map[string]string{server: abs},
		want:     mustCanonical(map[string]any{"calls": n, "ok": ok, "errors": n - ok, "unexpected": nil}),
	}, nil
}

func isErrorResult(result json.RawMessage) bool {
	var r struct {
		IsError bool `json:"isError"`
	}
	return json.Unmarshal(result, &r) == nil && r.IsError
}

// fixtureConfig writes a config that mounts w's recordings, for `codemode
// serve --config` (--via mcp), and returns its path and a function that
// removes it.
func fixtureConfig(w *Workload) (string, func(), error) {
	servers := map[string]any{}
	for name, path := range w.fixtures {
		servers[name] = map[string]string{"fixture": path}
	}
	b, err := json.Marshal(map[string]any{"mcpServers": servers})
	if err != nil {
		return "", nil, err
	}
	f, err := os.CreateTemp("", "codemode-bench-*.json")
	if err != nil {
		return "", nil, err
	}
	if _, err := f.Write(b); err != nil {
		f.Close()
		os.Remove(f.Name())
		return "", nil, err
	}
	if err := f.Close(); err != nil {
		os.Remove(f.Name())
		return "", nil, err
	}
	return f.Name(), func() { os.Remove(f.Name()) }, nil
}
