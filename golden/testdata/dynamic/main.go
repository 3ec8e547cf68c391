// Dynamic scheduling: self-scheduling, guided self-scheduling and affinity
// scheduling of a loop whose iterations cost more and more. Which
// processor runs which iteration changes from run to run, so the golden
// traces mask the iteration counts of pdo-work; the record sequence of each
// processor and the result do not change.
package main

import "fmt"

func main() {
	const n = 40
	a := make([]int, n)
	//svm:pdo label(self) loops(i) strategy(dynamic(4))
	for i := 0; i < n; i++ {
		for j := 0; j < i; j++ {
			a[i] += j
		}
	}
	total := 0
	//svm:pdo label(guided) loops(i) strategy(guided(2)) reduction(+: total)
	for i := 0; i < n; i++ {
		total += a[i]
	}
	//svm:pdo label(affinity) loops(i, j) strategy(affinity)
	for i := 0; i < 4; i++ {
		for j := 0; j < 10; j++ {
			a[i*10+j] -= j
		}
	}
	fmt.Println(total, a[n-1])
}
