package main

import (
	"runtime"
	"sync"
	"sync/atomic"
	"time"
)

// The handoff variant: the idiom of the Benchmarks Game thread-ring Go
// programs. Each process owns a slot and a sync.Mutex that is locked while
// the slot is empty; a process waits for a value by locking its own mutex,
// and its predecessor hands it a value by writing the slot and unlocking that
// mutex (Go lets any goroutine unlock a sync.Mutex). No message object, no
// queue: a baton hand-off, not message passing (hop = "handoff").
//
// After each hand-off the sender calls runtime.Gosched(), as those programs
// do. Why: without it the sender goes straight on to Lock its own mutex and
// parks on that mutex's semaphore, so every hop is a park and a wake-up
// through the runtime's semaphore table. With it the sender is put on the
// run queue instead, and the goroutines cycle through the run queue in ring
// order, each finding its mutex already unlocked when it runs: no semaphore
// at all at small N (a CPU profile shows only goschedImpl and run-queue
// pops), 2-3x less CPU per hop on one P (README.md).
//
// One slot holds one value. With one token (the thread-ring case) a slot is
// always empty when its writer comes, so the hop is exactly that: write,
// Unlock, then Lock one's own mutex. Where a slot can be written again before
// its owner has read it (ring with tokens > 1, fanin's n senders) the writer
// must first wait for the slot to be free: a second mutex per slot, free,
// that the writer locks before writing and the owner unlocks after reading
// (the "guarded" put/take below). Writers that wait for it wait in that
// mutex's waiter list, the runtime's own; there is still no message queue.

// slot is a handoff process's one-value mailbox.
type slot struct {
	full  sync.Mutex // locked while the slot is empty; the writer unlocks it
	free  sync.Mutex // guarded use only: held from the write until the owner has read
	value int
	next  *slot // the successor's slot (ring)
}

// newSlots allocates n slots, each with full locked (empty), so that a
// process's first Lock blocks until it is handed a value.
func newSlots(n int) []slot {
	s := make([]slot, n)
	for i := range s {
		s[i].full.Lock()
	}
	return s
}

// put hands v to the slot's owner (the slot is known to be empty).
func (s *slot) put(v int) {
	s.value = v
	s.full.Unlock()
}

// putGuarded waits until the slot is free, then hands v over.
func (s *slot) putGuarded(v int) {
	s.free.Lock()
	s.value = v
	s.full.Unlock()
}

// ---------------------------------------------------------------- ring

// handoffProc is one process of the one-token ring: per hop it locks its
// own mutex (blocks until handed the token), reads its slot, counts the
// receipt in a local variable, writes the successor's slot, unlocks the
// successor's mutex and yields. v <= 0 is the stop message, as in the
// channel ring; after it the process waits to be retired (ends.retire).
func handoffProc(s *slot, e *ends, last bool) {
	next := s.next
	count := 0
	e.gate.arrive()
	for {
		s.full.Lock()
		v := s.value
		if v > 1 {
			count++
			next.put(v - 1)
			runtime.Gosched()
		} else if v == 1 {
			count++
			e.done <- struct{}{}
		} else {
			t := count - v
			if last {
				e.sum <- t
			} else {
				next.put(-t)
			}
			s.full.Lock()
			e.retired <- struct{}{}
			return
		}
	}
}

// handoffProcGuarded is the same process for rings with several tokens: it
// frees its slot right after reading it and waits for the successor's slot
// to be free before writing. Two tokens never meet in one slot, and with
// tokens <= n the ring cannot deadlock (every process blocked on a full
// successor would need n values in slots plus n held: 2n > n tokens).
func handoffProcGuarded(s *slot, e *ends, last bool) {
	next := s.next
	count := 0
	e.gate.arrive()
	for {
		s.full.Lock()
		v := s.value
		s.free.Unlock()
		if v > 1 {
			count++
			next.putGuarded(v - 1)
			runtime.Gosched()
		} else if v == 1 {
			count++
			e.done <- struct{}{}
		} else {
			t := count - v
			if last {
				e.sum <- t
			} else {
				next.putGuarded(-t)
			}
			s.full.Lock()
			e.retired <- struct{}{}
			return
		}
	}
}

// buildHandoffRing allocates and links the slots and starts process i with
// start(i, slot). It returns the slots and, per token, where it is injected.
func buildHandoffRing(n, tokens int, burst bool, start func(i int, s *slot)) (slots []slot, inject []*slot) {
	slots = newSlots(n)
	for i := range slots {
		slots[i].next = &slots[(i+1)%n]
	}
	for i := range slots {
		start(i, &slots[i])
	}
	inject = make([]*slot, tokens)
	for j, at := range placement(n, tokens, burst) {
		inject[j] = &slots[at]
	}
	return slots, inject
}

