// want kind="serial" title="between the pdo at main.go:15 and the pdo at main.go:22" share=0.33
// A serial loop between two pdos, calling a helper the pdos also call: the
// other processor idles 40 ms of 2 x 60.
package main

import "time"

func spin(d time.Duration) int {
	time.Sleep(d)
	return 1
}

func main() {
	s := 0
	//svm:pdo loops(i) reduction(+: s)
	for i := 0; i < 2; i++ {
		s += spin(10 * time.Millisecond)
	}
	for k := 0; k < 4; k++ {
		s += spin(10 * time.Millisecond)
	}
	//svm:pdo loops(i) reduction(+: s)
	for i := 0; i < 2; i++ {
		s += spin(10 * time.Millisecond)
	}
	println(s)
}
