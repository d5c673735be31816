// The sandbox's JavaScript surface, run once in every new runtime before any
// program. It receives the global object, emit(level, text) for console
// output, and reserve(what, bytes, buffer), which returns a message when an
// allocation would break the run's memory budget (see tooBig).
(function (g, emit, reserve, joinN) {
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
  var ReflectConstruct = Reflect.construct, ReflectApply = Reflect.apply, ReflectGet = Reflect.get;
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
      return typeof st === "string" && st ? st.replace(/\s+$/, "") : String(v.name) + ": " + String(v.message);
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
  con.trace = con.debug; // each function costs every runtime ~1 KB
  con.dir = function (v) { emit("log", inspect(v, 0, [])); };
  con.table = con.dir;
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
  //
  // Every check sizes exactly what goja then allocates: a value the program
  // can change between two reads (a getter, a proxy trap, valueOf, toString,
  // Symbol.toPrimitive, a Symbol.iterator that yields a native iterator) is
  // read or converted once, here, and goja receives the snapshot (a number,
  // a string, an array the program never sees), never the original.
  // Iteration the program controls runs here, in JavaScript, where a
  // deadline or a memory kill can interrupt it; goja iterating natively
  // (an array iterator over a sparse array, say) cannot be interrupted.
  var ArrayCtor = Array, ArrayProto = Array.prototype, ObjectCtor = Object, TypeErrorCtor = TypeError;
  var setProto = Object.setPrototypeOf;
  var SymIter = Symbol.iterator;
  var arrayValues = ArrayProto.values, valuesGuard = null;
  var ArrayBufferCtor = ArrayBuffer, isView = ArrayBuffer.isView, DataViewCtor = DataView;
  var taLength = getOwn(getProto(Uint8Array.prototype), "length").get;
  var WeakSetCtor = WeakSet, weakAdd = WeakSet.prototype.add, weakHas = WeakSet.prototype.has;
  var MAX_LENGTH = 9007199254740991;

  function tooBig(what, bytes, buffer) {
    var msg = reserve(what, bytes, buffer === true);
    if (msg) throw new RangeErrorCtor(msg);
  }
  // toStr is ToString; a string is returned as is (a template literal
  // would copy it).
  function toStr(v) { return typeof v === "string" ? v : `${v}`; }
  function isObject(v) { return v !== null && (typeof v === "object" || typeof v === "function"); }
  // toInt is ToIntegerOrInfinity: it converts v (calling valueOf and
  // friends) exactly once.
  function toInt(v) {
    var n = +v;
    if (n !== n) return 0;
    if (n === Infinity || n === -Infinity) return n;
    n = n - n % 1;
    return n === 0 ? 0 : n;
  }
  function toLen(v) {
    var n = toInt(v);
    return n <= 0 ? 0 : n > MAX_LENGTH ? MAX_LENGTH : n;
  }
  function relIdx(rel, len) {
    if (rel < 0) return len + rel < 0 ? 0 : len + rel;
    return rel < len ? rel : len;
  }
  // An array the program never sees: no prototype, so neither inherited
  // setters nor a Symbol.iterator; goja reads it as a plain array-like.
  function snapshot() { return setProto([], null); }
  // Brand checks through intrinsics that refuse anything else (a proxy
  // included) without running program code or formatting the value (the
  // byteLength getter's error would stringify it: a join of a whole typed
  // array). Symbol.toStringTag can be forged.
  function isBuffer(v) {
    try { ReflectConstruct(DataViewCtor, [v, 0, 0]); return true; } catch (e) { return false; }
  }
  function typedLength(v) {
    if (!ReflectApply(isView, ArrayBufferCtor, [v])) return -1;
    try { return ReflectApply(taLength, v, []); } catch (e) { return -1; } // a DataView
  }

  // Proxies the program creates are remembered, so that a guard can tell a
  // genuine array (whose length goja reads without running program code,
  // so it reads what the guard read) from a proxy of one.
  var proxies = null;
  function noteProxy(p) {
    if (proxies === null) proxies = new WeakSetCtor();
    ReflectApply(weakAdd, proxies, [p]);
    return p;
  }
  function isGenuineArray(v) {
    return isArray(v) && (proxies === null || !ReflectApply(weakHas, proxies, [v]));
  }
  var proxyRevocable = ProxyCtor.revocable;
  defineProperty(ProxyCtor, "revocable", {
    value: {
      revocable(target, handler) {
        var r = ReflectApply(proxyRevocable, ProxyCtor, [target, handler]);
        noteProxy(r.proxy);
        return r;
      }
    }.revocable,
    writable: true, configurable: true, enumerable: false
  });
  defineProperty(g, "Proxy", {
    value: new ProxyCtor(ProxyCtor, {
      __proto__: null,
      construct: function (t, args, nt) { return noteProxy(ReflectConstruct(t, args, nt)); }
    }),
    writable: true, configurable: true, enumerable: false
  });

  // collect runs the iteration protocol in JavaScript (see above) and
  // returns the values, mapped if mapFn is given, as a snapshot.
  var arrayIterProto = null, arrayIterNext;
  function plainArrayIteration(method) {
    if (method !== arrayValues && method !== valuesGuard) return false; // the built-in, or its guard below
    if (arrayIterProto === null) {
      arrayIterProto = getProto(ReflectApply(arrayValues, [], []));
      arrayIterNext = getOwn(arrayIterProto, "next").value;
    }
    return arrayIterProto.next === arrayIterNext;
  }
  function collect(items, method, mapFn, T) {
    var vals = snapshot(), k = 0, v;
    if (plainArrayIteration(method)) {
      // What the built-in array iterator does, without its objects: read
      // the length at every step, then the element. A genuine array's
      // length is always an index; anything else's is converted.
      if (isGenuineArray(items) && mapFn === undefined) {
        for (; k < items.length; k++) vals[k] = items[k];
        return vals;
      }
      while (k < toLen(items.length)) {
        v = items[k];
        vals[k] = mapFn === undefined ? v : ReflectApply(mapFn, T, [v, k]);
        k++;
      }
      return vals;
    }
    var it = ReflectApply(method, items, []);
    if (!isObject(it)) throw new TypeErrorCtor("the iterator is not an object");
    var next = it.next;
    for (;;) {
      var r = ReflectApply(next, it, []);
      if (!isObject(r)) throw new TypeErrorCtor("the iterator result is not an object");
      if (r.done) return vals;
      v = r.value;
      if (mapFn !== undefined) {
        try {
          v = ReflectApply(mapFn, T, [v, k]);
        } catch (e) {
          try { var ret = it["return"]; if (ret !== undefined && ret !== null) ReflectApply(ret, it, []); } catch (e2) {}
          throw e;
        }
      }
      vals[k++] = v;
    }
  }
  // iterableOf hands a snapshot to a built-in as an iterable whose steps
  // are JavaScript.
  function iterableOf(vals) {
    var i = 0, o = { __proto__: null };
    var it = {
      __proto__: null,
      next: function () {
        var r = { __proto__: null, value: undefined, done: i >= vals.length };
        if (!r.done) r.value = vals[i++];
        return r;
      }
    };
    o[SymIter] = function () { return it; };
    return o;
  }
  function iteratorOf(items) {
    var method = items[SymIter];
    if (method === undefined || method === null) return undefined;
    if (typeof method !== "function") throw new TypeErrorCtor("Symbol.iterator is not a function");
    return method;
  }

  // One trap serves every guarded constructor: a trap's `this` is its
  // handler, which holds the name and element size (a program never sees a
  // handler, so it cannot change them). Calls without `new` need no trap.
  // Handlers have no prototype: a proxy looks its traps up on the handler,
  // so `get` or `apply` set on Object.prototype would otherwise become
  // traps and receive the unguarded constructor.
  function constructTrap(t, args, nt) {
    var what = "new " + this.name + "()", per = this.bytesPer, a = args[0], n;
    if (this.buffer || !isObject(a)) {
      // A length: ToIndex, converted here once.
      n = args.length > 0 ? toInt(a) : 0;
      if (args.length > 0) args[0] = n;
      tooBig(what, n > 0 ? n * per : 0, true);
    } else if (!isArray(a) && (n = typedLength(a)) >= 0) {
      tooBig(what, n * per, true);
    } else if (!isArray(a) && isBuffer(a)) {
      // A view of an existing buffer: nothing allocated.
    } else {
      var method = iteratorOf(a), vals;
      if (method !== undefined) {
        if (isArray(a)) tooBig(what, toLen(a.length) * per);
        vals = collect(a, method);
      } else {
        n = toLen(a.length);
        tooBig(what, n * per);
        vals = snapshot();
        for (var k = 0; k < n; k++) vals[k] = a[k];
      }
      tooBig(what, vals.length * per, true);
      args = [vals];
    }
    return ReflectConstruct(t, args, nt);
  }
  function guardCtor(name, bytesPer) {
    var C = g[name];
    if (typeof C !== "function") return;
    var P = new ProxyCtor(C, { __proto__: null, construct: constructTrap, name: name, bytesPer: bytesPer, buffer: name === "ArrayBuffer" });
    defineProperty(g, name, { value: P, writable: true, configurable: true, enumerable: false });
    try { defineProperty(C.prototype, "constructor", { value: P, writable: true, configurable: true, enumerable: false }); } catch (e) {}
  }
  guardCtor("ArrayBuffer", 1);
  [["Int8Array", 1], ["Uint8Array", 1], ["Uint8ClampedArray", 1], ["Int16Array", 2], ["Uint16Array", 2],
   ["Int32Array", 4], ["Uint32Array", 4], ["Float32Array", 4], ["Float64Array", 8],
   ["BigInt64Array", 8], ["BigUint64Array", 8]].forEach(function (p) { guardCtor(p[0], p[1]); });

  function install(obj, f) {
    defineProperty(obj, f.name, { value: f, writable: true, configurable: true, enumerable: false });
  }
  // Strings are UTF-16 in the worst case: 2 bytes a character. The
  // receiver and the arguments are converted here, once; goja gets
  // primitives, whose conversion runs no program code.
  var repeatF = String.prototype.repeat, padStartF = String.prototype.padStart, padEndF = String.prototype.padEnd;
  install(String.prototype, {
    repeat(count) {
      if (this === null || this === undefined) return ReflectApply(repeatF, this, arguments);
      var s = toStr(this), n = +count, c = toInt(n);
      tooBig("repeat()", c > 0 && c !== Infinity ? s.length * c * 2 : 0);
      return ReflectApply(repeatF, s, [n]);
    }
  }.repeat);
  function pad(f, what, self, maxLength, fillString) {
    if (self === null || self === undefined) return ReflectApply(f, self, []);
    var s = toStr(self), n = +maxLength, fill = fillString === undefined ? undefined : toStr(fillString);
    tooBig(what, toLen(n) * 2);
    return ReflectApply(f, s, [n, fill]);
  }
  install(String.prototype, { padStart(maxLength) { return pad(padStartF, "padStart()", this, maxLength, arguments[1]); } }.padStart);
  install(String.prototype, { padEnd(maxLength) { return pad(padEndF, "padEnd()", this, maxLength, arguments[1]); } }.padEnd);

  // An array slot costs about 16 bytes; a join at least its separators.
  // A genuine array's length is a data property goja reads without running
  // program code, so goja gets it as is when nothing else can run program
  // code before goja reads the length; anything else goes through the
  // algorithm here, with one read of the length.
  var fillF = ArrayProto.fill, joinF = ArrayProto.join, arrayFrom = ArrayCtor.from;
  install(ArrayProto, {
    fill(value) {
      var O = this, start = arguments[1], end = arguments[2];
      if (O === null || O === undefined) return ReflectApply(fillF, O, arguments);
      if (isGenuineArray(O) && !isObject(start) && !isObject(end)) {
        tooBig("fill()", O.length * 16);
        return ReflectApply(fillF, O, arguments);
      }
      O = ObjectCtor(O);
      var len = toLen(O.length);
      tooBig("fill()", len * 16);
      var k = relIdx(toInt(start), len);
      var fin = end === undefined ? len : relIdx(toInt(end), len);
      for (; k < fin; k++) O[k] = value;
      return O;
    }
  }.fill);
  var joining = snapshot(); // the array-likes being joined, for cycles
  install(ArrayProto, {
    join(separator) {
      var O = this, sep;
      if (O === null || O === undefined) return ReflectApply(joinF, O, arguments);
      O = ObjectCtor(O);
      for (var i = 0; i < joining.length; i++) if (joining[i] === O) return "";
      var len = toLen(O.length);
      sep = separator === undefined ? "," : toStr(separator);
      var depth = joining.length;
      joining[depth] = O;
      try {
        // Native, with the budget checked before the result is built:
        // each element is read and converted once.
        return joinN(O, len, sep);
      } finally {
        joining.length = depth;
      }
    }
  }.join);
  // A sparse array's length is free (new Array(2 ** 32 - 1) holds
  // nothing) and so is an array-like's ({length: 2 ** 40}), but some
  // built-ins allocate by it in Go, where no interrupt reaches: sort() and
  // map() a slot per index at once (64 GiB: the Go runtime's out-of-memory
  // is fatal, the whole process dies), toReversed(), toSpliced(), with()
  // and a spread of the array's iterators one by one. So these refuse a
  // receiver longer than the memory budget could hold as a dense array, 16
  // bytes a slot; no working program has one. (Built-ins that only walk
  // the indices, such as indexOf or forEach on a sparse array, are left
  // as they are: each wrapper costs every runtime ~2 KB, and a walk ends by
  // itself, after the run was abandoned at its deadline.)
  // A genuine array's length is read here and by the built-in with no
  // program code in between when no argument needs converting (callbacks
  // are not converted); otherwise the length is read once here and the
  // built-in sees that length through a view of the receiver.
  var pinnedHandler = {
    __proto__: null,
    get: function (t, k, r) { return k === "length" ? this.len : ReflectGet(t, k, r); }
  };
  function pinned(O, len) {
    var h = { __proto__: pinnedHandler, len: len };
    return new ProxyCtor(O, h);
  }
  // guarded runs f, an Array.prototype built-in, after the length check.
  function guarded(f, name, O, args, callback) {
    if (O === null || O === undefined) return ReflectApply(f, O, args);
    var plain = callback;
    if (!plain) {
      plain = true;
      for (var i = 0; i < args.length; i++) if (isObject(args[i])) { plain = false; break; }
    }
    if (plain && isGenuineArray(O)) {
      if (O.length > maxDense) tooBig(name + "()", O.length * 16);
      return ReflectApply(f, O, args);
    }
    O = ObjectCtor(O);
    var len = toLen(O.length);
    if (len > maxDense) tooBig(name + "()", len * 16);
    return ReflectApply(f, pinned(O, len), args);
  }
  // Below this length nothing is checked: 2^16 slots are 1 MiB at most.
  var maxDense = 65536;
  var AP = ArrayProto;
  var mapF = AP.map; AP.map = function map() { return guarded(mapF, "map", this, arguments, true); };
  var sortF = AP.sort; AP.sort = function sort() { return guarded(sortF, "sort", this, arguments, true); };
  var toReversedF = AP.toReversed; AP.toReversed = function toReversed() { return guarded(toReversedF, "toReversed", this, arguments, true); };
  var keysF = AP.keys; AP.keys = function keys() { return guarded(keysF, "keys", this, arguments, true); };
  var valuesF = AP.values; AP.values = function values() { return guarded(valuesF, "values", this, arguments, true); };
  var entriesF = AP.entries; AP.entries = function entries() { return guarded(entriesF, "entries", this, arguments, true); };
  var toSplicedF = AP.toSpliced; AP.toSpliced = function toSpliced() { return guarded(toSplicedF, "toSpliced", this, arguments, false); };
  var withF = AP.with; AP.with = { with() { return guarded(withF, "with", this, arguments, false); } }.with;
  valuesGuard = AP.values;
  AP[SymIter] = valuesGuard;
  install(ArrayCtor, {
    from(items) {
      var C = this, mapFn = arguments[1], T = arguments[2], vals;
      if (mapFn !== undefined && typeof mapFn !== "function") throw new TypeErrorCtor("Array.from: the map function is not a function");
      if (items === null || items === undefined) return ReflectApply(arrayFrom, C, arguments);
      var method = iteratorOf(items);
      if (method !== undefined) {
        var n = typeof items === "string" ? items.length : isArray(items) ? toLen(items.length) : isObject(items) ? typedLength(items) : 0;
        tooBig("Array.from()", n * 16);
        vals = collect(items, method, mapFn, T);
      } else {
        var O = ObjectCtor(items), len = toLen(O.length);
        tooBig("Array.from()", len * 16);
        vals = snapshot();
        for (var k = 0; k < len; k++) vals[k] = mapFn === undefined ? O[k] : ReflectApply(mapFn, T, [O[k], k]);
      }
      if (C === ArrayCtor) return setProto(vals, ArrayProto);
      // Another constructor: the built-in creates the result, from the
      // snapshot.
      return ReflectApply(arrayFrom, C, [method !== undefined ? iterableOf(vals) : vals]);
    }
  }.from);
})
