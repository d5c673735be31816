package tools

import (
	"fmt"
	"strings"

	"github.com/codemode/codemode/tools/errs"
)

// validationError rewrites a jsonschema-go error ("validating root:
// validating /properties/a/items: type: …") into one that names the failing
// argument path ("a[]: type: …"), which is what a program author can act on.
func validationError(tool string, err error) *errs.Error {
	msg := err.Error()
	path := "arguments"
	rest := msg
	for {
		i := strings.Index(rest, "validating ")
		if i < 0 {
			break
		}
		seg := rest[i+len("validating "):]
		j := strings.Index(seg, ": ")
		if j < 0 {
			break
		}
		if p := seg[:j]; p != "root" {
			path = "arguments" + schemaPathToArgPath(p)
		}
		rest = seg[j+2:]
	}
	return &errs.Error{
		Code:    errs.CodeInvalidArguments,
		Message: fmt.Sprintf("invalid arguments for %s at %s: %s", tool, path, rest),
		Info:    map[string]any{"path": path},
		Err:     err,
	}
}

// schemaPathToArgPath maps a schema location (/properties/a/items) to the
// instance path it constrains (.a[]).
func schemaPathToArgPath(p string) string {
	parts := strings.Split(strings.TrimPrefix(p, "/"), "/")
	var b strings.Builder
	for i := 0; i < len(parts); i++ {
		switch parts[i] {
		case "properties", "patternProperties":
			if i+1 < len(parts) {
				b.WriteString("." + strings.ReplaceAll(strings.ReplaceAll(parts[i+1], "~1", "/"), "~0", "~"))
				i++
			}
		case "items", "additionalItems":
			b.WriteString("[]")
		case "prefixItems":
			if i+1 < len(parts) {
				b.WriteString("[" + parts[i+1] + "]")
				i++
			}
		case "additionalProperties":
			b.WriteString(".*")
		}
	}
	return b.String()
}
