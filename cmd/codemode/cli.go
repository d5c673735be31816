package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"os"
	"sync"

	"github.com/codemode/codemode/internal/dev/fakemcp"
	"github.com/codemode/codemode/internal/dev/fixture"
	"github.com/codemode/codemode/internal/edge/front"
	"go.uber.org/zap"
	"go.uber.org/zap/exp/zapslog"
	"go.uber.org/zap/zapcore"
)

// Exit codes: 0 ok, 1 program or check failure, 2 usage or configuration.
const (
	exitOK    = 0
	exitFail  = 1
	exitUsage = 2
)

type command struct {
	name    string
	summary string
	run     func(ctx context.Context, env *cliEnv, args []string) int
}

// cliEnv is the process context a command runs in.
type cliEnv struct {
	stdin          io.Reader
	stdout, stderr io.Writer
}

func commands() []command {
	return []command{
		{"serve", "serve code mode over MCP (stdio, or streamable HTTP with --listen)", cmdServe},
		{"run", "run one program against the configured tools", cmdRun},
		{"tools", "print the tool catalog (list | search QUERY | describe NAME...)", cmdTools},
		{"policy", "explain which policy rule decides a call (explain TOOL [--caller program])", cmdPolicy},
		{"verify", "check the code-mode contract with the real registry and print PASS/FAIL", cmdVerify},
		{"prompt", "print what a model is given (the tool list and the instructions) with token counts", cmdPrompt},
		{"bench", "benchmark engines and modes (per-call vs persistent)", cmdBench},
		{"fakemcp", "run the fake MCP server (stdio) used by the embedded default, or a recording (--fixture)", cmdFake},
		{"version", "print the version", cmdVersion},
	}
}

func usage(w io.Writer) {
	fmt.Fprintf(w, "codemode gives an LLM agent one tool, code_run, whose program calls every other tool.\n\nUsage: codemode <command> [flags]\n\nCommands:\n")
	for _, c := range commands() {
		fmt.Fprintf(w, "  %-8s %s\n", c.name, c.summary)
	}
	fmt.Fprintf(w, "\nRun 'codemode <command> --help' for a command's flags.\nWithout --config (and no ./codemode.json) the embedded default mounts the fake MCP server.\n")
}

func run(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	// stderr is written by the command and by the logger's goroutines
	// (upstream restarts, say) at once: one lock for all of them, so lines
	// never interleave and a non-concurrent writer (a test's buffer) is safe.
	stderr = &syncWriter{w: stderr}
	env := &cliEnv{stdin: stdin, stdout: stdout, stderr: stderr}
	if len(args) == 0 {
		usage(stderr)
		return exitUsage
	}
	switch args[0] {
	case "-h", "--help", "help":
		usage(stdout)
		return exitOK
	}
	for _, c := range commands() {
		if c.name == args[0] {
			return c.run(ctx, env, args[1:])
		}
	}
	fmt.Fprintf(stderr, "codemode: unknown command %q\n\n", args[0])
	usage(stderr)
	return exitUsage
}

// newFlags returns a flag set that prints its usage to stdout on --help
// and errors to stderr.
func newFlags(env *cliEnv, name, synopsis string) *flag.FlagSet {
	fs := flag.NewFlagSet(name, flag.ContinueOnError)
	fs.SetOutput(env.stderr)
	fs.Usage = func() {
		fmt.Fprintf(fs.Output(), "Usage: codemode %s %s\n\nFlags:\n", name, synopsis)
		fs.PrintDefaults()
	}
	return fs
}

// parseFlags parses args; it returns (exit code, false) when the command
// should stop (help or a usage error).
func parseFlags(env *cliEnv, fs *flag.FlagSet, args []string) (int, bool) {
	// Help goes to stdout (it was asked for); usage errors go to stderr.
	for _, a := range args {
		if a == "--" {
			break
		}
		if a == "-h" || a == "-help" || a == "--help" {
			fs.SetOutput(env.stdout)
			fs.Usage()
			return exitOK, false
		}
	}
	if err := fs.Parse(args); err != nil {
		return exitUsage, false
	}
	return 0, true
}

