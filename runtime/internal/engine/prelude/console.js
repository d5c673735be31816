// console.js: console.log and friends, formatted like Node's util.inspect,
// simplified: bounded depth and item counts, no getters invoked, cycles
// shown as [Circular]. Lines go to the glue's hostLog(level, text).
var MAX_ITEMS = 100, MAX_DEPTH = 2;

// consoleLib() is {format, shown}, made on first use: a realm built per
// call (goja) pays for every function the prelude makes, and only a
// program that logs something other than plain strings, or throws what is
// not an Error, reaches these six.
var consoleFns = null;
function consoleLib() {
  if (consoleFns !== null) return consoleFns;
  lateLoad();
  function quote(s) {
    return "'" + s.replace(/\\/g, "\\\\").replace(/'/g, "\\'").replace(/\n/g, "\\n") + "'";
  }
  function keyName(k) {
    return /^[A-Za-z_$][A-Za-z0-9_$]*$/.test(k) ? k : quote(k);
  }
  // errorText is an Error as a stack shows it: "Name: message" and the
  // frames (goja's stack starts with that line, QuickJS's with the frames).
  function errorText(v) {
    var head;
    try { head = ReflectApply(errorToString, v, []); } catch (e) { head = "Error"; }
    var st = v.stack;
    if (typeof st !== "string" || !st) return head;
    st = st.replace(/\s+$/, "");
    return st.slice(0, head.length) === head ? st : head + "\n" + st;
  }
  function inspect(v, depth, seen) {
    switch (typeof v) {
      case "string": return quote(v);
      case "number": return v === 0 && 1 / v < 0 ? "-0" : String(v);
      case "bigint": return String(v) + "n";
      case "boolean": case "undefined": return String(v);
      case "symbol": return String(v);
      case "function": return "[Function: " + (v.name || "(anonymous)") + "]";
    }
    if (v === null) return "null";
    if (seen.indexOf(v) >= 0) return "[Circular]";
    var t = tag(v);
    if (t === "[object Error]") return errorText(v);
    if (t === "[object Date]") {
      try { return v.toISOString(); } catch (e) { return "Invalid Date"; }
    }
    if (t === "[object RegExp]") return String(v);
    if (t === "[object Promise]") return "Promise {}";
    if (depth > MAX_DEPTH) return isArray(v) ? "[Array]" : "[Object]";
    seen.push(v);
    var parts = [], out;
    try {
      if (isArray(v)) {
        var n = v.length < MAX_ITEMS ? v.length : MAX_ITEMS;
        for (var i = 0; i < n; i++) parts.push(i in v ? inspect(v[i], depth + 1, seen) : "<empty>");
        if (v.length > MAX_ITEMS) parts.push("... " + (v.length - MAX_ITEMS) + " more items");
        out = parts.length ? "[ " + parts.join(", ") + " ]" : "[]";
      } else if (t === "[object Map]") {
        v.forEach(function (val, k) {
          if (parts.length < MAX_ITEMS) parts.push(inspect(k, depth + 1, seen) + " => " + inspect(val, depth + 1, seen));
        });
        out = "Map(" + v.size + ") " + (parts.length ? "{ " + parts.join(", ") + " }" : "{}");
      } else if (t === "[object Set]") {
        v.forEach(function (val) {
          if (parts.length < MAX_ITEMS) parts.push(inspect(val, depth + 1, seen));
        });
        out = "Set(" + v.size + ") " + (parts.length ? "{ " + parts.join(", ") + " }" : "{}");
      } else {
        var ks = keysOf(v);
        for (var j = 0; j < ks.length && j < MAX_ITEMS; j++) {
          var d = getOwn(v, ks[j]);
          var shown = d && ("value" in d) ? inspect(d.value, depth + 1, seen) : "[Getter]";
          parts.push(keyName(ks[j]) + ": " + shown);
        }
        if (ks.length > MAX_ITEMS) parts.push("... " + (ks.length - MAX_ITEMS) + " more properties");
        var proto = getProto(v), prefix = "";
        if (proto === null) prefix = "[Object: null prototype] ";
        else if (proto !== objectProto && proto.constructor && typeof proto.constructor.name === "string" && proto.constructor.name) prefix = proto.constructor.name + " ";
        out = prefix + (parts.length ? "{ " + parts.join(", ") + " }" : "{}");
      }
    } finally {
      seen.pop();
    }
    return out;
  }
  function shown(a, depth) {
    try { return typeof a === "string" ? a : inspect(a, depth, []); } catch (e) { return "[unprintable]"; }
  }

  // format joins console arguments like Node: a leading string may hold
  // printf-style directives; strings print raw, other values inspected.
  function format(args) {
    if (args.length === 1 && typeof args[0] === "string") return args[0]; // the common line, as below
    var out = [], i = 0;
    if (typeof args[0] === "string" && args.length > 1 && args[0].indexOf("%") >= 0) {
      i = 1;
      out.push(args[0].replace(/%([sdifjoO%])/g, function (m, c) {
        if (c === "%") return "%";
        if (i >= args.length) return m;
        var a = args[i++];
        switch (c) {
          case "s": return shown(a, 1);
          case "d": case "i": return typeof a === "bigint" ? a + "n" : String(c === "i" ? parseInt(a) : Number(a));
          case "f": return String(parseFloat(a));
          case "j": try { return jsonStringify(a); } catch (e) { return "[Circular]"; }
          default: return typeof a === "string" ? quote(a) : shown(a, 0);
        }
      }));
    }
    for (; i < args.length; i++) out.push(typeof args[i] === "string" ? args[i] : shown(args[i], 0));
    return out.length === 1 ? out[0] : out.join(" ");
  }
  consoleFns = { format: format, shown: shown };
  return consoleFns;
}

// A glue that declares consoleNative(format) makes the five methods
// itself (goja: Go functions that skip format for plain strings, and
// everything once the log budget is spent). Otherwise the glue's hostLog
// sets logSpent when the run's log budget is spent (the truncation
// notice given): every later line is dropped before it is formatted, and
// the glue clears it when a run begins.
var logSpent = false;
// Built when a program first names it (lazyGlobals): a realm built per
// call (goja) pays for every object the prelude makes.
// format and shown are consoleLib's, made when a line first needs one: on
// goja a line of plain strings never does (consoleNative), and consoleLib
// takes the late intrinsics (lateLoad) with it. (The glue reads
// consoleNative in its late part, glueLate, where it has one.)
lazyGlobals("console", function () {
  var format = function (args) { return consoleLib().format(args); };
  var shown = function (v, depth) { return consoleLib().shown(v, depth); };
  if (typeof glueLate === "function") glueLate();
  var con = typeof consoleNative === "function" ? consoleNative(format) : {
    log: function () { if (!logSpent) hostLog("log", format(arguments)); },
    info: function () { if (!logSpent) hostLog("info", format(arguments)); },
    warn: function () { if (!logSpent) hostLog("warn", format(arguments)); },
    error: function () { if (!logSpent) hostLog("error", format(arguments)); },
    debug: function () { if (!logSpent) hostLog("debug", format(arguments)); }
  };
  con.trace = con.debug; // each function costs every goja runtime ~1 KB
  // (Through the log method the builder made: a glue with consoleNative
  // need not have a hostLog; goja has none.)
  var log = con.log;
  con.dir = function dir(v) { if (!logSpent) log(shown(v, 0)); };
  con.table = con.dir;
  hide(con.log), hide(con.info), hide(con.warn), hide(con.error), hide(con.debug), hide(con.dir);
  return con;
});
