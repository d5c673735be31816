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
function timerDelay(ms) {
  ms = +ms;
  return ms >= 1 && ms <= 2147483647 ? ms : 1;
}
function armTimer(id, ms, fire, rearm) {
  var h = hostTimer(id, ms, fire, rearm);
  if (h === -1) throw new RangeErrorCtor("too many pending timers: a program may have at most 1024 at once");
}
function timerArgs(args) {
  var a = [];
  for (var i = 2; i < args.length; i++) a.push(args[i]);
  return a;
}
function checkCallback(name, cb) {
  if (typeof cb !== "function") throw new TypeErrorCtor(name + ": the callback must be a function");
}
defineGlobal("setTimeout", {
  setTimeout(callback, delay) {
    checkCallback("setTimeout", callback);
    var id = ++timerSeq, args = timerArgs(arguments);
    armTimer(id, timerDelay(delay), function () { ReflectApply(callback, undefined, args); }, false);
    return id;
  }
}.setTimeout);
defineGlobal("setInterval", {
  setInterval(callback, delay) {
    checkCallback("setInterval", callback);
    var id = ++timerSeq, args = timerArgs(arguments), ms = timerDelay(delay);
    var fire = function () {
      ReflectApply(callback, undefined, args);
      armTimer(id, ms, fire, true);
    };
    armTimer(id, ms, fire, false);
    return id;
  }
}.setInterval);
function clearTimer(id) {
  if (typeof id === "number") hostClearTimer(id);
}
defineGlobal("clearTimeout", { clearTimeout(id) { clearTimer(id); } }.clearTimeout);
defineGlobal("clearInterval", { clearInterval(id) { clearTimer(id); } }.clearInterval);
