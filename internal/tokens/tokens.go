// Package tokens counts text the way a model's tokenizer does, so that what
// codemode puts in a model's prompt can be budgeted and reported in the unit
// a context window is measured in.
//
//	n := tokens.Count(description) // o200k_base tokens
//
// The encoding is OpenAI's o200k_base (GPT-4o and later), byte-pair
// encoded as github.com/tiktoken-go/tokenizer does it, with its vocabulary
// compiled into the binary: nothing is downloaded, ever. Other model
// families tokenize differently (Anthropic's tokenizer is not public); for
// English and JSON the counts of current BPE vocabularies agree within a
// few percent, which is what a budget needs (RATIONALE.md, "Why is the
// catalog budget counted in tokens?").
//
// The vocabulary is kept where the garbage collector never looks (see
// vocab.go): the library's own is a map of 200,000 strings in a package
// variable, which every GC cycle of a long-running server marked again.
// Count is safe for concurrent use.
package tokens

//go:generate go run gen_vocab.go

// Encoding names the encoding [Count] uses.
const Encoding = "o200k_base"

// Count returns the number of tokens of s. Invalid UTF-8 is counted as the
// encoder sees its bytes; Count never fails.
func Count(s string) int {
	if s == "" {
		return 0
	}
	n, err := count(s)
	if err != nil {
		// Only a regexp timeout fails, and none is set: count
		// something proportional rather than nothing.
		return (len(s) + 3) / 4
	}
	return n
}
