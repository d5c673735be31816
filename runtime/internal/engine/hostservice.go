package engine

import (
	"errors"

	"github.com/codemode/codemode/runtime/internal/webapi"
)

// HostService answers the prelude's web and Intl host functions (web.js,
// intl.js): both engines' glue pass hostService(op, arg) here. The answer
// is "=" + the result, or "!" + the error's name + "\n" + its message,
// which the prelude throws as that JavaScript error. Go symbols never
// reach a program: the function programs see is the prelude's.
func HostService(op, arg string) string {
	s, err := webapi.Call(op, arg)
	if err == nil {
		return "=" + s
	}
	var e *webapi.Error
	if errors.As(err, &e) {
		return "!" + e.Name + "\n" + e.Message
	}
	return "!Error\n" + err.Error()
}
