// A program that keeps main on the main thread, as GUI toolkits and some C
// libraries need: runtime.LockOSThread in init makes main run there (go
// run's promise), so main's code, and what it calls between and after
// parallel loops, runs on the process's first thread. Work that other
// goroutines post to main runs there too, as a GUI's event loop does it.
package main

import (
	"fmt"
	"runtime"
)

func init() { runtime.LockOSThread() }

type task func() string

func sum(xs []int) int {
	s := 0
	//svm:pdo loops(i) reduction(+: s)
	for i := range xs {
		s += xs[i]
	}
	return s
}

func main() {
	fmt.Println("main on the main thread:", onMainThread())
	xs := make([]int, 1000)
	for i := range xs {
		xs[i] = i
	}
	fmt.Println("sum", sum(xs), "still on it:", onMainThread())

	tasks := make(chan task)
	go func() {
		for i := range 3 {
			tasks <- func() string { return fmt.Sprint("task ", i, " on the main thread: ", onMainThread()) }
		}
		close(tasks)
	}()
	for t := range tasks {
		fmt.Println(t())
	}
	//svm:barrier
	fmt.Println("after a barrier:", onMainThread())
}
