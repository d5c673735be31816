package runtime_test

import (
	"bytes"
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"sort"
	"strings"
	"testing"
	"time"

	"golang.org/x/tools/txtar"

	"github.com/codemode/codemode/runtime"
	"github.com/codemode/codemode/scope"
	"github.com/codemode/codemode/tools/errs"
)

// The differential corpus: programs in the style models write for Node,
// Deno and Workers, each run on both engines and compared value for value
// with the same program in V8. testdata/corpus/*.txtar holds them: a
// program is a section NAME.js, and what V8 made of it is NAME.want,
// written by -update-corpus:
//
//	value: JSON          the return value (JSON.stringify'd, as code_run does)
//	value: undefined     no value
//	error: NAME          the program threw an Error of this name
//	known: ENGINE: WHY   a difference this engine keeps, and its cause
//	                     (kept by -update-corpus; the test fails when the
//	                     difference is gone, so the list stays true)
//
// Adding a program is adding a section NAME.js and running
//
//	go test ./runtime -run TestCorpus -update-corpus
//
// which runs every program in V8 through scripts/corpus-v8.mjs: with deno
// ($CODEMODE_DENO, or deno on PATH) when there is one, else node (Node 20
// lacks some ES2024+ functions: prefer deno, `npm install deno`). CI needs
// neither: the outcomes are in the files.
var updateCorpus = flag.Bool("update-corpus", false, "rewrite testdata/corpus/*.want sections from V8 (deno or node)")

type corpusCase struct {
	file, name, code string
	want             corpusWant
}

type corpusWant struct {
	value     json.RawMessage
	undefined bool
	err       string
	known     map[string]string // engine → cause
	lines     []string          // the known lines, verbatim
}

func (w corpusWant) String() string {
	switch {
	case w.err != "":
		return "error: " + w.err
	case w.undefined:
		return "value: undefined"
	}
	return "value: " + string(w.value)
}

func parseWant(text string) corpusWant {
	w := corpusWant{known: map[string]string{}}
	for _, l := range strings.Split(text, "\n") {
		k, v, ok := strings.Cut(l, ": ")
		if !ok {
			continue
		}
		switch k {
		case "value":
			if v == "undefined" {
				w.undefined = true
			} else {
				w.value = json.RawMessage(v)
			}
		case "error":
			w.err = v
		case "known":
			eng, why, _ := strings.Cut(v, ": ")
			w.known[eng] = why
			w.lines = append(w.lines, l)
		}
	}
	return w
}

func loadCorpus(t *testing.T, dir string) (map[string]*txtar.Archive, []*corpusCase) {
	t.Helper()
	files, err := filepath.Glob(filepath.Join("testdata", dir, "*.txtar"))
	if err != nil || len(files) == 0 {
		t.Fatalf("no corpus files: %v", err)
	}
	archives := map[string]*txtar.Archive{}
	var cases []*corpusCase
	for _, f := range files {
		a, err := txtar.ParseFile(f)
		if err != nil {
			t.Fatal(err)
		}
		archives[f] = a
		wants := map[string]string{}
		for _, s := range a.Files {
			if name, ok := strings.CutSuffix(s.Name, ".want"); ok {
				wants[name] = string(s.Data)
			}
		}
		for _, s := range a.Files {
			if name, ok := strings.CutSuffix(s.Name, ".js"); ok {
				cases = append(cases, &corpusCase{file: f, name: name, code: string(s.Data), want: parseWant(wants[name])})
			}
		}
	}
	return archives, cases
}

// outcomeOf is what an engine made of a program, in the corpus's terms.
func outcomeOf(o runtime.Outcome) corpusWant {
	if o.Err != nil {
		name := "Uncaught"
		if o.Err.Code == errs.CodeSyntaxError {
			name = "SyntaxError"
		} else if n, _, ok := strings.Cut(o.Err.Message, ": "); ok && !strings.ContainsAny(n, " ") {
			name = n
		} else {
			name = string(o.Err.Code) + " " + o.Err.Message
		}
		return corpusWant{err: name}
	}
	if len(o.Value) == 0 {
		return corpusWant{undefined: true}
	}
	return corpusWant{value: o.Value}
}

func sameOutcome(got, want corpusWant) bool {
	if got.err != "" || want.err != "" {
		return got.err == want.err
	}
	if got.undefined || want.undefined {
		return got.undefined == want.undefined
	}
	var g, w any
	if json.Unmarshal(got.value, &g) != nil || json.Unmarshal(want.value, &w) != nil {
		return bytes.Equal(got.value, want.value)
	}
	return reflect.DeepEqual(g, w)
}

func TestCorpus(t *testing.T) {
	runCorpus(t, "corpus", "corpus", *updateCorpus, v8Deno)
}

