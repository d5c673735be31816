package runtime

import (
	"bufio"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
)

// TotalMemoryFraction is the share of the machine's memory (the cgroup
// limit or the physical memory, whichever is smaller) that
// [DefaultTotalMemory] gives the governor: the rest is for the process
// itself (Go runtime, MCP sessions, upstream buffers) and what the engines
// overshoot (goja's watchdog is not exact).
const TotalMemoryFraction = 0.75

// fallbackMemory is assumed when neither a cgroup limit nor the physical
// memory can be read.
const fallbackMemory = 4 << 30

var (
	machineOnce sync.Once
	machineMem  int64
)

// MachineMemory reports the memory the process may use: the cgroup's limit
// (v2 memory.max, else v1 memory.limit_in_bytes) or the physical memory,
// whichever is smaller; 4 GiB when neither can be read.
func MachineMemory() int64 {
	machineOnce.Do(func() {
		machineMem = physicalMemory()
		if c := cgroupLimit("/proc/self/cgroup", "/sys/fs/cgroup"); c > 0 && (machineMem <= 0 || c < machineMem) {
			machineMem = c
		}
		if machineMem <= 0 {
			machineMem = fallbackMemory
		}
	})
	return machineMem
}

// DefaultTotalMemory is the governor's default budget:
// [TotalMemoryFraction] of [MachineMemory].
func DefaultTotalMemory() int64 { return int64(float64(MachineMemory()) * TotalMemoryFraction) }

// cgroupLimit reads the memory limit of the process's cgroup under root
// (given /proc/self/cgroup's path), v2 first; 0 when there is none.
func cgroupLimit(self, root string) int64 {
	var v2, v1 []string // candidate files, most specific first
	if f, err := os.Open(self); err == nil {
		sc := bufio.NewScanner(f)
		for sc.Scan() {
			// hierarchy-ID:controller-list:path
			parts := strings.SplitN(sc.Text(), ":", 3)
			if len(parts) != 3 {
				continue
			}
			switch {
			case parts[0] == "0" && parts[1] == "":
				v2 = append(v2, filepath.Join(root, parts[2], "memory.max"))
			case hasController(parts[1], "memory"):
				v1 = append(v1, filepath.Join(root, "memory", parts[2], "memory.limit_in_bytes"))
			}
		}
		f.Close()
	}
	v2 = append(v2, filepath.Join(root, "memory.max"))
	v1 = append(v1, filepath.Join(root, "memory", "memory.limit_in_bytes"))
	for _, p := range append(v2, v1...) {
		if n, ok := readLimit(p); ok {
			return n
		}
	}
	return 0
}

func hasController(list, name string) bool {
	for _, c := range strings.Split(list, ",") {
		if c == name {
			return true
		}
	}
	return false
}

// noLimit is above any real limit: cgroup v1 reports "unlimited" as a
// number near 2^63 rounded down to a page.
const noLimit = 1 << 60

// readLimit reads a cgroup limit file; ok is false when it is missing,
// unreadable, or says there is no limit ("max", or a v1 near-2^63 figure).
func readLimit(path string) (int64, bool) {
	b, err := os.ReadFile(path)
	if err != nil {
		return 0, false
	}
	s := strings.TrimSpace(string(b))
	if s == "max" {
		return 0, false
	}
	n, err := strconv.ParseInt(s, 10, 64)
	if err != nil || n <= 0 || n >= noLimit {
		return 0, false
	}
	return n, true
}
