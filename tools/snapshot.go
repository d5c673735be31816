package tools

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math"
	"sort"
	"strconv"

	"github.com/codemode/codemode/tools/errs"
)

// maxSafeInt is the largest integer a JSON number keeps exactly in every
// consumer we serve (JavaScript's Number.MAX_SAFE_INTEGER).
const maxSafeInt = 1<<53 - 1

// snapshot turns call arguments into canonical JSON text and the decoded
// value to validate. Anything that would not survive a JSON round trip
// unchanged is refused with a message naming the path.
//
// When decode is false and the arguments arrive as JSON text, the value is
// not decoded (the schema needs nothing beyond "an object"), which keeps the
// common case free of allocations; the text is still checked to be one
// valid JSON object.
func snapshot(args any, decode bool, max int) (string, any, *errs.Error) {
	switch a := args.(type) {
	case nil:
		return "{}", map[string]any{}, nil
	case json.RawMessage:
		if len(a) > max {
			return "", nil, tooLarge(len(a), max)
		}
		return snapshotText(a, decode)
	case []byte:
		if len(a) > max {
			return "", nil, tooLarge(len(a), max)
		}
		return snapshotText(a, decode)
	}
	if err := checkPlain(args, "arguments"); err != nil {
		return "", nil, err
	}
	if _, ok := args.(map[string]any); !ok {
		return "", nil, errs.Errorf(errs.CodeInvalidArguments, "arguments must be a JSON object, got %s", jsonKind(args))
	}
	b, err := json.Marshal(args)
	if err != nil {
		return "", nil, &errs.Error{Code: errs.CodeInvalidArguments, Message: "arguments are not serializable: " + err.Error(), Err: err}
	}
	if len(b) > max {
		return "", nil, tooLarge(len(b), max)
	}
	return string(b), args, nil
}

func tooLarge(n, max int) *errs.Error {
	return &errs.Error{
		Code:    errs.CodeArgumentsTooLarge,
		Message: fmt.Sprintf("the arguments are %d bytes of JSON, over the %d-byte limit: pass less (a reference, a page, a filter) instead of the data itself", n, max),
		Info:    map[string]any{"bytes": n, "limit": max},
	}
}

func snapshotText(b []byte, decode bool) (string, any, *errs.Error) {
	b = bytes.TrimSpace(b)
	if len(b) == 0 {
		return "{}", map[string]any{}, nil
	}
	if !decode && b[0] == '{' && json.Valid(b) {
		return string(b), nil, nil
	}
	var v any
	if err := json.Unmarshal(b, &v); err != nil {
		return "", nil, &errs.Error{Code: errs.CodeInvalidArguments, Message: "arguments are not valid JSON: " + err.Error(), Err: err}
	}
	if _, ok := v.(map[string]any); !ok {
		return "", nil, errs.Errorf(errs.CodeInvalidArguments, "arguments must be a JSON object, got %s", jsonKind(v))
	}
	return string(b), v, nil
}

// checkPlain walks v and refuses every value that JSON cannot hold
// losslessly. path names the offending element in the error.
func checkPlain(v any, path string) *errs.Error {
	bad := func(what string) *errs.Error {
		return errs.Errorf(errs.CodeInvalidArguments, "%s: %s cannot be represented in JSON", path, what)
	}
	switch x := v.(type) {
	case nil, bool, string, json.Number:
		return nil
	case float64:
		if math.IsNaN(x) || math.IsInf(x, 0) {
			return bad(strconv.FormatFloat(x, 'g', -1, 64))
		}
	case float32:
		if math.IsNaN(float64(x)) || math.IsInf(float64(x), 0) {
			return bad("a non-finite number")
		}
	case int:
		if x > maxSafeInt || x < -maxSafeInt {
			return bad(fmt.Sprintf("the integer %d (beyond 2^53)", x))
		}
	case int64:
		if x > maxSafeInt || x < -maxSafeInt {
			return bad(fmt.Sprintf("the integer %d (beyond 2^53)", x))
		}
	case int8, int16, int32, uint8, uint16, uint32:
	case uint64:
		if x > maxSafeInt {
			return bad(fmt.Sprintf("the integer %d (beyond 2^53)", x))
		}
	case []any:
		for i, e := range x {
			if err := checkPlain(e, fmt.Sprintf("%s[%d]", path, i)); err != nil {
				return err
			}
		}
	case map[string]any:
		keys := make([]string, 0, len(x))
		for k := range x {
			keys = append(keys, k)
		}
		sort.Strings(keys) // report the first bad key deterministically
		for _, k := range keys {
			if err := checkPlain(x[k], path+"."+k); err != nil {
				return err
			}
		}
	default:
		return bad(fmt.Sprintf("a value of type %T", v))
	}
	return nil
}

func jsonKind(v any) string {
	switch v.(type) {
	case nil:
		return "null"
	case bool:
		return "a boolean"
	case string:
		return "a string"
	case []any:
		return "an array"
	case map[string]any:
		return "an object"
	}
	return "a number"
}
