// head.js (goja): the part of the glue that runs before the shared
// modules (engine.PreludeWithHead). The modules look for these at setup
// (common.js, sizes.js, tools.js: `typeof hostLazy === "function"`, …),
// before glue.js's statements run; assigned here, each is the native
// itself (glue.js's list), not a function declaration forwarding to it:
// every function costs each runtime ~400 bytes.
// hostLazy(names, build): the runtime builds each global named
// (comma-separated) on first touch (lazyGlobals, vm.go's lazyNames), if it
// takes every name.
// hostLazyArray(names, build): the runtime makes each Array.prototype
// method named, on first touch, as build(name, builtin) (vm.go's
// buildArrayMethod); sizes.js's checks, then glue.js's guards.
// hostIntrinsic(name): the realm's built-ins that common.js's lateLoad
// captures when first needed (goja's Runtime.Intrinsic: the realm's own,
// whatever a program did to the globals since).
// hostIsProxy(v): goja knows a Proxy when it sees one, so sizes.js
// neither wraps Proxy nor remembers the proxies a program makes.
// makeTools(makeTraps): a native object that calls the traps, and keeps
// what get returned for the rest of the run (a Proxy's get trap was the
// largest cost of a nested call on goja).
// hostHide(f): goja's Function.prototype.toString shows f as native code
// (the goja patch hidesource.go).
// nativeSizeChecks: the size checks of repeat, padStart and padEnd are
// goja's own (sizes.js installs its wrappers only where this is a
// function; which one does not matter).
var hostLazy = native[9], hostLazyArray = native[13], hostIntrinsic = native[15], hostIsProxy = native[14];
var makeTools = native[5], hostHide = native[11], nativeSizeChecks = native[1];
