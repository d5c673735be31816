package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"strings"

	"github.com/codemode/codemode/codemode"
	"github.com/codemode/codemode/internal/edge/front"
	"github.com/codemode/codemode/internal/edge/upstream"
	"github.com/codemode/codemode/internal/gosdk/mcp"
	"github.com/codemode/codemode/internal/tokens"
	"github.com/codemode/codemode/tools"
)

// `codemode prompt` prints exactly what a model is given: the tool list as
// an MCP client receives it from `codemode serve`, and the server's
// instructions, each with its size in o200k_base tokens, next to the size
// of the plain tool list code mode replaces. It connects a client to the
// real front over in-memory transports, so what it prints is what a
// session gets.

// promptJSON is the --json output of `codemode prompt`.
type promptJSON struct {
	Encoding     string          `json:"encoding"`
	Tools        []promptTool    `json:"tools"`
	Instructions string          `json:"instructions"`
	Tokens       promptTokens    `json:"tokens"`
	Catalog      promptCatalog   `json:"catalog"`
	Servers      []promptServer  `json:"servers"`
	Plain        []promptToolRef `json:"plainTools"`
}

type promptTool struct {
	Tool   *mcp.Tool `json:"tool"`
	Tokens int       `json:"tokens"`
}

type promptToolRef struct {
	Name   string `json:"name"`
	Tokens int    `json:"tokens"`
}

type promptTokens struct {
	// Tools is the tool list as the client receives it, Instructions the
	// server's instructions, Total their sum: what code mode costs.
	Tools, Instructions, Total int
	// Plain is the tool list without code mode: every callable tool with
	// its schemas.
	Plain int
}

func (t promptTokens) MarshalJSON() ([]byte, error) {
	return json.Marshal(map[string]int{"tools": t.Tools, "instructions": t.Instructions, "total": t.Total, "plainTools": t.Plain})
}

type promptCatalog struct {
	Tools      int `json:"tools"`
	Signatures int `json:"signatures"`
	Tokens     int `json:"tokens"`
	Budget     int `json:"budget"`
}

type promptServer struct {
	Name  string `json:"name"`
	State string `json:"state"`
	Tools int    `json:"tools"`
	Error string `json:"error,omitempty"`
}

func cmdPrompt(ctx context.Context, env *cliEnv, args []string) int {
	var cf commonFlags
	var asJSON bool
	fs := newFlags(env, "prompt", "[flags]")
	cf.register(fs)
	fs.BoolVar(&asJSON, "json", false, `print one JSON object {"encoding","tools","instructions","tokens","catalog","servers","plainTools"}`)
	if code, ok := parseFlags(env, fs, args); !ok {
		return code
	}
	if fs.NArg() > 0 {
		fmt.Fprintf(env.stderr, "codemode prompt: unexpected argument %q\n", fs.Arg(0))
		return exitUsage
	}
	cfg, _, err := cf.loadConfig()
	if err != nil {
		fmt.Fprintf(env.stderr, "codemode prompt: config: %v\n", err)
		return exitUsage
	}
	log, sync := newLogger(env.stderr, cf.verbose)
	defer sync()
	a, err := newApp(ctx, cfg, log)
	if err != nil {
		fmt.Fprintf(env.stderr, "codemode prompt: %v\n", err)
		return exitUsage
	}
	defer a.Close()
	out, err := collectPrompt(ctx, a)
	if err != nil {
		fmt.Fprintf(env.stderr, "codemode prompt: %v\n", err)
		return exitFail
	}
	if asJSON {
		enc := json.NewEncoder(env.stdout)
		enc.SetIndent("", "  ")
		if err := enc.Encode(out); err != nil {
			fmt.Fprintf(env.stderr, "codemode prompt: %v\n", err)
			return exitFail
		}
	} else {
		writePrompt(env.stdout, out)
	}
	if err := serversError(a.upstream); err != nil {
		fmt.Fprintf(env.stderr, "codemode prompt: %v\n", err)
		return exitFail
	}
	return exitOK
}

