package tokens

import (
	_ "embed"
	"encoding/binary"
	"fmt"
	"hash/maphash"
	"math"
	"sync"

	"github.com/dlclark/regexp2/v2"
)

// The o200k_base vocabulary, written by gen_vocab.go from
// github.com/tiktoken-go/tokenizer's: n, n+1 offsets, then the bytes of
// every token back to back (token r is bytes[offset[r]:offset[r+1]]), all
// in read-only data. With the index that lookup builds on first use (a
// []uint32, which holds no pointers) nothing of it is ever scanned by the
// garbage collector: the library's map[string]uint of 200,000 keys added
// ~5 ms to every GC cycle, and a persistent goja environment forces one
// every few hundred runs (docs/benchmarks.md, "The stdio path, round 3").
//
//go:embed o200k_base.bin
var o200kBase string

// splitPattern is o200k_base's pre-tokenizer, as the library's
// NewO200kBase compiles it.
const splitPattern = `[^\r\n\p{L}\p{N}]?[\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}]*[\p{Ll}\p{Lm}\p{Lo}\p{M}]+(?i:'s|'t|'re|'ve|'m|'ll|'d)?|[^\r\n\p{L}\p{N}]?[\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}]+[\p{Ll}\p{Lm}\p{Lo}\p{M}]*(?i:'s|'t|'re|'ve|'m|'ll|'d)?|\p{N}{1,3}| ?[^\s\p{L}\p{N}]+[\r\n/]*|\s*[\r\n]+|\s+(?!\S)|\s+`

type vocab struct {
	n     int      // ranks
	data  string   // o200kBase
	index []uint32 // open addressing: rank+1, 0 for an empty slot
	mask  uint64
	seed  maphash.Seed
	split *regexp2.Regexp
}

var (
	vocabOnce sync.Once
	theVocab  *vocab
)

func loadVocab() *vocab {
	vocabOnce.Do(func() {
		v := &vocab{data: o200kBase, seed: maphash.MakeSeed()}
		v.n = int(binary.LittleEndian.Uint32([]byte(o200kBase[:4])))
		size := 1
		for size < 2*v.n {
			size <<= 1
		}
		v.index = make([]uint32, size)
		v.mask = uint64(size - 1)
		for r := range v.n {
			tok := v.token(r)
			if tok == "" {
				continue
			}
			i := maphash.String(v.seed, tok) & v.mask
			for v.index[i] != 0 {
				i = (i + 1) & v.mask
			}
			v.index[i] = uint32(r + 1)
		}
		v.split = regexp2.MustCompile(splitPattern, regexp2.None)
		theVocab = v
	})
	return theVocab
}

func (v *vocab) offset(r int) uint32 {
	i := 4 + 4*r
	return binary.LittleEndian.Uint32([]byte(v.data[i : i+4]))
}

// token returns rank r's bytes, "" for a rank without a token.
func (v *vocab) token(r int) string {
	base := 4 + 4*(v.n+1)
	return v.data[base+int(v.offset(r)) : base+int(v.offset(r+1))]
}

// rank returns the rank of the token s, if s is one.
func (v *vocab) rank(s string) (uint32, bool) {
	i := maphash.String(v.seed, s) & v.mask
	for {
		e := v.index[i]
		if e == 0 {
			return 0, false
		}
		if v.token(int(e-1)) == s {
			return e - 1, true
		}
		i = (i + 1) & v.mask
	}
}

// count counts the tokens of s as the library's Codec.Count does (its
// default error mode: the input unchanged).
func count(s string) (int, error) {
	v := loadVocab()
	n := 0
	m, err := v.split.FindStringMatch(s)
	if err != nil {
		return 0, fmt.Errorf("error matching: %v", err)
	}
	for m != nil {
		piece := m.String()
		if _, ok := v.rank(piece); ok {
			n++
		} else {
			n += v.mergeCount(piece)
		}
		m, err = v.split.FindNextMatch(m)
		if err != nil {
			return 0, fmt.Errorf("error matching: %v", err)
		}
	}
	return n, nil
}

// What follows is github.com/tiktoken-go/tokenizer's byte-pair merge
// (codec/codec.go, v0.10.0, MIT licence, Copyright (c) 2023 tiktoken-go),
// counting the parts instead of returning them, with the vocabulary looked
// up in ours.

// mergeHeapThreshold is the piece length, in bytes, from which mergeCount
// switches from the quadratic scan to the heap.
const mergeHeapThreshold = 96

// mergeCount returns the number of tokens byte-pair encoding merges piece
// into.
func (v *vocab) mergeCount(piece string) int {
	if len(piece) < mergeHeapThreshold {
		return v.mergeScan(piece)
	}
	return v.mergeHeap(piece)
}

type part struct {
	offset int
	rank   uint
}

