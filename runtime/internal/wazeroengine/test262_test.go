package wazeroengine

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/codemode/codemode/runtime/internal/engine"
	"github.com/codemode/codemode/runtime/internal/enginetest"
	"github.com/codemode/codemode/runtime/internal/quickjs"
	"github.com/codemode/codemode/runtime/internal/source"
)

// TestTest262Wrappers is the gojaengine test of that name on wazero: the
// test262 tests of the built-ins the sandbox wraps or adds, through a bare
// QuickJS context (the same instance, no prelude) and through a sandbox
// context (the prelude, the glue, the es.js features the test names),
// counted per directory; a test the bare context passes and the sandbox
// fails fails the run. It needs CODEMODE_TEST262 (scripts/test262-wrappers
// sets it). On both sides $262.detachArrayBuffer is ArrayBuffer.prototype.
// transfer, and a negative test passes with an error of its type at any
// phase.
func TestTest262Wrappers(t *testing.T) {
	base := os.Getenv("CODEMODE_TEST262")
	if base == "" {
		t.Skip("set CODEMODE_TEST262 to a test262 checkout")
	}
	art, err := quickjs.LoadArtifact("")
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	rt, err := quickjs.NewRuntime(ctx, quickjs.RuntimeOptions{Artifact: art})
	if err != nil {
		t.Fatal(err)
	}
	d := &driver{opts: Options{}.withDefaults(), rt: rt, bgCtx: ctx, zone: "UTC"}
	only := os.Getenv("CODEMODE_TEST262_ONLY")
	skipPath := os.Getenv("CODEMODE_TEST262_EXCLUDE") // a substring of the test paths to leave out
	harness := map[string]string{}
	file := func(name string) string {
		if s, ok := harness[name]; ok {
			return s
		}
		b, err := os.ReadFile(filepath.Join(base, "harness", name))
		if err != nil {
			t.Fatal(err)
		}
		harness[name] = string(b)
		return string(b)
	}
	var v *vm
	used := 0
	fresh := func() {
		if v != nil {
			v.Close()
		}
		if v, err = d.buildVM(); err != nil {
			t.Fatal(err)
		}
		if err := v.Configure(engine.VMConfig{MemoryLimit: 1 << 30, MaxStackDepth: 10000}); err != nil {
			t.Fatal(err)
		}
		// No run is in progress: the host services (web, Intl) are
		// answered here, as a run's hostCall answers them.
		inst := v.inst
		inst.Hooks.Call = func(c quickjs.Context, argc, argv, id uint32) quickjs.Value {
			if id == hostFuncID && argc >= 1 {
				if a, err := inst.Arg(argv, 0); err == nil {
					if s, err := inst.GetString(c, a); err == nil && strings.HasPrefix(s, "S") {
						op, arg, _ := strings.Cut(s[1:], "\n")
						val, _ := inst.NewString(c, engine.HostService("UTC", op, arg))
						return val
					}
				}
			}
			return 0
		}
		used = 0
	}
	fresh()
	defer func() { v.Close() }()
	var regressions []string
	for _, dir := range enginetest.Test262DirList() {
		var files []string
		_ = filepath.WalkDir(filepath.Join(base, "test", "built-ins", dir), func(p string, e fs.DirEntry, err error) error {
			if err == nil && !e.IsDir() && strings.HasSuffix(p, ".js") && !strings.Contains(p, "_FIXTURE") && strings.Contains(p, only) && (skipPath == "" || !strings.Contains(p, skipPath)) {
				files = append(files, p)
			}
			return nil
		})
		sort.Strings(files)
		var both, bareOnly, sandboxOnly, neither, skipped int
		for _, f := range files {
			rel, _ := filepath.Rel(filepath.Join(base, "test", "built-ins"), f)
			b, err := os.ReadFile(f)
			if err != nil {
				t.Fatal(err)
			}
			src := string(b)
			m := enginetest.ParseTest262Meta(src)
			if m.Skip() {
				skipped++
				continue
			}
			incs := append([]string{"assert.js", "sta.js"}, m.Includes...)
			if slices.Contains(m.Flags, "async") {
				incs = append(incs, "doneprintHandle.js")
			}
			var hb strings.Builder
			for _, inc := range incs {
				hb.WriteString(file(inc))
				hb.WriteString("\n")
			}
			if slices.Contains(m.Flags, "onlyStrict") {
				src = "'use strict';\n" + src
			}
			if used++; used > 100 || v.dirty {
				fresh()
			}
			// QuickJS runs jobs per runtime, not per context: a finalization
			// job left by the bare context would run in the sandbox's after
			// its own context was freed. Such tests get an instance each.
			fr := strings.Contains(src, "FinalizationRegistry")
			if fr {
				fresh()
			}
			errB := runQJS(v, false, hb.String(), src, m)
			if fr {
				fresh()
			}
			errS := runQJS(v, true, hb.String(), src, m)
			switch {
			case errB == nil && errS == nil:
				both++
			case errB == nil:
				bareOnly++
				regressions = append(regressions, fmt.Sprintf("%s: %v", rel, errS))
			case errS == nil:
				sandboxOnly++
			default:
				neither++
				if os.Getenv("CODEMODE_TEST262_VERBOSE") != "" {
					t.Logf("neither: %s (bare: %v; sandbox: %v)", rel, errB, errS)
				}
			}
		}
		t.Logf("| %s | %d | %d | %d | %d | %d |", dir, both, bareOnly, sandboxOnly, neither, skipped)
	}
	for _, r := range regressions {
		t.Errorf("bare only (a sandbox regression): %s", r)
	}
}

