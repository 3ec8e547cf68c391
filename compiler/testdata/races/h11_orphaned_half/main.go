// want race=yes line=22
// held out: the helper's critical section guards one update, not the one after it
package main

var count, last int

func record(x int) {
	//svm:critical
	count++
	last = x
}

func work(i int) int {
	record(i)
	return i * i
}

func main() {
	out := make([]int, 50)
	//svm:pdo
	for i := range out {
		out[i] = work(i)
	}
}
