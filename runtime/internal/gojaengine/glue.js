// glue.js (goja): the natives are Go functions, passed as
// native = [undefined (emit: console's methods are Go functions), reserve(what, bytes, buffer),
// refusal(name) → the run's refusal past its limit, call(name, json) → promise,
// tools() → the run's tool names, makeTools(makeTraps) → the global tools,
// service(op, arg) → the web and Intl host functions' answer,
// hostLazy(names, build) → whether the runtime builds the globals lazily,
// console(format) → console's methods, hide(f) → f's source hidden,
// isArrayValues(method) → plainArrayIteration below,
// hostLazyArray(names, build) → whether the runtime makes those methods on first touch,
// isProxy(v) → whether v is a Proxy, intrinsic(name) → the realm's built-in], and
// goja's own size checks: goja has no per-runtime memory cap, and an
// allocation the Go runtime cannot satisfy kills the whole process, so
// every built-in that can allocate by a size the program sets is checked
// first: natively, inside the built-in (repeat, padStart, padEnd, concat,
// join, Array.from, ArrayBuffer and the typed-array constructors: the
// goja patch sizecheck.go calls vm.reserve, and refuse below throws), or
// here (see also sizes.js). Iteration the program controls runs here,
// in JavaScript, where a deadline or a memory kill can interrupt it; goja
// iterating natively (an array iterator over a sparse array, say) cannot
// be interrupted.
var hostLog = native[0], reserve = native[1], hostRefusal = native[2], hostCall = native[3], hostTools = native[4];
// The natives only lazily made code calls (the timers', the web globals',
// console's builder, typedSource's collect) are read when common.js's
// lateLoad first runs: goja makes each native when it is first read
// (vm.go's nativeTable), and most runs call none of them.
var hostTimer, hostClearTimer, hostService, consoleNative, plainArrayIteration;
function glueLate() {
  hostTimer = native[6], hostClearTimer = native[7]; // timers.js
  hostService = native[8]; // web.js, intl.js
  // console.log, info, warn, error and debug are Go functions
  // (vm.console), which call format only for what is not plain strings.
  consoleNative = native[10];
  plainArrayIteration = native[12];
}
// hostLazy, hostLazyArray, hostIntrinsic, hostIsProxy, makeTools,
// hostHide and nativeSizeChecks are natives too, assigned in head.js,
// which runs before the shared modules look for them.
// webScript(names): build the web globals a script names before it runs
// (engine.WebGlobals; see web.js): a goja realm is built per call, and
// pays for every object the prelude makes.
// refuse(msg) throws a native size check's refusal (vm.sizeCheck);
// typedSource(a, bytesPer, what) is what a typed-array constructor reads
// given an iterable or array-like a (vm.typedSource).
// (webInstall and refuseSize themselves, not functions that forward to
// them: each function costs every runtime ~400 bytes.)
var glueEntries = [webInstall, refuseSize, typedSource];

