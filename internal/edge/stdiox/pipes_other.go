//go:build !unix

package stdiox

import (
	"io"
	"os"
)

// Pipes returns stdin and stdout unchanged and polled false: outside Unix
// there is no portable way to move a process's own stdio onto the
// netpoller. See the Unix version for the contract.
func Pipes(stdin, stdout *os.File) (r io.ReadCloser, w io.WriteCloser, polled bool, err error) {
	return stdin, stdout, false, nil
}
