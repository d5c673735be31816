// Package scope holds lifecycles: the bottom of codemode's import graph.
//
// A [Scope] is a node of the host → preset → agent tree (plugins hang
// under a preset). It owns effects (cleanup functions). [Scope.Dispose]
// runs the scope's effects newest first, then disposes its children, and
// returns only when all of that is done. Disposal is idempotent, and an
// effect registered on a disposed scope runs at once, so "register a
// cleanup" can never silently leak (docs/contract.md#layers). The tool
// layers that hang off this tree live in package tools.
package scope

import (
	"errors"
	"fmt"
	"sync"
	"sync/atomic"
)

// Kind is the level of a scope in the lifecycle tree.
type Kind uint8

// The scope kinds, outermost first. Plugin scopes hang under a preset or the
// host and carry what one plugin registered.
const (
	KindHost Kind = iota + 1
	KindPreset
	KindAgent
	KindPlugin
)

func (k Kind) String() string {
	switch k {
	case KindHost:
		return "host"
	case KindPreset:
		return "preset"
	case KindAgent:
		return "agent"
	case KindPlugin:
		return "plugin"
	}
	return fmt.Sprintf("Kind(%d)", k)
}

var nextID atomic.Uint64

// Scope is one lifecycle node. The zero value is not usable; create a root
// with [NewHost] and children with [Scope.Child].
//
// All methods are safe for concurrent use.
type Scope struct {
	id     uint64
	kind   Kind
	label  string
	parent *Scope

	mu       sync.Mutex
	effects  []*effect
	children []*Scope
	disposed bool
	done     chan struct{} // closed when Dispose has finished
}

type effect struct {
	fn   func()
	once sync.Once
}

func (e *effect) run() (err error) {
	e.once.Do(func() {
		defer func() {
			if p := recover(); p != nil {
				err = fmt.Errorf("scope effect panicked: %v", p)
			}
		}()
		e.fn()
	})
	return err
}

// NewHost returns a root scope.
func NewHost(label string) *Scope { return newScope(KindHost, label, nil) }

func newScope(kind Kind, label string, parent *Scope) *Scope {
	return &Scope{id: nextID.Add(1), kind: kind, label: label, parent: parent, done: make(chan struct{})}
}

// Child creates a child scope. A child of a disposed scope is returned
// already disposed.
func (s *Scope) Child(kind Kind, label string) *Scope {
	c := newScope(kind, label, s)
	s.mu.Lock()
	if s.disposed {
		s.mu.Unlock()
		c.Dispose()
		return c
	}
	s.children = append(s.children, c)
	s.mu.Unlock()
	return c
}

// ID is unique per process.
func (s *Scope) ID() uint64 { return s.id }

// Kind reports the scope's level.
func (s *Scope) Kind() Kind { return s.kind }

// Label is the name the scope was created with; for a preset it is the
// preset key used by the preset-qualified view.
func (s *Scope) Label() string { return s.label }

// Parent is nil for a root.
func (s *Scope) Parent() *Scope { return s.parent }

// Nearest returns the closest scope of the given kind, starting with s
// itself and walking up, or nil. The code-mode plugin uses
// Nearest(KindPreset) to find its own preset's label.
func (s *Scope) Nearest(kind Kind) *Scope {
	for p := s; p != nil; p = p.parent {
		if p.kind == kind {
			return p
		}
	}
	return nil
}

// Effect registers a cleanup that runs when the scope is disposed. The
// returned release runs the cleanup early (at most once) and forgets it. On a
// disposed scope the cleanup runs at once.
func (s *Scope) Effect(fn func()) (release func()) {
	e := &effect{fn: fn}
	s.mu.Lock()
	if s.disposed {
		s.mu.Unlock()
		_ = e.run()
		return func() {}
	}
	s.effects = append(s.effects, e)
	s.mu.Unlock()
	return func() {
		s.remove(e)
		_ = e.run()
	}
}

// OnDispose registers fn like Effect, but the returned cancel forgets fn
// without running it. Use it when fn itself may drop the registration (a
// release that must not run twice, or recursively).
func (s *Scope) OnDispose(fn func()) (cancel func()) {
	e := &effect{fn: fn}
	s.mu.Lock()
	if s.disposed {
		s.mu.Unlock()
		_ = e.run()
		return func() {}
	}
	s.effects = append(s.effects, e)
	s.mu.Unlock()
	return func() { s.remove(e) }
}

func (s *Scope) remove(e *effect) {
	s.mu.Lock()
	defer s.mu.Unlock()
	for i, x := range s.effects {
		if x == e {
			s.effects = append(s.effects[:i], s.effects[i+1:]...)
			return
		}
	}
}

// Disposed reports whether Dispose has started.
func (s *Scope) Disposed() bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.disposed
}

// Done is closed when the scope's disposal has finished.
func (s *Scope) Done() <-chan struct{} { return s.done }

// Dispose runs the scope's effects newest first, then disposes its children
// (newest first), and returns when all of them have finished. A panicking
// effect does not stop the others; the panics come back joined in the error.
// Later and concurrent calls wait for the first to finish and return nil.
func (s *Scope) Dispose() error {
	s.mu.Lock()
	if s.disposed {
		s.mu.Unlock()
		<-s.done
		return nil
	}
	s.disposed = true
	effects, children := s.effects, s.children
	s.effects, s.children = nil, nil
	s.mu.Unlock()

	var errs []error
	for i := len(effects) - 1; i >= 0; i-- {
		if err := effects[i].run(); err != nil {
			errs = append(errs, err)
		}
	}
	for i := len(children) - 1; i >= 0; i-- {
		if err := children[i].Dispose(); err != nil {
			errs = append(errs, err)
		}
	}
	if s.parent != nil {
		s.parent.forget(s)
	}
	close(s.done)
	return errors.Join(errs...)
}

func (s *Scope) forget(c *Scope) {
	s.mu.Lock()
	for i, x := range s.children {
		if x == c {
			s.children = append(s.children[:i], s.children[i+1:]...)
			break
		}
	}
	s.mu.Unlock()
}

func (s *Scope) String() string { return fmt.Sprintf("%s:%s#%d", s.kind, s.label, s.id) }

// Effects reports how many effects are registered and not yet run: a
// diagnostic for tests that check registrations do not pile up.
func (s *Scope) Effects() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return len(s.effects)
}
