package codemode

import (
	"context"
	"encoding/json"
	"fmt"
	goruntime "runtime"
	"slices"
	"syscall"
	"testing"
	"time"

	"github.com/codemode/codemode/ptc"
	"github.com/codemode/codemode/tools"
)

// BenchmarkInterleavedPTCCall is BenchmarkPTCCall's four cases for a loaded
// machine, where wall-clock ns/op swings by 3× and whole-process CPU time
// by ±1 µs per call: the cases run interleaved, in bursts of 2000 calls
// (one burst of each per iteration), each burst measured by the CPU time
// (user + sys) of the thread that makes the calls, and it reports each
// case's median CPU time per call over the bursts (bare-cpu-ns, ...) and
// the median of each burst's excess over the bare burst next to it
// (policy-added-ns, ...). Load that comes and goes hits the four cases
// alike. GC work on other threads is not counted (the cases allocate
// within one object of each other).
//
//	go test -run '^$' -bench BenchmarkInterleavedPTCCall -benchtime 200x ./codemode
func BenchmarkInterleavedPTCCall(b *testing.B) {
	const burst = 2000
	cases := []struct {
		name          string
		policy, audit bool
	}{{"bare", false, false}, {"policy", true, false}, {"audit", false, true}, {"policy+audit", true, true}}
	type runner struct {
		req  chan int
		res  chan time.Duration
		done chan *tools.Result
	}
	runners := make([]runner, len(cases))
	for i, c := range cases {
		h, agent := ptcCallHost(b, c.policy, c.audit)
		r := runner{req: make(chan int), res: make(chan time.Duration), done: make(chan *tools.Result, 1)}
		runners[i] = r
		h.Registry.Register(tools.PresetLayer("codemode"), tools.Tool{Name: "parent", Handler: func(ctx context.Context, e *tools.Execution) (*tools.Result, error) {
			goruntime.LockOSThread()
			defer goruntime.UnlockOSThread()
			c := ptc.New(h.Registry, e, ptc.Options{})
			args := json.RawMessage(`{}`)
			for n := range r.req {
				t0 := threadCPU()
				for range n {
					if _, _, err := c.Call(ctx, "mcp__fake__noop", args); err != nil {
						return nil, err
					}
				}
				r.res <- threadCPU() - t0
			}
			return nil, nil
		}})
		go func() {
			r.done <- h.Registry.Execute(context.Background(), tools.Input{CallID: "p", Name: "parent", Agent: agent, Timeout: time.Hour})
		}()
		r.req <- burst // warm up
		<-r.res
	}
	per := make([][]float64, len(cases))
	added := make([][]float64, len(cases))
	for b.Loop() {
		var bare float64
		for i, r := range runners {
			r.req <- burst
			ns := float64((<-r.res).Nanoseconds()) / burst
			per[i] = append(per[i], ns)
			if i == 0 {
				bare = ns
			} else {
				added[i] = append(added[i], ns-bare)
			}
		}
	}
	for i, r := range runners {
		close(r.req)
		if res := <-r.done; res.IsError {
			b.Fatal(res.TextOf())
		}
		b.ReportMetric(median(per[i]), cases[i].name+"-cpu-ns")
		if i > 0 {
			b.ReportMetric(median(added[i]), cases[i].name+"-added-ns")
		}
	}
}

func median(xs []float64) float64 {
	if len(xs) == 0 {
		return 0
	}
	xs = slices.Clone(xs)
	slices.Sort(xs)
	return xs[len(xs)/2]
}

// threadCPU is the CPU time (user + sys) of the calling thread.
func threadCPU() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(1 /* RUSAGE_THREAD */, &ru); err != nil {
		panic(fmt.Sprint("getrusage: ", err))
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
