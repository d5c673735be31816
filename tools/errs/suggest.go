package errs

import (
	"sort"
	"strings"
)

// Suggest returns up to max names close to name: by edit distance, by
// suffix (a bare "ticker" finds "mcp__fake__ticker") or by substring.
// Closest first.
func Suggest(name string, names []string, max int) []string {
	type hit struct {
		name string
		d    int
	}
	lname := strings.ToLower(name)
	var hits []hit
	for _, n := range names {
		ln := strings.ToLower(n)
		d := levenshtein(lname, ln)
		limit := len(lname)/3 + 1
		switch {
		case d <= limit:
		case lname != "" && (strings.HasSuffix(ln, "__"+lname) || strings.HasSuffix(ln, "_"+lname)):
			d = 1
		case len(lname) >= 3 && strings.Contains(ln, lname):
			d = limit + 1
		default:
			continue
		}
		hits = append(hits, hit{n, d})
	}
	sort.SliceStable(hits, func(i, j int) bool {
		if hits[i].d != hits[j].d {
			return hits[i].d < hits[j].d
		}
		return hits[i].name < hits[j].name
	})
	var out []string
	for _, h := range hits {
		if len(out) == max {
			break
		}
		out = append(out, h.name)
	}
	return out
}

func levenshtein(a, b string) int {
	ra, rb := []rune(a), []rune(b)
	prev := make([]int, len(rb)+1)
	cur := make([]int, len(rb)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(ra); i++ {
		cur[0] = i
		for j := 1; j <= len(rb); j++ {
			cost := 1
			if ra[i-1] == rb[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
		}
		prev, cur = cur, prev
	}
	return prev[len(rb)]
}
