// Command codemode gives LLM agents code mode: one tool, code_run, whose
// program calls every other tool as an async function in a sandbox.
//
//	codemode serve    # an MCP server (stdio, or --listen for HTTP)
//	codemode run F    # run one program against the configured tools
//	codemode tools    # the catalog and TypeScript declarations
//	codemode verify   # check the masking contract end to end
//	codemode prompt   # what a model is given, with token counts
//	codemode bench    # benchmark engines and modes
//	codemode fakemcp  # the fake MCP server used by the embedded default, or a recording (--fixture)
//
// main only wires the process to run, which tests call directly.
package main

import (
	"context"
	"os"
	"os/signal"
	"syscall"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	go func() {
		// The first signal asks for a graceful stop (serve drains); a
		// second one ends the process at once.
		<-ctx.Done()
		stop()
	}()
	code := run(ctx, os.Args[1:], os.Stdin, os.Stdout, os.Stderr)
	stop()
	os.Exit(code)
}
