// end.js: the realm as the prelude leaves it is what globals() compares
// with; the entry points go to Go, in the order of engine.Entry*, then the
// glue's own (glueEntries).
keysOf(g).forEach(function (k) { pristine[k] = true; });
return [begin, outcome, describe, globals, bindingError].concat(glueEntries);
