//go:build unix

package front

import (
	"syscall"
	"time"

	"bufio"
	"bytes"
	"context"
	"os"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/codemode/codemode/codemode"
	"github.com/codemode/codemode/internal/edge/stdiox"
	"github.com/codemode/codemode/internal/gosdk/mcp"
	"github.com/codemode/codemode/runtime"
	"github.com/codemode/codemode/scope"
	"github.com/codemode/codemode/tools"
)

// recorder keeps every frame an SDK client writes.
type recorder struct {
	mu     sync.Mutex
	frames [][]byte
	w      *os.File
}

func (r *recorder) Write(p []byte) (int, error) {
	r.mu.Lock()
	r.frames = append(r.frames, bytes.Clone(p))
	r.mu.Unlock()
	return r.w.Write(p)
}
func (r *recorder) Close() error { return r.w.Close() }

// sdkFrames returns the frames an SDK client (the hostile suite's) writes
// to connect and to call code_run with each program: what a real client
// sends, byte for byte.
func sdkFrames(tb testing.TB, programs ...string) (connect [][]byte, calls [][]byte) {
	tb.Helper()
	sr, cw, _ := os.Pipe()
	cr, sw, _ := os.Pipe()
	st := stdiox.Transport(sr, sw)
	rec := &recorder{w: cw}
	cs := benchFrontMode(tb, st, &mcp.IOTransport{Reader: cr, Writer: rec}, runtime.ModePerCall)
	rec.mu.Lock()
	connect = rec.frames
	rec.frames = nil
	rec.mu.Unlock()
	for _, p := range programs {
		if _, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: codemode.ToolCodeRun, Arguments: map[string]any{"code": p}}); err != nil {
			tb.Fatal(err)
		}
	}
	rec.mu.Lock()
	calls = rec.frames
	rec.mu.Unlock()
	return connect, calls
}

// withID returns frame with its id member set to id.
func withID(tb testing.TB, frame []byte, id int) []byte {
	i := bytes.Index(frame, []byte(`"id":`))
	if i < 0 || i > 64 {
		tb.Fatalf("no id in %.80s", frame)
	}
	j := i + 5
	for frame[j] >= '0' && frame[j] <= '9' {
		j++
	}
	out := append([]byte(nil), frame[:i+5]...)
	out = strconv.AppendInt(out, int64(id), 10)
	return append(out, frame[j:]...)
}

// BenchmarkStdioBigRequest is the hostile suite's "12 MB program" over
// stdio, server side only: the frames an SDK client writes for it and for
// a small program right behind it, replayed byte for byte into a server
// over os.Pipe, until both answers are back. The client's own encoding is
// not in it; the server's reading, checking, decoding and refusing is.
func BenchmarkStdioBigRequest(b *testing.B) {
	big := strings.Repeat("x=1;", 3000000)
	connect, calls := sdkFrames(b, big, "return 1")
	bigFrame, small := calls[0], calls[1]

	sr, cw, _ := os.Pipe()
	cr, sw, _ := os.Pipe()
	host := scope.NewHost("host")
	b.Cleanup(func() { host.Dispose() })
	reg := tools.New(tools.Options{})
	preset := host.Child(scope.KindPreset, "codemode")
	if _, err := codemode.Mount(reg, preset, codemode.Options{Engine: "goja", Mode: runtime.ModePerCall}); err != nil {
		b.Fatal(err)
	}
	srv, err := New(context.Background(), Options{Registry: reg, Preset: preset})
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(srv.Close)
	if _, err := srv.Connect(context.Background(), stdiox.Transport(sr, sw)); err != nil {
		b.Fatal(err)
	}
	rd := bufio.NewReaderSize(cr, 1<<16)
	for _, f := range connect {
		if _, err := cw.Write(f); err != nil {
			b.Fatal(err)
		}
		if bytes.Contains(f, []byte(`"id"`)) {
			if _, err := rd.ReadBytes('\n'); err != nil {
				b.Fatal(err)
			}
		}
	}
	// Request ids need only be unique among calls in flight.
	both := append(withID(b, bigFrame, 100), withID(b, small, 101)...)
	round := func() {
		go func() { _, _ = cw.Write(both) }()
		for range 2 {
			line, err := rd.ReadBytes('\n')
			if err != nil {
				b.Fatal(err)
			}
			if !bytes.Contains(line, []byte("ARGUMENTS_TOO_LARGE")) && !bytes.Contains(line, []byte(`"structuredContent":{"value":1,`)) {
				b.Fatalf("unexpected answer %.300s", line)
			}
		}
	}
	round()
	b.ReportAllocs()
	b.SetBytes(int64(len(bigFrame)))
	var ru0, ru1 syscall.Rusage
	_ = syscall.Getrusage(syscall.RUSAGE_SELF, &ru0)
	for b.Loop() {
		round()
	}
	_ = syscall.Getrusage(syscall.RUSAGE_SELF, &ru1)
	cpu := time.Duration(ru1.Utime.Nano() + ru1.Stime.Nano() - ru0.Utime.Nano() - ru0.Stime.Nano())
	b.ReportMetric(float64(cpu.Microseconds())/1000/float64(b.N), "cpu-ms/op")
}
