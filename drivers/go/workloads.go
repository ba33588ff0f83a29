package main

import (
	"os"
	"runtime"
	"sync/atomic"
	"time"
)

// result is one iteration's measurements (contract section 4). Memory comes
// from firstSpawn (sys.go), not from the iteration.
type result struct {
	count          int64
	ready          int64
	setup, run     phase // the spawn phase (0 for tree), the message phase (0 for spawn)
	peakGoroutines int   // at the end of the spawn phase (0 for tree: no such instant)
}

func run(workload string, p params) {
	if workload == "ring" && p.get("sample_ms") > 0 {
		if variant == variantHandoff {
			continuousHandoff(p)
		} else {
			continuous(p)
		}
		return
	}
	warmup, repeats := p.int("warmup"), p.int("repeats")
	wantStats := p.get("stats") == 1
	handoff := variant == variantHandoff
	for it := 1 - warmup; it <= repeats; it++ {
		measured := it >= 1
		// No collection here: the one collection of an iteration runs
		// between its spawn and message phases (spawnEnds).
		var before statsSnap
		if wantStats && measured {
			before = takeStats()
		}
		var r result
		switch {
		case workload == "ring" && handoff:
			r = ringHandoffIter(p.int("n"), p.int("m"), p.int("tokens"), p.get("burst") == 1)
		case workload == "ring":
			r = ringIter(p.int("n"), p.int("m"), p.int("tokens"), p.get("burst") == 1)
		case workload == "spawn" && handoff:
			r = spawnHandoffIter(p.int("n"))
		case workload == "spawn":
			r = spawnIter(p.int("n"))
		case workload == "pingpong" && handoff:
			r = pingpongHandoffIter(p.int("m"))
		case workload == "pingpong":
			r = pingpongIter(p.int("m"))
		case workload == "fanin" && handoff:
			r = faninHandoffIter(p.int("n"), p.int("m"))
		case workload == "fanin":
			r = faninIter(p.int("n"), p.int("m"))
		case workload == "tree" && handoff:
			r = treeHandoffIter(p.int("n"), p.int("fanout"))
		case workload == "tree":
			r = treeIter(p.int("n"), p.int("fanout"))
		case workload == "trace" && handoff:
			r = traceHandoffIter(p.int("n"), p.int("m"), measured)
		case workload == "trace":
			r = traceIter(p.int("n"), p.int("m"), measured)
		}
		if !measured {
			continue
		}
		out := newRec("result").Str("workload", workload).Int("iteration", int64(it))
		for _, ks := range workloadKeys[workload] {
			out.Int(ks.name, p.get(ks.name))
		}
		out.Int("count", r.count)
		if workload != "tree" { // a tree's processes never idle: no gate
			out.Int("ready", r.ready)
		}
		out.Int("setup_ns", r.setup.ns).Int("run_ns", r.run.ns).
			Int("setup_cpu_ns", r.setup.cpuNs).Int("run_cpu_ns", r.run.cpuNs).
			Int("setup_vcsw", r.setup.vcsw).Int("setup_ivcsw", r.setup.ivcsw).
			Int("run_vcsw", r.run.vcsw).Int("run_ivcsw", r.run.ivcsw).
			Int("rss_before", firstSpawn.rssBefore).Int("rss_after", firstSpawn.rssAfter)
		if workload == "tree" {
			out.Int("rss_peak", firstSpawn.rssPeak)
		}
		out.Int("runtime_mem_before", firstSpawn.memBefore).Int("runtime_mem_after", firstSpawn.memAfter).
			emit()
		if wantStats {
			emitStats(workload, it, before, takeStats(), r.peakGoroutines)
		}
	}
}

func verify(workload string, got, want int64) {
	if got != want {
		die(kindFailure, "%s: verified count %d does not match the expected %d", workload, got, want)
	}
}

// ---------------------------------------------------------------- phases

