// end.js: the entry points go to Go, in the order of engine.Entry*, then
// the glue's own (glueEntries).
return [begin, outcome, describe, globals, bindingError, polyfill].concat(glueEntries);
