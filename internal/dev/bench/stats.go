package bench

import (
	"math"
	"slices"
	"time"
)

// Stats summarises the latencies of one row's timed runs.
type Stats struct {
	Min, Median, P95, P99, Max, Mean time.Duration
}

// Percentile returns the p-th percentile (0 ≤ p ≤ 100) of sorted by the
// nearest-rank method: the smallest sample such that at least p% of the
// samples are less than or equal to it. It returns 0 for no samples.
//
// Why nearest rank rather than interpolation? Every figure it reports is a
// latency that was actually observed, and p99 of 200 runs is the second
// slowest run, which is what a reader expects.
func Percentile(sorted []time.Duration, p float64) time.Duration {
	n := len(sorted)
	if n == 0 {
		return 0
	}
	if p <= 0 {
		return sorted[0]
	}
	rank := int(math.Ceil(p / 100 * float64(n)))
	if rank > n {
		rank = n
	}
	return sorted[rank-1]
}

// Summarize computes Stats over samples (which it sorts in place).
func Summarize(samples []time.Duration) Stats {
	if len(samples) == 0 {
		return Stats{}
	}
	slices.Sort(samples)
	var sum time.Duration
	for _, d := range samples {
		sum += d
	}
	return Stats{
		Min:    samples[0],
		Median: Percentile(samples, 50),
		P95:    Percentile(samples, 95),
		P99:    Percentile(samples, 99),
		Max:    samples[len(samples)-1],
		Mean:   sum / time.Duration(len(samples)),
	}
}

// Exponent is the slope of log(y) against log(x) between two points: 1 for
// linear growth, 2 for quadratic. It returns NaN when a value is not
// positive.
func Exponent(x0, y0, x1, y1 float64) float64 {
	if x0 <= 0 || y0 <= 0 || x1 <= 0 || y1 <= 0 || x0 == x1 {
		return math.NaN()
	}
	return math.Log(y1/y0) / math.Log(x1/x0)
}
