package bench

import (
	"bytes"
	"encoding/xml"
	"errors"
	"io"
	"slices"
	"strings"
	"testing"
)

// svgSeries decodes doc as XML (failing on malformed XML) and returns, per
// group id (latency, sweep-calls, …), the data-series of its series groups,
// plus how many bars (rect with title) and points (circle) each group has.
func svgSeries(t *testing.T, doc []byte) (series map[string][]string, marks map[string]int) {
	t.Helper()
	series, marks = map[string][]string{}, map[string]int{}
	dec := xml.NewDecoder(bytes.NewReader(doc))
	var stack []string // enclosing group ids
	root := true
	for {
		tok, err := dec.Token()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			t.Fatalf("the SVG is not well-formed XML: %v", err)
		}
		switch el := tok.(type) {
		case xml.StartElement:
			if root {
				if el.Name.Local != "svg" || el.Name.Space != "http://www.w3.org/2000/svg" {
					t.Errorf("root element: got %v, want svg in the SVG namespace", el.Name)
				}
				root = false
			}
			id, class, data := "", "", ""
			for _, a := range el.Attr {
				switch a.Name.Local {
				case "id":
					id = a.Value
				case "class":
					class = a.Value
				case "data-series":
					data = a.Value
				}
			}
			group := ""
			if len(stack) > 0 {
				group = stack[len(stack)-1]
			}
			if el.Name.Local == "g" {
				if id == "" {
					id = group
				}
				stack = append(stack, id)
				if class == "series" {
					series[group] = append(series[group], data)
				}
			}
			if el.Name.Local == "rect" && group != "" && group != "legend" {
				marks[group]++
			}
			if el.Name.Local == "circle" {
				marks[group]++
			}
		case xml.EndElement:
			if el.Name.Local == "g" {
				stack = stack[:len(stack)-1]
			}
		}
	}
	if root {
		t.Fatalf("the SVG is empty")
	}
	return series, marks
}

func TestSVG(t *testing.T) {
	var buf bytes.Buffer
	if err := syntheticReport().WriteSVG(&buf); err != nil {
		t.Fatal(err)
	}
	series, marks := svgSeries(t, buf.Bytes())
	tests := []struct {
		group string
		want  []string
		marks int
	}{
		// trivial, calls10 and repl in both modes; the failed cpu row is left out.
		{"latency", []string{"goja/per-call", "goja/persistent"}, 6},
		{"sweep-calls", []string{"goja/per-call"}, 4},
		{"sweep-repl", []string{"goja/per-call", "goja/persistent"}, 6},
	}
	for _, tt := range tests {
		if got := series[tt.group]; !slices.Equal(got, tt.want) {
			t.Errorf("%s series: got %q, want %q", tt.group, got, tt.want)
		}
		if got := marks[tt.group]; got != tt.marks {
			t.Errorf("%s marks: got %d, want %d", tt.group, got, tt.marks)
		}
	}
	if strings.Contains(buf.String(), "NaN") || strings.Contains(buf.String(), "Inf") {
		t.Errorf("the SVG has a NaN or Inf coordinate")
	}
}

func TestSVGEscapesAndEmpty(t *testing.T) {
	r := syntheticReport()
	r.Rows[0].Engine = `go<ja>&"` // names are ours, but the writer must not trust them
	r.derive()
	var buf bytes.Buffer
	if err := r.WriteSVG(&buf); err != nil {
		t.Fatal(err)
	}
	series, _ := svgSeries(t, buf.Bytes())
	if !slices.Contains(series["latency"], `go<ja>&"/per-call`) {
		t.Errorf("latency series: got %q, want the escaped name to decode back", series["latency"])
	}

	buf.Reset()
	empty := newReport(Options{Via: ViaInProcess, N: 1, Concurrency: 1})
	if err := empty.WriteSVG(&buf); err != nil {
		t.Fatal(err)
	}
	if series, _ := svgSeries(t, buf.Bytes()); len(series) != 0 {
		t.Errorf("empty report: got series %q, want none", series)
	}
}
