// globals.js: the globals the sandbox adds, withholds or hides.

// queueMicrotask, where the engine has none. An engine whose glue
// declares hostLazy (goja) has none, and builds it when a program first
// touches it (lazyGlobals; reading the global here would build it before
// its builder is registered).
if (typeof hostLazy === "function" || typeof g.queueMicrotask !== "function") {
  lazyGlobals("queueMicrotask", function () {
    lateLoad();
    return function queueMicrotask(f) {
      if (typeof f !== "function") throw new TypeErrorCtor("queueMicrotask: the callback must be a function");
      PromiseCtor.resolve().then(function () { f(); });
    };
  });
}

// Withheld function-valued globals: each says what to use instead. (The
// timers of one run are timers.js's; setImmediate is Node's alone.)
// The messages are made when a program first touches one (lazyGlobals).
var TOOLS = "call a tool instead: await tools[\"name\"](args) (list them with await tools.code_tools_list({}))";
lazyGlobals("require,importScripts,fetch,XMLHttpRequest,WebSocket,setImmediate,clearImmediate", function (name) {
  var msg;
  lateLoad();
  switch (name) {
    case "require": msg = "require() is not available in code_run programs: modules cannot be loaded; " + TOOLS; break;
    case "importScripts": msg = "importScripts() is not available in code_run programs: scripts cannot be loaded; " + TOOLS; break;
    case "fetch": msg = "fetch() is not available in code_run programs: the sandbox has no network access; " + TOOLS; break;
    case "XMLHttpRequest": msg = "XMLHttpRequest is not available in code_run programs: the sandbox has no network access; " + TOOLS; break;
    case "WebSocket": msg = "WebSocket is not available in code_run programs: the sandbox has no network access; " + TOOLS; break;
    default: msg = name + "() is not available in code_run programs (it is Node's alone): use setTimeout(f, 0) or queueMicrotask(f)";
  }
  return { [name]: function () { throw new ErrorCtor(msg); } }[name];
});
// Function.prototype.toString shows the prelude's functions as native
// code: their source would show how the sandbox works, and names of its
// private functions.
var fnToString = hidden !== null ? Function.prototype.toString : null;
if (hidden !== null) install(Function.prototype, {
  toString() {
    if (ReflectApply(weakHas, hidden, [this])) {
      var d = getOwn(this, "name"), n = d && typeof d.value === "string" ? d.value : "";
      return "function " + n + "() { [native code] }";
    }
    return ReflectApply(fnToString, this, []);
  }
}.toString);

// Data-valued host globals stay undefined (typeof probes keep working).
delete g.process;
delete g.Deno;
delete g.Bun;
