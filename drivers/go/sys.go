package main

import (
	"bytes"
	"fmt"
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
// carries a monotonic reading), and from one getrusage call the process CPU
// time and its context switches. getrusage is read before the clock at a
// phase's start and after it at its end, so the wall interval holds no
// getrusage call. ru is a package variable so that a mark allocates nothing.
var ru syscall.Rusage

type mark struct {
	t           time.Time
	cpu         int64 // user+system CPU of the whole process, ns (µs resolution)
	vcsw, ivcsw int64 // voluntary and involuntary context switches of the whole process (every thread)
}

func (m *mark) readRusage() {
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return
	}
	m.cpu = ru.Utime.Nano() + ru.Stime.Nano()
	m.vcsw, m.ivcsw = ru.Nvcsw, ru.Nivcsw
}

// begin is the mark that starts a phase: getrusage, then the clock.
func begin() mark {
	var m mark
	m.readRusage()
	m.t = time.Now()
	return m
}

// end is the mark that ends a phase: the clock, then getrusage.
func end() mark {
	m := mark{t: time.Now()}
	m.readRusage()
	return m
}

// phase is what one timed phase measured (contract section 4).
type phase struct {
	ns, cpuNs   int64
	vcsw, ivcsw int64
}

// between returns what was measured from mark a to mark b.
func between(a, b mark) phase {
	return phase{ns: b.t.Sub(a.t).Nanoseconds(), cpuNs: b.cpu - a.cpu, vcsw: b.vcsw - a.vcsw, ivcsw: b.ivcsw - a.ivcsw}
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

// firstSpawn holds the memory read around the first spawn phase of this
// driver process (contract section 3): before spawning, and after the one
// forced collection of the process, which follows that first spawn phase (or
// first tree). Every later iteration echoes these
// values, so a per-process figure is never read after a warm-up let the
// runtime reuse freed goroutines and stacks.
var firstSpawn struct {
	before, after bool
	rssBefore     int64
	rssAfter      int64
	rssPeak       int64 // tree: VmHWM just after the first tree's phase
	memBefore     int64 // runtime_mem_*: StackInuse+HeapInuse
	memAfter      int64
}

// resetPeakRSS resets the kernel's peak-RSS mark (VmHWM) to the current RSS,
// so that the first tree's rss_peak is that tree's own peak. Where the
// kernel refuses, VmHWM stays the process's peak so far (said on stderr).
func resetPeakRSS() {
	if err := os.WriteFile("/proc/self/clear_refs", []byte("5"), 0); err != nil {
		fmt.Fprintf(os.Stderr, "ringbench-go: cannot reset the peak RSS (%v); rss_peak is the process's peak so far\n", err)
	}
}

// memoryBeforeSpawn reads *_before on the first spawn phase only. It runs
// before the spawn phase's clock starts.
func memoryBeforeSpawn() {
	if firstSpawn.before {
		return
	}
	firstSpawn.before = true
	firstSpawn.memBefore = runtimeMem()
	firstSpawn.rssBefore = readRSS()
}

// memoryAfterSpawn runs, on the first spawn phase (or first tree) of the
// process only, its one forced collection (untimed, contract section 3),
// then reads *_after while every process is alive and blocked in its first
// receive. Later iterations force no collection: a forced one would leave the
// heap shrunk and the next timed phase would pay to regrow it.
func memoryAfterSpawn() {
	if firstSpawn.after {
		return
	}
	firstSpawn.after = true
	runtime.GC()
	firstSpawn.rssAfter = readRSS()
	firstSpawn.memAfter = runtimeMem()
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
