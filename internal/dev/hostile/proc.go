package hostile

import (
	"bytes"
	"fmt"
	"os"
	"strconv"
	"strings"
	"sync"
	"time"
)

// clockTick is USER_HZ, 100 on every Linux this runs on.
const clockTick = 100

// status reads VmRSS and VmHWM of pid, in bytes.
func status(pid int) (rss, hwm int64, err error) {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		return 0, 0, err
	}
	for _, line := range strings.Split(string(b), "\n") {
		k, v, ok := strings.Cut(line, ":")
		if !ok || (k != "VmRSS" && k != "VmHWM") {
			continue
		}
		f := strings.Fields(v)
		if len(f) == 0 {
			continue
		}
		n, _ := strconv.ParseInt(f[0], 10, 64)
		if k == "VmRSS" {
			rss = n << 10
		} else {
			hwm = n << 10
		}
	}
	return rss, hwm, nil
}

// resetPeak resets pid's VmHWM to its current RSS (clear_refs 5); it
// reports whether the kernel allowed it.
func resetPeak(pid int) bool {
	return os.WriteFile(fmt.Sprintf("/proc/%d/clear_refs", pid), []byte("5"), 0) == nil
}

// cpuTime reads utime+stime of pid.
func cpuTime(pid int) (time.Duration, error) {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return 0, err
	}
	i := bytes.LastIndexByte(b, ')')
	if i < 0 {
		return 0, fmt.Errorf("/proc/%d/stat: no ')'", pid)
	}
	f := strings.Fields(string(b[i+1:]))
	// After the command: state is field 3, utime 14 and stime 15.
	if len(f) < 13 {
		return 0, fmt.Errorf("/proc/%d/stat: short", pid)
	}
	u, _ := strconv.ParseInt(f[11], 10, 64)
	s, _ := strconv.ParseInt(f[12], 10, 64)
	return time.Duration(u+s) * time.Second / clockTick, nil
}

// alive reports whether pid exists and is not a zombie.
func alive(pid int) bool {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return false
	}
	i := bytes.LastIndexByte(b, ')')
	return i >= 0 && len(b) > i+2 && b[i+2] != 'Z' && b[i+2] != 'X'
}

// sampler keeps the highest VmRSS of a process, read every interval, and
// optionally every sample. With hwm it also counts VmHWM, the kernel's
// own peak since exec (or since resetPeak).
type sampler struct {
	hwm     bool
	mu      sync.Mutex
	max     int64
	samples []int64
	stop    chan struct{}
	done    chan struct{}
}

func startSampler(pid int, every time.Duration, keep, hwm bool) *sampler {
	s := &sampler{hwm: hwm, stop: make(chan struct{}), done: make(chan struct{})}
	go func() {
		defer close(s.done)
		t := time.NewTicker(every)
		defer t.Stop()
		for {
			if rss, hwm, err := status(pid); err == nil {
				s.mu.Lock()
				s.max = max(s.max, rss)
				if s.hwm {
					s.max = max(s.max, hwm)
				}
				if keep {
					s.samples = append(s.samples, rss)
				}
				s.mu.Unlock()
			}
			select {
			case <-s.stop:
				return
			case <-t.C:
			}
		}
	}()
	return s
}

// end stops the sampler and returns the highest RSS seen and the samples.
func (s *sampler) end() (int64, []int64) {
	close(s.stop)
	<-s.done
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.max, s.samples
}
