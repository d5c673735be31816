// glue.js (wazero): QuickJS reaches Go through one host function,
// native(op + payload), whose ops are
//
//   "L" + level + "\n" + text               a console line: returns 1
//                                            once the log budget is spent
//   "C" + JSON name + "\n" + JSON arguments  a nested call: returns its id,
//                                            undefined after the run, or
//                                            the message of a SUBCALL_LIMIT
//                                            refusal past the limit (-2
//                                            when the glue has it)
//   "N" + name                               at setup: a host function of
//                                            its own (console's log, info,
//                                            warn, error, debug; refused)
//   "D" + outcome                            the program settled
//   "S" + op + "\n" + arg                    a web or Intl host function:
//                                            its answer (engine.HostService)
//
// Go calls in with strings (JSON), through glueEntries.
var parse = JSON.parse;
var MapCtor = Map, mapGet = Map.prototype.get, mapSet = Map.prototype.set, mapDelete = Map.prototype.delete;
var then = Promise.prototype.then, promiseResolve = Promise.resolve;
var pending = new MapCtor(); // call id → [resolve, reject]
var refusal = null; // the run's rejected promise for calls past its limit (hostCall)

var logOps = { __proto__: null, log: "Llog\n", info: "Linfo\n", warn: "Lwarn\n", error: "Lerror\n", debug: "Ldebug\n" };
function hostLog(level, text) { if (native(logOps[level] + text) === 1) logSpent = true; }
// console.log, info, warn, error and debug are host functions of their
// own (vm.hostConsole): a line is dropped in Go, before anything is
// made, once the log budget is spent (a JavaScript method would build
// its arguments object first); plain strings are joined in Go, and
// anything else goes through formatArgs.
function consoleNative() {
  return { log: native("Nlog"), info: native("Ninfo"), warn: native("Nwarn"), error: native("Nerror"), debug: native("Ndebug") };
}
// refused(name) is a nested call's first step, before its arguments are
// read (vm.hostRefused). Until the run's first refusal: undefined if the
// call may go on (nothing made), else the message of the run's
// SUBCALL_LIMIT refusal. Afterwards (every later call of the run is past
// the limit too): undefined when this one is refused, as Run.Refused
// counts it (nothing read, nothing made), 1 when the run has ended.
var refused = native("Nrefused");
function hostRefusal(name) {
  var m = refused(name);
  if (refusal !== null) return m === undefined ? refusal : undefined;
  if (m === undefined) return undefined;
  // Past the limit: one promise, rejected with one Error, serves every
  // refused call of the run.
  refusal = rejected(bindingError("SUBCALL_LIMIT", m));
  return refusal;
}
// callKeys[name] is "C" + JSON name + "\n", made once per name (QuickJS's
// JSON.stringify of a short string costs ~2.5 µs here).
var callKeys = { __proto__: null }, callKeyCount = 0;
function hostCall(name, json) {
  var key = callKeys[name];
  if (key === undefined) {
    if (callKeyCount >= 1024) { callKeys = { __proto__: null }; callKeyCount = 0; } // names a program invented
    key = callKeys[name] = "C" + jsonStringify(name) + "\n";
    callKeyCount++;
  }
  var id = native(key + json);
  if (id === undefined) return undefined;
  if (id === -2 || typeof id === "string") {
    // Past the limit (the serialisation of the arguments made calls that
    // reached it).
    if (typeof id === "string") refusal = rejected(bindingError("SUBCALL_LIMIT", id));
    return refusal;
  }
  return new PromiseCtor(function (res, rej) { ReflectApply(mapSet, pending, [id, [res, rej]]); });
}
function hostService(op, arg) { return native("S" + op + "\n" + arg); }
function hostTools() { return []; } // begin always has them
// timers.js: "T" + ms starts a timer (its call id, -1 past the budget),
// "X" + id drops it. timerIds maps the program's timer ids to call ids,
// for this run only.
var mapHas = Map.prototype.has, timerIds = new MapCtor();
function hostTimer(id, ms, fire, rearm) {
  if (rearm && !ReflectApply(mapHas, timerIds, [id])) return 0;
  var h = native("T" + ms);
  if (h === undefined || h < 0) return h;
  ReflectApply(mapSet, pending, [h, [fire, fire]]);
  ReflectApply(mapSet, timerIds, [id, h]);
  return h;
}
function hostClearTimer(id) {
  var h = ReflectApply(mapGet, timerIds, [id]);
  if (h === undefined) return;
  ReflectApply(mapDelete, timerIds, [id]);
  ReflectApply(mapDelete, pending, [h]);
  native("X" + h);
}
// tools is a Proxy with every trap of tools.js but get, over toolsTarget,
// whose prototype is the run's cache of bindings (toolsCache: a binding
// the get trap returned, as an own property, once read in the run), whose
// prototype is a Proxy with the get trap (toolsMiss: names not read yet,
// then, toJSON, Object.prototype's names, symbols). Reading a binding the
// run has read before is then an ordinary property lookup, not a call of
// the trap (1.3 µs, most of a refused call's cost). Only the get trap's
// bindings are kept (what it answers for Object.prototype's names follows
// Object.prototype as it is now), and getPrototypeOf answers null
// (tools.js's trap): a program sees neither object behind it. beginJSON
// starts each run with an empty cache (the tool names, and so what get
// answers, may change between the runs of a persistent environment). (tools.js calls makeTools before
// this file runs: these vars have no initialiser, which would reset them.)
var toolsTarget, toolsMiss, toolsCached, toolsCachedFns;
function makeTools(makeTraps) {
  var traps = makeTraps(), get = traps.get, handler = { __proto__: null };
  keysOf(traps).forEach(function (k) { if (k !== "get") handler[k] = traps[k]; });
  toolsMiss = new ProxyCtor({}, { __proto__: null, get: function (t, k) {
    var v = get(t, k);
    if (typeof k === "string" && v !== undefined && toolFns[k] === v) {
      var cache = getProto(toolsTarget);
      // Names a program invented, or tools.js's own bindings forgotten
      // (toolFns replaced): what is cached is what toolFn now gives.
      if (toolsCached >= 1024 || toolsCachedFns !== toolFns) cache = newToolsCache();
      defineProperty(cache, k, { value: v, writable: false, enumerable: false, configurable: true });
      toolsCached++;
    }
    return v;
  } });
  toolsTarget = { __proto__: null };
  newToolsCache();
  return new ProxyCtor(toolsTarget, handler);
}
function newToolsCache() {
  var cache = { __proto__: toolsMiss };
  setProto(toolsTarget, cache);
  toolsCached = 0;
  toolsCachedFns = toolFns;
  return cache;
}
// The wasm memory is capped exactly; these checks only make a built-in
// that loops in C over a huge length fail at once rather than at the cap
// (QuickJS polls its interrupt handler only between bytecodes).
// The refusal is worded as goja's (gojaengine's reserve).
// resultReplacer bounds the nesting of the return value's JSON (the
// shared outcome uses it): QuickJS's JSON.stringify checks for cycles by
// scanning the path at every level, quadratic in the depth (a 10,000-deep
// array took 5 s, a 100,000-deep one never ended before the deadline), so
// a value nested past MAX_RESULT_DEPTH is refused as goja refuses one
// past its call-stack bound. The replacer follows JSON.stringify's
// depth-first walk: the holder it is called on is on the path, whatever
// lies above it on the path is done.
var MAX_RESULT_DEPTH = 1000;
function resultReplacer() {
  var path = [], n = 0;
  return function (k, v) {
    while (n > 0 && path[n - 1] !== this) path[--n] = undefined;
    if (v !== null && typeof v === "object") {
      if (n >= MAX_RESULT_DEPTH) throw new RangeErrorCtor("JSON.stringify: objects and arrays nested too deeply (more than " + MAX_RESULT_DEPTH + " levels)");
      path[n++] = v;
    }
    return v;
  };
}

