// corpus-v8.mjs: runs the differential corpus's programs in V8 and prints
// their outcomes, for `go test ./runtime -run TestCorpus -update-corpus`,
// which starts it (with deno, else node) and writes the outcomes into
// runtime/testdata/corpus/*.txtar. Input on stdin: JSON [{name, code}];
// output on stdout: JSON {name: {value} | {undefined: true} | {error}}.
// Each program is the body of an async function, as in code_run.
const read = async () => {
  if (typeof Deno !== "undefined") return await new Response(Deno.stdin.readable).text();
  const chunks = [];
  for await (const c of process.stdin) chunks.push(c);
  return Buffer.concat(chunks).toString("utf8");
};
const AsyncFunction = (async () => {}).constructor;
const programs = JSON.parse(await read());
const out = {};
for (const { name, code } of programs) {
  let r;
  try {
    const f = new AsyncFunction(code);
    const v = await Promise.race([
      f(),
      new Promise((_, rej) => setTimeout(() => rej(new Error("corpus: the program did not settle in 5s")), 5000)),
    ]);
    const json = JSON.stringify(v);
    r = json === undefined ? { undefined: true } : { value: JSON.parse(json) };
  } catch (e) {
    r = { error: e instanceof Error ? e.name : "Uncaught" };
  }
  out[name] = r;
}
const text = JSON.stringify(out);
if (typeof Deno !== "undefined") await Deno.stdout.write(new TextEncoder().encode(text));
else process.stdout.write(text);
if (typeof Deno !== "undefined") Deno.exit(0); else process.exit(0);
