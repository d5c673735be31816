package regexlower

import (
	"slices"
	"sync"
	"unicode"
)

// charset is a set of code points (or, without the u and v flags, UTF-16
// code units) as inclusive pairs (lo, hi), ascending and disjoint.
type charset []rune

const maxRune = unicode.MaxRune

func single(c rune) charset { return charset{c, c} }

// normalize sorts and merges arbitrary pairs.
func normalize(r []rune) charset {
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
	out := make(charset, 0, len(r))
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

func union(a, b charset) charset {
	if len(a) == 0 {
		return b
	}
	if len(b) == 0 {
		return a
	}
	r := make([]rune, 0, len(a)+len(b))
	r = append(r, a...)
	r = append(r, b...)
	return normalize(r)
}

// complement is the complement within [0, max].
func complement(a charset, max rune) charset {
	var out charset
	next := rune(0)
	for i := 0; i < len(a); i += 2 {
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

func intersect(a, b charset) charset {
	var out charset
	i, j := 0, 0
	for i < len(a) && j < len(b) {
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

func subtract(a, b charset) charset { return intersect(a, complement(b, maxRune)) }

// folding is one of the two case-insensitive equivalences of ECMA-262:
// Unicode simple case folding (u and v flags) or the toUpperCase rule on
// code units (neither).
type folding struct {
	orbits map[rune][]rune // every char whose class has more than one member → the class, ascending
	cased  []rune          // the keys of orbits, ascending
	rep    map[rune]rune   // char → its class's representative (smallest member)
}

var (
	unicodeFoldOnce, legacyFoldOnce sync.Once
	unicodeFold, legacyFold         *folding
)

func foldingFor(unicodeMode bool) *folding {
	if unicodeMode {
		unicodeFoldOnce.Do(func() {
			f := &folding{orbits: map[rune][]rune{}, rep: map[rune]rune{}}
			for _, cr := range unicode.CaseRanges {
				for c := rune(cr.Lo); c <= rune(cr.Hi); c++ {
					if _, ok := f.orbits[c]; ok {
						continue
					}
					orbit := []rune{c}
					for o := unicode.SimpleFold(c); o != c; o = unicode.SimpleFold(o) {
						orbit = append(orbit, o)
					}
					if len(orbit) < 2 {
						continue
					}
					slices.Sort(orbit)
					for _, o := range orbit {
						f.orbits[o] = orbit
					}
				}
			}
			f.finish()
			unicodeFold = f
		})
		return unicodeFold
	}
	legacyFoldOnce.Do(func() {
		f := &folding{orbits: map[rune][]rune{}, rep: map[rune]rune{}}
		byCanon := map[rune][]rune{}
		canon := map[rune]rune{}
		for i := 0; i < len(nonUnicodeCanon); i += 2 {
			canon[rune(nonUnicodeCanon[i])] = rune(nonUnicodeCanon[i+1])
		}
		canonOf := func(c rune) rune {
			if u, ok := canon[c]; ok {
				return u
			}
			return c
		}
		seen := map[rune]bool{}
		for c, u := range canon {
			for _, x := range []rune{c, u} {
				if !seen[x] {
					seen[x] = true
					byCanon[canonOf(x)] = append(byCanon[canonOf(x)], x)
				}
			}
		}
		for _, members := range byCanon {
			if len(members) < 2 {
				continue
			}
			slices.Sort(members)
			for _, m := range members {
				f.orbits[m] = members
			}
		}
		f.finish()
		legacyFold = f
	})
	return legacyFold
}

func (f *folding) finish() {
	for c, o := range f.orbits {
		f.cased = append(f.cased, c)
		f.rep[c] = o[0]
	}
	slices.Sort(f.cased)
}

// orbit is the chars that match c case-insensitively (c itself when none).
func (f *folding) orbit(c rune) []rune {
	if o, ok := f.orbits[c]; ok {
		return o
	}
	return []rune{c}
}

// casedIn is the chars of s whose class has other members.
func (f *folding) casedIn(s charset) []rune {
	var out []rune
	for i := 0; i < len(s); i += 2 {
		lo, hi := s[i], s[i+1]
		j, _ := slices.BinarySearch(f.cased, lo)
		for ; j < len(f.cased) && f.cased[j] <= hi; j++ {
			out = append(out, f.cased[j])
		}
	}
	return out
}

// closure is every char that matches a member of s case-insensitively.
func (f *folding) closure(s charset) charset {
	var extra []rune
	for _, c := range f.casedIn(s) {
		for _, o := range f.orbits[c] {
			extra = append(extra, o, o)
		}
	}
	if len(extra) == 0 {
		return s
	}
	return union(s, normalize(extra))
}

// fold maps each member of s to its class's representative (the v flag's
// MaybeSimpleCaseFolding, with the smallest member standing for scf).
func (f *folding) fold(s charset) charset {
	cased := f.casedIn(s)
	if len(cased) == 0 {
		return s
	}
	var rm, add []rune
	for _, c := range cased {
		rm = append(rm, c, c)
		r := f.rep[c]
		add = append(add, r, r)
	}
	return union(subtract(s, normalize(rm)), normalize(add))
}

// nonCanonical is the chars that are not their class's representative.
func (f *folding) nonCanonical() charset {
	var r []rune
	for _, c := range f.cased {
		if f.rep[c] != c {
			r = append(r, c, c)
		}
	}
	return normalize(r)
}
