// intlgen.mjs: writes runtime/internal/webapi/intldata/*.json.gz, the CLDR
// data the sandbox's Intl needs and golang.org/x/text does not expose
// (date and time patterns and names, list, relative-time, compact and unit
// patterns, currency placement and names, display names), read from a V8
// runtime's ICU.
// What x/text has (plural rules, collation, language matching, currency
// digits) is taken from x/text at run time. Run with Node ≥ 20:
//
//   node scripts/intlgen.mjs
//
// The output records the ICU and CLDR versions it came from.
import { mkdirSync, rmSync, writeFileSync } from "node:fs";
import { gzipSync } from "node:zlib";

const LOCALES = ["en", "en-GB", "en-IN", "de", "de-CH", "fr", "es", "it", "pt", "pt-PT", "nl", "ja", "zh", "zh-TW", "ko", "ru", "pl", "sv", "tr", "hi", "da", "fi", "nb", "cs", "uk"];
const CURRENCIES = ["USD", "EUR", "GBP", "JPY", "CNY", "INR", "CAD", "AUD", "CHF", "KRW", "BRL", "MXN", "RUB", "SEK", "PLN", "TRY", "HKD", "NZD", "DKK", "NOK", "CZK", "UAH", "TWD"];
const UNITS = ["acre", "bit", "byte", "celsius", "centimeter", "day", "degree", "fahrenheit", "fluid-ounce", "foot", "gallon", "gigabit", "gigabyte", "gram", "hectare", "hour", "inch", "kilobit", "kilobyte", "kilogram", "kilometer", "liter", "megabit", "megabyte", "meter", "microsecond", "mile", "mile-scandinavian", "milliliter", "millimeter", "millisecond", "minute", "month", "nanosecond", "ounce", "percent", "petabyte", "pound", "second", "stone", "terabit", "terabyte", "week", "yard", "year", "kilometer-per-hour", "mile-per-hour", "meter-per-second", "kilobyte-per-second", "megabyte-per-second", "liter-per-kilometer", "mile-per-gallon"];
const RTF_UNITS = ["year", "quarter", "month", "week", "day", "hour", "minute", "second"];

// Reference instants (UTC): A 2024-01-02 03:04:05.678 Tue, B 2024-11-23
// 15:06:07 Sat, C 2024-01-02 00:04:05.
const A = Date.UTC(2024, 0, 2, 3, 4, 5, 678), B = Date.UTC(2024, 10, 23, 15, 6, 7), C = Date.UTC(2024, 0, 2, 0, 4, 5);

function samples(loc, type) {
  // one integer (or decimal) per plural category
  const pr = new Intl.PluralRules(loc, { type }), out = {};
  for (const n of [0, 1, 2, 3, 4, 5, 6, 7, 8, 10, 11, 12, 20, 21, 22, 25, 100, 101, 102, 1000000, 1.5, 0.5]) {
    const c = pr.select(n);
    if (!(c in out)) out[c] = n;
  }
  return out;
}

function numTemplate(parts, keepCurrency) {
  // number parts become {n}, the currency {c} (or {C:name} when kept),
  // signs {-} {+}, percent {%}, a unit {u:text}, a compact suffix {k:text}
  let s = "", inNum = false;
  for (const p of parts) {
    if (["integer", "group", "decimal", "fraction"].includes(p.type)) {
      if (!inNum) s += "{n}";
      inNum = true;
      continue;
    }
    inNum = false;
    if (p.type === "currency") s += keepCurrency ? "{C:" + p.value + "}" : "{c}";
    else if (p.type === "unit") s += "{u:" + p.value + "}";
    else if (p.type === "compact") s += "{k:" + p.value + "}";
    else if (p.type === "minusSign") s += "{-}";
    else if (p.type === "plusSign") s += "{+}";
    else if (p.type === "percentSign") s += "{%}";
    else s += p.value.replace(/[{}]/g, (m) => m + m);
  }
  return s;
}

