package source

import (
	"fmt"
	"strings"
	"syscall"
	"testing"
	"time"
)

// BenchmarkEsbuildWorst times esbuild's transform (what MaxTypeScriptBytes
// bounds) on the worst shapes within the nesting bound, at 16 to 128 KiB,
// in CPU time (cpu-ms/op): the figures behind the limit (docs/engines.md).
//
//	GOMAXPROCS=1 go test ./runtime/internal/source -run '^$' -bench EsbuildWorst -benchtime 3x
func BenchmarkEsbuildWorst(b *testing.B) {
	fill := func(unit string, n int) string {
		var s strings.Builder
		s.WriteString("for await (const x of []) {}\n")
		for s.Len()+len(unit) <= n {
			s.WriteString(unit)
		}
		return s.String()
	}
	deep := func(o, c string, d int) string { return strings.Repeat(o, d) + strings.Repeat(c, d) }
	shapes := []struct {
		name string
		unit string
	}{
		{"blocks-990-deep", deep("{", "}", 990) + "\n"},
		{"arrays-990-deep", "x=" + deep("[", "]", 990) + ";\n"},
		{"if-300-deep", deep("if(a){", "}", 300) + "\n"},
		{"flat", "v = a.b(c, d) + e[f] * 2;\n"},
		{"flat-redeclared", "let v = a.b(c, d) + e[f] * 2;\n"}, // one error per line
	}
	for _, kb := range []int{16, 32, 64, 128} {
		for _, sh := range shapes {
			code := fill(sh.unit, kb<<10)
			b.Run(fmt.Sprintf("%s/%dKiB", sh.name, kb), func(b *testing.B) {
				c0 := cpuTime()
				for range b.N {
					transform(code, gojaLowered, &bodyError{})
				}
				b.ReportMetric(float64(cpuTime()-c0)/float64(b.N)/1e6, "cpu-ms/op")
			})
		}
		code := "for await (const x of []) {}\nreturn " + strings.Repeat("a=>", MaxTypeScriptArrows-1) + "1;\n"
		code = fill("x=[1,2,3];\n", kb<<10)[len("for await (const x of []) {}\n"):] + code
		b.Run(fmt.Sprintf("arrow-chain-255/%dKiB", kb), func(b *testing.B) {
			c0 := cpuTime()
			for range b.N {
				transform(code, gojaLowered, &bodyError{})
			}
			b.ReportMetric(float64(cpuTime()-c0)/float64(b.N)/1e6, "cpu-ms/op")
		})
	}
}

// cpuTime is the process's user and system CPU time.
func cpuTime() time.Duration {
	var ru syscall.Rusage
	_ = syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
