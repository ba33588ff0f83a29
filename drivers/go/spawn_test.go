package main

// The spawn workload's boundary (contract section 3): the spawn phase ends
// when every process is blocked in its first receive. At the instant the
// phase's clock stops, the goroutine dump must show the processes parked in
// that receive, not runnable after handing main a ready message.

import (
	"os"
	"runtime"
	"strings"
	"sync/atomic"
	"testing"
	"time"
)

// parkedIn counts the goroutines of a dump with a frame of function fn, and
// those of them in the wait state `state`.
func parkedIn(dump []byte, fn, state string) (parked, all int) {
	for _, g := range strings.Split(string(dump), "\n\n") {
		if !strings.Contains(g, "."+fn+"(") {
			continue
		}
		all++
		if strings.Contains(strings.SplitN(g, "\n", 2)[0], "["+state) {
			parked++
		}
	}
	return parked, all
}

func TestSpawnEndsWithEveryProcessInItsFirstReceive(t *testing.T) {
	for _, v := range []struct {
		name, fn, state string
		phase           func(n int) (result, func())
	}{
		{"stock", "spawnProc", "chan receive", func(n int) (result, func()) { return spawnPhase(n, spawnProc) }},
		{"handoff", "spawnHandoffProc", "sync.Mutex.Lock",
			func(n int) (result, func()) { return spawnHandoffPhase(n, spawnHandoffProc) }},
	} {
		for _, procs := range []int{1, 2, 4} {
			withProcs(t, procs)
			// Spawns of thousands: while main still spawns (on another P, or
			// preempted), processes arrive. A ready *message* to main left
			// them blocked in that send until main took it, then runnable:
			// of 20,000, from 349 to 19,999 were parked in their receive when
			// the phase ended (1, 2 and 4 Ps, every run failed). One spawn of
			// 20,000 by default, two with RINGBENCH_SLOW=1 (make test-slow):
			// the dumps under -race are most of the check's time.
			sizes := []int{1, 100, 20000}
			if os.Getenv("RINGBENCH_SLOW") == "1" {
				sizes = append(sizes, 20000)
			}
			for _, n := range sizes {
				// The dump is taken at once (runtime.Stack stops the world):
				// its buffer is made beforehand, so that no allocation gives
				// the processes time to catch up first.
				buf := make([]byte, 16<<20) // a dump of 20,000 processes: ~4 MB
				atSpawnEnd = func() { buf = buf[:runtime.Stack(buf, true)] }
				r, release := v.phase(n)
				atSpawnEnd = nil
				release()
				parked, all := parkedIn(buf, v.fn, v.state)
				// The arrival that completes the gate may not have parked
				// yet when main reads the dump; nor, on each other P, one
				// process between its arrival and its receive.
				if r.ready != int64(n) || all != n || parked < n-procs {
					t.Errorf("%s, %d Ps, n=%d: ready %d, %d processes, %d parked in their first receive",
						v.name, procs, n, r.ready, all, parked)
				}
			}
		}
	}
}

// slowDelay is how long the slow process of the tests below waits before it
// arrives at the gate.
const slowDelay = 200 * time.Millisecond

// slowFirst wraps a process body: the first process to run sleeps slowDelay
// before it calls body (and so before it arrives at the gate); every process
// stores the gate it was given in seen, so that a test can read its count.
func slowFirst[B any](body func(B, *gate, chan<- struct{}), seen *atomic.Pointer[gate]) func(B, *gate, chan<- struct{}) {
	var token atomic.Bool
	return func(in B, g *gate, retired chan<- struct{}) {
		seen.Store(g)
		if token.CompareAndSwap(false, true) {
			time.Sleep(slowDelay)
		}
		body(in, g, retired)
	}
}

// A process slow to reach its first receive holds the spawn phase back: the
// reported set-up time (setup_ns) is at least its delay, and when main wakes
// the gate has counted every process, the slow one included, with the others
// parked in their first receive. A gate that woke main one arrival early, or
// counted a process before it got there, ends the phase while the slow
// process sleeps.
func TestSlowArrivalDelaysSpawnEnd(t *testing.T) {
	for _, v := range []struct {
		name, fn, state string
		phase           func(n int, seen *atomic.Pointer[gate]) (result, func())
	}{
		{"stock", "spawnProc", "chan receive", func(n int, seen *atomic.Pointer[gate]) (result, func()) {
			return spawnPhase(n, slowFirst(spawnProc, seen))
		}},
		{"handoff", "spawnHandoffProc", "sync.Mutex.Lock", func(n int, seen *atomic.Pointer[gate]) (result, func()) {
			return spawnHandoffPhase(n, slowFirst(spawnHandoffProc, seen))
		}},
	} {
		for _, procs := range []int{1, 2} {
			withProcs(t, procs)
			for _, n := range []int{1, 2, 1000} {
				var seen atomic.Pointer[gate]
				arrived := int64(-1)
				buf := make([]byte, 1<<20)
				atSpawnEnd = func() {
					if g := seen.Load(); g != nil { // nil: no process has run yet
						arrived = g.count.Load()
					}
					buf = buf[:runtime.Stack(buf, true)]
				}
				r, release := v.phase(n, &seen)
				atSpawnEnd = nil
				release()
				parked, all := parkedIn(buf, v.fn, v.state)
				setup := time.Duration(r.setup.ns)
				if setup < slowDelay || arrived != int64(n) || r.ready != int64(n) || all != n || parked < n-procs {
					t.Errorf("%s, %d Ps, n=%d, one process %v slow to arrive: set-up %v, %d arrived "+
						"when main woke, ready %d, %d processes, %d parked in their first receive",
						v.name, procs, n, slowDelay, setup, arrived, r.ready, all, parked)
				}
			}
		}
	}
}