// v8Deno is the V8 the language corpus is compared with: deno
// ($CODEMODE_DENO, or deno on PATH) when there is one, else node.
func v8Deno(t *testing.T, script string) *exec.Cmd {
	var cmd *exec.Cmd
	deno := os.Getenv("CODEMODE_DENO")
	if deno == "" {
		deno, _ = exec.LookPath("deno")
	}
	if deno != "" {
		cmd = exec.Command(deno, "run", "--quiet", "--no-prompt", script)
	} else {
		t.Log("no deno: running the corpus in node, whose V8 may lack ES2024+ functions")
		cmd = exec.Command("node", script)
	}
	cmd.Env = append(os.Environ(), "TZ=UTC", "NO_COLOR=1")
	return cmd
}

// runCorpus runs the corpus in testdata/dir on both engines against the
// recorded V8 outcomes, or, with update, records V8's outcomes with the
// command v8 makes for scripts/corpus-v8.mjs.
func runCorpus(t *testing.T, label, dir string, update bool, v8 func(t *testing.T, script string) *exec.Cmd) {
	runCorpusWith(t, label, dir, update, v8, nil)
}

// denoMarker, a line of a program of a corpus that runCorpusWith is given
// a deno command for, makes the update take that program's outcome from
// deno (a current V8) instead (see TestWebCorpus).
const denoMarker = "// expected: deno"

// runCorpusWith is runCorpus, where the programs holding denoMarker get
// their outcomes from deno (nil: they keep the ones recorded).
func runCorpusWith(t *testing.T, label, dir string, update bool, v8, deno func(t *testing.T, script string) *exec.Cmd) {
	archives, cases := loadCorpus(t, dir)
	if update {
		updateFromV8(t, archives, cases, v8, deno)
		return
	}
	summary := []string{}
	for _, eng := range []string{runtime.EngineGoja, runtime.EngineWazero} {
		rt, err := runtime.New(runtime.Options{Engine: eng, Limits: runtime.Limits{Timeout: 10 * time.Second, MemoryBytes: 128 << 20}})
		if err != nil {
			t.Fatal(err)
		}
		pass, known := 0, 0
		for _, c := range cases {
			o := rt.Run(context.Background(), runtime.Request{Code: c.code})
			got := outcomeOf(o)
			same := sameOutcome(got, c.want)
			why, isKnown := c.want.known[eng]
			switch {
			case same && isKnown:
				t.Errorf("%s: %s %q: matches V8 now; remove its known line (%s)", eng, filepath.Base(c.file), c.name, why)
			case same:
				pass++
			case isKnown:
				known++
				t.Logf("%s: %s %q: known difference (%s): got %s, V8 %s", eng, filepath.Base(c.file), c.name, why, got, c.want)
			default:
				t.Errorf("%s: %s %q: got %s, V8 %s", eng, filepath.Base(c.file), c.name, got, c.want)
			}
		}
		rt.Close()
		summary = append(summary, fmt.Sprintf("%s %d/%d as V8 (%d known differences)", eng, pass, len(cases), known))
	}
	t.Logf("%s: %s", label, strings.Join(summary, "; "))
}

type v8Outcome struct {
	Value     json.RawMessage `json:"value"`
	Undefined bool            `json:"undefined"`
	Error     string          `json:"error"`
}

// updateFromV8 runs every program in V8 (those holding denoMarker in
// deno, when deno is not nil) and rewrites the .want sections.
func updateFromV8(t *testing.T, archives map[string]*txtar.Archive, cases []*corpusCase, v8, deno func(t *testing.T, script string) *exec.Cmd) {
	var main, marked []*corpusCase
	for _, c := range cases {
		if strings.Contains(c.code, denoMarker) {
			marked = append(marked, c)
		} else {
			main = append(main, c)
		}
	}
	res := runV8(t, main, v8)
	if len(marked) > 0 && deno == nil {
		t.Logf("no deno: %d programs marked %q keep their recorded outcomes", len(marked), denoMarker)
		for _, c := range marked {
			res[c.file+"\x00"+c.name] = v8Outcome{Value: c.want.value, Undefined: c.want.undefined, Error: c.want.err}
		}
	} else if len(marked) > 0 {
		for k, r := range runV8(t, marked, deno) {
			res[k] = r
		}
	}
	writeWants(t, archives, cases, res)
}

