package wazeroengine

import (
	"testing"
	"time"

	"github.com/codemode/codemode/runtime/internal/engine"
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
