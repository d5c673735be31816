// sizes.js: size checks for the built-ins that allocate by a size the
// program chooses, in one call that nothing interrupts (a Go allocation
// on goja, a C loop on QuickJS): they fail at once with a RangeError
// instead. The glue's reserve(what, bytes, buffer) returns why an
// allocation is refused, or "". The glue adds its engine's own checks.
//
// Every check sizes exactly what the built-in then allocates: a value the
// program can change between two reads (a getter, a proxy trap, valueOf,
// toString, Symbol.toPrimitive) is read or converted once, here, and the
// built-in receives the snapshot (a number, a string, an array the
// program never sees), never the original.
var MAX_LENGTH = 9007199254740991;

//
// A refusal is a RangeError the program may catch; uncaught, it ends the
// run as MEMORY_LIMIT (describe), as the engine's own cap would: one cause,
// one code, on every engine.
var budgetErrors = null; // the refusals (WeakSet, made on first use)
// refuseSize throws a size check's refusal.
function refuseSize(msg) {
  lateLoad();
  var e = new RangeErrorCtor(msg);
  if (budgetErrors === null) budgetErrors = new WeakSetCtor();
  ReflectApply(weakAdd, budgetErrors, [e]);
  throw e;
}
// The helpers of the checks (made by lateLoad: sizesLate, with the
// intrinsics; the checks themselves, the glue's guards and typedSource,
// web.js and es.js call lateLoad first).
var tooBig, toStr, toInt, toLen, relIdx, snapshot, isGenuineArray;
function sizesLate() {
  tooBig = function (what, bytes, buffer) {
    var msg = reserve(what, bytes, buffer === true);
    if (msg) refuseSize(msg);
  };
  // toStr is ToString; a string is returned as is (a template literal
  // would copy it).
  toStr = function (v) { return typeof v === "string" ? v : `${v}`; };
  // toInt is ToIntegerOrInfinity: it converts v (calling valueOf and
  // friends) exactly once.
  toInt = function (v) {
    var n = +v;
    if (n !== n) return 0;
    if (n === Infinity || n === -Infinity) return n;
    n = n - n % 1;
    return n === 0 ? 0 : n;
  };
  toLen = function (v) {
    var n = toInt(v);
    return n <= 0 ? 0 : n > MAX_LENGTH ? MAX_LENGTH : n;
  };
  relIdx = function (rel, len) {
    if (rel < 0) return len + rel < 0 ? 0 : len + rel;
    return rel < len ? rel : len;
  };
  // An array the program never sees: no prototype, so neither inherited
  // setters nor a Symbol.iterator; a built-in reads it as a plain array-like.
  snapshot = function () { return setProto([], null); };
  isGenuineArray = function (v) {
    if (!isArray(v)) return false;
    if (nativeIsProxy) return !hostIsProxy(v);
    return proxies === null || !ReflectApply(weakHas, proxies, [v]);
  };
}
// Proxies the program creates are remembered, so that a check can tell a
// genuine array (whose length reads run no program code, so the built-in
// reads what the check read) from a proxy of one; an engine whose glue
// declares hostIsProxy(v) (goja) tells a proxy itself, and neither Proxy
// nor Proxy.revocable is wrapped.
var proxies = null, nativeIsProxy = typeof hostIsProxy === "function";
if (!nativeIsProxy) {
  lateLoad();
  var noteProxy = function (p) {
    if (proxies === null) proxies = new WeakSetCtor();
    ReflectApply(weakAdd, proxies, [p]);
    return p;
  };
  var proxyRevocable = ProxyCtor.revocable;
  defineProperty(ProxyCtor, "revocable", {
    value: hide({
      revocable(target, handler) {
        var r = ReflectApply(proxyRevocable, ProxyCtor, [target, handler]);
        noteProxy(r.proxy);
        return r;
      }
    }.revocable),
    writable: true, configurable: true, enumerable: false
  });
  defineGlobal("Proxy", new ProxyCtor(ProxyCtor, {
    __proto__: null,
    construct: function (t, args, nt) { return noteProxy(ReflectConstruct(t, args, nt)); }
  }));
}

// Strings are UTF-16 in the worst case: 2 bytes a character. The receiver
// and the arguments are converted here, once; the built-in gets
// primitives, whose conversion runs no program code. (goja checks these
// inside the built-ins: its glue declares nativeSizeChecks.)
// (Captured only where the wrappers are installed: reading a method of
// String.prototype builds it on goja, in every runtime.)
var repeatF, padStartF, padEndF;
if (typeof nativeSizeChecks !== "function") {
  lateLoad(); // (install, below)
  repeatF = String.prototype.repeat, padStartF = String.prototype.padStart, padEndF = String.prototype.padEnd;
}
if (typeof nativeSizeChecks !== "function") install(String.prototype, {
  repeat(count) {
    if (this === null || this === undefined) return ReflectApply(repeatF, this, arguments);
    var s = toStr(this), n = +count, c = toInt(n);
    tooBig("repeat()", c > 0 && c !== Infinity ? s.length * c * 2 : 0);
    return ReflectApply(repeatF, s, [n]);
  }
}.repeat);
// (pad and concatPart are made only where the wrappers are: each function
// costs every goja runtime ~400 bytes.)
var pad = null;
if (typeof nativeSizeChecks !== "function") {
  pad = function (f, what, self, maxLength, fillString) {
    if (self === null || self === undefined) return ReflectApply(f, self, []);
    var s = toStr(self), n = +maxLength, fill = fillString === undefined ? undefined : toStr(fillString);
    // Nothing is allocated when the string is long enough already or the
    // filler is empty (the built-in returns the string as it is).
    if (fill !== "" && toLen(n) > s.length) tooBig(what, toLen(n) * 2);
    return ReflectApply(f, s, [n, fill]);
  };
  install(String.prototype, { padStart(maxLength) { return pad(padStartF, "padStart()", this, maxLength, arguments[1]); } }.padStart);
  install(String.prototype, { padEnd(maxLength) { return pad(padEndF, "padEnd()", this, maxLength, arguments[1]); } }.padEnd);
}

