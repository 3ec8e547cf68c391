// A helper the pdo calls updates package state in its own critical
// section and atomic update: serialised in one process, each rank's own
// between ranks (TestOrphanedGuards).
package main

type stats struct {
	count, max int
	seen       []int
}

var global stats
var hits int64

func record(x int) {
	//svm:critical stats
	global.count++
	if x > global.max {
		global.max = x
	}
	global.seen = append(global.seen, x)
	//svm:end critical stats
}

func hit() {
	//svm:atomic
	hits++
}

func work(i int) int {
	v := (i * 37) % 101
	record(v)
	hit()
	return v
}

func main() {
	out := make([]int, 50)
	//svm:pdo
	for i := range out {
		out[i] = work(i)
	}
}
