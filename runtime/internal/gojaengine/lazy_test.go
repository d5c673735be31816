package gojaengine

import (
	"testing"

	"github.com/codemode/codemode/runtime/internal/enginetest"
)

func TestLazyGlobals(t *testing.T) {
	eng, err := New(Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer eng.Close()
	for _, src := range []string{
		`return [typeof setTimeout, "fetch" in globalThis, Object.getOwnPropertyNames(globalThis).includes("setInterval"), String(setTimeout), setTimeout.name, setTimeout.length]`,
		`try { fetch("x") } catch (e) { return e.message }`,
		`try { globalThis["req"+"uire"]("x") } catch (e) { return e.message }`,
		`delete globalThis.setTimeout; return typeof setTimeout`,
		`globalThis.setTimeout = 5; return setTimeout`,
		`return await new Promise(r => setTimeout(() => r("fired"), 5))`,
		`return JSON.stringify(Object.getOwnPropertyDescriptor(globalThis, "clearTimeout"), (k,v)=> typeof v === "function" ? "fn" : v)`,
		`return Object.keys(globalThis)`,
		`return eval("typeof clearInterval")`,
	} {
		o := enginetest.Exec(t, eng, src, enginetest.ExecOptions{})
		t.Logf("%s => %s %v", src, o.Value, o.Err)
	}
}
