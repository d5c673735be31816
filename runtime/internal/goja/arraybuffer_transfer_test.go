package goja

// codemode patch: ArrayBuffer.prototype.transfer, transferToFixedLength
// and detached (ES2024), against V8's answers (deno 2.9.6).

import "testing"

func TestArrayBufferTransfer(t *testing.T) {
	r := New()
	v, err := r.RunString(`JSON.stringify((function () {
const out = []
const buf = new ArrayBuffer(8)
new Uint8Array(buf)[0] = 42
const view = new Uint8Array(buf)
const moved = buf.transfer(16)
out.push(buf.byteLength, buf.detached, moved.byteLength, new Uint8Array(moved)[0], view.length, view.byteLength, moved.detached)
try { buf.transfer() } catch (e) { out.push(e.name) }
try { view[0] } catch (e) { out.push(e.name) }
out.push(view[0])
const m2 = moved.transferToFixedLength(4); out.push(m2.byteLength, new Uint8Array(m2)[0], moved.detached)
const m3 = m2.transfer(); out.push(m3.byteLength, new Uint8Array(m3).join())
const m4 = m3.transfer(0); out.push(m4.byteLength)
try { ArrayBuffer.prototype.transfer.call({}) } catch (e) { out.push(e.name) }
try { Object.getOwnPropertyDescriptor(ArrayBuffer.prototype, 'detached').get.call(new Uint8Array(1)) } catch (e) { out.push(e.name) }
try { new ArrayBuffer(1).transfer(-1) } catch (e) { out.push(e.name) }
const d = new ArrayBuffer(1); d.transfer()
try { d.transfer({ valueOf() { out.push('valueOf'); return 1 } }) } catch (e) { out.push(e.name) }
out.push(ArrayBuffer.prototype.transfer.length, ArrayBuffer.prototype.transfer.name, ArrayBuffer.prototype.transferToFixedLength.length, Object.getOwnPropertyDescriptor(ArrayBuffer.prototype, 'detached').get.name)
try { new ArrayBuffer(1).slice.call(d) } catch (e) { out.push(e.name) }
const dv = new DataView(new ArrayBuffer(4)); dv.buffer.transfer(); try { dv.getInt8(0) } catch (e) { out.push(e.name) }
try { dv.byteLength } catch (e) { out.push(e.name) }
return out
})())`)
	if err != nil {
		t.Fatal(err)
	}
	const want = `[0,true,16,42,0,0,false,"TypeError",null,4,42,true,4,"42,0,0,0",0,"TypeError","TypeError","RangeError","valueOf","TypeError",0,"transfer",0,"get detached","TypeError","TypeError","TypeError"]`
	if got := v.String(); got != want {
		t.Errorf("got  %s\nwant %s", got, want)
	}
}
