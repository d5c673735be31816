package main

import (
	"context"
	"flag"
	"fmt"
	"log/slog"
	"os"
	goruntime "runtime"
	"runtime/pprof"
	"strings"
	"time"

	"github.com/codemode/codemode/internal/dev/bench"
	"github.com/codemode/codemode/runtime"
)

func cmdBench(ctx context.Context, env *cliEnv, args []string) int {
	var (
		engine, mode, workloads, svg, via, url string
		fixtureDir, peer, suite, client        string
		cpuProfile, memProfile                 string
		n, warmup, concurrency                 int
		asJSON, sweep                          bool
		rowTime                                time.Duration
	)
	fs := newFlags(env, "bench", "[flags]")
	fs.StringVar(&engine, "engine", "all", "engine to run: goja, wazero or all (an unavailable engine is reported, not run)")
	fs.StringVar(&mode, "mode", "all", "environments: per-call, persistent (persistent-in-memory) or all")
	fs.StringVar(&workloads, "workload", "", "comma-separated `names` (default: "+strings.Join(standardNames(), ",")+"); sweep points too: "+strings.Join(sweepNames(), ","))
	fs.IntVar(&n, "n", bench.DefaultN, "timed runs per row (heavy sweep points run fewer, at least 10)")
	fs.IntVar(&warmup, "warmup", 0, "untimed runs per row before timing (default n/10, 2 to 20)")
	fs.DurationVar(&rowTime, "row-time", bench.DefaultRowTime, "time budget of one row's timed loop: it stops at n runs or this, whichever comes first (at least 10 runs); 0 for none")
	fs.IntVar(&concurrency, "concurrency", 1, "workers running at once, each its own agent")
	fs.BoolVar(&asJSON, "json", false, "print one JSON document on stdout instead of the table")
	fs.StringVar(&svg, "svg", "", "also write an SVG chart to `file`")
	fs.BoolVar(&sweep, "sweep", false, "add the growth sweep: calls with 1, 10, 100, 1000 nested calls; repl with 1k, 10k, 100k records")
	fs.StringVar(&fixtureDir, "fixture", "", "also run a workload per recording in `DIR` (<server>.txtar from codemode run/serve --record): its recorded calls made again, on their real payloads")
	fs.StringVar(&via, "via", "", "set to `mcp` to measure code_run round trips through codemode serve over stdio (its own process, and the fake MCP server as another) instead of in process; http to measure the running server at --url")
	fs.StringVar(&client, "client", bench.ClientSDK, "with --via mcp: the MCP `client` driving serve (and the peer): sdk (the go-sdk's) or raw (a minimal JSON-RPC client on the pipes, so that a round trip weighs the server more than the client)")
	fs.StringVar(&url, "url", "", "with --via http: the server's streamable-HTTP `endpoint` (a replica, or a fleet's nginx: http://127.0.0.1:18080/mcp); give its --engine and --mode. Without it, each row starts codemode serve --listen on a loopback port")
	fs.StringVar(&peer, "peer", "", "with --via mcp, or --via http without --url: after every row, the same row against the same-protocol peer, the `server.mjs` of internal/dev/bench/peer (an MCP server on the TypeScript SDK running programs in node:vm; needs node and `npm ci` there); skipped with a message when it cannot run")
	fs.StringVar(&suite, "suite", "", "set to `builtins` to run the built-ins micro-suite instead (per-operation time of repeat, console.log, typed arrays, Array.from, Map, regex replace, sort, JSON.parse… in the sandbox beside the bare engine); honours --engine, --workload (case names), --n (rounds per figure, the fastest kept; default 5) and --json")
	fs.StringVar(&cpuProfile, "cpuprofile", "", "write a CPU profile of the whole run to `file` (go tool pprof)")
	fs.StringVar(&memProfile, "memprofile", "", "write an allocation profile of every allocation to `file` at the end of the run (go tool pprof -sample_index=alloc_objects; slows the run)")
	if code, ok := parseFlags(env, fs, args); !ok {
		return code
	}
	if fs.NArg() > 0 {
		fmt.Fprintf(env.stderr, "codemode bench: unexpected argument %q\n", fs.Arg(0))
		return exitUsage
	}
	if cpuProfile != "" {
		stop, err := startCPUProfile(cpuProfile)
		if err != nil {
			fmt.Fprintf(env.stderr, "codemode bench: %v\n", err)
			return exitFail
		}
		defer stop()
	}
	if memProfile != "" {
		// Every allocation sampled: the profile counts them (and slows the
		// run; its times are not the bench's).
		goruntime.MemProfileRate = 1
		defer func() {
			if err := writeMemProfile(memProfile); err != nil {
				fmt.Fprintf(env.stderr, "codemode bench: %v\n", err)
			}
		}()
	}
	switch suite {
	case "":
	case "builtins":
		rounds := 0
		fs.Visit(func(f *flag.Flag) {
			if f.Name == "n" {
				rounds = n
			}
		})
		return benchBuiltins(ctx, env, engine, workloads, rounds, asJSON)
	default:
		fmt.Fprintf(env.stderr, "codemode bench: --suite: %q is not a suite (want builtins)\n", suite)
		return exitUsage
	}
	opts := bench.Options{N: n, Warmup: warmup, Concurrency: concurrency, Sweep: sweep, RowTime: rowTime, FixtureDir: fixtureDir}
	if rowTime == 0 {
		opts.RowTime = -1 // Options: negative means no bound
	}
	usageErr := func(format string, a ...any) int {
		fmt.Fprintf(env.stderr, "codemode bench: "+format+"\n", a...)
		return exitUsage
	}
	switch {
	case engine == "all" || engine == "":
	case runtime.KnownEngine(engine):
		opts.Engines = []string{engine}
	default:
		return usageErr("--engine: %q is not an engine (want %s or all)", engine, strings.Join(runtime.Engines(), ", "))
	}
	switch mode {
	case "all", "":
	case bench.ModePerCall:
		opts.Modes = []string{bench.ModePerCall}
	case bench.ModePersistent, "persistent-in-memory":
		opts.Modes = []string{bench.ModePersistent}
	default:
		return usageErr("--mode: %q is not a mode (want per-call, persistent or all)", mode)
	}
	switch via {
	case "":
	case bench.ViaMCP:
		opts.Via = bench.ViaMCP
	case bench.ViaHTTP:
		if url != "" && (len(opts.Engines) != 1 || len(opts.Modes) != 1) {
			return usageErr("--via http --url: give the server's --engine and --mode")
		}
		opts.Via, opts.URL = bench.ViaHTTP, url
	default:
		return usageErr("--via: %q is not supported (want mcp or http)", via)
	}
	switch {
	case client == bench.ClientSDK && opts.Via != bench.ViaMCP:
	case client == bench.ClientSDK || client == bench.ClientRaw:
		if opts.Via != bench.ViaMCP {
			return usageErr("--client: with --via mcp")
		}
		opts.Client = client
	default:
		return usageErr("--client: %q is not a client (want sdk or raw)", client)
	}
	if peer != "" {
		if opts.Via == "" || url != "" {
			return usageErr("--peer: with --via mcp, or --via http without --url")
		}
		p := &bench.Peer{Script: peer}
		if err := bench.CheckPeer(p); err != nil {
			fmt.Fprintf(env.stderr, "codemode bench: skipping the peer: %v\n", err)
		} else {
			opts.Peer = p
		}
	}
	if n < 1 || concurrency < 1 || warmup < 0 || rowTime < 0 {
		return usageErr("--n and --concurrency must be at least 1, --warmup and --row-time at least 0")
	}
	if workloads != "" {
		ws, err := bench.ParseWorkloads(workloads)
		if err != nil {
			return usageErr("--workload: %v", err)
		}
		opts.Workloads = ws
	}
	if isTerminal(env.stderr) {
		opts.Progress = env.stderr
	}

	// In process, the engines run under the memory limit and GC tuning
	// that serve and run set (setGoMemoryLimit), so that the figures are
	// what a server's programs get. Through serve, the same tuning keeps
	// the bench's own client (which also drives the peer) from collecting
	// every few MiB: its GC was a third of its CPU per call.
	_, stopTuning := setGoMemoryLimit(runtime.NewGovernor(0), slog.New(slog.DiscardHandler))
	defer stopTuning()
	if opts.Via == bench.ViaMCP && concurrency == 1 && os.Getenv("GOMAXPROCS") == "" {
		// One round trip at a time over a pipe: the client is one
		// goroutine waiting on another, and a second P only adds a
		// thread wake-up to every hand-off (the reasoning of serve over
		// stdio; RATIONALE.md). Its CPU per call fell by a third. The
		// peer is driven by the same client.
		goruntime.GOMAXPROCS(1)
	}
	rep, err := bench.Run(ctx, opts)
	if err != nil {
		fmt.Fprintf(env.stderr, "codemode bench: %v\n", err)
		return exitFail
	}
	if asJSON {
		err = rep.WriteJSON(env.stdout)
	} else {
		err = rep.WriteTable(env.stdout)
	}
	if err != nil {
		fmt.Fprintf(env.stderr, "codemode bench: %v\n", err)
		return exitFail
	}
	if svg != "" {
		if err := writeSVG(rep, svg); err != nil {
			fmt.Fprintf(env.stderr, "codemode bench: %v\n", err)
			return exitFail
		}
	}
	if asJSON {
		// The table prints these itself; with --json stdout is the
		// document, so say it on stderr.
		for _, e := range rep.Engines {
			if !e.Available {
				fmt.Fprintf(env.stderr, "%s: unavailable (%s)\n", e.Name, e.Reason)
			}
		}
	}
	if rep.Failed() {
		if asJSON {
			for _, row := range rep.Rows {
				if row.Error != "" {
					fmt.Fprintf(env.stderr, "FAIL %s %s %s: %s\n", row.Engine, row.Mode, row.Workload, row.Error)
				}
			}
		}
		return exitFail
	}
	return exitOK
}

