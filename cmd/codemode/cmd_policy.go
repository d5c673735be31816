package main

import (
	"context"
	"fmt"

	"github.com/codemode/codemode/internal/policy"
	"github.com/codemode/codemode/tools"
)

func cmdPolicy(ctx context.Context, env *cliEnv, args []string) int {
	var cf commonFlags
	var caller string
	fs := newFlags(env, "policy", "explain [flags] TOOL")
	cf.register(fs)
	fs.StringVar(&caller, "caller", policy.CallerModel, `who calls: "model" (a direct call) or "program" (a nested call from code_run)`)
	fs.Usage = func() {
		fmt.Fprintf(fs.Output(), "Usage: codemode policy explain [flags] TOOL\n\nPrints which rule of the configured policy decides a call of TOOL, and why the rules before it do not.\nThe configured MCP servers are started to learn the tool's annotations.\n\nFlags:\n")
		fs.PrintDefaults()
	}
	if len(args) == 0 || (args[0] != "explain" && args[0] != "-h" && args[0] != "--help" && args[0] != "-help") {
		fmt.Fprintln(env.stderr, "codemode policy: want the subcommand explain")
		fs.Usage()
		return exitUsage
	}
	if args[0] == "explain" {
		args = args[1:]
	}
	if code, ok := parseFlags(env, fs, args); !ok {
		return code
	}
	// Flags may follow the tool's name too.
	rest := fs.Args()
	if len(rest) > 1 {
		if err := fs.Parse(rest[1:]); err != nil {
			return exitUsage
		}
		rest = append(rest[:1], fs.Args()...)
	}
	if len(rest) != 1 {
		fmt.Fprintln(env.stderr, "codemode policy explain: want exactly one TOOL name")
		return exitUsage
	}
	if caller != policy.CallerModel && caller != policy.CallerProgram {
		fmt.Fprintf(env.stderr, "codemode policy explain: --caller: %q is not a caller (want model or program)\n", caller)
		return exitUsage
	}
	cfg, _, err := cf.loadConfig()
	if err != nil {
		fmt.Fprintf(env.stderr, "codemode policy explain: config: %v\n", err)
		return exitUsage
	}
	cfg.CodeMode.Audit.Path = "" // explaining writes no audit lines
	log, sync := newLogger(env.stderr, cf.verbose)
	defer sync()
	a, err := newApp(ctx, cfg, log)
	if err != nil {
		fmt.Fprintf(env.stderr, "codemode policy explain: %v\n", err)
		return exitUsage
	}
	defer a.Close()
	name := rest[0]
	info, known := a.reg.GetIn(name, presetKey)
	if !known {
		info = tools.Info{Name: name}
	}
	fmt.Fprint(env.stdout, a.policy.Explain(info, known, caller))
	return exitOK
}
