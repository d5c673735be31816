// Command hostile runs issue 18's hostile suite through the real codemode
// binary and prints the figures (scripts/hostile wraps it), or, as
// `hostile soak`, runs a mix of hostile and normal programs over HTTP for
// minutes (scripts/soak). Run it from the module root.
package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"os/signal"
	"regexp"
	"runtime"
	"strings"
	"time"

	"github.com/codemode/codemode/internal/config"
	"github.com/codemode/codemode/internal/dev/hostile"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	if len(os.Args) > 1 && os.Args[1] == "soak" {
		os.Exit(soak(ctx, os.Args[2:]))
	}
	os.Exit(suite(ctx, os.Args[1:]))
}

type common struct {
	exe, memory string
	timeout     time.Duration
	engines     string
}

func (c *common) register(fs *flag.FlagSet) {
	fs.StringVar(&c.exe, "exe", "", "a codemode binary to test (default: go build ./cmd/codemode)")
	fs.StringVar(&c.memory, "memory", "64MiB", "per-run memory budget (codemode.memory)")
	fs.DurationVar(&c.timeout, "timeout", 2*time.Second, "per-program timeout (codemode.timeout) unless a case sets one")
	fs.StringVar(&c.engines, "engines", "goja,wazero", "engines, comma-separated")
}

func (c *common) setup(dir string) (exe string, memory int64, err error) {
	memory, err = config.ParseSize(c.memory)
	if err != nil {
		return "", 0, fmt.Errorf("-memory: %v", err)
	}
	exe = c.exe
	if exe == "" {
		fmt.Fprintln(os.Stderr, "hostile: building codemode…")
		exe, err = hostile.Build(".", dir)
	}
	return exe, memory, err
}

func suite(ctx context.Context, args []string) int {
	fs := flag.NewFlagSet("hostile", flag.ExitOnError)
	var c common
	c.register(fs)
	transports := fs.String("transports", "stdio,http,run", "transports, comma-separated: stdio (serve), http (serve --listen), run (run --json)")
	match := fs.String("run", "", "only cases whose name matches this regexp")
	class := fs.Int("class", 0, "only cases of this class (1–5)")
	out := fs.String("o", "", "also write the markdown table to this file")
	jsonOut := fs.String("json", "", "write the results as JSON to this file")
	from := fs.String("from", "", "render the markdown from this -json file instead of running")
	fs.Parse(args)
	if *from != "" {
		return render(*from, *out)
	}
	dir, err := os.MkdirTemp("", "codemode-hostile-")
	if err != nil {
		return fail(err)
	}
	defer os.RemoveAll(dir)
	exe, memory, err := c.setup(dir)
	if err != nil {
		return fail(err)
	}
	cases, err := hostile.Cases()
	if err != nil {
		return fail(err)
	}
	var re *regexp.Regexp
	if *match != "" {
		if re, err = regexp.Compile(*match); err != nil {
			return fail(err)
		}
	}
	var picked []hostile.Case
	for _, cs := range cases {
		if (re == nil || re.MatchString(cs.Name)) && (*class == 0 || cs.Class == *class) {
			picked = append(picked, cs)
		}
	}
	h := header("scripts/hostile", memory, c.timeout)
	rs, err := hostile.Run(ctx, hostile.Options{
		Exe: exe, Dir: dir, Engines: split(c.engines), Transports: split(*transports),
		Memory: memory, Timeout: c.timeout, Cases: picked, Log: os.Stderr,
	})
	if err != nil && len(rs) == 0 {
		return fail(err)
	}
	if err != nil {
		fmt.Fprintf(os.Stderr, "hostile: stopped early: %v\n", err)
	}
	hostile.WriteMarkdown(os.Stdout, h, rs)
	if *out != "" {
		f, err := os.Create(*out)
		if err != nil {
			return fail(err)
		}
		hostile.WriteMarkdown(f, h, rs)
		if err := f.Close(); err != nil {
			return fail(err)
		}
	}
	if *jsonOut != "" {
		f, err := os.Create(*jsonOut)
		if err != nil {
			return fail(err)
		}
		_ = hostile.WriteJSON(f, h, rs)
		if err := f.Close(); err != nil {
			return fail(err)
		}
	}
	return 0
}

