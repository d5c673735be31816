package quickjs

import (
	"context"
	"encoding/json"
	"fmt"
	"math"
	"time"

	"github.com/tetratelabs/wazero/api"
	"github.com/tetratelabs/wazero/sys"
)

// The Go implementations of the module's imports, replacing emscripten's JS
// glue. Sandbox policy lives here too: no environment variables, UTC as the
// only time zone, stdout/stderr captured (bounded) instead of printed, and
// no timers (emscripten's setitimer backs alarm(), which QuickJS never uses).

// processStart anchors the monotonic clock.
var processStart = time.Now()

const stderrCap = 4096

// tzNameMax is emscripten's TZNAME_MAX: the bytes of a zone name tzset may
// write, before its NUL.
const tzNameMax = 6

type hostFunc func(ctx context.Context, m api.Module, st []uint64)

var hostFuncs = map[string]hostFunc{
	"__assert_fail": func(ctx context.Context, m api.Module, st []uint64) {
		i := instanceOf(ctx)
		cond, _ := i.ReadCString(uint32(st[0]))
		file, _ := i.ReadCString(uint32(st[1]))
		fn, _ := i.ReadCString(uint32(st[3]))
		i.exited = true
		panic(fmt.Errorf("quickjs: assertion failed: %s at %s:%d (%s)", cond, file, uint32(st[2]), fn))
	},
	"abort": func(ctx context.Context, m api.Module, st []uint64) {
		instanceOf(ctx).exited = true
		panic(fmt.Errorf("quickjs: abort() called"))
	},
	"proc_exit": func(ctx context.Context, m api.Module, st []uint64) {
		instanceOf(ctx).exited = true
		panic(sys.NewExitError(uint32(st[0])))
	},
	"_emscripten_runtime_keepalive_clear": func(ctx context.Context, m api.Module, st []uint64) {},
	"_localtime_js": func(ctx context.Context, m api.Module, st []uint64) {
		// struct tm of the given Unix time in the runtime's time zone
		// (RuntimeOptions.Location, UTC unless configured): programs do
		// not learn the host's.
		t := time.Unix(int64(st[0]), 0).In(instanceOf(ctx).r.loc)
		_, off := t.Zone()
		isDST := 0
		if t.IsDST() {
			isDST = 1
		}
		p := uint32(st[1])
		mem := m.Memory()
		for k, v := range []int{t.Second(), t.Minute(), t.Hour(), t.Day(), int(t.Month()) - 1,
			t.Year() - 1900, int(t.Weekday()), t.YearDay() - 1, isDST, off /* gmtoff */} {
			mem.WriteUint32Le(p+uint32(4*k), uint32(int32(v)))
		}
	},
	"_setitimer_js": func(ctx context.Context, m api.Module, st []uint64) { st[0] = 0 },
	"_tzset_js": func(ctx context.Context, m api.Module, st []uint64) {
		// As emscripten's: the standard offset (seconds west of UTC) and
		// whether the zone has summer time, from January and July of this
		// year in the runtime's time zone, and the two zones' names.
		loc := instanceOf(ctx).r.loc
		y := time.Now().Year()
		wName, wOff := time.Date(y, time.January, 1, 0, 0, 0, 0, loc).Zone()
		sName, sOff := time.Date(y, time.July, 1, 0, 0, 0, 0, loc).Zone()
		std, dst := wName, sName
		if sOff < wOff { // southern hemisphere: July is winter
			std, dst = sName, wName
		}
		mem := m.Memory()
		mem.WriteUint32Le(uint32(st[0]), uint32(int32(-min(wOff, sOff))))
		daylight := uint32(0)
		if wOff != sOff {
			daylight = 1
		}
		mem.WriteUint32Le(uint32(st[1]), daylight)
		// emscripten's tzset reserves TZNAME_MAX+1 = 7 bytes for each name
		// (its JS writes them with stringToUTF8(name, ptr, 7)): six bytes
		// and the NUL, never more, or the write runs into the next static.
		mem.Write(uint32(st[2]), append([]byte(std[:min(len(std), tzNameMax)]), 0))
		mem.Write(uint32(st[3]), append([]byte(dst[:min(len(dst), tzNameMax)]), 0))
	},
	"clock_time_get": func(ctx context.Context, m api.Module, st []uint64) {
		var ns int64
		switch uint32(st[0]) {
		case 0: // realtime
			ns = time.Now().UnixNano()
		case 1, 2, 3: // monotonic, process and thread CPU time
			ns = int64(time.Since(processStart))
		default:
			st[0] = 28 // EINVAL
			return
		}
		m.Memory().WriteUint64Le(uint32(st[2]), uint64(ns))
		st[0] = 0
	},
	"emscripten_date_now": func(ctx context.Context, m api.Module, st []uint64) {
		st[0] = math.Float64bits(float64(time.Now().UnixNano()) / 1e6)
	},
	"emscripten_resize_heap": func(ctx context.Context, m api.Module, st []uint64) {
		want := uint64(uint32(st[0]))
		st[0] = 0
		if instanceOf(ctx).growHeap(want) {
			st[0] = 1
		}
	},
	"environ_get": func(ctx context.Context, m api.Module, st []uint64) { st[0] = 0 },
	"environ_sizes_get": func(ctx context.Context, m api.Module, st []uint64) {
		m.Memory().WriteUint32Le(uint32(st[0]), 0)
		m.Memory().WriteUint32Le(uint32(st[1]), 0)
		st[0] = 0
	},
	"fd_close": func(ctx context.Context, m api.Module, st []uint64) { st[0] = 52 }, // ENOSYS, as the glue
	"fd_seek":  func(ctx context.Context, m api.Module, st []uint64) { st[0] = 70 }, // ESPIPE, as the glue
	"fd_write": func(ctx context.Context, m api.Module, st []uint64) {
		i := instanceOf(ctx)
		mem := m.Memory()
		iov, n, total := uint32(st[1]), uint32(st[2]), uint32(0)
		for k := uint32(0); k < n; k++ {
			ptr, _ := mem.ReadUint32Le(iov + 8*k)
			l, _ := mem.ReadUint32Le(iov + 8*k + 4)
			if b, ok := mem.Read(ptr, l); ok && i.stderr.Len() < stderrCap {
				i.stderr.Write(b[:min(len(b), stderrCap-i.stderr.Len())])
			}
			total += l
		}
		mem.WriteUint32Le(uint32(st[3]), total)
		st[0] = 0
	},
	"qts_host_call_function": func(ctx context.Context, m api.Module, st []uint64) {
		i := instanceOf(ctx)
		if i.Hooks.Call == nil {
			st[0] = 0
			return
		}
		st[0] = uint64(i.Hooks.Call(Context(st[0]), uint32(st[2]), uint32(st[3]), uint32(st[4])))
	},
	"qts_host_interrupt_handler": func(ctx context.Context, m api.Module, st []uint64) {
		i := instanceOf(ctx)
		if i.stopped.Load() {
			panic(errStopped)
		}
		if st[0] == 0 {
			// The loop poll (addPolling): QuickJS always passes its
			// JSRuntime, never 0. Being here already gave the Go scheduler
			// a preemption point, and a hard stop has trapped above.
			return
		}
		st[0] = 0
		if i.Hooks.Interrupt != nil && i.Hooks.Interrupt() {
			st[0] = 1
		}
	},
	"qts_host_load_module_source": func(ctx context.Context, m api.Module, st []uint64) {
		// Every import() gets a module that throws, so the program sees
		// an Error that says what to do instead of QuickJS's terse one.
		i := instanceOf(ctx)
		name, _ := i.ReadCString(uint32(st[2]))
		q, _ := json.Marshal("import() is not available in code mode (cannot load " + name + "): use the global tools object, e.g. await tools[\"name\"](args)")
		p, err := i.CString("throw new Error(" + string(q) + ");")
		if err != nil {
			p = 0 // QuickJS reports the failed load itself
		}
		st[0] = uint64(p)
	},
	"qts_host_normalize_module": func(ctx context.Context, m api.Module, st []uint64) {
		i := instanceOf(ctx)
		name, _ := i.ReadCString(uint32(st[3]))
		p, _ := i.CString(name)
		st[0] = uint64(p)
	},
	"qts_host_free_host_ref": func(ctx context.Context, m api.Module, st []uint64) {},
}

