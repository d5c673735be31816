package bench

import (
	"fmt"
	"io"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"
)

// WriteTable writes the report as text for a terminal: a header, one line
// per row, the persistent speed-ups and the sweeps' growth.
func (r *Report) WriteTable(w io.Writer) error {
	var b strings.Builder
	via := r.Via
	if r.Client != "" {
		via += " (" + r.Client + " client)"
	}
	fmt.Fprintf(&b, "codemode bench: %s, n=%d, warm-up %d, concurrency %d; %s/%s, %d CPUs, %s; took %s\n",
		via, r.N, r.Warmup, r.Concurrency, r.OS, r.Arch, r.CPUs, r.Go, FormatDuration(r.Elapsed))
	for _, e := range r.Engines {
		if !e.Available {
			fmt.Fprintf(&b, "%s: unavailable (%s)\n", e.Name, e.Reason)
		}
	}
	b.WriteByte('\n')
	cells := [][]string{{"engine", "mode", "workload", "n", "median", "p95", "p99", "runs/s", "allocs/run", "bytes/run", "heap/env", "rss/env", "setup"}}
	cpu := false
	for _, row := range r.Rows {
		cpu = cpu || row.ServerCPU > 0 || row.ClientCPU > 0
	}
	if cpu {
		cells[0] = append(cells[0], "cpu/run", "client cpu/run")
	}
	var failures []string
	capped := false
	for _, row := range r.Rows {
		if row.Error != "" {
			cells = append(cells, []string{row.Engine, row.Mode, row.Workload, strconv.Itoa(row.N), "FAIL"})
			failures = append(failures, fmt.Sprintf("FAIL %s %s %s: %s", row.Engine, row.Mode, row.Workload, row.Error))
			continue
		}
		n := strconv.Itoa(row.N)
		if row.TimeCapped {
			n += "*"
			capped = true
		}
		line := []string{
			row.Engine, row.Mode, row.Workload, n,
			FormatDuration(row.Stats.Median), FormatDuration(row.Stats.P95), FormatDuration(row.Stats.P99),
			formatRate(row.Throughput), dash(row.AllocsPerRun, strconv.FormatInt), dash(row.BytesPerRun, FormatBytes),
			dash(row.HeapPerEnv, FormatBytes), dash(row.RSSPerEnv, FormatBytes), dashDuration(row.Setup),
		}
		if cpu {
			line = append(line, dashDuration(row.ServerCPU), dashDuration(row.ClientCPU))
		}
		cells = append(cells, line)
	}
	writeColumns(&b, cells, 3)
	if capped {
		fmt.Fprintf(&b, "* fewer runs than n: the row stopped at its time budget (--row-time %s)\n", r.RowTime)
	}
	for _, f := range failures {
		b.WriteString(f + "\n")
	}
	if len(r.Speedups) > 0 {
		b.WriteString("\npersistent over per-call (median):\n")
		for _, s := range r.Speedups {
			fmt.Fprintf(&b, "  %-7s %-9s %s records: %s → %s = %.0f×\n", s.Engine, s.Workload, formatCount(s.Param),
				FormatDuration(s.PerCall), FormatDuration(s.Persistent), s.Factor)
		}
	}
	if len(r.Sweeps) > 0 {
		b.WriteString("\ngrowth (median; marginal cost per unit; steepest log-log slope, 1 = linear):\n")
		for _, s := range r.Sweeps {
			unit := "call"
			if s.Family == "repl" {
				unit = "record"
			}
			var parts []string
			for _, p := range s.Points {
				part := fmt.Sprintf("%s=%s", formatCount(p.Param), FormatDuration(p.Median))
				switch {
				case p.Marginal > 0:
					part += fmt.Sprintf(" (+%s/%s)", FormatDuration(p.Marginal), unit)
				case p.Marginal < 0:
					part += fmt.Sprintf(" (-%s/%s)", FormatDuration(-p.Marginal), unit)
				}
				parts = append(parts, part)
			}
			fmt.Fprintf(&b, "  %-5s %-7s %-10s %s; slope ≤ %.2f\n", s.Family, s.Engine, s.Mode, strings.Join(parts, ", "), s.MaxExponent)
		}
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// writeColumns writes cells as aligned columns two spaces apart: the first
// left columns flush left (names), the others flush right (numbers).
func writeColumns(b *strings.Builder, cells [][]string, left int) {
	var width []int
	for _, row := range cells {
		for i, c := range row {
			if i >= len(width) {
				width = append(width, 0)
			}
			width[i] = max(width[i], utf8.RuneCountInString(c))
		}
	}
	for _, row := range cells {
		var line strings.Builder
		for i, c := range row {
			if i > 0 {
				line.WriteString("  ")
			}
			pad := strings.Repeat(" ", width[i]-utf8.RuneCountInString(c))
			if i < left {
				line.WriteString(c + pad)
			} else {
				line.WriteString(pad + c)
			}
		}
		b.WriteString(strings.TrimRight(line.String(), " ") + "\n")
	}
}

func dash(v int64, f func(int64, int) string) string {
	if v == 0 {
		return "-"
	}
	return f(v, 10)
}

func dashDuration(d time.Duration) string {
	if d == 0 {
		return "-"
	}
	return FormatDuration(d)
}

// FormatDuration prints d with three significant digits: 812ns, 45.2µs,
// 1.23ms, 120ms, 2.50s.
func FormatDuration(d time.Duration) string {
	var v float64
	var unit string
	switch {
	case d < time.Microsecond:
		return fmt.Sprintf("%dns", int64(d))
	case d < time.Millisecond:
		v, unit = float64(d)/float64(time.Microsecond), "µs"
	case d < time.Second:
		v, unit = float64(d)/float64(time.Millisecond), "ms"
	default:
		v, unit = d.Seconds(), "s"
	}
	return sig3(v) + unit
}

// FormatBytes prints n bytes in binary units with three significant digits;
// base is ignored (it matches strconv.FormatInt's shape for dash).
func FormatBytes(n int64, _ int) string {
	v := float64(n)
	units := []string{"B", "KiB", "MiB", "GiB"}
	i := 0
	for v >= 1024 && i < len(units)-1 {
		v /= 1024
		i++
	}
	if i == 0 {
		return fmt.Sprintf("%dB", n)
	}
	return sig3(v) + units[i]
}

func sig3(v float64) string {
	switch {
	case v >= 100:
		return fmt.Sprintf("%.0f", v)
	case v >= 10:
		return fmt.Sprintf("%.1f", v)
	default:
		return fmt.Sprintf("%.2f", v)
	}
}

func formatRate(r float64) string {
	if r >= 100 {
		return fmt.Sprintf("%.0f", r)
	}
	return sig3(r)
}

// formatCount prints 1000 as 1k and 100000 as 100k.
func formatCount(n int) string {
	if n >= 1000 && n%1000 == 0 {
		return strconv.Itoa(n/1000) + "k"
	}
	return strconv.Itoa(n)
}
