package regexlower

import (
	"github.com/codemode/codemode/runtime/internal/runeset"
	"slices"
	"sync"
	"unicode"
)

// charset is a set of code points (or, without the u and v flags, UTF-16
// code units) as inclusive pairs (lo, hi), ascending and disjoint.
type charset = runeset.Set

const maxRune = unicode.MaxRune

func single(c rune) charset { return charset{c, c} }

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
	return runeset.Union(s, runeset.Normalize(extra))
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
	return runeset.Union(runeset.Subtract(s, runeset.Normalize(rm)), runeset.Normalize(add))
}

// nonCanonical is the chars that are not their class's representative.
func (f *folding) nonCanonical() charset {
	var r []rune
	for _, c := range f.cased {
		if f.rep[c] != c {
			r = append(r, c, c)
		}
	}
	return runeset.Normalize(r)
}
