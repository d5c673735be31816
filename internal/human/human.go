// Package human writes quantities the way a person reads them (256 MiB,
// 1.5s) and cuts text to a byte budget with a marker that says how much was
// left out. The runtime, the preset, the audit/approval text, traces and the
// run viewer all speak to people (or models) in these words; it imports
// nothing of ours.
package human

import (
	"fmt"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"
)

// Size is a byte count in the largest binary unit that divides it evenly:
// 256 MiB, 64 KiB, 1000 bytes.
func Size(n int64) string {
	switch {
	case n >= 1<<30 && n%(1<<30) == 0:
		return fmt.Sprintf("%d GiB", n>>30)
	case n >= 1<<20 && n%(1<<20) == 0:
		return fmt.Sprintf("%d MiB", n>>20)
	case n >= 1<<10 && n%(1<<10) == 0:
		return fmt.Sprintf("%d KiB", n>>10)
	}
	return fmt.Sprintf("%d bytes", n)
}

// Duration is a duration as a person writes it: 30s, 1.5s, 250ms, 15m0s,
// 40µs.
func Duration(d time.Duration) string {
	switch {
	case d >= time.Second:
		return d.Round(100 * time.Millisecond).String()
	case d >= time.Millisecond:
		return d.Round(time.Millisecond).String()
	}
	return d.Round(time.Microsecond).String()
}

// Cut bounds s to max bytes on a rune boundary; when it cuts, it appends
// "… [cut: N more bytes]" (so the result may exceed max by that marker).
func Cut(s string, max int) string {
	if len(s) <= max {
		return s
	}
	i := max
	if i < 0 {
		i = 0
	}
	for i > 0 && !utf8.RuneStart(s[i]) {
		i--
	}
	return s[:i] + "… [cut: " + strconv.Itoa(len(s)-i) + " more bytes]"
}

// OneLine is s with its whitespace runs folded to one space, cut to max
// bytes on a rune boundary with a bare "…" (for catalogs and status lines,
// where the marker must stay short).
func OneLine(s string, max int) string {
	s = strings.Join(strings.Fields(s), " ")
	if len(s) > max {
		i := max
		for i > 0 && !utf8.RuneStart(s[i]) {
			i--
		}
		s = s[:i] + "…"
	}
	return s
}
