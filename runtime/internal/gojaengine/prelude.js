// The sandbox's JavaScript surface, run once in every new runtime before any
// program. It receives the global object, emit(level, text) for console
// output, and reserve(what, bytes, buffer), which returns a message when an
// allocation would break the run's memory budget (see tooBig).
(function (g, emit, reserve) {
  "use strict";
  var defineProperty = Object.defineProperty;
  var getOwn = Object.getOwnPropertyDescriptor;
  var keys = Object.keys;
  var isArray = Array.isArray;
  var getProto = Object.getPrototypeOf;
  var objectProto = Object.prototype;
  // goja builds built-ins lazily, on first use: this file touches as few
  // of them as it can at startup (each costs allocations in every runtime),
  // so values are classified by their tag and methods looked up when used.
  var ErrorCtor = Error, RangeErrorCtor = RangeError;
  var jsonStringify = JSON.stringify;
  var tagOf = Object.prototype.toString;
  var ReflectConstruct = Reflect.construct, ReflectApply = Reflect.apply;
  var ProxyCtor = Proxy;
  var MAX_ITEMS = 100, MAX_DEPTH = 2;

  function quote(s) {
    return "'" + s.replace(/\\/g, "\\\\").replace(/'/g, "\\'").replace(/\n/g, "\\n") + "'";
  }
  function keyName(k) {
    return /^[A-Za-z_$][A-Za-z0-9_$]*$/.test(k) ? k : quote(k);
  }
  function tag(v) {
    try { return ReflectApply(tagOf, v, []); } catch (e) { return ""; }
  }
  // inspect formats a value like Node's util.inspect, simplified: bounded
  // depth and item counts, no getters invoked, cycles shown as [Circular].
  function inspect(v, depth, seen) {
    switch (typeof v) {
      case "string": return quote(v);
      case "number": return v === 0 && 1 / v < 0 ? "-0" : String(v);
      case "bigint": return String(v) + "n";
      case "boolean": case "undefined": return String(v);
      case "symbol": return v.toString();
      case "function":
        return "[Function: " + (v.name || "(anonymous)") + "]";
    }
    if (v === null) return "null";
    if (seen.indexOf(v) >= 0) return "[Circular]";
    var t = tag(v);
    if (t === "[object Error]") {
      var st = v.stack;
      return typeof st === "string" && st ? st : String(v.name) + ": " + String(v.message);
    }
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
        var ks = keys(v);
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

  // format joins console arguments like Node: a leading string may hold
  // printf-style directives; strings print raw, other values inspected.
  function format(args) {
    var out = [], i = 0;
    if (typeof args[0] === "string" && args.length > 1 && args[0].indexOf("%") >= 0) {
      i = 1;
      out.push(args[0].replace(/%([sdifjoO%])/g, function (m, c) {
        if (c === "%") return "%";
        if (i >= args.length) return m;
        var a = args[i++];
        switch (c) {
          case "s": return typeof a === "string" ? a : inspect(a, 1, []);
          case "d": case "i": return typeof a === "bigint" ? a + "n" : String(c === "i" ? parseInt(a) : Number(a));
          case "f": return String(parseFloat(a));
          case "j": try { return jsonStringify(a); } catch (e) { return "[Circular]"; }
          default: return inspect(a, 0, []);
        }
      }));
      i = i < 1 ? 1 : i;
    }
    for (; i < args.length; i++) out.push(typeof args[i] === "string" ? args[i] : inspect(args[i], 0, []));
    return out.join(" ");
  }

  var con = {};
  ["log", "info", "warn", "error", "debug"].forEach(function (level) {
    con[level] = function () { emit(level, format(arguments)); };
  });
  con.trace = function () { emit("debug", format(arguments)); };
  con.dir = function (v) { emit("log", inspect(v, 0, [])); };
  con.table = function (v) { emit("log", inspect(v, 0, [])); };
  defineProperty(g, "console", { value: con, writable: true, configurable: true, enumerable: false });

  defineProperty(g, "queueMicrotask", {
    value: function queueMicrotask(f) {
      if (typeof f !== "function") throw new TypeError("queueMicrotask: the callback must be a function");
      Promise.resolve().then(function () { f(); });
    },
    writable: true, configurable: true, enumerable: false
  });

  // Withheld function-valued globals: each says what to use instead.
  var TOOLS = "call a tool instead: await tools[\"name\"](args) (list them with await tools.code_tools_list({}))";
  var withheld = {
    require: "require() is not available in code_run programs: modules cannot be loaded; " + TOOLS,
    importScripts: "importScripts() is not available in code_run programs: scripts cannot be loaded; " + TOOLS,
    fetch: "fetch() is not available in code_run programs: the sandbox has no network access; " + TOOLS,
    XMLHttpRequest: "XMLHttpRequest is not available in code_run programs: the sandbox has no network access; " + TOOLS,
    WebSocket: "WebSocket is not available in code_run programs: the sandbox has no network access; " + TOOLS
  };
  var TIMERS = " is not available in code_run programs: there are no timers; await tool calls directly, and to repeat work use a loop";
  ["setTimeout", "setInterval", "setImmediate", "clearTimeout", "clearInterval", "clearImmediate"].forEach(function (n) {
    withheld[n] = n + "()" + TIMERS;
  });
  keys(withheld).forEach(function (name) {
    var msg = withheld[name];
    var f = { [name]: function () { throw new ErrorCtor(msg); } }[name];
    defineProperty(g, name, { value: f, writable: true, configurable: true, enumerable: false });
  });

  // Size checks for built-ins that allocate in one uninterruptible call:
  // an allocation the Go runtime cannot satisfy kills the whole process,
  // so these must fail with a RangeError before they allocate.
  // Buffers count cumulatively: an untouched 1 MiB typed array costs no RAM
  // but counts as heap, so a loop of them inflates the heap faster than any
  // watchdog can sample.
  function tooBig(what, bytes, buffer) {
    var msg = reserve(what, bytes, buffer === true);
    if (msg) throw new RangeErrorCtor(msg);
  }
  function elemCount(a) {
    if (typeof a === "number") return a;
    if (a !== null && typeof a === "object" && tag(a) !== "[object ArrayBuffer]") {
      var n = a.length;
      return typeof n === "number" ? n : 0;
    }
    return 0;
  }
  // One trap serves every guarded constructor: a trap's `this` is its
  // handler, which holds the name and element size (a program never sees a
  // handler, so it cannot change them). Calls without `new` need no trap.
  // Handlers have no prototype: a proxy looks its traps up on the handler,
  // so `get` or `apply` set on Object.prototype would otherwise become
  // traps and receive the unguarded constructor.
  function constructTrap(t, args, nt) {
    tooBig("new " + this.name + "()", elemCount(args[0]) * this.bytesPer, true);
    return ReflectConstruct(t, args, nt);
  }
  function guardCtor(name, bytesPer) {
    var C = g[name];
    if (typeof C !== "function") return;
    var P = new ProxyCtor(C, { __proto__: null, construct: constructTrap, name: name, bytesPer: bytesPer });
    defineProperty(g, name, { value: P, writable: true, configurable: true, enumerable: false });
    try { defineProperty(C.prototype, "constructor", { value: P, writable: true, configurable: true, enumerable: false }); } catch (e) {}
  }
  guardCtor("ArrayBuffer", 1);
  [["Int8Array", 1], ["Uint8Array", 1], ["Uint8ClampedArray", 1], ["Int16Array", 2], ["Uint16Array", 2],
   ["Int32Array", 4], ["Uint32Array", 4], ["Float32Array", 4], ["Float64Array", 8],
   ["BigInt64Array", 8], ["BigUint64Array", 8]].forEach(function (p) { guardCtor(p[0], p[1]); });

  function guardMethod(proto, name, bytes) {
    var f = proto[name];
    if (typeof f !== "function") return;
    var wrapped = {
      [name]: function () {
        tooBig(name + "()", bytes(this, arguments));
        return ReflectApply(f, this, arguments);
      }
    }[name];
    defineProperty(proto, name, { value: wrapped, writable: true, configurable: true, enumerable: false });
  }
  function strLen(s) { return s === null || s === undefined ? 0 : String(s).length; }
  // Strings are UTF-16 in the worst case: 2 bytes a character.
  guardMethod(String.prototype, "repeat", function (s, a) { return strLen(s) * Number(a[0]) * 2; });
  guardMethod(String.prototype, "padStart", function (s, a) { return Number(a[0]) * 2; });
  guardMethod(String.prototype, "padEnd", function (s, a) { return Number(a[0]) * 2; });
  // An array slot costs about 16 bytes; a join at least its separators.
  guardMethod(Array.prototype, "fill", function (s) { return (s === null || s === undefined ? 0 : Number(s.length)) * 16; });
  guardMethod(Array.prototype, "join", function (s, a) {
    var n = s === null || s === undefined ? 0 : Number(s.length);
    return n * (a[0] === undefined ? 1 : strLen(a[0])) * 2;
  });
  var arrayFrom = Array.from;
  defineProperty(Array, "from", {
    value: function from(items) {
      tooBig("Array.from()", elemCount(items) * 16);
      return ReflectApply(arrayFrom, this, arguments);
    },
    writable: true, configurable: true, enumerable: false
  });
})
