package codemode

import (
	"cmp"
	"fmt"
	"hash/fnv"
	"slices"
	"strconv"
	"strings"
	"sync"

	"github.com/codemode/codemode/internal/human"
	"github.com/codemode/codemode/internal/tokens"
	"github.com/codemode/codemode/tools"
)

// The catalog is the part of code_run's description that lists the
// callable tools: per server, each tool as a one-line TypeScript signature
// and the first sentence of its description, while they fit the catalog
// budget (in tokens, package internal/tokens); past it, the most useful
// tools keep their signatures and the rest are listed by name, or counted
// with the discovery call that lists them.
//
// Which tools keep their signatures is decided in rounds: every server's
// best tool before any server's second, and within a round the servers
// with fewer tools first. Within a server, a tool whose description says
// something (three words or more) comes before one without, then the
// server's own order: servers list their main tools first. So a small
// server is shown whole early, a large one is represented by its main
// tools, and no server is reduced to names while another has signatures
// to spare (RATIONALE.md, "Why are signatures chosen in rounds?").

// DefaultCatalogBudget is the catalog budget when Options.CatalogBudget is
// zero, in o200k_base tokens: every tool of a 36-tool setup shaped like
// common MCP servers keeps its full signature.
const DefaultCatalogBudget = 3000

// ServerState is one upstream MCP server as [Options.Servers] reports it.
type ServerState struct {
	// Name is the server's configured name: its tools are
	// mcp__<Name>__<tool>.
	Name string
	// State is "ready" when the server is connected and its tools are
	// registered; anything else ("starting", "restarting", "closed")
	// means its tools cannot be called now.
	State string
	// Err is the server's last error, "" if none: for a server that
	// cannot start, what went wrong, with its last stderr line when it
	// wrote one.
	Err string
}

// Ready reports whether the server's tools can be called.
func (s ServerState) Ready() bool { return s.State == "ready" }

// Catalog is the catalog of one agent's callable tools, as code_run's
// description shows it.
type Catalog struct {
	// Text is the catalog as the model reads it.
	Text string
	// Tools counts the callable tools; Signatures those of them shown with
	// their signature.
	Tools, Signatures int
	// Tokens is the size of Text, and Budget the budget it was cut to,
	// both in o200k_base tokens.
	Tokens, Budget int
}

// catalogEntry is one tool in the catalog.
type catalogEntry struct {
	info     tools.Info
	short    string // the name within its server
	line     string // "  name(args: …): Promise<…> // First sentence."
	lineTok  int
	nameTok  int // its name in a list of names
	rank     int // within its server: 0 is the best
	shown    bool
	groupIdx int
}

// catalogGroup is one server (or the tools of no server).
type catalogGroup struct {
	server  string // "" for tools of no server
	state   *ServerState
	entries []*catalogEntry
	header  string
}

const catalogIntro = "Callable tools (signature // first sentence of the description; Promise<unknown>: no declared result type):\n"

// Catalog returns the catalog of agent's callable tools.
func (p *Plugin) Catalog(agent *tools.Agent) Catalog {
	infos := p.callable(agent)
	states := p.servers()
	key := catalogKey(p.reg.Generation(), infos, states)
	p.catMu.Lock()
	if c, ok := p.catCache[key]; ok {
		p.catMu.Unlock()
		return c
	}
	p.catMu.Unlock()
	c := buildCatalog(infos, states, p.opts.CatalogBudget, p.countTokens)
	p.catMu.Lock()
	if len(p.catCache) >= maxCatalogCache {
		clear(p.catCache)
	}
	p.catCache[key] = c
	p.catMu.Unlock()
	return c
}

const maxCatalogCache = 64

// catalogKey identifies what a catalog depends on: the tools (their
// definitions change only with the registry's generation) and the servers'
// states.
func catalogKey(gen uint64, infos []tools.Info, states []ServerState) string {
	h := fnv.New64a()
	for _, in := range infos {
		h.Write([]byte(in.Name))
		h.Write([]byte{0})
	}
	for _, s := range states {
		h.Write([]byte(s.Name + "\x00" + s.State + "\x00" + s.Err + "\x00"))
	}
	return strconv.FormatUint(gen, 36) + "/" + strconv.FormatUint(h.Sum64(), 36)
}

