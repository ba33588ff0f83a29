package main

// The spawn workload's boundary (contract section 3): the spawn phase ends
// when every process is blocked in its first receive. At the instant the
// phase's clock stops, the goroutine dump must show the processes parked in
// that receive, not runnable after handing main a ready message.

import (
	"runtime"
	"strings"
	"testing"
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
		{"stock", "spawnProc", "chan receive", spawnPhase},
		{"handoff", "spawnHandoffProc", "sync.Mutex.Lock", spawnHandoffPhase},
	} {
		for _, procs := range []int{1, 2, 4} {
			withProcs(t, procs)
			// Spawns of thousands: while main still spawns (on another P, or
			// preempted), processes arrive. A ready *message* to main left
			// them blocked in that send until main took it, then runnable:
			// of 20,000, from 349 to 19,999 were parked in their receive when
			// the phase ended (1, 2 and 4 Ps, every run failed).
			for _, n := range []int{1, 100, 20000, 20000} {
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
