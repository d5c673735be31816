//go:build linux

package front

import (
	"errors"
	"io"
	"net"
	"os"
	"strings"
	"testing"
	"time"
)

// A connection accepted by RawListener reads and writes as a TCPConn does:
// data both ways in pieces, io.EOF when the peer closes, a timeout error
// past a read deadline, net.ErrClosed once closed.
func TestRawListener(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	rl := RawListener(ln)
	defer rl.Close()
	accepted := make(chan net.Conn, 1)
	go func() {
		c, err := rl.Accept()
		if err != nil {
			t.Error(err)
		}
		accepted <- c
	}()
	peer, err := net.Dial("tcp", ln.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	defer peer.Close()
	c := <-accepted
	if _, ok := c.(*rawTCPConn); !ok {
		t.Fatalf("accepted a %T, want *rawTCPConn", c)
	}

	// 4 MiB each way: more than a socket buffer, so writes wait in the
	// netpoller and reads come in pieces.
	big := []byte(strings.Repeat("0123456789abcdef", 1<<18))
	go func() {
		if _, err := peer.Write(big); err != nil {
			t.Error(err)
		}
	}()
	got := make([]byte, len(big))
	if _, err := io.ReadFull(c, got); err != nil || string(got) != string(big) {
		t.Fatalf("read %d bytes: %v", len(got), err)
	}
	go func() {
		if n, err := c.Write(big); n != len(big) || err != nil {
			t.Errorf("write: %d, %v", n, err)
		}
	}()
	if _, err := io.ReadFull(peer, got); err != nil || string(got) != string(big) {
		t.Fatalf("peer read: %v", err)
	}

	if err := c.SetReadDeadline(time.Now().Add(10 * time.Millisecond)); err != nil {
		t.Fatal(err)
	}
	var ne net.Error
	if _, err := c.Read(got); !errors.As(err, &ne) || !ne.Timeout() || !errors.Is(err, os.ErrDeadlineExceeded) {
		t.Fatalf("read past the deadline: %v, want a timeout", err)
	}
	if err := c.SetReadDeadline(time.Time{}); err != nil {
		t.Fatal(err)
	}

	peer.Close()
	if n, err := c.Read(got); n != 0 || err != io.EOF {
		t.Fatalf("read after the peer closed: %d, %v, want io.EOF", n, err)
	}
	c.Close()
	if _, err := c.Read(got); !errors.Is(err, net.ErrClosed) {
		t.Fatalf("read after Close: %v, want net.ErrClosed", err)
	}
	if _, err := c.Write([]byte("x")); !errors.Is(err, net.ErrClosed) {
		t.Fatalf("write after Close: %v, want net.ErrClosed", err)
	}
}
