package jsonrpc2

import (
	"context"
	"io"
	"runtime"
	"strings"
	"sync"
	"testing"
	"time"
)

// chanPipe is a Reader, Writer and Closer over channels: the test feeds
// requests in and reads responses out.
type chanPipe struct {
	in        chan Message
	out       chan Message
	closeOnce sync.Once
	closed    chan struct{}
}

func newChanPipe() *chanPipe {
	return &chanPipe{in: make(chan Message, 16), out: make(chan Message, 16), closed: make(chan struct{})}
}

func (p *chanPipe) Read(ctx context.Context) (Message, error) {
	select {
	case m := <-p.in:
		return m, nil
	case <-p.closed:
		return nil, io.EOF
	}
}

func (p *chanPipe) Write(ctx context.Context, m Message) error {
	select {
	case p.out <- m:
		return nil
	case <-p.closed:
		return io.ErrClosedPipe
	}
}

func (p *chanPipe) Close() error {
	p.closeOnce.Do(func() { close(p.closed) })
	return nil
}

// The codemode patch in handleAsync runs the handler on the queue's own
// goroutine and hands the queue on when the handler calls Async. What
// upstream guarantees must hold: requests are handled one at a time, in
// order, until a handler calls Async; after it the next ones run
// concurrently with it; a handler that never calls Async holds the queue
// until it returns; every call gets its response.
func TestHandleAsyncHandOff(t *testing.T) {
	p := newChanPipe()
	started := make(chan string, 16)
	release := map[string]chan struct{}{"sync": make(chan struct{}), "async": make(chan struct{})}
	conn := NewConnection(context.Background(), ConnectionConfig{
		Reader: p, Writer: p, Closer: p,
		Bind: func(*Connection) Handler {
			return HandlerFunc(func(ctx context.Context, req *Request) (any, error) {
				started <- req.Method
				switch req.Method {
				case "async":
					Async(ctx)
				case "sync":
				default:
					return "ok", nil
				}
				<-release[req.Method]
				return req.Method, nil
			})
		},
	})
	defer conn.Close()
	send := func(id int64, method string) {
		req, err := NewCall(Int64ID(id), method, nil)
		if err != nil {
			t.Fatal(err)
		}
		p.in <- req
	}
	expect := func(want string) {
		t.Helper()
		select {
		case got := <-started:
			if got != want {
				t.Fatalf("handler started %q, want %q", got, want)
			}
		case <-time.After(10 * time.Second):
			t.Fatalf("handler %q did not start", want)
		}
	}
	quiet := func() {
		t.Helper()
		select {
		case got := <-started:
			t.Fatalf("handler %q started while the queue was held", got)
		case <-time.After(50 * time.Millisecond):
		}
	}

	// A handler that does not call Async holds the queue.
	send(1, "sync")
	expect("sync")
	send(2, "plain")
	quiet()
	close(release["sync"])
	expect("plain")

	// One that calls Async lets the next ones run while it waits.
	send(3, "async")
	expect("async")
	send(4, "plain")
	expect("plain")
	send(5, "plain")
	expect("plain")
	close(release["async"])

	got := map[int64]any{}
	for len(got) < 5 {
		select {
		case m := <-p.out:
			r := m.(*Response)
			got[r.ID.Raw().(int64)] = string(r.Result)
		case <-time.After(10 * time.Second):
			t.Fatalf("responses: got %v, want 5", got)
		}
	}
	want := map[int64]any{1: `"sync"`, 2: `"ok"`, 3: `"async"`, 4: `"ok"`, 5: `"ok"`}
	for id, w := range want {
		if got[id] != w {
			t.Errorf("response %d: %v, want %v", id, got[id], w)
		}
	}
}

func goroutineID() string {
	b := make([]byte, 64)
	b = b[:runtime.Stack(b, false)]
	f := strings.Fields(string(b)) // "goroutine N [running]:..."
	return f[1]
}

// The codemode patch keeps a handler goroutine for the next request
// (startHandler, handlerLoop), with the stack it grew; it ends once the
// connection is done.
func TestHandlerGoroutineReused(t *testing.T) {
	p := newChanPipe()
	ids := make(chan string, 4)
	conn := NewConnection(context.Background(), ConnectionConfig{
		Reader: p, Writer: p, Closer: p,
		Bind: func(*Connection) Handler {
			return HandlerFunc(func(ctx context.Context, req *Request) (any, error) {
				Async(ctx)
				ids <- goroutineID()
				return "ok", nil
			})
		},
	})
	for i := range 3 {
		req, err := NewCall(Int64ID(int64(i)), "m", nil)
		if err != nil {
			t.Fatal(err)
		}
		p.in <- req
		<-p.out
		// The response leaves before the goroutine is back on the idle
		// list: wait for it to park.
		for parked := false; !parked; {
			conn.idleMu.Lock()
			parked = len(conn.idleHandlers) == 1
			conn.idleMu.Unlock()
			time.Sleep(time.Millisecond)
		}
	}
	a, b, c := <-ids, <-ids, <-ids
	if a != b || b != c {
		t.Errorf("handlers ran on goroutines %s, %s, %s; want one reused", a, b, c)
	}
	before := runtime.NumGoroutine()
	conn.Close()
	deadline := time.Now().Add(10 * time.Second)
	for runtime.NumGoroutine() >= before && time.Now().Before(deadline) {
		time.Sleep(10 * time.Millisecond)
	}
	if n := runtime.NumGoroutine(); n >= before {
		t.Errorf("goroutines after Close: %d, before %d; the idle handler did not end", n, before)
	}
}
