// Tasks and synchronisation: three parallel sections, then a parallel loop
// that updates a counter in a critical section, one atomically and one under
// a lock, and a replicated region that every processor runs once. The
// output is the serial output, except that the replicated increment counts
// the processors of the run.
//
//	go run ./examples/tasks                 # serial
//	svmc run -n 4 ./examples/tasks          # 4 processors
package main

import "fmt"

// work is a little computation whose result does not depend on who runs it.
func work(n int) int {
	s := 0
	for i := 1; i <= n; i++ {
		s = (s + i*i) % 1000003
	}
	return s
}

func main() {
	results := make([]int, 3)
	//svm:psection
	{
		//svm:section
		results[0] = work(100000)
		//svm:section
		results[1] = work(200000)
		//svm:section
		results[2] = work(300000)
	}

	critical, atomic, locked := 0, 0, 0
	//svm:pdo label(update) loops(i) strategy(dynamic(16))
	for i := 0; i < 1000; i++ {
		//svm:critical counter
		critical++
		//svm:atomic
		atomic += 2
		//svm:lock(locked)
		locked += 3
	}

	replicas := 0
	//svm:replicated
	{
		//svm:atomic
		replicas++
	}
	fmt.Println("sections:", results)
	fmt.Println("critical:", critical, "atomic:", atomic, "locked:", locked)
	fmt.Println("replicated region ran", replicas, "times")
}
