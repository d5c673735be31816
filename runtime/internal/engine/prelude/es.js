// es.js: the ECMAScript (ES2023–ES2025) library functions an engine lacks,
// written from the spec's steps, so that both engines show programs the
// same surface (docs/engines.md has the table). Nothing here runs at setup:
// each feature is installed by polyfill(names), which Go calls before a
// script that names it runs (engine.Polyfills lists the words), and only
// where the engine has no native one. So a runtime pays for none of them
// until a program touches one, and the functions are then built-ins like
// any other: non-enumerable, with the spec's `.length` and `.name`, not
// constructors.

// Everything below is built on the first polyfill call: at setup a
// runtime gets two function objects, not the dozens the features need.
var esFeatures = null;

// polyfill installs the features named in names (comma-separated), once.
// polyfill("?") returns the features this engine lacks or gets wrong: Go
// asks once per engine, and never names the others.
function polyfill(names) {
  if (names === "?") return esMake()["?"](); // garbage once answered: the realm stays as it was
  if (esFeatures === null) esFeatures = esMake();
  var list = toStr(names).split(",");
  for (var i = 0; i < list.length; i++) {
    var f = esFeatures[list[i]];
    if (f !== undefined) f();
  }

// (esMake is polyfill's own: a function at the prelude's top level costs
// every goja runtime ~400 bytes, one in here only the calls of polyfill.)
function esMake() {
  lateLoad();
  var MAX_SAFE = 9007199254740991;
  function isCallable(f) { return typeof f === "function"; }
  // isConstructor is IsConstructor, without reading anything of C: a proxy
  // of C has [[Construct]] only if C has, and its trap answers instead.
  var constructProbe = { __proto__: null, construct: function () { return {}; } };
  function isConstructor(C) {
    if (typeof C !== "function") return false;
    try { new (new ProxyCtor(C, constructProbe))(); return true; } catch (e) { return false; }
  }
  // createData is CreateDataPropertyOrThrow. Its descriptor is one object,
  // reused (defineProperty runs no program code): an element costs no
  // allocation.
  var dataDesc = { __proto__: null, value: undefined, writable: true, enumerable: true, configurable: true };
  function createData(O, k, v) {
    dataDesc.value = v;
    try {
      defineProperty(O, k, dataDesc);
    } finally {
      dataDesc.value = undefined;
    }
  }
  var noArgs = [];
  // closeIterator is IteratorClose after an abrupt completion: the first
  // error wins.
  function closeIterator(it) {
    try {
      var ret = it["return"];
      if (ret !== undefined && ret !== null) ReflectApply(ret, it, []);
    } catch (e) {}
  }
  function getIterator(items) {
    var method = items[SymIter];
    if (!isCallable(method)) throw new TypeErrorCtor(typeof items === "object" ? "object is not iterable" : String(items) + " is not iterable");
    var it = ReflectApply(method, items, []);
    if (!isObject(it)) throw new TypeErrorCtor("the iterator is not an object");
    return it;
  }
  // toPropertyKey is ToPropertyKey: a computed key does exactly that.
  function toPropertyKey(k) {
    if (typeof k === "string" || typeof k === "symbol") return k;
    if (!isObject(k)) return String(k);
    var o = { __proto__: null };
    o[k] = 0;
    return Reflect.ownKeys(o)[0];
  }
  // groupBy is GroupBy(items, callback, keyCoercion): add(key, value) for
  // each element, in order.
  function groupBy(items, callback, property, add) {
    if (items === null || items === undefined) throw new TypeErrorCtor("groupBy: items is null or undefined");
    if (!isCallable(callback)) throw new TypeErrorCtor("groupBy: the callback must be a function");
    var it = getIterator(items), next = it.next, k = 0;
    for (;;) {
      var r = ReflectApply(next, it, noArgs);
      if (!isObject(r)) throw new TypeErrorCtor("the iterator result is not an object");
      if (r.done) return;
      var v = r.value, key;
      try {
        if (k >= MAX_SAFE) throw new TypeErrorCtor("groupBy: too many elements");
        key = callback(v, k); // strict code: this is undefined
        key = property ? toPropertyKey(key) : key === 0 ? 0 : key; // -0 is +0
      } catch (e) {
        closeIterator(it);
        throw e;
      }
      add(key, v);
      k++;
    }
  }
  // bareList is an array with no prototype: assigning an element defines
  // it. asArrays gives a list of them %Array.prototype%.
  function bareList() {
    var a = [];
    setProto(a, null);
    return a;
  }
  function asArrays(lists) {
    for (var i = 0; i < lists.length; i++) setProto(lists[i], ArrayProto);
  }
  // groupByCloses reports whether the engine's groupBy functions close the
  // iterator when the callback throws. QuickJS-ng 0.12's do not, and they
  // also fill the groups with [[Set]] instead of defining the elements (a
  // setter on Array.prototype runs), which "?" cannot probe without
  // touching Array.prototype: the one probe stands for both.
  function groupByCloses() {
    var closed = 0, items = {};
    items[SymIter] = function () {
      return { next: function () { return { value: 1, done: false }; }, "return": function () { closed++; return {}; } };
    };
    var boom = function () { throw closed; };
    try { ObjectCtor.groupBy(items, boom); } catch (e) {}
    try { Map.groupBy(items, boom); } catch (e) {}
    return closed === 2;
  }
  function promiseCapability(C) {
    if (!isConstructor(C)) throw new TypeErrorCtor("the receiver is not a constructor");
    var cap = { resolve: undefined, reject: undefined };
    var promise = new C(function (resolve, reject) {
      if (cap.resolve !== undefined || cap.reject !== undefined) throw new TypeErrorCtor("the promise capability is already resolved");
      cap.resolve = resolve;
      cap.reject = reject;
    });
    if (!isCallable(cap.resolve) || !isCallable(cap.reject)) throw new TypeErrorCtor("the promise executor got no functions");
    return { promise: promise, resolve: cap.resolve, reject: cap.reject };
  }
  function isLead(c) { return c >= 0xD800 && c <= 0xDBFF; }
  function isTrail(c) { return c >= 0xDC00 && c <= 0xDFFF; }
  function thisString(self, name) {
    if (self === null || self === undefined) throw new TypeErrorCtor("String.prototype." + name + " called on null or undefined");
    return toStr(self);
  }
  function hex(n, w) {
    var s = n.toString(16);
    while (s.length < w) s = "0" + s;
    return s;
  }
  // The characters RegExp.escape writes as \xHH (besides white space and
  // line terminators), and the ones it escapes with a backslash.
  var otherPunctuators = ",-=<>#&!%:;@~'`\"", syntaxChars = "^$\\.*+?()[]{}|/";
  var controlEscapes = { __proto__: null, 9: "t", 10: "n", 11: "v", 12: "f", 13: "r" };
  function isSpaceOrLine(c) {
    return c === 0x20 || c === 0xA0 || c === 0x1680 || (c >= 0x2000 && c <= 0x200A) || c === 0x202F ||
      c === 0x205F || c === 0x3000 || c === 0xFEFF || c === 0x2028 || c === 0x2029;
  }

  var esFeatures = {
    __proto__: null,
    "?": function () {
      var out = [];
      if (!isCallable(ObjectCtor.groupBy) || !isCallable(Map.groupBy) || !groupByCloses()) out.push("groupBy");
      if (!isCallable(PromiseCtor.withResolvers)) out.push("withResolvers");
      if (!isCallable(PromiseCtor["try"])) out.push("promiseTry");
      if (!isCallable(String.prototype.isWellFormed) || !isCallable(String.prototype.toWellFormed)) out.push("wellFormed");
      if (typeof Symbol.asyncIterator !== "symbol") out.push("asyncIterator");
      if (!isCallable(ArrayCtor.fromAsync) || typeof Symbol.asyncIterator !== "symbol") out.push("fromAsync");
      if (typeof g.Iterator !== "function") out.push("iterator");
      if (typeof g.WeakRef !== "function" || typeof g.FinalizationRegistry !== "function") out.push("weakRef");
      if (!isCallable(Math.sumPrecise)) out.push("sumPrecise");
      if (!isCallable(Uint8Array.fromBase64) || !isCallable(Uint8Array.prototype.toHex)) out.push("base64");
      if (!isCallable(RegExp.escape) || RegExp.escape("\u00e9") !== "\u00e9") out.push("regExpEscape");
      try { new RegExp("[a--b]", "v"); new RegExp("(?i:a)"); } catch (e) { out.push("regExpLower"); }
      return out.join(",");
    },
    // An installer runs only where polyfill("?") found the feature
    // missing or wrong (RegExp.escape replaces QuickJS's).
    groupBy: function () {
      // Both replace the engine's: "?" found one missing or wrong. The
      // groups are built with no prototype, so that assigning an element
      // defines it (no setter of Array.prototype runs: CreateArrayFromList),
      // and get %Array.prototype% when the grouping is done. Until then no
      // program code can reach them, nor obj or map.
      install(ObjectCtor, {
        groupBy(items, callback) {
          var obj = { __proto__: null }, groups = bareList();
          groupBy(items, callback, true, function (key, v) {
            var g = obj[key];
            if (g === undefined) {
              g = obj[key] = bareList();
              groups[groups.length] = g;
            }
            g[g.length] = v;
          });
          asArrays(groups);
          return obj;
        }
      }.groupBy);
      var MapC = Map, get = Map.prototype.get, set = Map.prototype.set;
      install(MapC, {
        groupBy(items, callback) {
          var map = new MapC(), groups = bareList(), k1 = [undefined], k2 = [undefined, undefined];
          groupBy(items, callback, false, function (key, v) {
            k1[0] = key;
            var g = ReflectApply(get, map, k1);
            if (g === undefined) {
              k2[0] = key;
              k2[1] = g = bareList();
              ReflectApply(set, map, k2);
              groups[groups.length] = g;
            }
            g[g.length] = v;
          });
          asArrays(groups);
          return map;
        }
      }.groupBy);
    },
    withResolvers: function () {
      if (isCallable(PromiseCtor.withResolvers)) return;
      install(PromiseCtor, {
        withResolvers() {
          var cap = promiseCapability(this);
          return { promise: cap.promise, resolve: cap.resolve, reject: cap.reject };
        }
      }.withResolvers);
    },
    promiseTry: function () {
      if (isCallable(PromiseCtor["try"])) return;
      install(PromiseCtor, {
        try(callback) {
          if (!isObject(this)) throw new TypeErrorCtor("Promise.try called on a non-object");
          var cap = promiseCapability(this), args = ReflectApply(ArrayProto.slice, arguments, [1]);
          try {
            ReflectApply(cap.resolve, undefined, [ReflectApply(callback, undefined, args)]);
          } catch (e) {
            ReflectApply(cap.reject, undefined, [e]);
          }
          return cap.promise;
        }
      }["try"]);
    },
    wellFormed: function () {
      var SP = String.prototype;
      if (!isCallable(SP.isWellFormed)) {
        install(SP, {
          isWellFormed() {
            var s = thisString(this, "isWellFormed");
            for (var i = 0; i < s.length; i++) {
              var c = s.charCodeAt(i);
              if (isLead(c) && i + 1 < s.length && isTrail(s.charCodeAt(i + 1))) i++;
              else if (isLead(c) || isTrail(c)) return false;
            }
            return true;
          }
        }.isWellFormed);
      }
      if (!isCallable(SP.toWellFormed)) {
        install(SP, {
          toWellFormed() {
            var s = thisString(this, "toWellFormed"), out = "", from = 0;
            for (var i = 0; i < s.length; i++) {
              var c = s.charCodeAt(i);
              if (isLead(c) && i + 1 < s.length && isTrail(s.charCodeAt(i + 1))) i++;
              else if (isLead(c) || isTrail(c)) {
                out += s.slice(from, i) + "\uFFFD";
                from = i + 1;
              }
            }
            return from === 0 ? s : out + s.slice(from);
          }
        }.toWellFormed);
      }
    },
    asyncIterator: function () {
      if (typeof Symbol.asyncIterator === "symbol") return;
      defineProperty(Symbol, "asyncIterator", { value: Symbol("Symbol.asyncIterator"), writable: false, enumerable: false, configurable: false });
    },
    fromAsync: function () {
      esFeatures.asyncIterator();
      if (isCallable(ArrayCtor.fromAsync)) return;
      var asyncIter = Symbol.asyncIterator;
      install(ArrayCtor, {
        async fromAsync(asyncItems) {
          var C = this, mapfn = arguments[1], thisArg = arguments[2];
          var mapping = mapfn !== undefined;
          if (mapping && !isCallable(mapfn)) throw new TypeErrorCtor("Array.fromAsync: the map function is not a function");
          var A, k = 0, v, it, next, r;
          var usingAsync = asyncItems === null || asyncItems === undefined ? undefined : asyncItems[asyncIter];
          var usingSync = usingAsync === undefined || usingAsync === null ?
            (asyncItems === null || asyncItems === undefined ? undefined : asyncItems[SymIter]) : undefined;
          if (usingAsync === null) usingAsync = undefined;
          if (usingSync === null) usingSync = undefined;
          if (usingAsync !== undefined || usingSync !== undefined) {
            var method = usingAsync !== undefined ? usingAsync : usingSync;
            if (!isCallable(method)) throw new TypeErrorCtor("Array.fromAsync: the iterator method is not a function");
            it = ReflectApply(method, asyncItems, []);
            if (!isObject(it)) throw new TypeErrorCtor("the iterator is not an object");
            next = it.next;
            A = isConstructor(C) ? new C() : [];
            for (;;) {
              if (k >= MAX_SAFE) {
                var err = new TypeErrorCtor("Array.fromAsync: too many elements");
                if (usingAsync !== undefined) { try { var ret0 = it["return"]; if (ret0 != null) await ReflectApply(ret0, it, []); } catch (e) {} } else closeIterator(it);
                throw err;
              }
              r = ReflectApply(next, it, []);
              if (usingAsync !== undefined) r = await r;
              if (!isObject(r)) throw new TypeErrorCtor("the iterator result is not an object");
              if (r.done) {
                A.length = k;
                return A;
              }
              v = r.value;
              try {
                if (usingAsync === undefined) v = await v; // the async-from-sync iterator
                if (mapping) v = await ReflectApply(mapfn, thisArg, [v, k]);
                createData(A, k, v);
              } catch (e) {
                if (usingAsync !== undefined) {
                  try { var ret = it["return"]; if (ret !== undefined && ret !== null) await ReflectApply(ret, it, []); } catch (e2) {}
                } else closeIterator(it);
                throw e;
              }
              k++;
            }
          }
          var arrayLike = ObjectCtor(asyncItems), len = toLen(arrayLike.length);
          A = isConstructor(C) ? new C(len) : new ArrayCtor(len);
          for (; k < len; k++) {
            v = await arrayLike[k];
            if (mapping) v = await ReflectApply(mapfn, thisArg, [v, k]);
            createData(A, k, v);
          }
          A.length = len;
          return A;
        }
      }.fromAsync);
    },
    iterator: installIterator,
    weakRef: installWeakRef,
    sumPrecise: installSumPrecise,
    base64: installBase64,
    regExpEscape: function () {
      // (QuickJS-ng 0.12's escapes every non-ASCII character.)
      install(RegExp, {
        escape(S) {
          if (typeof S !== "string") throw new TypeErrorCtor("RegExp.escape: the argument must be a string");
          var out = "";
          for (var i = 0; i < S.length; i++) {
            var c = S.charCodeAt(i), ch = S.charAt(i);
            if (isLead(c) && i + 1 < S.length && isTrail(S.charCodeAt(i + 1))) {
              out += ch + S.charAt(++i);
              continue;
            }
            if (out === "" && ((c >= 0x30 && c <= 0x39) || (c >= 0x41 && c <= 0x5A) || (c >= 0x61 && c <= 0x7A))) {
              out += "\\x" + hex(c, 2);
            } else if (syntaxChars.indexOf(ch) >= 0) {
              out += "\\" + ch;
            } else if (controlEscapes[c] !== undefined) {
              out += "\\" + controlEscapes[c];
            } else if (otherPunctuators.indexOf(ch) >= 0 || isSpaceOrLine(c) || isLead(c) || isTrail(c)) {
              out += c <= 0xFF ? "\\x" + hex(c, 2) : "\\u" + hex(c, 4);
            } else {
              out += ch;
            }
          }
          return out;
        }
      }.escape);
    },
    regExpLower: installRegExpLower
  };

  // The v flag's set operations and regexp modifiers, which QuickJS-ng
  // 0.12 refuses: Go's regexlower rewrites such a pattern into one QuickJS
  // runs (hostService "regexLower"), and the object gets own, non-writable,
  // non-enumerable source, flags, unicodeSets, unicode and ignoreCase: the
  // program's. Literals are rewritten by source.lowerRegExpLiterals into
  // calls of __cmRegExp; new RegExp(p, f), RegExp(p, f) and the species
  // constructions of split and matchAll go through a Proxy of RegExp.
  function installRegExpLower() {
    var Native = RegExp;
    if (typeof g.__cmRegExp === "function") return;
    var modifier = new Native("\\(\\?[ims-]"), FLAGS = "dgimsuvy", SymMatch = Symbol.match;
    function lower(p, f) {
      var r = hostService("regexLower", jsonStringify([p, f]));
      if (typeof r !== "string") throw new TypeErrorCtor("RegExp: not available after the program ended");
      if (r.charCodeAt(0) === 61) return jsonParse(r.slice(1));
      var nl = r.indexOf("\n");
      // valid but beyond the rewriting: null, and the native constructor
      // decides (QuickJS has the properties of strings)
      if (r.slice(1, nl) === "Unsupported") return null;
      throw new SyntaxError(r.slice(nl + 1));
    }
    function own(re, k, v) { defineProperty(re, k, { value: v, writable: false, enumerable: false, configurable: true }); }
    function make(p, f, src, flags, nt) {
      var re = ReflectConstruct(Native, [p, f], nt), canon = "";
      for (var i = 0; i < FLAGS.length; i++) if (flags.indexOf(FLAGS[i]) >= 0) canon += FLAGS[i];
      own(re, "source", escapeSource(src));
      own(re, "flags", canon);
      own(re, "unicodeSets", flags.indexOf("v") >= 0);
      own(re, "unicode", flags.indexOf("u") >= 0);
      own(re, "ignoreCase", flags.indexOf("i") >= 0);
      if (p.indexOf("(?<" + DUP) >= 0) defineProperty(re, "exec", { value: dupExec, writable: true, enumerable: false, configurable: true });
      return re;
    }
    // A repeated group name runs under internal names (regexlower's
    // RenameDuplicateGroups: DUP + k + "_" + name); the own exec of such
    // an object, which test, replace, match, matchAll and split call (the
    // spec's RegExpExec), gives groups and indices.groups the program's
    // names, each with the capture of the group that participated.
    var DUP = "cmdup", dupName = new Native("^cmdup[0-9]+_"), nativeExec = Native.prototype.exec;
    function programGroups(gr) {
      if (gr === undefined) return gr;
      var out = { __proto__: null }, ks = keysOf(gr);
      for (var i = 0; i < ks.length; i++) {
        var k = ks[i], v = gr[k], m = ReflectApply(nativeExec, dupName, [k]);
        if (m !== null) k = k.slice(m[0].length);
        if (!(k in out) || v !== undefined) out[k] = v;
      }
      return out;
    }
    var dupExec = {
      exec(s) {
        var m = ReflectApply(nativeExec, this, [s]);
        if (m !== null) {
          m.groups = programGroups(m.groups);
          if (m.indices !== undefined) m.indices.groups = programGroups(m.indices.groups);
        }
        return m;
      }
    }.exec;
    hide(dupExec);
    // escapeSource is EscapeRegExpPattern as V8 writes it: "/" outside a
    // class and line terminators escaped, "(?:)" for the empty pattern.
    function escapeSource(src) {
      if (src === "") return "(?:)";
      var out = "", inClass = false;
      for (var i = 0; i < src.length; i++) {
        var ch = src.charAt(i);
        if (ch === "\\" && i + 1 < src.length) {
          var nx = src.charAt(i + 1);
          if (nx === "\n") out += "\\n"; else if (nx === "\r") out += "\\r";
          else if (nx === "\u2028") out += "\\u2028"; else if (nx === "\u2029") out += "\\u2029";
          else out += ch + nx;
          i++;
          continue;
        }
        if (ch === "[") inClass = true;
        else if (ch === "]") inClass = false;
        if (ch === "/" && !inClass) out += "\\/";
        else if (ch === "\n") out += "\\n";
        else if (ch === "\r") out += "\\r";
        else if (ch === "\u2028") out += "\\u2028";
        else if (ch === "\u2029") out += "\\u2029";
        else out += ch;
      }
      return out;
    }
    function isRegExp(v) {
      if (!isObject(v)) return false;
      var m = v[SymMatch];
      return m !== undefined ? !!m : tag(v) === "[object RegExp]";
    }
    // lowered answers a construction: undefined when the engine runs it
    // as it is (the native constructor then does every step itself).
    function lowered(args, nt) {
      var pattern = args[0], flags = args[1], P, F;
      if (flags !== undefined && typeof flags !== "string") return undefined;
      if (typeof pattern === "string") P = pattern;
      else if (isRegExp(pattern) && tag(pattern) === "[object RegExp]") {
        P = pattern.source;
        if (flags === undefined) flags = pattern.flags;
      } else return undefined;
      F = flags === undefined ? "" : flags;
      var named = P.indexOf("(?<");
      if (F.indexOf("v") < 0 && !ReflectApply(modifier.test, modifier, [P]) && (named < 0 || P.indexOf("(?<", named + 3) < 0)) return undefined;
      var l = lower(P, F);
      if (l === null || l[0] === P && l[1] === F) return undefined;
      return make(l[0], l[1], P, F, nt);
    }
    var Wrapped = new ProxyCtor(Native, {
      __proto__: null,
      construct: function (t, args, nt) {
        var re = lowered(args, nt);
        return re !== undefined ? re : ReflectConstruct(t, args, nt);
      },
      apply: function (t, self, args) {
        var p = args[0];
        if (args[1] === undefined && isRegExp(p) && p.constructor === Wrapped) return p;
        var re = lowered(args, Native);
        return re !== undefined ? re : ReflectApply(t, self, args);
      }
    });
    var helper = {
      __cmRegExp(p, f, src, flags) { return make(p, f, src, flags, Native); }
    }.__cmRegExp;
    hide(helper);
    hide(Wrapped);
    defineProperty(g, "__cmRegExp", { value: helper, writable: false, enumerable: false, configurable: false });
    defineProperty(g, "RegExp", { value: Wrapped, writable: true, enumerable: false, configurable: true });
    try { defineProperty(Native.prototype, "constructor", { value: Wrapped, writable: true, enumerable: false, configurable: true }); } catch (e) {}
  }

  // Uint8Array to and from base64 and hex (ES2026), from the spec's
  // FromBase64 and FromHex.
  function installBase64() {
    var U8 = Uint8Array;
    if (isCallable(U8.fromBase64)) return;
    var TA = getProto(U8.prototype), taLen = getOwn(TA, "length").get, taBuffer = getOwn(TA, "buffer").get;
    var B64 = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    var B64URL = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_";
    function syntax(m) { return new SyntaxError(m); }
    // u8 is ValidateUint8Array (and the detached check): its length.
    function u8(O) {
      var t = tag(O);
      if (t !== "[object Uint8Array]") throw new TypeErrorCtor("not a Uint8Array");
      var buf = ReflectApply(taBuffer, O, []);
      if (buf.detached === true) throw new TypeErrorCtor("the Uint8Array's buffer is detached");
      return ReflectApply(taLen, O, []);
    }
    function optionsObject(o) {
      if (o === undefined) return undefined;
      if (!isObject(o)) throw new TypeErrorCtor("options must be an object");
      return o;
    }
    function alphabetOf(opts) {
      var a = opts === undefined ? undefined : opts.alphabet;
      if (a === undefined) return "base64";
      if (a !== "base64" && a !== "base64url") throw new TypeErrorCtor("alphabet must be \"base64\" or \"base64url\"");
      return a;
    }
    function lastChunkOf(opts) {
      var l = opts === undefined ? undefined : opts.lastChunkHandling;
      if (l === undefined) return "loose";
      if (l !== "loose" && l !== "strict" && l !== "stop-before-partial") throw new TypeErrorCtor("lastChunkHandling must be \"loose\", \"strict\" or \"stop-before-partial\"");
      return l;
    }
    function skipSpace(s, i) {
      for (var c; i < s.length && ((c = s.charCodeAt(i)) === 9 || c === 10 || c === 12 || c === 13 || c === 32); i++);
      return i;
    }
    function decodeChunk(chunk, strictBits, bytes) {
      var n = chunk.length;
      while (chunk.length < 4) chunk += "A";
      var v = (B64.indexOf(chunk[0]) << 18) | (B64.indexOf(chunk[1]) << 12) | (B64.indexOf(chunk[2]) << 6) | B64.indexOf(chunk[3]);
      var b = [(v >> 16) & 255, (v >> 8) & 255, v & 255];
      if (n === 2) {
        if (strictBits && b[1] !== 0) return false;
        bytes[bytes.length] = b[0];
      } else if (n === 3) {
        if (strictBits && b[2] !== 0) return false;
        bytes[bytes.length] = b[0];
        bytes[bytes.length] = b[1];
      } else {
        bytes[bytes.length] = b[0];
        bytes[bytes.length] = b[1];
        bytes[bytes.length] = b[2];
      }
      return true;
    }
    // fromBase64 is FromBase64: {read, bytes, error}.
    function fromBase64(s, alphabet, last, maxLength) {
      var read = 0, bytes = snapshot(), chunk = "", index = 0, len = s.length, c;
      if (maxLength === 0) return { read: 0, bytes: bytes, error: null };
      for (;;) {
        index = skipSpace(s, index);
        if (index === len) {
          if (chunk.length > 0) {
            if (last === "stop-before-partial") return { read: read, bytes: bytes, error: null };
            if (last === "loose") {
              if (chunk.length === 1) return { read: read, bytes: bytes, error: syntax("base64: a lone character at the end") };
              decodeChunk(chunk, false, bytes);
            } else return { read: read, bytes: bytes, error: syntax("base64: the last chunk is incomplete") };
          }
          return { read: len, bytes: bytes, error: null };
        }
        c = s[index++];
        if (c === "=") {
          if (chunk.length < 2) return { read: read, bytes: bytes, error: syntax("base64: misplaced padding") };
          index = skipSpace(s, index);
          if (chunk.length === 2) {
            if (index === len) {
              if (last === "stop-before-partial") return { read: read, bytes: bytes, error: null };
              return { read: read, bytes: bytes, error: syntax("base64: incomplete padding") };
            }
            if (s[index] === "=") index = skipSpace(s, index + 1);
          }
          if (index < len) return { read: read, bytes: bytes, error: syntax("base64: characters after padding") };
          if (!decodeChunk(chunk, last === "strict", bytes)) return { read: read, bytes: bytes, error: syntax("base64: non-zero padding bits") };
          return { read: len, bytes: bytes, error: null };
        }
        if (alphabet === "base64url") {
          if (c === "+" || c === "/") return { read: read, bytes: bytes, error: syntax("base64url: '" + c + "' is not in the alphabet") };
          if (c === "-") c = "+";
          else if (c === "_") c = "/";
        }
        if (c.length !== 1 || B64.indexOf(c) < 0) return { read: read, bytes: bytes, error: syntax("base64: invalid character") };
        var remaining = maxLength - bytes.length;
        if ((remaining === 1 && chunk.length === 2) || (remaining === 2 && chunk.length === 3)) return { read: read, bytes: bytes, error: null };
        chunk += c;
        if (chunk.length === 4) {
          decodeChunk(chunk, false, bytes);
          chunk = "";
          read = index;
          if (bytes.length === maxLength) return { read: read, bytes: bytes, error: null };
        }
      }
    }
    function hexVal(c) {
      return c >= 48 && c <= 57 ? c - 48 : c >= 97 && c <= 102 ? c - 87 : c >= 65 && c <= 70 ? c - 55 : -1;
    }
    function fromHex(s, maxLength) {
      var len = s.length, bytes = snapshot(), read = 0;
      if (len % 2 !== 0) return { read: 0, bytes: bytes, error: syntax("hex: an odd number of digits") };
      while (read < len && bytes.length < maxLength) {
        var hi = hexVal(s.charCodeAt(read)), lo = hexVal(s.charCodeAt(read + 1));
        if (hi < 0 || lo < 0) return { read: read, bytes: bytes, error: syntax("hex: invalid digit") };
        read += 2;
        bytes[bytes.length] = hi * 16 + lo;
      }
      return { read: read, bytes: bytes, error: null };
    }
    function needString(s, what) {
      if (typeof s !== "string") throw new TypeErrorCtor(what + ": the argument must be a string");
    }
    function write(into, bytes) {
      for (var i = 0; i < bytes.length; i++) into[i] = bytes[i];
    }
    install(U8, {
      fromBase64(string) {
        needString(string, "Uint8Array.fromBase64");
        var opts = optionsObject(arguments[1]), alphabet = alphabetOf(opts), last = lastChunkOf(opts);
        var r = fromBase64(string, alphabet, last, MAX_SAFE);
        if (r.error) throw r.error;
        return new U8(r.bytes);
      }
    }.fromBase64);
    install(U8, {
      fromHex(string) {
        needString(string, "Uint8Array.fromHex");
        var r = fromHex(string, MAX_SAFE);
        if (r.error) throw r.error;
        return new U8(r.bytes);
      }
    }.fromHex);
    var P = U8.prototype;
    install(P, {
      toBase64() {
        var n = u8(this), opts = optionsObject(arguments[0]), alphabet = alphabetOf(opts);
        var omit = opts === undefined ? false : !!opts.omitPadding;
        n = u8(this);
        var A = alphabet === "base64url" ? B64URL : B64, out = "";
        for (var i = 0; i < n; i += 3) {
          var b0 = this[i], b1 = i + 1 < n ? this[i + 1] : 0, b2 = i + 2 < n ? this[i + 2] : 0;
          var v = (b0 << 16) | (b1 << 8) | b2;
          out += A[(v >> 18) & 63] + A[(v >> 12) & 63];
          out += i + 1 < n ? A[(v >> 6) & 63] : omit ? "" : "=";
          out += i + 2 < n ? A[v & 63] : omit ? "" : "=";
        }
        return out;
      }
    }.toBase64);
    install(P, {
      toHex() {
        var n = u8(this), out = "";
        for (var i = 0; i < n; i++) out += (this[i] < 16 ? "0" : "") + this[i].toString(16);
        return out;
      }
    }.toHex);
    install(P, {
      setFromBase64(string) {
        u8(this);
        needString(string, "Uint8Array.prototype.setFromBase64");
        var opts = optionsObject(arguments[1]), alphabet = alphabetOf(opts), last = lastChunkOf(opts);
        var n = u8(this), r = fromBase64(string, alphabet, last, n);
        write(this, r.bytes);
        if (r.error) throw r.error;
        return { read: r.read, written: r.bytes.length };
      }
    }.setFromBase64);
    install(P, {
      setFromHex(string) {
        u8(this);
        needString(string, "Uint8Array.prototype.setFromHex");
        var n = u8(this), r = fromHex(string, n);
        write(this, r.bytes);
        if (r.error) throw r.error;
        return { read: r.read, written: r.bytes.length };
      }
    }.setFromHex);
  }

  // Math.sumPrecise (ES2026): the exact sum, rounded once. Shewchuk's
  // partials (as Python's fsum), with the sum's overflow past 2^1024
  // counted apart, after the proposal's reference implementation.
  function installSumPrecise() {
    if (isCallable(Math.sumPrecise)) return;
    var abs = Math.abs, P1023 = Math.pow(2, 1023);
    var MAX_DOUBLE = 1.79769313486231570815e+308, MAX_ULP = MAX_DOUBLE - 1.79769313486231550856e+308;
    var hi = 0, lo = 0;
    function twoSum(x, y) { hi = x + y; lo = y - (hi - x); }
    function sum(values) {
      var partials = snapshot(), overflow = 0, nonFinite = 0, i, x, y, t;
      for (i = 0; i < values.length; i++) {
        x = values[i];
        if (nonFinite !== 0 || x !== x || x === Infinity || x === -Infinity) {
          if (x !== x || (x === Infinity && nonFinite === -Infinity) || (x === -Infinity && nonFinite === Infinity) || nonFinite !== nonFinite) nonFinite = NaN;
          else if (x === Infinity || x === -Infinity) nonFinite = x;
          continue;
        }
        var used = 0;
        for (var j = 0; j < partials.length; j++) {
          y = partials[j];
          if (abs(x) < abs(y)) { t = x; x = y; y = t; }
          twoSum(x, y);
          if (abs(hi) === Infinity) {
            var sign = hi === Infinity ? 1 : -1;
            overflow += sign;
            x = (x - sign * P1023) - sign * P1023;
            if (abs(x) < abs(y)) { t = x; x = y; y = t; }
            twoSum(x, y);
          }
          if (lo !== 0) partials[used++] = lo;
          x = hi;
        }
        partials.length = used;
        if (x !== 0) partials[partials.length] = x;
      }
      if (nonFinite !== 0) return nonFinite;
      var n = partials.length - 1;
      hi = 0; lo = 0;
      if (overflow !== 0) {
        var next = n >= 0 ? partials[n] : 0;
        n--;
        if (abs(overflow) > 1 || (overflow > 0 && next > 0) || (overflow < 0 && next < 0)) return overflow > 0 ? Infinity : -Infinity;
        twoSum(overflow * P1023, next / 2);
        lo *= 2;
        if (abs(2 * hi) === Infinity) {
          if (hi > 0) return hi === P1023 && lo === -(MAX_ULP / 2) && n >= 0 && partials[n] < 0 ? MAX_DOUBLE : Infinity;
          return hi === -P1023 && lo === MAX_ULP / 2 && n >= 0 && partials[n] > 0 ? -MAX_DOUBLE : -Infinity;
        }
        if (lo !== 0) { partials[++n] = lo; lo = 0; }
        hi *= 2;
      }
      while (n >= 0) {
        x = hi; y = partials[n--];
        twoSum(x, y);
        if (lo !== 0) break;
      }
      if (n >= 0 && ((lo < 0 && partials[n] < 0) || (lo > 0 && partials[n] > 0))) {
        y = lo * 2; x = hi + y;
        if (y === x - hi) hi = x;
      }
      return hi;
    }
    install(Math, {
      sumPrecise(items) {
        if (items === null || items === undefined) throw new TypeErrorCtor("Math.sumPrecise: items is null or undefined");
        var it = getIterator(items), next = it.next, values = snapshot(), minusZero = true;
        for (;;) {
          var r = ReflectApply(next, it, []);
          if (!isObject(r)) throw new TypeErrorCtor("the iterator result is not an object");
          if (r.done) break;
          var v = r.value;
          if (typeof v !== "number") {
            closeIterator(it);
            throw new TypeErrorCtor("Math.sumPrecise: every value must be a number");
          }
          if (!(v === 0 && 1 / v < 0)) minusZero = false;
          values[values.length] = v;
        }
        return minusZero ? -0 : sum(values);
      }
    }.sumPrecise);
  }

  // WeakRef and FinalizationRegistry (ES2021). The spec lets an engine
  // keep a target alive as long as it likes and never call a cleanup
  // callback: this one holds targets for good (a WeakRef derefs to its
  // target) and never cleans up, so both are conformant and deterministic.
  function installWeakRef() {
    var WeakMapC = WeakMap, wmGet = WeakMap.prototype.get, wmSet = WeakMap.prototype.set, wmHas = WeakMap.prototype.has;
    var MapC = Map, mGet = Map.prototype.get, mSet = Map.prototype.set, mDelete = Map.prototype["delete"];
    var keyFor = Symbol.keyFor, tagSym = Symbol.toStringTag;
    function heldWeakly(v) {
      return isObject(v) || (typeof v === "symbol" && ReflectApply(keyFor, Symbol, [v]) === undefined);
    }
    function ctor(C, name) {
      defineProperty(C.prototype, tagSym, { value: name, writable: false, enumerable: false, configurable: true });
      defineProperty(C, "prototype", { writable: false });
      defineGlobal(name, C);
    }
    if (typeof g.WeakRef !== "function") {
      var targets = new WeakMapC();
      var WeakRef = function WeakRef(target) {
        if (new.target === undefined) throw new TypeErrorCtor("Constructor WeakRef requires 'new'");
        if (!heldWeakly(target)) throw new TypeErrorCtor("WeakRef: the target must be an object or a non-registered symbol");
        // A newTarget whose prototype is not an object: the realm's
        // %WeakRef.prototype% (GetPrototypeFromConstructor), not Object's.
        if (!isObject(new.target.prototype)) setProto(this, WeakRef.prototype);
        ReflectApply(wmSet, targets, [this, target]);
      };
      install(WeakRef.prototype, {
        deref() {
          if (!isObject(this) || !ReflectApply(wmHas, targets, [this])) throw new TypeErrorCtor("WeakRef.prototype.deref called on an incompatible receiver");
          return ReflectApply(wmGet, targets, [this]);
        }
      }.deref);
      ctor(WeakRef, "WeakRef");
    }
    if (typeof g.FinalizationRegistry !== "function") {
      var registries = new WeakMapC(); // registry → { objects: WeakMap, symbols: Map } of token → cells
      var FinalizationRegistry = function FinalizationRegistry(cleanupCallback) {
        if (new.target === undefined) throw new TypeErrorCtor("Constructor FinalizationRegistry requires 'new'");
        if (!isCallable(cleanupCallback)) throw new TypeErrorCtor("FinalizationRegistry: the cleanup callback must be a function");
        if (!isObject(new.target.prototype)) setProto(this, FinalizationRegistry.prototype);
        ReflectApply(wmSet, registries, [this, { objects: new WeakMapC(), symbols: new MapC() }]);
      };
      var cellsOf = function (self, name) {
        var r = isObject(self) ? ReflectApply(wmGet, registries, [self]) : undefined;
        if (r === undefined) throw new TypeErrorCtor("FinalizationRegistry.prototype." + name + " called on an incompatible receiver");
        return r;
      };
      install(FinalizationRegistry.prototype, {
        register(target, heldValue) {
          var r = cellsOf(this, "register"), token = arguments[2];
          if (!heldWeakly(target)) throw new TypeErrorCtor("FinalizationRegistry.prototype.register: invalid target");
          if (target === heldValue) throw new TypeErrorCtor("FinalizationRegistry.prototype.register: the target and the held value are the same");
          if (token !== undefined) {
            if (!heldWeakly(token)) throw new TypeErrorCtor("FinalizationRegistry.prototype.register: invalid unregister token");
            if (isObject(token)) ReflectApply(wmSet, r.objects, [token, (ReflectApply(wmGet, r.objects, [token]) || 0) + 1]);
            else ReflectApply(mSet, r.symbols, [token, (ReflectApply(mGet, r.symbols, [token]) || 0) + 1]);
          }
          return undefined;
        }
      }.register);
      install(FinalizationRegistry.prototype, {
        unregister(unregisterToken) {
          var r = cellsOf(this, "unregister");
          if (!heldWeakly(unregisterToken)) throw new TypeErrorCtor("FinalizationRegistry.prototype.unregister: invalid unregister token");
          if (isObject(unregisterToken)) {
            var n = ReflectApply(wmGet, r.objects, [unregisterToken]);
            ReflectApply(wmSet, r.objects, [unregisterToken, 0]);
            return n > 0;
          }
          var m = ReflectApply(mGet, r.symbols, [unregisterToken]);
          ReflectApply(mDelete, r.symbols, [unregisterToken]);
          return m > 0;
        }
      }.unregister);
      ctor(FinalizationRegistry, "FinalizationRegistry");
    }
  }

  // Iterator helpers (ES2025): the Iterator global, Iterator.from, and the
  // methods of %IteratorPrototype%. A helper is a generator whose prototype
  // is %IteratorHelperPrototype%: the generator gives the spec's states
  // (running, completed) and IteratorClose on return().
  function installIterator() {
    if (typeof g.Iterator === "function") return;
    var IterProto = getProto(getProto(ReflectApply(ArrayProto[SymIter], [], [])));
    var genProto = getProto(function* () {}.prototype);
    var genNext = genProto.next, genReturn = genProto["return"];
    var WeakMapC = WeakMap, wmGet = WeakMap.prototype.get, wmSet = WeakMap.prototype.set;
    var helpers = new WeakMapC(); // helper → { it, started }
    var tagSym = Symbol.toStringTag;
    function closeNormal(it) {
      var ret = it["return"];
      if (ret === undefined || ret === null) return;
      var r = ReflectApply(ret, it, []);
      if (!isObject(r)) throw new TypeErrorCtor("the iterator's return() result is not an object");
    }
    function direct(O, name) {
      if (!isObject(O)) throw new TypeErrorCtor("Iterator.prototype." + name + " called on a non-object");
      return O;
    }
    function needCallable(O, f, name) {
      if (!isCallable(f)) {
        closeIterator(O);
        throw new TypeErrorCtor("Iterator.prototype." + name + ": the argument is not a function");
      }
    }
    function limitOf(O, limit, name) {
      var n;
      try { n = +limit; } catch (e) { closeIterator(O); throw e; } // ToNumber's error closes it too
      if (n !== n) { closeIterator(O); throw new RangeErrorCtor("Iterator.prototype." + name + ": the limit is NaN"); }
      n = toInt(n);
      if (n < 0) { closeIterator(O); throw new RangeErrorCtor("Iterator.prototype." + name + ": the limit is negative"); }
      return n;
    }
    function step(it, next) {
      var r = ReflectApply(next, it, []);
      if (!isObject(r)) throw new TypeErrorCtor("the iterator result is not an object");
      return r;
    }
    var HelperProto = {
      __proto__: IterProto,
      next() {
        var st = ReflectApply(wmGet, helpers, [this]);
        if (st === undefined) throw new TypeErrorCtor("not an Iterator Helper");
        st.started = true;
        return ReflectApply(genNext, this, []);
      },
      return() {
        var st = ReflectApply(wmGet, helpers, [this]);
        if (st === undefined) throw new TypeErrorCtor("not an Iterator Helper");
        if (!st.started) {
          st.started = true;
          ReflectApply(genReturn, this, []);
          closeNormal(st.it);
          return { value: undefined, done: true };
        }
        return ReflectApply(genReturn, this, []);
      }
    };
    defineProperty(HelperProto, "next", { value: hide(HelperProto.next), enumerable: false });
    defineProperty(HelperProto, "return", { value: hide(HelperProto["return"]), enumerable: false });
    defineProperty(HelperProto, tagSym, { value: "Iterator Helper", writable: false, enumerable: false, configurable: true });
    function helper(gen, it) {
      setProto(gen, HelperProto);
      ReflectApply(wmSet, helpers, [gen, { it: it, started: false }]);
      return gen;
    }
    // yielded hands v out; when the helper is closed there, the underlying
    // iterator is closed too.
    function* mapGen(it, next, f) {
      for (var k = 0; ; k++) {
        var r = step(it, next);
        if (r.done) return;
        var v;
        try { v = ReflectApply(f, undefined, [r.value, k]); } catch (e) { closeIterator(it); throw e; }
        var ok = false;
        try { yield v; ok = true; } finally { if (!ok) closeNormal(it); }
      }
    }
    function* filterGen(it, next, f) {
      for (var k = 0; ; k++) {
        var r = step(it, next);
        if (r.done) return;
        var v = r.value, keep;
        try { keep = ReflectApply(f, undefined, [v, k]); } catch (e) { closeIterator(it); throw e; }
        if (!keep) continue;
        var ok = false;
        try { yield v; ok = true; } finally { if (!ok) closeNormal(it); }
      }
    }
    function* takeGen(it, next, n) {
      for (var left = n; ; left--) {
        if (left === 0) { closeNormal(it); return; }
        var r = step(it, next);
        if (r.done) return;
        var ok = false, v = r.value; // IteratorStepValue: a throwing value getter does not close
        try { yield v; ok = true; } finally { if (!ok) closeNormal(it); }
      }
    }
    function* dropGen(it, next, n) {
      for (var left = n; left > 0; left--) {
        if (step(it, next).done) return;
      }
      for (;;) {
        var r = step(it, next);
        if (r.done) return;
        var ok = false, v = r.value; // IteratorStepValue: a throwing value getter does not close
        try { yield v; ok = true; } finally { if (!ok) closeNormal(it); }
      }
    }
    function flattenable(v) {
      if (!isObject(v)) throw new TypeErrorCtor("flatMap: the mapper returned a non-object");
      var m = v[SymIter], inner = v;
      if (m !== undefined && m !== null) inner = ReflectApply(m, v, []);
      if (!isObject(inner)) throw new TypeErrorCtor("flatMap: not an iterator");
      return inner;
    }
    function* flatMapGen(it, next, f) {
      for (var k = 0; ; k++) {
        var r = step(it, next);
        if (r.done) return;
        var inner;
        try { inner = flattenable(ReflectApply(f, undefined, [r.value, k])); } catch (e) { closeIterator(it); throw e; }
        var innerNext = inner.next;
        for (;;) {
          var ir;
          try { ir = step(inner, innerNext); } catch (e) { closeIterator(it); throw e; }
          if (ir.done) break;
          var ok = false;
          try { yield ir.value; ok = true; } finally {
            if (!ok) {
              try { closeNormal(inner); } catch (e) { closeIterator(it); throw e; }
              closeNormal(it);
            }
          }
        }
      }
    }
    var methods = {
      map(mapper) { var O = direct(this, "map"); needCallable(O, mapper, "map"); return helper(mapGen(O, O.next, mapper), O); },
      filter(predicate) { var O = direct(this, "filter"); needCallable(O, predicate, "filter"); return helper(filterGen(O, O.next, predicate), O); },
      take(limit) { var O = direct(this, "take"); var n = limitOf(O, limit, "take"); return helper(takeGen(O, O.next, n), O); },
      drop(limit) { var O = direct(this, "drop"); var n = limitOf(O, limit, "drop"); return helper(dropGen(O, O.next, n), O); },
      flatMap(mapper) { var O = direct(this, "flatMap"); needCallable(O, mapper, "flatMap"); return helper(flatMapGen(O, O.next, mapper), O); },
      reduce(reducer) {
        var O = direct(this, "reduce");
        needCallable(O, reducer, "reduce");
        var next = O.next, acc, k = 0, r;
        if (arguments.length < 2) {
          r = step(O, next);
          if (r.done) throw new TypeErrorCtor("Iterator.prototype.reduce of an empty iterator with no initial value");
          acc = r.value;
          k = 1;
        } else acc = arguments[1];
        for (; ; k++) {
          r = step(O, next);
          if (r.done) return acc;
          try { acc = ReflectApply(reducer, undefined, [acc, r.value, k]); } catch (e) { closeIterator(O); throw e; }
        }
      },
      toArray() {
        var O = direct(this, "toArray"), next = O.next, out = [];
        for (;;) {
          var r = step(O, next);
          if (r.done) return out;
          createData(out, out.length, r.value);
        }
      },
      forEach(fn) {
        var O = direct(this, "forEach");
        needCallable(O, fn, "forEach");
        for (var next = O.next, k = 0; ; k++) {
          var r = step(O, next);
          if (r.done) return undefined;
          try { ReflectApply(fn, undefined, [r.value, k]); } catch (e) { closeIterator(O); throw e; }
        }
      },
      some(predicate) { return findLike(this, predicate, "some", 0); },
      every(predicate) { return findLike(this, predicate, "every", 1); },
      find(predicate) { return findLike(this, predicate, "find", 2); }
    };
    function findLike(self, predicate, name, kind) {
      var O = direct(self, name);
      needCallable(O, predicate, name);
      for (var next = O.next, k = 0; ; k++) {
        var r = step(O, next);
        if (r.done) return kind === 0 ? false : kind === 1 ? true : undefined;
        var v = r.value, t;
        try { t = ReflectApply(predicate, undefined, [v, k]); } catch (e) { closeIterator(O); throw e; }
        if (kind === 0 && t) { closeNormal(O); return true; }
        if (kind === 1 && !t) { closeNormal(O); return false; }
        if (kind === 2 && t) { closeNormal(O); return v; }
      }
    }
    keysOf(methods).forEach(function (k) { install(IterProto, methods[k]); });

    function Iterator() {
      if (new.target === undefined || new.target === Iterator) throw new TypeErrorCtor("Iterator is an abstract class: construct a subclass");
    }
    defineProperty(Iterator, "prototype", { value: IterProto, writable: false, enumerable: false, configurable: false });
    // constructor and @@toStringTag are accessors whose setters ignore the
    // prototype itself (SetterThatIgnoresPrototypeProperties).
    function ignoringSetter(key) {
      return function (v) {
        if (!isObject(this)) throw new TypeErrorCtor("not an object");
        if (this === IterProto) throw new TypeErrorCtor("cannot set Iterator.prototype's own " + String(key));
        if (getOwn(this, key) === undefined) createData(this, key, v);
        else this[key] = v;
      };
    }
    // The accessors are built-ins too (hidden: their source is not shown).
    defineProperty(IterProto, "constructor", { get: hide(function () { return Iterator; }), set: hide(ignoringSetter("constructor")), enumerable: false, configurable: true });
    defineProperty(IterProto, tagSym, { get: hide(function () { return "Iterator"; }), set: hide(ignoringSetter(tagSym)), enumerable: false, configurable: true });

    var WrapProto = {
      __proto__: IterProto,
      next() { var w = this; return ReflectApply(w.n, w.i, []); },
      return() {
        var it = this.i, ret = it["return"];
        if (ret === undefined || ret === null) return { value: undefined, done: true };
        return ReflectApply(ret, it, []);
      }
    };
    hide(WrapProto.next);
    hide(WrapProto["return"]);
    install(Iterator, {
      from(O) {
        // GetIteratorFlattenable: a string primitive is the receiver of
        // its @@iterator lookup (GetV) and of the call.
        if (typeof O !== "string" && !isObject(O)) throw new TypeErrorCtor("Iterator.from: not an object or string");
        var m = typeof O === "string" ? ReflectGet(ObjectCtor(O), SymIter, O) : O[SymIter];
        var it = m === undefined || m === null ? O : ReflectApply(m, O, []);
        if (!isObject(it)) throw new TypeErrorCtor("Iterator.from: not an iterator");
        var proto = it;
        while ((proto = getProto(proto)) !== null) if (proto === IterProto) return it;
        var w = { __proto__: WrapProto };
        defineProperty(w, "i", { value: it });
        defineProperty(w, "n", { value: it.next });
        return w;
      }
    }.from);
    defineGlobal("Iterator", Iterator);
  }
  return esFeatures;
}
} // polyfill
