package bench

import (
	"context"
	"strings"
	"testing"
)

// TestBuiltinsSuite runs a few cases of the built-ins micro-suite once on
// each engine: every program must run (its figures are not checked).
func TestBuiltinsSuite(t *testing.T) {
	if testing.Short() {
		t.Skip("runs programs on both engines")
	}
	rep, err := RunBuiltins(context.Background(), BuiltinsOptions{Cases: []string{"repeat", "console.log-spent", "subcall-refused", "Array.from-array"}, Rounds: 1})
	if err != nil {
		t.Fatal(err)
	}
	if len(rep.Rows) == 0 {
		t.Fatal("no rows")
	}
	for _, row := range rep.Rows {
		if row.Error != "" && !strings.Contains(row.Error, "unavailable") {
			t.Errorf("%s on %s: %s", row.Case, row.Engine, row.Error)
		}
		if row.Engine == "goja" && row.Case != "subcall-refused" && row.BareOf == "" && row.Error == "" {
			t.Errorf("%s on goja: no bare figure", row.Case)
		}
	}
	var b strings.Builder
	if err := rep.WriteTable(&b); err != nil {
		t.Fatal(err)
	}
	t.Log("\n" + b.String())
}