function numberData(loc) {
  const nf = (o) => new Intl.NumberFormat(loc, o);
  const parts = nf({ maximumFractionDigits: 1 }).formatToParts(12345678.5);
  const groups = parts.filter((p) => p.type === "integer").map((p) => p.value.length);
  const sym = (o, v, t) => (nf(o).formatToParts(v).find((p) => p.type === t) || {}).value;
  const d = {
    decimal: sym({}, 1.5, "decimal"),
    group: sym({}, 12345678, "group"),
    minus: sym({}, -1, "minusSign"),
    plus: sym({ signDisplay: "always" }, 1, "plusSign"),
    percentSign: sym({ style: "percent" }, 1, "percentSign"),
    exp: sym({ notation: "scientific" }, 1000, "exponentSeparator"),
    inf: sym({}, Infinity, "infinity"),
    nan: sym({}, NaN, "nan"),
    primary: groups[groups.length - 1],
    secondary: groups.length > 2 ? groups[groups.length - 2] : groups[groups.length - 1],
    minGroup: nf({}).format(1234).length === 4 ? 2 : 1,
    decimalNeg: numTemplate(nf({}).formatToParts(-1)),
    percent: numTemplate(nf({ style: "percent" }).formatToParts(1)),
    percentNeg: numTemplate(nf({ style: "percent" }).formatToParts(-1)),
    currency: numTemplate(nf({ style: "currency", currency: "EUR" }).formatToParts(1)),
    currencyNeg: numTemplate(nf({ style: "currency", currency: "EUR" }).formatToParts(-1)),
    currencyAccNeg: numTemplate(nf({ style: "currency", currency: "EUR", currencySign: "accounting" }).formatToParts(-1)),
    currencyCode: numTemplate(nf({ style: "currency", currency: "EUR", currencyDisplay: "code" }).formatToParts(1)),
    currencyCodeNeg: numTemplate(nf({ style: "currency", currency: "EUR", currencyDisplay: "code" }).formatToParts(-1)),
    currencies: {},
    compact: {},
    units: {},
  };
  const cats = samples(loc, "cardinal");
  for (const cur of CURRENCIES) {
    const c = {
      symbol: sym({ style: "currency", currency: cur }, 1, "currency"),
      narrow: sym({ style: "currency", currency: cur, currencyDisplay: "narrowSymbol" }, 1, "currency"),
      name: {},
    };
    for (const [cat, n] of Object.entries(cats)) {
      c.name[cat] = numTemplate(nf({ style: "currency", currency: cur, currencyDisplay: "name" }).formatToParts(n), true);
    }
    d.currencies[cur] = c;
  }
  for (const disp of ["short", "long"]) {
    const byMag = {};
    const f = nf({ notation: "compact", compactDisplay: disp }), pr = new Intl.PluralRules(loc);
    const shownOf = (ps) => Number(ps.filter((p) => p.type === "integer" || p.type === "fraction" || p.type === "decimal").map((p) => (p.type === "decimal" ? "." : p.value)).join(""));
    for (let m = 0; m <= 15; m++) {
      // values of magnitude m whose displayed numbers cover the plural
      // categories: k × 10^(m-1) for k in 10..99, then 1.5 × 10^m; a
      // displayed exactly 1 only as "=1" (CLDR's explicit form: "mille")
      const entry = {};
      const candidates = [];
      for (let k = 10; k <= 99; k++) candidates.push(k * 10 ** (m - 1));
      candidates.push(1.5 * 10 ** m);
      for (const v of candidates) {
        if (v < 1) continue;
        const ps = f.formatToParts(v), shown = shownOf(ps);
        const digits = ps.filter((p) => p.type === "integer").map((p) => p.value).join("").length;
        const t = { t: numTemplate(ps), z: digits };
        const explicit = !ps.some((p) => p.type === "integer"); // "mille": CLDR's form for exactly one
        if (shown === 1 || explicit) { if (!("=1" in entry)) entry["=1"] = t; continue; }
        const cat = pr.select(shown);
        if (!(cat in entry)) entry[cat] = t;
      }
      if (entry["=1"] && entry.one && entry["=1"].t === entry.one.t) delete entry["=1"];
      if (entry["=1"] && !entry.one) { entry.one = entry["=1"]; }
      byMag[m] = entry;
    }
    d.compact[disp] = byMag;
  }
  for (const u of UNITS) {
    const e = {};
    for (const disp of ["short", "long", "narrow"]) {
      const byCat = {};
      for (const [cat, n] of Object.entries(cats)) {
        byCat[cat] = numTemplate(nf({ style: "unit", unit: u, unitDisplay: disp }).formatToParts(n)).replace(/\{n\}/, "{n}");
      }
      e[disp] = byCat;
    }
    d.units[u] = e;
  }
  return d;
}