// benchBuiltins runs the built-ins micro-suite (--suite builtins).
func benchBuiltins(ctx context.Context, env *cliEnv, engine, cases string, rounds int, asJSON bool) int {
	opts := bench.BuiltinsOptions{Rounds: rounds}
	switch {
	case engine == "all" || engine == "":
	case runtime.KnownEngine(engine):
		opts.Engines = []string{engine}
	default:
		fmt.Fprintf(env.stderr, "codemode bench: --engine: %q is not an engine (want %s or all)\n", engine, strings.Join(runtime.Engines(), ", "))
		return exitUsage
	}
	if cases != "" {
		opts.Cases = strings.Split(cases, ",")
	}
	rep, err := bench.RunBuiltins(ctx, opts)
	if err == nil {
		if asJSON {
			err = rep.WriteJSON(env.stdout)
		} else {
			err = rep.WriteTable(env.stdout)
		}
	}
	if err != nil {
		fmt.Fprintf(env.stderr, "codemode bench: %v\n", err)
		return exitFail
	}
	if rep.Failed() {
		return exitFail
	}
	return exitOK
}

// startCPUProfile starts the process's CPU profile into path; stop ends it
// and closes the file.
func startCPUProfile(path string) (stop func(), err error) {
	f, err := os.Create(path)
	if err != nil {
		return nil, fmt.Errorf("--cpuprofile: %w", err)
	}
	if err := pprof.StartCPUProfile(f); err != nil {
		f.Close()
		return nil, fmt.Errorf("--cpuprofile: %w", err)
	}
	return func() {
		pprof.StopCPUProfile()
		f.Close()
	}, nil
}

