// Package tokens counts text the way a model's tokenizer does, so that what
// codemode puts in a model's prompt can be budgeted and reported in the unit
// a context window is measured in.
//
//	n := tokens.Count(description) // o200k_base tokens
//
// The encoding is OpenAI's o200k_base (GPT-4o and later), byte-pair encoded
// by github.com/tiktoken-go/tokenizer, whose vocabulary is compiled into the
// binary: nothing is downloaded, ever. Other model families tokenize
// differently (Anthropic's tokenizer is not public); for English and JSON
// the counts of current BPE vocabularies agree within a few percent, which
// is what a budget needs (RATIONALE.md, "Why is the catalog budget counted
// in tokens?").
//
// The vocabulary is built on first use (tens of milliseconds, about 10 MB
// of heap), not at program start. Count is safe for concurrent use.
package tokens

import (
	"sync"

	"github.com/tiktoken-go/tokenizer/codec"
)

// Encoding names the encoding [Count] uses.
const Encoding = "o200k_base"

var (
	once sync.Once
	enc  *codec.Codec
)

// Count returns the number of tokens of s. Invalid UTF-8 is counted as the
// encoder sees its bytes; Count never fails.
func Count(s string) int {
	if s == "" {
		return 0
	}
	once.Do(func() { enc = codec.NewO200kBase() })
	n, err := enc.Count(s)
	if err != nil {
		// Only the strict error mode fails, and it is not set: count
		// something proportional rather than nothing.
		return (len(s) + 3) / 4
	}
	return n
}
