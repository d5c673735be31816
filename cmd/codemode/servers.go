package main

import (
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"strings"

	"github.com/codemode/codemode/codemode"
	"github.com/codemode/codemode/internal/edge/upstream"
)

// A configured server that failed must not go unnoticed: `codemode tools`
// prints each server's state and exits non-zero, `codemode verify` fails a
// check, the catalog lists the server as unavailable with its error, and a
// program's call gets UPSTREAM_UNAVAILABLE with that error.

// serverStates is codemode.Options.Servers over the upstream manager.
func serverStates(m *upstream.Manager) func() []codemode.ServerState {
	return func() []codemode.ServerState {
		st := m.Status()
		out := make([]codemode.ServerState, len(st))
		for i, s := range st {
			out[i] = codemode.ServerState{Name: s.Name, State: string(s.State), Err: s.LastError}
		}
		return out
	}
}

// failedServers lists the servers that are not ready (after Start, which
// returns once every server connected or failed its first attempt).
func failedServers(m *upstream.Manager) []upstream.ServerStatus {
	var out []upstream.ServerStatus
	for _, s := range m.Status() {
		if s.State != upstream.StateReady {
			out = append(out, s)
		}
	}
	return out
}

// serversError is an error naming every failed server and why, or nil.
func serversError(m *upstream.Manager) error {
	var parts []string
	for _, s := range failedServers(m) {
		parts = append(parts, serverLine(s))
	}
	if len(parts) == 0 {
		return nil
	}
	return errors.New(strings.Join(parts, "; "))
}

// printServers writes one line per server: its state, its tools, and its
// error when it is not ready.
func printServers(w io.Writer, m *upstream.Manager) {
	for _, s := range m.Status() {
		fmt.Fprintln(w, serverLine(s))
	}
}

func serverLine(s upstream.ServerStatus) string {
	line := fmt.Sprintf("server %s: %s, %d tools", s.Name, s.State, s.Tools)
	if s.State != upstream.StateReady && s.LastError != "" {
		line += ": " + s.LastError
	}
	return line
}

// warnDemo says, once, that serve runs the built-in demo server because it
// found no config: MCP clients choose the working directory (Claude
// Desktop uses /), so a mistyped path would otherwise give a fake server
// and no clue.
func warnDemo(log *slog.Logger, src string) {
	if src != configEmbedded {
		return
	}
	wd, err := os.Getwd()
	if err != nil {
		wd = "the working directory"
	}
	log.Warn(fmt.Sprintf("codemode serve: no --config and no codemode.json in %s: serving the built-in demo server (fake: ticker, echo, slow); pass --config /path/to/codemode.json", wd))
}