// writeMemProfile writes the heap profile (allocations since the start,
// after a collection) to path.
func writeMemProfile(path string) error {
	f, err := os.Create(path)
	if err != nil {
		return fmt.Errorf("--memprofile: %w", err)
	}
	goruntime.GC()
	if err := pprof.Lookup("allocs").WriteTo(f, 0); err != nil {
		f.Close()
		return fmt.Errorf("--memprofile: %w", err)
	}
	return f.Close()
}

func writeSVG(rep *bench.Report, path string) error {
	f, err := os.Create(path)
	if err != nil {
		return fmt.Errorf("writing the chart: %w", err)
	}
	if err := rep.WriteSVG(f); err != nil {
		f.Close()
		return fmt.Errorf("writing the chart: %w", err)
	}
	if err := f.Close(); err != nil {
		return fmt.Errorf("writing the chart: %w", err)
	}
	return nil
}

// isTerminal reports whether w is a character device (a terminal), where a
// progress line rewritten with \r belongs; never a pipe or a file.
func isTerminal(w any) bool {
	if s, ok := w.(*syncWriter); ok {
		w = s.w
	}
	f, ok := w.(*os.File)
	if !ok {
		return false
	}
	fi, err := f.Stat()
	return err == nil && fi.Mode()&os.ModeCharDevice != 0
}

func standardNames() []string {
	var out []string
	for _, w := range bench.Workloads() {
		out = append(out, w.Name)
	}
	return out
}

// sweepNames are the sweep points that are not standard workloads.
func sweepNames() []string {
	var out []string
	for _, w := range bench.SweepWorkloads() {
		if !bench.IsStandard(w.Name) {
			out = append(out, w.Name)
		}
	}
	return out
}
