package main

import (
	"log/slog"
	"os"
	goruntime "runtime/debug"

	"github.com/codemode/codemode/runtime"
)

// goLimitShare is Go's soft memory limit over the governor's budget: at
// the default budget (3/4 of the machine) the limit is 9/10 of it, room
// for what is not the programs' before the kernel's OOM killer would act.
const goLimitShare = 1.2

// setGoMemoryLimit sets Go's soft memory limit from the memory governor's
// budget, unless GOMEMLIMIT is set (the operator's word wins), and returns
// it (0 when left alone) and a function that ends the GC tuning it starts
// with it (for tests). goja's programs live on the Go heap: without a
// limit the collector lets the heap double between cycles, so a process
// whose reservations fit the budget could still reach twice it in garbage
// (see RATIONALE.md, "Why does serve set Go's memory limit?"). Under the
// limit, a heap floor (startGCTuner) spares a small heap most cycles.
func setGoMemoryLimit(gov *runtime.Governor, log *slog.Logger) (int64, func()) {
	if gov == nil || gov.Budget() <= 0 {
		return 0, func() {}
	}
	if v, ok := os.LookupEnv("GOMEMLIMIT"); ok {
		log.Debug("memory: GOMEMLIMIT is set; Go's memory limit left as it says", slog.String("GOMEMLIMIT", v))
		return 0, func() {}
	}
	limit := int64(float64(gov.Budget()) * goLimitShare)
	goruntime.SetMemoryLimit(limit)
	log.Debug("memory: budgets set", slog.Int64("governorBytes", gov.Budget()), slog.Int64("goMemoryLimitBytes", limit))
	return limit, startGCTuner(limit, log)
}
