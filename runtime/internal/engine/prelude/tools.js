// tools.js: the global `tools`, the errors its bindings reject with, and
// the entry points through which Go starts a run and reads its outcome.
//
// Any string property of `tools` is an async function (args) => Promise,
// so tools["mcp__srv__my-tool.v2"] works and an unknown name still reaches
// the registry (which answers UNKNOWN_TOOL with suggestions). Exceptions
// keep the object sane: `then` and `toJSON` are undefined (`await tools`
// and JSON.stringify(tools) call nothing), and the names of
// Object.prototype members resolve to Object.prototype's unless they are
// real tool names. Its prototype is null, for good: `name in tools`,
// Object.hasOwn and the property descriptors answer for the run's tools
// only, and Object.keys(tools) lists them. A program can neither add,
// change nor delete a property, nor set the prototype (the same on every
// engine, and nothing carries into a persistent environment's next run).
//
// A binding first asks the glue's hostRefusal(name) whether the call is
// past the run's nested-call limit (engine.Run.Refused): if so it returns
// the run's one rejected promise (SUBCALL_LIMIT) before the arguments are
// read, so a refused call calls no toJSON or getter and is SUBCALL_LIMIT
// whatever its arguments. Otherwise it serialises its arguments and hands
// them to the glue's hostCall(name, json), which returns the call's
// promise (settled by Go later; the refusal if the serialisation made
// calls that reached the limit), or undefined when the run that made the
// binding has ended.

var toolNames = null; // the run's tool names; null: ask the glue's hostTools() each time
var toolFns = { __proto__: null }, toolFnCount = 0;
// The Errors bindings rejected with (WeakMap, made on first use), each to
// what the host said: {code, info}. A program can change err.code and
// err.info, but only the host sets a run's code: describe reads them here.
var bindingErrors = null;

// bindingError builds the Error a binding rejects with: message, code, and
// info when the failure carries details. Its stack names no frame (they
// would be the prelude's).
function bindingError(code, message, info) {
  lateLoad();
  var err = new ErrorCtor(message);
  defineProperty(err, "stack", { value: "Error: " + message, writable: true, configurable: true, enumerable: false });
  err.code = code;
  var host = { __proto__: null, code: String(code), info: undefined };
  if (info !== undefined && info !== null) {
    err.info = info;
    try { host.info = jsonParse(jsonStringify(info)); } catch (e) {} // a copy the program never sees
  }
  if (bindingErrors === null) bindingErrors = new WeakMapCtor();
  ReflectApply(weakSet, bindingErrors, [err, host]);
  return err;
}
function errorMessage(e) {
  try { return isObject(e) && "message" in e ? String(e.message) : String(e); } catch (x) { return "an unprintable error"; }
}
// The semantics of `tools` are the traps toolsTraps() makes; the glue's
// makeTools(toolsTraps) builds the object (a Proxy over them, or an
// engine's native object that calls them: on goja, made when a program
// first uses tools, since each function costs every runtime ~400 bytes).
function toolsTraps() {
  // (gojaengine's objectProtoNames is this list too: goja does not keep
  // what get answers for them.)
  var objectProtoNames = {
    __proto__: null, constructor: true, toString: true, toLocaleString: true, valueOf: true,
    hasOwnProperty: true, isPrototypeOf: true, propertyIsEnumerable: true, ["__proto__"]: true,
    __defineGetter__: true, __defineSetter__: true, __lookupGetter__: true, __lookupSetter__: true
  };
  function toolFn(name) {
    var f = toolFns[name];
    if (f === undefined) {
      if (toolFnCount >= 1024) { toolFns = { __proto__: null }; toolFnCount = 0; } // names a program invented
      f = {
        [name]: function (args) {
          var json, p = hostRefusal(name);
          if (p !== undefined) return p;
          try {
            json = args === undefined ? "{}" : jsonStringify(args);
          } catch (e) {
            return rejected(bindingError("INVALID_ARGUMENTS", "tool arguments must be JSON-serialisable: " + errorMessage(e)));
          }
          if (json === undefined) {
            return rejected(bindingError("INVALID_ARGUMENTS", "tool arguments must be JSON-serialisable, got " + typeof args));
          }
          p = hostCall(name, json);
          return p === undefined ? rejected(bindingError("CANCELLED", "the program that made this call has ended")) : p;
        }
      }[name];
      hide(f);
      toolFns[name] = f;
      toolFnCount++;
    }
    return f;
  }
  function listTools() { return toolNames === null ? hostTools() : toolNames; }
  function knownTool(k) { return listTools().indexOf(k) >= 0; }
  function refuse() { return false; }
  return {
    __proto__: null,
    get: function (t, k) {
      if (typeof k !== "string") return t[k];
      if (k === "then" || k === "toJSON") return undefined;
      if (objectProtoNames[k] === true && !knownTool(k)) return objectProto[k];
      return toolFn(k);
    },
    has: function (t, k) { return typeof k === "string" && knownTool(k); },
    ownKeys: function () { return listTools().slice(); },
    getOwnPropertyDescriptor: function (t, k) {
      if (typeof k !== "string" || !knownTool(k)) return undefined;
      return { value: toolFn(k), writable: false, enumerable: true, configurable: true };
    },
    // No prototype, and no other: `in` and the descriptors answer for tool
    // names only (the Object.prototype names get answers are a courtesy,
    // as in String(tools)), and a program can change no answer.
    getPrototypeOf: function () { return null; },
    setPrototypeOf: function (t, p) { return p === null; },
    set: refuse,
    defineProperty: refuse,
    deleteProperty: refuse,
    preventExtensions: refuse
  };
}
// Read-only and non-configurable: a program can neither replace nor
// delete it (nor the bindings a later program of a persistent environment
// would call).
defineProperty(g, "tools", { value: makeTools(toolsTraps), writable: false, configurable: false, enumerable: false });