// gate is how the spawn phase ends (contract section 3): every process
// calls arrive() immediately before its first blocking receive; the process
// whose arrival completes the count closes all, on which main waits. The
// count itself is what the result echoes as `ready`. One atomic add per
// process, nothing per hop.
type gate struct {
	count atomic.Int64
	want  int64
	all   chan struct{}
}

func newGate(want int) *gate {
	return &gate{want: int64(want), all: make(chan struct{})}
}

func (g *gate) arrive() {
	if g.count.Add(1) == g.want {
		close(g.all)
	}
}

func (g *gate) wait() int64 {
	<-g.all
	return g.count.Load()
}

// atSpawnEnd, when a test sets it, runs as a spawn phase ends, just after
// its clock stops (untimed): the instant the phase's boundary describes.
var atSpawnEnd func()

// spawnBegins reads the first spawn's *_before memory, then starts the
// spawn phase's clock.
func spawnBegins() mark {
	memoryBeforeSpawn()
	return begin()
}

// spawnEnds ends the spawn phase once every process has arrived at the gate:
// it stops the clock and, on the first spawn of the process only, runs the
// one forced collection and reads *_after (memoryAfterSpawn, untimed).
func (r *result) spawnEnds(t0 mark, ready int64) {
	t1 := end()
	if atSpawnEnd != nil {
		atSpawnEnd()
	}
	r.setup = between(t0, t1)
	r.ready = ready
	r.peakGoroutines = runtime.NumGoroutine()
	memoryAfterSpawn()
}

// treeBegins begins a tree's one timed phase: untimed, the first tree's
// *_before memory and the reset of the kernel's peak-RSS mark.
func treeBegins() mark {
	if !firstSpawn.before {
		resetPeakRSS()
	}
	memoryBeforeSpawn()
	return begin()
}

// treeEnds ends it once main has the root's sum: the clock stops, VmHWM is
// read, then (untimed, first tree only) the process's one forced collection
// and *_after memory (memoryAfterSpawn).
func (r *result) treeEnds(t0 mark) {
	t1 := end()
	r.run = between(t0, t1)
	peak := statusField("VmHWM")
	if !firstSpawn.after {
		firstSpawn.rssPeak = peak
	}
	memoryAfterSpawn()
}

// placement returns the index of the process each token is injected at, in
// injection order: burst=0 spreads token j to p(j*n div tokens), burst=1
// puts every token at p0 (contract section 3, ring).
func placement(n, tokens int, burst bool) []int {
	at := make([]int, tokens)
	if !burst {
		for j := range at {
			at[j] = int(int64(j) * int64(n) / int64(tokens))
		}
	}
	return at
}

// ---------------------------------------------------------------- ring

// ringProc is one process of the channel ring. A value v >= 1 is a token
// with v hops to go; v <= 0 is the stop message carrying the sum -v of the
// receipt counts of the processes it has passed. The receipt count lives in
// a local variable: per hop the goroutine receives, compares, increments and
// sends, nothing else. After the stop it waits to be retired (ends.retire).
func ringProc(in <-chan int, next chan<- int, e *ends, last bool) {
	count := 0
	e.gate.arrive()
	for {
		v := <-in
		if v > 1 {
			count++
			next <- v - 1
		} else if v == 1 {
			count++
			e.done <- struct{}{}
		} else {
			s := count - v
			if last {
				e.sum <- s
			} else {
				next <- -s
			}
			<-in
			e.retired <- struct{}{}
			return
		}
	}
}

// ends is what the processes of one ring share with main: the gate,
// a channel for tokens that have made their last hop (room for every token,
// so that a finishing process never blocks on main while main is still
// injecting), the stop pass's sum, and the retirement handshake.
type ends struct {
	gate    *gate
	done    chan struct{}
	sum     chan int
	retired chan struct{}
}

func newEnds(n, tokens int) *ends {
	return &ends{gate: newGate(n), done: make(chan struct{}, tokens), sum: make(chan int), retired: make(chan struct{})}
}