// collectPrompt connects a client to the app's MCP front and records what
// it is given.
func collectPrompt(ctx context.Context, a *app) (*promptJSON, error) {
	srv, err := front.New(ctx, front.Options{Registry: a.reg, Preset: a.preset, Logger: a.log})
	if err != nil {
		return nil, err
	}
	defer srv.Close()
	st, ct := mcp.NewInMemoryTransports()
	ss, err := srv.Connect(ctx, st)
	if err != nil {
		return nil, err
	}
	defer ss.Close()
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "codemode-prompt", Version: front.Version}, nil).Connect(ctx, ct, nil)
	if err != nil {
		return nil, err
	}
	defer cs.Close()
	out := &promptJSON{Encoding: tokens.Encoding, Instructions: cs.InitializeResult().Instructions, Tools: []promptTool{}, Servers: []promptServer{}, Plain: []promptToolRef{}}
	for tl, err := range cs.Tools(ctx, nil) {
		if err != nil {
			return nil, err
		}
		n := toolTokens(tl)
		out.Tools = append(out.Tools, promptTool{Tool: tl, Tokens: n})
		out.Tokens.Tools += n
	}
	out.Tokens.Instructions = tokens.Count(out.Instructions)
	out.Tokens.Total = out.Tokens.Tools + out.Tokens.Instructions

	agent, err := a.reg.NewAgent(a.preset, "prompt")
	if err != nil {
		return nil, err
	}
	defer agent.Scope().Dispose()
	for _, in := range a.reg.List(agent) {
		if codemode.IsPresetTool(in.Name) || in.Name == tools.ReservedName {
			continue
		}
		tl := &mcp.Tool{Name: in.Name, Description: in.Description, InputSchema: in.InputSchema}
		if len(in.InputSchema) == 0 {
			tl.InputSchema = json.RawMessage(`{"type":"object"}`)
		}
		if len(in.OutputSchema) > 0 {
			tl.OutputSchema = in.OutputSchema
		}
		n := toolTokens(tl)
		out.Plain = append(out.Plain, promptToolRef{Name: in.Name, Tokens: n})
		out.Tokens.Plain += n
	}
	c := a.plugin.Catalog(agent)
	out.Catalog = promptCatalog{Tools: c.Tools, Signatures: c.Signatures, Tokens: c.Tokens, Budget: c.Budget}
	for _, s := range a.upstream.Status() {
		ps := promptServer{Name: s.Name, State: string(s.State), Tools: s.Tools}
		if s.State != upstream.StateReady {
			ps.Error = s.LastError
		}
		out.Servers = append(out.Servers, ps)
	}
	return out, nil
}

// toolTokens is a tool's size as a client receives it: its JSON.
func toolTokens(t *mcp.Tool) int {
	b, err := json.Marshal(t)
	if err != nil {
		return 0
	}
	return tokens.Count(string(b))
}

// writePrompt prints the prompt for people: each tool (description and
// schemas), the instructions, the servers, then the token table.
func writePrompt(w io.Writer, p *promptJSON) {
	fmt.Fprintf(w, "# tools/list: %d tool(s), %d tokens\n", len(p.Tools), p.Tokens.Tools)
	for _, t := range p.Tools {
		fmt.Fprintf(w, "\n## %s (%d tokens)\n\n%s\n", t.Tool.Name, t.Tokens, strings.TrimRight(t.Tool.Description, "\n"))
		in, _ := json.Marshal(t.Tool.InputSchema)
		fmt.Fprintf(w, "\ninputSchema: %s\n", in)
		if t.Tool.OutputSchema != nil {
			o, _ := json.Marshal(t.Tool.OutputSchema)
			fmt.Fprintf(w, "outputSchema: %s\n", o)
		}
	}
	fmt.Fprintf(w, "\n# instructions: %d tokens\n\n%s\n", p.Tokens.Instructions, strings.TrimRight(p.Instructions, "\n"))
	fmt.Fprintf(w, "\n# servers\n\n")
	if len(p.Servers) == 0 {
		fmt.Fprintln(w, "(none)")
	}
	for _, s := range p.Servers {
		line := fmt.Sprintf("%s: %s, %d tools", s.Name, s.State, s.Tools)
		if s.Error != "" {
			line += ": " + s.Error
		}
		fmt.Fprintln(w, line)
	}
	share := 0.0
	if p.Catalog.Tools > 0 {
		share = 100 * float64(p.Catalog.Signatures) / float64(p.Catalog.Tools)
	}
	fmt.Fprintf(w, "\n# tokens (%s)\n\n", p.Encoding)
	fmt.Fprintf(w, "code mode:   %6d  (tools/list %d + instructions %d)\n", p.Tokens.Total, p.Tokens.Tools, p.Tokens.Instructions)
	fmt.Fprintf(w, "plain tools: %6d  (the %d callable tools listed with their schemas)\n", p.Tokens.Plain, len(p.Plain))
	fmt.Fprintf(w, "catalog:     %6d of a %d-token budget; %d of %d tools with their full signature (%.0f%%)\n", p.Catalog.Tokens, p.Catalog.Budget, p.Catalog.Signatures, p.Catalog.Tools, share)
}
