// The same-protocol peer of `codemode serve` for `codemode bench --peer`
// (docs/benchmarks.md, "Against a same-protocol peer"): an MCP server on
// the official TypeScript SDK whose one tool, code_run, runs the program in
// node:vm, answering as codemode does ({value} as structured content, the
// value as JSON text). Nested calls go to a stdio upstream through the
// SDK's client, as `tools["mcp__<server>__<tool>"](args)`.
//
//   node server.mjs [--mode per-call|persistent] [--http PORT]
//                   [--upstream NAME -- COMMAND ARGS...]
//
// per-call: a fresh vm context for every code_run; persistent: one context
// per session. Over stdio there is one session; with --http, streamable
// HTTP at http://127.0.0.1:PORT/mcp, a session (and context) per client,
// and "listening on PORT" on stderr when ready. It is a benchmark peer,
// not a sandbox: node:vm is not a security boundary.
import http from "node:http";
import vm from "node:vm";
import { randomUUID } from "node:crypto";
import { Server } from "@modelcontextprotocol/sdk/server/index.js";
import { StdioServerTransport } from "@modelcontextprotocol/sdk/server/stdio.js";
import { StreamableHTTPServerTransport } from "@modelcontextprotocol/sdk/server/streamableHttp.js";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import {
  CallToolRequestSchema,
  ListToolsRequestSchema,
  isInitializeRequest,
} from "@modelcontextprotocol/sdk/types.js";

const argv = process.argv.slice(2);
let mode = "per-call";
let port = 0;
let upstreamName = "";
let upstreamCmd = [];
for (let i = 0; i < argv.length; i++) {
  const a = argv[i];
  if (a === "--mode") mode = argv[++i];
  else if (a === "--http") port = Number(argv[++i]);
  else if (a === "--upstream") {
    upstreamName = argv[++i];
    if (argv[++i] !== "--") usage();
    upstreamCmd = argv.slice(i + 1);
    break;
  } else usage();
}
if (mode === "persistent-in-memory") mode = "persistent";
if (mode !== "per-call" && mode !== "persistent") usage();

function usage() {
  console.error("usage: node server.mjs [--mode per-call|persistent] [--http PORT] [--upstream NAME -- COMMAND ARGS...]");
  process.exit(2);
}

// One upstream client for the process, as `codemode serve` has one
// connection per configured server.
let upstream = null;
if (upstreamCmd.length > 0) {
  upstream = new Client({ name: "peer", version: "1" });
  await upstream.connect(new StdioClientTransport({ command: upstreamCmd[0], args: upstreamCmd.slice(1), stderr: "inherit" }));
}

// tools is the program's binding: each call resolves to the structured
// value, or the text parsed when it is JSON, as codemode's do.
function makeTools() {
  return new Proxy({}, {
    get(_, name) {
      if (typeof name !== "string") return undefined;
      const prefix = "mcp__" + upstreamName + "__";
      if (!upstream || !name.startsWith(prefix)) {
        return async () => { throw new Error("UNKNOWN_TOOL: " + name); };
      }
      const tool = name.slice(prefix.length);
      return async (args) => {
        const res = await upstream.callTool({ name: tool, arguments: args ?? {} });
        if (res.isError) throw new Error(res.content?.map((c) => c.text).join("\n") ?? "tool error");
        if (res.structuredContent !== undefined) return res.structuredContent;
        const text = (res.content ?? []).filter((c) => c.type === "text").map((c) => c.text).join("");
        try { return JSON.parse(text); } catch { return text; }
      };
    },
  });
}

const codeRunTool = {
  name: "code_run",
  description: "Run a JavaScript program (the body of an async function) in node:vm; `tools.NAME(args)` calls a tool.",
  inputSchema: { type: "object", properties: { code: { type: "string" } }, required: ["code"] },
};

function newContext() {
  return vm.createContext({ tools: makeTools() });
}

// A session: an SDK Server with its own context when persistent.
function newSession() {
  const server = new Server({ name: "node-vm-peer", version: "1" }, { capabilities: { tools: {} } });
  let shared = mode === "persistent" ? newContext() : null;
  server.setRequestHandler(ListToolsRequestSchema, async () => ({ tools: [codeRunTool] }));
  server.setRequestHandler(CallToolRequestSchema, async (req) => {
    if (req.params.name !== "code_run") {
      return { isError: true, content: [{ type: "text", text: "UNKNOWN_TOOL: " + req.params.name }] };
    }
    const code = String(req.params.arguments?.code ?? "");
    const ctx = shared ?? newContext();
    try {
      const value = await vm.runInContext("(async () => {\n" + code + "\n})()", ctx, { timeout: 2000 });
      const text = JSON.stringify(value ?? null);
      return { content: [{ type: "text", text }], structuredContent: { value: value ?? null } };
    } catch (e) {
      return { isError: true, content: [{ type: "text", text: String(e && e.stack || e) }] };
    }
  });
  return server;
}

if (port === 0) {
  await newSession().connect(new StdioServerTransport());
} else {
  const transports = new Map(); // session id → transport
  const srv = http.createServer(async (req, res) => {
    if (!req.url.startsWith("/mcp")) { res.writeHead(404).end(); return; }
    let body;
    if (req.method === "POST") {
      const chunks = [];
      for await (const c of req) chunks.push(c);
      try { body = JSON.parse(Buffer.concat(chunks).toString("utf8")); } catch { res.writeHead(400).end(); return; }
    }
    const sid = req.headers["mcp-session-id"];
    let t = sid ? transports.get(sid) : undefined;
    if (!t) {
      if (sid || req.method !== "POST" || !isInitializeRequest(body)) {
        res.writeHead(sid ? 404 : 400).end();
        return;
      }
      t = new StreamableHTTPServerTransport({
        sessionIdGenerator: () => randomUUID(),
        onsessioninitialized: (id) => transports.set(id, t),
      });
      t.onclose = () => { if (t.sessionId) transports.delete(t.sessionId); };
      await newSession().connect(t);
    }
    await t.handleRequest(req, res, body);
  });
  srv.keepAliveTimeout = 60000;
  srv.listen(port, "127.0.0.1", () => console.error("listening on " + srv.address().port));
}