// retire ends a ring's processes one at a time, the last first (untimed).
// Go keeps the goroutines that have exited on free lists, last in first out,
// and the next spawn takes them from there; retiring in reverse spawn order
// gives every ring its goroutines (g and stack) in the order the first ring
// had them, with ascending addresses around the ring. Letting them exit in
// ring order, as the stop pass reaches them, reverses that order in every
// other ring (README.md, "Measurements"). wake(i) wakes process i.
func (e *ends) retire(n int, wake func(i int)) {
	for i := n - 1; i >= 0; i-- {
		wake(i)
		<-e.retired
	}
}

// ringCap is the inbox capacity for a ring of n processes with tokens tokens.
// With unbuffered channels a ring deadlocks only when every process holds a
// token and is blocked sending to a successor that is itself sending: that
// needs tokens == n (n = 1 included: p0 sends to itself). With tokens < n some
// process is always free to receive. So tokens == n gets a one-slot inbox,
// which is enough (all n blocked would need 2n messages); every other ring is
// unbuffered. Main injecting a burst at p0 is one more sender, blocked until
// p0 receives, so it never adds a token to a full ring.
func ringCap(n, tokens int) int {
	if tokens == n {
		return 1
	}
	return 0
}

// buildChannelRing makes the inboxes and starts the processes in ring order,
// each inbox made just before the process that sends to it is started. It
// keeps the inboxes in main's handles (allocated by the caller) and returns,
// per token, the inbox it is injected at. start(i, in, next) launches
// process i.
func buildChannelRing(inboxes []chan int, tokens int, burst bool, start func(i int, in, next chan int)) (inject []chan int) {
	n := len(inboxes)
	capIn := ringCap(n, tokens)
	inboxes[0] = make(chan int, capIn)
	for i := 0; i < n; i++ {
		if i < n-1 {
			inboxes[i+1] = make(chan int, capIn)
		}
		start(i, inboxes[i], inboxes[(i+1)%n])
	}
	inject = make([]chan int, tokens)
	for j, at := range placement(n, tokens, burst) {
		inject[j] = inboxes[at]
	}
	return inject
}

// handles returns main's slice of n inbox handles, its pages touched before
// the spawn phase so that neither its time nor its memory counts there.
func handles(n int) []chan int {
	h := make([]chan int, n)
	for i := range h {
		h[i] = nil
	}
	return h
}

func ringIter(n, m, tokens int, burst bool) result {
	var r result
	e := newEnds(n, tokens)
	inboxes := handles(n)

	t0 := spawnBegins()
	inject := buildChannelRing(inboxes, tokens, burst, func(i int, in, next chan int) {
		go ringProc(in, next, e, i == n-1)
	})
	r.spawnEnds(t0, e.gate.wait())

	// Message phase.
	v := n * m
	t2 := begin()
	for _, c := range inject {
		c <- v
	}
	for j := 0; j < tokens; j++ {
		<-e.done
	}
	t3 := end()

	// Proof, untimed: the stop message collects every receipt count.
	inboxes[0] <- 0
	r.count = int64(<-e.sum)
	verify("ring", r.count, int64(n)*int64(m)*int64(tokens))
	e.retire(n, func(i int) { inboxes[i] <- 0 })
	r.run = between(t2, t3)
	return r
}

// ---------------------------------------------------------------- continuous

func contProc(in <-chan int, next chan<- int, g *gate) {
	g.arrive()
	for {
		next <- <-in
	}
}

// contHead is p0: the same hop plus one atomic add per token passage (one
// per n hops), the only shared state of continuous mode (section 5).
func contHead(in <-chan int, next chan<- int, g *gate, laps *atomic.Int64) {
	g.arrive()
	for {
		v := <-in
		laps.Add(1)
		next <- v
	}
}

