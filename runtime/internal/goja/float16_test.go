package goja

// codemode patch: Float16Array and Math.f16round (float16.go).

import (
	"math"
	"math/big"
	"math/rand"
	"testing"
)

// refFloat16 is an independent conversion: the exact value rounded to 11
// significant bits by math/big (ties to even), with binary16's exponent
// range applied by hand (subnormals are a fixed 2^-24 grid).
func refFloat16(x float64) float64 {
	if math.IsNaN(x) || math.IsInf(x, 0) || x == 0 {
		return x
	}
	a := math.Abs(x)
	var r float64
	if a < 0x1p-14 {
		// a multiple of 2^-24: round a·2^24 (exact) to an integer by hand
		q := a * 0x1p24
		k := math.Floor(q)
		switch d := q - k; {
		case d > 0.5, d == 0.5 && math.Mod(k, 2) == 1:
			k++
		}
		r = k * 0x1p-24
	} else {
		f, _ := new(big.Float).SetMode(big.ToNearestEven).SetPrec(11).SetFloat64(a).Float64()
		r = f
		if r > 65504 {
			r = math.Inf(1)
		}
	}
	return math.Copysign(r, x)
}

func TestFloat16Conversion(t *testing.T) {
	// every binary16 value survives the round trip
	for h := 0; h < 0x10000; h++ {
		v := float16ToFloat64(uint16(h))
		if math.IsNaN(v) {
			if h&0x7c00 != 0x7c00 || h&0x3ff == 0 {
				t.Fatalf("%#04x: NaN", h)
			}
			continue
		}
		if back := float64ToFloat16(v); back != uint16(h) {
			t.Fatalf("%#04x → %v → %#04x", h, v, back)
		}
	}
	// between two neighbours: the midpoint goes to the even one, just off it to the nearer
	for h := uint16(0); h < 0x7bff; h++ {
		a, b := float16ToFloat64(h), float16ToFloat64(h+1)
		mid := (a + b) / 2
		even := h
		if h&1 == 1 {
			even = h + 1
		}
		if got := float64ToFloat16(mid); got != even {
			t.Fatalf("midpoint of %#04x,%#04x (%v): %#04x", h, h+1, mid, got)
		}
		if got := float64ToFloat16(math.Nextafter(mid, 0)); got != h {
			t.Fatalf("below the midpoint of %#04x: %#04x", h, got)
		}
		if got := float64ToFloat16(math.Nextafter(mid, math.Inf(1))); got != h+1 {
			t.Fatalf("above the midpoint of %#04x: %#04x", h, got)
		}
	}
	// past the largest: 65504 + half a step is the tie that overflows
	if float64ToFloat16(65520) != 0x7c00 || float64ToFloat16(math.Nextafter(65520, 0)) != 0x7bff || float64ToFloat16(-65520) != 0xfc00 {
		t.Fatal("overflow boundary")
	}
	rnd := rand.New(rand.NewSource(1))
	for i := 0; i < 200000; i++ {
		x := math.Float64frombits(rnd.Uint64())
		if i%2 == 0 { // mostly in binary16's range
			x = (rnd.Float64()*2 - 1) * math.Ldexp(1, rnd.Intn(44)-28)
		}
		want := refFloat16(x)
		got := float16ToFloat64(float64ToFloat16(x))
		if !(got == want && math.Signbit(got) == math.Signbit(want)) && !(math.IsNaN(got) && math.IsNaN(want)) {
			t.Fatalf("f16round(%v) = %v, reference %v", x, got, want)
		}
	}
}

func TestFloat16Array(t *testing.T) {
	r := New()
	v, err := r.RunString(`
	const dv = new DataView(new ArrayBuffer(4));
	dv.setFloat16(0, 1.337); dv.setFloat16(2, -65504, true);
	const a = new Float16Array([1.5, 65536, 65519.99, 65520, 2 ** -25, 2 ** -25 * 1.0000001, 3 * 2 ** -25, -0, NaN, 0.1]);
	JSON.stringify([
		Math.f16round(1.337), Math.f16round(-0) === 0 && 1 / Math.f16round(-0), Math.f16round(), Math.f16round("5e-8"),
		Math.f16round.length, Math.f16round.name,
		Array.from(a, x => Object.is(x, -0) ? "-0" : String(x)),
		Float16Array.BYTES_PER_ELEMENT, Float16Array.name, Float16Array.length, Object.getPrototypeOf(Float16Array).name,
		a.byteLength, new Uint16Array(a.buffer, 0, 2).join(), dv.getFloat16(0), dv.getUint16(0).toString(16),
		dv.getFloat16(2, true), dv.getFloat16(2), DataView.prototype.getFloat16.length, DataView.prototype.setFloat16.length,
		Array.from(new Float16Array([3, NaN, -1, -0, 0, Infinity, 2]).sort(), x => Object.is(x, -0) ? "-0" : String(x)),
		new Float16Array([1, 2, 3]).map(x => x / 3).join(), Object.prototype.toString.call(a), a instanceof Float16Array,
		new Float16Array(new Float64Array([1e-8, 1e5])).join(), new Float32Array(new Float16Array([0.1])).join(),
	])`)
	if err != nil {
		t.Fatal(err)
	}
	// V8 (deno 2.9.6) gives the same; worked out from the binary16 grid (-Infinity and NaN are null in JSON; the
	// big-endian read of -65504's little-endian bytes is 0xfffb, a NaN)
	want := `[1.3369140625,null,null,5.960464477539063e-8,1,"f16round",` +
		`["1.5","Infinity","65504","Infinity","0","5.960464477539063e-8","1.1920928955078125e-7","-0","NaN","0.0999755859375"],` +
		`2,"Float16Array",3,"TypedArray",20,"15872,31744",1.3369140625,"3d59",-65504,null,1,2,` +
		`["-1","-0","0","2","3","Infinity","NaN"],` +
		`"0.333251953125,0.66650390625,1","[object Float16Array]",true,"0,Infinity","0.0999755859375"]`
	if got := v.String(); got != want {
		t.Errorf("got  %s\nwant %s", got, want)
	}
}
