package main

import (
	"fmt"
	tm "time"
)

func main() {
	start := tm.Now()
	deadline := start.Add(1e9)
	out := make([]int64, 4)
	rounds := 0
	for tm.Since(start).Nanoseconds() < 1e8 && tm.Until(deadline) > 0 {
		//svm:pdo
		for i := range out {
			out[i] = tm.Now().UnixNano()
		}
		rounds++
	}
	clock := tm.Now
	fmt.Println(rounds > 0, clock().After(start), (tm.Since)(start) > 0, (tm.Now)().After(start))
}