// newLogger logs through zap to stderr, at warn unless verbose.
func newLogger(w io.Writer, verbose bool) (*slog.Logger, func()) {
	level := zapcore.WarnLevel
	if verbose {
		level = zapcore.DebugLevel
	}
	enc := zap.NewDevelopmentEncoderConfig()
	enc.TimeKey = "" // deterministic, and the client stamps times anyway
	core := zapcore.NewCore(zapcore.NewConsoleEncoder(enc), zapcore.Lock(zapcore.AddSync(w)), level)
	lg := zap.New(core)
	return slog.New(zapslog.NewHandler(core)), func() { _ = lg.Sync() }
}

func cmdVersion(ctx context.Context, env *cliEnv, args []string) int {
	fs := newFlags(env, "version", "")
	if code, ok := parseFlags(env, fs, args); !ok {
		return code
	}
	fmt.Fprintf(env.stdout, "codemode %s\n", front.Version)
	return exitOK
}

func cmdFake(ctx context.Context, env *cliEnv, args []string) int {
	var fixturePath, listen, match, latency string
	fs := newFlags(env, "fakemcp", "[--fixture FILE [--match exact|tool] [--latency recorded|none|DUR]] [--listen ADDR]")
	fs.StringVar(&fixturePath, "fixture", "", "serve this recording (codemode serve/run --record) instead of the built-in tools")
	fs.StringVar(&match, "match", "exact", "how a call no recorded call has the arguments of is answered: exact (a tool error naming the nearest recorded arguments) or tool (any recorded call of the tool, in order)")
	fs.StringVar(&latency, "latency", "none", "delay of each replayed answer: recorded (the recorded duration), none, or a duration such as 25ms")
	fs.StringVar(&listen, "listen", "", "serve streamable HTTP at http://`ADDR`/mcp instead of stdio (loopback, e.g. 127.0.0.1:0)")
	fs.Usage = func() {
		fmt.Fprintf(fs.Output(), "Usage: codemode fakemcp [flags]\n\nServes the fake MCP server on stdin/stdout: tools ticker {symbol}, echo {text}, slow {ms};\nwith --fixture, a recorded server instead (docs/fixtures.md).\nEnvironment: %s=N exits abruptly on the N-th call; %s=FILE appends call events.\n\nFlags:\n", fakemcp.EnvCrashAfter, fakemcp.EnvEvents)
		fs.PrintDefaults()
	}
	if code, ok := parseFlags(env, fs, args); !ok {
		return code
	}
	if fs.NArg() > 0 {
		fmt.Fprintf(env.stderr, "codemode fakemcp: unexpected argument %q\n", fs.Arg(0))
		return exitUsage
	}
	mo := fakemcp.MainOptions{Fixture: fixturePath, Listen: listen}
	var err error
	if mo.Match, err = fixture.ParseRule(match); err != nil {
		fmt.Fprintf(env.stderr, "codemode fakemcp: --match: %v\n", err)
		return exitUsage
	}
	if mo.Latency, err = fakemcp.ParseLatency(latency); err != nil {
		fmt.Fprintf(env.stderr, "codemode fakemcp: --latency: %v\n", err)
		return exitUsage
	}
	if fixturePath == "" && (match != "exact" || latency != "none") {
		fmt.Fprintln(env.stderr, "codemode fakemcp: --match and --latency apply to --fixture only")
		return exitUsage
	}
	in, ok1 := env.stdin.(*os.File)
	out, ok2 := env.stdout.(*os.File)
	if listen == "" && (!ok1 || !ok2) {
		fmt.Fprintln(env.stderr, "codemode fakemcp: stdin and stdout must be files or pipes")
		return exitUsage
	}
	return fakemcp.MainWith(ctx, in, out, env.stderr, mo)
}

// syncWriter serialises writes to w.
type syncWriter struct {
	mu sync.Mutex
	w  io.Writer
}

func (s *syncWriter) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.w.Write(p)
}