// continuous is ring's continuous mode (contract section 5): tokens circulate
// without end; p0 adds one lap per token passage; main samples the counter.
func continuous(p params) {
	n, tokens := p.int("n"), p.int("tokens")
	var laps atomic.Int64
	g := newGate(n)
	var r result
	inboxes := handles(n)
	t0 := spawnBegins()
	inject := buildChannelRing(inboxes, tokens, p.get("burst") == 1, func(i int, in, next chan int) {
		if i == 0 {
			go contHead(in, next, g, &laps)
		} else {
			go contProc(in, next, g)
		}
	})
	r.spawnEnds(t0, g.wait())
	start := time.Now()
	for _, c := range inject {
		c <- 1
	}
	sample(p, n, start, &laps)
}

// sample prints the samples of continuous mode, then exits without teardown.
// Main sleeps to fixed deadlines (start + k·sample_ms), so lateness does not
// accumulate.
func sample(p params, n int, start time.Time, laps *atomic.Int64) {
	every := time.Duration(p.get("sample_ms")) * time.Millisecond
	for s := 1; s <= p.int("samples"); s++ {
		time.Sleep(time.Until(start.Add(time.Duration(s) * every)))
		l := laps.Load()
		el := time.Since(start).Nanoseconds()
		newRec("sample").Int("seq", int64(s)).Int("elapsed_ns", el).Int("count", l*int64(n)).emit()
	}
	os.Exit(0)
}

// ---------------------------------------------------------------- spawn

// spawnProc arrives at the gate, as a ring process does, then blocks in its
// first receive on an inbox made as a ring process's is. The arrival is the
// ring's (one atomic add, the last arrival wakes main), so the
// spawn phase ends as the ring's does: with every process blocked in that
// receive, not with main counting n messages while the senders it released
// have yet to reach it.
func spawnProc(in <-chan int, g *gate, retired chan<- struct{}) {
	g.arrive()
	<-in
	retired <- struct{}{}
}

func spawnIter(n int) result {
	r, release := spawnPhase(n, spawnProc)
	release()
	verify("spawn", r.count, int64(n))
	return r
}

// spawnPhase spawns n idle processes running proc (spawnProc; a test passes
// one that is slow to arrive) and ends the spawn phase; release (untimed)
// retires them.
func spawnPhase(n int, proc func(in <-chan int, g *gate, retired chan<- struct{})) (r result, release func()) {
	inboxes := handles(n)
	e := &ends{gate: newGate(n), retired: make(chan struct{})}

	t0 := spawnBegins()
	for i := range inboxes {
		inboxes[i] = make(chan int)
		go proc(inboxes[i], e.gate, e.retired)
	}
	r.count = e.gate.wait()
	r.spawnEnds(t0, r.count)
	return r, func() { e.retire(n, func(i int) { inboxes[i] <- 0 }) }
}

// ---------------------------------------------------------------- pingpong

func pingA(start <-chan struct{}, toB chan<- int, fromB <-chan int, m int, g *gate, done chan<- struct{}) {
	g.arrive()
	<-start
	for i := 0; i < m; i++ {
		toB <- 1
		<-fromB
	}
	done <- struct{}{}
}

func pingB(in <-chan int, toA chan<- int, g *gate, result chan<- int) {
	count := 0
	g.arrive()
	for {
		v := <-in
		if v == 0 {
			result <- count
			return
		}
		count++
		toA <- v
	}
}

func pingpongIter(m int) result {
	var r result
	start := make(chan struct{})
	done := make(chan struct{})
	res := make(chan int)
	g := newGate(2)
	t0 := spawnBegins()
	aIn := make(chan int)
	bIn := make(chan int)
	go pingA(start, bIn, aIn, m, g, done)
	go pingB(bIn, aIn, g, res)
	r.spawnEnds(t0, g.wait())
	t2 := begin()
	start <- struct{}{}
	<-done
	t3 := end()
	bIn <- 0
	r.count = int64(<-res)
	verify("pingpong", r.count, int64(m))
	r.run = between(t2, t3)
	return r
}

// ---------------------------------------------------------------- fanin

func faninSender(start <-chan struct{}, out chan<- int, m int, g *gate) {
	g.arrive()
	<-start
	for i := 0; i < m; i++ {
		out <- 1
	}
}

