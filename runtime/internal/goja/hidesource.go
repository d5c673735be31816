package goja

// codemode patch: an embedder's own JavaScript functions can print as
// native code.

// SetSourceHidden makes Function.prototype.toString show o, a JavaScript
// function, as native code: "function NAME() { [native code] }", NAME its
// own data property "name" when that is a string, else empty. Anything
// else is left as it is. An embedder's functions that a program can reach
// then do not show how they work, with no set of them to keep (the flag
// fits in the function object's padding).
func (o *Object) SetSourceHidden() {
	if f, ok := o.self.(interface{ hideSource() }); ok {
		f.hideSource()
	}
}

func (f *baseJsFuncObject) hideSource() { f.sourceHidden = true }

// hiddenSource is source() of a function whose source is hidden.
func hiddenSource(o objectImpl) String {
	name := ""
	switch v := o.getOwnPropStr("name").(type) {
	case String:
		name = v.String()
	case *valueProperty:
		if !v.accessor {
			if s, ok := v.value.(String); ok {
				name = s.String()
			}
		}
	}
	return newStringValue("function " + name + "() { [native code] }")
}