// ---- dates
function dtf(loc, o) { return new Intl.DateTimeFormat(loc, { timeZone: "UTC", ...o }); }
let namesTable = [], namesIndex = new Map();
function namesId(arr) {
  const k = JSON.stringify(arr);
  if (!namesIndex.has(k)) { namesIndex.set(k, namesTable.length); namesTable.push(arr); }
  return namesIndex.get(k);
}
function part(loc, o, t, type) {
  const p = dtf(loc, o).formatToParts(t).find((x) => x.type === type);
  return p ? p.value : "";
}
function dateTemplate(loc, o) {
  const f = dtf(loc, o);
  const pa = f.formatToParts(A), pb = f.formatToParts(B), pc = f.formatToParts(C);
  const find = (ps, type) => (ps.find((x) => x.type === type) || {}).value;
  let s = "";
  for (const p of pa) {
    switch (p.type) {
      case "literal": s += p.value.replace(/[{}]/g, (m) => m + m); break;
      case "year": s += p.value === "2024" ? "{y}" : p.value === "24" ? "{yy}" : "{y}"; break;
      case "relatedYear": s += "{y}"; break;
      case "yearName": s += "{y}"; break;
      case "month":
        if (p.value === "1") s += "{M}";
        else if (p.value === "01") s += "{MM}";
        else s += "{M#" + namesId(Array.from({ length: 12 }, (_, i) => find(f.formatToParts(Date.UTC(2024, i, 2, 3)), "month"))) + "}";
        break;
      case "day": s += p.value === "2" ? "{d}" : p.value === "02" ? "{dd}" : "{d}"; break;
      case "weekday":
        // 2024-01-07 is a Sunday
        s += "{E#" + namesId(Array.from({ length: 7 }, (_, i) => find(f.formatToParts(Date.UTC(2024, 0, 7 + i, 3)), "weekday"))) + "}";
        break;
      case "era": s += "{G#" + namesId([find(f.formatToParts(Date.UTC(-100, 0, 2, 3)), "era"), p.value]) + "}"; break;
      case "hour": {
        const a = p.value, b = find(pb, "hour"), c = find(pc, "hour");
        let tok = "h";
        if (b === "15") tok = c === "24" ? "k" : "H";
        else tok = c === "0" || c === "00" ? "K" : "h";
        if (a === "03") tok += tok;
        s += "{" + tok + "}";
        break;
      }
      case "minute": s += p.value === "04" ? "{mm}" : "{m}"; break;
      case "second": s += p.value === "05" ? "{ss}" : "{s}"; break;
      case "fractionalSecond": s += "{S" + p.value.length + "}"; break;
      case "dayPeriod":
        // by hour: flexible day periods (zh-Hant's 早上, 下午, 晚上) as AM/PM
        s += "{a#" + namesId(Array.from({ length: 24 }, (_, h) => find(f.formatToParts(Date.UTC(2024, 0, 2, h, 4, 5)), "dayPeriod"))) + "}";
        break;
      case "timeZoneName": s += "{z}"; break;
      default: s += "{?" + p.type + "}";
    }
  }
  return s;
}

const DATE_OPTS = [];
for (const weekday of [undefined, "long", "short", "narrow"])
  for (const year of [undefined, "numeric", "2-digit"])
    for (const month of [undefined, "numeric", "2-digit", "long", "short", "narrow"])
      for (const day of [undefined, "numeric", "2-digit"]) {
        const o = {};
        if (weekday) o.weekday = weekday;
        if (year) o.year = year;
        if (month) o.month = month;
        if (day) o.day = day;
        if (Object.keys(o).length) DATE_OPTS.push(o);
      }
