// end.js: the entry points go to Go, in the order of engine.Entry*, then
// the glue's own (glueEntries). (Not concat: on goja it reads the arrays'
// constructor and species, building Array's statics in every runtime.)
var entries = [begin, outcome, describe, globals, bindingError, polyfill];
for (var i = 0; i < glueEntries.length; i++) entries[entries.length] = glueEntries[i];
return entries;
