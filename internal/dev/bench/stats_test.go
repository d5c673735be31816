package bench

import (
	"math"
	"slices"
	"testing"
	"time"
)

func ms(v ...int) []time.Duration {
	out := make([]time.Duration, len(v))
	for i, x := range v {
		out[i] = time.Duration(x) * time.Millisecond
	}
	return out
}

func TestPercentile(t *testing.T) {
	hundred := make([]int, 100)
	for i := range hundred {
		hundred[i] = i + 1
	}
	tests := []struct {
		name   string
		sorted []time.Duration
		p      float64
		want   time.Duration
	}{
		{"empty", nil, 50, 0},
		{"one sample, median", ms(7), 50, 7 * time.Millisecond},
		{"one sample, p99", ms(7), 99, 7 * time.Millisecond},
		{"p0 is the minimum", ms(1, 2, 3), 0, 1 * time.Millisecond},
		{"p100 is the maximum", ms(1, 2, 3), 100, 3 * time.Millisecond},
		{"odd count median", ms(1, 2, 3, 4, 5), 50, 3 * time.Millisecond},
		{"even count median is the lower middle", ms(1, 2, 3, 4), 50, 2 * time.Millisecond},
		{"1..100 p95", ms(hundred...), 95, 95 * time.Millisecond},
		{"1..100 p99", ms(hundred...), 99, 99 * time.Millisecond},
		{"1..100 p50", ms(hundred...), 50, 50 * time.Millisecond},
		{"ten samples p95 is the largest", ms(1, 2, 3, 4, 5, 6, 7, 8, 9, 10), 95, 10 * time.Millisecond},
		{"ten samples p90", ms(1, 2, 3, 4, 5, 6, 7, 8, 9, 10), 90, 9 * time.Millisecond},
		{"over 100 clamps", ms(1, 2), 150, 2 * time.Millisecond},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := Percentile(tt.sorted, tt.p); got != tt.want {
				t.Errorf("Percentile(%v, %v): got %v, want %v", tt.sorted, tt.p, got, tt.want)
			}
		})
	}
}

func TestSummarize(t *testing.T) {
	tests := []struct {
		name    string
		samples []time.Duration
		want    Stats
	}{
		{"empty", nil, Stats{}},
		{"unsorted input", ms(5, 1, 4, 2, 3), Stats{Min: ms(1)[0], Median: ms(3)[0], P95: ms(5)[0], P99: ms(5)[0], Max: ms(5)[0], Mean: ms(3)[0]}},
		{"one slow outlier moves p99 and the mean, not the median", ms(1, 1, 1, 1, 1, 1, 1, 1, 1, 91), Stats{Min: ms(1)[0], Median: ms(1)[0], P95: ms(91)[0], P99: ms(91)[0], Max: ms(91)[0], Mean: ms(10)[0]}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := Summarize(slices.Clone(tt.samples)); got != tt.want {
				t.Errorf("Summarize(%v): got %+v, want %+v", tt.samples, got, tt.want)
			}
		})
	}
}

func TestExponent(t *testing.T) {
	tests := []struct {
		name           string
		x0, y0, x1, y1 float64
		want           float64
	}{
		{"linear", 10, 5, 100, 50, 1},
		{"quadratic", 10, 1, 100, 100, 2},
		{"constant", 1, 3, 1000, 3, 0},
		{"sub-linear (fixed cost)", 1, 100, 10, 110, math.Log10(1.1)},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := Exponent(tt.x0, tt.y0, tt.x1, tt.y1); math.Abs(got-tt.want) > 1e-9 {
				t.Errorf("Exponent: got %v, want %v", got, tt.want)
			}
		})
	}
	if got := Exponent(0, 1, 10, 1); !math.IsNaN(got) {
		t.Errorf("Exponent with x0 = 0: got %v, want NaN", got)
	}
}

func TestFormat(t *testing.T) {
	tests := []struct {
		name, got, want string
	}{
		{"ns", FormatDuration(812), "812ns"},
		{"µs", FormatDuration(45200 * time.Nanosecond), "45.2µs"},
		{"ms", FormatDuration(1234 * time.Microsecond), "1.23ms"},
		{"hundreds of ms", FormatDuration(120 * time.Millisecond), "120ms"},
		{"s", FormatDuration(2500 * time.Millisecond), "2.50s"},
		{"bytes", FormatBytes(512, 10), "512B"},
		{"KiB", FormatBytes(1536, 10), "1.50KiB"},
		{"MiB", FormatBytes(6<<20+(1<<19), 10), "6.50MiB"},
		{"count k", formatCount(10000), "10k"},
		{"count", formatCount(10), "10"},
	}
	for _, tt := range tests {
		if tt.got != tt.want {
			t.Errorf("%s: got %q, want %q", tt.name, tt.got, tt.want)
		}
	}
}
