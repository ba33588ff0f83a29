// A plain Go mutex hand-off ring, written for ringbench issue 10 as "the
// simplest ring a competent Go programmer writes in an afternoon" in the
// hand-off idiom: no channels on the hot path, no runtime.Gosched.
//
// usage: ring N M
//
// Each goroutine owns a node: a value and a sync.Mutex that is held while the
// node has nothing for it. A goroutine waits by locking its own mutex; its
// predecessor hands it a value by writing node.val and unlocking that mutex
// (Go allows any goroutine to unlock a sync.Mutex). Main hands N*M to node 0;
// each goroutine that receives v > 0 hands v-1 on; the one that receives 0
// tells main. So the value moves N*M times between goroutines (plus main's
// one injection).
package main

import (
	"fmt"
	"os"
	"strconv"
	"sync"
)

type node struct {
	mu   sync.Mutex // locked while val has not been handed over
	val  int
	next *node
}

func (nd *node) run(done chan<- struct{}) {
	for {
		nd.mu.Lock()
		v := nd.val
		if v == 0 {
			done <- struct{}{}
			return
		}
		nd.next.val = v - 1
		nd.next.mu.Unlock()
	}
}

func main() {
	n, _ := strconv.Atoi(os.Args[1])
	m, _ := strconv.Atoi(os.Args[2])

	nodes := make([]node, n)
	for i := range nodes {
		nodes[i].next = &nodes[(i+1)%n]
		nodes[i].mu.Lock()
	}
	done := make(chan struct{})
	for i := range nodes {
		go nodes[i].run(done)
	}

	nodes[0].val = n * m
	nodes[0].mu.Unlock()
	<-done
	fmt.Println("hops:", n*m)
}
