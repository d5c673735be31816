//go:build linux

package stdiox_test

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"syscall"
	"testing"
	"time"

	"github.com/codemode/codemode/internal/edge/stdiox"
	"github.com/codemode/codemode/internal/gosdk/jsonrpc"
)

// rawPipes returns Pipes over two fresh pipes: r reads what the test
// writes to in, and whatever w writes the test reads from out.
func rawPipes(t *testing.T) (r io.ReadCloser, w io.WriteCloser, in, out *os.File) {
	t.Helper()
	inR, inW, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	outR, outW, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	r, w, polled, err := stdiox.Pipes(inR, outW)
	if err != nil || !polled {
		t.Fatalf("Pipes: polled %v, err %v", polled, err)
	}
	// The duplicates are ours; the originals go.
	inR.Close()
	outW.Close()
	t.Cleanup(func() { r.Close(); w.Close(); inW.Close(); outR.Close() })
	return r, w, inW, outR
}

// The raw reads and writes (rawio_linux.go) move every byte, wait in the
// netpoller when the pipe is empty or full, and end as os.File's do.
func TestRawPipesCarryEveryByte(t *testing.T) {
	r, w, in, out := rawPipes(t)
	// 3 MiB: far past a pipe's 64 KiB, so writes stop at EAGAIN and wait.
	data := bytes.Repeat([]byte("0123456789abcdef\n"), 3<<20/17)
	errc := make(chan error, 2)
	go func() {
		_, err := w.Write(data)
		errc <- err
	}()
	got := make(chan []byte, 1)
	go func() {
		b, _ := io.ReadAll(io.LimitReader(out, int64(len(data))))
		got <- b
	}()
	if err := <-errc; err != nil {
		t.Fatalf("raw write: %v", err)
	}
	if b := <-got; !bytes.Equal(b, data) {
		t.Fatalf("read back %d bytes, want %d equal ones", len(b), len(data))
	}

	go func() {
		_, err := in.Write(data)
		in.Close()
		errc <- err
	}()
	b, err := io.ReadAll(r)
	if err != nil {
		t.Fatalf("raw read: %v", err)
	}
	if !bytes.Equal(b, data) {
		t.Fatalf("raw read %d bytes, want %d equal ones", len(b), len(data))
	}
	if err := <-errc; err != nil {
		t.Fatal(err)
	}
	// At the end: EOF again, and a zero-length read is not one.
	if n, err := r.Read(make([]byte, 8)); n != 0 || err != io.EOF {
		t.Errorf("read at the end: %d, %v; want 0, EOF", n, err)
	}
	if n, err := r.Read(nil); n != 0 || err != nil {
		t.Errorf("empty read: %d, %v; want 0, nil", n, err)
	}
}

func TestRawPipeCloseWakesRead(t *testing.T) {
	r, _, _, _ := rawPipes(t)
	if u, ok := r.(stdiox.ReadCloseUnblocker); !ok || !u.CloseUnblocksRead() {
		t.Fatalf("%T does not say that Close wakes a read", r)
	}
	errc := make(chan error, 1)
	go func() {
		_, err := r.Read(make([]byte, 16))
		errc <- err
	}()
	time.Sleep(20 * time.Millisecond) // let it park in the netpoller
	r.Close()
	select {
	case err := <-errc:
		if !errors.Is(err, os.ErrClosed) {
			t.Errorf("read woken by Close: %v, want os.ErrClosed", err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("Close did not wake the read")
	}
}

func TestRawPipeWriteToGoneReader(t *testing.T) {
	_, w, _, out := rawPipes(t)
	out.Close()
	// EPIPE comes back as an error; SIGPIPE does not end the process (the
	// descriptor is not fd 1).
	if _, err := w.Write([]byte("x\n")); !errors.Is(err, syscall.EPIPE) {
		t.Errorf("write with no reader: %v, want EPIPE", err)
	}
}

// A connection over Pipes with Spin polls stdin after the reply to its
// last call in flight, and stops at once when the next request comes or
// the client goes: with a window of a minute, a Write that waited it out
// would fail the test.
func TestSpinEndsWhenInputComes(t *testing.T) {
	r, w, in, out := rawPipes(t)
	stdiox.Spin(r, time.Minute)
	c, err := stdiox.Transport(r, w).Connect(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	replies := bufio.NewReader(out)
	for i := range 3 {
		fmt.Fprintf(in, `{"jsonrpc":"2.0","id":%d,"method":"ping"}`+"\n", i)
		m, err := c.Read(ctx)
		if err != nil {
			t.Fatal(err)
		}
		// A notification does not end a call: no spin after it.
		if err := c.Write(ctx, &jsonrpc.Request{Method: "notifications/message"}); err != nil {
			t.Fatal(err)
		}
		if _, err := replies.ReadString('\n'); err != nil {
			t.Fatal(err)
		}
		written := make(chan error, 1)
		go func() {
			written <- c.Write(ctx, &jsonrpc.Response{ID: m.(*jsonrpc.Request).ID, Result: json.RawMessage(`{}`)})
		}()
		if _, err := replies.ReadString('\n'); err != nil {
			t.Fatal(err)
		}
		if i == 2 {
			in.Close() // the client goes: end of file ends the spin too
		} else {
			fmt.Fprintf(in, `{"jsonrpc":"2.0","method":"notifications/initialized"}`+"\n")
		}
		select {
		case err := <-written:
			if err != nil {
				t.Fatal(err)
			}
		case <-time.After(30 * time.Second):
			t.Fatalf("round %d: the reply's Write still spins", i)
		}
		if i < 2 {
			if m, err := c.Read(ctx); err != nil || m.(*jsonrpc.Request).Method != "notifications/initialized" {
				t.Fatalf("read %v, %v", m, err)
			}
		}
	}
	if _, err := c.Read(ctx); err != io.EOF {
		t.Fatalf("read at the end: %v, want EOF", err)
	}
	c.Close()
}