function reserve(what, bytes) {
  if (bytes <= memLimit) return "";
  return what + " would need " + Math.round(bytes / 1048576) + " MiB, over the program's memory budget of " + Math.round(memLimit / 1048576) + " MiB";
}

install(ArrayProto, {
  join(separator) {
    var O = this, sep;
    if (O === null || O === undefined) return ReflectApply(joinF, O, arguments);
    if (isGenuineArray(O) && !isObject(separator)) {
      sep = separator === undefined ? "," : toStr(separator);
      tooBig("join()", O.length * sep.length * 2);
      return ReflectApply(joinF, O, [sep]);
    }
    O = ObjectCtor(O);
    for (var i = 0; i < joining.length; i++) if (joining[i] === O) return "";
    var len = toLen(O.length);
    sep = separator === undefined ? "," : toStr(separator);
    tooBig("join()", len * (16 + sep.length * 2));
    var parts = snapshot(), depth = joining.length;
    joining[depth] = O;
    try {
      for (var k = 0; k < len; k++) {
        var e = O[k];
        parts[k] = e === undefined || e === null ? "" : toStr(e);
      }
    } finally {
      joining.length = depth;
    }
    return ReflectApply(joinF, parts, [sep]);
  }
}.join);
install(ArrayCtor, {
  from(items) {
    if (!isObject(items)) return ReflectApply(arrayFrom, this, arguments);
    var method = items[SymIter];
    if (method !== undefined && method !== null) {
      if (isGenuineArray(items)) tooBig("Array.from()", items.length * 16);
      // The built-in iterates, with the method read here.
      var it = { __proto__: null, [SymIter]() { return ReflectApply(method, items, []); } };
      return ReflectApply(arrayFrom, this, [it, arguments[1], arguments[2]]);
    }
    var len = toLen(items.length);
    tooBig("Array.from()", len * 16);
    var snap = snapshot();
    for (var k = 0; k < len; k++) snap[k] = items[k];
    return ReflectApply(arrayFrom, this, [snap, arguments[1], arguments[2]]);
  }
}.from);

