//go:build ignore

// gen_vocab writes o200k_base.bin, the o200k_base vocabulary in the form
// package tokens reads (vocab.go): a little-endian uint32 n, then n+1
// little-endian uint32 offsets, then the tokens' bytes, token i being
// bytes[offset[i]:offset[i+1]] (empty for a rank without a token). The
// vocabulary is github.com/tiktoken-go/tokenizer's, read through its
// public Decode.
//
//	go generate ./internal/tokens
package main

import (
	"encoding/binary"
	"log"
	"os"

	"github.com/tiktoken-go/tokenizer/codec"
)

func main() {
	c := codec.NewO200kBase()
	const n = 200_000 // o200k_base's ranks are below 199,998; special tokens are not in the vocabulary
	var offsets []uint32
	var data []byte
	last := 0
	for id := range n {
		offsets = append(offsets, uint32(len(data)))
		s, err := c.Decode([]uint{uint(id)})
		if err != nil {
			continue
		}
		data = append(data, s...)
		last = id
	}
	offsets = append(offsets, uint32(len(data)))
	offsets = offsets[:last+2]
	out := binary.LittleEndian.AppendUint32(nil, uint32(last+1))
	for _, o := range offsets {
		out = binary.LittleEndian.AppendUint32(out, o)
	}
	out = append(out, data[:offsets[last+1]]...)
	if err := os.WriteFile("o200k_base.bin", out, 0o644); err != nil {
		log.Fatal(err)
	}
}
