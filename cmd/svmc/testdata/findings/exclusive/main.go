// want kind="serial" title="serial code" share=0.5
// The leader alone works 30 ms while the others wait.
package main

import "time"

func main() {
	s := 0
	//svm:pdo loops(i) reduction(+: s)
	for i := 0; i < 2; i++ {
		s++
	}
	time.Sleep(30 * time.Millisecond)
	println(s)
}