// The web globals and Intl, built here: every call's realm is restored
// from a memory snapshot taken after the prelude, so what is built now
// costs a call nothing, where building a group on first touch would cost
// every call that uses it (~0.1–0.3 ms). (Where snapshots are unsupported,
// off Linux, every realm is built per call and pays for this build.)
webLazy();
webInstall(keysOf(webGroups).join(","));

// ArrayBuffer and typed arrays of a length past the budget: refused up
// front like goja's (MEMORY_LIMIT when uncaught), not QuickJS's own
// "invalid array buffer length" RangeError for lengths it cannot address.
// Only a length argument is converted here (once); anything else goes to
// the built-in as it is, and the memory cap bounds what it allocates.
function lengthTrap(t, args, nt) {
  var a = args[0], what = "new " + this.name + "()";
  if (args.length > 0 && (this.buffer || !isObject(a))) {
    var n = toInt(a);
    args[0] = n;
    var msg = reserve(what, n > 0 ? n * this.bytesPer : 0);
    // A resizable ArrayBuffer's maxByteLength past the budget: refused as
    // a length is (goja's check is the same), read and converted once
    // here, handed on as a number. QuickJS-ng allocates the current
    // length only and grows on resize (past the budget: its catchable
    // out-of-memory, MEMORY_LIMIT when uncaught).
    if (!msg && this.buffer && isObject(args[1])) {
      var m = args[1].maxByteLength;
      if (m !== undefined) {
        m = toInt(m);
        args[1] = { maxByteLength: m };
        msg = reserve(what + " with maxByteLength", m > 0 ? m : 0);
      }
    }
    if (msg) {
      // The built-in reads newTarget.prototype before it allocates
      // (OrdinaryCreateFromConstructor): so does the refusal.
      if (nt !== undefined) ReflectGet(nt, "prototype");
      refuseSize(msg);
    }
    return ReflectConstruct(t, args, nt);
  }
  try {
    return ReflectConstruct(t, args, nt);
  } catch (e) {
    // An array-like's length (never negative) QuickJS cannot address.
    if (isObject(a) && e instanceof RangeErrorCtor && errorMessage(e) === "invalid array buffer length") {
      refuseSize(what + " would need more than the program's memory budget of " + Math.round(memLimit / 1048576) + " MiB");
    }
    throw e;
  }
}
[["ArrayBuffer", 1], ["Int8Array", 1], ["Uint8Array", 1], ["Uint8ClampedArray", 1], ["Int16Array", 2], ["Uint16Array", 2],
 ["Int32Array", 4], ["Uint32Array", 4], ["Float32Array", 4], ["Float64Array", 8], ["Float16Array", 2],
 ["BigInt64Array", 8], ["BigUint64Array", 8]].forEach(function (p) {
  var C = g[p[0]];
  if (typeof C !== "function") return;
  var P = new ProxyCtor(C, { __proto__: null, construct: lengthTrap, name: p[0], bytesPer: p[1], buffer: p[0] === "ArrayBuffer" });
  hide(P);
  defineProperty(g, p[0], { value: P, writable: true, configurable: true, enumerable: false });
  try { defineProperty(C.prototype, "constructor", { value: P, writable: true, configurable: true, enumerable: false }); } catch (e) {}
});