// growHeap implements emscripten_resize_heap: grow the memory so that it
// holds at least want bytes, never past the instance's cap. Like
// emscripten, it over-allocates a little (20%, at most 96 MiB) so that a
// growing heap does not call back for every page.
func (i *Instance) growHeap(want uint64) bool {
	cur := uint64(i.mem.Size())
	if want <= cur {
		return true
	}
	limit := uint64(i.limitBytes.Load()) &^ (pageSize - 1)
	if want > limit {
		i.refused = true
		return false
	}
	target := max(want, min(cur+cur/5, want+96<<20))
	target = min((target+pageSize-1)&^(pageSize-1), limit)
	if _, ok := i.mem.Grow(uint32((target - cur) / pageSize)); !ok {
		i.refused = true
		return false
	}
	return true
}

// instantiateHost builds the host module under the import module name the
// glue uses, exporting each Go function under its minified name.
func (r *Runtime) instantiateHost(ctx context.Context) error {
	b := r.wr.NewHostModuleBuilder(r.abi.importModule)
	want := map[string]sig{}
	for _, ip := range importPatterns {
		want[ip.name] = ip.sig
	}
	for min, sem := range r.abi.imports {
		if sem == "memory" {
			continue
		}
		f, ok := hostFuncs[sem]
		if !ok {
			return fmt.Errorf("no Go implementation of import %s", sem)
		}
		sg := want[sem]
		b.NewFunctionBuilder().
			WithGoModuleFunction(api.GoModuleFunc(f), sg.params, sg.results).
			WithName(sem).
			Export(min)
	}
	_, err := b.Instantiate(ctx)
	return err
}
