package goja

import "math/big"

// codemode patch (see PATCHES.md): BigInt results are bounded.
//
// A BigInt operation runs in one native call that Runtime.Interrupt cannot
// stop, and allocates its result whole: 1n << (2n ** 40n) asks the Go
// runtime for 128 GiB at once, a fatal out-of-memory for the process, and
// (2n ** 100000000n).toString() converts 10^8 bits to decimal for ~50 s.
// So the operations that grow a BigInt (*, **, <<, >>, BigInt.asIntN,
// BigInt.asUintN) refuse a result over MaxBigIntBits with the RangeError
// V8 throws past its own (larger) limit, before they compute it.

// MaxBigIntBits bounds the size of a BigInt result, in bits: 2^22 bits
// (512 KiB; about 1.26 million decimal digits, converted in ~0.3 s).
const MaxBigIntBits = 1 << 22

func (r *Runtime) checkBigIntBits(bits float64) {
	if bits > MaxBigIntBits {
		panic(r.newError(r.getRangeError(), "Maximum BigInt size exceeded"))
	}
}

// checkBigIntMul checks a * b.
func (r *Runtime) checkBigIntMul(a, b *big.Int) {
	r.checkBigIntBits(float64(a.BitLen()) + float64(b.BitLen()))
}

// checkBigIntExp checks x ** y (y >= 0).
func (r *Runtime) checkBigIntExp(x, y *big.Int) {
	n := x.BitLen()
	if n <= 1 || y.Sign() == 0 {
		return // 0, 1 and -1 to any power, or anything to the 0th
	}
	if !y.IsInt64() {
		r.checkBigIntBits(MaxBigIntBits + 1)
	}
	r.checkBigIntBits(float64(n-1) * float64(y.Int64()))
}

// checkBigIntShift checks x shifted left by a count (a BigInt: any size).
func (r *Runtime) checkBigIntShift(x, count *big.Int) {
	if x.Sign() == 0 {
		return
	}
	if !count.IsInt64() {
		r.checkBigIntBits(MaxBigIntBits + 1)
	}
	c := count.Int64()
	if c < 0 {
		c = -c
	}
	r.checkBigIntBits(float64(x.BitLen()) + float64(c))
}
