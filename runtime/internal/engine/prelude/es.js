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
function polyfill(names) {
  if (esFeatures === null) esFeatures = esMake();
  var list = toStr(names).split(",");
  for (var i = 0; i < list.length; i++) {
    var f = esFeatures[list[i]];
    if (f !== undefined) f();
  }
}

function esMake() {
  var MAX_SAFE = 9007199254740991;
  function isCallable(f) { return typeof f === "function"; }
  // isConstructor is IsConstructor, without reading anything of C: a proxy
  // of C has [[Construct]] only if C has, and its trap answers instead.
  var constructProbe = { __proto__: null, construct: function () { return {}; } };
  function isConstructor(C) {
    if (typeof C !== "function") return false;
    try { new (new ProxyCtor(C, constructProbe))(); return true; } catch (e) { return false; }
  }
  // createData is CreateDataPropertyOrThrow.
  function createData(O, k, v) {
    defineProperty(O, k, { value: v, writable: true, enumerable: true, configurable: true });
  }
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
      var r = ReflectApply(next, it, []);
      if (!isObject(r)) throw new TypeErrorCtor("the iterator result is not an object");
      if (r.done) return;
      var v = r.value, key;
      try {
        if (k >= MAX_SAFE) throw new TypeErrorCtor("groupBy: too many elements");
        key = ReflectApply(callback, undefined, [v, k]);
        key = property ? toPropertyKey(key) : key === 0 ? 0 : key; // -0 is +0
      } catch (e) {
        closeIterator(it);
        throw e;
      }
      add(key, v);
      k++;
    }
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
    groupBy: function () {
      var push = ArrayProto.push;
      if (!isCallable(ObjectCtor.groupBy)) {
        install(ObjectCtor, {
          groupBy(items, callback) {
            var obj = { __proto__: null };
            groupBy(items, callback, true, function (key, v) {
              var g = getOwn(obj, key);
              if (g === undefined) createData(obj, key, [v]);
              else ReflectApply(push, g.value, [v]);
            });
            return obj;
          }
        }.groupBy);
      }
      if (!isCallable(Map.groupBy)) {
        var MapC = Map, get = Map.prototype.get, set = Map.prototype.set;
        install(MapC, {
          groupBy(items, callback) {
            var map = new MapC();
            groupBy(items, callback, false, function (key, v) {
              var g = ReflectApply(get, map, [key]);
              if (g === undefined) ReflectApply(set, map, [key, [v]]);
              else ReflectApply(push, g, [v]);
            });
            return map;
          }
        }.groupBy);
      }
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
          var cap = promiseCapability(this), args = [];
          for (var i = 1; i < arguments.length; i++) args.push(arguments[i]);
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
    regExpEscape: function () {
      if (isCallable(RegExp.escape)) return;
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
    }
  };

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
      var n = +limit;
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
    defineProperty(HelperProto, "next", { enumerable: false });
    defineProperty(HelperProto, "return", { enumerable: false });
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
        var ok = false;
        try { yield r.value; ok = true; } finally { if (!ok) closeNormal(it); }
      }
    }
    function* dropGen(it, next, n) {
      for (var left = n; left > 0; left--) {
        if (step(it, next).done) return;
      }
      for (;;) {
        var r = step(it, next);
        if (r.done) return;
        var ok = false;
        try { yield r.value; ok = true; } finally { if (!ok) closeNormal(it); }
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
          out.push(r.value);
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
    defineProperty(IterProto, "constructor", { get: function () { return Iterator; }, set: ignoringSetter("constructor"), enumerable: false, configurable: true });
    defineProperty(IterProto, tagSym, { get: function () { return "Iterator"; }, set: ignoringSetter(tagSym), enumerable: false, configurable: true });

    var WrapProto = {
      __proto__: IterProto,
      next() { var w = this; return ReflectApply(w.n, w.i, []); },
      return() {
        var it = this.i, ret = it["return"];
        if (ret === undefined || ret === null) return { value: undefined, done: true };
        return ReflectApply(ret, it, []);
      }
    };
    install(Iterator, {
      from(O) {
        var it;
        if (typeof O === "string") it = ReflectApply(String.prototype[SymIter], O, []);
        else {
          if (!isObject(O)) throw new TypeErrorCtor("Iterator.from: not an object or string");
          var m = O[SymIter];
          it = m === undefined || m === null ? O : ReflectApply(m, O, []);
          if (!isObject(it)) throw new TypeErrorCtor("Iterator.from: not an iterator");
        }
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