// concat's result is as long as its parts together. (QuickJS-ng makes a
// rope of long strings, so without this check ''.concat(...Array(50).fill(
// 16 MiB)) succeeded at 800 MiB of characters where goja refused it.)
// QuickJS compiles a template literal to a call of concat, so toStr
// (a template) cannot be used here: String() is ToString but for symbols.
var concatBuiltin, StringFn, concatPart = null;
if (typeof nativeSizeChecks !== "function") {
  lateLoad();
  concatBuiltin = String.prototype.concat, StringFn = String;
  concatPart = function (v) {
    if (typeof v === "symbol") throw new TypeErrorCtor("cannot convert a Symbol value to a string");
    return typeof v === "string" ? v : StringFn(v);
  };
}
if (typeof nativeSizeChecks !== "function") install(String.prototype, {
  concat(str) {
    if (this === null || this === undefined) return ReflectApply(concatBuiltin, this, arguments);
    var s = concatPart(this), n = s.length, parts = snapshot();
    for (var i = 0; i < arguments.length; i++) {
      parts[i] = concatPart(arguments[i]);
      n += parts[i].length;
    }
    tooBig("concat()", n * 2);
    return ReflectApply(concatBuiltin, s, parts);
  }
}.concat);

// sort() without a comparator compares the elements' strings. QuickJS
// converts each element once and keeps a 32-byte slot and the string (a
// 16-byte header and up) per element, so sorting n elements takes about
// 48·n bytes besides the array; the rule is the same on every engine
// (goja converts at each comparison instead and could take seconds of CPU
// before its heap watchdog or the deadline stopped it), so one array gets
// one answer: 1.5 M numbers are refused at once, MEMORY_LIMIT, on both.
var sortBuiltin, toSortedBuiltin, fillF;
// arrayCheck(name, builtin) is the check installed as Array.prototype's
// name, in front of builtin: now, or, in an engine whose glue declares
// hostLazyArray(names, build) and which takes the names (goja:
// Array.prototype's template), when something first touches the method
// (a realm built per call pays for every function the prelude makes, and
// most programs call none of these).
function arrayCheck(name, builtin) {
  lateLoad();
  switch (name) {
    case "sort":
      sortBuiltin = builtin;
      return hide({
        sort(comparefn) {
          if (comparefn === undefined && isGenuineArray(this)) tooBig("sort()", this.length * 48);
          return ReflectApply(sortBuiltin, this, arguments);
        }
      }.sort);
    case "toSorted":
      toSortedBuiltin = builtin;
      return hide({
        toSorted(comparefn) {
          if (comparefn === undefined && isGenuineArray(this)) tooBig("toSorted()", this.length * 64);
          return ReflectApply(toSortedBuiltin, this, arguments);
        }
      }.toSorted);
  }
  fillF = builtin;
  return hide({
    // An array slot costs about 16 bytes. A genuine array's length is a data
    // property the built-in reads without running program code, so it gets the
    // array as is when nothing else can run program code before it reads the
    // length; anything else goes through the algorithm here, with one read.
    fill(value) {
      var O = this, start = arguments[1], end = arguments[2];
      if (O === null || O === undefined) return ReflectApply(fillF, O, arguments);
      if (isGenuineArray(O) && !isObject(start) && !isObject(end)) {
        tooBig("fill()", O.length * 16);
        return ReflectApply(fillF, O, arguments);
      }
      O = ObjectCtor(O);
      var len = toLen(O.length);
      var k = relIdx(toInt(start), len);
      var fin = end === undefined ? len : relIdx(toInt(end), len);
      // What it writes, not the length: fill.call({length: 2 ** 53 - 1}, v,
      // 2 ** 53 - 4) writes three slots.
      if (fin > k) tooBig("fill()", (fin - k) * 16);
      for (; k < fin; k++) O[k] = value;
      return O;
    }
  }.fill);
}
if (typeof hostLazyArray !== "function" || !hostLazyArray("sort,toSorted,fill", arrayCheck)) {
  lateLoad();
  install(ArrayProto, arrayCheck("sort", ArrayProto.sort));
  if (typeof ArrayProto.toSorted === "function") install(ArrayProto, arrayCheck("toSorted", ArrayProto.toSorted));
  install(ArrayProto, arrayCheck("fill", ArrayProto.fill));
}
// (The glue's join and Array.from, where they are not the engine's own.)
var joinF, arrayFrom, joining;
if (typeof nativeSizeChecks !== "function") {
  joinF = ArrayProto.join, arrayFrom = ArrayCtor.from;
  joining = snapshot(); // the array-likes being joined, for cycles (the glue's join)
}