// servers is Options.Servers, sorted by name.
func (p *Plugin) servers() []ServerState {
	if p.opts.Servers == nil {
		return nil
	}
	ss := slices.Clone(p.opts.Servers())
	slices.SortFunc(ss, func(a, b ServerState) int { return cmp.Compare(a.Name, b.Name) })
	return ss
}

// serverState is the state of the named server, if Options.Servers knows it.
func (p *Plugin) serverState(name string) (ServerState, bool) {
	for _, s := range p.servers() {
		if s.Name == name {
			return s, true
		}
	}
	return ServerState{}, false
}

// tokenMemo counts tokens, remembering the lines it has counted: the
// catalog is rebuilt whenever the registry changes, and most lines did not.
type tokenMemo struct {
	mu sync.Mutex
	m  map[string]int
}

func (p *Plugin) countTokens(s string) int {
	p.tokMemo.mu.Lock()
	n, ok := p.tokMemo.m[s]
	p.tokMemo.mu.Unlock()
	if ok {
		return n
	}
	n = tokens.Count(s)
	p.tokMemo.mu.Lock()
	if p.tokMemo.m == nil || len(p.tokMemo.m) >= 50_000 {
		p.tokMemo.m = map[string]int{}
	}
	p.tokMemo.m[s] = n
	p.tokMemo.mu.Unlock()
	return n
}

// buildCatalog lays out infos by server and picks, within budget tokens,
// the tools shown with their signatures (see the top of this file).
func buildCatalog(infos []tools.Info, states []ServerState, budget int, count func(string) int) Catalog {
	groups := groupTools(infos, states)
	var all []*catalogEntry
	for gi, g := range groups {
		for _, e := range g.entries {
			e.groupIdx = gi
			e.line = "  " + signatureLine(e.short, e.info)
			if d := firstSentence(e.info.Description, 120); d != "" {
				e.line += " // " + d
			}
			e.lineTok = count(e.line + "\n")
			e.nameTok = count(e.short + ", ")
			all = append(all, e)
		}
	}
	// The ranking: round (a tool's rank within its server), then servers
	// with fewer tools, then server name.
	order := slices.Clone(all)
	slices.SortStableFunc(order, func(a, b *catalogEntry) int {
		ga, gb := groups[a.groupIdx], groups[b.groupIdx]
		return cmp.Or(cmp.Compare(a.rank, b.rank), cmp.Compare(len(ga.entries), len(gb.entries)), cmp.Compare(ga.server, gb.server))
	})

	fixed := count(catalogIntro)
	for _, g := range groups {
		fixed += count(g.header + "\n")
	}
	names := 0
	for _, e := range all {
		names += e.nameTok
	}
	const restLine = 12 // "  and N more: …" per server, roughly
	// Names mode lists every tool without a signature by name; when even
	// the names do not fit, counts mode gives each server a count and the
	// call that lists its tools.
	for _, listNames := range []bool{true, false} {
		if listNames && fixed+names+restLine*len(groups) > budget {
			continue
		}
		for _, e := range all {
			e.shown = false
		}
		used := fixed
		if listNames {
			used += names + restLine*len(groups)
		} else {
			used += restLine * len(groups)
		}
		var picked []*catalogEntry
		for _, e := range order {
			cost := e.lineTok
			if listNames {
				cost -= e.nameTok
			}
			if used+cost > budget {
				continue
			}
			e.shown = true
			used += cost
			picked = append(picked, e)
		}
		// The sums above approximate the text's tokens; the text decides.
		for {
			text := renderCatalog(groups, listNames)
			n := count(text)
			if n <= budget || len(picked) == 0 {
				if n <= budget || !listNames {
					return Catalog{Text: text, Tools: len(all), Signatures: len(picked), Tokens: n, Budget: budget}
				}
				break // names mode does not fit even bare: counts mode
			}
			picked[len(picked)-1].shown = false
			picked = picked[:len(picked)-1]
		}
	}
	panic("unreachable") // counts mode always returns
}

