package engine

import (
	"strconv"
	"strings"
)

// DropWrapperFrames removes from text, whose positions were already mapped
// to the user's source, the stack frames (lines starting with "at ") that
// point into one of the named files past the source's last line: they are
// the wrapper the program runs in, not the user's code. Other lines are
// kept as they are. With lines 0 nothing is dropped.
func DropWrapperFrames(text string, lines int, names ...string) string {
	if lines <= 0 || !strings.Contains(text, "at ") {
		return text
	}
	parts := strings.SplitAfter(text, "\n")
	out := parts[:0]
	dropped := false
	for _, l := range parts {
		if strings.HasPrefix(strings.TrimSpace(l), "at ") && framePast(l, lines, names) {
			dropped = true
			continue
		}
		out = append(out, l)
	}
	if !dropped {
		return text
	}
	s := strings.Join(out, "")
	if !strings.HasSuffix(text, "\n") { // the last line went: no newline after the new last one
		s = strings.TrimSuffix(s, "\n")
	}
	return s
}

// framePast reports whether l is a whole frame line ending in a position in
// one of names past lines ("at f (program.js:9:1)", "at program.js:9:1").
func framePast(l string, lines int, names []string) bool {
	l = strings.TrimRight(l, " \t\r\n")
	l = strings.TrimSuffix(l, ")")
	for _, name := range names {
		i := strings.LastIndex(l, name+":")
		if i < 0 {
			continue
		}
		pos := strings.Split(l[i+len(name)+1:], ":") // line[:column]
		if len(pos) > 2 {
			return false
		}
		for _, p := range pos {
			if p == "" || strings.Trim(p, "0123456789") != "" {
				return false // something follows the position: not a bare frame
			}
		}
		n, err := strconv.Atoi(pos[0])
		return err == nil && n > lines
	}
	return false
}