// runV8 runs the programs in the V8 that v8 starts: their outcomes by
// file and name.
func runV8(t *testing.T, cases []*corpusCase, v8 func(t *testing.T, script string) *exec.Cmd) map[string]v8Outcome {
	type prog struct {
		Name string `json:"name"`
		Code string `json:"code"`
	}
	progs := make([]prog, len(cases))
	for i, c := range cases {
		progs[i] = prog{c.file + "\x00" + c.name, c.code}
	}
	in, _ := json.Marshal(progs)
	script, _ := filepath.Abs(filepath.Join("..", "scripts", "corpus-v8.mjs"))
	cmd := v8(t, script)
	cmd.Stdin = bytes.NewReader(in)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("%s: %v\n%s", cmd, err, stderr.String())
	}
	var res map[string]v8Outcome
	if err := json.Unmarshal(out, &res); err != nil {
		t.Fatalf("reading V8's outcomes: %v", err)
	}
	return res
}

// writeWants rewrites the .want sections with the outcomes, keeping the
// known lines.
func writeWants(t *testing.T, archives map[string]*txtar.Archive, cases []*corpusCase, res map[string]v8Outcome) {
	byFile := map[string]map[string]string{}
	for _, c := range cases {
		r, ok := res[c.file+"\x00"+c.name]
		if !ok {
			t.Fatalf("V8 gave no outcome for %q", c.name)
		}
		var lines []string
		switch {
		case r.Error != "":
			lines = append(lines, "error: "+r.Error)
		case r.Undefined:
			lines = append(lines, "value: undefined")
		default:
			lines = append(lines, "value: "+string(r.Value))
		}
		lines = append(lines, c.want.lines...)
		if byFile[c.file] == nil {
			byFile[c.file] = map[string]string{}
		}
		byFile[c.file][c.name] = strings.Join(lines, "\n") + "\n"
	}
	names := make([]string, 0, len(archives))
	for f := range archives {
		names = append(names, f)
	}
	sort.Strings(names)
	for _, f := range names {
		a := archives[f]
		var files []txtar.File
		for _, s := range a.Files {
			if strings.HasSuffix(s.Name, ".want") {
				continue
			}
			files = append(files, s)
			if name, ok := strings.CutSuffix(s.Name, ".js"); ok {
				files = append(files, txtar.File{Name: name + ".want", Data: []byte(byFile[f][name])})
			}
		}
		a.Files = files
		if err := os.WriteFile(f, txtar.Format(a), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	t.Logf("wrote the V8 outcomes of %d programs", len(cases))
}

// Syntax goja lacks, in persistent mode (the rewrite reads the lowered
// parse on both engines) and with TypeScript, and a runtime error's line
// in such a program: the user's, on both engines.
func TestModernSyntaxModes(t *testing.T) {
	for name, rt := range engines(t) {
		t.Run(name, func(t *testing.T) {
			host := scope.NewHost("h")
			defer host.Dispose()
			es := rt.NewEnvironments(host.Child(scope.KindPlugin, "codemode"), runtime.EnvOptions{})
			o := es.Owner(host.Child(scope.KindAgent, "a"), "codemode")
			steps := []struct{ code, want string }{
				{"async function* gen(n) { for (let i = 0; i < n; i++) yield i }\nconst got = []\nfor await (const v of gen(3)) got.push(v)\nlet total = got.reduce((a, b) => a + b, 0)\nreturn total", "3"},
				{"const more = []\nfor await (const v of gen(2)) more.push(v)\nsetTimeout(() => more.push('late'), 1)\nawait new Promise(r => setTimeout(r, 5))\nreturn [total, more, Object.groupBy(more, x => typeof x)]", `[3,[0,1,"late"],{"number":[0,1],"string":["late"]}]`},
			}
			for i, s := range steps {
				out := es.Run(context.Background(), o, runtime.Request{Code: s.code})
				if out.Err != nil || string(out.Value) != s.want {
					t.Fatalf("step %d: got %s, %v; want %s", i, out.Value, out.Err, s.want)
				}
			}
			for _, code := range []string{
				"interface P { n: number }\nconst ps: P[] = []\nasync function* g(): AsyncGenerator<number> { yield 1 }\nfor await (const x of g()) ps.push({ n: x })\n\nthrow new Error('boom ' + ps.length)",
				"const ps = []\nasync function* g() { yield 1 }\nfor await (const x of g()) ps.push(x)\n\n\nthrow new Error('boom ' + ps.length)",
				"const ps = []\nasync function* g() { yield 1 }\nfor await (const x of g()) {\n  ps.push(x)\n\n  if (x) throw new Error('boom ' + ps.length)\n}",
			} {
				out := rt.Run(context.Background(), runtime.Request{Code: code})
				if out.Err == nil || out.Err.Code != errs.CodeRuntimeError || !strings.Contains(out.Err.Message, "boom 1") {
					t.Fatalf("got %s, %v; want RUNTIME_ERROR boom 1", out.Value, out.Err)
				}
				if out.Err.Info["line"] != 6 {
					t.Errorf("%q: error at line %v, want 6 (%v)", code[:20], out.Err.Info["line"], out.Err.Info)
				}
				// The column is on the user's line 6 (engines differ on
				// which token of the throw statement they name).
				if c, _ := out.Err.Info["column"].(int); c < 1 || c > len(strings.Split(code, "\n")[5]) {
					t.Errorf("%q: error column %v, not on the user's line 6", code[:20], out.Err.Info["column"])
				}
			}
		})
	}
}

// A program over esbuild's limits (source.MaxTypeScriptBytes) that goja's
// parser rejects: QuickJS's own parser decides on wazero per call (and its
// `for await` runs); goja and persistent environments get a SYNTAX_ERROR
// that names the limit and says what to do. The wrapper keeps such a
// program inside its function: text that closes it is a syntax error.
func TestBigModernSyntax(t *testing.T) {
	pad := strings.Repeat("acc.push({ id: acc.length, name: 'item ' + acc.length })\n", 360) // 20 KiB
	big := "async function* gen(n) { for (let i = 0; i < n; i++) yield i }\nconst acc = []\n" + pad +
		"let sum = 0\nfor await (const v of gen(4)) sum += v\nreturn [acc.length, sum]"
	if len(big) < 20<<10 {
		t.Fatalf("program is %d bytes", len(big))
	}
	bad := big[:len(big)-len("return [acc.length, sum]")] + "return [acc.length,, sum +]\nlet z = 1"
	badLine := strings.Count(bad, "\n") // the user's line with `sum +]`
	escape := "x = 1\n}}}); globalThis.escaped = 1; (async function(){__cm_x:{{\n" + pad + "for await (const v of []) {}"
	for name, rt := range engines(t) {
		t.Run(name, func(t *testing.T) {
			out := rt.Run(context.Background(), runtime.Request{Code: big})
			if name == runtime.EngineWazero {
				if out.Err != nil || string(out.Value) != "[360,6]" {
					t.Fatalf("got %s, %v; want [360,6]", out.Value, out.Err)
				}
				out = rt.Run(context.Background(), runtime.Request{Code: bad})
				if out.Err == nil || out.Err.Code != errs.CodeSyntaxError || out.Err.Info["line"] != badLine {
					t.Fatalf("syntax error: got %v (%v), want SYNTAX_ERROR at line %d", out.Err, out.Err.Info, badLine)
				}
				if !strings.Contains(out.Err.Message, "not transpiled") {
					t.Errorf("syntax error: %q does not say the program was too big to transpile", out.Err.Message)
				}
				ts := "const n: number = 1\n" + pad + "return n"
				out = rt.Run(context.Background(), runtime.Request{Code: ts})
				if out.Err == nil || out.Err.Code != errs.CodeSyntaxError || !strings.Contains(out.Err.Message, "TypeScript types are not stripped") {
					t.Fatalf("TypeScript: got %s, %v; want SYNTAX_ERROR naming the limit", out.Value, out.Err)
				}
				t.Logf("TypeScript: %v", out.Err)
				out = rt.Run(context.Background(), runtime.Request{Code: escape + "\nreturn typeof escaped"})
				if out.Err == nil || out.Err.Code != errs.CodeSyntaxError || !strings.Contains(out.Err.Message, "unbalanced braces") {
					t.Fatalf("escape: got %s, %v; want SYNTAX_ERROR saying the braces are unbalanced", out.Value, out.Err)
				}
				t.Logf("escape: %v", out.Err)
				if out = rt.Run(context.Background(), runtime.Request{Code: "return typeof escaped"}); string(out.Value) != `"undefined"` {
					t.Fatalf("escaped: %s %v", out.Value, out.Err)
				}
			} else if out.Err == nil || out.Err.Code != errs.CodeSyntaxError || !strings.Contains(out.Err.Message, "split it") {
				t.Fatalf("got %s, %v; want SYNTAX_ERROR naming the limit", out.Value, out.Err)
			}
			host := scope.NewHost("h")
			defer host.Dispose()
			es := rt.NewEnvironments(host.Child(scope.KindPlugin, "codemode"), runtime.EnvOptions{})
			o := es.Owner(host.Child(scope.KindAgent, "a"), "codemode")
			out = es.Run(context.Background(), o, runtime.Request{Code: big})
			t.Logf("persistent: %v", out.Err)
			if out.Err == nil || out.Err.Code != errs.CodeSyntaxError || !strings.Contains(out.Err.Message, "16384 bytes") {
				t.Fatalf("persistent: got %s, %v; want SYNTAX_ERROR naming the limit", out.Value, out.Err)
			}
		})
	}
}