// mergeScan repeatedly merges the leftmost pair of parts with the lowest
// rank, finding it with a linear scan: O(n²) for a piece of n bytes.
func (v *vocab) mergeScan(piece string) int {
	parts := make([]part, len(piece)+1)
	for i := range len(parts) {
		parts[i] = part{i, math.MaxUint}
	}
	getRank := func(index, skip int) uint {
		if index+skip+2 < len(parts) {
			start := parts[index].offset
			end := parts[index+skip+2].offset
			if rank, ok := v.rank(piece[start:end]); ok {
				return uint(rank)
			}
		}
		return math.MaxUint
	}
	for i := 0; i < len(parts)-2; i++ {
		parts[i].rank = getRank(i, 0)
	}
	for len(parts) > 1 {
		minRank := uint(math.MaxUint)
		minIndex := 0
		for i, p := range parts[:len(parts)-1] {
			if p.rank < minRank {
				minRank = p.rank
				minIndex = i
			}
		}
		if minRank == math.MaxUint {
			break
		}
		parts[minIndex].rank = getRank(minIndex, 1)
		if minIndex > 0 {
			parts[minIndex-1].rank = getRank(minIndex-1, 1)
		}
		parts = append(parts[:minIndex+1], parts[minIndex+2:]...)
	}
	return len(parts) - 1
}

// noRank marks a boundary that cannot merge with its successor, or that
// was removed by a merge.
const noRank = math.MaxUint32

// mergeNode is a part boundary in mergeHeap's doubly linked list; rank is
// the rank of the token formed by merging this part with the next one.
type mergeNode struct {
	prev, next int32
	rank       uint32
}

// mergeHeap counts the same parts as mergeScan in O(n log n).
func (v *vocab) mergeHeap(piece string) int {
	n := int32(len(piece))
	nodes := make([]mergeNode, n+1)
	for i := range nodes {
		nodes[i] = mergeNode{prev: int32(i) - 1, next: int32(i) + 1, rank: noRank}
	}
	nodes[n].next = -1
	rankOf := func(i int32) uint32 {
		j := nodes[i].next
		if j < 0 {
			return noRank
		}
		k := nodes[j].next
		if k < 0 {
			return noRank
		}
		if rank, ok := v.rank(piece[i:k]); ok {
			return rank
		}
		return noRank
	}
	candidates := make(mergeQueue, 0, n)
	for i := int32(0); i+2 <= n; i++ {
		if rank := rankOf(i); rank != noRank {
			nodes[i].rank = rank
			candidates = append(candidates, mergeCandidate{rank, i})
		}
	}
	candidates.init()
	for len(candidates) > 0 {
		top := candidates.pop()
		i := top.offset
		if nodes[i].rank != top.rank {
			continue
		}
		j := nodes[i].next
		k := nodes[j].next
		nodes[j].rank = noRank
		nodes[i].next = k
		if k >= 0 {
			nodes[k].prev = i
		}
		for _, b := range [2]int32{i, nodes[i].prev} {
			if b < 0 {
				continue
			}
			nodes[b].rank = rankOf(b)
			if nodes[b].rank != noRank {
				candidates.push(mergeCandidate{nodes[b].rank, b})
			}
		}
	}
	parts := 0
	for i := int32(0); i >= 0; i = nodes[i].next {
		parts++
	}
	return parts - 1
}

type mergeCandidate struct {
	rank   uint32
	offset int32
}

// mergeQueue is a binary min-heap of merge candidates ordered by rank,
// then by offset, so that among equal ranks the leftmost pair merges
// first.
type mergeQueue []mergeCandidate

func (h mergeQueue) less(a, b int) bool {
	if h[a].rank != h[b].rank {
		return h[a].rank < h[b].rank
	}
	return h[a].offset < h[b].offset
}

func (h mergeQueue) init() {
	for i := len(h)/2 - 1; i >= 0; i-- {
		h.down(i)
	}
}

func (h *mergeQueue) push(c mergeCandidate) {
	*h = append(*h, c)
	h.up(len(*h) - 1)
}

func (h *mergeQueue) pop() mergeCandidate {
	old := *h
	top := old[0]
	last := len(old) - 1
	old[0] = old[last]
	*h = old[:last]
	h.down(0)
	return top
}

func (h mergeQueue) up(i int) {
	for i > 0 {
		parent := (i - 1) / 2
		if !h.less(i, parent) {
			return
		}
		h[i], h[parent] = h[parent], h[i]
		i = parent
	}
}

func (h mergeQueue) down(i int) {
	for {
		child := 2*i + 1
		if child >= len(h) {
			return
		}
		if right := child + 1; right < len(h) && h.less(right, child) {
			child = right
		}
		if !h.less(child, i) {
			return
		}
		h[i], h[child] = h[child], h[i]
		i = child
	}
}
