package goja

import (
	"regexp"
	"regexp/syntax"
	"sync/atomic"
)

// codemode patch (see PATCHES.md): allocation checks.
//
// goja allocates from the Go heap with no per-runtime accounting, and a
// single built-in call (a string concatenation, JSON.stringify, replace,
// JSON.parse, …) can allocate many times a program's memory budget before
// an embedder's heap watchdog sees it; nor does such a call look at the
// interrupt flag, so a runtime interrupted (its deadline passed) inside one
// allocates on until the call returns. The built-ins that allocate in
// proportion to their input call checkAlloc before they allocate (and, in
// their loops, as their output grows): an interrupted runtime unwinds there,
// and the embedder's AllocationCheck can refuse the allocation, which ends
// the run as an uncatchable interrupt.

// SetAllocationCheck installs f, called on the runtime's goroutine before a
// built-in allocates at least min bytes in one piece (an estimate: the
// result's size, or what a growing result has reached). If f returns an
// error, the runtime is interrupted with it (Interrupt) and the script
// unwinds at once, as with any interrupt: the Go call returns an
// *InterruptedError holding the error. A nil f removes the check. Whatever
// f is, every such point also honours a pending Interrupt, so that a
// runtime interrupted inside a long built-in stops at its next allocation.
func (r *Runtime) SetAllocationCheck(min int64, f func(bytes int64) error) {
	r.allocCheck, r.allocMin = f, max(min, 1)
}

// checkAlloc is called before a built-in allocates about n bytes.
func (r *Runtime) checkAlloc(n int64) {
	if atomic.LoadUint32(&r.vm.interrupted) != 0 && !r.vm.runSafepoint() {
		r.vm.throwInterrupted()
	}
	if r.vm.yieldEvery > 0 { // codemode patch: cooperative time slices (yield.go)
		r.vm.yieldIfDue()
	}
	if n < r.allocMin || r.allocCheck == nil {
		return
	}
	if err := r.allocCheck(n); err != nil {
		r.vm.Interrupt(err)
		r.vm.throwInterrupted()
	}
}

// checkString is checkAlloc for a string of n characters; unicode strings
// take two bytes a character.
func (r *Runtime) checkString(n int, unicode bool) {
	if unicode {
		n *= 2
	}
	r.checkAlloc(int64(n))
}

// pollInterrupt honours a pending Interrupt from inside a native loop,
// every 1024 calls (i is the loop's counter).
func (r *Runtime) pollInterrupt(i int) {
	if i&1023 != 0 {
		return
	}
	if atomic.LoadUint32(&r.vm.interrupted) != 0 && !r.vm.runSafepoint() {
		r.vm.throwInterrupted()
	}
	if r.vm.yieldEvery > 0 { // codemode patch: cooperative time slices (yield.go)
		r.vm.yieldIfDue()
	}
}

// throwInterrupted unwinds the script as vm.run does when it sees the
// interrupt flag.
func (vm *vm) throwInterrupted() {
	vm.interruptLock.Lock()
	v := &InterruptedError{iface: vm.interruptVal}
	v.stack = vm.captureStack(nil, 0)
	vm.interruptLock.Unlock()
	panic(v)
}

// growthCheck calls checkAlloc as a result built piece by piece grows: each
// time it passes the next checkpoint, which then doubles, for twice what
// the result holds (a builder's buffer grows by doubling: its next growth
// allocates about that much), and polls the interrupt every 1024 writes.
type growthCheck struct {
	r      *Runtime
	next   int
	writes int
}

func (g *growthCheck) at(size int) {
	g.writes++
	if size >= g.next {
		g.r.checkAlloc(2 * int64(size))
		g.next = max(2*size, 1<<16)
	} else {
		g.r.pollInterrupt(g.writes)
	}
}

// stringUnicode reports whether s is stored two bytes a character.
func stringUnicode(s String) bool {
	_, u := devirtualizeString(s)
	return u != nil
}

// bytes is about what the builder holds, in bytes.
func (b *StringBuilder) bytes() int {
	if b.ascii() {
		return b.asciiBuilder.Len()
	}
	return 2 * len(b.unicodeBuilder.buf)
}

// matchChunk is how many matches findAllChecked collects per call of Go's
// regexp.
const matchChunk = 4096

// findAllChecked is findAllSubmatchIndex for the built-ins that collect
// every match (a global replace, match, split), with the allocation check:
// Go's FindAllStringSubmatchIndex collects all matches in one call that
// nothing interrupts, about 100 bytes each (4·10⁶ matches in an 8 MB
// string took ~400 MB, and seconds after a deadline). For a long ASCII
// string and a pattern Go's regexp runs, it collects them matchChunk at a
// time, asking the check as the list grows; the result is the same (see
// chunkable). Otherwise it only honours a pending interrupt first.
func (p *regexpPattern) findAllChecked(r *Runtime, s String, start, limit int, sticky bool) []regexpResult {
	r.pollInterrupt(0)
	a, ok := s.(asciiString)
	if !ok || p.regexpWrapper == nil || start != 0 || limit >= 0 || sticky || len(a) < 1<<16 || !p.chunkable() {
		return p.findAllSubmatchIndex(s, start, limit, sticky)
	}
	re := (*regexp.Regexp)(p.regexpWrapper)
	groups := re.SubexpNames()
	perMatch := int64(88 + 16*len(groups))
	var out []regexpResult
	for off := 0; ; {
		m := re.FindAllStringSubmatchIndex(string(a[off:]), matchChunk)
		raw := len(m)
		if off > 0 && raw > 0 && m[0][0] == 0 && m[0][1] == 0 {
			// An empty match where the previous chunk's last match
			// ended: Go's FindAll never reports one there (it advanced
			// past it, or it touches a non-empty match).
			m = m[1:]
		}
		for _, x := range m {
			for i := range x {
				if x[i] >= 0 {
					x[i] += off
				}
			}
			out = append(out, regexpResult{indexes: x, groups: groups})
		}
		if raw < matchChunk {
			return out
		}
		r.checkAlloc(int64(len(out)) * perMatch)
		off = out[len(out)-1].indexes[1]
	}
}

// chunkable reports whether matching the pattern from an offset of a
// string finds what matching the whole string finds there: true when it has
// no assertion that looks behind the position (^, \b, \B; $ and \z look
// ahead only).
func (p *regexpPattern) chunkable() bool {
	re, err := syntax.Parse((*regexp.Regexp)(p.regexpWrapper).String(), syntax.Perl)
	if err != nil {
		return false
	}
	var behind func(*syntax.Regexp) bool
	behind = func(x *syntax.Regexp) bool {
		switch x.Op {
		case syntax.OpBeginLine, syntax.OpBeginText, syntax.OpWordBoundary, syntax.OpNoWordBoundary:
			return true
		}
		for _, s := range x.Sub {
			if behind(s) {
				return true
			}
		}
		return false
	}
	return !behind(re)
}