func ringHandoffIter(n, m, tokens int, burst bool) result {
	var r result
	e := newEnds(n, tokens)
	guarded := tokens > 1

	t0 := spawnBegins()
	slots, inject := buildHandoffRing(n, tokens, burst, func(i int, s *slot) {
		if guarded {
			go handoffProcGuarded(s, e, i == n-1)
		} else {
			go handoffProc(s, e, i == n-1)
		}
	})
	r.spawnEnds(t0, e.gate.wait())

	v := n * m
	t2 := begin()
	for _, s := range inject {
		if guarded {
			s.putGuarded(v)
		} else {
			s.put(v)
		}
	}
	for j := 0; j < tokens; j++ {
		<-e.done
	}
	t3 := end()

	// Proof, untimed: the stop value collects every receipt count. Every
	// token has finished, so every slot is empty and p0's may be written.
	// Each process has read its stop value, so each slot is empty again
	// when the process is retired.
	put := (*slot).put
	if guarded {
		put = (*slot).putGuarded
	}
	put(&slots[0], 0)
	r.count = int64(<-e.sum)
	verify("ring", r.count, int64(n)*int64(m)*int64(tokens))
	e.retire(n, func(i int) { put(&slots[i], 0) })
	r.run = between(t2, t3)
	return r
}

// ---------------------------------------------------------------- continuous

func contHandoff(s *slot, g *gate) {
	next := s.next
	g.arrive()
	for {
		s.full.Lock()
		next.put(s.value)
		runtime.Gosched()
	}
}

func contHandoffHead(s *slot, g *gate, laps *atomic.Int64) {
	next := s.next
	g.arrive()
	for {
		s.full.Lock()
		laps.Add(1)
		next.put(s.value)
		runtime.Gosched()
	}
}

func contHandoffGuarded(s *slot, g *gate) {
	next := s.next
	g.arrive()
	for {
		s.full.Lock()
		v := s.value
		s.free.Unlock()
		next.putGuarded(v)
		runtime.Gosched()
	}
}

func contHandoffGuardedHead(s *slot, g *gate, laps *atomic.Int64) {
	next := s.next
	g.arrive()
	for {
		s.full.Lock()
		v := s.value
		s.free.Unlock()
		laps.Add(1)
		next.putGuarded(v)
		runtime.Gosched()
	}
}

func continuousHandoff(p params) {
	n, tokens := p.int("n"), p.int("tokens")
	guarded := tokens > 1
	var laps atomic.Int64
	g := newGate(n)
	var r result
	t0 := spawnBegins()
	_, inject := buildHandoffRing(n, tokens, p.get("burst") == 1, func(i int, s *slot) {
		switch {
		case i == 0 && guarded:
			go contHandoffGuardedHead(s, g, &laps)
		case i == 0:
			go contHandoffHead(s, g, &laps)
		case guarded:
			go contHandoffGuarded(s, g)
		default:
			go contHandoff(s, g)
		}
	})
	r.spawnEnds(t0, g.wait())
	start := time.Now()
	for _, s := range inject {
		if guarded {
			s.putGuarded(1)
		} else {
			s.put(1)
		}
	}
	sample(p, n, start, &laps)
}

// ---------------------------------------------------------------- spawn

// spawnHandoffProc: the arrival at the gate (as in the stock variant
// and the rings), then the process blocks in its first receive, here the
// Lock of its own mutex.
func spawnHandoffProc(s *slot, g *gate, retired chan<- struct{}) {
	g.arrive()
	s.full.Lock()
	retired <- struct{}{}
}

func spawnHandoffIter(n int) result {
	r, release := spawnHandoffPhase(n, spawnHandoffProc)
	release()
	verify("spawn", r.count, int64(n))
	return r
}

// spawnHandoffPhase spawns n idle processes running proc (spawnHandoffProc;
// a test passes one that is slow to arrive) and ends the spawn phase; release
// (untimed) retires them.
func spawnHandoffPhase(n int, proc func(s *slot, g *gate, retired chan<- struct{})) (r result, release func()) {
	e := &ends{gate: newGate(n), retired: make(chan struct{})}

	t0 := spawnBegins()
	slots := newSlots(n)
	for i := range slots {
		slots[i].next = &slots[(i+1)%n] // as a ring process's slot
		go proc(&slots[i], e.gate, e.retired)
	}
	r.count = e.gate.wait()
	r.spawnEnds(t0, r.count)
	return r, func() { e.retire(n, func(i int) { slots[i].put(0) }) }
}

// ---------------------------------------------------------------- pingpong

// pingHandoffA waits to be handed the start value, then m times hands B a
// value and waits for B's answer in its own slot.
func pingHandoffA(a, b *slot, m int, g *gate, done chan<- struct{}) {
	g.arrive()
	a.full.Lock() // the start signal
	for i := 0; i < m; i++ {
		b.put(1)
		runtime.Gosched()
		a.full.Lock()
	}
	done <- struct{}{}
}

func pingHandoffB(a, b *slot, g *gate, result chan<- int) {
	count := 0
	g.arrive()
	for {
		b.full.Lock()
		v := b.value
		if v == 0 {
			result <- count
			return
		}
		count++
		a.put(v)
		runtime.Gosched()
	}
}