func faninReceiver(in <-chan int, total int64, g *gate, done chan<- int64) {
	var count int64
	g.arrive()
	for count < total {
		<-in
		count++
	}
	done <- count
}

func faninIter(n, m int) result {
	var r result
	start := make(chan struct{})
	done := make(chan int64)
	g := newGate(n + 1)
	t0 := spawnBegins()
	in := make(chan int)
	go faninReceiver(in, int64(n)*int64(m), g, done)
	for i := 0; i < n; i++ {
		go faninSender(start, in, m, g)
	}
	r.spawnEnds(t0, g.wait())
	t2 := begin()
	close(start) // the start signal, to every sender at once
	r.count = <-done
	t3 := end()
	verify("fanin", r.count, int64(n)*int64(m))
	r.run = between(t2, t3)
	return r
}

// ---------------------------------------------------------------- tree

// treeNode is one process of the tree (skynet): it covers the leaves lo …
// lo+size-1. A leaf sends its ordinal up. An inner process makes one
// unbuffered channel, starts fanout children that each cover an equal,
// contiguous part of its range and send their sum on that channel, receives
// one value from each, in whatever order they come, sends the total up and
// exits.
func treeNode(lo, size, fanout int, up chan<- int) {
	if size == 1 {
		up <- lo
		return
	}
	in := make(chan int)
	step := size / fanout
	for i := 0; i < fanout; i++ {
		go treeNode(lo+i*step, step, fanout, in)
	}
	sum := 0
	for i := 0; i < fanout; i++ {
		sum += <-in
	}
	up <- sum
}

func treeIter(n, fanout int) result {
	var r result
	root := make(chan int)
	t0 := treeBegins()
	go treeNode(0, n, fanout, root)
	r.count = int64(<-root)
	r.treeEnds(t0)
	verify("tree", r.count, int64(n)*int64(n-1)/2)
	return r
}

// ---------------------------------------------------------------- trace

type traceMsg struct {
	v    int // hops to go; <= 0: stop carrying the sum -v
	from int // sender's index, -1 for main
}

// hopRecord prints one hop from inside the receiving process, with a single
// write(2), so records never interleave and come out in hop order.
func hopRecord(hop, n, from, to int) {
	newRec("hop").Int("hop", int64(hop)).Int("lap", int64((hop-1)/n+1)).
		Int("from", int64(from)).Int("to", int64(to)).emit()
}

func traceProc(idx, total, n int, in <-chan traceMsg, next chan<- traceMsg, g *gate, done chan<- struct{}, sum chan<- int, last, print bool) {
	count := 0
	g.arrive()
	for {
		msg := <-in
		if msg.v <= 0 {
			s := count - msg.v
			if last {
				sum <- s
			} else {
				next <- traceMsg{v: -s, from: idx}
			}
			return
		}
		count++
		if print {
			hopRecord(total-msg.v+1, n, msg.from, idx)
		}
		if msg.v == 1 {
			done <- struct{}{}
		} else {
			next <- traceMsg{v: msg.v - 1, from: idx}
		}
	}
}

func traceIter(n, m int, print bool) result {
	var r result
	capIn := ringCap(n, 1)
	done := make(chan struct{}, 1)
	sum := make(chan int)
	g := newGate(n)
	t0 := spawnBegins()
	first := make(chan traceMsg, capIn)
	in := first
	for i := 0; i < n; i++ {
		var next chan traceMsg
		if i == n-1 {
			next = first
		} else {
			next = make(chan traceMsg, capIn)
		}
		go traceProc(i, n*m, n, in, next, g, done, sum, i == n-1, print)
		in = next
	}
	r.spawnEnds(t0, g.wait())
	t2 := begin()
	first <- traceMsg{v: n * m, from: -1}
	<-done
	t3 := end()
	first <- traceMsg{v: 0, from: -1}
	r.count = int64(<-sum)
	verify("trace", r.count, int64(n)*int64(m))
	r.run = between(t2, t3)
	return r
}
