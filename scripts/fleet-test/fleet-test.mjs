// The fleet test, driven by scripts/fleet-test/run: two fleets of nginx and
// two codemode replicas on loopback, and 40 MCP sessions through the
// official TypeScript client.
//
//   --percall URL --percall-dir DIR          a stateless per-call fleet
//   --persistent URL --persistent-dir DIR    a stateful persistent fleet
//
// DIR is the fleet's directory (scripts/fleet --dir): `replicas` lists
// NAME PID PORT, rK.exit appears when replica K exits.
import fs from 'node:fs';
import http from 'node:http';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';

const opt = {};
for (let i = 2; i < process.argv.length; i += 2) opt[process.argv[i].replace(/^--/, '')] = process.argv[i + 1];
for (const k of ['percall', 'percall-dir', 'persistent', 'persistent-dir']) {
  if (!opt[k]) { console.error(`fleet-test: --${k} is required`); process.exit(2); }
}
const SESSIONS = 20; // per fleet
const CALLS = 5; // per session

let passed = 0;
let failed = 0;
// check prints PASS or FAIL; detail is shown when it is a string worth
// showing (a FAIL's reason, or a figure).
function check(name, ok, detail = '') {
  if (ok) passed++; else failed++;
  const d = detail === 'undefined' ? '' : detail;
  console.log(`${ok ? 'PASS' : 'FAIL'}  ${name}${d ? ` (${d})` : ''}`);
  return ok;
}

function replicas(dir) {
  const out = {};
  for (const line of fs.readFileSync(`${dir}/replicas`, 'utf8').trim().split('\n')) {
    const [name, pid, port] = line.split(' ');
    out[name] = { pid: Number(pid), port: Number(port) };
  }
  return out;
}

async function connect(url) {
  const transport = new StreamableHTTPClientTransport(new URL(url));
  const client = new Client({ name: 'fleet-test', version: '1' });
  // The standalone event stream of a session whose replica died fails and
  // is retried by the client; that is expected here, not a test failure.
  client.onerror = () => {};
  await client.connect(transport);
  return { client, transport, replica: (transport.sessionId ?? '').split('.')[0] };
}

async function run(s, code) {
  const res = await s.client.callTool({ name: 'code_run', arguments: { code } });
  if (res.isError) throw new Error(`code_run failed: ${res.content?.map((c) => c.text).join(' ')}`);
  return res.structuredContent?.value;
}

const same = (a, b) => JSON.stringify(a) === JSON.stringify(b);

// One persistent call k (1-based) of session i: the first declares the
// session's state, every later one bumps it and lists the secrets it sees.
async function persistentCall(s, i, k) {
  if (k === 1) return same(await run(s, `var secret_${i} = ${i}; var n = 1; return n`), 1);
  const got = await run(s, `n++; return { n, mine: secret_${i}, seen: Object.keys(globalThis).filter((k) => k.startsWith('secret_')) }`);
  return same(got, { n: k, mine: i, seen: [`secret_${i}`] }) || `call ${k}: ${JSON.stringify(got)}`;
}

// One per-call call: a nested call to the fake server; nothing of the
// previous call of the session may be left.
async function perCallCall(s, i, k) {
  const got = await run(s, `const r = await tools.mcp__fake__echo({ text: "s${i}c${k}" }); const left = typeof leftover; var leftover = 1; return { text: r.text, left }`);
  return same(got, { text: `s${i}c${k}`, left: 'undefined' }) || `call ${k}: ${JSON.stringify(got)}`;
}

// rounds runs calls from..to of every session concurrently; each session's
// calls in order. It returns per session true, or the first problem.
async function rounds(sessions, call, from, to) {
  return Promise.all(sessions.map(async (s, i) => {
    for (let k = from; k <= to; k++) {
      try {
        const ok = await call(s, i, k);
        if (ok !== true) return ok;
      } catch (e) {
        return e;
      }
    }
    return true;
  }));
}

function rawPost(url, host, body) {
  return new Promise((resolve, reject) => {
    const u = new URL(url);
    const req = http.request({ host: u.hostname, port: u.port, path: u.pathname, method: 'POST',
      headers: { Host: host, 'Content-Type': 'application/json', Accept: 'application/json, text/event-stream' } }, (res) => {
      let data = '';
      res.on('data', (c) => { data += c; });
      res.on('end', () => resolve({ status: res.statusCode, body: data }));
    });
    req.on('error', reject);
    req.end(body);
  });
}

async function waitFile(path, ms) {
  const end = Date.now() + ms;
  while (Date.now() < end) {
    if (fs.existsSync(path)) return fs.readFileSync(path, 'utf8').trim();
    await new Promise((r) => setTimeout(r, 50)); // another process's file: polled, bounded
  }
  return null;
}

const initialize = JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'initialize',
  params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'raw', version: '1' } } });