// typedSource is the typed-array constructors' step for an iterable or an
// array-like a (neither a buffer nor a typed array: the built-in takes
// those as they are): it iterates in JavaScript, where a deadline or a
// memory kill reaches, with the budget checked before, and returns a
// snapshot the built-in copies (the built-in checks the buffer's size).
// goja calls it from inside the constructor (sizecheck.go).
// collect and iteratorOf are made with the first typed array made from an
// iterable or array-like (each function costs every runtime ~400 bytes).
// plainArrayIteration(method): method is the built-in
// Array.prototype.values or its guard below, and
// %ArrayIteratorPrototype%.next is the built-in's own (goja answers,
// without building the array iterator's prototypes: vm.go).
var collect = null, iteratorOf = null;
function typedSource(a, per, what) {
  if (collect === null) {
    lateLoad();
    // collect runs the iteration protocol in JavaScript (see above) and
    // returns the values, mapped if mapFn is given, as a snapshot.
    collect = function (items, method, mapFn, T) {
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
    };
    iteratorOf = function (items) {
      var method = items[SymIter];
      if (method === undefined || method === null) return undefined;
      if (typeof method !== "function") throw new TypeErrorCtor("Symbol.iterator is not a function");
      return method;
    };
  }
  var method = iteratorOf(a), vals;
  if (method !== undefined) {
    if (isArray(a)) tooBig(what, toLen(a.length) * per);
    vals = collect(a, method);
  } else {
    var n = toLen(a.length);
    tooBig(what, n * per);
    vals = snapshot();
    for (var k = 0; k < n; k++) vals[k] = a[k];
  }
  return vals;
}

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
// arrayGuard(name, f) is the guard goja installs as Array.prototype's
// name, in front of f (the built-in, or sizes.js's check in front of it),
// when something first touches the method (hostLazyArray: its template;
// vm.go's buildArrayMethod, which also makes the guard of values
// Symbol.iterator's and goja's fast-path alias): a runtime built per call
// makes only the guards its program reaches. Methods, not function
// declarations: built-ins are not constructors, and their parameters give
// them the spec's .length.
// The guards' helpers are made with the first guard (guardFor): each
// function costs every runtime ~400 bytes, and most programs call none of
// these methods.
var guardFor = null;
function arrayGuard(name, f) {
  if (guardFor === null) guardFor = (function () {
    lateLoad();
    var pinnedHandler = {
      __proto__: null,
      get: function (t, k, r) { return k === "length" ? this.len : ReflectGet(t, k, r); }
    };
    function pinned(O, len) {
      var h = { __proto__: pinnedHandler, len: len };
      return new ProxyCtor(O, h);
    }
    // mapLike is Array.prototype.map's steps for an array-like O of length len
    // (ArraySpeciesCreate of a non-array is ArrayCreate).
    function mapLike(O, len, fn, T) {
      if (typeof fn !== "function") throw new TypeErrorCtor("Array.prototype.map: the callback is not a function");
      var A = new ArrayCtor(len);
      for (var k = 0; k < len; k++) {
        if (k in O) defineProperty(A, k, { value: ReflectApply(fn, T, [O[k], k, O]), writable: true, enumerable: true, configurable: true });
      }
      return A;
    }
    var isProxy = hostIsProxy;
    // guarded runs f, an Array.prototype built-in, after the length check.
    // ArrayBuffer.isView, read on first use: reading ArrayBuffer builds it
    // (~60 allocations a runtime would pay for nothing).
    var abIsView = null;
    function guarded(f, name, O, args, callback) {
      if (O === null || O === undefined) return ReflectApply(f, O, args);
      // sort checks its comparator before it reads anything.
      if (f === sortF && args[0] !== undefined && typeof args[0] !== "function") return ReflectApply(f, O, args);
      var plain = callback;
      if (!plain) {
        plain = true;
        for (var i = 0; i < args.length; i++) if (isObject(args[i])) { plain = false; break; }
      }
      // sort() without a comparator costs 48 bytes a slot: goja converts
      // each element to its string once (its sort.go), and polls the
      // deadline as it sorts.
      if (plain && isGenuineArray(O)) {
        if (O.length > maxDense) {
          tooBig(name + "()", O.length * (f === sortF && args[0] === undefined ? 48 : 16));
        }
        return ReflectApply(f, O, args);
      }
      O = ObjectCtor(O);
      // An ordinary object's own data length is read by the built-in as it is
      // read here, with no program code in between when no argument needs
      // converting: the built-in gets the object itself (its callback sees it,
      // sort returns it).
      var d = plain && !isProxy(O) ? getOwn(O, "length") : undefined;
      var len = d !== undefined && "value" in d ? toLen(d.value) : toLen(O.length);
      var size = len;
      if (f === toSplicedF) {
        // What toSpliced allocates: the new length (over 2^53 - 1 a TypeError
        // is the built-in's).
        var start = relIdx(toInt(args[0]), len), skip = args.length === 0 ? 0 : args.length === 1 ? len - start : toInt(args[1]);
        skip = skip < 0 ? 0 : skip > len - start ? len - start : skip;
        size = len - skip + (args.length > 2 ? args.length - 2 : 0);
        if (size > MAX_LENGTH) throw new TypeErrorCtor("Invalid array length");
        var conv = snapshot();
        for (var i = 0; i < args.length; i++) conv[i] = i === 0 ? start : i === 1 ? skip : args[i];
        args = conv;
      }
      if (size > maxDense) {
        tooBig(name + "()", size * (f === sortF && args[0] === undefined ? 48 : 16));
      }
      if (d !== undefined && "value" in d) return ReflectApply(f, O, args);
      // A typed array's keys, values and entries (past the size check above)
      // go to the built-in as they are: its iterator reads the array's current
      // length at every step (a resizable buffer may grow or shrink under
      // it), which a pinned proxy would hide. (Were ArrayBuffer replaced
      // before the first use, an object it calls a view gets what an object
      // with a data length gets above.)
      if (f === keysF || f === valuesF || f === entriesF) {
        if (abIsView === null) abIsView = ArrayBuffer.isView;
        if (typeof abIsView === "function" && ReflectApply(abIsView, undefined, [O])) return ReflectApply(f, O, args);
      }
      // goja's map takes a proxy's get answering undefined for a hole, so an
      // array-like whose length is not plain data is mapped here.
      if (f === mapF && !isArray(O)) return mapLike(O, len, args[0], args[1]);
      var r = ReflectApply(f, pinned(O, len), args);
      return f === sortF ? O : r;
    }
    // Below this length nothing is checked: 2^16 slots are 1 MiB at most.
    var maxDense = 65536;
    // The built-ins behind the guards, set as each guard is made.
    var mapF, sortF, toReversedF, keysF, valuesF, entriesF, toSplicedF, withF;
    var indexOfF, lastIndexOfF, includesF;
    // indexOf, lastIndexOf and includes walk every index up to the length in
    // Go: on an array-like ({length: 2 ** 53 - 1}) or a sparse array longer
    // than the budget could hold densely, that walk went on for hours after
    // the run was abandoned. Such a receiver is walked here instead, in
    // JavaScript, where the deadline stops it; any other goes to the built-in.
    // (One function walks for the three: each function costs every runtime.)
    function walked(f, O, args) {
      if (O === null || O === undefined) return ReflectApply(f, O, args);
      if (isGenuineArray(O) && O.length * 16 <= memLimit && !isObject(args[1])) return ReflectApply(f, O, args);
      O = ObjectCtor(O);
      var len = toLen(O.length);
      if (len * 16 <= memLimit) return ReflectApply(f, pinned(O, len), args);
      var x = args[0], k, n;
      if (f === lastIndexOfF) {
        n = args.length > 1 ? toInt(args[1]) : len - 1;
        for (k = n >= 0 ? (n < len - 1 ? n : len - 1) : len + n; k >= 0; k--) if (k in O && O[k] === x) return k;
        return -1;
      }
      n = toInt(args[1]);
      k = n >= 0 ? n : len + n < 0 ? 0 : len + n;
      if (f === includesF) {
        for (; k < len; k++) {
          var v = O[k];
          if (v === x || (v !== v && x !== x)) return true;
        }
        return false;
      }
      for (; k < len; k++) if (k in O && O[k] === x) return k;
      return -1;
    }
    return function (name, f) {
      switch (name) {
        case "map": mapF = f; return hide({ map(callbackfn) { return guarded(mapF, "map", this, arguments, true); } }.map);
        case "sort": sortF = f; return hide({ sort(comparefn) { return guarded(sortF, "sort", this, arguments, true); } }.sort);
        case "toReversed": toReversedF = f; return hide({ toReversed() { return guarded(toReversedF, "toReversed", this, arguments, true); } }.toReversed);
        case "keys": keysF = f; return hide({ keys() { return guarded(keysF, "keys", this, arguments, true); } }.keys);
        case "values": valuesF = f; return hide({ values() { return guarded(valuesF, "values", this, arguments, true); } }.values);
        case "entries": entriesF = f; return hide({ entries() { return guarded(entriesF, "entries", this, arguments, true); } }.entries);
        case "toSpliced": toSplicedF = f; return hide({ toSpliced(start, skipCount) { return guarded(toSplicedF, "toSpliced", this, arguments, false); } }.toSpliced);
        case "with": withF = f; return hide({ with(index, value) { return guarded(withF, "with", this, arguments, false); } }.with);
        case "indexOf": indexOfF = f; return hide({ indexOf(searchElement) { return walked(indexOfF, this, arguments); } }.indexOf);
        case "lastIndexOf": lastIndexOfF = f; return hide({ lastIndexOf(searchElement) { return walked(lastIndexOfF, this, arguments); } }.lastIndexOf);
        case "includes": includesF = f; return hide({ includes(searchElement) { return walked(includesF, this, arguments); } }.includes);
      }
      return f;
    };
  })();
  return guardFor(name, f);
}
if (!hostLazyArray("map,sort,toReversed,keys,values,entries,toSpliced,with,indexOf,lastIndexOf,includes", arrayGuard)) {
  lateLoad();
  throw new TypeErrorCtor("the runtime did not take Array.prototype's guards");
}