// ArrayBuffer.prototype.transfer and transferToFixedLength to a length
// past the budget: refused up front as the constructor is (QuickJS's own
// failure was an uncatchable out-of-memory, a RUNTIME_ERROR). The receiver
// is checked first (byteLength's TypeError), the length converted once and
// handed on as a number; a detached buffer goes to the built-in, whose
// TypeError comes before any allocation.
var abProto = ArrayBuffer.prototype, abTransfer = abProto.transfer, abTransferFixed = abProto.transferToFixedLength;
if (typeof abTransfer === "function" && typeof abTransferFixed === "function") {
  var abByteLength = getOwn(abProto, "byteLength").get, abDetached = getOwn(abProto, "detached").get;
  var transferChecked = function (f, name, self, args) {
    ReflectApply(abByteLength, self, []);
    if (args.length === 0 || args[0] === undefined) return ReflectApply(f, self, []);
    var n = toInt(args[0]);
    if (n > 0 && !ReflectApply(abDetached, self, [])) {
      var msg = reserve("ArrayBuffer.prototype." + name + "()", n);
      if (msg) refuseSize(msg);
    }
    return ReflectApply(f, self, [n]);
  };
  install(abProto, { transfer() { return transferChecked(abTransfer, "transfer", this, arguments); } }.transfer);
  install(abProto, { transferToFixedLength() { return transferChecked(abTransferFixed, "transferToFixedLength", this, arguments); } }.transferToFixedLength);
}

// QuickJS-ng 0.12.1 reports a detached resizable buffer's maxByteLength as
// its old maximum; the spec's getter answers 0 once the buffer is detached
// (after the receiver check, which the built-in's call keeps).
(function () {
  var d = getOwn(abProto, "maxByteLength"), det = getOwn(abProto, "detached");
  if (!d || typeof d.get !== "function" || !det || typeof det.get !== "function") return;
  var maxGet = d.get, detGet = det.get;
  var fixed = getOwn({
    get maxByteLength() {
      var m = ReflectApply(maxGet, this, []);
      return ReflectApply(detGet, this, []) ? 0 : m;
    }
  }, "maxByteLength").get;
  hide(fixed);
  defineProperty(abProto, "maxByteLength", { get: fixed, set: undefined, enumerable: false, configurable: true });
})();

// QuickJS-ng calls Error.prepareStackTrace(error, callSites) as V8 does,
// and a call site's getFunction() and getThis() would hand a program the
// functions and objects of the frames below it: the prelude's own (the
// traps behind tools, the size checks). They answer undefined, as V8's do
// for strict code, and cannot be redefined.
(function () {
  var sites = null, prev = ErrorCtor.prepareStackTrace;
  ErrorCtor.prepareStackTrace = function (e, s) { sites = s; return ""; };
  try { void new ErrorCtor("probe").stack; } finally { ErrorCtor.prepareStackTrace = prev; }
  if (sites === null || !sites.length) return;
  var proto = getProto(sites[0]);
  ["getFunction", "getThis"].forEach(function (n) {
    defineProperty(proto, n, { value: hide({ [n]() { return undefined; } }[n]), writable: false, configurable: false, enumerable: false });
  });
})();

