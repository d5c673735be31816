package goja

// codemode patch: resizable ArrayBuffer (ES2024), against V8's answers
// (deno 2.x): the constructor's option, resize, the getters, transfer and
// slice, length-tracking and out-of-bounds views, and TypedArray methods
// whose program code (a comparator, a valueOf, a species constructor, a
// mapping function) shrinks, grows or detaches the buffer under them.

import "testing"

func TestResizableArrayBuffer(t *testing.T) {
	for _, c := range []struct{ name, code, want string }{
		{"views", `JSON.stringify((function () {
const out = []
const t = (f) => { try { out.push(f()) } catch (e) { out.push(e.name) } }
const buf = new ArrayBuffer(2, { maxByteLength: 8 })
const view = new Uint8Array(buf)
const fixed = new Uint8Array(buf, 0, 2)
const dv = new DataView(buf)
t(() => [buf.resizable, buf.maxByteLength, view.length, buf.byteLength, dv.byteLength])
buf.resize(6)
t(() => [buf.byteLength, view.length, fixed.length, dv.byteLength, [...view]])
view.fill(7)
t(() => [...view, ...fixed])
buf.resize(1)
t(() => [view.length, fixed.length, fixed.byteLength, fixed.byteOffset, view.byteLength])
t(() => fixed.fill(1))
t(() => dv.byteLength)
t(() => new Uint16Array(buf, 2))
t(() => buf.resize(9))
t(() => { const b2 = buf.transfer(); return [b2.resizable, b2.maxByteLength, b2.byteLength, buf.detached, view.length] })
t(() => new ArrayBuffer(8).resizable)
t(() => new ArrayBuffer(8).maxByteLength)
t(() => { const b = new ArrayBuffer(4, {maxByteLength: 16}); const u = new Uint32Array(b); u[0]=1; b.resize(16); u[3] = 9; return [...u] })
t(() => { const b = new ArrayBuffer(4, {maxByteLength: 16}); return b.slice(1).resizable })
t(() => { const b = new ArrayBuffer(8, {maxByteLength: 16}); const u = new Uint8Array(b); u.set([5,3,9,1,7]); u.sort((a, c) => { b.resize(4); return a - c }); return [...u] })
t(() => { const b = new ArrayBuffer(8, {maxByteLength: 16}); const u = new Uint8Array(b, 2); return [u.subarray(1).length, (b.resize(16), u.subarray(1).length)] })
t(() => { const b = new ArrayBuffer(8, {maxByteLength: 16}); const u = new Uint8Array(b); return u.map((x, i) => { if (i == 0) b.resize(2); return 1 }).length })
t(() => { const b = new ArrayBuffer(4, {maxByteLength: 16}); const u = new Uint8Array(b); const it = u.values(); it.next(); b.resize(0); return it.next() })
t(() => { const b = new ArrayBuffer(4, {maxByteLength: 16}); const u = new Uint8Array(b, 2, 2); b.resize(3); return [u.length, Object.keys(u).length, u[0]] })
t(() => new ArrayBuffer(4, {maxByteLength: 2}))
t(() => ArrayBuffer.prototype.resize.call(new ArrayBuffer(1), 1))

return out
})())`, `[[true,8,2,2,2],[6,6,2,6,[0,0,0,0,0,0]],[7,7,7,7,7,7,7,7],[1,0,0,0,1],"TypeError",1,"RangeError","RangeError",[true,8,1,true,0],false,8,[1,0,0,9],false,[0,0,0,1],[5,13],8,{"done":true},[0,0,null],"RangeError","TypeError"]`},
		{"methods", `JSON.stringify((function () {
const out = []
const t = (f) => { try { out.push(f()) } catch (e) { out.push(e.constructor.name) } }
const mk = (n = 16) => { const b = new ArrayBuffer(n, { maxByteLength: 64 }); const u = new Uint8Array(b); for (let i = 0; i < n; i++) u[i] = i + 1; return [b, u] }
t(() => { const [b, u] = mk(); return [...u.sort((x, y) => { b.resize(4); return y - x })] })
t(() => { const [b, u] = mk(); u.sort((x, y) => { b.transfer(); return y - x }); return u.length })
t(() => { const [b, u] = mk(); return [...u.with(1, { valueOf() { b.resize(3); return 9 } })] })
t(() => { const [b, u] = mk(); u.fill({ valueOf() { b.resize(2); return 7 } }); return [...u] })
t(() => { const [b, u] = mk(); u.set([1, { valueOf() { b.resize(0); return 2 } }, 3]); return [u.length, b.byteLength] })
t(() => { const [b, u] = mk(); u.copyWithin(0, { valueOf() { b.resize(5); return 2 } }); return [...u] })
t(() => { const [b, u] = mk(); u.constructor = { [Symbol.species]: function (n) { b.resize(3); return new Uint8Array(n) } }; return [...u.slice(1)] })
t(() => { let ab; class C extends Uint8Array { constructor(n) { ab = new ArrayBuffer(n, { maxByteLength: 64 }); super(ab) } } return [...C.from({ length: 8 }, (v, i) => { if (i === 2) ab.transfer(); return i })] })
t(() => { let ab; class C extends Uint8Array { constructor(n) { ab = new ArrayBuffer(n, { maxByteLength: 64 }); super(ab) } } return [...C.of(1, 2, { valueOf() { ab.resize(1); return 3 } }, 4)] })
t(() => { const [b, u] = mk(); return u.includes(undefined, { valueOf() { b.resize(2); return 0 } }) })
t(() => { const [b, u] = mk(); return u.indexOf(9, { valueOf() { b.resize(4); return 0 } }) })
t(() => { const [b, u] = mk(); return u.lastIndexOf(2, { valueOf() { b.resize(4); return 10 } }) })
t(() => { const [b, u] = mk(); return u.join({ toString() { b.resize(3); return '-' } }) })
t(() => { const [b, u] = mk(); const d = new DataView(b, 4); b.resize(2); return d.byteLength })
t(() => { const [b, u] = mk(); const d = new DataView(b, 4); b.resize(6); return [d.byteLength, d.getUint8(1), d.byteOffset] })
t(() => { const [b, u] = mk(); const d = new DataView(b, 4, 4); b.resize(6); return d.getUint8(0) })
t(() => { const [b, u] = mk(); const s = b.slice(2, { valueOf() { b.resize(4); return 10 } }); return [s.byteLength, ...new Uint8Array(s)] })
t(() => { const [b, u] = mk(); const u2 = new Uint16Array(b, 2); b.resize(7); return [u2.length, u2.byteLength, (b.resize(1), u2.length), u2.byteOffset] })
t(() => { const [b, u] = mk(8); b.resize(4); b.resize(8); return [...u] })

return out
})())`, `[[16,15,14,13],"TypeError",[1,9,3,0,0,0,0,0,0,0,0,0,0,0,0,0],[7,7],[0,0],[3,4,5,4,5],[2,3,0,0,0,0,0,0,0,0,0,0,0,0,0],"TypeError",[1],true,-1,1,"1-2-3-------------","TypeError",[2,6,4],"TypeError",[8,3,4,0,0,0,0,0,0],[2,4,0,0],[1,2,3,4,0,0,0,0]]`},
	} {
		r := New()
		v, err := r.RunString(c.code)
		if err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		if got := v.String(); got != c.want {
			t.Errorf("%s:\ngot  %s\nwant %s", c.name, got, c.want)
		}
	}
}
