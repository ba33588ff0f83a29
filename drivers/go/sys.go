package main

import (
	"bytes"
	"os"
	"runtime"
	"runtime/metrics"
	"strconv"
	"strings"
	"syscall"
	"time"
)

// ---------------------------------------------------------------- clocks

// A mark is taken at each phase boundary: the monotonic clock (time.Now
// carries a monotonic reading) and the process CPU time from getrusage.
// ru is a package variable so that taking a mark allocates nothing.
var ru syscall.Rusage

type mark struct {
	t   time.Time
	cpu int64 // user+system CPU of the whole process, ns (µs resolution)
}

func cpuNow() int64 {
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return ru.Utime.Nano() + ru.Stime.Nano()
}

func now() mark {
	c := cpuNow()
	return mark{t: time.Now(), cpu: c}
}

// since returns wall and CPU ns from a to b.
func between(a, b mark) (int64, int64) {
	return b.t.Sub(a.t).Nanoseconds(), b.cpu - a.cpu
}

// ---------------------------------------------------------------- memory

// statusField reads one "Name:   value kB" field of /proc/self/status in
// bytes (kB fields) or as a plain number.
func statusField(name string) int64 {
	data, err := os.ReadFile("/proc/self/status")
	if err != nil {
		return 0
	}
	for _, line := range bytes.Split(data, []byte{'\n'}) {
		if bytes.HasPrefix(line, []byte(name+":")) {
			f := strings.Fields(string(line[len(name)+1:]))
			if len(f) == 0 {
				return 0
			}
			v, _ := strconv.ParseInt(f[0], 10, 64)
			if len(f) > 1 && f[1] == "kB" {
				v *= 1024
			}
			return v
		}
	}
	return 0
}

func readRSS() int64 { return statusField("VmRSS") }

// runtimeMem is the Go runtime's own accounting of the memory in use:
// MemStats.StackInuse + MemStats.HeapInuse. ReadMemStats stops the world, so
// it is only ever called outside timed phases.
func runtimeMem() int64 {
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	return int64(ms.StackInuse + ms.HeapInuse)
}

// bytesPerGoroutine is our estimate, for the pre-spawn limit check, of what
// one idle goroutine costs with its channel: a 2 KiB initial stack (Go may
// start goroutines with a larger, average-based stack), the g struct
// (~400 B), an hchan (96 B) and a sudog while blocked. Measured with the
// spawn workload at about 2.7 KB (README.md); 4 KiB leaves room for GC
// headroom.
const bytesPerGoroutine = 4096

// availableMemory returns the bytes this process may still use and where the
// number comes from: MemAvailable of /proc/meminfo, lowered by a cgroup v2
// memory.max when one is set.
func availableMemory() (int64, string) {
	avail, src := int64(-1), ""
	if data, err := os.ReadFile("/proc/meminfo"); err == nil {
		for _, line := range strings.Split(string(data), "\n") {
			if strings.HasPrefix(line, "MemAvailable:") {
				f := strings.Fields(line[len("MemAvailable:"):])
				if len(f) > 0 {
					if v, err := strconv.ParseInt(f[0], 10, 64); err == nil {
						avail, src = v*1024, "MemAvailable in /proc/meminfo"
					}
				}
			}
		}
	}
	if cg := cgroupDir(); cg != "" {
		maxb, err1 := os.ReadFile(cg + "/memory.max")
		curb, err2 := os.ReadFile(cg + "/memory.current")
		if err1 == nil && err2 == nil {
			ms, cs := strings.TrimSpace(string(maxb)), strings.TrimSpace(string(curb))
			if ms != "max" {
				mx, e1 := strconv.ParseInt(ms, 10, 64)
				cur, e2 := strconv.ParseInt(cs, 10, 64)
				if e1 == nil && e2 == nil {
					left := mx - cur
					if avail < 0 || left < avail {
						avail, src = left, "the cgroup limit "+cg+"/memory.max minus memory.current"
					}
				}
			}
		}
	}
	return avail, src
}

// cgroupDir is this process's cgroup v2 directory, or "".
func cgroupDir() string {
	data, err := os.ReadFile("/proc/self/cgroup")
	if err != nil {
		return ""
	}
	for _, line := range strings.Split(string(data), "\n") {
		if strings.HasPrefix(line, "0::") {
			return "/sys/fs/cgroup" + strings.TrimSuffix(strings.TrimPrefix(line, "0::"), "/")
		}
	}
	return ""
}

// checkMemory refuses, with kind limit, to spawn procs goroutines when the
// memory they need is not available: better a clear error than being killed
// by the OOM killer half-way, or the Go runtime's fatal "out of memory".
func checkMemory(workload string, procs int64) {
	need := procs*bytesPerGoroutine + 64<<20 // + runtime and slack
	avail, src := availableMemory()
	if avail < 0 {
		return // cannot tell: go ahead
	}
	if need > avail {
		die(kindLimit, "memory: %s with %d goroutines needs about %d MiB (~%d bytes per goroutine and its channel) but only %d MiB is available (%s); free memory, raise the limit, or lower n",
			workload, procs, need>>20, bytesPerGoroutine, avail>>20, src)
	}
}

// ---------------------------------------------------------------- stats

// statsSnap is read (outside timed phases) before and after an iteration when
// stats=1.
type statsSnap struct {
	ms    runtime.MemStats
	gcCPU float64 // seconds, /cpu/classes/gc/total:cpu-seconds
}

var metricSamples = []metrics.Sample{{Name: "/cpu/classes/gc/total:cpu-seconds"}}

func takeStats() statsSnap {
	var s statsSnap
	runtime.ReadMemStats(&s.ms)
	metrics.Read(metricSamples)
	if metricSamples[0].Value.Kind() == metrics.KindFloat64 {
		s.gcCPU = metricSamples[0].Value.Float64()
	}
	return s
}

func emitStats(workload string, iteration int, before, after statsSnap, peakGoroutines int) {
	newRec("stats").Str("workload", workload).Int("iteration", int64(iteration)).
		Int("gomaxprocs", int64(runtime.GOMAXPROCS(0))).
		Int("gc_cycles", int64(after.ms.NumGC-before.ms.NumGC)).
		Uint("gc_pause_ns", after.ms.PauseTotalNs-before.ms.PauseTotalNs).
		Int("gc_cpu_ns", int64((after.gcCPU-before.gcCPU)*1e9)).
		Uint("gc_cycles_total", uint64(after.ms.NumGC)).
		Uint("gc_pause_total_ns", after.ms.PauseTotalNs).
		Int("goroutines_peak", int64(peakGoroutines)).
		Int("goroutines_now", int64(runtime.NumGoroutine())).
		Int("os_threads", statusField("Threads")).
		Uint("heap_inuse_bytes", after.ms.HeapInuse).
		Uint("stack_inuse_bytes", after.ms.StackInuse).
		Uint("sys_bytes", after.ms.Sys).
		Uint("mallocs", after.ms.Mallocs-before.ms.Mallocs).
		Uint("total_alloc_bytes", after.ms.TotalAlloc-before.ms.TotalAlloc).
		emit()
}
