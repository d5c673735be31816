package wazeroengine

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/codemode/codemode/runtime/internal/engine"
	"github.com/codemode/codemode/runtime/internal/quickjs"
)

// TestConcatIteratorReentrantReturn: a return() of an Iterator.concat
// iterator from the program's code that its next() runs throws a
// TypeError, as the spec's does for an executing iterator (glue.js: the
// pinned QuickJS-ng freed the values next() still used, upstream daab4ad,
// and the instance trapped; QuickJS-ng's tests/bug1368.js is the first
// case). The guarded methods keep their names and lengths.
func TestConcatIteratorReentrantReturn(t *testing.T) {
	e := newTestEngine(t, Options{PoolSize: -1})
	const body = `
var out = [];
function junk() { var j = []; for (var i = 0; i < 200; i++) j.push({ i: i }); }
for (var k = 0; k < 50; k++) {
  let it;
  const evil = { [Symbol.iterator]() { try { it.return(); out.push("returned"); } catch (e) { out.push(e.constructor.name); } return [k][Symbol.iterator](); } };
  it = Iterator.concat(evil, [k + 1]);
  out.push(JSON.stringify([...it]));
  const getter = { [Symbol.iterator]() { return { get next() { try { it.return(); } catch (e) { out.push(e.constructor.name); } return function () { return { done: true }; }; } }; } };
  it = Iterator.concat(getter, ["x"]);
  out.push(JSON.stringify([...it]));
  junk();
}
var p = Object.getPrototypeOf(Iterator.concat());
var dn = Object.getOwnPropertyDescriptor(p, "next"), dr = Object.getOwnPropertyDescriptor(p, "return");
var meta = [p.next.name, p.next.length, p.return.name, p.return.length, dn.writable, dn.enumerable, dn.configurable, String(p.next).includes("native code")].join();
var done = Iterator.concat((function* () { yield 1; yield 2; })(), [3]);
done.next();
return [out.slice(0, 4).join(" "), out.length, meta, JSON.stringify(done.return()), JSON.stringify(done.next())].join(" | ");`
	for round := 0; round < 2; round++ {
		res, _ := runBody(t, e, body, 20*time.Second, engine.EnvOptions{}, nil)
		if res.Err != nil {
			t.Fatalf("round %d: %v", round, res.Err)
		}
		const want = `"TypeError [0,1] TypeError [\"x\"] | 200 | next,1,return,1,true,false,true,true | {\"done\":true} | {\"done\":true}"`
		if got := string(res.Value); got != want {
			t.Errorf("round %d:\n got %s\nwant %s", round, got, want)
		}
	}
}

// TestFinalizationRegistryCycles: registries that die in a garbage cycle
// with their targets, callbacks or held values (QuickJS-ng's
// tests/bug1318.js and bug1352.js, with allocation for the GC and turns of
// the event loop for the finalization jobs) leave the instance intact
// (the pinned QuickJS-ng's own registry queued calls of freed callbacks
// and aborted in a job, upstream 78494db and 8f62384: glue.js replaces
// WeakRef and FinalizationRegistry with es.js's, which hold nothing
// weakly and run no callback). Registration still works.
func TestFinalizationRegistryCycles(t *testing.T) {
	e := newTestEngine(t, Options{PoolSize: -1})
	const body = `var calls = 0, out = [];
function junk() { var j = []; for (var i = 0; i < 30000; i++) j.push({ i: i, s: "s" + i }); return j.length; }
for (var k = 0; k < 30; k++) {
  (function () { let target = {}; let fr = new FinalizationRegistry(function (h) { calls++; }); fr.register(target, fr); fr.ref = target; target.ref = fr; })();
  (function () { let target = {}; let cb = function (h) { calls++; out.push(typeof h); }; let fr = new FinalizationRegistry(cb); fr.register(target, { k: k }); fr.ref = target; target.ref = fr; target.cb = cb; })();
  (function () {
    class Registry { #fr = new FinalizationRegistry(v => { calls++; }); set(key) { const ref = new WeakRef(key); this.#fr.register(key, {}, ref); } }
    function Observer() { this.targets = new Registry; }
    Observer.prototype.observe = function (target) { this.targets.set(target); target.subset = new Set; target.subset.add(this); };
    let sample = {}; new Observer().observe(sample);
  })();
  (function () { let key = Symbol("fortytwo"); let wm = new WeakMap(); let fr = new FinalizationRegistry(() => { calls++; }); fr.register(key, 42); wm.set(key, fr); })();
  junk();
  await new Promise(r => setTimeout(r, 0));
  junk();
}
return "ok " + (calls >= 0) + " " + out.filter(x => x !== "object").length;`
	res, _ := runBody(t, e, body, 60*time.Second, engine.EnvOptions{}, nil)
	if res.Err != nil {
		t.Fatal(res.Err)
	}
	if got, want := string(res.Value), `"ok true 0"`; got != want {
		t.Errorf("got %s, want %s", got, want)
	}
	const meta = `var p = FinalizationRegistry.prototype, d = Object.getOwnPropertyDescriptor(p, "register");
var fr = new FinalizationRegistry(function () {}), tok = {}, target = {};
fr.register(target, 1, tok);
return [p.register.name, p.register.length, d.writable, d.enumerable, d.configurable, String(p.register).includes("native code"), fr.unregister(tok), fr.unregister(tok)].join();`
	res, _ = runBody(t, e, meta, 10*time.Second, engine.EnvOptions{}, nil)
	if got, want := string(res.Value), `"register,2,true,false,true,true,true,false"`; got != want {
		t.Errorf("got %s (%v), want %s", got, res.Err, want)
	}
}

// TestNoReuseWithoutSnapshot: an instance with no snapshot to restore is
// not given a new context in the runtime a program ran in (reset fails
// and the pool closes it): whatever a bug of the engine let the program
// corrupt there must not reach the next program.
func TestNoReuseWithoutSnapshot(t *testing.T) {
	art, err := quickjs.LoadArtifact("")
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	rt, err := quickjs.NewRuntime(ctx, quickjs.RuntimeOptions{Artifact: art})
	if err != nil {
		t.Fatal(err)
	}
	defer rt.Close(ctx)
	d := &driver{opts: Options{}.withDefaults(), rt: rt, bgCtx: ctx, zone: "UTC", noSnap: true}
	v, err := d.newVM()
	if err != nil {
		t.Fatal(err)
	}
	defer v.Close()
	if err := d.reset(v); !errors.Is(err, errNoRestore) {
		t.Errorf("reset without a snapshot: %v, want errNoRestore", err)
	}
}
