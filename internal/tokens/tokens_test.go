package tokens

import (
	"sync"
	"testing"
)

func TestCount(t *testing.T) {
	tests := []struct {
		name string
		text string
		want int
	}{
		{"empty", "", 0},
		{"two words", "hello world", 2},
		{"a signature", `ticker(args: {symbol: string}): Promise<{symbol: string; price: number}>`, 19},
		{"invalid UTF-8 is counted, not refused", "a\xffb", 3},
	}
	for _, tt := range tests {
		if got := Count(tt.text); got != tt.want {
			t.Errorf("%s: Count(%q) = %d, want %d", tt.name, tt.text, got, tt.want)
		}
	}
}

func TestCountConcurrently(t *testing.T) {
	var wg sync.WaitGroup
	for range 8 {
		wg.Go(func() {
			if got := Count("hello world"); got != 2 {
				t.Errorf("got %d, want 2", got)
			}
		})
	}
	wg.Wait()
}
