package tokens

import (
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/tiktoken-go/tokenizer/codec"
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

// Count agrees with the library whose vocabulary and merge it carries
// (github.com/tiktoken-go/tokenizer), over the repository's documents and
// over pieces that take each path: whole tokens, the quadratic merge, the
// heap merge (pieces of 96 bytes and more), numbers, whitespace, other
// scripts and invalid UTF-8.
func TestCountAgreesWithTheLibrary(t *testing.T) {
	lib := codec.NewO200kBase()
	texts := []string{
		"hello world", "  \n\n\t x", "1234567890 3.14159 -42", "naïve café 日本語のテキスト 😀👍🏽",
		"a\xffb\xc3", strings.Repeat("abcdefghij", 40), strings.Repeat("zq", 200), strings.Repeat("x", 97),
		strings.Repeat("ab1 ", 100), "They're we'll I'd YOU'LL", strings.Repeat("\u0301", 120),
		`{"name":"code_run","arguments":{"code":"return 1 + 1"}}`,
		"SGVsbG8gd29ybGQhIFRoaXMgaXMgYSBsb25nIGJhc2U2NCBzdHJpbmcgdGhhdCBzaG91bGQgdGFrZSB0aGUgaGVhcCBwYXRoIGluIHRoZSBtZXJnZQ",
	}
	docs, _ := filepath.Glob("../../docs/*.md")
	for _, d := range append(docs, "../../RATIONALE.md", "../../README.md") {
		b, err := os.ReadFile(d)
		if err != nil {
			continue
		}
		for len(b) > 0 {
			n := min(len(b), 4000)
			texts = append(texts, string(b[:n]))
			b = b[n:]
		}
	}
	if len(texts) < 50 {
		t.Fatalf("only %d texts: the documents were not found", len(texts))
	}
	for _, s := range texts {
		want, err := lib.Count(s)
		if err != nil {
			t.Fatal(err)
		}
		if got := Count(s); got != want {
			t.Errorf("Count(%.60q…) = %d, the library says %d", s, got, want)
		}
	}
}

func BenchmarkCount(b *testing.B) {
	s := strings.Repeat(`ticker(args: {symbol: string}): Promise<{symbol: string; price: number}> `, 20)
	Count(s)
	b.ReportAllocs()
	for b.Loop() {
		Count(s)
	}
}