// Iterator.concat's iterators (QuickJS-ng 0.12.1): a return() from the
// program's code that next() calls (the iterable's [Symbol.iterator], a
// `next` or `done` getter) frees the values next() still uses, a
// use-after-free in the engine (upstream daab4ad;
// TestConcatIteratorReentrantReturn). The spec's next and return throw a
// TypeError on an iterator whose next is executing (GeneratorValidate):
// so do these, around the built-ins, which then never see a re-entrant
// call.
(function () {
  var It = g.Iterator, proto;
  if (typeof It !== "function" || typeof It.concat !== "function") return;
  try { proto = getProto(It.concat()); } catch (e) { return; }
  var running = new WeakSetCtor(), weakDelete = WeakSet.prototype["delete"];
  function guard(name, enter) {
    var f = proto[name];
    if (typeof f !== "function") return;
    var w = hide({ [name]() {
      var mark = isObject(this);
      if (mark && ReflectApply(weakHas, running, [this])) throw new TypeErrorCtor("already running");
      if (!enter || !mark) return ReflectApply(f, this, arguments);
      ReflectApply(weakAdd, running, [this]);
      try { return ReflectApply(f, this, arguments); } finally { ReflectApply(weakDelete, running, [this]); }
    } }[name]);
    defineProperty(w, "length", { value: f.length, writable: false, enumerable: false, configurable: true });
    var d = ObjectCtor.getOwnPropertyDescriptor(proto, name);
    d.value = w;
    defineProperty(proto, name, d);
  }
  guard("next", true);
  guard("return", false);
})();

// WeakRef and FinalizationRegistry: es.js's, as on goja, installed at
// setup (in the snapshot: no program pays for them). QuickJS-ng frees an
// unreferenced target at once (reference counting), where the spec keeps
// a WeakRef's target alive until the end of the job that made or
// dereferenced it (new WeakRef(Symbol()).deref() was undefined); and a
// registry that dies in the same garbage cycle as a target it watches, or
// whose callback or held value does, left the target's weak reference
// reading the freed registry and queueing a call of a freed callback
// (upstream 78494db, 8f62384; TestFinalizationRegistryCycles). The
// polyfill keeps a target as long as its WeakRef and never runs a cleanup
// callback, both allowed by the spec; the native constructors are
// unreachable from here on.
delete g.WeakRef;
delete g.FinalizationRegistry;
polyfill("weakRef");

// Object.groupBy and Map.groupBy (QuickJS-ng 0.12): neither closes the
// iterator when the callback throws, and both fill the groups with [[Set]]
// (a setter on Array.prototype runs) where the spec defines the elements.
// es.js's replace them here, at setup, so that the snapshot every context
// starts from has them: a program naming groupBy pays nothing to install
// them (polyfill("?") then finds them right, and Go never names them).
polyfill("groupBy");

// The realm is complete (the rest only defines functions): what
// globals() leaves out. (goja skips this: it would build every lazily
// created built-in, and a goja realm has no enumerable globals.)
keysOf(g).forEach(function (k) { pristine[k] = true; });

var glueEntries = [
  // beginJSON(JSON {tools, limit}): begin, and forget the last run's calls.
  function beginJSON(config) {
    var c = parse(config);
    pending = new MapCtor();
    timerIds = new MapCtor();
    logSpent = false;
    refusal = null;
    newToolsCache();
    begin(c.tools, c.limit);
  },
  // watch(value): report how the program's promise settles (a value that
  // is not a promise settles with itself).
  function watch(p) {
    ReflectApply(then, ReflectApply(promiseResolve, PromiseCtor, [p]), [
      function (v) { native("D" + outcome(true, v)); },
      function (e) { native("D" + outcome(false, e)); }
    ]);
  },
  // settle(JSON batch): [[id, 1, value] resolve, [id, 2] resolve
  // undefined, [id, 0, {code, message, info}] reject].
  function settle(batch) {
    var results = parse(batch);
    for (var i = 0; i < results.length; i++) {
      var r = results[i];
      var p = ReflectApply(mapGet, pending, [r[0]]);
      if (p === undefined) continue;
      ReflectApply(mapDelete, pending, [r[0]]);
      if (r[1] === 1) p[0](r[2]);
      else if (r[1] === 2) p[0](undefined);
      else p[1](bindingError(r[2].code, r[2].message, r[2].info));
    }
  },
  function globalsJSON() { return jsonStringify(globals()); },
  // formatArgs(...args): a console line that is not plain strings.
  function formatArgs() { return consoleLib().format(arguments); }
];
