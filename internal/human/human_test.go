package human

import (
	"testing"
	"time"
)

func TestSize(t *testing.T) {
	for _, c := range []struct {
		n    int64
		want string
	}{
		{0, "0 bytes"}, {1000, "1000 bytes"}, {1 << 10, "1 KiB"}, {64 << 10, "64 KiB"},
		{256 << 20, "256 MiB"}, {3 << 30, "3 GiB"}, {1<<20 + 1, "1048577 bytes"},
	} {
		if got := Size(c.n); got != c.want {
			t.Errorf("Size(%d) = %q, want %q", c.n, got, c.want)
		}
	}
}

func TestDuration(t *testing.T) {
	for _, c := range []struct {
		d    time.Duration
		want string
	}{
		{30 * time.Second, "30s"}, {1540 * time.Millisecond, "1.5s"}, {250 * time.Millisecond, "250ms"},
		{15 * time.Minute, "15m0s"}, {40*time.Microsecond + 7, "40µs"},
	} {
		if got := Duration(c.d); got != c.want {
			t.Errorf("Duration(%v) = %q, want %q", c.d, got, c.want)
		}
	}
}

func TestCut(t *testing.T) {
	for _, c := range []struct {
		s    string
		max  int
		want string
	}{
		{"short", 10, "short"},
		{"abcdef", 3, "abc… [cut: 3 more bytes]"},
		{"héllo", 2, "h… [cut: 5 more bytes]"}, // never splits é
		{"abc", 0, "… [cut: 3 more bytes]"},
		{"abc", -1, "… [cut: 3 more bytes]"},
	} {
		if got := Cut(c.s, c.max); got != c.want {
			t.Errorf("Cut(%q, %d) = %q, want %q", c.s, c.max, got, c.want)
		}
	}
}

func TestOneLine(t *testing.T) {
	for _, c := range []struct {
		s    string
		max  int
		want string
	}{
		{"a\n  b\tc ", 10, "a b c"},
		{"héllo world", 2, "h…"},
		{"abcdef", 6, "abcdef"},
	} {
		if got := OneLine(c.s, c.max); got != c.want {
			t.Errorf("OneLine(%q, %d) = %q, want %q", c.s, c.max, got, c.want)
		}
	}
}