const TIME_OPTS = [];
for (const hour12 of [undefined, true, false])
  for (const hms of ["h", "hm", "hms", "ms", "m", "s"])
    for (const hour of hms.includes("h") ? ["numeric", "2-digit"] : [undefined])
      for (const minute of hms.includes("m") ? ["numeric", "2-digit"] : [undefined])
        for (const second of hms.includes("s") ? ["numeric", "2-digit"] : [undefined]) {
          const o = {};
          if (hour) o.hour = hour;
          if (minute) o.minute = minute;
          if (second) o.second = second;
          if (hour12 !== undefined) { if (!hour) continue; o.hour12 = hour12; }
          TIME_OPTS.push(o);
        }
const key = (o) => Object.entries(o).map(([k, v]) => k + "=" + v).join(",");

function dateData(loc) {
  const d = { date: {}, time: {}, glue: {}, pairs: {}, styles: {}, tz: {}, era: {} };
  for (const o of DATE_OPTS) d.date[key(o)] = dateTemplate(loc, o);
  for (const o of TIME_OPTS) {
    d.time[key(o)] = dateTemplate(loc, o);
    d.time[key({ ...o, timeZoneName: "short" })] = dateTemplate(loc, { ...o, timeZoneName: "short" });
    const long = dateTemplate(loc, { ...o, timeZoneName: "long" });
    if (long !== d.time[key({ ...o, timeZoneName: "short" })]) d.time[key({ ...o, timeZoneName: "long" })] = long;
  }
  for (const o of DATE_OPTS) {
    const dk = key(o), dt = d.date[dk];
    const probe = { hour: "numeric", minute: "2-digit" };
    const full = dateTemplate(loc, { ...o, ...probe }), tt = d.time[key(probe)];
    if (full.startsWith(dt) && full.endsWith(tt)) d.glue[dk] = full.slice(dt.length, full.length - tt.length);
    else d.glue[dk] = null;
    // check the glue against other time parts; record pairs that differ
    for (const t of [{ hour: "numeric", minute: "2-digit", second: "2-digit" }, { hour: "numeric" }, { hour: "numeric", minute: "2-digit", hour12: false }, { hour: "numeric", minute: "2-digit", second: "2-digit", hour12: false }, probe]) {
      const f2 = dateTemplate(loc, { ...o, ...t });
      if (d.glue[dk] === null || f2 !== dt + d.glue[dk] + d.time[key(t)]) d.pairs[dk + "|" + key(t)] = f2;
    }
  }
  for (const ds of [undefined, "full", "long", "medium", "short"])
    for (const ts of [undefined, "full", "long", "medium", "short"]) {
      if (!ds && !ts) continue;
      const o = {};
      if (ds) o.dateStyle = ds;
      if (ts) o.timeStyle = ts;
      d.styles[(ds || "") + "|" + (ts || "")] = dateTemplate(loc, o);
    }
  // time zone names for common zones, in January and July
  for (const z of ["UTC", "America/New_York", "America/Chicago", "America/Denver", "America/Los_Angeles", "America/Anchorage", "Pacific/Honolulu", "Europe/London", "Europe/Paris", "Europe/Berlin", "Europe/Madrid", "Europe/Rome", "Europe/Amsterdam", "Europe/Zurich", "Europe/Moscow", "Asia/Tokyo", "Asia/Shanghai", "Asia/Kolkata", "Asia/Seoul", "Australia/Sydney", "America/Sao_Paulo", "America/Toronto", "Europe/Warsaw", "Europe/Stockholm", "Europe/Istanbul", "Europe/Kiev", "Asia/Singapore", "Asia/Dubai", "Asia/Hong_Kong", "America/Mexico_City"]) {
    const e = {};
    for (const style of ["short", "long"]) {
      e[style] = [Date.UTC(2024, 0, 15, 12), Date.UTC(2024, 6, 15, 12)].map((t) =>
        new Intl.DateTimeFormat(loc, { timeZone: z, timeZoneName: style }).formatToParts(t).find((p) => p.type === "timeZoneName").value);
    }
    d.tz[z] = e;
  }
  d.gmt = ["shortOffset", "longOffset"].map((s) => [0, 1, -5, 5.5].map((h) => {
    // offsets: render with fixed-offset zones
    const z = h === 0 ? "UTC" : h === 1 ? "Europe/Berlin" : h === -5 ? "America/Bogota" : "Asia/Kolkata";
    return new Intl.DateTimeFormat(loc, { timeZone: z, timeZoneName: s }).formatToParts(Date.UTC(2024, 0, 15)).find((p) => p.type === "timeZoneName").value;
  }));
  return d;
}

