// intl.js: Intl for both engines, and the locale-sensitive methods of the
// built-ins (toLocaleString, localeCompare) on top of it. The CLDR work is
// the host's (webapi's intl*.go: x/text and data read from ICU); this file
// reads options in ECMA-402's order, keeps each object's resolved options,
// and turns the host's parts into strings. Registered and built on first
// use, like web.js's globals (intlRegister runs inside webRegister); the
// built-ins' locale methods are installed by webLocaleMethods, which the
// engines call as they call webLazy and webInstall.
//
// This module is the second half of web.js's webRegister: it closes it.
var intlBuilt = null;
function intlLib() {
  if (intlBuilt === null) intlBuilt = buildIntl();
  return intlBuilt;
}
webGroup(["Intl"], function () { return [intlLib()]; });

function buildIntl() {
  var parse = JSON.parse;
  function ask(req, what) { return parse(webHost("intl", jsonStringify(req), what)); }
  function localeList(locales) {
    if (locales === undefined) return [];
    if (typeof locales === "string") return [locales];
    if (isObject(locales) && locales instanceof Locale) return [locales.toString()];
    var O = ObjectCtor(locales), len = toLen(O.length), out = [];
    for (var k = 0; k < len; k++) {
      if (!(k in O)) continue;
      var v = O[k];
      if (typeof v !== "string" && !isObject(v)) throw new TypeErrorCtor("Language ID should be string or object.");
      out.push(toStr(v));
    }
    return out;
  }
  // readOptions reads the named options in order: "s" string, "b"
  // boolean, "n" number, "g" useGrouping (boolean or string).
  function readOptions(options, spec) {
    var out = {};
    if (options === undefined) return out;
    if (options === null) throw new TypeErrorCtor("Cannot convert undefined or null to object");
    var O = ObjectCtor(options);
    for (var i = 0; i < spec.length; i += 2) {
      var name = spec[i], kind = spec[i + 1], v = O[name];
      if (v === undefined) continue;
      if (kind === "b") out[name] = !!v;
      else if (kind === "n") out[name] = +v;
      else if (kind === "g") out[name] = typeof v === "boolean" ? v : v === null || v === 0 ? false : toStr(v);
      else out[name] = toStr(v);
    }
    return out;
  }
  function resolvedObject(pairs, internal) {
    var o = {};
    for (var i = 0; i < pairs.length; i++) {
      var v = pairs[i][1];
      if (!internal && pairs[i][0][0] === "_") continue; // the host's own
      o[pairs[i][0]] = isArray(v) ? v.slice() : v;
    }
    return o;
  }
  function joinParts(parts) {
    var s = "";
    for (var i = 0; i < parts.length; i++) s += parts[i][1];
    return s;
  }
  // V8 writes U+202F (CLDR's space before AM/PM) as a plain space in a
  // formatted date's string, not in its parts (a web-compatibility choice
  // of V8's); so do we.
  function joinDate(parts) { return joinParts(parts).replace(/\u202f/g, " "); }
  function partsObjects(parts, extra) {
    var out = [];
    for (var i = 0; i < parts.length; i++) {
      var p = { type: parts[i][0], value: parts[i][1] };
      if (extra !== undefined) for (var k in extra) p[k] = extra[k];
      out.push(p);
    }
    return out;
  }
  function mathValue(v) {
    if (typeof v === "bigint") return String(v);
    if (typeof v === "string") return v;
    var n = +v;
    return n === 0 && 1 / n < 0 ? "-0" : String(n);
  }
  function supported(locales, options) {
    if (options !== undefined) readOptions(options, ["localeMatcher", "s"]);
    return ask({ op: "supported", locales: localeList(locales) }, "supportedLocalesOf");
  }
  var slots = new WeakMap();
  function S(o, what) { return brand(slots, o, what); }
  function boundGetter(C, prop, what, make) {
    defineProperty(C.prototype, prop, {
      configurable: true, enumerable: false,
      get: { [prop]() {
        var s = S(this, what);
        if (s.bound === undefined) s.bound = make(s);
        return s.bound;
      } }[prop]
    });
    var d = getOwn(C.prototype, prop);
    defineProperty(d.get, "name", { value: "get " + prop });
  }

  // ---- NumberFormat
  var NF_OPTS = ["localeMatcher", "s", "numberingSystem", "s", "style", "s", "currency", "s", "currencyDisplay", "s", "currencySign", "s",
    "unit", "s", "unitDisplay", "s", "notation", "s", "minimumIntegerDigits", "n", "minimumFractionDigits", "n", "maximumFractionDigits", "n",
    "minimumSignificantDigits", "n", "maximumSignificantDigits", "n", "roundingIncrement", "n", "roundingMode", "s", "roundingPriority", "s",
    "trailingZeroDisplay", "s", "compactDisplay", "s", "useGrouping", "g", "signDisplay", "s"];
  function nfParts(s, v) { return ask({ op: "nf.format", resolved: s.o, value: mathValue(v) }, "Intl.NumberFormat"); }
  class NumberFormat {
    constructor(locales = undefined, options = undefined) {
      var pairs = ask({ op: "nf.resolve", locales: localeList(locales), options: readOptions(options, NF_OPTS) }, "Intl.NumberFormat");
      slots.set(this, { pairs: pairs, o: resolvedObject(pairs, true), bound: undefined });
    }
    formatToParts(value) { return partsObjects(nfParts(S(this, "Intl.NumberFormat"), value)); }
    formatRange(start, end) {
      var s = S(this, "Intl.NumberFormat");
      if (start === undefined || end === undefined) throw new TypeErrorCtor("start or end is undefined");
      var a = joinParts(nfParts(s, start)), b = joinParts(nfParts(s, end));
      return a === b ? "~" + a : a + "\u2013" + b;
    }
    resolvedOptions() { return resolvedObject(S(this, "Intl.NumberFormat").pairs); }
    static supportedLocalesOf(locales, options = undefined) { return supported(locales, options); }
  }
  boundGetter(NumberFormat, "format", "Intl.NumberFormat", function (s) {
    return function (value) { return joinParts(nfParts(s, value)); };
  });
  webTag(NumberFormat, "Intl.NumberFormat");

  // ---- DateTimeFormat
  var DTF_OPTS = ["localeMatcher", "s", "calendar", "s", "numberingSystem", "s", "hour12", "b", "hourCycle", "s", "timeZone", "s",
    "weekday", "s", "era", "s", "year", "s", "month", "s", "day", "s", "dayPeriod", "s", "hour", "s", "minute", "s", "second", "s",
    "fractionalSecondDigits", "n", "timeZoneName", "s", "formatMatcher", "s", "dateStyle", "s", "timeStyle", "s"];
  function newDTF(locales, options, required, defaults) {
    var pairs = ask({ op: "dtf.resolve", locales: localeList(locales), options: readOptions(options, DTF_OPTS),
      extra: { required: required, defaults: defaults } }, "Intl.DateTimeFormat");
    return { pairs: pairs, o: resolvedObject(pairs, true), bound: undefined };
  }
  function timeValue(date) {
    var t = date === undefined ? Date.now() : +date;
    if (!isFinite(t) || Math.abs(t) > 8.64e15) throw new RangeErrorCtor("Invalid time value");
    return Math.trunc(t) + 0;
  }
  function dtfParts(s, date) { return ask({ op: "dtf.format", resolved: s.o, value: timeValue(date) }, "Intl.DateTimeFormat"); }
  class DateTimeFormat {
    constructor(locales = undefined, options = undefined) {
      slots.set(this, newDTF(locales, options, "any", "date"));
    }
    formatToParts(date = undefined) { return partsObjects(dtfParts(S(this, "Intl.DateTimeFormat"), date)); }
    formatRange(start, end) {
      var s = S(this, "Intl.DateTimeFormat");
      var a = joinDate(dtfParts(s, start)), b = joinDate(dtfParts(s, end));
      return a === b ? a : a + " \u2013 " + b;
    }
    resolvedOptions() { return resolvedObject(S(this, "Intl.DateTimeFormat").pairs); }
    static supportedLocalesOf(locales, options = undefined) { return supported(locales, options); }
  }
  boundGetter(DateTimeFormat, "format", "Intl.DateTimeFormat", function (s) {
    return function (date) { return joinDate(dtfParts(s, date)); };
  });
  webTag(DateTimeFormat, "Intl.DateTimeFormat");

  // ---- Collator
  var COLL_OPTS = ["usage", "s", "localeMatcher", "s", "collation", "s", "numeric", "b", "caseFirst", "s", "sensitivity", "s", "ignorePunctuation", "b"];
  function newCollator(locales, options) {
    var pairs = ask({ op: "coll.resolve", locales: localeList(locales), options: readOptions(options, COLL_OPTS) }, "Intl.Collator");
    return { pairs: pairs, o: resolvedObject(pairs, true), bound: undefined };
  }
  function compareWith(s, a, b) {
    a = hostSized(toStr(a), "Intl.Collator"); b = hostSized(toStr(b), "Intl.Collator");
    if (a === b) return 0;
    return ask({ op: "coll.compare", resolved: s.o, a: a, b: b }, "Intl.Collator");
  }
  class Collator {
    constructor(locales = undefined, options = undefined) { slots.set(this, newCollator(locales, options)); }
    resolvedOptions() { return resolvedObject(S(this, "Intl.Collator").pairs); }
    static supportedLocalesOf(locales, options = undefined) { return supported(locales, options); }
  }
  boundGetter(Collator, "compare", "Intl.Collator", function (s) {
    return function (x, y) { return compareWith(s, x, y); };
  });
  webTag(Collator, "Intl.Collator");

  // ---- PluralRules
  var PR_OPTS = ["localeMatcher", "s", "type", "s", "minimumIntegerDigits", "n", "minimumFractionDigits", "n", "maximumFractionDigits", "n",
    "minimumSignificantDigits", "n", "maximumSignificantDigits", "n", "roundingIncrement", "n", "roundingMode", "s", "roundingPriority", "s", "trailingZeroDisplay", "s"];
  class PluralRules {
    constructor(locales = undefined, options = undefined) {
      var pairs = ask({ op: "pr.resolve", locales: localeList(locales), options: readOptions(options, PR_OPTS) }, "Intl.PluralRules");
      slots.set(this, { pairs: pairs, o: resolvedObject(pairs, true) });
    }
    select(n) {
      var s = S(this, "Intl.PluralRules");
      return ask({ op: "pr.select", resolved: s.o, value: mathValue(+n) }, "Intl.PluralRules");
    }
    selectRange(start, end) {
      if (start === undefined || end === undefined) throw new TypeErrorCtor("start or end is undefined");
      return this.select(end);
    }
    resolvedOptions() { return resolvedObject(S(this, "Intl.PluralRules").pairs); }
    static supportedLocalesOf(locales, options = undefined) { return supported(locales, options); }
  }
  webTag(PluralRules, "Intl.PluralRules");

  // ---- ListFormat
  class ListFormat {
    constructor(locales = undefined, options = undefined) {
      var pairs = ask({ op: "lf.resolve", locales: localeList(locales), options: readOptions(options, ["localeMatcher", "s", "type", "s", "style", "s"]) }, "Intl.ListFormat");
      slots.set(this, { pairs: pairs, o: resolvedObject(pairs, true) });
    }
    format(list) { return joinParts(lfParts(S(this, "Intl.ListFormat"), list)); }
    formatToParts(list) { return partsObjects(lfParts(S(this, "Intl.ListFormat"), list)); }
    resolvedOptions() { return resolvedObject(S(this, "Intl.ListFormat").pairs); }
    static supportedLocalesOf(locales, options = undefined) { return supported(locales, options); }
  }
  function lfParts(s, list) {
    var items = [], total = 0;
    if (list !== undefined) {
      for (var x of list) {
        if (typeof x !== "string") throw new TypeErrorCtor("Iterable yielded " + (typeof x === "symbol" ? "a symbol" : toStr(x)) + " which is not a string");
        total += x.length + 3;
        if (total > WEB_MAX) throw new RangeErrorCtor("Intl.ListFormat: the list is over the " + (WEB_MAX / 1048576) + " MiB a host function takes");
        items.push(x);
      }
    }
    return ask({ op: "lf.format", resolved: s.o, list: items }, "Intl.ListFormat");
  }
  webTag(ListFormat, "Intl.ListFormat");

  // ---- DisplayNames: ICU's names from the table (webapi/intl_display.go)
  class DisplayNames {
    constructor(locales, options) {
      var pairs = ask({ op: "dn.resolve", locales: localeList(locales), options: readOptions(options, ["localeMatcher", "s", "style", "s", "type", "s", "fallback", "s", "languageDisplay", "s"]) }, "Intl.DisplayNames");
      slots.set(this, { pairs: pairs, o: resolvedObject(pairs, true) });
    }
    of(code) {
      var s = S(this, "Intl.DisplayNames");
      var v = ask({ op: "dn.of", resolved: s.o, a: toStr(code) }, "Intl.DisplayNames");
      return v === null ? undefined : v;
    }
    resolvedOptions() { return resolvedObject(S(this, "Intl.DisplayNames").pairs); }
    static supportedLocalesOf(locales, options = undefined) { return supported(locales, options); }
  }
  webTag(DisplayNames, "Intl.DisplayNames");

  // ---- RelativeTimeFormat
  class RelativeTimeFormat {
    constructor(locales = undefined, options = undefined) {
      var pairs = ask({ op: "rtf.resolve", locales: localeList(locales), options: readOptions(options, ["localeMatcher", "s", "numberingSystem", "s", "style", "s", "numeric", "s"]) }, "Intl.RelativeTimeFormat");
      slots.set(this, { pairs: pairs, o: resolvedObject(pairs, true) });
    }
    format(value, unit) { return joinParts(rtfParts(S(this, "Intl.RelativeTimeFormat"), value, unit)); }
    formatToParts(value, unit) {
      var u = toStr(unit).replace(/s$/, "");
      var out = [], ps = rtfParts(S(this, "Intl.RelativeTimeFormat"), value, unit);
      for (var i = 0; i < ps.length; i++) {
        var p = { type: ps[i][0], value: ps[i][1] };
        if (p.type !== "literal") p.unit = u;
        out.push(p);
      }
      return out;
    }
    resolvedOptions() { return resolvedObject(S(this, "Intl.RelativeTimeFormat").pairs); }
    static supportedLocalesOf(locales, options = undefined) { return supported(locales, options); }
  }
  function rtfParts(s, value, unit) {
    return ask({ op: "rtf.format", resolved: s.o, value: mathValue(+value), unit: toStr(unit) }, "Intl.RelativeTimeFormat");
  }
  webTag(RelativeTimeFormat, "Intl.RelativeTimeFormat");

  // ---- Segmenter: graphemes (extended clusters, simplified) and words
  // (runs of letters, digits and marks; ICU's dictionaries for CJK and
  // Thai are not there, see docs/engines.md).
  var EXTEND = /[\u0300-\u036f\u0483-\u0489\u0591-\u05bd\u0610-\u061a\u064b-\u065f\u0900-\u0903\u093a-\u094f\u0e31\u0e34-\u0e3a\u0e47-\u0e4e\u1ab0-\u1aff\u1dc0-\u1dff\u200c\u200d\u20d0-\u20ff\ufe00-\ufe0f\ufe20-\ufe2f]/;
  function cpAt(s, i) { var c = s.codePointAt(i); return c; }
  function isExtend(cp) {
    return EXTEND.test(String.fromCodePoint(cp)) || (cp >= 0x1f3fb && cp <= 0x1f3ff) || (cp >= 0xe0020 && cp <= 0xe007f) || (cp >= 0xe0100 && cp <= 0xe01ef);
  }
  function isRegional(cp) { return cp >= 0x1f1e6 && cp <= 0x1f1ff; }
  function graphemes(s) {
    var out = [], i = 0;
    while (i < s.length) {
      var start = i, cp = cpAt(s, i), ri = isRegional(cp) ? 1 : 0;
      i += cp > 0xffff ? 2 : 1;
      if (cp === 13 && s.charCodeAt(i) === 10) { i++; out.push([start, i]); continue; }
      while (i < s.length) {
        var next = cpAt(s, i);
        if (isExtend(next)) {
          i += next > 0xffff ? 2 : 1;
          if (next === 0x200d && i < s.length) { var j = cpAt(s, i); i += j > 0xffff ? 2 : 1; }
          continue;
        }
        if (isRegional(next) && ri === 1) { ri = 2; i += 2; continue; }
        break;
      }
      out.push([start, i]);
    }
    return out;
  }
  function isWordChar(ch) {
    if (ch.toLowerCase() !== ch.toUpperCase() || /[0-9_]/.test(ch)) return true;
    var c = ch.codePointAt(0);
    return (c >= 0xaa && c !== 0xd7 && c !== 0xf7 && c < 0x2000 && !(c >= 0xb0 && c <= 0xbf)) || (c >= 0x3040 && c <= 0x30ff) || (c >= 0x3400 && c <= 0x9fff) ||
      (c >= 0xac00 && c <= 0xd7af) || (c >= 0xf900 && c <= 0xfaff) || (c >= 0x20000 && c <= 0x2ffff) || isExtend(c);
  }
  var WORDCHAR = null, SPACE = /[\t \u00a0\u1680\u2000-\u200a\u202f\u205f\u3000]/;
  function wordClass(ch) {
    if (WORDCHAR === null) {
      // Unicode property escapes where the engine's regexps have them
      // (QuickJS); else letters by case, digits, and the scripts without
      // case (goja).
      try { WORDCHAR = new RegExp("[\\p{L}\\p{N}\\p{M}_]", "u"); if (!WORDCHAR.test("a") || !WORDCHAR.test("\u65e5")) WORDCHAR = false; } catch (e) { WORDCHAR = false; }
    }
    if (WORDCHAR !== false ? WORDCHAR.test(ch) : isWordChar(ch)) return "w";
    if (SPACE.test(ch)) return " ";
    return "o";
  }
  function words(s) {
    var gs = graphemes(s), out = [], k = 0;
    while (k < gs.length) {
      var start = gs[k][0], c = wordClass(s.slice(gs[k][0], gs[k][1])), end = gs[k][1];
      k++;
      if (c === "w" || c === " ") {
        while (k < gs.length) {
          var ch = s.slice(gs[k][0], gs[k][1]), c2 = wordClass(ch);
          if (c2 === c) { end = gs[k][1]; k++; continue; }
          // a word goes on over ' . , between letters or digits
          if (c === "w" && (ch === "'" || ch === "." || ch === "\u2019" || ch === ",") && k + 1 < gs.length && wordClass(s.slice(gs[k + 1][0], gs[k + 1][1])) === "w") {
            var prev = s.slice(gs[k - 1][0], gs[k - 1][1]), after = s.slice(gs[k + 1][0], gs[k + 1][1]);
            var digits = /[0-9]/.test(prev) && /[0-9]/.test(after), letters = !/[0-9]/.test(prev) && !/[0-9]/.test(after);
            if ((ch === "," && digits) || (ch !== "," && (digits || (letters && ch !== ".")))) { end = gs[k + 1][1]; k += 2; continue; }
          }
          break;
        }
      }
      out.push([start, end, c === "w"]);
    }
    return out;
  }
  class Segmenter {
    constructor(locales = undefined, options = undefined) {
      var o = readOptions(options, ["localeMatcher", "s", "granularity", "s"]);
      var g2 = o.granularity === undefined ? "grapheme" : o.granularity;
      if (g2 !== "grapheme" && g2 !== "word" && g2 !== "sentence") throw new RangeErrorCtor("Value " + g2 + " out of range for Intl.Segmenter options property granularity");
      var pairs = ask({ op: "lf.resolve", locales: localeList(locales), options: {} }, "Intl.Segmenter");
      slots.set(this, { locale: pairs[0][1], granularity: g2 });
    }
    segment(string) {
      var s = S(this, "Intl.Segmenter"), str = toStr(string);
      tooBig("Intl.Segmenter", str.length * 64);
      return makeSegments(str, s.granularity);
    }
    resolvedOptions() { var s = S(this, "Intl.Segmenter"); return { locale: s.locale, granularity: s.granularity }; }
    static supportedLocalesOf(locales, options = undefined) { return supported(locales, options); }
  }
  webTag(Segmenter, "Intl.Segmenter");
  function sentences(s) {
    var out = [], re = /[^.!?]*(?:[.!?]+["')\]]*\s*|$)/g, m, at = 0;
    while (at < s.length && (m = re.exec(s)) !== null && m[0] !== "") { out.push([m.index, m.index + m[0].length]); at = m.index + m[0].length; }
    return out;
  }
  function makeSegments(str, granularity) {
    var list = null;
    function all() {
      if (list === null) list = granularity === "word" ? words(str) : granularity === "sentence" ? sentences(str) : graphemes(str);
      return list;
    }
    function data(e) {
      var d = { segment: str.slice(e[0], e[1]), index: e[0], input: str };
      if (granularity === "word") d.isWordLike = e[2];
      return d;
    }
    var segments = {
      containing(index = 0) {
        var n = toInt(index), l = all();
        if (n < 0 || n >= str.length) return undefined;
        for (var i = 0; i < l.length; i++) if (n >= l[i][0] && n < l[i][1]) return data(l[i]);
        return undefined;
      },
      [SymIter]: function* () { var l = all(); for (var i = 0; i < l.length; i++) yield data(l[i]); }
    };
    defineProperty(segments, "containing", { enumerable: false });
    defineProperty(segments, SymIter, { enumerable: false });
    return segments;
  }

  // ---- Locale (the parts programs read most)
  var locSlots = new WeakMap();
  class Locale {
    constructor(tag, options = undefined) {
      if (typeof tag !== "string" && !isObject(tag)) throw new TypeErrorCtor("First argument to Intl.Locale constructor can't be empty or missing");
      var c = ask({ op: "canonical", locales: [toStr(tag)] }, "Intl.Locale")[0];
      locSlots.set(this, c);
    }
    toString() { return brand(locSlots, this, "Intl.Locale"); }
    get baseName() { return brand(locSlots, this, "Intl.Locale").split("-u-")[0]; }
    get language() { return brand(locSlots, this, "Intl.Locale").split("-")[0]; }
    get region() {
      var p = this.baseName.split("-");
      for (var i = 1; i < p.length; i++) if (/^([A-Z]{2}|[0-9]{3})$/.test(p[i])) return p[i];
      return undefined;
    }
    get script() {
      var p = this.baseName.split("-");
      for (var i = 1; i < p.length; i++) if (/^[A-Z][a-z]{3}$/.test(p[i])) return p[i];
      return undefined;
    }
  }
  webTag(Locale, "Intl.Locale");

  var Intl = {};
  [["NumberFormat", NumberFormat], ["DateTimeFormat", DateTimeFormat], ["Collator", Collator], ["PluralRules", PluralRules],
    ["ListFormat", ListFormat], ["RelativeTimeFormat", RelativeTimeFormat], ["Segmenter", Segmenter], ["Locale", Locale],
    ["DisplayNames", DisplayNames]].forEach(function (p) {
    // Built-ins: the constructors, their static and prototype methods and
    // accessors print as native code, not as the prelude's source.
    [p[1], p[1].prototype].forEach(function (o) {
      Object.getOwnPropertyNames(o).forEach(function (k) {
        var d = getOwn(o, k);
        hide(d.value); hide(d.get); hide(d.set);
      });
    });
    defineProperty(Intl, p[0], { value: hide(p[1]), writable: true, configurable: true, enumerable: false });
  });
  install(Intl, {
    getCanonicalLocales(locales) { return ask({ op: "canonical", locales: localeList(locales) }, "Intl.getCanonicalLocales"); }
  }.getCanonicalLocales);
  defineProperty(Intl, Symbol.toStringTag, { value: "Intl", configurable: true });

  // what the built-ins' locale methods use: formatters for the common
  // arguments kept, keyed by the arguments (when they are primitives).
  var memo = {}, memoSize = 0;
  function memoized(kind, locales, options, make) {
    if (options !== undefined || (locales !== undefined && typeof locales !== "string")) return make();
    var k = kind + "|" + (locales === undefined ? "" : locales);
    var v = memo[k];
    if (v === undefined) {
      if (memoSize > 64) { memo = {}; memoSize = 0; }
      v = memo[k] = make();
      memoSize++;
    }
    return v;
  }
  intlInternal = {
    number: function (x, locales, options) {
      var s = memoized("n", locales, options, function () { return slots.get(new NumberFormat(locales, options)); });
      return joinParts(nfParts(s, x));
    },
    date: function (t, locales, options, required, defaults) {
      var s = memoized("d" + required + defaults, locales, options, function () { return newDTF(locales, options, required, defaults); });
      return joinDate(dtfParts(s, t));
    },
    compare: function (a, b, locales, options) {
      var s = memoized("c", locales, options, function () { return newCollator(locales, options); });
      return compareWith(s, a, b);
    }
  };
  return Intl;
}
var intlInternal = null;
function intlUse() { if (intlInternal === null) intlLib(); return intlInternal; }

// The built-ins' locale-sensitive methods, on Intl (ECMA-402 §19–21).
var localeDone = false;
webLocaleMethods = function () {
if (localeDone) return;
localeDone = true;
var thisNumber = Number.prototype.valueOf, thisBigInt = typeof BigInt === "function" ? BigInt.prototype.valueOf : null;
var thisTime = Date.prototype.getTime;
install(Number.prototype, {
  toLocaleString(locales = undefined, options = undefined) {
    return intlUse().number(ReflectApply(thisNumber, this, []), locales, options);
  }
}.toLocaleString);
if (thisBigInt !== null) {
  install(BigInt.prototype, {
    toLocaleString(locales = undefined, options = undefined) {
      return intlUse().number(ReflectApply(thisBigInt, this, []), locales, options);
    }
  }.toLocaleString);
}
function dateLocale(self, locales, options, required, defaults) {
  var t = ReflectApply(thisTime, self, []);
  if (t !== t) return "Invalid Date";
  return intlUse().date(t, locales, options, required, defaults);
}
install(Date.prototype, {
  toLocaleString(locales = undefined, options = undefined) { return dateLocale(this, locales, options, "any", "all"); }
}.toLocaleString);
install(Date.prototype, {
  toLocaleDateString(locales = undefined, options = undefined) { return dateLocale(this, locales, options, "date", "date"); }
}.toLocaleDateString);
install(Date.prototype, {
  toLocaleTimeString(locales = undefined, options = undefined) { return dateLocale(this, locales, options, "time", "time"); }
}.toLocaleTimeString);
install(String.prototype, {
  localeCompare(that, locales = undefined, options = undefined) {
    if (this === null || this === undefined) throw new TypeErrorCtor("String.prototype.localeCompare called on null or undefined");
    return intlUse().compare(toStr(this), toStr(that), locales, options);
  }
}.localeCompare);
};
} // webRegister
