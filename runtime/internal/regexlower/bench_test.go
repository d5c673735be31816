package regexlower_test

import (
	"testing"

	"github.com/codemode/codemode/runtime/internal/goja"
	"github.com/codemode/codemode/runtime/internal/regexlower"
)

var benchPatterns = []struct{ name, p, f string }{
	{"v-difference-property", `[\p{L}--[a-z]]+`, "v"},
	{"v-intersection", `[[a-z]&&[aeiou]]`, "v"},
	{"v-strings", `[\q{abc|ab}\d]`, "v"},
	{"modifier-i", `(?i:hello) world`, ""},
	{"modifier-minus-i", `(?-i:Hello) world`, "i"},
	{"u-plain", `[\p{L}]+`, "u"},
}

// BenchmarkLower: the rewriting alone.
//
//	go test -run XXX -bench Lower -benchmem ./runtime/internal/regexlower
func BenchmarkLower(b *testing.B) {
	for _, c := range benchPatterns {
		b.Run(c.name, func(b *testing.B) {
			if !regexlower.Needs(c.p, c.f) {
				b.Skip("not lowered")
			}
			for i := 0; i < b.N; i++ {
				if _, _, err := regexlower.Lower(c.p, c.f); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// BenchmarkGojaCompile: new RegExp(p, f) on goja, the rewriting included.
func BenchmarkGojaCompile(b *testing.B) {
	vm := goja.New()
	ctor := vm.Get("RegExp")
	for _, c := range benchPatterns {
		b.Run(c.name, func(b *testing.B) {
			p, f := vm.ToValue(c.p), vm.ToValue(c.f)
			for i := 0; i < b.N; i++ {
				if _, err := vm.New(ctor, p, f); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// BenchmarkNeeds: what a pattern that needs no rewriting pays (goja's
// compileRegexp asks for every pattern).
func BenchmarkNeeds(b *testing.B) {
	p := `^(?:[a-z0-9._%+-]+)@(?<host>[a-z0-9.-]+\.[a-z]{2,})$`
	for i := 0; i < b.N; i++ {
		if regexlower.Needs(p, "gi") {
			b.Fatal("needs")
		}
	}
}