function listData(loc) {
  const out = {};
  for (const type of ["conjunction", "disjunction", "unit"])
    for (const style of ["long", "short", "narrow"]) {
      const lf = new Intl.ListFormat(loc, { type, style });
      const two = lf.format(["{0}", "{1}"]), three = lf.format(["{0}", "{1}", "{2}"]), four = lf.format(["{0}", "{1}", "{2}", "{3}"]);
      out[type + "-" + style] = {
        pair: two,
        start: three.slice(0, three.indexOf("{1}") + 3).replace("{1}", "{1}"),
        middle: four.slice(four.indexOf("{1}"), four.indexOf("{2}") + 3).replace("{1}", "{0}").replace("{2}", "{1}"),
        end: three.slice(three.indexOf("{1}")).replace("{1}", "{0}").replace("{2}", "{1}"),
      };
    }
  return out;
}

function rtfData(loc) {
  const out = {}, cats = samples(loc, "cardinal");
  for (const u of RTF_UNITS)
    for (const style of ["long", "short", "narrow"]) {
      const rt = new Intl.RelativeTimeFormat(loc, { style });
      const ra = new Intl.RelativeTimeFormat(loc, { style, numeric: "auto" });
      const e = { past: {}, future: {}, auto: {} };
      for (const [cat, n] of Object.entries(cats)) {
        for (const [dir, v] of [["past", -n], ["future", n]]) {
          e[dir][cat] = numTemplate(rt.formatToParts(v, u));
        }
      }
      for (const v of [-2, -1, 0, 1, 2]) {
        const s = ra.format(v, u);
        if (s !== rt.format(v, u)) e.auto[v] = s;
      }
      out[u + "-" + style] = e;
    }
  return out;
}

// Intl.DisplayNames: the long names of every language (two letters, and
// the three-letter ones below), region, script (below), currency, calendar
// and date-time field ICU names, the short and narrow names where they
// differ, the dialect names (en-GB: "British English"), and the pattern
// and separator that compose the others ("English (Antarctica)").
const LANG3 = ["ace", "ast", "bho", "ceb", "chr", "ckb", "fil", "gsw", "haw", "hmn", "kok", "lkt", "mai", "mfe", "nds", "nqo", "sah", "sat", "sco", "shn", "syr", "tok", "yue", "zgh", "zza"];
const DIALECTS = ["ar-001", "de-AT", "de-CH", "en-AU", "en-CA", "en-GB", "en-US", "es-419", "es-ES", "es-MX", "fa-AF", "fr-CA", "fr-CH", "nds-NL", "nl-BE", "pt-BR", "pt-PT", "ro-MD", "sw-CD", "zh-Hans", "zh-Hant", "hi-Latn"];
const SCRIPTS = ["Adlm", "Arab", "Armn", "Beng", "Brai", "Cher", "Cyrl", "Deva", "Ethi", "Geor", "Grek", "Gujr", "Guru", "Hanb", "Hang", "Hani", "Hans", "Hant", "Hebr", "Hira", "Hrkt", "Jamo", "Jpan", "Kana", "Khmr", "Knda", "Kore", "Laoo", "Latn", "Mlym", "Mong", "Mymr", "Orya", "Sinh", "Taml", "Telu", "Thaa", "Thai", "Tibt", "Zmth", "Zsye", "Zsym", "Zxxx", "Zyyy", "Zzzz"];
const CALENDARS = ["buddhist", "chinese", "coptic", "dangi", "ethioaa", "ethiopic", "gregory", "hebrew", "indian", "islamic", "islamic-civil", "islamic-rgsa", "islamic-tbla", "islamic-umalqura", "iso8601", "japanese", "persian", "roc"];
const FIELDS = ["era", "year", "quarter", "month", "weekOfYear", "weekday", "day", "dayPeriod", "hour", "minute", "second", "timeZoneName"];
const letters = "abcdefghijklmnopqrstuvwxyz";

