// Package stdiox hands a process's own stdin and stdout to the MCP SDK
// without ever parking an OS thread in a blocking read(2) or write(2).
//
// # Why
//
// Go 1.26 has a scheduler race (docs/contract.md#stdio): a stop-the-world can wait for a
// goroutine that is entering a blocking system call, and then waits until the
// call returns by itself. For a stdio MCP server that call is the read of
// stdin, which returns only when the client sends another byte, while the
// client is waiting for our reply: the session stalls until the client gives
// up. Reads and writes that go through the netpoller never block a thread, so
// the race cannot occur.
//
// # Use
//
//	r, w, polled, err := stdiox.Pipes(os.Stdin, os.Stdout)
//	if err != nil { ... }
//	if !polled { log("stdio is not a pipe; using blocking I/O") }
//	err = server.Run(ctx, stdiox.Transport(r, w))
//
// After [Pipes] the original *os.File values must not be used for I/O: their
// descriptors share the O_NONBLOCK flag with the returned ones, so a blocking
// style read through them would fail with EAGAIN. Logs go to stderr anyway.
//
// Pipes created by os/exec for a child process are already pollable on the
// parent's side; this package is only for the child's own stdio.
package stdiox
