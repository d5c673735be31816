// Package rawio reads and writes a polled, non-blocking file descriptor
// with raw system calls (Linux): a read or write that would block returns
// EAGAIN, and the caller waits in the netpoller through its
// syscall.RawConn, so no entersyscall wakes the runtime's sysmon thread
// (see internal/edge/stdiox's and internal/edge/front's users, and
// RATIONALE.md, "Why does `serve` over stdio run on one P, with raw
// system calls on its pipes?"). Callers map the errors to their own kind
// (os.PathError for files, net.OpError for connections).
package rawio
