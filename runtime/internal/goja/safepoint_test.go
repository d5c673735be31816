package goja

import (
	"errors"
	"testing"
)

// TestSafepoint: a safepoint requested from another goroutine runs on the
// runtime's goroutine, between two steps of the script, and the script goes
// on to its result; one whose function interrupts ends the script; an
// interrupt drops a pending request, and so does ClearInterrupt.
func TestSafepoint(t *testing.T) {
	t.Run("runs and the script goes on", func(t *testing.T) {
		ran := make(chan struct{})
		r := New()
		var inside bool
		r.Set("ask", func() {
			go r.RequestSafepoint(func() { inside = true; close(ran) })
		})
		r.Set("done", func() bool {
			select {
			case <-ran:
				return true
			default:
				return false
			}
		})
		v, err := r.RunString(`ask(); let n = 0; while (!done()) n++; 'finished'`)
		if err != nil || v.String() != "finished" || !inside {
			t.Fatalf("got %v, %v (ran: %v)", v, err, inside)
		}
	})
	t.Run("at an allocation check", func(t *testing.T) {
		r := New()
		ran := false
		r.SetAllocationCheck(1<<30, func(int64) error { return nil })
		// The built-in called from Go: no instruction of the VM's loop
		// runs between.
		fv, _ := r.RunString(`String.prototype.repeat`)
		f, _ := AssertFunction(fv)
		r.RequestSafepoint(func() { ran = true })
		v, err := f(r.ToValue("x"), r.ToValue(1e6))
		if err != nil || len(v.String()) != 1e6 || !ran {
			t.Fatalf("got %.10v, %v (ran: %v)", v, err, ran)
		}
	})
	t.Run("its function interrupts", func(t *testing.T) {
		r := New()
		r.Set("ask", func() { r.RequestSafepoint(func() { r.Interrupt(errTooMuch) }) })
		_, err := r.RunString(`ask(); for (;;) {}`)
		if !errors.Is(err, errTooMuch) {
			t.Fatalf("got %v, want the interrupt", err)
		}
	})
	t.Run("an interrupt drops it", func(t *testing.T) {
		r := New()
		ran := false
		r.Set("ask", func() {
			r.RequestSafepoint(func() { ran = true })
			r.Interrupt(errTooMuch)
			r.RequestSafepoint(func() { ran = true }) // too late: the interrupt stands
		})
		_, err := r.RunString(`ask(); for (;;) {}`)
		if !errors.Is(err, errTooMuch) || ran {
			t.Fatalf("got %v (ran: %v), want the interrupt only", err, ran)
		}
	})
	t.Run("ClearInterrupt drops it", func(t *testing.T) {
		r := New()
		ran := false
		r.RequestSafepoint(func() { ran = true })
		r.ClearInterrupt()
		v, err := r.RunString(`1 + 1`)
		if err != nil || v.ToInteger() != 2 || ran {
			t.Fatalf("got %v, %v (ran: %v)", v, err, ran)
		}
	})
}
