package main

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"time"

	"net"
	"net/http"
	"os"

	"github.com/codemode/codemode/codemode"
	"github.com/codemode/codemode/internal/front"
	"github.com/codemode/codemode/internal/httpfence"
	"github.com/codemode/codemode/internal/policy"
	"github.com/codemode/codemode/internal/upstream"
	"github.com/codemode/codemode/tools"
	"github.com/modelcontextprotocol/go-sdk/mcp"
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
			return func() { m.Close() }, nil
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

func cmdServe(ctx context.Context, env *cliEnv, args []string) int {
	var cf commonFlags
	var listen string
	fs := newFlags(env, "serve", "[flags]")
	cf.register(fs)
	fs.StringVar(&listen, "listen", "", "serve streamable HTTP at http://ADDR/mcp instead of stdio (e.g. 127.0.0.1:8080)")
	if code, ok := parseFlags(env, fs, args); !ok {
		return code
	}
	cfg, src, err := cf.loadConfig()
	if err != nil {
		fmt.Fprintf(env.stderr, "codemode serve: config: %v\n", err)
		return exitUsage
	}
	if listen == "" {
		listen = cfg.CodeMode.Listen
	}
	var fence httpfence.Config
	if listen != "" {
		fence = httpfence.Config{Listen: listen, TrustedHosts: cfg.CodeMode.TrustedHosts, BearerToken: cfg.CodeMode.Token(nil)}
		if err := httpfence.Check(fence); err != nil {
			fmt.Fprintf(env.stderr, "codemode serve: %v\n", err)
			return exitUsage
		}
	}
	log, sync := newLogger(env.stderr, cf.verbose)
	defer sync()
	log.Info("codemode serve", "config", src)
	a, err := newApp(ctx, cfg, log)
	if err != nil {
		fmt.Fprintf(env.stderr, "codemode serve: %v\n", err)
		return exitUsage
	}
	defer a.Close()
	srv, err := front.New(ctx, front.Options{Registry: a.reg, Preset: a.preset, Logger: log,
		OnSession: func(agent *tools.Agent, ss *mcp.ServerSession) {
			id := ss.ID() // "" over stdio: the agent's id names the session
			if id == "" {
				id = agent.ID()
			}
			a.policy.Attach(agent, policy.MCPSession(ss, id))
		}})
	if err != nil {
		fmt.Fprintf(env.stderr, "codemode serve: %v\n", err)
		return exitFail
	}
	defer srv.Close()
	if listen == "" {
		in, ok1 := env.stdin.(*os.File)
		out, ok2 := env.stdout.(*os.File)
		if !ok1 || !ok2 {
			fmt.Fprintln(env.stderr, "codemode serve: stdin and stdout must be files or pipes")
			return exitUsage
		}
		if err := srv.ServeStdio(ctx, in, out); err != nil && ctx.Err() == nil {
			log.Debug("codemode serve: session ended", "err", err)
		}
		return exitOK
	}
	return serveHTTP(ctx, env, srv, fence)
}

func serveHTTP(ctx context.Context, env *cliEnv, srv *front.Server, fence httpfence.Config) int {
	// Listen first: with port 0 the fence must know the port it got.
	ln, err := net.Listen("tcp", fence.Listen)
	if err != nil {
		fmt.Fprintf(env.stderr, "codemode serve: %v\n", err)
		return exitUsage
	}
	fence.Listen = ln.Addr().String()
	h, err := srv.HTTPHandler(fence)
	if err != nil {
		ln.Close()
		fmt.Fprintf(env.stderr, "codemode serve: %v\n", err)
		return exitUsage
	}
	hs := &http.Server{Handler: h, ReadHeaderTimeout: 10 * time.Second}
	fmt.Fprintf(env.stderr, "codemode: serving MCP at http://%s/mcp\n", ln.Addr())
	errc := make(chan error, 1)
	go func() { errc <- hs.Serve(ln) }()
	select {
	case <-ctx.Done():
		sctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		_ = hs.Shutdown(sctx)
		return exitOK
	case err := <-errc:
		fmt.Fprintf(env.stderr, "codemode serve: %v\n", err)
		return exitFail
	}
}