// render writes the markdown of a -json file to stdout and, with out, to
// that file.
func render(from, out string) int {
	b, err := os.ReadFile(from)
	if err != nil {
		return fail(err)
	}
	var rep hostile.Report
	if err := json.Unmarshal(b, &rep); err != nil {
		return fail(fmt.Errorf("%s: %v", from, err))
	}
	hostile.WriteMarkdown(os.Stdout, rep.Header, rep.Results)
	if out != "" {
		f, err := os.Create(out)
		if err != nil {
			return fail(err)
		}
		hostile.WriteMarkdown(f, rep.Header, rep.Results)
		if err := f.Close(); err != nil {
			return fail(err)
		}
	}
	return 0
}

func soak(ctx context.Context, args []string) int {
	fs := flag.NewFlagSet("hostile soak", flag.ExitOnError)
	var c common
	c.register(fs)
	duration := fs.Duration("duration", 20*time.Minute, "how long to soak")
	sessions := fs.Int("sessions", 4, "worker sessions in all, spread over the engines' servers")
	hostileShare := fs.Float64("hostile", 0.3, "share of hostile programs in the workers' mix")
	jsonOut := fs.String("json", "", "write the figures as JSON to this file")
	fs.Parse(args)
	dir, err := os.MkdirTemp("", "codemode-soak-")
	if err != nil {
		return fail(err)
	}
	defer os.RemoveAll(dir)
	exe, memory, err := c.setup(dir)
	if err != nil {
		return fail(err)
	}
	h := header("scripts/soak", memory, c.timeout)
	rep, err := hostile.Soak(ctx, hostile.SoakOptions{
		Exe: exe, Dir: dir, Engines: split(c.engines), Memory: memory, Timeout: c.timeout,
		Duration: *duration, Sessions: *sessions, HostileShare: *hostileShare, Log: os.Stderr,
	})
	if err != nil {
		return fail(err)
	}
	rep.Header = h
	rep.WriteMarkdown(os.Stdout)
	if *jsonOut != "" {
		f, err := os.Create(*jsonOut)
		if err != nil {
			return fail(err)
		}
		_ = rep.WriteJSON(f)
		if err := f.Close(); err != nil {
			return fail(err)
		}
	}
	if rep.Crashed() {
		return 1
	}
	return 0
}

func header(script string, memory int64, timeout time.Duration) hostile.Header {
	commit, _ := exec.Command("git", "rev-parse", "--short", "HEAD").Output()
	dirty, _ := exec.Command("git", "status", "--porcelain", "--untracked-files=no").Output()
	cm := strings.TrimSpace(string(commit))
	if len(dirty) > 0 {
		cm += "+dirty"
	}
	load, _ := os.ReadFile("/proc/loadavg")
	la := strings.Fields(string(load))
	machine := fmt.Sprintf("%s/%s, %d cores", runtime.GOOS, runtime.GOARCH, runtime.NumCPU())
	if len(la) >= 3 {
		machine += fmt.Sprintf(", load average %s %s %s at the start (shared with other work: figures are under load)", la[0], la[1], la[2])
	}
	return hostile.Header{
		Date:    time.Now().UTC().Format("2006-01-02 15:04 UTC"),
		Command: strings.TrimSpace(script + " " + strings.Join(args(), " ")),
		Commit:  cm,
		Machine: machine,
		Memory:  memory,
		Timeout: timeout.String(),
		Result:  512 << 10,
	}
}

func split(s string) []string {
	var out []string
	for _, f := range strings.Split(s, ",") {
		if f = strings.TrimSpace(f); f != "" {
			out = append(out, f)
		}
	}
	return out
}

func fail(err error) int {
	fmt.Fprintf(os.Stderr, "hostile: %v\n", err)
	return 1
}

// args are the flags as given, without the soak subcommand.
func args() []string {
	a := os.Args[1:]
	if len(a) > 0 && a[0] == "soak" {
		a = a[1:]
	}
	return a
}
