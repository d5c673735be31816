package gojaengine

import (
	"testing"

	"github.com/codemode/codemode/runtime/internal/enginetest"
)

// TestPrimitiveOutcome: a returned primitive, encoded in Go
// (primitiveOutcome), reads as JSON.stringify's text of it does (the same
// value inside an array goes through the prelude's outcome).
func TestPrimitiveOutcome(t *testing.T) {
	eng, err := New(Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer eng.Close()
	for _, e := range []string{
		"0", "-0", "1", "-1", "1 + 1", "2 ** 31", "2 ** 53", "2 ** 53 + 2", "-(2 ** 63)", "1e21", "1e-7", "0.1", "1 / 3",
		"5e-324", "Number.MAX_VALUE", "123456789012345680000", "NaN", "Infinity", "-Infinity", "0.1 + 0.2",
		"true", "false", "null", "new Number(3)", "(() => { Number.prototype.toJSON = () => 'x'; return 4 })()",
		"(() => { Number.prototype.toJSON = () => 'x'; return new Number(4) })()", "'s'", "7n * 0n === 0n",
	} {
		one := enginetest.Exec(t, eng, "return "+e, enginetest.ExecOptions{})
		arr := enginetest.Exec(t, eng, "return ["+e+"]", enginetest.ExecOptions{})
		if one.Err != nil || arr.Err != nil {
			t.Errorf("%s: %v / %v", e, one.Err, arr.Err)
			continue
		}
		if want := string(arr.Value); "["+string(one.Value)+"]" != want {
			t.Errorf("return %s: got %s, want the element of %s", e, one.Value, want)
		}
	}
	if o := enginetest.Exec(t, eng, "return undefined", enginetest.ExecOptions{}); o.Err != nil || o.Value != nil {
		t.Errorf("return undefined: got %s, %v", o.Value, o.Err)
	}
}
