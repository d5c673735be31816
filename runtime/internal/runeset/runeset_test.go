package runeset

import (
	"slices"
	"testing"
)

// TestAlgebra checks each operation against a membership test over a
// small universe, on a table of sets.
func TestAlgebra(t *testing.T) {
	const top = 40
	sets := []Set{nil, {0, 0}, {3, 7}, {0, top}, {1, 2, 5, 9, 20, 30}, {2, 4, 8, 8, 31, top}}
	in := func(s Set, c rune) bool {
		for i := 0; i+1 < len(s); i += 2 {
			if s[i] <= c && c <= s[i+1] {
				return true
			}
		}
		return false
	}
	canonical := func(s Set) bool {
		for i := 0; i+1 < len(s); i += 2 {
			if s[i] > s[i+1] || i > 0 && s[i-1]+1 >= s[i] {
				return false
			}
		}
		return len(s)%2 == 0
	}
	for _, a := range sets {
		for _, b := range sets {
			u, x, d, c := Union(a, b), Intersect(a, b), Subtract(a, b), Complement(a, top)
			for _, s := range []Set{u, x, d, c} {
				if !canonical(s) {
					t.Fatalf("a=%v b=%v: %v is not sorted, disjoint and merged", a, b, s)
				}
			}
			for r := rune(0); r <= top; r++ {
				if in(u, r) != (in(a, r) || in(b, r)) || in(x, r) != (in(a, r) && in(b, r)) ||
					in(d, r) != (in(a, r) && !in(b, r)) || in(c, r) != !in(a, r) {
					t.Fatalf("a=%v b=%v, rune %d: union %v, intersect %v, subtract %v, complement %v", a, b, r, u, x, d, c)
				}
			}
		}
	}
	if got := Normalize([]rune{9, 12, 1, 3, 4, 5, 11, 20}); !slices.Equal(got, Set{1, 5, 9, 20}) {
		t.Errorf("Normalize merges adjacent and overlapping pairs: got %v", got)
	}
}
