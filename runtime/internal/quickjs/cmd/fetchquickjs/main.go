// Command fetchquickjs places the pinned QuickJS-ng wasm artifact (see
// package quickjs) into its cache directory, or into the directory given as
// the only argument. Run it from the repository root:
//
//	go run ./runtime/internal/quickjs/cmd/fetchquickjs [dir]
//
// It needs npm on PATH. $CODEMODE_QUICKJS_DIR overrides the default
// directory, for this command and for the engine alike.
package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"os/signal"

	"github.com/codemode/codemode/runtime/internal/quickjs"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	code := run(ctx, os.Args[1:], os.Stdout, os.Stderr)
	stop()
	os.Exit(code)
}

func run(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	if len(args) > 1 {
		fmt.Fprintln(stderr, "usage: fetchquickjs [dir]")
		return 2
	}
	dir := ""
	if len(args) == 1 {
		dir = args[0]
	}
	if err := quickjs.Fetch(ctx, dir, stdout); err != nil {
		fmt.Fprintln(stderr, "fetchquickjs:", err)
		return 1
	}
	return 0
}
