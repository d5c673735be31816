package fakemcp

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"strconv"
	"sync"

	"github.com/codemode/codemode/internal/stdiox"
)

// Environment variables read by [Main].
const (
	// EnvEvents names a file to which every [Event] is appended as one JSON
	// line. The file is created if needed and never truncated, so several
	// runs (a restarted upstream, say) accumulate in it.
	EnvEvents = "FAKEMCP_EVENTS"
	// EnvCrashAfter, set to n ≥ 1, makes the process exit with status 3 as
	// the n-th tool call arrives, without answering it. The call's EventCall
	// is written to EnvEvents first.
	EnvCrashAfter = "FAKEMCP_CRASH_AFTER"
)

// Exit statuses of [Main].
const (
	ExitOK      = 0 // the client closed the session, or ctx was cancelled
	ExitError   = 1 // the session failed
	ExitUsage   = 2 // a bad environment variable
	ExitCrashed = 3 // FAKEMCP_CRASH_AFTER fired
)

// Main serves the fake server on stdin and stdout until the client goes away
// or ctx is cancelled, and returns the process exit status. stdout carries
// only protocol frames; diagnostics go to stderr.
//
// Main moves stdin and stdout onto the netpoller with [stdiox.Pipes] when
// they are pipes; afterwards the caller must not use them. It reads
// [EnvEvents] and [EnvCrashAfter] from the environment, and may call
// [os.Exit] itself when the latter fires.
func Main(ctx context.Context, stdin, stdout *os.File, stderr io.Writer) int {
	logf := func(format string, args ...any) {
		fmt.Fprintf(stderr, "fakemcp: "+format+"\n", args...)
	}
	opts := Options{Log: stderr}

	var sinks []func(Event)
	if path := os.Getenv(EnvEvents); path != "" {
		f, err := os.OpenFile(path, os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o644)
		if err != nil {
			logf("%s: %v", EnvEvents, err)
			return ExitUsage
		}
		defer f.Close()
		sinks = append(sinks, eventWriter(f, logf))
	}
	if s := os.Getenv(EnvCrashAfter); s != "" {
		n, err := strconv.ParseInt(s, 10, 64)
		if err != nil || n < 1 {
			logf("%s=%q: want a whole number ≥ 1", EnvCrashAfter, s)
			return ExitUsage
		}
		sinks = append(sinks, func(ev Event) {
			if ev.Kind == EventCall && ev.Seq == n {
				logf("crashing on tool call %d (%s=%d)", n, EnvCrashAfter, n)
				os.Exit(ExitCrashed)
			}
		})
	}
	if len(sinks) > 0 {
		opts.OnEvent = func(ev Event) {
			for _, sink := range sinks {
				sink(ev)
			}
		}
	}

	r, w, polled, err := stdiox.Pipes(stdin, stdout)
	if err != nil {
		logf("%v", err)
		return ExitError
	}
	// The transport closes both when the session ends; these cover an
	// early return. A second Close is harmless.
	defer r.Close()
	defer w.Close()
	if !polled {
		logf("stdin and stdout are not both pipes; using blocking I/O, which can stall (docs/contract.md#stdio)")
	}
	err = NewServerWith(opts).Run(ctx, stdiox.Transport(r, w))
	if err != nil && ctx.Err() == nil && !errors.Is(err, io.EOF) {
		logf("%v", err)
		return ExitError
	}
	return ExitOK
}

// eventWriter returns a sink that appends each event to w as one JSON line.
// One Write per line, under a lock, so lines never interleave.
func eventWriter(w io.Writer, logf func(string, ...any)) func(Event) {
	var mu sync.Mutex
	return func(ev Event) {
		line, err := json.Marshal(ev)
		if err != nil {
			logf("encoding event: %v", err)
			return
		}
		mu.Lock()
		defer mu.Unlock()
		if _, err := w.Write(append(line, '\n')); err != nil {
			logf("%s: %v", EnvEvents, err)
		}
	}
}
