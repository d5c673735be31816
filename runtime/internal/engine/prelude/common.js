// common.js: intrinsics captured before any program runs (programs may
// overwrite the globals), and small helpers every module uses.
//
// goja builds built-ins lazily, on first use, and every runtime pays for
// what the prelude touches at startup: this file touches as few as it can,
// and classifies values by their tag rather than by their constructor.
var g = globalThis;
var defineProperty = Object.defineProperty;
var objectProto = Object.prototype;
var ObjectCtor = Object;
var jsonStringify = JSON.stringify;
// The built-ins that only what is made on first use needs (Object's
// other methods, Array, JSON.parse, Reflect, Symbol.iterator, the error
// constructors the prelude throws with, Proxy, Promise, the two toString
// methods, and the weak collections of the prelude's private marks: size
// refusals, binding errors, and where the engine has no means of its
// own, hidden functions and proxies), captured by lateLoad(): now, or,
// where the glue declares hostIntrinsic(name) (goja: the realm's own,
// whatever a program did to the globals since), when first needed: most
// runs need none of them, and a realm built per call pays for every
// built-in the prelude reads.
// lateLoad also makes the helpers only those paths use (tag, install,
// defineGlobal here, sizes.js's sizesLate): every function costs a goja
// runtime ~400 bytes. Every function that uses one calls lateLoad() first,
// or is made by one that did (console's, the timers', es.js's, web.js's
// makers, the glue's guards and typedSource).
var getOwn, keysOf, isArray, getProto, setProto, ArrayCtor, ArrayProto, jsonParse, ReflectApply, SymIter;
var ErrorCtor, RangeErrorCtor, TypeErrorCtor, ProxyCtor, PromiseCtor, promiseReject;
var tagOf, errorToString, ReflectConstruct, ReflectGet;
var WeakSetCtor, weakAdd, weakHas, WeakMapCtor, weakGet, weakSet;
function lateLoad() {
  if (ErrorCtor !== undefined) return;
  if (typeof glueLate === "function") glueLate(); // the glue's own late part
  if (typeof hostIntrinsic === "function") {
    getOwn = hostIntrinsic("Object.getOwnPropertyDescriptor"), keysOf = hostIntrinsic("Object.keys");
    getProto = hostIntrinsic("Object.getPrototypeOf"), setProto = hostIntrinsic("Object.setPrototypeOf");
    ArrayCtor = hostIntrinsic("Array"), ArrayProto = hostIntrinsic("Array.prototype"), isArray = hostIntrinsic("Array.isArray");
    jsonParse = hostIntrinsic("JSON.parse"), ReflectApply = hostIntrinsic("Reflect.apply"), SymIter = hostIntrinsic("Symbol.iterator");
    ErrorCtor = hostIntrinsic("Error"), RangeErrorCtor = hostIntrinsic("RangeError"), TypeErrorCtor = hostIntrinsic("TypeError");
    ProxyCtor = hostIntrinsic("Proxy"), PromiseCtor = hostIntrinsic("Promise"), promiseReject = hostIntrinsic("Promise.reject");
    tagOf = hostIntrinsic("Object.prototype.toString"), errorToString = hostIntrinsic("Error.prototype.toString");
    ReflectConstruct = hostIntrinsic("Reflect.construct"), ReflectGet = hostIntrinsic("Reflect.get");
    WeakSetCtor = hostIntrinsic("WeakSet"), weakAdd = hostIntrinsic("WeakSet.prototype.add"), weakHas = hostIntrinsic("WeakSet.prototype.has");
    WeakMapCtor = hostIntrinsic("WeakMap"), weakGet = hostIntrinsic("WeakMap.prototype.get"), weakSet = hostIntrinsic("WeakMap.prototype.set");
  } else {
    getOwn = Object.getOwnPropertyDescriptor, keysOf = Object.keys;
    getProto = Object.getPrototypeOf, setProto = Object.setPrototypeOf;
    ArrayCtor = Array, ArrayProto = Array.prototype, isArray = Array.isArray;
    jsonParse = JSON.parse, ReflectApply = Reflect.apply, SymIter = Symbol.iterator;
    ErrorCtor = Error, RangeErrorCtor = RangeError, TypeErrorCtor = TypeError;
    ProxyCtor = Proxy, PromiseCtor = Promise, promiseReject = Promise.reject;
    tagOf = Object.prototype.toString, errorToString = Error.prototype.toString;
    ReflectConstruct = Reflect.construct, ReflectGet = Reflect.get;
    WeakSetCtor = WeakSet, weakAdd = WeakSet.prototype.add, weakHas = WeakSet.prototype.has;
    WeakMapCtor = WeakMap, weakGet = WeakMap.prototype.get, weakSet = WeakMap.prototype.set;
  }
  // tag(v) is v's Object.prototype.toString tag, "" if reading it threw.
  tag = function (v) {
    try { return ReflectApply(tagOf, v, []); } catch (e) { return ""; }
  };
  // install defines f as a non-enumerable method named after it.
  install = function (obj, f) {
    defineProperty(obj, f.name, { value: hide(f), writable: true, configurable: true, enumerable: false });
  };
  defineGlobal = function (name, value) {
    defineProperty(g, name, { value: hide(value), writable: true, configurable: true, enumerable: false });
  };
  sizesLate();
}
// (No initial values: lateLoad may have run before this line, and does
// below where the glue has no hostIntrinsic.)
var tag, install, defineGlobal;
if (typeof hostIntrinsic !== "function") lateLoad();
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
// lazyGlobals(names, build) defines each global named (names is
// comma-separated: an array literal costs a goja runtime two objects) as
// build(name)'s value: now, or, in an engine whose glue declares
// hostLazy(names, build) and which takes the name (goja: its global
// object's template), when a program first touches it. build may only use
// what this prelude captured (a program may have run by then) and must
// not read the global it builds. (hostLazy takes all the names or none.)
function lazyGlobals(names, build) {
  if (typeof hostLazy === "function" && hostLazy(names, build)) return;
  lateLoad();
  var list = names.split(",");
  for (var i = 0; i < list.length; i++) defineGlobal(list[i], build(list[i]));
}
function rejected(e) {
  lateLoad();
  return ReflectApply(promiseReject, PromiseCtor, [e]);
}