async function main() {
  const t0 = Date.now();
  // trustedHosts behind the proxy: the replicas listen on loopback and
  // trust the public name; only our fence decides.
  const named = await rawPost(opt.persistent, 'mcp.fleet.test', initialize);
  check('trusted public Host through nginx reaches the replica', named.status === 200, `status ${named.status}`);
  const evil = await rawPost(opt.persistent, 'evil.example', initialize);
  check('untrusted Host through nginx is refused by our fence', evil.status === 403 && evil.body.includes('DNS-rebinding fence'), `${evil.status} ${evil.body.trim()}`);

  // 40 sessions: 20 per-call on the stateless fleet, 20 persistent on the
  // stateful one.
  const perCall = await Promise.all(Array.from({ length: SESSIONS }, () => connect(opt.percall)));
  const persistent = await Promise.all(Array.from({ length: SESSIONS }, () => connect(opt.persistent)));
  check('stateless sessions carry no session id', perCall.every((s) => s.transport.sessionId === undefined));
  const on = (r) => persistent.map((s, i) => [s, i]).filter(([s]) => s.replica === r);
  check('persistent sessions are spread over both replicas', on('r1').length > 0 && on('r2').length > 0,
    `r1: ${on('r1').length}, r2: ${on('r2').length}`);

  // Calls 1..3 of every session, all at once.
  let res = await Promise.all([rounds(perCall, perCallCall, 1, 3), rounds(persistent, persistentCall, 1, 3)]);
  check('per-call sessions: calls 1-3', res[0].every((r) => r === true), String(res[0].find((r) => r !== true)));
  check('persistent sessions: calls 1-3 keep their own state', res[1].every((r) => r === true), String(res[1].find((r) => r !== true)));

  // SIGKILL replica r2 of both fleets, then calls 4..5.
  const pc = replicas(opt['percall-dir']);
  const ps = replicas(opt['persistent-dir']);
  process.kill(pc.r2.pid, 'SIGKILL');
  process.kill(ps.r2.pid, 'SIGKILL');
  check('killed replicas exited', (await waitFile(`${opt['percall-dir']}/r2.exit`, 10000)) !== null && (await waitFile(`${opt['persistent-dir']}/r2.exit`, 10000)) !== null);

  const survivors = on('r1');
  const orphans = on('r2');
  res = await Promise.all([
    rounds(perCall, perCallCall, 4, CALLS),
    rounds(survivors.map(([s]) => s), (s, j, k) => persistentCall(s, survivors[j][1], k), 4, CALLS),
    Promise.all(orphans.map(async ([s, i]) => {
      try {
        await run(s, `n++; return n`);
        return 'the call succeeded';
      } catch (e) {
        return e.code === 404 || `${e.code ?? ''} ${e.message}`;
      }
    })),
  ]);
  check('per-call sessions: calls 4-5 after a replica died, no error', res[0].every((r) => r === true), String(res[0].find((r) => r !== true)));
  check(`persistent sessions on the live replica: calls 4-5, state untouched (${survivors.length} sessions, ${CALLS} calls each)`,
    res[1].every((r) => r === true), String(res[1].find((r) => r !== true)));
  check(`persistent sessions on the dead replica: the next call gets 404 (${orphans.length} sessions)`,
    res[2].every((r) => r === true), String(res[2].find((r) => r !== true)));

  // Re-initialize (the MCP rule after a 404): a new session on the live
  // replica, with a fresh environment — nobody else's state — that works
  // for five calls.
  const reborn = await Promise.all(orphans.map(() => connect(opt.persistent)));
  check('re-initialized sessions land on the live replica', reborn.every((s) => s.replica === 'r1'), reborn.map((s) => s.replica).join(','));
  const fresh = await Promise.all(reborn.map((s) => run(s, `return Object.keys(globalThis).filter((k) => k.startsWith('secret_') || k === 'n')`)));
  check('re-initialized sessions start from a fresh environment', fresh.every((f) => same(f, [])), JSON.stringify(fresh.find((f) => !same(f, []))));
  res = await rounds(reborn, (s, j, k) => persistentCall(s, orphans[j][1], k), 1, CALLS);
  check(`re-initialized sessions work again (${CALLS} calls each, own state)`, res.every((r) => r === true), String(res.find((r) => r !== true)));

  // SIGTERM drain on the live replica of the persistent fleet: a program
  // that is running finishes and its result is delivered; the replica
  // exits 0.
  const s = survivors.length > 0 ? survivors[0][0] : reborn[0];
  const slow = run(s, `await tools.mcp__fake__slow({ ms: 2000 }); return "finished after SIGTERM"`).then((v) => v, (e) => e);
  await new Promise((r) => setTimeout(r, 500)); // the program is running its nested call
  const sent = Date.now();
  process.kill(ps.r1.pid, 'SIGTERM');
  const got = await slow;
  check('SIGTERM: the running program finishes and its result is delivered', got === 'finished after SIGTERM', String(got));
  const exit = await waitFile(`${opt['persistent-dir']}/r1.exit`, 20000);
  check('SIGTERM: the replica drains and exits 0', exit === '0', `exit ${exit}, ${Date.now() - sent} ms after the signal`);

  for (const x of [...perCall, ...survivors.map(([x]) => x), ...reborn]) x.client.close().catch(() => {});
  console.log(`fleet-test: ${Date.now() - t0} ms`);
}

main().catch((e) => {
  failed++;
  console.log(`FAIL  unexpected: ${e.stack ?? e}`);
}).finally(() => {
  console.log(`${passed} passed, ${failed} failed`);
  process.exit(failed > 0 ? 1 : 0);
});
