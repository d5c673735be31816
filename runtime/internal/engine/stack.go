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
	if lines <= 0 {
		return text
	}
	return dropLines(text, func(ls []string, i int) bool {
		return isFrame(ls[i]) && framePast(ls[i], lines, names)
	})
}

// DropInternalFrames removes from a stack the frames of the sandbox's own
// code: lines starting with "at " that name one of internal (the engines'
// preludes), and a "(native)" frame right before one (the prelude's own
// Reflect.apply). A program's stack then shows its code and the built-ins
// it called, not how the sandbox wraps them.
func DropInternalFrames(text string, internal ...string) string {
	isInternal := func(l string) bool {
		if !isFrame(l) {
			return false
		}
		for _, m := range internal {
			if strings.Contains(l, m) {
				return true
			}
		}
		return false
	}
	return dropLines(text, func(ls []string, i int) bool {
		if isInternal(ls[i]) {
			return true
		}
		return isFrame(ls[i]) && strings.HasSuffix(strings.TrimSpace(ls[i]), "(native)") && i+1 < len(ls) && isInternal(ls[i+1])
	})
}

func isFrame(l string) bool { return strings.HasPrefix(strings.TrimSpace(l), "at ") }

// dropLines removes the lines of text for which drop is true, keeping
// whether text ended with a newline.
func dropLines(text string, drop func(lines []string, i int) bool) string {
	if !strings.Contains(text, "at ") {
		return text
	}
	lines := strings.SplitAfter(text, "\n")
	out := make([]string, 0, len(lines))
	for i, l := range lines {
		if !drop(lines, i) {
			out = append(out, l)
		}
	}
	if len(out) == len(lines) {
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
