package gojaengine

import (
	"github.com/codemode/codemode/runtime/internal/goja"

	"github.com/codemode/codemode/runtime/internal/engine"
)

// webGlobals builds, before a script runs, the web globals and Intl it
// names (engine.WebGlobals): a goja realm is built for every per-call
// program, and pays for every object the prelude makes, so the prelude's
// web.js and intl.js make nothing until a script needs them.
func (v *vm) webGlobals(script string) error {
	names, set := engine.WebGlobals(script, v.webSet)
	if names == "" {
		return nil
	}
	v.webSet = set
	v.enterJS()
	_, err := v.entry(engine.EntryGlue)(goja.Undefined(), v.rt.ToValue(names))
	v.w.leaveJS()
	if err != nil {
		return v.vmError(err)
	}
	return nil
}
