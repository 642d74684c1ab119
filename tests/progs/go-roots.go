// Go's stack roots (issue 23): goroutines started and ended all the
// time (runtime.newproc switches to the g0 stack by systemstack),
// allocation that grows stacks (morestack) and runs the collector.
// Usage: go-roots [MILLISECONDS]
package main

import (
	"os"
	"strconv"
	"sync"
	"time"
)

var sink []byte

//go:noinline
func work(depth int, n int) int {
	if depth > 0 {
		var pad [256]byte
		pad[depth%256] = byte(n)
		return work(depth-1, n+int(pad[depth%256])) + 1
	}
	s := 0
	for i := 0; i < n; i++ {
		s += i * i
	}
	sink = make([]byte, 4096)
	return s
}

func main() {
	ms := 1000
	if len(os.Args) > 1 {
		ms, _ = strconv.Atoi(os.Args[1])
	}
	end := time.Now().Add(time.Duration(ms) * time.Millisecond)
	for time.Now().Before(end) {
		var wg sync.WaitGroup
		for g := 0; g < 8; g++ {
			wg.Add(1)
			go func(g int) {
				defer wg.Done()
				work(20+g, 20000)
			}(g)
		}
		wg.Wait()
	}
}