const qjsSetup = `var __printed = [];
var print = function (s) { __printed.push(String(s)); };
var $262 = {
  detachArrayBuffer: function (b) { b.transfer(); },
  evalScript: function (s) { return (0, eval)(s); },
  gc: function () {}
};
(function (e) { return (e !== null && typeof e === "object" && e.constructor ? e.constructor.name : typeof e) + ": " + String(e && e.message); })`

// runQJS runs one test in a new context of v's instance: the sandbox's
// (the prelude installed) or a bare one. nil is a pass.
func runQJS(v *vm, sandbox bool, harness, test string, m enginetest.Test262Meta) (res error) {
	i := v.inst
	var c quickjs.Context
	if sandbox {
		// as source.Prepare does for a program: the regexp literals
		// QuickJS cannot compile, rewritten
		if lowered, err := source.LowerRegExpLiterals(test); err == nil {
			test = lowered
		}
		if err := v.freeContext(); err != nil {
			return err
		}
		if err := v.newContext(); err != nil {
			return err
		}
		c = v.ctx
		v.d.polyOnce.Do(func() {
			if needs, err := v.callString(engine.EntryPolyfill, engine.PolyfillNeeds); err == nil {
				v.d.polySkip = engine.PolyfillSkip(needs)
			}
		})
		if names, _ := engine.Polyfills(harness+test, v.d.polySkip); names != "" {
			if _, err := v.callString(engine.EntryPolyfill, names); err != nil {
				return fmt.Errorf("polyfill: %v", err)
			}
		}
	} else {
		var err error
		if c, err = i.NewContext(); err != nil {
			return err
		}
		defer i.FreeContext(c)
	}
	v.interrupted.Store(false)
	timer := time.AfterFunc(10*time.Second, v.Interrupt)
	defer timer.Stop()
	kind, err := i.Eval(c, qjsSetup, "setup.js", quickjs.EvalGlobal)
	if err != nil {
		v.dirty = true
		return err
	}
	defer i.FreeValue(c, kind)
	// eval returns the exception's "Type: message", or "" when none.
	eval := func(code, name string) (string, error) {
		r, err := i.Eval(c, code, name, quickjs.EvalGlobal)
		if err != nil {
			v.dirty = true
			return "", err
		}
		defer i.FreeValue(c, r)
		exc, err := i.Exception(c, r)
		if err != nil || exc == 0 {
			return "", err
		}
		defer i.FreeValue(c, exc)
		s, err := i.CallFunction(c, kind, exc)
		if err != nil {
			return "", err
		}
		defer i.FreeValue(c, s)
		str, err := i.GetString(c, s)
		if str == "" {
			str = "?: ?"
		}
		return str, err
	}
	if e, err := eval(harness, "harness.js"); err != nil || e != "" {
		return fmt.Errorf("harness: %v%s", err, e)
	}
	e, err := eval(test, "test.js")
	if err != nil {
		return err
	}
	if m.NegType != "" {
		if typ, _, _ := strings.Cut(e, ":"); typ != m.NegType {
			return fmt.Errorf("got %q, want a %s", e, m.NegType)
		}
		return nil
	}
	if e != "" {
		return errors.New(e)
	}
	for {
		_, exc, err := i.ExecutePendingJobs(c, -1)
		if err != nil {
			v.dirty = true
			return err
		}
		if exc != 0 {
			i.FreeValue(c, exc)
			return errors.New("a job threw")
		}
		if pending, err := i.IsJobPending(); err != nil || !pending {
			break
		}
	}
	if !slices.Contains(m.Flags, "async") {
		return nil
	}
	r, err := i.Eval(c, `__printed.join("\n")`, "printed.js", quickjs.EvalGlobal)
	if err != nil {
		return err
	}
	defer i.FreeValue(c, r)
	out, _ := i.GetString(c, r)
	for _, l := range strings.Split(out, "\n") {
		if strings.HasPrefix(l, "Test262:AsyncTestFailure:") {
			return errors.New(l)
		}
		if l == "Test262:AsyncTestComplete" {
			return nil
		}
	}
	return errors.New("Test262:AsyncTestComplete was not printed")
}
