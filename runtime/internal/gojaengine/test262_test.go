package gojaengine

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"

	bare "github.com/dop251/goja"

	"github.com/codemode/codemode/runtime/internal/engine"
	"github.com/codemode/codemode/runtime/internal/enginetest"
	"github.com/codemode/codemode/runtime/internal/goja"
)

// TestTest262Wrappers runs the test262 tests of every built-in the
// sandbox wraps or adds (wrappedDirs) through bare upstream goja (the
// version runtime/internal/goja copies, without the sandbox) and through
// a sandbox realm (a VM of this engine: the prelude, glue.js, the es.js
// polyfills and the web globals the test names installed, a 1 GiB budget), each test as one
// script after its harness files, and reports per built-in how many pass
// on both, on bare goja only (a sandbox regression: must be none), on the
// sandbox only, and on neither. It needs a test262 checkout:
//
//	CODEMODE_TEST262=/path/to/test262 go test -run TestTest262Wrappers -v ./runtime/internal/gojaengine
//
// (scripts/test262-wrappers fetches the commit goja was tested with.)
// Tests flagged module or raw, and those with a feature neither engine
// has (test262Skip), are skipped for both; onlyStrict tests run strict,
// all others sloppy only.
func TestTest262Wrappers(t *testing.T) {
	base := os.Getenv("CODEMODE_TEST262")
	if base == "" {
		t.Skip("set CODEMODE_TEST262 to a test262 checkout")
	}
	d, err := newDriver(Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { d.Close() })
	h := &t262{base: base, d: d, harness: map[string]string{}}
	only := os.Getenv("CODEMODE_TEST262_ONLY")        // a substring of the test paths to run
	skipPath := os.Getenv("CODEMODE_TEST262_EXCLUDE") // a substring of the test paths to leave out
	var regressions []string
	for _, dir := range enginetest.Test262DirList() {
		var files []string
		root := filepath.Join(base, "test", "built-ins", dir)
		_ = filepath.WalkDir(root, func(p string, e fs.DirEntry, err error) error {
			if err == nil && !e.IsDir() && strings.HasSuffix(p, ".js") && !strings.Contains(p, "_FIXTURE") && strings.Contains(p, only) && (skipPath == "" || !strings.Contains(p, skipPath)) {
				files = append(files, p)
			}
			return nil
		})
		sort.Strings(files)
		var both, bareOnly, sandboxOnly, neither, skipped int
		for _, f := range files {
			rel, _ := filepath.Rel(filepath.Join(base, "test", "built-ins"), f)
			src, err := os.ReadFile(f)
			if err != nil {
				t.Fatal(err)
			}
			m := enginetest.ParseTest262Meta(string(src))
			if m.Skip() {
				skipped++
				continue
			}
			errB := h.runBare(string(src), m)
			errS := h.runSandbox(string(src), m)
			switch {
			case errB == nil && errS == nil:
				both++
			case errB == nil:
				bareOnly++
				regressions = append(regressions, fmt.Sprintf("%s: %v", rel, errS))
			case errS == nil:
				sandboxOnly++
				if os.Getenv("CODEMODE_TEST262_VERBOSE") != "" {
					t.Logf("sandbox only: %s (bare: %v)", rel, errB)
				}
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

type t262 struct {
	base    string
	d       *driver
	mu      sync.Mutex
	harness map[string]string
}

func (h *t262) file(name string) string {
	h.mu.Lock()
	defer h.mu.Unlock()
	if s, ok := h.harness[name]; ok {
		return s
	}
	b, err := os.ReadFile(filepath.Join(h.base, "harness", name))
	if err != nil {
		panic(err)
	}
	h.harness[name] = string(b)
	return string(b)
}

// script is what both engines run: the harness, then the test.
func (h *t262) script(src string, m enginetest.Test262Meta) (harness, test string) {
	var b strings.Builder
	incs := append([]string{"assert.js", "sta.js"}, m.Includes...)
	if slices.Contains(m.Flags, "async") {
		incs = append(incs, "doneprintHandle.js")
	}
	for _, inc := range incs {
		b.WriteString(h.file(inc))
		b.WriteString("\n")
	}
	if slices.Contains(m.Flags, "onlyStrict") {
		src = "'use strict';\n" + src
	}
	return b.String(), src
}

// outcome judges one run: err is the test's error (a compile error when
// early), printed what it printed; nil is a pass.
func outcome(m enginetest.Test262Meta, early bool, errType string, err error, printed []string) error {
	if m.NegType != "" {
		if err == nil {
			return fmt.Errorf("expected a %s", m.NegType)
		}
		if (m.NegPhase == "parse" || m.NegPhase == "early") != early {
			return fmt.Errorf("%s at the wrong phase: %v", m.NegType, err)
		}
		if errType != m.NegType {
			return fmt.Errorf("got %s, want %s: %v", errType, m.NegType, err)
		}
		return nil
	}
	if err != nil {
		return err
	}
	if slices.Contains(m.Flags, "async") {
		for _, l := range printed {
			if strings.HasPrefix(l, "Test262:AsyncTestFailure:") {
				return errors.New(l)
			}
			if l == "Test262:AsyncTestComplete" {
				return nil
			}
		}
		return errors.New("Test262:AsyncTestComplete was not printed")
	}
	return nil
}

const t262Deadline = 10 * time.Second

func (h *t262) runBare(src string, m enginetest.Test262Meta) (err error) {
	defer func() {
		if x := recover(); x != nil {
			err = fmt.Errorf("panic: %v", x)
		}
	}()
	harness, test := h.script(src, m)
	vm := bare.New()
	var printed []string
	vm.Set("print", func(s string) { printed = append(printed, s) })
	o := vm.NewObject()
	o.Set("detachArrayBuffer", func(c bare.FunctionCall) bare.Value {
		if b, ok := c.Argument(0).Export().(bare.ArrayBuffer); ok {
			b.Detach()
			return bare.Undefined()
		}
		panic(vm.NewTypeError("detachArrayBuffer: not an ArrayBuffer"))
	})
	o.Set("evalScript", func(c bare.FunctionCall) bare.Value {
		v, err := vm.RunString(c.Argument(0).String())
		if err != nil {
			panic(err)
		}
		return v
	})
	o.Set("gc", func(bare.FunctionCall) bare.Value { return bare.Undefined() })
	vm.Set("$262", o)
	timer := time.AfterFunc(t262Deadline, func() { vm.Interrupt("deadline") })
	defer timer.Stop()
	if _, err := vm.RunString(harness); err != nil {
		return fmt.Errorf("harness: %v", err)
	}
	prg, err := bare.Compile("test.js", test, false)
	if err != nil {
		var ce *bare.CompilerSyntaxError
		typ := "SyntaxError"
		if !errors.As(err, &ce) {
			typ = "ReferenceError"
		}
		return outcome(m, true, typ, err, nil)
	}
	_, err = vm.RunProgram(prg)
	typ := ""
	var ex *bare.Exception
	if errors.As(err, &ex) {
		if o, ok := ex.Value().(*bare.Object); ok {
			if c, ok := o.Get("constructor").(*bare.Object); ok {
				typ = c.Get("name").String()
			}
		}
	}
	return outcome(m, false, typ, err, printed)
}

func (h *t262) runSandbox(src string, m enginetest.Test262Meta) (err error) {
	defer func() {
		if x := recover(); x != nil {
			err = fmt.Errorf("panic: %v", x)
		}
	}()
	harness, test := h.script(src, m)
	v, err := h.sandbox(harness + test)
	if err != nil {
		return err
	}
	vm := v.rt
	var printed []string
	vm.Set("print", func(s string) { printed = append(printed, s) })
	o := vm.NewObject()
	o.Set("detachArrayBuffer", func(c goja.FunctionCall) goja.Value {
		if b, ok := c.Argument(0).Export().(goja.ArrayBuffer); ok {
			b.Detach()
			return goja.Undefined()
		}
		panic(vm.NewTypeError("detachArrayBuffer: not an ArrayBuffer"))
	})
	o.Set("evalScript", func(c goja.FunctionCall) goja.Value {
		v, err := vm.RunString(c.Argument(0).String())
		if err != nil {
			panic(err)
		}
		return v
	})
	o.Set("gc", func(goja.FunctionCall) goja.Value { return goja.Undefined() })
	vm.Set("$262", o)
	timer := time.AfterFunc(t262Deadline, func() { vm.Interrupt("deadline") })
	defer timer.Stop()
	if _, err := vm.RunString(harness); err != nil {
		return fmt.Errorf("harness: %v", err)
	}
	prg, err := goja.Compile("test.js", test, false)
	if err != nil {
		var ce *goja.CompilerSyntaxError
		typ := "SyntaxError"
		if !errors.As(err, &ce) {
			typ = "ReferenceError"
		}
		return outcome(m, true, typ, err, nil)
	}
	_, err = vm.RunProgram(prg)
	typ := ""
	var ex *goja.Exception
	if errors.As(err, &ex) {
		if o, ok := ex.Value().(*goja.Object); ok {
			if c, ok := o.Get("constructor").(*goja.Object); ok {
				typ = c.Get("name").String()
			}
		}
	}
	return outcome(m, false, typ, err, printed)
}

// sandbox returns a sandbox realm for script: a VM of this engine with a
// 1 GiB budget and the es.js features script names installed, as Eval
// installs them.
func (h *t262) sandbox(script string) (*vm, error) {
	v, err := h.d.newVM()
	if err != nil {
		return nil, err
	}
	if err := v.Configure(engine.VMConfig{MemoryLimit: 1 << 30, MaxStackDepth: 1000}); err != nil {
		return nil, err
	}
	h.d.polyOnce.Do(func() {
		needs, err := v.entry(engine.EntryPolyfill)(goja.Undefined(), v.rt.ToValue(engine.PolyfillNeeds))
		if err == nil {
			h.d.polySkip = engine.PolyfillSkip(needs.String())
		}
	})
	if names, _ := engine.Polyfills(script, h.d.polySkip); names != "" {
		if _, err := v.entry(engine.EntryPolyfill)(goja.Undefined(), v.rt.ToValue(names)); err != nil {
			return nil, fmt.Errorf("polyfill: %v", err)
		}
	}
	// The web globals and Intl the script names, as Eval builds them.
	if names, _ := engine.WebGlobals(script, 0); names != "" {
		if _, err := v.entry(engine.EntryGlue)(goja.Undefined(), v.rt.ToValue(names)); err != nil {
			return nil, fmt.Errorf("web globals: %v", err)
		}
	}
	return v, nil
}
