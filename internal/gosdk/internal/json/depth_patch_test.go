package json

import (
	"strings"
	"testing"
)

// checkMaxDepthV180 is v1.8.0's checkMaxDepth, byte by byte: the patched
// one must answer as it does on every input.
func checkMaxDepthV180(data []byte, maxDepth int) error {
	var (
		depth    int
		inString bool
		escaped  bool
	)
	for _, b := range data {
		if inString {
			switch {
			case escaped:
				escaped = false
			case b == '\\':
				escaped = true
			case b == '"':
				inString = false
			}
			continue
		}
		switch b {
		case '"':
			inString = true
		case '{', '[':
			depth++
			if depth > maxDepth {
				return errMaxDepthExceeded
			}
		case '}', ']':
			if depth > 0 {
				depth--
			}
		}
	}
	return nil
}

var depthCases = []string{
	``, `{}`, `[[[]]]`, `"`, `"\`, `"\"`, `"\\"[[[`, `"\\\"[[["`, `["[[[[", [[`,
	`{"a":"\\\\\"{{{{\\"}`, `"abc\\\\\\"[[[[`, `[` + strings.Repeat(`"\\",`, 5) + `[[[`,
	`"x\"y\"z"[[[[`, `\"[[[[`, `[[["]]]"]]]`,
}

func FuzzCheckMaxDepth(f *testing.F) {
	for _, c := range depthCases {
		f.Add(c, 3)
	}
	f.Fuzz(func(t *testing.T, s string, max int) {
		if max < 0 || max > 50 {
			max %= 50
			if max < 0 {
				max = -max
			}
		}
		got, want := checkMaxDepth([]byte(s), max), checkMaxDepthV180([]byte(s), max)
		if got != want {
			t.Fatalf("checkMaxDepth(%q, %d) = %v, v1.8.0's %v", s, max, got, want)
		}
	})
}

func TestCheckMaxDepthAsV180(t *testing.T) {
	for _, c := range depthCases {
		for max := 0; max < 5; max++ {
			if got, want := checkMaxDepth([]byte(c), max), checkMaxDepthV180([]byte(c), max); got != want {
				t.Errorf("checkMaxDepth(%q, %d) = %v, v1.8.0's %v", c, max, got, want)
			}
		}
	}
}

func BenchmarkCheckMaxDepthLongString(b *testing.B) {
	data := []byte(`{"code":"` + strings.Repeat("x", 12<<20) + `"}`)
	b.SetBytes(int64(len(data)))
	for b.Loop() {
		if err := checkMaxDepth(data, defaultMaxDepth); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkCheckMaxDepthLongStringV180(b *testing.B) {
	data := []byte(`{"code":"` + strings.Repeat("x", 12<<20) + `"}`)
	b.SetBytes(int64(len(data)))
	for b.Loop() {
		if err := checkMaxDepthV180(data, defaultMaxDepth); err != nil {
			b.Fatal(err)
		}
	}
}
