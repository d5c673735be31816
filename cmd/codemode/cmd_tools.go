package main

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/codemode/codemode/codemode"
	"github.com/codemode/codemode/internal/edge/upstream"
	"github.com/codemode/codemode/tools"
)

func cmdTools(ctx context.Context, env *cliEnv, args []string) int {
	var cf commonFlags
	fs := newFlags(env, "tools", "[flags] [list [PREFIX] | search QUERY | describe NAME...]")
	cf.register(fs)
	if code, ok := parseFlags(env, fs, args); !ok {
		return code
	}
	sub := "list"
	rest := fs.Args()
	if len(rest) > 0 {
		sub, rest = rest[0], rest[1:]
	}
	var program string
	switch sub {
	case "list":
		prefix, _ := json.Marshal(strings.Join(rest, " "))
		program = fmt.Sprintf(`const r = await tools.code_tools_list({ prefix: %s, limit: 500 });
return r.tools.map(t => t.name + (t.description ? "  —  " + t.description : "")).join("\n") + "\n(" + r.total + " tools)";`, prefix)
	case "search":
		if len(rest) == 0 {
			fmt.Fprintln(env.stderr, "codemode tools search: want a QUERY")
			return exitUsage
		}
		q, _ := json.Marshal(strings.Join(rest, " "))
		program = fmt.Sprintf(`const r = await tools.code_tools_search({ query: %s, limit: 10 });
if (r.hits.length === 0) return "no tools match";
return r.hits.map(h => h.signature + "\n    " + (h.description || "") + "  (score " + h.score + ")").join("\n");`, q)
	case "describe":
		if len(rest) == 0 {
			fmt.Fprintln(env.stderr, "codemode tools describe: want one or more tool NAMEs")
			return exitUsage
		}
		names, _ := json.Marshal(rest)
		program = fmt.Sprintf(`return (await tools.code_tools_describe({ names: %s })).declarations;`, names)
	default:
		fmt.Fprintf(env.stderr, "codemode tools: unknown subcommand %q (want list, search or describe)\n", sub)
		return exitUsage
	}
	cfg, _, err := cf.loadConfig()
	if err != nil {
		fmt.Fprintf(env.stderr, "codemode tools: config: %v\n", err)
		return exitUsage
	}
	log, sync := newLogger(env.stderr, cf.verbose)
	defer sync()
	a, err := newApp(ctx, cfg, log)
	if err != nil {
		fmt.Fprintf(env.stderr, "codemode tools: %v\n", err)
		return exitUsage
	}
	defer a.Close()
	res, _ := runProgram(ctx, a, program, false, env.stdout)
	if res.IsError {
		fmt.Fprintln(env.stderr, res.TextOf())
		return exitFail
	}
	var out struct{ Value json.RawMessage }
	_ = json.Unmarshal(res.Value, &out)
	fmt.Fprintln(env.stdout, pretty(out.Value))
	if sub == "list" {
		printServers(env.stdout, a.upstream)
	}
	if err := serversError(a.upstream); err != nil {
		fmt.Fprintf(env.stderr, "codemode tools: %v\n", err)
		return exitFail
	}
	return exitOK
}

func cmdVerify(ctx context.Context, env *cliEnv, args []string) int {
	var cf commonFlags
	fs := newFlags(env, "verify", "[flags]")
	cf.register(fs)
	if code, ok := parseFlags(env, fs, args); !ok {
		return code
	}
	cfg, src, err := cf.loadConfig()
	if err != nil {
		fmt.Fprintf(env.stderr, "codemode verify: config: %v\n", err)
		return exitUsage
	}
	log, sync := newLogger(env.stderr, cf.verbose)
	defer sync()
	fmt.Fprintf(env.stdout, "codemode verify (%s)\n", src)
	checks := codemode.Verify(ctx, codemode.VerifyOptions{
		Options: cfg.PresetOptions(log),
		Setup: func(reg *tools.Registry, _ string) (func(), error) {
			m, err := upstream.Start(ctx, reg, cfg.Servers, upstream.Options{Logger: log})
			if err != nil {
				return nil, err
			}
			return func() { m.Close() }, serversError(m)
		},
	})
	ok := true
	for _, c := range checks {
		if c.Err != nil {
			ok = false
			fmt.Fprintf(env.stdout, "FAIL  %s: %v\n", c.Name, c.Err)
			continue
		}
		fmt.Fprintf(env.stdout, "PASS  %s\n", c.Name)
	}
	if !ok {
		fmt.Fprintln(env.stdout, "FAIL")
		return exitFail
	}
	fmt.Fprintln(env.stdout, "PASS")
	return exitOK
}
