package goja

import "sync/atomic"

// codemode patch (see PATCHES.md): safepoints.
//
// An embedder watching a runtime from another goroutine sometimes needs to
// run a function on the runtime's own goroutine, between two steps of the
// script, without ending it: codemode's memory guard confirms that a
// program is over its budget with a GC cycle run there, during which the
// program cannot allocate. Interrupt ends the script; a safepoint lets it go
// on once the function returns (or ends it, if the function calls
// Interrupt).
//
// The request shares the interrupt flag, so the interpreter's loop pays
// nothing more: 1 is an interrupt, 2 a safepoint request. An interrupt
// overrides a pending safepoint (whose function then never runs).

const interruptSafepoint = 2

// RequestSafepoint asks the runtime to call f on its own goroutine at the
// next point where it would honour an interrupt: the interpreter's next
// instruction, or a built-in's next allocation check. It may be called from
// any goroutine. A later request replaces a pending one; Interrupt and
// ClearInterrupt drop it. f runs at most once, and only while a script
// runs.
func (r *Runtime) RequestSafepoint(f func()) {
	vm := r.vm
	vm.interruptLock.Lock()
	if atomic.LoadUint32(&vm.interrupted) != 1 {
		vm.safepoint = f
		atomic.StoreUint32(&vm.interrupted, interruptSafepoint)
	}
	vm.interruptLock.Unlock()
}

// runSafepoint is called where the interrupt flag was seen set: when it
// holds a safepoint request rather than an interrupt, it clears the flag,
// calls the function and reports true (the caller goes on); otherwise it
// reports false (the caller unwinds).
func (vm *vm) runSafepoint() bool {
	vm.interruptLock.Lock()
	if atomic.LoadUint32(&vm.interrupted) != interruptSafepoint {
		vm.interruptLock.Unlock()
		return false
	}
	f := vm.safepoint
	vm.safepoint = nil
	atomic.StoreUint32(&vm.interrupted, 0)
	vm.interruptLock.Unlock()
	if f != nil {
		f()
	}
	return atomic.LoadUint32(&vm.interrupted) != 1
}
