// Command fetchquickjs re-derives the pinned QuickJS-NG wasm artifact (see
// package quickjs) from npm, the wasm re-optimised by binaryen's wasm-opt,
// and compares it, byte for byte, with the copy embedded in the binary
// (package embed); or, with -o, writes it into a directory. Run it from the
// repository root:
//
//	go run ./runtime/internal/quickjs/cmd/fetchquickjs          # compare with the embedded copy
//	go run ./runtime/internal/quickjs/cmd/fetchquickjs -o DIR   # write the files into DIR
//
// It needs npm and wasm-opt (binaryen release quickjs.WasmOptVersion) on
// PATH and the npm registry reachable. Exit status: 0 when
// the bytes match (or were written), 1 when they differ or npm fails, 2 for
// a usage error. A directory written with -o can be named by
// $CODEMODE_QUICKJS_DIR to load the artifact from there instead of the
// embedded copy; -o runtime/internal/quickjs/embed replaces the embedded
// copy when the pin moves.
package main

import (
	"context"
	"flag"
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
	fs := flag.NewFlagSet("fetchquickjs", flag.ContinueOnError)
	fs.SetOutput(stderr)
	out := fs.String("o", "", "write the files into `dir` instead of comparing them with the embedded copy")
	if err := fs.Parse(args); err != nil {
		return 2
	}
	if fs.NArg() > 0 {
		fmt.Fprintln(stderr, "usage: fetchquickjs [-o dir]")
		return 2
	}
	files, err := quickjs.FetchNPM(ctx, stdout)
	if err != nil {
		fmt.Fprintln(stderr, "fetchquickjs:", err)
		return 1
	}
	spec := quickjs.PackageName + "@" + quickjs.PackageVersion
	if *out != "" {
		if err := files.WriteDir(*out); err != nil {
			fmt.Fprintln(stderr, "fetchquickjs:", err)
			return 1
		}
		fmt.Fprintf(stdout, "quickjs artifact (%s, wasm-opt %s: wasm sha256 %s) written to %s\n", spec, quickjs.WasmOptFlags, quickjs.WasmSHA256, *out)
		return 0
	}
	if diffs := quickjs.CompareEmbedded(files); len(diffs) > 0 {
		fmt.Fprintf(stderr, "fetchquickjs: %s from npm, after wasm-opt, differs from the embedded copy:\n", spec)
		for _, d := range diffs {
			fmt.Fprintln(stderr, "  "+d)
		}
		return 1
	}
	fmt.Fprintf(stdout, "quickjs artifact: the embedded copy is byte for byte %s from npm, the wasm after wasm-opt %s (binaryen %s; wasm sha256 %s)\n",
		spec, quickjs.WasmOptFlags, quickjs.WasmOptVersion, quickjs.WasmSHA256)
	return 0
}
