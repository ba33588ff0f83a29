// A plain Go ring with unbuffered channels, written for ringbench issue 10 as
// "the simplest ring a competent Go programmer writes in an afternoon".
//
// usage: ring N M
//
// N goroutines; goroutine i receives on ch[i] and sends on ch[(i+1)%N]. Main
// sends one token carrying N*M into ch[0]; each goroutine that receives v > 0
// passes v-1 on; the one that receives 0 tells main. So the token is sent
// N*M times between goroutines (plus main's one injection).
package main

import (
	"fmt"
	"os"
	"strconv"
)

func node(in <-chan int, out chan<- int, done chan<- struct{}) {
	for v := range in {
		if v == 0 {
			done <- struct{}{}
			return
		}
		out <- v - 1
	}
}

func main() {
	n, _ := strconv.Atoi(os.Args[1])
	m, _ := strconv.Atoi(os.Args[2])

	ch := make([]chan int, n)
	for i := range ch {
		ch[i] = make(chan int)
	}
	done := make(chan struct{})
	for i := 0; i < n; i++ {
		go node(ch[i], ch[(i+1)%n], done)
	}

	ch[0] <- n * m
	<-done
	fmt.Println("hops:", n*m)
}
