// Package runeset is sets of code points (or UTF-16 code units) as sorted,
// disjoint, inclusive ranges: the pairs lo, hi, ascending. It is the range
// algebra of jsparse's Unicode property escapes and of regexlower's class
// rewriting, written once.
package runeset

import (
	"slices"
	"unicode"
)

// Set holds inclusive pairs (lo, hi), ascending and disjoint.
type Set []rune

// Normalize sorts and merges arbitrary pairs (a trailing odd rune is
// ignored) into a new Set.
func Normalize(r []rune) Set {
	n := len(r) / 2
	if n == 0 {
		return nil
	}
	type pair struct{ lo, hi rune }
	ps := make([]pair, n)
	for i := range ps {
		ps[i] = pair{r[2*i], r[2*i+1]}
	}
	slices.SortFunc(ps, func(a, b pair) int { return int(a.lo - b.lo) })
	out := make(Set, 0, len(r))
	for _, p := range ps {
		if k := len(out); k > 0 && out[k-1]+1 >= p.lo {
			if p.hi > out[k-1] {
				out[k-1] = p.hi
			}
			continue
		}
		out = append(out, p.lo, p.hi)
	}
	return out
}

// Union is a ∪ b, a new Set.
func Union(a, b Set) Set {
	r := make([]rune, 0, len(a)+len(b))
	r = append(r, a...)
	r = append(r, b...)
	return Normalize(r)
}

// Complement is the complement of a within [0, max].
func Complement(a Set, max rune) Set {
	var out Set
	next := rune(0)
	for i := 0; i+1 < len(a); i += 2 {
		if a[i] > next {
			out = append(out, next, a[i]-1)
		}
		next = a[i+1] + 1
	}
	if next <= max {
		out = append(out, next, max)
	}
	return out
}

// Intersect is a ∩ b.
func Intersect(a, b Set) Set {
	var out Set
	i, j := 0, 0
	for i+1 < len(a) && j+1 < len(b) {
		lo, hi := max(a[i], b[j]), min(a[i+1], b[j+1])
		if lo <= hi {
			out = append(out, lo, hi)
		}
		if a[i+1] < b[j+1] {
			i += 2
		} else {
			j += 2
		}
	}
	return out
}

// Subtract is a − b.
func Subtract(a, b Set) Set { return Intersect(a, Complement(b, unicode.MaxRune)) }
