package main

import (
	"log/slog"
	"os"
	goruntime "runtime"
	"runtime/debug"
	"runtime/metrics"
	"sync/atomic"
)

// gcHeapFloor is the heap the collector may grow to before a cycle while
// the live heap is small (see startGCTuner): at most 64 MiB, at most a
// sixteenth of Go's memory limit.
const gcHeapFloor = 64 << 20

// maxGCPercent bounds the GOGC the tuner sets (a live heap of a few MiB
// would otherwise ask for thousands).
const maxGCPercent = 2000

// gcPercentFor is the GOGC that lets a heap whose live part is live grow to
// floor before the next cycle, or 100 (Go's default) once live reaches half
// of floor: GOGC=100 already lets such a heap grow past floor.
func gcPercentFor(live, floor int64) int {
	if live <= 0 || 2*live >= floor {
		return 100
	}
	return int(min(floor*100/live-100, maxGCPercent))
}

// startGCTuner keeps a heap floor under Go's memory limit (limit, set by
// setGoMemoryLimit; nothing when it is 0 or GOGC is set, the operator's
// word): after every GC cycle it sets GOGC so that the next cycle starts
// when the heap reaches min(gcHeapFloor, limit/16), until the live heap is
// half of that, where it leaves GOGC at 100. With GOGC=100 a server whose
// live heap is ~10 MB (most of it the tokenizer's vocabulary) collected
// every ~10 MB allocated, and building a goja runtime per call allocates
// ~150 KB: GC marking was 12% of `serve`'s CPU answering per-call `return
// 1 + 1` over HTTP (docs/benchmarks.md, "Streamable HTTP per-call
// throughput"; RATIONALE.md, "Why does serve set Go's memory limit from the
// governor's budget?"). The memory it costs is bounded by the floor, not a
// multiple of the live heap, and the limit still binds first when the heap
// nears it. The returned stop restores GOGC=100 and ends the tuning (for
// tests).
func startGCTuner(limit int64, log *slog.Logger) (stop func()) {
	if limit <= 0 {
		return func() {}
	}
	if v, ok := os.LookupEnv("GOGC"); ok {
		log.Debug("memory: GOGC is set; left as it says", slog.String("GOGC", v))
		return func() {}
	}
	t := &gcTuner{floor: min(gcHeapFloor, limit/16), pct: 100, log: log,
		sample: []metrics.Sample{{Name: "/gc/heap/live:bytes"}}}
	t.tune()
	t.arm()
	return func() {
		t.stopped.Store(true)
		debug.SetGCPercent(100)
	}
}

// gcTuner re-tunes GOGC once per GC cycle, from a finalizer: an object it
// drops becomes garbage at once, and its finalizer runs after the next cycle
// that finds it so, where the tuner arms another.
type gcTuner struct {
	floor   int64
	pct     int // the GOGC set last; only the finalizer goroutine writes it after start
	log     *slog.Logger
	sample  []metrics.Sample
	stopped atomic.Bool
}

// gcSentinel holds a pointer so that it is not a tiny allocation (tiny
// objects share a block, and a finalizer on one may never run).
type gcSentinel struct{ t *gcTuner }

func (t *gcTuner) arm() {
	goruntime.SetFinalizer(&gcSentinel{t: t}, func(s *gcSentinel) {
		if s.t.stopped.Load() {
			return
		}
		s.t.tune()
		s.t.arm()
	})
}

func (t *gcTuner) tune() {
	metrics.Read(t.sample)
	if t.sample[0].Value.Kind() != metrics.KindUint64 {
		return
	}
	pct := gcPercentFor(int64(t.sample[0].Value.Uint64()), t.floor)
	if pct != t.pct && !t.stopped.Load() {
		debug.SetGCPercent(pct)
		t.pct = pct
		t.log.Debug("memory: GOGC tuned", slog.Int("GOGC", pct), slog.Uint64("liveBytes", t.sample[0].Value.Uint64()), slog.Int64("floorBytes", t.floor))
	}
}
