package stdiox

import (
	"io"
	"os"
)

// RawPipe returns f, the parent's end of a pipe to a child (from
// [os.Pipe], which the netpoller already watches), read and written with
// raw system calls that park in the netpoller instead of blocking a
// thread (CONTRACT §8), as [Pipes] does for a process's own stdio. Where
// raw calls are not used (not Linux, or f offers no RawConn) it returns f.
// The caller closes it.
func RawPipe(f *os.File) io.ReadWriteCloser { return rawFileOf(f) }

// FrameReader splits a byte stream into newline-delimited JSON-RPC frames
// with the framing of this package's connections, reusing one buffer.
type FrameReader struct{ fr *frameReader }

// NewFrameReader reads frames from r, none longer than max bytes
// ([DefaultMaxFrame] if max <= 0).
func NewFrameReader(r io.Reader, max int) *FrameReader {
	return &FrameReader{fr: newFrameReader(r, max)}
}

// Next returns the next non-blank frame without its line terminator. The
// frame is valid until the next call. At a clean end of the stream the
// error is io.EOF; a frame over the limit is [ErrFrameTooLarge].
func (f *FrameReader) Next() ([]byte, error) { return f.fr.next() }
