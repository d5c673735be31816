package regexlower

import (
	"fmt"
	"slices"
	"strconv"
	"strings"
)

// Duplicate named groups (ES2025): a name may repeat in different
// alternatives (/(?<y>\d{4})-\d\d|\d\d\/(?<y>\d{4})/). An engine whose
// regexp compiler refuses a repeated name runs the pattern
// RenameDuplicateGroups returns, where the k-th repetition of name is
// dupPrefix + k + "_" + name, and reports each group under GroupName of
// its internal name; of the groups sharing a name, the one that
// participated gives the value (at most one can).

const dupPrefix = "cmdup"

// GroupName is the program's name of a group RenameDuplicateGroups named.
func GroupName(internal string) string {
	if !strings.HasPrefix(internal, dupPrefix) {
		return internal
	}
	rest := internal[len(dupPrefix):]
	i := 0
	for i < len(rest) && rest[i] >= '0' && rest[i] <= '9' {
		i++
	}
	if i == 0 || i >= len(rest) || rest[i] != '_' {
		return internal
	}
	return rest[i+1:]
}

type altPos struct{ group, alt int }

// RenameDuplicateGroups gives every repetition of a group name its own
// internal name (and a backreference to a repeated name a reference to
// each, in sequence: only the participating one matches text). It returns
// the pattern itself when no name repeats, and a SyntaxError when two
// groups of one name could both participate (not in different
// alternatives), as V8's "Duplicate capture group name". A pattern that
// already names a group with dupPrefix is left as it is.
func RenameDuplicateGroups(pattern, flags string) (string, error) {
	if strings.Count(pattern, "(?<") < 2 || strings.Contains(pattern, "(?<"+dupPrefix) {
		return pattern, nil
	}
	type occ struct {
		start, end int // the name's bytes
		path       []altPos
	}
	byName := map[string][]occ{}
	var order []string
	stack := []altPos{{0, 0}}
	nextGroup := 1
	classDepth := 0
	for i := 0; i < len(pattern); i++ {
		switch c := pattern[i]; {
		case c == '\\':
			i++
		case c == '[':
			classDepth++
		case c == ']' && classDepth > 0:
			classDepth--
		case classDepth > 0:
		case c == '|':
			stack[len(stack)-1].alt++
		case c == ')':
			if len(stack) > 1 {
				stack = stack[:len(stack)-1]
			}
		case c == '(':
			if strings.HasPrefix(pattern[i:], "(?<") && i+3 < len(pattern) && pattern[i+3] != '=' && pattern[i+3] != '!' {
				end := strings.IndexByte(pattern[i+3:], '>')
				if end >= 0 {
					name := pattern[i+3 : i+3+end]
					if _, ok := byName[name]; !ok {
						order = append(order, name)
					}
					byName[name] = append(byName[name], occ{i + 3, i + 3 + end, append([]altPos(nil), stack...)})
				}
			}
			stack = append(stack, altPos{nextGroup, 0})
			nextGroup++
		}
	}
	type edit struct {
		start, end int
		text       string
	}
	var edits []edit
	dups := map[string]int{}
	for _, name := range order {
		list := byName[name]
		if len(list) < 2 {
			continue
		}
		for a := 0; a < len(list); a++ {
			for b := a + 1; b < len(list); b++ {
				if !differentAlternatives(list[a].path, list[b].path) {
					return "", &Error{Msg: fmt.Sprintf("Invalid regular expression: /%s/%s: Duplicate capture group name", pattern, flags)}
				}
			}
		}
		dups[name] = len(list)
		for k := 1; k < len(list); k++ {
			edits = append(edits, edit{list[k].start, list[k].end, dupPrefix + strconv.Itoa(k) + "_" + name})
		}
	}
	if len(edits) == 0 {
		return pattern, nil
	}
	// backreferences to a repeated name
	classDepth = 0
	for i := 0; i < len(pattern); i++ {
		switch c := pattern[i]; {
		case c == '\\':
			if classDepth == 0 && strings.HasPrefix(pattern[i:], `\k<`) {
				end := strings.IndexByte(pattern[i+3:], '>')
				if end >= 0 {
					name := pattern[i+3 : i+3+end]
					if n := dups[name]; n > 0 {
						var b strings.Builder
						b.WriteString(`(?:\k<` + name + `>`)
						for k := 1; k < n; k++ {
							b.WriteString(`\k<` + dupPrefix + strconv.Itoa(k) + "_" + name + `>`)
						}
						b.WriteByte(')')
						edits = append(edits, edit{i, i + 3 + end + 1, b.String()})
					}
				}
			}
			i++
		case c == '[':
			classDepth++
		case c == ']' && classDepth > 0:
			classDepth--
		}
	}
	slices.SortFunc(edits, func(a, b edit) int { return a.start - b.start })
	var b strings.Builder
	pos := 0
	for _, e := range edits {
		b.WriteString(pattern[pos:e.start])
		b.WriteString(e.text)
		pos = e.end
	}
	b.WriteString(pattern[pos:])
	return b.String(), nil
}

// differentAlternatives: two groups' paths (the alternatives enclosing
// them, outermost first) part in different alternatives of one group.
func differentAlternatives(p, q []altPos) bool {
	for i := 0; i < len(p) && i < len(q); i++ {
		if p[i].group != q[i].group {
			return false
		}
		if p[i].alt != q[i].alt {
			return true
		}
	}
	return false
}
