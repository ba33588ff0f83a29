package main

import (
	"os"
	"runtime"
	"sync"
	"sync/atomic"
	"time"
)

// result is one iteration's measurements (contract section 4).
type result struct {
	count               int64
	setupNs, runNs      int64
	setupCPU, runCPU    int64
	rssBefore, rssAfter int64
	memBefore, memAfter int64 // runtime_mem_*: StackInuse+HeapInuse
	peakGoroutines      int
}

func run(workload string, p params) {
	if workload == "ring" && p.get("sample_ms") > 0 {
		continuous(p)
		return
	}
	switch workload {
	case "ring":
		checkMemory("ring", p.get("n"))
	case "spawn":
		checkMemory("spawn", p.get("n"))
	case "fanin":
		checkMemory("fanin", p.get("n")+1)
	}
	warmup, repeats := p.int("warmup"), p.int("repeats")
	wantStats := p.get("stats") == 1
	for it := 1 - warmup; it <= repeats; it++ {
		measured := it >= 1
		// No runtime.GC() here: forced while only main is alive, it makes
		// the runtime start the next iteration's goroutines with 8 KiB
		// stacks (adaptivestackstart, see README.md).
		var before statsSnap
		if wantStats && measured {
			before = takeStats()
		}
		var r result
		switch workload {
		case "ring":
			r = ringIter(p.int("n"), p.int("m"), p.int("tokens"))
		case "spawn":
			r = spawnIter(p.int("n"))
		case "pingpong":
			r = pingpongIter(p.int("m"))
		case "fanin":
			r = faninIter(p.int("n"), p.int("m"))
		case "trace":
			r = traceIter(p.int("n"), p.int("m"), measured)
		}
		if !measured {
			continue
		}
		out := newRec("result").Str("workload", workload).Int("iteration", int64(it))
		for _, ks := range workloadKeys[workload] {
			out.Int(ks.name, p.get(ks.name))
		}
		out.Int("count", r.count).
			Int("setup_ns", r.setupNs).Int("run_ns", r.runNs).
			Int("setup_cpu_ns", r.setupCPU).Int("run_cpu_ns", r.runCPU).
			Int("rss_before", r.rssBefore).Int("rss_after", r.rssAfter)
		if workload != "trace" && workload != "pingpong" {
			out.Int("runtime_mem_before", r.memBefore).Int("runtime_mem_after", r.memAfter)
		}
		out.emit()
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

// ---------------------------------------------------------------- ring

// ringProc is one process of the ring. A value v >= 1 is a token with v hops
// to go; v <= 0 is the stop message carrying the sum -v of the receipt counts
// of the processes it has passed. The receipt count lives on the goroutine's
// own stack: no shared state.
func ringProc(in <-chan int, next chan<- int, done chan<- struct{}, sum chan<- int, last bool) {
	count := 0
	for {
		v := <-in
		if v > 1 {
			count++
			next <- v - 1
		} else if v == 1 {
			count++
			done <- struct{}{}
		} else {
			s := count - v
			if last {
				sum <- s
			} else {
				next <- -s
			}
			return
		}
	}
}

// ringCap is the inbox capacity for a ring of n processes with tokens tokens.
// With unbuffered channels a ring deadlocks only when every process holds a
// token and is blocked sending to a successor that is itself sending: that
// needs tokens == n (n = 1 included: p0 sends to itself). With tokens < n some
// process is always free to receive. So tokens == n gets a one-slot inbox,
// which is enough (all n blocked would need 2n messages); everything else is
// unbuffered unless --inbox-cap says otherwise.
func ringCap(n, tokens int) int {
	if inboxCap > 0 {
		return inboxCap
	}
	if tokens == n {
		return 1
	}
	return 0
}

func ringIter(n, m, tokens int) result {
	var r result
	capIn := ringCap(n, tokens)
	// Bookkeeping made before the timed phase: the inboxes the tokens are
	// injected at; done has room for every token so that a finishing process
	// never blocks on main while main is still injecting.
	inject := make([]chan int, tokens)
	done := make(chan struct{}, tokens)
	sum := make(chan int)

	r.memBefore = runtimeMem()
	r.rssBefore = readRSS()
	t0 := now()
	// Spawn phase: p(i) is created knowing only its own inbox and p(i+1)'s.
	first := make(chan int, capIn)
	in := first
	k, pos := 0, 0 // next token to place, and where: k*n/tokens
	for i := 0; i < n; i++ {
		var next chan int
		if i == n-1 {
			next = first
		} else {
			next = make(chan int, capIn)
		}
		if k < tokens && i == pos {
			inject[k] = in
			k++
			pos = int(int64(k) * int64(n) / int64(tokens))
		}
		go ringProc(in, next, done, sum, i == n-1)
		in = next
	}
	t1 := now()
	r.rssAfter = readRSS()
	r.peakGoroutines = runtime.NumGoroutine()
	r.memAfter = runtimeMem()

	// Message phase.
	v := n * m
	t2 := now()
	for _, c := range inject {
		c <- v
	}
	for j := 0; j < tokens; j++ {
		<-done
	}
	t3 := now()

	// Proof, untimed: the stop message collects every receipt count.
	first <- 0
	r.count = int64(<-sum)
	verify("ring", r.count, int64(n)*int64(m)*int64(tokens))
	r.setupNs, r.setupCPU = between(t0, t1)
	r.runNs, r.runCPU = between(t2, t3)
	return r
}

// ---------------------------------------------------------------- continuous

func contProc(in <-chan int, next chan<- int) {
	for {
		next <- <-in
	}
}

func contHead(in <-chan int, next chan<- int, laps *atomic.Int64) {
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
	checkMemory("ring", int64(n))
	sampleEvery := time.Duration(p.get("sample_ms")) * time.Millisecond
	samples := p.int("samples")
	capIn := ringCap(n, tokens)
	var laps atomic.Int64
	inject := make([]chan int, tokens)

	first := make(chan int, capIn)
	in := first
	k, pos := 0, 0
	for i := 0; i < n; i++ {
		var next chan int
		if i == n-1 {
			next = first
		} else {
			next = make(chan int, capIn)
		}
		if k < tokens && i == pos {
			inject[k] = in
			k++
			pos = int(int64(k) * int64(n) / int64(tokens))
		}
		if i == 0 {
			go contHead(in, next, &laps)
		} else {
			go contProc(in, next)
		}
		in = next
	}
	start := time.Now()
	for _, c := range inject {
		c <- 1
	}
	for s := 1; s <= samples; s++ {
		time.Sleep(time.Until(start.Add(time.Duration(s) * sampleEvery)))
		l := laps.Load()
		el := time.Since(start).Nanoseconds()
		newRec("sample").Int("seq", int64(s)).Int("elapsed_ns", el).Int("count", l*int64(n)).emit()
	}
	os.Exit(0) // no teardown
}

// ---------------------------------------------------------------- spawn

func spawnProc(in <-chan struct{}, ready chan<- struct{}, exited *sync.WaitGroup) {
	ready <- struct{}{}
	<-in
	exited.Done()
}

func spawnIter(n int) result {
	var r result
	inboxes := make([]chan struct{}, n) // main's handles on the processes
	for i := range inboxes {
		inboxes[i] = nil // touch the pages now, not in the measured phase
	}
	ready := make(chan struct{})
	var exited sync.WaitGroup
	exited.Add(n)

	r.memBefore = runtimeMem()
	r.rssBefore = readRSS()
	t0 := now()
	for i := 0; i < n; i++ {
		c := make(chan struct{}, inboxCap)
		inboxes[i] = c
		go spawnProc(c, ready, &exited)
	}
	for i := 0; i < n; i++ {
		<-ready
		r.count++
	}
	t1 := now()
	r.rssAfter = readRSS()
	r.peakGoroutines = runtime.NumGoroutine()
	r.memAfter = runtimeMem()

	// Untimed: release them all and wait until they have exited.
	for _, c := range inboxes {
		c <- struct{}{}
	}
	exited.Wait()
	verify("spawn", r.count, int64(n))
	r.setupNs, r.setupCPU = between(t0, t1)
	return r
}

// ---------------------------------------------------------------- pingpong

func pingA(start <-chan struct{}, toB chan<- int, fromB <-chan int, m int, done chan<- struct{}) {
	<-start
	for i := 0; i < m; i++ {
		toB <- 1
		<-fromB
	}
	done <- struct{}{}
}

func pingB(in <-chan int, toA chan<- int, result chan<- int) {
	count := 0
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
	r.rssBefore = readRSS()
	t0 := now()
	aIn := make(chan int, inboxCap)
	bIn := make(chan int, inboxCap)
	go pingA(start, bIn, aIn, m, done)
	go pingB(bIn, aIn, res)
	t1 := now()
	r.rssAfter = readRSS()
	r.peakGoroutines = runtime.NumGoroutine()
	t2 := now()
	start <- struct{}{}
	<-done
	t3 := now()
	bIn <- 0
	r.count = int64(<-res)
	verify("pingpong", r.count, int64(m))
	r.setupNs, r.setupCPU = between(t0, t1)
	r.runNs, r.runCPU = between(t2, t3)
	return r
}

// ---------------------------------------------------------------- fanin

func faninSender(start <-chan struct{}, out chan<- int, m int, ready *sync.WaitGroup) {
	ready.Done()
	<-start
	for i := 0; i < m; i++ {
		out <- 1
	}
}

func faninReceiver(in <-chan int, total int64, done chan<- int64) {
	var count int64
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
	var ready sync.WaitGroup
	ready.Add(n)
	r.memBefore = runtimeMem()
	r.rssBefore = readRSS()
	t0 := now()
	in := make(chan int, inboxCap)
	go faninReceiver(in, int64(n)*int64(m), done)
	for i := 0; i < n; i++ {
		go faninSender(start, in, m, &ready)
	}
	ready.Wait() // every sender is running and about to wait for start
	t1 := now()
	r.rssAfter = readRSS()
	r.peakGoroutines = runtime.NumGoroutine()
	r.memAfter = runtimeMem()
	t2 := now()
	close(start) // the start signal, to every sender at once
	r.count = <-done
	t3 := now()
	verify("fanin", r.count, int64(n)*int64(m))
	r.setupNs, r.setupCPU = between(t0, t1)
	r.runNs, r.runCPU = between(t2, t3)
	return r
}

// ---------------------------------------------------------------- trace

type traceMsg struct {
	v    int // hops to go; <= 0: stop carrying the sum -v
	from int // sender's index, -1 for main
}

func traceProc(idx, total, n int, in <-chan traceMsg, next chan<- traceMsg, done chan<- struct{}, sum chan<- int, last, print bool) {
	count := 0
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
		hop := total - msg.v + 1
		if print {
			newRec("hop").Int("hop", int64(hop)).Int("lap", int64((hop-1)/n+1)).
				Int("from", int64(msg.from)).Int("to", int64(idx)).emit()
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
	r.rssBefore = readRSS()
	t0 := now()
	first := make(chan traceMsg, capIn)
	in := first
	for i := 0; i < n; i++ {
		var next chan traceMsg
		if i == n-1 {
			next = first
		} else {
			next = make(chan traceMsg, capIn)
		}
		go traceProc(i, n*m, n, in, next, done, sum, i == n-1, print)
		in = next
	}
	t1 := now()
	r.rssAfter = readRSS()
	t2 := now()
	first <- traceMsg{v: n * m, from: -1}
	<-done
	t3 := now()
	first <- traceMsg{v: 0, from: -1}
	r.count = int64(<-sum)
	verify("trace", r.count, int64(n)*int64(m))
	r.setupNs, r.setupCPU = between(t0, t1)
	r.runNs, r.runCPU = between(t2, t3)
	return r
}
