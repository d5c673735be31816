// timers.js: setTimeout, setInterval, clearTimeout and clearInterval,
// scoped to one run. The timers themselves are the run's scheduler's
// (engine.Run.Timer): a timer never outlives its run, its delay counts
// against the program's deadline, and the run has a bounded number of
// them pending. The glue supplies
//
//   hostTimer(id, ms, fire, rearm)  starts a timer for the program's timer
//                                   id; fire() is called when it is due.
//                                   With rearm, only if id is still live.
//                                   Returns -1 past the budget, undefined
//                                   when no run is in progress.
//   hostClearTimer(id)              drops the timer of id, if pending.
//
// Delays follow Node: a number of milliseconds from 1 to 2^31 - 1, else 1.
// Timer ids are numbers, as in Deno, Workers and browsers.
var timerSeq = 0;
// startTimer is setTimeout (repeat false) and setInterval (repeat true):
// one function (every function of the prelude costs each goja runtime
// about 400 bytes), made with the first timer global.
var startTimer = null;
// Built when a program first names one (lazyGlobals): most never do.
lazyGlobals("setTimeout,setInterval,clearTimeout,clearInterval", function (name) {
  lateLoad();
  if (startTimer === null) {
    startTimer = function (name, callback, delay, args, repeat) {
      if (typeof callback !== "function") throw new TypeErrorCtor(name + ": the callback must be a function");
      var id = ++timerSeq, extra = ReflectApply(ArrayProto.slice, args, [2]), ms = +delay;
      if (!(ms >= 1 && ms <= 2147483647)) ms = 1;
      var fire = function () {
        ReflectApply(callback, undefined, extra);
        if (repeat && hostTimer(id, ms, fire, true) === -1) throw new RangeErrorCtor("too many pending timers: a program may have at most 1024 at once");
      };
      if (hostTimer(id, ms, fire, false) === -1) throw new RangeErrorCtor("too many pending timers: a program may have at most 1024 at once");
      return id;
    };
  }
  switch (name) {
    case "setTimeout": return { setTimeout(callback, delay) { return startTimer("setTimeout", callback, delay, arguments, false); } }.setTimeout;
    case "setInterval": return { setInterval(callback, delay) { return startTimer("setInterval", callback, delay, arguments, true); } }.setInterval;
    case "clearTimeout": return { clearTimeout(id) { if (typeof id === "number") hostClearTimer(id); } }.clearTimeout;
    case "clearInterval": return { clearInterval(id) { if (typeof id === "number") hostClearTimer(id); } }.clearInterval;
  }
});
