package main

// Stress tests of the hand-off primitive (slot: put, putGuarded, and the
// owner's Lock of its full mutex), meant for `go test -race` (the manifest's
// check): many goroutines, several Ps, values that must arrive exactly once
// and in order. The race detector checks that every read of a slot's value
// happens after the write that handed it over.

import (
	"runtime"
	"sync"
	"testing"
)

// take is the owner's side of a slot: wait until handed a value, read it.
func (s *slot) take() int {
	s.full.Lock()
	return s.value
}

// takeGuarded also frees the slot for the next writer.
func (s *slot) takeGuarded() int {
	v := s.take()
	s.free.Unlock()
	return v
}

func withProcs(t *testing.T, n int) {
	old := runtime.GOMAXPROCS(n)
	t.Cleanup(func() { runtime.GOMAXPROCS(old) })
}

// A ring of goroutines passing one token with put and Gosched, as the
// handoff ring does: every hop is seen once, in order.
func TestOneTokenRing(t *testing.T) {
	withProcs(t, 4)
	const n, laps = 50, 200
	slots := newSlots(n)
	for i := range slots {
		slots[i].next = &slots[(i+1)%n]
	}
	counts := make([]int, n)
	done := make(chan struct{})
	for i := range slots {
		go func(i int, s *slot) {
			for {
				v := s.take()
				if v <= 0 {
					return
				}
				counts[i]++
				if v == 1 {
					done <- struct{}{}
					continue
				}
				s.next.put(v - 1)
				runtime.Gosched()
			}
		}(i, &slots[i])
	}
	slots[0].put(n * laps)
	<-done
	for i := range slots { // every slot is empty again: stop them all
		slots[i].put(0)
	}
	for i, c := range counts {
		if c != laps {
			t.Fatalf("process %d saw %d hops, want %d", i, c, laps)
		}
	}
}

// Many writers on one guarded slot (fanin): each value arrives exactly once,
// and each writer's values arrive in the order it wrote them.
func TestGuardedSlotManyWriters(t *testing.T) {
	withProcs(t, 4)
	const writers, each = 16, 2000
	r := &newSlots(1)[0]
	var wg sync.WaitGroup
	for w := 0; w < writers; w++ {
		wg.Add(1)
		go func(w int) {
			defer wg.Done()
			for i := 0; i < each; i++ {
				r.putGuarded(w*each + i)
				if i%7 == 0 {
					runtime.Gosched()
				}
			}
		}(w)
	}
	next := make([]int, writers)
	for k := 0; k < writers*each; k++ {
		v := r.takeGuarded()
		w, i := v/each, v%each
		if i != next[w] {
			t.Fatalf("writer %d: got its value %d, want %d", w, i, next[w])
		}
		next[w]++
	}
	wg.Wait()
}

// A ring with as many tokens as processes (the guarded ring's hardest case):
// no value is lost or duplicated, and the ring does not deadlock.
func TestGuardedRingFull(t *testing.T) {
	withProcs(t, 4)
	const n, hops = 32, 500
	slots := newSlots(n)
	for i := range slots {
		slots[i].next = &slots[(i+1)%n]
	}
	var total sync.WaitGroup
	total.Add(n)
	seen := make([]int, n)
	for i := range slots {
		go func(i int, s *slot) {
			for {
				v := s.takeGuarded()
				if v <= 0 {
					return
				}
				seen[i]++
				if v == 1 {
					total.Done()
					continue
				}
				s.next.putGuarded(v - 1)
				runtime.Gosched()
			}
		}(i, &slots[i])
	}
	for i := range slots {
		slots[i].putGuarded(hops)
	}
	total.Wait()
	for i := range slots {
		slots[i].putGuarded(0)
	}
	sum := 0
	for _, c := range seen {
		sum += c
	}
	if sum != n*hops {
		t.Fatalf("%d hops seen, want %d", sum, n*hops)
	}
}

// The driver's own workloads through the hand-off code, at several Ps,
// repeated: counts are verified inside (a mismatch exits with a failure).
func TestHandoffWorkloads(t *testing.T) {
	for _, procs := range []int{1, 2, 4} {
		withProcs(t, procs)
		for it := 0; it < 3; it++ {
			if r := ringHandoffIter(100, 50, 1, false); r.count != 5000 {
				t.Fatalf("ring: %d", r.count)
			}
			if r := ringHandoffIter(10, 30, 10, true); r.count != 3000 {
				t.Fatalf("ring, tokens = n: %d", r.count)
			}
			if r := faninHandoffIter(8, 500); r.count != 4000 {
				t.Fatalf("fanin: %d", r.count)
			}
			if r := pingpongHandoffIter(1000); r.count != 1000 {
				t.Fatalf("pingpong: %d", r.count)
			}
			if r := spawnHandoffIter(300); r.count != 300 {
				t.Fatalf("spawn: %d", r.count)
			}
			if r := treeHandoffIter(1000, 10); r.count != 499500 {
				t.Fatalf("tree: %d", r.count)
			}
		}
	}
}

// The stock workloads share the retirement handshake (ends) with the
// hand-off ones: the same check through the channel code.
func TestStockWorkloads(t *testing.T) {
	for _, procs := range []int{1, 2, 4} {
		withProcs(t, procs)
		if r := ringIter(100, 50, 1, false); r.count != 5000 {
			t.Fatalf("ring: %d", r.count)
		}
		if r := ringIter(10, 30, 10, true); r.count != 3000 {
			t.Fatalf("ring, tokens = n: %d", r.count)
		}
		if r := spawnIter(300); r.count != 300 {
			t.Fatalf("spawn: %d", r.count)
		}
		if r := treeIter(1000, 10); r.count != 499500 {
			t.Fatalf("tree: %d", r.count)
		}
	}
}
