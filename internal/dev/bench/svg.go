package bench

import (
	"bytes"
	"encoding/xml"
	"fmt"
	"io"
	"math"
	"time"
)

// The chart's geometry, in SVG user units.
const (
	svgWidth    = 960
	svgMarginL  = 80
	svgMarginR  = 24
	svgTitleH   = 100 // title, subtitle, legend, first panel's title
	svgPlotH    = 300
	svgAxisH    = 64 // below a plot: tick labels and the axis title
	svgPanelGap = 40
	svgLegendW  = 180
)

// seriesColors are assigned in order of first appearance: per engine a
// dark shade for per-call and a light one for persistent.
var seriesColors = map[string]string{
	"goja/per-call":     "#1f5f99",
	"goja/persistent":   "#6fa8dc",
	"wazero/per-call":   "#a8322d",
	"wazero/persistent": "#e8908a",
}

func seriesColor(name string, i int) string {
	if c, ok := seriesColors[name]; ok {
		return c
	}
	fallback := []string{"#4d7f3a", "#9bc48a", "#7a4d99", "#c2a3d9"}
	return fallback[i%len(fallback)]
}

// WriteSVG draws the report: median latency per workload, engine and mode
// as bars on a log scale (with a tick at p99), then one log-log panel per
// sweep family. Failed rows are left out. The SVG is self-contained: no
// scripts, fonts or external references.
func (r *Report) WriteSVG(w io.Writer) error {
	c := &svgCanvas{}
	var bars []Row
	var series []string
	seen := map[string]bool{}
	addSeries := func(s string) {
		if !seen[s] {
			seen[s] = true
			series = append(series, s)
		}
	}
	for _, row := range r.Rows {
		if row.Error != "" || row.Stats.Median <= 0 {
			continue
		}
		addSeries(row.Engine + "/" + row.Mode)
		if IsStandard(row.Workload) {
			bars = append(bars, row)
		}
	}
	families := map[string][]Sweep{}
	var familyOrder []string
	for _, s := range r.Sweeps {
		if _, ok := families[s.Family]; !ok {
			familyOrder = append(familyOrder, s.Family)
		}
		families[s.Family] = append(families[s.Family], s)
	}

	y := float64(svgTitleH)
	height := y
	if len(bars) > 0 {
		height += svgPlotH + svgAxisH + svgPanelGap
	}
	if len(familyOrder) > 0 {
		height += svgPlotH + svgAxisH + svgPanelGap
	}
	height -= svgPanelGap / 2
	c.printf(`<svg xmlns="http://www.w3.org/2000/svg" width="%d" height="%.0f" viewBox="0 0 %d %.0f" font-family="DejaVu Sans, Helvetica, Arial, sans-serif" font-size="12">`+"\n", svgWidth, height, svgWidth, height)
	c.printf(`<rect width="100%%" height="100%%" fill="#ffffff"/>` + "\n")
	c.text(svgWidth/2, 24, "middle", 16, fmt.Sprintf("codemode bench: %s, n=%d, concurrency %d", r.Via, r.N, r.Concurrency))
	c.text(svgWidth/2, 42, "middle", 11, fmt.Sprintf("%s/%s, %d CPUs, %s, %s", r.OS, r.Arch, r.CPUs, r.Go, r.Started.Format(time.DateOnly)))

	c.printf(`<g id="legend">` + "\n")
	lx := (svgWidth - float64(len(series))*svgLegendW) / 2
	for i, s := range series {
		x := lx + float64(i)*svgLegendW
		c.printf(`<rect x="%.1f" y="56" width="14" height="14" fill="%s"/>`+"\n", x, seriesColor(s, i))
		c.text(x+20, 67, "start", 12, s)
	}
	c.printf("</g>\n")
	if len(bars) > 0 {
		c.barPanel(y, bars, series)
		y += svgPlotH + svgAxisH + svgPanelGap
	}
	if len(familyOrder) > 0 {
		c.sweepPanels(y, familyOrder, families, series)
	}
	c.printf("</svg>\n")
	_, err := w.Write(c.buf.Bytes())
	return err
}

type svgCanvas struct{ buf bytes.Buffer }

