// common.js: intrinsics captured before any program runs (programs may
// overwrite the globals), and small helpers every module uses.
//
// goja builds built-ins lazily, on first use, and every runtime pays for
// what the prelude touches at startup: this file touches as few as it can,
// and classifies values by their tag rather than by their constructor.
var g = globalThis;
var defineProperty = Object.defineProperty;
var getOwn = Object.getOwnPropertyDescriptor;
var keysOf = Object.keys;
var isArray = Array.isArray;
var getProto = Object.getPrototypeOf;
var setProto = Object.setPrototypeOf;
var objectProto = Object.prototype;
var ObjectCtor = Object, ArrayCtor = Array, ArrayProto = Array.prototype;
var ErrorCtor = Error, RangeErrorCtor = RangeError, TypeErrorCtor = TypeError;
var jsonStringify = JSON.stringify, jsonParse = JSON.parse;
var tagOf = Object.prototype.toString;
var errorToString = Error.prototype.toString;
var ReflectConstruct = Reflect.construct, ReflectApply = Reflect.apply, ReflectGet = Reflect.get;
var ProxyCtor = Proxy;
var PromiseCtor = Promise, promiseReject = Promise.reject;
// The weak collections (the prelude's private marks: size refusals,
// binding errors, and where the engine has no means of its own, hidden
// functions and proxies), captured by weakLoad(): now, or, where the glue
// declares hostIntrinsic(name) (goja: the realm's own, whatever a program
// did to the globals since), when first needed: most runs mark nothing.
var WeakSetCtor, weakAdd, weakHas, WeakMapCtor, weakGet, weakSet;
function weakLoad() {
  if (WeakSetCtor !== undefined) return;
  if (typeof hostIntrinsic === "function") {
    WeakSetCtor = hostIntrinsic("WeakSet"), weakAdd = hostIntrinsic("WeakSet.prototype.add"), weakHas = hostIntrinsic("WeakSet.prototype.has");
    WeakMapCtor = hostIntrinsic("WeakMap"), weakGet = hostIntrinsic("WeakMap.prototype.get"), weakSet = hostIntrinsic("WeakMap.prototype.set");
  } else {
    WeakSetCtor = WeakSet, weakAdd = WeakSet.prototype.add, weakHas = WeakSet.prototype.has;
    WeakMapCtor = WeakMap, weakGet = WeakMap.prototype.get, weakSet = WeakMap.prototype.set;
  }
}
if (typeof hostIntrinsic !== "function") weakLoad();
var SymIter = Symbol.iterator;

function tag(v) {
  try { return ReflectApply(tagOf, v, []); } catch (e) { return ""; }
}
function isObject(v) { return v !== null && (typeof v === "object" || typeof v === "function"); }
// The prelude's functions that a program can reach (a binding, a console
// method, a wrapped built-in): Function.prototype.toString shows them as
// native code, never their source (globals.js).
// A glue that declares hostHide(f) marks the function itself (goja: a
// flag its own Function.prototype.toString reads); otherwise they are
// kept in hidden, which globals.js's toString reads.
var hidden = typeof hostHide === "function" ? null : new WeakSetCtor();
function hide(f) {
  if (typeof f === "function") {
    if (hidden === null) hostHide(f);
    else ReflectApply(weakAdd, hidden, [f]);
  }
  return f;
}
// install defines f as a non-enumerable method named after it.
function install(obj, f) {
  defineProperty(obj, f.name, { value: hide(f), writable: true, configurable: true, enumerable: false });
}
function defineGlobal(name, value) {
  defineProperty(g, name, { value: hide(value), writable: true, configurable: true, enumerable: false });
}
// lazyGlobals(names, build) defines each global named as build(name)'s
// value: now, or, in an engine whose glue declares hostLazy(names, build)
// and which takes the name (goja: its global object's template), when a
// program first touches it. build may only use what this prelude captured
// (a program may have run by then) and must not read the global it builds.
// (hostLazy takes all the names or none.)
function lazyGlobals(names, build) {
  if (typeof hostLazy === "function" && hostLazy(names, build)) return;
  for (var i = 0; i < names.length; i++) defineGlobal(names[i], build(names[i]));
}
function rejected(e) { return ReflectApply(promiseReject, PromiseCtor, [e]); }
