// The policy end-to-end client: the official TypeScript MCP client (pinned
// in package.json) with an elicitation handler that answers from a script.
//
//   node client.mjs '<spec JSON>'
//
// spec: {"command": [...argv] | "url": "http://…/mcp",
//        "elicit": true|false,            // declare the elicitation capability
//        "answers": ["allow-once" | "allow-session" | "deny" | "decline" |
//                    "cancel" | "never" | "wait:<ms>:<decision>", …],
//        "programs": ["<code_run program>", …]}
// It prints one JSON object: {"results": [{isError, text, value, code}],
// "asked": [{message, schema, ms}]}.
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { ElicitRequestSchema } from "@modelcontextprotocol/sdk/types.js";

const spec = JSON.parse(process.argv[2]);
const capabilities = spec.elicit ? { elicitation: { form: {} } } : {};
const client = new Client({ name: "policy-e2e", version: "1.0.0" }, { capabilities });
const asked = [];
const answers = [...(spec.answers || [])];

if (spec.elicit) {
  client.setRequestHandler(ElicitRequestSchema, async (req) => {
    const start = Date.now();
    const entry = { message: req.params.message, schema: req.params.requestedSchema, mode: req.params.mode };
    asked.push(entry);
    let answer = answers.shift() || "deny";
    if (answer === "never") return new Promise(() => {});
    if (answer.startsWith("wait:")) {
      const [, ms, decision] = answer.split(":");
      await new Promise((r) => setTimeout(r, Number(ms)));
      answer = decision;
    }
    entry.ms = Date.now() - start;
    if (answer === "decline" || answer === "cancel") return { action: answer };
    return { action: "accept", content: { decision: answer } };
  });
}

const transport = spec.url
  ? new StreamableHTTPClientTransport(new URL(spec.url))
  : new StdioClientTransport({ command: spec.command[0], args: spec.command.slice(1), stderr: "inherit" });
await client.connect(transport);

const results = [];
for (const code of spec.programs) {
  const res = await client.callTool({ name: "code_run", arguments: { code } }, undefined, { timeout: 120000 });
  const text = (res.content || []).filter((c) => c.type === "text").map((c) => c.text).join("\n");
  results.push({
    isError: !!res.isError,
    text,
    value: res.structuredContent ? res.structuredContent.value : undefined,
    code: res._meta && res._meta["codemode/error"] ? res._meta["codemode/error"].code : "",
  });
}
await client.close();
process.stdout.write(JSON.stringify({ results, asked }) + "\n");