func (c *svgCanvas) printf(format string, args ...any) { fmt.Fprintf(&c.buf, format, args...) }

func (c *svgCanvas) text(x, y float64, anchor string, size int, s string) {
	c.printf(`<text x="%.1f" y="%.1f" text-anchor="%s" font-size="%d">%s</text>`+"\n", x, y, anchor, size, escape(s))
}

func escape(s string) string {
	var b bytes.Buffer
	_ = xml.EscapeText(&b, []byte(s))
	return b.String()
}

// logScale maps [lo, hi] (powers of ten) onto [from, to] logarithmically.
type logScale struct{ lo, hi, from, to float64 }

// newLogScale spans whole decades around [min, max]; with room, it adds a
// decade below a minimum that sits near a decade's start (so the smallest
// bar still shows).
func newLogScale(min, max, from, to float64, room bool) logScale {
	lo := math.Pow(10, math.Floor(math.Log10(min)))
	if room && min/lo < 2 {
		lo /= 10 // room below the smallest value, so its bar shows
	}
	hi := math.Pow(10, math.Ceil(math.Log10(max)))
	if hi <= lo {
		hi = lo * 10
	}
	return logScale{lo, hi, from, to}
}

func (s logScale) at(v float64) float64 {
	f := (math.Log10(v) - math.Log10(s.lo)) / (math.Log10(s.hi) - math.Log10(s.lo))
	return s.from + f*(s.to-s.from)
}

// decades lists the powers of ten from lo to hi.
func (s logScale) decades() []float64 {
	var out []float64
	for v := s.lo; v <= s.hi*1.0001; v *= 10 {
		out = append(out, v)
	}
	return out
}

// yAxis draws the horizontal gridlines and duration labels of a latency
// axis between x0 and x1.
func (c *svgCanvas) yAxis(s logScale, x0, x1 float64, title string) {
	for _, v := range s.decades() {
		y := s.at(v)
		c.printf(`<line x1="%.1f" y1="%.1f" x2="%.1f" y2="%.1f" stroke="#dddddd"/>`+"\n", x0, y, x1, y)
		c.text(x0-6, y+4, "end", 11, FormatDuration(time.Duration(v)))
	}
	mid := (s.from + s.to) / 2
	c.printf(`<text x="%.1f" y="%.1f" text-anchor="middle" font-size="12" transform="rotate(-90 %.1f %.1f)">%s</text>`+"\n", x0-62, mid, x0-62, mid, escape(title))
}

func (c *svgCanvas) barPanel(top float64, rows []Row, series []string) {
	var groups []string
	byGroup := map[string][]Row{}
	lo, hi := math.Inf(1), 0.0
	for _, row := range rows {
		if _, ok := byGroup[row.Workload]; !ok {
			groups = append(groups, row.Workload)
		}
		byGroup[row.Workload] = append(byGroup[row.Workload], row)
		lo = math.Min(lo, float64(row.Stats.Median))
		hi = math.Max(hi, float64(max(row.Stats.P99, row.Stats.Median)))
	}
	x0, x1 := float64(svgMarginL), float64(svgWidth-svgMarginR)
	bottom := top + svgPlotH
	s := newLogScale(lo, hi, bottom, top, true)
	c.printf(`<g id="latency">` + "\n")
	c.text((x0+x1)/2, top-8, "middle", 13, "median latency per code_run (bar) and p99 (tick), log scale")
	c.yAxis(s, x0, x1, "latency")
	groupW := (x1 - x0) / float64(len(groups))
	barW := groupW * 0.8 / float64(len(series))
	for si, name := range series {
		c.printf(`<g class="series" data-series="%s" fill="%s">`+"\n", escape(name), seriesColor(name, si))
		for gi, g := range groups {
			for _, row := range byGroup[g] {
				if row.Engine+"/"+row.Mode != name {
					continue
				}
				x := x0 + float64(gi)*groupW + groupW*0.1 + float64(si)*barW
				yv := s.at(float64(row.Stats.Median))
				c.printf(`<rect x="%.1f" y="%.1f" width="%.1f" height="%.1f"><title>%s %s: median %s, p95 %s, p99 %s</title></rect>`+"\n",
					x, yv, barW-1, bottom-yv, escape(name), escape(row.Workload),
					FormatDuration(row.Stats.Median), FormatDuration(row.Stats.P95), FormatDuration(row.Stats.P99))
				if row.Stats.P99 > 0 {
					yp := s.at(float64(row.Stats.P99))
					c.printf(`<line x1="%.1f" y1="%.1f" x2="%.1f" y2="%.1f" stroke="#333333" stroke-width="1.5"/>`+"\n", x+1, yp, x+barW-2, yp)
				}
			}
		}
		c.printf("</g>\n")
	}
	c.printf(`<line x1="%.1f" y1="%.1f" x2="%.1f" y2="%.1f" stroke="#333333"/>`+"\n", x0, bottom, x1, bottom)
	for gi, g := range groups {
		c.text(x0+(float64(gi)+0.5)*groupW, bottom+18, "middle", 12, g)
	}
	c.text((x0+x1)/2, bottom+44, "middle", 12, "workload")
	c.printf("</g>\n")
}

