package goja

// codemode patch: IEEE 754 binary16 conversions for Float16Array,
// Math.f16round and DataView's getFloat16/setFloat16 (ES2025).

import "math"

// float64ToFloat16 rounds x to the nearest binary16 value, ties to even
// (directly from the float64: going through float32 would round twice).
func float64ToFloat16(x float64) uint16 {
	var sign uint16
	if math.Signbit(x) {
		sign = 0x8000
		x = -x
	}
	switch {
	case math.IsNaN(x):
		return 0x7e00
	case math.IsInf(x, 0) || x >= 65520: // 65520 is halfway from 65504 (the largest) to 2^16: ties to even overflow
		return sign | 0x7c00
	case x < 0x1p-14: // subnormal (or zero): a multiple of 2^-24
		return sign | uint16(math.RoundToEven(x*0x1p24)) // 1024 is the smallest normal, bits 0x0400
	}
	frac, exp := math.Frexp(x)                   // x = frac × 2^exp, frac in [0.5, 1)
	e := exp - 1                                 // x = 1.m × 2^e, e in [-14, 15]
	m := uint16(math.RoundToEven(frac * 0x1p11)) // in [1024, 2048]
	if m == 2048 {
		m = 1024
		e++
	}
	if e > 15 {
		return sign | 0x7c00
	}
	return sign | uint16(e+15)<<10 | (m - 1024)
}

// float16ToFloat64 is the binary16 value of h.
func float16ToFloat64(h uint16) float64 {
	exp := int(h>>10) & 0x1f
	m := float64(h & 0x3ff)
	var v float64
	switch exp {
	case 0:
		v = math.Ldexp(m, -24)
	case 0x1f:
		if m != 0 {
			return math.NaN()
		}
		v = math.Inf(1)
	default:
		v = math.Ldexp(1024+m, exp-25)
	}
	if h&0x8000 != 0 {
		v = -v
	}
	return v
}
