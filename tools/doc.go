// Package tools is the tool registry and the execution pipeline every call
// goes through, direct or nested (docs/contract.md, "Tools and the
// pipeline").
//
// # Registering
//
// A [Tool] is a name, a description, JSON Schemas and a [Handler]. It lives
// in one [Layer]: the global layer (MCP servers, profile bundles), a
// preset's layer (the preset's own tools) or an agent's layer. An agent's
// view resolves a name in its own layer, then its preset's, then the global
// one; a preset owns a name when its view resolves it and the global view
// does not ([Registry.Owned]).
//
//	reg := tools.New(tools.Options{})
//	g, err := reg.Register(tools.GlobalLayer(), tools.Tool{Name: "mcp__fake__ticker", Handler: h})
//	defer g.Remove()
//
// Agents come from [Registry.NewAgent], under a scope of package scope:
// the agent's identity and its lifecycle are one value.
//
// # The pipeline
//
// [Registry.Execute] runs, in this order:
//
//  1. resolve the name in the caller's view (UNKNOWN_TOOL, with
//     suggestions);
//  2. snapshot the arguments: canonical JSON text, immutable from here on
//     (INVALID_ARGUMENTS, ARGUMENTS_TOO_LARGE);
//  3. validate them against the input schema (the failing path named);
//  4. the pre-execute waterfall ([Registry.OnPreExecute]): [Allow], [Deny],
//     [Cancel] or [Ask];
//  5. approval of an Ask ([Approver]; refused unless one is configured);
//  6. monotonic guards ([Registry.OnGuard]): any reason denies;
//  7. dispatch: the execute waterfall ([Registry.OnExecute]) around the
//     body, under the call's deadline;
//  8. the post-execute waterfall ([Registry.OnPostExecute]): [Accept] or
//     [Block]; denied calls pass here too;
//  9. finalize: the token is invalidated and a tool/result event goes to
//     [Registry.OnResult] listeners and the logger.
//
// One [Middleware] chain ([Registry.Use]) wraps steps 1–8 of every call,
// refused ones included: the place for what must see all calls (traces,
// metrics, audit). Errors are values of package tools/errs with stable
// codes; Execute never panics and never returns nil.
//
// # Goroutines and ownership
//
// A Registry is safe for concurrent use. Execute runs on the caller's
// goroutine, and so do middleware, waterfall listeners, the approver and
// guards; the body runs on a goroutine of its own unless [Input.Inline] asks
// for the caller's or the tool declares [Tool.BoundsItself]. Listener lists are copy-on-write: adding or removing one
// never blocks a call, and a call keeps the lists it started with. An
// [Execution] is read-only for everyone but the registry; its [Token]
// proves a call is in progress and is the only way to make a nested call
// (Input.Parent). A body's panic, and a listener's, becomes an error result:
// the call fails, closed, and nothing else does.
package tools
