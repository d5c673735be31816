//go:build !linux

package stdiox

import (
	"io"
	"os"
)

// rawFileOf returns f: raw system calls on stdio are a Linux measure
// (rawio_linux.go).
func rawFileOf(f *os.File) io.ReadWriteCloser { return f }
