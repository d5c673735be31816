package codemode

import (
	"encoding/json"
	"math"
	"sort"
	"strings"
	"unicode"

	"github.com/codemode/codemode/tools"
)

type searchHit struct {
	index int
	score float64
}

// search ranks infos against query with BM25 over a document per tool made
// of its name (weighted ×3), parameter names (×2) and description (×1).
func search(infos []tools.Info, query string, limit int) []searchHit {
	q := tokenize(query)
	if len(q) == 0 || len(infos) == 0 {
		return nil
	}
	docs := make([][]string, len(infos))
	df := map[string]int{}
	total := 0
	for i, in := range infos {
		var d []string
		name := tokenize(in.Name)
		for range 3 {
			d = append(d, name...)
		}
		params := tokenize(strings.Join(paramNames(in.InputSchema), " "))
		d = append(d, params...)
		d = append(d, params...)
		d = append(d, tokenize(in.Description)...)
		docs[i] = d
		total += len(d)
		seen := map[string]bool{}
		for _, t := range d {
			if !seen[t] {
				seen[t] = true
				df[t]++
			}
		}
	}
	const k1, b = 1.2, 0.75
	avg := float64(total) / float64(len(docs))
	n := float64(len(docs))
	lq := strings.ToLower(strings.TrimSpace(query))
	var hits []searchHit
	for i, d := range docs {
		tf := map[string]int{}
		for _, t := range d {
			tf[t]++
		}
		score := 0.0
		for _, t := range q {
			f := float64(tf[t])
			if f == 0 {
				continue
			}
			idf := math.Log(1 + (n-float64(df[t])+0.5)/(float64(df[t])+0.5))
			score += idf * f * (k1 + 1) / (f + k1*(1-b+b*float64(len(d))/avg))
		}
		// An exact name or name-suffix match beats any bag-of-words score.
		ln := strings.ToLower(infos[i].Name)
		if ln == lq || strings.HasSuffix(ln, "__"+lq) {
			score += 10
		}
		if score > 0 {
			hits = append(hits, searchHit{index: i, score: math.Round(score*1000) / 1000})
		}
	}
	sort.SliceStable(hits, func(i, j int) bool { return hits[i].score > hits[j].score })
	if len(hits) > limit {
		hits = hits[:limit]
	}
	return hits
}

// tokenize splits on non-alphanumerics and camelCase, lowercases, and drops
// the "mcp" namespace marker that every upstream tool shares.
func tokenize(s string) []string {
	var out []string
	var cur []rune
	flush := func() {
		if len(cur) > 0 {
			t := strings.ToLower(string(cur))
			if t != "mcp" && t != "the" && t != "a" && t != "an" && t != "of" && t != "to" {
				out = append(out, t)
			}
			cur = cur[:0]
		}
	}
	var prev rune
	for _, r := range s {
		switch {
		case unicode.IsLetter(r) || unicode.IsDigit(r):
			if unicode.IsUpper(r) && unicode.IsLower(prev) {
				flush()
			}
			cur = append(cur, r)
		default:
			flush()
		}
		prev = r
	}
	flush()
	return out
}

func paramNames(schema json.RawMessage) []string {
	var s struct {
		Properties map[string]json.RawMessage `json:"properties"`
	}
	_ = json.Unmarshal(schema, &s)
	names := make([]string, 0, len(s.Properties))
	for k := range s.Properties {
		names = append(names, k)
	}
	sort.Strings(names)
	return names
}
