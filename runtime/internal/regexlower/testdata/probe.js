// probe runs each case's pattern over its inputs: the flags and source the
// object reports, then every match ([index, ...captures, groups]) of a
// global copy. regexlower's differential test runs it on goja and compares
// with V8's answer in v8.json (scripts/regexlower-v8.mjs).
(function probe(cases) {
  return cases.map(c => {
    let re
    try { re = new RegExp(c.p, c.f) } catch (e) { return { error: e.name } }
    const out = { flags: re.flags, source: re.source, unicodeSets: re.unicodeSets, ignoreCase: re.ignoreCase }
    out.r = c.in.map(s => {
      const g = new RegExp(c.p, c.f.includes('g') ? c.f : c.f + 'g')
      const ms = []
      let m
      while ((m = g.exec(s)) !== null && ms.length < 20) {
        ms.push([m.index, ...Array.from(m, x => x === undefined ? null : x), m.groups ? { ...m.groups } : null])
        if (m[0] === '') g.lastIndex++
      }
      return ms
    })
    return out
  })
})
