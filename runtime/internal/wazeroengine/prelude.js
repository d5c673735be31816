// The sandbox surface of a QuickJS context, evaluated once per context
// before any program. The expression evaluates to a function that takes the
// single host function (Go) and returns the engine's internal entry points;
// nothing of it stays reachable from programs except what is installed on
// globalThis below.
//
// The host function takes one string: an op letter and a payload.
//   "L" + JSON [level, text]   console output
//   "C" + JSON name + "\n" + JSON args
//                              start a tool call; returns its id (number)
//   "D" + result               the program settled (see settled below)
(function (host) {
  "use strict";
  // Intrinsics are captured now: programs may overwrite the globals.
  const stringify = JSON.stringify;
  const parse = JSON.parse;
  const Obj = Object;
  const keysOf = Object.keys;
  const defineProperty = Object.defineProperty;
  const getOwnPropertyNames = Object.getOwnPropertyNames;
  const isArray = Array.isArray;
  const apply = Reflect.apply;
  const ErrorCtor = Error;
  const TypeErrorCtor = TypeError;
  const PromiseCtor = Promise;
  const reject = Promise.reject.bind(Promise);
  const resolve = Promise.resolve.bind(Promise);
  const then = Promise.prototype.then;
  const MapCtor = Map;
  const mapGet = Map.prototype.get;
  const mapSet = Map.prototype.set;
  const mapDelete = Map.prototype.delete;
  const symbolToString = Symbol.prototype.toString;
  const errorToString = Error.prototype.toString;
  const WeakSetCtor = WeakSet;
  const weakHas = WeakSet.prototype.has;
  const weakAdd = WeakSet.prototype.add;
  const objectIs = Object.is;

  // ---- console -------------------------------------------------------
  // Formatting follows the goja engine's prelude, so both engines print
  // the same lines: Node's util.inspect, simplified.

  const getOwn = Object.getOwnPropertyDescriptor;
  const getProto = Object.getPrototypeOf;
  const objectProto = Object.prototype;
  const DateCtor = Date, RegExpCtor = RegExp, SetCtor = Set;
  const dateISO = Date.prototype.toISOString;
  const mapForEach = Map.prototype.forEach, setForEach = Set.prototype.forEach;
  const mapSize = getOwn(Map.prototype, "size").get, setSize = getOwn(Set.prototype, "size").get;
  const MAX_ITEMS = 100, MAX_DEPTH = 2;

  function quote(s) {
    return "'" + s.replace(/\\/g, "\\\\").replace(/'/g, "\\'").replace(/\n/g, "\\n") + "'";
  }
  function keyName(k) {
    return /^[A-Za-z_$][A-Za-z0-9_$]*$/.test(k) ? k : quote(k);
  }
  function is(v, ctor) {
    try {
      return v instanceof ctor;
    } catch (e) {
      return false;
    }
  }
  // inspect formats a value: bounded depth and item counts, no getters
  // invoked, cycles shown as [Circular].
  function inspect(v, depth, seen) {
    switch (typeof v) {
      case "string":
        return quote(v);
      case "number":
        return objectIs(v, -0) ? "-0" : "" + v;
      case "bigint":
        return "" + v + "n";
      case "boolean":
      case "undefined":
        return "" + v;
      case "symbol":
        return apply(symbolToString, v, []);
      case "function":
        return "[Function: " + (v.name || "(anonymous)") + "]";
    }
    if (v === null) return "null";
    if (seen.indexOf(v) >= 0) return "[Circular]";
    if (is(v, ErrorCtor)) {
      const head = apply(errorToString, v, []);
      const st = v.stack;
      return typeof st === "string" && st ? head + "\n" + st.replace(/\s+$/, "") : head;
    }
    if (is(v, DateCtor)) {
      try {
        return apply(dateISO, v, []);
      } catch (e) {
        return "Invalid Date";
      }
    }
    if (is(v, RegExpCtor)) return "" + v;
    if (is(v, PromiseCtor)) return "Promise {}";
    if (depth > MAX_DEPTH) return isArray(v) ? "[Array]" : "[Object]";
    seen.push(v);
    const parts = [];
    let out;
    try {
      if (isArray(v)) {
        const n = v.length < MAX_ITEMS ? v.length : MAX_ITEMS;
        for (let i = 0; i < n; i++) parts.push(i in v ? inspect(v[i], depth + 1, seen) : "<empty>");
        if (v.length > MAX_ITEMS) parts.push("... " + (v.length - MAX_ITEMS) + " more items");
        out = parts.length ? "[ " + parts.join(", ") + " ]" : "[]";
      } else if (is(v, MapCtor)) {
        apply(mapForEach, v, [
          (val, k) => {
            if (parts.length < MAX_ITEMS) parts.push(inspect(k, depth + 1, seen) + " => " + inspect(val, depth + 1, seen));
          },
        ]);
        out = "Map(" + apply(mapSize, v, []) + ") " + (parts.length ? "{ " + parts.join(", ") + " }" : "{}");
      } else if (is(v, SetCtor)) {
        apply(setForEach, v, [
          (val) => {
            if (parts.length < MAX_ITEMS) parts.push(inspect(val, depth + 1, seen));
          },
        ]);
        out = "Set(" + apply(setSize, v, []) + ") " + (parts.length ? "{ " + parts.join(", ") + " }" : "{}");
      } else {
        const ks = keysOf(v);
        for (let j = 0; j < ks.length && j < MAX_ITEMS; j++) {
          const d = getOwn(v, ks[j]);
          const shown = d && "value" in d ? inspect(d.value, depth + 1, seen) : "[Getter]";
          parts.push(keyName(ks[j]) + ": " + shown);
        }
        if (ks.length > MAX_ITEMS) parts.push("... " + (ks.length - MAX_ITEMS) + " more properties");
        const proto = getProto(v);
        let prefix = "";
        if (proto === null) prefix = "[Object: null prototype] ";
        else if (proto !== objectProto && proto.constructor && typeof proto.constructor.name === "string" && proto.constructor.name)
          prefix = proto.constructor.name + " ";
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
    const out = [];
    let i = 0;
    if (typeof args[0] === "string" && args.length > 1 && args[0].indexOf("%") >= 0) {
      i = 1;
      out.push(
        args[0].replace(/%([sdifjoO%])/g, (m, c) => {
          if (c === "%") return "%";
          if (i >= args.length) return m;
          const a = args[i++];
          switch (c) {
            case "s":
              return typeof a === "string" ? a : inspect(a, 1, []);
            case "d":
            case "i":
              return typeof a === "bigint" ? a + "n" : "" + (c === "i" ? parseInt(a) : Number(a));
            case "f":
              return "" + parseFloat(a);
            case "j":
              try {
                return stringify(a);
              } catch (e) {
                return "[Circular]";
              }
            default:
              return inspect(a, 0, []);
          }
        }),
      );
    }
    for (; i < args.length; i++) {
      try {
        out.push(typeof args[i] === "string" ? args[i] : inspect(args[i], 0, []));
      } catch (e) {
        out.push("[unprintable]");
      }
    }
    return out.join(" ");
  }

  function emit(level, args) {
    host("L" + stringify([level, format(args)]));
  }
  const console = {};
  for (const level of ["log", "info", "warn", "error", "debug"]) {
    console[level] = {
      [level](...args) {
        emit(level, args);
      },
    }[level];
  }
  console.trace = function trace(...args) {
    emit("debug", args);
  };
  console.dir = function dir(v) {
    host("L" + stringify(["log", inspect(v, 0, [])]));
  };
  console.table = function table(v) {
    host("L" + stringify(["log", inspect(v, 0, [])]));
  };

  // ---- tools ---------------------------------------------------------

  let pending = new MapCtor(); // call id → [resolve, reject]
  let toolNames = [];
  const toolFns = new MapCtor();
  const bindingErrors = new WeakSetCtor(); // rejections we created

  // bindingError builds the Error a binding rejects with: message, code,
  // and info when the failure carries details.
  function bindingError(e) {
    const err = new ErrorCtor(e.message);
    err.code = e.code;
    if (e.info !== undefined) err.info = e.info;
    apply(weakAdd, bindingErrors, [err]);
    return err;
  }

  function callTool(name, args) {
    let json;
    try {
      json = args === undefined ? "{}" : stringify(args);
    } catch (e) {
      return reject(bindingError({ code: "INVALID_ARGUMENTS", message: "tool arguments must be JSON-serialisable: " + (e && e.message) }));
    }
    if (json === undefined) {
      return reject(bindingError({ code: "INVALID_ARGUMENTS", message: "tool arguments must be JSON-serialisable, got " + typeof args }));
    }
    const id = host("C" + stringify(name) + "\n" + json);
    if (id === undefined) {
      // A binding kept by a program and called after its run.
      return reject(bindingError({ code: "CANCELLED", message: "the program that made this call has ended" }));
    }
    return new PromiseCtor((res, rej) => apply(mapSet, pending, [id, [res, rej]]));
  }

  function toolFn(name) {
    let f = apply(mapGet, toolFns, [name]);
    if (f === undefined) {
      f = { [name]: (args) => callTool(name, args) }[name];
      apply(mapSet, toolFns, [name, f]);
    }
    return f;
  }

  // Names of Object.prototype members resolve to Object.prototype unless
  // they are real tool names, so String(tools) and tools.hasOwnProperty(…)
  // behave as on any object (as in the goja engine).
  const objectProtoNames = [
    "constructor", "toString", "toLocaleString", "valueOf", "hasOwnProperty", "isPrototypeOf",
    "propertyIsEnumerable", "__proto__", "__defineGetter__", "__defineSetter__", "__lookupGetter__", "__lookupSetter__",
  ];
  const known = (k) => toolNames.indexOf(k) >= 0;

  // Any string property is a tool binding, except "then" and "toJSON": `await
  // tools` and JSON.stringify(tools) must not treat it specially.
  const tools = new Proxy(
    {},
    {
      get(t, k) {
        if (typeof k !== "string") return t[k];
        if (k === "then" || k === "toJSON") return undefined;
        if (objectProtoNames.indexOf(k) >= 0 && !known(k)) return objectProto[k];
        return toolFn(k);
      },
      has(t, k) {
        return typeof k === "string" && known(k);
      },
      ownKeys() {
        return toolNames.slice();
      },
      getOwnPropertyDescriptor(t, k) {
        if (typeof k !== "string" || !known(k)) return undefined;
        return { value: toolFn(k), writable: false, enumerable: true, configurable: true };
      },
      set() {
        return false;
      },
      defineProperty() {
        return false;
      },
      deleteProperty() {
        return false;
      },
    },
  );

  // ---- globals -------------------------------------------------------

  function defineGlobal(name, value) {
    defineProperty(globalThis, name, { value, writable: true, enumerable: false, configurable: true });
  }
  defineGlobal("console", console);
  defineGlobal("tools", tools);

  // Withheld function-valued globals: each says what to use instead (the
  // same words as the goja engine).
  const TOOLS = 'call a tool instead: await tools["name"](args) (list them with await tools.code_tools_list({}))';
  const withheld = {
    require: "require() is not available in code_run programs: modules cannot be loaded; " + TOOLS,
    importScripts: "importScripts() is not available in code_run programs: scripts cannot be loaded; " + TOOLS,
    fetch: "fetch() is not available in code_run programs: the sandbox has no network access; " + TOOLS,
    XMLHttpRequest: "XMLHttpRequest is not available in code_run programs: the sandbox has no network access; " + TOOLS,
    WebSocket: "WebSocket is not available in code_run programs: the sandbox has no network access; " + TOOLS,
  };
  const TIMERS = " is not available in code_run programs: there are no timers; await tool calls directly, and to repeat work use a loop";
  for (const n of ["setTimeout", "setInterval", "setImmediate", "clearTimeout", "clearInterval", "clearImmediate"]) {
    withheld[n] = n + "()" + TIMERS;
  }
  for (const name of keysOf(withheld)) {
    const message = withheld[name];
    defineGlobal(name, {
      [name]() {
        throw new ErrorCtor(message);
      },
    }[name]);
  }
  // Data-valued host globals stay undefined (typeof probes keep working).
  for (const name of ["process", "Deno", "Bun"]) delete globalThis[name];

  // Size checks for built-ins that loop in C over a length the program
  // chooses (QuickJS polls its interrupt handler only between bytecodes):
  // `new Array(2 ** 31).join("abc")` would take seconds to reach the memory
  // cap. They fail at once with a RangeError instead, as in the goja engine.
  let limit = 256 * 1048576; // the run's memory budget, set by begin
  const RangeErrorCtor = RangeError;
  function tooBig(what, bytes) {
    if (bytes > limit)
      throw new RangeErrorCtor(what + " would need " + Math.round(bytes / 1048576) + " MiB, over the program's memory budget of " + Math.round(limit / 1048576) + " MiB");
  }
  // Each check reads or converts a size-relevant value once and hands the
  // built-in the result (a primitive, or a snapshot the program never
  // sees): a getter, proxy trap or valueOf must not run twice, or the
  // built-in would use a value the check never saw.
  const ObjectCtor = Object, ArrayProto = Array.prototype, setProto = Object.setPrototypeOf;
  const SymIter = Symbol.iterator, ProxyCtor = Proxy, construct = Reflect.construct;
  const MAX_LENGTH = 9007199254740991;
  const isObject = (v) => v !== null && (typeof v === "object" || typeof v === "function");
  function toInt(v) {
    let n = +v;
    if (n !== n) return 0;
    if (n === Infinity || n === -Infinity) return n;
    n = n - (n % 1);
    return n === 0 ? 0 : n;
  }
  function toLen(v) {
    const n = toInt(v);
    return n <= 0 ? 0 : n > MAX_LENGTH ? MAX_LENGTH : n;
  }
  const toStr = (v) => (typeof v === "string" ? v : `${v}`); // ToString, without copying a string
  const relIdx = (rel, len) => (rel < 0 ? (len + rel < 0 ? 0 : len + rel) : rel < len ? rel : len);
  const snapshot = () => setProto([], null);
  // Proxies are remembered so a check can tell a genuine array, whose
  // length reads run no program code, from a proxy of one.
  const proxies = new WeakSetCtor();
  const isGenuineArray = (v) => isArray(v) && !apply(weakHas, proxies, [v]);
  const proxyRevocable = ProxyCtor.revocable;
  defineProperty(ProxyCtor, "revocable", {
    value: {
      revocable(target, handler) {
        const r = apply(proxyRevocable, ProxyCtor, [target, handler]);
        apply(weakAdd, proxies, [r.proxy]);
        return r;
      },
    }.revocable,
    writable: true,
    configurable: true,
    enumerable: false,
  });
  defineGlobal("Proxy", new ProxyCtor(ProxyCtor, {
    __proto__: null,
    construct(t, args, nt) {
      const p = construct(t, args, nt);
      apply(weakAdd, proxies, [p]);
      return p;
    },
  }));
  function install(obj, f) {
    defineProperty(obj, f.name, { value: f, writable: true, configurable: true, enumerable: false });
  }
  // Strings take up to 2 bytes a character, an array slot about 16.
  const repeatF = String.prototype.repeat, padStartF = String.prototype.padStart, padEndF = String.prototype.padEnd;
  install(String.prototype, {
    repeat(count) {
      if (this === null || this === undefined) return apply(repeatF, this, arguments);
      const s = toStr(this), n = +count, c = toInt(n);
      tooBig("repeat()", c > 0 && c !== Infinity ? s.length * c * 2 : 0);
      return apply(repeatF, s, [n]);
    },
  }.repeat);
  function pad(f, what, self, maxLength, fillString) {
    if (self === null || self === undefined) return apply(f, self, []);
    const s = toStr(self), n = +maxLength, fill = fillString === undefined ? undefined : toStr(fillString);
    tooBig(what, toLen(n) * 2);
    return apply(f, s, [n, fill]);
  }
  install(String.prototype, { padStart(maxLength) { return pad(padStartF, "padStart()", this, maxLength, arguments[1]); } }.padStart);
  install(String.prototype, { padEnd(maxLength) { return pad(padEndF, "padEnd()", this, maxLength, arguments[1]); } }.padEnd);
  const fillF = ArrayProto.fill, joinF = ArrayProto.join, arrayFrom = Array.from;
  install(ArrayProto, {
    fill(value) {
      let O = this;
      const start = arguments[1], end = arguments[2];
      if (O === null || O === undefined) return apply(fillF, O, arguments);
      if (isGenuineArray(O) && !isObject(start) && !isObject(end)) {
        tooBig("fill()", O.length * 16);
        return apply(fillF, O, arguments);
      }
      O = ObjectCtor(O);
      const len = toLen(O.length);
      tooBig("fill()", len * 16);
      let k = relIdx(toInt(start), len);
      const fin = end === undefined ? len : relIdx(toInt(end), len);
      for (; k < fin; k++) O[k] = value;
      return O;
    },
  }.fill);
  const joining = snapshot(); // the array-likes being joined, for cycles
  install(ArrayProto, {
    join(separator) {
      let O = this, sep;
      if (O === null || O === undefined) return apply(joinF, O, arguments);
      if (isGenuineArray(O) && !isObject(separator)) {
        sep = separator === undefined ? "," : toStr(separator);
        tooBig("join()", O.length * sep.length * 2);
        return apply(joinF, O, [sep]);
      }
      O = ObjectCtor(O);
      for (let i = 0; i < joining.length; i++) if (joining[i] === O) return "";
      const len = toLen(O.length);
      sep = separator === undefined ? "," : toStr(separator);
      tooBig("join()", len * (16 + sep.length * 2));
      const parts = snapshot(), depth = joining.length;
      joining[depth] = O;
      try {
        for (let k = 0; k < len; k++) {
          const e = O[k];
          parts[k] = e === undefined || e === null ? "" : toStr(e);
        }
      } finally {
        joining.length = depth;
      }
      return apply(joinF, parts, [sep]);
    },
  }.join);
  install(Array, {
    from(items) {
      if (!isObject(items)) return apply(arrayFrom, this, arguments);
      const method = items[SymIter];
      if (method !== undefined && method !== null) {
        if (isGenuineArray(items)) tooBig("Array.from()", items.length * 16);
        // The built-in iterates, with the method read here.
        const it = { __proto__: null, [SymIter]() { return apply(method, items, []); } };
        return apply(arrayFrom, this, [it, arguments[1], arguments[2]]);
      }
      const len = toLen(items.length);
      tooBig("Array.from()", len * 16);
      const snap = snapshot();
      for (let k = 0; k < len; k++) snap[k] = items[k];
      return apply(arrayFrom, this, [snap, arguments[1], arguments[2]]);
    },
  }.from);

  const pristine = new MapCtor();
  for (const name of getOwnPropertyNames(globalThis)) apply(mapSet, pristine, [name, true]);

  // ---- entry points for Go -------------------------------------------

  // describe turns a thrown value into the JSON the engine classifies.
  function describe(e) {
    const d = {};
    try {
      if (e instanceof ErrorCtor) {
        d.error = true;
        d.name = "" + e.name;
        d.message = "" + e.message;
        d.stack = typeof e.stack === "string" ? e.stack : "";
        if (apply(weakHas, bindingErrors, [e])) {
          d.code = "" + e.code;
          if (e.info !== undefined) d.info = e.info;
        }
      } else {
        try {
          d.message = stringify(e);
        } catch (x) {}
        if (typeof d.message !== "string") d.message = inspect(e, 1, []);
        d.thrown = typeof e;
      }
    } catch (x) {
      d.message = d.message || "an exception that could not be described";
    }
    return stringify(d);
  }

  // settled reports the program's outcome: "v" + JSON, "u" (undefined), or
  // "e" + a description.
  function fulfilled(v) {
    if (v === undefined) return host("Du");
    if (typeof v === "function") return host("De" + stringify({ plain: true, message: "the program returned a function, which JSON cannot represent; return data instead", stack: "" }));
    if (typeof v === "symbol") return host("De" + stringify({ plain: true, message: "the program returned a symbol, which JSON cannot represent; return data instead", stack: "" }));
    let json;
    try {
      json = stringify(v);
    } catch (e) {
      const why = "" + (e && e.message);
      let message = "the return value cannot be converted to JSON: " + why;
      if (/circular/i.test(why)) message = "the return value contains a cycle (an object that refers to itself), which JSON cannot represent: " + why;
      else if (/bigint/i.test(why)) message = "the return value contains a BigInt, which JSON cannot represent; convert it with String() or Number(): " + why;
      return host("De" + stringify({ plain: true, message }));
    }
    if (json === undefined) return host("Du");
    return host("Dv" + json);
  }

  return [
    // begin(JSON {tools, limit}): reset per-run state.
    function begin(config) {
      const c = parse(config);
      pending = new MapCtor();
      toolNames = c.tools;
      limit = c.limit;
    },
    // watch(promise): report the outcome of the program's promise (a
    // script whose completion value is not a promise settles with it).
    function watch(p) {
      apply(then, resolve(p), [fulfilled, (e) => host("De" + describe(e))]);
    },
    // settle(batchJSON): deliver tool results: [[id, 1, value] (resolve),
    // [id, 2] (resolve undefined), [id, 0, {code, message, info}] (reject)].
    function settle(batch) {
      const results = parse(batch);
      for (let i = 0; i < results.length; i++) {
        const r = results[i];
        const p = apply(mapGet, pending, [r[0]]);
        if (p === undefined) continue;
        apply(mapDelete, pending, [r[0]]);
        if (r[1] === 1) p[0](r[2]);
        else if (r[1] === 2) p[0](undefined);
        else p[1](bindingError(r[2]));
      }
    },
    describe,
    // globals(): names programs added to globalThis, as JSON: enumerable
    // own properties the pristine context lacks (as goja lists them).
    // Listing only the enumerable ones skips the built-ins: 4x cheaper.
    function globals() {
      const out = [];
      for (const name of keysOf(globalThis)) {
        if (!apply(mapGet, pristine, [name])) out.push(name);
      }
      return stringify(out.sort());
    },
  ];
})