// groupTools groups infos by server: tools of no server first, then the
// servers by name, each server's tools in registry order, ranked. Servers
// that Options.Servers reports but that have no tools get an empty group.
func groupTools(infos []tools.Info, states []ServerState) []*catalogGroup {
	byServer := map[string]*catalogGroup{}
	var groups []*catalogGroup
	get := func(server string) *catalogGroup {
		g := byServer[server]
		if g == nil {
			g = &catalogGroup{server: server}
			byServer[server] = g
			groups = append(groups, g)
		}
		return g
	}
	for _, in := range infos {
		s := serverOf(in.Name)
		short := in.Name
		if s != "" {
			short = strings.TrimPrefix(in.Name, "mcp__"+s+"__")
		}
		g := get(s)
		g.entries = append(g.entries, &catalogEntry{info: in, short: short})
	}
	for i := range states {
		get(states[i].Name).state = &states[i]
	}
	slices.SortFunc(groups, func(a, b *catalogGroup) int { return cmp.Compare(a.server, b.server) })
	for _, g := range groups {
		ranked := slices.Clone(g.entries)
		slices.SortStableFunc(ranked, func(a, b *catalogEntry) int {
			return cmp.Compare(boolRank(described(a.info)), boolRank(described(b.info)))
		})
		for i, e := range ranked {
			e.rank = i
		}
		g.header = groupHeader(g)
	}
	return groups
}

// described reports whether a tool's description says something: a
// sentence, not a missing or one-word one.
func described(in tools.Info) bool { return len(strings.Fields(in.Description)) >= 3 }

func boolRank(b bool) int {
	if b {
		return 0
	}
	return 1
}

// groupHeader is a server's first line: how to call its tools, its state
// when it is not ready, and its size.
func groupHeader(g *catalogGroup) string {
	var b strings.Builder
	if g.server == "" {
		b.WriteString("other tools: tools.NAME(args)")
	} else {
		b.WriteString(g.server + ": ")
		prefix := "mcp__" + g.server + "__"
		ident := isIdent(prefix + "x")
		for _, e := range g.entries {
			ident = ident && isIdent(e.info.Name)
		}
		if ident {
			b.WriteString("tools." + prefix + "NAME(args)")
		} else {
			b.WriteString("tools[\"" + prefix + "NAME\"](args)")
		}
	}
	if len(g.entries) != 1 {
		fmt.Fprintf(&b, ", %d tools", len(g.entries))
	}
	if s := g.state; s != nil && !s.Ready() {
		b.WriteString(" // unavailable: " + s.State)
		if s.Err != "" {
			b.WriteString(": " + human.OneLine(s.Err, 240))
		}
		if len(g.entries) == 0 {
			b.WriteString("; its tools are listed once it starts")
		} else {
			b.WriteString("; calls fail until it is back")
		}
	}
	return b.String()
}

// renderCatalog writes the catalog: the intro, then per group its header,
// the tools shown with signatures, and the rest by name (listNames) or by
// count.
func renderCatalog(groups []*catalogGroup, listNames bool) string {
	var b strings.Builder
	b.WriteString(catalogIntro)
	for _, g := range groups {
		b.WriteString(g.header + "\n")
		var rest []string
		for _, e := range g.entries {
			if e.shown {
				b.WriteString(e.line + "\n")
			} else {
				rest = append(rest, e.short)
			}
		}
		if len(rest) == 0 {
			continue
		}
		shown := len(g.entries) - len(rest)
		more := ""
		if shown > 0 {
			more = " more"
		}
		if listNames {
			fmt.Fprintf(&b, "  %d%s by name: %s\n", len(rest), more, strings.Join(rest, ", "))
		} else if g.server != "" {
			fmt.Fprintf(&b, "  %d%s: await tools.code_tools_list({ server: %s })\n", len(rest), more, jsonQuote(g.server))
		} else {
			fmt.Fprintf(&b, "  %d%s: await tools.code_tools_list({})\n", len(rest), more)
		}
	}
	return b.String()
}
