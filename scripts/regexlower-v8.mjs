// regexlower-v8.mjs writes runtime/internal/regexlower/testdata/v8.json:
// V8's answer to testdata/probe.js over testdata/cases.json, which
// regexlower's differential test compares goja's with. Needs a V8 that knows
// the v flag and modifiers (Deno 2):
//   deno run --allow-read --allow-write scripts/regexlower-v8.mjs
const dir = new URL('../runtime/internal/regexlower/testdata/', import.meta.url);
const read = (f) => Deno.readTextFileSync(new URL(f, dir));
const cases = JSON.parse(read('cases.json'));
const probe = (0, eval)(read('probe.js'));
Deno.writeTextFileSync(new URL('v8.json', dir), JSON.stringify(probe(cases), null, 0).replace(/\},\{/g, '},\n{') + '\n');