func pingpongHandoffIter(m int) result {
	var r result
	done := make(chan struct{})
	res := make(chan int)
	g := newGate(2)
	t0 := spawnBegins()
	s := newSlots(2)
	a, b := &s[0], &s[1]
	go pingHandoffA(a, b, m, g, done)
	go pingHandoffB(a, b, g, res)
	r.spawnEnds(t0, g.wait())
	t2 := begin()
	a.put(1)
	<-done
	t3 := end()
	b.put(0) // B has answered the last round trip: its slot is empty
	r.count = int64(<-res)
	verify("pingpong", r.count, int64(m))
	r.run = between(t2, t3)
	return r
}

// ---------------------------------------------------------------- fanin

// Fan-in through one slot: each sender waits for the receiver's slot to be
// free (the senders contend for its free mutex), writes and wakes the
// receiver; the receiver frees the slot after each read. The start signal is
// the same closed channel as in the channel variant, so that the two
// variants' fanin figures differ only in how a message reaches the receiver.
func faninHandoffSender(start <-chan struct{}, r *slot, m int, g *gate) {
	g.arrive()
	<-start
	for i := 0; i < m; i++ {
		r.putGuarded(1)
		runtime.Gosched()
	}
}

func faninHandoffReceiver(r *slot, total int64, g *gate, done chan<- int64) {
	var count, got int64
	g.arrive()
	for count < total {
		r.full.Lock()
		got += int64(r.value)
		r.free.Unlock()
		count++
	}
	if got != count { // every message carried 1
		die(kindFailure, "fanin: received values sum to %d over %d messages", got, count)
	}
	done <- count
}

func faninHandoffIter(n, m int) result {
	var r result
	start := make(chan struct{})
	done := make(chan int64)
	g := newGate(n + 1)
	t0 := spawnBegins()
	recv := &newSlots(1)[0]
	go faninHandoffReceiver(recv, int64(n)*int64(m), g, done)
	for i := 0; i < n; i++ {
		go faninHandoffSender(start, recv, m, g)
	}
	r.spawnEnds(t0, g.wait())
	t2 := begin()
	close(start)
	r.count = <-done
	t3 := end()
	verify("fanin", r.count, int64(n)*int64(m))
	r.run = between(t2, t3)
	return r
}

// ---------------------------------------------------------------- tree

// treeHandoffNode is one process of the hand-off tree. An inner process
// gives each child a slot of its own (the fanout slots in one slice, each
// empty: its full mutex locked); a child hands its sum over by writing its
// slot and unlocking that mutex, then exits. The parent takes the values by
// locking each slot's mutex in turn: a child that finished early has left
// its value behind and its mutex unlocked; for one that has not, the parent
// waits. No channel, no queue: one hand-off per child.
func treeHandoffNode(lo, size, fanout int, up *slot) {
	if size == 1 {
		up.put(lo)
		return
	}
	slots := newSlots(fanout)
	step := size / fanout
	for i := range slots {
		go treeHandoffNode(lo+i*step, step, fanout, &slots[i])
	}
	sum := 0
	for i := range slots {
		slots[i].full.Lock()
		sum += slots[i].value
	}
	up.put(sum)
}

func treeHandoffIter(n, fanout int) result {
	var r result
	root := &newSlots(1)[0]
	t0 := treeBegins()
	go treeHandoffNode(0, n, fanout, root)
	root.full.Lock()
	r.count = int64(root.value)
	r.treeEnds(t0)
	verify("tree", r.count, int64(n)*int64(n-1)/2)
	return r
}

// ---------------------------------------------------------------- trace

// traceSlot is slot with the sender's index beside the value.
type traceSlot struct {
	full    sync.Mutex
	v, from int
	next    *traceSlot
}

func (s *traceSlot) put(v, from int) {
	s.v, s.from = v, from
	s.full.Unlock()
}

func traceHandoffProc(idx, total, n int, s *traceSlot, g *gate, done chan<- struct{}, sum chan<- int, last, print bool) {
	count := 0
	g.arrive()
	for {
		s.full.Lock()
		v, from := s.v, s.from
		if v <= 0 {
			t := count - v
			if last {
				sum <- t
			} else {
				s.next.put(-t, idx)
			}
			return
		}
		count++
		if print {
			hopRecord(total-v+1, n, from, idx)
		}
		if v == 1 {
			done <- struct{}{}
		} else {
			s.next.put(v-1, idx)
			runtime.Gosched()
		}
	}
}

func traceHandoffIter(n, m int, print bool) result {
	var r result
	done := make(chan struct{}, 1)
	sum := make(chan int)
	g := newGate(n)
	t0 := spawnBegins()
	slots := make([]traceSlot, n)
	for i := range slots {
		slots[i].full.Lock()
		slots[i].next = &slots[(i+1)%n]
	}
	for i := range slots {
		go traceHandoffProc(i, n*m, n, &slots[i], g, done, sum, i == n-1, print)
	}
	r.spawnEnds(t0, g.wait())
	t2 := begin()
	slots[0].put(n*m, -1)
	<-done
	t3 := end()
	slots[0].put(0, -1)
	r.count = int64(<-sum)
	verify("trace", r.count, int64(n)*int64(m))
	r.run = between(t2, t3)
	return r
}
