//go:build !linux

package front

import "net"

// RawListener returns ln: raw system calls on sockets are Linux only (see
// rawtcp_linux.go).
func RawListener(ln net.Listener) net.Listener { return ln }