func (c *svgCanvas) sweepPanels(top float64, order []string, families map[string][]Sweep, series []string) {
	const gap = 90.0
	n := float64(len(order))
	panelW := (float64(svgWidth-svgMarginL-svgMarginR) - gap*(n-1)) / n
	bottom := top + svgPlotH
	index := map[string]int{}
	for i, s := range series {
		index[s] = i
	}
	for fi, family := range order {
		x0 := float64(svgMarginL) + float64(fi)*(panelW+gap)
		x1 := x0 + panelW
		xlo, xhi, ylo, yhi := math.Inf(1), 0.0, math.Inf(1), 0.0
		for _, s := range families[family] {
			for _, p := range s.Points {
				xlo, xhi = math.Min(xlo, float64(p.Param)), math.Max(xhi, float64(p.Param))
				ylo, yhi = math.Min(ylo, float64(p.Median)), math.Max(yhi, float64(p.Median))
			}
		}
		if xhi <= 0 || yhi <= 0 {
			continue
		}
		xs := newLogScale(xlo, xhi, x0, x1, false)
		ys := newLogScale(ylo, yhi, bottom, top, true)
		unit := "nested calls per program"
		if family == "repl" {
			unit = "records held (repl)"
		}
		c.printf(`<g id="sweep-%s">`+"\n", escape(family))
		c.text((x0+x1)/2, top-8, "middle", 13, fmt.Sprintf("growth: %s (median, log-log)", family))
		c.yAxis(ys, x0, x1, "latency")
		for _, v := range xs.decades() {
			x := xs.at(v)
			c.printf(`<line x1="%.1f" y1="%.1f" x2="%.1f" y2="%.1f" stroke="#eeeeee"/>`+"\n", x, top, x, bottom)
			c.text(x, bottom+18, "middle", 11, formatCount(int(v)))
		}
		c.printf(`<line x1="%.1f" y1="%.1f" x2="%.1f" y2="%.1f" stroke="#333333"/>`+"\n", x0, bottom, x1, bottom)
		c.text((x0+x1)/2, bottom+44, "middle", 12, unit)
		for _, s := range families[family] {
			name := s.Engine + "/" + s.Mode
			color := seriesColor(name, index[name])
			c.printf(`<g class="series" data-series="%s" stroke="%s" fill="%s">`+"\n", escape(name), color, color)
			var pts bytes.Buffer
			for i, p := range s.Points {
				if i > 0 {
					pts.WriteByte(' ')
				}
				fmt.Fprintf(&pts, "%.1f,%.1f", xs.at(float64(p.Param)), ys.at(float64(p.Median)))
			}
			c.printf(`<polyline points="%s" fill="none" stroke-width="2"/>`+"\n", pts.String())
			for _, p := range s.Points {
				c.printf(`<circle cx="%.1f" cy="%.1f" r="3.5"><title>%s %s=%d: %s</title></circle>`+"\n",
					xs.at(float64(p.Param)), ys.at(float64(p.Median)), escape(name), escape(family), p.Param, FormatDuration(p.Median))
			}
			c.printf("</g>\n")
		}
		c.printf("</g>\n")
	}
}
