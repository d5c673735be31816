package stdiox

import (
	"bytes"
	"errors"
	"fmt"
	"io"
)

// ErrFrameTooLarge is returned by a frame read when a line grows past the
// reader's limit before its newline arrives. The stream cannot be
// resynchronised safely after it, so the connection ends (as the SDK's
// does); upstream servers are read through a filter of their own first
// (internal/edge/upstream), which turns an oversized reply into an error
// for that one call before it reaches this reader.
var ErrFrameTooLarge = errors.New("stdiox: JSON-RPC frame over the size limit")

// DefaultMaxFrame bounds one frame when no limit is given: the SDK's
// mcp.DefaultMaxLineLength.
const DefaultMaxFrame = 16 << 20

const (
	minFrameBuf = 4 << 10  // first buffer, and each read's minimum room
	keepFrame   = 64 << 10 // a buffer grown past this is dropped after its frame
)

// frameReader splits a byte stream into newline-delimited frames, reusing
// one buffer: a frame is a slice of it, valid until the next call. It
// never holds more than max bytes of one line (the bytes before its
// newline, blanks included) plus what one read brings past its end.
type frameReader struct {
	r     io.Reader
	max   int
	buf   []byte
	start int // first unconsumed byte
	end   int // end of the bytes read
	err   error
	// scanned is how far past start the current frame is known to hold no
	// newline, so a frame that arrives in pieces is scanned once.
	scanned int
	empty   int // reads in a row that returned nothing
}

func newFrameReader(r io.Reader, max int) *frameReader {
	if max <= 0 {
		max = DefaultMaxFrame
	}
	return &frameReader{r: r, max: max}
}

// next returns the next non-blank frame without its line terminator ("\n"
// or "\r\n") and trailing blanks, or an error: the reader's (io.EOF at a clean end;
// io.ErrUnexpectedEOF when the stream ends inside a frame) or
// ErrFrameTooLarge.
func (f *frameReader) next() ([]byte, error) {
	if cap(f.buf) > keepFrame && f.start == f.end {
		f.buf, f.start, f.end = nil, 0, 0 // let one huge frame's buffer go
	}
	for {
		if i := bytes.IndexByte(f.buf[f.start+f.scanned:f.end], '\n'); i >= 0 {
			line := f.buf[f.start : f.start+f.scanned+i]
			f.start += f.scanned + i + 1
			f.scanned = 0
			if len(line) > f.max {
				return nil, fmt.Errorf("%w (%d bytes, limit %d)", ErrFrameTooLarge, len(line), f.max)
			}
			line = bytes.TrimRight(line, " \t\r")
			if len(bytes.TrimLeft(line, " \t")) == 0 {
				continue // blank lines separate nothing
			}
			return line, nil
		}
		f.scanned = f.end - f.start
		if f.scanned > f.max {
			return nil, fmt.Errorf("%w (over %d bytes without a newline)", ErrFrameTooLarge, f.max)
		}
		if f.err != nil {
			rest := bytes.TrimRight(f.buf[f.start:f.end], " \t\r")
			f.start, f.scanned = f.end, 0
			if len(bytes.TrimLeft(rest, " \t")) > 0 {
				if f.err == io.EOF {
					// A last frame without its newline: accept it, as the
					// SDK's decoder does, then report the end.
					return rest, nil
				}
				return nil, f.err
			}
			return nil, f.err
		}
		f.fill()
	}
}

// detach hands the caller the buffer behind the frame next returned when
// that buffer is one grown for a huge frame (it would be dropped at the
// next call anyway), so the frame need not be copied to outlive the
// reader's next call; the bytes read past the frame move to a new small
// buffer. It reports whether the frame is now the caller's.
func (f *frameReader) detach() bool {
	if cap(f.buf) <= keepFrame {
		return false
	}
	rest := f.buf[f.start:f.end]
	nb := make([]byte, len(rest), max(len(rest), minFrameBuf))
	copy(nb, rest)
	f.buf, f.start, f.end = nb, 0, len(rest)
	return true
}

// fill reads once into the free room, first moving the pending bytes to
// the front or growing the buffer when there is too little.
func (f *frameReader) fill() {
	if f.start > 0 && (f.start == f.end || cap(f.buf)-f.end < minFrameBuf) {
		n := copy(f.buf[:cap(f.buf)], f.buf[f.start:f.end])
		f.start, f.end = 0, n
	}
	if cap(f.buf)-f.end < minFrameBuf {
		// Double, and quadruple past keepFrame: a frame that big is one
		// of the rare huge ones (a 12 MB program), for which each step is
		// a fresh zeroed buffer and a copy of what came so far (32 MB
		// allocated and 16 MB copied by doubling to 16 MiB; ~21 and ~5
		// this way).
		size := max(2*cap(f.buf), minFrameBuf)
		if cap(f.buf) >= keepFrame {
			size = 4 * cap(f.buf)
		}
		// Room for the frame's limit, its terminator and one more read is
		// all a frame can need.
		pending := f.end - f.start
		size = max(min(size, f.max+minFrameBuf+2), pending+minFrameBuf)
		nb := make([]byte, pending, size)
		copy(nb, f.buf[f.start:f.end])
		f.buf, f.start, f.end = nb, 0, pending
	}
	f.buf = f.buf[:cap(f.buf)]
	n, err := f.r.Read(f.buf[f.end:])
	f.end += n
	f.buf = f.buf[:f.end]
	switch {
	case err != nil:
		f.err = err
	case n > 0:
		f.empty = 0
	default:
		// A reader that keeps returning nothing and no error is broken
		// (bufio's rule).
		if f.empty++; f.empty >= 100 {
			f.err = io.ErrNoProgress
		}
	}
}