// ---- entry points for Go ------------------------------------------------

var memLimit = 256 * 1048576; // the run's memory budget (see sizes.js)

// begin(names, limit) starts a run: the tools it lists (null: ask
// hostTools() whenever a program wants them) and its budget. A glue whose
// hostTools and reserve know the run need not call it.
function begin(names, limit) {
  toolNames = names;
  memLimit = limit;
}

// describe turns a thrown value into the JSON that Go classifies
// (engine.Thrown).
function describe(e) {
  var d = {};
  lateLoad();
  try {
    if (e instanceof ErrorCtor) {
      d.error = true;
      d.name = String(e.name);
      d.message = String(e.message);
      d.stack = typeof e.stack === "string" ? e.stack : "";
      var host = bindingErrors === null ? undefined : ReflectApply(weakGet, bindingErrors, [e]);
      if (host !== undefined) {
        d.code = host.code;
        if (host.info !== undefined) d.info = host.info;
      } else if (budgetErrors !== null && ReflectApply(weakHas, budgetErrors, [e])) {
        d.code = "MEMORY_LIMIT"; // a size check's refusal (sizes.js)
      }
    } else {
      try { d.message = jsonStringify(e); } catch (x) {}
      if (typeof d.message !== "string") d.message = consoleLib().shown(e, 1);
      d.thrown = typeof e;
    }
  } catch (x) {
    // A getter or trap of the thrown value that recursed too deep is
    // STACK_OVERFLOW on every engine (goja's overflow cannot be caught).
    var xm = errorMessage(x);
    if (/call stack size exceeded|stack overflow/i.test(xm)) {
      return jsonStringify({ error: true, name: "RangeError", message: "Maximum call stack size exceeded while the thrown value was read: " + xm, stack: "" });
    }
    d.message = d.message || "an exception that could not be described";
  }
  return jsonStringify(d);
}
function plain(message) { return jsonStringify({ plain: true, message: message }); }

// outcome encodes how the program's promise settled, for Go: "u"
// (undefined), "v" + the value's JSON, or "e" + a description.
function outcome(ok, v) {
  if (!ok) return "e" + describe(v);
  if (v === undefined) return "u";
  if (typeof v === "function") return "e" + plain("the program returned a function, which JSON cannot represent; return data instead");
  if (typeof v === "symbol") return "e" + plain("the program returned a symbol, which JSON cannot represent; return data instead");
  var json;
  try {
    json = typeof resultReplacer === "function" ? jsonStringify(v, resultReplacer()) : jsonStringify(v);
  } catch (e) {
    var why = errorMessage(e);
    // Nested past the engine's bound (goja: its call-stack bound, 10,000
    // levels, inside JSON.stringify; wazero: resultReplacer's, 1,000):
    // one message, RUNTIME_ERROR, on every engine.
    if (/nested too deeply/i.test(why)) return "e" + plain("the return value is nested too deeply to convert to JSON (" + why + "); return flatter data");
    if (/circular|cycl/i.test(why)) return "e" + plain("the return value contains a cycle (an object that refers to itself), which JSON cannot represent: " + why);
    if (/bigint/i.test(why)) return "e" + plain("the return value contains a BigInt, which JSON cannot represent; convert it with String() or Number(): " + why);
    return "e" + plain("the return value cannot be converted to JSON: " + why);
  }
  return json === undefined ? "u" : "v" + json;
}

// globals lists the names programs added to the global object: its
// enumerable own properties that the pristine realm lacks. Built-ins are
// not enumerable, so only the few names a program made are visited.
// pristine holds the realm's own enumerable names, which a glue records
// at its end where that is cheap.
var pristine = { __proto__: null };
//
// for-in with an own-property test, not Object.keys: QuickJS's Object.keys
// lists every own property of the global object (~90 after the prelude) and
// then reads a descriptor of each to keep the enumerable ones, ~10 µs on
// wazero for every persistent run; for-in reads the enumerable flags where
// they are kept (~3 µs). The test drops what for-in inherits: an enumerable
// property a program put on Object.prototype is not a global.
function globals() {
  lateLoad();
  var out = [];
  for (var k in g) if (pristine[k] !== true && getOwn(g, k) !== undefined) out.push(k);
  return out.sort();
}