function displayData(loc) {
  const out = { names: {}, short: {}, narrow: {}, dialect: {} };
  const dn = (type, style, extra) => new Intl.DisplayNames(loc, { type, style, fallback: "none", ...extra });
  const codes = {
    language: [...[...letters].flatMap((a) => [...letters].map((b) => a + b)), ...LANG3],
    region: [...[...letters.toUpperCase()].flatMap((a) => [...letters.toUpperCase()].map((b) => a + b)), "001", "002", "003", "005", "009", "011", "013", "014", "015", "017", "018", "019", "021", "029", "030", "034", "035", "039", "053", "054", "057", "061", "142", "143", "145", "150", "151", "154", "155", "202", "419"],
    script: SCRIPTS,
    currency: [...new Set([...Intl.supportedValuesOf("currency"), ...[...letters.toUpperCase()].flatMap((a) => [...letters.toUpperCase()].map((b) => "X" + a + b))])].sort(),
    calendar: CALENDARS,
    dateTimeField: FIELDS,
  };
  for (const [type, list] of Object.entries(codes)) {
    const long = dn(type, "long"), short = dn(type, "short"), narrow = dn(type, "narrow");
    const n = {}, s = {}, w = {};
    for (const c of list) {
      let v;
      try { v = long.of(c); } catch { continue; }
      if (v === undefined) continue;
      n[c] = v;
      const sv = short.of(c), wv = narrow.of(c);
      if (sv !== undefined && sv !== v) s[c] = sv;
      if (wv !== undefined && wv !== (sv ?? v)) w[c] = wv;
    }
    out.names[type] = n;
    out.short[type] = s;
    out.narrow[type] = w;
  }
  for (const style of ["long", "short", "narrow"]) {
    const d = dn("language", style, { languageDisplay: "dialect" }), st = dn("language", style, { languageDisplay: "standard" });
    const e = {};
    for (const t of DIALECTS) if (d.of(t) !== st.of(t)) e[t] = d.of(t);
    out.dialect[style] = e;
  }
  const st = dn("language", "long", { languageDisplay: "standard" });
  const en = st.of("en"), aq = dn("region", "long").of("AQ"), latn = dn("script", "long").of("Latn");
  const p1 = st.of("en-AQ"), p2 = st.of("en-Latn-AQ");
  out.pattern = p1.replace(en, "{0}").replace(aq, "{1}");
  const inner = p2.replace(en, "").replace(latn, "\u0000").replace(aq, "\u0001");
  out.separator = inner.slice(inner.indexOf("\u0000") + 1, inner.indexOf("\u0001"));
  return out;
}

// One gzipped JSON per locale (a program loads only the locales it
// uses) and the shared names table with the versions, in
// runtime/internal/webapi/intldata/. gzip without a timestamp, so that the
// same data is the same file.
const dir = new URL("../runtime/internal/webapi/intldata/", import.meta.url);
rmSync(dir, { recursive: true, force: true });
mkdirSync(dir, { recursive: true });
let total = 0;
const write = (name, value) => {
  const json = JSON.stringify(value) + "\n";
  total += json.length;
  writeFileSync(new URL(name + ".json.gz", dir), gzipSync(json, { level: 9 }));
};
for (const loc of LOCALES) {
  write(loc, { number: numberData(loc), date: dateData(loc), list: listData(loc), relative: rtfData(loc), display: displayData(loc) });
}
write("_meta", { icu: process.versions.icu, cldr: process.versions.cldr, locales: LOCALES, names: namesTable });
console.log("wrote", dir.pathname, total, "bytes of JSON");
