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
	"github.com/codemode/codemode/tools/errs"
)

// The web and Intl differential corpus: programs using the web-platform
// globals and Intl, each run on both engines and compared value for value
// with the same program in V8 (Node's, whose ICU is the reference for
// Intl: run with TZ=UTC and the en-US locale, the sandbox's defaults).
// testdata/webcorpus/*.txtar holds them, in the format of the language
// corpus (testdata/corpus, branch lang): a
// program is a section NAME.js, and what V8 made of it is NAME.want,
// written by -update-webcorpus:
//
//	value: JSON          the return value (JSON.stringify'd, as code_run does)
//	value: undefined     no value
//	error: NAME          the program threw an Error of this name
//	known: ENGINE: WHY   a difference this engine keeps, and its cause
//	                     (kept by -update-webcorpus; the test fails when the
//	                     difference is gone, so the list stays true)
//
// Adding a program is adding a section NAME.js and running
//
//	go test ./runtime -run TestWebCorpus -update-webcorpus
//
// which runs every program in node through scripts/corpus-v8.mjs (node,
// not deno: the expected Intl output is that of the ICU that
// scripts/intlgen.mjs read its data from). CI needs no node: the outcomes
// are in the files.
var updateWebCorpus = flag.Bool("update-webcorpus", false, "rewrite testdata/webcorpus/*.want sections from V8 (node)")

type webCase struct {
	file, name, code string
	want             webWant
}

type webWant struct {
	value     json.RawMessage
	undefined bool
	err       string
	known     map[string]string // engine → cause
	lines     []string          // the known lines, verbatim
}

func (w webWant) String() string {
	switch {
	case w.err != "":
		return "error: " + w.err
	case w.undefined:
		return "value: undefined"
	}
	return "value: " + string(w.value)
}

func parseWebWant(text string) webWant {
	w := webWant{known: map[string]string{}}
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

func loadWebCorpus(t *testing.T) (map[string]*txtar.Archive, []*webCase) {
	t.Helper()
	files, err := filepath.Glob(filepath.Join("testdata", "webcorpus", "*.txtar"))
	if err != nil || len(files) == 0 {
		t.Fatalf("no corpus files: %v", err)
	}
	archives := map[string]*txtar.Archive{}
	var cases []*webCase
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
				cases = append(cases, &webCase{file: f, name: name, code: string(s.Data), want: parseWebWant(wants[name])})
			}
		}
	}
	return archives, cases
}

// webOutcomeOf is what an engine made of a program, in the corpus's terms.
func webOutcomeOf(o runtime.Outcome) webWant {
	if o.Err != nil {
		name := "Uncaught"
		if o.Err.Code == errs.CodeSyntaxError {
			name = "SyntaxError"
		} else if n, _, ok := strings.Cut(o.Err.Message, ": "); ok && !strings.ContainsAny(n, " ") {
			name = n
		} else {
			name = string(o.Err.Code) + " " + o.Err.Message
		}
		return webWant{err: name}
	}
	if len(o.Value) == 0 {
		return webWant{undefined: true}
	}
	return webWant{value: o.Value}
}

func sameWebOutcome(got, want webWant) bool {
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

func TestWebCorpus(t *testing.T) {
	archives, cases := loadWebCorpus(t)
	if *updateWebCorpus {
		updateWebFromV8(t, archives, cases)
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
			got := webOutcomeOf(o)
			same := sameWebOutcome(got, c.want)
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
	t.Logf("web corpus: %s", strings.Join(summary, "; "))
}

// updateFromV8 runs every program in V8 and rewrites the .want sections.
func updateWebFromV8(t *testing.T, archives map[string]*txtar.Archive, cases []*webCase) {
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
	cmd := exec.Command("node", script)
	cmd.Env = append(os.Environ(), "TZ=UTC", "NO_COLOR=1", "LC_ALL=en_US.UTF-8", "LANG=en_US.UTF-8")
	cmd.Stdin = bytes.NewReader(in)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("%s: %v\n%s", cmd, err, stderr.String())
	}
	var res map[string]struct {
		Value     json.RawMessage `json:"value"`
		Undefined bool            `json:"undefined"`
		Error     string          `json:"error"`
	}
	if err := json.Unmarshal(out, &res); err != nil {
		t.Fatalf("reading V8's outcomes: %v", err)
	}
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
